/* cluster/frontend: the frontend of a multi-node row's simulator roles
 * (docs/sim.md "Roles and the frontend"): routing, streaming, the clock. */
#define _GNU_SOURCE /* memmem */
#include "cluster/frontend.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the model stamps ---- */

/* The next stamp in [p, end): 0 "infbench_t0", 1 "infbench_t" in *kind,
 * its value in *v, which spans [*val, *vend). false: none. */
static bool next_stamp(const char *p, const char *end, const char **val, const char **vend,
                       int *kind, double *v)
{
	static const char key[] = "\"infbench_t";
	const size_t kl = sizeof key - 1;
	while (p < end) {
		const char *k = memmem(p, (size_t)(end - p), key, kl);
		if (!k)
			return false;
		const char *q = k + kl;
		p = k + 1;
		int kd;
		if (q < end && *q == '"')
			kd = 1, q++;
		else if (end - q >= 2 && q[0] == '0' && q[1] == '"')
			kd = 0, q += 2;
		else
			continue;
		while (q < end && *q == ' ')
			q++;
		if (q >= end || *q != ':')
			continue;
		for (q++; q < end && *q == ' ';)
			q++;
		char num[40];
		size_t n = 0;
		while (q + n < end && n < sizeof num - 1 &&
		       ((q[n] >= '0' && q[n] <= '9') || q[n] == '.' || q[n] == '-' || q[n] == '+' ||
		        q[n] == 'e' || q[n] == 'E'))
			n++;
		memcpy(num, q, n);
		num[n] = 0;
		char *e;
		double x = strtod(num, &e);
		if (e == num || !isfinite(x))
			continue;
		*val = q, *vend = q + (e - num), *kind = kd, *v = x;
		return true;
	}
	return false;
}

int cl_fe_restamp(cl_fe_clock *k, const char *in, size_t len, ib_buf *out)
{
	const char *p = in, *end = in + len, *val, *vend;
	int kind;
	double v;
	while (next_stamp(p, end, &val, &vend, &kind, &v)) {
		ib_buf_append(out, p, (size_t)(val - p));
		if (isnan(k->a))
			k->a = v;
		ib_buf_printf(out, "%.9f", kind == 0 ? k->t0 : k->base + (v - k->a));
		p = vend;
	}
	ib_buf_append(out, p, (size_t)(end - p));
	return out->err ? IB_ENOMEM : 0;
}

bool cl_fe_span(const char *in, size_t len, double *span)
{
	const char *p = in, *end = in + len, *val, *vend;
	int kind;
	double v, t0 = NAN, t = NAN;
	while (next_stamp(p, end, &val, &vend, &kind, &v)) {
		if (kind == 0 && isnan(t0))
			t0 = v;
		else if (kind == 1 && !(t >= v))
			t = v;
		p = vend;
	}
	if (isnan(t0) || isnan(t))
		return false;
	*span = t > t0 ? t - t0 : 0;
	return true;
}

/* ---- the server ---- */

typedef struct {
	char ip[64], name[128];
	int port;
	int inflight;
	/* connections kept alive between exchanges (a sweep's tens of thousands
	 * of requests would otherwise leave as many sockets in TIME_WAIT) */
	net_client **idle;
	size_t nidle, cap;
} fe_up;

typedef struct fe_req fe_req;
typedef struct fe_scrape fe_scrape;

struct cl_frontend {
	net_loop *loop;
	net_server *http;
	fe_up *pre, *work;
	size_t npre, nwork;
	double scale;
	int64_t start_ns;
	char headers[160];
	fe_req *reqs;         /* every request not yet freed */
	uint64_t completions; /* completions received (dynamo_frontend_requests_total) */
	int64_t active;       /* completions not yet answered (dynamo_frontend_active_requests) */
	fe_scrape *scrapes;   /* every GET /metrics not yet freed */
};

