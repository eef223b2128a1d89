/* infbench sim validate: the performance model against published
 * InferenceX points, in process (docs/sim.md "Validation"); the work is
 * simlab's slab_validate. */
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/sim_common.h"

#include <glob.h>
#include <stdio.h>
#include <string.h>

/* An integer option within [lo, hi] into *out (left as it is when absent);
 * 0, or the usage error's status. */
static int int_in(arg_parser *p, const char *name, int lo, int hi, int *out)
{
	arg_opt *x = args_get(p, name);
	if (!x->seen)
		return 0;
	if (x->ivals[0] < lo || x->ivals[0] > hi)
		return args_error(p, NULL, "argument %s: must be %d..%d", name, lo, hi);
	*out = (int)x->ivals[0];
	return 0;
}

/* --kinds LIST / --all-kinds into kinds[4] (default measured, frontier,
 * peak); 0, or the usage error's status. */
static int kinds_opt(arg_parser *p, bool kinds[4])
{
	static const char *const names[] = {"measured", "peak", "frontier", "other"};
	arg_opt *x = args_get(p, "--kinds");
	kinds[SLAB_POINT_MEASURED] = kinds[SLAB_POINT_FRONTIER] = kinds[SLAB_POINT_PEAK] = true;
	if (x->seen) {
		const char *v = x->vals[0];
		for (int k = 0; k < 4; k++)
			kinds[k] = slab_name_in(v, names[k]);
		for (const char *s = v; *s;) {
			size_t len = strcspn(s, ",");
			int k = 0;
			while (k < 4 && (strlen(names[k]) != len || strncmp(s, names[k], len)))
				k++;
			if (k == 4)
				return args_error(
				    p, NULL,
				    "argument --kinds: unknown kind '%.*s' (measured, "
				    "frontier, peak, other)",
				    (int)len, s);
			s += len + (s[len] == ',');
		}
	}
	if (args_get(p, "--all-kinds")->seen)
		for (int k = 0; k < 4; k++)
			kinds[k] = true;
	return 0;
}

/* --cv GROUPING and --cv-groups LIST into o; 0, or the usage error's
 * status. */
static int cv_opt(arg_parser *p, slab_validate_opts *o)
{
	arg_opt *x = args_get(p, "--cv");
	if (x->seen && slab_cv_grouping_parse(x->vals[0], &o->cv))
		return args_error(p, NULL,
		                  "argument --cv: unknown grouping '%s' (model, gpu, model-gpu, "
		                  "framework-vendor)",
		                  x->vals[0]);
	if ((x = args_get(p, "--cv-groups"))->seen) {
		if (!o->cv)
			return args_error(p, NULL, "argument --cv-groups: needs --cv GROUPING");
		o->cv_groups = x->vals[0];
	}
	if (args_get(p, "--cv-prompts-per-conc")->seen && !o->cv)
		return args_error(p, NULL, "argument --cv-prompts-per-conc: needs --cv GROUPING");
	if (args_get(p, "--write-intervals")->seen && !o->cv)
		return args_error(p, NULL, "argument --write-intervals: needs --cv GROUPING");
	return 0;
}

/* --write-intervals FILE: the interval table slab_validate made, written
 * atomically; 0 or 1 (the error printed). */
static int write_intervals(const char *prog, const char *path, const ib_buf *b)
{
	ib_error e = {0};
	if (!b->data) {
		fprintf(stderr, "%s: error: out of memory\n", prog);
		return 1;
	}
	if (ib_buf_write_file(path, b, &e)) {
		cli_error(prog, path, &e);
		return 1;
	}
	return 0;
}

/* Loads the calibration and the points, then slab_validate prints the
 * table (and makes the interval table when ivpath is not NULL); the exit
 * status. */
