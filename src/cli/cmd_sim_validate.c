/* infbench sim validate / sim calibrate: the performance model against
 * published InferenceX points, in process (docs/sim.md "Validation"). */
#include "cli/args.h"
#include "cli/cli.h"
#include "config/config.h"
#include "matrix/matrix.h"
#include "report/report.h"
#include "simlab/simlab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glob.h>
#include <unistd.h>

static const char *kind_name(slab_point_kind k)
{
	static const char *const n[] = {"measured", "peak", "frontier", "other"};
	return n[k];
}

static void pct(char *b, size_t n, double v)
{
	if (isnan(v))
		snprintf(b, n, "%6s ", "-");
	else
		snprintf(b, n, "%6.1f%%", v);
}

static void summary_line(const char *what, slab_ape *g)
{
	double v[4];
	char s[4][16];
	slab_ape_stats(g, &v[0], &v[1], &v[2], &v[3]);
	for (int i = 0; i < 4; i++)
		pct(s[i], sizeof s[i], v[i]);
	printf("%-32s runnable %3zu/%-3zu  tok/s/GPU APE median %s mean %s  "
	       "interactivity APE median %s mean %s\n",
	       what, g->runnable, g->total, s[0], s[1], s[2], s[3]);
}

typedef struct {
	const char *points, *calibration;
	int prompts;
	slab_sweep_opts sweep;
	bool kinds[4], quiet, show_sweeps;
	const char *const *masters; /* master configs for the sweep matrix (NULL: none) */
	size_t nmasters;
	const char *runners;
} val_opts;

/* One sweep per series, shared by its frontier and peak rows. */
typedef struct {
	const slab_point *p; /* the first row of the series */
	slab_sweep_point *pts;
	size_t n, nconf;
	int rc;
	char err[256];
} val_series;

typedef struct {
	val_series *v;
	size_t n, cap, configs, from_matrix;
	double seconds;
} val_cache;

static void cache_free(val_cache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].pts);
	}
	free(c->v);
	memset(c, 0, sizeof *c);
}

/* The sweep of p's series (run on first use); NULL when out of memory. */
static val_series *series_of(val_cache *c, const slab_point *p, const sim_calib_file *cal,
                             const val_opts *o)
{
	for (size_t i = 0; i < c->n; i++)
		if (slab_point_same_series(c->v[i].p, p))
			return &c->v[i];
	if (ib_grow(&c->v, &c->cap, c->n + 1))
		return NULL;
	val_series *s = &c->v[c->n++];
	memset(s, 0, sizeof *s);
	s->p = p;
	ib_error e = {0};
	int64_t t0 = ib_now_ns();
	s->rc = slab_sweep_run(p, cal, &o->sweep, &s->pts, &s->n, &s->nconf, &e);
	c->seconds += (double)(ib_now_ns() - t0) / 1e9;
	c->configs += s->nconf;
	if (s->n && s->pts[0].from_matrix)
		c->from_matrix++;
	if (s->rc == IB_ENOMEM)
		return NULL;
	if (s->rc)
		snprintf(s->err, sizeof s->err, "%.200s", e.msg);
	else if (!s->n) {
		s->rc = IB_EINVAL;
		snprintf(s->err, sizeof s->err,
		         "no config of the sweep fits in memory (TP up to %d, one node; "
		         "multi-node configs are not swept)",
		         slab_sweep_node_gpus(p->gpu));
	}
	if (o->show_sweeps) {
		printf("sweep of row %d's series (%s %s %s %d/%d%s%s%s): %zu of %zu configs ran (%s)\n",
		       p->row_id, p->model, p->gpu, p->precision, p->isl, p->osl,
		       p->framework ? ", " : "", p->framework ? p->framework : "",
		       p->no_spec ? ", no spec" : p->spec ? ", spec only" : "", s->n, s->nconf,
		       s->n && s->pts[0].from_matrix ? "the sweep matrix" : "the generic space");
		for (size_t i = 0; i < s->n; i++) {
			const slab_sweep_point *q = &s->pts[i];
			printf("  sweep %-7s %-6s tp %d ep %d%s conc %3d  tok/s/GPU %9.1f  "
			       "interactivity %7.1f  ttft %8.1f ms\n",
			       q->framework, q->spec ? q->spec : "-", q->tp, q->ep,
			       q->dp_attn ? " dpa" : "    ", q->conc, q->tps_gpu, q->interactivity,
			       q->median_ttft * 1e3);
		}
	}
	return s;
}

