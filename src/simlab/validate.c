/* sim validate: the performance model against published InferenceX points,
 * in process (docs/sim.md "Validation"): measured rows at their recipe,
 * frontier and peak rows on their series' sweep (one per series), the table
 * of published vs simulated figures and the error summary, through the
 * caller's log callback. */
#include "config/config.h"
#include "matrix/matrix.h"
#include "pareto/pareto.h"
#include "simlab/private.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void slab_out(slab_log_fn log, void *ud, int stream, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ib_emitv(log, ud, stream, true, fmt, ap);
	va_end(ap);
}

int slab_matrix(ib_arena *a, const char *const *masters, size_t n, const char *runners, ib_diags *d,
                ib_val **rows, ib_error *e)
{
	ib_val *master = NULL, *run = NULL;
	int rc = cfg_load_master(a, masters, n, &master, d);
	if (!rc)
		rc = cfg_load_runners(a, runners, &run, d);
	if (rc)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "the master configs have problems");
	mx_opts mo;
	mx_opts_init(&mo, true);
	mo.no_evals = true;
	mo.want_agentic = false;
	return mx_generate(a, &mo, master, run, rows, e);
}

int slab_frontier_at(const slab_sweep_point *pts, size_t n, double target, double *value,
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

static void summary_line(const slab_validate_opts *o, const char *what, slab_ape *g)
{
	double v[6];
	char s[6][16];
	slab_ape_stats(g, &v[0], &v[1], &v[3], &v[4]);
	slab_ape_p90(g, &v[2], &v[5]);
	for (int i = 0; i < 6; i++)
		pct(s[i], sizeof s[i], v[i]);
	slab_out(o->log, o->log_ud, SLAB_LOG_OUT,
	         "%-32s runnable %3zu/%-3zu  tok/s/GPU APE median %s mean %s p90 %s  "
	         "interactivity APE median %s mean %s p90 %s\n",
	         what, g->runnable, g->total, s[0], s[1], s[2], s[3], s[4], s[5]);
}

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
	size_t n, cap;
	/* totals over every sweep run (kept by cache_free: --cv sweeps each
	 * fold's series anew) */
	size_t series, configs, from_matrix, other_workload;
	double seconds;
} val_cache;

/* Frees the sweeps (the totals stay). */
static void cache_free(val_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].pts);
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
}

/* "" for a single-node config; else "  1P tp 4 ep 4 dpa + 3D" (prefill
 * workers and their shape, decode workers) or "  2 workers" (aggregated
 * multi-node). */
static void pools_text(char *b, size_t n, const slab_pools *k)
{
	b[0] = 0;
	if (k->prefill_workers > 0)
		snprintf(b, n, "  %dP tp %d ep %d%s + %dD", k->prefill_workers, k->prefill_tp,
		         k->prefill_ep, k->prefill_dp_attn ? " dpa" : "", k->replicas);
	else if (k->replicas > 0)
		snprintf(b, n, "  %d workers", k->replicas);
}

/* Where a sweep's configs came from, as --show-sweeps says it. */
static const char *source_name(slab_sweep_source src)
{
	switch (src) {
	case SLAB_SWEEP_MATRIX:
		return "the sweep matrix";
	case SLAB_SWEEP_OTHER_WORKLOAD:
		return "the sweep matrix at another ISL/OSL";
	case SLAB_SWEEP_GIVEN:
		return "the configs given";
	default:
		return "the generic space";
	}
}

static void show_sweep(const slab_validate_opts *o, const slab_point *p, const val_series *s)
{
	slab_out(o->log, o->log_ud, SLAB_LOG_OUT,
	         "sweep of row %d's series (%s %s %s %d/%d%s%s%s): %zu of %zu configs ran (%s)\n",
	         p->row_id, p->model, p->gpu, p->precision, p->isl, p->osl,
	         p->framework ? ", " : "", p->framework ? p->framework : "",
	         p->no_spec ? ", no spec"
	         : p->spec  ? ", spec only"
	                    : "",
	         s->n, s->nconf, !s->n ? "the generic space" : source_name(s->pts[0].source));
	for (size_t i = 0; i < s->n; i++) {
		const slab_sweep_point *q = &s->pts[i];
		char pools[96];
		pools_text(pools, sizeof pools, &q->pools);
		slab_out(o->log, o->log_ud, SLAB_LOG_OUT,
		         "  sweep %-7s %-6s tp %d ep %d%s conc %3d  tok/s/GPU %9.1f  "
		         "interactivity %7.1f  ttft %8.1f ms%s\n",
		         q->framework, q->spec ? q->spec : "-", q->tp, q->ep,
		         q->dp_attn ? " dpa" : "    ", q->conc, q->tps_gpu, q->interactivity,
		         q->median_ttft * 1e3, pools);
	}
}

