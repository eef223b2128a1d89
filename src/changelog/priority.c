/* changelog/priority: ci_priority.py (spec/matrix.md §4.6) — deterministic
 * scores and queue tokens for every job of a generated matrix. Scores are
 * summed as Python's Decimal(str(x)) values would be: fixed point with 18
 * decimals, then rounded half-up to 0.001. */
#include "changelog/private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef __int128 dec; /* value * 10^18 */
#define DEC_ONE ((dec)1000000000000000000LL)

static int pfail(ib_error *e, const char *what)
{
	return ib_fail(e, IB_EINVAL, "", 0, 0, "CI priority policy: %s", what);
}

/* Decimal(str(v)) for an int, a float or a numeric string. */
static bool to_dec(const ib_val *v, dec *out)
{
	char buf[64];
	const char *s;
	if (!v) {
		*out = 0;
		return true;
	}
	if (v->type == IB_V_INT) {
		*out = (dec)v->i * DEC_ONE;
		return true;
	}
	if (v->type == IB_V_FLOAT) {
		ib_json_float_repr(v->f, buf, sizeof buf);
		s = buf;
	} else if (v->type == IB_V_STR) {
		s = v->str.s;
	} else {
		return false;
	}
	while (*s == ' ')
		s++;
	bool neg = *s == '-';
	if (*s == '-' || *s == '+')
		s++;
	dec mant = 0;
	int frac = 0, digits = 0;
	bool dot = false;
	for (; *s; s++) {
		if (*s == '.' && !dot) {
			dot = true;
		} else if (*s >= '0' && *s <= '9') {
			if (digits < 36) {
				mant = mant * 10 + (*s - '0');
				if (dot)
					frac++;
			}
			digits++;
		} else if (*s == '_') {
			continue;
		} else {
			break;
		}
	}
	int ex = 0;
	if (*s == 'e' || *s == 'E')
		ex = atoi(s + 1), s += strspn(s + 1, "+-0123456789") + 1;
	while (*s == ' ')
		s++;
	if (*s || !digits)
		return false;
	int shift = 18 - frac + ex; /* value * 10^18 = mant * 10^shift */
	if (shift > 20 || shift < -40)
		return false;
	for (; shift > 0; shift--)
		mant *= 10;
	for (; shift < 0; shift++)
		mant /= 10;
	*out = neg ? -mant : mant;
	return true;
}

/* quantize(0.001, ROUND_HALF_UP) and "%.3f" */
static void dec_format(dec v, char *out, size_t cap)
{
	bool neg = v < 0;
	if (neg)
		v = -v;
	dec q = DEC_ONE / 1000, r = v % q;
	v /= q;
	if (r * 2 >= q)
		v++;
	long long ip = (long long)(v / 1000), fp = (long long)(v % 1000);
	snprintf(out, cap, "%s%lld.%03lld", neg && (ip || fp) ? "-" : "", ip, fp);
}

static const ib_val *path_get(const ib_val *m, const char *a, const char *b)
{
	const ib_val *v = ib_map_get(m, a);
	return b ? ib_map_get(v, b) : v;
}

static bool set_has(const char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

/* any label in the list value l */
static bool labels_hit(const clog_prio_ctx *c, const ib_val *l)
{
	for (size_t i = 0; l && l->type == IB_V_LIST && i < l->list.n; i++)
		if (l->list.v[i]->type == IB_V_STR &&
		    set_has(c->labels, c->nlabels, l->list.v[i]->str.s))
			return true;
	return false;
}

int clog_policy_check(const ib_val *policy, const char *path, ib_error *e)
{
	const ib_val *v = ib_map_get(policy, "version");
	if (!policy || policy->type != IB_V_MAP || !v || v->type == IB_V_FLOAT ||
	    v->type == IB_V_STR ||
	    !(v->type == IB_V_INT ? v->i == 1 : v->type == IB_V_BOOL && v->b)) {
		ib_buf b = {0};
		if (v)
			ib_val_pystr(&b, v);
		int rc = ib_fail(e, IB_EINVAL, path, v ? v->line : 0, v ? v->col : 0,
		                 "Unsupported CI priority policy version: %s",
		                 v ? (b.data ? b.data : "") : "None");
		ib_buf_free(&b);
		return rc;
	}
	if (!ib_map_get(policy, "adjustments") || !path_get(policy, "labels", "patchwork") ||
	    !path_get(policy, "base-score", NULL))
		return ib_fail(e, IB_EINVAL, path, 0, 0,
		               "CI priority policy needs base-score, adjustments and "
		               "labels.patchwork");
	return 0;
}

static void pystr(ib_buf *b, const ib_val *v)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
	if (v)
		ib_val_pystr(b, v);
	else
		ib_buf_puts(b, "");
	if (!b->data)
		ib_buf_append(b, "", 0);
}

