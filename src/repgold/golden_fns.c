/* repgold/golden_fns.c — golden adapters for the small pure functions:
 * frontiers, table order, number formats, spline, path, axes. */
#include "repgold/private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Reads [{id, x, y}] into a new array (caller frees). */
static par_pt *read_pts(const ib_val *l, size_t *n)
{
	*n = rg_len(l);
	par_pt *p = calloc(*n ? *n : 1, sizeof *p);
	if (!p)
		return NULL;
	for (size_t i = 0; i < *n; i++) {
		const ib_val *o = l->list.v[i];
		if (o->type == IB_V_LIST) {
			p[i].x = rg_num(o->list.n > 0 ? o->list.v[0] : NULL);
			p[i].y = rg_num(o->list.n > 1 ? o->list.v[1] : NULL);
			continue;
		}
		p[i].id = rg_getstr(o, "id");
		p[i].x = rg_getnum(o, "x");
		p[i].y = rg_getnum(o, "y");
	}
	return p;
}

static ib_val *pt_obj(ib_arena *a, const par_pt *p)
{
	ib_val *o = ib_v_map(a);
	if (!o || rg_set(a, o, "id", p->id ? ib_v_str(a, p->id) : ib_v_null(a)) ||
	    rg_set(a, o, "x", rg_vnum(a, p->x)) || rg_set(a, o, "y", rg_vnum(a, p->y)))
		return NULL;
	return o;
}

static int front_common(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e, bool roof)
{
	par_dir d;
	if (!par_dir_parse(rg_getstr(in, "direction"), &d))
		return ib_fail(e, IB_EINVAL, "", 0, 0, "field 'direction': unknown direction");
	size_t n;
	par_pt *p = read_pts(rg_getlist(in, "points"), &n);
	size_t *idx = malloc((n ? n : 1) * sizeof *idx);
	int rc = IB_ENOMEM;
	if (!p || !idx)
		goto fail;
	size_t k;
	rc = roof ? par_roofline(d, p, n, idx, &k) : par_pareto_front(d, p, n, idx, &k);
	if (rc)
		goto fail;
	ib_val *l = ib_v_list(a);
	rc = l ? 0 : IB_ENOMEM;
	for (size_t i = 0; i < k && !rc; i++)
		rc = rg_push(a, l, pt_obj(a, &p[idx[i]]));
	rc = rc ? rc : rg_set(a, out, "front", l);
	if (roof && !rc)
		rc = rg_set(a, out, "drawn", ib_v_bool(a, k >= 2));
fail:
	free(p);
	free(idx);
	return rc;
}

int rg_pareto_front(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	return front_common(a, in, out, e, false);
}

int rg_roofline(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	return front_common(a, in, out, e, true);
}

int rg_table_sort(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	(void)e;
	par_dir d = PAR_DIR_NONE;
	const char *ds = rg_getstr(in, "direction");
	if (ds)
		par_dir_parse(ds, &d);
	const ib_val *rows = rg_getlist(in, "rows");
	size_t n = rg_len(rows);
	double *y = malloc((n ? n : 1) * sizeof *y);
	size_t *idx = malloc((n ? n : 1) * sizeof *idx);
	int rc = IB_ENOMEM;
	if (!y || !idx)
		goto fail;
	for (size_t i = 0; i < n; i++)
		y[i] = rg_getnum(rows->list.v[i], "y");
	rc = par_table_sort(y, n, d, idx);
	ib_val *l = ib_v_list(a);
	if (!rc && !l)
		rc = IB_ENOMEM;
	for (size_t i = 0; i < n && !rc; i++) {
		const char *id = rg_getstr(rows->list.v[idx[i]], "id");
		rc = rg_push(a, l, ib_v_str(a, id ? id : ""));
	}
	rc = rc ? rc : rg_set(a, out, "ids", l);
fail:
	free(y);
	free(idx);
	return rc;
}

int rg_number_format(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	(void)e;
	static const char *const kinds[] = {"table", "table_1dp", "tick", "tick_large"};
	const ib_val *vals = rg_getlist(in, "values");
	for (int k = 0; k < 4; k++) {
		ib_val *l = ib_v_list(a);
		if (!l)
			return IB_ENOMEM;
		for (size_t i = 0; i < rg_len(vals); i++) {
			double v = rg_num(vals->list.v[i]);
			char s[128];
			if (k == 0)
				par_fmt_table(v, s, sizeof s);
			else if (k == 1)
				par_fmt_table_1dp(v, s, sizeof s);
			else if (k == 2)
				par_fmt_tick(v, s, sizeof s);
			else
				par_fmt_tick_large(v, s, sizeof s);
			int rc = rg_push(a, l, ib_v_str(a, s));
			if (rc)
				return rc;
		}
		int rc = rg_set(a, out, kinds[k], l);
		if (rc)
			return rc;
	}
	return 0;
}

