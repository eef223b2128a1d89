/* repgold/golden_interp.c — golden adapters for interpolation and the
 * compare pages. */
#include "repgold/private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const cost_keys[9] = {"costh",       "costn",       "costr",
                                         "costhi",      "costni",      "costri",
                                         "costhOutput", "costnOutput", "costrOutput"};

/* GPU data points of the calculator (arena-allocated). */
rep_gpu_point *g_read_gpu_points(ib_arena *a, const ib_val *l, size_t *n)
{
	*n = g_len(l);
	rep_gpu_point *p = ib_arena_alloc(a, (*n ? *n : 1) * sizeof *p);
	if (!p)
		return NULL;
	for (size_t i = 0; i < *n; i++) {
		const ib_val *o = l->list.v[i];
		p[i].id = g_getstr(o, "id");
		p[i].hw_key = g_getstr(o, "hwKey");
		p[i].interactivity = g_getnum(o, "interactivity");
		p[i].throughput = g_getnum(o, "throughput");
		p[i].output_tput = g_getnum(o, "outputThroughput");
		p[i].input_tput = g_getnum(o, "inputThroughput");
		p[i].concurrency = g_getnum(o, "concurrency");
		for (int k = 0; k < 9; k++)
			p[i].cost[k] = g_getnum(o, cost_keys[k]);
		p[i].tp_per_mw = g_getnum(o, "tpPerMw");
		p[i].input_tp_per_mw = g_getnum(o, "inputTpPerMw");
		p[i].output_tp_per_mw = g_getnum(o, "outputTpPerMw");
		p[i].has_cache_hit_rate = g_is_num(ib_map_get(o, "cacheHitRate"));
		p[i].cache_hit_rate = g_getnum(o, "cacheHitRate");
	}
	return p;
}

ib_val *g_interp_obj(ib_arena *a, const rep_gpu_point *pts, const rep_interp *r)
{
	ib_val *o = ib_v_map(a), *ids = ib_v_list(a);
	if (!o || !ids)
		return NULL;
	const char *hw = r->hw_key ? r->hw_key : "";
	for (size_t i = 0; i < r->nnearest; i++) {
		const char *id = pts[r->nearest[i]].id;
		if (g_push(a, ids, id ? ib_v_str(a, id) : ib_v_null(a)))
			return NULL;
	}
	if (g_set(a, o, "hwKey", ib_v_str(a, hw)) || g_set(a, o, "resultKey", ib_v_str(a, hw)) ||
	    g_set(a, o, "value", g_vnum(a, r->value)) ||
	    g_set(a, o, "outputTputValue", g_vnum(a, r->output_tput)) ||
	    g_set(a, o, "inputTputValue", g_vnum(a, r->input_tput)) ||
	    g_set(a, o, "cost", g_vnum(a, r->cost)) ||
	    g_set(a, o, "costInput", g_vnum(a, r->cost_input)) ||
	    g_set(a, o, "costOutput", g_vnum(a, r->cost_output)) ||
	    g_set(a, o, "tpPerMw", g_vnum(a, r->tp_per_mw)) ||
	    g_set(a, o, "inputTpPerMw", g_vnum(a, r->input_tp_per_mw)) ||
	    g_set(a, o, "outputTpPerMw", g_vnum(a, r->output_tp_per_mw)))
		return NULL;
	if (r->has_cache_hit_rate && g_set(a, o, "cacheHitRate", g_vnum(a, r->cache_hit_rate)))
		return NULL;
	if (g_set(a, o, "concurrency", g_vnum(a, r->concurrency)) ||
	    g_set(a, o, "clamped", ib_v_bool(a, r->clamped)) ||
	    g_set(a, o, "clampedAbove", ib_v_bool(a, r->clamped_above)) ||
	    g_set(a, o, "clampedBelow", ib_v_bool(a, r->clamped_below)) ||
	    g_set(a, o, "nearestPointIds", ids))
		return NULL;
	return o;
}

