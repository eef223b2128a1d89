/* infbench process: process_result.py — a raw benchmark result and the
 * environment become the agg row agg_$RESULT_FILENAME.json, then the power
 * step patches it (docs/process.md). */
#include "results/results.h"
#include "sim/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define OOM(e) ib_fail((e), IB_ENOMEM, "", 0, 0, "out of memory")

typedef struct {
	const res_process_opts *o;
	ib_arena *a;
	const char *result_file; /* path of the raw result, for messages */
} pctx;

static const char *env_get(const pctx *c, const char *name)
{
	return ib_env_get(c->o->env, name);
}

/* get_required_env_vars: every missing name, in the given order. */
static int required(const pctx *c, const char *const *names, size_t n, const char **vals,
                    ib_error *e)
{
	ib_buf miss = {0};
	for (size_t i = 0; i < n; i++) {
		vals[i] = env_get(c, names[i]);
		if (!vals[i] && ib_buf_printf(&miss, "%s%s", miss.len ? ", " : "", names[i]))
			return OOM(e);
	}
	if (!miss.len)
		return 0;
	ib_fail(e, IB_EINVAL, "", 0, 0, "Missing required environment variables: %s", miss.data);
	ib_buf_free(&miss);
	return IB_EINVAL;
}

/* Python int(s) of an environment value. */
static int env_int(const char *name, const char *s, int64_t *out, ib_error *e)
{
	if (!ib_py_int(s, strlen(s), out))
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "environment variable %s: '%s' is not an integer", name, s);
	return 0;
}

static int opt_int(const pctx *c, const char *name, int64_t *out, ib_error *e)
{
	const char *s = env_get(c, name);
	return env_int(name, s ? s : "1", out, e);
}

static bool ieq(const char *s, const char *w)
{
	return s && !strcasecmp(s, w);
}

/* get_optional_component_metadata */
static int router_meta(const pctx *c, const char *name, ib_val **out, ib_error *e)
{
	*out = NULL;
	const char *s = env_get(c, name);
	if (!s || !*s || !strcmp(s, "null"))
		return 0;
	ib_val *v;
	ib_error pe;
	if (ib_json_parse(c->a, name, s, strlen(s), &v, &pe))
		return ib_fail(e, IB_EINVAL, "", 0, 0, "%s must contain valid JSON (%s)", name,
		               pe.msg);
	if (v->type != IB_V_MAP || v->map.n != 2 || !ib_map_has(v, "name") ||
	    !ib_map_has(v, "version"))
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "%s must contain exactly 'name' and 'version'", name);
	for (size_t i = 0; i < 2; i++) {
		const ib_val *x = v->map.kv[i].val;
		if (x->type != IB_V_STR || !x->str.len)
			return ib_fail(e, IB_EINVAL, "", 0, 0,
			               "%s name and version must be non-empty strings", name);
	}
	*out = v;
	return 0;
}

/* Python float(v) of a result field. */
static int field_float(const pctx *c, const ib_val *raw, const char *key, double *out, ib_error *e)
{
	const ib_val *v = ib_map_get(raw, key);
	if (!v)
		return ib_fail(e, IB_EINVAL, c->result_file, 0, 0, "field '%s' is missing", key);
	switch (v->type) {
	case IB_V_INT:
		*out = (double)v->i;
		return 0;
	case IB_V_FLOAT:
		*out = v->f;
		return 0;
	case IB_V_BOOL:
		*out = v->b ? 1.0 : 0.0;
		return 0;
	case IB_V_STR:
		if (ib_py_float(v->str.s, v->str.len, out))
			return 0;
		return ib_fail(e, IB_EINVAL, c->result_file, 0, 0,
		               "field '%s': could not convert string to float: '%s'", key,
		               v->str.s);
	default:
		return ib_fail(e, IB_EINVAL, c->result_file, 0, 0,
		               "field '%s': a %s is not a number", key, ib_vtype_pyname(v));
	}
}

/* int(raw["max_concurrency"]) */
static int conc_of(const pctx *c, const ib_val *raw, int64_t *out, ib_error *e)
{
	const ib_val *v = ib_map_get(raw, "max_concurrency");
	if (!v)
		return ib_fail(e, IB_EINVAL, c->result_file, 0, 0,
		               "field 'max_concurrency' is missing");
	if (ib_val_py_int(v, out, NULL))
		return 0;
	char r[128];
	ib_val_repr(v, r, sizeof r);
	return ib_fail(e, IB_EINVAL, c->result_file, 0, 0,
	               "field 'max_concurrency': %s is not an integer", r);
}

