/* report/chart.c — one scatter chart: rows grouped by series key, the
 * dashboard's drops (no metric, cost limit, latency limit), per-date
 * frontiers and the "Optimal Only" flags (ScatterGraph's rooflines,
 * groupPointsByDate and optimalPointKey; README 3.3). */
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *or_undef(const char *s)
{
	return s ? s : "undefined"; /* what a JS template prints for a missing field */
}

/* Equality of two numbers as their JS strings (the optimal-point key is
 * `${x}-${y}`): NaN equals NaN, 0 equals -0. */
static bool same_num(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

/* Index of s in v[0..n), or n. */
static size_t find_str(const char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return i;
	return n;
}

/* The frontier of one group of points (all of one date, or one overlay run):
 * indices into c->points appended to fr, parts into the series. */
static int group_front(rep_chart *c, par_dir dir, const size_t *members, size_t nm, size_t *fr,
                       size_t *nfr, par_pt *scratch, size_t *idx)
{
	for (size_t i = 0; i < nm; i++) {
		const rep_chart_point *p = &c->points[members[i]];
		scratch[i] = (par_pt){NULL, p->x, p->y};
	}
	size_t k;
	int rc = par_roofline(dir, scratch, nm, idx, &k);
	if (rc)
		return rc;
	for (size_t i = 0; i < k; i++)
		fr[(*nfr)++] = members[idx[i]];
	return 0;
}

static double cmp_point_x(size_t a, size_t b, const void *ctx)
{
	const rep_chart_point *p = ctx;
	double r = p[a].x - p[b].x;
	return isnan(r) ? 0 : r;
}

/* Frontier, paths and roof flags of series s. */
static int series_front(rep_chart *c, const rep_row *rows, size_t s, par_dir dir, size_t *buf,
                        const char **dates, par_pt *scratch, size_t *idx)
{
	rep_series *se = &c->series[s];
	size_t nm = 0;
	for (size_t i = 0; i < c->npoints; i++)
		if (c->points[i].series == s)
			buf[nm++] = i;
	size_t *members = buf, *grp = buf + c->npoints, *fr = buf + 2 * c->npoints;
	size_t nd = 0, nfr = 0;
	se->frontier = ib_arena_alloc(c->arena, (nm ? nm : 1) * sizeof *se->frontier);
	se->path_pts = ib_arena_alloc(c->arena, (nm ? nm : 1) * sizeof *se->path_pts);
	se->path_off = ib_arena_alloc(c->arena, (nm + 1) * sizeof *se->path_off);
	if (!se->frontier || !se->path_pts || !se->path_off)
		return IB_ENOMEM;
	se->path_off[0] = 0;
	bool overlay = se->overlay_run >= 0;
	if (!overlay)
		for (size_t i = 0; i < nm; i++) {
			const char *d = or_undef(rows[c->points[members[i]].row].date);
			if (find_str(dates, nd, d) == nd)
				dates[nd++] = d;
		}
	size_t ngroups = overlay ? 1 : nd;
	for (size_t g = 0; g < ngroups; g++) {
		size_t ng = 0;
		for (size_t i = 0; i < nm; i++)
			if (overlay ||
			    !strcmp(or_undef(rows[c->points[members[i]].row].date), dates[g]))
				grp[ng++] = members[i];
		size_t start = nfr;
		int rc = group_front(c, dir, grp, ng, fr, &nfr, scratch, idx);
		if (rc)
			return rc;
		size_t part = nfr - start;
		if (part >= 2) {
			size_t off = se->path_off[se->npaths];
			memcpy(se->path_pts + off, fr + start, part * sizeof *fr);
			se->path_off[++se->npaths] = off + part;
		}
		/* roof: official points equal (x, y) to a frontier point of the date;
		 * overlay points only when they are on the frontier themselves */
		for (size_t i = 0; i < ng; i++) {
			rep_chart_point *p = &c->points[grp[i]];
			for (size_t j = start; j < nfr && !p->roof; j++) {
				const rep_chart_point *q = &c->points[fr[j]];
				p->roof = overlay ? fr[j] == grp[i]
				                  : (same_num(q->x, p->x) && same_num(q->y, p->y));
			}
		}
	}
	memcpy(se->frontier, fr, nfr * sizeof *fr);
	se->nfrontier = nfr;
	return par_stable_sort(se->frontier, nfr, cmp_point_x, c->points);
}

/* The y value of row i, or false when the metric is absent. */
static bool point_y(const rep_chart *c, size_t i, rep_metric m, double *y)
{
	if (!c->metrics[i].has[m])
		return false;
	*y = c->metrics[i].v[m];
	return true;
}

static int add_series(rep_chart *c, const char *key, const char *hw, const char *prec, int run,
                      size_t *out)
{
	for (size_t s = 0; s < c->nseries; s++)
		if (!strcmp(c->series[s].key, key)) {
			*out = s;
			return 0;
		}
	rep_series *se = &c->series[c->nseries];
	memset(se, 0, sizeof *se);
	se->key = ib_arena_strdup(c->arena, key);
	se->hw_key = hw;
	se->precision = prec;
	se->overlay_run = run;
	if (!se->key)
		return IB_ENOMEM;
	*out = c->nseries++;
	return 0;
}

static int place_points(rep_chart *c, const rep_row *rows, size_t nrows, const rep_chart_opts *o,
                        int xf, char **keys)
{
	/* regroup by series key (hwKey) in first-appearance order */
	size_t nk = 0;
	const char **order = ib_arena_alloc(c->arena, (nrows ? nrows : 1) * sizeof *order);
	if (!order)
		return IB_ENOMEM;
	for (size_t i = 0; i < nrows; i++)
		if (find_str(order, nk, keys[i]) == nk)
			order[nk++] = keys[i];
	bool is_ttft =
	    strlen(o->x_field) >= 5 && !strcmp(o->x_field + strlen(o->x_field) - 5, "_ttft");
	bool clip = rep_metric_is_cost(o->metric) && !isnan(o->cost_limit);
	for (size_t k = 0; k < nk; k++)
		for (size_t i = 0; i < nrows; i++) {
			if (strcmp(keys[i], order[k]))
				continue;
			const rep_row *r = &rows[i];
			double y, x = r->has[xf] && !isnan(r->f[xf]) ? r->f[xf] : 0;
			const char *why = NULL;
			if (!point_y(c, i, o->metric, &y))
				why = "no-metric";
			else if (clip && y > o->cost_limit)
				why = "cost-limit";
			if (!why && is_ttft) {
				if (x <= 0)
					x = NAN;
				if (isnan(x) || x > o->latency_limit)
					why = "latency-limit";
			}
			if (why) {
				c->dropped[c->ndropped++] = (rep_dropped){i, why};
				continue;
			}
			const char *prec = or_undef(r->precision);
			char *skey = r->overlay_run >= 0
			                 ? ib_arena_printf(c->arena, "%s_%s_run%d", keys[i], prec,
			                                   r->overlay_run)
			                 : ib_arena_printf(c->arena, "%s_%s", keys[i], prec);
			size_t s;
			int rc = skey ? add_series(c, skey, keys[i], prec, r->overlay_run, &s)
			              : IB_ENOMEM;
			if (rc)
				return rc;
			c->points[c->npoints++] = (rep_chart_point){i, s, x, y, false};
		}
	return 0;
}

int rep_chart_series(const rep_row *rows, size_t nrows, const rep_chart_opts *o, rep_chart **out,
                     ib_error *e)
{
	*out = NULL;
	int xf = rep_field_lookup(o->x_field);
	if (xf < 0)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "unknown x field '%s'",
		               o->x_field ? o->x_field : "");
	if (o->dir > PAR_DIR_LOWER_RIGHT)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "the metric '%s' has no frontier direction",
		               rep_metric_name(o->metric));
	rep_chart *c = calloc(1, sizeof *c);
	size_t *buf = NULL, *idx = NULL;
	const char **dates = NULL;
	par_pt *scratch = NULL;
	int rc = IB_ENOMEM;
	if (!c || !(c->arena = ib_arena_new()))
		goto fail;
	size_t n1 = nrows ? nrows : 1;
	c->points = ib_arena_alloc(c->arena, n1 * sizeof *c->points);
	c->series = ib_arena_alloc(c->arena, n1 * sizeof *c->series);
	c->dropped = ib_arena_alloc(c->arena, n1 * sizeof *c->dropped);
	c->metrics = ib_arena_alloc(c->arena, n1 * sizeof *c->metrics);
	char **keys = ib_arena_alloc(c->arena, n1 * sizeof *keys);
	buf = malloc(3 * n1 * sizeof *buf);
	dates = malloc(n1 * sizeof *dates);
	idx = malloc(n1 * sizeof *idx);
	scratch = malloc(n1 * sizeof *scratch);
	if (!c->points || !c->series || !c->dropped || !c->metrics || !keys || !buf || !idx ||
	    !scratch || !dates)
		goto fail;
	for (size_t i = 0; i < nrows; i++) {
		char key[256];
		rep_derive_metrics(&rows[i], o->gpus, o->derive, &c->metrics[i], key, sizeof key,
		                   NULL, 0, NULL);
		if (!(keys[i] = ib_arena_strdup(c->arena, key)))
			goto fail;
	}
	rc = place_points(c, rows, nrows, o, xf, keys);
	for (size_t s = 0; s < c->nseries && !rc; s++)
		rc = series_front(c, rows, s, o->dir, buf, dates, scratch, idx);
	if (rc)
		goto fail;
	free(buf);
	free(dates);
	free(idx);
	free(scratch);
	*out = c;
	return 0;
fail:
	free(buf);
	free(dates);
	free(idx);
	free(scratch);
	rep_chart_free(c);
	return rc == IB_ENOMEM ? ib_fail(e, rc, "", 0, 0, "out of memory") : rc;
}

void rep_chart_free(rep_chart *c)
{
	if (!c)
		return;
	ib_arena_free(c->arena);
	free(c);
}
