/* `compare`'s inputs (results/compare.c: res_compare over a results folder,
 * res_rows_lookup over a --baseline file, res_cfg_key_of, res_sql_like).
 * The input is a results file (agg rows, a row or a list of them), then
 * optionally a form feed and a baseline file (a JSON list of agg rows).
 * Checks: no crash; the comparison fails with a message or writes a report
 * whose counts add up (matched + unmatched = rows); a pattern without
 * wildcards LIKE-matches itself and, with '%' appended, every extension. */
#include "fuzz.h"

#include "results/results.h"

static const char *const files[] = {"results.json", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_tmpdir(files);
	size_t off[2], len[2];
	size_t np = fuzz_parts(data, size, 2, off, len);
	char path[512];
	snprintf(path, sizeof path, "%s/results.json", dir);
	fuzz_write(path, data + off[0], len[0]);
	ib_arena *a = ib_arena_new();
	if (!a)
		abort();
	ib_error e = {0};
	ib_val *base = NULL;
	res_rows_baseline rb = {0};
	if (np > 1 && !ib_json_parse(a, "baseline", (const char *)data + off[1], len[1], &base, &e) &&
	    base->type == IB_V_LIST)
		rb.rows = base;
	res_compare_opts o = {.results_dir = dir,
	                      .lookup = rb.rows ? res_rows_lookup : NULL,
	                      .ctx = &rb,
	                      .noise_k = size % 2 ? 2.0 : 0};
	ib_buf out = {0};
	res_compare_stats st = {0};
	int rc = res_compare(&o, &out, &st, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc)
		FUZZ_CHECK(e.msg[0], "error %d without a message", rc);
	else
		FUZZ_CHECK(st.matched + st.unmatched == st.rows && out.len > 0,
		           "%zu rows, %zu matched, %zu unmatched", st.rows, st.matched, st.unmatched);
	ib_buf_free(&out);

	/* each baseline row's key, and LIKE on its strings */
	for (size_t i = 0; rb.rows && i < rb.rows->list.n && i < 64; i++) {
		res_cfg_key k;
		if (res_cfg_key_of(a, rb.rows->list.v[i], &k, &e))
			continue;
		const char *s[] = {k.hardware, k.framework, k.model, k.precision, k.spec_method};
		for (size_t j = 0; j < 5; j++) {
			if (!s[j] || strpbrk(s[j], "%_"))
				continue;
			size_t n = strlen(s[j]);
			FUZZ_CHECK(res_sql_like(s[j], n, s[j], n), "%s does not match itself", s[j]);
			char *p = ib_arena_printf(a, "%.*s%%", (int)(n / 2), s[j]);
			FUZZ_CHECK(p && res_sql_like(s[j], n, p, strlen(p)), "%s does not match %s", s[j],
			           p);
		}
	}
	ib_arena_free(a);
	return 0;
}
