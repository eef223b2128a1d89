/* Eval marking (matrix.md §2.8): the default policy and --all-evals. */
#include "matrix/private.h"

#include <stdlib.h>
#include <string.h>

enum { MIN_EVAL_CONC = 16 };

static bool is_8k1k(const ib_val *row)
{
	const ib_val *isl = ib_map_get(row, "isl"), *osl = ib_map_get(row, "osl");
	return isl && osl && isl->type != IB_V_STR && osl->type != IB_V_STR &&
	       isl->type != IB_V_NULL && osl->type != IB_V_NULL && mx_num(isl) == 8192 &&
	       mx_num(osl) == 1024;
}

static bool is_agentic(const ib_val *row)
{
	const ib_val *s = ib_map_get(row, "scenario-type");
	return s && s->type == IB_V_STR && strcmp(s->str.s, "agentic-coding") == 0;
}

/* The highest conc >= 16 of a row (int or list), or NULL when none. */
static const ib_val *max_eligible(const ib_val *row)
{
	const ib_val *c = ib_map_get(row, "conc");
	const ib_val *best = NULL;
	size_t n = c->type == IB_V_LIST ? c->list.n : 1;
	for (size_t i = 0; i < n; i++) {
		const ib_val *v = c->type == IB_V_LIST ? c->list.v[i] : c;
		if (mx_num(v) >= MIN_EVAL_CONC && (!best || mx_num(v) > mx_num(best)))
			best = v;
	}
	return best;
}

static bool ignored_key(const ib_val *k)
{
	static const char *const ign[] = {"conc", "run-eval", "eval-only", "eval-conc", "eval-all-concs",
					  "exp-name"};
	if (k->type != IB_V_STR)
		return false;
	for (size_t i = 0; i < 6; i++)
		if (strcmp(k->str.s, ign[i]) == 0)
			return true;
	return false;
}

/* Same multinode parallelism key: equal on every key but the ignored ones. */
static bool same_parallelism(const ib_val *x, const ib_val *y)
{
	size_t nx = 0, ny = 0;
	for (size_t i = 0; i < x->map.n; i++) {
		const ib_kv *kv = &x->map.kv[i];
		if (ignored_key(kv->key))
			continue;
		nx++;
		bool found = false;
		for (size_t j = 0; j < y->map.n && !found; j++) {
			if (ib_val_equal(kv->key, y->map.kv[j].key)) {
				if (!ib_val_equal(kv->val, y->map.kv[j].val))
					return false;
				found = true;
			}
		}
		if (!found)
			return false;
	}
	for (size_t j = 0; j < y->map.n; j++)
		ny += !ignored_key(y->map.kv[j].key);
	return nx == ny;
}

static bool same_sn_group(const ib_val *x, const ib_val *y, bool agentic)
{
	static const char *const keys[] = {"model", "runner", "framework", "precision",
					   "isl", "osl", "spec-decoding", "dp-attn"};
	size_t n = agentic ? 4 : 8;
	for (size_t i = 0; i < n; i++)
		if (!ib_val_equal(ib_map_get(x, keys[i]), ib_map_get(y, keys[i])))
			return false;
	return true;
}

static int cmp_num(const void *a, const void *b)
{
	double x = mx_num(*(ib_val *const *)a), y = mx_num(*(ib_val *const *)b);
	return x < y ? -1 : x > y;
}

/* Python sorted(set(values)): distinct by ==, ascending. */
static ib_val *sorted_distinct(ib_arena *a, ib_val *const *v, size_t n)
{
	ib_val *out = ib_v_list(a);
	for (size_t i = 0; out && i < n; i++) {
		bool seen = false;
		for (size_t j = 0; j < out->list.n && !seen; j++)
			seen = ib_val_equal(out->list.v[j], v[i]);
		if (!seen && ib_list_push(a, out, v[i]))
			return NULL;
	}
	if (out && out->list.n > 1)
		qsort(out->list.v, out->list.n, sizeof(ib_val *), cmp_num);
	return out;
}

typedef struct {
	ib_val **rows;
	size_t n;
	bool *marked;
	const ib_val **eval_conc; /* for multinode rows */
} marks;

