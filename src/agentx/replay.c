/* The AgentX replay client (AX2-AX5): ax_sched's lanes driven over bench/'s
 * connections (net_client) and stream parser (bench_sse) on one event loop,
 * request bodies composed from per-trace tables of block texts, the records
 * handed to the artifact writer (agentx.h, docs/agentx.md). */
#include "agentx/replay_priv.h"
#include "bench/bench.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OOM(e) ib_fail((e), IB_ENOMEM, "", 0, 0, "out of memory")

void ax_replay_defaults(ax_replay_opts *o)
{
	memset(o, 0, sizeof *o);
	o->endpoint = "/v1/chat/completions";
	o->concurrency = 1;
	o->duration = 3600;
	o->grace = 30;
	o->seed = 42;
	o->warmup_per_lane = 10;
	o->tstar_lo = 0.25, o->tstar_hi = 0.75;
	o->global_idle_cap = 10, o->tree_idle_cap = 300;
	o->request_timeout = 1800;
	o->out_dir = ".";
	o->live_fail_threshold = -1;
}

typedef struct replay replay;

typedef struct {
	replay *r;
	net_client *c;
	bench_sse sse;
	bool busy;
	ax_dispatch d;
	int status;
	char reason[64];
	ib_buf req;
	ib_buf errbody;
	net_timer timer;
	char failmsg[128];
	int64_t st_ns;  /* wall (monotonic) send time */
	int64_t hit;    /* theoretical prefix-cache hit tokens */
	double t_start; /* model time of the send */
} rslot;

/* (replay, hash id) pairs already sent by one lane's tree replay: the
 * theoretical prefix cache (cleared when the lane moves to its next replay,
 * so it holds one tree's blocks, not the whole run's) */
typedef struct {
	uint64_t *k; /* pairs: 2 words per entry, replay 0 = empty */
	size_t cap, n;
	uint64_t replay; /* the lane's tree replay it holds */
} seen_set;

struct replay {
	const ax_replay_opts *o;
	ib_log_fn log;
	void *log_arg;
	const ax_corpus *corpus;
	const ax_blocks *blocks;
	ax_sched *s;
	net_loop *loop;
	char host[256], name[256];
	int port;
	net_tls *tls; /* https: every connection's client context */
	/* connections: slots grow on demand (subagents exceed the lanes) */
	rslot **slots;
	size_t nslots, cap, inflight;
	/* the per-trace tables of block texts, least recently used dropped */
	ax_texts **tx;
	uint64_t *tx_used, tick;
	size_t tx_bytes, budget;
	ax_conv conv;
	seen_set *seen; /* per lane */
	/* request buffers not in use: a slot holds one only while its request
	 * is being sent (until the response head), so their number follows
	 * the uploads in progress, not the lanes */
	ib_buf *pool;
	size_t npool, poolcap;
	/* the clock: model seconds since wall0 at scale S */
	int64_t wall0;
	double unix0, S;
	bool profiling, stopping;
	double prof_start, prof_end;
	net_timer wake, grace, poll, ptick, wgrace;
	/* ended requests: warmup; profiling completed and failed (the live
	 * threshold, the progress) */
	size_t warm_done, prof_ok, prof_fail;
	double prof_out;
	bool exceeded; /* the live failed-request threshold stopped it */
	/* the server metrics endpoints: the server's /metrics and
	 * metrics_urls, scraped at the start and the end of the profiling
	 * window and every metrics_interval seconds in it */
	bench_cfg http;
	ax_smx *mx;
	size_t nmx;
	net_timer mtick;
	/* results */
	ax_rec *rec;
	size_t nrec, reccap;
	size_t sent, cancelled;
	ib_error err;
};

static double model_now(const replay *r)
{
	return (double)(ib_now_ns() - r->wall0) * 1e-9 * r->S;
}

static int64_t wall_of(const replay *r, double t)
{
	return r->wall0 + (int64_t)(t / r->S * 1e9);
}

static void fatal(replay *r, int code, const char *msg)
{
	if (!r->err.code)
		ib_fail(&r->err, code, "", 0, 0, "%s", msg);
	net_stop(r->loop);
}

/* ---- the theoretical prefix cache ---- */

