/* Row generation for full-sweep and test-config (matrix.md §2.3–2.7). */
#include "config/config.h"
#include "matrix/matrix.h"
#include "matrix/private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mx_opts_init(mx_opts *o, bool full_sweep)
{
	memset(o, 0, sizeof *o);
	o->full_sweep = full_sweep;
	o->want_fixed = o->want_agentic = true;
	o->step_size = 2;
	o->single_node = o->multi_node = true;
}

size_t mx_expand(int64_t start, int64_t end, int64_t step, int64_t *out, size_t cap)
{
	size_t n = 0;
	int64_t c = start;
	while (c <= end) {
		if (n < cap)
			out[n] = c;
		n++;
		if (c == end || c <= 0 || step < 2)
			break;
		c = c > end / step ? end : c * step;
	}
	return n;
}

/* ---- small Python-semantics helpers ---- */

double mx_num(const ib_val *v)
{
	switch (v ? v->type : IB_V_NULL) {
	case IB_V_INT:
		return (double)v->i;
	case IB_V_BOOL:
		return v->b;
	case IB_V_FLOAT:
		return v->f;
	default: {
		int64_t i = 0;
		cfg_lax_int(v, &i);
		return (double)i;
	}
	}
}

int64_t mx_ival(const ib_val *v)
{
	int64_t i = 0;
	cfg_lax_int(v, &i);
	return i;
}

/* isl + osl + 256 with Python's int/float promotion. */
static ib_val *max_model_len(ib_arena *a, const ib_val *isl, const ib_val *osl)
{
	if (isl->type == IB_V_FLOAT || osl->type == IB_V_FLOAT)
		return ib_v_float(a, mx_num(isl) + mx_num(osl) + 256);
	return ib_v_int(a, mx_ival(isl) + mx_ival(osl) + 256);
}

void mx_seq_len_str(ib_buf *b, const ib_val *isl, const ib_val *osl)
{
	double i = mx_num(isl), o = mx_num(osl);
	bool numeric = isl->type != IB_V_STR && osl->type != IB_V_STR;
	if (numeric && i == 1024 && o == 1024) {
		ib_buf_puts(b, "1k1k");
	} else if (numeric && i == 8192 && o == 1024) {
		ib_buf_puts(b, "8k1k");
	} else {
		ib_val_pystr(b, isl);
		ib_buf_putc(b, '_');
		ib_val_pystr(b, osl);
	}
}

bool mx_seq_selected(const mx_opts *o, const ib_val *isl, const ib_val *osl)
{
	if (!o->have_seq_lens)
		return true;
	if (isl->type == IB_V_STR || osl->type == IB_V_STR)
		return false;
	double i = mx_num(isl), s = mx_num(osl);
	return (o->seq_1k1k && i == 1024 && s == 1024) || (o->seq_8k1k && i == 8192 && s == 1024);
}

/* Python's {**worker, pp: .., dcp-size: .., pcp-size: ..} */
ib_val *mx_worker_with_defaults(ib_arena *a, const ib_val *w)
{
	ib_val *c = ib_map_copy(a, w);
	static ib_val keys[] = {IB_KEY_INIT("pp"), IB_KEY_INIT("dcp-size"),
	                        IB_KEY_INIT("pcp-size")};
	for (int i = 0; c && i < 3; i++) {
		ib_val *v = ib_map_get(w, keys[i].str.s);
		if (!v)
			v = ib_v_int(a, 1);
		if (!v || ib_map_set_key(a, c, &keys[i], v))
			return NULL;
	}
	return c;
}

/* entry.get(key, default) where a present null stays null */
ib_val *mx_get_or(ib_arena *a, const ib_val *m, const char *key, const char *def_str)
{
	const ib_kv *kv = ib_map_find(m, key);
	if (kv)
		return kv->val;
	return ib_v_str(a, def_str);
}

ib_val *mx_get_or_int(ib_arena *a, const ib_val *m, const char *key, int64_t def)
{
	const ib_kv *kv = ib_map_find(m, key);
	return kv ? kv->val : ib_v_int(a, def);
}

int mx_oom(gen *g)
{
	return ib_fail(g->e, IB_ENOMEM, NULL, 0, 0, "out of memory");
}

