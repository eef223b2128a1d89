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
par_gpu_point *rg_read_gpu_points(ib_arena *a, const ib_val *l, size_t *n)
{
	*n = rg_len(l);
	par_gpu_point *p = ib_arena_alloc(a, (*n ? *n : 1) * sizeof *p);
	if (!p)
		return NULL;
	for (size_t i = 0; i < *n; i++) {
		const ib_val *o = l->list.v[i];
		p[i].id = rg_getstr(o, "id");
		p[i].hw_key = rg_getstr(o, "hwKey");
		p[i].interactivity = rg_getnum(o, "interactivity");
		p[i].throughput = rg_getnum(o, "throughput");
		p[i].output_tput = rg_getnum(o, "outputThroughput");
		p[i].input_tput = rg_getnum(o, "inputThroughput");
		p[i].concurrency = rg_getnum(o, "concurrency");
		for (int k = 0; k < 9; k++)
			p[i].cost[k] = rg_getnum(o, cost_keys[k]);
		p[i].tp_per_mw = rg_getnum(o, "tpPerMw");
		p[i].input_tp_per_mw = rg_getnum(o, "inputTpPerMw");
		p[i].output_tp_per_mw = rg_getnum(o, "outputTpPerMw");
		p[i].has_cache_hit_rate = rg_is_num(ib_map_get(o, "cacheHitRate"));
		p[i].cache_hit_rate = rg_getnum(o, "cacheHitRate");
	}
	return p;
}

ib_val *rg_interp_obj(ib_arena *a, const par_gpu_point *pts, const par_interp *r)
{
	ib_val *o = ib_v_map(a), *ids = ib_v_list(a);
	if (!o || !ids)
		return NULL;
	const char *hw = r->hw_key ? r->hw_key : "";
	for (size_t i = 0; i < r->nnearest; i++) {
		const char *id = pts[r->nearest[i]].id;
		if (rg_push(a, ids, id ? ib_v_str(a, id) : ib_v_null(a)))
			return NULL;
	}
	if (rg_set(a, o, "hwKey", ib_v_str(a, hw)) || rg_set(a, o, "resultKey", ib_v_str(a, hw)) ||
	    rg_set(a, o, "value", rg_vnum(a, r->value)) ||
	    rg_set(a, o, "outputTputValue", rg_vnum(a, r->output_tput)) ||
	    rg_set(a, o, "inputTputValue", rg_vnum(a, r->input_tput)) ||
	    rg_set(a, o, "cost", rg_vnum(a, r->cost)) ||
	    rg_set(a, o, "costInput", rg_vnum(a, r->cost_input)) ||
	    rg_set(a, o, "costOutput", rg_vnum(a, r->cost_output)) ||
	    rg_set(a, o, "tpPerMw", rg_vnum(a, r->tp_per_mw)) ||
	    rg_set(a, o, "inputTpPerMw", rg_vnum(a, r->input_tp_per_mw)) ||
	    rg_set(a, o, "outputTpPerMw", rg_vnum(a, r->output_tp_per_mw)))
		return NULL;
	if (r->has_cache_hit_rate && rg_set(a, o, "cacheHitRate", rg_vnum(a, r->cache_hit_rate)))
		return NULL;
	if (rg_set(a, o, "concurrency", rg_vnum(a, r->concurrency)) ||
	    rg_set(a, o, "clamped", ib_v_bool(a, r->clamped)) ||
	    rg_set(a, o, "clampedAbove", ib_v_bool(a, r->clamped_above)) ||
	    rg_set(a, o, "clampedBelow", ib_v_bool(a, r->clamped_below)) ||
	    rg_set(a, o, "nearestPointIds", ids))
		return NULL;
	return o;
}

