/* The request engine: event loops (one per --threads), one client
 * connection per slot of --max-concurrency, closed-loop or open-loop (gamma
 * inter-arrivals) dispatch as in the reference, warmup, and the client's own
 * health figures (schedule lag, loop lag, CPU).
 *
 * Threads share only the request counter (atomic) and the read-only
 * schedule; each owns its loop, connections, timers and lag samples, merged
 * at the end. results[i] is written by the one thread that claimed i. */
#include "bench/bench.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct shared shared;
typedef struct worker worker;

typedef struct {
	worker *w;
	net_client *c;
	bench_sse sse;
	ssize_t idx; /* request in flight, -1 when idle */
	bool warmup;
	int status;
	char reason[64];
	int64_t intended;
	ib_buf req;
	ib_buf errbody;    /* the start of a non-200 response's body */
	net_timer timer;   /* --request-timeout, or a failure to report on the next turn */
	char failmsg[128]; /* non-empty: the timer reports this failure */
} slot;

struct shared {
	const bench_cfg *cfg;
	const bench_prompt *prompts;
	size_t n;
	bench_result *res;
	int64_t *arrival;   /* intended send times, absolute ns (set at the start) */
	atomic_size_t next; /* next request to claim */
	atomic_size_t done;
	atomic_uint_fast64_t out_tokens;
	int64_t t0;
};

struct worker {
	shared *sh;
	net_loop *loop;
	slot *slots;
	size_t nslots;
	bool warmup_phase;
	size_t warm_total, warm_sent, warm_done;
	size_t busy; /* slots with a request in flight */
	net_timer arrive, lag_timer, progress_timer;
	bench_vec lags;
	double scale;           /* X-Infbench-Time-Scale seen: 0 none yet, -1 conflicting */
	bool simulated;         /* X-Infbench-Engine seen: a simulator answered */
	char sim_interval[256]; /* the first X-Infbench-Sim-Interval value ("": none) */
	bool show_progress;
	/* the timed window's share this loop spent outside its waits, and its
	 * thread's CPU share (worker_main) */
	double busy_share, cpu_share;
	char line[160];
	ib_error err;
};

