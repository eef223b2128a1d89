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
	static const char *const ign[] = {"conc",      "run-eval",       "eval-only",
	                                  "eval-conc", "eval-all-concs", "exp-name"};
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
	static const char *const keys[] = {"model", "runner", "framework",     "precision",
	                                   "isl",   "osl",    "spec-decoding", "dp-attn"};
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

/* Hash of the SN group key (model, runner, framework, precision[, isl, osl,
 * spec-decoding, dp-attn]). */
static uint64_t sn_hash(const ib_val *r, bool agentic)
{
	static const char *const keys[] = {"model", "runner", "framework",     "precision",
	                                   "isl",   "osl",    "spec-decoding", "dp-attn"};
	uint64_t h = 17;
	for (size_t i = 0; i < (agentic ? 4u : 8u); i++)
		h = h * 1000003 + ib_val_hash(ib_map_get(r, keys[i]));
	return h;
}

/* Hash of the multinode parallelism key (every key but the ignored ones). */
static uint64_t mn_hash(const ib_val *r)
{
	uint64_t h = 0;
	for (size_t i = 0; i < r->map.n; i++)
		if (!ignored_key(r->map.kv[i].key))
			h += ib_val_hash(r->map.kv[i].key) * 0x9e3779b97f4a7c15ULL ^
			     ib_val_hash(r->map.kv[i].val);
	return h;
}

enum { K_NONE, K_SN_FIXED, K_MN_FIXED, K_SN_AGENTIC, K_MN_AGENTIC };

/* Groups rows by (kind, key) with a hash table; equality is checked in full. */
typedef struct {
	size_t *slot; /* representative row + 1 per slot, 0 = empty */
	size_t *gid;  /* group id of the slot */
	size_t cap, ngroups;
} grouper;

static int grouper_init(grouper *g, size_t n)
{
	g->cap = 16;
	while (g->cap < n * 2 + 2)
		g->cap *= 2;
	g->slot = calloc(g->cap, sizeof *g->slot);
	g->gid = calloc(g->cap, sizeof *g->gid);
	g->ngroups = 0;
	return g->slot && g->gid ? 0 : IB_ENOMEM;
}

static void grouper_free(grouper *g)
{
	free(g->slot);
	free(g->gid);
}

static bool same_group(const ib_val *x, const ib_val *y, int kind)
{
	if (kind == K_SN_FIXED || kind == K_SN_AGENTIC)
		return same_sn_group(x, y, kind == K_SN_AGENTIC);
	return same_parallelism(x, y);
}

/* The group id of rows[i] (of `kind`, hash h), creating a group if new. */
static size_t grouper_get(grouper *g, ib_val *const *rows, size_t i, int kind, uint64_t h,
                          const int *kinds)
{
	size_t k = (size_t)(h ^ (uint64_t)kind * 0x9e3779b97f4a7c15ULL) & (g->cap - 1);
	for (;; k = (k + 1) & (g->cap - 1)) {
		if (!g->slot[k]) {
			g->slot[k] = i + 1;
			g->gid[k] = g->ngroups++;
			return g->gid[k];
		}
		size_t rep = g->slot[k] - 1;
		if (kinds[rep] == kind && same_group(rows[rep], rows[i], kind))
			return g->gid[k];
	}
}

