/* sim calibrate: a reproducible fit of the calibration parameters to the
 * published measured points (docs/sim.md "Calibration"). Rows are grouped
 * by framework x GPU; each group with at least SLAB_FIT_MIN_POINTS points
 * gets one rule (compute-eff, step-overhead-us, seq-overhead-us fitted, mem-eff
 * fixed at SLAB_FIT_MEM_EFF; comm-eff set to SLAB_FIT_COMM_EFF by the first
 * level, every row) by
 * coordinate descent (golden-section search on each parameter in turn) on
 * the squared log errors of tok/s/GPU and interactivity over all of the
 * group's points. No parameter belongs to a single point. */
#include "simlab/simlab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { P_MEM = 0, P_COMPUTE = 1, P_STEP = 2, P_SEQ = 3, P_COMM = 4 };
/* the parameters a group's rule sets (the first level's sets comm-eff too) */
#define FITTED ((1u << P_MEM) | (1u << P_COMPUTE) | (1u << P_STEP) | (1u << P_SEQ))

typedef struct {
	const slab_point *pts;
	size_t n;
	const char *fw, *gpu, *model, *version; /* NULL: any */
	int prompts;
	const double *w;        /* each point's weight: 1 / its model x GPU's rows in the group */
	const sim_calib *prior; /* the parent level's values the rule is pulled towards */
	double ridge;           /* the pull's strength (0: none) */
} group_ctx;

static bool in_group(const slab_point *p, const char *fw, const char *gpu, const char *model,
                     const char *version)
{
	return !p->why && p->kind == SLAB_POINT_MEASURED && p->framework && p->gpu &&
	       (!fw || !strcmp(p->framework, fw)) && (!gpu || !strcmp(p->gpu, gpu)) &&
	       (!model || !strcmp(p->model, model)) &&
	       (!version || (p->version && !strcmp(p->version, version)));
}

/* The cost of a log error d: its square up to SLAB_FIT_HUBER, linear
 * beyond (Huber's loss), so that rows the model cannot describe (an early
 * build 3x slower than a later one of the same recipe) do not set a
 * parameter shared with rows it can. */
static double huber(double d)
{
	const double delta = SLAB_FIT_HUBER;
	double a = fabs(d);
	return a <= delta ? d * d : delta * (2 * a - delta);
}

/* A measured group's loss (slab_fit_loss_fn): mean squared log error over
 * its points' published figures; INFINITY on a failed run. */
static double measured_loss(void *ctx, const sim_calib_file *cal, size_t *count)
{
	group_ctx *g = ctx;
	double sum = 0, wsum = 0;
	size_t k = 0;
	for (size_t i = 0; i < g->n; i++) {
		const slab_point *p = &g->pts[i];
		if (!in_group(p, g->fw, g->gpu, g->model, g->version))
			continue;
		slab_point_result r;
		ib_error e = {0};
		if (slab_point_run(p, cal, g->prompts, &r, &e))
			return INFINITY;
		double w = g->w ? g->w[i] : 1.0;
		if (!isnan(p->tps_gpu) && r.tps_gpu > 0) {
			sum += w * huber(log(r.tps_gpu / p->tps_gpu));
			wsum += w;
			k++;
		}
		if (!isnan(p->interactivity) && r.interactivity > 0) {
			sum += w * huber(log(r.interactivity / p->interactivity));
			wsum += w;
			k++;
		}
	}
	if (count)
		*count = k;
	return k ? sum / wsum : INFINITY;
}

/* The pull of the fitted rule (cal's last) towards the parent level's
 * values: ridge x the sum of the squared log ratios of the three fitted
 * parameters (a parameter the parent leaves at 0 is not pulled). */
static double ridge_penalty(const group_ctx *g, const sim_calib_file *cal)
{
	if (!g->prior || g->ridge <= 0)
		return 0;
	const sim_calib *v = &cal->rules[cal->n - 1].values, *q = g->prior;
	/* (not mem-eff: fixed, SLAB_FIT_MEM_EFF) */
	const double x[3][2] = {{v->compute_eff, q->compute_eff},
	                        {v->step_overhead_s, q->step_overhead_s},
	                        {v->seq_overhead_s, q->seq_overhead_s}};
	double s = 0;
	for (int i = 0; i < 3; i++)
		if (x[i][0] > 0 && x[i][1] > 0) {
			double d = log(x[i][0] / x[i][1]);
			s += d * d;
		}
	return g->ridge * s;
}

/* What the fit minimises: the group's error plus the pull to its parent. */
static double penalised_loss(void *ctx, const sim_calib_file *cal, size_t *count)
{
	return measured_loss(ctx, cal, count) + ridge_penalty(ctx, cal);
}

