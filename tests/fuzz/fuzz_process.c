/* `process` (results/process.c: res_process, process_result.py) and its
 * number parsing (base/pynum.c: ib_py_int, ib_py_float, Python's int() and
 * float()). The input is up to three parts parted by form feeds: NAME=VALUE
 * lines (the environment, ahead of a fixed default one), the benchmark
 * result JSON and a gpu_metrics.csv. RESULT_FILENAME and the power paths
 * are pinned inside a private folder. Checks: no crash; every value and
 * line: what int() takes float() takes with the same value, and a finite
 * float printed with %.17g reads back the same; res_process fails with a
 * message or writes an agg row that is a JSON object, with a power status
 * of 0 or 1. */
#include "fuzz.h"

#include <math.h>

#include "results/results.h"

static const char *const files[] = {"res.json",		  "agg_res.json",
                                    "power_validation_res.json", "gpu_metrics.csv", NULL};

static const char *const defaults[] = {
    "RUNNER_TYPE=h100",	   "FRAMEWORK=vllm",	 "PRECISION=fp8", "SPEC_DECODING=none",
    "ISL=1024",		   "OSL=1024",		 "DISAGG=false",  "MODEL_PREFIX=dsr1",
    "IMAGE=vllm/vllm:v1",  "TP=8",		 "EP_SIZE=1",	  "DP_ATTENTION=false",
    "PREFILL_GPUS=8",	   "DECODE_GPUS=8",	 "PREFILL_NUM_WORKERS=1", "PREFILL_TP=8",
    "PREFILL_EP=1",	   "PREFILL_DP_ATTN=false", "DECODE_NUM_WORKERS=1", "DECODE_TP=8",
    "DECODE_EP=1",	   "DECODE_DP_ATTN=false",
};

static void numbers(const char *s, size_t n)
{
	int64_t i;
	double d;
	if (ib_py_int(s, n, &i))
		FUZZ_CHECK(ib_py_float(s, n, &d) && d == (double)i, "int %lld, float %g",
		           (long long)i, d);
	if (ib_py_float(s, n, &d) && isfinite(d)) {
		char t[64];
		double back;
		int k = snprintf(t, sizeof t, "%.17g", d);
		FUZZ_CHECK(ib_py_float(t, (size_t)k, &back) && back == d, "%s reads back as %g", t,
		           back);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_tmpdir(files);
	size_t off[3], len[3];
	size_t np = fuzz_parts(data, size, 3, off, len);
	char *envtext = fuzz_strdup(data + off[0], len[0]);

	/* the environment: pinned names, the input's lines, the defaults */
	const char *env[256 + sizeof defaults / sizeof *defaults + 8];
	size_t ne = 0;
	char pin[4][600];
	snprintf(pin[0], sizeof pin[0], "GPU_METRICS_CSV=%s/gpu_metrics.csv", dir);
	snprintf(pin[1], sizeof pin[1], "POWER_ARTIFACT_DIR=%s/power", dir);
	snprintf(pin[2], sizeof pin[2], "POWER_RESULT_ROOT=%s", dir);
	snprintf(pin[3], sizeof pin[3], "LOGS=%s", dir);
	env[ne++] = "RESULT_FILENAME=res";
	for (int i = 0; i < 4; i++)
		env[ne++] = pin[i];
	for (char *line = envtext, *next; line && ne < 256; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		numbers(line, strlen(line));
		const char *eq = strchr(line, '=');
		if (eq)
			numbers(eq + 1, strlen(eq + 1));
		if (eq && eq != line)
			env[ne++] = line;
	}
	for (size_t i = 0; i < sizeof defaults / sizeof *defaults; i++)
		env[ne++] = defaults[i];
	env[ne] = NULL;

	char path[600];
	snprintf(path, sizeof path, "%s/res.json", dir);
	fuzz_write(path, np > 1 ? data + off[1] : NULL, np > 1 ? len[1] : 0);
	snprintf(path, sizeof path, "%s/gpu_metrics.csv", dir);
	if (np > 2)
		fuzz_write(path, data + off[2], len[2]);
	else
		remove(path);
	snprintf(path, sizeof path, "%s/agg_res.json", dir);
	remove(path);

	res_process_opts o = {.dir = dir, .env = env, .derived = true};
	ib_buf agg = {0};
	int status = -1;
	ib_error e = {0};
	int rc = res_process(&o, &agg, &status, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc) {
		FUZZ_CHECK(e.msg[0], "error %d without a message", rc);
	} else {
		FUZZ_CHECK(status == 0 || status == 1, "power status %d", status);
		ib_arena *a = ib_arena_new();
		ib_val *v;
		FUZZ_CHECK(a && !ib_json_parse(a, "agg", agg.data, agg.len, &v, &e) &&
		               v->type == IB_V_MAP,
		           "the agg row is not a JSON object");
		ib_arena_free(a);
	}
	ib_buf_free(&agg);
	free(envtext);
	return 0;
}
