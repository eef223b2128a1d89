/* The master-config models (matrix.md F1–F52) and their rules (V10–V24). */
#include "config/schema.h"

#include <stdio.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof(a)[0])

/* Coerced int of an already-validated field, or def when absent/null. */
static int64_t int_or(const ib_val *node, const char *key, int64_t def)
{
	const ib_val *v = ib_map_get(node, key);
	int64_t i;
	if (!v || v->type == IB_V_NULL || !cfg_lax_int(v, &i))
		return def;
	return i;
}

static bool present(const ib_val *node, const char *key)
{
	const ib_val *v = ib_map_get(node, key);
	return v && v->type != IB_V_NULL;
}

/* Python's a % b != 0 for b > 0 (the sign of the divisor does not matter for
 * zero-ness). */
static bool divisible(int64_t a, int64_t b)
{
	return b != 0 && a % b == 0;
}

/* V10a–e */
static bool check_conc(vctx *c, const ib_val *n)
{
	const ib_val *list = ib_map_get(n, "conc-list");
	bool has_range = present(n, "conc-start") && present(n, "conc-end");
	bool has_list = list && list->type == IB_V_LIST && list->list.n > 0;
	if (has_range && has_list) {
		sch_fail(c, n, "conc-list",
		         "cannot specify both 'conc-list' and 'conc-start'/'conc-end'; "
		         "use either a list or a range, not both");
		return false;
	}
	if (!has_range && !has_list) {
		sch_fail(c, n, NULL,
		         "must specify either a non-empty 'conc-list' or both 'conc-start' "
		         "and 'conc-end'");
		return false;
	}
	if (has_range) {
		int64_t s = int_or(n, "conc-start", 0), e = int_or(n, "conc-end", 0);
		if (s <= 0 || e <= 0) {
			sch_fail(c, n, s <= 0 ? "conc-start" : "conc-end",
			         "'conc-start' and 'conc-end' must be greater than 0");
			return false;
		}
		if (s > e) {
			sch_fail(c, n, "conc-start",
			         "'conc-start' (%lld) must be <= 'conc-end' (%lld)", (long long)s,
			         (long long)e);
			return false;
		}
	}
	if (has_list) {
		for (size_t i = 0; i < list->list.n; i++) {
			int64_t v = 0;
			cfg_lax_int(list->list.v[i], &v);
			if (v <= 0) {
				sch_fail(c, n, "conc-list",
				         "'conc-list' entries must be greater than 0");
				return false;
			}
		}
	}
	return true;
}

/* V11 */
static bool check_tp_dcp(vctx *c, const ib_val *n)
{
	int64_t tp = int_or(n, "tp", 0), dcp = int_or(n, "dcp-size", 1);
	if (!divisible(tp, dcp)) {
		sch_fail(c, n, "tp", "'tp' (%lld) must be divisible by 'dcp-size' (%lld)",
		         (long long)tp, (long long)dcp);
		return false;
	}
	return true;
}

/* V12 */
static bool check_hw_pair(vctx *c, const ib_val *n)
{
	const ib_val *p = ib_map_get(n, "prefill"), *d = ib_map_get(n, "decode");
	bool ph = ib_val_truthy(ib_map_get(p, "hardware"));
	bool dh = ib_val_truthy(ib_map_get(d, "hardware"));
	if (ph != dh) {
		sch_fail(
		    c, n, ph ? "decode" : "prefill",
		    "'hardware' must be specified for both 'prefill' and 'decode', or neither");
		return false;
	}
	return true;
}

/* V15–V17 */
static bool check_kv_offload(vctx *c, const ib_val *n)
{
	const ib_val *kv = ib_map_get(n, "kv-offloading");
	bool backend = present(n, "kv-offload-backend");
	if (!kv || kv->type == IB_V_NULL) {
		if (backend) {
			sch_fail(c, n, "kv-offload-backend",
			         "kv-offload-backend requires kv-offloading");
			return false;
		}
		return true;
	}
	if (strcmp(kv->str.s, "none") == 0) {
		if (backend) {
			sch_fail(
			    c, n, "kv-offload-backend",
			    "kv-offload-backend can only be set when kv-offloading is not 'none'");
			return false;
		}
		return true;
	}
	if (!backend) {
		sch_fail(c, n, "kv-offloading",
		         "kv-offload-backend is required when kv-offloading is '%s'", kv->str.s);
		return false;
	}
	return true;
}

