/* infbench eval collect: the eval rows of downloaded eval artifacts, their
 * tables and agg_eval_<name>.json, a drop-in for InferenceX's
 * utils/collect_eval_results.py (docs/eval.md). */
#include "cli/cli.h"
#include "eval/eval.h"

#include <stdio.h>
#include <string.h>

static const char help[] =
    "usage: infbench eval collect RESULTS_DIR EXP_NAME [SORT_BY]\n"
    "\n"
    "Collect the lm-eval results of every eval set below RESULTS_DIR (a folder holding\n"
    "meta_env.json: RESULTS_DIR itself or one level down), print the single-node and\n"
    "multi-node tables (GitHub markdown) and write agg_eval_EXP_NAME.json. SORT_BY 'hw'\n"
    "sorts the tables by hardware first; anything else by model prefix.\n"
    "\n"
    "Exit status: 0 written; 1 fewer than two arguments (the reference's usage line on\n"
    "stdout), metadata or results of the wrong shape, or the file cannot be written.\n"
    "See docs/eval.md.\n";

int cmd_eval_collect(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(help, stdout);
		return CLI_OK;
	}
	if (argc < 3) {
		/* the reference prints its usage on stdout and exits 1 */
		puts("Usage: collect_eval_results.py <results_dir> <exp_name> [sort_by: "
		     "model_prefix|hw]");
		fprintf(stderr,
		        "infbench eval collect: error: expected RESULTS_DIR EXP_NAME [SORT_BY]\n");
		return CLI_FAIL;
	}
	ib_buf out = {0};
	ib_error e = {0};
	int rc = ev_collect(argv[1], argv[2], argc > 3 ? argv[3] : NULL, &out, &e);
	int wrc = cli_emit("infbench eval collect", NULL, &out);
	if (rc && !ib_buf_error(&out))
		cli_error("infbench eval collect", NULL, &e);
	ib_buf_free(&out);
	return rc || wrc ? CLI_FAIL : CLI_OK;
}