int g_interpolate_for_gpu(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	size_t n;
	rep_gpu_point *p = g_read_gpu_points(a, g_getlist(in, "points"), &n);
	if (!p)
		return IB_ENOMEM;
	const char *ms = g_getstr(in, "mode");
	rep_interp_mode mode = ms && !strcmp(ms, "throughput_to_interactivity")
	                           ? REP_MODE_THROUGHPUT_TO_INTERACTIVITY
	                           : REP_MODE_INTERACTIVITY_TO_THROUGHPUT;
	rep_cost_provider prov;
	if (!rep_cost_provider_parse(g_getstr(in, "cost_provider"), &prov))
		return ib_fail(e, IB_EINVAL, "", 0, 0, "field 'cost_provider': unknown provider");
	rep_interp r;
	int rc = rep_interpolate_for_gpu(p, n, g_getnum(in, "target"), mode, prov, &r);
	if (rc < 0)
		return rc;
	return g_set(a, out, "result", rc ? g_interp_obj(a, p, &r) : ib_v_null(a));
}

int g_max_interactivity_at_cost(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	size_t n;
	rep_gpu_point *p = g_read_gpu_points(a, g_getlist(in, "points"), &n);
	if (!p)
		return IB_ENOMEM;
	rep_cost_provider prov;
	rep_tok_type type;
	if (!rep_cost_provider_parse(g_getstr(in, "cost_provider"), &prov))
		return ib_fail(e, IB_EINVAL, "", 0, 0, "field 'cost_provider': unknown provider");
	if (!rep_tok_type_parse(g_getstr(in, "cost_type"), &type))
		return ib_fail(e, IB_EINVAL, "", 0, 0, "field 'cost_type': unknown token type");
	double v;
	int rc = rep_max_interactivity_at_cost(p, n, g_getnum(in, "target_cost"), prov, type, &v);
	if (rc < 0)
		return rc;
	return g_set(a, out, "value", rc ? g_vnum(a, v) : ib_v_null(a));
}

int g_interpolate_trend(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	int metric = rep_metric_lookup(g_getstr(in, "metric"));
	if (metric < 0)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "field 'metric': unknown metric");
	const ib_val *l = g_getlist(in, "points");
	size_t n = g_len(l);
	rep_trend_point *p = ib_arena_alloc(a, (n ? n : 1) * sizeof *p);
	rep_metrics *m = ib_arena_alloc(a, (n ? n : 1) * sizeof *m);
	if (!p || !m)
		return IB_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const ib_val *o = l->list.v[i];
		const ib_val *mo = ib_map_get(o, "metrics");
		for (size_t k = 0; mo && mo->type == IB_V_MAP && k < mo->map.n; k++) {
			int id = rep_metric_lookup(mo->map.kv[k].key->str.s);
			double v;
			if (id >= 0 && rep_json_number(mo->map.kv[k].val, &v)) {
				m[i].v[id] = v;
				m[i].has[id] = true;
			}
		}
		p[i] = (rep_trend_point){g_getstr(o, "id"), g_getnum(o, "x"), &m[i]};
	}
	const ib_val *t = g_getlist(in, "targets");
	ib_val *vals = ib_v_list(a);
	if (!vals)
		return IB_ENOMEM;
	for (size_t i = 0; i < g_len(t); i++) {
		double v;
		int rc = rep_interpolate_trend(p, n, (rep_metric)metric, g_num(t->list.v[i]), &v);
		if (rc < 0)
			return rc;
		if ((rc = g_push(a, vals, rc ? g_vnum(a, v) : ib_v_null(a))))
			return rc;
	}
	return g_set(a, out, "values", vals);
}

static ib_val *side_obj(ib_arena *a, const rep_gpu_point *pts, const rep_compare_side *s)
{
	return s->present ? g_interp_obj(a, pts, &s->r) : ib_v_null(a);
}