int rg_interpolate_for_gpu(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	size_t n;
	par_gpu_point *p = rg_read_gpu_points(a, rg_getlist(in, "points"), &n);
	if (!p)
		return IB_ENOMEM;
	const char *ms = rg_getstr(in, "mode");
	par_interp_mode mode = ms && !strcmp(ms, "throughput_to_interactivity")
	                           ? PAR_MODE_THROUGHPUT_TO_INTERACTIVITY
	                           : PAR_MODE_INTERACTIVITY_TO_THROUGHPUT;
	par_cost_provider prov;
	if (!par_cost_provider_parse(rg_getstr(in, "cost_provider"), &prov))
		return ib_fail(e, IB_EINVAL, "", 0, 0, "field 'cost_provider': unknown provider");
	par_interp r;
	int rc = par_interpolate_for_gpu(p, n, rg_getnum(in, "target"), mode, prov, &r);
	if (rc < 0)
		return rc;
	return rg_set(a, out, "result", rc ? rg_interp_obj(a, p, &r) : ib_v_null(a));
}

int rg_max_interactivity_at_cost(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	size_t n;
	par_gpu_point *p = rg_read_gpu_points(a, rg_getlist(in, "points"), &n);
	if (!p)
		return IB_ENOMEM;
	par_cost_provider prov;
	par_tok_type type;
	if (!par_cost_provider_parse(rg_getstr(in, "cost_provider"), &prov))
		return ib_fail(e, IB_EINVAL, "", 0, 0, "field 'cost_provider': unknown provider");
	if (!par_tok_type_parse(rg_getstr(in, "cost_type"), &type))
		return ib_fail(e, IB_EINVAL, "", 0, 0, "field 'cost_type': unknown token type");
	double v;
	int rc = par_max_interactivity_at_cost(p, n, rg_getnum(in, "target_cost"), prov, type, &v);
	if (rc < 0)
		return rc;
	return rg_set(a, out, "value", rc ? rg_vnum(a, v) : ib_v_null(a));
}

int rg_interpolate_trend(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	int metric = rep_metric_lookup(rg_getstr(in, "metric"));
	if (metric < 0)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "field 'metric': unknown metric");
	const ib_val *l = rg_getlist(in, "points");
	size_t n = rg_len(l);
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
		p[i] = (rep_trend_point){rg_getstr(o, "id"), rg_getnum(o, "x"), &m[i]};
	}
	const ib_val *t = rg_getlist(in, "targets");
	ib_val *vals = ib_v_list(a);
	if (!vals)
		return IB_ENOMEM;
	for (size_t i = 0; i < rg_len(t); i++) {
		double v;
		int rc = rep_interpolate_trend(p, n, (rep_metric)metric, rg_num(t->list.v[i]), &v);
		if (rc < 0)
			return rc;
		if ((rc = rg_push(a, vals, rc ? rg_vnum(a, v) : ib_v_null(a))))
			return rc;
	}
	return rg_set(a, out, "values", vals);
}

static ib_val *side_obj(ib_arena *a, const par_gpu_point *pts, const rep_compare_side *s)
{
	return s->present ? rg_interp_obj(a, pts, &s->r) : ib_v_null(a);
}