struct fe_req {
	cl_frontend *fe;
	net_conn *conn; /* NULL once the client is gone */
	char method[16];
	char *path, *body;
	size_t body_len;
	bool completion; /* POST /v1/completions or /v1/chat/completions */
	int stage;       /* 0: at a prefill role, 1: at the answering process */
	fe_up *up;
	net_client *cl;     /* the exchange under way */
	net_client *old[2]; /* finished exchanges, freed after the iteration */
	ib_buf req, acc, out;
	int status;
	bool streaming;
	char ctype[64];
	cl_fe_clock k;
	char *session;  /* X-Dynamo-Session-ID (NULL: none), passed on */
	uint64_t shash; /* its FNV-1a: the process of each stage is shash mod n */
	bool done;
	net_defer reap;
	fe_req *prev, *next;
};

static double fe_now(const cl_frontend *f)
{
	return (double)(ib_now_ns() - f->start_ns) * 1e-9 * f->scale;
}

static void req_free(fe_req *r)
{
	cl_frontend *f = r->fe;
	if (r->completion)
		f->active--;
	for (size_t i = 0; i < 2; i++)
		if (r->old[i])
			net_client_free(r->old[i]);
	if (r->cl)
		net_client_free(r->cl);
	net_defer_cancel(f->loop, &r->reap);
	if (r->prev)
		r->prev->next = r->next;
	else
		f->reqs = r->next;
	if (r->next)
		r->next->prev = r->prev;
	ib_buf_free(&r->req);
	ib_buf_free(&r->acc);
	ib_buf_free(&r->out);
	free(r->path);
	free(r->body);
	free(r->session);
	free(r);
}

/* After the loop's iteration: the finished exchanges' clients, and the
 * request itself once it is done (a client may not be freed from within
 * its own callback). */
static void on_reap(net_loop *l, net_defer *d)
{
	(void)l;
	fe_req *r = d->arg;
	if (r->done) {
		req_free(r);
		return;
	}
	for (size_t i = 0; i < 2; i++)
		if (r->old[i]) {
			net_client_free(r->old[i]);
			r->old[i] = NULL;
		}
}

/* The exchange under way is over (answered, failed or abandoned). */
static void retire(fe_req *r)
{
	if (!r->cl)
		return;
	r->up->inflight--;
	r->old[r->old[0] ? 1 : 0] = r->cl;
	r->cl = NULL;
	net_defer_queue(r->fe->loop, &r->reap);
}

/* The exchange under way ended with a whole answer: its connection waits
 * for the next request to the same process when it is still open. */
static void release(fe_req *r)
{
	fe_up *u = r->up;
	if (r->cl && net_client_is_open(r->cl) && !ib_grow(&u->idle, &u->cap, u->nidle + 1)) {
		u->idle[u->nidle++] = r->cl;
		r->cl = NULL;
		u->inflight--;
		return;
	}
	retire(r);
}

static void finish(fe_req *r)
{
	retire(r);
	if (r->conn)
		net_conn_set_data(r->conn, NULL);
	r->conn = NULL;
	r->done = true;
	net_defer_queue(r->fe->loop, &r->reap);
}

/* Answers 502 (or cuts a stream already begun) and ends the request. */
static void fail_req(fe_req *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_req(fe_req *r, const char *fmt, ...)
{
	if (r->conn && r->streaming) { /* the status went out: cut the stream */
		net_conn *c = r->conn;
		net_conn_set_data(c, NULL);
		r->conn = NULL;
		net_conn_abort(c);
	} else if (r->conn) {
		char m[512];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(m, sizeof m, fmt, ap);
		va_end(ap);
		for (char *s = m; *s; s++) /* a JSON string without escapes */
			if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20)
				*s = ' ';
		char body[700];
		int n = snprintf(body, sizeof body,
		                 "{\"error\": {\"message\": \"frontend: %s\", \"type\": "
		                 "\"BadGatewayError\", \"param\": null, \"code\": 502}}",
		                 m);
		net_conn_respond(r->conn, 502, "application/json", body,
		                 (size_t)(n < (int)sizeof body ? n : (int)sizeof body - 1), NULL);
	}
	finish(r);
}

static fe_up *least_busy(fe_up *v, size_t n)
{
	fe_up *b = &v[0];
	for (size_t i = 1; i < n; i++)
		if (v[i].inflight < b->inflight)
			b = &v[i];
	return b;
}

/* The process of a stage: a session's own (its id's hash mod n, so that
 * its turns meet their prefix in that process's cache), else the least
 * busy. */
