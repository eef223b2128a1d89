/* infbench sim validate / sim calibrate: the performance model against
 * published InferenceX points, in process (docs/sim.md "Validation"). */
#include "cli/args.h"
#include "cli/cli.h"
#include "sim/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *kind_name(sim_point_kind k)
{
	static const char *const n[] = {"measured", "peak", "frontier", "other"};
	return n[k];
}

static void summary_line(const char *what, sim_ape *g)
{
	double mt, at, mi, ai;
	sim_ape_stats(g, &mt, &at, &mi, &ai);
	printf("%-22s runnable %3zu/%-3zu  tok/s/GPU APE median %6.1f%% mean %6.1f%%  "
	       "interactivity APE median %6.1f%% "
	       "mean %6.1f%%\n",
	       what, g->runnable, g->total, mt, at, mi, ai);
}

typedef struct {
	const char *points, *calibration;
	int prompts;
	bool all_kinds, quiet;
} val_opts;

int cli_load_calibration(const char *prog, const char *path, ib_arena *a, sim_calib_file *f,
			 const char **used)
{
	char exe[4096], buf[4200];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = 0;
	const char *p = path ? path : sim_calib_find(n > 0 ? exe : NULL, buf, sizeof buf);
	memset(f, 0, sizeof *f);
	*used = p ? ib_arena_strdup(a, p) : "built-in defaults";
	if (!p)
		return 0;
	ib_diags d = {.a = a};
	ib_error e = {0};
	int rc = sim_calib_load(p, a, f, &d, &e);
	ib_buf line = {0};
	for (size_t i = 0; i < d.n; i++) {
		line.len = 0;
		ib_diag_format(&d.items[i], &line);
		fprintf(stderr, "%s: %s\n", prog, line.data ? line.data : "");
	}
	ib_buf_free(&line);
	ib_diags_free(&d);
	if (rc)
		cli_error(prog, "--calibration", &e);
	return rc ? 1 : 0;
}

