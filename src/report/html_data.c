/* The report page's data: rows, series, and for every model x sequence x
 * chart x y metric x x field the report library's frontiers (rep_chart_series),
 * embedded so that the page draws exactly the library's points and paths. */
#include "report/html_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The y-metric menu (CHARTS.md §1), in menu order. `cu`/`pu` are the custom
 * user value metrics: drawn on the frontier of their base metric (costh /
 * tpPerMw), of which they are an increasing function within a series. */
typedef struct {
	const char *key, *group, *title, *label;
	bool input; /* input throughput: chart A plots it against TTFT */
} menu_metric;

static const menu_metric menu[] = {
    {"tpPerGpu", "Throughput", "Token Throughput per GPU", "Token Throughput per GPU (tok/s/gpu)",
     0},
    {"inputTputPerGpu", "Throughput", "Input Token Throughput per GPU",
     "Input Token Throughput per GPU (tok/s/gpu)", 1},
    {"outputTputPerGpu", "Throughput", "Output Token Throughput per GPU",
     "Output Token Throughput per GPU (tok/s/gpu)", 0},
    {"tpPerMw", "Throughput", "Token Throughput per All in Utility MW",
     "Token Throughput per All in Utility MW (tok/s/MW)", 0},
    {"inputTputPerMw", "Throughput", "Input Token Throughput per All in Utility MW",
     "Input Token Throughput per All in Utility MW (tok/s/MW)", 0},
    {"outputTputPerMw", "Throughput", "Output Token Throughput per All in Utility MW",
     "Output Token Throughput per All in Utility MW (tok/s/MW)", 0},
    {"costh", "Cost", "Cost per Million Total Tokens (Owning - Hyperscaler)",
     "Cost per Million Total Tokens ($)", 0},
    {"costn", "Cost", "Cost per Million Total Tokens (Owning - Neocloud Giant)",
     "Cost per Million Total Tokens ($)", 0},
    {"costr", "Cost", "Cost per Million Total Tokens (3 Year Rental)",
     "Cost per Million Total Tokens ($)", 0},
    {"costhOutput", "Cost", "Cost per Million Output Tokens (Owning - Hyperscaler)",
     "Cost per Million Output Tokens ($)", 0},
    {"costnOutput", "Cost", "Cost per Million Output Tokens (Owning - Neocloud Giant)",
     "Cost per Million Output Tokens ($)", 0},
    {"costrOutput", "Cost", "Cost per Million Output Tokens (3 Year Rental)",
     "Cost per Million Output Tokens ($)", 0},
    {"costhi", "Cost", "Cost per Million Input Tokens (Owning - Hyperscaler)",
     "Cost per Million Input Tokens ($)", 0},
    {"costni", "Cost", "Cost per Million Input Tokens (Owning - Neocloud Giant)",
     "Cost per Million Input Tokens ($)", 0},
    {"costri", "Cost", "Cost per Million Input Tokens (3 Year Rental)",
     "Cost per Million Input Tokens ($)", 0},
    {"jTotal", "Energy", "All-in Provisioned Joules per Total Token",
     "All-in Provisioned J per Total Token (J/tok)", 0},
    {"jOutput", "Energy", "All-in Provisioned Joules per Output Token",
     "All-in Provisioned J per Output Token (J/tok)", 0},
    {"jInput", "Energy", "All-in Provisioned Joules per Input Token",
     "All-in Provisioned J per Input Token (J/tok)", 0},
};
#define NMENU (sizeof menu / sizeof menu[0])

/* x fields: chart A's interactivity and TTFT choices, chart B's latency choices */
static const char *const xa_fields[] = {"median_intvty", NULL};
static const char *const xa_ttft[] = {"p90_ttft", "median_ttft", NULL};
static const char *const xb_fields[] = {"median_e2el", "p99_ttft", "median_ttft", NULL};
static const char *const x_all[] = {"median_intvty", "median_e2el", "median_ttft",
                                    "p90_ttft",      "p99_ttft",    NULL};
static const char *const x_labels[] = {
    "Interactivity (tok/s/user)", "End-to-end Latency (s)", "Median Time To First Token (s)",
    "P90 Time To First Token (s)", "P99 Time To First Token (s)"};

static const char *const gpu_labels[][2] = {{"h100", "H100"},         {"h200", "H200"},
                                            {"b200", "B200"},         {"b300", "B300"},
                                            {"gb200", "GB200 NVL72"}, {"gb300", "GB300 NVL72"},
                                            {"mi300x", "MI300X"},     {"mi325x", "MI325X"},
                                            {"mi355x", "MI355X"},     {NULL, NULL}};
static const char *const fw_labels[][2] = {{"trt", "TRT"},
                                           {"vllm", "vLLM"},
                                           {"sglang", "SGLang"},
                                           {"dynamo-sglang", "Dynamo SGLang"},
                                           {"dynamo-trt", "Dynamo TRT"},
                                           {"mori-sglang", "MoRI SGLang"},
                                           {"atom", "ATOM"},
                                           {"dynamo-vllm", "Dynamo vLLM"},
                                           {"mooncake-atom", "Mooncake ATOM"},
                                           {NULL, NULL}};
static const char *const model_labels[][2] = {{"dsr1", "DeepSeek-R1-0528"},
                                              {"gptoss120b", "gpt-oss-120b"},
                                              {"llama70b", "Llama-3.3-70B-Instruct-FP8"},
                                              {"qwen3.5", "Qwen-3.5-397B-A17B"},
                                              {"kimik2.5", "Kimi-K2.5"},
                                              {"minimaxm2.5", "MiniMax-M2.5"},
                                              {"glm5", "GLM-5"},
                                              {NULL, NULL}};

static const char *lookup(const char *const (*t)[2], const char *k)
{
	for (size_t i = 0; t[i][0]; i++)
		if (!strcmp(t[i][0], k))
			return t[i][1];
	return k;
}