/* SN fixed: per group, every row at the max or upper-median distinct conc. */
static int mark_sn_fixed(ib_arena *a, marks *m)
{
	bool *done = calloc(m->n + 1, 1);
	ib_val **cs = malloc((m->n + 1) * sizeof *cs);
	if (!done || !cs) {
		free(done);
		free(cs);
		return IB_ENOMEM;
	}
	int rc = 0;
	for (size_t i = 0; i < m->n && !rc; i++) {
		ib_val *r = m->rows[i];
		if (done[i] || !ib_map_has(r, "tp") || !is_8k1k(r) || !max_eligible(r))
			continue;
		size_t nc = 0;
		for (size_t j = i; j < m->n; j++) {
			ib_val *s = m->rows[j];
			if (done[j] || !ib_map_has(s, "tp") || !is_8k1k(s) || !max_eligible(s) ||
			    !same_sn_group(r, s, false))
				continue;
			done[j] = true;
			cs[nc++] = ib_map_get(s, "conc");
		}
		ib_val *d = sorted_distinct(a, cs, nc);
		if (!d) {
			rc = IB_ENOMEM;
			break;
		}
		const ib_val *top = d->list.v[d->list.n - 1], *med = d->list.v[d->list.n / 2];
		for (size_t j = i; j < m->n; j++) {
			ib_val *s = m->rows[j];
			if (!ib_map_has(s, "tp") || !is_8k1k(s) || !max_eligible(s) || !same_sn_group(r, s, false))
				continue;
			const ib_val *c = ib_map_get(s, "conc");
			if (ib_val_equal(c, top) || ib_val_equal(c, med))
				m->marked[j] = true;
		}
	}
	free(done);
	free(cs);
	return rc;
}

/* Multinode rows selected by `want`: per parallelism group, the row whose
 * highest eligible conc is largest (first on ties) gets marked + eval-conc. */
static int mark_mn(marks *m, bool (*want)(const ib_val *))
{
	bool *done = calloc(m->n + 1, 1);
	if (!done)
		return IB_ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		ib_val *r = m->rows[i];
		if (done[i] || !want(r) || !max_eligible(r))
			continue;
		size_t best = i;
		const ib_val *best_c = max_eligible(r);
		for (size_t j = i; j < m->n; j++) {
			ib_val *s = m->rows[j];
			if (done[j] || !want(s) || !max_eligible(s) || !same_parallelism(r, s))
				continue;
			done[j] = true;
			const ib_val *c = max_eligible(s);
			if (mx_num(c) > mx_num(best_c)) {
				best = j;
				best_c = c;
			}
		}
		m->marked[best] = true;
		m->eval_conc[best] = best_c;
	}
	free(done);
	return 0;
}

static bool want_mn_fixed(const ib_val *r)
{
	return !ib_map_has(r, "tp") && ib_map_has(r, "prefill") && is_8k1k(r);
}

static bool want_mn_agentic(const ib_val *r)
{
	return is_agentic(r) && ib_map_has(r, "prefill");
}

/* SN agentic: per (model, runner, framework, precision), the row with the
 * largest conc (first on ties), no threshold. */
static void mark_sn_agentic(marks *m)
{
	bool *done = calloc(m->n + 1, 1);
	if (!done)
		return;
	for (size_t i = 0; i < m->n; i++) {
		ib_val *r = m->rows[i];
		if (done[i] || !is_agentic(r) || ib_map_has(r, "prefill"))
			continue;
		size_t best = i;
		for (size_t j = i; j < m->n; j++) {
			ib_val *s = m->rows[j];
			if (done[j] || !is_agentic(s) || ib_map_has(s, "prefill") || !same_sn_group(r, s, true))
				continue;
			done[j] = true;
			if (mx_num(ib_map_get(s, "conc")) > mx_num(ib_map_get(m->rows[best], "conc")))
				best = j;
		}
		m->marked[best] = true;
	}
	free(done);
}

int mx_mark_evals(ib_arena *a, ib_val *rows, bool include_agentic)
{
	marks m = {.rows = rows->list.v, .n = rows->list.n};
	m.marked = calloc(m.n + 1, sizeof *m.marked);
	m.eval_conc = calloc(m.n + 1, sizeof *m.eval_conc);
	ib_val *t = ib_v_bool(a, true), *f = ib_v_bool(a, false);
	int rc = (!m.marked || !m.eval_conc || !t || !f) ? IB_ENOMEM : 0;
	if (!rc)
		rc = mark_sn_fixed(a, &m);
	if (!rc)
		rc = mark_mn(&m, want_mn_fixed);
	if (!rc && include_agentic) {
		mark_sn_agentic(&m);
		rc = mark_mn(&m, want_mn_agentic);
	}
	for (size_t i = 0; !rc && i < m.n; i++) {
		if (ib_map_set(a, m.rows[i], "run-eval", m.marked[i] ? t : f))
			rc = IB_ENOMEM;
		else if (m.eval_conc[i] && ib_map_set(a, m.rows[i], "eval-conc", (ib_val *)m.eval_conc[i]))
			rc = IB_ENOMEM;
	}
	free(m.marked);
	free(m.eval_conc);
	return rc;
}

