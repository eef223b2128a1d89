/* pareto/spline.c — Steffen's monotone cubic (the calculator's monotoneSlopes
 * and hermiteInterpolate) and the SVG path of d3.curveMonotoneX. */
#include "pareto/pareto.h"

#include <math.h>
#include <stdlib.h>

static double sgn(double v)
{
	return v < 0 ? -1 : 1;
}

void par_spline_slopes(const double *xs, const double *ys, size_t n, double *m)
{
	if (n < 2) {
		for (size_t i = 0; i < n; i++)
			m[i] = 0;
		return;
	}
	/* secants s_i and widths h_i over n-1 intervals */
	for (size_t i = 1; i + 1 < n; i++) {
		double h0 = xs[i] - xs[i - 1], h1 = xs[i + 1] - xs[i];
		double s0 = h0 == 0 ? 0 : (ys[i] - ys[i - 1]) / h0;
		double s1 = h1 == 0 ? 0 : (ys[i + 1] - ys[i]) / h1;
		double p = (s0 * h1 + s1 * h0) / (h0 + h1);
		double v = (sgn(s0) + sgn(s1)) * fmin(fmin(fabs(s0), fabs(s1)), 0.5 * fabs(p));
		/* Math.min propagates NaN, fmin does not */
		if (isnan(s0) || isnan(s1) || isnan(p))
			v = NAN;
		m[i] = isnan(v) ? 0 : v;
	}
	double h0 = xs[1] - xs[0];
	double s0 = h0 == 0 ? 0 : (ys[1] - ys[0]) / h0;
	double hl = xs[n - 1] - xs[n - 2];
	double sl = hl == 0 ? 0 : (ys[n - 1] - ys[n - 2]) / hl;
	if (n == 2) {
		/* m_1 is still 0 when m_0 is computed (interior first, then ends) */
		m[0] = h0 != 0 ? (3 * s0 - 0) / 2 : 0;
		m[1] = hl != 0 ? (3 * sl - m[0]) / 2 : m[0];
		return;
	}
	m[0] = h0 != 0 ? (3 * s0 - m[1]) / 2 : m[1];
	m[n - 1] = hl != 0 ? (3 * sl - m[n - 2]) / 2 : m[n - 2];
}

double par_spline_eval(const double *xs, const double *ys, const double *m, size_t n, double t)
{
	if (n == 0)
		return 0;
	if (n == 1)
		return ys[0];
	if (t <= xs[0])
		return ys[0];
	if (t >= xs[n - 1])
		return ys[n - 1];
	size_t lo = 0, hi = n - 1;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) >> 1;
		if (xs[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	double h = xs[hi] - xs[lo];
	if (h == 0)
		return ys[lo];
	double u = (t - xs[lo]) / h, u2 = u * u, u3 = u2 * u;
	return ys[lo] * (2 * u3 - 3 * u2 + 1) + h * m[lo] * (u3 - 2 * u2 + u) +
	       ys[hi] * (-2 * u3 + 3 * u2) + h * m[hi] * (u3 - u2);
}

double par_spline_at(const double *xs, const double *ys, size_t n, double t)
{
	double *m = malloc((n ? n : 1) * sizeof *m);
	if (!m)
		return NAN;
	par_spline_slopes(xs, ys, n, m);
	double v = par_spline_eval(xs, ys, m, n, t);
	free(m);
	return v;
}

/* ---- d3.curveMonotoneX ---- */

static int put_num(ib_buf *b, double v)
{
	char s[64];
	par_js_num(par_js_round(v * 1000) / 1000, s, sizeof s);
	return ib_buf_puts(b, s);
}

static int put_pt(ib_buf *b, char cmd, double x, double y)
{
	int rc = ib_buf_putc(b, cmd);
	rc = rc ? rc : put_num(b, x);
	rc = rc ? rc : ib_buf_putc(b, ',');
	return rc ? rc : put_num(b, y);
}

/* d3-shape's monotone helpers: slope3 is the Steffen interior slope with
 * the (h0 || h1 < 0 && -0) guard, slope2 the one-sided end slope. */
static double d3_sign(double v)
{
	return v < 0 ? -1 : 1;
}

static double slope3(double x0, double y0, double x1, double y1, double x2, double y2)
{
	double h0 = x1 - x0, h1 = x2 - x1;
	double s0 = (y1 - y0) / (h0 != 0 ? h0 : (h1 < 0 ? -0.0 : 0.0));
	double s1 = (y2 - y1) / (h1 != 0 ? h1 : (h0 < 0 ? -0.0 : 0.0));
	double p = (s0 * h1 + s1 * h0) / (h0 + h1);
	double r = (d3_sign(s0) + d3_sign(s1)) * fmin(fmin(fabs(s0), fabs(s1)), 0.5 * fabs(p));
	if (isnan(s0) || isnan(s1) || isnan(p) || isnan(r))
		return 0;
	return r;
}

static double slope2(double x0, double y0, double x1, double y1, double t)
{
	double h = x1 - x0;
	return h != 0 ? (3 * (y1 - y0) / h - t) / 2 : t;
}

static int bezier(ib_buf *b, double x0, double y0, double x1, double y1, double t0, double t1)
{
	double dx = (x1 - x0) / 3;
	int rc = put_pt(b, 'C', x0 + dx, y0 + dx * t0);
	rc = rc ? rc : ib_buf_putc(b, ',');
	rc = rc ? rc : put_num(b, x1 - dx);
	rc = rc ? rc : ib_buf_putc(b, ',');
	rc = rc ? rc : put_num(b, y1 - dx * t1);
	rc = rc ? rc : ib_buf_putc(b, ',');
	rc = rc ? rc : put_num(b, x1);
	rc = rc ? rc : ib_buf_putc(b, ',');
	return rc ? rc : put_num(b, y1);
}

/* The MonotoneX state machine of d3-shape 3.2.0, point by point. */
int par_monotone_path(const par_pt *pts, size_t n, ib_buf *out)
{
	if (n == 0)
		return 0;
	int state = 0, rc = 0;
	double x0 = NAN, y0 = NAN, x1 = NAN, y1 = NAN, t0 = NAN;
	for (size_t i = 0; i < n && !rc; i++) {
		double x = pts[i].x, y = pts[i].y, t1 = NAN;
		if (x == x1 && y == y1)
			continue; /* ignore coincident points */
		switch (state) {
		case 0:
			state = 1;
			rc = put_pt(out, 'M', x, y);
			break;
		case 1:
			state = 2;
			break;
		case 2:
			state = 3;
			t1 = slope3(x0, y0, x1, y1, x, y);
			rc = bezier(out, x0, y0, x1, y1, slope2(x0, y0, x1, y1, t1), t1);
			break;
		default:
			t1 = slope3(x0, y0, x1, y1, x, y);
			rc = bezier(out, x0, y0, x1, y1, t0, t1);
			break;
		}
		x0 = x1;
		x1 = x;
		y0 = y1;
		y1 = y;
		t0 = t1;
	}
	if (rc)
		return rc;
	switch (state) {
	case 1:
		/* lineEnd of a single point: closePath after moveTo */
		return ib_buf_putc(out, 'Z');
	case 2:
		return put_pt(out, 'L', x1, y1);
	case 3:
		return bezier(out, x0, y0, x1, y1, t0, slope2(x0, y0, x1, y1, t0));
	default:
		return 0;
	}
}
