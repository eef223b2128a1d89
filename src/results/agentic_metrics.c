/* The server side of process_agentic_result.py: aiperf's Prometheus scrape
 * summary through the backend adapters (vLLM, SGLang, ATOM, Dynamo vLLM),
 * the GPU KV pool from server logs, and the expected output lengths from
 * the trace corpus (docs/agentic.md). */
#include "agentx/agentx.h"
#include "results/agentic_priv.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OOM(e) ib_fail((e), IB_ENOMEM, "", 0, 0, "out of memory")

/* an optional float (Python float | None) */
typedef struct {
	bool ok;
	double v;
} opt;
static const opt NONE = {false, 0};
static opt some(double v)
{
	return (opt){true, v};
}

static const char *const K_COUNTER[] = {"total", "sum", "max", "avg", NULL};
static const char *const K_GAUGE[] = {"max", "avg", "total", NULL};
static const char *const K_GAUGE_AVG[] = {"avg", "max", "total", NULL};
static const char *const K_POOL[] = {"max", "avg", "total", "sum", NULL};

/* ---- aggregation_common over the metrics map ---- */

/* metric_series: the series objects of the named metrics, in order. */
typedef struct {
	const ib_val *metrics;
	const char *const *names;
	size_t ni, si;
} series_it;

static const ib_val *series_next(series_it *it)
{
	for (; it->names[it->ni]; it->ni++, it->si = 0) {
		const ib_val *en = ib_map_get(it->metrics, it->names[it->ni]);
		const ib_val *s = en && en->type == IB_V_MAP ? ib_map_get(en, "series") : NULL;
		while (s && s->type == IB_V_LIST && it->si < s->list.n) {
			const ib_val *x = s->list.v[it->si++];
			if (x->type == IB_V_MAP)
				return x;
		}
	}
	return NULL;
}

typedef bool (*series_filter)(const ib_val *series, const void *ctx);

static opt series_stat(const ib_val *series, const char *const *keys)
{
	const ib_val *st = ib_map_get(series, "stats");
	if (!st || st->type != IB_V_MAP)
		return NONE;
	double v;
	for (size_t i = 0; keys[i]; i++)
		if (res_ag_to_float(ib_map_get(st, keys[i]), &v))
			return some(v);
	return NONE;
}

static opt sum_stat_f(const ib_val *m, const char *const *names, const char *const *keys,
                      series_filter f, const void *ctx)
{
	series_it it = {m, names, 0, 0};
	const ib_val *s;
	opt t = {false, 0.0};
	while ((s = series_next(&it))) {
		if (f && !f(s, ctx))
			continue;
		opt v = series_stat(s, keys);
		if (v.ok)
			t.v += v.v, t.ok = true;
	}
	return t;
}

static opt sum_stat(const ib_val *m, const char *name)
{
	const char *names[] = {name, NULL};
	return sum_stat_f(m, names, K_COUNTER, NULL, NULL);
}

enum { MAX_COMBINE, AVG_COMBINE };

static opt gauge_stat_f(const ib_val *m, const char *const *names, const char *const *keys,
                        int combine, series_filter f, const void *ctx)
{
	series_it it = {m, names, 0, 0};
	const ib_val *s;
	double *v = NULL;
	size_t n = 0, cap = 0;
	opt r = NONE;
	while ((s = series_next(&it))) {
		if (f && !f(s, ctx))
			continue;
		opt x = series_stat(s, keys);
		if (!x.ok)
			continue;
		if (ib_grow(&v, &cap, n + 1))
			break; /* out of memory: the values so far */
		v[n++] = x.v;
	}
	if (n && combine == AVG_COMBINE)
		r = some(pw_mean(v, n));
	for (size_t i = 0; n && combine == MAX_COMBINE && i < n; i++)
		if (!r.ok || v[i] > r.v)
			r = some(v[i]);
	free(v);
	return r;
}

static opt gauge1(const ib_val *m, const char *name, const char *const *keys, int combine)
{
	const char *names[] = {name, NULL};
	return gauge_stat_f(m, names, keys, combine, NULL, NULL);
}

/* normalize_fraction */
static opt frac(opt x)
{
	if (x.ok && x.v > 1.5)
		x.v /= 100.0;
	return x;
}

static opt rate(opt num, opt den)
{
	if (!num.ok || !den.ok || den.v <= 0)
		return NONE;
	return some(num.v / den.v);
}

/* label_value: str(labels[key]); false for None or no labels object. */
static bool label_value(const ib_val *series, const char *key, ib_buf *out)
{
	const ib_val *l = ib_map_get(series, "labels");
	const ib_val *v = l && l->type == IB_V_MAP ? ib_map_get(l, key) : NULL;
	if (!v || v->type == IB_V_NULL)
		return false;
	ib_val_pystr(out, v);
	return true;
}

static bool label_equals(const ib_val *series, const void *ctx)
{
	const char *const *kv = ctx;
	ib_buf b = {0};
	bool eq = label_value(series, kv[0], &b) && b.data && !strcmp(b.data, kv[1]);
	ib_buf_free(&b);
	return eq;
}

/* sum_by_label over one metric: {label: float} in first-seen order. */
static ib_val *sum_by_label(ib_arena *a, const ib_val *m, const char *name, const char *key)
{
	const char *names[] = {name, NULL};
	series_it it = {m, names, 0, 0};
	ib_val *out = ib_v_map(a);
	const ib_val *s;
	ib_buf b = {0};
	while (out && (s = series_next(&it))) {
		const ib_val *l = ib_map_get(s, "labels");
		if (!l || l->type != IB_V_MAP)
			continue;
		b.len = 0;
		if (!label_value(s, key, &b))
			continue;
		opt v = series_stat(s, K_COUNTER);
		if (!v.ok)
			continue;
		const char *lab = b.data ? b.data : "";
		const ib_val *old = ib_map_get(out, lab);
		if (ib_map_set(a, out, lab, ib_v_float(a, (old ? old->f : 0.0) + v.v)))
			out = NULL;
	}
	ib_buf_free(&b);
	return out;
}

static opt label_get(const ib_val *m, const char *k)
{
	const ib_val *v = ib_map_get(m, k);
	return v ? some(v->f) : NONE;
}

