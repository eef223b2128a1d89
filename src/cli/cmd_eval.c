/* infbench eval: accuracy evals (docs/eval.md). Subcommands: score, validate
 * (cmd_eval_validate.c), collect (cmd_eval_collect.c). */
#include "cli/cli.h"
#include "eval/eval.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
    "usage: infbench eval run --base-url URL --model NAME --dataset DIR --output-path DIR ...\n"
    "       infbench eval score TASK_YAML RESPONSES_JSONL\n"
    "       infbench eval make-dataset --output DIR [--train N] [--test N] [--seed S]\n"
    "       infbench eval validate [--thresholds FILE] [--min-score X] [--meta-env FILE] ...\n"
    "       infbench eval collect RESULTS_DIR EXP_NAME [SORT_BY]\n"
    "\n"
    "  run       the gsm8k eval against an OpenAI-compatible chat endpoint (lm-eval's\n"
    "            protocol; results_*.json, samples_*.jsonl, meta_env.json)\n"
    "  score     extract answers from model responses with the task's filters (strict-match,\n"
    "            flexible-extract) and score them with exact_match (JSON lines on stdout)\n"
    "  validate  check lm-eval scores against thresholds and the batched-eval manifest\n"
    "            (utils/evals/validate_scores.py)\n"
    "  collect   tables and agg_eval_NAME.json of downloaded eval artifacts\n"
    "            (utils/collect_eval_results.py)\n"
    "  make-dataset  write a deterministic gsm8k-format set of arithmetic word problems\n"
    "\n"
    "'infbench eval SUBCOMMAND --help' describes each.\n"
    "See docs/eval.md.\n";

static int eval_score(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage, stdout);
		return CLI_OK;
	}
	if (argc != 3) {
		fputs(usage, stderr);
		fprintf(stderr, "infbench eval score: error: expected TASK_YAML RESPONSES_JSONL\n");
		return CLI_USAGE;
	}
	ib_buf out = {0};
	ib_error e = {0};
	int rc = ev_score_file(argv[1], argv[2], &out, &e);
	if (rc && !ib_buf_error(&out)) {
		cli_error("infbench eval score", NULL, &e);
		ib_buf_free(&out);
		return CLI_FAIL;
	}
	rc = cli_emit("infbench eval score", NULL, &out);
	ib_buf_free(&out);
	return rc;
}

int cmd_eval(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		fprintf(stderr, "infbench eval: error: a subcommand is required\n");
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage, stdout);
		return CLI_OK;
	}
	/* `infbench eval --base-url ...` is `infbench eval run --base-url ...` */
	if (!strcmp(argv[1], "run"))
		return cmd_eval_run(argc - 1, argv + 1);
	if (argv[1][0] == '-' && argv[1][1] == '-')
		return cmd_eval_run(argc, argv);
	if (!strcmp(argv[1], "score"))
		return eval_score(argc - 1, argv + 1);
	if (!strcmp(argv[1], "make-dataset"))
		return cmd_eval_dataset(argc - 1, argv + 1);
	if (!strcmp(argv[1], "validate"))
		return cmd_eval_validate(argc - 1, argv + 1);
	if (!strcmp(argv[1], "collect"))
		return cmd_eval_collect(argc - 1, argv + 1);
	fputs(usage, stderr);
	fprintf(stderr, "infbench eval: error: unknown subcommand '%s'\n", argv[1]);
	return CLI_USAGE;
}