static double *slot(sim_calib *c, int which)
{
	switch (which) {
	case P_COMPUTE:
		return &c->compute_eff;
	case P_STEP:
		return &c->step_overhead_s;
	default:
		return &c->seq_overhead_s;
	}
}

typedef struct {
	slab_fit_loss_fn loss;
	void *ctx;
	sim_calib_file *cal; /* its last rule is the one fitted */
	int iters;
} search_ctx;

static double eval(search_ctx *s)
{
	return s->loss(s->ctx, s->cal, NULL);
}

/* Golden-section search of one parameter over [lo, hi] (on a log scale
 * when log_scale), the others fixed. */
static void search(search_ctx *g, int which, double lo, double hi, bool log_scale)
{
	sim_calib *v = &g->cal->rules[g->cal->n - 1].values;
	double *x = slot(v, which);
	double a = log_scale ? log(lo) : lo, b = log_scale ? log(hi) : hi;
	const double r = 0.6180339887498949;
	double c = b - r * (b - a), d = a + r * (b - a);
	*x = log_scale ? exp(c) : c;
	double fc = eval(g);
	*x = log_scale ? exp(d) : d;
	double fd = eval(g);
	for (int it = 0; it < g->iters; it++) {
		if (fc < fd) {
			b = d;
			d = c;
			fd = fc;
			c = b - r * (b - a);
			*x = log_scale ? exp(c) : c;
			fc = eval(g);
		} else {
			a = c;
			c = d;
			fc = fd;
			d = a + r * (b - a);
			*x = log_scale ? exp(d) : d;
			fd = eval(g);
		}
	}
	double best = fc < fd ? c : d;
	*x = log_scale ? exp(best) : best;
}

void slab_fit_descend(sim_calib_file *cal, slab_fit_loss_fn loss, void *ctx, int passes, int iters)
{
	search_ctx g = {loss, ctx, cal, iters};
	sim_calib_rule *r = &cal->rules[cal->n - 1];
	r->set |= FITTED;
	/* not searched: reads at the published bandwidth, what kernels lose
	 * below it is time per step (SLAB_FIT_MEM_EFF) */
	r->values.mem_eff = SLAB_FIT_MEM_EFF;
	for (int pass = 0; pass < passes; pass++) {
		search(&g, P_STEP, 50e-6, 0.1, true);
		search(&g, P_SEQ, 1e-7, 2e-3, true);
		/* the prefill (compute-bound) against the decode (memory- and
		 * overhead-bound): what separates rows of one group at
		 * different input lengths */
		search(&g, P_COMPUTE, 0.02, 1.0, true);
	}
}

/* Each point's weight in its group: 1 / the group's rows of its model x
 * GPU, so that a pooled level (every row, a framework) weighs each model x
 * GPU alike rather than by how many rows it published. */
static double *group_weights(const slab_point *pts, size_t n, const group_ctx *g, ib_arena *a)
{
	double *w = ib_arena_alloc(a, (n ? n : 1) * sizeof *w);
	if (!w)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const slab_point *p = &pts[i];
		w[i] = 0;
		if (!in_group(p, g->fw, g->gpu, g->model, g->version))
			continue;
		size_t same = 0;
		for (size_t j = 0; j < n; j++)
			same += in_group(&pts[j], g->fw, g->gpu, g->model, g->version) &&
			        !strcmp(pts[j].model, p->model) && !strcmp(pts[j].gpu, p->gpu);
		w[i] = 1.0 / (double)same;
	}
	return w;
}