static double values_sum(const ib_val *m)
{
	double s = 0;
	for (size_t i = 0; i < m->map.n; i++)
		s += m->map.kv[i].val->f;
	return s;
}

/* ---- the output object ---- */

static ib_val *of(ib_arena *a, opt x)
{
	return x.ok ? ib_v_float(a, x.v) : ib_v_null(a);
}

/* counter_int: int(round(x)) */
static ib_val *counter_int(ib_arena *a, opt x)
{
	if (!x.ok || !isfinite(x.v))
		return ib_v_null(a);
	double r = rint(x.v);
	if (fabs(r) < 9.2e18)
		return ib_v_int(a, (int64_t)r);
	/* a Python int beyond 64 bits: its exact digits */
	ib_val *v = ib_v_float(a, r);
	if (v && !(v->bigint = ib_arena_printf(a, "%.0f", r)))
		return NULL;
	return v;
}

typedef struct {
	ib_arena *a;
	ib_val *top, *cache, *kv, *off, *tok, *pbs;
	bool oom;
} nested;

static void put(nested *n, ib_val *m, const char *k, ib_val *v)
{
	if (!v || ib_map_set(n->a, m, k, v))
		n->oom = true;
}

static ib_val *nulls(nested *n, const char *const *keys)
{
	ib_val *m = ib_v_map(n->a);
	for (size_t i = 0; m && keys[i]; i++)
		put(n, m, keys[i], ib_v_null(n->a));
	if (!m)
		n->oom = true;
	return m;
}

/* empty_server_metrics */
static void empty(nested *n, bool present, size_t count)
{
	static const char *const cache[] = {"gpu_cache_hit_rate",
	                                    "cpu_cache_hit_rate",
	                                    "external_cache_hit_rate",
	                                    "overall_cache_hit_rate",
	                                    "prefix_cache_hits",
	                                    "prefix_cache_queries",
	                                    "external_prefix_cache_hits",
	                                    "external_prefix_cache_queries",
	                                    NULL};
	static const char *const cache2[] = {
	    "frontend_cache_hit_rate", "router_kv_hit_rate",    "router_shared_cache_hit_rate",
	    "frontend_cached_tokens",  "frontend_input_tokens", NULL};
	static const char *const kv[] = {"gpu_usage_pct",   "gpu_total_tokens", "cpu_usage_pct",
	                                 "cpu_used_tokens", "cpu_total_tokens", NULL};
	static const char *const off[] = {"bytes_gpu_to_cpu",
	                                  "bytes_cpu_to_gpu",
	                                  "time_gpu_to_cpu",
	                                  "time_cpu_to_gpu",
	                                  "bandwidth_gpu_to_cpu_bytes_per_second",
	                                  "bandwidth_cpu_to_gpu_bytes_per_second",
	                                  NULL};
	static const char *const tok[] = {"prompt_total", "generation_total", "requests_completed",
	                                  NULL};
	static const char *const pbs[] = {"gpu_cache_hit", "cpu_or_external_cache_hit", "computed",
	                                  NULL};
	ib_arena *a = n->a;
	n->top = ib_v_map(a);
	if (!n->top) {
		n->oom = true;
		return;
	}
	put(n, n->top, "present", ib_v_bool(a, present));
	put(n, n->top, "adapter", ib_v_str(a, "none"));
	put(n, n->top, "metric_count", ib_v_int(a, (int64_t)count));
	n->cache = nulls(n, cache);
	if (n->cache) {
		put(n, n->cache, "cached_tokens_by_source", ib_v_map(a));
		for (size_t i = 0; cache2[i]; i++)
			put(n, n->cache, cache2[i], ib_v_null(a));
	}
	put(n, n->top, "cache", n->cache);
	put(n, n->top, "kv_cache", n->kv = nulls(n, kv));
	put(n, n->top, "kv_offload", n->off = nulls(n, off));
	n->tok = nulls(n, tok);
	n->pbs = nulls(n, pbs);
	if (n->pbs)
		put(n, n->pbs, "raw", ib_v_map(a));
	if (n->tok)
		put(n, n->tok, "prompt_by_source", n->pbs);
	put(n, n->top, "tokens", n->tok);
	put(n, n->top, "sources", ib_v_list(a));
}

/* tokens.prompt_by_source */
static void by_source(nested *n, opt gpu, opt other, opt computed, ib_val *raw)
{
	ib_val *p = ib_v_map(n->a);
	if (!p) {
		n->oom = true;
		return;
	}
	put(n, p, "gpu_cache_hit", of(n->a, gpu));
	put(n, p, "cpu_or_external_cache_hit", of(n->a, other));
	put(n, p, "computed", of(n->a, computed));
	put(n, p, "raw", raw);
	put(n, n->tok, "prompt_by_source", p);
}

/* ---- the adapters ---- */

typedef enum { AD_DYNAMO, AD_ATOM, AD_SGLANG, AD_VLLM, AD_NONE } adapter;
static const char *const adapter_names[] = {"dynamo-vllm", "atom", "sglang", "vllm"};

static bool any_prefix(const ib_val *m, const char *p1, const char *p2)
{
	for (size_t i = 0; i < m->map.n; i++) {
		const char *k = m->map.kv[i].key->str.s;
		if (ib_str_has_prefix(k, p1) || (p2 && ib_str_has_prefix(k, p2)))
			return true;
	}
	return false;
}

/* detect_backend */
static adapter detect(const ib_val *m, const char *fw)
{
	char low[64];
	size_t i = 0;
	for (; fw[i] && i + 1 < sizeof low; i++)
		low[i] = (char)((fw[i] >= 'A' && fw[i] <= 'Z') ? fw[i] + 32 : fw[i]);
	low[i] = 0;
	if (ib_str_has_prefix(low, "dynamo") || any_prefix(m, "dynamo_", NULL))
		return AD_DYNAMO;
	if (any_prefix(m, "atom:", "atom_") || (!m->map.n && !strcmp(low, "atom")))
		return AD_ATOM;
	if (any_prefix(m, "sglang:", NULL) || (!m->map.n && !strcmp(low, "sglang")))
		return AD_SGLANG;
	if (any_prefix(m, "vllm:", NULL) || (!m->map.n && !strcmp(low, "vllm")))
		return AD_VLLM;
	return AD_NONE;
}

