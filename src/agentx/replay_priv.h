/* The replay's records and their writer (private to agentx/). */
#ifndef IB_AGENTX_REPLAY_PRIV_H
#define IB_AGENTX_REPLAY_PRIV_H

#include "agentx/agentx.h"
#include "bench/bench.h"

/* One finished request, as aiperf's profile_export.jsonl row holds it.
 * Times are nanoseconds on the replay's clock (Unix epoch at the start plus
 * model time on a time-scaled server); latencies milliseconds. */
typedef struct {
	const ax_trace *trace;
	uint64_t id, replay;
	size_t entry, turn; /* turn: the entry index, or the request within the subagent */
	bool subagent, warmup, ok, cancelled;
	int64_t start_ns, ack_ns, end_ns;
	double ttft_ms, latency_ms;
	int64_t isl, osl;
	int64_t hit_tokens; /* a perfect per-replay prefix cache's hits */
	int code;           /* HTTP status of a failure (0: none) */
	char etype[64];
	char emsg[320];
} ax_rec;

typedef struct {
	const ax_replay_opts *o;
	const ax_rec *rec;
	size_t n;
	double start_unix, end_unix; /* the profiling window */
	double scale;
	bool cancelled;
	size_t ntraces; /* kept after dropping */
	/* the server metrics of the window, per endpoint */
	const struct ax_smx *mx;
	size_t nmx;
} ax_art;

/* ---- the server's Prometheus metrics over the window (srvmetrics.c) ---- */
typedef struct {
	char *key; /* name '\0' labels (the raw text inside {...}) */
	size_t key_len, name_len;
	uint64_t hash;
	bench_prom_type type;
	bool has_first, has_last; /* counters: at the start, at the end */
	double first, last;
	size_t nsamples; /* gauges: every sample in the window */
	double sum, min, max;
} ax_mseries;

/* One endpoint: the URL (endpoint_url in the export), its series. */
typedef struct ax_smx {
	char *url, *path;
	bench_cfg http;
	char host[256], name[256];
	int port;
	ax_mseries *s;
	size_t n, cap;
	size_t *idx, icap; /* open addressing over s: index + 1 */
	bool ok_start, ok_end;
} ax_smx;

/* url "http[s]://host:port[/path]" (path default /metrics; https with
 * the replay's client context tls): 0, IB_EINVAL (a bad URL, https
 * without tls), IB_ENOMEM. */
int ax_smx_init(ax_smx *m, const char *url, net_tls *tls, ib_error *e);
void ax_smx_free(ax_smx *m);
/* A Prometheus text at phase 0 (the window's start: counters' base, a
 * gauge sample), 1 (a gauge sample within) or 2 (the end: counters' last
 * value, a gauge sample). 0 or IB_ENOMEM. */
int ax_smx_feed(ax_smx *m, const char *text, size_t n, int phase);
/* GET the endpoint (1 s deadline) and feed it; unreachable: nothing fed
 * (0). */
int ax_smx_scrape(ax_smx *m, int phase);
/* aiperf's server_metrics_export.json over the nm endpoints into *json
 * (NULL when nothing was scraped): metric (a counter without "_total") →
 * {type, description, unit, series: [{endpoint_url, labels, stats}]},
 * counters' stats {total, rate} (dur seconds), gauges' {avg, min, max};
 * and the same as CSV lines (metric,type,endpoint_url,labels,stat,value)
 * after a header. 0, IB_ENOMEM. */
int ax_smx_export(ib_arena *a, const ax_smx *m, size_t nm, double dur, ib_val **json, ib_buf *csv,
                  ib_error *e);

/* Writes <artifact_dir, else out_dir/aiperf_artifacts>/{profile_export.jsonl,
 * profile_export_aiperf.json, and server_metrics_export.{json,csv} when
 * a server metrics endpoint was scraped} and <out_dir>/env (none
 * without out_dir),
 * each atomically. */
int ax_art_write(const ax_art *a, ib_error *e);

#endif