#define SET(m, k, v)                                                                               \
	do {                                                                                       \
		ib_val *v_ = (v);                                                                  \
		if (!v_ || ib_map_set(c->a, (m), (k), v_))                                         \
			return OOM(e);                                                             \
	} while (0)

typedef struct {
	int64_t tp, pp, dcp, pcp, ep;
} par;

static int single_node(pctx *c, const ib_val *raw, bool disagg, ib_val *d, int64_t *gpus,
                       ib_error *e)
{
	if (disagg)
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "Disaggregated mode requires multinode setup.");
	static const char *const names[] = {"TP", "EP_SIZE", "DP_ATTENTION"};
	const char *v[3];
	int rc = required(c, names, 3, v, e);
	par p;
	if (rc || (rc = env_int("TP", v[0], &p.tp, e)) ||
	    (rc = env_int("EP_SIZE", v[1], &p.ep, e)) || (rc = opt_int(c, "PP_SIZE", &p.pp, e)) ||
	    (rc = opt_int(c, "DCP_SIZE", &p.dcp, e)) || (rc = opt_int(c, "PCP_SIZE", &p.pcp, e)))
		return rc;
	if (p.pp <= 0 || p.dcp <= 0 || p.pcp <= 0)
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "PP_SIZE, DCP_SIZE, and PCP_SIZE must be positive integers.");
	int64_t g;
	if (__builtin_mul_overflow(p.tp, p.pp, &g) || __builtin_mul_overflow(g, p.pcp, &g))
		return ib_fail(e, IB_ERANGE, "", 0, 0,
		               "TP * PP_SIZE * PCP_SIZE does not fit 64 bits");
	if (g == 0) /* the reference's ZeroDivisionError */
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "the GPU count TP * PP_SIZE * PCP_SIZE is 0 (TP=%s): cannot divide "
		               "throughput by it",
		               v[0]);
	double tot, out;
	if ((rc = field_float(c, raw, "total_token_throughput", &tot, e)) ||
	    (rc = field_float(c, raw, "output_throughput", &out, e)))
		return rc;
	*gpus = g;
	SET(d, "is_multinode", ib_v_bool(c->a, false));
	SET(d, "tp", ib_v_int(c->a, p.tp));
	SET(d, "pp", ib_v_int(c->a, p.pp));
	SET(d, "dcp_size", ib_v_int(c->a, p.dcp));
	SET(d, "pcp_size", ib_v_int(c->a, p.pcp));
	SET(d, "ep", ib_v_int(c->a, p.ep));
	SET(d, "dp_attention", ib_v_str(c->a, v[2]));
	SET(d, "tput_per_gpu", ib_v_float(c->a, tot / (double)g));
	SET(d, "output_tput_per_gpu", ib_v_float(c->a, out / (double)g));
	SET(d, "input_tput_per_gpu", ib_v_float(c->a, (tot - out) / (double)g));
	return 0;
}