/* The sweep of p's series (run on first use); NULL when out of memory. */
static val_series *series_of(val_cache *c, const slab_point *p, const slab_validate_opts *o,
                             const slab_sweep_opts *sweep)
{
	for (size_t i = 0; i < c->n; i++)
		if (slab_point_same_series(c->v[i].p, p))
			return &c->v[i];
	if (ib_grow(&c->v, &c->cap, c->n + 1))
		return NULL;
	val_series *s = &c->v[c->n++];
	memset(s, 0, sizeof *s);
	s->p = p;
	c->series++;
	ib_error e = {0};
	int64_t t0 = ib_now_ns();
	s->rc = slab_sweep_run(p, o->cal, sweep, &s->pts, &s->n, &s->nconf, &e);
	c->seconds += (double)(ib_now_ns() - t0) / 1e9;
	c->configs += s->nconf;
	if (s->n && (s->pts[0].source == SLAB_SWEEP_MATRIX ||
	             s->pts[0].source == SLAB_SWEEP_OTHER_WORKLOAD))
		c->from_matrix++;
	if (s->n && s->pts[0].source == SLAB_SWEEP_OTHER_WORKLOAD)
		c->other_workload++;
	if (s->rc == IB_ENOMEM)
		return NULL;
	if (s->rc)
		snprintf(s->err, sizeof s->err, "%.200s", e.msg);
	else if (!s->n && p->disagg && !s->nconf) {
		s->rc = IB_EINVAL;
		snprintf(s->err, sizeof s->err, "%s",
		         !sweep->matrix ? "a disaggregated recipe: its worker counts come from the "
		                          "master configs (none given)"
		         : !sweep->max_conc_multinode
		             ? "a disaggregated recipe: multi-node configs are not swept "
		               "(--sweep-max-conc-multinode 0)"
		             : "the master configs have no multi-node config of this series "
		               "(model, GPU, precision, ISL/OSL, framework)");
	} else if (!s->n) {
		s->rc = IB_EINVAL;
		snprintf(s->err, sizeof s->err,
		         "no config of the sweep fits in memory (TP up to %d on one node%s)",
		         slab_sweep_node_gpus(p->gpu),
		         sweep->matrix && sweep->max_conc_multinode
		             ? ", and the master configs' multi-node configs"
		             : "; multi-node configs are not swept");
	}
	if (o->show_sweeps)
		show_sweep(o, p, s);
	return s;
}

/* What a row's simulation gives, and the config it came from (for the
 * table). Returns 0, 1 when it cannot run (*why), IB_ENOMEM. */
typedef struct {
	double tps, inter;
	const char *fw;
	int tp, ep, conc;
	slab_pools pools; /* the config's multi-node pools (zero: single-node) */
} val_result;

static int run_row(const slab_point *p, const slab_validate_opts *o, const slab_sweep_opts *sweep,
                   val_cache *cache, val_result *r, const char **why, ib_error *e)
{
	memset(r, 0, sizeof *r);
	if (p->why) {
		*why = p->why;
		return 1;
	}
	if (p->kind == SLAB_POINT_MEASURED) {
		slab_point_result pr;
		if (slab_point_run(p, o->cal, o->prompts, &pr, e)) {
			*why = e->msg;
			return 1;
		}
		*r = (val_result){.tps = pr.tps_gpu,
		                  .inter = pr.interactivity,
		                  .fw = p->framework,
		                  .tp = p->tp,
		                  .ep = p->ep > 1 ? p->ep : 1,
		                  .conc = p->conc};
		return 0;
	}
	val_series *s = series_of(cache, p, o, sweep);
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
		*r = (val_result){q->tps_gpu, q->interactivity, q->framework, q->tp,
		                  q->ep,      q->conc,          q->pools};
		return 0;
	}
	double value, conc;
	size_t near;
	int rc = slab_frontier_at(s->pts, s->n, p->interactivity, &value, &near, &conc);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		*why = "no frontier";
		return 1;
	}
	const slab_sweep_point *q = &s->pts[near];
	*r = (val_result){value, NAN, q->framework, q->tp, q->ep, (int)conc, q->pools};
	return 0;
}

