/* infbench agentic process|validate|power-adapter: drop-ins for InferenceX's
 * utils/agentic scripts (process_agentic_result, validate_agentic_result,
 * power_adapter) over aiperf's artifacts (docs/agentic.md). */
#include "cli/args.h"
#include "cli/cli.h"
#include "results/results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOPT(a) (sizeof(a) / sizeof((a)[0]))

static const char usage[] =
    "usage: infbench agentic <command> [options]\n"
    "\n"
    "AgentX (agentic trace replay) results, as InferenceX's utils/agentic scripts:\n"
    "  process        aiperf artifacts + the environment -> $RESULT_FILENAME.json\n"
    "                 (process_agentic_result.py; reads only the environment)\n"
    "  validate       the request error gate on aiperf's aggregate\n"
    "                 (validate_agentic_result.py)\n"
    "  power-adapter  GPU power over aiperf's profile window, patched into the agg row\n"
    "                 (power_adapter.py, then aggregate_power)\n"
    "\n"
    "Run 'infbench agentic <command> --help' for its options; see docs/agentic.md.\n";

static int help_only(const char *prog, const char *desc, const char *epilog, int argc, char **argv)
{
	arg_opt opts[] = {{.name = "--help",
	                   .alias = "-h",
	                   .kind = ARG_FLAG,
	                   .help = "show this help message and exit"}};
	arg_parser p = {.prog = prog, .desc = desc, .epilog = epilog, .opts = opts, .nopts = 1};
	int rc = args_parse(&p, argc, argv, NULL, 0);
	args_free(&p);
	return rc == 1 ? 0 : rc ? rc : -1;
}

static int agentic_process(int argc, char **argv)
{
	int rc = help_only(
	    "infbench agentic process",
	    "Turn an agentic replay's aiperf artifacts into the agentic agg row\n"
	    "(process_agentic_result.py). Takes no arguments: everything comes from the\n"
	    "environment: RESULT_FILENAME (required), RESULT_DIR (default results),\n"
	    "AGENTIC_OUTPUT_DIR (default .), KV_OFFLOADING (required), the identity and\n"
	    "parallelism variables (TP, EP_SIZE, PP_SIZE, ..., IS_MULTINODE and the PREFILL_*/\n"
	    "DECODE_* set), FRAMEWORK, and HF_HUB_CACHE / HF_HOME for the trace corpus.",
	    "Exit status: 0 written; 1 a missing or malformed input or variable (nothing\n"
	    "written); 2 usage errors. See docs/agentic.md.",
	    argc, argv);
	if (rc >= 0)
		return rc;
	res_agentic_opts o = {.log = cli_log_line};
	ib_error e = {0};
	if (res_agentic_process(&o, NULL, &e)) {
		cli_error("infbench agentic process", NULL, &e);
		return 1;
	}
	return 0;
}

static int agentic_validate(int argc, char **argv)
{
	arg_opt opts[] = {
	    {.name = "--help",
	     .alias = "-h",
	     .kind = ARG_FLAG,
	     .help = "show this help message and exit"},
	    {.name = "--failed-request-threshold",
	     .kind = ARG_ONE,
	     .required = true,
	     .metavar = "FAILED_REQUEST_THRESHOLD",
	     .help = "Maximum accepted error fraction, inclusive"},
	};
	arg_parser p = {
	    .prog = "infbench agentic validate",
	    .desc = "positional argument: ARTIFACT_DIR (before or after the option)\n\n"
	            "Check that an aiperf agentic replay produced benchmarkable results\n"
	            "(validate_agentic_result.py): ARTIFACT_DIR's profile_export_aiperf.json (or\n"
	            "that of its first subfolder holding one) must have completed requests and\n"
	            "an error fraction of at most X.",
	    .epilog = "Exit status: 0 valid; 1 invalid (ERROR: lines on stderr); 2 usage errors.\n"
	              "See docs/agentic.md.",
	    .opts = opts,
	    .nopts = NOPT(opts),
	};
	/* the one positional argument, set aside before the option parser */
	char **rest = calloc((size_t)argc + 1, sizeof *rest);
	if (!rest)
		return 1;
	const char *dir = NULL, *extra[64] = {0};
	size_t nextra = 0;
	int n = 0;
	for (int i = 0; i < argc; i++) {
		const char *t = argv[i];
		bool opt = t[0] == '-' && t[1];
		rest[n++] = argv[i];
		if (opt && !strchr(t, '=') && i + 1 < argc &&
		    !strncmp("--failed-request-threshold", t, strlen(t)) && strlen(t) > 2) {
			rest[n++] = argv[++i];
			continue;
		}
		if (!opt) {
			n--;
			if (!dir)
				dir = t;
			else if (nextra < 64)
				extra[nextra++] = t;
		}
	}
	int rc = args_parse(&p, n, rest, extra, nextra);
	if (rc) {
		free(rest);
		args_free(&p);
		return rc == 1 ? 0 : rc;
	}
	const char *ts = args_get(&p, "--failed-request-threshold")->vals[0];
	double th;
	if (!dir)
		rc = args_error(&p, p.prog, "the following arguments are required: artifact_dir");
	else if (!ib_py_float(ts, strlen(ts), &th))
		rc = args_error(&p, p.prog,
		                "argument --failed-request-threshold: invalid float value: "
		                "'%s'",
		                ts);
	else if (!(th >= 0 && th <= 1))
		rc = args_error(&p, p.prog, "--failed-request-threshold must be between 0 and 1");
	if (rc) {
		free(rest);
		args_free(&p);
		return rc;
	}
	res_agentic_opts o = {.log = cli_log_line};
	ib_error e = {0};
	int status = 1;
	rc = res_agentic_validate(dir, th, &o, &status, &e);
	free(rest);
	args_free(&p);
	if (rc) {
		cli_error("infbench agentic validate", NULL, &e);
		return 1;
	}
	return status;
}

