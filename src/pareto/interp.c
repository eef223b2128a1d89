/* pareto/interp.c — values at a target on a GPU's throughput/interactivity
 * frontier: the calculator and compare pages (interpolateForGPU,
 * maxInteractivityAtCost), and the helpers of historical trends
 * (report/trend.c). README 3.7–3.9. */
#include "pareto/pareto.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool par_cost_provider_parse(const char *s, par_cost_provider *out)
{
	static const char *const names[] = {"costh", "costn", "costr"};
	for (int i = 0; i < 3; i++)
		if (s && !strcmp(s, names[i])) {
			*out = (par_cost_provider)i;
			return true;
		}
	return false;
}

bool par_tok_type_parse(const char *s, par_tok_type *out)
{
	static const char *const names[] = {"total", "input", "output"};
	for (int i = 0; i < 3; i++)
		if (s && !strcmp(s, names[i])) {
			*out = (par_tok_type)i;
			return true;
		}
	return false;
}

/* Math.max / Math.min of two numbers: NaN wins (C's fmax/fmin drop it). */
double par_js_max(double a, double b)
{
	return isnan(a) || isnan(b) ? NAN : fmax(a, b);
}

static double js_min(double a, double b)
{
	return isnan(a) || isnan(b) ? NAN : fmin(a, b);
}

/* The constant c of a metric defined as c / throughput (or, with ratio, as
 * c * throughput): every pair with both values > 0 must agree within 1e-3
 * relative with the first; false when none qualifies or they disagree. */
bool par_recover_constant(const double *vals, const double *tputs, size_t n, bool ratio,
                          double *out)
{
	bool have = false;
	double c = 0;
	for (size_t i = 0; i < n; i++) {
		double v = vals[i], t = tputs[i];
		if (!(v > 0) || !(t > 0))
			continue;
		double cand = ratio ? v / t : v * t;
		if (!have) {
			c = cand;
			have = true;
		} else if (fabs(cand - c) > fabs(c) * 1e-3) {
			return false;
		}
	}
	*out = c;
	return have;
}

double par_reciprocal_at(bool have, double c, double tput)
{
	if (!have || !(tput > 0))
		return 0;
	return c / tput;
}

/* Frontier (upper_left on x/y getters) of GPU points, x ascending: indices
 * into pts in fr, count returned through *nf. */
static int gpu_front(const par_gpu_point *pts, size_t n, bool swap, size_t *fr, size_t *nf)
{
	par_pt *p = malloc((n ? n : 1) * sizeof *p);
	if (!p)
		return IB_ENOMEM;
	for (size_t i = 0; i < n; i++)
		p[i] = swap ? (par_pt){pts[i].id, pts[i].throughput, pts[i].interactivity}
		            : (par_pt){pts[i].id, pts[i].interactivity, pts[i].throughput};
	int rc = par_pareto_front(PAR_DIR_UPPER_LEFT, p, n, fr, nf);
	free(p);
	return rc; /* upper_left output is already x ascending */
}

/* A spline over the frontier: xs fixed, ys loaded per metric. */
typedef struct {
	size_t n;
	double *xs, *ys, *m;
} spl;

static double spl_clamped(spl *s, double t)
{
	double lo = s->ys[0], hi = s->ys[0];
	for (size_t i = 1; i < s->n; i++) {
		if (s->ys[i] < lo)
			lo = s->ys[i];
		if (s->ys[i] > hi)
			hi = s->ys[i];
	}
	par_spline_slopes(s->xs, s->ys, s->n, s->m);
	double raw = par_spline_eval(s->xs, s->ys, s->m, s->n, t);
	/* Math.max(lo, Math.min(hi, raw)), NaN-propagating */
	if (isnan(raw) || isnan(lo) || isnan(hi))
		return NAN;
	return fmax(lo, fmin(hi, raw));
}

typedef double (*gp_get)(const par_gpu_point *p, const void *ctx);

static double spl_metric(spl *s, const par_gpu_point *pts, const size_t *fr, gp_get get,
                         const void *ctx, double t)
{
	for (size_t i = 0; i < s->n; i++)
		s->ys[i] = get(&pts[fr[i]], ctx);
	return spl_clamped(s, t);
}

static double g_tput(const par_gpu_point *p, const void *c)
{
	(void)c;
	return p->throughput;
}
static double g_intv(const par_gpu_point *p, const void *c)
{
	(void)c;
	return p->interactivity;
}
static double g_out(const par_gpu_point *p, const void *c)
{
	(void)c;
	return p->output_tput;
}
static double g_in(const par_gpu_point *p, const void *c)
{
	(void)c;
	return p->input_tput;
}
static double g_mw(const par_gpu_point *p, const void *c)
{
	(void)c;
	return p->tp_per_mw;
}
static double g_inmw(const par_gpu_point *p, const void *c)
{
	(void)c;
	return p->input_tp_per_mw;
}
static double g_outmw(const par_gpu_point *p, const void *c)
{
	(void)c;
	return p->output_tp_per_mw;
}
static double g_conc(const par_gpu_point *p, const void *c)
{
	(void)c;
	return p->concurrency;
}
static double g_chr(const par_gpu_point *p, const void *c)
{
	(void)c;
	return p->cache_hit_rate;
}
static double g_cost(const par_gpu_point *p, const void *c)
{
	return p->cost[*(const int *)c];
}

