/* The generator's driver: config selection, runner resolution, scenario
 * loops, then eval marking and the eval-only filter (matrix.md §2.2–2.9). */
#include "config/config.h"
#include "matrix/private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool any_eq(const mx_strs *s, const ib_val *v)
{
	if (!v || v->type != IB_V_STR)
		return false;
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], v->str.s) == 0)
			return true;
	return false;
}

/* "k1, k2, ..." of the string keys of map m, sorted. */
static char *sorted_keys(ib_arena *a, const ib_val *m)
{
	size_t n = m && m->type == IB_V_MAP ? m->map.n : 0;
	const char **k = malloc((n + 1) * sizeof *k);
	if (!k)
		return NULL;
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		if (m->map.kv[i].key->type == IB_V_STR)
			k[c++] = m->map.kv[i].key->str.s;
	qsort(k, c, sizeof *k, ib_cmp_str);
	ib_buf b = {0};
	ib_buf_puts(&b, "");
	for (size_t i = 0; i < c; i++)
		ib_buf_printf(&b, "%s%s", i ? ", " : "", k[i]);
	char *s = ib_arena_strdup(a, b.data);
	ib_buf_free(&b);
	free(k);
	return s;
}

/* The runner values of one config (§2.6); an empty list means skip. */
static ib_val *runner_values(gen *g, const char *label)
{
	ib_arena *a = g->a;
	ib_val *out = ib_v_list(a);
	const char *f = g->o->runner_node_filter;
	ib_val *label_v = ib_map_get(g->cfg, "runner");
	if (!out)
		return NULL;
	if (!f || !*f) {
		return ib_list_push(a, out, label_v) ? NULL : out;
	}
	const ib_val *nodes = ib_map_get(ib_map_get(g->runners, "labels"), label);
	if (!g->o->full_sweep && strstr(label, f) && ib_list_push(a, out, label_v))
		return NULL;
	for (size_t i = 0; nodes && nodes->type == IB_V_LIST && i < nodes->list.n; i++) {
		ib_val *node = nodes->list.v[i];
		if (node->type != IB_V_STR || !strstr(node->str.s, f))
			continue;
		bool seen = false;
		for (size_t j = 0; j < out->list.n; j++)
			seen |= ib_val_equal(out->list.v[j], node);
		if (!seen && ib_list_push(a, out, node))
			return NULL;
	}
	return out;
}

