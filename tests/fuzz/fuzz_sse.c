/* The streaming response scanner of the benchmark client (bench/sse.c:
 * bench_sse_feed / bench_sse_end, and bench_scan_chunk under it), in both
 * the Completions and the Chat mode. Checks: no crash; the same body fed
 * whole and in three fuzzer-chosen pieces (all at the same timestamp) gives
 * the same verdict, error, token chunks, usage, timings (the wall clock's and
 * the server model clock's, infbench_t / infbench_t0) and text. */
#include "fuzz.h"

#include "bench/bench.h"

static void feed(bench_sse *s, bool chat, const char *in, size_t size, const size_t *cut,
                 size_t ncut)
{
	bench_sse_reset(s, chat, true, 1000);
	size_t from = 0;
	for (size_t k = 0; k <= ncut; k++) {
		size_t to = k < ncut ? cut[k] : size;
		size_t len = to - from;
		char *piece = malloc(len ? len : 1);
		if (!piece)
			abort();
		if (len)
			memcpy(piece, in + from, len);
		bool ok = bench_sse_feed(s, piece, len, 5000);
		free(piece);
		FUZZ_CHECK(ok == !s->failed, "feed said %d, failed %d", ok, s->failed);
		from = to;
	}
	bench_sse_end(s);
	FUZZ_CHECK(s->success != s->failed, "success %d, failed %d", s->success, s->failed);
}

static void same(const bench_sse *a, const bench_sse *b)
{
	FUZZ_CHECK(a->success == b->success && a->failed == b->failed, "verdict differs");
	FUZZ_CHECK(!strcmp(a->error, b->error), "error '%s' vs '%s'", a->error, b->error);
	if (a->failed)
		return;
	FUZZ_CHECK(a->token_chunks == b->token_chunks, "token chunks %zu vs %zu", a->token_chunks,
	           b->token_chunks);
	FUZZ_CHECK(a->usage_seen == b->usage_seen && a->output_tokens == b->output_tokens,
	           "usage %lld vs %lld", (long long)a->output_tokens, (long long)b->output_tokens);
	FUZZ_CHECK(a->ttft == b->ttft && a->last_ns == b->last_ns && a->itl.n == b->itl.n,
	           "timings differ");
	FUZZ_CHECK(a->m_ok == b->m_ok && a->m_t0_seen == b->m_t0_seen && a->m_t0 == b->m_t0 &&
	               a->m_ttft == b->m_ttft && a->m_last == b->m_last && a->m_itl.n == b->m_itl.n,
	           "model-clock timings differ");
	FUZZ_CHECK(a->text.len == b->text.len &&
	               (!a->text.len || !memcmp(a->text.data, b->text.data, a->text.len)),
	           "text differs");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cut[2];
	fuzz_split(&data, &size, cut);
	for (int chat = 0; chat < 2; chat++) {
		bench_sse whole = {0}, split = {0};
		feed(&whole, chat, (const char *)data, size, NULL, 0);
		feed(&split, chat, (const char *)data, size, cut, 2);
		same(&whole, &split);
		bench_sse_free(&whole);
		bench_sse_free(&split);
	}
	/* the one-chunk scanner on the whole input as one JSON text */
	char *copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	if (size)
		memcpy(copy, data, size);
	bench_chunk c;
	ib_buf text = {0};
	bench_scan_chunk(copy, size, true, &c, &text);
	bench_scan_chunk(copy, size, false, &c, NULL);
	free(copy);
	ib_buf_free(&text);
	return 0;
}