/* The flat fields the nested object does not already hold. */
typedef struct {
	opt gpu_usage, overall;
	ib_val *prompt, *gen; /* counter_int'd totals (IB_V_NULL for None) */
} flat;

/* _source_id */
static int source_id(const ib_val *s, ib_buf *b)
{
	const ib_val *l = ib_map_get(s, "labels");
	if (l && l->type != IB_V_MAP)
		l = NULL;
	const ib_val *c = ib_map_get(l, "dynamo_component");
	if (!ib_val_truthy(c))
		c = ib_map_get(l, "component");
	ib_buf comp = {0};
	if (ib_val_truthy(c))
		ib_val_pystr(&comp, c);
	const char *cs = comp.data ? comp.data : "";
	const char *role = !strcmp(cs, "prefill")                             ? "prefill"
	                   : !strcmp(cs, "backend") || !strcmp(cs, "decode")  ? "decode"
	                   : !strcmp(cs, "frontend") || !strcmp(cs, "router") ? "router"
	                                                                      : "combined";
	int rc = ib_buf_puts(b, role);
	ib_buf_free(&comp);
	const ib_val *ep = ib_map_get(s, "endpoint_url");
	if (ib_val_truthy(ep)) {
		rc |= ib_buf_putc(b, '|');
		ib_val_pystr(b, ep);
	}
	static const char *const keys[] = {"worker_id", "dp_rank", "engine"};
	for (size_t i = 0; i < 3; i++) {
		ib_buf v = {0};
		if (label_value(s, keys[i], &v))
			rc |= ib_buf_printf(b, "|%s=%s", keys[i], v.data ? v.data : "");
		ib_buf_free(&v);
	}
	return rc;
}

static bool source_is(const ib_val *s, const void *ctx)
{
	ib_buf b = {0};
	bool eq = !source_id(s, &b) && b.data && !strcmp(b.data, ctx);
	ib_buf_free(&b);
	return eq;
}

/* _vllm_sources */
static ib_val *vllm_sources(ib_arena *a, const ib_val *m)
{
	static const char *const names[] = {"vllm:prompt_tokens",
	                                    "vllm:generation_tokens",
	                                    "vllm:prefix_cache_hits",
	                                    "vllm:prefix_cache_queries",
	                                    "vllm:kv_cache_usage_perc",
	                                    "vllm:prompt_tokens_by_source",
	                                    NULL};
	static const char *const usage[] = {"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc",
	                                    NULL};
	series_it it = {m, names, 0, 0};
	const ib_val *s;
	char **ids = NULL;
	size_t n = 0, cap = 0;
	ib_val *out = ib_v_list(a);
	while (out && (s = series_next(&it))) {
		ib_buf b = {0};
		if (source_id(s, &b) || ib_grow(&ids, &cap, n + 1) ||
		    !(ids[n] = ib_arena_strdup(a, b.data ? b.data : ""))) {
			ib_buf_free(&b);
			out = NULL;
			break;
		}
		ib_buf_free(&b);
		n++;
	}
	if (out && n)
		qsort(ids, n, sizeof *ids, ib_cmp_str);
	for (size_t i = 0; out && i < n; i++) {
		const char *id = ids[i];
		if ((i && !strcmp(id, ids[i - 1])) || !*id)
			continue;
		const char *pn[] = {"vllm:prompt_tokens", NULL},
		           *gn[] = {"vllm:generation_tokens", NULL},
		           *hn[] = {"vllm:prefix_cache_hits", NULL},
		           *qn[] = {"vllm:prefix_cache_queries", NULL};
		opt hits = sum_stat_f(m, hn, K_COUNTER, source_is, id);
		opt q = sum_stat_f(m, qn, K_COUNTER, source_is, id);
		ib_val *src = ib_v_map(a);
		const char *bar = strchr(id, '|');
		if (!src || ib_map_set(a, src, "id", ib_v_str(a, id)) ||
		    ib_map_set(a, src, "role",
		               ib_v_strn(a, id, bar ? (size_t)(bar - id) : strlen(id))) ||
		    ib_map_set(a, src, "prompt_tokens",
		               of(a, sum_stat_f(m, pn, K_COUNTER, source_is, id))) ||
		    ib_map_set(a, src, "generation_tokens",
		               of(a, sum_stat_f(m, gn, K_COUNTER, source_is, id))) ||
		    ib_map_set(a, src, "prefix_cache_hit_rate", of(a, rate(hits, q))) ||
		    ib_map_set(
		        a, src, "gpu_kv_cache_usage_pct",
		        of(a, frac(gauge_stat_f(m, usage, K_GAUGE, MAX_COMBINE, source_is, id)))) ||
		    ib_list_push(a, out, src))
			out = NULL;
	}
	free(ids);
	return out;
}