static fe_up *route(const fe_req *r, fe_up *v, size_t n)
{
	return r->session ? &v[r->shash % n] : least_busy(v, n);
}

static void up_head(net_client *c, const net_http_msg *m, int64_t t, void *arg);
static void up_data(net_client *c, const char *d, size_t n, int64_t t, void *arg);
static void up_done(net_client *c, int err, const char *msg, void *arg);

/* Sends the request to u (the body as the client sent it, asking for model
 * stamps). false when no exchange could start. */
static bool send_to(fe_req *r, fe_up *u)
{
	net_client_cbs cbs = {.on_head = up_head, .on_data = up_data, .on_done = up_done};
	ib_error e = {0};
	r->up = u;
	r->acc.len = r->req.len = 0;
	r->status = 0;
	r->ctype[0] = 0;
	if (u->nidle) {
		r->cl = u->idle[--u->nidle];
		net_client_set_arg(r->cl, r);
	} else if (net_client_new(r->fe->loop, u->ip, u->port, &cbs, r, &r->cl, &e)) {
		return false;
	}
	u->inflight++;
	ib_buf_printf(&r->req, "%s %s HTTP/1.1\r\nHost: %s:%d\r\nX-Infbench-Model-Time: 1\r\n",
	              r->method, r->path, u->ip, u->port);
	if (r->session)
		ib_buf_printf(&r->req, "X-Dynamo-Session-ID: %s\r\n", r->session);
	ib_buf_printf(&r->req, "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
	              r->body_len);
	ib_buf_append(&r->req, r->body ? r->body : "", r->body_len);
	if (r->req.err || net_client_send(r->cl, r->req.data, r->req.len)) {
		retire(r);
		return false;
	}
	return true;
}

static void up_head(net_client *c, const net_http_msg *m, int64_t t, void *arg)
{
	(void)t;
	fe_req *r = arg;
	if (r->done || c != r->cl)
		return;
	r->status = m->status;
	const net_header *h = net_http_header(m, "Content-Type");
	snprintf(r->ctype, sizeof r->ctype, "%.*s", h ? (int)h->value_len : 0, h ? h->value : "");
	if (r->stage == 1 && r->conn && m->status == 200 &&
	    !strncmp(r->ctype, "text/event-stream", 17)) {
		net_conn_stream_begin(r->conn, 200, "text/event-stream");
		r->streaming = true;
	}
}

/* Streams the whole SSE events of r->acc to the client, restamped; with
 * all, what is left too. false when out of memory. */
static bool relay_events(fe_req *r, bool all)
{
	size_t used = 0;
	while (used < r->acc.len) {
		const char *s = r->acc.data + used, *nn = memmem(s, r->acc.len - used, "\n\n", 2);
		size_t n = nn ? (size_t)(nn + 2 - s) : all ? r->acc.len - used : 0;
		if (!n)
			break;
		r->out.len = 0;
		if (cl_fe_restamp(&r->k, s, n, &r->out) ||
		    net_chunk_append(net_conn_out(r->conn), r->out.data, r->out.len))
			return false;
		used += n;
	}
	if (used) {
		memmove(r->acc.data, r->acc.data + used, r->acc.len - used);
		r->acc.len -= used;
	}
	net_conn_mark(r->conn);
	return true;
}

static void up_data(net_client *c, const char *d, size_t n, int64_t t, void *arg)
{
	(void)t;
	fe_req *r = arg;
	if (r->done || c != r->cl)
		return;
	if (ib_buf_append(&r->acc, d, n) || (r->streaming && r->conn && !relay_events(r, false))) {
		fail_req(r, "out of memory");
		return;
	}
}

