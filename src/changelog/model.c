/* changelog/model: the pydantic models of process_changelog.py's output —
 * ChangelogEntry validation, and matrix rows re-emitted in their model's
 * field order with defaults filled in and None fields left out
 * (model_dump(by_alias=True, exclude_none=True)). */
#include "changelog/private.h"

#include <string.h>

int clog_line(const clog_where *w, const ib_val *v)
{
	if (!v || v->line <= 0)
		return 0;
	if (!w->lines)
		return v->line;
	if ((size_t)v->line <= w->nlines)
		return w->lines[v->line - 1];
	return w->nlines ? w->lines[w->nlines - 1] : 0;
}

void clog_repr_strs(ib_buf *b, const char **v, size_t n)
{
	ib_buf_putc(b, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			ib_buf_puts(b, ", ");
		bool dq = strchr(v[i], '\'') && !strchr(v[i], '"');
		char q = dq ? '"' : '\'';
		ib_buf_putc(b, q);
		for (const char *p = v[i]; *p; p++) {
			if (*p == '\\' || *p == q)
				ib_buf_putc(b, '\\');
			ib_buf_putc(b, *p);
		}
		ib_buf_putc(b, q);
	}
	ib_buf_putc(b, ']');
}

/* ---- ChangelogEntry ---- */

static int entry_fail(const clog_where *w, const ib_val *at, ib_error *e, const char *field,
                      const char *msg)
{
	int line = clog_line(w, at);
	return ib_fail(e, IB_EINVAL, w->file ? w->file : "", line, line ? at->col : 0,
	               "changelog entry %d%s%s%s: %s", w->index, field ? ": field '" : "",
	               field ? field : "", field ? "'" : "", msg);
}

/* The value under the alias or, with populate_by_name, the field name. */
static const ib_kv *entry_field(const ib_val *m, const char *alias, const char *name)
{
	const ib_kv *kv = ib_map_find(m, alias);
	return kv ? kv : ib_map_find(m, name);
}

static int str_list(ib_arena *a, const ib_kv *kv, const clog_where *w, const char *field,
                    ib_val **out, ib_error *e)
{
	const ib_val *v = kv->val;
	if (v->type != IB_V_LIST)
		return entry_fail(w, v, e, field, "must be a list of strings");
	if (v->list.n < 1)
		return entry_fail(w, v, e, field, "must have at least 1 item");
	ib_val *l = ib_v_list(a);
	if (!l)
		return IB_ENOMEM;
	for (size_t i = 0; i < v->list.n; i++) {
		if (v->list.v[i]->type != IB_V_STR)
			return entry_fail(w, v->list.v[i], e, field, "items must be strings");
		if (ib_list_push(a, l, v->list.v[i]))
			return IB_ENOMEM;
	}
	*out = l;
	return 0;
}

