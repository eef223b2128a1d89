/* sim calibrate: the whole fit (docs/sim.md "Calibration"). The measured
 * levels are slab_calibrate's; the frontier levels fit one rule per GPU
 * without measured rules, then one per GPU x model x precision, to the
 * frontier rows (their series' sweeps and the dashboard's frontier
 * interpolation at the published interactivity), for the frameworks no
 * measured rule covers. */
#include "simlab/private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One series of a frontier group: its first row, and the configs of its
 * sweep that made the frontier the last time the whole sweep ran (the fit
 * runs only these; docs/sim.md "Calibration"). */
typedef struct {
	const slab_point *first;
	slab_sweep_config *active;
	size_t nactive;
} fr_series;

#define FR_MAXFW 8
typedef struct {
	const char *gpu, *model, *precision;
	const slab_point **rows;
	size_t nrows, caprows;
	fr_series *series;
	size_t nseries, capseries;
	const char *fws[FR_MAXFW + 1]; /* the frameworks the rule matches, NULL-terminated */
	size_t nfw;
	const char *seen[FR_MAXFW]; /* every framework of the group's sweeps */
	size_t nseen;
	const slab_sweep_opts *opts;
	bool full;  /* loss over whole sweeps (else over the active configs) */
	int failed; /* IB_ENOMEM met in a loss */
} fr_group;

static bool frontier_row(const slab_point *p)
{
	return p->kind == SLAB_POINT_FRONTIER && !p->why && p->model && p->gpu && p->precision &&
	       isfinite(p->tps_gpu) && p->tps_gpu > 0 && isfinite(p->interactivity) &&
	       p->interactivity > 0;
}

static void group_free(fr_group *g)
{
	for (size_t i = 0; i < g->nseries; i++)
		free(g->series[i].active);
	free(g->series);
	free(g->rows);
}

/* Adds the framework names of pts to g->seen. */
static void note_frameworks(fr_group *g, const slab_sweep_point *pts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < g->nseen && strcmp(g->seen[k], pts[i].framework))
			k++;
		if (k == g->nseen && g->nseen < FR_MAXFW)
			g->seen[g->nseen++] = pts[i].framework;
	}
}

static bool same_shape(const slab_sweep_point *a, const slab_sweep_point *b)
{
	return !strcmp(a->framework, b->framework) &&
	       (a->spec == b->spec || (a->spec && b->spec && !strcmp(a->spec, b->spec))) &&
	       a->tp == b->tp && a->ep == b->ep && a->dp_attn == b->dp_attn &&
	       !memcmp(&a->pools, &b->pools, sizeof a->pools);
}

/* s->active = every config (all its concurrencies) of a serving shape
 * (framework, spec, TP, EP, DPA) with at least one point on the sweep's
 * frontier (no other point at least as interactive with more tok/s/GPU). */
static int set_active(fr_series *s, const slab_sweep_point *pts, size_t n)
{
	bool *front = calloc(n ? n : 1, sizeof *front);
	slab_sweep_config *v = malloc((n ? n : 1) * sizeof *v);
	if (!front || !v) {
		free(front);
		free(v);
		return IB_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		bool dominated = false;
		for (size_t j = 0; j < n && !dominated; j++)
			dominated = j != i && pts[j].interactivity >= pts[i].interactivity &&
			            pts[j].tps_gpu >= pts[i].tps_gpu &&
			            (pts[j].interactivity > pts[i].interactivity ||
			             pts[j].tps_gpu > pts[i].tps_gpu);
		front[i] = !dominated;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		bool keep = false;
		for (size_t j = 0; j < n && !keep; j++)
			keep = front[j] && same_shape(&pts[i], &pts[j]);
		if (keep)
			v[k++] = slab_sweep_config_of(&pts[i]);
	}
	free(front);
	free(s->active);
	s->active = v;
	s->nactive = k;
	return 0;
}

/* A frontier group's loss (slab_fit_loss_fn): the mean squared log error of
 * the frontier's tok/s/GPU at each row's published interactivity, over the
 * active configs; with g->full over the whole sweeps, which also choose the
 * active configs again and note the frameworks seen. */