static size_t seen_slot(const seen_set *s, uint64_t rep, uint64_t id)
{
	uint64_t h = (rep * 0x9e3779b97f4a7c15ull) ^ (id * 0xc2b2ae3d27d4eb4full);
	size_t i = (size_t)(h >> 13) & (s->cap - 1);
	while (s->k[2 * i] && (s->k[2 * i] != rep || s->k[2 * i + 1] != id))
		i = (i + 1) & (s->cap - 1);
	return i;
}

/* Whether (rep, id) was there; adds it. -1: out of memory. */
static int seen_add(seen_set *s, uint64_t rep, uint64_t id)
{
	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		uint64_t *k = calloc(2 * cap, sizeof *k);
		if (!k)
			return -1;
		seen_set ns = {k, cap, 0, s->replay};
		for (size_t i = 0; i < s->cap; i++)
			if (s->k[2 * i]) {
				size_t j = seen_slot(&ns, s->k[2 * i], s->k[2 * i + 1]);
				k[2 * j] = s->k[2 * i], k[2 * j + 1] = s->k[2 * i + 1];
			}
		free(s->k);
		ns.n = s->n;
		*s = ns;
	}
	size_t i = seen_slot(s, rep, id);
	if (s->k[2 * i])
		return 1;
	s->k[2 * i] = rep, s->k[2 * i + 1] = id;
	s->n++;
	return 0;
}

/* The request's leading blocks a perfect prefix cache of its replay holds,
 * in tokens; records its blocks. -1: out of memory. */
static int64_t prefix_hits(replay *r, const ax_dispatch *d, int64_t bs)
{
	const ax_request *q = d->req;
	size_t nb = (size_t)(q->in / bs);
	if (nb > q->nhash)
		nb = q->nhash;
	seen_set *ss = &r->seen[d->lane];
	if (ss->replay != d->replay) { /* the lane's previous tree drained */
		if (ss->n)
			memset(ss->k, 0, 2 * ss->cap * sizeof *ss->k);
		ss->n = 0;
		ss->replay = d->replay;
	}
	bool prefix = true;
	int64_t hits = 0;
	for (size_t i = 0; i < nb; i++) {
		int was = seen_add(ss, d->replay, (uint64_t)q->hash_ids[i]);
		if (was < 0)
			return -1;
		prefix = prefix && was;
		hits += prefix ? bs : 0;
	}
	return hits;
}

/* ---- request bodies ---- */

static ax_texts *texts_of(replay *r, size_t trace)
{
	if (!r->tx[trace]) {
		/* over budget: drop the least recently used tables */
		while (r->tx_bytes > r->budget) {
			size_t lru = SIZE_MAX;
			for (size_t i = 0; i < r->corpus->n; i++)
				if (r->tx[i] &&
				    (lru == SIZE_MAX || r->tx_used[i] < r->tx_used[lru]))
					lru = i;
			if (lru == SIZE_MAX)
				break;
			r->tx_bytes -= ax_texts_bytes(r->tx[lru]);
			ax_texts_free(r->tx[lru]);
			r->tx[lru] = NULL;
		}
		if (ax_texts_new(r->blocks, &r->corpus->t[trace], &r->tx[trace]))
			return NULL;
		r->tx_bytes += ax_texts_bytes(r->tx[trace]);
	}
	r->tx_used[trace] = ++r->tick;
	return r->tx[trace];
}

/* The conversation up to d's request: the chain's turns in order. */
static int conv_to(replay *r, const ax_dispatch *d)
{
	const ax_trace *t = &r->corpus->t[d->trace];
	const ax_request *prev = NULL;
	if (d->subagent) {
		const ax_subagent *sa = &t->entries[d->entry].s;
		for (size_t q = 0; q <= d->sub_req; q++) {
			if (ax_conv_turn(&r->conv, t, prev, &sa->req[q]))
				return IB_ENOMEM;
			prev = &sa->req[q];
		}
		return 0;
	}
	for (size_t k = 0; k <= d->entry; k++) {
		if (t->entries[k].is_subagent)
			continue;
		if (ax_conv_turn(&r->conv, t, prev, &t->entries[k].r))
			return IB_ENOMEM;
		prev = &t->entries[k].r;
	}
	return 0;
}

/* The whole request into s->req: the head with a fixed-width
 * Content-Length, then the body composed in place and its length patched
 * in (the body is never copied). */
