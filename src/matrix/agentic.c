/* Agentic-coding rows and their DRAM budget (matrix.md §2.5, §2.7). */
#include "config/config.h"
#include "matrix/private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_AVAILABLE_CPU_DRAM_MIB = 2861022 };

/* hardware[label][field] as an int, or an error naming the label. */
static int hw_int(gen *g, const char *label, const char *field, int64_t *out)
{
	const ib_val *hw = ib_map_get(g->runners, "hardware");
	const ib_val *v = ib_map_get(ib_map_get(hw, label), field);
	if (!v || v->type == IB_V_NULL || !cfg_lax_int(v, out)) {
		ib_buf keys = {0};
		/* sorted hardware keys */
		size_t n = hw && hw->type == IB_V_MAP ? hw->map.n : 0;
		const char **names = n ? ib_arena_alloc(g->a, n * sizeof *names) : NULL;
		for (size_t i = 0; i < n; i++)
			names[i] = hw->map.kv[i].key->str.s;
		for (size_t i = 1; i < n; i++)
			for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
				const char *t = names[j];
				names[j] = names[j - 1];
				names[j - 1] = t;
			}
		for (size_t i = 0; i < n; i++)
			ib_buf_printf(&keys, "%s%s", i ? ", " : "", names[i]);
		int rc =
		    ib_fail(g->e, IB_EINVAL, NULL, 0, 0,
		            "entry '%s': runner '%s' requires '%s' in runner hardware metadata "
		            "(runners.yaml 'hardware'). Available hardware keys: %s",
		            g->key, label, field, keys.data ? keys.data : "(none)");
		ib_buf_free(&keys);
		return rc;
	}
	return 0;
}

/* The utilization as an exact decimal num / den, from the shortest text of
 * the parsed value (Python's Decimal(str(x))). */
static int util_rational(gen *g, const ib_val *u, __int128 *num, __int128 *den)
{
	char text[64];
	if (u->type == IB_V_FLOAT)
		ib_json_float_repr(u->f, text, sizeof text);
	else if (u->type == IB_V_INT)
		snprintf(text, sizeof text, "%lld", (long long)u->i);
	else if (u->type == IB_V_STR)
		snprintf(text, sizeof text, "%s", u->str.s);
	else
		text[0] = '\0';
	__int128 n = 0, d = 1;
	int exp = 0, digits = 0;
	bool seen_dot = false;
	const char *p = text;
	while (*p == ' ')
		p++;
	for (; *p; p++) {
		if (*p >= '0' && *p <= '9') {
			if (digits < 18) {
				n = n * 10 + (*p - '0');
				if (seen_dot)
					exp--;
			}
			digits++;
		} else if (*p == '.' && !seen_dot) {
			seen_dot = true;
		} else if (*p == 'e' || *p == 'E') {
			exp += atoi(p + 1);
			break;
		} else {
			digits = 0;
			break;
		}
	}
	if (!digits || exp > 20 || exp < -30)
		return ib_fail(g->e, IB_EINVAL, u->file, u->line, u->col,
		               "entry '%s': dram-utilization %s is not a decimal number", g->key,
		               text);
	for (; exp > 0; exp--)
		n *= 10;
	for (; exp < 0; exp++)
		d *= 10;
	*num = n;
	*den = d;
	return 0;
}

/* GPUs of one worker replica on a node (§2.7, MN). */
static int worker_gpus(gen *g, const ib_val *w, int64_t gpn, int64_t *out)
{
	int64_t r = mx_ival(ib_map_get(w, "tp"));
	const ib_val *pp = ib_map_get(w, "pp"), *pcp = ib_map_get(w, "pcp-size");
	r *= pp ? mx_ival(pp) : 1;
	r *= pcp ? mx_ival(pcp) : 1;
	if (r > gpn) {
		if (r % gpn != 0)
			return ib_fail(
			    g->e, IB_EINVAL, w->file, w->line, w->col,
			    "entry '%s': prefill worker tp*pp*pcp-size=%lld spans multiple nodes "
			    "but is not a multiple of gpus-per-node=%lld",
			    g->key, (long long)r, (long long)gpn);
		*out = gpn;
		return 0;
	}
	if (r <= 0 || gpn % r != 0)
		return ib_fail(g->e, IB_EINVAL, w->file, w->line, w->col,
		               "entry '%s': prefill worker tp*pp*pcp-size=%lld does not divide "
		               "gpus-per-node=%lld evenly",
		               g->key, (long long)r, (long long)gpn);
	*out = r;
	return 0;
}