static int multi_node(pctx *c, const ib_val *raw, ib_val *d, int64_t *pg, int64_t *dg, ib_error *e)
{
	static const char *const names[] = {
	    "PREFILL_GPUS", "DECODE_GPUS",     "PREFILL_NUM_WORKERS", "PREFILL_TP",
	    "PREFILL_EP",   "PREFILL_DP_ATTN", "DECODE_NUM_WORKERS",  "DECODE_TP",
	    "DECODE_EP",    "DECODE_DP_ATTN"};
	const char *v[10];
	int rc = required(c, names, 10, v, e);
	if (rc)
		return rc;
	const char *ph = env_get(c, "PREFILL_HARDWARE"), *dh = env_get(c, "DECODE_HARDWARE");
	bool hp = ph && *ph, hd = dh && *dh;
	if (hp != hd)
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "PREFILL_HARDWARE and DECODE_HARDWARE must be specified together.");
	int64_t P, D, pnw, dnw;
	par p, q;
	if ((rc = env_int(names[0], v[0], &P, e)) || (rc = env_int(names[1], v[1], &D, e)) ||
	    (rc = env_int(names[2], v[2], &pnw, e)) || (rc = env_int(names[3], v[3], &p.tp, e)) ||
	    (rc = opt_int(c, "PREFILL_PP_SIZE", &p.pp, e)) ||
	    (rc = opt_int(c, "PREFILL_DCP_SIZE", &p.dcp, e)) ||
	    (rc = opt_int(c, "PREFILL_PCP_SIZE", &p.pcp, e)) ||
	    (rc = env_int(names[4], v[4], &p.ep, e)) || (rc = env_int(names[6], v[6], &dnw, e)) ||
	    (rc = env_int(names[7], v[7], &q.tp, e)) ||
	    (rc = opt_int(c, "DECODE_PP_SIZE", &q.pp, e)) ||
	    (rc = opt_int(c, "DECODE_DCP_SIZE", &q.dcp, e)) ||
	    (rc = opt_int(c, "DECODE_PCP_SIZE", &q.pcp, e)) ||
	    (rc = env_int(names[8], v[8], &q.ep, e)))
		return rc;
	if (p.pp <= 0 || p.dcp <= 0 || p.pcp <= 0 || q.pp <= 0 || q.dcp <= 0 || q.pcp <= 0)
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "Multinode PP, DCP, and PCP sizes must be positive integers.");
	int64_t total;
	if (__builtin_add_overflow(P, D, &total))
		return ib_fail(e, IB_ERANGE, "", 0, 0,
		               "PREFILL_GPUS + DECODE_GPUS does not fit 64 bits");
	if (total <= 0)
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "Multinode results require at least one GPU.");
	if (P <= 0)
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "Multinode results require at least one prefill GPU.");
	bool hasd = D > 0;
	double tot, out;
	if ((rc = field_float(c, raw, "total_token_throughput", &tot, e)) ||
	    (rc = field_float(c, raw, "output_throughput", &out, e)))
		return rc;
	ib_arena *a = c->a;
	SET(d, "is_multinode", ib_v_bool(a, true));
	SET(d, "prefill_tp", ib_v_int(a, p.tp));
	SET(d, "prefill_pp", ib_v_int(a, p.pp));
	SET(d, "prefill_dcp_size", ib_v_int(a, p.dcp));
	SET(d, "prefill_pcp_size", ib_v_int(a, p.pcp));
	SET(d, "prefill_ep", ib_v_int(a, p.ep));
	SET(d, "prefill_dp_attention", ib_v_str(a, v[5]));
	SET(d, "prefill_num_workers", ib_v_int(a, pnw));
	SET(d, "decode_tp", ib_v_int(a, hasd ? q.tp : 0));
	SET(d, "decode_pp", ib_v_int(a, hasd ? q.pp : 1));
	SET(d, "decode_dcp_size", ib_v_int(a, hasd ? q.dcp : 1));
	SET(d, "decode_pcp_size", ib_v_int(a, hasd ? q.pcp : 1));
	SET(d, "decode_ep", ib_v_int(a, hasd ? q.ep : 0));
	SET(d, "decode_dp_attention", ib_v_str(a, v[9]));
	SET(d, "decode_num_workers", ib_v_int(a, dnw));
	SET(d, "num_prefill_gpu", ib_v_int(a, P));
	SET(d, "num_decode_gpu", ib_v_int(a, D));
	SET(d, "tput_per_gpu", ib_v_float(a, tot / (double)total));
	SET(d, "output_tput_per_gpu", ib_v_float(a, out / (double)(hasd ? D : total)));
	SET(d, "input_tput_per_gpu", ib_v_float(a, (tot - out) / (double)P));
	if (hp) {
		SET(d, "prefill_hw", ib_v_str(a, ph));
		SET(d, "decode_hw", ib_v_str(a, dh));
	}
	*pg = P, *dg = D;
	return 0;
}

/* key.replace(from, to) for every occurrence. */
static char *replace_all(ib_arena *a, const char *s, size_t n, const char *from, const char *to)
{
	ib_buf b = {0};
	size_t fl = strlen(from);
	for (size_t i = 0; i < n;) {
		if (n - i >= fl && !memcmp(s + i, from, fl)) {
			ib_buf_puts(&b, to);
			i += fl;
		} else {
			ib_buf_putc(&b, s[i++]);
		}
	}
	char *r = ib_arena_strndup(a, b.data ? b.data : "", b.len);
	ib_buf_free(&b);
	return r;
}