/* Appends router / kv-p2p-transfer (§2.5 component metadata). */
int mx_add_components(gen *g, ib_val *row, const ib_val *bmk)
{
	static ib_val keys[] = {IB_KEY_INIT("router"), IB_KEY_INIT("kv-p2p-transfer")};
	for (int i = 0; i < 2; i++) {
		const ib_kv *kv = ib_map_find(bmk, keys[i].str.s);
		ib_val *v = kv ? kv->val : ib_map_get(g->cfg, keys[i].str.s);
		if (v && v->type != IB_V_NULL && ib_map_set_key(g->a, row, &keys[i], v))
			return IB_ENOMEM;
	}
	return 0;
}

/* The common head of every row: image .. framework, runner. */
ib_val *mx_row_head(gen *g, ib_val *runner)
{
	static ib_val keys[] = {IB_KEY_INIT("image"),        IB_KEY_INIT("model"),
	                        IB_KEY_INIT("model-prefix"), IB_KEY_INIT("precision"),
	                        IB_KEY_INIT("framework"),    IB_KEY_INIT("runner")};
	ib_val *r = ib_v_map_cap(g->a, 24);
	for (int i = 0; r && i < 6; i++)
		if (ib_map_set_key(g->a, r, &keys[i],
		                   i < 5 ? ib_map_get(g->cfg, keys[i].str.s) : runner))
			return NULL;
	return r;
}

/* "<model-prefix>_<seqlen>" */
static ib_val *fixed_exp_name(gen *g, const ib_val *isl, const ib_val *osl)
{
	ib_buf n = {0};
	ib_val_pystr(&n, ib_map_get(g->cfg, "model-prefix"));
	ib_buf_putc(&n, '_');
	mx_seq_len_str(&n, isl, osl);
	ib_val *v = n.data ? ib_v_strn(g->a, n.data, n.len) : NULL;
	ib_buf_free(&n);
	return v;
}

int mx_push_c(gen *g, cvals *c, ib_val *v)
{
	if (!v)
		return IB_ENOMEM;
	if (c->n == c->cap) {
		/* doubling: the arena keeps the old arrays, 2n slots in all
		 * (one more slot per push was quadratic: GBs for 40,000 concs) */
		size_t cap = c->cap ? 2 * c->cap : 16;
		ib_val **p =
		    cap < ((size_t)-1) / sizeof *p ? ib_arena_alloc(g->a, cap * sizeof *p) : NULL;
		if (!p)
			return IB_ENOMEM;
		if (c->n)
			memcpy(p, c->v, c->n * sizeof *p);
		c->v = p;
		c->cap = cap;
	}
	c->v[c->n++] = v;
	return 0;
}

int mx_expand_into(gen *g, cvals *c, int64_t start, int64_t end, int64_t step)
{
	int64_t buf[128];
	size_t n = mx_expand(start, end, step, buf, 128);
	int64_t *vals = buf;
	if (n > 128) {
		vals = ib_arena_alloc(g->a, n * sizeof *vals);
		if (!vals)
			return IB_ENOMEM;
		mx_expand(start, end, step, vals, n);
	}
	for (size_t i = 0; i < n; i++)
		if (mx_push_c(g, c, ib_v_int(g->a, vals[i])))
			return IB_ENOMEM;
	return 0;
}

int mx_list_into(gen *g, cvals *c, const ib_val *list)
{
	for (size_t i = 0; i < list->list.n; i++)
		if (mx_push_c(g, c, list->list.v[i]))
			return IB_ENOMEM;
	return 0;
}

void mx_keep_if(cvals *c, bool (*pred)(const ib_val *, const void *), const void *arg)
{
	size_t k = 0;
	for (size_t i = 0; i < c->n; i++)
		if (pred(c->v[i], arg))
			c->v[k++] = c->v[i];
	c->n = k;
}

bool mx_ge(const ib_val *v, const void *m)
{
	return mx_num(v) >= (double)*(const int64_t *)m;
}

bool mx_le(const ib_val *v, const void *m)
{
	return mx_num(v) <= (double)*(const int64_t *)m;
}