/* ---- small JSON builders (html_int.h) ---- */
ib_val *rep_jchk(rep_jb *j, ib_val *v)
{
	if (!v)
		j->oom = true;
	return v;
}
ib_val *rep_jnum(rep_jb *j, double x)
{
	return rep_jchk(j, isfinite(x) ? ib_v_float(j->a, x) : ib_v_null(j->a));
}
ib_val *rep_jint(rep_jb *j, long long x)
{
	return rep_jchk(j, ib_v_int(j->a, x));
}
ib_val *rep_jstr(rep_jb *j, const char *s)
{
	return rep_jchk(j, s ? ib_v_str(j->a, s) : ib_v_null(j->a));
}
ib_val *rep_jmap(rep_jb *j)
{
	return rep_jchk(j, ib_v_map(j->a));
}
ib_val *rep_jlist(rep_jb *j)
{
	return rep_jchk(j, ib_v_list(j->a));
}
void rep_jset(rep_jb *j, ib_val *m, const char *k, ib_val *v)
{
	if (m && v && ib_map_set(j->a, m, k, v))
		j->oom = true;
}
void rep_jpush(rep_jb *j, ib_val *l, ib_val *v)
{
	if (l && v && ib_list_push(j->a, l, v))
		j->oom = true;
}
typedef rep_jb jb;

/* ---- rows ---- */

typedef struct {
	jb j;
	const rep_rowset *rs;
	const rep_page_opts *o;
	const rep_gpu_table *gpus;
	rep_row *rows;      /* library rows, index-aligned with rs->rows */
	bool *keep;         /* latest date of its (config) group */
	int *series;        /* series index per row */
	const char **skeys; /* series keys */
	const char **shw;   /* series hwKey */
	size_t *sfirst;     /* series -> its first row */
	size_t nseries;
	size_t *gid; /* group (model x sequence) index per row, first-appearance order */
	size_t ngroups;
	double *ys; /* per row, the menu metrics' values (NaN: absent) */
} page;