static double frontier_loss(void *ctx, const sim_calib_file *cal, size_t *count)
{
	fr_group *g = ctx;
	double sum = 0;
	size_t k = 0;
	for (size_t i = 0; i < g->nseries; i++) {
		fr_series *s = &g->series[i];
		slab_sweep_opts o = *g->opts;
		if (!g->full) {
			o.only = s->active;
			o.nonly = s->nactive;
		}
		slab_sweep_point *pts;
		size_t n, nconf;
		ib_error e = {0};
		int rc = slab_sweep_run(s->first, cal, &o, &pts, &n, &nconf, &e);
		if (rc) {
			if (rc == IB_ENOMEM)
				g->failed = rc;
			return INFINITY;
		}
		if (g->full) {
			note_frameworks(g, pts, n);
			if (set_active(s, pts, n)) {
				g->failed = IB_ENOMEM;
				free(pts);
				return INFINITY;
			}
		}
		for (size_t r = 0; r < g->nrows; r++) {
			const slab_point *p = g->rows[r];
			if (!slab_point_same_series(p, s->first))
				continue;
			double v = 0;
			rc = slab_frontier_at(pts, n, p->interactivity, &v, NULL, NULL);
			if (rc < 0) {
				g->failed = rc;
				free(pts);
				return INFINITY;
			}
			/* no frontier at all: a log error of 5 (e^5 ~ 150x) */
			double d = rc == 1 && v > 0 ? log(v / p->tps_gpu) : 5.0;
			sum += d * d;
			k++;
		}
		free(pts);
	}
	if (count)
		*count = k;
	return k ? sum / k : INFINITY;
}

static bool same_or_any(const char *group, const char *v)
{
	return !group || !strcmp(group, v);
}

/* True when a measured rule was fitted on gpu (of any framework). */
static bool measured_gpu(const slab_fit_group *m, size_t nm, const char *gpu)
{
	for (size_t i = 0; i < nm; i++)
		if (m[i].fitted && m[i].gpu && !strcmp(m[i].gpu, gpu))
			return true;
	return false;
}

/* Groups the frontier rows with their series: by GPU x model x precision
 * (by_gpu false), or by GPU alone, for the GPUs without a measured
 * framework x GPU rule (m[0..nm)). */
static int make_groups(const slab_point *pts, size_t n, bool by_gpu, const slab_fit_group *m,
                       size_t nm, fr_group **out, size_t *nout)
{
	fr_group *g = NULL;
	size_t ng = 0, cap = 0;
	for (size_t i = 0; i < n; i++) {
		const slab_point *p = &pts[i];
		if (!frontier_row(p) || (by_gpu && measured_gpu(m, nm, p->gpu)))
			continue;
		size_t j = 0;
		while (j < ng && !(!strcmp(g[j].gpu, p->gpu) && same_or_any(g[j].model, p->model) &&
		                   same_or_any(g[j].precision, p->precision)))
			j++;
		if (j == ng) {
			if (ib_grow(&g, &cap, ng + 1))
				goto nomem;
			memset(&g[ng], 0, sizeof g[ng]);
			g[ng].gpu = p->gpu;
			g[ng].model = by_gpu ? NULL : p->model;
			g[ng].precision = by_gpu ? NULL : p->precision;
			ng++;
		}
		fr_group *G = &g[j];
		if (ib_grow(&G->rows, &G->caprows, G->nrows + 1))
			goto nomem;
		G->rows[G->nrows++] = p;
		size_t k = 0;
		while (k < G->nseries && !slab_point_same_series(G->series[k].first, p))
			k++;
		if (k == G->nseries) {
			if (ib_grow(&G->series, &G->capseries, G->nseries + 1))
				goto nomem;
			G->series[G->nseries++] = (fr_series){.first = p};
		}
	}
	*out = g;
	*nout = ng;
	return 0;
nomem:
	for (size_t j = 0; j < ng; j++)
		group_free(&g[j]);
	free(g);
	return IB_ENOMEM;
}

/* True when a measured rule of m (a level's groups) was fitted for fw on
 * g's GPU (and g's model, when the group has one). */
static bool measured_covers(const slab_fit_group *m, size_t nm, const fr_group *g, const char *fw)
{
	for (size_t i = 0; i < nm; i++)
		if (m[i].fitted && m[i].framework && !strcmp(m[i].framework, fw) &&
		    !strcmp(m[i].gpu, g->gpu) &&
		    (!g->model || (m[i].model && !strcmp(m[i].model, g->model))))
			return true;
	return false;
}

/* One frontier level on top of *cal (which grows by the fitted rules):
 * by_gpu, the GPUs no measured rule covers (m: the framework x GPU level),
 * else GPU x model x precision (m: the framework x GPU x model level); *out
 * (in a) gets one slab_fit_group per group. */