static int build(replay *r, rslot *s)
{
	const ax_replay_opts *o = r->o;
	const ax_dispatch *d = &s->d;
	const ax_trace *t = &r->corpus->t[d->trace];
	ax_texts *tx = texts_of(r, d->trace);
	if (!tx || conv_to(r, d))
		return IB_ENOMEM;
	size_t before = ax_texts_bytes(tx);
	char marker[20];
	ax_cache_bust(o->seed, d->replay, marker);
	ib_buf *b = &s->req;
	b->len = 0;
	ib_buf_printf(b,
	              "POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
	              "Accept: text/event-stream\r\nUser-Agent: infbench-agentx\r\n",
	              o->endpoint, r->name, r->port);
	if (o->api_key)
		ib_buf_printf(b, "Authorization: Bearer %s\r\n", o->api_key);
	ib_buf_printf(b,
	              "X-Request-Id: agentx-%llu\r\nX-Correlation-Id: %s-r%llu\r\n"
	              "X-Infbench-Model-Time: 1\r\n",
	              (unsigned long long)d->id, t->id, (unsigned long long)d->replay);
	if (o->dynamo_session) {
		char sid[48];
		ax_session_id(o->seed, d->replay, d->subagent, d->entry, sid);
		ib_buf_printf(b, "X-Dynamo-Session-ID: %s\r\n", sid);
	}
	ib_buf_puts(b, "Content-Length: ");
	size_t at = b->len;
	ib_buf_puts(b, "000000000000\r\n\r\n");
	size_t body = b->len;
	int64_t tail_key = (int64_t)(d->entry << 20 | d->sub_req);
	if (ax_chat_body(b, r->blocks, tx, t, &r->conv, d->req, tail_key, o->model, d->max_tokens,
	                 marker) ||
	    ib_buf_error(b))
		return IB_ENOMEM;
	char num[16];
	snprintf(num, sizeof num, "%012zu", b->len - body);
	memcpy(b->data + at, num, 12);
	r->tx_bytes += ax_texts_bytes(tx) - before;
	return 0;
}

/* ---- the requests ---- */

/* The slot's request buffer back to the pool (its request has been sent). */
static void give_buf(replay *r, rslot *s)
{
	if (!s->req.data)
		return;
	if (ib_grow(&r->pool, &r->poolcap, r->npool + 1)) {
		ib_buf_free(&s->req);
		return;
	}
	s->req.len = 0;
	r->pool[r->npool++] = s->req;
	s->req = (ib_buf){0};
}

static void pump(replay *r);

static rslot *free_slot(replay *r);

static void send_one(replay *r, const ax_dispatch *d)
{
	rslot *s = free_slot(r);
	if (!s) {
		fatal(r, IB_ENOMEM, "out of memory");
		return;
	}
	s->d = *d;
	s->busy = true;
	s->status = 0;
	s->reason[0] = 0;
	s->errbody.len = 0;
	s->failmsg[0] = 0;
	r->inflight++;
	r->sent++;
	if (!s->req.data && r->npool)
		s->req = r->pool[--r->npool];
	const ax_trace *t = &r->corpus->t[d->trace];
	if (build(r, s) || (s->hit = prefix_hits(r, d, t->block_size)) < 0) {
		fatal(r, IB_ENOMEM, "out of memory");
		return;
	}
	s->st_ns = ib_now_ns();
	s->t_start = (double)(s->st_ns - r->wall0) * 1e-9 * r->S;
	bench_sse_reset(&s->sse, true, false, s->st_ns);
	s->sse.max_tokens = d->max_tokens;
	s->sse.max_events = (size_t)(d->max_tokens > 0 ? d->max_tokens : 0) * 16 + 4096;
	if (net_client_send(s->c, s->req.data, s->req.len)) {
		snprintf(s->failmsg, sizeof s->failmsg, "ConnectionError: cannot open a socket");
		net_timer_arm(r->loop, &s->timer, ib_now_ns());
		return;
	}
	if (r->o->request_timeout > 0)
		net_timer_arm(r->loop, &s->timer,
		              s->st_ns + (int64_t)(r->o->request_timeout / r->S * 1e9));
}

