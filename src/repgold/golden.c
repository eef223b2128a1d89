/* repgold/golden.c — the golden-case harness: JSON accessors shared by the
 * per-function adapters (golden_fns.c), the dispatch of rg_eval and
 * the README's tolerant comparison. */
#include "repgold/private.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- input accessors ---- */

double rg_num(const ib_val *v)
{
	if (!v)
		return NAN;
	switch (v->type) {
	case IB_V_INT:
		return (double)v->i;
	case IB_V_FLOAT:
		return v->f;
	case IB_V_BOOL:
		return v->b ? 1 : 0;
	case IB_V_STR:
		if (!strcmp(v->str.s, "NaN"))
			return NAN;
		if (!strcmp(v->str.s, "Infinity"))
			return INFINITY;
		if (!strcmp(v->str.s, "-Infinity"))
			return -INFINITY;
		return NAN;
	default:
		return NAN;
	}
}

bool rg_is_num(const ib_val *v)
{
	if (!v)
		return false;
	if (v->type == IB_V_INT || v->type == IB_V_FLOAT)
		return true;
	return v->type == IB_V_STR && (!strcmp(v->str.s, "NaN") || !strcmp(v->str.s, "Infinity") ||
	                               !strcmp(v->str.s, "-Infinity"));
}

double rg_getnum(const ib_val *m, const char *k)
{
	return rg_num(ib_map_get(m, k));
}

const char *rg_getstr(const ib_val *m, const char *k)
{
	const ib_val *v = ib_map_get(m, k);
	return v && v->type == IB_V_STR ? v->str.s : NULL;
}

const ib_val *rg_getlist(const ib_val *m, const char *k)
{
	const ib_val *v = ib_map_get(m, k);
	return v && v->type == IB_V_LIST ? v : NULL;
}

size_t rg_len(const ib_val *l)
{
	return l && l->type == IB_V_LIST ? l->list.n : 0;
}

/* ---- output builders (NULL propagates as an allocation failure) ---- */

ib_val *rg_vnum(ib_arena *a, double x)
{
	if (isnan(x))
		return ib_v_str(a, "NaN");
	if (isinf(x))
		return ib_v_str(a, x > 0 ? "Infinity" : "-Infinity");
	return ib_v_float(a, x);
}

int rg_set(ib_arena *a, ib_val *m, const char *k, ib_val *v)
{
	if (!v)
		return IB_ENOMEM;
	return ib_map_set(a, m, k, v);
}

int rg_push(ib_arena *a, ib_val *l, ib_val *v)
{
	if (!v)
		return IB_ENOMEM;
	return ib_list_push(a, l, v);
}

/* ---- dispatch ---- */

static const struct {
	const char *name;
	rg_fn fn;
} fns[] = {
    {"pareto_front", rg_pareto_front},
    {"roofline", rg_roofline},
    {"table_sort", rg_table_sort},
    {"number_format", rg_number_format},
    {"monotone_spline", rg_monotone_spline},
    {"monotone_path", rg_monotone_path},
    {"hardware_key", rg_hardware_key},
    {"derived_metrics", rg_derived_metrics},
    {"chart_series", rg_chart_series},
    {"interpolate_for_gpu", rg_interpolate_for_gpu},
    {"max_interactivity_at_cost", rg_max_interactivity_at_cost},
    {"interpolate_trend", rg_interpolate_trend},
    {"compare_table", rg_compare_table},
    {"compare_narrative", rg_compare_narrative},
    {"linear_nice_ticks", rg_linear_nice_ticks},
    {"scatter_axes", rg_scatter_axes},
    {"parallelism_label", rg_parallelism_label},
    {"vendor_colors", rg_vendor_colors},
    {"gradient_stops", rg_gradient_stops},
    {"eval_aggregate", rg_eval_aggregate},
};

int rg_eval(ib_arena *a, const char *fn, const ib_val *input, ib_val **out, ib_error *e)
{
	for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
		if (!strcmp(fns[i].name, fn)) {
			if (!input || input->type != IB_V_MAP)
				return ib_fail(e, IB_EINVAL, "", 0, 0,
				               "input is not a JSON object");
			*out = ib_v_map(a);
			if (!*out)
				return IB_ENOMEM;
			int rc = fns[i].fn(a, input, *out, e);
			if (rc == IB_ENOMEM)
				ib_fail(e, rc, "", 0, 0, "out of memory");
			return rc;
		}
	return ib_fail(e, IB_ENOENT, "", 0, 0, "unknown golden function '%s'", fn);
}