static bool contains(const char *s, size_t n, const char *w)
{
	size_t l = strlen(w);
	for (size_t i = 0; i + l <= n; i++)
		if (!memcmp(s + i, w, l))
			return true;
	return false;
}

static int latencies(pctx *c, const ib_val *raw, ib_val *d, ib_error *e)
{
	for (size_t i = 0; i < raw->map.n; i++) {
		const ib_val *k = raw->map.kv[i].key;
		const char *ks = k->str.s;
		size_t kl = k->str.len;
		bool ms = kl >= 2 && !memcmp(ks + kl - 2, "ms", 2), tpot = contains(ks, kl, "tpot");
		if (!ms && !tpot)
			continue;
		double x;
		int rc = field_float(c, raw, ks, &x, e);
		if (rc)
			return rc;
		char *base = replace_all(c->a, ks, kl, "_ms", "");
		if (!base)
			return OOM(e);
		if (ms) {
			ib_val *v = ib_v_float(c->a, x / 1000.0);
			if (!v || ib_map_set_key(c->a, d, ib_v_strn(c->a, base, strlen(base)), v))
				return OOM(e);
		}
		if (tpot) {
			if (x == 0) /* the reference dies with ZeroDivisionError here */
				return ib_fail(
				    e, IB_EINVAL, c->result_file, 0, 0,
				    "field '%s' is 0: interactivity 1000/TPOT is undefined "
				    "(every request failed, or OSL 1)",
				    ks);
			char *iv = replace_all(c->a, base, strlen(base), "tpot", "intvty");
			ib_val *v = ib_v_float(c->a, 1000.0 / x);
			if (!iv || !v ||
			    ib_map_set_key(c->a, d, ib_v_strn(c->a, iv, strlen(iv)), v))
				return OOM(e);
		}
	}
	return 0;
}

static char *in_dir(pctx *c, const char *p)
{
	const char *dir = c->o->dir;
	if (!dir || !*dir || p[0] == '/')
		return ib_arena_strdup(c->a, p);
	return ib_arena_printf(c->a, "%s/%s", dir, p);
}

static const char *const BASE_VARS[] = {
    "RUNNER_TYPE", "FRAMEWORK", "PRECISION", "SPEC_DECODING", "RESULT_FILENAME",
    "ISL",         "OSL",       "DISAGG",    "MODEL_PREFIX",  "IMAGE"};

static int row_of_raw(pctx *c, const ib_val *raw, const char *const *v, ib_val **out,
                      bool *multinode, int64_t *gpus, int64_t *pg, int64_t *dg, ib_error *e);

/* Builds the agg row (before power) into *out. */
static int build_row(pctx *c, ib_val **out, bool *multinode, int64_t *gpus, int64_t *pg,
                     int64_t *dg, const char **rf, ib_error *e)
{
	const char *v[10];
	int rc = required(c, BASE_VARS, 10, v, e);
	if (rc)
		return rc;
	*rf = v[4];
	c->result_file = in_dir(c, ib_arena_printf(c->a, "%s.json", v[4]));
	ib_val *raw;
	if (!c->result_file)
		return OOM(e);
	if ((rc = ib_json_parse_file(c->a, c->result_file, &raw, e)))
		return rc;
	if (raw->type != IB_V_MAP)
		return ib_fail(e, IB_EINVAL, c->result_file, 0, 0,
		               "the result is a JSON %s, not an object", ib_vtype_pyname(raw));
	return row_of_raw(c, raw, v, out, multinode, gpus, pg, dg, e);
}

/* The agg row of a parsed raw result and the base variables v (BASE_VARS). */
/* [lo, hi] = x times the interval's factors */
static ib_val *bounds(ib_arena *a, double x, const double f[2])
{
	ib_val *l = ib_v_list(a);
	if (!l || ib_list_push(a, l, ib_v_float(a, x * f[0])) ||
	    ib_list_push(a, l, ib_v_float(a, x * f[1])))
		return NULL;
	return l;
}

static double row_num(const ib_val *row, const char *k);

/* The simulator's prediction interval (the raw "sim_interval", the value
 * of its X-Infbench-Sim-Interval header) as the agg row's "sim_interval":
 * level, tput_per_gpu and median_intvty bounds, pool, widen (docs/sim.md
 * "Prediction intervals"). Nothing when the raw result has none. */