static int validate(slab_validate_opts *o, const char *points, const char *calibration,
                    const char *ivpath)
{
	static const char prog[] = "infbench sim validate";
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	ib_diags d = {.a = a};
	sim_calib_file cal;
	slab_point *pts;
	size_t n;
	int status = 1;
	if (!a || cli_load_calibration(prog, calibration, a, &cal, &o->calibration_name))
		goto out;
	if (slab_points_load(points, a, &pts, &n, &e)) {
		cli_error(prog, points, &e);
		goto out;
	}
	o->points = pts;
	o->npoints = n;
	o->cal = &cal;
	o->log = cli_sim_log;
	ib_buf iv = {0};
	if (ivpath) {
		static const char *const g[] = {"", "model", "gpu", "model-gpu",
		                                "framework-vendor"};
		o->write_intervals = &iv;
		o->iv_source = ib_arena_printf(
		    a,
		    "infbench sim validate --points %s --cv %s --cv-prompts-per-conc %d%s%s "
		    "--kinds measured --summary --write-intervals %s",
		    points, g[o->cv], o->cv_prompts, o->cv_groups ? " --cv-groups " : "",
		    o->cv_groups ? o->cv_groups : "", ivpath);
	}
	status = slab_validate(o, a, &d, &e) ? cli_sim_lab_error(prog, NULL, &d, &e) : 0;
	if (!status && ivpath)
		status = write_intervals(prog, ivpath, &iv);
	ib_buf_free(&iv);
out:
	ib_arena_free(a);
	return status;
}

/* the parsed options into slab_validate_opts, then the validation */
static int run_parsed(arg_parser *p)
{
	int rc;
	slab_validate_opts o = {
	    .prompts = 10,
	    .cv_prompts = 2,
	    .sweep = {.prompts_per_conc = 2, .max_conc = 512, .max_conc_multinode = 8192}};
	arg_opt *x;
	if (!(x = args_get(p, "--points"))->seen)
		return args_error(p, NULL, "--points FILE is required");
	const char *points = x->vals[0], *calibration = NULL;
	if ((x = args_get(p, "--calibration"))->seen)
		calibration = x->vals[0];
	if ((rc = int_in(p, "--prompts-per-conc", 1, 100, &o.prompts)) ||
	    (rc = kinds_opt(p, o.kinds)) ||
	    (rc = int_in(p, "--sweep-prompts-per-conc", 1, 100, &o.sweep.prompts_per_conc)) ||
	    (rc = int_in(p, "--sweep-max-conc", 4, 4096, &o.sweep.max_conc)) ||
	    (rc = int_in(p, "--sweep-max-conc-multinode", 0, 16384, &o.sweep.max_conc_multinode)) ||
	    (rc = int_in(p, "--cv-prompts-per-conc", 1, 100, &o.cv_prompts)) ||
	    (rc = cv_opt(p, &o)))
		return rc;
	o.quiet = args_get(p, "--summary")->seen;
	o.show_sweeps = args_get(p, "--show-sweeps")->seen;
	o.sweep.no_spec = args_get(p, "--sweep-no-spec")->seen;
	glob_t g = {0};
	cli_sim_masters(p, &g, &o.masters, &o.nmasters, &o.runners);
	x = args_get(p, "--write-intervals");
	int status = validate(&o, points, calibration, x->seen ? x->vals[0] : NULL);
	globfree(&g);
	return status;
}

/* infbench sim validate --help's description */
static const char validate_desc[] =
    "Runs each published measured point's configuration on the simulator's engine "
    "model (in process,\n"
    "at model time); for frontier and peak rows, sweeps the series' serving configs "
    "and takes the\n"
    "frontier's throughput at the published interactivity (or the best config at "
    "the peak's\n"
    "concurrency). Prints published vs simulated tok/s/GPU and interactivity, "
    "the relative errors,\n"
    "the rows that cannot run and why, and median / mean absolute percentage "
    "errors per kind, page kind and GPU.\n"
    "With --cv, each held-out measured row's prediction interval (from the other "
    "groups' residuals)\n"
    "and the intervals' held-out coverage.";

