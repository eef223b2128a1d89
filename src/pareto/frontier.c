/* pareto/frontier.c — the dashboard's four Pareto frontier walks
 * (paretoFrontUpperLeft/UpperRight/LowerLeft/LowerRight), the chart's
 * eligibility filter and x re-sort (roofline), and the table's default order.
 * Sorts go through par_stable_sort (sort.c), V8's TimSort. */
#include "pareto/pareto.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const dir_names[] = {"upper_left", "upper_right", "lower_left", "lower_right",
                                        "none"};

bool par_dir_parse(const char *s, par_dir *out)
{
	for (int i = 0; i <= PAR_DIR_NONE; i++)
		if (s && !strcmp(s, dir_names[i])) {
			*out = (par_dir)i;
			return true;
		}
	return false;
}

const char *par_dir_name(par_dir d)
{
	return (unsigned)d <= PAR_DIR_NONE ? dir_names[d] : "none";
}

par_dir par_dir_flip_x(par_dir d)
{
	switch (d) {
	case PAR_DIR_UPPER_LEFT:
		return PAR_DIR_UPPER_RIGHT;
	case PAR_DIR_UPPER_RIGHT:
		return PAR_DIR_UPPER_LEFT;
	case PAR_DIR_LOWER_LEFT:
		return PAR_DIR_LOWER_RIGHT;
	case PAR_DIR_LOWER_RIGHT:
		return PAR_DIR_LOWER_LEFT;
	default:
		return d;
	}
}

/* JS comparator results are numbers: NaN behaves as 0 (equal). */
static double js_cmp_num(double r)
{
	return isnan(r) ? 0 : r;
}

/* paretoFront*'s comparators: `a.x === b.x ? <y order> : <x order>`; a NaN
 * difference counts as 0 (so NaN x never falls through to the y order). */
static double cmp_x_asc_y_desc(size_t a, size_t b, const void *ctx)
{
	const par_pt *p = ctx;
	if (p[a].x == p[b].x)
		return js_cmp_num(p[b].y - p[a].y);
	return js_cmp_num(p[a].x - p[b].x);
}

static double cmp_x_asc_y_asc(size_t a, size_t b, const void *ctx)
{
	const par_pt *p = ctx;
	if (p[a].x == p[b].x)
		return js_cmp_num(p[a].y - p[b].y);
	return js_cmp_num(p[a].x - p[b].x);
}

static double cmp_x_desc_y_asc(size_t a, size_t b, const void *ctx)
{
	const par_pt *p = ctx;
	if (p[a].x == p[b].x)
		return js_cmp_num(p[a].y - p[b].y);
	return js_cmp_num(p[b].x - p[a].x);
}

static double cmp_x_asc(size_t a, size_t b, const void *ctx)
{
	const par_pt *p = ctx;
	return js_cmp_num(p[a].x - p[b].x);
}

int par_pareto_front(par_dir d, const par_pt *p, size_t n, size_t *idx, size_t *nidx)
{
	*nidx = 0;
	if (d > PAR_DIR_LOWER_RIGHT)
		return IB_EINVAL;
	if (n == 0)
		return 0;
	size_t *s = malloc(n * sizeof *s);
	if (!s)
		return IB_ENOMEM;
	for (size_t i = 0; i < n; i++)
		s[i] = i;
	par_cmp_fn cmp = d == PAR_DIR_UPPER_LEFT || d == PAR_DIR_UPPER_RIGHT ? cmp_x_asc_y_desc
	                 : d == PAR_DIR_LOWER_LEFT                           ? cmp_x_asc_y_asc
	                                                                     : cmp_x_desc_y_asc;
	int rc = par_stable_sort(s, n, cmp, p);
	if (rc) {
		free(s);
		return rc;
	}
	size_t k = 0;
	if (d == PAR_DIR_UPPER_LEFT) {
		for (size_t i = 0; i < n; i++) {
			const par_pt *q = &p[s[i]];
			if (k > 0 && q->x == p[idx[k - 1]].x) {
				if (q->y > p[idx[k - 1]].y)
					idx[k - 1] = s[i];
				continue;
			}
			while (k > 0 && q->y >= p[idx[k - 1]].y)
				k--;
			idx[k++] = s[i];
		}
	} else if (d == PAR_DIR_UPPER_RIGHT) {
		double max_y = -INFINITY;
		for (size_t i = 0; i < n; i++) {
			const par_pt *q = &p[s[i]];
			bool ok =
			    q->y > max_y || (k > 0 && q->y == max_y && q->x > p[idx[k - 1]].x);
			if (!ok)
				continue;
			if (k > 0 && p[idx[k - 1]].x == q->x)
				idx[k - 1] = s[i];
			else
				idx[k++] = s[i];
			max_y = q->y;
		}
	} else {
		double min_y = INFINITY;
		for (size_t i = 0; i < n; i++) {
			const par_pt *q = &p[s[i]];
			if (q->y < min_y) {
				idx[k++] = s[i];
				min_y = q->y;
			}
		}
	}
	*nidx = k;
	free(s);
	return 0;
}

int par_roofline(par_dir d, const par_pt *p, size_t n, size_t *idx, size_t *nidx)
{
	*nidx = 0;
	if (d > PAR_DIR_LOWER_RIGHT)
		return IB_EINVAL;
	par_pt *e = malloc((n ? n : 1) * sizeof *e);
	size_t *map = malloc((n ? n : 1) * sizeof *map);
	size_t *fi = malloc((n ? n : 1) * sizeof *fi);
	int rc = IB_ENOMEM;
	if (!e || !map || !fi)
		goto fail;
	size_t ne = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(p[i].x) && p[i].x > 0) {
			map[ne] = i;
			e[ne++] = p[i];
		}
	size_t nf = 0;
	rc = par_pareto_front(d, e, ne, fi, &nf);
	if (rc)
		goto fail;
	rc = par_stable_sort(fi, nf, cmp_x_asc, e);
	if (rc)
		goto fail;
	for (size_t i = 0; i < nf; i++)
		idx[i] = map[fi[i]];
	*nidx = nf;
fail:
	free(e);
	free(map);
	free(fi);
	return rc;
}

static double cmp_y_asc(size_t a, size_t b, const void *ctx)
{
	const double *y = ctx;
	return js_cmp_num(y[a] - y[b]);
}

static double cmp_y_desc(size_t a, size_t b, const void *ctx)
{
	const double *y = ctx;
	return js_cmp_num(y[b] - y[a]);
}

int par_table_sort(const double *y, size_t n, par_dir dir, size_t *idx)
{
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	bool asc = dir == PAR_DIR_LOWER_LEFT || dir == PAR_DIR_LOWER_RIGHT;
	return par_stable_sort(idx, n, asc ? cmp_y_asc : cmp_y_desc, y);
}
