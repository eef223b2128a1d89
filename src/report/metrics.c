/* report/metrics.c — agg rows, the GPU table, the series key
 * (getHardwareKey) and the derived cost/energy metrics of createChartDataPoint
 * (K1–K7, formulas of InferenceX-app @01c58d3). */
#include "report/report.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const field_names[REP_F__COUNT] = {
    [REP_F_CONC] = "conc",
    [REP_F_ISL] = "isl",
    [REP_F_OSL] = "osl",
    [REP_F_TP] = "tp",
    [REP_F_PP] = "pp",
    [REP_F_EP] = "ep",
    [REP_F_PREFILL_TP] = "prefill_tp",
    [REP_F_PREFILL_EP] = "prefill_ep",
    [REP_F_PREFILL_NUM_WORKERS] = "prefill_num_workers",
    [REP_F_DECODE_TP] = "decode_tp",
    [REP_F_DECODE_EP] = "decode_ep",
    [REP_F_DECODE_NUM_WORKERS] = "decode_num_workers",
    [REP_F_NUM_PREFILL_GPU] = "num_prefill_gpu",
    [REP_F_NUM_DECODE_GPU] = "num_decode_gpu",
    [REP_F_TPUT_PER_GPU] = "tput_per_gpu",
    [REP_F_OUTPUT_TPUT_PER_GPU] = "output_tput_per_gpu",
    [REP_F_INPUT_TPUT_PER_GPU] = "input_tput_per_gpu",
    [REP_F_MEDIAN_INTVTY] = "median_intvty",
    [REP_F_MEAN_INTVTY] = "mean_intvty",
    [REP_F_P90_INTVTY] = "p90_intvty",
    [REP_F_P99_INTVTY] = "p99_intvty",
    [REP_F_MEDIAN_E2EL] = "median_e2el",
    [REP_F_MEAN_E2EL] = "mean_e2el",
    [REP_F_P90_E2EL] = "p90_e2el",
    [REP_F_P99_E2EL] = "p99_e2el",
    [REP_F_MEDIAN_TTFT] = "median_ttft",
    [REP_F_MEAN_TTFT] = "mean_ttft",
    [REP_F_P90_TTFT] = "p90_ttft",
    [REP_F_P99_TTFT] = "p99_ttft",
    [REP_F_MEDIAN_TPOT] = "median_tpot",
    [REP_F_MEAN_TPOT] = "mean_tpot",
    [REP_F_P90_TPOT] = "p90_tpot",
    [REP_F_P99_TPOT] = "p99_tpot",
    [REP_F_AVG_POWER_W] = "avg_power_w",
    [REP_F_PREFILL_AVG_POWER_W] = "prefill_avg_power_w",
    [REP_F_DECODE_AVG_POWER_W] = "decode_avg_power_w",
    [REP_F_J_PER_OUTPUT_TOKEN] = "joules_per_output_token",
    [REP_F_J_PER_TOTAL_TOKEN] = "joules_per_total_token",
    [REP_F_J_PER_INPUT_TOKEN] = "joules_per_input_token",
    [REP_F_J_PER_QUERY] = "joules_per_successful_query",
};

const char *rep_field_name(rep_field f)
{
	return (unsigned)f < REP_F__COUNT ? field_names[f] : NULL;
}

int rep_field_lookup(const char *name)
{
	for (int i = 0; name && i < REP_F__COUNT; i++)
		if (!strcmp(field_names[i], name))
			return i;
	return -1;
}

static const char *str_field(const ib_val *o, const char *k)
{
	const ib_val *v = ib_map_get(o, k);
	return v && v->type == IB_V_STR ? v->str.s : NULL;
}

static int bool_field(const ib_val *o, const char *k)
{
	const ib_val *v = ib_map_get(o, k);
	if (!v || v->type == IB_V_NULL)
		return -1;
	if (v->type == IB_V_BOOL)
		return v->b;
	if (v->type == IB_V_INT)
		return v->i != 0;
	if (v->type == IB_V_STR)
		return !strcmp(v->str.s, "true") || !strcmp(v->str.s, "True");
	return -1;
}