/* VllmBackend.populate (with DynamoVllmBackend's totals when dynamo) */
static void vllm_populate(nested *n, const ib_val *m, bool dynamo, flat *f)
{
	ib_arena *a = n->a;
	opt pt, gt;
	if (dynamo) {
		pt = sum_stat(m, "dynamo_frontend_input_sequence_tokens");
		if (!pt.ok)
			pt = sum_stat(m, "vllm:prompt_tokens");
		gt = sum_stat(m, "dynamo_frontend_output_tokens");
		if (!gt.ok)
			gt = sum_stat(m, "vllm:generation_tokens");
	} else {
		pt = sum_stat(m, "vllm:prompt_tokens");
		gt = sum_stat(m, "vllm:generation_tokens");
	}
	f->prompt = counter_int(a, pt), f->gen = counter_int(a, gt);
	opt hits = sum_stat(m, "vllm:prefix_cache_hits"),
	    q = sum_stat(m, "vllm:prefix_cache_queries");
	opt gpu = rate(hits, q);
	opt xh = sum_stat(m, "vllm:external_prefix_cache_hits"),
	    xq = sum_stat(m, "vllm:external_prefix_cache_queries");
	opt ext = rate(xh, xq), cpu = ext, overall = NONE;
	ib_val *pbs = sum_by_label(a, m, "vllm:prompt_tokens_by_source", "source");
	if (!pbs) {
		n->oom = true;
		return;
	}
	if (pbs->map.n) {
		opt local = label_get(pbs, "local_cache_hit"),
		    xfer = label_get(pbs, "external_kv_transfer"),
		    comp = label_get(pbs, "local_compute");
		double total = values_sum(pbs);
		if (total > 0) {
			if (local.ok)
				gpu = some(local.v / total);
			if (xfer.ok)
				cpu = ext = some(xfer.v / total);
			overall =
			    some(((local.ok ? local.v : 0.0) + (xfer.ok ? xfer.v : 0.0)) / total);
		}
		by_source(n, local, xfer, comp, pbs);
	} else if (gpu.ok)
		overall = gpu;
	const char *usage[] = {"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", NULL};
	f->gpu_usage = frac(gauge_stat_f(m, usage, K_GAUGE, MAX_COMBINE, NULL, NULL));
	opt cpu_usage = frac(gauge1(m, "vllm:cpu_kv_cache_usage_perc", K_GAUGE, MAX_COMBINE));
	opt bg = sum_stat(m, "vllm:kv_offload_bytes_gpu_to_cpu"),
	    bc = sum_stat(m, "vllm:kv_offload_bytes_cpu_to_gpu"),
	    tg = sum_stat(m, "vllm:kv_offload_time_gpu_to_cpu"),
	    tc = sum_stat(m, "vllm:kv_offload_time_cpu_to_gpu");
	f->overall = overall;
	put(n, n->cache, "gpu_cache_hit_rate", of(a, gpu));
	put(n, n->cache, "cpu_cache_hit_rate", of(a, cpu));
	put(n, n->cache, "external_cache_hit_rate", of(a, ext));
	put(n, n->cache, "overall_cache_hit_rate", of(a, overall));
	put(n, n->cache, "prefix_cache_hits", of(a, hits));
	put(n, n->cache, "prefix_cache_queries", of(a, q));
	put(n, n->cache, "external_prefix_cache_hits", of(a, xh));
	put(n, n->cache, "external_prefix_cache_queries", of(a, xq));
	put(n, n->kv, "gpu_usage_pct", of(a, f->gpu_usage));
	put(n, n->kv, "cpu_usage_pct", of(a, cpu_usage));
	put(n, n->off, "bytes_gpu_to_cpu", of(a, bg));
	put(n, n->off, "bytes_cpu_to_gpu", of(a, bc));
	put(n, n->off, "time_gpu_to_cpu", of(a, tg));
	put(n, n->off, "time_cpu_to_gpu", of(a, tc));
	put(n, n->off, "bandwidth_gpu_to_cpu_bytes_per_second", of(a, rate(bg, tg)));
	put(n, n->off, "bandwidth_cpu_to_gpu_bytes_per_second", of(a, rate(bc, tc)));
	put(n, n->tok, "prompt_total", f->prompt);
	put(n, n->tok, "generation_total", f->gen);
	put(n, n->top, "sources", vllm_sources(a, m));
}

/* DynamoVllmBackend._populate_dynamo */
static void dynamo_populate(nested *n, const ib_val *m, flat *f)
{
	ib_arena *a = n->a;
	opt usage =
	    frac(gauge1(m, "dynamo_component_gpu_cache_usage_percent", K_GAUGE, MAX_COMBINE));
	if (!f->gpu_usage.ok) {
		f->gpu_usage = usage;
		put(n, n->kv, "gpu_usage_pct", of(a, usage));
	}
	opt fc = sum_stat(m, "dynamo_frontend_cached_tokens"),
	    fi = sum_stat(m, "dynamo_frontend_input_sequence_tokens");
	put(n, n->cache, "frontend_cache_hit_rate", of(a, rate(fc, fi)));
	put(n, n->cache, "router_kv_hit_rate",
	    of(a,
	       frac(gauge1(m, "dynamo_component_router_kv_hit_rate", K_GAUGE_AVG, AVG_COMBINE))));
	put(n, n->cache, "router_shared_cache_hit_rate",
	    of(a, frac(gauge1(m, "dynamo_component_router_shared_cache_hit_rate", K_GAUGE_AVG,
	                      AVG_COMBINE))));
	put(n, n->cache, "frontend_cached_tokens", of(a, fc));
	put(n, n->cache, "frontend_input_tokens", of(a, fi));
}

/* SglangBackend.populate */
static void sglang_populate(nested *n, const ib_val *m, flat *f)
{
	ib_arena *a = n->a;
	opt pt = sum_stat(m, "sglang:prompt_tokens"), gt = sum_stat(m, "sglang:generation_tokens");
	f->prompt = counter_int(a, pt), f->gen = counter_int(a, gt);
	ib_val *by = sum_by_label(a, m, "sglang:cached_tokens", "cache_source");
	if (!by) {
		n->oom = true;
		return;
	}
	opt dev = label_get(by, "device"), host = label_get(by, "host");
	opt total = by->map.n ? some(values_sum(by)) : NONE;
	opt gpu = rate(dev, pt), cpu = rate(host, pt), overall = rate(total, pt);
	if (!overall.ok)
		overall = frac(gauge1(m, "sglang:cache_hit_rate", K_GAUGE_AVG, AVG_COMBINE));
	f->overall = overall;
	f->gpu_usage = frac(gauge1(m, "sglang:token_usage", K_GAUGE, MAX_COMBINE));
	const char *pool[] = {"sglang:max_total_num_tokens", NULL};
	opt maxtok = sum_stat_f(m, pool, K_POOL, NULL, NULL);
	opt hu = gauge1(m, "sglang:hicache_host_used_tokens", K_GAUGE, MAX_COMBINE),
	    ht = gauge1(m, "sglang:hicache_host_total_tokens", K_GAUGE, MAX_COMBINE);
	static const char *const mode[] = {"mode", "prefill_compute"};
	const char *rt[] = {"sglang:realtime_tokens", NULL};
	opt pc = sum_stat_f(m, rt, K_COUNTER, label_equals, mode);
	put(n, n->cache, "gpu_cache_hit_rate", of(a, gpu));
	put(n, n->cache, "cpu_cache_hit_rate", of(a, cpu));
	put(n, n->cache, "external_cache_hit_rate", of(a, cpu));
	put(n, n->cache, "overall_cache_hit_rate", of(a, overall));
	put(n, n->cache, "cached_tokens_by_source", by);
	put(n, n->kv, "gpu_usage_pct", of(a, f->gpu_usage));
	put(n, n->kv, "gpu_total_tokens", counter_int(a, maxtok));
	put(n, n->kv, "cpu_usage_pct", of(a, rate(hu, ht)));
	put(n, n->kv, "cpu_used_tokens", of(a, hu));
	put(n, n->kv, "cpu_total_tokens", of(a, ht));
	put(n, n->tok, "prompt_total", f->prompt);
	put(n, n->tok, "generation_total", f->gen);
	by_source(n, dev, host, pc, by);
}

