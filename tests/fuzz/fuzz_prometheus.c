/* The Prometheus text scraper of the benchmark client (bench/scrape.c:
 * bench_scrape_values, bench_scrape_diff). The input is two scrapes, before
 * and after its first form feed. Checks: no crash, no hang; the difference
 * is an object that serialises as JSON. */
#include "fuzz.h"

#include "bench/bench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n1, rest = fuzz_two_parts(data, size, &n1);
	char *before = fuzz_strdup(data, n1);
	char *text = fuzz_strdup(data + rest, size - rest);
	bench_scrape s0, s;
	bench_scrape_values(before, &s0);
	bench_scrape_values(text, &s);
	ib_arena *a = ib_arena_new();
	if (a) {
		ib_val *v = bench_scrape_diff(a, &s0, &s);
		FUZZ_CHECK(v == NULL || v->type == IB_V_MAP || v->type == IB_V_NULL, "type %d",
		           v ? (int)v->type : -1);
		ib_buf j = {0};
		if (v) {
			ib_error e = {0};
			FUZZ_CHECK(ib_json_write(&j, v, &IB_JSON_PYTHON, &e) == 0, "%s", e.msg);
		}
		ib_buf_free(&j);
		ib_arena_free(a);
	}
	free(before);
	free(text);
	return 0;
}