#define VAL_MAXG 64
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

/* The error groups of a validation: per kind, page kind and GPU x kind (and
 * held-out group x kind with --cv). */
typedef struct {
	val_groups kind, page, gpu[4], cv[4];
	val_cache cache;
	ib_buf why;      /* the rows that cannot run */
	slab_resid *res; /* --cv: the held-out measured rows' residuals */
	size_t nres, cap_res;
} val_state;

static void state_free(val_state *st)
{
	groups_free(&st->kind);
	groups_free(&st->page);
	for (int k = 0; k < 4; k++) {
		groups_free(&st->gpu[k]);
		groups_free(&st->cv[k]);
	}
	cache_free(&st->cache);
	ib_buf_free(&st->why);
	free(st->res);
}

/* ln(published / simulated); NAN when either is missing or not positive */
static double log_ratio(double published, double sim)
{
	return published > 0 && sim > 0 ? log(published / sim) : NAN;
}

/* A held-out measured row's residuals (prediction intervals). 0 or
 * IB_ENOMEM. */
static int add_resid(val_state *st, const slab_point *p, const char *cv, const val_result *r)
{
	double rt = log_ratio(p->tps_gpu, r->tps), ri = log_ratio(p->interactivity, r->inter);
	if (p->kind != SLAB_POINT_MEASURED || (isnan(rt) && isnan(ri)))
		return 0;
	if (ib_grow(&st->res, &st->cap_res, st->nres + 1))
		return IB_ENOMEM;
	st->res[st->nres++] = (slab_resid){p, cv, r->tps, r->inter, rt, ri};
	return 0;
}

/* Runs row p, counts it in its groups (and in held-out group cv, when not
 * NULL) and prints its table line (or notes why it cannot run). 0 or
 * IB_ENOMEM. */
static int validate_row(const slab_point *p, const slab_validate_opts *o,
                        const slab_sweep_opts *sweep, const char *cv, val_state *st, ib_error *e)
{
	val_result r;
	const char *reason = NULL;
	int rc = run_row(p, o, sweep, &st->cache, &r, &reason, e);
	if (rc < 0)
		return rc;
	bool ran = rc == 0;
	double et = ran ? slab_err_pct(r.tps, p->tps_gpu) : NAN;
	double ei = ran ? slab_err_pct(r.inter, p->interactivity) : NAN;
	slab_ape *gk = group(&st->kind, kind_name(p->kind)), *gp = group(&st->page, p->page_kind),
	         *gg = group(&st->gpu[p->kind], p->gpu_name);
	if ((gk && slab_ape_add(gk, ran, et, ei)) || (gp && slab_ape_add(gp, ran, et, ei)) ||
	    (gg && slab_ape_add(gg, ran, et, ei)))
		return IB_ENOMEM;
	slab_ape *gc = cv ? group(&st->cv[p->kind], cv) : NULL;
	if (gc && slab_ape_add(gc, ran, et, ei))
		return IB_ENOMEM;
	if (ran && cv && add_resid(st, p, cv, &r))
		return IB_ENOMEM;
	if (!ran) {
		ib_buf_printf(&st->why, "  row %d (%s, %s %s): %s\n", p->row_id, p->page_kind,
		              p->model_name, p->gpu_name, reason);
		return 0;
	}
	char pools[96];
	pools_text(pools, sizeof pools, &r.pools);
	if (!o->quiet)
		slab_out(o->log, o->log_ud, SLAB_LOG_OUT,
		         "%-5d %-9s %-16.16s %-7.7s %-5s %-7s %3d %3d %4d %5d/%-5d %9.1f "
		         "%9.1f %+7.1f %7.1f %7.1f %+7.1f%s\n",
		         p->row_id, kind_name(p->kind), p->model, p->gpu, p->precision,
		         r.fw ? r.fw : "-", r.tp, r.ep, r.conc, p->isl, p->osl, p->tps_gpu, r.tps,
		         et, p->interactivity, r.inter, ei, pools);
	return 0;
}