static bool same_num(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

static int tri(const ib_val *row, const char *k)
{
	const ib_val *v = ib_map_get(row, k);
	if (!v || v->type == IB_V_NULL)
		return -1;
	if (v->type == IB_V_BOOL)
		return v->b;
	return v->type == IB_V_STR && (!strcmp(v->str.s, "true") || !strcmp(v->str.s, "True"));
}

static const char *sget(const ib_val *row, const char *k)
{
	const ib_val *v = ib_map_get(row, k);
	return v && v->type == IB_V_STR ? v->str.s : NULL;
}

void rep_lib_row(const rep_agg_row *r, rep_row *out)
{
	memset(out, 0, sizeof *out);
	out->hw = r->hw;
	out->framework = r->framework;
	out->precision = r->precision;
	out->spec_decoding = r->spec;
	out->mtp = sget(r->raw, "mtp");
	/* agentic rows: the dashboard's benchmark type (no spec in the series key) */
	out->benchmark_type = r->scenario ? "agentic_traces" : sget(r->raw, "benchmark_type");
	out->date = r->date;
	out->model = r->model;
	out->image = r->image;
	out->disagg = r->disagg;
	out->is_multinode = r->multinode;
	out->dp_attention = tri(r->raw, "dp_attention");
	out->prefill_dp_attention = tri(r->raw, "prefill_dp_attention");
	out->decode_dp_attention = tri(r->raw, "decode_dp_attention");
	out->overlay_run = r->overlay;
	for (int f = 0; f < REP_F__COUNT; f++) {
		double x = rep_row_num(r, rep_field_name((rep_field)f));
		out->f[f] = x;
		out->has[f] = !isnan(x);
	}
	/* the integers mapBenchmarkRow resolved (defaults, v1 -> prefill = decode) */
	if (r->v2 && !out->has[REP_F_TP]) { /* database rows: tp/ep/dpa of the decode side */
		out->f[REP_F_TP] = r->tp, out->has[REP_F_TP] = true;
		out->f[REP_F_EP] = r->ep, out->has[REP_F_EP] = true;
		if (out->dp_attention < 0)
			out->dp_attention = r->dpa;
	}
	out->f[REP_F_CONC] = r->conc, out->has[REP_F_CONC] = true;
	out->f[REP_F_ISL] = r->isl, out->has[REP_F_ISL] = true;
	out->f[REP_F_OSL] = r->osl, out->has[REP_F_OSL] = true;
}

int rep_latest_in_buckets(const char *const *keys, const rep_row *rows, size_t n, bool *keep)
{
	size_t nl = 0, *lid = malloc((n ? n : 1) * sizeof *lid), *off = NULL, *mem = NULL;
	rep_row *sub = malloc((n ? n : 1) * sizeof *sub);
	bool *kb = malloc((n ? n : 1) * sizeof *kb);
	int rc = lid && sub && kb ? 0 : IB_ENOMEM;
	if (!rc)
		rc = rep_group_keys(keys, n, lid, &nl, &off, &mem);
	for (size_t g = 0; !rc && g < nl; g++) {
		size_t m = off[g + 1] - off[g];
		for (size_t k = 0; k < m; k++)
			sub[k] = rows[mem[off[g] + k]];
		rc = rep_latest_rows(sub, m, kb);
		for (size_t k = 0; !rc && k < m; k++)
			keep[mem[off[g] + k]] = kb[k];
	}
	free(lid);
	free(sub);
	free(kb);
	free(off);
	free(mem);
	return rc;
}

/* Groups (model x sequence) in order of first appearance, and the dashboard's
 * latest-date reduction (rep_latest_rows) within each group of the official
 * rows and of each compared run. */
static int groups_and_latest(page *p)
{
	const rep_rowset *rs = p->rs;
	size_t n = rs->n;
	const char **keys = malloc((n ? n : 1) * sizeof *keys);
	ib_arena *ka = ib_arena_new();
	int rc = keys && ka ? 0 : IB_ENOMEM;
	for (size_t i = 0; !rc && i < n; i++) {
		const rep_agg_row *r = &rs->rows[i];
		if (!(keys[i] = ib_arena_printf(ka, "%d/%d/%s", r->isl, r->osl, r->model)))
			rc = IB_ENOMEM;
	}
	if (!rc)
		rc = rep_first_seen_ids(keys, n, p->gid, &p->ngroups);
	for (size_t i = 0; !rc && i < n; i++)
		if (!(keys[i] = ib_arena_printf(ka, "%d|%zu", rs->rows[i].overlay, p->gid[i])))
			rc = IB_ENOMEM;
	if (!rc)
		rc = rep_latest_in_buckets(keys, p->rows, n, p->keep);
	free(keys);
	ib_arena_free(ka);
	return rc;
}

/* Series keys per row, numbered in order of first appearance. */
static int series_ids(page *p)
{
	const rep_rowset *rs = p->rs;
	size_t n = rs->n, *ids = malloc((n ? n : 1) * sizeof *ids);
	const char **keys = malloc((n ? n : 1) * sizeof *keys),
	           **hws = malloc((n ? n : 1) * sizeof *hws);
	int rc = ids && keys && hws ? 0 : IB_ENOMEM;
	for (size_t i = 0; !rc && i < n; i++) {
		char hk[128];
		rep_hardware_key(&p->rows[i], p->gpus, hk, sizeof hk);
		const rep_agg_row *r = &rs->rows[i];
		keys[i] = r->overlay >= 0
		              ? ib_arena_printf(p->j.a, "%s_%s_run%d", hk, r->precision, r->overlay)
		              : ib_arena_printf(p->j.a, "%s_%s", hk, r->precision);
		hws[i] = ib_arena_strdup(p->j.a, hk);
		if (!keys[i] || !hws[i])
			rc = IB_ENOMEM;
	}
	if (!rc)
		rc = rep_first_seen_ids(keys, n, ids, &p->nseries);
	for (size_t i = 0; !rc && i < n; i++) {
		p->series[i] = (int)ids[i];
		if (p->skeys[ids[i]])
			continue;
		p->skeys[ids[i]] = keys[i];
		p->shw[ids[i]] = hws[i];
		p->sfirst[ids[i]] = i;
	}
	free(ids);
	free(keys);
	free(hws);
	return rc;
}

int rep_series_palette(const char *const *shw, size_t nseries, char (*cols)[40], size_t *rank)
{
	/* colours per hwKey, in legend order */
	const char **hws = calloc(nseries + 1, sizeof *hws);
	size_t nh = 0, *order = calloc(nseries + 1, sizeof *order);
	char(*hc)[40] = calloc(nseries + 1, sizeof *hc);
	int rc = hws && order && hc ? 0 : IB_ENOMEM;
	for (size_t s = 0; !rc && s < nseries; s++) {
		size_t k = 0;
		while (k < nh && strcmp(hws[k], shw[s]))
			k++;
		if (k == nh)
			hws[nh++] = shw[s];
	}
	if (!rc && rep_vendor_colors(hws, nh, false, hc, order))
		rc = IB_ENOMEM;
	for (size_t s = 0; !rc && s < nseries; s++) {
		size_t k = 0, r = 0;
		while (strcmp(hws[k], shw[s]))
			k++;
		while (r < nh && order[r] != k)
			r++;
		memcpy(cols[s], hc[k], sizeof hc[k]);
		rank[s] = r;
	}
	free(hws);
	free(order);
	free(hc);
	return rc;
}

static ib_val *series_json(page *p)
{
	jb *j = &p->j;
	ib_val *list = rep_jlist(j);
	size_t *ranks = calloc(p->nseries + 1, sizeof *ranks);
	char(*cols)[40] = calloc(p->nseries + 1, sizeof *cols);
	if (!ranks || !cols || rep_series_palette(p->shw, p->nseries, cols, ranks)) {
		j->oom = true;
		goto done;
	}
	static const char *const run_colors[] = {"oklch(0.72 0.22 25)",  "oklch(0.75 0.20 190)",
	                                         "oklch(0.78 0.20 90)",  "oklch(0.70 0.22 290)",
	                                         "oklch(0.75 0.20 150)", "oklch(0.70 0.22 330)",
	                                         "oklch(0.72 0.20 230)", "oklch(0.78 0.18 60)"};
	for (size_t s = 0; s < p->nseries; s++) {
		size_t rank = ranks[s];
		/* the first row of the series gives its identity */
		const rep_agg_row *r = &p->rs->rows[p->sfirst[s]];
		ib_val *m = rep_jmap(j);
		rep_jset(j, m, "key", rep_jstr(j, p->skeys[s]));
		rep_jset(j, m, "hw", rep_jstr(j, p->shw[s]));
		rep_jset(j, m, "gpu", rep_jstr(j, r->hw));
		rep_jset(j, m, "prec", rep_jstr(j, r->precision));
		char lab[200];
		rep_series_label(r, lab, sizeof lab);
		rep_jset(j, m, "label", rep_jstr(j, lab));
		rep_jset(j, m, "color",
		         rep_jstr(j, r->overlay >= 0 ? run_colors[r->overlay % 8] : cols[s]));
		rep_jset(j, m, "order", rep_jint(j, (long long)rank));
		rep_jset(j, m, "run", rep_jint(j, r->overlay));
		rep_jpush(j, list, m);
	}
done:
	free(ranks);
	free(cols);
	return list;
}

void rep_series_label(const rep_agg_row *r, char *out, size_t cap)
{
	const char *fw = lookup(fw_labels, r->framework);
	if (!strcmp(r->spec, "none"))
		snprintf(out, cap, "%s (%s)", lookup(gpu_labels, r->hw), fw);
	else
		snprintf(out, cap, "%s (%s, %s)", lookup(gpu_labels, r->hw), fw,
		         !strcmp(r->spec, "mtp") ? "MTP" : r->spec);
}

const char *rep_label_model(const char *key)
{
	return lookup(model_labels, key);
}

/* The menu metrics' values of every row (p->ys). */
static void fill_ys(page *p)
{
	int mi[NMENU];
	for (size_t k = 0; k < NMENU; k++)
		mi[k] = rep_metric_lookup(menu[k].key);
	for (size_t i = 0; i < p->rs->n; i++) {
		rep_metrics m;
		rep_derive_metrics(&p->rows[i], p->gpus, NULL, &m, NULL, 0, NULL, 0, NULL);
		for (size_t k = 0; k < NMENU; k++)
			p->ys[i * NMENU + k] = mi[k] >= 0 && m.has[mi[k]] ? m.v[mi[k]] : NAN;
	}
}

static ib_val *row_json(page *p, size_t i)
{
	jb *j = &p->j;
	const rep_agg_row *r = &p->rs->rows[i];
	const rep_row *lr = &p->rows[i];
	rep_metrics m;
	double gpus = 0;
	char par[96];
	rep_derive_metrics(lr, p->gpus, NULL, &m, NULL, 0, NULL, 0, &gpus);
	rep_parallelism_label(lr, par, sizeof par);
	ib_val *o = rep_jmap(j), *x = rep_jlist(j), *y = rep_jlist(j);
	rep_jset(j, o, "s", rep_jint(j, p->series[i]));
	rep_jset(j, o, "src", rep_jstr(j, ib_arena_printf(j->a, "%s#%zu", r->src, r->index + 1)));
	rep_jset(j, o, "date", rep_jstr(j, r->date));
	rep_jset(j, o, "conc", rep_jint(j, r->conc));
	rep_jset(j, o, "par", rep_jstr(j, par));
	rep_jset(j, o, "gpus", rep_jnum(j, gpus));
	rep_jset(j, o, "image", rep_jstr(j, r->image));
	rep_jset(j, o, "fw", rep_jstr(j, r->framework));
	rep_jset(j, o, "spec", rep_jstr(j, r->spec));
	rep_jset(j, o, "tp", rep_jint(j, r->tp));
	rep_jset(j, o, "ep", rep_jint(j, r->ep));
	rep_jset(j, o, "dpa", rep_jchk(j, ib_v_bool(j->a, r->dpa)));
	rep_jset(j, o, "disagg", rep_jchk(j, ib_v_bool(j->a, r->disagg)));
	rep_jset(j, o, "multinode", rep_jchk(j, ib_v_bool(j->a, r->multinode)));
	if (r->multinode && r->v2) {
		rep_jset(j, o, "prefill",
		         rep_jstr(j, ib_arena_printf(
		                         j->a, "%d GPUs, TP%d, EP%d, DPA %s, %d workers", r->npg,
		                         r->ptp, r->pep, r->pdpa ? "True" : "False", r->pnw)));
		rep_jset(j, o, "decode",
		         rep_jstr(j, ib_arena_printf(
		                         j->a, "%d GPUs, TP%d, EP%d, DPA %s, %d workers", r->ndg,
		                         r->dtp, r->dep, r->ddpa ? "True" : "False", r->dnw)));
	}
	for (size_t k = 0; x_all[k]; k++)
		rep_jpush(j, x, rep_jnum(j, rep_row_num(r, x_all[k])));
	rep_jset(j, o, "x", x);
	for (size_t k = 0; k < NMENU; k++)
		rep_jpush(j, y, rep_jnum(j, p->ys[i * NMENU + k]));
	rep_jset(j, o, "y", y);
	/* the table and CSV columns */
	static const char *const raw[] = {"mean_ttft",
	                                  "median_ttft",
	                                  "p99_ttft",
	                                  "std_ttft",
	                                  "mean_tpot",
	                                  "median_tpot",
	                                  "p99_tpot",
	                                  "std_tpot",
	                                  "mean_itl",
	                                  "median_itl",
	                                  "p99_itl",
	                                  "std_itl",
	                                  "mean_intvty",
	                                  "median_intvty",
	                                  "p99_intvty",
	                                  "mean_e2el",
	                                  "median_e2el",
	                                  "p99_e2el",
	                                  "tput_per_gpu",
	                                  "output_tput_per_gpu",
	                                  "input_tput_per_gpu",
	                                  NULL};
	ib_val *rv = rep_jlist(j);
	for (size_t k = 0; raw[k]; k++)
		rep_jpush(j, rv, rep_jnum(j, rep_row_num(r, raw[k])));
	rep_jset(j, o, "raw", rv);
	rep_jset(j, o, "npg", rep_jint(j, r->npg));
	rep_jset(j, o, "ndg", rep_jint(j, r->ndg));
	if (r->client_bound >= 0)
		rep_jset(j, o, "cb", rep_jint(j, r->client_bound));
	if (r->health_why)
		rep_jset(j, o, "cbwhy", rep_jstr(j, r->health_why));
	if (r->simulated)
		rep_jset(j, o, "sim", rep_jint(j, 1));
	if (r->simulated && !isnan(r->iv[0]) && r->iv[1] > 0) { /* the chart's band */
		ib_val *iv = rep_jlist(j);
		for (int k = 0; k < 4; k++)
			rep_jpush(j, iv, rep_jnum(j, r->iv[k]));
		rep_jset(j, o, "iv", iv);
	}
	double ts = rep_row_num(r, "time_scale");
	if (!isnan(ts))
		rep_jset(j, o, "ts", rep_jnum(j, ts));
	if (!isnan(r->accept_len))
		rep_jset(j, o, "al", rep_jnum(j, r->accept_len));
	if (r->fingerprint)
		rep_jset(j, o, "fp", rep_jstr(j, r->fingerprint));
	return o;
}

/* ---- views ---- */

/* One chart view of a group: the library's points, frontier paths and drops. */
static int view_json(page *p, const size_t *gi, size_t gn, const rep_row *grows,
                     const rep_chart_rows *pre, int chart, size_t mk, const char *xf, ib_val *views,
                     ib_error *e)
{
	jb *j = &p->j;
	const menu_metric *mm = &menu[mk];
	const char *base = mm->key;
	int mi = rep_metric_lookup(base);
	if (mi < 0)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "report library lacks metric %s", base);
	int xfi = rep_field_lookup(xf);
	if (xfi < 0)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "report library lacks field %s", xf);
	bool ttft = strstr(xf, "_ttft") != NULL;
	par_dir dir = rep_metric_direction((rep_metric)mi, chart == 1);
	if (chart == 0 && ttft)
		dir = par_dir_flip_x(dir);
	rep_chart_opts co = {.x_field = xf,
	                     .metric = (rep_metric)mi,
	                     .dir = dir,
	                     .cost_limit = 5,
	                     .latency_limit = 60,
	                     .gpus = p->gpus,
	                     .pre = pre};
	rep_chart *c = NULL;
	int rc = rep_chart_series(grows, gn, &co, &c, e);
	if (rc)
		return rc;
	/* The page draws a view's points from the rows' own x and y values:
	 * only the optimal flags, the drops and any point whose coordinates
	 * differ from its row's (none, unless the library changes) go in. */
	ib_val *v = rep_jmap(j), *roof = rep_jlist(j), *paths = rep_jlist(j), *drop = rep_jlist(j),
	       *xy = rep_jlist(j);
	rep_jset(j, v, "dir", rep_jstr(j, par_dir_name(dir)));
	for (size_t k = 0; k < c->npoints; k++) {
		const rep_chart_point *cp = &c->points[k];
		size_t row = gi[cp->row];
		if (cp->roof)
			rep_jpush(j, roof, rep_jint(j, (long long)row));
		double rx = p->rows[row].f[xfi], ry = p->ys[row * NMENU + mk];
		if (!same_num(cp->x, rx) || !same_num(cp->y, ry)) {
			rep_jpush(j, xy, rep_jint(j, (long long)row));
			rep_jpush(j, xy, rep_jnum(j, cp->x));
			rep_jpush(j, xy, rep_jnum(j, cp->y));
		}
	}
	for (size_t s = 0; s < c->nseries; s++) {
		const rep_series *se = &c->series[s];
		for (size_t q = 0; q < se->npaths; q++) {
			ib_val *path = rep_jlist(j);
			for (size_t t = se->path_off[q]; t < se->path_off[q + 1]; t++)
				rep_jpush(
				    j, path,
				    rep_jint(j, (long long)gi[c->points[se->path_pts[t]].row]));
			rep_jpush(j, paths, path);
		}
	}
	for (size_t k = 0; k < c->ndropped; k++) {
		rep_jpush(j, drop, rep_jint(j, (long long)gi[c->dropped[k].row]));
		rep_jpush(j, drop, rep_jstr(j, c->dropped[k].reason));
	}
	rep_jset(j, v, "roof", roof);
	if (xy && xy->list.n)
		rep_jset(j, v, "xy", xy);
	rep_jset(j, v, "paths", paths);
	rep_jset(j, v, "drop", drop);
	rep_chart_free(c);
	char key[96];
	snprintf(key, sizeof key, "%c|%s|%s", chart ? 'B' : 'A', mm->key, xf);
	rep_jset(j, views, key, v);
	return j->oom ? IB_ENOMEM : 0;
}