static int sim_interval(pctx *c, const ib_val *raw, ib_val *d, ib_error *e)
{
	const ib_val *v = ib_map_get(raw, "sim_interval");
	if (!v)
		return 0;
	sim_iv iv;
	char pool[128];
	if (v->type != IB_V_STR || !sim_iv_parse(v->str.s, v->str.len, &iv, pool, sizeof pool))
		return ib_fail(e, IB_EINVAL, c->result_file, 0, 0,
		               "field 'sim_interval': not a prediction interval (level=L; "
		               "tput=LO,HI; inter=LO,HI; pool=P; widen=N)");
	ib_val *m = ib_v_map(c->a);
	if (!m)
		return OOM(e);
	SET(m, "level", ib_v_float(c->a, iv.level));
	SET(m, "tput_per_gpu", bounds(c->a, row_num(d, "tput_per_gpu"), iv.tput));
	SET(m, "median_intvty", bounds(c->a, row_num(d, "median_intvty"), iv.inter));
	SET(m, "pool", ib_v_str(c->a, iv.pool));
	SET(m, "widen", ib_v_int(c->a, iv.widen));
	SET(d, "sim_interval", m);
	return 0;
}

static int row_of_raw(pctx *c, const ib_val *raw, const char *const *v, ib_val **out,
                      bool *multinode, int64_t *gpus, int64_t *pg, int64_t *dg, ib_error *e)
{
	int rc;
	bool disagg = ieq(v[7], "true");
	const char *fp = env_get(c, "RECIPE_FINGERPRINT");
	int64_t conc, isl, osl;
	if ((rc = conc_of(c, raw, &conc, e)))
		return rc;
	const ib_val *model = ib_map_get(raw, "model_id");
	if (!model)
		return ib_fail(e, IB_EINVAL, c->result_file, 0, 0, "field 'model_id' is missing");
	if ((rc = env_int("ISL", v[5], &isl, e)) || (rc = env_int("OSL", v[6], &osl, e)))
		return rc;
	ib_val *d = ib_v_map(c->a);
	if (!d)
		return OOM(e);
	SET(d, "hw", ib_v_str(c->a, v[0]));
	SET(d, "conc", ib_v_int(c->a, conc));
	SET(d, "image", ib_v_str(c->a, v[9]));
	SET(d, "model", (ib_val *)model);
	SET(d, "infmax_model_prefix", ib_v_str(c->a, v[8]));
	SET(d, "framework", ib_v_str(c->a, v[1]));
	SET(d, "precision", ib_v_str(c->a, v[2]));
	SET(d, "spec_decoding", ib_v_str(c->a, v[3]));
	SET(d, "disagg", ib_v_bool(c->a, disagg));
	SET(d, "recipe_fingerprint", ib_v_str(c->a, fp ? fp : ""));
	SET(d, "isl", ib_v_int(c->a, isl));
	SET(d, "osl", ib_v_int(c->a, osl));
	ib_val *router;
	if ((rc = router_meta(c, "ROUTER_METADATA", &router, e)))
		return rc;
	if (router)
		SET(d, "router", router);
	const char *kv = env_get(c, "KV_P2P_TRANSFER");
	if (kv && *kv)
		SET(d, "kv_p2p_transfer", ib_v_str(c->a, kv));
	const char *mn = env_get(c, "IS_MULTINODE");
	*multinode = ieq(mn ? mn : "false", "true");
	rc =
	    *multinode ? multi_node(c, raw, d, pg, dg, e) : single_node(c, raw, disagg, d, gpus, e);
	if (rc || (rc = latencies(c, raw, d, e)))
		return rc;
	/* infbench's marks (absent from the reference's rows): a result of the
	 * simulator, and the client's health verdict */
	const ib_val *sim = ib_map_get(raw, "simulated");
	if (sim && sim->type == IB_V_BOOL && sim->b)
		SET(d, "simulated", ib_v_bool(c->a, true));
	if ((rc = sim_interval(c, raw, d, e)))
		return rc;
	const ib_val *ch = ib_map_get(raw, "client_health");
	const ib_val *cb = ch && ch->type == IB_V_MAP ? ib_map_get(ch, "client_bound") : NULL;
	if (cb && cb->type == IB_V_BOOL)
		SET(d, "client_bound", ib_v_bool(c->a, cb->b));
	const ib_val *ts = ib_map_get(raw, "time_scale"); /* model-time figures */
	if (ts && (ts->type == IB_V_FLOAT || ts->type == IB_V_INT))
		SET(d, "time_scale", (ib_val *)ts);
	*out = d;
	return 0;
}