/* The rows that cannot run, the sweeps' totals and the error summary. */
static void print_summary(const slab_validate_opts *o, const slab_sweep_opts *sweep, val_state *st)
{
	if (st->why.len)
		slab_out(o->log, o->log_ud, SLAB_LOG_OUT, "\nrows that cannot run:\n%s",
		         st->why.data);
	if (st->cache.series)
		slab_out(o->log, o->log_ud, SLAB_LOG_OUT,
		         "\nfrontier sweeps: %zu series (%zu from the sweep matrix, %zu of them at "
		         "another ISL/OSL), %zu configs, %d prompts per concurrency, concurrency "
		         "4..%d, %.1f s\n",
		         st->cache.series, st->cache.from_matrix, st->cache.other_workload,
		         st->cache.configs, sweep->prompts_per_conc, sweep->max_conc,
		         st->cache.seconds);
	slab_out(o->log, o->log_ud, SLAB_LOG_OUT,
	         "\nabsolute percentage errors (frontier rows: tok/s/GPU at the published "
	         "interactivity):\n");
	for (size_t k = 0; k < st->kind.n; k++)
		summary_line(o, st->kind.name[k], &st->kind.g[k]);
	for (size_t k = 0; k < st->page.n; k++) {
		char what[64];
		snprintf(what, sizeof what, "page %s", st->page.name[k]);
		summary_line(o, what, &st->page.g[k]);
	}
	for (int k = 0; k < 4; k++)
		for (size_t g = 0; g < st->gpu[k].n; g++) {
			char what[64];
			snprintf(what, sizeof what, "gpu %s %s", st->gpu[k].name[g], kind_name(k));
			summary_line(o, what, &st->gpu[k].g[g]);
		}
	for (int k = 0; k < 4; k++)
		for (size_t g = 0; g < st->cv[k].n; g++) {
			char what[96];
			snprintf(what, sizeof what, "cv %s %s", st->cv[k].name[g], kind_name(k));
			summary_line(o, what, &st->cv[k].g[g]);
		}
}

/* The held-out groups of a cross-validation: the keys of the selected rows
 * (in o->cv_groups when given), in order of first appearance, in a. */
static int cv_groups(const slab_validate_opts *o, ib_arena *a, const char ***out, size_t *nout,
                     ib_error *e)
{
	const char **k = ib_arena_alloc(a, (o->npoints + 1) * sizeof *k);
	if (!k)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	size_t n = 0;
	for (size_t i = 0; i < o->npoints; i++) {
		if (!o->kinds[o->points[i].kind])
			continue;
		char key[256];
		slab_cv_key(&o->points[i], o->cv, key, sizeof key);
		if (o->cv_groups && !slab_name_in(o->cv_groups, key))
			continue;
		size_t j = 0;
		while (j < n && strcmp(k[j], key))
			j++;
		if (j == n && !(k[n++] = ib_arena_strdup(a, key)))
			return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	}
	if (!n)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "--cv: no rows of the groups %s",
		               o->cv_groups ? o->cv_groups : "(any)");
	*out = k;
	*nout = n;
	return 0;
}

/* Cross-validation: per held-out group, the calibration fitted on the
 * other rows (the fit on every row when the group holds no row the fit
 * uses), then the group's rows predicted with it; each fold's sweeps are
 * its own (they depend on the calibration). */