/* pp, dcp-size, pcp-size: strict ints > 0, default 1 */
#define PARALLEL_FIELDS                                                                            \
	{"pp", FT_SINT_POS, P_DEF, NULL}, {"dcp-size", FT_SINT_POS, P_DEF, NULL},                  \
	{                                                                                          \
		"pcp-size", FT_SINT_POS, P_DEF, NULL                                               \
	}

static const field component_fields[] = {
    {"name", FT_STR1, P_REQ, NULL},
    {"version", FT_VERSION, P_REQ, NULL},
};
static const model component = {"router (name, version)", component_fields, N(component_fields),
                                NULL};

static const field backend_fields[] = {
    {"name", FT_STR1, P_REQ, NULL},
    {"version", FT_VERSION, P_OPT, NULL},
};
static const model backend = {"kv-offload-backend (name, version)", backend_fields,
                              N(backend_fields), NULL};

static const field worker_fields[] = {
    {"num-worker", FT_INT, P_REQ, NULL},
    {"tp", FT_INT, P_REQ, NULL},
    PARALLEL_FIELDS,
    {"ep", FT_INT, P_REQ, NULL},
    {"dp-attn", FT_BOOL, P_REQ, NULL},
    {"hardware", FT_STR1, P_OPT, NULL},
    {"additional-settings", FT_STR_LIST, P_OPT, NULL},
};
static const model worker = {"a prefill/decode worker", worker_fields, N(worker_fields),
                             check_tp_dcp};

#define CONC_FIELDS                                                                                \
	{"conc-start", FT_INT, P_OPT, NULL}, {"conc-end", FT_INT, P_OPT, NULL},                    \
	{                                                                                          \
		"conc-list", FT_INT_LIST, P_OPT, NULL                                              \
	}

static bool sn_entry_after(vctx *c, const ib_val *n)
{
	return check_conc(c, n) && check_tp_dcp(c, n);
}

static const field sn_entry_fields[] = {
    {"tp", FT_INT, P_REQ, NULL},
    PARALLEL_FIELDS,
    {"ep", FT_INT, P_OPT, NULL},
    {"spec-decoding", FT_SPEC, P_DEF, NULL},
    {"dp-attn", FT_BOOL, P_OPT, NULL},
    {"router", FT_MODEL, P_OPT, &component},
    CONC_FIELDS,
};
static const model sn_entry = {"a single-node search-space entry", sn_entry_fields,
                               N(sn_entry_fields), sn_entry_after};

static bool mn_entry_after(vctx *c, const ib_val *n)
{
	return check_conc(c, n) && check_hw_pair(c, n);
}

static const field mn_entry_fields[] = {
    {"spec-decoding", FT_SPEC, P_DEF, NULL},   {"prefill", FT_MODEL, P_REQ, &worker},
    {"decode", FT_MODEL, P_REQ, &worker},      {"router", FT_MODEL, P_OPT, &component},
    {"kv-p2p-transfer", FT_STR1, P_OPT, NULL}, CONC_FIELDS,
};
static const model mn_entry = {"a multinode search-space entry", mn_entry_fields,
                               N(mn_entry_fields), mn_entry_after};

/* isl + osl + 256 is every row's max-model-len: it must fit in 64 bits
 * (isl near INT64_MAX would wrap to a negative length) */
static bool seq_after(vctx *c, const ib_val *n)
{
	int64_t isl = 0, osl = 0, sum;
	const ib_val *i = ib_map_get(n, "isl"), *o = ib_map_get(n, "osl");
	if (!i || !o || !cfg_lax_int(i, &isl) || !cfg_lax_int(o, &osl))
		return true; /* reported as a field error */
	if (__builtin_add_overflow(isl, osl, &sum) || __builtin_add_overflow(sum, 256, &sum)) {
		sch_fail(c, n, "isl",
		         "isl + osl + 256 (the rows' max-model-len) does not fit in a 64-bit "
		         "integer");
		return false;
	}
	return true;
}

static const field sn_seq_fields[] = {
    {"isl", FT_INT, P_REQ, NULL},
    {"osl", FT_INT, P_REQ, NULL},
    {"search-space", FT_MODEL_LIST, P_REQ, &sn_entry},
};
static const model sn_seq = {"a fixed-seq-len config", sn_seq_fields, N(sn_seq_fields), seq_after};

static const field mn_seq_fields[] = {
    {"isl", FT_INT, P_REQ, NULL},
    {"osl", FT_INT, P_REQ, NULL},
    {"search-space", FT_MODEL_LIST, P_REQ, &mn_entry},
};
static const model mn_seq = {"a fixed-seq-len config", mn_seq_fields, N(mn_seq_fields), seq_after};

