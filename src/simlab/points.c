/* Published InferenceX points (points.tsv, docs/sim.md "Validation"): each
 * row's configuration read from its columns and its free-text recipe note,
 * run in process at its concurrency, and compared with what was published. */
#include "simlab/private.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static char *dup_n(ib_arena *a, const char *s, size_t n)
{
	return ib_arena_strndup(a, s, n);
}

/* needle in hay, ignoring ASCII case, or NULL */
static const char *ci_find(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; hay && *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return hay;
	return NULL;
}

static bool has(const char *hay, const char *needle)
{
	return ci_find(hay, needle) != NULL;
}

/* The whole number at the start of s (as atoi reads it: leading blanks, a
 * sign, digits up to the first other byte): 0 when there is none, -1 when
 * it is negative or above hi (atoi's overflow is undefined). */
static int whole(const char *s, long hi)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (end == s)
		return 0;
	return errno || v < 0 || v > hi ? -1 : (int)v;
}

/* The integer after `key` (e.g. "TP=" in "TP=8"), or 0 (also when out of
 * range). */
static int int_after(const char *s, const char *key)
{
	const char *p = ci_find(s, key);
	int v = p ? whole(p + strlen(key), 1 << 20) : 0;
	return v < 0 ? 0 : v;
}

static const char *model_key(const char *m)
{
	static const struct {
		const char *prefix, *key;
	} map[] = {
	    {"MiniMax M3", "minimax-m3"},      {"MiniMax M2", "minimax-m2.5"},
	    {"Kimi K2", "kimi-k2.5"},          {"GLM", "glm-5"},
	    {"Qwen 3.5", "qwen3.5-397b-a17b"}, {"DeepSeek V4", "deepseek-v4-pro"},
	    {"DeepSeek R1", "deepseek-r1"},    {"Llama 3.3 70B", "llama3-70b"},
	    {"gpt-oss", "gpt-oss-120b"},
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (!strncasecmp(m, map[i].prefix, strlen(map[i].prefix)))
			return map[i].key;
	return NULL;
}

static const char *gpu_key(const char *g)
{
	static const char *const names[] = {"h100",  "h200",   "b200",   "b300",  "gb200",
	                                    "gb300", "mi300x", "mi325x", "mi355x"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (!strncasecmp(g, names[i], strlen(names[i])) &&
		    (g[strlen(names[i])] == 0 || g[strlen(names[i])] == ' '))
			return names[i];
	return NULL;
}

static const char *precision_key(const char *p)
{
	if (!strcasecmp(p, "FP8") || !strcasecmp(p, "MXFP8"))
		return "fp8";
	if (!strcasecmp(p, "FP4") || !strcasecmp(p, "NVFP4") || !strcasecmp(p, "MXFP4"))
		return "fp4";
	if (!strcasecmp(p, "INT4"))
		return "int4";
	if (!strcasecmp(p, "BF16"))
		return "bf16";
	return NULL;
}

static void classify(slab_point *p)
{
	const char *k = p->page_kind;
	if (!strcmp(k, "blog-measured") || !strcmp(k, "pr-table-inferencex"))
		p->kind = SLAB_POINT_MEASURED;
	else if (!strcmp(k, "blog-interpolated") || !strncmp(k, "compare", 7))
		p->kind = SLAB_POINT_FRONTIER;
	else if (!strcmp(k, "blog-peak"))
		p->kind = SLAB_POINT_PEAK;
	else
		p->kind = SLAB_POINT_OTHER;
}

/* The value named `name` in a row's `;`-separated metric names and values
 * ("median_TTFT_ms;median_TPOT_ms;concurrency" / "747.7;108.3;256"), or
 * NAN. */
static double metric_value(const char *mname, const char *mval, const char *name)
{
	if (!mname || !mval)
		return NAN;
	size_t want = strlen(name);
	for (const char *n = mname, *v = mval; n && v;) {
		size_t len = strcspn(n, ";");
		if (len == want && !strncmp(n, name, want) && *v && *v != ';')
			return atof(v);
		n = n[len] ? n + len + 1 : NULL;
		v = strchr(v, ';');
		v = v ? v + 1 : NULL;
	}
	return NAN;
}

/* Why a row of any kind cannot run for want of a model, a GPU, a precision
 * or its lengths; NULL when it has them all. */
static const char *unrunnable_basics(const slab_point *p)
{
	if (!p->model)
		return "no profile for this model";
	if (!p->gpu)
		return "no profile for this GPU";
	if (!p->precision)
		return "precision not stated";
	if (!p->isl || !p->osl)
		return "ISL/OSL not stated";
	if (p->isl < 0 || p->osl < 0)
		return "ISL/OSL not a whole number in 1..10000000";
	return NULL;
}

/* A frontier or peak row: the series it stands for (framework, spec
 * setting named in the note; TP/EP are the sweep's) and why it cannot run. */
static void configure_series(slab_point *p, const char *note, const char *mname, const char *mval)
{
	p->tp = p->ep = 0;
	p->dp_attn = false;
	/* "may include speculative decoding such as MTP": any config */
	if (has(note, "may include speculative"))
		p->spec = NULL;
	if (has(note, "speculative decoding = off") || has(note, "non-MTP") ||
	    has(note, "no MTP")) {
		p->no_spec = true;
		p->spec = NULL;
	}
	if (p->kind == SLAB_POINT_PEAK) {
		/* Dynamo and MoRI serve multi-node disaggregated recipes */
		if ((has(note, "dynamo") || has(note, "mori-")) && !has(note, "non-disagg"))
			p->disagg = true;
		p->tpot_ms = metric_value(mname, mval, "median_TPOT_ms");
		if (isnan(p->interactivity) && p->tpot_ms > 0)
			p->interactivity = 1000 / p->tpot_ms;
	}
	if (isnan(p->tps_gpu) && p->cost > 0 && p->gpu && !isnan(slab_gpu_price(p->gpu))) {
		p->tps_gpu = slab_gpu_price(p->gpu) / (p->cost * 0.0036);
		p->tps_from_cost = true;
	}
	p->why = unrunnable_basics(p);
	if (p->why)
		return;
	/* a disaggregated peak row sweeps the master configs' multi-node
	 * configs of its series (their worker counts; slab_sweep_from_matrix) */
	if (p->kind == SLAB_POINT_PEAK && p->conc <= 0)
		p->why = "concurrency not stated (a peak throughput only)";
	else if (p->kind == SLAB_POINT_FRONTIER && isnan(p->interactivity))
		p->why = "no target interactivity";
	else if (isnan(p->tps_gpu))
		p->why = "neither throughput nor cost published";
}

/* Fills the configuration fields of p from its columns; sets p->why when
 * the row cannot be run. */
static void configure(slab_point *p, const char *model, const char *gpu, const char *prec,
                      const char *note, const char *mname, const char *mval)
{
	p->model = model_key(model);
	p->gpu = gpu_key(gpu);
	p->precision = precision_key(prec);
	p->framework = sim_framework_key(note);
	p->tp = int_after(note, "TP=");
	if (!p->tp)
		p->tp = int_after(note, "TP ");
	if (!p->tp)
		p->tp = int_after(note, "TP");
	p->ep = int_after(note, "EP=");
	p->dp_attn = has(note, "DP attention") || has(note, "DPA") || has(note, "dp-attn");
	p->disagg = (has(note, "disagg") && !has(note, "non-disagg") && !has(note, "non disagg")) ||
	            has(note, "disaggregated");
	if (has(note, "EAGLE") && !has(note, "no MTP/EAGLE"))
		p->spec = "eagle3";
	if (has(note, "MTP") && !has(note, "non-MTP") && !has(note, "no MTP"))
		p->spec = "mtp";
	/* the concurrency: measured rows "TPOT_ms;concurrency", peak rows end
	 * with it, pr tables "concurrency" */
	if (mname && mval && strstr(mname, "concurrency")) {
		const char *last = strrchr(mval, ';');
		p->conc = whole(last ? last + 1 : mval, 1 << 20);
	}
	if (p->kind == SLAB_POINT_FRONTIER || p->kind == SLAB_POINT_PEAK) {
		configure_series(p, note, mname, mval);
		return;
	}
	if (p->kind == SLAB_POINT_OTHER) {
		p->why = "a prose claim without a configuration";
		return;
	}
	p->why = unrunnable_basics(p);
	if (p->why)
		return;
	if (p->conc <= 0)
		p->why = "concurrency not stated";
	else if (p->tp <= 0)
		p->why = "TP not stated";
	else if (p->disagg)
		p->why = "disaggregated prefill/decode: worker counts not stated";
	else if (!p->framework)
		p->why = "framework not stated";
}

int slab_points_load(const char *path, ib_arena *a, slab_point **out, size_t *n, ib_error *e)
{
	ib_buf b = {0};
	int rc = ib_read_file(path, &b, e);
	if (rc)
		return rc;
	*out = NULL;
	*n = 0;
	size_t cap = 0, lineno = 0;
	int col[32] = {0}, col_cost = -1;
	static const char *const want[] = {"row_id",
	                                   "model",
	                                   "gpu",
	                                   "precision",
	                                   "framework_or_config_note",
	                                   "isl",
	                                   "osl",
	                                   "interactivity_tok_s_user",
	                                   "throughput_tok_s_gpu",
	                                   "other_metric_name",
	                                   "other_metric_value",
	                                   "page_kind"};
	enum {
		C_ID,
		C_MODEL,
		C_GPU,
		C_PREC,
		C_NOTE,
		C_ISL,
		C_OSL,
		C_INTER,
		C_TPS,
		C_MNAME,
		C_MVAL,
		C_KIND,
		C_N
	};
	char *save = NULL;
	for (char *line = strtok_r(b.data ? b.data : (char[]){0}, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		const char *f[32];
		size_t nf = 0;
		for (char *p = line;;) {
			char *tab = strchr(p, '\t');
			if (nf < 32)
				f[nf++] = p;
			if (!tab)
				break;
			*tab = 0;
			p = tab + 1;
		}
		if (nf && f[nf - 1][0] && f[nf - 1][strlen(f[nf - 1]) - 1] == '\r')
			((char *)f[nf - 1])[strlen(f[nf - 1]) - 1] = 0;
		if (lineno == 1) {
			for (int j = 0; j < C_N; j++) {
				col[j] = -1;
				for (size_t i = 0; i < nf; i++)
					if (!strcmp(f[i], want[j]))
						col[j] = (int)i;
				if (col[j] < 0) {
					rc = ib_fail(e, IB_EINVAL, path, 1, 0, "no column '%s'",
					             want[j]);
					goto out;
				}
			}
			for (size_t i = 0; i < nf; i++) /* optional */
				if (!strcmp(f[i], "cost_usd_per_m_tokens"))
					col_cost = (int)i;
			continue;
		}
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			slab_point *g = ib_arena_alloc(a, cap * sizeof *g);
			if (!g) {
				rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
				goto out;
			}
			if (*n)
				memcpy(g, *out, *n * sizeof *g);
			*out = g;
		}
		slab_point *p = &(*out)[(*n)++];
		memset(p, 0, sizeof *p);
#define F(j) ((size_t)col[j] < nf ? f[col[j]] : "")
		p->line = (int)lineno;
		p->row_id = atoi(F(C_ID));
		p->page_kind = dup_n(a, F(C_KIND), strlen(F(C_KIND)));
		p->model_name = dup_n(a, F(C_MODEL), strlen(F(C_MODEL)));
		p->gpu_name = dup_n(a, F(C_GPU), strlen(F(C_GPU)));
		p->isl = whole(F(C_ISL), 10000000);
		p->osl = whole(F(C_OSL), 10000000);
		p->interactivity = F(C_INTER)[0] ? atof(F(C_INTER)) : NAN;
		p->tps_gpu = F(C_TPS)[0] ? atof(F(C_TPS)) : NAN;
		p->cost = col_cost >= 0 && (size_t)col_cost < nf && f[col_cost][0]
		              ? atof(f[col_cost])
		              : NAN;
		p->tpot_ms = NAN;
		classify(p);
		configure(p, F(C_MODEL), F(C_GPU), F(C_PREC), F(C_NOTE), F(C_MNAME), F(C_MVAL));
		p->version = sim_version_of(a, F(C_NOTE));
#undef F
	}
	if (!*n)
		rc = ib_fail(e, IB_EINVAL, path, 0, 0, "no rows");
out:
	ib_buf_free(&b);
	return rc;
}

void slab_point_config_with(const slab_point *p, const sim_calib_file *cal, const char *framework,
                            const char *spec, int tp, int ep, bool dp_attn, int conc, sim_config *c)
{
	sim_config_init(c);
	c->model = *sim_model_find(p->model);
	c->hw = *sim_hw_find(p->gpu);
	c->precision = p->precision;
	c->framework = framework;
	c->framework_version = p->version;
	c->tp = tp;
	c->ep = ep > 1 ? ep : 1;
	c->dp_attn = dp_attn;
	c->max_num_seqs = conc > 256 ? conc : 256;
	c->kv_bytes =
	    !strcmp(p->precision, "bf16") ? 2 : 1; /* InferenceX recipes run an FP8 KV cache */
	if (spec) {
		c->spec_method = spec;
		c->num_spec_tokens = 3; /* the recipes' usual draft length */
		const sim_model *m = &c->model;
		c->acceptance_length =
		    m->default_al[3] > 0 ? m->default_al[3] : (1 - pow(0.7, 4)) / 0.3;
	}
	sim_calib_key k;
	sim_calib_key_for(cal, framework, c->hw.name, c->precision, c->model.name, spec, p->version,
	                  &k);
	sim_calib cb;
	sim_calib_resolve(cal, &k, &cb);
	sim_calib_apply(&cb, c);
}

int slab_point_config(const slab_point *p, const sim_calib_file *cal, sim_config *c, ib_error *e)
{
	if (p->why)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "%s", p->why);
	slab_point_config_with(p, cal, p->framework, p->spec, p->tp, p->ep, p->dp_attn, p->conc, c);
	return 0;
}

int slab_config_run(const sim_config *c, int conc, int prompts_per_conc, int isl, int osl,
                    uint64_t seed, slab_point_result *r, ib_error *e)
{
	memset(r, 0, sizeof *r);
	sim_load ld = {.concurrency = conc,
	               .num_prompts = conc * (prompts_per_conc > 0 ? prompts_per_conc : 10),
	               .isl = isl,
	               .osl = osl,
	               .range_ratio = 0.8,
	               .seed = seed};
	sim_load_result lr;
	int rc = sim_run_load(c, &ld, &lr, e);
	if (rc)
		return rc;
	r->tps_gpu = lr.total_tok_s / sim_config_gpus(c); /* both pools, every worker */
	r->interactivity = lr.median_tpot > 0 ? 1.0 / lr.median_tpot : 0;
	r->median_tpot = lr.median_tpot;
	r->median_ttft = lr.median_ttft;
	return 0;
}

int slab_point_run(const slab_point *p, const sim_calib_file *cal, int prompts_per_conc,
                   slab_point_result *r, ib_error *e)
{
	memset(r, 0, sizeof *r);
	sim_config c;
	int rc = slab_point_config(p, cal, &c, e);
	if (rc)
		return rc;
	return slab_config_run(&c, p->conc, prompts_per_conc, p->isl, p->osl,
	                       (uint64_t)p->row_id + 1, r, e);
}

double slab_err_pct(double sim, double published)
{
	return isnan(published) || published == 0 ? NAN : 100 * (sim - published) / published;
}

int slab_ape_add(slab_ape *g, bool runnable, double tps_err, double inter_err)
{
	g->total++;
	if (!runnable)
		return 0;
	g->runnable++;
	if (!isnan(tps_err)) {
		if (ib_grow(&g->tps, &g->cap_tps, g->ntps + 1))
			return IB_ENOMEM;
		g->tps[g->ntps++] = fabs(tps_err);
	}
	if (!isnan(inter_err)) {
		if (ib_grow(&g->inter, &g->cap_inter, g->ninter + 1))
			return IB_ENOMEM;
		g->inter[g->ninter++] = fabs(inter_err);
	}
	return 0;
}

static void median_mean(double *v, size_t n, double *median, double *mean)
{
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	*mean = n ? sum / (double)n : NAN;
	*median = n ? sim_median(v, n) : NAN;
}

void slab_ape_stats(slab_ape *g, double *tps_median, double *tps_mean, double *inter_median,
                    double *inter_mean)
{
	median_mean(g->tps, g->ntps, tps_median, tps_mean);
	median_mean(g->inter, g->ninter, inter_median, inter_mean);
}

/* The nearest-rank 90th percentile of v[0..n) (sorts v); NAN when n is 0. */
static double p90(double *v, size_t n)
{
	if (!n)
		return NAN;
	sim_median(v, n); /* sorts */
	size_t r = (size_t)ceil(0.9 * (double)n);
	return v[r ? r - 1 : 0];
}

void slab_ape_p90(slab_ape *g, double *tps_p90, double *inter_p90)
{
	*tps_p90 = p90(g->tps, g->ntps);
	*inter_p90 = p90(g->inter, g->ninter);
}

void slab_ape_free(slab_ape *g)
{
	free(g->tps);
	free(g->inter);
	memset(g, 0, sizeof *g);
}
