/* numpy's mean, population std and linear-interpolation percentiles. */
#include "bench/bench.h"

#include <math.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double bench_percentile(double *v, size_t n, double p)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, cmp);
	double rank = p / 100.0 * (double)(n - 1);
	size_t lo = (size_t)floor(rank), hi = (size_t)ceil(rank);
	if (hi >= n)
		hi = n - 1;
	double frac = rank - (double)lo;
	/* numpy's _lerp: a + (b - a) * t, switching ends for t >= 0.5 */
	double a = v[lo], b = v[hi];
	double diff = b - a;
	return frac >= 0.5 ? b - diff * (1 - frac) : a + diff * frac;
}

double bench_mean(const double *v, size_t n)
{
	if (n == 0)
		return 0;
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s / (double)n;
}

double bench_std(const double *v, size_t n)
{
	if (n == 0)
		return 0;
	double m = bench_mean(v, n), s = 0;
	for (size_t i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return sqrt(s / (double)n);
}