/* V10, V15–V17, V18a–e */
static bool agentic_entry_after(vctx *c, const ib_val *n)
{
	if (!check_conc(c, n) || !check_kv_offload(c, n))
		return false;
	bool tp = present(n, "tp");
	bool pre = present(n, "prefill"), dec = present(n, "decode");
	if (tp ? (pre || dec) : !(pre && dec)) {
		sch_fail(c, n, tp ? "tp" : NULL,
		         "agentic search-space entries must specify either tp or both prefill and "
		         "decode");
		return false;
	}
	if (tp) {
		if (!present(n, "kv-offloading")) {
			sch_fail(
			    c, n, NULL,
			    "single-node agentic search-space entries must specify kv-offloading");
			return false;
		}
		return check_tp_dcp(c, n);
	}
	const char *explicit_field = ib_map_has(n, "pp")         ? "pp"
	                             : ib_map_has(n, "dcp-size") ? "dcp-size"
	                             : ib_map_has(n, "pcp-size") ? "pcp-size"
	                                                         : NULL;
	if (explicit_field) {
		sch_fail(c, n, explicit_field,
		         "multinode agentic search-space entries cannot specify 'pp', 'dcp-size', "
		         "'pcp-size' "
		         "(set them in prefill/decode)");
		return false;
	}
	return check_hw_pair(c, n);
}

static const field agentic_entry_fields[] = {
    {"tp", FT_INT, P_OPT, NULL},
    PARALLEL_FIELDS,
    {"ep", FT_INT, P_OPT, NULL},
    {"dp-attn", FT_BOOL, P_OPT, NULL},
    {"spec-decoding", FT_SPEC, P_DEF, NULL},
    {"prefill", FT_MODEL, P_OPT, &worker},
    {"decode", FT_MODEL, P_OPT, &worker},
    {"kv-offloading", FT_KVOFF, P_OPT, NULL},
    {"kv-offload-backend", FT_MODEL, P_OPT, &backend},
    {"router", FT_MODEL, P_OPT, &component},
    {"kv-p2p-transfer", FT_STR1, P_OPT, NULL},
    CONC_FIELDS,
};
static const model agentic_entry = {"an agentic-coding search-space entry", agentic_entry_fields,
                                    N(agentic_entry_fields), agentic_entry_after};

/* V19 */
static bool agentic_config_after(vctx *c, const ib_val *n)
{
	const ib_val *ss = ib_map_get(n, "search-space");
	if (present(n, "dram-utilization"))
		return true;
	for (size_t i = 0; i < ss->list.n; i++) {
		const ib_val *kv = ib_map_get(ss->list.v[i], "kv-offloading");
		if (kv && kv->type == IB_V_STR && strcmp(kv->str.s, "dram") == 0) {
			size_t m = sch_push(c, "search-space[%zu]", i);
			sch_fail(
			    c, ss->list.v[i], "kv-offloading",
			    "kv-offloading='dram' requires dram-utilization (in the agentic-coding "
			    "config) with runner hardware metadata");
			sch_pop(c, m);
			return false;
		}
	}
	return true;
}

static const field agentic_config_fields[] = {
    {"search-space", FT_MODEL_LIST, P_REQ, &agentic_entry},
    {"dram-utilization", FT_UTIL, P_OPT, NULL},
};
static const model agentic_config = {"an agentic-coding config", agentic_config_fields,
                                     N(agentic_config_fields), agentic_config_after};

/* V20 */
static bool scenarios_after(vctx *c, const ib_val *n)
{
	if (!ib_val_truthy(ib_map_get(n, "fixed-seq-len")) &&
	    !ib_val_truthy(ib_map_get(n, "agentic-coding"))) {
		sch_fail(c, n, NULL,
		         "at least one scenario type must be specified "
		         "(a non-empty fixed-seq-len or agentic-coding list)");
		return false;
	}
	return true;
}

static const field sn_scen_fields[] = {
    {"fixed-seq-len", FT_MODEL_LIST, P_OPT, &sn_seq},
    {"agentic-coding", FT_MODEL_LIST, P_OPT, &agentic_config},
};
static const model sn_scen = {"single-node scenarios", sn_scen_fields, N(sn_scen_fields),
                              scenarios_after};

