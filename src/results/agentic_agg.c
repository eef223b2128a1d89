/* infbench agentic process / validate: the agg row of
 * process_agentic_result.py (the environment, build_agg, round_floats, the
 * summary) and validate_agentic_result.py's error gate (docs/agentic.md). */
#include "results/agentic_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OOM(e) ib_fail((e), IB_ENOMEM, "", 0, 0, "out of memory")

/* ---- the environment ---- */

static const char *env_or(const char *const *env, const char *name, const char *dflt)
{
	const char *s = ib_env_get(env, name);
	return s ? s : dflt;
}

/* env_int: unset or "" gives dflt, else Python int(). */
static int env_int(const char *const *env, const char *name, int64_t dflt, int64_t *out,
                   ib_error *e)
{
	const char *s = ib_env_get(env, name);
	if (!s || !*s) {
		*out = dflt;
		return 0;
	}
	if (!ib_py_int(s, strlen(s), out))
		return ib_fail(
		    e, IB_EINVAL, "", 0, 0,
		    "environment variable %s: invalid literal for int() with base 10: '%s'", name,
		    s);
	return 0;
}

static bool env_bool(const char *const *env, const char *name)
{
	return ib_env_true(ib_env_get(env, name));
}

static bool nonempty_str(const ib_val *v)
{
	return v && v->type == IB_V_STR && v->str.len;
}

/* optional_component_metadata (router) and
 * optional_kv_offload_backend_metadata (kv): *out NULL when absent. */
static int component_meta(ib_arena *a, const char *const *env, const char *name, bool kv,
                          ib_val **out, ib_error *e)
{
	*out = NULL;
	const char *s = ib_env_get(env, name);
	if (!s || !*s || !strcmp(s, "null"))
		return 0;
	ib_val *v;
	ib_error pe;
	if (ib_json_parse(a, name, s, strlen(s), &v, &pe))
		return ib_fail(e, IB_EINVAL, "", 0, 0, "%s must contain valid JSON", name);
	bool obj = v->type == IB_V_MAP;
	size_t other = 0;
	for (size_t i = 0; obj && i < v->map.n; i++) {
		const ib_val *k = v->map.kv[i].key;
		if (!(k->type == IB_V_STR &&
		      (!strcmp(k->str.s, "name") || !strcmp(k->str.s, "version"))))
			other++;
	}
	if (!kv) {
		if (!obj || other || v->map.n != 2)
			return ib_fail(e, IB_EINVAL, "", 0, 0,
			               "%s must contain exactly 'name' and 'version'", name);
		if (!nonempty_str(ib_map_get(v, "name")) || !nonempty_str(ib_map_get(v, "version")))
			return ib_fail(e, IB_EINVAL, "", 0, 0,
			               "%s name and version must be non-empty strings", name);
	} else {
		if (!obj || other)
			return ib_fail(e, IB_EINVAL, "", 0, 0,
			               "%s may contain only 'name' and 'version'", name);
		if (!ib_map_has(v, "name"))
			return ib_fail(e, IB_EINVAL, "", 0, 0,
			               "%s must contain 'name' and optional 'version'", name);
		for (size_t i = 0; i < v->map.n; i++)
			if (!nonempty_str(v->map.kv[i].val))
				return ib_fail(e, IB_EINVAL, "", 0, 0,
				               "%s values must be non-empty strings", name);
	}
	*out = v;
	return 0;
}

typedef struct {
	ib_val *fields; /* the pp/dcp/pcp or prefill_/decode_ fields */
	int64_t gpus, tp, ep;
	const char *dp_attention;
} gpu_shape;

#define SETI(m, k, x) ib_map_set(a, (m), (k), ib_v_int(a, (x)))
#define SETS(m, k, x) ib_map_set(a, (m), (k), ib_v_str(a, (x)))