static double tput_of(const par_gpu_point *p, par_tok_type t)
{
	return t == PAR_TOK_INPUT    ? p->input_tput
	       : t == PAR_TOK_OUTPUT ? p->output_tput
	                             : p->throughput;
}

/* recoverCostRate: one rate over all three token types of the frontier. */
static bool cost_rate(const par_gpu_point *pts, const size_t *fr, size_t n, par_cost_provider prov,
                      double *rate)
{
	double *v = malloc((3 * n + 1) * sizeof *v), *t = malloc((3 * n + 1) * sizeof *t);
	bool ok = false;
	if (v && t) {
		static const par_tok_type order[3] = {PAR_TOK_TOTAL, PAR_TOK_OUTPUT, PAR_TOK_INPUT};
		for (int k = 0; k < 3; k++)
			for (size_t i = 0; i < n; i++) {
				v[k * n + i] = pts[fr[i]].cost[par_cost_index(prov, order[k])];
				t[k * n + i] = tput_of(&pts[fr[i]], order[k]);
			}
		ok = par_recover_constant(v, t, 3 * n, false, rate);
	}
	free(v);
	free(t);
	return ok;
}

static int spl_init(spl *s, size_t n)
{
	s->n = n;
	s->xs = malloc(n * sizeof *s->xs);
	s->ys = malloc(n * sizeof *s->ys);
	s->m = malloc(n * sizeof *s->m);
	return s->xs && s->ys && s->m ? 0 : IB_ENOMEM;
}

static void spl_free(spl *s)
{
	free(s->xs);
	free(s->ys);
	free(s->m);
}

int par_interpolate_for_gpu(const par_gpu_point *pts, size_t n, double target, par_interp_mode mode,
                            par_cost_provider prov, par_interp *out)
{
	memset(out, 0, sizeof *out);
	if (n == 0)
		return 0;
	bool swap = mode == PAR_MODE_THROUGHPUT_TO_INTERACTIVITY;
	size_t *fr = malloc(n * sizeof *fr), nf = 0;
	spl s = {0};
	int rc = fr ? gpu_front(pts, n, swap, fr, &nf) : IB_ENOMEM;
	if (rc || nf == 0)
		goto done;
	out->hw_key = pts[0].hw_key;
	gp_get gx = swap ? g_tput : g_intv, gy = swap ? g_intv : g_tput;
	double minx = gx(&pts[fr[0]], NULL), maxx = gx(&pts[fr[nf - 1]], NULL);
	double ct = par_js_max(minx, js_min(maxx, target));
	out->clamped_below = target < minx;
	out->clamped_above = target > maxx;
	out->clamped = out->clamped_below || out->clamped_above;
	int ci[3] = {par_cost_index(prov, PAR_TOK_TOTAL), par_cost_index(prov, PAR_TOK_INPUT),
	             par_cost_index(prov, PAR_TOK_OUTPUT)};
	if (nf == 1) {
		const par_gpu_point *p = &pts[fr[0]];
		out->value = gy(p, NULL);
		out->output_tput = p->output_tput;
		out->input_tput = p->input_tput;
		out->cost = p->cost[ci[0]];
		out->cost_input = p->cost[ci[1]];
		out->cost_output = p->cost[ci[2]];
		out->tp_per_mw = p->tp_per_mw;
		out->input_tp_per_mw = p->input_tp_per_mw;
		out->output_tp_per_mw = p->output_tp_per_mw;
		out->has_cache_hit_rate = p->has_cache_hit_rate;
		out->cache_hit_rate = p->cache_hit_rate;
		out->concurrency = p->concurrency;
		out->nearest[0] = fr[0];
		out->nnearest = 1;
		rc = 1;
		goto done;
	}
	if ((rc = spl_init(&s, nf)))
		goto done;
	for (size_t i = 0; i < nf; i++)
		s.xs[i] = gx(&pts[fr[i]], NULL);
	out->value = spl_metric(&s, pts, fr, gy, NULL, ct);
	out->output_tput = spl_metric(&s, pts, fr, g_out, NULL, ct);
	out->input_tput = spl_metric(&s, pts, fr, g_in, NULL, ct);
	double total_at = swap ? ct : out->value, rate;
	if (cost_rate(pts, fr, nf, prov, &rate)) {
		out->cost = par_reciprocal_at(true, rate, total_at);
		out->cost_input = par_reciprocal_at(true, rate, out->input_tput);
		out->cost_output = par_reciprocal_at(true, rate, out->output_tput);
	} else {
		out->cost = spl_metric(&s, pts, fr, g_cost, &ci[0], ct);
		out->cost_input = spl_metric(&s, pts, fr, g_cost, &ci[1], ct);
		out->cost_output = spl_metric(&s, pts, fr, g_cost, &ci[2], ct);
	}
	out->tp_per_mw = spl_metric(&s, pts, fr, g_mw, NULL, ct);
	out->input_tp_per_mw = spl_metric(&s, pts, fr, g_inmw, NULL, ct);
	out->output_tp_per_mw = spl_metric(&s, pts, fr, g_outmw, NULL, ct);
	out->concurrency = par_js_round(spl_metric(&s, pts, fr, g_conc, NULL, ct));
	out->has_cache_hit_rate = true;
	for (size_t i = 0; i < nf; i++)
		if (!pts[fr[i]].has_cache_hit_rate)
			out->has_cache_hit_rate = false;
	if (out->has_cache_hit_rate)
		out->cache_hit_rate = spl_metric(&s, pts, fr, g_chr, NULL, ct);
	if (ct <= minx) {
		out->nearest[0] = fr[0];
		out->nnearest = 1;
	} else if (ct >= maxx) {
		out->nearest[0] = fr[nf - 1];
		out->nnearest = 1;
	} else {
		size_t lo = 0;
		for (size_t i = 0; i + 1 < nf; i++)
			if (s.xs[i] <= ct)
				lo = i;
		out->nearest[0] = fr[lo];
		out->nearest[1] = fr[lo + 1];
		out->nnearest = 2;
	}
	rc = 1;
done:
	spl_free(&s);
	free(fr);
	return rc;
}