/* A warning when the group's rows do not share one workload fingerprint. */
static const char *fingerprint_warning(page *p, const size_t *gi, size_t gn)
{
	const char *first = NULL;
	size_t with = 0, distinct = 0;
	const char *seen[16];
	for (size_t k = 0; k < gn; k++) {
		const char *f = p->rs->rows[gi[k]].fingerprint;
		if (!f)
			continue;
		with++;
		size_t q = 0;
		while (q < distinct && strcmp(seen[q], f))
			q++;
		if (q == distinct && distinct < 16)
			seen[distinct++] = f;
		first = first ? first : f;
	}
	if (distinct > 1)
		return ib_arena_printf(p->j.a,
		                       "points of this chart come from %zu different workloads "
		                       "(tokenizer, prompts, ISL/OSL distribution): they are not "
		                       "comparable",
		                       distinct);
	if (with && with < gn)
		return ib_arena_printf(p->j.a,
		                       "%zu of %zu points carry no workload fingerprint: they may "
		                       "not be comparable with the others",
		                       gn - with, gn);
	return NULL;
}

/* The group of the rows members[0..nm) (in row order): its kept rows' views. */
static int group_json(page *p, const size_t *members, size_t nm, ib_val *groups, ib_error *e)
{
	jb *j = &p->j;
	size_t gn = 0;
	size_t *gi = malloc((nm ? nm : 1) * sizeof *gi);
	rep_row *grows = malloc((nm ? nm : 1) * sizeof *grows);
	const rep_agg_row *r0 = &p->rs->rows[members[0]];
	const char *model = r0->model;
	int isl = r0->isl, osl = r0->osl, rc = 0;
	if (!gi || !grows) {
		rc = IB_ENOMEM;
		goto done;
	}
	for (size_t k = 0; k < nm; k++)
		if (p->keep[members[k]]) {
			gi[gn] = members[k];
			grows[gn++] = p->rows[members[k]];
		}
	ib_val *g = rep_jmap(j), *views = rep_jmap(j), *rows = rep_jlist(j);
	rep_jset(j, g, "model", rep_jstr(j, model));
	rep_jset(j, g, "modelLabel", rep_jstr(j, lookup(model_labels, model)));
	rep_jset(j, g, "seq", rep_jstr(j, rep_seq_label(j->a, isl, osl)));
	rep_jset(j, g, "isl", rep_jint(j, isl));
	rep_jset(j, g, "osl", rep_jint(j, osl));
	for (size_t k = 0; k < gn; k++)
		rep_jpush(j, rows, rep_jint(j, (long long)gi[k]));
	rep_jset(j, g, "rows", rows);
	const char *fw = fingerprint_warning(p, gi, gn);
	if (fw)
		rep_jset(j, g, "fpwarn", rep_jstr(j, fw));
	/* the rows' metrics and series keys, once for the group's views */
	rep_chart_rows *pre = NULL;
	if (rep_chart_prepare(grows, gn, p->gpus, NULL, &pre))
		rc = IB_ENOMEM;
	for (size_t mk = 0; !rc && mk < NMENU; mk++) {
		const char *const *xa = menu[mk].input ? xa_ttft : xa_fields;
		for (size_t q = 0; !rc && xa[q]; q++)
			rc = view_json(p, gi, gn, grows, pre, 0, mk, xa[q], views, e);
		for (size_t q = 0; !rc && xb_fields[q]; q++)
			rc = view_json(p, gi, gn, grows, pre, 1, mk, xb_fields[q], views, e);
	}
	rep_chart_rows_free(pre);
	rep_jset(j, g, "views", views);
	rep_jpush(j, groups, g);
done:
	free(gi);
	free(grows);
	return rc ? rc : j->oom ? IB_ENOMEM : 0;
}

