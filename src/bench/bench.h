/* bench — the serving benchmark client (a drop-in for InferenceX's
 * benchmark_serving.py): streaming response parsing with the reference's
 * timing rules, metrics with numpy's statistics, the result JSON, and the
 * request engine (docs/bench.md).
 *
 * Hot path: a response's bytes go through bench_sse_feed, which splits
 * lines and scans only the fields it needs, without a JSON tree and without
 * allocating per chunk (the per-request arrays grow geometrically).
 */
#ifndef IB_BENCH_H
#define IB_BENCH_H

#include "fmt/fmt.h"

/* ---- streaming response parsing (spec/bench.md S3–S9) ---- */

typedef struct {
	double *v;
	size_t n, cap;
} bench_vec;
int bench_vec_push(bench_vec *v, double x);
void bench_vec_free(bench_vec *v);

typedef struct {
	bool chat;          /* OpenAI Chat rules (S9) instead of Completions (S6) */
	bool keep_text;     /* collect the generated text (--save-detailed) */
	int64_t start_ns;   /* st: just before the request was sent */
	/* results */
	bool success, failed;
	char error[256];
	double ttft;          /* seconds; 0 until the first token chunk */
	int64_t last_ns;      /* most_recent_timestamp: E2EL = last_ns - start_ns */
	bench_vec itl;        /* gaps between token chunks, seconds */
	int64_t output_tokens; /* usage.completion_tokens; -1 when usage had null */
	bool usage_seen;
	size_t token_chunks;
	ib_buf text;
	/* line assembly */
	ib_buf line;
} bench_sse;

/* Prepares s for a new response (keeps its buffers' capacity). */
void bench_sse_reset(bench_sse *s, bool chat, bool keep_text, int64_t start_ns);
void bench_sse_free(bench_sse *s);
/* Feeds body bytes received at time t_ns. Returns false once the request
 * has failed (s->error says why); later bytes are then ignored. */
bool bench_sse_feed(bench_sse *s, const char *data, size_t len, int64_t t_ns);
/* The stream ended: applies the success rule (S8/S9). */
void bench_sse_end(bench_sse *s);

/* Scans one JSON text: returns true if it is well-formed JSON, and reports
 * whether its top level has a non-empty "choices" array and a truthy
 * "usage", with usage.completion_tokens (-1 when null or absent) and the
 * first choice's text (Completions: choices[0].text, Chat:
 * choices[0].delta.content), unescaped into text when text is non-NULL. */
typedef struct {
	bool has_choices, has_usage;
	int64_t completion_tokens;
} bench_chunk;
bool bench_scan_chunk(const char *p, size_t n, bool chat, bench_chunk *out, ib_buf *text);

/* ---- statistics (numpy semantics) ---- */
/* Sorts v in place. Percentile p in [0, 100] with linear interpolation
 * (numpy's default); an empty list counts as [0]. */
double bench_percentile(double *v, size_t n, double p);
double bench_mean(const double *v, size_t n);
double bench_std(const double *v, size_t n); /* population (ddof = 0) */

#endif