/* The cost curve of maxInteractivityAtCost: the splined throughput of the
 * token type turned into cost by the rate, or the splined cost itself. */
typedef struct {
	spl s;
	bool have_rate;
	double rate, lo, hi;
} cost_curve;

static double cost_at(const cost_curve *c, double x)
{
	double raw = par_spline_eval(c->s.xs, c->s.ys, c->s.m, c->s.n, x);
	double v = par_js_max(c->lo, js_min(c->hi, raw));
	return c->have_rate ? par_reciprocal_at(true, c->rate, v) : v;
}

int par_max_interactivity_at_cost(const par_gpu_point *pts, size_t n, double target_cost,
                                  par_cost_provider prov, par_tok_type type, double *out)
{
	if (n == 0 || target_cost <= 0)
		return 0;
	size_t *fr = malloc(n * sizeof *fr), nf = 0;
	cost_curve c = {0};
	int rc = fr ? gpu_front(pts, n, false, fr, &nf) : IB_ENOMEM;
	int ci = par_cost_index(prov, type);
	if (rc || nf == 0)
		goto done;
	if (nf == 1) {
		if (pts[fr[0]].cost[ci] <= target_cost) {
			*out = pts[fr[0]].interactivity;
			rc = 1;
		}
		goto done;
	}
	if ((rc = spl_init(&c.s, nf)))
		goto done;
	c.have_rate = cost_rate(pts, fr, nf, prov, &c.rate);
	for (size_t i = 0; i < nf; i++) {
		c.s.xs[i] = pts[fr[i]].interactivity;
		c.s.ys[i] = c.have_rate ? tput_of(&pts[fr[i]], type) : pts[fr[i]].cost[ci];
	}
	c.lo = c.hi = c.s.ys[0];
	for (size_t i = 1; i < nf; i++) {
		/* Math.min(...ys) / Math.max(...ys) propagate NaN */
		if (isnan(c.s.ys[i]) || isnan(c.lo))
			c.lo = c.hi = NAN;
		else {
			c.lo = fmin(c.lo, c.s.ys[i]);
			c.hi = fmax(c.hi, c.s.ys[i]);
		}
	}
	par_spline_slopes(c.s.xs, c.s.ys, nf, c.s.m);
	double minx = c.s.xs[0], maxx = c.s.xs[nf - 1];
	if (cost_at(&c, maxx) <= target_cost) {
		*out = maxx;
		rc = 1;
		goto done;
	}
	const int steps = 512;
	double step = (maxx - minx) / steps, below = -1;
	for (int i = steps - 1; i >= 0; i--) {
		double x = minx + i * step;
		if (cost_at(&c, x) <= target_cost) {
			below = x;
			break;
		}
	}
	if (below < 0)
		goto done;
	double lo = below, hi = js_min(below + step, maxx);
	for (int it = 0; it < 40; it++) {
		double mid = (lo + hi) / 2;
		if (cost_at(&c, mid) <= target_cost)
			lo = mid;
		else
			hi = mid;
	}
	*out = lo;
	rc = 1;
done:
	spl_free(&c.s);
	free(fr);
	return rc;
}

int par_throughput_at(const double *inter, const double *tput, const double *conc, size_t n,
                      double target, par_interp *out)
{
	memset(out, 0, sizeof *out);
	if (n == 0)
		return 0;
	par_gpu_point *p = calloc(n, sizeof *p);
	if (!p)
		return IB_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		p[i].hw_key = "sim";
		p[i].interactivity = inter[i];
		p[i].throughput = tput[i];
		p[i].concurrency = conc ? conc[i] : 0;
	}
	int rc = par_interpolate_for_gpu(p, n, target, PAR_MODE_INTERACTIVITY_TO_THROUGHPUT,
	                                 PAR_COST_H, out);
	out->hw_key = NULL; /* borrowed from p, freed below */
	free(p);
	return rc;
}
