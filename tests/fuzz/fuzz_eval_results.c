/* The eval result readers of `eval collect` (eval/collect.c:
 * ev_collect_rows, ev_collect_report): a set folder holding meta_env.json and
 * one lm-eval results file, the two parted by the input's first form
 * feed. Checks: no crash; an error names a file; rows report as a table
 * and serialise as JSON. */
#include "fuzz.h"

#include "eval/eval.h"

static const char *const files[] = {"meta_env.json", "results_2025-01-01T00-00-00_conc4.json",
                                    NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n1, rest = fuzz_two_parts(data, size, &n1);
	const char *dir = fuzz_tmpdir(files);
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, files[0]);
	fuzz_write(path, data, n1);
	snprintf(path, sizeof path, "%s/%s", dir, files[1]);
	fuzz_write(path, data + rest, size - rest);
	ib_arena *a = ib_arena_new();
	if (!a)
		return 0;
	ib_val *rows = NULL;
	ib_error e = {0};
	int rc = ev_collect_rows(a, dir, &rows, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc) {
		FUZZ_CHECK(e.msg[0], "error %d without a message", rc);
	} else {
		FUZZ_CHECK(rows && rows->type == IB_V_LIST, "rows not a list");
		ib_buf out = {0};
		for (int k = 0; k < 2; k++) {
			rc = ev_collect_report(rows, k ? "hw" : "model", &out, &e);
			FUZZ_CHECK(rc == 0 || rc == IB_EINVAL, "report %d: %s", rc, e.msg);
		}
		out.len = 0;
		FUZZ_CHECK(ib_json_write(&out, rows, &IB_JSON_PYTHON, &e) == 0, "json: %s", e.msg);
		ib_buf_free(&out);
	}
	ib_arena_free(a);
	return 0;
}