/* AtomBackend.populate: atom:<stem>, atom_<stem> and their _total forms. */
static opt atom_counter(const ib_val *m, ib_arena *a, const char *stem)
{
	const char *names[] = {ib_arena_printf(a, "atom:%s", stem),
	                       ib_arena_printf(a, "atom_%s", stem),
	                       ib_arena_printf(a, "atom:%s_total", stem),
	                       ib_arena_printf(a, "atom_%s_total", stem), NULL};
	for (size_t i = 0; i < 4; i++)
		if (!names[i])
			return NONE;
	return sum_stat_f(m, names, K_COUNTER, NULL, NULL);
}

static void atom_populate(nested *n, const ib_val *m, flat *f)
{
	ib_arena *a = n->a;
	f->prompt = counter_int(a, atom_counter(m, a, "prompt_tokens"));
	f->gen = counter_int(a, atom_counter(m, a, "generation_tokens"));
	opt cached = atom_counter(m, a, "prefix_cache_cached_tokens"),
	    full = atom_counter(m, a, "prefix_cache_full_tokens"),
	    ext = atom_counter(m, a, "lmcache_loaded_tokens");
	opt hit = rate(cached, full), xr = rate(ext, full);
	const char *usage[] = {"atom:kv_cache_usage_ratio", "atom_kv_cache_usage_ratio", NULL};
	f->gpu_usage = frac(gauge_stat_f(m, usage, K_GAUGE, MAX_COMBINE, NULL, NULL));
	f->overall = hit;
	put(n, n->cache, "gpu_cache_hit_rate", of(a, hit));
	put(n, n->cache, "cpu_cache_hit_rate", of(a, xr));
	put(n, n->cache, "external_cache_hit_rate", of(a, xr));
	put(n, n->cache, "overall_cache_hit_rate", of(a, hit));
	put(n, n->cache, "prefix_cache_hits", of(a, cached));
	put(n, n->cache, "prefix_cache_queries", of(a, full));
	put(n, n->cache, "external_prefix_cache_hits", of(a, ext));
	put(n, n->cache, "external_prefix_cache_queries", of(a, full));
	put(n, n->kv, "gpu_usage_pct", of(a, f->gpu_usage));
	put(n, n->tok, "prompt_total", f->prompt);
	put(n, n->tok, "generation_total", f->gen);
}

/* ---- server logs ---- */

static bool word(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '_';
}

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\x1f';
}

/* vLLM: "GPU KV cache size:\s*([\d,]+)\s*tokens" and the EngineCore tag.
 * Returns true with the tokens (> 0) of a matching line. */
static bool vllm_line(const char *s, size_t n, int64_t *tokens, const char **tag, size_t *tagn)
{
	static const char key[] = "GPU KV cache size:";
	const size_t kl = sizeof key - 1;
	bool found = false;
	for (size_t i = 0; i + kl <= n && !found; i++) {
		if (memcmp(s + i, key, kl))
			continue;
		size_t p = i + kl;
		while (p < n && space(s[p]))
			p++;
		size_t d = p;
		while (p < n && (digit(s[p]) || s[p] == ','))
			p++;
		if (p == d)
			continue;
		size_t q = p;
		while (q < n && space(s[q]))
			q++;
		if (q + 6 > n || memcmp(s + q, "tokens", 6))
			continue;
		/* int(text without commas) */
		int64_t v = 0;
		bool any = false, big = false;
		for (size_t k = d; k < p; k++)
			if (s[k] != ',') {
				any = true;
				if (v > (INT64_MAX - 9) / 10)
					big = true;
				else
					v = v * 10 + (s[k] - '0');
			}
		if (!any || big)
			return false;
		*tokens = v;
		found = true;
	}
	if (!found || *tokens <= 0)
		return false;
	*tag = NULL;
	static const char ec[] = "(EngineCore";
	for (size_t i = 0; i + sizeof ec - 1 <= n; i++) {
		if (memcmp(s + i, ec, sizeof ec - 1))
			continue;
		size_t p = i + sizeof ec - 1;
		if (p + 3 < n && !memcmp(s + p, "_DP", 3) && digit(s[p + 3])) {
			p += 3;
			while (p < n && digit(s[p]))
				p++;
		}
		size_t te = p;
		if (p >= n || !space(s[p]))
			continue;
		while (p < n && space(s[p]))
			p++;
		if (p + 4 > n || memcmp(s + p, "pid=", 4))
			continue;
		p += 4;
		size_t d = p;
		while (p < n && digit(s[p]))
			p++;
		if (p == d || p >= n || s[p] != ')')
			continue;
		*tag = s + i + 1, *tagn = te - i - 1;
		break;
	}
	return true;
}

/* \bNAME=(\d+)\b searched in s: the digits, or NULL. */
static const char *find_kv(const char *s, size_t n, const char *name, size_t *dn)
{
	size_t kl = strlen(name);
	for (size_t i = 0; i + kl <= n; i++) {
		if (memcmp(s + i, name, kl) || (i && word(s[i - 1])))
			continue;
		size_t p = i + kl, d = p;
		while (p < n && digit(s[p]))
			p++;
		if (p == d || (p < n && word(s[p])))
			continue;
		*dn = p - d;
		return s + d;
	}
	return NULL;
}