int clog_entry_validate(ib_arena *a, const ib_val *entry, const clog_where *w, ib_val **norm,
                        ib_error *e)
{
	static const char *const known[][2] = {
	    {"config-keys", "config_keys"},
	    {"description", "description"},
	    {"pr-link", "pr_link"},
	    {"evals-only", "evals_only"},
	    {"all-evals", "all_evals"},
	    {"append-only", "append_only"},
	    {"eval-min-prefill-ep", "eval_min_prefill_ep"},
	    {"scenario-type", "scenario_type"},
	};
	const size_t nknown = sizeof known / sizeof known[0];
	if (!entry || entry->type != IB_V_MAP)
		return entry_fail(w, entry, e, NULL,
		                  "must be a mapping (a YAML list item with keys)");
	for (size_t i = 0; i < entry->map.n; i++) {
		const ib_val *k = entry->map.kv[i].key;
		bool ok = false;
		for (size_t j = 0; j < nknown && k->type == IB_V_STR; j++)
			ok = ok || !strcmp(k->str.s, known[j][0]) || !strcmp(k->str.s, known[j][1]);
		if (!ok) {
			char r[128];
			ib_val_repr(k, r, sizeof r);
			ib_buf m = {0};
			ib_buf_printf(&m,
			              "unknown field %s (allowed: config-keys, description, "
			              "pr-link, evals-only, all-evals, append-only, "
			              "eval-min-prefill-ep, scenario-type)",
			              r);
			int rc = entry_fail(w, k, e, NULL, m.data ? m.data : "unknown field");
			ib_buf_free(&m);
			return rc;
		}
	}
	ib_val *n = ib_v_map(a);
	if (!n)
		return IB_ENOMEM;
	int rc;
	ib_val *v = NULL;
	/* required lists and the link */
	const char *req[] = {"config-keys", "description"};
	const char *req_name[] = {"config_keys", "description"};
	for (int i = 0; i < 2; i++) {
		const ib_kv *kv = entry_field(entry, req[i], req_name[i]);
		if (!kv)
			return entry_fail(w, entry, e, req[i], "field required");
		if ((rc = str_list(a, kv, w, req[i], &v, e)))
			return rc;
		if (ib_map_set(a, n, req[i], v))
			return IB_ENOMEM;
	}
	const ib_kv *kv = entry_field(entry, "pr-link", "pr_link");
	if (!kv)
		return entry_fail(w, entry, e, "pr-link", "field required");
	if (kv->val->type != IB_V_STR)
		return entry_fail(w, kv->val, e, "pr-link", "must be a string");
	if (ib_map_set(a, n, "pr-link", kv->val))
		return IB_ENOMEM;
	const char *flags[][2] = {{"evals-only", "evals_only"},
	                          {"all-evals", "all_evals"},
	                          {"append-only", "append_only"}};
	bool fv[3] = {false, false, false};
	for (int i = 0; i < 3; i++) {
		kv = entry_field(entry, flags[i][0], flags[i][1]);
		if (kv && !cfg_lax_bool(kv->val, &fv[i]))
			return entry_fail(w, kv->val, e, flags[i][0], "must be a boolean");
		if (!(v = ib_v_bool(a, fv[i])) || ib_map_set(a, n, flags[i][0], v))
			return IB_ENOMEM;
	}
	bool has_ep = false;
	kv = entry_field(entry, "eval-min-prefill-ep", "eval_min_prefill_ep");
	if (kv && kv->val->type != IB_V_NULL) {
		int64_t ep;
		if (!cfg_lax_int(kv->val, &ep))
			return entry_fail(w, kv->val, e, "eval-min-prefill-ep",
			                  "must be an integer");
		if (ep < 1)
			return entry_fail(w, kv->val, e, "eval-min-prefill-ep",
			                  "must be greater than or equal to 1");
		has_ep = true;
		if (!(v = ib_v_int(a, ep)) || ib_map_set(a, n, "eval-min-prefill-ep", v))
			return IB_ENOMEM;
	}
	kv = entry_field(entry, "scenario-type", "scenario_type");
	if (kv && kv->val->type != IB_V_NULL) {
		const ib_val *l = kv->val;
		if (l->type != IB_V_LIST)
			return entry_fail(w, l, e, "scenario-type",
			                  "must be a list of 'fixed-seq-len' / 'agentic-coding'");
		if (l->list.n < 1)
			return entry_fail(w, l, e, "scenario-type", "must have at least 1 item");
		for (size_t i = 0; i < l->list.n; i++) {
			const ib_val *s = l->list.v[i];
			if (s->type != IB_V_STR || (strcmp(s->str.s, "fixed-seq-len") &&
			                            strcmp(s->str.s, "agentic-coding")))
				return entry_fail(
				    w, s, e, "scenario-type",
				    "items must be 'fixed-seq-len' or 'agentic-coding'");
		}
		if (ib_map_set(a, n, "scenario-type", (ib_val *)l))
			return IB_ENOMEM;
	}
	if (fv[2] && (fv[0] || fv[1] || has_ep))
		return entry_fail(w, entry, e, NULL,
		                  "append-only cannot be combined with eval selection fields");
	*norm = n;
	return 0;
}

/* ---- matrix rows ---- */

typedef enum {
	T_STR,
	T_INT,
	T_SINT, /* strict int (pp, dcp-size, pcp-size) */
	T_BOOL,
	T_CONC,    /* int or list of ints */
	T_INTS,    /* list of ints */
	T_STRS,    /* list of strings */
	T_WORKER,  /* WorkerConfig */
	T_COMP,    /* ComponentMetadata */
	T_BACKEND, /* KVOffloadBackendMetadata */
} ftype;

