/* repgold/golden_rows.c — golden adapters over agg rows: series keys,
 * derived metrics and chart series. */
#include "repgold/private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The GPU table of a case: gpu_specs, usd_to_cny, known_gpus. The arrays
 * live in the arena. */
static int read_table(ib_arena *a, const ib_val *in, rep_gpu_table *t)
{
	memset(t, 0, sizeof *t);
	const ib_val *specs = ib_map_get(in, "gpu_specs");
	size_t n = specs && specs->type == IB_V_MAP ? specs->map.n : 0;
	rep_gpu_spec *g = ib_arena_alloc(a, (n ? n : 1) * sizeof *g);
	if (!g)
		return IB_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const ib_val *s = specs->map.kv[i].val;
		snprintf(g[i].name, sizeof g[i].name, "%s", specs->map.kv[i].key->str.s);
		g[i].power = rg_getnum(s, "power");
		g[i].costh = rg_getnum(s, "costh");
		g[i].costn = rg_getnum(s, "costn");
		g[i].costr = rg_getnum(s, "costr");
		g[i].tdp = rg_getnum(s, "tdp");
	}
	t->gpus = g;
	t->n = n;
	t->usd_to_cny = ib_map_has(in, "usd_to_cny") ? rg_getnum(in, "usd_to_cny") : 7.1;
	const ib_val *k = rg_getlist(in, "known_gpus");
	size_t nk = rg_len(k);
	const char **names = ib_arena_alloc(a, (nk ? nk : 1) * sizeof *names);
	if (!names)
		return IB_ENOMEM;
	for (size_t i = 0; i < nk; i++)
		names[i] = k->list.v[i]->type == IB_V_STR ? k->list.v[i]->str.s : "";
	t->known = names;
	t->nknown = nk;
	return 0;
}

int rg_hardware_key(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	rep_gpu_table t;
	int rc = read_table(a, in, &t);
	if (rc)
		return rc;
	const ib_val *ents = rg_getlist(in, "entries");
	ib_val *keys = ib_v_list(a), *bases = ib_v_list(a);
	if (!keys || !bases)
		return IB_ENOMEM;
	for (size_t i = 0; i < rg_len(ents); i++) {
		rep_row r;
		rc = rep_row_from_json(ents->list.v[i], i, &r, e);
		if (rc)
			return rc;
		char key[256], base[64];
		rep_hardware_key(&r, &t, key, sizeof key);
		rep_spec_base(key, base, sizeof base);
		rc = rg_push(a, keys, ib_v_str(a, key));
		rc = rc ? rc : rg_push(a, bases, ib_v_str(a, base));
		if (rc)
			return rc;
	}
	rc = rg_set(a, out, "keys", keys);
	return rc ? rc : rg_set(a, out, "spec_base", bases);
}

static ib_val *metrics_obj(ib_arena *a, const rep_metrics *m)
{
	ib_val *o = ib_v_map(a);
	for (int i = 0; o && i < REP_M__COUNT; i++)
		if (m->has[i] && i != REP_M_COST_USER && i != REP_M_POWER_USER &&
		    rg_set(a, o, rep_metric_name((rep_metric)i), rg_vnum(a, m->v[i])))
			return NULL;
	return o;
}

int rg_derived_metrics(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	rep_gpu_table t;
	int rc = read_table(a, in, &t);
	if (rc)
		return rc;
	rep_row r;
	rc = rep_row_from_json(ib_map_get(in, "row"), 0, &r, e);
	if (rc)
		return rc;
	rep_derive_opts o = {0};
	if (rg_is_num(ib_map_get(in, "user_cost"))) {
		o.has_user_cost = true;
		o.user_cost = rg_getnum(in, "user_cost");
	}
	if (rg_is_num(ib_map_get(in, "user_power"))) {
		o.has_user_power = true;
		o.user_power = rg_getnum(in, "user_power");
	}
	rep_metrics m;
	char key[256], base[64];
	double count;
	rep_derive_metrics(&r, &t, &o, &m, key, sizeof key, base, sizeof base, &count);
	rc = rg_set(a, out, "hwKey", ib_v_str(a, key));
	rc = rc ? rc : rg_set(a, out, "spec_base", ib_v_str(a, base));
	rc = rc ? rc : rg_set(a, out, "metrics", metrics_obj(a, &m));
	rc = rc ? rc : rg_set(a, out, "displayed_gpu_count", rg_vnum(a, count));
	if (!rc && m.has[REP_M_COST_USER])
		rc = rg_set(a, out, "costUser", rg_vnum(a, m.v[REP_M_COST_USER]));
	if (!rc && m.has[REP_M_POWER_USER])
		rc = rg_set(a, out, "powerUser", rg_vnum(a, m.v[REP_M_POWER_USER]));
	return rc;
}