int slab_fit(const slab_point *pts, size_t n, const sim_calib_file *base, int prompts, double ridge,
             int level, ib_arena *a, slab_fit_group **out, size_t *nout, ib_error *e)
{
	*out = NULL;
	*nout = 0;
	slab_fit_group *gs = ib_arena_alloc(a, (n + 1) * sizeof *gs);
	sim_calib_rule *rules = ib_arena_alloc(a, ((base ? base->n : 0) + 1) * sizeof *rules);
	if (!gs || !rules)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	size_t ng = 0;
	bool global = level == SLAB_LEVEL_ALL, fw_only = level == SLAB_LEVEL_FW;
	bool by_model = level == SLAB_LEVEL_MODEL || level == SLAB_LEVEL_VERSION,
	     by_version = level == SLAB_LEVEL_VERSION, by_gpu = !global && !fw_only;
	for (size_t i = 0; i < n; i++) {
		const slab_point *p = &pts[i];
		if (p->why || p->kind != SLAB_POINT_MEASURED || !p->framework || !p->gpu ||
		    (by_version && !p->version))
			continue;
		size_t j = 0;
		while (j < ng && !((global || strcmp(gs[j].framework, p->framework) == 0) &&
		                   (!by_gpu || strcmp(gs[j].gpu, p->gpu) == 0) &&
		                   (!by_model || strcmp(gs[j].model, p->model) == 0) &&
		                   (!by_version || strcmp(gs[j].version, p->version) == 0)))
			j++;
		if (j == ng) {
			memset(&gs[ng], 0, sizeof gs[ng]);
			gs[ng].framework = global ? NULL : p->framework;
			gs[ng].gpu = by_gpu ? p->gpu : NULL;
			gs[ng].model = by_model ? p->model : NULL;
			gs[ng].version = by_version ? p->version : NULL;
			ng++;
		}
		gs[j].npoints++;
	}
	for (size_t j = 0; j < ng; j++) {
		slab_fit_group *G = &gs[j];
		group_ctx g = {.pts = pts,
		               .n = n,
		               .fw = G->framework,
		               .gpu = G->gpu,
		               .model = G->model,
		               .version = G->version,
		               .prompts = prompts};
		if (!(g.w = group_weights(pts, n, &g, a)))
			return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		if (base && base->n)
			memcpy(rules, base->rules, base->n * sizeof *rules);
		sim_calib_file cal = {
		    .path = "(fit)", .rules = rules, .n = (base ? base->n : 0) + 1};
		sim_calib_rule *r = &rules[cal.n - 1];
		memset(r, 0, sizeof *r);
		/* start from what the base rules give this group, and stay near
		 * it (every level but the first: the defaults are no evidence) */
		sim_calib_key k = {G->framework, G->gpu, NULL, G->model, NULL, G->version};
		sim_calib_resolve(base, &k, &r->values);
		sim_calib prior = r->values;
		if (!global) {
			g.prior = &prior;
			g.ridge = ridge;
		}
		r->set = FITTED;
		/* the first level sets comm-eff for every level (not searched:
		 * SLAB_FIT_COMM_EFF) */
		if (global) {
			r->values.comm_eff = SLAB_FIT_COMM_EFF;
			r->set |= 1u << P_COMM;
		}
		G->loss_before = measured_loss(&g, &cal, NULL);
		if (G->npoints >= SLAB_FIT_MIN_POINTS) {
			slab_fit_descend(&cal, penalised_loss, &g, 2, 12);
			G->fitted = true;
		}
		G->values = r->values;
		G->loss_after = measured_loss(&g, &cal, &G->nfigures);
	}
	*out = gs;
	*nout = ng;
	return 0;
}

/* The first level's group (every measured row): its rule also sets
 * comm-eff. */
static bool first_level(const slab_fit_group *g)
{
	return !g->framework && !g->frontier;
}

void slab_fit_rules(const slab_fit_group *g, size_t n, ib_buf *out)
{
	for (size_t i = 0; i < n; i++) {
		if (!g[i].fitted)
			continue;
		char m[512] = "", fws[128] = "";
		for (size_t j = 0; g[i].frameworks && g[i].frameworks[j]; j++)
			snprintf(fws + strlen(fws), sizeof fws - strlen(fws), "%s%s", j ? ", " : "",
			         g[i].frameworks[j]);
		if (g[i].frontier)
			snprintf(m, sizeof m, "framework: [%s], hardware: %s%s%s%s%s", fws,
			         g[i].gpu, g[i].model ? ", model: " : "",
			         g[i].model ? g[i].model : "",
			         g[i].precision ? ", precision: " : "",
			         g[i].precision ? g[i].precision : "");
		else if (g[i].framework && !g[i].gpu)
			snprintf(m, sizeof m, "framework: %s", g[i].framework);
		else if (g[i].framework)
			snprintf(m, sizeof m, "framework: %s, hardware: %s%s%s%s%s%s",
			         g[i].framework, g[i].gpu, g[i].model ? ", model: " : "",
			         g[i].model ? g[i].model : "", g[i].version ? ", version: \"" : "",
			         g[i].version ? g[i].version : "", g[i].version ? "\"" : "");
		char what[128];
		if (g[i].frontier)
			snprintf(what, sizeof what, "%zu frontier points of %zu series",
			         g[i].npoints, g[i].nseries);
		else
			snprintf(what, sizeof what, "%zu measured points (%zu figures)%s",
			         g[i].npoints, g[i].nfigures,
			         !g[i].framework ? " of every framework and GPU"
			         : !g[i].gpu     ? " of every GPU (each model x GPU weighted alike)"
			                         : "");
		ib_buf_printf(
		    out,
		    "  - note: fitted by infbench sim calibrate over %s, RMS log error %.3f -> "
		    "%.3f\n"
		    "    match: {%s}\n"
		    "    mem-eff: %.4f\n    compute-eff: %.4f\n    step-overhead-us: %.1f\n"
		    "    seq-overhead-us: %.3f\n",
		    what, sqrt(g[i].loss_before), sqrt(g[i].loss_after), m, g[i].values.mem_eff,
		    g[i].values.compute_eff, g[i].values.step_overhead_s * 1e6,
		    g[i].values.seq_overhead_s * 1e6);
		if (first_level(&g[i]))
			ib_buf_printf(out, "    comm-eff: %.4f\n", g[i].values.comm_eff);
	}
}