/* _gpu_shape */
static int shape(ib_arena *a, const char *const *env, gpu_shape *g, ib_error *e)
{
	int rc;
	int64_t tp, ep;
	if ((rc = env_int(env, "TP", 1, &tp, e)) || (rc = env_int(env, "EP_SIZE", 1, &ep, e)))
		return rc;
	g->dp_attention = env_or(env, "DP_ATTENTION", "false");
	if (!(g->fields = ib_v_map(a)))
		return OOM(e);
	ib_val *f = g->fields;
	if (!env_bool(env, "IS_MULTINODE")) {
		int64_t pp, dcp, pcp;
		if ((rc = env_int(env, "PP_SIZE", 1, &pp, e)) ||
		    (rc = env_int(env, "DCP_SIZE", 1, &dcp, e)) ||
		    (rc = env_int(env, "PCP_SIZE", 1, &pcp, e)))
			return rc;
		if (pp <= 0 || dcp <= 0 || pcp <= 0)
			return ib_fail(
			    e, IB_EINVAL, "", 0, 0,
			    "PP_SIZE, DCP_SIZE, and PCP_SIZE must be positive integers.");
		if (SETI(f, "pp", pp) || SETI(f, "dcp_size", dcp) || SETI(f, "pcp_size", pcp))
			return OOM(e);
		g->gpus = tp * pp * pcp, g->tp = tp, g->ep = ep;
		return 0;
	}
	int64_t pw, ptp, ppp, pdcp, ppcp, pep, dw, dtp, dpp, ddcp, dpcp, dep;
	if ((rc = env_int(env, "PREFILL_NUM_WORKERS", 0, &pw, e)) ||
	    (rc = env_int(env, "PREFILL_TP", 0, &ptp, e)) ||
	    (rc = env_int(env, "PREFILL_PP_SIZE", 1, &ppp, e)) ||
	    (rc = env_int(env, "PREFILL_DCP_SIZE", 1, &pdcp, e)) ||
	    (rc = env_int(env, "PREFILL_PCP_SIZE", 1, &ppcp, e)) ||
	    (rc = env_int(env, "PREFILL_EP", 1, &pep, e)))
		return rc;
	const char *pda = env_or(env, "PREFILL_DP_ATTN", "false");
	if ((rc = env_int(env, "DECODE_NUM_WORKERS", 0, &dw, e)) ||
	    (rc = env_int(env, "DECODE_TP", 0, &dtp, e)) ||
	    (rc = env_int(env, "DECODE_PP_SIZE", 1, &dpp, e)) ||
	    (rc = env_int(env, "DECODE_DCP_SIZE", 1, &ddcp, e)) ||
	    (rc = env_int(env, "DECODE_PCP_SIZE", 1, &dpcp, e)) ||
	    (rc = env_int(env, "DECODE_EP", 1, &dep, e)))
		return rc;
	const char *dda = env_or(env, "DECODE_DP_ATTN", "false");
	if (ppp <= 0 || pdcp <= 0 || ppcp <= 0 || dpp <= 0 || ddcp <= 0 || dpcp <= 0)
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "Multinode PP, DCP, and PCP sizes must be positive integers.");
	const char *phw = env_or(env, "PREFILL_HARDWARE", ""),
	           *dhw = env_or(env, "DECODE_HARDWARE", "");
	if (!*phw != !*dhw)
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "PREFILL_HARDWARE and DECODE_HARDWARE must be specified together.");
	int64_t np = pw * ptp * ppp * ppcp, nd = dw * dtp * dpp * dpcp;
	if (nd <= 0)
		dtp = 0, dep = 0, dpp = 1, ddcp = 1, dpcp = 1;
	g->gpus = np + nd, g->tp = ptp + dtp, g->ep = pep > dep ? pep : dep;
	g->dp_attention =
	    env_bool(env, "PREFILL_DP_ATTN") || env_bool(env, "DECODE_DP_ATTN") ? "true" : "false";
	if (SETI(f, "prefill_num_workers", pw) || SETI(f, "prefill_tp", ptp) ||
	    SETI(f, "prefill_pp", ppp) || SETI(f, "prefill_dcp_size", pdcp) ||
	    SETI(f, "prefill_pcp_size", ppcp) || SETI(f, "prefill_ep", pep) ||
	    SETS(f, "prefill_dp_attention", pda) || SETI(f, "num_prefill_gpu", np) ||
	    SETI(f, "decode_num_workers", dw) || SETI(f, "decode_tp", dtp) ||
	    SETI(f, "decode_pp", dpp) || SETI(f, "decode_dcp_size", ddcp) ||
	    SETI(f, "decode_pcp_size", dpcp) || SETI(f, "decode_ep", dep) ||
	    SETS(f, "decode_dp_attention", dda) || SETI(f, "num_decode_gpu", nd))
		return OOM(e);
	if (*phw && (SETS(f, "prefill_hw", phw) || SETS(f, "decode_hw", dhw)))
		return OOM(e);
	return 0;
}

