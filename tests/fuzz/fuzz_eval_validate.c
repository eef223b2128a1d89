/* `eval validate` (eval/validate.c: ev_validate, validate_scores.py): two
 * lm-eval results files of a batched eval (_conc4, _conc16), meta_env.json
 * and a thresholds YAML, the input's four parts parted by form feeds (a
 * missing part is a missing file). --expected-concs "4 16" on every other
 * input. Checks: no crash; ev_validate returns 0 with an exit status of 0
 * or 1, or fails with a message. */
#include "fuzz.h"

#include "eval/eval.h"

static const char *const names[] = {"results_2026-01-01T00-00-00.000000_conc4.json",
                                    "results_2026-01-01T00-00-00.000000_conc16.json",
                                    "meta_env.json", "thresholds.yaml", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_tmpdir(names);
	size_t off[4], len[4];
	size_t np = fuzz_parts(data, size, 4, off, len);
	char path[4][600];
	for (size_t i = 0; i < 4; i++) {
		snprintf(path[i], sizeof path[i], "%s/%s", dir, names[i]);
		if (i < np)
			fuzz_write(path[i], data + off[i], len[i]);
		else
			remove(path[i]);
	}
	char glob[600];
	snprintf(glob, sizeof glob, "%s/results*.json", dir);
	ev_validate_opts o = {.min_score = 0.85,
	                      .thresholds = np > 3 ? path[3] : NULL,
	                      .meta_env = path[2],
	                      .env_model_prefix = "dsr1",
	                      .results_glob = glob,
	                      .expected_concs = size % 2 ? "4 16" : NULL};
	ib_buf out = {0}, err = {0};
	int status = -1;
	ib_error e = {0};
	int rc = ev_validate(&o, &out, &err, &status, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc)
		FUZZ_CHECK(e.msg[0], "error %d without a message", rc);
	else
		FUZZ_CHECK(status == 0 || status == 1, "status %d", status);
	ib_buf_free(&out);
	ib_buf_free(&err);
	return 0;
}