typedef enum { REQ, OPT, DEF_FALSE, DEF_ONE, DEF_EMPTY, DEF_NONE_STR } fdef;

typedef struct {
	const char *name;
	ftype t;
	fdef d;
} fspec;

#define F(n, t, d)                                                                                 \
	{                                                                                          \
		n, t, d                                                                            \
	}
static const fspec sn_fixed[] = {F("image", T_STR, REQ),
                                 F("model", T_STR, REQ),
                                 F("model-prefix", T_STR, REQ),
                                 F("precision", T_STR, REQ),
                                 F("framework", T_STR, REQ),
                                 F("spec-decoding", T_STR, REQ),
                                 F("runner", T_STR, REQ),
                                 F("isl", T_INT, REQ),
                                 F("osl", T_INT, REQ),
                                 F("tp", T_INT, REQ),
                                 F("pp", T_SINT, REQ),
                                 F("dcp-size", T_SINT, REQ),
                                 F("pcp-size", T_SINT, REQ),
                                 F("ep", T_INT, REQ),
                                 F("dp-attn", T_BOOL, REQ),
                                 F("conc", T_CONC, REQ),
                                 F("max-model-len", T_INT, REQ),
                                 F("exp-name", T_STR, REQ),
                                 F("disagg", T_BOOL, REQ),
                                 F("run-eval", T_BOOL, REQ),
                                 F("eval-only", T_BOOL, DEF_FALSE),
                                 F("router", T_COMP, OPT),
                                 F("recipe-fingerprint", T_STR, OPT),
                                 {NULL, 0, 0}};
static const fspec mn_fixed[] = {F("image", T_STR, REQ),
                                 F("model", T_STR, REQ),
                                 F("model-prefix", T_STR, REQ),
                                 F("precision", T_STR, REQ),
                                 F("framework", T_STR, REQ),
                                 F("spec-decoding", T_STR, REQ),
                                 F("runner", T_STR, REQ),
                                 F("isl", T_INT, REQ),
                                 F("osl", T_INT, REQ),
                                 F("prefill", T_WORKER, REQ),
                                 F("decode", T_WORKER, REQ),
                                 F("conc", T_INTS, REQ),
                                 F("max-model-len", T_INT, REQ),
                                 F("exp-name", T_STR, REQ),
                                 F("disagg", T_BOOL, REQ),
                                 F("run-eval", T_BOOL, REQ),
                                 F("eval-only", T_BOOL, DEF_FALSE),
                                 F("eval-conc", T_INT, OPT),
                                 F("eval-all-concs", T_BOOL, DEF_FALSE),
                                 F("router", T_COMP, OPT),
                                 F("kv-p2p-transfer", T_STR, OPT),
                                 F("recipe-fingerprint", T_STR, OPT),
                                 {NULL, 0, 0}};
static const fspec sn_agentic[] = {F("image", T_STR, REQ),
                                   F("model", T_STR, REQ),
                                   F("model-prefix", T_STR, REQ),
                                   F("precision", T_STR, REQ),
                                   F("framework", T_STR, REQ),
                                   F("runner", T_STR, REQ),
                                   F("tp", T_INT, REQ),
                                   F("pp", T_SINT, REQ),
                                   F("dcp-size", T_SINT, REQ),
                                   F("pcp-size", T_SINT, REQ),
                                   F("ep", T_INT, REQ),
                                   F("dp-attn", T_BOOL, REQ),
                                   F("spec-decoding", T_STR, DEF_NONE_STR),
                                   F("conc", T_INT, REQ),
                                   F("kv-offloading", T_STR, REQ),
                                   F("kv-offload-backend", T_BACKEND, OPT),
                                   F("router", T_COMP, OPT),
                                   F("total-cpu-dram-gb", T_INT, REQ),
                                   F("duration", T_INT, REQ),
                                   F("exp-name", T_STR, REQ),
                                   F("scenario-type", T_STR, REQ),
                                   F("run-eval", T_BOOL, OPT),
                                   F("eval-only", T_BOOL, OPT),
                                   F("recipe-fingerprint", T_STR, OPT),
                                   {NULL, 0, 0}};
