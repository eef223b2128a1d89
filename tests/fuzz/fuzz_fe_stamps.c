/* The frontend's model-stamp rewriting (cluster/frontend.c: cl_fe_restamp,
 * cl_fe_span), on a role's answer as it arrives. Checks: no crash; input
 * without the stamp key comes out unchanged; the same body
 * rewritten whole and in three fuzzer-chosen pieces cut at event
 * boundaries ("\n\n") gives the same bytes; a span is never negative. */
#define _GNU_SOURCE /* memmem */
#include "fuzz.h"

#include "cluster/frontend.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	cl_fe_clock k = {.t0 = 12.5, .base = 13.25, .a = NAN};
	ib_buf whole = {0}, pieces = {0};
	FUZZ_CHECK(cl_fe_restamp(&k, in, size, &whole) == 0, "restamp failed");
	if (!memmem(in, size, "\"infbench_t", 11))
		FUZZ_CHECK(whole.len == size && (!size || !memcmp(whole.data, in, size)),
		           "input without stamps changed");
	/* in pieces at event boundaries, with the clock carried along */
	cl_fe_clock k3 = {.t0 = 12.5, .base = 13.25, .a = NAN};
	size_t from = 0;
	while (from < size) {
		const char *nn = memmem(in + from, size - from, "\n\n", 2);
		size_t to = nn ? (size_t)(nn + 2 - in) : size;
		FUZZ_CHECK(cl_fe_restamp(&k3, in + from, to - from, &pieces) == 0, "piece failed");
		from = to;
	}
	FUZZ_CHECK(pieces.len == whole.len &&
	               (!whole.len || !memcmp(pieces.data, whole.data, whole.len)),
	           "pieces differ from the whole");
	double span = -1;
	if (cl_fe_span(in, size, &span))
		FUZZ_CHECK(span >= 0, "negative span %g", span);
	ib_buf_free(&whole);
	ib_buf_free(&pieces);
	return 0;
}