static void error_of(rslot *s, int err, const char *msg, ax_rec *x)
{
	bench_sse *q = &s->sse;
	if (!q->failed && err) {
		snprintf(x->etype, sizeof x->etype, "%s",
		         s->failmsg[0] || (msg && strstr(msg, "Timeout")) ? "TimeoutError"
		                                                          : "ConnectionError");
		snprintf(x->emsg, sizeof x->emsg, "%s", msg ? msg : "connection error");
	} else if (!q->failed && s->status != 200) {
		x->code = s->status;
		snprintf(x->etype, sizeof x->etype, "%s", s->reason[0] ? s->reason : "HTTP error");
		snprintf(x->emsg, sizeof x->emsg, "%s: %.*s", x->etype,
		         (int)strcspn(s->errbody.data ? s->errbody.data : "", "\r\n"),
		         s->errbody.data ? s->errbody.data : "");
	} else if (q->failed || !q->success) {
		snprintf(x->etype, sizeof x->etype, "StreamError");
		snprintf(x->emsg, sizeof x->emsg, "%s",
		         q->error[0] ? q->error : "no token received");
	}
}

static int add_record(replay *r, rslot *s, int err, const char *msg, double now)
{
	if (ib_grow(&r->rec, &r->reccap, r->nrec + 1))
		return IB_ENOMEM;
	ax_rec *x = &r->rec[r->nrec++];
	memset(x, 0, sizeof *x);
	const ax_dispatch *d = &s->d;
	x->trace = &r->corpus->t[d->trace];
	x->id = d->id, x->replay = d->replay, x->entry = d->entry;
	x->turn = d->subagent ? d->sub_req : d->entry;
	x->subagent = d->subagent, x->warmup = d->warmup;
	x->start_ns = (int64_t)(r->unix0 * 1e9) + (int64_t)(s->t_start * 1e9);
	x->end_ns = (int64_t)(r->unix0 * 1e9) + (int64_t)(now * 1e9);
	x->ack_ns = x->start_ns;
	x->isl = d->req->in;
	x->hit_tokens = s->hit;
	bench_sse *q = &s->sse;
	if (!q->failed && !err && s->status == 200)
		bench_sse_end(q);
	x->ok = !err && s->status == 200 && !q->failed && q->success;
	if (!x->ok) {
		error_of(s, err, msg, x);
		return 0;
	}
	/* the server's model clock when every chunk carried it, else the
	 * wall clock times the scale */
	bool m = q->m_ok && q->m_t0_seen && q->token_chunks > 0;
	x->ttft_ms = 1e3 * (m ? q->m_ttft : q->ttft * r->S);
	x->latency_ms =
	    1e3 * (m ? q->m_last - q->m_t0 : (double)(q->last_ns - q->start_ns) * 1e-9 * r->S);
	x->osl = q->output_tokens > 0 ? q->output_tokens : (int64_t)q->token_chunks;
	if (q->prompt_tokens >= 0)
		x->isl = q->prompt_tokens;
	return 0;
}

