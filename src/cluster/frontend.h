/* cluster/frontend — the frontend of a multi-node row on the simulator
 * engine (docs/sim.md "Roles and the frontend"): one OpenAI endpoint in
 * front of simulator processes, one per role and node (`infbench sim
 * --role prefill|decode`, or whole workers of an aggregated row), routing
 * each completion to the least busy prefill process and then to the least
 * busy answering process, and streaming the answer back. A request with an
 * X-Dynamo-Session-ID header (a conversation, as Dynamo's router binds it)
 * goes instead to the processes its id names: FNV-1a of the id modulo the
 * prefill processes, then modulo the answering ones, so that every turn of
 * a conversation meets its prefix in the same processes' caches; the
 * header is passed on to them.
 *
 * The clock. Each simulator process stamps its answers with its own model
 * clock (X-Infbench-Model-Time), and two processes' clocks disagree (each
 * leaves its own stalls out). So the frontend owns the clock the client
 * sees: a request arrives at the frontend's time t0 (its wall clock since it
 * started, times the time scale); the prefill role's answer gives only a
 * span (its first token's stamp minus its arrival stamp: queue and
 * prefill, model time of that process); the answering role's stamps are
 * moved onto the frontend's clock by their offset from that role's own
 * arrival stamp: t = t0 + span + (T - T0). Every duration a client derives
 * within one request is then model time of the processes that served it. */
#ifndef IB_CLUSTER_FRONTEND_H
#define IB_CLUSTER_FRONTEND_H

#include "base/base.h"
#include "net/net.h"

#include <stdbool.h>
#include <stddef.h>

/* One request's clock mapping. */
typedef struct {
	double t0;   /* the request's arrival on the frontend's clock (s) */
	double base; /* the answering role's arrival on the frontend's clock */
	double a;    /* the same moment on that role's clock; NAN until read */
} cl_fe_clock;

/* Appends in[0..len) to out with its model stamps moved onto the
 * frontend's clock: the value of each "infbench_t0" member becomes k->t0,
 * that of each "infbench_t" member k->base + (T - k->a); the first stamp
 * read sets k->a when it is NAN (a role stamps "infbench_t0" first).
 * in is a piece of an answer holding whole members (one SSE event, or a
 * whole body); everything else is copied as is. Returns 0 or IB_ENOMEM. */
int cl_fe_restamp(cl_fe_clock *k, const char *in, size_t len, ib_buf *out);

/* A prefill role's answer in[0..len): *span = its largest "infbench_t"
 * minus its first "infbench_t0" (at least 0). false when either is absent. */
bool cl_fe_span(const char *in, size_t len, double *span);

/* The frontend's /metrics: the Prometheus text bodies[i][0..lens[i]) of
 * the processes behind it merged into out, one series per metric, label
 * set and role: each sample gets the label infbench_role="roles[i]"
 * (prefill, decode, worker) and the samples of one series are summed over
 * the role's processes (counters, histograms' buckets, sums and counts,
 * untyped and gauges), except gauges of fractions (a name with "perc",
 * "usage" or "ratio"), which take the mean. Families keep the first
 * process's HELP and TYPE, in order of first appearance, each with all its
 * series; _bucket/_sum/_count/_created series go with their histogram or
 * summary. Lines that are not samples are left out. Returns 0 or
 * IB_ENOMEM. */
int cl_fe_merge_metrics(const char *const *bodies, const size_t *lens, const char *const *roles,
                        size_t n, ib_buf *out);

typedef struct {
	const char *host; /* listen address (NULL: 127.0.0.1) */
	int port;         /* 0: any free port */
	/* the simulator processes, "HOST:PORT" (HOST an IPv4 address or a name
	 * the resolver knows): prefill roles (none: an aggregated row), and the
	 * processes that answer (decode roles, or whole workers) */
	const char *const *prefill;
	size_t nprefill;
	const char *const *workers;
	size_t nworkers;
	double time_scale; /* the roles' --time-scale (announced; the clock's rate); <= 0: 1 */
} cl_fe_opts;

typedef struct cl_frontend cl_frontend;

/* Starts the frontend on loop l: resolves the processes' addresses and
 * listens. IB_EINVAL (named in e) for an address that is not HOST:PORT or
 * that does not resolve, or no workers; IB_EIO when it cannot listen;
 * IB_ENOMEM. The caller runs the loop and frees the frontend after it. */
int cl_fe_new(net_loop *l, const cl_fe_opts *o, cl_frontend **out, ib_error *e);
int cl_fe_port(const cl_frontend *f);
/* Closes the listener and every connection, and frees f (NULL: nothing). */
void cl_fe_free(cl_frontend *f);

#endif
