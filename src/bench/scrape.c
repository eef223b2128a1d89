#define _GNU_SOURCE
/* Scraping the server's Prometheus /metrics before and after a run:
 * speculative-decoding acceptance (vLLM and SGLang names) and prefix-cache
 * hits. A plain blocking GET with a deadline: it runs outside the timed
 * window. */
#include "bench/bench.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* one exchange on a private loop */
typedef struct {
	net_loop *loop;
	int status, err;
	bool done;
	char msg[256];
	ib_buf *resp;
} exchange;

static void x_head(net_client *c, const net_http_msg *m, int64_t t, void *arg)
{
	(void)c;
	(void)t;
	((exchange *)arg)->status = m->status;
}

static void x_data(net_client *c, const char *data, size_t len, int64_t t, void *arg)
{
	(void)c;
	(void)t;
	exchange *x = arg;
	if (ib_buf_append(x->resp, data, len) && !x->err) {
		x->err = IB_ENOMEM;
		snprintf(x->msg, sizeof x->msg, "out of memory");
	}
}

static void x_done(net_client *c, int err, const char *msg, void *arg)
{
	(void)c;
	exchange *x = arg;
	x->done = true;
	if (err && !x->err) {
		x->err = err;
		snprintf(x->msg, sizeof x->msg, "%s", msg ? msg : "connection error");
	}
	net_stop(x->loop);
}

static void x_timeout(net_loop *l, net_timer *t)
{
	(void)t;
	net_stop(l);
}

int bench_http(const bench_cfg *cfg, const char *method, const char *path, const char *body, size_t body_len,
	       int timeout_ms, ib_buf *resp, ib_error *e)
{
	exchange x = {.resp = resp};
	net_client *c = NULL;
	net_timer deadline = {.fn = x_timeout};
	ib_buf req = {0};
	net_client_cbs cbs = {.on_head = x_head, .on_data = x_data, .on_done = x_done};
	int rc = net_loop_new(&x.loop, e);
	if (!rc)
		rc = net_client_new(x.loop, cfg->host, cfg->port, &cbs, &x, &c, e);
	if (!rc && cfg->tls && net_client_use_tls(c, cfg->tls, cfg->server_name))
		rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	if (rc)
		goto out;
	int w = ib_buf_printf(&req, "%s %s HTTP/1.1\r\nHost: %s:%d\r\nConnection: close\r\n", method, path,
			      cfg->host, cfg->port);
	if (body)
		w |= ib_buf_printf(&req, "Content-Type: application/json\r\nContent-Length: %zu\r\n", body_len);
	w |= ib_buf_puts(&req, "\r\n");
	if (body)
		w |= ib_buf_append(&req, body, body_len);
	if (w) {
		rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		goto out;
	}
	net_timer_arm(x.loop, &deadline, ib_now_ns() + (int64_t)timeout_ms * 1000000);
	if (net_client_send(c, req.data, req.len)) {
		rc = ib_fail(e, IB_EIO, NULL, 0, 0, "%s %s: cannot open a socket: %s", method, path, strerror(errno));
		goto out;
	}
	if (!x.done)
		net_run(x.loop);
	if (!x.done)
		rc = ib_fail(e, IB_EIO, NULL, 0, 0, "%s %s: no answer within %d ms", method, path, timeout_ms);
	else if (x.err)
		rc = ib_fail(e, x.err == IB_ENOMEM ? IB_ENOMEM : IB_EIO, NULL, 0, 0, "%s %s: %s", method, path, x.msg);
	else if (x.status != 200)
		rc = ib_fail(e, IB_EIO, NULL, 0, 0, "%s %s: HTTP %d", method, path, x.status);
out:
	if (x.loop)
		net_timer_cancel(x.loop, &deadline);
	net_client_free(c);
	net_loop_free(x.loop);
	ib_buf_free(&req);
	return rc;
}

/* Sums every sample of metric `name` (all label sets), or NAN if absent.
 * With `label`, only samples whose labels contain it. A sample is one line:
 * the name, optional {labels}, blanks, then the value (a line without a
 * value there is no sample; the value is never read from the next line). */
static double sample(const char *text, const char *name, const char *label)
{
	size_t nl = strlen(name);
	double sum = 0;
	bool found = false;
	for (const char *p = text; p && *p;) {
		const char *eol = strchr(p, '\n');
		const char *end = eol ? eol : p + strlen(p);
		if (*p != '#' && (size_t)(end - p) > nl && !strncmp(p, name, nl) &&
		    (p[nl] == '{' || p[nl] == ' ' || p[nl] == '\t')) {
			const char *v = p + nl;
			bool ok = true;
			if (*v == '{') {
				const char *close = memchr(v, '}', (size_t)(end - v));
				size_t ll = label ? strlen(label) : 0;
				if (!close || (label && !memmem(v, (size_t)(close - v), label, ll)))
					ok = false;
				else
					v = close + 1;
			}
			while (ok && v < end && (*v == ' ' || *v == '\t'))
				v++;
			char *e = NULL;
			double x = ok && v < end ? strtod(v, &e) : 0;
			if (ok && v < end && e > v && e <= end) {
				sum += x;
				found = true;
			}
		}
		p = eol ? eol + 1 : NULL;
	}
	return found ? sum : NAN;
}

