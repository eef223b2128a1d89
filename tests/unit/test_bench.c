#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "bench/bench.h"

static bool scan(const char *s, bool chat, bench_chunk *c, ib_buf *text)
{
	return bench_scan_chunk(s, strlen(s), chat, c, text);
}

Test(bench, scan_completion_chunks)
{
	bench_chunk c;
	ib_buf t = {0};
	cr_assert(scan("{\"id\":\"x\",\"choices\":[{\"index\":0,\"text\":\" caf\\u00e9 \\ud83d\\ude00\\n\","
		       "\"logprobs\":null}],\"usage\":null}",
		       false, &c, &t));
	cr_assert(c.has_choices);
	cr_assert_not(c.has_usage);
	cr_assert_str_eq(t.data, " caf\xc3\xa9 \xf0\x9f\x98\x80\n");
	cr_assert(scan("{\"choices\": [], \"usage\": {\"prompt_tokens\": 5, \"completion_tokens\": 37}}", false,
		       &c, NULL));
	cr_assert_not(c.has_choices);
	cr_assert(c.has_usage);
	cr_assert_eq(c.completion_tokens, 37);
	cr_assert(scan("{\"usage\": {\"completion_tokens\": null}}", false, &c, NULL));
	cr_assert(c.has_usage);
	cr_assert_eq(c.completion_tokens, -1);
	cr_assert(scan("{\"usage\": {}}", false, &c, NULL));
	cr_assert_not(c.has_usage); /* an empty dict is falsy */
	cr_assert(scan("[1, 2]", false, &c, NULL));
	cr_assert_not(c.has_choices);
	/* malformed JSON of every kind */
	const char *bad[] = {"{\"id\": \"cmpl-broken\", \"choices\": [{\"text\": ", "{", "{\"a\" 1}",
			     "{\"a\": tru}", "{\"a\": 01}", "{\"a\": \"x}", "{} x", "{\"a\": [1,]}", ""};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		cr_assert_not(scan(bad[i], false, &c, NULL), "%s", bad[i]);
	ib_buf_free(&t);
}

Test(bench, scan_chat_chunks)
{
	bench_chunk c;
	ib_buf t = {0};
	cr_assert(scan("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}", true,
		       &c, &t));
	cr_assert(c.has_choices);
	cr_assert_eq(t.len, 0);
	cr_assert(scan("{\"choices\":[{\"delta\":{\"reasoning_content\":\"x\"}}]}", true, &c, &t));
	cr_assert(c.has_choices);
	cr_assert(scan("{\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}", true, &c, &t));
	cr_assert_str_eq(t.data, "hi");
	ib_buf_free(&t);
}

/* A completions stream like the simulator's, fed in pieces of every size. */
Test(bench, completion_stream_any_split)
{
	const char *body = "data: {\"choices\":[{\"text\":\" a\"}]}\n\n"
			   "data: {\"choices\":[{\"text\":\" b\"}]}\r\n\r\n"
			   "data: {\"choices\":[{\"text\":\" c\",\"finish_reason\":\"length\"}]}\n\n"
			   "data: {\"choices\":[],\"usage\":{\"completion_tokens\":3}}\n\n"
			   "data: [DONE]\n\n";
	size_t len = strlen(body);
	for (size_t piece = 1; piece <= len; piece++) {
		bench_sse s = {0};
		bench_sse_reset(&s, false, true, 1000);
		int64_t t = 2000;
		for (size_t off = 0; off < len; off += piece, t += 1000) {
			size_t n = len - off < piece ? len - off : piece;
			cr_assert(bench_sse_feed(&s, body + off, n, t));
		}
		bench_sse_end(&s);
		cr_assert(s.success, "piece %zu: %s", piece, s.error);
		cr_assert_eq(s.token_chunks, 3);
		cr_assert_eq(s.itl.n, 2);
		cr_assert_eq(s.output_tokens, 3);
		cr_assert_str_eq(s.text.data, " a b c");
		cr_assert_gt(s.ttft, 0);
		bench_sse_free(&s);
	}
}

Test(bench, timing_rules)
{
	bench_sse s = {0};
	/* Completions: TTFT at the first token chunk, ITL between token chunks,
	 * E2EL ends at the last token chunk (not the usage chunk) */
	bench_sse_reset(&s, false, false, 0);
	bench_sse_feed(&s, "data: {\"choices\":[{\"text\":\"x\"}]}\n", 33, 100000000);
	bench_sse_feed(&s, "data: {\"choices\":[{\"text\":\"y\"}]}\n", 33, 130000000);
	bench_sse_feed(&s, "data: {\"usage\":{\"completion_tokens\":2}}\n", 40, 500000000);
	bench_sse_end(&s);
	cr_assert(s.success);
	cr_assert_float_eq(s.ttft, 0.1, 1e-12);
	cr_assert_float_eq(s.itl.v[0], 0.03, 1e-12);
	cr_assert_eq(s.last_ns, 130000000);
	/* Chat: the usage line moves the end */
	bench_sse_reset(&s, true, false, 0);
	bench_sse_feed(&s, "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n", 46, 100000000);
	bench_sse_feed(&s, "data: {\"usage\":{\"completion_tokens\":1}}\n", 40, 500000000);
	bench_sse_end(&s);
	cr_assert(s.success);
	cr_assert_eq(s.last_ns, 500000000);
	bench_sse_free(&s);
}