static int validate_cv(const slab_validate_opts *o, const slab_sweep_opts *sweep, val_state *st,
                       ib_arena *a, ib_error *e)
{
	const char **keys = NULL;
	size_t nk = 0, nall = 0;
	int rc = cv_groups(o, a, &keys, &nk, e);
	for (size_t i = 0; i < o->npoints; i++)
		nall += !o->points[i].why && o->points[i].kind == SLAB_POINT_MEASURED;
	sim_calib_file all = {0};
	bool have_all = false;
	for (size_t f = 0; f < nk && !rc; f++) {
		slab_point *train;
		size_t ntrain, nmeas;
		rc = slab_cv_train(o->points, o->npoints, o->cv, keys[f], a, &train, &ntrain,
		                   &nmeas);
		if (rc)
			return ib_fail(e, rc, NULL, 0, 0, "out of memory");
		slab_out(o->log, o->log_ud, SLAB_LOG_PROGRESS,
		         "cv fold %zu/%zu: %s, fitting on %zu measured rows...\n", f + 1, nk,
		         keys[f], nmeas);
		sim_calib_file cal;
		if (nmeas == nall && have_all)
			cal = all;
		else if ((rc = slab_cv_fit(train, ntrain, o->cv_prompts, a, &cal, e)))
			return rc;
		if (nmeas == nall && !have_all) {
			all = cal;
			have_all = true;
		}
		if (o->log)
			o->log(o->log_ud, SLAB_LOG_PROGRESS, NULL);
		slab_out(o->log, o->log_ud, SLAB_LOG_OUT,
		         "cv fold %s: held out %zu of %zu rows, fitted on %zu measured rows (%zu "
		         "rules)\n",
		         keys[f], o->npoints - ntrain, o->npoints, nmeas, cal.n);
		slab_validate_opts fo = *o;
		fo.cal = &cal;
		for (size_t i = 0; i < o->npoints && !rc; i++) {
			char key[256];
			slab_cv_key(&o->points[i], o->cv, key, sizeof key);
			if (o->kinds[o->points[i].kind] && !strcmp(key, keys[f]))
				rc = validate_row(&o->points[i], &fo, sweep, keys[f], st, e);
		}
		/* the next fold sweeps again under its own calibration */
		cache_free(&st->cache);
	}
	return rc;
}

/* The held-out coverage and widths of the candidate widening rules (how
 * SIM_IV_INFLATION, _ADD, _CAP and _MIN_RESIDUALS were chosen; docs/sim.md "Prediction
 * intervals"), one line each. 0 or IB_ENOMEM. */
static int coverage_by_rule(const slab_validate_opts *o, val_state *st, ib_arena *a)
{
	static const struct {
		const char *name;
		sim_iv_rule r;
		size_t min_n;
	} cand[] = {
	    {"x1.5", {1.5, 0, 0, false}, 8},
	    {"x2", {2, 0, 0, false}, 8},
	    {"x3 (before)", {3, 0, 0, false}, 8},
	    {"x3 cap 2", {3, 0, 2, false}, 8},
	    {"+0.5", {1, 0.5, 0, false}, 8},
	    {"+1", {1, 1, 0, false}, 8},
	    {"+0.5 cap 2", {1, 0.5, 2, false}, 8},
	    {"+1 cap 2", {1, 1, 2, false}, 8},
	    {"+0.25 cap 2 min 12", {1, 0.25, 2, false}, 12},
	    {"+0.5 cap 2 min 12", {1, 0.5, 2, false}, 12},
	    {"+0.75 cap 2 min 12 *",
	     {SIM_IV_INFLATION, SIM_IV_ADD, SIM_IV_CAP, false},
	     SIM_IV_MIN_RESIDUALS},
	    {"+0.75 cap 2 min 12 hs", {1, 0.75, 2, true}, 12},
	    {"+0.75 cap 2 min 16", {1, 0.75, 2, false}, 16},
	};
	slab_out(o->log, o->log_ud, SLAB_LOG_OUT,
	         "  widening rules (xF: F^steps on the half-width, +K: K x the pool all's "
	         "half-width per step, cap C: at most C x it, min N: min-residuals N, hs: "
	         "holds the simulated value; *: the default):\n"
	         "  %-22s %-24s %-18s %s\n",
	         "rule", "covered tok/s/GPU, inter", "median width", "p90 width");
	int rc = 0;
	for (size_t i = 0; i < sizeof cand / sizeof *cand && !rc; i++) {
		slab_iv_opts io = o->iv;
		io.rule = &cand[i].r;
		io.min_n = cand[i].min_n;
		slab_iv_cover c;
		if ((rc = slab_iv_check(st->res, st->nres, &io, a, false, NULL, NULL, &c)))
			break;
		double pt = c.n_tps ? 100.0 * (double)c.in_tps / (double)c.n_tps : NAN,
		       pi = c.n_inter ? 100.0 * (double)c.in_inter / (double)c.n_inter : NAN;
		slab_out(o->log, o->log_ud, SLAB_LOG_OUT,
		         "  %-22s %5.1f%% / %5.1f%%          %6.2fx / %6.2fx   %.3gx / %.3gx\n",
		         cand[i].name, pt, pi, c.width_tps, c.width_inter, c.p90_tps, c.p90_inter);
	}
	return rc;
}