void bench_scrape_values(const char *text, bench_scrape *s)
{
	memset(s, 0, sizeof *s);
	s->drafts = sample(text, "vllm:spec_decode_num_drafts_total", NULL);
	s->draft_tokens = sample(text, "vllm:spec_decode_num_draft_tokens_total", NULL);
	s->accepted = sample(text, "vllm:spec_decode_num_accepted_tokens_total", NULL);
	for (int i = 0; i < 16; i++) {
		char lab[32];
		snprintf(lab, sizeof lab, "position=\"%d\"", i);
		s->per_pos[i] = sample(text, "vllm:spec_decode_num_accepted_tokens_per_pos_total", lab);
	}
	s->sglang_accept_length = sample(text, "sglang:spec_accept_length", NULL);
	s->prefix_hits = sample(text, "vllm:prefix_cache_hits_total", NULL);
	s->prefix_queries = sample(text, "vllm:prefix_cache_queries_total", NULL);
	s->sglang_cache_hit_rate = sample(text, "sglang:cache_hit_rate", NULL);
	s->ok = true;
}

static int setd(ib_arena *a, ib_val *m, const char *k, double v)
{
	return ib_map_set(a, m, k, isnan(v) ? ib_v_null(a) : ib_v_float(a, v));
}

ib_val *bench_scrape_diff(ib_arena *a, const bench_scrape *before, const bench_scrape *after)
{
	if (!before->ok || !after->ok)
		return ib_v_null(a);
	ib_val *m = ib_v_map(a), *sd = ib_v_map(a), *pc = ib_v_map(a);
	double drafts = after->drafts - before->drafts, acc = after->accepted - before->accepted;
	double dtoks = after->draft_tokens - before->draft_tokens;
	if (!isnan(drafts) && drafts > 0) {
		setd(a, sd, "drafts", drafts);
		setd(a, sd, "draft_tokens", dtoks);
		setd(a, sd, "accepted_tokens", acc);
		setd(a, sd, "acceptance_rate", dtoks > 0 ? acc / dtoks : NAN);
		setd(a, sd, "mean_acceptance_length", 1 + acc / drafts);
		ib_val *pp = ib_v_list(a);
		for (int i = 0; i < 16 && !isnan(after->per_pos[i]); i++)
			ib_list_push(a, pp, ib_v_float(a, (after->per_pos[i] - before->per_pos[i]) / drafts));
		ib_map_set(a, sd, "per_position_acceptance", pp);
		ib_map_set(a, m, "spec_decode", sd);
	} else if (!isnan(after->sglang_accept_length)) {
		setd(a, sd, "mean_acceptance_length", after->sglang_accept_length);
		ib_map_set(a, m, "spec_decode", sd);
	} else {
		ib_map_set(a, m, "spec_decode", ib_v_null(a));
	}
	double hits = after->prefix_hits - before->prefix_hits;
	double q = after->prefix_queries - before->prefix_queries;
	if (!isnan(q) && q > 0) {
		setd(a, pc, "hits", hits);
		setd(a, pc, "queries", q);
		setd(a, pc, "hit_rate", hits / q);
		ib_map_set(a, m, "prefix_cache", pc);
	} else if (!isnan(after->sglang_cache_hit_rate)) {
		setd(a, pc, "hit_rate", after->sglang_cache_hit_rate);
		ib_map_set(a, m, "prefix_cache", pc);
	} else {
		ib_map_set(a, m, "prefix_cache", ib_v_null(a));
	}
	return m;
}

double bench_probe_time_scale(const bench_cfg *cfg, int timeout_ms)
{
	ib_buf body = {0};
	ib_error e = {0};
	double scale = 0;
	ib_arena *a = ib_arena_new();
	ib_val *doc;
	if (a && !bench_http(cfg, "GET", "/v1/models", NULL, 0, timeout_ms, &body, &e) &&
	    !ib_json_parse(a, "/v1/models", body.data ? body.data : "", body.len, &doc, &e) &&
	    doc->type == IB_V_MAP) {
		const ib_val *d = ib_map_get(doc, "data");
		const ib_val *ts = d && d->type == IB_V_LIST && d->list.n > 0 && d->list.v[0]->type == IB_V_MAP
					   ? ib_map_get(d->list.v[0], "time_scale")
					   : NULL;
		if (ts && ts->type == IB_V_FLOAT && ts->f > 0)
			scale = ts->f;
		else if (ts && ts->type == IB_V_INT && ts->i > 0)
			scale = (double)ts->i;
	}
	ib_buf_free(&body);
	ib_arena_free(a);
	return scale;
}