static const field mn_scen_fields[] = {
    {"fixed-seq-len", FT_MODEL_LIST, P_OPT, &mn_seq},
    {"agentic-coding", FT_MODEL_LIST, P_OPT, &agentic_config},
};
static const model mn_scen = {"multinode scenarios", mn_scen_fields, N(mn_scen_fields),
                              scenarios_after};

/* Calls fn for every search-space entry (fixed then agentic); stops when fn
 * returns true and returns that entry. */
static const ib_val *find_entry(const ib_val *top, bool (*fn)(const ib_val *, const void *),
                                const void *arg, size_t *count)
{
	const ib_val *sc = ib_map_get(top, "scenarios");
	static const char *const kinds[] = {"fixed-seq-len", "agentic-coding"};
	if (count)
		*count = 0;
	for (int k = 0; k < 2; k++) {
		const ib_val *cfgs = ib_map_get(sc, kinds[k]);
		if (!cfgs || cfgs->type != IB_V_LIST)
			continue;
		for (size_t i = 0; i < cfgs->list.n; i++) {
			const ib_val *ss = ib_map_get(cfgs->list.v[i], "search-space");
			for (size_t j = 0; ss && j < ss->list.n; j++) {
				if (count)
					(*count)++;
				if (fn && fn(ss->list.v[j], arg))
					return ss->list.v[j];
			}
		}
	}
	return NULL;
}

static bool has_key_set(const ib_val *e, const void *key)
{
	return present(e, key);
}

static bool lacks_key(const ib_val *e, const void *key)
{
	return !present(e, key);
}

/* V21–V24 */
static bool top_after(vctx *c, const ib_val *n)
{
	const ib_val *runner = ib_map_get(n, "runner");
	if (ib_val_truthy(ib_map_get(ib_map_get(n, "scenarios"), "agentic-coding")) &&
	    !ib_str_has_prefix(runner->str.s, "cluster:")) {
		sch_fail(c, n, "runner",
		         "agentic master configs must use a 'cluster:<name>' runner so "
		         "every point runs on one exact hardware fleet");
		return false;
	}
	static const char *const scoped[] = {"router", "kv-p2p-transfer"};
	for (int k = 0; k < 2; k++) {
		const ib_val *e = find_entry(n, has_key_set, scoped[k], NULL);
		if (present(n, scoped[k]) && e) {
			sch_fail(c, n, scoped[k],
			         "%s must be declared either at the top level or in search-space "
			         "entries, "
			         "not both",
			         scoped[k]);
			return false;
		}
	}
	bool multinode = ib_val_truthy(ib_map_get(n, "multinode"));
	const ib_val *with_transfer = find_entry(n, has_key_set, "kv-p2p-transfer", NULL);
	if (!multinode && with_transfer) {
		sch_fail(c, with_transfer, "kv-p2p-transfer",
		         "kv-p2p-transfer is only valid when multinode=true");
		return false;
	}
	bool disagg = false;
	cfg_lax_bool(ib_map_get(n, "disagg"), &disagg);
	if (disagg && !present(n, "kv-p2p-transfer")) {
		size_t count;
		const ib_val *missing = find_entry(n, lacks_key, "kv-p2p-transfer", &count);
		if (count == 0 || missing) {
			sch_fail(c, n, "disagg",
			         "disagg=true requires kv-p2p-transfer at the top level or in "
			         "every search-space entry");
			return false;
		}
	}
	return true;
}

static const field sn_top_fields[] = {
    {"image", FT_STR, P_REQ, NULL},          {"model", FT_STR, P_REQ, NULL},
    {"model-prefix", FT_STR, P_REQ, NULL},   {"precision", FT_STR, P_REQ, NULL},
    {"framework", FT_STR, P_REQ, NULL},      {"runner", FT_STR, P_REQ, NULL},
    {"multinode", FT_FALSE, P_REQ, NULL},    {"disagg", FT_FALSE, P_DEF, NULL},
    {"router", FT_MODEL, P_OPT, &component}, {"scenarios", FT_MODEL, P_REQ, &sn_scen},
};
static const model sn_top = {"a single-node master config entry", sn_top_fields, N(sn_top_fields),
                             top_after};

static const field mn_top_fields[] = {
    {"image", FT_STR, P_REQ, NULL},           {"model", FT_STR, P_REQ, NULL},
    {"model-prefix", FT_STR, P_REQ, NULL},    {"precision", FT_STR, P_REQ, NULL},
    {"framework", FT_STR, P_REQ, NULL},       {"runner", FT_STR, P_REQ, NULL},
    {"multinode", FT_TRUE, P_REQ, NULL},      {"disagg", FT_BOOL, P_DEF, NULL},
    {"router", FT_MODEL, P_OPT, &component},  {"kv-p2p-transfer", FT_STR1, P_OPT, NULL},
    {"scenarios", FT_MODEL, P_REQ, &mn_scen},
};
static const model mn_top = {"a multinode master config entry", mn_top_fields, N(mn_top_fields),
                             top_after};