static void up_done(net_client *c, int err, const char *msg, void *arg)
{
	fe_req *r = arg;
	if (r->done || c != r->cl)
		return;
	fe_up *u = r->up;
	if (err)
		retire(r);
	else
		release(r);
	if (err) {
		fail_req(r, "%s %s: %s", u->name, r->path, msg ? msg : "failed");
		return;
	}
	if (r->stage == 0 && r->status == 200) { /* prefilled: on to a decode role */
		double span;
		if (!cl_fe_span(r->acc.data ? r->acc.data : "", r->acc.len, &span)) {
			fail_req(r, "the prefill role %s answered without model stamps", u->name);
			return;
		}
		r->k.base = r->k.t0 + span;
		r->stage = 1;
		if (!send_to(r, route(r, r->fe->work, r->fe->nwork)))
			fail_req(r, "cannot reach a decode role");
		return;
	}
	if (r->streaming) {
		if (!relay_events(r, true)) {
			fail_req(r, "out of memory");
			return;
		}
		net_conn_stream_end(r->conn);
	} else {
		ib_buf *b = &r->acc;
		if (r->completion && r->status == 200) {
			r->out.len = 0;
			if (cl_fe_restamp(&r->k, r->acc.data ? r->acc.data : "", r->acc.len,
			                  &r->out)) {
				fail_req(r, "out of memory");
				return;
			}
			b = &r->out;
		}
		net_conn_respond(r->conn, r->status, r->ctype[0] ? r->ctype : "application/json",
		                 b->data ? b->data : "", b->len, NULL);
	}
	finish(r);
}

static bool path_is(const net_http_msg *m, const char *p)
{
	return m->path_len == strlen(p) && !memcmp(m->path, p, m->path_len);
}

/* ---- GET /metrics: every process scraped, merged per role ---- */

typedef struct {
	fe_scrape *s;
	fe_up *u;
	const char *role;
	net_client *cl;
	ib_buf body;
	int status;
	bool over;
} fe_part;

struct fe_scrape {
	cl_frontend *fe;
	net_conn *conn; /* NULL once the client is gone */
	fe_part *parts;
	size_t n, pending;
	bool done;
	net_defer reap;
	fe_scrape *prev, *next;
};

static void scrape_free(fe_scrape *s)
{
	cl_frontend *f = s->fe;
	for (size_t i = 0; i < s->n; i++) {
		if (s->parts[i].cl)
			net_client_free(s->parts[i].cl);
		ib_buf_free(&s->parts[i].body);
	}
	net_defer_cancel(f->loop, &s->reap);
	if (s->prev)
		s->prev->next = s->next;
	else
		f->scrapes = s->next;
	if (s->next)
		s->next->prev = s->prev;
	if (s->conn)
		net_conn_set_data(s->conn, NULL);
	free(s->parts);
	free(s);
}

static void scrape_reap(net_loop *l, net_defer *d)
{
	(void)l;
	scrape_free(d->arg);
}

/* Every process answered or failed: the merged text (a comment names each
 * process that did not answer), 502 when none did. */
static void scrape_answer(fe_scrape *s)
{
	const char **bodies = calloc(s->n + 1, sizeof *bodies),
	           **roles = calloc(s->n + 1, sizeof *roles);
	size_t *lens = calloc(s->n + 1, sizeof *lens), k = 0;
	ib_buf out = {0};
	int rc = !bodies || !roles || !lens ? IB_ENOMEM : 0;
	for (size_t i = 0; !rc && i < s->n; i++) {
		fe_part *p = &s->parts[i];
		if (p->status == 200 && !p->body.err) {
			bodies[k] = p->body.data ? p->body.data : "";
			lens[k] = p->body.len;
			roles[k++] = p->role;
		} else {
			ib_buf_printf(&out,
			              "# infbench frontend: %s (%s) did not answer /metrics\n",
			              p->u->name, p->role);
		}
	}
	if (!rc)
		rc = cl_fe_merge_metrics(bodies, lens, roles, k, &out);
	/* the frontend's own, as Dynamo's frontend names them */
	ib_buf_printf(&out,
	              "# HELP dynamo_frontend_requests_total Completions the frontend received.\n"
	              "# TYPE dynamo_frontend_requests_total counter\n"
	              "dynamo_frontend_requests_total %llu\n"
	              "# HELP dynamo_frontend_active_requests Completions not yet answered.\n"
	              "# TYPE dynamo_frontend_active_requests gauge\n"
	              "dynamo_frontend_active_requests %lld\n",
	              (unsigned long long)s->fe->completions, (long long)s->fe->active);
	if (s->conn) {
		if (rc || !k)
			net_conn_respond(s->conn, 502, "text/plain",
			                 "no process answered /metrics\n", 29, NULL);
		else
			net_conn_respond(s->conn, 200, "text/plain; version=0.0.4; charset=utf-8",
			                 out.data, out.len, NULL);
	}
	ib_buf_free(&out);
	free(bodies);
	free(roles);
	free(lens);
	s->done = true;
	net_defer_queue(s->fe->loop, &s->reap);
}