int rg_compare_table(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	(void)e;
	size_t na, nb;
	par_gpu_point *pa = rg_read_gpu_points(a, rg_getlist(in, "points_a"), &na);
	par_gpu_point *pb = rg_read_gpu_points(a, rg_getlist(in, "points_b"), &nb);
	rep_compare_table *t = ib_arena_alloc(a, sizeof *t);
	if (!pa || !pb || !t)
		return IB_ENOMEM;
	int rc = rep_compare_table_compute(pa, na, pb, nb, t);
	if (rc)
		return rc;
	ib_val *range = ib_v_map(a), *targets = ib_v_list(a), *rows = ib_v_list(a),
	       *img = ib_v_list(a);
	if (!range || !targets || !rows || !img ||
	    rg_set(a, range, "min", rg_vnum(a, t->range_min)) ||
	    rg_set(a, range, "max", rg_vnum(a, t->range_max)))
		return IB_ENOMEM;
	for (size_t i = 0; i < t->ntargets; i++)
		if (rg_push(a, targets, rg_vnum(a, t->targets[i])))
			return IB_ENOMEM;
	for (size_t i = 0; i < t->nrows; i++) {
		ib_val *o = ib_v_map(a);
		if (!o || rg_set(a, o, "target", rg_vnum(a, t->rows[i].target)) ||
		    rg_set(a, o, "a", side_obj(a, pa, &t->rows[i].a)) ||
		    rg_set(a, o, "b", side_obj(a, pb, &t->rows[i].b)) || rg_push(a, rows, o))
			return IB_ENOMEM;
	}
	for (size_t i = 0; i < t->nimage_rows; i++) {
		const rep_compare_row *r = &t->image_rows[i];
		ib_val *o = ib_v_map(a);
		if (!o || rg_set(a, o, "target", rg_vnum(a, r->target)) ||
		    rg_set(a, o, "a_value",
		           r->a.present ? rg_vnum(a, r->a.r.value) : ib_v_null(a)) ||
		    rg_set(a, o, "a_cost", r->a.present ? rg_vnum(a, r->a.r.cost) : ib_v_null(a)) ||
		    rg_set(a, o, "b_value",
		           r->b.present ? rg_vnum(a, r->b.r.value) : ib_v_null(a)) ||
		    rg_set(a, o, "b_cost", r->b.present ? rg_vnum(a, r->b.r.cost) : ib_v_null(a)) ||
		    rg_push(a, img, o))
			return IB_ENOMEM;
	}
	rc = rg_set(a, out, "interactivityRange", range);
	rc = rc ? rc : rg_set(a, out, "defaultTargets", targets);
	rc = rc ? rc : rg_set(a, out, "rows", rows);
	return rc ? rc : rg_set(a, out, "image_rows", img);
}

static rep_narr_side narr_side(const ib_val *v)
{
	rep_narr_side s = {0};
	if (v && v->type == IB_V_MAP) {
		s.present = true;
		s.value = rg_getnum(v, "value");
		s.cost = rg_getnum(v, "cost");
	}
	return s;
}

int rg_compare_narrative(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	const ib_val *l = rg_getlist(in, "rows");
	size_t n = rg_len(l);
	rep_narr_row *rows = ib_arena_alloc(a, (n ? n : 1) * sizeof *rows);
	ib_buf *paras = calloc(n ? n : 1, sizeof *paras);
	int rc = IB_ENOMEM;
	if (!rows || !paras)
		goto done;
	for (size_t i = 0; i < n; i++) {
		const ib_val *r = l->list.v[i];
		rows[i].target = rg_getnum(r, "target");
		rows[i].a = narr_side(ib_map_get(r, "a"));
		rows[i].b = narr_side(ib_map_get(r, "b"));
	}
	const ib_val *range = ib_map_get(in, "interactivity_range");
	const char *model = rg_getstr(in, "model_label"), *al = rg_getstr(in, "a_label"),
	           *bl = rg_getstr(in, "b_label");
	size_t np = 0;
	rc = rep_compare_narrative(rg_getstr(in, "variant"), model ? model : "", al ? al : "",
	                           bl ? bl : "", rows, n, rg_getnum(range, "min"),
	                           rg_getnum(range, "max"), paras, &np);
	if (rc == IB_EINVAL) {
		rc = ib_fail(e, rc, "", 0, 0, "field 'variant': expected full or per-dollar");
		goto done;
	}
	ib_val *list = ib_v_list(a);
	if (!rc && !list)
		rc = IB_ENOMEM;
	for (size_t i = 0; i < np && !rc; i++)
		rc = rg_push(a, list, ib_v_str(a, paras[i].data));
	if (!rc)
		rc = rg_set(a, out, "paragraphs", list);
done:
	for (size_t i = 0; paras && i < n; i++)
		ib_buf_free(&paras[i]);
	free(paras);
	return rc;
}