static ib_val *id_of(ib_arena *a, const rep_row *rows, size_t row)
{
	return rows[row].id ? ib_v_str(a, rows[row].id) : ib_v_null(a);
}

static ib_val *ids_list(ib_arena *a, const rep_chart *c, const rep_row *rows, const size_t *pts,
                        size_t n)
{
	ib_val *l = ib_v_list(a);
	for (size_t i = 0; l && i < n; i++)
		if (rg_push(a, l, id_of(a, rows, c->points[pts[i]].row)))
			return NULL;
	return l;
}

static ib_val *series_obj(ib_arena *a, const rep_chart *c, const rep_row *rows, const rep_series *s)
{
	ib_val *o = ib_v_map(a), *paths = ib_v_list(a);
	if (!o || !paths)
		return NULL;
	for (size_t p = 0; p < s->npaths; p++)
		if (rg_push(a, paths,
		            ids_list(a, c, rows, s->path_pts + s->path_off[p],
		                     s->path_off[p + 1] - s->path_off[p])))
			return NULL;
	if (rg_set(a, o, "hwKey", ib_v_str(a, s->hw_key)) ||
	    rg_set(a, o, "precision", ib_v_str(a, s->precision)) ||
	    rg_set(a, o, "overlay_run",
	           s->overlay_run >= 0 ? ib_v_int(a, s->overlay_run) : ib_v_null(a)) ||
	    rg_set(a, o, "frontier", ids_list(a, c, rows, s->frontier, s->nfrontier)) ||
	    rg_set(a, o, "paths", paths))
		return NULL;
	return o;
}

static int chart_out(ib_arena *a, const rep_chart *c, const rep_row *rows, ib_val *out)
{
	ib_val *series = ib_v_map(a), *points = ib_v_list(a), *dropped = ib_v_list(a);
	if (!series || !points || !dropped)
		return IB_ENOMEM;
	for (size_t s = 0; s < c->nseries; s++)
		if (rg_set(a, series, c->series[s].key, series_obj(a, c, rows, &c->series[s])))
			return IB_ENOMEM;
	for (size_t i = 0; i < c->npoints; i++) {
		const rep_chart_point *p = &c->points[i];
		ib_val *o = ib_v_map(a);
		if (!o || rg_set(a, o, "id", id_of(a, rows, p->row)) ||
		    rg_set(a, o, "series", ib_v_str(a, c->series[p->series].key)) ||
		    rg_set(a, o, "x", rg_vnum(a, p->x)) || rg_set(a, o, "y", rg_vnum(a, p->y)) ||
		    rg_set(a, o, "roof", ib_v_bool(a, p->roof)) || rg_push(a, points, o))
			return IB_ENOMEM;
	}
	for (size_t i = 0; i < c->ndropped; i++) {
		ib_val *o = ib_v_map(a);
		if (!o || rg_set(a, o, "id", id_of(a, rows, c->dropped[i].row)) ||
		    rg_set(a, o, "reason", ib_v_str(a, c->dropped[i].reason)) ||
		    rg_push(a, dropped, o))
			return IB_ENOMEM;
	}
	int rc = rg_set(a, out, "series", series);
	rc = rc ? rc : rg_set(a, out, "points", points);
	return rc ? rc : rg_set(a, out, "dropped", dropped);
}

int rg_chart_series(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	rep_gpu_table t;
	int rc = read_table(a, in, &t);
	if (rc)
		return rc;
	rep_chart_opts o = {0};
	o.gpus = &t;
	o.x_field = rg_getstr(in, "x_field");
	int m = rep_metric_lookup(rg_getstr(in, "metric"));
	if (m < 0)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "field 'metric': unknown metric");
	o.metric = (rep_metric)m;
	if (!par_dir_parse(rg_getstr(in, "direction"), &o.dir))
		return ib_fail(e, IB_EINVAL, "", 0, 0, "field 'direction': unknown direction");
	o.cost_limit = rg_getnum(in, "cost_limit");
	o.latency_limit = rg_getnum(in, "latency_limit");
	const ib_val *l = rg_getlist(in, "rows");
	size_t n = rg_len(l);
	rep_row *rows = ib_arena_alloc(a, (n ? n : 1) * sizeof *rows);
	if (!rows)
		return IB_ENOMEM;
	for (size_t i = 0; i < n; i++)
		if ((rc = rep_row_from_json(l->list.v[i], i, &rows[i], e)))
			return rc;
	rep_chart *c;
	rc = rep_chart_series(rows, n, &o, &c, e);
	if (rc)
		return rc;
	rc = chart_out(a, c, rows, out);
	rep_chart_free(c);
	return rc;
}