static int validate(const val_opts *o)
{
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	sim_point *pts;
	size_t n;
	sim_calib_file cal;
	const char *used;
	int status = 1;
	if (!a || cli_load_calibration("infbench sim validate", o->calibration, a, &cal, &used))
		goto out;
	if (sim_points_load(o->points, a, &pts, &n, &e)) {
		cli_error("infbench sim validate", o->points, &e);
		goto out;
	}
	printf("calibration: %s\n", used);
	printf("%-5s %-9s %-16s %-7s %-5s %-7s %3s %3s %4s %5s/%-5s %9s %9s %7s %7s %7s %7s\n",
	       "row", "kind", "model", "gpu", "prec", "fw", "tp", "ep", "conc", "isl", "osl",
	       "pub_tps", "sim_tps", "err%", "pub_int", "sim_int", "err%");
	sim_ape kind[4] = {{0}}, gpu[16] = {{0}};
	const char *gname[16] = {0};
	size_t ng = 0;
	ib_buf why = {0};
	for (size_t i = 0; i < n; i++) {
		const sim_point *p = &pts[i];
		if (!o->all_kinds && p->kind != SIM_POINT_MEASURED)
			continue;
		size_t g = 0;
		while (g < ng && strcmp(gname[g], p->gpu_name))
			g++;
		if (g == ng && ng < 16)
			gname[ng++] = p->gpu_name;
		sim_point_result r;
		bool ran = !p->why && !sim_point_run(p, &cal, o->prompts, &r, &e);
		double et = ran ? sim_err_pct(r.tps_gpu, p->tps_gpu) : NAN;
		double ei = ran ? sim_err_pct(r.interactivity, p->interactivity) : NAN;
		if (sim_ape_add(&kind[p->kind], ran, et, ei) ||
		    (g < 16 && sim_ape_add(&gpu[g], ran, et, ei))) {
			fprintf(stderr, "infbench sim validate: error: out of memory\n");
			goto done;
		}
		if (!ran) {
			ib_buf_printf(&why, "  row %d (%s, %s %s): %s\n", p->row_id,
			              kind_name(p->kind), p->model_name, p->gpu_name,
			              p->why ? p->why : e.msg);
			continue;
		}
		if (!o->quiet)
			printf("%-5d %-9s %-16.16s %-7.7s %-5s %-7s %3d %3d %4d %5d/%-5d %9.1f "
			       "%9.1f %+7.1f %7.1f %7.1f %+7.1f\n",
			       p->row_id, kind_name(p->kind), p->model, p->gpu, p->precision,
			       p->framework, p->tp, p->ep > 1 ? p->ep : 1, p->conc, p->isl, p->osl,
			       p->tps_gpu, r.tps_gpu, et, p->interactivity, r.interactivity, ei);
	}
	if (why.len)
		printf("\nrows that cannot run:\n%s", why.data);
	printf("\nabsolute percentage errors:\n");
	for (int k = 0; k < 4; k++)
		if (kind[k].total)
			summary_line(kind_name(k), &kind[k]);
	for (size_t g = 0; g < ng; g++) {
		char what[64];
		snprintf(what, sizeof what, "gpu %s", gname[g]);
		summary_line(what, &gpu[g]);
	}
	status = 0;
done:
	for (int k = 0; k < 4; k++)
		sim_ape_free(&kind[k]);
	for (int g = 0; g < 16; g++)
		sim_ape_free(&gpu[g]);
	ib_buf_free(&why);
out:
	ib_arena_free(a);
	return status;
}

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
	    {.name = "--all-kinds",
	     .kind = ARG_FLAG,
	     .help = "also list peak, frontier and other rows (and why they cannot run)"},
	    {.name = "--summary",
	     .kind = ARG_FLAG,
	     .help = "only the unrunnable rows and the error summary"},
	    {.name = "--help", .alias = "-h", .kind = ARG_FLAG, .help = "show this help and exit"},
	};
	arg_parser p = {
	    .prog = "infbench sim validate",
	    .top = "infbench sim validate",
	    .desc = "Runs each published measured point's configuration on the simulator's engine "
	            "model (in process,\n"
	            "at model time) and prints published vs simulated tok/s/GPU and interactivity, "
	            "the relative errors,\n"
	            "the rows that cannot run and why, and median / mean absolute percentage "
	            "errors per kind and GPU.",
	    .epilog = "See docs/sim.md \"Validation\".",
	    .opts = opts,
	    .nopts = sizeof opts / sizeof *opts,
	};
	int rc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? 0 : rc;
	}
	val_opts o = {.prompts = 10};
	arg_opt *x;
	if (!(x = args_get(&p, "--points"))->seen) {
		rc = args_error(&p, NULL, "--points FILE is required");
		args_free(&p);
		return rc;
	}
	o.points = x->vals[0];
	if ((x = args_get(&p, "--calibration"))->seen)
		o.calibration = x->vals[0];
	if ((x = args_get(&p, "--prompts-per-conc"))->seen) {
		if (x->ivals[0] < 1 || x->ivals[0] > 100) {
			rc = args_error(&p, NULL, "argument --prompts-per-conc: must be 1..100");
			args_free(&p);
			return rc;
		}
		o.prompts = (int)x->ivals[0];
	}
	o.all_kinds = args_get(&p, "--all-kinds")->seen;
	o.quiet = args_get(&p, "--summary")->seen;
	int status = validate(&o);
	args_free(&p);
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
	     .help = "prompts per unit of concurrency in the fit (default 2)"},
	    {.name = "--write",
	     .kind = ARG_ONE,
	     .metavar = "FILE",
	     .help = "write the whole calibration file there (atomically) instead of stdout"},
	    {.name = "--help", .alias = "-h", .kind = ARG_FLAG, .help = "show this help and exit"},
	};
	arg_parser p = {
	    .prog = "infbench sim calibrate",
	    .top = "infbench sim calibrate",
	    .desc = "Fits the calibration parameters (mem-eff, step-overhead-us, seq-overhead-us) "
	            "per framework x GPU\n"
	            "to the published measured points, prints the fit's error per group and per "
	            "model x GPU, and\n"
	            "writes the resulting calibration file.",
	    .epilog = "See docs/sim.md \"Calibration\".",
	    .opts = opts,
	    .nopts = sizeof opts / sizeof *opts,
	};
	int rc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? 0 : rc;
	}
	int status = 1;
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	ib_buf y = {0};
	arg_opt *x = args_get(&p, "--points");
	int prompts = 2;
	sim_calib_file base = {0};
	const char *used = "built-in defaults";
	if (!x->seen) {
		status = args_error(&p, NULL, "--points FILE is required");
		goto out;
	}
	if ((x = args_get(&p, "--prompts-per-conc"))->seen)
		prompts = x->ivals[0] < 1 ? 1 : x->ivals[0] > 100 ? 100 : (int)x->ivals[0];
	if ((x = args_get(&p, "--base"))->seen &&
	    cli_load_calibration("infbench sim calibrate", x->vals[0], a, &base, &used))
		goto out;
	sim_point *pts;
	size_t n, ng[4];
	sim_fit_group *gs[4];
	if (sim_points_load(args_get(&p, "--points")->vals[0], a, &pts, &n, &e) ||
	    sim_calibrate(pts, n, &base, used, prompts, a, gs, ng, &y, &e)) {
		cli_error("infbench sim calibrate", NULL, &e);
		goto out;
	}
	printf("%-8s %-8s %-18s %-12s %6s %8s %11s %11s  %s\n", "fw", "gpu", "model", "version",
	       "points", "fitted", "rms_before", "rms_after", "parameters");
	for (int l = 0; l < 4; l++)
		for (size_t i = 0; i < ng[l]; i++)
			printf("%-8s %-8s %-18s %-12s %6zu %8s %11.3f %11.3f  mem-eff %.3f step %.0f us "
			       "seq %.1f us\n",
			       gs[l][i].framework ? gs[l][i].framework : "(any)",
			       gs[l][i].gpu ? gs[l][i].gpu : "(any)",
			       gs[l][i].model ? gs[l][i].model : "(any)",
			       gs[l][i].version ? gs[l][i].version : "(any)", gs[l][i].npoints,
			       gs[l][i].fitted ? "yes" : "no (few)", sqrt(gs[l][i].loss_before),
			       sqrt(gs[l][i].loss_after), gs[l][i].values.mem_eff,
			       gs[l][i].values.step_overhead_s * 1e6,
			       gs[l][i].values.seq_overhead_s * 1e6);
	if ((x = args_get(&p, "--write"))->seen) {
		if (ib_write_file_atomic(x->vals[0], y.data, y.len, &e)) {
			cli_error("infbench sim calibrate", NULL, &e);
			goto out;
		}
	} else {
		printf("\n%s", y.data);
	}
	status = 0;
out:
	ib_buf_free(&y);
	ib_arena_free(a);
	args_free(&p);
	return status;
}