/* --cv: the intervals' held-out coverage and, when asked, the table of
 * every residual. 0 or IB_ENOMEM. */
static int intervals(const slab_validate_opts *o, val_state *st, ib_arena *a)
{
	slab_iv_cover c;
	int rc = slab_iv_check(st->res, st->nres, &o->iv, a, !o->quiet, o->log, o->log_ud, &c);
	if (!rc)
		rc = coverage_by_rule(o, st, a);
	if (rc || !o->write_intervals)
		return rc;
	sim_iv_table t;
	if ((rc = slab_iv_build(st->res, st->nres, NULL, &o->iv, a, &t)))
		return rc;
	slab_iv_write(&t, o->iv_source, o->write_intervals);
	return 0;
}

int slab_validate(const slab_validate_opts *o, ib_arena *a, ib_diags *d, ib_error *e)
{
	slab_sweep_opts sweep = o->sweep;
	static const char *const cvname[] = {"", "model", "gpu", "model-gpu", "framework-vendor"};
	if (o->cv)
		slab_out(o->log, o->log_ud, SLAB_LOG_OUT,
		         "calibration: cross-validated by %s (each fold fitted as sim calibrate "
		         "--no-frontier --prompts-per-conc %d on the other groups' rows)\n",
		         cvname[o->cv], o->cv_prompts);
	else
		slab_out(o->log, o->log_ud, SLAB_LOG_OUT, "calibration: %s\n", o->calibration_name);
	if (o->nmasters) {
		ib_val *rows = NULL;
		int rc = slab_matrix(a, o->masters, o->nmasters, o->runners, d, &rows, e);
		if (rc)
			return rc;
		sweep.matrix = rows;
		ib_buf line = {0};
		ib_buf_printf(&line, "sweep matrix: %zu rows from", rows->list.n);
		for (size_t i = 0; i < o->nmasters; i++)
			ib_buf_printf(&line, " %s", o->masters[i]);
		slab_out(o->log, o->log_ud, SLAB_LOG_OUT, "%s\n", line.data ? line.data : "");
		ib_buf_free(&line);
	}
	slab_out(o->log, o->log_ud, SLAB_LOG_OUT,
	         "%-5s %-9s %-16s %-7s %-5s %-7s %3s %3s %4s %5s/%-5s %9s %9s %7s %7s %7s %7s\n",
	         "row", "kind", "model", "gpu", "prec", "fw", "tp", "ep", "conc", "isl", "osl",
	         "pub_tps", "sim_tps", "err%", "pub_int", "sim_int", "err%");
	val_state st;
	memset(&st, 0, sizeof st);
	int rc = 0;
	if (o->cv)
		rc = validate_cv(o, &sweep, &st, a, e);
	else
		for (size_t i = 0; i < o->npoints && !rc; i++)
			if (o->kinds[o->points[i].kind])
				rc = validate_row(&o->points[i], o, &sweep, NULL, &st, e);
	if (!rc)
		print_summary(o, &sweep, &st);
	if (!rc && o->cv)
		rc = intervals(o, &st, a);
	state_free(&st);
	if (rc == IB_ENOMEM)
		return ib_fail(e, rc, NULL, 0, 0, "out of memory");
	return rc;
}
