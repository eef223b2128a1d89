#define _GNU_SOURCE
/* Scraping the server's Prometheus /metrics before and after a run:
 * speculative-decoding acceptance (vLLM and SGLang names) and prefix-cache
 * hits. A plain blocking GET with a deadline (net_http_call): it runs
 * outside the timed window. */
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

int bench_http(const bench_cfg *cfg, const char *method, const char *path, const char *body,
               size_t body_len, int timeout_ms, ib_buf *resp, ib_error *e)
{
	net_target t = {
	    .host = cfg->host, .port = cfg->port, .tls = cfg->tls, .server_name = cfg->server_name};
	int status = 0;
	int rc = net_http_call(&t, method, path, body, body_len, timeout_ms, &status, resp, e);
	if (!rc && status != 200)
		rc = ib_fail(e, IB_EIO, NULL, 0, 0, "%s %s: HTTP %d", method, path, status);
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
		s->per_pos[i] =
		    sample(text, "vllm:spec_decode_num_accepted_tokens_per_pos_total", lab);
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
			ib_list_push(
			    a, pp,
			    ib_v_float(a, (after->per_pos[i] - before->per_pos[i]) / drafts));
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
		const ib_val *ts =
		    d && d->type == IB_V_LIST && d->list.n > 0 && d->list.v[0]->type == IB_V_MAP
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