static bool prefix_match(const char *s, const char *p)
{
	size_t n = strlen(p);
	return !strcmp(s, p) || (!strncmp(s, p, n) && s[n] == '-');
}

static int criteria_check(const ib_val *policy, const clog_prio_ctx *c, ib_error *e)
{
	static const char *const fixed[] = {"multi-node", "agentic", "eval-only",
	                                    "checklist-complete", "patchwork"};
	static const char *const maps[] = {"precision", "spec-decoding", "framework-prefix",
	                                   "model-prefix"};
	const ib_val *adj = ib_map_get(policy, "adjustments");
	const char **unknown = calloc(c->ncriteria + 1, sizeof *unknown);
	if (!unknown)
		return ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	size_t nu = 0;
	for (size_t i = 0; i < c->ncriteria; i++) {
		const char *k = c->criteria[i];
		bool ok = false;
		for (int j = 0; j < 5 && !ok; j++)
			ok = !strcmp(k, fixed[j]);
		for (int j = 0; j < 4 && !ok; j++)
			ok = ib_map_has(ib_map_get(adj, maps[j]), k);
		if (!ok && !set_has(unknown, nu, k))
			unknown[nu++] = k;
	}
	int rc = 0;
	if (nu) {
		for (size_t x = 1; x < nu; x++)
			for (size_t y = x; y > 0 && strcmp(unknown[y - 1], unknown[y]) > 0; y--) {
				const char *t = unknown[y];
				unknown[y] = unknown[y - 1];
				unknown[y - 1] = t;
			}
		ib_buf m = {0};
		clog_repr_strs(&m, unknown, nu);
		rc = ib_fail(e, IB_EINVAL, "", 0, 0, "Unknown CI priority criteria: %s",
		             m.data ? m.data : "[]");
		ib_buf_free(&m);
	}
	free(unknown);
	return rc;
}

