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

int bench_http(const char *host, int port, const char *method, const char *path, const char *body,
	       size_t body_len, int timeout_ms, ib_buf *resp, ib_error *e)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "not an IPv4 address: %s", host);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		return ib_fail(e, IB_EIO, NULL, 0, 0, "%s %s: %s", method, path, strerror(err));
	}
	ib_buf req = {0}, raw = {0};
	int rc = ib_buf_printf(&req, "%s %s HTTP/1.1\r\nHost: %s:%d\r\nConnection: close\r\n", method, path,
			       host, port);
	if (body)
		rc |= ib_buf_printf(&req, "Content-Type: application/json\r\nContent-Length: %zu\r\n", body_len);
	rc |= ib_buf_puts(&req, "\r\n");
	if (body)
		rc |= ib_buf_append(&req, body, body_len);
	if (rc)
		rc = IB_ENOMEM;
	for (size_t off = 0; !rc && off < req.len;) {
		ssize_t k = write(fd, req.data + off, req.len - off);
		if (k <= 0)
			rc = IB_EIO;
		else
			off += (size_t)k;
	}
	ib_buf_free(&req);
	int64_t deadline = ib_now_ns() + (int64_t)timeout_ms * 1000000;
	while (!rc) {
		int64_t left = (deadline - ib_now_ns()) / 1000000;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (left <= 0 || poll(&p, 1, (int)left) <= 0) {
			rc = IB_EIO;
			break;
		}
		if (ib_buf_reserve(&raw, 65536)) {
			rc = IB_ENOMEM;
			break;
		}
		ssize_t k = read(fd, raw.data + raw.len, raw.cap - raw.len - 1);
		if (k < 0) {
			rc = IB_EIO;
			break;
		}
		if (k == 0)
			break;
		raw.len += (size_t)k;
		raw.data[raw.len] = 0;
	}
	close(fd);
	net_http_msg m;
	int head = rc ? -1 : net_http_parse_response(raw.data ? raw.data : "", raw.len, &m);
	if (!rc && (head <= 0 || m.status != 200))
		rc = IB_EIO;
	if (!rc && m.chunked) {
		net_chunked ck = {0};
		if (net_chunked_feed(&ck, raw.data + head, raw.len - (size_t)head, resp) < 0)
			rc = IB_EPARSE;
	} else if (!rc) {
		ib_buf_append(resp, raw.data + head, raw.len - (size_t)head);
	}
	ib_buf_free(&raw);
	if (rc)
		return ib_fail(e, rc, NULL, 0, 0, "%s %s failed", method, path);
	return 0;
}

/* Sums every sample of metric `name` (all label sets), or NAN if absent.
 * With `label`, only samples whose labels contain it. */
static double sample(const char *text, const char *name, const char *label)
{
	size_t nl = strlen(name);
	double sum = 0;
	bool found = false;
	for (const char *p = text; p && *p;) {
		const char *eol = strchr(p, '\n');
		if (*p != '#' && !strncmp(p, name, nl) && (p[nl] == '{' || p[nl] == ' ')) {
			const char *v = p + nl;
			bool ok = true;
			if (*v == '{') {
				const char *close = strchr(v, '}');
				if (!close || (eol && close > eol))
					ok = false;
				else {
					if (label && !memmem(v, (size_t)(close - v), label, strlen(label)))
						ok = false;
					v = close + 1;
				}
			}
			if (ok) {
				sum += strtod(v, NULL);
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

double bench_probe_time_scale(const char *host, int port, int timeout_ms)
{
	ib_buf body = {0};
	ib_error e = {0};
	double scale = 0;
	ib_arena *a = ib_arena_new();
	ib_val *doc;
	if (a && !bench_http(host, port, "GET", "/v1/models", NULL, 0, timeout_ms, &body, &e) &&
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