static int one_config(gen *g)
{
	const mx_opts *o = g->o;
	const ib_val *cfg = g->cfg;
	g->multinode = ib_val_truthy(ib_map_get(cfg, "multinode"));
	g->disagg = ib_map_get(cfg, "disagg");
	if (!g->disagg)
		g->disagg = ib_v_bool(g->a, false);
	const char *label = ib_map_get(cfg, "runner")->str.s;
	g->runner_vals = runner_values(g, label);
	if (!g->runner_vals || !g->disagg)
		return mx_oom(g);
	if (!g->runner_vals->list.n)
		return 0;
	bool node_ok = !o->full_sweep || (g->multinode ? o->multi_node : o->single_node);
	const ib_val *sc = ib_map_get(cfg, "scenarios");
	const ib_val *fixed = o->want_fixed ? ib_map_get(sc, "fixed-seq-len") : NULL;
	for (size_t i = 0; fixed && fixed->type == IB_V_LIST && i < fixed->list.n; i++) {
		const ib_val *slc = fixed->list.v[i];
		const ib_val *isl = ib_map_get(slc, "isl"), *osl = ib_map_get(slc, "osl");
		if (!mx_seq_selected(o, isl, osl))
			continue;
		const ib_val *ss = ib_map_get(slc, "search-space");
		for (size_t j = 0; j < ss->list.n; j++) {
			if (!node_ok)
				continue;
			int rc = g->multinode ? mx_mn_fixed(g, isl, osl, ss->list.v[j])
			                      : mx_sn_fixed(g, isl, osl, ss->list.v[j]);
			if (rc)
				return rc;
		}
	}
	if (!node_ok)
		return 0;
	const ib_val *ag = o->want_agentic ? ib_map_get(sc, "agentic-coding") : NULL;
	for (size_t i = 0; ag && ag->type == IB_V_LIST && i < ag->list.n; i++) {
		const ib_val *ss = ib_map_get(ag->list.v[i], "search-space");
		for (size_t j = 0; j < ss->list.n; j++) {
			int rc = mx_agentic(g, ag->list.v[i], ss->list.v[j]);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* test-config key resolution (§2.4 step 1): patterns with '*' or '?' match
 * in merged order; other arguments must be exact keys; first occurrence wins. */
static int resolve_keys(gen *g, const ib_val *master, ib_val **out)
{
	ib_val *keys = ib_v_list(g->a);
	if (!keys)
		return mx_oom(g);
	for (size_t i = 0; i < g->o->config_keys.n; i++) {
		const char *k = g->o->config_keys.v[i];
		bool pattern = strchr(k, '*') || strchr(k, '?');
		size_t matched = 0;
		for (size_t j = 0; j < master->map.n; j++) {
			ib_val *name = master->map.kv[j].key;
			if (pattern ? !ib_glob_match(k, name->str.s) : strcmp(k, name->str.s) != 0)
				continue;
			matched++;
			bool seen = false;
			for (size_t m = 0; m < keys->list.n; m++)
				seen |= keys->list.v[m] == name;
			if (!seen && ib_list_push(g->a, keys, name))
				return mx_oom(g);
		}
		if (!matched) {
			char *avail = sorted_keys(g->a, master);
			if (pattern)
				return ib_fail(
				    g->e, IB_EINVAL, NULL, 0, 0,
				    "pattern '%s' (--config-keys) matched no config keys.\n"
				    "Available keys: %s",
				    k, avail ? avail : "");
			return ib_fail(
			    g->e, IB_EINVAL, NULL, 0, 0,
			    "config key '%s' (--config-keys) not found.\nAvailable keys: %s", k,
			    avail ? avail : "");
		}
	}
	*out = keys;
	return 0;
}

int mx_generate(ib_arena *a, const mx_opts *o, const ib_val *master, const ib_val *runners,
                ib_val **rows, ib_error *e)
{
	gen g = {.a = a, .o = o, .runners = runners, .e = e};
	g.rows = ib_v_list(a);
	if (!g.rows)
		return mx_oom(&g);
	if (o->full_sweep) {
		const ib_val *labels = ib_map_get(runners, "labels");
		ib_buf bad = {0};
		size_t nbad = 0;
		for (size_t i = 0; i < o->runner_type.n; i++) {
			if (ib_map_get(labels, o->runner_type.v[i]))
				continue;
			bool dup = false;
			for (size_t j = 0; j < i; j++)
				dup |= strcmp(o->runner_type.v[j], o->runner_type.v[i]) == 0;
			if (!dup)
				ib_buf_printf(&bad, "%s'%s'", nbad++ ? ", " : "",
				              o->runner_type.v[i]);
		}
		if (nbad) {
			char *valid = sorted_keys(a, labels);
			int rc = ib_fail(
			    e, IB_EINVAL, NULL, 0, 0,
			    "invalid runner type(s) (--runner-type): {%s}. Valid runner types "
			    "are: %s",
			    bad.data, valid ? valid : "");
			ib_buf_free(&bad);
			return rc;
		}
		for (size_t i = 0; i < master->map.n; i++) {
			const char *key = master->map.kv[i].key->str.s;
			const ib_val *cfg = master->map.kv[i].val;
			if (o->model_prefix.n) {
				bool ok = false;
				for (size_t j = 0; j < o->model_prefix.n && !ok; j++)
					ok = ib_str_has_prefix(key, o->model_prefix.v[j]);
				if (!ok)
					continue;
			}
			if ((o->precision.n &&
			     !any_eq(&o->precision, ib_map_get(cfg, "precision"))) ||
			    (o->framework.n &&
			     !any_eq(&o->framework, ib_map_get(cfg, "framework"))) ||
			    (o->runner_type.n &&
			     !any_eq(&o->runner_type, ib_map_get(cfg, "runner"))))
				continue;
			g.key = key;
			g.cfg = cfg;
			int rc = one_config(&g);
			if (rc)
				return rc;
		}
	} else {
		ib_val *keys = NULL;
		int rc = resolve_keys(&g, master, &keys);
		if (rc)
			return rc;
		for (size_t i = 0; i < keys->list.n; i++) {
			g.key = keys->list.v[i]->str.s;
			g.cfg = ib_map_get(master, g.key);
			if ((rc = one_config(&g)))
				return rc;
		}
	}
	ib_val *out = g.rows;
	if (!o->no_evals) {
		int rc = mx_mark_evals(a, out, o->evals_only || o->all_evals);
		if (!rc && o->all_evals)
			rc = mx_mark_all_evals(a, out, &out);
		if (rc)
			return ib_fail(e, rc, NULL, 0, 0, "out of memory marking evals");
	}
	if (o->evals_only || o->all_evals) {
		ib_val *kept = ib_v_list(a);
		ib_val *t = ib_v_bool(a, true);
		if (!kept || !t)
			return mx_oom(&g);
		for (size_t i = 0; i < out->list.n; i++) {
			ib_val *row = out->list.v[i];
			if (!ib_val_truthy(ib_map_get(row, "run-eval")))
				continue;
			int rc;
			IB_MAP_SET_LIT(rc, a, row, "eval-only", t);
			if (rc || ib_list_push(a, kept, row))
				return mx_oom(&g);
		}
		out = kept;
	}
	*rows = out;
	return 0;
}