/* _validate_kv_offload_env */
static int kv_offload(ib_arena *a, const char *const *env, const char **mode, ib_val **backend,
                      ib_error *e)
{
	const char *kv = ib_env_get(env, "KV_OFFLOADING");
	if (!kv || !*kv)
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "Missing required environment variable: KV_OFFLOADING");
	const char *name = env_or(env, "KV_OFFLOAD_BACKEND", "");
	int rc = component_meta(a, env, "KV_OFFLOAD_BACKEND_METADATA", true, backend, e);
	if (rc)
		return rc;
	*mode = kv;
	if (!strcmp(kv, "none")) {
		if (*name || *backend)
			return ib_fail(e, IB_EINVAL, "", 0, 0,
			               "KV_OFFLOAD_BACKEND must be empty when KV_OFFLOADING=none");
		return 0;
	}
	if (!*name || !strcmp(name, "none") || !*backend)
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "KV_OFFLOAD_BACKEND is required when KV_OFFLOADING is enabled");
	if (strcmp(ib_map_get(*backend, "name")->str.s, name))
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "KV_OFFLOAD_BACKEND must match KV_OFFLOAD_BACKEND_METADATA.name");
	return 0;
}

/* build_agg */
static int build_agg(ib_arena *a, const char *const *env, const res_ag_records *r,
                     const ib_val *aggregate, const ib_val *export, const char *const *logs,
                     size_t nlogs, ib_val **out, ib_error *e)
{
	const char *kv = NULL;
	ib_val *backend = NULL;
	gpu_shape g = {0};
	int rc;
	if ((rc = kv_offload(a, env, &kv, &backend, e)) || (rc = shape(a, env, &g, e)))
		return rc;
	const char *fw = env_or(env, "FRAMEWORK", "");
	int64_t conc, dram;
	const char *cs = env_or(env, "CONC", "0");
	if (!ib_py_int(cs, strlen(cs), &conc))
		return ib_fail(
		    e, IB_EINVAL, "", 0, 0,
		    "environment variable CONC: invalid literal for int() with base 10: '%s'", cs);
	if ((rc = env_int(env, "TOTAL_CPU_DRAM_GB", 0, &dram, e)))
		return rc;
	ib_val *acc = ib_v_map(a), *m = ib_v_map(a);
	if (!acc || !m)
		return OOM(e);
	if (SETI(acc, "records_total", r->total) || SETI(acc, "records_profiled", (int64_t)r->n) ||
	    SETI(acc, "records_dropped_total", r->total - (int64_t)r->n) ||
	    SETI(acc, "records_warmup_dropped", r->warmup) ||
	    SETI(acc, "records_error_dropped", r->errors) ||
	    ib_map_set(a, acc, "error_categories", r->categories))
		return OOM(e);
	if (SETS(m, "hw", env_or(env, "RUNNER_TYPE", "")) || SETI(m, "conc", conc) ||
	    SETS(m, "image", env_or(env, "IMAGE", "")) ||
	    SETS(m, "recipe_fingerprint", env_or(env, "RECIPE_FINGERPRINT", "")) ||
	    SETS(m, "model", env_or(env, "MODEL", "")) ||
	    SETS(m, "infmax_model_prefix", env_or(env, "MODEL_PREFIX", "")) ||
	    SETS(m, "framework", fw) || SETS(m, "precision", env_or(env, "PRECISION", "")) ||
	    SETS(m, "spec_decoding", env_or(env, "SPEC_DECODING", "none")) ||
	    ib_map_set(a, m, "disagg", ib_v_bool(a, env_bool(env, "DISAGG"))) ||
	    SETS(m, "scenario_type", "agentic-coding") ||
	    ib_map_set(a, m, "is_multinode", ib_v_bool(a, env_bool(env, "IS_MULTINODE"))) ||
	    SETI(m, "tp", g.tp) || SETI(m, "ep", g.ep) || SETS(m, "dp_attention", g.dp_attention) ||
	    SETS(m, "kv_offloading", kv) ||
	    ib_map_set(a, m, "kv_offload_backend", backend ? backend : ib_v_null(a)) ||
	    SETI(m, "allocated_cpu_dram_gb", dram) || SETI(m, "num_requests_total", r->total) ||
	    SETI(m, "num_requests_successful", (int64_t)r->n) ||
	    ib_map_set(a, m, "request_accounting", acc))
		return OOM(e);
	for (size_t i = 0; i < g.fields->map.n; i++)
		if (ib_map_set_key(a, m, g.fields->map.kv[i].key, g.fields->map.kv[i].val))
			return OOM(e);
	ib_val *router;
	if ((rc = component_meta(a, env, "ROUTER_METADATA", false, &router, e)))
		return rc;
	if (router && ib_map_set(a, m, "router", router))
		return OOM(e);
	const char *p2p = ib_env_get(env, "KV_P2P_TRANSFER");
	if (p2p && *p2p && SETS(m, "kv_p2p_transfer", p2p))
		return OOM(e);
	if (aggregate->type != IB_V_MAP)
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "profile_export_aiperf.json holds a JSON %s, not an object",
		               ib_vtype_pyname(aggregate));
	const ib_val *md = ib_map_get(aggregate, "metadata");
	const ib_val *ds = md && md->type == IB_V_MAP ? ib_map_get(md, "dataset") : NULL;
	if (ds && ds->type == IB_V_MAP && ib_map_set(a, m, "dataset", (ib_val *)ds))
		return OOM(e);
	ib_val *req, *srv, *warn;
	res_ag_tput t;
	if ((rc = res_ag_request_metrics(a, r, aggregate, &req, &t, e)) ||
	    (rc = res_ag_server_metrics(a, export, fw, r, logs, nlogs, &srv, &warn, e)))
		return rc;
	if (t.has && g.gpus > 0) {
		ib_val *pg = ib_map_get(ib_map_get(req, "throughput"), "per_gpu");
		double n = (double)g.gpus;
		if (ib_map_set(a, pg, "total_tput_tps", ib_v_float(a, t.total / n)) ||
		    ib_map_set(a, pg, "output_tput_tps", ib_v_float(a, t.out / n)) ||
		    ib_map_set(a, pg, "input_tput_tps", ib_v_float(a, t.in / n)))
			return OOM(e);
	}
	if (ib_map_set(a, m, "request_metrics", req) || ib_map_set(a, m, "server_metrics", srv) ||
	    ib_map_set(a, m, "kv_cache_pool_tokens",
	               ib_map_get(ib_map_get(srv, "kv_cache"), "gpu_total_tokens")))
		return OOM(e);
	if (warn && ib_map_set(a, m, "warnings", warn))
		return OOM(e);
	*out = m;
	return 0;
}

