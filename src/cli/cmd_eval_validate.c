/* infbench eval validate: eval scores against thresholds and the batched-eval
 * manifest, a drop-in for InferenceX's utils/evals/validate_scores.py
 * (docs/eval.md). */
#include "cli/args.h"
#include "cli/cli.h"
#include "eval/eval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N(x) (sizeof(x) / sizeof *(x))

int cmd_eval_validate(int argc, char **argv)
{
	arg_opt opts[] = {
	    {.name = "--help", .alias = "-h", .kind = ARG_FLAG, .help = "show this help and exit"},
	    {.name = "--min-score",
	     .kind = ARG_ONE,
	     .metavar = "MIN_SCORE",
	     .help = "fallback floor when no threshold matches (default: 0.85)"},
	    {.name = "--thresholds",
	     .kind = ARG_ONE,
	     .metavar = "FILE",
	     .help = "thresholds, YAML or JSON (default: the built-in InferenceX floors)"},
	    {.name = "--meta-env",
	     .kind = ARG_ONE,
	     .metavar = "FILE",
	     .help = "eval metadata for the model prefix and batches (default: meta_env.json)"},
	    {.name = "--model-prefix",
	     .kind = ARG_ONE,
	     .metavar = "PREFIX",
	     .help = "model prefix (default: meta_env.json's infmax_model_prefix, $MODEL_PREFIX)"},
	    {.name = "--metric-prefix",
	     .kind = ARG_ONE,
	     .metavar = "PREFIX",
	     .help = "check metrics whose name starts with PREFIX (default: 'exact_match,')"},
	    {.name = "--results-glob",
	     .kind = ARG_ONE,
	     .metavar = "GLOB",
	     .help = "lm-eval result files (default: 'results*.json')"},
	    {.name = "--expected-concs",
	     .kind = ARG_ONE,
	     .metavar = "\"N ...\"",
	     .help = "space-separated concurrencies the workflow requested"},
	};
	arg_parser p = {
	    .prog = "infbench eval validate",
	    .desc =
	        "Check lm-eval scores against per-task and per-model thresholds and a batched\n"
	        "eval's manifest in meta_env.json. PASS lines go to stdout, FAIL and WARN lines\n"
	        "to stderr.",
	    .epilog =
	        "Exit status: 0 every checked metric passed; 1 a failure, nothing checked, or\n"
	        "unreadable input; 2 usage errors. See docs/eval.md.",
	    .opts = opts,
	    .nopts = N(opts),
	};
	int rc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? CLI_OK : rc;
	}
	ev_validate_opts o = {.min_score = 0.85};
	arg_opt *x;
	if ((x = args_get(&p, "--min-score"))->seen &&
	    !ib_py_float(x->vals[0], strlen(x->vals[0]), &o.min_score)) {
		rc = args_error(&p, NULL, "argument --min-score: invalid float value: '%s'",
		                x->vals[0]);
		args_free(&p);
		return rc;
	}
#define STR_OPT(name, field)                                                                       \
	if ((x = args_get(&p, name))->seen)                                                        \
		o.field = x->vals[0];
	STR_OPT("--thresholds", thresholds)
	STR_OPT("--meta-env", meta_env)
	STR_OPT("--model-prefix", model_prefix)
	STR_OPT("--metric-prefix", metric_prefix)
	STR_OPT("--results-glob", results_glob)
	STR_OPT("--expected-concs", expected_concs)
#undef STR_OPT
	o.env_model_prefix = getenv("MODEL_PREFIX");
	ib_buf out = {0}, err = {0};
	ib_error e = {0};
	int status = CLI_FAIL;
	rc = ev_validate(&o, &out, &err, &status, &e);
	if (cli_emit("infbench eval validate", NULL, &out) ||
	    ib_buf_write_to(stderr, "standard error", &err, NULL))
		status = CLI_FAIL;
	if (rc && !ib_buf_error(&out) && !ib_buf_error(&err)) {
		cli_error("infbench eval validate", NULL, &e);
		status = CLI_FAIL;
	}
	ib_buf_free(&out);
	ib_buf_free(&err);
	args_free(&p);
	return status;
}
