/* infbench process: a drop-in for InferenceX's utils/process_result.py
 * (docs/process.md). Every environment variable the reference reads can also
 * be given as a flag: --result-filename X is RESULT_FILENAME=X. */
#include "cli/cli.h"
#include "results/results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

static const char *const vars[] = {
    "RUNNER_TYPE",
    "FRAMEWORK",
    "PRECISION",
    "SPEC_DECODING",
    "RESULT_FILENAME",
    "ISL",
    "OSL",
    "DISAGG",
    "MODEL_PREFIX",
    "IMAGE",
    "RECIPE_FINGERPRINT",
    "ROUTER_METADATA",
    "KV_P2P_TRANSFER",
    "IS_MULTINODE",
    "REQUIRE_POWER",
    "GPU_METRICS_CSV",
    "TP",
    "EP_SIZE",
    "DP_ATTENTION",
    "PP_SIZE",
    "DCP_SIZE",
    "PCP_SIZE",
    "PREFILL_GPUS",
    "DECODE_GPUS",
    "PREFILL_NUM_WORKERS",
    "PREFILL_TP",
    "PREFILL_EP",
    "PREFILL_DP_ATTN",
    "DECODE_NUM_WORKERS",
    "DECODE_TP",
    "DECODE_EP",
    "DECODE_DP_ATTN",
    "PREFILL_HARDWARE",
    "DECODE_HARDWARE",
    "PREFILL_PP_SIZE",
    "PREFILL_DCP_SIZE",
    "PREFILL_PCP_SIZE",
    "DECODE_PP_SIZE",
    "DECODE_DCP_SIZE",
    "DECODE_PCP_SIZE",
    "POWER_ARTIFACT_DIR",
    "POWER_RESULT_ROOT",
    "POWER_PRODUCER_SHA",
};
#define NVARS (sizeof vars / sizeof vars[0])

static void usage(FILE *f)
{
	fputs(
	    "usage: infbench process [--dir DIR] [--derived] [--VARIABLE VALUE ...]\n"
	    "\n"
	    "Turn ./$RESULT_FILENAME.json (a raw benchmark result) and the environment into\n"
	    "the agg row agg_$RESULT_FILENAME.json, run the power aggregation (single node:\n"
	    "gpu_metrics.csv; IS_MULTINODE=true: the srt-slurm package under LOGS/power),\n"
	    "write power_validation_$RESULT_FILENAME.json, and print the row as JSON\n"
	    "(process_result.py).\n"
	    "\n"
	    "options:\n"
	    "  -h, --help     show this help and exit\n"
	    "  --dir DIR      read and write the files in DIR instead of the current folder\n"
	    "  --derived      add a \"derived\" object: cost per million tokens and J/token from\n"
	    "                 the GPU table (also INFBENCH_DERIVED=1); not in the reference\n"
	    "  --NAME VALUE   set the environment variable NAME (lower case, '-' for '_'),\n"
	    "                 overriding the environment; --NAME=VALUE works too. NAME is one "
	    "of:\n",
	    f);
	for (size_t i = 0; i < NVARS; i++) {
		char flag[64];
		size_t k = 0;
		for (const char *p = vars[i]; *p && k < sizeof flag - 1; p++)
			flag[k++] = *p == '_'                  ? '-'
			            : (*p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a')
			                                       : *p;
		flag[k] = 0;
		fprintf(f, "%s--%s", i % 3 ? ", " : "\n                 ", flag);
	}
	fputs("\n\nExit status: 0 success; 1 a missing or malformed variable or result field,\n"
	      "an unreadable result (nothing written), or REQUIRE_POWER=1|true|yes with an\n"
	      "invalid power measurement (after everything was written); 2 usage errors.\n"
	      "See docs/process.md and docs/power.md.\n",
	      f);
}

/* "--result-filename" -> "RESULT_FILENAME" when it is a known variable. */
static const char *var_of(const char *flag, size_t n)
{
	char up[64];
	if (n >= sizeof up)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char c = flag[i];
		up[i] = c == '-' ? '_' : (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
	}
	up[n] = 0;
	for (size_t i = 0; i < NVARS; i++)
		if (!strcmp(up, vars[i]))
			return vars[i];
	return NULL;
}

int cmd_process(int argc, char **argv)
{
	size_t nenv = 0;
	while (environ && environ[nenv])
		nenv++;
	const char **env = calloc((size_t)argc + nenv + 1, sizeof *env);
	char **owned = calloc((size_t)argc + 1, sizeof *owned);
	size_t ne = 0, no = 0;
	int status = CLI_USAGE;
	if (!env || !owned) {
		fprintf(stderr, "infbench process: error: out of memory\n");
		status = CLI_FAIL;
		goto done;
	}
	res_process_opts o = {0};
	const char *d = getenv("INFBENCH_DERIVED");
	o.derived = d && !strcmp(d, "1");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			status = CLI_OK;
			goto done;
		}
		if (!strcmp(a, "--derived")) {
			o.derived = true;
			continue;
		}
		const char *eq = strchr(a, '=');
		size_t n = eq ? (size_t)(eq - a) : strlen(a);
		bool is_dir = n == 5 && !strncmp(a, "--dir", 5);
		const char *var = strncmp(a, "--", 2) ? NULL : var_of(a + 2, n - 2);
		if (!var && !is_dir) {
			fputs("usage: infbench process [--dir DIR] [--derived] [--VARIABLE VALUE "
			      "...]\n",
			      stderr);
			fprintf(stderr, "infbench process: error: unrecognized argument: %s\n", a);
			goto done;
		}
		const char *val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
		if (!val) {
			fputs("usage: infbench process [--dir DIR] [--derived] [--VARIABLE VALUE "
			      "...]\n",
			      stderr);
			fprintf(stderr,
			        "infbench process: error: argument %.*s: expected one value\n",
			        (int)n, a);
			goto done;
		}
		if (is_dir) {
			o.dir = val;
			continue;
		}
		size_t l = strlen(var) + strlen(val) + 2;
		char *s = malloc(l);
		if (!s) {
			status = CLI_FAIL;
			goto done;
		}
		snprintf(s, l, "%s=%s", var, val);
		owned[no++] = s;
		/* a later flag for the same variable wins: put it first */
		memmove(env + 1, env, ne * sizeof *env);
		env[0] = s;
		ne++;
	}
	for (size_t i = 0; i < nenv; i++)
		env[ne++] = environ[i];
	env[ne] = NULL;
	o.env = env;
	o.log = cli_log_line;
	ib_buf out = {0};
	ib_error e = {0};
	int power_status = 0;
	int rc = res_process(&o, &out, &power_status, &e);
	if (rc && !ib_buf_error(&out)) {
		cli_error("infbench process", NULL, &e);
		status = CLI_FAIL;
	} else {
		ib_buf_putc(&out, '\n');
		status = cli_emit("infbench process", NULL, &out) ? 1 : power_status;
	}
	ib_buf_free(&out);
done:
	for (size_t i = 0; i < no; i++)
		free(owned[i]);
	free(owned);
	free(env);
	return status;
}