/* Groups (model x sequence) in order of first appearance. */
static int groups_json(page *p, ib_val *groups, ib_error *e)
{
	size_t *off = NULL, *mem = NULL;
	int rc = rep_bucket_ids(p->gid, p->rs->n, p->ngroups, &off, &mem);
	for (size_t g = 0; !rc && g < p->ngroups; g++)
		rc = group_json(p, mem + off[g], off[g + 1] - off[g], groups, e);
	free(off);
	free(mem);
	return rc;
}

static ib_val *meta_json(page *p)
{
	jb *j = &p->j;
	ib_val *ms = rep_jlist(j), *xs = rep_jlist(j), *gp = rep_jlist(j);
	for (size_t k = 0; k < NMENU; k++) {
		int mi = rep_metric_lookup(menu[k].key);
		ib_val *m = rep_jmap(j);
		rep_jset(j, m, "key", rep_jstr(j, menu[k].key));
		rep_jset(j, m, "group", rep_jstr(j, menu[k].group));
		rep_jset(j, m, "title", rep_jstr(j, menu[k].title));
		rep_jset(j, m, "label", rep_jstr(j, menu[k].label));
		rep_jset(j, m, "input", rep_jchk(j, ib_v_bool(j->a, menu[k].input)));
		rep_jset(j, m, "cost",
		         rep_jchk(j, ib_v_bool(j->a, mi >= 0 && rep_metric_is_cost(mi))));
		rep_jpush(j, ms, m);
	}
	for (size_t k = 0; x_all[k]; k++) {
		ib_val *x = rep_jmap(j);
		rep_jset(j, x, "key", rep_jstr(j, x_all[k]));
		rep_jset(j, x, "label", rep_jstr(j, x_labels[k]));
		rep_jpush(j, xs, x);
	}
	for (size_t k = 0; gpu_labels[k][0]; k++) {
		const rep_gpu_spec *g = rep_gpu_find(p->gpus, gpu_labels[k][0]);
		if (!g)
			continue;
		ib_val *m = rep_jmap(j);
		rep_jset(j, m, "key", rep_jstr(j, gpu_labels[k][0]));
		rep_jset(j, m, "label", rep_jstr(j, gpu_labels[k][1]));
		rep_jset(j, m, "power", rep_jnum(j, g->power));
		rep_jset(j, m, "costh", rep_jnum(j, g->costh));
		rep_jset(j, m, "costn", rep_jnum(j, g->costn));
		rep_jset(j, m, "costr", rep_jnum(j, g->costr));
		rep_jpush(j, gp, m);
	}
	ib_val *o = rep_jmap(j);
	rep_jset(j, o, "metrics", ms);
	rep_jset(j, o, "xfields", xs);
	rep_jset(j, o, "gpus", gp);
	return o;
}