static int dram_gb(gen *g, const ib_val *acfg, const ib_val *bmk, int64_t *out)
{
	*out = 0;
	const ib_val *kv = ib_map_get(bmk, "kv-offloading");
	if (!kv || kv->type != IB_V_STR || strcmp(kv->str.s, "dram") != 0)
		return 0;
	const char *label = ib_map_get(g->cfg, "runner")->str.s;
	int64_t avail = 0, gpn = 0, n = 0;
	int rc = hw_int(g, label, "available-cpu-dram-mib", &avail);
	if (rc)
		return rc;
	if (avail > MAX_AVAILABLE_CPU_DRAM_MIB)
		avail = MAX_AVAILABLE_CPU_DRAM_MIB;
	__int128 un = 0, ud = 1;
	if ((rc = util_rational(g, ib_map_get(acfg, "dram-utilization"), &un, &ud)) ||
	    (rc = hw_int(g, label, "gpus-per-node", &gpn)))
		return rc;
	const ib_val *prefill = ib_map_get(bmk, "prefill");
	if (prefill && prefill->type == IB_V_MAP) {
		if ((rc = worker_gpus(g, prefill, gpn, &n)))
			return rc;
	} else {
		const ib_val *pp = ib_map_get(bmk, "pp"), *pcp = ib_map_get(bmk, "pcp-size");
		int64_t tp = mx_ival(ib_map_get(bmk, "tp"));
		int64_t ppv = pp ? mx_ival(pp) : 1, pcpv = pcp ? mx_ival(pcp) : 1;
		n = tp * ppv * pcpv;
		if (n > gpn)
			return ib_fail(
			    g->e, IB_EINVAL, bmk->file, bmk->line, bmk->col,
			    "entry '%s': tp=%lld with pp=%lld and pcp-size=%lld requires %lld GPUs "
			    "and exceeds gpus-per-node=%lld for runner '%s'",
			    g->key, (long long)tp, (long long)ppv, (long long)pcpv, (long long)n,
			    (long long)gpn, label);
	}
	if (gpn <= 0)
		return ib_fail(g->e, IB_EINVAL, NULL, 0, 0,
		               "runner '%s': gpus-per-node must be > 0", label);
	__int128 top = (__int128)avail * 1048576 * un * n;
	__int128 bottom = ud * gpn * 1000000000;
	*out = (int64_t)(top / bottom);
	return 0;
}

static const char *kv_suffix(gen *g, const ib_val *kv, const ib_val *backend)
{
	if (kv->type == IB_V_STR && strcmp(kv->str.s, "none") == 0)
		return "kvnone";
	ib_buf b = {0};
	ib_buf_puts(&b, "kv");
	ib_val_pystr(&b, kv);
	ib_buf_putc(&b, '-');
	ib_val_pystr(&b, ib_map_get(backend, "name"));
	char *s = ib_arena_strdup(g->a, b.data);
	ib_buf_free(&b);
	return s;
}

static void worker_tag(ib_buf *b, const ib_val *w, char role)
{
	ib_buf_putc(b, role);
	ib_val_pystr(b, ib_map_get(w, "num-worker"));
	ib_buf_putc(b, 'x');
	ib_val_pystr(b, ib_map_get(w, "tp"));
	const ib_val *ep = ib_map_get(w, "ep");
	if (ep && !(ep->type != IB_V_STR && ep->type != IB_V_NULL && mx_num(ep) == 1)) {
		ib_buf_puts(b, "ep");
		ib_val_pystr(b, ep);
	}
	if (ib_val_truthy(ib_map_get(w, "dp-attn")))
		ib_buf_puts(b, "dpa");
}