int cmd_sim_validate(int argc, char **argv)
{
	arg_opt opts[] = {
	    {.name = "--points",
	     .kind = ARG_ONE,
	     .metavar = "FILE",
	     .help = "points.tsv of published InferenceX points (required)"},
	    {.name = "--calibration",
	     .kind = ARG_ONE,
	     .metavar = "FILE",
	     .help = "calibration rules (default: configs/sim/calibration.yaml)"},
	    {.name = "--prompts-per-conc",
	     .kind = ARG_ONE,
	     .is_int = true,
	     .metavar = "N",
	     .help = "prompts per unit of concurrency (default 10, as InferenceX)"},
	    {.name = "--kinds",
	     .kind = ARG_ONE,
	     .metavar = "LIST",
	     .help = "row kinds to run, comma-separated: measured, frontier, peak, other "
	             "(default measured,frontier,peak)"},
	    {.name = "--all-kinds",
	     .kind = ARG_FLAG,
	     .help = "every kind, also the prose rows (listed with why they cannot run)"},
	    CLI_SIM_MASTER_OPTS("the sweeps"),
	    {.name = "--sweep-no-spec",
	     .kind = ARG_FLAG,
	     .help =
	         "leave speculative decoding out of the sweeps, except where a row requires it"},
	    {.name = "--show-sweeps",
	     .kind = ARG_FLAG,
	     .help = "print every config of each frontier sweep with its figures"},
	    {.name = "--sweep-prompts-per-conc",
	     .kind = ARG_ONE,
	     .is_int = true,
	     .metavar = "N",
	     .help = "prompts per unit of concurrency of each frontier-sweep config (default 2)"},
	    {.name = "--sweep-max-conc",
	     .kind = ARG_ONE,
	     .is_int = true,
	     .metavar = "N",
	     .help = "the sweep's highest concurrency (4..N doubling; default 512)"},
	    {.name = "--sweep-max-conc-multinode",
	     .kind = ARG_ONE,
	     .is_int = true,
	     .metavar = "N",
	     .help = "the highest concurrency of a multi-node config of the master configs "
	             "(disaggregated or aggregated; default 8192; 0: multi-node configs are "
	             "not swept)"},
	    {.name = "--cv",
	     .kind = ARG_ONE,
	     .metavar = "GROUPING",
	     .help = "cross-validate: hold out each group (model, gpu, model-gpu, "
	             "framework-vendor) in turn, fit the calibration on the other rows "
	             "(as sim calibrate --no-frontier) and predict the group with it"},
	    {.name = "--cv-groups",
	     .kind = ARG_ONE,
	     .metavar = "LIST",
	     .help = "with --cv: only these groups, comma-separated (e.g. "
	             "minimax-m2.5/h100,glm-5/mi355x)"},
	    {.name = "--cv-prompts-per-conc",
	     .kind = ARG_ONE,
	     .is_int = true,
	     .metavar = "N",
	     .help = "with --cv: prompts per unit of concurrency in each fold's fit (default 2, as "
	             "the committed calibration)"},
	    {.name = "--write-intervals",
	     .kind = ARG_ONE,
	     .metavar = "FILE",
	     .help = "with --cv: write the prediction-interval table of the held-out measured "
	             "rows' residuals to FILE (configs/sim/intervals.yaml; docs/sim.md "
	             "\"Prediction intervals\")"},
	    {.name = "--summary",
	     .kind = ARG_FLAG,
	     .help = "only the unrunnable rows and the error summary"},
	    {.name = "--help", .alias = "-h", .kind = ARG_FLAG, .help = "show this help and exit"},
	};
	arg_parser p = {
	    .prog = "infbench sim validate",
	    .top = "infbench sim validate",
	    .desc = validate_desc,
	    .epilog = "See docs/sim.md \"Validation\".",
	    .opts = opts,
	    .nopts = sizeof opts / sizeof *opts,
	};
	int rc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? 0 : rc;
	}
	rc = run_parsed(&p);
	args_free(&p);
	return rc;
}