/* ---- comparison ---- */

static bool num_like(const ib_val *v)
{
	return rg_is_num(v);
}

static void show(ib_buf *b, const ib_val *v)
{
	if (!v) {
		ib_buf_puts(b, "(absent)");
		return;
	}
	if (v->type == IB_V_FLOAT) {
		char s[40];
		ib_json_float_repr(v->f, s, sizeof s);
		ib_buf_puts(b, s);
		return;
	}
	ib_buf out = {0};
	if (ib_json_write(&out, v, &IB_JSON_PYTHON, NULL) == 0) {
		if (out.len > 300) {
			ib_buf_append(b, out.data, 300);
			ib_buf_puts(b, "...");
		} else {
			ib_buf_puts(b, out.data);
		}
	}
	ib_buf_free(&out);
}

static bool cmp_rec(const ib_val *x, const ib_val *y, ib_buf *path, ib_buf *diff)
{
	size_t mark = path->len;
	bool ok = true;
	if (num_like(x) && num_like(y) && !(x->type == IB_V_STR && y->type == IB_V_STR)) {
		double a = rg_num(x), b = rg_num(y);
		if (isnan(a) || isnan(b) || isinf(a) || isinf(b))
			ok = (isnan(a) && isnan(b)) || a == b;
		else
			ok = fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)) ||
			     (fabs(a) <= 1e-12 && fabs(b) <= 1e-12);
	} else if (x->type != y->type && !(x->type == IB_V_BOOL && y->type == IB_V_BOOL)) {
		ok = false;
	} else if (x->type == IB_V_STR) {
		ok = x->str.len == y->str.len && !memcmp(x->str.s, y->str.s, x->str.len);
	} else if (x->type == IB_V_BOOL) {
		ok = x->b == y->b;
	} else if (x->type == IB_V_NULL) {
		ok = true;
	} else if (x->type == IB_V_LIST) {
		if (x->list.n != y->list.n) {
			ib_buf_printf(diff, "%s: array length %zu expected, got %zu",
			              path->len ? path->data : "$", x->list.n, y->list.n);
			ib_buf_puts(diff, "\n  expected: ");
			show(diff, x);
			ib_buf_puts(diff, "\n  got:      ");
			show(diff, y);
			return false;
		}
		for (size_t i = 0; i < x->list.n; i++) {
			ib_buf_printf(path, "[%zu]", i);
			bool r = cmp_rec(x->list.v[i], y->list.v[i], path, diff);
			path->len = mark;
			path->data[mark] = 0;
			if (!r)
				return false;
		}
		return true;
	} else if (x->type == IB_V_MAP) {
		for (size_t i = 0; i < x->map.n; i++) {
			const char *k = x->map.kv[i].key->str.s;
			ib_buf_printf(path, ".%s", k);
			const ib_val *yv = ib_map_get(y, k);
			bool r;
			if (!yv) {
				ib_buf_printf(diff, "%s: missing", path->data);
				r = false;
			} else {
				r = cmp_rec(x->map.kv[i].val, yv, path, diff);
			}
			path->len = mark;
			path->data[mark] = 0;
			if (!r)
				return false;
		}
		for (size_t i = 0; i < y->map.n; i++) {
			const char *k = y->map.kv[i].key->str.s;
			if (!ib_map_get(x, k)) {
				ib_buf_printf(diff, "%s.%s: unexpected key",
				              path->len ? path->data : "$", k);
				return false;
			}
		}
		return true;
	} else {
		ok = ib_val_equal(x, y);
	}
	if (!ok) {
		ib_buf_printf(diff, "%s: expected ", path->len ? path->data : "$");
		show(diff, x);
		ib_buf_puts(diff, ", got ");
		show(diff, y);
	}
	return ok;
}

bool rg_compare(const ib_val *expected, const ib_val *got, ib_buf *diff)
{
	ib_buf path = {0};
	if (ib_buf_reserve(&path, 256))
		return false;
	path.data[0] = 0;
	bool ok = cmp_rec(expected, got, &path, diff);
	ib_buf_free(&path);
	return ok;
}