/* What a row's simulation gives, and the config it came from (for the
 * table). Returns 0, 1 when it cannot run (*why), IB_ENOMEM. */
typedef struct {
	double tps, inter;
	const char *fw;
	int tp, ep, conc;
} val_result;

static int run_row(const slab_point *p, const sim_calib_file *cal, const val_opts *o,
                   val_cache *cache, val_result *r, const char **why, ib_error *e)
{
	memset(r, 0, sizeof *r);
	if (p->why) {
		*why = p->why;
		return 1;
	}
	if (p->kind == SLAB_POINT_MEASURED) {
		slab_point_result pr;
		if (slab_point_run(p, cal, o->prompts, &pr, e)) {
			*why = e->msg;
			return 1;
		}
		*r = (val_result){pr.tps_gpu, pr.interactivity, p->framework, p->tp,
		                  p->ep > 1 ? p->ep : 1, p->conc};
		return 0;
	}
	val_series *s = series_of(cache, p, cal, o);
	if (!s)
		return IB_ENOMEM;
	if (s->rc) {
		*why = s->err;
		return 1;
	}
	if (p->kind == SLAB_POINT_PEAK) {
		ptrdiff_t b = slab_sweep_peak(s->pts, s->n, p->conc, p->framework);
		if (b < 0) {
			*why = "no config of the sweep ran";
			return 1;
		}
		const slab_sweep_point *q = &s->pts[b];
		*r = (val_result){q->tps_gpu, q->interactivity, q->framework, q->tp, q->ep, q->conc};
		return 0;
	}
	double value, conc;
	size_t near;
	int rc = cli_sim_frontier_at(s->pts, s->n, p->interactivity, &value, &near, &conc);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		*why = "no frontier";
		return 1;
	}
	const slab_sweep_point *q = &s->pts[near];
	*r = (val_result){value, NAN, q->framework, q->tp, q->ep, (int)conc};
	return 0;
}

int cli_sim_frontier_at(const slab_sweep_point *pts, size_t n, double target, double *value,
                        size_t *nearest, double *conc)
{
	if (!n)
		return 0;
	double *col = malloc(3 * n * sizeof *col);
	if (!col)
		return IB_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		col[i] = pts[i].interactivity;
		col[n + i] = pts[i].tps_gpu;
		col[2 * n + i] = pts[i].conc;
	}
	par_interp in;
	int rc = par_throughput_at(col, col + n, col + 2 * n, n, target, &in);
	free(col);
	if (rc == 1) {
		*value = in.value;
		if (nearest)
			*nearest = in.nearest[0];
		if (conc)
			*conc = in.concurrency;
	}
	return rc;
}

void cli_sim_masters(arg_parser *p, glob_t *g, const char *const **masters, size_t *n,
                     const char **runners)
{
	arg_opt *x;
	*masters = NULL;
	*n = 0;
	*runners = (x = args_get(p, "--runner-config"))->seen ? x->vals[0] : "configs/runners.yaml";
	if ((x = args_get(p, "--master-configs"))->seen) {
		*masters = x->vals;
		*n = x->nvals;
	} else if (!args_get(p, "--no-master-configs")->seen &&
	           glob("configs/*-master.yaml", 0, NULL, g) == 0 && access(*runners, R_OK) == 0) {
		*masters = (const char *const *)g->gl_pathv;
		*n = g->gl_pathc;
	}
}

int cli_sim_matrix(const char *prog, ib_arena *a, const char *const *masters, size_t n,
                   const char *runners, ib_val **rows)
{
	ib_diags d = {.a = a};
	ib_val *master = NULL, *run = NULL;
	ib_error e = {0};
	int rc = cfg_load_master(a, masters, n, &master, &d);
	if (!rc)
		rc = cfg_load_runners(a, runners, &run, &d);
	if (rc) {
		cli_print_diags(&d);
		fprintf(stderr, "%s: the master configs have problems\n", prog);
		return 1;
	}
	mx_opts mo;
	mx_opts_init(&mo, true);
	mo.no_evals = true;
	mo.want_agentic = false;
	if (mx_generate(a, &mo, master, run, rows, &e)) {
		cli_error(prog, NULL, &e);
		return 1;
	}
	return 0;
}