static int score(const ib_val *entry, const ib_val *policy, const clog_prio_ctx *c, char *out,
                 size_t cap, ib_error *e)
{
	const ib_val *pw = path_get(policy, "labels", "patchwork");
	bool crit_patch = c->has_criteria && set_has(c->criteria, c->ncriteria, "patchwork");
	if ((crit_patch || labels_hit(c, ib_map_get(pw, "names"))) &&
	    !labels_hit(c, ib_map_get(pw, "waived-by"))) {
		dec s;
		if (!to_dec(ib_map_get(pw, "score"), &s) || !ib_map_get(pw, "score"))
			return pfail(e, "labels.patchwork.score must be a number");
		dec_format(s, out, cap);
		return 0;
	}
	const ib_val *adj = ib_map_get(policy, "adjustments");
	bool multi, agentic, evalonly;
	ib_buf prec = {0}, spec = {0}, fw = {0}, mp = {0};
	pystr(&prec, ib_map_get(entry, "precision"));
	pystr(&spec, ib_map_get(entry, "spec-decoding"));
	pystr(&fw, ib_map_get(entry, "framework"));
	pystr(&mp, ib_map_get(entry, "model-prefix"));
	const ib_val *pf = ib_map_get(entry, "prefill"), *st = ib_map_get(entry, "scenario-type"),
	             *eo = ib_map_get(entry, "eval-only");
	multi = pf && pf->type != IB_V_NULL;
	agentic = st && st->type == IB_V_STR && !strcmp(st->str.s, "agentic-coding");
	evalonly = eo && eo->type == IB_V_BOOL && eo->b;
	int rc = 0;
	if (c->has_criteria) {
		if ((rc = criteria_check(policy, c, e)))
			goto done;
		const char *const *cr = c->criteria;
		size_t nc = c->ncriteria;
		multi = multi && set_has(cr, nc, "multi-node");
		agentic = agentic && set_has(cr, nc, "agentic");
		evalonly = evalonly && set_has(cr, nc, "eval-only");
		if (!set_has(cr, nc, prec.data))
			pystr(&prec, NULL);
		if (!set_has(cr, nc, spec.data))
			pystr(&spec, NULL);
		const ib_val *fwc = ib_map_get(adj, "framework-prefix"),
		             *mpc = ib_map_get(adj, "model-prefix");
		bool keep = false;
		for (size_t i = 0; fwc && fwc->type == IB_V_MAP && i < fwc->map.n && !keep; i++) {
			ib_buf k = {0};
			pystr(&k, fwc->map.kv[i].key);
			keep = set_has(cr, nc, k.data) && prefix_match(fw.data, k.data);
			ib_buf_free(&k);
		}
		if (!keep)
			pystr(&fw, NULL);
		keep = false;
		for (size_t i = 0; mpc && mpc->type == IB_V_MAP && i < mpc->map.n && !keep; i++) {
			ib_buf k = {0};
			pystr(&k, mpc->map.kv[i].key);
			keep = set_has(cr, nc, k.data) && prefix_match(mp.data, k.data);
			ib_buf_free(&k);
		}
		if (!keep)
			pystr(&mp, NULL);
	}
	dec total, x;
	if (!to_dec(ib_map_get(policy, "base-score"), &total)) {
		rc = pfail(e, "base-score must be a number");
		goto done;
	}
	const ib_val *ev = ib_map_get(ib_map_get(adj, "event"), c->event_name);
	const ib_val *parts[5] = {
	    ev,
	    multi ? ib_map_get(adj, "multi-node") : NULL,
	    agentic ? ib_map_get(adj, "agentic") : NULL,
	    evalonly ? ib_map_get(adj, "eval-only") : NULL,
	    ib_map_get(ib_map_get(adj, "precision"), prec.data),
	};
	for (int i = 0; i < 5; i++) {
		if (!to_dec(parts[i], &x)) {
			rc = pfail(e, "adjustments must be numbers");
			goto done;
		}
		total += x;
	}
	const ib_val *more[2] = {ib_map_get(ib_map_get(adj, "spec-decoding"), spec.data),
	                         ib_map_get(ib_map_get(adj, "model-prefix"), mp.data)};
	for (int i = 0; i < 2; i++) {
		if (!to_dec(more[i], &x)) {
			rc = pfail(e, "adjustments must be numbers");
			goto done;
		}
		total += x;
	}
	const ib_val *fwp = ib_map_get(adj, "framework-prefix");
	for (size_t i = 0; fwp && fwp->type == IB_V_MAP && i < fwp->map.n; i++) {
		ib_buf k = {0};
		pystr(&k, fwp->map.kv[i].key);
		bool m = prefix_match(fw.data, k.data);
		ib_buf_free(&k);
		if (m) {
			if (!to_dec(fwp->map.kv[i].val, &x)) {
				rc = pfail(e, "adjustments must be numbers");
				goto done;
			}
			total += x;
			break;
		}
	}
	const ib_val *ck = path_get(policy, "labels", "checklist-complete");
	if ((c->has_criteria && set_has(c->criteria, c->ncriteria, "checklist-complete")) ||
	    labels_hit(c, ib_map_get(ck, "names"))) {
		if (!to_dec(ib_map_get(ck, "adjustment"), &x)) {
			rc = pfail(e, "labels.checklist-complete.adjustment must be a number");
			goto done;
		}
		total += x;
	}
	dec_format(total, out, cap);
done:
	ib_buf_free(&prec);
	ib_buf_free(&spec);
	ib_buf_free(&fw);
	ib_buf_free(&mp);
	return rc;
}