static bool small_int(const char *d, size_t n, int64_t *out)
{
	int64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (v > (INT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (d[i] - '0');
	}
	*out = v;
	return true;
}

/* \b(DP\d+\s+TP\d+\s+EP\d+)\b in s */
static const char *rank_tag(const char *s, size_t n, size_t *tn)
{
	static const char *const part[] = {"DP", "TP", "EP"};
	for (size_t i = 0; i + 2 <= n; i++) {
		if (i && word(s[i - 1]))
			continue;
		size_t p = i;
		bool ok = true;
		for (size_t k = 0; k < 3 && ok; k++) {
			if (k) {
				size_t q = p;
				while (p < n && space(s[p]))
					p++;
				ok = p > q;
			}
			if (!ok || p + 2 > n || memcmp(s + p, part[k], 2)) {
				ok = false;
				break;
			}
			p += 2;
			size_t d = p;
			while (p < n && digit(s[p]))
				p++;
			ok = p > d;
		}
		if (!ok || (p < n && word(s[p])))
			continue;
		*tn = p - i;
		return s + i;
	}
	return NULL;
}

/* A line end of str.splitlines(); s[i] starts one? Returns its length. */
static size_t line_break(const char *s, size_t n, size_t i)
{
	unsigned char c = (unsigned char)s[i];
	if (c == '\r')
		return i + 1 < n && s[i + 1] == '\n' ? 2 : 1;
	if (c == '\n' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1e))
		return 1;
	if (c == 0xC2 && i + 1 < n && (unsigned char)s[i + 1] == 0x85)
		return 2;
	if (c == 0xE2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
	    ((unsigned char)s[i + 2] == 0xA8 || (unsigned char)s[i + 2] == 0xA9))
		return 3;
	return 0;
}

typedef struct {
	const char *tag;
	size_t n;
	int64_t v;
} tagged;

/* Sets tag's value (last wins), keeping first-seen order. */
static int tag_set(tagged **t, size_t *n, size_t *cap, const char *tag, size_t tn, int64_t v)
{
	for (size_t i = 0; i < *n; i++)
		if ((*t)[i].n == tn && !memcmp((*t)[i].tag, tag, tn)) {
			(*t)[i].v = v;
			return 0;
		}
	if (ib_grow(t, cap, *n + 1))
		return -1;
	(*t)[(*n)++] = (tagged){tag, tn, v};
	return 0;
}

/* kv_cache_pool_tokens_from_server_log of vLLM (sglang false) or SGLang on
 * one log text: 1 with *out, 0 None, < 0 no memory. */
static int log_pool(const char *s, size_t n, bool sglang, int64_t *out)
{
	tagged *t = NULL;
	size_t nt = 0, cap = 0;
	int64_t bare = 0, dp = 0;
	size_t nbare = 0;
	if (sglang) {
		size_t dn;
		const char *d = find_kv(s, n, "dp_size=", &dn);
		if (d && (!small_int(d, dn, &dp) || dp <= 0))
			dp = 0;
	}
	for (size_t i = 0; i < n;) {
		size_t e = i, br = 0;
		while (e < n && !(br = line_break(s, n, e)))
			e++;
		const char *ln = s + i;
		size_t l = e - i, tn = 0;
		i = e + br;
		int64_t v;
		const char *tag = NULL;
		if (!sglang) {
			if (!vllm_line(ln, l, &v, &tag, &tn))
				continue;
		} else {
			size_t dn;
			const char *d = find_kv(ln, l, "max_total_num_tokens=", &dn);
			if (!d || !small_int(d, dn, &v) || v <= 0)
				continue;
			tag = rank_tag(ln, l, &tn);
		}
		if (tag) {
			if (tag_set(&t, &nt, &cap, tag, tn, v)) {
				free(t);
				return -1;
			}
		} else
			bare += v, nbare++;
	}
	int rc = 0;
	if (nt) {
		if (sglang && dp > 1 && nt == 1)
			*out = t[0].v * dp;
		else {
			*out = 0;
			for (size_t i = 0; i < nt; i++)
				*out += t[i].v;
		}
		rc = 1;
	} else if (nbare) {
		*out = sglang && nbare == 1 && dp > 1 ? bare * dp : bare;
		rc = 1;
	}
	free(t);
	return rc;
}

/* sum_server_log_capacities: 1 with *out, 0 None, < 0 no memory. */
static int log_capacity(const char *const *logs, size_t nlogs, bool sglang, int64_t *out)
{
	*out = 0;
	bool found = false;
	for (size_t i = 0; i < nlogs; i++) {
		FILE *f = fopen(logs[i], "rb");
		if (!f)
			continue;
		ib_buf b = {0};
		char chunk[65536];
		size_t k, max = (size_t)64 << 20;
		while (b.len < max && (k = fread(chunk, 1, sizeof chunk, f)) > 0)
			if (ib_buf_append(&b, chunk, b.len + k > max ? max - b.len : k)) {
				fclose(f);
				ib_buf_free(&b);
				return -1;
			}
		fclose(f);
		/* .replace("\x00", "") */
		size_t o = 0;
		for (size_t j = 0; j < b.len; j++)
			if (b.data[j])
				b.data[o++] = b.data[j];
		int64_t v;
		int rc = log_pool(b.data ? b.data : "", o, sglang, &v);
		ib_buf_free(&b);
		if (rc < 0)
			return rc;
		if (rc)
			*out += v, found = true;
	}
	return found;
}