/* Appends the conc values of row (int or list) to the array. */
static int gather(ib_val ***v, size_t *n, size_t *cap, const ib_val *conc)
{
	size_t k = conc->type == IB_V_LIST ? conc->list.n : 1;
	if (*n + k > *cap) {
		size_t nc = (*n + k) * 2 + 8;
		ib_val **p = realloc(*v, nc * sizeof *p);
		if (!p)
			return IB_ENOMEM;
		*v = p;
		*cap = nc;
	}
	for (size_t i = 0; i < k; i++)
		(*v)[(*n)++] = conc->type == IB_V_LIST ? conc->list.v[i] : (ib_val *)conc;
	return 0;
}

/* Merges row into the group leader: conc = sorted distinct union. */
static int merge_into(ib_arena *a, ib_val *leader, const ib_val *row, bool set_eval_conc)
{
	ib_val **v = NULL;
	size_t n = 0, cap = 0;
	int rc = gather(&v, &n, &cap, ib_map_get(leader, "conc"));
	if (!rc)
		rc = gather(&v, &n, &cap, ib_map_get(row, "conc"));
	ib_val *merged = rc ? NULL : sorted_distinct(a, v, n);
	free(v);
	if (!merged || ib_map_set(a, leader, "conc", merged))
		return IB_ENOMEM;
	if (set_eval_conc && merged->list.n &&
	    ib_map_set(a, leader, "eval-conc", merged->list.v[merged->list.n - 1]))
		return IB_ENOMEM;
	return 0;
}

int mx_mark_all_evals(ib_arena *a, const ib_val *rows, ib_val **out)
{
	ib_val *res = ib_v_list(a), *t = ib_v_bool(a, true);
	/* indices (into res) of multinode group leaders, fixed and agentic */
	size_t *lead = calloc(rows->list.n + 1, sizeof *lead);
	bool *lead_agentic = calloc(rows->list.n + 1, 1);
	size_t nlead = 0;
	int rc = (!res || !t || !lead || !lead_agentic) ? IB_ENOMEM : 0;
	for (size_t i = 0; !rc && i < rows->list.n; i++) {
		ib_val *r = rows->list.v[i];
		bool agentic = is_agentic(r);
		bool mn = ib_map_has(r, "prefill");
		if (agentic && !mn) {
			rc = ib_map_set(a, r, "run-eval", t) || ib_list_push(a, res, r) ? IB_ENOMEM : 0;
			continue;
		}
		if (!agentic && (!is_8k1k(r) || !mn)) {
			if (is_8k1k(r) && ib_map_set(a, r, "run-eval", t))
				rc = IB_ENOMEM;
			else if (ib_list_push(a, res, r))
				rc = IB_ENOMEM;
			continue;
		}
		/* multinode: fold into an existing group of the same kind */
		size_t k;
		for (k = 0; k < nlead; k++)
			if (lead_agentic[k] == agentic && same_parallelism(res->list.v[lead[k]], r))
				break;
		if (k < nlead) {
			rc = merge_into(a, res->list.v[lead[k]], r, agentic);
			continue;
		}
		ib_val *c = ib_map_copy(a, r);
		ib_val *empty = ib_v_list(a);
		if (!c || !empty || ib_map_set(a, c, "conc", empty) || merge_into(a, c, r, agentic) ||
		    ib_map_set(a, c, "run-eval", t)) {
			rc = IB_ENOMEM;
			break;
		}
		if (!agentic) {
			if (ib_map_set(a, c, "eval-all-concs", t))
				rc = IB_ENOMEM;
			ib_map_del(c, "eval-conc");
		}
		lead[nlead] = res->list.n;
		lead_agentic[nlead++] = agentic;
		if (!rc && ib_list_push(a, res, c))
			rc = IB_ENOMEM;
	}
	free(lead);
	free(lead_agentic);
	if (!rc)
		*out = res;
	return rc;
}