bool rep_json_number(const ib_val *v, double *out)
{
	if (!v)
		return false;
	if (v->type == IB_V_INT) {
		*out = (double)v->i;
		return true;
	}
	if (v->type == IB_V_FLOAT) {
		*out = v->f;
		return true;
	}
	if (v->type == IB_V_STR) {
		if (!strcmp(v->str.s, "NaN"))
			*out = NAN;
		else if (!strcmp(v->str.s, "Infinity"))
			*out = INFINITY;
		else if (!strcmp(v->str.s, "-Infinity"))
			*out = -INFINITY;
		else
			return false;
		return true;
	}
	return false;
}

int rep_row_from_json(const ib_val *o, size_t index, rep_row *r, ib_error *e)
{
	memset(r, 0, sizeof *r);
	for (int i = 0; i < REP_F__COUNT; i++)
		r->f[i] = NAN;
	r->overlay_run = -1;
	if (!o || o->type != IB_V_MAP)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "row %zu: not a JSON object", index);
	r->id = str_field(o, "id");
	r->hw = str_field(o, "hw");
	r->framework = str_field(o, "framework");
	r->precision = str_field(o, "precision");
	r->spec_decoding = str_field(o, "spec_decoding");
	r->mtp = str_field(o, "mtp");
	r->benchmark_type = str_field(o, "benchmark_type");
	r->date = str_field(o, "date");
	r->model = str_field(o, "model");
	r->image = str_field(o, "image");
	r->disagg = bool_field(o, "disagg");
	r->is_multinode = bool_field(o, "is_multinode");
	r->dp_attention = bool_field(o, "dp_attention");
	r->prefill_dp_attention = bool_field(o, "prefill_dp_attention");
	r->decode_dp_attention = bool_field(o, "decode_dp_attention");
	double run;
	if (rep_json_number(ib_map_get(o, "overlay_run"), &run) && isfinite(run))
		r->overlay_run = (int)run;
	for (int i = 0; i < REP_F__COUNT; i++) {
		double v;
		if (rep_json_number(ib_map_get(o, field_names[i]), &v)) {
			r->f[i] = v;
			r->has[i] = true;
		}
	}
	return 0;
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

typedef struct {
	const rep_row *r;
	size_t i;
} row_ref;

/* The dashboard's configuration of a row: (hw, framework, spec, disagg, precision). */
static int cmp_config(const void *x, const void *y)
{
	const rep_row *a = ((const row_ref *)x)->r, *b = ((const row_ref *)y)->r;
	int c = strcmp(or_empty(a->hw), or_empty(b->hw));
	if (!c)
		c = strcmp(or_empty(a->framework), or_empty(b->framework));
	if (!c)
		c = strcmp(or_empty(a->spec_decoding), or_empty(b->spec_decoding));
	if (!c)
		c = (a->disagg > b->disagg) - (a->disagg < b->disagg);
	return c ? c : strcmp(or_empty(a->precision), or_empty(b->precision));
}

int rep_latest_rows(const rep_row *rows, size_t n, bool *keep)
{
	row_ref *v = malloc((n ? n : 1) * sizeof *v);
	if (!v)
		return IB_ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = (row_ref){&rows[i], i};
	qsort(v, n, sizeof *v, cmp_config);
	/* a row is kept when no row of its configuration has a later date: its
	 * date is the configuration's latest */
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		const char *latest = or_empty(v[lo].r->date);
		for (hi = lo + 1; hi < n && !cmp_config(&v[lo], &v[hi]); hi++)
			if (strcmp(or_empty(v[hi].r->date), latest) > 0)
				latest = or_empty(v[hi].r->date);
		for (size_t k = lo; k < hi; k++)
			keep[v[k].i] = !strcmp(or_empty(v[k].r->date), latest);
	}
	free(v);
	return 0;
}