static void stop_now(replay *r, double now);
static void say(ib_log_fn log, void *arg, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The ended request x in the counters; past the live failed-request
 * threshold, the replay stops. */
static void count(replay *r, const ax_rec *x, double now)
{
	if (x->warmup) {
		r->warm_done++;
		return;
	}
	if (x->ok)
		r->prof_ok++, r->prof_out += (double)x->osl;
	else
		r->prof_fail++;
	double th = r->o->live_fail_threshold;
	if (th >= 0 && !r->stopping && r->prof_ok + r->prof_fail >= 10 &&
	    (double)r->prof_fail > th * (double)r->prof_ok) {
		r->exceeded = true;
		say(r->log, r->log_arg,
		    "infbench agentx replay: %zu of %zu profiling requests failed, over the "
		    "--failed-request-threshold %g: stopping\n",
		    r->prof_fail, r->prof_ok + r->prof_fail, th);
		stop_now(r, now);
	}
}

static void complete(rslot *s, int err, const char *msg)
{
	replay *r = s->r;
	if (!s->busy)
		return;
	net_timer_cancel(r->loop, &s->timer);
	s->busy = false;
	r->inflight--;
	give_buf(r, s);
	double now = model_now(r);
	if (add_record(r, s, err, msg, now) || ax_sched_done(r->s, s->d.id, now)) {
		fatal(r, IB_ENOMEM, "out of memory");
		return;
	}
	count(r, &r->rec[r->nrec - 1], now);
	pump(r);
}

static void on_head(net_client *c, const net_http_msg *m, int64_t t, void *arg)
{
	(void)c, (void)t;
	rslot *s = arg;
	give_buf(s->r, s); /* the whole request has been written */
	s->status = m->status;
	snprintf(s->reason, sizeof s->reason, "%.*s", (int)m->reason_len, m->reason);
}

static void on_data(net_client *c, const char *data, size_t len, int64_t t, void *arg)
{
	(void)c;
	rslot *s = arg;
	if (s->status == 200)
		bench_sse_feed(&s->sse, data, len, t);
	else if (s->errbody.len < 512)
		ib_buf_append(&s->errbody, data,
		              len < 512 - s->errbody.len ? len : 512 - s->errbody.len);
}

static void on_done(net_client *c, int err, const char *msg, void *arg)
{
	(void)c;
	complete(arg, err, msg);
}

static void on_slot_timer(net_loop *l, net_timer *t)
{
	(void)l;
	rslot *s = t->arg;
	char msg[200];
	if (s->failmsg[0])
		snprintf(msg, sizeof msg, "%s", s->failmsg);
	else
		snprintf(msg, sizeof msg, "TimeoutError: timed out after %g s",
		         s->r->o->request_timeout);
	net_client_close(s->c);
	complete(s, IB_EIO, msg);
}

static rslot *free_slot(replay *r)
{
	for (size_t i = 0; i < r->nslots; i++)
		if (!r->slots[i]->busy)
			return r->slots[i];
	if (ib_grow(&r->slots, &r->cap, r->nslots + 1))
		return NULL;
	rslot *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->r = r;
	s->timer = (net_timer){.fn = on_slot_timer, .arg = s};
	net_client_cbs cbs = {.on_head = on_head, .on_data = on_data, .on_done = on_done};
	ib_error ig;
	if (net_client_new(r->loop, r->host, r->port, &cbs, s, &s->c, &ig)) {
		free(s);
		return NULL;
	}
	if (r->tls && net_client_use_tls(s->c, r->tls, r->name)) {
		net_client_free(s->c);
		free(s);
		return NULL;
	}
	r->slots[r->nslots++] = s;
	return s;
}

/* ---- the clock work ---- */

static void on_grace(net_loop *l, net_timer *t)
{
	replay *r = t->arg;
	/* the end of the grace period: what is still in flight is cancelled */
	for (size_t i = 0; i < r->nslots; i++) {
		rslot *s = r->slots[i];
		if (!s->busy)
			continue;
		net_timer_cancel(l, &s->timer);
		net_client_close(s->c);
		s->busy = false;
		r->inflight--;
		r->cancelled++;
		give_buf(r, s);
	}
	net_stop(l);
}

/* Every server metrics endpoint at phase (ax_smx_feed); out of memory
 * ends the replay. */
static void scrape(replay *r, int phase)
{
	for (size_t i = 0; i < r->nmx; i++)
		if (ax_smx_scrape(&r->mx[i], phase)) {
			fatal(r, IB_ENOMEM, "out of memory");
			return;
		}
}

/* metrics_interval: a gauge sample of every endpoint within the window */
static void on_mtick(net_loop *l, net_timer *t)
{
	replay *r = t->arg;
	if (r->stopping)
		return;
	scrape(r, 1);
	net_timer_arm(l, t, ib_now_ns() + (int64_t)(r->o->metrics_interval * 1e9));
}

/* Ends the profiling window at now: nothing new is sent, what is in
 * flight is cancelled at once (the grace timer, due now). */
static void stop_now(replay *r, double now)
{
	r->stopping = true;
	if (r->profiling && now < r->prof_end)
		r->prof_end = now;
	net_timer_cancel(r->loop, &r->wake);
	net_timer_arm(r->loop, &r->grace, ib_now_ns());
}

static void pump(replay *r)
{
	double now = model_now(r);
	if (!r->profiling && ax_sched_profiling(r->s)) {
		say(r->log, r->log_arg,
		    "infbench agentx replay: warmup drained after %zu requests; profiling for %g "
		    "s\n",
		    r->sent, r->o->duration);
		scrape(r, 0);
		if (r->o->metrics_interval > 0)
			net_timer_arm(r->loop, &r->mtick,
			              ib_now_ns() + (int64_t)(r->o->metrics_interval * 1e9));
		now = model_now(r);
		r->profiling = true;
		r->prof_start = now;
		r->prof_end = now + r->o->duration;
	}
	if (r->profiling && !r->stopping && now >= r->prof_end) {
		r->stopping = true;
		net_timer_cancel(r->loop, &r->wake);
		net_timer_arm(r->loop, &r->grace, wall_of(r, r->prof_end + r->o->grace));
	}
	if (r->stopping) {
		if (!r->inflight)
			net_stop(r->loop);
		return;
	}
	ax_dispatch d;
	while (!r->err.code && ax_sched_next(r->s, now, &d))
		send_one(r, &d);
	double due = ax_sched_next_due(r->s);
	if (r->profiling && due > r->prof_end)
		due = r->prof_end; /* wake up to end the window */
	if (isfinite(due))
		net_timer_arm(r->loop, &r->wake, wall_of(r, due));
	else if (!r->inflight)
		fatal(r, IB_EINVAL, "the scheduler has nothing left to send");
}

static void on_wake(net_loop *l, net_timer *t)
{
	(void)l;
	pump(t->arg);
}

/* the caller's cancel hook, about every 50 ms of wall time */
#define POLL_NS 50000000LL

/* the caller's progress hook, every progress_every wall seconds */
static void on_tick(net_loop *l, net_timer *t)
{
	replay *r = t->arg;
	double now = model_now(r);
	ax_replay_progress p = {.profiling = r->profiling,
	                        .elapsed =
	                            r->profiling ? fmin(now, r->prof_end) - r->prof_start : 0,
	                        .duration = r->o->duration,
	                        .warmup_done = r->warm_done,
	                        .done = r->prof_ok,
	                        .failed = r->prof_fail,
	                        .inflight = r->inflight,
	                        .output_tokens = r->prof_out};
	r->o->progress(r->o->progress_arg, &p);
	net_timer_arm(l, t, ib_now_ns() + (int64_t)(r->o->progress_every * 1e9));
}

/* --warmup-grace-period: warmup still under way fails the replay */
static void on_wgrace(net_loop *l, net_timer *t)
{
	(void)l;
	replay *r = t->arg;
	if (r->profiling)
		return;
	char msg[160];
	snprintf(msg, sizeof msg,
	         "warmup did not drain within the --warmup-grace-period of %g s (%zu warmup "
	         "requests ended)",
	         r->o->warmup_grace, r->warm_done);
	fatal(r, IB_EIO, msg);
}

static void on_poll(net_loop *l, net_timer *t)
{
	replay *r = t->arg;
	if (r->o->cancel(r->o->cancel_arg)) {
		fatal(r, IB_EIO, "cancelled");
		return;
	}
	net_timer_arm(l, t, ib_now_ns() + POLL_NS);
}

/* ---- setup ---- */

static void say(ib_log_fn log, void *arg, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ib_emitv(log, arg, IB_LOG_ERR, true, fmt, ap);
	va_end(ap);
}

static int check_opts(const ax_replay_opts *o, ib_error *e)
{
	if (!o->model || !*o->model)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "argument --model: required");
	if (!o->corpus || !*o->corpus)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "argument --corpus: required");
	if (!o->base_url ||
	    (strncmp(o->base_url, "http://", 7) && strncmp(o->base_url, "https://", 8)))
		return ib_fail(
		    e, IB_EINVAL, "", 0, 0,
		    "argument --base-url: an http:// or https:// URL is required (got %s)",
		    o->base_url ? o->base_url : "none");
	if (!o->concurrency || o->concurrency > 65536)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "argument --concurrency: must be 1..65536");
	if (!(o->duration > 0) || !(o->grace >= 0) || !(o->request_timeout >= 0))
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "--benchmark-duration must be > 0, --grace-period and "
		               "--request-timeout >= 0");
	if (!o->out_dir && !o->artifact_dir)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "no output folder");
	if (!(o->warmup_grace >= 0) || isnan(o->live_fail_threshold))
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "--warmup-grace-period must be >= 0, the failed-request "
		               "threshold a number");
	if (!(o->global_idle_cap > 0) || !(o->tree_idle_cap > 0))
		return ib_fail(e, IB_EINVAL, "", 0, 0, "the idle caps must be > 0 seconds");
	if (o->max_context < 0)
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "argument --max-context-length: must be >= 0");
	return 0;
}