bool mx_in_conc(const ib_val *v, const void *arg)
{
	const mx_opts *o = arg;
	for (size_t i = 0; i < o->nconc; i++)
		if (mx_num(v) == (double)o->conc[i])
			return true;
	return false;
}

/* test-config: conc-list if the key is present (even null or empty), else
 * the range with step 2; then the --conc membership filter. */
int mx_tc_concs(gen *g, const ib_val *bmk, cvals *c, bool *skip)
{
	const ib_kv *kv = ib_map_find(bmk, "conc-list");
	*skip = false;
	if (kv) {
		if (kv->val->type != IB_V_LIST)
			return ib_fail(
			    g->e, IB_EINVAL, kv->val->file, kv->val->line, kv->val->col,
			    "entry '%s': field 'conc-list' is null while a range is given; "
			    "test-config takes 'conc-list' whenever the key is present "
			    "(remove the key)",
			    g->key);
		if (mx_list_into(g, c, kv->val))
			return IB_ENOMEM;
	} else if (mx_expand_into(g, c, mx_ival(ib_map_get(bmk, "conc-start")),
	                          mx_ival(ib_map_get(bmk, "conc-end")), 2)) {
		return IB_ENOMEM;
	}
	if (g->o->nconc) {
		mx_keep_if(c, mx_in_conc, g->o);
		if (c->n == 0)
			*skip = true;
	}
	return 0;
}

/* full-sweep windows (§2.3.1 SN, §2.3.2 MN) */
static int fs_concs(gen *g, const ib_val *bmk, bool sn, cvals *c, bool *skip)
{
	const mx_opts *o = g->o;
	const ib_val *list = ib_map_get(bmk, "conc-list");
	*skip = false;
	if (ib_val_truthy(list)) {
		if (mx_list_into(g, c, list))
			return IB_ENOMEM;
		if (o->has_min_conc) {
			if (o->min_conc <= 0)
				return *skip = true, 0;
			mx_keep_if(c, mx_ge, &o->min_conc);
			if (!c->n)
				return *skip = true, 0;
		}
		if (o->has_max_conc) {
			if (sn && o->max_conc <= 0)
				return *skip = true, 0;
			mx_keep_if(c, mx_le, &o->max_conc);
			if (!c->n) {
				if (o->max_conc <= 0)
					return *skip = true, 0;
				return mx_push_c(g, c, ib_v_int(g->a, o->max_conc));
			}
		}
		return 0;
	}
	int64_t start = mx_ival(ib_map_get(bmk, "conc-start")),
	        end = mx_ival(ib_map_get(bmk, "conc-end"));
	if (!sn) {
		if (mx_expand_into(g, c, start, end, o->step_size))
			return IB_ENOMEM;
		if (o->has_min_conc) {
			if (o->min_conc <= 0)
				return *skip = true, 0;
			mx_keep_if(c, mx_ge, &o->min_conc);
			if (!c->n)
				return *skip = true, 0;
		}
		if (o->has_max_conc) {
			mx_keep_if(c, mx_le, &o->max_conc);
			if (!c->n) {
				if (o->max_conc <= 0)
					return *skip = true, 0;
				return mx_push_c(g, c, ib_v_int(g->a, o->max_conc));
			}
		}
		return 0;
	}
	if (o->has_min_conc) {
		if (o->min_conc <= 0 || end < o->min_conc)
			return *skip = true, 0;
		if (o->min_conc > start)
			start = o->min_conc;
	}
	if (o->has_max_conc) {
		if (o->max_conc <= 0)
			return *skip = true, 0;
		if (start > o->max_conc)
			start = end = o->max_conc;
		else if (end > o->max_conc)
			end = o->max_conc;
	}
	return mx_expand_into(g, c, start, end, o->step_size);
}