int g_compare_table(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	(void)e;
	size_t na, nb;
	rep_gpu_point *pa = g_read_gpu_points(a, g_getlist(in, "points_a"), &na);
	rep_gpu_point *pb = g_read_gpu_points(a, g_getlist(in, "points_b"), &nb);
	rep_compare_table *t = ib_arena_alloc(a, sizeof *t);
	if (!pa || !pb || !t)
		return IB_ENOMEM;
	int rc = rep_compare_table_compute(pa, na, pb, nb, t);
	if (rc)
		return rc;
	ib_val *range = ib_v_map(a), *targets = ib_v_list(a), *rows = ib_v_list(a),
	       *img = ib_v_list(a);
	if (!range || !targets || !rows || !img ||
	    g_set(a, range, "min", g_vnum(a, t->range_min)) ||
	    g_set(a, range, "max", g_vnum(a, t->range_max)))
		return IB_ENOMEM;
	for (size_t i = 0; i < t->ntargets; i++)
		if (g_push(a, targets, g_vnum(a, t->targets[i])))
			return IB_ENOMEM;
	for (size_t i = 0; i < t->nrows; i++) {
		ib_val *o = ib_v_map(a);
		if (!o || g_set(a, o, "target", g_vnum(a, t->rows[i].target)) ||
		    g_set(a, o, "a", side_obj(a, pa, &t->rows[i].a)) ||
		    g_set(a, o, "b", side_obj(a, pb, &t->rows[i].b)) || g_push(a, rows, o))
			return IB_ENOMEM;
	}
	for (size_t i = 0; i < t->nimage_rows; i++) {
		const rep_compare_row *r = &t->image_rows[i];
		ib_val *o = ib_v_map(a);
		if (!o || g_set(a, o, "target", g_vnum(a, r->target)) ||
		    g_set(a, o, "a_value", r->a.present ? g_vnum(a, r->a.r.value) : ib_v_null(a)) ||
		    g_set(a, o, "a_cost", r->a.present ? g_vnum(a, r->a.r.cost) : ib_v_null(a)) ||
		    g_set(a, o, "b_value", r->b.present ? g_vnum(a, r->b.r.value) : ib_v_null(a)) ||
		    g_set(a, o, "b_cost", r->b.present ? g_vnum(a, r->b.r.cost) : ib_v_null(a)) ||
		    g_push(a, img, o))
			return IB_ENOMEM;
	}
	rc = g_set(a, out, "interactivityRange", range);
	rc = rc ? rc : g_set(a, out, "defaultTargets", targets);
	rc = rc ? rc : g_set(a, out, "rows", rows);
	return rc ? rc : g_set(a, out, "image_rows", img);
}

static rep_narr_side narr_side(const ib_val *v)
{
	rep_narr_side s = {0};
	if (v && v->type == IB_V_MAP) {
		s.present = true;
		s.value = g_getnum(v, "value");
		s.cost = g_getnum(v, "cost");
	}
	return s;
}

int g_compare_narrative(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	const ib_val *l = g_getlist(in, "rows");
	size_t n = g_len(l);
	rep_narr_row *rows = ib_arena_alloc(a, (n ? n : 1) * sizeof *rows);
	ib_buf *paras = calloc(n ? n : 1, sizeof *paras);
	int rc = IB_ENOMEM;
	if (!rows || !paras)
		goto done;
	for (size_t i = 0; i < n; i++) {
		const ib_val *r = l->list.v[i];
		rows[i].target = g_getnum(r, "target");
		rows[i].a = narr_side(ib_map_get(r, "a"));
		rows[i].b = narr_side(ib_map_get(r, "b"));
	}
	const ib_val *range = ib_map_get(in, "interactivity_range");
	const char *model = g_getstr(in, "model_label"), *al = g_getstr(in, "a_label"),
	           *bl = g_getstr(in, "b_label");
	size_t np = 0;
	rc = rep_compare_narrative(g_getstr(in, "variant"), model ? model : "", al ? al : "",
	                           bl ? bl : "", rows, n, g_getnum(range, "min"),
	                           g_getnum(range, "max"), paras, &np);
	if (rc == IB_EINVAL) {
		rc = ib_fail(e, rc, "", 0, 0, "field 'variant': expected full or per-dollar");
		goto done;
	}
	ib_val *list = ib_v_list(a);
	if (!rc && !list)
		rc = IB_ENOMEM;
	for (size_t i = 0; i < np && !rc; i++)
		rc = g_push(a, list, ib_v_str(a, paras[i].data));
	if (!rc)
		rc = g_set(a, out, "paragraphs", list);
done:
	for (size_t i = 0; paras && i < n; i++)
		ib_buf_free(&paras[i]);
	free(paras);
	return rc;
}