/* round_floats(obj, 5), in place: every finite float rounded; integral
 * results with abs >= 1 become ints. Python ints are not touched. */
static int round_floats(ib_arena *a, ib_val *v)
{
	if (v->type == IB_V_LIST) {
		for (size_t i = 0; i < v->list.n; i++)
			if (round_floats(a, v->list.v[i]))
				return IB_ENOMEM;
	} else if (v->type == IB_V_MAP) {
		for (size_t i = 0; i < v->map.n; i++) {
			/* values may be shared with the inputs: round a copy */
			ib_val *x = v->map.kv[i].val;
			if (x->type == IB_V_FLOAT && !x->bigint) {
				ib_val *c = ib_arena_alloc(a, sizeof *c);
				if (!c)
					return IB_ENOMEM;
				*c = *x;
				v->map.kv[i].val = x = c;
			}
			if (round_floats(a, x))
				return IB_ENOMEM;
		}
	} else if (v->type == IB_V_FLOAT && !v->bigint && isfinite(v->f)) {
		double r = pw_py_round(v->f, 5);
		v->f = r;
		if (fabs(r) >= 1 && r == floor(r)) {
			if (fabs(r) < 9.2e18) {
				v->type = IB_V_INT;
				v->i = (int64_t)r;
			} else {
				char *d = ib_arena_printf(a, "%.0f", r);
				if (!d)
					return IB_ENOMEM;
				v->bigint = d;
			}
		}
	}
	return 0;
}