int slab_fit_group_rule(const slab_fit_group *g, ib_arena *a, sim_calib_rule *r)
{
	const char **fw = ib_arena_alloc(a, 2 * sizeof *fw),
	           **hw = ib_arena_alloc(a, 2 * sizeof *hw),
	           **pr = ib_arena_alloc(a, 2 * sizeof *pr),
	           **md = ib_arena_alloc(a, 2 * sizeof *md),
	           **vs = ib_arena_alloc(a, 2 * sizeof *vs);
	if (!fw || !hw || !pr || !md || !vs)
		return IB_ENOMEM;
	vs[0] = g->version;
	fw[0] = g->framework;
	hw[0] = g->gpu;
	pr[0] = g->precision;
	md[0] = g->model;
	fw[1] = hw[1] = pr[1] = md[1] = vs[1] = NULL;
	memset(r, 0, sizeof *r);
	r->match[0] = g->frameworks ? g->frameworks : g->framework ? fw : NULL;
	r->match[1] = g->gpu ? hw : NULL;
	r->match[2] = g->precision ? pr : NULL;
	r->match[3] = g->model ? md : NULL;
	r->match[5] = g->version ? vs : NULL;
	r->values = g->values;
	r->set = FITTED | (first_level(g) ? 1u << P_COMM : 0);
	return 0;
}

int slab_fit_append(const sim_calib_file *base, const slab_fit_group *g, size_t n, ib_arena *a,
                    sim_calib_file *out)
{
	size_t nb = base ? base->n : 0;
	sim_calib_rule *r = ib_arena_alloc(a, (nb + n + 1) * sizeof *r);
	if (!r)
		return IB_ENOMEM;
	if (nb)
		memcpy(r, base->rules, nb * sizeof *r);
	size_t k = nb;
	for (size_t i = 0; i < n; i++)
		if (g[i].fitted && slab_fit_group_rule(&g[i], a, &r[k++]))
			return IB_ENOMEM;
	*out = (sim_calib_file){.path = base ? base->path : NULL, .rules = r, .n = k};
	return 0;
}

int slab_calibrate(const slab_point *pts, size_t n, const sim_calib_file *base,
                   const char *base_name, int prompts, ib_arena *a,
                   slab_fit_group *gs[SLAB_FIT_NLEVELS], size_t ng[SLAB_FIT_NLEVELS], ib_buf *yaml,
                   sim_calib_file *fitted, ib_error *e)
{
	sim_calib_file lvl = base ? *base : (sim_calib_file){0};
	/* the levels, each on top of the previous: every row, framework,
	 * framework x GPU, x model, x framework version (where the rows name
	 * one); each but the first pulled towards the one before */
	static const int levels[SLAB_FIT_NLEVELS] = {
	    SLAB_LEVEL_ALL, SLAB_LEVEL_FW, SLAB_LEVEL_FW_GPU, SLAB_LEVEL_MODEL, SLAB_LEVEL_VERSION};
	const double ridge = SLAB_FIT_RIDGE;
	for (int l = 0; l < SLAB_FIT_NLEVELS; l++) {
		int rc = slab_fit(pts, n, lvl.n ? &lvl : NULL, prompts, ridge, levels[l], a, &gs[l],
		                  &ng[l], e);
		if (!rc && slab_fit_append(lvl.n ? &lvl : NULL, gs[l], ng[l], a, &lvl))
			rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		if (rc)
			return rc;
	}
	if (fitted)
		*fitted = lvl;
	bool named = base && base->n && base_name;
	int w = ib_buf_printf(
	    yaml,
	    "# Calibration of infbench sim's performance model (docs/sim.md \"Calibration\").\n"
	    "# Written by: infbench sim calibrate --points <points.tsv> --prompts-per-conc %d%s%s\n"
	    "# The first rule holds the uncalibrated defaults; each later rule was fitted to the\n"
	    "# published InferenceX measured points of one framework x GPU [x model [x version]] "
	    "(its note says how many)\n"
	    "# and is applied on top of the earlier ones.\n"
	    "rules:\n"
	    "  - note: uncalibrated defaults (docs/sim.md \"The performance model\")\n"
	    "    mem-eff: 0.8\n    compute-eff: 0.6\n    step-overhead-us: 300\n    "
	    "seq-overhead-us: 0\n"
	    "    comm-eff: 1.0\n    ep-imbalance: 1.0\n    draft-cost: 0.05\n",
	    prompts, named ? " --base " : "", named ? base_name : "");
	for (int l = 0; l < SLAB_FIT_NLEVELS; l++)
		slab_fit_rules(gs[l], ng[l], yaml);
	return w ? ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory") : 0;
}
