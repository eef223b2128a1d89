/* Agentic agg rows as flat metrics (docs/db.md, docs/report.md): the nested
 * request_metrics / server_metrics containers that `agentic process` writes,
 * under the flat names the InferenceX dashboard's ETL gives them
 * (flattenAgenticAggRow, and mapBenchmarkRow's slow-tail interactivity rule),
 * so the database and the report read one schema. */
#include "results/results.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool res_agentic_row(const ib_val *row)
{
	if (!row || row->type != IB_V_MAP)
		return false;
	const ib_val *v = ib_map_get(row, "scenario_type");
	if (!v || v->type != IB_V_STR)
		v = ib_map_get(row, "benchmark_type"); /* the database's row shape */
	return v && v->type == IB_V_STR && !strncmp(v->str.s, "agentic", 7);
}

int res_agentic_valid(const ib_val *row)
{
	const ib_val *g = ib_map_get(row, "validation");
	const ib_val *p = g && g->type == IB_V_MAP ? ib_map_get(g, "passed") : NULL;
	if (!p || p->type != IB_V_BOOL)
		p = ib_map_get(row, "valid"); /* the database's row shape */
	return p && p->type == IB_V_BOOL ? p->b : -1;
}

/* the value at a path of map keys, NULL at any non-map hop */
static const ib_val *at(const ib_val *m, const char *const *path)
{
	for (; *path && m; path++)
		m = m->type == IB_V_MAP ? ib_map_get(m, *path) : NULL;
	return m;
}

static int put(ib_arena *a, ib_val *out, const char *key, const ib_val *v)
{
	if (!v || (v->type != IB_V_INT && v->type != IB_V_FLOAT) ||
	    (v->type == IB_V_FLOAT && !isfinite(v->f)))
		return 0;
	return ib_map_set(a, out, key, (ib_val *)v);
}

/* a stat block {mean, p50, ...} as {stat}_{suffix}; p50 (and median) is
 * stored as median_*, as on the dashboard */
static int stat_block(ib_arena *a, const ib_val *b, const char *suffix, ib_val *out)
{
	static const char *const stats[][2] = {
	    {"mean", "mean"}, {"p50", "median"}, {"median", "median"}, {"p75", "p75"},
	    {"p90", "p90"},   {"p95", "p95"},    {"p99", "p99"},       {"std", "std"}};
	if (!b || b->type != IB_V_MAP)
		return 0;
	for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++) {
		char key[96];
		snprintf(key, sizeof key, "%s_%s", stats[i][1], suffix);
		int rc = put(a, out, key, ib_map_get(b, stats[i][0]));
		if (rc)
			return rc;
	}
	return 0;
}

int res_agentic_flat(ib_arena *a, const ib_val *row, ib_val *out)
{
	static const char *const latency[] = {"ttft", "e2el",   "itl",
	                                      "tpot", "intvty", "e2e_norm_intvty"};
	static const char *const tokens[][2] = {{"input", "input_tokens"},
	                                        {"output_actual", "output_tokens_actual"},
	                                        {"output_expected", "output_tokens_expected"}};
	/* scalar paths -> the dashboard's flat name (server_overall_cache_hit_rate
	 * is infbench's: the dashboard does not map it) */
	static const struct {
		const char *path[6], *key;
	} scalars[] = {
	    {{"request_metrics", "throughput", "input", "tokens_per_second"}, "input_tput_tps"},
	    {{"request_metrics", "throughput", "output", "tokens_per_second"}, "output_tput_tps"},
	    {{"request_metrics", "throughput", "total", "tokens_per_second"}, "total_tput_tps"},
	    {{"request_metrics", "throughput", "duration_seconds"}, "duration_seconds"},
	    {{"request_metrics", "throughput", "per_gpu", "total_tput_tps"}, "tput_per_gpu"},
	    {{"request_metrics", "throughput", "per_gpu", "output_tput_tps"},
	     "output_tput_per_gpu"},
	    {{"request_metrics", "throughput", "per_gpu", "input_tput_tps"}, "input_tput_per_gpu"},
	    {{"request_metrics", "cache", "theoretical_cache_hit_rate"},
	     "theoretical_cache_hit_rate"},
	    {{"server_metrics", "cache", "gpu_cache_hit_rate"}, "server_gpu_cache_hit_rate"},
	    {{"server_metrics", "cache", "cpu_cache_hit_rate"}, "server_cpu_cache_hit_rate"},
	    {{"server_metrics", "cache", "external_cache_hit_rate"},
	     "server_external_cache_hit_rate"},
	    {{"server_metrics", "cache", "overall_cache_hit_rate"},
	     "server_overall_cache_hit_rate"},
	    {{"server_metrics", "kv_cache", "gpu_usage_pct"}, "gpu_kv_cache_usage_pct"},
	    {{"server_metrics", "tokens", "prompt_total"}, "total_prompt_tokens"},
	    {{"server_metrics", "tokens", "generation_total"}, "total_generation_tokens"},
	    {{"server_metrics", "tokens", "requests_completed"}, "total_requests_completed"},
	};
	if (!row || row->type != IB_V_MAP || !out || out->type != IB_V_MAP)
		return IB_EINVAL;
	int rc = 0;
	const ib_val *rm = ib_map_get(row, "request_metrics");
	const ib_val *lat = rm && rm->type == IB_V_MAP ? ib_map_get(rm, "latency") : NULL;
	const ib_val *tok = rm && rm->type == IB_V_MAP ? ib_map_get(rm, "tokens") : NULL;
	for (size_t i = 0; !rc && i < sizeof latency / sizeof latency[0]; i++)
		rc =
		    stat_block(a, lat && lat->type == IB_V_MAP ? ib_map_get(lat, latency[i]) : NULL,
		               latency[i], out);
	if (!rc)
		rc = stat_block(a, rm && rm->type == IB_V_MAP ? ib_map_get(rm, "qps") : NULL, "qps",
		                out);
	for (size_t i = 0; !rc && i < sizeof tokens / sizeof tokens[0]; i++)
		rc = stat_block(a,
		                tok && tok->type == IB_V_MAP ? ib_map_get(tok, tokens[i][0]) : NULL,
		                tokens[i][1], out);
	for (size_t i = 0; !rc && i < sizeof scalars / sizeof scalars[0]; i++)
		rc = put(a, out, scalars[i].key, at(row, scalars[i].path));
	/* the slow-tail interactivity rule: *_intvty = 1 / *_itl, and none
	 * without a positive ITL (std is not inverted) */
	static const char *const pct[] = {"mean", "median", "p75", "p90", "p95", "p99"};
	for (size_t i = 0; !rc && i < sizeof pct / sizeof pct[0]; i++) {
		char ik[32], vk[32];
		snprintf(ik, sizeof ik, "%s_itl", pct[i]);
		snprintf(vk, sizeof vk, "%s_intvty", pct[i]);
		const ib_val *itl = ib_map_get(out, ik);
		double x = !itl ? NAN : itl->type == IB_V_INT ? (double)itl->i : itl->f;
		if (x > 0) {
			ib_val *v = ib_v_float(a, 1 / x);
			rc = v ? ib_map_set(a, out, vk, v) : IB_ENOMEM;
		} else {
			ib_map_del(out, vk);
		}
	}
	return rc;
}