static bool num_of(const ib_val *v, double *out)
{
	if (!v || (v->type != IB_V_INT && v->type != IB_V_FLOAT))
		return false;
	*out = v->type == IB_V_INT ? (double)v->i : v->f;
	return true;
}

static const ib_val *path_get(const ib_val *m, const char *k1, const char *k2)
{
	const ib_val *v = ib_map_get(m, k1);
	return k2 ? ib_map_get(v, k2) : v;
}

/* The summary lines main() prints after saving. */
static void summary(const res_agentic_opts *o, const ib_val *agg, const res_ag_records *r)
{
	pw_logf(o->log, o->log_ud, 1,
	        "  Requests: %zu successful / %lld total (%lld warmup, %lld error dropped)", r->n,
	        (long long)r->total, (long long)r->warmup, (long long)r->errors);
	const ib_val *rm = ib_map_get(agg, "request_metrics"),
	             *sm = ib_map_get(agg, "server_metrics");
	const ib_val *q = ib_map_get(rm, "qps");
	double x, y, z;
	if (num_of(ib_map_get(q, "mean"), &x)) {
		if (!num_of(ib_map_get(q, "p75"), &y))
			y = 0;
		if (!num_of(ib_map_get(q, "p95"), &z))
			z = 0;
		pw_logf(o->log, o->log_ud, 1, "  QPS: mean=%.2f p75=%.2f p95=%.2f", x, y, z);
	}
	static const struct {
		const char *k1, *k2, *fmt;
	} pct[] = {
	    {"cache", "gpu_cache_hit_rate", "  GPU cache hit rate: %.1f%%"},
	    {"cache", "cpu_cache_hit_rate", "  CPU/offload cache hit rate: %.1f%%"},
	    {"cache", "external_cache_hit_rate", "  External cache hit rate: %.1f%%"},
	    {"kv_cache", "gpu_usage_pct", "  GPU KV cache usage:  %.1f%%"},
	};
	for (size_t i = 0; i < sizeof pct / sizeof pct[0]; i++)
		if (num_of(path_get(sm, pct[i].k1, pct[i].k2), &x))
			pw_logf(o->log, o->log_ud, 1, pct[i].fmt, x * 100);
	const ib_val *cap = path_get(sm, "kv_cache", "gpu_total_tokens");
	if (cap && cap->type != IB_V_NULL) {
		ib_buf b = {0};
		ib_val_pystr(&b, cap);
		pw_logf(o->log, o->log_ud, 1, "  GPU KV cache capacity: %s tokens",
		        b.data ? b.data : "");
		ib_buf_free(&b);
	}
	if (num_of(path_get(rm, "cache", "theoretical_cache_hit_rate"), &x))
		pw_logf(o->log, o->log_ud, 1, "  Theoretical cache hit rate: %.1f%%", x * 100);
	if (num_of(path_get(path_get(rm, "throughput", "per_gpu"), "total_tput_tps", NULL), &x))
		pw_logf(o->log, o->log_ud, 1, "  Throughput per GPU: %.0f tok/s", x);
}