static const fspec mn_agentic[] = {F("image", T_STR, REQ),
                                   F("model", T_STR, REQ),
                                   F("model-prefix", T_STR, REQ),
                                   F("precision", T_STR, REQ),
                                   F("framework", T_STR, REQ),
                                   F("spec-decoding", T_STR, REQ),
                                   F("runner", T_STR, REQ),
                                   F("prefill", T_WORKER, REQ),
                                   F("decode", T_WORKER, REQ),
                                   F("conc", T_INTS, REQ),
                                   F("kv-offloading", T_STR, REQ),
                                   F("kv-offload-backend", T_BACKEND, OPT),
                                   F("router", T_COMP, OPT),
                                   F("kv-p2p-transfer", T_STR, OPT),
                                   F("total-cpu-dram-gb", T_INT, REQ),
                                   F("duration", T_INT, REQ),
                                   F("exp-name", T_STR, REQ),
                                   F("disagg", T_BOOL, REQ),
                                   F("scenario-type", T_STR, REQ),
                                   F("run-eval", T_BOOL, OPT),
                                   F("eval-only", T_BOOL, OPT),
                                   F("eval-conc", T_INT, OPT),
                                   F("recipe-fingerprint", T_STR, OPT),
                                   {NULL, 0, 0}};
static const fspec worker[] = {F("num-worker", T_INT, REQ),
                               F("tp", T_INT, REQ),
                               F("pp", T_SINT, DEF_ONE),
                               F("dcp-size", T_SINT, DEF_ONE),
                               F("pcp-size", T_SINT, DEF_ONE),
                               F("ep", T_INT, REQ),
                               F("dp-attn", T_BOOL, REQ),
                               F("hardware", T_STR, OPT),
                               F("additional-settings", T_STRS, DEF_EMPTY),
                               {NULL, 0, 0}};
static const fspec comp[] = {F("name", T_STR, REQ), F("version", T_STR, REQ), {NULL, 0, 0}};
static const fspec backend[] = {F("name", T_STR, REQ), F("version", T_STR, OPT), {NULL, 0, 0}};
#undef F

static int row_fail(ib_error *e, const char *model, const char *field, const char *msg)
{
	return ib_fail(e, IB_EINVAL, "", 0, 0, "generated %s row: field '%s': %s", model, field,
	               msg);
}

static int model_map(ib_arena *a, const ib_val *m, const fspec *fs, const char *model, ib_val **out,
                     ib_error *e);

