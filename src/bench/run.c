/* The request engine: one event loop, one client connection per slot of
 * --max-concurrency, closed-loop or open-loop (gamma inter-arrivals)
 * dispatch as in the reference, warmup, and the client's own health
 * figures (schedule lag, loop lag, CPU). */
#include "bench/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

typedef struct run run;
typedef struct {
	run *r;
	net_client *c;
	bench_sse sse;
	ssize_t idx; /* request in flight, -1 when idle */
	bool warmup;
	int status;
	char reason[64];
	int64_t intended;
	ib_buf req;
} slot;

struct run {
	const bench_cfg *cfg;
	const bench_prompt *prompts;
	size_t n;
	bench_result *res;
	net_loop *loop;
	slot *slots;
	size_t nslots;
	/* measured phase */
	bool measuring;
	int64_t t0;
	int64_t *arrival; /* intended send times, absolute ns */
	size_t next;      /* next request to send */
	size_t arrived;   /* requests whose arrival time has passed */
	size_t done;
	net_timer arrive;
	/* warmup */
	size_t warm_sent, warm_done;
	/* health */
	net_timer lag_timer;
	bench_vec lags;
	net_timer progress_timer;
	uint64_t out_tokens;
	ib_error *e;
};

static double now_unix(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu_now(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return u.ru_utime.tv_sec + u.ru_utime.tv_usec * 1e-6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec * 1e-6;
}

/* The request bytes for prompt p: Python json.dumps body (H3 / H4). */
static int build(const bench_cfg *c, const bench_prompt *p, ib_buf *req)
{
	ib_buf body = {0};
	int rc = ib_buf_puts(&body, "{\"model\": ");
	rc |= ib_json_write_str(&body, c->model, strlen(c->model), true);
	if (c->chat) {
		rc |= ib_buf_puts(&body, ", \"messages\": [{\"role\": \"user\", \"content\": ");
		rc |= ib_json_write_str(&body, p->text, p->len, true);
		rc |= ib_buf_printf(&body, "}], \"temperature\": 0.0, \"max_completion_tokens\": %lld",
				    (long long)p->output_len);
	} else {
		rc |= ib_buf_puts(&body, ", \"prompt\": ");
		rc |= ib_json_write_str(&body, p->text, p->len, true);
		rc |= ib_buf_printf(&body, ", \"temperature\": 0.0, \"best_of\": %d, \"max_tokens\": %lld, "
					   "\"logprobs\": %s",
				    c->best_of, (long long)p->output_len, c->logprobs ? c->logprobs : "null");
	}
	rc |= ib_buf_puts(&body, ", \"stream\": true, \"stream_options\": {\"include_usage\": true}");
	if (c->ignore_eos)
		rc |= ib_buf_puts(&body, ", \"ignore_eos\": true");
	rc |= ib_buf_putc(&body, '}');
	req->len = 0;
	rc |= ib_buf_printf(req,
			    "POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
			    "Authorization: Bearer %s\r\nAccept: */*\r\nUser-Agent: infbench\r\n"
			    "Content-Length: %zu\r\n\r\n",
			    c->endpoint, c->host, c->port, c->api_key ? c->api_key : "None", body.len);
	rc |= ib_buf_append(req, body.data, body.len);
	ib_buf_free(&body);
	return rc ? IB_ENOMEM : 0;
}

static void dispatch(run *r);

static void send_on(slot *s, size_t idx, bool warmup, int64_t intended)
{
	run *r = s->r;
	const bench_prompt *p = &r->prompts[warmup ? 0 : idx];
	s->idx = (ssize_t)idx;
	s->warmup = warmup;
	s->intended = intended;
	s->status = 0;
	s->reason[0] = 0;
	if (build(r->cfg, p, &s->req)) {
		ib_fail(r->e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		net_stop(r->loop);
		return;
	}
	int64_t st = ib_now_ns(); /* S1: just before the POST */
	bench_sse_reset(&s->sse, r->cfg->chat, r->cfg->keep_text, st);
	if (!warmup)
		r->res[idx].schedule_lag = (double)(st - intended) * 1e-9;
	if (net_client_send(s->c, s->req.data, s->req.len)) {
		/* no socket at all: fail this request now */
		s->sse.failed = true;
		snprintf(s->sse.error, sizeof s->sse.error, "cannot create a socket");
	}
}

static void complete(slot *s, int err, const char *msg)
{
	run *r = s->r;
	size_t idx = (size_t)s->idx;
	bool warmup = s->warmup;
	s->idx = -1;
	if (!r->cfg->keep_alive)
		net_client_close(s->c);
	if (warmup) {
		r->warm_done++;
	} else {
		bench_result *res = &r->res[idx];
		bench_sse *x = &s->sse;
		if (!x->failed && s->status != 200)
			snprintf(x->error, sizeof x->error, "%s", s->reason[0] ? s->reason : "HTTP error"),
				x->failed = true;
		if (!x->failed && err)
			snprintf(x->error, sizeof x->error, "%s", msg ? msg : "connection error"), x->failed = true;
		if (!x->failed)
			bench_sse_end(x);
		res->success = x->success && !x->failed;
		snprintf(res->error, sizeof res->error, "%s", res->success ? "" : x->error);
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
			if (r->cfg->keep_text) {
				ib_buf_free(&res->text);
				res->text = x->text;
				x->text = (ib_buf){0};
			}
			if (x->output_tokens > 0)
				r->out_tokens += (uint64_t)x->output_tokens;
		}
		r->done++;
	}
	dispatch(r);
}

static void on_head(net_client *c, const net_http_msg *m, int64_t t, void *arg)
{
	(void)c;
	(void)t;
	slot *s = arg;
	s->status = m->status;
	snprintf(s->reason, sizeof s->reason, "%.*s", (int)m->reason_len, m->reason);
}

static void on_data(net_client *c, const char *data, size_t len, int64_t t, void *arg)
{
	(void)c;
	slot *s = arg;
	if (s->status == 200)
		bench_sse_feed(&s->sse, data, len, t);
}

static void on_done(net_client *c, int err, const char *msg, void *arg)
{
	(void)c;
	complete(arg, err, msg);
}

static slot *free_slot(run *r)
{
	for (size_t i = 0; i < r->nslots; i++)
		if (r->slots[i].idx < 0)
			return &r->slots[i];
	return NULL;
}

static void dispatch(run *r)
{
	const bench_cfg *c = r->cfg;
	if (!r->measuring) {
		size_t total = c->num_warmups;
		slot *s;
		while (r->warm_sent < total && (s = free_slot(r))) {
			send_on(s, 0, true, ib_now_ns());
			r->warm_sent++;
		}
		if (r->warm_done < total)
			return;
		/* the measured window starts */
		if (c->on_start)
			c->on_start(c->on_start_arg);
		r->measuring = true;
		r->t0 = ib_now_ns();
		for (size_t i = 0; i < r->n; i++)
			r->arrival[i] = r->t0 + r->arrival[i];
		r->arrived = isinf(c->request_rate) ? r->n : 1;
		if (!isinf(c->request_rate) && r->n > 1)
			net_timer_arm(r->loop, &r->arrive, r->arrival[1]);
	}
	slot *s;
	while (r->next < r->arrived && (s = free_slot(r))) {
		size_t i = r->next++;
		send_on(s, i, false, r->arrival[i]);
	}
	if (r->done == r->n)
		net_stop(r->loop);
}

static void on_arrive(net_loop *l, net_timer *t)
{
	run *r = t->arg;
	int64_t now = net_now(l);
	while (r->arrived < r->n && r->arrival[r->arrived] <= now)
		r->arrived++;
	if (r->arrived < r->n)
		net_timer_arm(l, t, r->arrival[r->arrived]);
	dispatch(r);
}

enum { LAG_PERIOD_NS = 10 * 1000 * 1000 };

static void on_lag(net_loop *l, net_timer *t)
{
	run *r = t->arg;
	int64_t now = ib_now_ns();
	bench_vec_push(&r->lags, (double)(now - t->when) * 1e-9);
	net_timer_arm(l, t, now + LAG_PERIOD_NS);
}

static void on_progress(net_loop *l, net_timer *t)
{
	run *r = t->arg;
	if (r->measuring) {
		double el = (double)(ib_now_ns() - r->t0) * 1e-9;
		double rps = el > 0 ? r->done / el : 0;
		double eta = rps > 0 ? (double)(r->n - r->done) / rps : 0;
		fprintf(stderr, "\r  %zu/%zu requests  %.1f req/s  %.0f tok/s  ETA %.0fs   ", r->done, r->n, rps,
			el > 0 ? r->out_tokens / el : 0, eta);
	} else {
		fprintf(stderr, "\r  warmup %zu/%zu   ", r->warm_done, r->cfg->num_warmups);
	}
	net_timer_arm(l, t, ib_now_ns() + 500 * 1000 * 1000);
}

int bench_run(const bench_cfg *cfg, const bench_prompt *prompts, size_t n, bench_result *results,
	      bench_run_stats *st, ib_error *e)
{
	memset(st, 0, sizeof *st);
	if (n == 0)
		return 0;
	run r = {.cfg = cfg, .prompts = prompts, .n = n, .res = results, .e = e};
	size_t conc = cfg->max_concurrency ? cfg->max_concurrency : n;
	size_t need = n > cfg->num_warmups ? n : cfg->num_warmups;
	r.nslots = conc < need ? conc : need;
	r.slots = calloc(r.nslots, sizeof *r.slots);
	r.arrival = calloc(n, sizeof *r.arrival);
	int rc = 0;
	if (!r.slots || !r.arrival) {
		rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		goto out;
	}
	/* intended send times relative to the start: Q2 (the generator sleeps a
	 * gamma-distributed interval after each request) */
	if (!isinf(cfg->request_rate)) {
		double theta = 1.0 / (cfg->request_rate * cfg->burstiness), t = 0;
		for (size_t i = 0; i < n; i++) {
			r.arrival[i] = (int64_t)(t * 1e9);
			t += ib_mt_gamma(cfg->rng, cfg->burstiness, theta);
		}
	}
	if ((rc = net_loop_new(&r.loop, e)))
		goto out;
	net_client_cbs cbs = {.on_head = on_head, .on_data = on_data, .on_done = on_done};
	for (size_t i = 0; i < r.nslots; i++) {
		r.slots[i] = (slot){.r = &r, .idx = -1};
		if ((rc = net_client_new(r.loop, cfg->host, cfg->port, &cbs, &r.slots[i], &r.slots[i].c, e)))
			goto out;
		net_client_kernel_timestamps(r.slots[i].c, cfg->kernel_timestamps);
	}
	r.arrive = (net_timer){.fn = on_arrive, .arg = &r};
	r.lag_timer = (net_timer){.fn = on_lag, .arg = &r};
	r.progress_timer = (net_timer){.fn = on_progress, .arg = &r};
	net_timer_arm(r.loop, &r.lag_timer, ib_now_ns() + LAG_PERIOD_NS);
	if (cfg->progress)
		net_timer_arm(r.loop, &r.progress_timer, ib_now_ns() + 500 * 1000 * 1000);
	double cpu0 = 0;
	st->start_unix = now_unix();
	cpu0 = cpu_now();
	dispatch(&r);
	if (net_run(r.loop) && !rc)
		rc = ib_fail(e, IB_EIO, NULL, 0, 0, "the event loop failed");
	int64_t t1 = ib_now_ns();
	st->end_unix = now_unix();
	st->duration = (double)(t1 - r.t0) * 1e-9;
	st->cpu_seconds = cpu_now() - cpu0;
	st->achieved_rate = st->duration > 0 ? (double)n / st->duration : 0;
	st->loop_lag_p99 = bench_percentile(r.lags.v, r.lags.n, 99);
	st->loop_lag_max = r.lags.n ? r.lags.v[r.lags.n - 1] : 0; /* sorted by the percentile */
	if (cfg->progress)
		fprintf(stderr, "\r%*s\r", 70, "");
	if (r.e && r.e->code)
		rc = r.e->code;
out:
	if (r.loop) {
		net_timer_cancel(r.loop, &r.arrive);
		net_timer_cancel(r.loop, &r.lag_timer);
		net_timer_cancel(r.loop, &r.progress_timer);
	}
	for (size_t i = 0; r.slots && i < r.nslots; i++) {
		net_client_free(r.slots[i].c);
		bench_sse_free(&r.slots[i].sse);
		ib_buf_free(&r.slots[i].req);
	}
	net_loop_free(r.loop);
	bench_vec_free(&r.lags);
	free(r.slots);
	free(r.arrival);
	return rc;
}

void bench_result_free(bench_result *r)
{
	bench_vec_free(&r->itl);
	ib_buf_free(&r->text);
}
