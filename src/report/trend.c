/* report/trend.c — historical trends: a derived metric at a target
 * interactivity on each date's frontier (interpolateMetricAtInteractivity,
 * README 3.9), on pareto/'s frontier and spline. */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>

/* ---- historical trends ---- */

/* The throughput a metric is proportional to (tokens per $/¥/calorie), or -1. */
static int proportional_of(rep_metric m)
{
	if (m >= REP_M_TOKENS_PER_DOLLAR_H && m <= REP_M_INPUT_TOKENS_PER_RMB_R) {
		int fam = ((int)m - REP_M_TOKENS_PER_DOLLAR_H) / 3 % 3; /* total, output, input */
		return fam == 0   ? REP_M_TP_PER_GPU
		       : fam == 1 ? REP_M_OUTPUT_TPUT_PER_GPU
		                  : REP_M_INPUT_TPUT_PER_GPU;
	}
	if (m == REP_M_TOKENS_PER_CALORIE || m == REP_M_TOKENS_PER_BIG_MAC)
		return REP_M_TP_PER_GPU;
	return -1;
}

/* The throughput a metric is the reciprocal of (costs, J/token), or -1. */
static int reciprocal_of(rep_metric m)
{
	if (m >= REP_M_COSTH && m <= REP_M_COSTR)
		return REP_M_TP_PER_GPU;
	if (m >= REP_M_COSTH_OUTPUT && m <= REP_M_COSTR_OUTPUT)
		return REP_M_OUTPUT_TPUT_PER_GPU;
	if (m >= REP_M_COSTHI && m <= REP_M_COSTRI)
		return REP_M_INPUT_TPUT_PER_GPU;
	if (m == REP_M_J_TOTAL)
		return REP_M_TP_PER_GPU;
	if (m == REP_M_J_OUTPUT)
		return REP_M_OUTPUT_TPUT_PER_GPU;
	if (m == REP_M_J_INPUT)
		return REP_M_INPUT_TPUT_PER_GPU;
	return -1;
}

static bool trend_value(const rep_trend_point *pts, const size_t *fr, size_t nf, rep_metric metric,
                        double target, double *xs, double *ys, double *ts, double *m, double *out)
{
	int prop = proportional_of(metric), recip = reciprocal_of(metric);
	for (size_t i = 0; i < nf; i++) {
		const rep_metrics *mm = pts[fr[i]].m;
		if (!mm->has[metric])
			return false;
		xs[i] = pts[fr[i]].x;
		ys[i] = mm->v[metric];
	}
	if (prop >= 0) {
		for (size_t i = 0; i < nf; i++)
			ts[i] = pts[fr[i]].m->v[prop];
		double k;
		if (par_recover_constant(ys, ts, nf, true, &k)) {
			par_spline_slopes(xs, ts, nf, m);
			double t = par_spline_eval(xs, ts, m, nf, target);
			*out = par_js_max(0, t) * k;
			return true;
		}
	}
	if (recip >= 0) {
		for (size_t i = 0; i < nf; i++) {
			if (!pts[fr[i]].m->has[recip])
				return false;
			ts[i] = pts[fr[i]].m->v[recip];
		}
		double c;
		if (par_recover_constant(ys, ts, nf, false, &c)) {
			par_spline_slopes(xs, ts, nf, m);
			double t = par_spline_eval(xs, ts, m, nf, target);
			*out = par_reciprocal_at(true, c, par_js_max(0, t));
			return true;
		}
	}
	par_spline_slopes(xs, ys, nf, m);
	double v = par_spline_eval(xs, ys, m, nf, target);
	*out = par_js_max(0, v);
	return true;
}

int rep_interpolate_trend(const rep_trend_point *pts, size_t n, rep_metric metric, double target,
                          double *out)
{
	if (n == 0)
		return 0;
	int prop = proportional_of(metric);
	rep_metric fkey = prop >= 0 ? (rep_metric)prop : REP_M_TP_PER_GPU;
	for (size_t i = 0; i < n; i++)
		if (!pts[i].m || !pts[i].m->has[fkey])
			return 0;
	par_pt *p = malloc(n * sizeof *p);
	size_t *fr = malloc(n * sizeof *fr), nf = 0;
	double *w = malloc(4 * n * sizeof *w);
	int rc = IB_ENOMEM;
	if (!p || !fr || !w)
		goto done;
	for (size_t i = 0; i < n; i++)
		p[i] = (par_pt){pts[i].id, pts[i].x, pts[i].m->v[fkey]};
	rc = par_pareto_front(PAR_DIR_UPPER_LEFT, p, n, fr, &nf);
	if (rc || nf == 0)
		goto done;
	double minx = pts[fr[0]].x, maxx = pts[fr[nf - 1]].x;
	if (target < minx || target > maxx)
		goto done;
	if (nf == 1) {
		if (fabs(target - minx) < 1e-6 && pts[fr[0]].m->has[metric]) {
			*out = pts[fr[0]].m->v[metric];
			rc = 1;
		}
		goto done;
	}
	rc = trend_value(pts, fr, nf, metric, target, w, w + n, w + 2 * n, w + 3 * n, out) ? 1 : 0;
done:
	free(p);
	free(fr);
	free(w);
	return rc;
}