static int cmp_path(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

int res_ag_log_paths(ib_arena *a, const char *result_dir, const char ***paths, size_t *n)
{
	*paths = NULL;
	*n = 0;
	const char *rd = pw_py_path(a, result_dir);
	if (!rd)
		return IB_ENOMEM;
	const char **out = NULL;
	char **real = NULL;
	size_t cap = 0, rcap = 0;
	const char *roots[4];
	size_t nr = 0;
	roots[nr++] = rd;
	/* Path.parents[:3] of the normalised path */
	char *cur = ib_arena_strdup(a, rd);
	if (!cur)
		return IB_ENOMEM;
	while (nr < 4 && strcmp(cur, ".") && strcmp(cur, "/")) {
		char *s = strrchr(cur, '/');
		char *parent = !s         ? ib_arena_strdup(a, ".")
		               : s == cur ? ib_arena_strdup(a, "/")
		                          : ib_arena_strndup(a, cur, (size_t)(s - cur));
		if (!parent)
			return IB_ENOMEM;
		roots[nr++] = cur = parent;
	}
	const char *direct = ib_arena_printf(a, "%s/server.log", rd);
	if (!direct)
		return IB_ENOMEM;
	const char **cand = NULL;
	size_t nc = 0, ccap = 0;
	struct stat st;
	int rc = 0;
	if (stat(direct, &st) == 0 && S_ISREG(st.st_mode)) {
		if (ib_grow(&cand, &ccap, 1))
			return IB_ENOMEM;
		cand[nc++] = direct;
	}
	for (size_t r = 0; r < nr && !rc; r++) {
		if (stat(roots[r], &st) || !S_ISDIR(st.st_mode))
			continue;
		DIR *d = opendir(roots[r]);
		if (!d)
			continue;
		size_t first = nc;
		struct dirent *de;
		while ((de = readdir(d))) {
			if (!ib_glob_match("watchtower-*.out", de->d_name))
				continue;
			const char *p =
			    !strcmp(roots[r], ".")
			        ? ib_arena_strdup(a, de->d_name)
			        : ib_arena_printf(a, "%s%s%s", roots[r],
			                          !strcmp(roots[r], "/") ? "" : "/", de->d_name);
			if (!p || ib_grow(&cand, &ccap, nc + 1)) {
				rc = IB_ENOMEM;
				break;
			}
			cand[nc++] = p;
		}
		closedir(d);
		if (nc > first)
			qsort(cand + first, nc - first, sizeof *cand, cmp_path);
	}
	for (size_t i = 0; i < nc && !rc; i++) {
		char *rp = realpath(cand[i], NULL);
		bool seen = false;
		for (size_t k = 0; rp && k < *n; k++)
			seen |= real[k] && !strcmp(real[k], rp);
		if (seen) {
			free(rp);
			continue;
		}
		if (ib_grow(&out, &cap, *n + 1) || ib_grow(&real, &rcap, *n + 1)) {
			free(rp);
			rc = IB_ENOMEM;
			break;
		}
		real[*n] = rp;
		out[(*n)++] = cand[i];
	}
	for (size_t k = 0; k < *n; k++)
		free(real[k]);
	free(real);
	free(cand);
	if (!rc && *n) {
		const char **arr = ib_arena_alloc(a, *n * sizeof *arr);
		if (!arr)
			rc = IB_ENOMEM;
		else
			memcpy(arr, out, *n * sizeof *arr);
		*paths = arr;
	}
	free(out);
	if (rc)
		*n = 0, *paths = NULL;
	return rc;
}

/* ---- compute_server_metrics ---- */

/* _record_token_sum: NULL value (None) when no record has the metric. */
static ib_val *token_sum(ib_arena *a, const res_ag_records *r, const char *key)
{
	size_t n;
	int64_t *v = res_ag_record_ints(r, key, &n), s = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	free(v);
	return n ? ib_v_int(a, s) : ib_v_null(a);
}

static void preview(ib_buf *b, const ib_val *m)
{
	const char **k = malloc((m->map.n + 1) * sizeof *k);
	if (!k)
		return;
	for (size_t i = 0; i < m->map.n; i++)
		k[i] = m->map.kv[i].key->str.s;
	qsort(k, m->map.n, sizeof *k, ib_cmp_str);
	for (size_t i = 0; i < m->map.n && i < 10; i++)
		ib_buf_printf(b, "%s%s", i ? ", " : "", k[i]);
	free(k);
}

int res_ag_server_metrics(ib_arena *a, const ib_val *export, const char *framework,
                          const res_ag_records *r, const char *const *logs, size_t nlogs,
                          ib_val **out, ib_val **warnings, ib_error *e)
{
	*warnings = NULL;
	const ib_val *m = export && export->type == IB_V_MAP ? ib_map_get(export, "metrics") : NULL;
	static const ib_val no_metrics = {.type = IB_V_MAP};
	if (!m || m->type != IB_V_MAP)
		m = &no_metrics;
	nested n = {.a = a};
	empty(&n, m->map.n > 0, m->map.n);
	if (n.oom)
		return OOM(e);
	adapter ad = detect(m, framework);
	if (m->map.n && ad == AD_NONE) {
		ib_buf b = {0};
		ib_buf_puts(&b, "");
		preview(&b, m);
		char low[256];
		size_t i = 0;
		for (; framework[i] && i + 1 < sizeof low; i++)
			low[i] =
			    (char)((framework[i] >= 'A' && framework[i] <= 'Z') ? framework[i] + 32
			                                                        : framework[i]);
		low[i] = 0;
		ib_fail(e, IB_EINVAL, "", 0, 0,
		        "Unsupported agentic server metrics backend; framework='%s', "
		        "metric_names=[%s]",
		        low, b.data ? b.data : "");
		ib_buf_free(&b);
		return IB_EINVAL;
	}
	flat f = {0};
	if (!m->map.n) {
		ib_val *w = ib_v_list(a);
		if (!w ||
		    ib_list_push(a, w, ib_v_str(a, "server_metrics_export.json missing or empty")))
			return OOM(e);
		*warnings = w;
	} else {
		put(&n, n.top, "adapter", ib_v_str(a, adapter_names[ad]));
		if (ad == AD_VLLM || ad == AD_DYNAMO)
			vllm_populate(&n, m, ad == AD_DYNAMO, &f);
		if (ad == AD_DYNAMO)
			dynamo_populate(&n, m, &f);
		if (ad == AD_SGLANG)
			sglang_populate(&n, m, &f);
		if (ad == AD_ATOM)
			atom_populate(&n, m, &f);
	}
	if (ad != AD_NONE && ad != AD_ATOM) {
		int64_t cap;
		int k = log_capacity(logs, nlogs, ad == AD_SGLANG, &cap);
		if (k < 0)
			return OOM(e);
		if (k)
			put(&n, n.kv, "gpu_total_tokens", ib_v_int(a, cap));
	}
	const ib_val *pt = ib_map_get(n.tok, "prompt_total"),
	             *gt = ib_map_get(n.tok, "generation_total");
	if (!m->map.n || pt->type == IB_V_NULL)
		put(&n, n.tok, "prompt_total", token_sum(a, r, "input_sequence_length"));
	if (!m->map.n || gt->type == IB_V_NULL)
		put(&n, n.tok, "generation_total", token_sum(a, r, "output_sequence_length"));
	put(&n, n.tok, "requests_completed", ib_v_int(a, (int64_t)r->n));
	if (n.oom)
		return OOM(e);
	*out = n.top;
	return 0;
}

/* ---- trace metadata (expected output lengths) ---- */

typedef struct {
	const char *id;
	int64_t *out; /* output length per n/s request */
	size_t n;
} trace_meta;

/* One trace blob: appends (or replaces) its entry. 0, or IB_EINVAL where
 * the reference crashes, IB_ENOMEM. */
static int add_blob(ib_arena *a, const ib_val *blob, const char *file, int line, trace_meta **t,
                    size_t *nt, size_t *cap, ib_error *e)
{
	if (blob->type != IB_V_MAP)
		return ib_fail(e, IB_EINVAL, file, line, 0, "a trace must be a JSON object");
	const ib_val *id = ib_map_get(blob, "id");
	if (!ib_val_truthy(id))
		return 0;
	const ib_val *rq = ib_map_get(blob, "requests");
	if (rq && rq->type != IB_V_LIST)
		return ib_fail(e, IB_EINVAL, file, line, 0, "field 'requests' must be a list");
	size_t nr = rq ? rq->list.n : 0, k = 0;
	int64_t *out = ib_arena_alloc(a, (nr + 1) * sizeof *out);
	if (!out)
		return OOM(e);
	for (size_t i = 0; i < nr; i++) {
		const ib_val *q = rq->list.v[i];
		if (q->type != IB_V_MAP)
			return ib_fail(e, IB_EINVAL, file, line, 0,
			               "requests[%zu] must be an object", i);
		const ib_val *ty = ib_map_get(q, "type");
		if (!ty || ty->type != IB_V_STR ||
		    (strcmp(ty->str.s, "n") && strcmp(ty->str.s, "s")))
			continue;
		const ib_val *ol = ib_map_get(q, "output_length");
		if (!ol || ol->type == IB_V_NULL)
			ol = ib_map_get(q, "out");
		int64_t v = 0;
		if (ib_val_truthy(ol) && !res_ag_to_int(ol, &v))
			return ib_fail(e, IB_EINVAL, file, line, 0,
			               "requests[%zu]: output length is not an integer", i);
		out[k++] = v;
	}
	if (!k)
		return 0;
	ib_buf b = {0};
	ib_val_pystr(&b, id);
	char *ids = ib_arena_strndup(a, b.data ? b.data : "", b.len);
	ib_buf_free(&b);
	if (!ids)
		return OOM(e);
	for (size_t i = 0; i < *nt; i++)
		if (!strcmp((*t)[i].id, ids)) {
			(*t)[i].out = out, (*t)[i].n = k;
			return 0;
		}
	if (ib_grow(t, cap, *nt + 1))
		return OOM(e);
	(*t)[(*nt)++] = (trace_meta){ids, out, k};
	return 0;
}

/* load_trace_metadata: every trace of the newest snapshot. */
static int load_traces(ib_arena *a, trace_meta **t, size_t *nt, ib_error *e)
{
	*t = NULL;
	*nt = 0;
	char *dir;
	int k = ax_hf_snapshot(NULL, &dir, NULL);
	if (k <= 0)
		return k < 0 ? OOM(e) : 0;
	char **files;
	size_t nf, cap = 0;
	ib_error ig = {0};
	int rc = ax_corpus_files(dir, &files, &nf, &ig);
	free(dir);
	if (rc)
		return rc == IB_ENOMEM ? OOM(e) : 0;
	for (size_t i = 0; i < nf && !rc; i++) {
		ib_buf b = {0};
		if (ib_read_file(files[i], &b, &ig))
			continue;
		bool jsonl = ib_glob_match("*.jsonl", files[i]);
		const char *p = b.data ? b.data : "", *end = p + b.len;
		int line = 0;
		while (!rc && p < end) {
			const char *q = jsonl ? p : end;
			while (q < end && *q != '\n' && *q != '\r')
				q++;
			line++;
			size_t l;
			const char *s = pw_py_strip(p, (size_t)(q - p), &l);
			p = q + 1;
			ib_val *v;
			if (!l || ib_json_parse(a, files[i], s, l, &v, &ig))
				continue;
			rc = add_blob(a, v, files[i], jsonl ? line : 0, t, nt, &cap, e);
		}
		ib_buf_free(&b);
	}
	ax_paths_free(files, nf);
	return rc;
}

int res_ag_expected_outputs(ib_arena *a, const res_ag_records *r, int64_t **out, size_t *n,
                            ib_error *e)
{
	*out = NULL;
	*n = 0;
	trace_meta *t;
	size_t nt;
	int rc = load_traces(a, &t, &nt, e);
	if (rc || !nt) {
		free(t);
		return rc;
	}
	if (!(*out = malloc((r->n + 1) * sizeof **out))) {
		free(t);
		return OOM(e);
	}
	for (size_t i = 0; i < r->n; i++) {
		const ib_val *md = ib_map_get(r->rec[i], "metadata");
		const ib_val *cid = ib_map_get(md, "conversation_id"),
		             *ti = ib_map_get(md, "turn_index");
		if (!ib_val_truthy(cid) || !ti || ti->type == IB_V_NULL)
			continue;
		if (cid->type != IB_V_STR || (ti->type != IB_V_INT && ti->type != IB_V_BOOL)) {
			rc = ib_fail(
			    e, IB_EINVAL, "", 0, 0,
			    "record %zu: conversation_id must be a string and turn_index an "
			    "integer",
			    i + 1);
			break;
		}
		const char *sep = strstr(cid->str.s, "::");
		size_t idl = sep ? (size_t)(sep - cid->str.s) : cid->str.len;
		int64_t turn = ti->type == IB_V_BOOL ? ti->b : ti->i;
		const trace_meta *tm = NULL;
		for (size_t k = 0; k < nt && !tm; k++)
			if (strlen(t[k].id) == idl && !memcmp(t[k].id, cid->str.s, idl))
				tm = &t[k];
		if (!tm || turn >= (int64_t)tm->n)
			continue;
		if (turn < 0 && turn + (int64_t)tm->n < 0) {
			rc = ib_fail(e, IB_EINVAL, "", 0, 0, "record %zu: list index out of range",
			             i + 1);
			break;
		}
		(*out)[(*n)++] = tm->out[turn < 0 ? turn + (int64_t)tm->n : turn];
	}
	free(t);
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}