static int power_step(pctx *c, const char *rf, bool multinode, int64_t gpus, int64_t pg, int64_t dg,
                      const char *agg, int *status, ib_error *e)
{
	const char *req = env_get(c, "REQUIRE_POWER");
	bool require = req && (!strcmp(req, "1") || ieq(req, "true") || ieq(req, "yes"));
	char *bench = in_dir(c, ib_arena_printf(c->a, "%s.json", rf));
	char *val = in_dir(c, ib_arena_printf(c->a, "power_validation_%s.json", rf));
	if (!bench || !val)
		return OOM(e);
	if (multinode) {
		const char *pd = env_get(c, "POWER_ARTIFACT_DIR"),
		           *lr = env_get(c, "POWER_RESULT_ROOT"),
		           *sha = env_get(c, "POWER_PRODUCER_SHA");
		pw_mn_opts o = {
		    .power_dir = in_dir(c, pd ? pd : "LOGS/power"),
		    .logs_root = in_dir(c, lr ? lr : "LOGS"),
		    .bench_path = bench,
		    .agg_path = agg,
		    .validation_path = val,
		    .prefill_gpus = pg,
		    .decode_gpus = dg,
		    .aggregate_gpus = 0,
		    .expected_producer_sha = sha && *sha ? sha : NULL,
		    .require_power = require,
		    .log = c->o->log,
		    .log_ud = c->o->log_ud,
		};
		/* an aggregated multinode deployment (DISAGG false): its GPUs are
		 * the "agg" role of the package, as the reference's open change
		 * (#2684) adapts them */
		const char *dis = env_get(c, "DISAGG");
		if (!ieq(dis ? dis : "false", "true")) {
			o.aggregate_gpus = (pg > 0 ? pg : 0) + (dg > 0 ? dg : 0);
			o.prefill_gpus = o.decode_gpus = 0;
		}
		if (!o.power_dir || !o.logs_root)
			return OOM(e);
		return pw_mn_run(&o, status, e);
	}
	const char *cand[3] = {env_get(c, "GPU_METRICS_CSV"), "gpu_metrics.csv",
	                       "/workspace/gpu_metrics.csv"};
	const char *csv = NULL, *first = NULL;
	for (int i = 0; i < 3; i++) {
		if (!cand[i] || !*cand[i])
			continue;
		char *p = in_dir(c, cand[i]);
		if (!p)
			return OOM(e);
		if (!first)
			first = p;
		if (!csv && pw_is_file(p))
			csv = p;
	}
	pw_opts o = {
	    .csv_path = csv ? csv : first,
	    .bench_path = bench,
	    .agg_path = agg,
	    .validation_path = val,
	    .has_expected = true,
	    .expected_num_gpus = gpus,
	    .require_power = require,
	    .log = c->o->log,
	    .log_ud = c->o->log_ud,
	};
	return pw_run(&o, status, e);
}

int res_process(const res_process_opts *o, ib_buf *agg_text, int *power_status, ib_error *e)
{
	*power_status = 0;
	pctx c = {.o = o, .a = ib_arena_new()};
	if (!c.a)
		return OOM(e);
	ib_val *row = NULL, *fin;
	bool multinode = false;
	int64_t gpus = 0, pg = 0, dg = 0;
	const char *rf = NULL;
	int rc = build_row(&c, &row, &multinode, &gpus, &pg, &dg, &rf, e);
	char *agg = rc ? NULL : in_dir(&c, ib_arena_printf(c.a, "agg_%s.json", rf));
	if (!rc && !agg)
		rc = OOM(e);
	if (!rc && o->derived) {
		ib_val *dv;
		rc = res_derived(c.a, row, &dv);
		if (!rc && ib_map_set(c.a, row, "derived", dv))
			rc = IB_ENOMEM;
		if (rc)
			rc = OOM(e);
	}
	if (!rc)
		rc = pw_write_json(agg, row, e);
	if (!rc)
		rc = power_step(&c, rf, multinode, gpus, pg, dg, agg, power_status, e);
	if (!rc)
		rc = ib_json_parse_file(c.a, agg, &fin, e);
	if (!rc && agg_text) {
		ib_json_opts jo = {.indent = 2, .ensure_ascii = true};
		rc = ib_json_write(agg_text, fin, &jo, e);
	}
	ib_arena_free(c.a);
	return rc;
}