static double now_unix(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int bench_request_body(const bench_cfg *c, const bench_prompt *p, const char *model,
                       bool ignore_eos, const char *extra, ib_buf *body)
{
	int rc = ib_buf_puts(body, "{\"model\": ");
	rc |= ib_json_write_str(body, model, strlen(model), true);
	if (c->chat) {
		rc |= ib_buf_puts(body, ", \"messages\": [{\"role\": \"user\", \"content\": ");
		rc |= ib_json_write_str(body, p->text, p->len, true);
		rc |=
		    ib_buf_printf(body, "}], \"temperature\": 0.0, \"max_completion_tokens\": %lld",
		                  (long long)p->output_len);
	} else {
		rc |= ib_buf_puts(body, ", \"prompt\": ");
		rc |= ib_json_write_str(body, p->text, p->len, true);
		rc |= ib_buf_printf(
		    body,
		    ", \"temperature\": 0.0, \"best_of\": %d, \"max_tokens\": %lld, "
		    "\"logprobs\": %s",
		    c->best_of, (long long)p->output_len, c->logprobs ? c->logprobs : "null");
	}
	rc |=
	    ib_buf_puts(body, ", \"stream\": true, \"stream_options\": {\"include_usage\": true}");
	if (ignore_eos)
		rc |= ib_buf_puts(body, ", \"ignore_eos\": true");
	if (extra)
		rc |= ib_buf_puts(body, extra);
	rc |= ib_buf_putc(body, '}');
	return rc ? IB_ENOMEM : 0;
}

/* The request bytes for prompt p, and an X-Request-Id naming the request
 * (idx: measured request or warmup). */
static int build(const bench_cfg *c, const bench_prompt *p, size_t idx, bool warmup, ib_buf *req)
{
	ib_buf body = {0};
	const char *model = c->models && !warmup ? c->models[idx] : c->model;
	int rc = bench_request_body(c, p, model, c->ignore_eos, NULL, &body);
	req->len = 0;
	rc |= ib_buf_printf(req,
	                    "POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
	                    "Authorization: Bearer %s\r\nAccept: */*\r\nUser-Agent: infbench\r\n"
	                    "X-Request-Id: infbench-%s%zu\r\nX-Infbench-Model-Time: 1\r\n"
	                    "Content-Length: %zu\r\n\r\n",
	                    c->endpoint, c->host, c->port, c->api_key ? c->api_key : "None",
	                    warmup ? "warmup-" : "", idx, body.len);
	rc |= ib_buf_append(req, body.data, body.len);
	ib_buf_free(&body);
	return rc ? IB_ENOMEM : 0;
}

static void dispatch(worker *w);

/* Two workers' announced scales: 0 none, -1 conflicting. */
static double merge_scale(double a, double b)
{
	if (a < 0 || b < 0 || (a > 0 && b > 0 && a != b))
		return -1;
	return a > 0 ? a : b;
}

/* The server's model clock (docs/bench.md): when every successful request
 * carried it, each result's figures become those, and the window runs from
 * the earliest arrival to the latest end. Client-side lags (wall) are
 * scaled by S when one was announced. Returns whether it applied. */
static bool use_model_clock(bench_run_stats *st, bench_result *res, size_t n)
{
	size_t ok = 0;
	double first = 0, last = 0;
	for (size_t i = 0; i < n; i++) {
		if (!res[i].success)
			continue;
		if (!res[i].m_ok)
			return false;
		if (!ok || res[i].m_t0 < first)
			first = res[i].m_t0;
		if (!ok || res[i].m_end > last)
			last = res[i].m_end;
		ok++;
	}
	if (!ok)
		return false;
	double S = st->time_scale > 0 ? st->time_scale : 1;
	for (size_t i = 0; i < n; i++) {
		bench_result *r = &res[i];
		if (!r->success)
			continue;
		double lag_t = r->ttft_intended - r->ttft, lag_l = r->latency_intended - r->latency;
		r->ttft = r->m_ttft;
		r->latency = r->m_latency;
		r->ttft_intended = r->ttft + lag_t * S;
		r->latency_intended = r->latency + lag_l * S;
		bench_vec t = r->itl;
		r->itl = r->m_itl;
		r->m_itl = t;
	}
	st->duration = last - first;
	st->achieved_rate = st->duration > 0 ? (double)n / st->duration : 0;
	st->clock = BENCH_CLOCK_MODEL;
	return true;
}

/* Wall seconds to model seconds on a server S times faster than real time. */
static void to_model_time(bench_run_stats *st, bench_result *res, size_t n)
{
	double S = st->time_scale;
	st->duration *= S;
	st->achieved_rate /= S;
	for (size_t i = 0; i < n; i++) {
		bench_result *r = &res[i];
		r->ttft *= S;
		r->latency *= S;
		r->ttft_intended *= S;
		r->latency_intended *= S;
		for (size_t j = 0; j < r->itl.n; j++)
			r->itl.v[j] *= S;
	}
}

static void send_on(slot *s, size_t idx, bool warmup, int64_t intended)
{
	worker *w = s->w;
	shared *sh = w->sh;
	const bench_prompt *p = &sh->prompts[warmup ? 0 : idx];
	s->idx = (ssize_t)idx;
	s->warmup = warmup;
	s->intended = intended;
	s->status = 0;
	s->reason[0] = 0;
	w->busy++;
	s->errbody.len = 0;
	s->failmsg[0] = 0;
	if (build(sh->cfg, p, idx, warmup, &s->req)) {
		ib_fail(&w->err, IB_ENOMEM, NULL, 0, 0, "out of memory");
		net_stop(w->loop);
		return;
	}
	int64_t st = ib_now_ns(); /* S1: just before the POST */
	bench_sse_reset(&s->sse, sh->cfg->chat, sh->cfg->keep_text, st);
	/* memory stays bounded on an endless stream: an engine sends about
	 * one event per token */
	s->sse.max_tokens = p->output_len;
	s->sse.max_events = (size_t)(p->output_len > 0 ? p->output_len : 0) * 16 + 4096;
	if (!warmup)
		sh->res[idx].schedule_lag = (double)(st - intended) * 1e-9;
	if (net_client_send(s->c, s->req.data, s->req.len)) {
		/* no socket (EMFILE, ENFILE, ...): the request fails, and its slot
		 * completes on the next turn of the loop (not recursively here) */
		snprintf(s->failmsg, sizeof s->failmsg, "cannot open a socket: %s",
		         strerror(errno));
		net_timer_arm(w->loop, &s->timer, ib_now_ns());
		return;
	}
	if (sh->cfg->request_timeout > 0)
		net_timer_arm(w->loop, &s->timer, st + (int64_t)(sh->cfg->request_timeout * 1e9));
}

/* A JSON error body's message (OpenAI's {"error": {"message": ...}} or
 * FastAPI's {"detail": ...}), else the body's first line. */
static void error_detail(slot *s, char *out, size_t cap)
{
	const char *b = s->errbody.data ? s->errbody.data : "";
	int n = snprintf(out, cap, "HTTP %d%s%s", s->status, s->reason[0] ? " " : "", s->reason);
	if (!s->errbody.len || n < 0 || (size_t)n >= cap)
		return;
	ib_arena *a = ib_arena_new();
	ib_val *v = NULL, *m = NULL;
	ib_error ignore = {0};
	if (a && ib_json_parse(a, "body", b, s->errbody.len, &v, &ignore) == 0 && v &&
	    v->type == IB_V_MAP) {
		ib_val *err = ib_map_get(v, "error");
		m = err && err->type == IB_V_MAP ? ib_map_get(err, "message")
		    : err                        ? err
		                                 : ib_map_get(v, "detail");
	}
	if (m && m->type == IB_V_STR)
		snprintf(out + n, cap - (size_t)n, ": %.*s", (int)m->str.len, m->str.s);
	else if (!m)
		snprintf(out + n, cap - (size_t)n, ": %.*s", (int)strcspn(b, "\r\n"), b);
	ib_arena_free(a);
}

static void complete(slot *s, int err, const char *msg)
{
	worker *w = s->w;
	shared *sh = w->sh;
	size_t idx = (size_t)s->idx;
	s->idx = -1;
	w->busy--;
	net_timer_cancel(w->loop, &s->timer);
	if (!sh->cfg->keep_alive)
		net_client_close(s->c);
	if (s->warmup) {
		w->warm_done++;
	} else {
		bench_result *res = &sh->res[idx];
		bench_sse *x = &s->sse;
		if (!x->failed && err) { /* no (whole) response: say why */
			snprintf(x->error, sizeof x->error, "%s", msg ? msg : "connection error");
			x->failed = true;
		}
		bool http_error = !x->failed && s->status != 200;
		if (http_error) { /* S2: the reason phrase */
			snprintf(x->error, sizeof x->error, "%s",
			         s->reason[0] ? s->reason : "HTTP error");
			x->failed = true;
		}
		if (!x->failed)
			bench_sse_end(x);
		res->success = x->success && !x->failed;
		snprintf(res->error, sizeof res->error, "%s", res->success ? "" : x->error);
		if (http_error)
			error_detail(s, res->detail, sizeof res->detail);
		else
			snprintf(res->detail, sizeof res->detail, "%s", res->error);
		if (res->success) {
			res->ttft = x->ttft;
			res->latency = (double)(x->last_ns - x->start_ns) * 1e-9;
			double lag = (double)(x->start_ns - s->intended) * 1e-9;
			res->ttft_intended = res->ttft + lag;
			res->latency_intended = res->latency + lag;
			res->output_tokens = x->output_tokens;
			/* the result takes the arrays; the slot gets fresh ones */
			bench_vec_free(&res->itl);
			res->itl = x->itl;
			x->itl = (bench_vec){0};
			/* the model clock: every line stamped, the arrival given */
			res->m_ok = x->m_ok && x->m_t0_seen && x->token_chunks > 0;
			bench_vec_free(&res->m_itl);
			if (res->m_ok) {
				res->m_t0 = x->m_t0;
				res->m_ttft = x->m_ttft;
				res->m_end = x->m_last;
				res->m_latency = x->m_last - x->m_t0;
				res->m_itl = x->m_itl;
				x->m_itl = (bench_vec){0};
			}
			if (sh->cfg->keep_text) {
				ib_buf_free(&res->text);
				res->text = x->text;
				x->text = (ib_buf){0};
			}
			if (x->output_tokens > 0)
				atomic_fetch_add(&sh->out_tokens, (uint64_t)x->output_tokens);
		}
		atomic_fetch_add(&sh->done, 1);
	}
	dispatch(w);
}

static void on_head(net_client *c, const net_http_msg *m, int64_t t, void *arg)
{
	(void)c;
	(void)t;
	slot *s = arg;
	s->status = m->status;
	snprintf(s->reason, sizeof s->reason, "%.*s", (int)m->reason_len, m->reason);
	if (net_http_header(m, "x-infbench-engine"))
		s->w->simulated = true;
	const net_header *iv = net_http_header(m, "x-infbench-sim-interval");
	if (iv && !s->w->sim_interval[0] && iv->value_len < sizeof s->w->sim_interval)
		snprintf(s->w->sim_interval, sizeof s->w->sim_interval, "%.*s", (int)iv->value_len,
		         iv->value);
	const net_header *h = net_http_header(m, "x-infbench-time-scale");
	if (h && s->w->scale >= 0) {
		char v[64];
		snprintf(v, sizeof v, "%.*s", (int)(h->value_len < 63 ? h->value_len : 63),
		         h->value);
		char *end;
		double x = strtod(v, &end);
		if (!(x > 0) || end == v)
			s->w->scale = -1;
		else if (s->w->scale == 0)
			s->w->scale = x;
		else if (s->w->scale != x)
			s->w->scale = -1;
	}
}

static void on_data(net_client *c, const char *data, size_t len, int64_t t, void *arg)
{
	(void)c;
	slot *s = arg;
	/* tests only: a deliberately slow client burns CPU on every read */
	for (int64_t b0 = s->w->sh->cfg->test_burn_ns_per_read ? thread_cpu_ns() : 0;
	     b0 && thread_cpu_ns() - b0 < s->w->sh->cfg->test_burn_ns_per_read;)
		;
	if (s->status == 200)
		bench_sse_feed(&s->sse, data, len, t);
	else if (s->errbody.len < 512) /* enough to say why */
		ib_buf_append(&s->errbody, data,
		              len < 512 - s->errbody.len ? len : 512 - s->errbody.len);
}

/* The slot's timer: a failure found while sending, or the request timeout. */
static void on_slot_timer(net_loop *l, net_timer *t)
{
	(void)l;
	slot *s = t->arg;
	if (s->idx < 0)
		return;
	char msg[160];
	if (s->failmsg[0])
		snprintf(msg, sizeof msg, "%s", s->failmsg);
	else
		snprintf(msg, sizeof msg,
		         "TimeoutError: the request took longer than --request-timeout %g s",
		         s->w->sh->cfg->request_timeout);
	net_client_close(s->c); /* no on_done: we complete it here */
	complete(s, IB_EIO, msg);
}

static void on_done(net_client *c, int err, const char *msg, void *arg)
{
	(void)c;
	complete(arg, err, msg);
}

static slot *free_slot(worker *w)
{
	for (size_t i = 0; i < w->nslots; i++)
		if (w->slots[i].idx < 0)
			return &w->slots[i];
	return NULL;
}

/* Claims the next request whose time has come; SIZE_MAX when none. With a
 * finite rate, arms the arrival timer for the next one. */
static size_t claim(worker *w)
{
	shared *sh = w->sh;
	bool open_loop = !isinf(sh->cfg->request_rate);
	for (;;) {
		size_t i = atomic_load(&sh->next);
		if (i >= sh->n)
			return SIZE_MAX;
		if (open_loop && sh->arrival[i] > ib_now_ns()) {
			net_timer_arm(w->loop, &w->arrive, sh->arrival[i]);
			return SIZE_MAX;
		}
		if (atomic_compare_exchange_weak(&sh->next, &i, i + 1))
			return i;
	}
}

static void dispatch(worker *w)
{
	shared *sh = w->sh;
	slot *s;
	if (w->warmup_phase) {
		while (w->warm_sent < w->warm_total && (s = free_slot(w))) {
			send_on(s, w->warm_sent, true, ib_now_ns());
			w->warm_sent++;
		}
		if (w->warm_done == w->warm_total)
			net_stop(w->loop);
		return;
	}
	while ((s = free_slot(w))) {
		size_t i = claim(w);
		if (i == SIZE_MAX)
			break;
		/* closed loop: due the moment a slot is free */
		send_on(s, i, false, isinf(sh->cfg->request_rate) ? ib_now_ns() : sh->arrival[i]);
	}
	if (w->busy == 0 && atomic_load(&sh->next) >= sh->n)
		net_stop(w->loop);
}

static void on_arrive(net_loop *l, net_timer *t)
{
	(void)l;
	dispatch(t->arg);
}

enum { LAG_PERIOD_NS = 10 * 1000 * 1000 };

static void on_lag(net_loop *l, net_timer *t)
{
	worker *w = t->arg;
	int64_t now = ib_now_ns();
	bench_vec_push(&w->lags, (double)(now - t->when) * 1e-9);
	net_timer_arm(l, t, now + LAG_PERIOD_NS);
}

static void on_progress(net_loop *l, net_timer *t)
{
	worker *w = t->arg;
	shared *sh = w->sh;
	if (w->warmup_phase) {
		snprintf(w->line, sizeof w->line, "  warmup %zu/%zu", w->warm_done, w->warm_total);
	} else {
		size_t done = atomic_load(&sh->done);
		double el = (double)(ib_now_ns() - sh->t0) * 1e-9;
		double rps = el > 0 ? done / el : 0;
		double eta = rps > 0 ? (double)(sh->n - done) / rps : 0;
		snprintf(w->line, sizeof w->line,
		         "  %zu/%zu requests  %.1f req/s  %.0f tok/s  ETA %.0fs", done, sh->n, rps,
		         el > 0 ? (double)atomic_load(&sh->out_tokens) / el : 0, eta);
	}
	sh->cfg->progress(sh->cfg->progress_arg, IB_LOG_PROGRESS, w->line);
	net_timer_arm(l, t, ib_now_ns() + 500 * 1000 * 1000);
}

static int worker_init(worker *w, shared *sh, size_t nslots, bool progress, ib_error *e)
{
	memset(w, 0, sizeof *w);
	w->sh = sh;
	w->nslots = nslots;
	w->show_progress = progress;
	w->slots = calloc(nslots ? nslots : 1, sizeof *w->slots);
	if (!w->slots)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	int rc = net_loop_new(&w->loop, e);
	if (rc)
		return rc;
	net_client_cbs cbs = {.on_head = on_head, .on_data = on_data, .on_done = on_done};
	for (size_t i = 0; i < nslots; i++) {
		w->slots[i] = (slot){.w = w, .idx = -1};
		w->slots[i].timer = (net_timer){.fn = on_slot_timer, .arg = &w->slots[i]};
		if ((rc = net_client_new(w->loop, sh->cfg->host, sh->cfg->port, &cbs, &w->slots[i],
		                         &w->slots[i].c, e)))
			return rc;
		net_client_kernel_timestamps(w->slots[i].c, sh->cfg->kernel_timestamps);
		if (sh->cfg->tls &&
		    net_client_use_tls(w->slots[i].c, sh->cfg->tls, sh->cfg->server_name))
			return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	}
	w->arrive = (net_timer){.fn = on_arrive, .arg = w};
	w->lag_timer = (net_timer){.fn = on_lag, .arg = w};
	w->progress_timer = (net_timer){.fn = on_progress, .arg = w};
	return 0;
}

static void worker_free(worker *w)
{
	if (w->loop) {
		net_timer_cancel(w->loop, &w->arrive);
		net_timer_cancel(w->loop, &w->lag_timer);
		net_timer_cancel(w->loop, &w->progress_timer);
	}
	for (size_t i = 0; w->slots && i < w->nslots; i++) {
		if (w->loop)
			net_timer_cancel(w->loop, &w->slots[i].timer);
		net_client_free(w->slots[i].c);
		bench_sse_free(&w->slots[i].sse);
		ib_buf_free(&w->slots[i].req);
		ib_buf_free(&w->slots[i].errbody);
	}
	net_loop_free(w->loop);
	bench_vec_free(&w->lags);
	free(w->slots);
}

static void *worker_main(void *arg)
{
	worker *w = arg;
	int64_t t0 = ib_now_ns(), idle0 = net_loop_idle_ns(w->loop), cpu0 = thread_cpu_ns();
	net_timer_arm(w->loop, &w->lag_timer, ib_now_ns() + LAG_PERIOD_NS);
	if (w->show_progress)
		net_timer_arm(w->loop, &w->progress_timer, ib_now_ns() + 500 * 1000 * 1000);
	dispatch(w);
	if (!w->err.code && net_run(w->loop))
		ib_fail(&w->err, IB_EIO, NULL, 0, 0, "the event loop failed");
	net_timer_cancel(w->loop, &w->lag_timer);
	net_timer_cancel(w->loop, &w->progress_timer);
	int64_t wall = ib_now_ns() - t0;
	if (wall > 0) {
		w->busy_share = 1 - (double)(net_loop_idle_ns(w->loop) - idle0) / (double)wall;
		w->cpu_share = (double)(thread_cpu_ns() - cpu0) / (double)wall;
	}
	return NULL;
}

int bench_run(const bench_cfg *cfg, const bench_prompt *prompts, size_t n, bench_result *results,
              bench_run_stats *st, ib_error *e)
{
	memset(st, 0, sizeof *st);
	if (n == 0)
		return 0;
	shared sh = {.cfg = cfg, .prompts = prompts, .n = n, .res = results};
	atomic_init(&sh.next, 0);
	atomic_init(&sh.done, 0);
	atomic_init(&sh.out_tokens, 0);
	size_t conc = cfg->max_concurrency ? cfg->max_concurrency : n;
	if (conc > n)
		conc = n;
	size_t nthreads = cfg->threads > 0 ? (size_t)cfg->threads : 1;
	if (nthreads > conc)
		nthreads = conc;
	worker *ws = calloc(nthreads, sizeof *ws);
	pthread_t *tids = calloc(nthreads, sizeof *tids);
	sh.arrival = calloc(n, sizeof *sh.arrival);
	int rc = 0;
	if (!ws || !tids || !sh.arrival) {
		rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		goto out;
	}
	/* warmup: one loop, outside the timed window */
	if (cfg->num_warmups) {
		worker warm;
		size_t k = cfg->num_warmups;
		size_t slots =
		    (cfg->max_concurrency && cfg->max_concurrency < k) ? cfg->max_concurrency : k;
		rc = worker_init(&warm, &sh, slots, cfg->progress != NULL, e);
		if (!rc) {
			warm.warmup_phase = true;
			warm.warm_total = k;
			worker_main(&warm);
			if (warm.err.code)
				rc = ib_fail(e, warm.err.code, NULL, 0, 0, "%s", warm.err.msg);
		}
		worker_free(&warm);
		if (rc)
			goto out;
	}
	if (cfg->on_start)
		cfg->on_start(cfg->hook_arg);
	for (size_t t = 0; t < nthreads; t++) {
		size_t share = conc / nthreads + (t < conc % nthreads ? 1 : 0);
		if ((rc = worker_init(&ws[t], &sh, share, cfg->progress && t == 0, e)))
			goto out;
	}
	/* intended send times: Q2 (the generator sleeps a gamma-distributed
	 * interval after each request), from the start of the window */
	double cpu0 = ib_cpu_s();
	st->start_unix = now_unix();
	sh.t0 = ib_now_ns();
	if (!isinf(cfg->request_rate)) {
		double theta = 1.0 / (cfg->request_rate * cfg->burstiness), t = 0;
		/* intervals of model time on a time-scaled server */
		double per = cfg->time_scale_hint > 0 ? 1e9 / cfg->time_scale_hint : 1e9;
		for (size_t i = 0; i < n; i++) {
			sh.arrival[i] = sh.t0 + (int64_t)(t * per);
			t += ib_mt_gamma(cfg->rng, cfg->burstiness, theta);
		}
	}
	size_t started = 0;
	for (size_t t = 0; t < nthreads; t++) {
		if (nthreads == 1) {
			worker_main(&ws[0]);
			started = 1;
			break;
		}
		if (pthread_create(&tids[t], NULL, worker_main, &ws[t])) {
			rc = ib_fail(e, IB_EIO, NULL, 0, 0, "cannot start a client thread");
			break;
		}
		started++;
	}
	for (size_t t = 0; nthreads > 1 && t < started; t++)
		pthread_join(tids[t], NULL);
	if (cfg->on_end)
		cfg->on_end(cfg->hook_arg);
	int64_t t1 = ib_now_ns();
	st->end_unix = now_unix();
	st->duration = (double)(t1 - sh.t0) * 1e-9;
	st->cpu_seconds = ib_cpu_s() - cpu0;
	st->achieved_rate = st->duration > 0 ? (double)n / st->duration : 0;
	/* merge the threads' loop-lag samples */
	bench_vec lags = {0};
	for (size_t t = 0; t < nthreads; t++) {
		for (size_t i = 0; i < ws[t].lags.n; i++)
			bench_vec_push(&lags, ws[t].lags.v[i]);
		if (!rc && ws[t].err.code)
			rc = ib_fail(e, ws[t].err.code, NULL, 0, 0, "%s", ws[t].err.msg);
		if (ws[t].busy_share > st->loop_busy) { /* the busiest loop speaks for the client */
			st->loop_busy = ws[t].busy_share;
			st->loop_cpu_share = ws[t].cpu_share;
		}
	}
	st->loop_lag_p99 = bench_percentile(lags.v, lags.n, 99);
	st->loop_lag_max = lags.n ? lags.v[lags.n - 1] : 0; /* sorted by the percentile */
	bench_vec_free(&lags);
	st->wall_duration = st->duration;
	for (size_t t = 0; t < nthreads; t++) {
		st->time_scale = merge_scale(st->time_scale, ws[t].scale);
		st->simulated = st->simulated || ws[t].simulated;
		if (!st->sim_interval[0])
			memcpy(st->sim_interval, ws[t].sim_interval, sizeof st->sim_interval);
	}
	st->clock = BENCH_CLOCK_WALL;
	if (!use_model_clock(st, results, n) && st->time_scale > 0) {
		to_model_time(st, results, n);
		st->clock = BENCH_CLOCK_SCALED;
	}
	if (cfg->progress)
		cfg->progress(cfg->progress_arg, IB_LOG_PROGRESS, NULL);
out:
	for (size_t t = 0; ws && t < nthreads; t++)
		worker_free(&ws[t]);
	free(ws);
	free(tids);
	free(sh.arrival);
	return rc;
}

void bench_result_free(bench_result *r)
{
	bench_vec_free(&r->itl);
	bench_vec_free(&r->m_itl);
	ib_buf_free(&r->text);
}