int mx_mark_evals(ib_arena *a, ib_val *rows, bool include_agentic)
{
	size_t n = rows->list.n;
	ib_val **r = rows->list.v;
	int *kind = calloc(n + 1, sizeof *kind);
	const ib_val **best = calloc(n + 1, sizeof *best);
	size_t *grp = calloc(n + 1, sizeof *grp);
	size_t *leader = calloc(n + 1, sizeof *leader); /* per group: chosen row + 1 */
	bool *marked = calloc(n + 1, sizeof *marked);
	ib_val **cs = calloc(n + 1, sizeof *cs);
	ib_val *t = ib_v_bool(a, true), *f = ib_v_bool(a, false);
	grouper gr = {0};
	int rc = (!kind || !best || !grp || !leader || !marked || !cs || !t || !f ||
	          grouper_init(&gr, n))
	             ? IB_ENOMEM
	             : 0;
	for (size_t i = 0; !rc && i < n; i++) {
		bool agentic = is_agentic(r[i]), mn = ib_map_has(r[i], "prefill");
		bool tp = ib_map_has(r[i], "tp");
		if (agentic && include_agentic) {
			kind[i] = mn ? K_MN_AGENTIC : K_SN_AGENTIC;
			best[i] = mn ? max_eligible(r[i]) : ib_map_get(r[i], "conc");
		} else if (!agentic && is_8k1k(r[i])) {
			kind[i] = tp ? K_SN_FIXED : mn ? K_MN_FIXED : K_NONE;
			best[i] = max_eligible(r[i]);
		}
		if (kind[i] == K_NONE || !best[i]) {
			kind[i] = K_NONE;
			continue;
		}
		uint64_t h = kind[i] == K_SN_FIXED || kind[i] == K_SN_AGENTIC
		                 ? sn_hash(r[i], kind[i] == K_SN_AGENTIC)
		                 : mn_hash(r[i]);
		grp[i] = grouper_get(&gr, r, i, kind[i], h, kind);
		/* the first row with the largest value leads its group */
		size_t l = leader[grp[i]];
		if (!l || mx_num(best[i]) > mx_num(best[l - 1]))
			leader[grp[i]] = i + 1;
	}
	/* multinode and agentic: the leader is the eval row */
	for (size_t i = 0; !rc && i < n; i++)
		if (kind[i] != K_NONE && kind[i] != K_SN_FIXED && leader[grp[i]] == i + 1)
			marked[i] = true;
	/* single-node fixed: every row at the max or upper-median distinct conc */
	for (size_t i = 0; !rc && i < n; i++) {
		if (kind[i] != K_SN_FIXED || cs[grp[i]])
			continue; /* cs[g] != NULL: group done */
		size_t g = grp[i], nc = 0;
		ib_val **vals = malloc((n - i) * sizeof *vals);
		if (!vals) {
			rc = IB_ENOMEM;
			break;
		}
		for (size_t j = i; j < n; j++)
			if (kind[j] == K_SN_FIXED && grp[j] == g)
				vals[nc++] = ib_map_get(r[j], "conc");
		ib_val *d = sorted_distinct(a, vals, nc);
		free(vals);
		if (!d) {
			rc = IB_ENOMEM;
			break;
		}
		cs[g] = d;
		const ib_val *top = d->list.v[d->list.n - 1], *med = d->list.v[d->list.n / 2];
		for (size_t j = i; j < n; j++) {
			if (kind[j] != K_SN_FIXED || grp[j] != g)
				continue;
			const ib_val *c = ib_map_get(r[j], "conc");
			marked[j] = ib_val_equal(c, top) || ib_val_equal(c, med);
		}
	}
	for (size_t i = 0; !rc && i < n; i++) {
		IB_MAP_SET_LIT(rc, a, r[i], "run-eval", marked[i] ? t : f);
		if (!rc && marked[i] && (kind[i] == K_MN_FIXED || kind[i] == K_MN_AGENTIC))
			IB_MAP_SET_LIT(rc, a, r[i], "eval-conc", (ib_val *)best[i]);
	}
	free(kind);
	free(best);
	free(grp);
	free(leader);
	free(marked);
	free(cs);
	grouper_free(&gr);
	return rc;
}

/* Appends the conc values of row (int or list) to the array. */
static int gather(ib_val ***v, size_t *n, size_t *cap, const ib_val *conc)
{
	size_t k = conc->type == IB_V_LIST ? conc->list.n : 1;
	if (ib_grow(v, cap, *n + k))
		return IB_ENOMEM;
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
	if (!merged)
		return IB_ENOMEM;
	IB_MAP_SET_LIT(rc, a, leader, "conc", merged);
	if (!rc && set_eval_conc && merged->list.n)
		IB_MAP_SET_LIT(rc, a, leader, "eval-conc", merged->list.v[merged->list.n - 1]);
	return rc;
}

int mx_mark_all_evals(ib_arena *a, const ib_val *rows, ib_val **out)
{
	size_t n = rows->list.n;
	ib_val *res = ib_v_list(a), *t = ib_v_bool(a, true);
	int *kind = calloc(n + 1, sizeof *kind);
	size_t *lead = calloc(n + 1, sizeof *lead); /* group id -> index in res + 1 */
	grouper gr = {0};
	int rc = (!res || !t || !kind || !lead || grouper_init(&gr, n)) ? IB_ENOMEM : 0;
	for (size_t i = 0; !rc && i < n; i++) {
		ib_val *r = rows->list.v[i];
		bool agentic = is_agentic(r);
		bool mn = ib_map_has(r, "prefill");
		if (agentic && !mn) {
			IB_MAP_SET_LIT(rc, a, r, "run-eval", t);
			if (!rc && ib_list_push(a, res, r))
				rc = IB_ENOMEM;
			continue;
		}
		if (!agentic && (!is_8k1k(r) || !mn)) {
			if (is_8k1k(r))
				IB_MAP_SET_LIT(rc, a, r, "run-eval", t);
			if (!rc && ib_list_push(a, res, r))
				rc = IB_ENOMEM;
			continue;
		}
		/* multinode: fold into an existing group of the same kind */
		kind[i] = agentic ? K_MN_AGENTIC : K_MN_FIXED;
		size_t g = grouper_get(&gr, rows->list.v, i, kind[i], mn_hash(r), kind);
		if (lead[g]) {
			rc = merge_into(a, res->list.v[lead[g] - 1], r, agentic);
			continue;
		}
		ib_val *c = ib_map_copy(a, r);
		ib_val *empty = ib_v_list(a);
		if (!c || !empty) {
			rc = IB_ENOMEM;
			break;
		}
		IB_MAP_SET_LIT(rc, a, c, "conc", empty);
		if (!rc)
			rc = merge_into(a, c, r, agentic);
		if (!rc)
			IB_MAP_SET_LIT(rc, a, c, "run-eval", t);
		if (!rc && !agentic) {
			IB_MAP_SET_LIT(rc, a, c, "eval-all-concs", t);
			ib_map_del(c, "eval-conc");
		}
		if (rc)
			break;
		lead[g] = res->list.n + 1;
		if (!rc && ib_list_push(a, res, c))
			rc = IB_ENOMEM;
	}
	free(kind);
	free(lead);
	grouper_free(&gr);
	if (!rc)
		*out = res;
	return rc;
}