int mx_agentic(gen *g, const ib_val *acfg, const ib_val *bmk)
{
	const mx_opts *o = g->o;
	int64_t gb;
	int rc = dram_gb(g, acfg, bmk, &gb);
	if (rc)
		return rc;
	cvals c = {0};
	const ib_val *list = ib_map_get(bmk, "conc-list");
	if (ib_val_truthy(list))
		rc = mx_list_into(g, &c, list);
	else
		rc = mx_expand_into(g, &c, mx_ival(ib_map_get(bmk, "conc-start")),
		                    mx_ival(ib_map_get(bmk, "conc-end")),
		                    o->full_sweep ? o->step_size : 2);
	if (rc)
		return mx_oom(g);
	if (o->full_sweep) {
		if (o->has_min_conc)
			mx_keep_if(&c, mx_ge, &o->min_conc);
		if (o->has_max_conc)
			mx_keep_if(&c, mx_le, &o->max_conc);
	} else if (o->nconc) {
		mx_keep_if(&c, mx_in_conc, o);
	}
	if (!c.n)
		return 0;
	ib_val *spec = mx_get_or(g->a, bmk, "spec-decoding", "none");
	ib_val *backend = ib_map_get(bmk, "kv-offload-backend");
	bool has_backend = backend && backend->type != IB_V_NULL;
	ib_val *gbv = ib_v_int(g->a, gb), *duration = ib_v_int(g->a, 3600);
	ib_val *scen = ib_v_str(g->a, "agentic-coding");
	if (!gbv || !duration || !scen || !spec)
		return mx_oom(g);
	ib_buf b = {0};
	if (g->multinode) {
		ib_val *prefill = mx_worker_with_defaults(g->a, ib_map_get(bmk, "prefill"));
		ib_val *decode = mx_worker_with_defaults(g->a, ib_map_get(bmk, "decode"));
		ib_val *kv = mx_get_or(g->a, bmk, "kv-offloading", "none");
		if (!prefill || !decode || !kv)
			return mx_oom(g);
		if (kv->type != IB_V_STR)
			return ib_fail(
			    g->e, IB_EINVAL, bmk->file, bmk->line, bmk->col,
			    "entry '%s': kv-offloading is null in a multinode agentic entry; "
			    "write 'none' or 'dram'",
			    g->key);
		bool none = strcmp(kv->str.s, "none") == 0;
		for (size_t r = 0; r < g->runner_vals->list.n; r++) {
			for (size_t i = 0; i < c.n; i++) {
				ib_val *row = mx_row_head(g, g->runner_vals->list.v[r]);
				ib_val *conc = ib_v_list(g->a);
				if (!row || !conc || ib_list_push(g->a, conc, c.v[i]))
					return mx_oom(g);
				ib_val_pystr(&b, ib_map_get(g->cfg, "model-prefix"));
				ib_buf_putc(&b, '_');
				worker_tag(&b, prefill, 'p');
				ib_buf_putc(&b, '_');
				worker_tag(&b, decode, 'd');
				ib_buf_puts(&b, "_conc");
				ib_val_pystr(&b, c.v[i]);
				if (!none)
					ib_buf_printf(&b, "_%s", kv_suffix(g, kv, backend));
				ib_val *exp = ib_v_strn(g->a, b.data, b.len);
				b.len = 0;
				SET(row, "spec-decoding", spec);
				SET(row, "prefill", prefill);
				SET(row, "decode", decode);
				SET(row, "conc", conc);
				SET(row, "kv-offloading", kv);
				SET(row, "total-cpu-dram-gb", gbv);
				SET(row, "duration", duration);
				SET(row, "exp-name", exp);
				SET(row, "disagg", g->disagg);
				SET(row, "scenario-type", scen);
				if (has_backend)
					SET(row, "kv-offload-backend", backend);
				if (mx_add_components(g, row, bmk) ||
				    ib_list_push(g->a, g->rows, row))
					return mx_oom(g);
			}
		}
		ib_buf_free(&b);
		return 0;
	}
	ib_val *kv = ib_map_get(bmk, "kv-offloading");
	ib_val *ep = ib_map_get(bmk, "ep"), *dp = ib_map_get(bmk, "dp-attn");
	const char *suffix = kv_suffix(g, kv, backend);
	bool spec_none = spec->type == IB_V_STR && strcmp(spec->str.s, "none") == 0;
	for (size_t i = 0; i < c.n; i++) {
		ib_val_pystr(&b, ib_map_get(g->cfg, "model-prefix"));
		ib_buf_puts(&b, "_tp");
		ib_val_pystr(&b, ib_map_get(bmk, "tp"));
		ib_buf_puts(&b, "_conc");
		ib_val_pystr(&b, c.v[i]);
		ib_buf_printf(&b, "_%s", suffix);
		if (!spec_none) {
			ib_buf_puts(&b, "_spec-");
			ib_val_pystr(&b, spec);
		}
		ib_val *exp = ib_v_strn(g->a, b.data, b.len);
		b.len = 0;
		for (size_t r = 0; r < g->runner_vals->list.n; r++) {
			ib_val *row = mx_row_head(g, g->runner_vals->list.v[r]);
			if (!row)
				return mx_oom(g);
			SET(row, "tp", ib_map_get(bmk, "tp"));
			SET(row, "pp", mx_get_or_int(g->a, bmk, "pp", 1));
			SET(row, "dcp-size", mx_get_or_int(g->a, bmk, "dcp-size", 1));
			SET(row, "pcp-size", mx_get_or_int(g->a, bmk, "pcp-size", 1));
			SET(row, "ep", ep && ep->type != IB_V_NULL ? ep : ib_v_int(g->a, 1));
			SET(row, "dp-attn",
			    dp && dp->type != IB_V_NULL ? dp : ib_v_bool(g->a, false));
			SET(row, "spec-decoding", spec);
			SET(row, "conc", c.v[i]);
			SET(row, "kv-offloading", kv);
			SET(row, "total-cpu-dram-gb", gbv);
			SET(row, "duration", duration);
			SET(row, "exp-name", exp);
			SET(row, "scenario-type", scen);
			if (has_backend)
				SET(row, "kv-offload-backend", backend);
			if (mx_add_components(g, row, bmk) || ib_list_push(g->a, g->rows, row))
				return mx_oom(g);
		}
	}
	ib_buf_free(&b);
	return 0;
}