int res_agentic_process(const res_agentic_opts *o, char **out_path, ib_error *e)
{
	if (out_path)
		*out_path = NULL;
	const char *const *env = o->env;
	const char *name = ib_env_get(env, "RESULT_FILENAME");
	if (!name || !*name)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "RESULT_FILENAME env var not set");
	ib_arena *a = ib_arena_new();
	if (!a)
		return OOM(e);
	int rc = 0;
	const char *rd = env_or(env, "RESULT_DIR", "results"),
	           *od = env_or(env, "AGENTIC_OUTPUT_DIR", ".");
	if (o->dir && rd[0] != '/') /* relative to the row's folder, not to ours */
		rd = ib_arena_printf(a, "%s/%s", o->dir, rd);
	if (o->dir && od[0] != '/')
		od = ib_arena_printf(a, "%s/%s", o->dir, od);
	if (!rd || !od)
		goto oom;
	char *dir = res_ag_artifact_dir(a, rd);
	char *aggp = dir ? ib_arena_printf(a, "%s/profile_export_aiperf.json", dir) : NULL;
	char *jsonl = dir ? ib_arena_printf(a, "%s/profile_export.jsonl", dir) : NULL;
	char *smp = dir ? ib_arena_printf(a, "%s/server_metrics_export.json", dir) : NULL;
	char *outp = pw_py_path(a, ib_arena_printf(a, "%s/%s.json", od, name));
	if (!aggp || !jsonl || !smp || !outp)
		goto oom;
	struct stat st;
	if (stat(jsonl, &st)) {
		rc = ib_fail(e, IB_ENOENT, "", 0, 0, "%s not found", jsonl);
		goto done;
	}
	res_ag_records r;
	if ((rc = res_ag_load_records(a, jsonl, &r, e)))
		goto done;
	ib_val *aggregate = NULL, *export = NULL;
	if (stat(aggp, &st) == 0) {
		if ((rc = ib_json_parse_file(a, aggp, &aggregate, e)))
			goto done;
	} else if (!(aggregate = ib_v_map(a)))
		goto oom;
	if (stat(smp, &st) == 0 && (rc = ib_json_parse_file(a, smp, &export, e)))
		goto done;
	const char **logs;
	size_t nlogs;
	if (res_ag_log_paths(a, rd, &logs, &nlogs))
		goto oom;
	ib_val *agg = NULL;
	if ((rc = build_agg(a, env, &r, aggregate, export, logs, nlogs, &agg, e)))
		goto done;
	if (round_floats(a, agg))
		goto oom;
	if ((rc = pw_write_json(outp, agg, e)))
		goto done;
	pw_logf(o->log, o->log_ud, 1, "Saved aggregated agentic result to %s", outp);
	summary(o, agg, &r);
	if (out_path && !(*out_path = strdup(outp)))
		goto oom;
	goto done;
oom:
	rc = OOM(e);
done:
	ib_arena_free(a);
	return rc;
}

/* ---- validate_agentic_result ---- */

