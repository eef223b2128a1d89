/* infbench power [--multinode]: drop-ins for InferenceX's
 * utils/aggregate_power.py and utils/aggregate_power_multinode.py
 * (docs/power.md). */
#include "cli/args.h"
#include "cli/cli.h"
#include "results/results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOPT(a) (sizeof(a) / sizeof((a)[0]))

static int finish(int rc, int status, const ib_error *e)
{
	if (rc) {
		cli_error("infbench power", NULL, e);
		return CLI_FAIL;
	}
	return status;
}

static int power_single(int argc, char **argv)
{
	arg_opt opts[] = {
	    {.name = "--help",
	     .alias = "-h",
	     .kind = ARG_FLAG,
	     .help = "show this help message and exit"},
	    {.name = "--csv",
	     .kind = ARG_ONE,
	     .metavar = "CSV",
	     .help = "telemetry CSV from the GPU monitor (default: /workspace/gpu_metrics.csv)"},
	    {.name = "--bench-result",
	     .kind = ARG_ONE,
	     .required = true,
	     .metavar = "BENCH_RESULT",
	     .help = "raw benchmark result JSON (window and token counts)"},
	    {.name = "--agg-result",
	     .kind = ARG_ONE,
	     .required = true,
	     .metavar = "AGG_RESULT",
	     .help = "agg_<run>.json of infbench process (patched in place)"},
	    {.name = "--expected-num-gpus",
	     .kind = ARG_ONE,
	     .is_int = true,
	     .required = true,
	     .metavar = "EXPECTED_NUM_GPUS",
	     .help = "expected single-node GPU count (TP * PP * PCP)"},
	    {.name = "--validation-result",
	     .kind = ARG_ONE,
	     .metavar = "VALIDATION_RESULT",
	     .help =
	         "path of the validation sidecar (default: power_validation_<bench stem>.json)"},
	    {.name = "--require-power",
	     .kind = ARG_FLAG,
	     .help = "exit 1 when the measurement is invalid (also REQUIRE_POWER=1|true|yes)"},
	};
	arg_parser p = {
	    .prog = "infbench power",
	    .desc =
	        "Validate and aggregate single-node GPU-board power into a benchmark's agg row\n"
	        "(aggregate_power.py). With --multinode as the first argument: the srt-slurm\n"
	        "dcgm-power package of a multinode run (aggregate_power_multinode.py; see\n"
	        "'infbench power --multinode --help').",
	    .epilog =
	        "Exit status: 0 (also when the measurement is invalid, unless required); 1 an\n"
	        "invalid measurement with --require-power, or an agg file that is not a JSON\n"
	        "object; 2 usage errors. See docs/power.md.",
	    .opts = opts,
	    .nopts = NOPT(opts),
	};
	int rc = args_parse(&p, argc, argv, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? CLI_OK : rc;
	}
	arg_opt *x;
	pw_opts o = {
	    .csv_path = "/workspace/gpu_metrics.csv",
	    .bench_path = args_get(&p, "--bench-result")->vals[0],
	    .agg_path = args_get(&p, "--agg-result")->vals[0],
	    .has_expected = true,
	    .expected_num_gpus = args_get(&p, "--expected-num-gpus")->ivals[0],
	    .require_power = args_get(&p, "--require-power")->seen || cli_require_power_env(),
	    .log = cli_log_line,
	};
	if ((x = args_get(&p, "--csv"))->seen)
		o.csv_path = x->vals[0];
	if ((x = args_get(&p, "--validation-result"))->seen)
		o.validation_path = x->vals[0];
	ib_error e = {0};
	int status = CLI_OK;
	rc = pw_run(&o, &status, &e);
	args_free(&p);
	return finish(rc, status, &e);
}