bool cfg_validate_entry(const char *key, const ib_val *entry, ib_diags *d)
{
	vctx c = {.d = d, .entry = key};
	if (entry->type != IB_V_MAP) {
		cfg_problem(d, entry->file, entry->line, entry->col, key, NULL, entry,
		            "a master config entry must be a mapping");
		return false;
	}
	bool multinode = ib_val_truthy(ib_map_get(entry, "multinode"));
	return sch_validate(&c, multinode ? &mn_top : &sn_top, entry);
}

/* ---- runners.yaml ---- */

static const field hw_fields[] = {
    {"available-cpu-dram-mib", FT_INT_POS, P_REQ, NULL},
    {"gpus-per-node", FT_INT_POS, P_REQ, NULL},
};
static const model hw_model = {"a runner hardware entry", hw_fields, N(hw_fields), NULL};

bool cfg_validate_runners(const ib_val *doc, ib_diags *d, const char *file)
{
	const ib_val *labels = ib_map_get(doc, "labels");
	if (doc->type != IB_V_MAP || !labels || labels->type != IB_V_MAP) {
		const ib_val *at = labels ? labels : doc;
		cfg_problem(d, file, at->line, at->col, NULL, "labels", NULL,
		            "runner config must define a labels mapping (label: [node, ...])");
		return false;
	}
	bool ok = true;
	for (size_t i = 0; i < labels->map.n; i++) {
		const ib_val *k = labels->map.kv[i].key, *v = labels->map.kv[i].val;
		char name[256];
		if (k->type == IB_V_STR)
			snprintf(name, sizeof name, "%s", k->str.s);
		else
			ib_val_repr(k, name, sizeof name);
		char path[300];
		snprintf(path, sizeof path, "labels.%s", name);
		if (k->type != IB_V_STR) {
			cfg_problem(d, file, k->line, k->col, name, path, NULL,
			            "label names must be strings");
			ok = false;
		} else if (v->type != IB_V_LIST) {
			cfg_problem(d, file, v->line, v->col, name, path, v,
			            "must be a list, got %s", ib_vtype_pyname(v));
			ok = false;
		} else if (v->list.n == 0) {
			cfg_problem(d, file, v->line, v->col, name, path, NULL,
			            "cannot be an empty list");
			ok = false;
		} else {
			for (size_t j = 0; j < v->list.n; j++) {
				if (v->list.v[j]->type != IB_V_STR) {
					cfg_problem(d, file, v->list.v[j]->line, v->list.v[j]->col,
					            name, path, v->list.v[j],
					            "must contain only strings");
					ok = false;
					break;
				}
			}
		}
	}
	/* hardware and unknown top-level keys; labels were checked above */
	for (size_t i = 0; i < doc->map.n; i++) {
		const ib_val *k = doc->map.kv[i].key, *v = doc->map.kv[i].val;
		if (k->type == IB_V_STR && strcmp(k->str.s, "labels") == 0)
			continue;
		if (k->type == IB_V_STR && strcmp(k->str.s, "hardware") == 0) {
			vctx c = {.d = d};
			sch_push(&c, "hardware");
			if (v->type != IB_V_MAP) {
				cfg_problem(d, file, v->line, v->col, NULL, "hardware", v,
				            "should be a mapping");
				ok = false;
				continue;
			}
			for (size_t j = 0; j < v->map.n; j++) {
				const ib_kv *hw = &v->map.kv[j];
				char name[256];
				if (hw->key->type == IB_V_STR)
					snprintf(name, sizeof name, "%s", hw->key->str.s);
				else
					ib_val_repr(hw->key, name, sizeof name);
				c.entry = name;
				size_t m = sch_push(&c, "%s", name);
				ok &= sch_validate(&c, &hw_model, hw->val);
				sch_pop(&c, m);
			}
			continue;
		}
		char name[256];
		ib_val_repr(k, name, sizeof name);
		cfg_problem(d, file, k->line, k->col, NULL, k->type == IB_V_STR ? k->str.s : name,
		            NULL, "unknown field (runners.yaml has only 'labels' and 'hardware')");
		ok = false;
	}
	return ok;
}