static void replay_free(replay *r)
{
	for (size_t i = 0; i < r->nslots; i++) {
		rslot *s = r->slots[i];
		if (r->loop)
			net_timer_cancel(r->loop, &s->timer);
		net_client_free(s->c);
		bench_sse_free(&s->sse);
		ib_buf_free(&s->req);
		ib_buf_free(&s->errbody);
		free(s);
	}
	free(r->slots);
	for (size_t i = 0; i < r->npool; i++)
		ib_buf_free(&r->pool[i]);
	free(r->pool);
	if (r->loop) {
		net_timer_cancel(r->loop, &r->wake);
		net_timer_cancel(r->loop, &r->grace);
		net_timer_cancel(r->loop, &r->poll);
		net_timer_cancel(r->loop, &r->ptick);
		net_timer_cancel(r->loop, &r->wgrace);
		net_timer_cancel(r->loop, &r->mtick);
	}
	for (size_t i = 0; i < r->nmx; i++)
		ax_smx_free(&r->mx[i]);
	free(r->mx);
	net_loop_free(r->loop);
	for (size_t i = 0; r->tx && i < r->corpus->n; i++)
		ax_texts_free(r->tx[i]);
	free(r->tx);
	free(r->tx_used);
	for (size_t i = 0; r->seen && i < r->o->concurrency; i++)
		free(r->seen[i].k);
	free(r->seen);
	free(r->rec);
	ax_conv_free(&r->conv);
	ax_sched_free(r->s);
}