static int agentic_power(int argc, char **argv)
{
	arg_opt opts[] = {
	    {.name = "--help",
	     .alias = "-h",
	     .kind = ARG_FLAG,
	     .help = "show this help message and exit"},
	    {.name = "--result-dir",
	     .kind = ARG_ONE,
	     .required = true,
	     .metavar = "RESULT_DIR",
	     .help = "the run's result folder: aiperf_artifacts/, gpu_metrics.csv, "
	             "agentic_power_timezone_offset.txt"},
	    {.name = "--agg-result",
	     .kind = ARG_ONE,
	     .required = true,
	     .metavar = "AGG_RESULT",
	     .help = "the agentic agg row (patched in place)"},
	    {.name = "--expected-num-gpus",
	     .kind = ARG_ONE,
	     .is_int = true,
	     .metavar = "EXPECTED_NUM_GPUS",
	     .help = "expected GPU count of the telemetry"},
	    {.name = "--require-power",
	     .kind = ARG_FLAG,
	     .help = "exit 1 when the measurement is invalid (also REQUIRE_POWER=1|true|yes)"},
	};
	arg_parser p = {
	    .prog = "infbench agentic power-adapter",
	    .desc = "Validate GPU power over an agentic replay's aiperf profile window and patch\n"
	            "the energy metrics into its agg row (power_adapter.py): writes\n"
	            "RESULT_DIR/agentic_power_window.json, then runs 'infbench power' on\n"
	            "RESULT_DIR/gpu_metrics.csv with RESULT_DIR/power_validation.json.",
	    .epilog = "Exit status: 0 (also when the measurement is invalid, unless required); 1\n"
	              "an invalid measurement with --require-power, or an agg file that is not a\n"
	              "JSON object; 2 usage errors. See docs/agentic.md.",
	    .opts = opts,
	    .nopts = NOPT(opts),
	};
	int rc = args_parse(&p, argc, argv, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? 0 : rc;
	}
	arg_opt *x = args_get(&p, "--expected-num-gpus");
	res_agentic_power_opts o = {
	    .result_dir = args_get(&p, "--result-dir")->vals[0],
	    .agg_path = args_get(&p, "--agg-result")->vals[0],
	    .has_expected = x->seen,
	    .expected_num_gpus = x->seen ? x->ivals[0] : 0,
	    .require_power = args_get(&p, "--require-power")->seen || cli_require_power_env(),
	    .log = cli_log_line,
	};
	ib_error e = {0};
	int status = 0;
	rc = res_agentic_power(&o, &status, &e);
	args_free(&p);
	if (rc) {
		cli_error("infbench agentic power-adapter", NULL, &e);
		return 1;
	}
	return status;
}

int cmd_agentic(int argc, char **argv)
{
	static const cli_sub subs[] = {
	    {"process", agentic_process},
	    {"validate", agentic_validate},
	    {"power-adapter", agentic_power},
	};
	return cli_dispatch("infbench agentic", usage, subs, NOPT(subs), argc, argv);
}
