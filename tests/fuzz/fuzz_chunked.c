/* The chunked body decoder (net/http.c: net_chunked_feed). Checks: no
 * crash; the same input fed whole and in three fuzzer-chosen pieces gives
 * the same verdict (malformed or not), the same decoded bytes, the same end
 * (done) and the same number of bytes consumed; a decoder never consumes
 * more than it was given, nor anything after the end. */
#include "fuzz.h"

#include "net/net.h"

typedef struct {
	bool bad, done;
	size_t used;
	ib_buf out;
} run;

static void feed(run *r, const char *in, size_t size, const size_t *cut, size_t ncut)
{
	net_chunked c = {0};
	size_t from = 0;
	for (size_t k = 0; k <= ncut && !r->bad && !c.done; k++) {
		size_t to = k < ncut ? cut[k] : size;
		size_t len = to - from;
		/* each piece in its own allocation, so ASan sees reads past it */
		char *piece = malloc(len ? len : 1);
		if (!piece)
			abort();
		if (len)
			memcpy(piece, in + from, len);
		long n = net_chunked_feed(&c, piece, len, &r->out);
		free(piece);
		if (n < 0) {
			r->bad = true;
			break;
		}
		FUZZ_CHECK((size_t)n <= len, "consumed %ld of %zu", n, len);
		if ((size_t)n < len)
			FUZZ_CHECK(c.done, "stopped early (%ld of %zu) without done", n, len);
		r->used += (size_t)n;
		from = to;
	}
	r->done = c.done;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cut[2];
	fuzz_split(&data, &size, cut);
	run whole = {0}, split = {0};
	feed(&whole, (const char *)data, size, NULL, 0);
	feed(&split, (const char *)data, size, cut, 2);
	FUZZ_CHECK(whole.bad == split.bad, "malformed whole %d, split at %zu,%zu %d", whole.bad,
	           cut[0], cut[1], split.bad);
	if (!whole.bad) {
		FUZZ_CHECK(whole.done == split.done, "done %d vs %d", whole.done, split.done);
		FUZZ_CHECK(whole.used == split.used, "used %zu vs %zu", whole.used, split.used);
		FUZZ_CHECK(
		    whole.out.len == split.out.len &&
		        (!whole.out.len || !memcmp(whole.out.data, split.out.data, whole.out.len)),
		    "decoded bytes differ (%zu vs %zu)", whole.out.len, split.out.len);
		FUZZ_CHECK(whole.out.len <= size, "decoded %zu bytes of %zu", whole.out.len, size);
	}
	ib_buf_free(&whole.out);
	ib_buf_free(&split.out);
	return 0;
}