static ib_val *skipped_json(jb *j, const ib_diags *d)
{
	ib_val *l = rep_jlist(j);
	for (size_t i = 0; d && i < d->n; i++) {
		ib_buf b = {0};
		ib_diag_format(&d->items[i], &b);
		rep_jpush(j, l, rep_jstr(j, b.data ? b.data : ""));
		ib_buf_free(&b);
	}
	return l;
}

static double vnum(const ib_val *v)
{
	return !v ? NAN : v->type == IB_V_FLOAT ? v->f : v->type == IB_V_INT ? (double)v->i : NAN;
}

/* Marks the rows of list l (every stride-th entry, a row index below n):
 * mark[row] = 1 + the entry's position. */
static void mark_rows(const ib_val *l, size_t stride, size_t n, size_t *mark)
{
	for (size_t k = 0; l && k < l->list.n; k += stride)
		if (l->list.v[k]->type == IB_V_INT && l->list.v[k]->i >= 0 &&
		    (unsigned long long)l->list.v[k]->i < n && !mark[l->list.v[k]->i])
			mark[l->list.v[k]->i] = k + 1;
}

int rep_view_points(const ib_val *data, const ib_val *g, const char *key, rep_vpt **out, size_t *n)
{
	const ib_val *v = ib_map_get(ib_map_get(g, "views"), key);
	const ib_val *rows = ib_map_get(g, "rows"), *all = ib_map_get(data, "rows");
	const char *bar = strchr(key, '|'), *bar2 = bar ? strchr(bar + 1, '|') : NULL;
	if (!v || !rows || !all || !bar2)
		return IB_ENOENT;
	size_t xi = 0, yi = 0;
	while (x_all[xi] && strcmp(x_all[xi], bar2 + 1))
		xi++;
	while (yi < NMENU && (strlen(menu[yi].key) != (size_t)(bar2 - bar - 1) ||
	                      strncmp(menu[yi].key, bar + 1, (size_t)(bar2 - bar - 1))))
		yi++;
	if (!x_all[xi] || yi == NMENU)
		return IB_ENOENT;
	size_t na = all->list.n;
	size_t *drop = calloc(na + 1, sizeof *drop), *roof = calloc(na + 1, sizeof *roof),
	       *xy = calloc(na + 1, sizeof *xy);
	*out = malloc((rows->list.n + 1) * sizeof **out);
	if (!drop || !roof || !xy || !*out) {
		free(drop);
		free(roof);
		free(xy);
		free(*out);
		*out = NULL;
		return IB_ENOMEM;
	}
	const ib_val *xyl = ib_map_get(v, "xy");
	mark_rows(ib_map_get(v, "drop"), 2, na, drop);
	mark_rows(ib_map_get(v, "roof"), 1, na, roof);
	mark_rows(xyl, 3, na, xy);
	*n = 0;
	for (size_t k = 0; k < rows->list.n; k++) {
		long long row = rows->list.v[k]->i;
		if (row < 0 || (unsigned long long)row >= na || drop[row])
			continue;
		const ib_val *r = all->list.v[row];
		rep_vpt *p = &(*out)[(*n)++];
		p->row = row;
		p->roof = roof[row] != 0;
		if (xy[row]) {
			p->x = vnum(xyl->list.v[xy[row]]);
			p->y = vnum(xyl->list.v[xy[row] + 1]);
		} else {
			p->x = vnum(ib_map_get(r, "x")->list.v[xi]);
			p->y = vnum(ib_map_get(r, "y")->list.v[yi]);
		}
	}
	free(drop);
	free(roof);
	free(xy);
	return 0;
}

