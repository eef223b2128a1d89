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

/* A total order on (x, y) whose equality is that of the numbers' JS strings
 * (the optimal-point key is `${x}-${y}`): NaN equals NaN (after the
 * numbers), 0 equals -0. */
static int cmp_num(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return (a > b) - (a < b);
}

static int cmp_xy(const void *x, const void *y)
{
	const par_pt *a = x, *b = y;
	int c = cmp_num(a->x, b->x);
	return c ? c : cmp_num(a->y, b->y);
}

/* Frontier, paths and roof flags of series s, whose points are
 * members[0..nm) in point order. work holds 3 * nm entries, dates nm. */
static int series_front(rep_chart *c, const rep_row *rows, size_t s, par_dir dir,
                        const size_t *members, size_t nm, size_t *work, const char **dates,
                        par_pt *scratch, size_t *idx)
{
	rep_series *se = &c->series[s];
	size_t *fr = work, *did = work + nm, *nd_off = NULL, *by_date = NULL;
	size_t nd = 1, nfr = 0;
	se->frontier = ib_arena_alloc(c->arena, (nm ? nm : 1) * sizeof *se->frontier);
	se->path_pts = ib_arena_alloc(c->arena, (nm ? nm : 1) * sizeof *se->path_pts);
	se->path_off = ib_arena_alloc(c->arena, (nm + 1) * sizeof *se->path_off);
	if (!se->frontier || !se->path_pts || !se->path_off)
		return IB_ENOMEM;
	se->path_off[0] = 0;
	bool overlay = se->overlay_run >= 0;
	/* official points: one group per date, in order of first appearance;
	 * an overlay run: one group */
	for (size_t i = 0; i < nm; i++) {
		dates[i] = overlay ? "" : or_undef(rows[c->points[members[i]].row].date);
		did[i] = 0;
	}
	int rc = overlay ? 0 : rep_first_seen_ids(dates, nm, did, &nd);
	if (!rc)
		rc = rep_bucket_ids(did, nm, nd, &nd_off, &by_date);
	for (size_t g = 0; !rc && g < nd; g++) {
		size_t ng = nd_off[g + 1] - nd_off[g], *grp = work + 2 * nm;
		for (size_t i = 0; i < ng; i++)
			grp[i] = members[by_date[nd_off[g] + i]];
		size_t start = nfr;
		rc = group_front(c, dir, grp, ng, fr, &nfr, scratch, idx);
		if (rc)
			break;
		size_t part = nfr - start;
		if (part >= 2) {
			size_t off = se->path_off[se->npaths];
			memcpy(se->path_pts + off, fr + start, part * sizeof *fr);
			se->path_off[++se->npaths] = off + part;
		}
		/* roof: official points equal (x, y) to a frontier point of the date;
		 * overlay points only when they are on the frontier themselves */
		if (overlay) {
			for (size_t j = start; j < nfr; j++)
				c->points[fr[j]].roof = true;
			continue;
		}
		for (size_t j = 0; j < part; j++) {
			const rep_chart_point *q = &c->points[fr[start + j]];
			scratch[j] = (par_pt){NULL, q->x, q->y};
		}
		qsort(scratch, part, sizeof *scratch, cmp_xy);
		for (size_t i = 0; i < ng; i++) {
			rep_chart_point *p = &c->points[grp[i]];
			par_pt key = {NULL, p->x, p->y};
			p->roof = part && bsearch(&key, scratch, part, sizeof *scratch, cmp_xy);
		}
	}
	free(nd_off);
	free(by_date);
	if (rc)
		return rc;
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

/* The dashboard's drop of row i from the chart, or NULL; *x gets its x. */
static const char *drop_reason(const rep_chart *c, const rep_row *r, size_t i,
                               const rep_chart_opts *o, int xf, bool is_ttft, bool clip, double *x,
                               double *y)
{
	*x = r->has[xf] && !isnan(r->f[xf]) ? r->f[xf] : 0;
	if (!point_y(c, i, o->metric, y))
		return "no-metric";
	if (clip && *y > o->cost_limit)
		return "cost-limit";
	if (is_ttft) {
		if (*x <= 0)
			*x = NAN;
		if (isnan(*x) || *x > o->latency_limit)
			return "latency-limit";
	}
	return NULL;
}

/* Points regrouped by series key (hwKey) in first-appearance order, then row
 * order; series in order of first appearance among the points. work holds
 * 2 * nrows entries. */
static int place_points(rep_chart *c, const rep_row *rows, size_t nrows, const rep_chart_opts *o,
                        int xf, char *const *keys, char *const *row_skeys, size_t *work)
{
	size_t nk = 0, ns = 0, *kid = work, *sid = work + nrows, *off = NULL, *order = NULL;
	const char **skeys = malloc((nrows ? nrows : 1) * sizeof *skeys);
	int rc = skeys ? rep_group_keys((const char *const *)keys, nrows, kid, &nk, &off, &order)
	               : IB_ENOMEM;
	bool is_ttft =
	    strlen(o->x_field) >= 5 && !strcmp(o->x_field + strlen(o->x_field) - 5, "_ttft");
	bool clip = rep_metric_is_cost(o->metric) && !isnan(o->cost_limit);
	for (size_t t = 0; !rc && t < nrows; t++) {
		size_t i = order[t];
		const rep_row *r = &rows[i];
		double x, y;
		const char *why = drop_reason(c, r, i, o, xf, is_ttft, clip, &x, &y);
		if (why) {
			c->dropped[c->ndropped++] = (rep_dropped){i, why};
			continue;
		}
		skeys[c->npoints] = row_skeys[i];
		c->points[c->npoints++] = (rep_chart_point){i, 0, x, y, false};
	}
	if (!rc)
		rc = rep_first_seen_ids(skeys, c->npoints, sid, &ns);
	for (size_t p = 0; !rc && p < c->npoints; p++) {
		const rep_row *r = &rows[c->points[p].row];
		c->points[p].series = sid[p];
		if (sid[p] < c->nseries)
			continue;
		c->series[c->nseries++] = (rep_series){.key = skeys[p],
		                                       .hw_key = keys[c->points[p].row],
		                                       .precision = or_undef(r->precision),
		                                       .overlay_run = r->overlay_run};
	}
	free(skeys);
	free(off);
	free(order);
	return rc;
}

/* The per-row part of a chart into arena a (rep_chart_rows). */
static int fill_rows(ib_arena *a, const rep_row *rows, size_t nrows, const rep_gpu_table *gpus,
                     const rep_derive_opts *derive, rep_chart_rows *p)
{
	size_t n1 = nrows ? nrows : 1;
	p->n = nrows;
	p->metrics = ib_arena_alloc(a, n1 * sizeof *p->metrics);
	p->keys = ib_arena_alloc(a, n1 * sizeof *p->keys);
	p->skeys = ib_arena_alloc(a, n1 * sizeof *p->skeys);
	if (!p->metrics || !p->keys || !p->skeys)
		return IB_ENOMEM;
	for (size_t i = 0; i < nrows; i++) {
		const rep_row *r = &rows[i];
		char key[256];
		rep_derive_metrics(r, gpus, derive, &p->metrics[i], key, sizeof key, NULL, 0, NULL);
		const char *prec = or_undef(r->precision);
		p->keys[i] = ib_arena_strdup(a, key);
		p->skeys[i] = r->overlay_run >= 0
		                  ? ib_arena_printf(a, "%s_%s_run%d", key, prec, r->overlay_run)
		                  : ib_arena_printf(a, "%s_%s", key, prec);
		if (!p->keys[i] || !p->skeys[i])
			return IB_ENOMEM;
	}
	return 0;
}

int rep_chart_prepare(const rep_row *rows, size_t nrows, const rep_gpu_table *gpus,
                      const rep_derive_opts *derive, rep_chart_rows **out)
{
	*out = NULL;
	rep_chart_rows *p = calloc(1, sizeof *p);
	if (!p || !(p->arena = ib_arena_new())) {
		free(p);
		return IB_ENOMEM;
	}
	int rc = fill_rows(p->arena, rows, nrows, gpus, derive, p);
	if (rc) {
		rep_chart_rows_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void rep_chart_rows_free(rep_chart_rows *p)
{
	if (!p)
		return;
	ib_arena_free(p->arena);
	free(p);
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
	if (o->pre && o->pre->n != nrows)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "prepared rows: %zu, not %zu", o->pre->n,
		               nrows);
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
	buf = malloc(3 * n1 * sizeof *buf);
	dates = malloc(n1 * sizeof *dates);
	idx = malloc(n1 * sizeof *idx);
	scratch = malloc(n1 * sizeof *scratch);
	if (!c->points || !c->series || !c->dropped || !buf || !idx || !scratch || !dates)
		goto fail;
	rep_chart_rows own;
	const rep_chart_rows *pre = o->pre;
	if (!pre) {
		if (fill_rows(c->arena, rows, nrows, o->gpus, o->derive, &own))
			goto fail;
		pre = &own;
	}
	c->metrics = pre->metrics;
	rc = place_points(c, rows, nrows, o, xf, pre->keys, pre->skeys, buf);
	size_t *sid = buf, *off = NULL, *members = NULL;
	for (size_t p = 0; !rc && p < c->npoints; p++)
		sid[p] = c->points[p].series;
	if (!rc)
		rc = rep_bucket_ids(sid, c->npoints, c->nseries, &off, &members);
	for (size_t s = 0; s < c->nseries && !rc; s++)
		rc = series_front(c, rows, s, o->dir, members + off[s], off[s + 1] - off[s], buf,
		                  dates, scratch, idx);
	free(off);
	free(members);
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