/* power --multinode's options (and the environment's defaults) into *o */
static void mn_opts(arg_parser *p, pw_mn_opts *o)
{
	const char *pd = getenv("POWER_ARTIFACT_DIR"), *lr = getenv("POWER_RESULT_ROOT"),
	           *sha = getenv("POWER_PRODUCER_SHA");
	arg_opt *x;
	*o = (pw_mn_opts){
	    .power_dir = pd ? pd : "LOGS/power",
	    .logs_root = lr ? lr : "LOGS",
	    .bench_path = args_get(p, "--bench-result")->vals[0],
	    .agg_path = args_get(p, "--agg-result")->vals[0],
	    .prefill_gpus = args_get(p, "--prefill-gpus")->ivals[0],
	    .decode_gpus = args_get(p, "--decode-gpus")->ivals[0],
	    .expected_producer_sha = sha && *sha ? sha : NULL,
	    .require_power = args_get(p, "--require-power")->seen || cli_require_power_env(),
	    .log = cli_log_line,
	};
	if ((x = args_get(p, "--aggregate-gpus"))->seen)
		o->aggregate_gpus = x->ivals[0];
	if ((x = args_get(p, "--power-dir"))->seen)
		o->power_dir = x->vals[0];
	if ((x = args_get(p, "--logs-root"))->seen)
		o->logs_root = x->vals[0];
	if ((x = args_get(p, "--expected-producer-sha"))->seen)
		o->expected_producer_sha = *x->vals[0] ? x->vals[0] : NULL;
	if ((x = args_get(p, "--validation-result"))->seen)
		o->validation_path = x->vals[0];
}

static int power_multinode(int argc, char **argv)
{
	arg_opt opts[] = {
	    {.name = "--help",
	     .alias = "-h",
	     .kind = ARG_FLAG,
	     .help = "show this help message and exit"},
	    {.name = "--power-dir",
	     .kind = ARG_ONE,
	     .metavar = "POWER_DIR",
	     .help = "srt-slurm power package: manifest.json, samples.csv, windows/ (default: "
	             "$POWER_ARTIFACT_DIR or LOGS/power)"},
	    {.name = "--logs-root",
	     .kind = ARG_ONE,
	     .metavar = "LOGS_ROOT",
	     .help = "folder the windows' result_path values resolve under (default: "
	             "$POWER_RESULT_ROOT or LOGS)"},
	    {.name = "--bench-result",
	     .kind = ARG_ONE,
	     .required = true,
	     .metavar = "BENCH_RESULT",
	     .help = "raw benchmark result JSON (window and token counts)"},
	    {.name = "--agg-result",
	     .kind = ARG_ONE,
	     .required = true,
	     .metavar = "AGG_RESULT",
	     .help = "agg_<run>.json of infbench process (patched in place)"},
	    {.name = "--prefill-gpus",
	     .kind = ARG_ONE,
	     .is_int = true,
	     .required = true,
	     .metavar = "PREFILL_GPUS",
	     .help = "expected prefill GPU count (PREFILL_GPUS)"},
	    {.name = "--decode-gpus",
	     .kind = ARG_ONE,
	     .is_int = true,
	     .required = true,
	     .metavar = "DECODE_GPUS",
	     .help = "expected decode GPU count (DECODE_GPUS)"},
	    {.name = "--aggregate-gpus",
	     .kind = ARG_ONE,
	     .is_int = true,
	     .metavar = "AGGREGATE_GPUS",
	     .help = "expected aggregate-worker GPU count (role agg; excludes prefill/decode)"},
	    {.name = "--expected-producer-sha",
	     .kind = ARG_ONE,
	     .metavar = "EXPECTED_PRODUCER_SHA",
	     .help = "required srt-slurm producer git commit (default: $POWER_PRODUCER_SHA)"},
	    {.name = "--validation-result",
	     .kind = ARG_ONE,
	     .metavar = "VALIDATION_RESULT",
	     .help =
	         "path of the validation sidecar (default: power_validation_<bench stem>.json)"},
	    {.name = "--require-power",
	     .kind = ARG_FLAG,
	     .help = "exit 1 when the measurement is invalid (also REQUIRE_POWER=1|true|yes)"},
	};
	arg_parser p = {
	    .prog = "infbench power --multinode",
	    .desc = "Validate and aggregate multinode srt-slurm DCGM power artifacts into a\n"
	            "benchmark's agg row (aggregate_power_multinode.py).",
	    .epilog =
	        "Exit status: 0 (also when the measurement is invalid, unless required); 1 an\n"
	        "invalid measurement with --require-power, or an agg file that is not a JSON\n"
	        "object; 2 usage errors. See docs/power.md.",
	    .opts = opts,
	    .nopts = NOPT(opts),
	};
	int rc = args_parse(&p, argc, argv, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? CLI_OK : rc;
	}
	pw_mn_opts o;
	mn_opts(&p, &o);
	ib_error e = {0};
	int status = CLI_OK;
	rc = pw_mn_run(&o, &status, &e);
	args_free(&p);
	return finish(rc, status, &e);
}

int cmd_power(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--multinode"))
		return power_multinode(argc - 2, argv + 2);
	return power_single(argc - 1, argv + 1);
}