const char *rep_label_gpu(const char *key)
{
	return lookup(gpu_labels, key);
}

const char *rep_label_framework(const char *key)
{
	return lookup(fw_labels, key);
}

/* ---- thinning: a bounded page ---- */

typedef struct {
	size_t g, s, i; /* group, series, row */
} thin_key;

static int cmp_thin(const void *x, const void *y)
{
	const thin_key *a = x, *b = y;
	return a->g != b->g   ? (a->g > b->g ? 1 : -1)
	       : a->s != b->s ? (a->s > b->s ? 1 : -1)
	                      : (a->i > b->i) - (a->i < b->i);
}

/* Marks the rows of the int entries of l at positions k % stride == off. */
static void mark_list(const ib_val *l, size_t stride, size_t off, size_t n, bool *mark)
{
	for (size_t k = off; l && k < l->list.n; k += stride)
		if (l->list.v[k]->type == IB_V_INT && (unsigned long long)l->list.v[k]->i < n)
			mark[l->list.v[k]->i] = true;
}

/* Keeps the entries of list l (groups of `stride`, the row index first)
 * whose row is embedded, renumbered by to[]. */
static void remap_list(ib_val *l, size_t stride, const size_t *to, size_t n)
{
	size_t w = 0;
	for (size_t k = 0; l && k + stride <= l->list.n; k += stride) {
		ib_val *v = l->list.v[k];
		if (v->type != IB_V_INT || (unsigned long long)v->i >= n || to[v->i] == SIZE_MAX)
			continue;
		v->i = (int64_t)to[v->i];
		for (size_t q = 0; q < stride; q++)
			l->list.v[w++] = l->list.v[k + q];
	}
	if (l)
		l->list.n = w;
}

/* Decides which rows the page embeds (*embed[i]) and renumbers the groups'
 * row lists and views when some are left out: when the groups hold more than
 * cap rows, every row on a frontier of any view (roof, paths, xy) is kept
 * and the budget left, cap minus those, is spread evenly over the other rows
 * ordered by group, series and row. Rows no group draws (older dates) are
 * then left out too. *thinned says whether anything was. */