/* _metric_avg: 1 with *out, 0 absent (None), < 0 a ValueError in msg. */
static int metric_avg(const ib_val *agg, const char *name, double *out, char *msg, size_t cap)
{
	const ib_val *m = ib_map_get(agg, name);
	if (!m || m->type == IB_V_NULL)
		return 0;
	if (m->type != IB_V_MAP) {
		snprintf(msg, cap, "%s must be an object", name);
		return -1;
	}
	const ib_val *v = ib_map_get(m, "avg");
	if (!v || v->type == IB_V_NULL)
		return 0;
	if (v->type != IB_V_INT && v->type != IB_V_FLOAT) {
		snprintf(msg, cap, "%s.avg must be numeric", name);
		return -1;
	}
	double x = v->type == IB_V_INT ? (double)v->i : v->f;
	if (!isfinite(x) || x < 0) {
		snprintf(msg, cap, "%s.avg must be a finite non-negative number", name);
		return -1;
	}
	*out = x;
	return 1;
}

int res_agentic_validate(const char *artifact_dir, double threshold, const res_agentic_opts *o,
                         int *status, ib_error *e)
{
	*status = 1;
	ib_arena *a = ib_arena_new();
	if (!a)
		return OOM(e);
	int rc = 0;
	char *path = ib_arena_printf(a, "%s/profile_export_aiperf.json", artifact_dir);
	if (!path)
		goto oom;
	if (!pw_is_file(path) && res_ag_is_dir(artifact_dir)) {
		bool oom = false;
		char *sub =
		    res_ag_first_sub_with(a, artifact_dir, "profile_export_aiperf.json", &oom);
		if (oom)
			goto oom;
		if (sub && !(path = ib_arena_printf(a, "%s/profile_export_aiperf.json", sub)))
			goto oom;
	}
	if (!(path = pw_py_path(a, path)))
		goto oom;
	if (!pw_is_file(path)) {
		pw_logf(o->log, o->log_ud, 2, "ERROR: %s not found", path);
		goto done;
	}
	ib_val *agg = NULL;
	ib_error pe = {0};
	if (ib_json_parse_file(a, path, &agg, &pe)) {
		char m[2600];
		ib_error_format(&pe, m, sizeof m);
		pw_logf(o->log, o->log_ud, 2, "ERROR: failed to read %s: %s", path, m);
		goto done;
	}
	if (agg->type != IB_V_MAP) {
		pw_logf(o->log, o->log_ud, 2, "ERROR: %s must contain a JSON object", path);
		goto done;
	}
	double succ = 0, errs = 0, done_n = 0;
	char msg[256];
	int hs = metric_avg(agg, "request_count", &succ, msg, sizeof msg), he = 0, hc = 0;
	if (hs >= 0)
		he = metric_avg(agg, "error_request_count", &errs, msg, sizeof msg);
	if (hs >= 0 && he >= 0)
		hc = metric_avg(agg, "completed_request_count", &done_n, msg, sizeof msg);
	if (hs < 0 || he < 0 || hc < 0) {
		pw_logf(o->log, o->log_ud, 2, "ERROR: failed to read %s: %s", path, msg);
		goto done;
	}
	if (!hs) {
		pw_logf(o->log, o->log_ud, 2, "ERROR: request_count.avg is missing");
		goto done;
	}
	if (!hc)
		done_n = succ + errs;
	if (done_n <= 0) {
		pw_logf(o->log, o->log_ud, 2, "ERROR: aiperf completed zero requests");
		goto done;
	}
	double rate = errs / done_n;
	if (rate > threshold) {
		pw_logf(o->log, o->log_ud, 2,
		        "ERROR: aiperf request error rate exceeded the benchmark limit: "
		        "%g/%g = %.3f%% > %.3f%%",
		        errs, done_n, rate * 100, threshold * 100);
		goto done;
	}
	pw_logf(o->log, o->log_ud, 1,
	        "Validated aiperf request error rate: %g/%g = %.3f%% <= %.3f%%", errs, done_n,
	        rate * 100, threshold * 100);
	*status = 0;
	goto done;
oom:
	rc = OOM(e);
done:
	ib_arena_free(a);
	return rc;
}
