/* infbench validate: checks master configs and runners.yaml without
 * expanding them and reports every problem found (docs/validate.md). */
#include "cli/args.h"
#include "cli/cli.h"

#include <stdio.h>

#define N(a) (sizeof(a) / sizeof(a)[0])

int cmd_validate(int argc, char **argv)
{
	arg_opt opts[] = {
	    {.name = "--config-files",
	     .kind = ARG_MANY,
	     .required = true,
	     .metavar = "FILE",
	     .help = "master config files (YAML), merged in order"},
	    {.name = "--runner-config",
	     .kind = ARG_ONE,
	     .metavar = "FILE",
	     .help = "runners file (default: configs/runners.yaml)"},
	    {.name = "--no-runner-config",
	     .kind = ARG_FLAG,
	     .help = "check the master configs only"},
	    {.name = "--help", .alias = "-h", .kind = ARG_FLAG, .help = "show this help and exit"},
	};
	static const char *const excl[][2] = {{"--runner-config", "--no-runner-config"},
	                                      {NULL, NULL}};
	arg_parser p = {
	    .prog = "infbench validate",
	    .top = "infbench validate",
	    .desc =
	        "Validate master configs and runners.yaml without expanding them. Every problem\n"
	        "is reported on stderr as 'file:line:col: entry 'key': field 'path': what is\n"
	        "wrong (got X)'; the exit status is 1 when there is any.",
	    .epilog = "See docs/validate.md.",
	    .opts = opts,
	    .nopts = N(opts),
	    .exclusive = excl,
	};
	int rc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? CLI_OK : rc;
	}
	arg_opt *cf = args_get(&p, "--config-files"), *ro = args_get(&p, "--runner-config");
	bool runners_too = !args_get(&p, "--no-runner-config")->seen;
	const char *runner_path = ro->seen ? ro->vals[0] : "configs/runners.yaml";
	ib_arena *a = ib_arena_new();
	if (!a) {
		fprintf(stderr, "infbench validate: error: out of memory\n");
		return CLI_FAIL;
	}
	ib_diags d = {.a = a};
	ib_val *master = NULL, *runners = NULL;
	int mrc = cfg_load_master(a, cf->vals, cf->nvals, &master, &d);
	int rrc = runners_too ? cfg_load_runners(a, runner_path, &runners, &d) : 0;
	int status = CLI_OK;
	if (mrc == IB_ENOMEM || rrc == IB_ENOMEM) {
		fprintf(stderr, "infbench validate: error: out of memory\n");
		status = CLI_FAIL;
	} else if (d.n) {
		cli_print_diags(&d);
		fprintf(stderr, "infbench validate: %zu problem%s found\n", d.n,
		        d.n == 1 ? "" : "s");
		status = CLI_FAIL;
	} else {
		printf("ok: %zu config entr%s in %zu file%s", master->map.n,
		       master->map.n == 1 ? "y" : "ies", cf->nvals, cf->nvals == 1 ? "" : "s");
		if (runners_too)
			printf("; runner config %s: %zu labels", runner_path,
			       ib_map_get(runners, "labels")->map.n);
		printf("\n");
	}
	ib_arena_free(a);
	args_free(&p);
	return status;
}