static int annotate(ib_arena *a, const ib_val *v, const ib_val *policy, const clog_prio_ctx *c,
                    ib_buf *path, ib_val **out, ib_error *e)
{
	size_t plen = path->len;
	if (v->type == IB_V_LIST) {
		ib_val *l = ib_v_list(a);
		if (!l)
			return IB_ENOMEM;
		for (size_t i = 0; i < v->list.n; i++) {
			ib_val *x;
			if (ib_buf_printf(path, "%s%zu", plen ? "/" : "", i))
				return IB_ENOMEM;
			int rc = annotate(a, v->list.v[i], policy, c, path, &x, e);
			path->len = plen;
			path->data[plen] = '\0';
			if (rc)
				return rc;
			if (ib_list_push(a, l, x))
				return IB_ENOMEM;
		}
		*out = l;
		return 0;
	}
	if (v->type != IB_V_MAP) {
		*out = (ib_val *)v;
		return 0;
	}
	ib_val *m = ib_v_map_cap(a, v->map.n + 3);
	if (!m)
		return IB_ENOMEM;
	for (size_t i = 0; i < v->map.n; i++) {
		ib_val *x;
		ib_buf k = {0};
		pystr(&k, v->map.kv[i].key);
		int rc = ib_buf_printf(path, "%s%s", plen ? "/" : "", k.data);
		ib_buf_free(&k);
		if (rc)
			return IB_ENOMEM;
		rc = annotate(a, v->map.kv[i].val, policy, c, path, &x, e);
		path->len = plen;
		path->data[plen] = '\0';
		if (rc)
			return rc;
		if (ib_map_set_key(a, m, v->map.kv[i].key, x))
			return IB_ENOMEM;
	}
	if (ib_map_has(v, "runner") && ib_map_has(v, "framework")) {
		char s[64];
		int rc = score(v, policy, c, s, sizeof s, e);
		if (rc)
			return rc;
		ib_buf mat = {0};
		ib_json_opts jo = {
		    .indent = -1, .compact = true, .ensure_ascii = true, .sort_keys = true};
		rc =
		    ib_buf_printf(&mat, "%s:%s:", c->queue_namespace, path->data ? path->data : "");
		if (!rc)
			rc = ib_json_write(&mat, v, &jo, e);
		if (rc) {
			ib_buf_free(&mat);
			return rc;
		}
		char hex[65];
		ib_sha256_hex(mat.data, mat.len, hex);
		ib_buf_free(&mat);
		hex[32] = '\0';
		ib_val *ps = ib_v_str(a, s), *qt = ib_v_str(a, hex);
		if (!ps || !qt || ib_map_set(a, m, "priority", ps) ||
		    ib_map_set(a, m, "queue-token", qt))
			return IB_ENOMEM;
		const ib_val *sk = path_get(policy, "labels", "skip-queue");
		const ib_val *skn = ib_map_get(sk, "name");
		if (c->has_pr) {
			if (!skn)
				return pfail(e, "labels.skip-queue.name is required");
			ib_buf n = {0};
			pystr(&n, skn);
			bool hit = set_has(c->labels, c->nlabels, n.data);
			ib_buf_free(&n);
			ib_val *pr = hit ? ib_v_int(a, c->pr_number) : NULL;
			if (hit && (!pr || ib_map_set(a, m, "skip-queue-pr", pr)))
				return IB_ENOMEM;
		}
	}
	*out = m;
	return 0;
}

int clog_annotate(ib_arena *a, const ib_val *payload, const ib_val *policy, const clog_prio_ctx *c,
                  ib_val **out, ib_error *e)
{
	ib_buf path = {0};
	if (ib_buf_append(&path, "", 0))
		return ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	int rc = annotate(a, payload, policy, c, &path, out, e);
	ib_buf_free(&path);
	if (rc == IB_ENOMEM)
		return ib_fail(e, rc, "", 0, 0, "out of memory");
	return rc;
}