static void part_head(net_client *c, const net_http_msg *m, int64_t t, void *arg)
{
	(void)c, (void)t;
	((fe_part *)arg)->status = m->status;
}

static void part_data(net_client *c, const char *d, size_t n, int64_t t, void *arg)
{
	(void)c, (void)t;
	ib_buf_append(&((fe_part *)arg)->body, d, n);
}

static void part_done(net_client *c, int err, const char *msg, void *arg)
{
	(void)c, (void)msg;
	fe_part *p = arg;
	if (p->over)
		return;
	p->over = true;
	if (err)
		p->status = 0;
	if (--p->s->pending == 0)
		scrape_answer(p->s);
}

static void scrape(cl_frontend *f, net_conn *c)
{
	fe_scrape *s = calloc(1, sizeof *s);
	size_t n = f->npre + f->nwork;
	if (!s || !(s->parts = calloc(n, sizeof *s->parts))) {
		free(s);
		net_conn_respond(c, 500, "application/json", "{}", 2, NULL);
		return;
	}
	s->fe = f;
	s->conn = c;
	s->n = s->pending = n;
	s->reap = (net_defer){.fn = scrape_reap, .arg = s};
	s->next = f->scrapes;
	if (f->scrapes)
		f->scrapes->prev = s;
	f->scrapes = s;
	net_conn_set_data(c, s);
	net_client_cbs cbs = {.on_head = part_head, .on_data = part_data, .on_done = part_done};
	for (size_t i = 0; i < n; i++) {
		fe_part *p = &s->parts[i];
		p->s = s;
		p->u = i < f->npre ? &f->pre[i] : &f->work[i - f->npre];
		p->role = i < f->npre ? "prefill" : f->npre ? "decode" : "worker";
	}
	for (size_t i = 0; i < n; i++) {
		fe_part *p = &s->parts[i];
		char req[300];
		int len =
		    snprintf(req, sizeof req,
		             "GET /metrics HTTP/1.1\r\nHost: %s:%d\r\nConnection: close\r\n\r\n",
		             p->u->ip, p->u->port);
		ib_error e = {0};
		if (net_client_new(f->loop, p->u->ip, p->u->port, &cbs, p, &p->cl, &e) ||
		    net_client_send(p->cl, req, (size_t)len))
			part_done(p->cl, IB_EIO, NULL, p);
	}
}

static void on_request(net_conn *c, const net_http_msg *m, const char *body, size_t len, void *arg)
{
	cl_frontend *f = arg;
	bool post = m->method_len == 4 && !memcmp(m->method, "POST", 4);
	if (path_is(m, "/health")) {
		net_conn_respond(c, 200, "application/json", "{}", 2, NULL);
		return;
	}
	if (!post && path_is(m, "/metrics")) {
		scrape(f, c);
		return;
	}
	fe_req *r = calloc(1, sizeof *r);
	const net_header *sh = net_http_header(m, "X-Dynamo-Session-ID");
	if (!r || m->method_len >= sizeof r->method || !(r->path = strndup(m->path, m->path_len)) ||
	    (len && !(r->body = malloc(len))) ||
	    (sh && sh->value_len && !(r->session = strndup(sh->value, sh->value_len)))) {
		if (r)
			free(r->path), free(r->body);
		free(r);
		net_conn_respond(c, 500, "application/json", "{}", 2, NULL);
		return;
	}
	memcpy(r->method, m->method, m->method_len);
	if (r->session)
		r->shash = ib_fnv1a(IB_FNV1A_BASIS, sh->value, sh->value_len);
	if (len)
		memcpy(r->body, body, len);
	r->fe = f;
	r->conn = c;
	r->body_len = len;
	r->completion =
	    post && (path_is(m, "/v1/completions") || path_is(m, "/v1/chat/completions"));
	if (r->completion)
		f->completions++, f->active++;
	double t0 = fe_now(f);
	r->k = (cl_fe_clock){.t0 = t0, .base = t0, .a = NAN};
	r->reap = (net_defer){.fn = on_reap, .arg = r};
	r->next = f->reqs;
	if (f->reqs)
		f->reqs->prev = r;
	f->reqs = r;
	net_conn_set_data(c, r);
	r->stage = r->completion && f->npre ? 0 : 1;
	fe_up *u = r->stage ? route(r, f->work, f->nwork) : route(r, f->pre, f->npre);
	if (!send_to(r, u))
		fail_req(r, "cannot reach %s", u->name);
}