static int model_value(ib_arena *a, const ib_val *v, const fspec *f, const char *model,
                       ib_val **out, ib_error *e)
{
	int64_t i;
	bool b;
	switch (f->t) {
	case T_STR:
		if (v->type != IB_V_STR)
			return row_fail(e, model, f->name, "must be a string");
		*out = (ib_val *)v;
		return 0;
	case T_SINT:
		if (v->type != IB_V_INT)
			return row_fail(e, model, f->name, "must be an integer");
		if (v->i <= 0)
			return row_fail(e, model, f->name, "must be greater than 0");
		*out = (ib_val *)v;
		return 0;
	case T_INT:
		if (v->type == IB_V_INT) {
			*out = (ib_val *)v;
			return 0;
		}
		if (!cfg_lax_int(v, &i))
			return row_fail(e, model, f->name, "must be an integer");
		return (*out = ib_v_int(a, i)) ? 0 : IB_ENOMEM;
	case T_BOOL:
		if (v->type == IB_V_BOOL) {
			*out = (ib_val *)v;
			return 0;
		}
		if (!cfg_lax_bool(v, &b))
			return row_fail(e, model, f->name, "must be a boolean");
		return (*out = ib_v_bool(a, b)) ? 0 : IB_ENOMEM;
	case T_CONC:
		if (v->type != IB_V_LIST) {
			if (v->type == IB_V_INT) {
				*out = (ib_val *)v;
				return 0;
			}
			if (!cfg_lax_int(v, &i))
				return row_fail(e, model, f->name, "must be an integer or a list");
			return (*out = ib_v_int(a, i)) ? 0 : IB_ENOMEM;
		}
		/* fall through: a list of ints */
		/* FALLTHROUGH */
	case T_INTS: {
		if (v->type != IB_V_LIST)
			return row_fail(e, model, f->name, "must be a list of integers");
		ib_val *l = ib_v_list(a);
		if (!l)
			return IB_ENOMEM;
		for (size_t k = 0; k < v->list.n; k++) {
			ib_val *x = v->list.v[k];
			if (x->type != IB_V_INT) {
				if (!cfg_lax_int(x, &i))
					return row_fail(e, model, f->name,
					                "items must be integers");
				if (!(x = ib_v_int(a, i)))
					return IB_ENOMEM;
			}
			if (ib_list_push(a, l, x))
				return IB_ENOMEM;
		}
		*out = l;
		return 0;
	}
	case T_STRS:
		if (v->type != IB_V_LIST)
			return row_fail(e, model, f->name, "must be a list of strings");
		for (size_t k = 0; k < v->list.n; k++)
			if (v->list.v[k]->type != IB_V_STR)
				return row_fail(e, model, f->name, "items must be strings");
		*out = (ib_val *)v;
		return 0;
	case T_WORKER:
		return model_map(a, v, worker, "worker", out, e);
	case T_COMP:
		return model_map(a, v, comp, "component", out, e);
	case T_BACKEND:
		return model_map(a, v, backend, "kv-offload-backend", out, e);
	}
	return row_fail(e, model, f->name, "unsupported field type");
}

static int model_map(ib_arena *a, const ib_val *m, const fspec *fs, const char *model, ib_val **out,
                     ib_error *e)
{
	if (!m || m->type != IB_V_MAP)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "generated %s: must be a mapping", model);
	for (size_t i = 0; i < m->map.n; i++) {
		const ib_val *k = m->map.kv[i].key;
		bool ok = false;
		for (const fspec *f = fs; f->name && !ok; f++)
			ok = k->type == IB_V_STR && !strcmp(k->str.s, f->name);
		if (!ok) {
			char r[128];
			ib_val_repr(k, r, sizeof r);
			return ib_fail(e, IB_EINVAL, "", 0, 0,
			               "generated %s row: unexpected field %s", model, r);
		}
	}
	ib_val *n = ib_v_map(a);
	if (!n)
		return IB_ENOMEM;
	for (const fspec *f = fs; f->name; f++) {
		const ib_val *v = ib_map_get(m, f->name);
		ib_val *o = NULL;
		if (!v || v->type == IB_V_NULL) {
			if (v && f->d == REQ)
				return row_fail(e, model, f->name, "must not be null");
			switch (f->d) {
			case REQ:
				return row_fail(e, model, f->name, "field required");
			case OPT:
				continue;
			case DEF_FALSE:
				o = v ? NULL : ib_v_bool(a, false);
				break;
			case DEF_ONE:
				o = v ? NULL : ib_v_int(a, 1);
				break;
			case DEF_EMPTY:
				o = v ? NULL : ib_v_list(a);
				break;
			case DEF_NONE_STR:
				o = v ? NULL : ib_v_str(a, "none");
				break;
			}
			if (v) /* an explicit None on a defaulted field: left out */
				continue;
			if (!o)
				return IB_ENOMEM;
		} else {
			int rc = model_value(a, v, f, model, &o, e);
			if (rc)
				return rc;
		}
		if (ib_map_set(a, n, f->name, o))
			return IB_ENOMEM;
	}
	*out = n;
	return 0;
}

int clog_model_row(ib_arena *a, const ib_val *row, char kind, ib_val **out, ib_error *e)
{
	switch (kind) {
	case 'f':
		return model_map(a, row, sn_fixed, "single-node", out, e);
	case 'F':
		return model_map(a, row, mn_fixed, "multi-node", out, e);
	case 'a':
		return model_map(a, row, sn_agentic, "single-node agentic", out, e);
	default:
		return model_map(a, row, mn_agentic, "multi-node agentic", out, e);
	}
}
