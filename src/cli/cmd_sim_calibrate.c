/* infbench sim calibrate: fits the simulator's calibration to the published
 * InferenceX points (docs/sim.md "Calibration"); the fit is simlab's
 * slab_calibrate_run, this writes the calibration file it makes. */
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/sim_common.h"

#include <stdio.h>

/* Loads --base and the points, runs the fit (its tables on stdout) and
 * writes the calibration file to --write FILE, else after the tables; the
 * exit status. */
static int calibrate(arg_parser *p, slab_calibrate_opts *o)
{
	static const char prog[] = "infbench sim calibrate";
	int status = 1;
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	ib_diags d = {.a = a};
	ib_buf y = {0};
	glob_t gl = {0};
	sim_calib_file base = {0};
	slab_point *pts;
	size_t n;
	arg_opt *x;
	o->base_name = "built-in defaults";
	cli_sim_masters(p, &gl, &o->masters, &o->nmasters, &o->runners);
	if ((x = args_get(p, "--base"))->seen &&
	    cli_load_calibration(prog, x->vals[0], a, &base, &o->base_name))
		goto out;
	if (slab_points_load(args_get(p, "--points")->vals[0], a, &pts, &n, &e)) {
		cli_error(prog, NULL, &e);
		goto out;
	}
	*o = (slab_calibrate_opts){pts,         n,           &base,       o->base_name,
	                           o->prompts,  o->max_conc, o->frontier, o->masters,
	                           o->nmasters, o->runners,  cli_sim_log, NULL};
	if (slab_calibrate_run(o, a, &y, &d, &e)) {
		cli_sim_lab_error(prog, NULL, &d, &e);
		goto out;
	}
	if (!y.data) {
		fprintf(stderr, "infbench sim calibrate: error: out of memory\n");
		goto out;
	}
	if ((x = args_get(p, "--write"))->seen) {
		if (ib_write_file_atomic(x->vals[0], y.data, y.len, &e)) {
			cli_error(prog, NULL, &e);
			goto out;
		}
	} else {
		printf("\n%s", y.data);
	}
	status = 0;
out:
	globfree(&gl);
	ib_buf_free(&y);
	ib_arena_free(a);
	return status;
}

int cmd_sim_calibrate(int argc, char **argv)
{
	arg_opt opts[] = {
	    {.name = "--points",
	     .kind = ARG_ONE,
	     .metavar = "FILE",
	     .help = "points.tsv of published InferenceX points (required)"},
	    {.name = "--base",
	     .kind = ARG_ONE,
	     .metavar = "FILE",
	     .help = "rules the fit starts from (default: none, the built-in defaults)"},
	    {.name = "--prompts-per-conc",
	     .kind = ARG_ONE,
	     .is_int = true,
	     .metavar = "N",
	     .help = "prompts per unit of concurrency in the fit, measured rows and frontier "
	             "sweeps (default 2)"},
	    {.name = "--sweep-max-conc",
	     .kind = ARG_ONE,
	     .is_int = true,
	     .metavar = "N",
	     .help = "the frontier sweeps' highest concurrency (4..N doubling; default 512)"},
	    {.name = "--no-frontier",
	     .kind = ARG_FLAG,
	     .help = "fit the measured levels only, no frontier rules"},
	    CLI_SIM_MASTER_OPTS("the frontier sweeps"),
	    {.name = "--write",
	     .kind = ARG_ONE,
	     .metavar = "FILE",
	     .help = "write the whole calibration file there (atomically) instead of stdout"},
	    {.name = "--help", .alias = "-h", .kind = ARG_FLAG, .help = "show this help and exit"},
	};
	arg_parser p = {
	    .prog = "infbench sim calibrate",
	    .top = "infbench sim calibrate",
	    .desc = "Fits the calibration parameters (compute-eff, step-overhead-us,\n"
	            "seq-overhead-us; mem-eff fixed at 1, comm-eff at 0.2 by the first rule)\n"
	            "to the published points: on every row, per framework, per framework x GPU\n"
	            "[x model [x version]] on the measured rows, then on the frontier rows (the\n"
	            "series' sweeps, their frontier at the published interactivity) per GPU\n"
	            "without measured rules and per GPU x model x precision for the frameworks\n"
	            "no measured rule covers; prints the fit's error per group and writes the\n"
	            "resulting calibration file.",
	    .epilog = "See docs/sim.md \"Calibration\".",
	    .opts = opts,
	    .nopts = sizeof opts / sizeof *opts,
	};
	int rc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? 0 : rc;
	}
	slab_calibrate_opts o = {.prompts = 2, .max_conc = 512};
	arg_opt *x = args_get(&p, "--points");
	if (!x->seen) {
		rc = args_error(&p, NULL, "--points FILE is required");
	} else if ((x = args_get(&p, "--prompts-per-conc"))->seen &&
	           (x->ivals[0] < 1 || x->ivals[0] > 100)) {
		rc = args_error(&p, NULL, "argument --prompts-per-conc: must be 1..100");
	} else if ((x = args_get(&p, "--sweep-max-conc"))->seen &&
	           (x->ivals[0] < 4 || x->ivals[0] > 4096)) {
		rc = args_error(&p, NULL, "argument --sweep-max-conc: must be 4..4096");
	} else {
		if ((x = args_get(&p, "--prompts-per-conc"))->seen)
			o.prompts = (int)x->ivals[0];
		if ((x = args_get(&p, "--sweep-max-conc"))->seen)
			o.max_conc = (int)x->ivals[0];
		o.frontier = !args_get(&p, "--no-frontier")->seen;
		rc = calibrate(&p, &o);
	}
	args_free(&p);
	return rc;
}
