/* infbench eval make-dataset: a deterministic gsm8k-format stand-in set
 * (docs/eval.md). */
#include "cli/args.h"
#include "cli/cli.h"
#include "eval/eval.h"

#include <stdio.h>

int cmd_eval_dataset(int argc, char **argv)
{
	arg_opt opts[] = {
	    {.name = "--help", .alias = "-h", .kind = ARG_FLAG, .help = "show this help and exit"},
	    {.name = "--output",
	     .kind = ARG_ONE,
	     .required = true,
	     .metavar = "DIR",
	     .help = "folder to write train.jsonl and test.jsonl into (created)"},
	    {.name = "--train",
	     .kind = ARG_ONE,
	     .is_int = true,
	     .metavar = "N",
	     .help = "train questions, the few-shot pool (default: 200)"},
	    {.name = "--test",
	     .kind = ARG_ONE,
	     .is_int = true,
	     .metavar = "N",
	     .help = "test questions (default: 1319, the size of gsm8k's test split)"},
	    {.name = "--seed",
	     .kind = ARG_ONE,
	     .is_int = true,
	     .metavar = "S",
	     .help = "generator seed (default: 0); the same seed and sizes give the same bytes"},
	};
	arg_parser p = {.prog = "infbench eval make-dataset",
	                .desc = "Write a deterministic set of arithmetic word problems in the "
	                        "gsm8k JSON-lines format (question, worked answer ending in "
	                        "'#### N'), for tests and demos without the real dataset.",
	                .opts = opts,
	                .nopts = sizeof opts / sizeof opts[0]};
	int prc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (prc) {
		args_free(&p);
		return prc == 1 ? CLI_OK : CLI_USAGE;
	}
	arg_opt *o;
	int64_t ntrain = (o = args_get(&p, "--train"))->seen ? o->ivals[0] : 200;
	int64_t ntest = (o = args_get(&p, "--test"))->seen ? o->ivals[0] : 1319;
	int64_t seed = (o = args_get(&p, "--seed"))->seen ? o->ivals[0] : 0;
	const char *dir = args_get(&p, "--output")->vals[0];
	int status = CLI_OK;
	if (ntrain < 5 || ntest < 1 || ntrain > 10000000 || ntest > 10000000) {
		status =
		    args_error(&p, p.prog, "--train must be 5..10000000 and --test 1..10000000");
	} else {
		ib_error e = {0};
		if (ev_dataset_generate(dir, (size_t)ntrain, (size_t)ntest, (uint64_t)seed, &e)) {
			cli_error(p.prog, NULL, &e);
			status = CLI_FAIL;
		}
	}
	args_free(&p);
	return status;
}
