/* report/axes.c — d3-array 3.2.4 ticks / tickIncrement, d3-scale 4.0.2
 * linear and log nice() and ticks(), and the scatter chart's domain rules
 * (README 3.12 scatter_axes, linear_nice_ticks). */
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* +("1e" + x): an exact power of ten for integer x. */
static double pow10i(double x)
{
	if (!isfinite(x))
		return x < 0 ? 0 : x;
	char s[32];
	snprintf(s, sizeof s, "1e%d", (int)x);
	return strtod(s, NULL);
}

static void tick_spec(double start, double stop, double count, double *i1, double *i2, double *inc)
{
	const double e10 = sqrt(50), e5 = sqrt(10), e2 = sqrt(2);
	double step = (stop - start) / fmax(0, count);
	double power = floor(log10(step));
	double error = step / pow(10, power);
	double factor = error >= e10 ? 10 : error >= e5 ? 5 : error >= e2 ? 2 : 1;
	if (power < 0) {
		*inc = pow(10, -power) / factor;
		*i1 = par_js_round(start * *inc);
		*i2 = par_js_round(stop * *inc);
		if (*i1 / *inc < start)
			++*i1;
		if (*i2 / *inc > stop)
			--*i2;
		*inc = -*inc;
	} else {
		*inc = pow(10, power) * factor;
		*i1 = par_js_round(start / *inc);
		*i2 = par_js_round(stop / *inc);
		if (*i1 * *inc < start)
			++*i1;
		if (*i2 * *inc > stop)
			--*i2;
	}
	if (*i2 < *i1 && 0.5 <= count && count < 2)
		tick_spec(start, stop, count * 2, i1, i2, inc);
}

static double tick_increment(double start, double stop, double count)
{
	double i1, i2, inc;
	tick_spec(start, stop, count, &i1, &i2, &inc);
	return inc;
}

size_t rep_ticks(double start, double stop, int count, double *ticks, size_t cap)
{
	if (!(count > 0) || cap == 0)
		return 0;
	if (start == stop) {
		ticks[0] = start;
		return 1;
	}
	bool reverse = stop < start;
	double i1, i2, inc;
	if (reverse)
		tick_spec(stop, start, count, &i1, &i2, &inc);
	else
		tick_spec(start, stop, count, &i1, &i2, &inc);
	if (!(i2 >= i1))
		return 0;
	double n = i2 - i1 + 1;
	size_t k = 0;
	for (double i = 0; i < n && k < cap; ++i) {
		double j = reverse ? i2 - i : i1 + i;
		ticks[k++] = inc < 0 ? j / -inc : j * inc;
	}
	return k;
}

void rep_nice(double *lo, double *hi, int count)
{
	double d0 = *lo, d1 = *hi;
	bool swapped = d1 < d0;
	double start = swapped ? d1 : d0, stop = swapped ? d0 : d1;
	double prestep = NAN, step;
	for (int iter = 0; iter < 10; iter++) {
		step = tick_increment(start, stop, count);
		if (step == prestep) {
			*lo = swapped ? stop : start;
			*hi = swapped ? start : stop;
			return;
		} else if (step > 0) {
			start = floor(start / step) * step;
			stop = ceil(stop / step) * step;
		} else if (step < 0) {
			start = ceil(start * step) / step;
			stop = floor(stop * step) / step;
		} else {
			break;
		}
		prestep = step;
	}
	/* d3-scale 4.0.2 leaves the domain untouched when the loop does not settle */
}

void rep_log_nice(double *lo, double *hi)
{
	bool swapped = *hi < *lo;
	double x0 = swapped ? *hi : *lo, x1 = swapped ? *lo : *hi;
	x0 = pow10i(floor(log10(x0)));
	x1 = pow10i(ceil(log10(x1)));
	*lo = swapped ? x1 : x0;
	*hi = swapped ? x0 : x1;
}