int res_raw_agg(ib_arena *a, const ib_val *raw, const char *const *env, const char *file,
                ib_val **row, ib_error *e)
{
	res_process_opts o = {.env = env};
	pctx c = {.o = &o, .a = a, .result_file = file};
	const char *v[10];
	bool multinode = false;
	int64_t gpus = 0, pg = 0, dg = 0;
	if (raw->type != IB_V_MAP)
		return ib_fail(e, IB_EINVAL, file, 0, 0, "the result is a JSON %s, not an object",
		               ib_vtype_pyname(raw));
	int rc = required(&c, BASE_VARS, 10, v, e);
	return rc ? rc : row_of_raw(&c, raw, v, row, &multinode, &gpus, &pg, &dg, e);
}

/* ---- derived metrics (spec/evals-report-agentx.md B.6, K1, K2, K4) ---- */

static const struct {
	const char *gpu;
	double kw, cost[3];
} gpu_specs[] = {
    {"h100", 1.73, {1.30, 1.69, 1.30}},   {"h200", 1.73, {1.41, 1.74, 1.60}},
    {"b200", 2.17, {1.95, 2.34, 2.90}},   {"b300", 2.17, {2.34, 2.808, 3.48}},
    {"gb200", 2.10, {2.21, 2.75, 3.30}},  {"gb300", 2.10, {2.652, 3.30, 3.96}},
    {"mi300x", 1.79, {1.12, 1.40, 1.55}}, {"mi325x", 2.18, {1.28, 1.59, 1.80}},
    {"mi355x", 2.65, {1.48, 1.90, 2.10}},
};

static double row_num(const ib_val *row, const char *k)
{
	const ib_val *v = ib_map_get(row, k);
	if (v && v->type == IB_V_FLOAT)
		return v->f;
	if (v && v->type == IB_V_INT)
		return (double)v->i;
	return 0;
}

int res_derived(ib_arena *a, const ib_val *row, ib_val **out)
{
	const ib_val *hw = ib_map_get(row, "hw");
	const char *h = hw && hw->type == IB_V_STR ? hw->str.s : "";
	size_t bl = strcspn(h, "-_");
	char base[64];
	snprintf(base, sizeof base, "%.*s", (int)(bl < 63 ? bl : 63), h);
	for (char *p = base; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	double kw = 0, cost[3] = {0, 0, 0};
	for (size_t i = 0; i < sizeof gpu_specs / sizeof gpu_specs[0]; i++)
		if (!strcmp(base, gpu_specs[i].gpu)) {
			kw = gpu_specs[i].kw;
			memcpy(cost, gpu_specs[i].cost, sizeof cost);
		}
	static const char *const tk[3] = {"tput_per_gpu", "output_tput_per_gpu",
	                                  "input_tput_per_gpu"};
	static const char *const ck[3] = {"cost_per_m_total_tokens", "cost_per_m_output_tokens",
	                                  "cost_per_m_input_tokens"};
	static const char *const jk[3] = {"joules_per_total_token", "joules_per_output_token",
	                                  "joules_per_input_token"};
	static const char *const rk[3] = {"hyperscaler", "neocloud", "rental"};
	ib_val *m = ib_v_map(a);
	if (!m || ib_map_set(a, m, "gpu", ib_v_str(a, base)) ||
	    ib_map_set(a, m, "power_kw_per_gpu", ib_v_float(a, kw)))
		return IB_ENOMEM;
	for (int i = 0; i < 3; i++) {
		double tput = row_num(row, tk[i]), mtok_hr = tput * 3600 / 1e6;
		ib_val *cm = ib_v_map(a);
		if (!cm)
			return IB_ENOMEM;
		for (int k = 0; k < 3; k++)
			if (ib_map_set(
			        a, cm, rk[k],
			        ib_v_float(a, kw > 0 && mtok_hr > 0 ? cost[k] / mtok_hr : 0.0)))
				return IB_ENOMEM;
		if (ib_map_set(a, m, ck[i], cm))
			return IB_ENOMEM;
	}
	for (int i = 0; i < 3; i++) {
		double tput = row_num(row, tk[i]);
		if (ib_map_set(a, m, jk[i], ib_v_float(a, tput > 0 ? kw * 1000 / tput : 0.0)))
			return IB_ENOMEM;
	}
	*out = m;
	return 0;
}