int mx_sn_fixed(gen *g, const ib_val *isl, const ib_val *osl, const ib_val *bmk)
{
	const mx_opts *o = g->o;
	ib_val *ep = ib_map_get(bmk, "ep");
	if (o->full_sweep && o->has_max_tp &&
	    (o->max_tp <= 0 || mx_num(ib_map_get(bmk, "tp")) > (double)o->max_tp))
		return 0;
	if (o->full_sweep && o->has_max_ep) {
		if (o->max_ep <= 0)
			return 0;
		if (ep && ep->type != IB_V_NULL && mx_num(ep) > (double)o->max_ep)
			ep = ib_v_int(g->a, o->max_ep);
	}
	cvals c = {0};
	bool skip;
	int rc = o->full_sweep ? fs_concs(g, bmk, true, &c, &skip) : mx_tc_concs(g, bmk, &c, &skip);
	if (rc || skip)
		return rc;
	ib_val *dp = ib_map_get(bmk, "dp-attn");
	ib_val *mml = max_model_len(g->a, isl, osl);
	ib_val *exp = fixed_exp_name(g, isl, osl);
	if (!mml || !exp)
		return mx_oom(g);
	for (size_t i = 0; i < c.n; i++) {
		for (size_t r = 0; r < g->runner_vals->list.n; r++) {
			ib_val *row = mx_row_head(g, g->runner_vals->list.v[r]);
			if (!row)
				return mx_oom(g);
			SET(row, "isl", (ib_val *)isl);
			SET(row, "osl", (ib_val *)osl);
			SET(row, "tp", ib_map_get(bmk, "tp"));
			SET(row, "pp", mx_get_or_int(g->a, bmk, "pp", 1));
			SET(row, "dcp-size", mx_get_or_int(g->a, bmk, "dcp-size", 1));
			SET(row, "pcp-size", mx_get_or_int(g->a, bmk, "pcp-size", 1));
			SET(row, "conc", c.v[i]);
			SET(row, "max-model-len", mml);
			SET(row, "ep", ep && ep->type != IB_V_NULL ? ep : ib_v_int(g->a, 1));
			SET(row, "dp-attn",
			    dp && dp->type != IB_V_NULL ? dp : ib_v_bool(g->a, false));
			SET(row, "spec-decoding", mx_get_or(g->a, bmk, "spec-decoding", "none"));
			SET(row, "exp-name", exp);
			SET(row, "disagg", g->disagg);
			SET(row, "run-eval", ib_v_bool(g->a, false));
			if (mx_add_components(g, row, bmk) || ib_list_push(g->a, g->rows, row))
				return mx_oom(g);
		}
	}
	return 0;
}

int mx_mn_fixed(gen *g, const ib_val *isl, const ib_val *osl, const ib_val *bmk)
{
	cvals c = {0};
	bool skip;
	int rc =
	    g->o->full_sweep ? fs_concs(g, bmk, false, &c, &skip) : mx_tc_concs(g, bmk, &c, &skip);
	if (rc || skip)
		return rc;
	ib_val *conc = ib_v_list(g->a);
	for (size_t i = 0; conc && i < c.n; i++)
		if (ib_list_push(g->a, conc, c.v[i]))
			return mx_oom(g);
	ib_val *prefill = mx_worker_with_defaults(g->a, ib_map_get(bmk, "prefill"));
	ib_val *decode = mx_worker_with_defaults(g->a, ib_map_get(bmk, "decode"));
	ib_val *exp = fixed_exp_name(g, isl, osl);
	if (!conc || !prefill || !decode || !exp)
		return mx_oom(g);
	ib_val *mml = max_model_len(g->a, isl, osl);
	for (size_t r = 0; r < g->runner_vals->list.n; r++) {
		ib_val *row = mx_row_head(g, g->runner_vals->list.v[r]);
		if (!row)
			return mx_oom(g);
		SET(row, "isl", (ib_val *)isl);
		SET(row, "osl", (ib_val *)osl);
		SET(row, "spec-decoding", mx_get_or(g->a, bmk, "spec-decoding", "none"));
		SET(row, "prefill", prefill);
		SET(row, "decode", decode);
		SET(row, "conc", conc);
		SET(row, "max-model-len", mml);
		SET(row, "exp-name", exp);
		SET(row, "disagg", g->disagg);
		SET(row, "run-eval", ib_v_bool(g->a, false));
		if (mx_add_components(g, row, bmk) || ib_list_push(g->a, g->rows, row))
			return mx_oom(g);
	}
	return 0;
}