Test(bench, failures)
{
	bench_sse s = {0};
	bench_sse_reset(&s, false, false, 0);
	cr_assert_not(bench_sse_feed(&s, "event: ping\n", 12, 1));
	cr_assert(s.failed);
	bench_sse_reset(&s, false, false, 0);
	cr_assert_not(bench_sse_feed(&s, "data: {\"id\": \"x\", \"choices\": [{\"text\": \n", 42, 1));
	bench_sse_reset(&s, false, false, 0);
	bench_sse_feed(&s, "data: [DONE]\n", 13, 1);
	bench_sse_end(&s);
	cr_assert_not(s.success);
	cr_assert(strstr(s.error, "Never received a valid chunk"));
	bench_sse_reset(&s, true, false, 0); /* chat succeeds without chunks */
	bench_sse_end(&s);
	cr_assert(s.success);
	/* a line over 128 KiB */
	bench_sse_reset(&s, false, false, 0);
	static char big[140 * 1024];
	memset(big, 'x', sizeof big);
	cr_assert_not(bench_sse_feed(&s, big, sizeof big, 1));
	cr_assert(strstr(s.error, "too long"));
	bench_sse_free(&s);
}

Test(bench, numpy_statistics)
{
	double a[] = {4, 1, 3, 2};
	cr_assert_float_eq(bench_percentile(a, 4, 50), 2.5, 1e-12);
	cr_assert_float_eq(bench_percentile(a, 4, 90), 3.7, 1e-12);
	cr_assert_float_eq(bench_percentile(a, 4, 99), 3.97, 1e-12);
	cr_assert_float_eq(bench_percentile(a, 4, 0), 1, 1e-12);
	cr_assert_float_eq(bench_percentile(a, 4, 100), 4, 1e-12);
	double b[] = {15, 20, 35, 40, 50};
	cr_assert_float_eq(bench_percentile(b, 5, 40), 29.0, 1e-12);
	cr_assert_float_eq(bench_percentile(b, 5, 99.9), 49.96, 1e-9);
	double c[] = {2, 4, 4, 4, 5, 5, 7, 9};
	cr_assert_float_eq(bench_mean(c, 8), 5, 1e-12);
	cr_assert_float_eq(bench_std(c, 8), 2, 1e-12);
	cr_assert_eq(bench_percentile(NULL, 0, 99), 0);
	cr_assert_eq(bench_mean(NULL, 0), 0);
}

#include <jansson.h>

/* The scanner accepts exactly what a JSON parser accepts, on random
 * mutations of a real chunk (Jansson as the referee). */
Test(bench, scanner_agrees_with_a_json_parser)
{
	const char *base = "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,"
			   "\"text\":\" a\\\"b\\n\",\"logprobs\":null,\"finish_reason\":null}],"
			   "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":-1.5e3}}";
	static const char alphabet[] = "{}[]\",:0123456789-+.eEtrufalsn x\\";
	char buf[512];
	unsigned seed = 12345;
	int checked = 0;
	for (int iter = 0; iter < 20000; iter++) {
		size_t n = strlen(base);
		memcpy(buf, base, n + 1);
		int edits = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 3;
		for (int k = 0; k < edits; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t pos = (seed >> 16) % n;
			seed = seed * 1103515245u + 12345u;
			char c = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
			seed = seed * 1103515245u + 12345u;
			int op = (int)((seed >> 16) % 3);
			if (op == 0) {
				buf[pos] = c;
			} else if (op == 1 && n < sizeof buf - 2) {
				memmove(buf + pos + 1, buf + pos, n - pos + 1);
				buf[pos] = c;
				n++;
			} else if (n > 1) {
				memmove(buf + pos, buf + pos + 1, n - pos);
				n--;
			}
		}
		if (strstr(buf, "\\u"))
			continue; /* escapes of lone surrogates: Python accepts, Jansson not */
		json_error_t je;
		json_t *j = json_loadb(buf, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
		bench_chunk c;
		bool ours = bench_scan_chunk(buf, n, false, &c, NULL);
		cr_assert_eq(ours, j != NULL, "disagree on: %s", buf);
		json_decref(j);
		checked++;
	}
	cr_assert_gt(checked, 10000);
}

Test(bench, scrape_values_stay_on_their_line)
{
	bench_scrape s;
	/* a name without a value: the next line's number is not its value */
	bench_scrape_values("vllm:prefix_cache_hits_total \n7\n"
			    "vllm:prefix_cache_queries_total{engine=\"0\"} 8 1700000000\n"
			    "vllm:prefix_cache_queries_total{engine=\"1\"}\t2\n"
			    "vllm:spec_decode_num_drafts_total{engine=\"0\"\n} 5\n"
			    "vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"1\"} 4\n"
			    "vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"10\"} 9",
			    &s);
	cr_assert(s.ok);
	cr_assert(isnan(s.prefix_hits), "got %g", s.prefix_hits);
	cr_assert_eq(s.prefix_queries, 10);
	cr_assert(isnan(s.drafts), "an unclosed label set is no sample (got %g)", s.drafts);
	cr_assert_eq(s.per_pos[1], 4);
	cr_assert(isnan(s.per_pos[0]));
}