int rep_first_seen_ids(const char *const *keys, size_t n, size_t *ids, size_t *nids)
{
	/* an open-addressing table of the first row of each key (linear
	 * probing, at most half full) */
	size_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	size_t *slot = malloc(cap * sizeof *slot);
	if (!slot)
		return IB_ENOMEM;
	for (size_t k = 0; k < cap; k++)
		slot[k] = SIZE_MAX;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		size_t h = (size_t)ib_fnv1a(IB_FNV1A_BASIS, keys[i], strlen(keys[i])) & (cap - 1);
		while (slot[h] != SIZE_MAX && strcmp(keys[slot[h]], keys[i]))
			h = (h + 1) & (cap - 1);
		if (slot[h] == SIZE_MAX) {
			slot[h] = i;
			ids[i] = k++;
		} else {
			ids[i] = ids[slot[h]];
		}
	}
	*nids = k;
	free(slot);
	return 0;
}

int rep_bucket_ids(const size_t *ids, size_t n, size_t nids, size_t **off, size_t **members)
{
	*off = calloc(nids + 1, sizeof **off);
	*members = malloc((n ? n : 1) * sizeof **members);
	if (!*off || !*members) {
		free(*off);
		free(*members);
		*off = *members = NULL;
		return IB_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		(*off)[ids[i] + 1]++;
	for (size_t k = 0; k < nids; k++)
		(*off)[k + 1] += (*off)[k];
	/* stable: members of one id keep their order; off[k] walks up to off[k + 1] */
	for (size_t i = 0; i < n; i++)
		(*members)[(*off)[ids[i]]++] = i;
	for (size_t k = nids; k > 0; k--)
		(*off)[k] = (*off)[k - 1];
	(*off)[0] = 0;
	return 0;
}

/* ---- the GPU table (README 6.2) ---- */

static const char *const known_gpus[] = {"h100",  "h200",   "b200",   "b300",  "gb200",
                                         "gb300", "mi300x", "mi325x", "mi355x"};

static const rep_gpu_spec gpus_april[] = {
    {"h100", 1.73, 1.30, 1.69, 1.30, 700},    {"h200", 1.73, 1.41, 1.74, 1.60, 700},
    {"b200", 2.17, 1.95, 2.34, 2.90, 1000},   {"b300", 2.17, 2.34, 2.808, 3.48, 1200},
    {"gb200", 2.10, 2.21, 2.75, 3.30, 1200},  {"gb300", 2.10, 2.652, 3.30, 3.96, 1400},
    {"mi300x", 1.79, 1.12, 1.40, 1.55, 750},  {"mi325x", 2.18, 1.28, 1.59, 1.80, 1000},
    {"mi355x", 2.65, 1.48, 1.90, 2.10, 1400},
};

static const rep_gpu_spec gpus_allin[] = {
    {"h100", 1.37, 1.30, 1.69, 1.30, 700},    {"h200", 1.37, 1.41, 1.74, 1.60, 700},
    {"b200", 1.71, 1.95, 2.34, 2.90, 1000},   {"b300", 1.90, 2.34, 2.808, 3.48, 1200},
    {"gb200", 1.87, 2.21, 2.75, 3.30, 1200},  {"gb300", 2.12, 2.652, 3.30, 3.96, 1400},
    {"mi300x", 1.39, 1.12, 1.40, 1.55, 750},  {"mi325x", 1.69, 1.28, 1.59, 1.80, 1000},
    {"mi355x", 2.09, 1.48, 1.90, 2.10, 1400},
};

static const rep_gpu_table table_april = {gpus_april, 9, 7.1, known_gpus, 9};
static const rep_gpu_table table_allin = {gpus_allin, 9, 7.1, known_gpus, 9};

const rep_gpu_table *rep_gpu_table_builtin(bool april)
{
	return april ? &table_april : &table_allin;
}

const rep_gpu_spec *rep_gpu_find(const rep_gpu_table *t, const char *base)
{
	for (size_t i = 0; t && base && i < t->n; i++)
		if (!strcmp(t->gpus[i].name, base))
			return &t->gpus[i];
	return NULL;
}

/* ---- series key ---- */

static void append(char *out, size_t cap, const char *s)
{
	size_t n = strlen(out);
	if (n < cap)
		snprintf(out + n, cap - n, "%s", s);
}

void rep_hardware_key(const rep_row *r, const rep_gpu_table *t, char *out, size_t cap)
{
	(void)t; /* the -disagg variant would need an unknown-but-registered GPU */
	if (!cap)
		return;
	out[0] = 0;
	const char *hw = r->hw ? r->hw : "";
	size_t n = strcspn(hw, "-");
	snprintf(out, cap, "%.*s", (int)n, hw);
	if (r->framework && r->framework[0]) {
		char fw[128];
		size_t i = 0;
		for (; r->framework[i] && i + 1 < sizeof fw; i++)
			fw[i] = (char)tolower((unsigned char)r->framework[i]);
		fw[i] = 0;
		static const char *const alias[][2] = {{"atom-disagg", "mooncake-atom"},
		                                       {"sglang-disagg", "mori-sglang"},
		                                       {"trtllm", "trt"},
		                                       {"dynamo-trtllm", "dynamo-trt"}};
		const char *f = fw;
		for (size_t k = 0; k < sizeof alias / sizeof alias[0]; k++)
			if (!strcmp(fw, alias[k][0]))
				f = alias[k][1];
		append(out, cap, "_");
		append(out, cap, f);
	}
	if (r->benchmark_type && !strcmp(r->benchmark_type, "agentic_traces"))
		return;
	const char *spec = r->spec_decoding;
	if ((r->mtp && !strcmp(r->mtp, "on")) || (spec && !strcmp(spec, "mtp"))) {
		append(out, cap, "_mtp");
	} else if (spec && spec[0] && strcmp(spec, "none")) {
		append(out, cap, "_");
		append(out, cap, spec);
	}
}

void rep_spec_base(const char *hw_key, char *out, size_t cap)
{
	if (!cap)
		return;
	const char *k = hw_key ? hw_key : "";
	size_t n = strcspn(k, "-_");
	if (n >= cap)
		n = cap - 1;
	memmove(out, k, n); /* out may be hw_key itself */
	out[n] = 0;
}

/* ---- metric names and directions ---- */

static const char *const metric_names[REP_M__COUNT] = {
    "tpPerGpu",
    "outputTputPerGpu",
    "inputTputPerGpu",
    "tpPerMw",
    "inputTputPerMw",
    "outputTputPerMw",
    "costh",
    "costn",
    "costr",
    "costhOutput",
    "costnOutput",
    "costrOutput",
    "costhi",
    "costni",
    "costri",
    "tokensPerDollarH",
    "tokensPerDollarN",
    "tokensPerDollarR",
    "outputTokensPerDollarH",
    "outputTokensPerDollarN",
    "outputTokensPerDollarR",
    "inputTokensPerDollarH",
    "inputTokensPerDollarN",
    "inputTokensPerDollarR",
    "tokensPerRmbH",
    "tokensPerRmbN",
    "tokensPerRmbR",
    "outputTokensPerRmbH",
    "outputTokensPerRmbN",
    "outputTokensPerRmbR",
    "inputTokensPerRmbH",
    "inputTokensPerRmbN",
    "inputTokensPerRmbR",
    "tokensPerCalorie",
    "tokensPerBigMac",
    "jTotal",
    "jOutput",
    "jInput",
    "measuredAvgPower",
    "measuredPrefillAvgPower",
    "measuredDecodeAvgPower",
    "measuredJPerOutputToken",
    "measuredJPerTotalToken",
    "measuredJPerInputToken",
    "measuredJPerSuccessfulQuery",
    "measuredWhPerSuccessfulQuery",
    "measuredPowerPercentTdp",
    "costUser",
    "powerUser",
};

const char *rep_metric_name(rep_metric m)
{
	return (unsigned)m < REP_M__COUNT ? metric_names[m] : NULL;
}

int rep_metric_lookup(const char *name)
{
	for (int i = 0; name && i < REP_M__COUNT; i++)
		if (!strcmp(metric_names[i], name))
			return i;
	return -1;
}

bool rep_metric_is_cost(rep_metric m)
{
	return m >= REP_M_COSTH && m <= REP_M_COSTRI;
}

par_dir rep_metric_direction(rep_metric m, bool e2e)
{
	if (m == REP_M_MEASURED_POWER_PERCENT_TDP)
		return PAR_DIR_NONE;
	bool lower = rep_metric_is_cost(m) || m == REP_M_COST_USER || m == REP_M_J_TOTAL ||
	             m == REP_M_J_OUTPUT || m == REP_M_J_INPUT ||
	             (m >= REP_M_MEASURED_AVG_POWER && m <= REP_M_MEASURED_WH_PER_QUERY);
	if (lower)
		return e2e ? PAR_DIR_LOWER_LEFT : PAR_DIR_LOWER_RIGHT;
	return e2e ? PAR_DIR_UPPER_RIGHT : PAR_DIR_UPPER_LEFT;
}

/* ---- derived metrics ---- */

static void put(rep_metrics *o, rep_metric m, double v)
{
	o->v[m] = v;
	o->has[m] = true;
}

static double fld0(const rep_row *r, rep_field f)
{
	return r->has[f] && !isnan(r->f[f]) ? r->f[f] : 0;
}

void rep_derive_metrics(const rep_row *r, const rep_gpu_table *t, const rep_derive_opts *o,
                        rep_metrics *out, char *hw_key, size_t hw_key_cap, char *spec_base,
                        size_t spec_base_cap, double *gpu_count)
{
	char key[256], base[64];
	rep_hardware_key(r, t, key, sizeof key);
	rep_spec_base(key, base, sizeof base);
	if (hw_key && hw_key_cap)
		snprintf(hw_key, hw_key_cap, "%s", key);
	if (spec_base && spec_base_cap)
		snprintf(spec_base, spec_base_cap, "%s", base);
	const rep_gpu_spec *g = rep_gpu_find(t, base);
	double P = g ? g->power : 0, tdp = g ? g->tdp : 0;
	double rate[3] = {g ? g->costh : 0, g ? g->costn : 0, g ? g->costr : 0};
	double cny = t ? t->usd_to_cny : 7.1;
	double T = fld0(r, REP_F_TPUT_PER_GPU), O = fld0(r, REP_F_OUTPUT_TPUT_PER_GPU),
	       I = fld0(r, REP_F_INPUT_TPUT_PER_GPU);
	memset(out, 0, sizeof *out);

	put(out, REP_M_TP_PER_GPU, T);
	if (O != 0)
		put(out, REP_M_OUTPUT_TPUT_PER_GPU, O);
	if (I != 0)
		put(out, REP_M_INPUT_TPUT_PER_GPU, I);
	put(out, REP_M_TP_PER_MW, T * 1000 / P);
	double cal = T > 0 && P > 0 ? T * 4184 / (P * 1000) : 0;
	put(out, REP_M_TOKENS_PER_CALORIE, cal);
	put(out, REP_M_TOKENS_PER_BIG_MAC, cal * 580);
	if (I != 0)
		put(out, REP_M_INPUT_TPUT_PER_MW, P != 0 ? I * 1000 / P : 0);
	if (O != 0)
		put(out, REP_M_OUTPUT_TPUT_PER_MW, P != 0 ? O * 1000 / P : 0);
	/* tput by token type: total, output, input (the order of the cost families) */
	const double tput[3] = {T, O, I};
	static const rep_metric cost_base[3] = {REP_M_COSTH, REP_M_COSTH_OUTPUT, REP_M_COSTHI};
	static const rep_metric dollar_base[3] = {REP_M_TOKENS_PER_DOLLAR_H,
	                                          REP_M_OUTPUT_TOKENS_PER_DOLLAR_H,
	                                          REP_M_INPUT_TOKENS_PER_DOLLAR_H};
	static const rep_metric rmb_base[3] = {
	    REP_M_TOKENS_PER_RMB_H, REP_M_OUTPUT_TOKENS_PER_RMB_H, REP_M_INPUT_TOKENS_PER_RMB_H};
	for (int k = 0; k < 3; k++) {
		double mt = tput[k] * 3600 / 1e6;
		for (int p = 0; p < 3; p++) {
			put(out, cost_base[k] + p, P != 0 && mt != 0 ? rate[p] / mt : 0);
			double d = rate[p] != 0 ? tput[k] * 3600 / rate[p] : 0;
			put(out, dollar_base[k] + p, d);
			put(out, rmb_base[k] + p, rate[p] != 0 ? d / cny : 0);
		}
	}
	put(out, REP_M_J_TOTAL, P != 0 && T != 0 ? P * 1000 / T : 0);
	if (O != 0)
		put(out, REP_M_J_OUTPUT, P != 0 ? P * 1000 / O : 0);
	if (I != 0)
		put(out, REP_M_J_INPUT, P != 0 ? P * 1000 / I : 0);

	static const struct {
		rep_field f;
		rep_metric m;
	} measured[] = {
	    {REP_F_AVG_POWER_W, REP_M_MEASURED_AVG_POWER},
	    {REP_F_PREFILL_AVG_POWER_W, REP_M_MEASURED_PREFILL_AVG_POWER},
	    {REP_F_DECODE_AVG_POWER_W, REP_M_MEASURED_DECODE_AVG_POWER},
	    {REP_F_J_PER_OUTPUT_TOKEN, REP_M_MEASURED_J_PER_OUTPUT_TOKEN},
	    {REP_F_J_PER_TOTAL_TOKEN, REP_M_MEASURED_J_PER_TOTAL_TOKEN},
	    {REP_F_J_PER_INPUT_TOKEN, REP_M_MEASURED_J_PER_INPUT_TOKEN},
	    {REP_F_J_PER_QUERY, REP_M_MEASURED_J_PER_QUERY},
	};
	for (size_t i = 0; i < sizeof measured / sizeof measured[0]; i++)
		if (r->has[measured[i].f] && isfinite(r->f[measured[i].f]))
			put(out, measured[i].m, r->f[measured[i].f]);
	if (out->has[REP_M_MEASURED_J_PER_QUERY])
		put(out, REP_M_MEASURED_WH_PER_QUERY, out->v[REP_M_MEASURED_J_PER_QUERY] / 3600);
	if (out->has[REP_M_MEASURED_AVG_POWER] && tdp > 0)
		put(out, REP_M_MEASURED_POWER_PERCENT_TDP,
		    out->v[REP_M_MEASURED_AVG_POWER] / tdp * 100);

	if (o && o->has_user_cost)
		put(out, REP_M_COST_USER, par_round_fixed(o->user_cost / (T * 3600 / 1e6), 3));
	if (o && o->has_user_power) {
		double v = o->fix_power_user ? T * 1000 / o->user_power
		                             : out->v[REP_M_TP_PER_MW] / P * o->user_power;
		put(out, REP_M_POWER_USER, par_round_fixed(v, 3));
	}
	if (gpu_count) {
		if (r->disagg == 1)
			*gpu_count = fld0(r, REP_F_NUM_PREFILL_GPU) + fld0(r, REP_F_NUM_DECODE_GPU);
		else
			*gpu_count = r->f[REP_F_TP] *
			             (r->has[REP_F_PP] && r->f[REP_F_PP] > 1 ? r->f[REP_F_PP] : 1);
	}
}

int rep_group_keys(const char *const *keys, size_t n, size_t *ids, size_t *nids, size_t **off,
                   size_t **members)
{
	*off = *members = NULL;
	int rc = rep_first_seen_ids(keys, n, ids, nids);
	return rc ? rc : rep_bucket_ids(ids, n, *nids, off, members);
}