static int fit_frontier(const slab_point *pts, size_t n, bool by_gpu, const slab_sweep_opts *opts,
                        const slab_fit_group *m, size_t nm, sim_calib_file *cal, ib_arena *a,
                        const slab_calibrate_opts *o, slab_fit_group **out, size_t *nout,
                        ib_error *e)
{
	fr_group *g;
	size_t ng;
	*out = NULL;
	*nout = 0;
	if (make_groups(pts, n, by_gpu, m, nm, &g, &ng))
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	int rc = 0;
	slab_fit_group *fg = ib_arena_alloc(a, (ng ? ng : 1) * sizeof *fg);
	sim_calib_rule *rules = ib_arena_alloc(a, (cal->n + ng + 1) * sizeof *rules);
	if (!fg || !rules) {
		rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		goto done;
	}
	memcpy(rules, cal->rules, cal->n * sizeof *rules);
	sim_calib_file cur = {.path = cal->path, .rules = rules, .n = cal->n};
	for (size_t j = 0; j < ng; j++) {
		fr_group *G = &g[j];
		G->opts = opts;
		slab_fit_group *F = &fg[j];
		memset(F, 0, sizeof *F);
		*F = (slab_fit_group){.frontier = true,
		                      .gpu = G->gpu,
		                      .model = G->model,
		                      .precision = G->precision,
		                      .npoints = G->nrows,
		                      .nseries = G->nseries};
		slab_out(o->log, o->log_ud, SLAB_LOG_PROGRESS,
		         "frontier group %zu/%zu: %s %s %s (%zu rows)...\n", j + 1, ng, G->gpu,
		         G->model ? G->model : "", G->precision ? G->precision : "", G->nrows);
		G->full = true;
		F->loss_before = frontier_loss(G, &cur, &F->nfigures);
		if (G->failed) {
			rc = ib_fail(e, G->failed, NULL, 0, 0, "out of memory");
			goto done;
		}
		for (size_t k = 0; k < G->nseen; k++)
			if (!measured_covers(m, nm, G, G->seen[k]))
				G->fws[G->nfw++] = G->seen[k];
		G->fws[G->nfw] = NULL;
		const char **fws = ib_arena_alloc(a, (G->nfw + 1) * sizeof *fws);
		if (!fws) {
			rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
			goto done;
		}
		memcpy(fws, G->fws, (G->nfw + 1) * sizeof *fws);
		F->frameworks = fws;
		F->loss_after = F->loss_before;
		sim_calib_key key = {
		    G->nfw ? G->fws[0] : NULL, G->gpu, G->precision, G->model, NULL, NULL};
		sim_calib_resolve(&cur, &key, &F->values);
		if (G->nrows < SLAB_FIT_MIN_POINTS || !G->nfw || !isfinite(F->loss_before))
			continue;
		/* the trial: cur plus the group's rule, fitted on the active
		 * configs, which are chosen again from the whole sweep after
		 * each round */
		sim_calib_file trial = cur;
		trial.n = cur.n + 1;
		sim_calib_rule *r = &rules[cur.n];
		if (slab_fit_group_rule(F, a, r)) {
			rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
			goto done;
		}
		double after = INFINITY;
		for (int round = 0; round < 2; round++) {
			G->full = false;
			slab_fit_descend(&trial, frontier_loss, G, 2, 10);
			G->full = true; /* the whole sweeps: the active configs again */
			after = frontier_loss(G, &trial, NULL);
			if (G->failed) {
				rc = ib_fail(e, G->failed, NULL, 0, 0, "out of memory");
				goto done;
			}
		}
		if (after < F->loss_before) { /* keep the rule */
			F->fitted = true;
			F->values = r->values;
			F->loss_after = after;
			cur = trial;
		}
	}
	if (o->log) /* the end of the progress lines */
		o->log(o->log_ud, SLAB_LOG_PROGRESS, NULL);
	*cal = cur;
	*out = fg;
	*nout = ng;
done:
	for (size_t j = 0; j < ng; j++)
		group_free(&g[j]);
	free(g);
	return rc;
}

static void print_measured(const slab_calibrate_opts *o, const slab_fit_group *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		slab_out(
		    o->log, o->log_ud, SLAB_LOG_OUT,
		    "%-8s %-8s %-18s %-12s %6zu %8s %11.3f %11.3f  mem-eff %.3f compute-eff %.3f "
		    "step %.0f us seq %.1f us\n",
		    g[i].framework ? g[i].framework : "(any)", g[i].gpu ? g[i].gpu : "(any)",
		    g[i].model ? g[i].model : "(any)", g[i].version ? g[i].version : "(any)",
		    g[i].npoints, g[i].fitted ? "yes" : "no (few)", sqrt(g[i].loss_before),
		    sqrt(g[i].loss_after), g[i].values.mem_eff, g[i].values.compute_eff,
		    g[i].values.step_overhead_s * 1e6, g[i].values.seq_overhead_s * 1e6);
}

