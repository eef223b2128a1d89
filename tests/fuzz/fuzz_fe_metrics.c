/* The frontend's /metrics merge (cluster/fe_metrics.c: cl_fe_merge_metrics)
 * of the Prometheus text of the processes behind it. The input is up to two
 * bodies parted by a form feed. Checks: no crash; every line out is a
 * comment or a sample carrying infbench_role; merging the first body twice
 * under one role gives the same series in the same order as merging it
 * once, each value doubled (or equal: a gauge of a fraction's mean), within
 * rounding, unless a partial sum overflowed. */
#define _GNU_SOURCE /* memmem, memrchr */
#include "fuzz.h"

#include "cluster/frontend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The next line of b from *at (without its newline). */
static bool next_line(const ib_buf *b, size_t *at, const char **line, size_t *len)
{
	if (*at >= b->len)
		return false;
	const char *s = b->data + *at, *nl = memchr(s, '\n', b->len - *at);
	*line = s;
	*len = nl ? (size_t)(nl - s) : b->len - *at;
	*at += *len + 1;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off[2], len[2];
	size_t np = fuzz_parts(data, size, 2, off, len);
	const char *bodies[2] = {(const char *)data + off[0],
	                         np > 1 ? (const char *)data + off[1] : ""};
	size_t lens[2] = {len[0], np > 1 ? len[1] : 0};
	const char *roles[2] = {"decode", "prefill"};
	ib_buf two = {0}, once = {0}, twice = {0};
	FUZZ_CHECK(cl_fe_merge_metrics(bodies, lens, roles, 2, &two) == 0, "merge failed");
	size_t at = 0, n;
	const char *l;
	while (next_line(&two, &at, &l, &n))
		FUZZ_CHECK(!n || *l == '#' || memmem(l, n, "infbench_role=\"", 15),
		           "a sample without its role: %.*s", (int)n, l);
	const char *same[2] = {bodies[0], bodies[0]};
	size_t slen[2] = {lens[0], lens[0]};
	const char *one_role[2] = {"worker", "worker"};
	FUZZ_CHECK(cl_fe_merge_metrics(bodies, lens, one_role, 1, &once) == 0, "merge failed");
	FUZZ_CHECK(cl_fe_merge_metrics(same, slen, one_role, 2, &twice) == 0, "merge failed");
	size_t a1 = 0, a2 = 0, n2;
	const char *l2;
	while (next_line(&once, &a1, &l, &n)) {
		FUZZ_CHECK(next_line(&twice, &a2, &l2, &n2), "fewer lines merged twice");
		const char *sp = memrchr(l, ' ', n), *sp2 = memrchr(l2, ' ', n2);
		if (!n || *l == '#') {
			FUZZ_CHECK(n == n2 && !memcmp(l, l2, n), "comments differ");
			continue;
		}
		FUZZ_CHECK(sp && sp2 && sp - l == sp2 - l2 && !memcmp(l, l2, (size_t)(sp - l)),
		           "series differ: %.*s / %.*s", (int)n, l, (int)n2, l2);
		double v1 = strtod(sp + 1, NULL), v2 = strtod(sp2 + 1, NULL);
		double tol = 1e-9 * fabs(v1);
		FUZZ_CHECK((isnan(v1) && isnan(v2)) || !isfinite(v2) || fabs(v2 - 2 * v1) <= tol ||
		               fabs(v2 - v1) <= tol,
		           "%.*s: %g merged twice is %g", (int)n, l, v1, v2);
	}
	FUZZ_CHECK(!next_line(&twice, &a2, &l2, &n2), "more lines merged twice");
	ib_buf_free(&two);
	ib_buf_free(&once);
	ib_buf_free(&twice);
	return 0;
}