static bool in_names(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *s = list; s && *s;) {
		size_t len = strcspn(s, ",");
		if (len == n && !strncmp(s, name, n))
			return true;
		s += len + (s[len] == ',');
	}
	return false;
}

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
	if (rc)
		cli_error(prog, "--calibration", &e);
	return rc ? 1 : 0;
}

#define VAL_MAXG 24
typedef struct {
	const char *name[VAL_MAXG];
	slab_ape g[VAL_MAXG];
	size_t n;
} val_groups;

static slab_ape *group(val_groups *v, const char *name)
{
	size_t i = 0;
	while (i < v->n && strcmp(v->name[i], name))
		i++;
	if (i == VAL_MAXG)
		return NULL;
	if (i == v->n)
		v->name[v->n++] = name;
	return &v->g[i];
}

static void groups_free(val_groups *v)
{
	for (size_t i = 0; i < v->n; i++)
		slab_ape_free(&v->g[i]);
}

static int validate(const val_opts *oin)
{
	val_opts copy = *oin, *o = &copy;
	slab_sweep_opts sweep = o->sweep;
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	slab_point *pts;
	size_t n;
	sim_calib_file cal;
	const char *used;
	int status = 1;
	if (!a || cli_load_calibration("infbench sim validate", o->calibration, a, &cal, &used))
		goto out;
	if (slab_points_load(o->points, a, &pts, &n, &e)) {
		cli_error("infbench sim validate", o->points, &e);
		goto out;
	}
	printf("calibration: %s\n", used);
	if (o->nmasters) {
		ib_val *rows = NULL;
		if (cli_sim_matrix("infbench sim validate", a, o->masters, o->nmasters, o->runners,
		                   &rows))
			goto out;
		sweep.matrix = rows;
		printf("sweep matrix: %zu rows from", rows->list.n);
		for (size_t i = 0; i < o->nmasters; i++)
			printf(" %s", o->masters[i]);
		printf("\n");
	}
	printf("%-5s %-9s %-16s %-7s %-5s %-7s %3s %3s %4s %5s/%-5s %9s %9s %7s %7s %7s %7s\n",
	       "row", "kind", "model", "gpu", "prec", "fw", "tp", "ep", "conc", "isl", "osl",
	       "pub_tps", "sim_tps", "err%", "pub_int", "sim_int", "err%");
	o->sweep = sweep;
	val_groups kind, page, gpu[4];
	memset(&kind, 0, sizeof kind);
	memset(&page, 0, sizeof page);
	memset(gpu, 0, sizeof gpu);
	val_cache cache = {0};
	ib_buf why = {0};
	for (size_t i = 0; i < n; i++) {
		const slab_point *p = &pts[i];
		if (!o->kinds[p->kind])
			continue;
		val_result r;
		const char *reason = NULL;
		int rc = run_row(p, &cal, o, &cache, &r, &reason, &e);
		if (rc < 0)
			goto nomem;
		bool ran = rc == 0;
		double et = ran ? slab_err_pct(r.tps, p->tps_gpu) : NAN;
		double ei = ran ? slab_err_pct(r.inter, p->interactivity) : NAN;
		slab_ape *gk = group(&kind, kind_name(p->kind)), *gp = group(&page, p->page_kind),
		        *gg = group(&gpu[p->kind], p->gpu_name);
		if ((gk && slab_ape_add(gk, ran, et, ei)) || (gp && slab_ape_add(gp, ran, et, ei)) ||
		    (gg && slab_ape_add(gg, ran, et, ei)))
			goto nomem;
		if (!ran) {
			ib_buf_printf(&why, "  row %d (%s, %s %s): %s\n", p->row_id, p->page_kind,
			              p->model_name, p->gpu_name, reason);
			continue;
		}
		if (!o->quiet)
			printf("%-5d %-9s %-16.16s %-7.7s %-5s %-7s %3d %3d %4d %5d/%-5d %9.1f "
			       "%9.1f %+7.1f %7.1f %7.1f %+7.1f\n",
			       p->row_id, kind_name(p->kind), p->model, p->gpu, p->precision,
			       r.fw ? r.fw : "-", r.tp, r.ep, r.conc, p->isl, p->osl, p->tps_gpu,
			       r.tps, et, p->interactivity, r.inter, ei);
	}
	if (why.len)
		printf("\nrows that cannot run:\n%s", why.data);
	if (cache.n)
		printf("\nfrontier sweeps: %zu series (%zu from the sweep matrix), %zu configs, %d "
		       "prompts per concurrency, concurrency 4..%d, %.1f s\n",
		       cache.n, cache.from_matrix, cache.configs, o->sweep.prompts_per_conc,
		       o->sweep.max_conc, cache.seconds);
	printf("\nabsolute percentage errors (frontier rows: tok/s/GPU at the published "
	       "interactivity):\n");
	for (size_t k = 0; k < kind.n; k++)
		summary_line(kind.name[k], &kind.g[k]);
	for (size_t k = 0; k < page.n; k++) {
		char what[64];
		snprintf(what, sizeof what, "page %s", page.name[k]);
		summary_line(what, &page.g[k]);
	}
	for (int k = 0; k < 4; k++)
		for (size_t g = 0; g < gpu[k].n; g++) {
			char what[64];
			snprintf(what, sizeof what, "gpu %s %s", gpu[k].name[g], kind_name(k));
			summary_line(what, &gpu[k].g[g]);
		}
	status = 0;
	goto done;
nomem:
	fprintf(stderr, "infbench sim validate: error: out of memory\n");
done:
	groups_free(&kind);
	groups_free(&page);
	for (int k = 0; k < 4; k++)
		groups_free(&gpu[k]);
	cache_free(&cache);
	ib_buf_free(&why);
out:
	ib_arena_free(a);
	return status;
}

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
			kinds[k] = in_names(v, names[k]);
		for (const char *s = v; *s;) {
			size_t len = strcspn(s, ",");
			int k = 0;
			while (k < 4 && (strlen(names[k]) != len || strncmp(s, names[k], len)))
				k++;
			if (k == 4)
				return args_error(p, NULL,
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
	     .help = "leave speculative decoding out of the sweeps, except where a row requires it"},
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
	            "at model time); for frontier and peak rows, sweeps the series' serving configs "
	            "and takes the\n"
	            "frontier's throughput at the published interactivity (or the best config at "
	            "the peak's\n"
	            "concurrency). Prints published vs simulated tok/s/GPU and interactivity, "
	            "the relative errors,\n"
	            "the rows that cannot run and why, and median / mean absolute percentage "
	            "errors per kind, page kind and GPU.",
	    .epilog = "See docs/sim.md \"Validation\".",
	    .opts = opts,
	    .nopts = sizeof opts / sizeof *opts,
	};
	int rc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? 0 : rc;
	}
	val_opts o = {.prompts = 10, .sweep = {.prompts_per_conc = 2, .max_conc = 512}};
	arg_opt *x;
	if (!(x = args_get(&p, "--points"))->seen) {
		rc = args_error(&p, NULL, "--points FILE is required");
		args_free(&p);
		return rc;
	}
	o.points = x->vals[0];
	if ((x = args_get(&p, "--calibration"))->seen)
		o.calibration = x->vals[0];
	if ((rc = int_in(&p, "--prompts-per-conc", 1, 100, &o.prompts)) ||
	    (rc = kinds_opt(&p, o.kinds)) ||
	    (rc = int_in(&p, "--sweep-prompts-per-conc", 1, 100, &o.sweep.prompts_per_conc)) ||
	    (rc = int_in(&p, "--sweep-max-conc", 4, 4096, &o.sweep.max_conc))) {
		args_free(&p);
		return rc;
	}
	o.quiet = args_get(&p, "--summary")->seen;
	o.show_sweeps = args_get(&p, "--show-sweeps")->seen;
	o.sweep.no_spec = args_get(&p, "--sweep-no-spec")->seen;
	glob_t g = {0};
	cli_sim_masters(&p, &g, &o.masters, &o.nmasters, &o.runners);
	int status = validate(&o);
	globfree(&g);
	args_free(&p);
	return status;
}