static double *read_nums(const ib_val *l, size_t *n)
{
	*n = rg_len(l);
	double *v = malloc((*n ? *n : 1) * sizeof *v);
	if (!v)
		return NULL;
	for (size_t i = 0; i < *n; i++)
		v[i] = rg_num(l->list.v[i]);
	return v;
}

static ib_val *num_list(ib_arena *a, const double *v, size_t n)
{
	ib_val *l = ib_v_list(a);
	for (size_t i = 0; l && i < n; i++)
		if (rg_push(a, l, rg_vnum(a, v[i])))
			return NULL;
	return l;
}

int rg_monotone_spline(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	size_t n, ny, nt;
	double *xs = read_nums(rg_getlist(in, "xs"), &n);
	double *ys = read_nums(rg_getlist(in, "ys"), &ny);
	double *ts = read_nums(rg_getlist(in, "targets"), &nt);
	double *m = malloc((n ? n : 1) * sizeof *m);
	double *vals = malloc((nt ? nt : 1) * sizeof *vals);
	int rc = IB_ENOMEM;
	if (!xs || !ys || !ts || !m || !vals)
		goto fail;
	if (ny != n) {
		rc = ib_fail(e, IB_EINVAL, "", 0, 0, "fields 'xs' and 'ys' differ in length");
		goto fail;
	}
	par_spline_slopes(xs, ys, n, m);
	for (size_t i = 0; i < nt; i++)
		vals[i] = par_spline_eval(xs, ys, m, n, ts[i]);
	rc = rg_set(a, out, "slopes", num_list(a, m, n));
	rc = rc ? rc : rg_set(a, out, "values", num_list(a, vals, nt));
fail:
	free(xs);
	free(ys);
	free(ts);
	free(m);
	free(vals);
	return rc;
}

int rg_monotone_path(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	(void)e;
	size_t n;
	par_pt *p = read_pts(rg_getlist(in, "points"), &n);
	if (!p)
		return IB_ENOMEM;
	ib_buf b = {0};
	int rc = par_monotone_path(p, n, &b);
	if (!rc)
		rc = rg_set(a, out, "d", n ? ib_v_str(a, b.data ? b.data : "") : ib_v_null(a));
	ib_buf_free(&b);
	free(p);
	return rc;
}

int rg_linear_nice_ticks(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	const ib_val *d = rg_getlist(in, "domain");
	if (rg_len(d) != 2)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "field 'domain': expected two numbers");
	double lo = rg_num(d->list.v[0]), hi = rg_num(d->list.v[1]);
	int count = ib_map_has(in, "count") ? (int)rg_getnum(in, "count") : 10;
	double t[512];
	double dl = lo, dh = hi;
	rep_nice(&dl, &dh, 10);
	double dom[2] = {dl, dh};
	int rc = rg_set(a, out, "niceDomainDefault", num_list(a, dom, 2));
	size_t nt = rep_ticks(dl, dh, 10, t, 512);
	rc = rc ? rc : rg_set(a, out, "ticks10OfDefault", num_list(a, t, nt));
	dl = lo;
	dh = hi;
	rep_nice(&dl, &dh, count);
	dom[0] = dl;
	dom[1] = dh;
	rc = rc ? rc : rg_set(a, out, "niceDomain", num_list(a, dom, 2));
	nt = rep_ticks(dl, dh, count, t, 512);
	return rc ? rc : rg_set(a, out, "ticks", num_list(a, t, nt));
}

static ib_val *axis_obj(ib_arena *a, const rep_axis *x)
{
	ib_val *o = ib_v_map(a);
	if (!o || rg_set(a, o, "type", ib_v_str(a, x->log ? "log" : "linear")) ||
	    rg_set(a, o, "domain", num_list(a, x->domain, 2)) ||
	    rg_set(a, o, "niceDomain", num_list(a, x->nice, 2)) ||
	    rg_set(a, o, "ticks", num_list(a, x->ticks, x->nticks)))
		return NULL;
	return o;
}

int rg_scatter_axes(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	(void)e;
	size_t n;
	par_pt *p = read_pts(rg_getlist(in, "points"), &n);
	if (!p)
		return IB_ENOMEM;
	const ib_val *op = ib_map_get(in, "options");
	const ib_val *v;
	rep_axes_opts o = {0};
	o.is_input_tput_metric = (v = ib_map_get(op, "isInputTputMetric")) && ib_val_truthy(v);
	o.x_is_ttft = (v = ib_map_get(op, "xIsTtft")) && ib_val_truthy(v);
	o.log_y = (v = ib_map_get(op, "logScale")) && ib_val_truthy(v);
	o.scale_type = rg_getstr(op, "scaleType");
	rep_axis x, y;
	rep_scatter_axes(p, n, &o, &x, &y);
	free(p);
	int rc = rg_set(a, out, "x", axis_obj(a, &x));
	return rc ? rc : rg_set(a, out, "y", axis_obj(a, &y));
}