/* The server's /metrics, then each of metrics_urls that is another URL. */
static int metrics_endpoints(replay *r, ib_error *e)
{
	const ax_replay_opts *o = r->o;
	r->mx = calloc(o->nmetrics_urls + 1, sizeof *r->mx);
	if (!r->mx)
		return OOM(e);
	size_t bl = strlen(o->base_url);
	while (bl && o->base_url[bl - 1] == '/')
		bl--;
	char *own = malloc(bl + 9);
	if (!own)
		return OOM(e);
	snprintf(own, bl + 9, "%.*s/metrics", (int)bl, o->base_url);
	int rc = ax_smx_init(&r->mx[r->nmx], own, r->tls, e);
	free(own);
	if (rc)
		return rc;
	r->nmx++;
	for (size_t i = 0; i < o->nmetrics_urls; i++) {
		bool dup = false;
		for (size_t j = 0; j < r->nmx && !dup; j++)
			dup = !strcmp(r->mx[j].url, o->metrics_urls[i]);
		if (dup)
			continue;
		if ((rc = ax_smx_init(&r->mx[r->nmx], o->metrics_urls[i], r->tls, e)))
			return rc;
		r->nmx++;
	}
	return 0;
}

static double unix_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int ax_replay(const ax_replay_opts *o, ib_log_fn log, void *log_arg, ax_replay_outcome *out,
              ib_error *e)
{
	memset(out, 0, sizeof *out);
	int rc = check_opts(o, e);
	if (rc)
		return rc;
	ib_arena *a = ib_arena_new();
	bench_tokenizer bt = {0};
	ax_blocks *blocks = NULL;
	replay r = {.o = o, .log = log, .log_arg = log_arg};
	ax_corpus c = {0};
	if (!a)
		return OOM(e);
	if ((rc = ax_corpus_load(a, o->corpus, &c, e)))
		goto out;
	if (o->max_traces && c.n > o->max_traces)
		c.n = o->max_traces;
	const char *tokpath = o->tokenizer ? o->tokenizer : o->model;
	if ((rc = bench_tokenizer_open(&bt, tokpath, false, false, e))) {
		if (!e->file[0])
			snprintf(e->file, sizeof e->file, "tokenizer '%s'", tokpath);
		goto out;
	}
	if ((rc = ax_blocks_new(bt.tok, tokpath, &blocks, e)))
		goto out;
	bool https;
	if ((rc = bench_target(o->base_url, NULL, 0, r.host, &r.port, r.name, &https, e)))
		goto out;
	if (https && (rc = net_tls_client_new(o->ca_cert, o->insecure, &r.tls, e)))
		goto out;
	r.http = (bench_cfg){.host = r.host, .port = r.port, .tls = r.tls, .server_name = r.name};
	double S = bench_probe_time_scale(&r.http, 10000);
	r.S = S > 0 ? S : 1;
	r.corpus = &c;
	r.blocks = blocks;
	r.budget = o->text_budget ? o->text_budget : (size_t)1 << 30;
	r.tx = calloc(c.n + 1, sizeof *r.tx);
	r.tx_used = calloc(c.n + 1, sizeof *r.tx_used);
	r.seen = calloc(o->concurrency, sizeof *r.seen);
	if (!r.tx || !r.tx_used || !r.seen) {
		rc = OOM(e);
		goto out;
	}
	if ((rc = net_loop_new(&r.loop, e)))
		goto out;
	r.wake = (net_timer){.fn = on_wake, .arg = &r};
	r.grace = (net_timer){.fn = on_grace, .arg = &r};
	r.poll = (net_timer){.fn = on_poll, .arg = &r};
	r.ptick = (net_timer){.fn = on_tick, .arg = &r};
	r.wgrace = (net_timer){.fn = on_wgrace, .arg = &r};
	r.mtick = (net_timer){.fn = on_mtick, .arg = &r};
	if ((rc = metrics_endpoints(&r, e)))
		goto out;
	net_raise_fd_limit();
	ax_sched_opts so = {.corpus = &c,
	                    .lanes = o->concurrency,
	                    .seed = o->seed,
	                    .tstar_lo = o->tstar_lo,
	                    .tstar_hi = o->tstar_hi,
	                    .warmup_per_lane = o->warmup_per_lane,
	                    .global_idle_cap = o->global_idle_cap,
	                    .tree_idle_cap = o->tree_idle_cap,
	                    .max_context = o->max_context};
	r.wall0 = ib_now_ns();
	r.unix0 = unix_now();
	if ((rc = ax_sched_new(&so, 0, &r.s, e)))
		goto out;
	say(log, log_arg,
	    "infbench agentx replay: %zu traces (%zu dropped over %lld tokens), %zu lanes, "
	    "%g s of profiling%s\n",
	    c.n - ax_sched_dropped(r.s), ax_sched_dropped(r.s), (long long)o->max_context,
	    o->concurrency, o->duration, r.S != 1 ? " (model time)" : "");
	if (r.S != 1)
		say(log, log_arg, "infbench agentx replay: the server runs at time scale %g\n",
		    r.S);
	if (o->cancel)
		net_timer_arm(r.loop, &r.poll, ib_now_ns() + POLL_NS);
	if (o->progress && o->progress_every > 0)
		net_timer_arm(r.loop, &r.ptick, ib_now_ns() + (int64_t)(o->progress_every * 1e9));
	if (o->warmup_grace > 0)
		net_timer_arm(r.loop, &r.wgrace, wall_of(&r, o->warmup_grace));
	pump(&r);
	if (!r.err.code && net_run(r.loop))
		ib_fail(&r.err, IB_EIO, "", 0, 0, "the event loop failed");
	if (r.err.code) {
		rc = ib_fail(e, r.err.code, "", 0, 0, "%s", r.err.msg);
		goto out;
	}
	if (r.profiling)
		scrape(&r, 2);
	out->sent = r.sent;
	out->cancelled = r.cancelled;
	out->dropped_traces = ax_sched_dropped(r.s);
	out->time_scale = r.S;
	out->threshold_exceeded = r.exceeded;
	out->wall_seconds = (double)(ib_now_ns() - r.wall0) * 1e-9;
	for (size_t i = 0; i < r.nrec; i++) {
		out->warmup += r.rec[i].warmup;
		out->profiled += !r.rec[i].warmup && r.rec[i].ok;
		out->errors += !r.rec[i].warmup && !r.rec[i].ok;
	}
	ax_art art = {.o = o,
	              .rec = r.rec,
	              .n = r.nrec,
	              .start_unix = r.unix0 + r.prof_start,
	              .end_unix = r.unix0 + (r.stopping ? r.prof_end : model_now(&r)),
	              .scale = r.S,
	              .cancelled = r.cancelled > 0 || r.exceeded,
	              .ntraces = c.n - ax_sched_dropped(r.s),
	              .mx = r.mx,
	              .nmx = r.nmx};
	if ((rc = ax_art_write(&art, e)))
		goto out;
	say(log, log_arg,
	    "infbench agentx replay: %zu requests sent: %zu profiled, %zu warmup, %zu failed, "
	    "%zu cancelled at the end; artifacts in %s%s\n",
	    out->sent, out->profiled, out->warmup, out->errors, out->cancelled,
	    o->artifact_dir ? o->artifact_dir : o->out_dir,
	    o->artifact_dir ? "" : "/aiperf_artifacts");
out:
	replay_free(&r);
	net_tls_free(r.tls);
	ax_blocks_free(blocks);
	if (bt.arena)
		bench_tokenizer_close(&bt);
	ib_arena_free(a);
	return rc;
}
