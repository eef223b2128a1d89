/* repgold/golden_labels.c — golden adapters for labels, colours, gradients
 * and eval bars. */
#include "repgold/private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int rg_parallelism_label(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	const ib_val *l = rg_getlist(in, "points");
	ib_val *labels = ib_v_list(a);
	if (!labels)
		return IB_ENOMEM;
	for (size_t i = 0; i < rg_len(l); i++) {
		rep_row r;
		int rc = rep_row_from_json(l->list.v[i], i, &r, e);
		if (rc)
			return rc;
		char s[128];
		rep_parallelism_label(&r, s, sizeof s);
		if ((rc = rg_push(a, labels, ib_v_str(a, s))))
			return rc;
	}
	return rg_set(a, out, "labels", labels);
}

int rg_vendor_colors(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	(void)e;
	const ib_val *l = rg_getlist(in, "keys");
	size_t n = rg_len(l);
	const char **keys = ib_arena_alloc(a, (n ? n : 1) * sizeof *keys);
	char(*col)[40] = ib_arena_alloc(a, (n ? n : 1) * sizeof *col);
	size_t *order = ib_arena_alloc(a, (n ? n : 1) * sizeof *order);
	if (!keys || !col || !order)
		return IB_ENOMEM;
	for (size_t i = 0; i < n; i++)
		keys[i] = l->list.v[i]->type == IB_V_STR ? l->list.v[i]->str.s : "";
	const char *theme = rg_getstr(in, "theme");
	int rc = rep_vendor_colors(keys, n, theme && !strcmp(theme, "dark"), col, order);
	if (rc)
		return rc;
	ib_val *colors = ib_v_map(a), *legend = ib_v_list(a);
	if (!colors || !legend)
		return IB_ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (rg_set(a, colors, keys[i], ib_v_str(a, col[i])) ||
		    rg_push(a, legend, ib_v_str(a, keys[order[i]])))
			return IB_ENOMEM;
	rc = rg_set(a, out, "colors", colors);
	return rc ? rc : rg_set(a, out, "legend_order", legend);
}

int rg_gradient_stops(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	(void)e;
	const ib_val *l = rg_getlist(in, "points");
	size_t n = rg_len(l);
	rep_grad_point *p = ib_arena_alloc(a, (n ? n : 1) * sizeof *p);
	rep_grad_stop *s = ib_arena_alloc(a, (3 * n + 2) * sizeof *s);
	if (!p || !s)
		return IB_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const ib_val *o = l->list.v[i];
		const char *lab = rg_getstr(o, "label"), *c = rg_getstr(o, "color");
		p[i] = (rep_grad_point){rg_getnum(o, "x"), lab ? lab : "", c ? c : ""};
	}
	size_t k = rep_gradient_stops(p, n, s);
	if (k == 0)
		return rg_set(a, out, "stops", ib_v_null(a));
	ib_val *stops = ib_v_list(a);
	for (size_t i = 0; stops && i < k; i++) {
		ib_val *o = ib_v_map(a);
		if (!o || rg_set(a, o, "offset", rg_vnum(a, s[i].offset)) ||
		    rg_set(a, o, "color", ib_v_str(a, s[i].color)) || rg_push(a, stops, o))
			return IB_ENOMEM;
	}
	return rg_set(a, out, "stops", stops);
}

static ib_val *str_or_null(ib_arena *a, const char *s)
{
	return s ? ib_v_str(a, s) : ib_v_null(a);
}

int rg_eval_aggregate(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e)
{
	(void)e;
	const ib_val *l = rg_getlist(in, "rows"), *en = rg_getlist(in, "enabled_hw");
	size_t n = rg_len(l), ne = rg_len(en);
	rep_eval_row *rows = ib_arena_alloc(a, (n ? n : 1) * sizeof *rows);
	const char **enabled = ib_arena_alloc(a, (ne ? ne : 1) * sizeof *enabled);
	if (!rows || !enabled)
		return IB_ENOMEM;
	for (size_t i = 0; i < ne; i++)
		enabled[i] = en->list.v[i]->type == IB_V_STR ? en->list.v[i]->str.s : "";
	for (size_t i = 0; i < n; i++) {
		const ib_val *o = l->list.v[i];
		rows[i] = (rep_eval_row){rg_getstr(o, "id"),
		                         rg_getstr(o, "hwKey"),
		                         rg_getstr(o, "hw_label"),
		                         rg_getstr(o, "framework"),
		                         rg_getstr(o, "framework_label"),
		                         rg_getstr(o, "specDecode"),
		                         rg_getstr(o, "spec_label"),
		                         rg_getstr(o, "precision"),
		                         rg_getstr(o, "date"),
		                         rg_getnum(o, "conc"),
		                         rg_getnum(o, "tp"),
		                         rg_getnum(o, "score"),
		                         rg_getnum(o, "scoreError"),
		                         0,
		                         false};
	}
	const ib_val *sp = ib_map_get(in, "show_precision");
	rep_eval_chart *c;
	int rc = rep_eval_aggregate(rows, n, enabled, ne, sp && ib_val_truthy(sp), &c);
	if (rc)
		return rc;
	ib_val *labels = ib_v_list(a), *latest = ib_v_list(a), *bars = ib_v_list(a),
	       *dom = ib_v_list(a);
	rc = labels && latest && bars && dom ? 0 : IB_ENOMEM;
	for (size_t i = 0; i < n && !rc; i++)
		rc = rg_push(a, labels, ib_v_str(a, c->labels[i]));
	for (size_t i = 0; i < c->nlatest && !rc; i++)
		rc = rg_push(a, latest, str_or_null(a, rows[c->latest[i]].id));
	for (size_t i = 0; i < c->nbars && !rc; i++) {
		const rep_eval_bar *b = &c->bars[i];
		ib_val *o = ib_v_map(a);
		if (!o || rg_set(a, o, "configLabel", ib_v_str(a, b->label)) ||
		    rg_set(a, o, "hwKey", str_or_null(a, b->hw_key)) ||
		    rg_set(a, o, "first_id", str_or_null(a, rows[b->first].id)) ||
		    rg_set(a, o, "score", rg_vnum(a, b->score)) ||
		    rg_set(a, o, "scoreError", rg_vnum(a, b->score_error)) ||
		    rg_set(a, o, "minScore", rg_vnum(a, b->min_score)) ||
		    rg_set(a, o, "maxScore", rg_vnum(a, b->max_score)) ||
		    rg_set(a, o, "errorMin", rg_vnum(a, b->error_min)) ||
		    rg_set(a, o, "errorMax", rg_vnum(a, b->error_max)) || rg_push(a, bars, o))
			rc = IB_ENOMEM;
	}
	if (!rc && (rg_push(a, dom, rg_vnum(a, c->x_domain[0])) ||
	            rg_push(a, dom, rg_vnum(a, c->x_domain[1]))))
		rc = IB_ENOMEM;
	rep_eval_chart_free(c);
	rc = rc ? rc : rg_set(a, out, "labels", labels);
	rc = rc ? rc : rg_set(a, out, "latest_ids", latest);
	rc = rc ? rc : rg_set(a, out, "bars", bars);
	return rc ? rc : rg_set(a, out, "x_domain", dom);
}