static int thin_rows(page *p, ib_val *groups, size_t cap, bool *embed, bool *thinned)
{
	size_t n = p->rs->n, total = 0, nneed = 0, nrest = 0;
	bool *refd = calloc(n ? n : 1, sizeof *refd), *need = calloc(n ? n : 1, sizeof *need);
	size_t *to = malloc((n ? n : 1) * sizeof *to);
	thin_key *rest = NULL;
	int rc = refd && need && to ? 0 : IB_ENOMEM;
	*thinned = false;
	for (size_t g = 0; !rc && g < groups->list.n; g++)
		mark_list(ib_map_get(groups->list.v[g], "rows"), 1, 0, n, refd);
	for (size_t i = 0; i < n; i++) {
		embed[i] = true;
		total += refd && refd[i];
	}
	if (rc || total <= cap)
		goto done;
	*thinned = true;
	for (size_t g = 0; g < groups->list.n; g++) {
		const ib_val *views = ib_map_get(groups->list.v[g], "views");
		for (size_t k = 0; views && k < views->map.n; k++) {
			const ib_val *v = views->map.kv[k].val, *paths = ib_map_get(v, "paths");
			mark_list(ib_map_get(v, "roof"), 1, 0, n, need);
			mark_list(ib_map_get(v, "xy"), 3, 0, n, need);
			for (size_t q = 0; paths && q < paths->list.n; q++)
				mark_list(paths->list.v[q], 1, 0, n, need);
		}
	}
	if (!(rest = malloc((total ? total : 1) * sizeof *rest))) {
		rc = IB_ENOMEM;
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		need[i] = need[i] && refd[i];
		nneed += need[i];
		if (refd[i] && !need[i])
			rest[nrest++] = (thin_key){p->gid[i], (size_t)p->series[i], i};
	}
	qsort(rest, nrest, sizeof *rest, cmp_thin);
	size_t budget = cap > nneed ? cap - nneed : 0;
	for (size_t i = 0; i < n; i++)
		embed[i] = need[i];
	for (size_t k = 0; k < nrest; k++) /* budget of nrest, evenly */
		if (k * budget / nrest != (k + 1) * budget / nrest)
			embed[rest[k].i] = true;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		to[i] = embed[i] ? m++ : SIZE_MAX;
	for (size_t g = 0; g < groups->list.n; g++) {
		ib_val *gr = groups->list.v[g], *views = (ib_val *)ib_map_get(gr, "views");
		ib_val *rows = (ib_val *)ib_map_get(gr, "rows");
		size_t before = rows ? rows->list.n : 0;
		remap_list(rows, 1, to, n);
		if (rows && rows->list.n != before)
			rep_jset(&p->j, gr, "total", rep_jint(&p->j, (long long)before));
		for (size_t k = 0; views && k < views->map.n; k++) {
			ib_val *v = views->map.kv[k].val, *paths = (ib_val *)ib_map_get(v, "paths");
			remap_list((ib_val *)ib_map_get(v, "roof"), 1, to, n);
			remap_list((ib_val *)ib_map_get(v, "xy"), 3, to, n);
			remap_list((ib_val *)ib_map_get(v, "drop"), 2, to, n);
			for (size_t q = 0; paths && q < paths->list.n; q++)
				remap_list(paths->list.v[q], 1, to, n);
		}
	}
	rc = p->j.oom ? IB_ENOMEM : 0;
done:
	free(refd);
	free(need);
	free(to);
	free(rest);
	return rc;
}

int rep_page_data(ib_arena *a, const rep_rowset *rs, const ib_diags *d, const rep_page_opts *o,
                  ib_val **out, ib_error *e)
{
	size_t n = rs->n ? rs->n : 1;
	page p = {.j = {.a = a}, .rs = rs, .o = o, .gpus = rep_gpu_table_builtin(true)};
	p.rows = calloc(n, sizeof *p.rows);
	p.keep = calloc(n, sizeof *p.keep);
	p.series = calloc(n, sizeof *p.series);
	p.skeys = calloc(n, sizeof *p.skeys);
	p.shw = calloc(n, sizeof *p.shw);
	p.sfirst = calloc(n, sizeof *p.sfirst);
	p.gid = calloc(n, sizeof *p.gid);
	p.ys = calloc(n * NMENU, sizeof *p.ys);
	int rc = 0;
	if (!p.rows || !p.keep || !p.series || !p.skeys || !p.shw || !p.sfirst || !p.gid || !p.ys) {
		rc = IB_ENOMEM;
		goto done;
	}
	for (size_t i = 0; i < rs->n; i++)
		rep_lib_row(&rs->rows[i], &p.rows[i]);
	rc = groups_and_latest(&p);
	if (!rc)
		rc = series_ids(&p);
	if (rc)
		goto done;
	fill_ys(&p);
	jb *j = &p.j;
	ib_val *root = rep_jmap(j), *rows = rep_jlist(j), *groups = rep_jlist(j), *evals = NULL;
	rep_jset(j, root, "title", rep_jstr(j, o && o->title ? o->title : "infbench report"));
	rep_jset(j, root, "generated", rep_jstr(j, o ? o->generated : NULL));
	rep_jset(j, root, "compare", rep_jchk(j, ib_v_bool(a, o && o->compare)));
	rep_jset(j, root, "runLabel", rep_jstr(j, o && o->run_label ? o->run_label : "run"));
	rep_jset(j, root, "meta", meta_json(&p));
	rep_jset(j, root, "series", series_json(&p));
	/* the views first: the rows a bounded page must keep are their frontiers */
	size_t cap = o && o->max_points ? o->max_points : REP_MAX_POINTS;
	bool thinned = false, *embed = malloc(n * sizeof *embed);
	rc = !embed || j->oom ? IB_ENOMEM : groups_json(&p, groups, e);
	if (!rc)
		rc = thin_rows(&p, groups, cap, embed, &thinned);
	for (size_t i = 0; !rc && i < rs->n && !j->oom; i++)
		if (embed[i])
			rep_jpush(j, rows, row_json(&p, i));
	free(embed);
	if (thinned) {
		rep_jset(j, root, "maxPoints", rep_jint(j, (long long)cap));
		rep_jset(j, root, "rowsTotal", rep_jint(j, (long long)rs->n));
	}
	rep_jset(j, root, "rows", rows);
	if (!rc && o && o->compare)
		rc = rep_page_data_compare(a, rs, p.rows, p.keep, p.gid, p.gpus, groups);
	if (!rc)
		rc = rep_page_data_trends(a, rs, p.rows, p.series, p.gid, p.gpus, groups);
	rep_jset(j, root, "groups", groups);
	if (!rc)
		rc = rep_page_data_evals(a, rs, &evals);
	rep_jset(j, root, "evals", evals);
	if (!rc && rs->nag) { /* only with agentic rows: other pages stay as they were */
		ib_val *ag = NULL;
		rc = rep_page_data_agentic(a, rs, &ag);
		rep_jset(j, root, "agentic", ag);
	}
	rep_jset(j, root, "skipped", skipped_json(j, d));
	if (!rc && j->oom)
		rc = IB_ENOMEM;
	if (!rc)
		*out = root;
done:
	free(p.rows);
	free(p.keep);
	free(p.series);
	free(p.skeys);
	free(p.shw);
	free(p.sfirst);
	free(p.gid);
	free(p.ys);
	if (rc == IB_ENOMEM)
		ib_fail(e, rc, NULL, 0, 0, "out of memory");
	return rc;
}