static void print_frontier(const slab_calibrate_opts *o, const slab_fit_group *g, size_t n,
                           bool by_gpu)
{
	if (by_gpu)
		slab_out(o->log, o->log_ud, SLAB_LOG_OUT,
		         "\nfrontier groups, GPUs without measured rules (the rule matches the "
		         "frameworks of the GPU's sweeps):\n");
	else
		slab_out(
		    o->log, o->log_ud, SLAB_LOG_OUT,
		    "\nfrontier groups, GPU x model x precision (the rule matches the frameworks "
		    "no measured model rule covers):\n");
	slab_out(o->log, o->log_ud, SLAB_LOG_OUT,
	         "%-14s %-8s %-18s %-5s %5s %6s %-10s %11s %11s  %s\n", "frameworks", "gpu",
	         "model", "prec", "rows", "series", "fitted", "rms_before", "rms_after",
	         "parameters");
	for (size_t i = 0; i < n; i++) {
		char fws[64] = "";
		for (size_t j = 0; g[i].frameworks && g[i].frameworks[j]; j++)
			snprintf(fws + strlen(fws), sizeof fws - strlen(fws), "%s%s", j ? "," : "",
			         g[i].frameworks[j]);
		const char *why = g[i].fitted                             ? "yes"
		                  : !g[i].frameworks || !*g[i].frameworks ? "no (measured)"
		                  : g[i].npoints < SLAB_FIT_MIN_POINTS    ? "no (few)"
		                                                          : "no (worse)";
		char before[16] = "-", after[16] = "-";
		if (isfinite(g[i].loss_before))
			snprintf(before, sizeof before, "%.3f", sqrt(g[i].loss_before));
		if (isfinite(g[i].loss_after))
			snprintf(after, sizeof after, "%.3f", sqrt(g[i].loss_after));
		slab_out(o->log, o->log_ud, SLAB_LOG_OUT,
		         "%-14s %-8s %-18s %-5s %5zu %6zu %-10s %11s %11s  mem-eff %.3f "
		         "compute-eff %.3f step %.0f us seq %.1f us\n",
		         *fws ? fws : "-", g[i].gpu, g[i].model ? g[i].model : "(any)",
		         g[i].precision ? g[i].precision : "(any)", g[i].npoints, g[i].nseries, why,
		         before, after, g[i].values.mem_eff, g[i].values.compute_eff,
		         g[i].values.step_overhead_s * 1e6, g[i].values.seq_overhead_s * 1e6);
	}
}

int slab_calibrate_run(const slab_calibrate_opts *o, ib_arena *a, ib_buf *yaml, ib_diags *d,
                       ib_error *e)
{
	size_t ng[SLAB_FIT_NLEVELS], nf = 0;
	slab_fit_group *gs[SLAB_FIT_NLEVELS], *fg = NULL;
	sim_calib_file cal;
	int rc = slab_calibrate(o->points, o->npoints, o->base, o->base_name, o->prompts, a, gs, ng,
	                        yaml, &cal, e);
	if (rc)
		return rc;
	slab_out(o->log, o->log_ud, SLAB_LOG_OUT, "%-8s %-8s %-18s %-12s %6s %8s %11s %11s  %s\n",
	         "fw", "gpu", "model", "version", "points", "fitted", "rms_before", "rms_after",
	         "parameters");
	for (int l = 0; l < SLAB_FIT_NLEVELS; l++)
		print_measured(o, gs[l], ng[l]);
	if (!o->frontier)
		return 0;
	slab_sweep_opts so = {.prompts_per_conc = o->prompts, .max_conc = o->max_conc};
	ib_val *rows = NULL;
	if (o->nmasters && (rc = slab_matrix(a, o->masters, o->nmasters, o->runners, d, &rows, e)))
		return rc;
	so.matrix = rows;
	ib_buf_printf(yaml,
	              "  # frontier rules: fitted to the frontier rows' sweeps%s;\n"
	              "  # per GPU without measured rules, then per GPU x model x "
	              "precision\n",
	              o->nmasters ? " (the master configs' search spaces where they cover "
	                            "a series)"
	                          : " (the generic space)");
	for (int l = 0; l < 2; l++) {
		rc = fit_frontier(o->points, o->npoints, l == 0, &so, gs[l + 2], ng[l + 2], &cal, a,
		                  o, &fg, &nf, e);
		if (rc)
			return rc;
		print_frontier(o, fg, nf, l == 0);
		slab_fit_rules(fg, nf, yaml);
	}
	return 0;
}