static void on_close(net_conn *c, void *arg)
{
	cl_frontend *f = arg;
	void *d = net_conn_get_data(c);
	if (!d)
		return;
	for (fe_scrape *s = f->scrapes; s; s = s->next)
		if (d == s) { /* the merge goes nowhere: freed once every part ended */
			s->conn = NULL;
			return;
		}
	fe_req *r = d;
	r->conn = NULL;
	finish(r);
}

/* "HOST:PORT" into u. */
static int parse_up(const char *s, fe_up *u, ib_error *e)
{
	const char *colon = strrchr(s, ':');
	char *end;
	long port = colon ? strtol(colon + 1, &end, 10) : 0;
	if (!colon || colon == s || colon - s >= (long)sizeof u->name || !colon[1] || *end ||
	    port < 1 || port > 65535)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "'%s' is not HOST:PORT", s);
	snprintf(u->name, sizeof u->name, "%s", s);
	char host[128];
	snprintf(host, sizeof host, "%.*s", (int)(colon - s), s);
	u->port = (int)port;
	return net_resolve(host, u->ip, e);
}

static int parse_ups(const char *const *v, size_t n, fe_up **out, ib_error *e)
{
	*out = n ? calloc(n, sizeof **out) : NULL;
	if (n && !*out)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	for (size_t i = 0; i < n; i++) {
		int rc = parse_up(v[i], &(*out)[i], e);
		if (rc)
			return rc;
	}
	return 0;
}

int cl_fe_new(net_loop *l, const cl_fe_opts *o, cl_frontend **out, ib_error *e)
{
	*out = NULL;
	if (!o->nworkers)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
		               "no process to answer: give the decode roles or the workers");
	cl_frontend *f = calloc(1, sizeof *f);
	if (!f)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	f->loop = l;
	f->npre = o->nprefill;
	f->nwork = o->nworkers;
	f->scale = o->time_scale > 0 ? o->time_scale : 1;
	f->start_ns = ib_now_ns();
	int rc = parse_ups(o->prefill, o->nprefill, &f->pre, e);
	if (!rc)
		rc = parse_ups(o->workers, o->nworkers, &f->work, e);
	net_server_cbs cbs = {.on_request = on_request, .on_close = on_close};
	if (!rc)
		rc = net_server_new(l, o->host ? o->host : "127.0.0.1", o->port, &cbs, f, &f->http,
		                    e);
	if (rc) {
		cl_fe_free(f);
		return rc;
	}
	/* as the simulator announces itself: the client marks its results
	 * simulated and knows the scale (docs/sim.md "How a client knows") */
	if (o->time_scale > 0)
		snprintf(f->headers, sizeof f->headers,
		         "X-Infbench-Engine: infbench-sim\r\nX-Infbench-Time-Scale: %.17g\r\n",
		         o->time_scale);
	else
		snprintf(f->headers, sizeof f->headers, "X-Infbench-Engine: infbench-sim\r\n");
	net_server_set_headers(f->http, f->headers);
	*out = f;
	return 0;
}

int cl_fe_port(const cl_frontend *f)
{
	return net_server_port(f->http);
}

void cl_fe_free(cl_frontend *f)
{
	if (!f)
		return;
	if (f->http)
		net_server_free(f->http);
	while (f->reqs)
		req_free(f->reqs);
	while (f->scrapes)
		scrape_free(f->scrapes);
	fe_up *ups[2] = {f->pre, f->work};
	size_t n[2] = {f->npre, f->nwork};
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; ups[k] && i < n[k]; i++) {
			while (ups[k][i].nidle)
				net_client_free(ups[k][i].idle[--ups[k][i].nidle]);
			free(ups[k][i].idle);
		}
	free(f->pre);
	free(f->work);
	free(f);
}