size_t rep_log_ticks(double lo, double hi, int count, double *ticks, size_t cap)
{
	double u = lo, v = hi;
	bool r = v < u;
	if (r) {
		double t = u;
		u = v;
		v = t;
	}
	double i = log10(u), j = log10(v);
	int n = count;
	size_t k = 0;
	if (j - i < n) {
		i = floor(i);
		j = ceil(j);
		if (u > 0) {
			for (; i <= j; ++i)
				for (int m = 1; m < 10; ++m) {
					double t = i < 0 ? m / pow10i(-i) : m * pow10i(i);
					if (t < u)
						continue;
					if (t > v)
						break;
					if (k < cap)
						ticks[k++] = t;
				}
		} else {
			for (; i <= j; ++i)
				for (int m = 9; m >= 1; --m) {
					double t = i > 0 ? m / pow10i(-i) : m * pow10i(i);
					if (t < u)
						continue;
					if (t > v)
						break;
					if (k < cap)
						ticks[k++] = t;
				}
		}
		if (k * 2 < (size_t)(n > 0 ? n : 0))
			k = rep_ticks(u, v, n, ticks, cap);
	} else {
		double c = fmin(j - i, n);
		k = rep_ticks(i, j, (int)c, ticks, cap);
		for (size_t q = 0; q < k; q++)
			ticks[q] = pow10i(ticks[q]);
	}
	if (r)
		for (size_t a = 0, b = k ? k - 1 : 0; a < b; a++, b--) {
			double t = ticks[a];
			ticks[a] = ticks[b];
			ticks[b] = t;
		}
	return k;
}

/* d3.extent over finite-or-not numbers, ignoring NaN. */
static bool extent(const par_pt *p, size_t n, bool y, double *lo, double *hi)
{
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		double v = y ? p[i].y : p[i].x;
		if (isnan(v))
			continue;
		if (!any) {
			*lo = *hi = v;
			any = true;
		} else {
			if (v < *lo)
				*lo = v;
			if (v > *hi)
				*hi = v;
		}
	}
	return any;
}

static void finish_axis(rep_axis *a)
{
	a->nice[0] = a->domain[0];
	a->nice[1] = a->domain[1];
	size_t cap = sizeof a->ticks / sizeof a->ticks[0];
	if (a->log) {
		rep_log_nice(&a->nice[0], &a->nice[1]);
		a->nticks = rep_log_ticks(a->nice[0], a->nice[1], 10, a->ticks, cap);
	} else {
		rep_nice(&a->nice[0], &a->nice[1], 10);
		a->nticks = rep_ticks(a->nice[0], a->nice[1], 10, a->ticks, cap);
	}
}

void rep_scatter_axes(const par_pt *pts, size_t n, const rep_axes_opts *o, rep_axis *x, rep_axis *y)
{
	double x0 = 0, x1 = 100, y0 = 0, y1 = 100;
	if (n > 0) {
		extent(pts, n, false, &x0, &x1);
		extent(pts, n, true, &y0, &y1);
	}
	bool xlog = false;
	if (o->is_input_tput_metric) {
		const char *st = o->scale_type ? o->scale_type : "auto";
		if (!strcmp(st, "log"))
			xlog = x0 > 0;
		else if (!strcmp(st, "linear"))
			xlog = false;
		else
			xlog = o->x_is_ttft && x0 > 0 && x1 / x0 > 10;
	}
	x->log = xlog;
	x->domain[0] = xlog ? x0 * 0.9 : 0;
	x->domain[1] = x1 * 1.05;
	bool ylog = !o->is_input_tput_metric && o->log_y;
	y->log = ylog;
	if (ylog)
		y->domain[0] = y0 <= 0 ? 0.1 : y0 < 1 ? pow(10, floor(log10(y0))) : y0 * 0.95;
	else
		y->domain[0] = fmax(0, y0 - (y1 - y0) * 0.05);
	y->domain[1] = y1 * 1.05;
	finish_axis(x);
	finish_axis(y);
}
