/* Loading agg rows for the report: files and folders, mapBenchmarkRow's
 * normalisation and skip rules, eval rows (mapAggEvalRow). */
#include "report/html.h"
#include "results/results.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char *const gpu_keys[] = {"h100",  "h200",   "b200",   "b300",   "gb200",
                                       "gb300", "mi300x", "mi325x", "mi355x", NULL};

/* Suffixes stripped in this order, each once, as hwToGpuKey does. */
static const char *const hw_suffixes[] = {
    "-trt", "-multinode-slurm", "-multinode", "-nvs", "-disagg", "-amds", "-amd",
    "-nvd", "-dgxc-slurm",      "-dgxc",      "-nb",  "-nv",     NULL};

static bool ends_with(const char *s, size_t n, const char *suf)
{
	size_t m = strlen(suf);
	return n >= m && !memcmp(s + n - m, suf, m);
}

const char *rep_gpu_key(const char *hw)
{
	char b[128];
	/* a runner label of the reference's clusters (cluster:mi300x-amds), as
	 * its normalize_hardware_label reads it: the prefix off */
	if (!strncmp(hw, "cluster:", 8))
		hw += 8;
	size_t n = strlen(hw);
	if (n >= sizeof b)
		return NULL;
	for (size_t i = 0; i < n; i++)
		b[i] = (char)tolower((unsigned char)hw[i]);
	b[n] = 0;
	/* _\d+$ */
	size_t k = n;
	while (k > 0 && isdigit((unsigned char)b[k - 1]))
		k--;
	if (k < n && k > 0 && b[k - 1] == '_')
		n = k - 1;
	for (int i = 0; hw_suffixes[i]; i++)
		if (ends_with(b, n, hw_suffixes[i]))
			n -= strlen(hw_suffixes[i]);
	b[n] = 0;
	for (int i = 0; gpu_keys[i]; i++)
		if (!strcmp(b, gpu_keys[i]))
			return gpu_keys[i];
	/* beyond the dashboard: "<gpu>-<site>" runner labels (b200-nscale) */
	char *dash = strchr(b, '-');
	if (dash) {
		*dash = 0;
		for (int i = 0; gpu_keys[i]; i++)
			if (!strcmp(b, gpu_keys[i]))
				return gpu_keys[i];
	}
	return NULL;
}

static const ib_val *get(const ib_val *m, const char *k)
{
	const ib_val *v = ib_map_get(m, k);
	return v && v->type != IB_V_NULL ? v : NULL;
}

/* parseNum: numbers, or strings parseFloat reads (a leading number). */
static bool as_num(const ib_val *v, double *out)
{
	if (!v)
		return false;
	switch (v->type) {
	case IB_V_INT:
		*out = (double)v->i;
		return true;
	case IB_V_FLOAT:
		*out = v->f;
		return !isnan(v->f);
	case IB_V_BOOL:
		*out = v->b;
		return true;
	case IB_V_STR: {
		char *end;
		double x = strtod(v->str.s, &end);
		if (end == v->str.s || isnan(x))
			return false;
		*out = x;
		return true;
	}
	default:
		return false;
	}
}

/* parseInt2: Math.round of numbers, parseInt of strings; false when absent. */
static bool as_int(const ib_val *v, int *out)
{
	double x;
	if (!v)
		return false;
	if (v->type == IB_V_STR) {
		char *end;
		long l = strtol(v->str.s, &end, 10);
		if (end == v->str.s)
			return false;
		*out = (int)l;
		return true;
	}
	if (!as_num(v, &x) || !isfinite(x) || fabs(x) > 2e9)
		return false;
	*out = (int)floor(x + 0.5);
	return true;
}

static int int_or(const ib_val *m, const char *k, int dflt)
{
	int x;
	return as_int(get(m, k), &x) ? x : dflt;
}

static bool parse_bool(const ib_val *v)
{
	if (!v)
		return false;
	if (v->type == IB_V_BOOL)
		return v->b;
	return v->type == IB_V_STR && (!strcmp(v->str.s, "true") || !strcmp(v->str.s, "True"));
}

static char *lower(ib_arena *a, const char *s)
{
	char *r = ib_arena_strdup(a, s);
	if (r)
		for (char *p = r; *p; p++)
			*p = (char)tolower((unsigned char)*p);
	return r;
}

static const char *str_of(ib_arena *a, const ib_val *v)
{
	if (!v)
		return NULL;
	if (v->type == IB_V_STR)
		return v->str.s;
	if (v->type == IB_V_INT)
		return ib_arena_printf(a, "%lld", (long long)v->i);
	return NULL;
}

/* The few model paths the dashboard maps without a prefix. */
static const char *const model_paths[][2] = {{"deepseek-ai/DeepSeek-R1-0528", "dsr1"},
                                             {"deepseek-ai/DeepSeek-R1", "dsr1"},
                                             {"nvidia/DeepSeek-R1-0528-FP4-V2", "dsr1"},
                                             {"amd/DeepSeek-R1-0528-MXFP4-Preview", "dsr1"},
                                             {"openai/gpt-oss-120b", "gptoss120b"},
                                             {"nvidia/Llama-3.3-70B-Instruct-FP8", "llama70b"},
                                             {"Qwen/Qwen3.5-397B-A17B", "qwen3.5"},
                                             {"moonshotai/Kimi-K2.5", "kimik2.5"},
                                             {"MiniMaxAI/MiniMax-M2.5", "minimaxm2.5"},
                                             {"zai-org/GLM-5-FP8", "glm5"},
                                             {NULL, NULL}};

/* resolveModelKey, except that any prefix is accepted (the dashboard keeps
 * only prefixes of its own model list; docs/report.md). */
static const char *model_key(ib_arena *a, const ib_val *row)
{
	const ib_val *p = get(row, "infmax_model_prefix");
	if (!p)
		p = get(row, "model_prefix");
	if (p && p->type == IB_V_STR && p->str.len && strcmp(p->str.s, "unknown")) {
		char *k = lower(a, p->str.s);
		if (!k)
			return NULL;
		static const char *const prec[] = {"-fp4", "-fp8", "-mxfp4", "-nvfp4", NULL};
		for (int i = 0; prec[i]; i++) {
			char *hit = strstr(k, prec[i]);
			size_t m = strlen(prec[i]);
			if (hit && (hit[m] == 0 || hit[m] == '-')) {
				*hit = 0;
				break;
			}
		}
		return !strcmp(k, "gptoss") ? "gptoss120b" : k;
	}
	const ib_val *m = get(row, "model");
	if (m && m->type == IB_V_STR) {
		for (int i = 0; model_paths[i][0]; i++)
			if (!strcmp(model_paths[i][0], m->str.s))
				return model_paths[i][1];
		/* the results database's rows carry the model key itself */
		if (get(row, "hardware") && !strchr(m->str.s, '/') && m->str.len)
			return lower(a, m->str.s);
	}
	return NULL;
}

static const char *framework_of(ib_arena *a, const ib_val *row, bool *disagg)
{
	const char *fw = str_of(a, get(row, "framework"));
	char *l = lower(a, fw ? fw : "");
	*disagg = parse_bool(get(row, "disagg"));
	if (!l)
		return NULL;
	if (!strcmp(l, "sglang-disagg")) {
		*disagg = true;
		return "mori-sglang";
	}
	if (!strcmp(l, "trtllm"))
		return "trt";
	if (!strcmp(l, "dynamo-trtllm"))
		return "dynamo-trt";
	return l;
}

static const char *precision_of(ib_arena *a, const ib_val *row)
{
	const char *p = str_of(a, get(row, "precision"));
	char *l = lower(a, p ? p : "");
	if (l && (!strcmp(l, "nvfp4") || !strcmp(l, "mxfp4")))
		return "fp4";
	return l;
}

static const char *spec_of(ib_arena *a, const ib_val *row)
{
	const ib_val *s = get(row, "spec_decoding");
	if (!s)
		s = get(row, "spec_method");
	if (!s || (s->type == IB_V_STR && !s->str.len) || (s->type == IB_V_BOOL && !s->b))
		return "none";
	const char *t = str_of(a, s);
	return t ? lower(a, t) : "none";
}

static int skip(rep_rowset *rs, ib_diags *d, const char *file, size_t idx, const char *field,
                const char *why)
{
	rs->skipped++;
	char subj[48];
	snprintf(subj, sizeof subj, "row %zu", idx + 1);
	return ib_diag_add(
	    d,
	    &(ib_diag){.severity = IB_SEV_WARNING, .file = file, .subject = subj, .field = field},
	    "%s; row skipped", why);
}

/* A simulated row's sim_interval bounds into r->iv (NAN: none, or not two
 * finite numbers lo <= hi for each figure). */
static void sim_iv_bounds(rep_agg_row *r)
{
	const ib_val *iv = r->simulated ? get(r->raw, "sim_interval") : NULL;
	static const char *const k[2] = {"tput_per_gpu", "median_intvty"};
	for (int i = 0; i < 4; i++)
		r->iv[i] = NAN;
	double b[4];
	for (int i = 0; i < 2; i++) {
		const ib_val *l = iv && iv->type == IB_V_MAP ? get(iv, k[i]) : NULL;
		if (!l || l->type != IB_V_LIST || l->list.n != 2 ||
		    !as_num(l->list.v[0], &b[2 * i]) || !as_num(l->list.v[1], &b[2 * i + 1]) ||
		    !isfinite(b[2 * i]) || !isfinite(b[2 * i + 1]) || b[2 * i] > b[2 * i + 1])
			return;
	}
	memcpy(r->iv, b, sizeof b);
}

/* Beyond-the-dashboard fields: client health, acceptance length, workload. */
static void extras(rep_agg_row *r)
{
	const ib_val *row = r->raw, *ch = get(row, "client_health"), *v;
	r->client_bound = -1;
	r->accept_len = NAN;
	if (ch && ch->type == IB_V_MAP) {
		if ((v = get(ch, "client_bound")) && v->type == IB_V_BOOL)
			r->client_bound = v->b;
		if ((v = get(ch, "reason")) && v->type == IB_V_STR)
			r->health_why = v->str.s;
	} else if ((v = get(row, "client_bound")) && v->type == IB_V_BOOL) {
		r->client_bound = v->b;
	}
	r->simulated = (v = get(row, "simulated")) && v->type == IB_V_BOOL && v->b;
	sim_iv_bounds(r);
	double x;
	const ib_val *sm = get(row, "server_metrics"), *sd = sm ? get(sm, "spec_decode") : NULL;
	if (sd && sd->type == IB_V_MAP && as_num(get(sd, "mean_acceptance_length"), &x))
		r->accept_len = x;
	else if (as_num(get(row, "mean_acceptance_length"), &x) ||
	         as_num(get(row, "acceptance_length"), &x))
		r->accept_len = x;
	const ib_val *w = get(row, "workload");
	if (w && w->type == IB_V_MAP && (v = get(w, "sha256")) && v->type == IB_V_STR)
		r->fingerprint = v->str.s;
	else if ((v = get(row, "workload_sha256")) && v->type == IB_V_STR)
		r->fingerprint = v->str.s;
}

static void parallelism(rep_agg_row *r)
{
	const ib_val *row = r->raw;
	r->tp = int_or(row, "tp", 1);
	r->ep = int_or(row, "ep", 1);
	r->pp = int_or(row, "pp", 1);
	r->dpa = parse_bool(get(row, "dp_attention"));
	r->v2 = ib_map_has(row, "prefill_tp");
	if (r->v2) {
		r->ptp = int_or(row, "prefill_tp", 1);
		r->pep = int_or(row, "prefill_ep", 1);
		r->pdpa = parse_bool(get(row, "prefill_dp_attention"));
		r->pnw = int_or(row, "prefill_num_workers", 0);
		r->dtp = int_or(row, "decode_tp", 1);
		r->dep = int_or(row, "decode_ep", 1);
		r->ddpa = parse_bool(get(row, "decode_dp_attention"));
		r->dnw = int_or(row, "decode_num_workers", 0);
		r->npg = int_or(row, "num_prefill_gpu", r->ptp * r->pep);
		r->ndg = int_or(row, "num_decode_gpu", r->dtp * r->dep);
		if (!get(row, "tp")) { /* database rows: single node = the decode side */
			r->tp = r->dtp;
			r->ep = r->dep;
			r->dpa = r->ddpa;
		}
	} else {
		r->ptp = r->dtp = r->tp;
		r->pep = r->dep = r->ep;
		r->pdpa = r->ddpa = r->dpa;
		r->npg = r->ndg = r->tp * r->ep;
	}
}

/* Pushes one benchmark row, or skips it with a diagnostic. */
static int add_bench(ib_arena *a, rep_rowset *rs, ib_diags *d, const char *file, size_t idx,
                     const ib_val *row, const char *date, int overlay)
{
	if (row->type != IB_V_MAP)
		return skip(rs, d, file, idx, NULL, "not a JSON object");
	const char *model = model_key(a, row);
	if (!model)
		return skip(rs, d, file, idx, "infmax_model_prefix",
		            "no model prefix and an unmapped model");
	const ib_val *hwv = get(row, "hw");
	if (!hwv)
		hwv = get(row, "hardware"); /* the results database's row shape */
	const char *hw = hwv && hwv->type == IB_V_STR ? rep_gpu_key(hwv->str.s) : NULL;
	if (!hw) {
		char why[200];
		snprintf(why, sizeof why, "unknown GPU '%.100s'",
		         hwv && hwv->type == IB_V_STR ? hwv->str.s : "");
		return skip(rs, d, file, idx, "hw", why);
	}
	int isl = 0, osl = 0, conc;
	/* agentic rows (mapBenchmarkRow's agentic_traces): no ISL/OSL, `users`
	 * or `conc`; a run with no successful request or that failed the
	 * validity gate is no point */
	bool ag = res_agentic_row(row);
	const ib_val *nok = get(row, "num_requests_successful");
	if (!ag && (!as_int(get(row, "isl"), &isl) || !isl))
		return skip(rs, d, file, idx, "isl", "missing or zero isl");
	if (!ag && (!as_int(get(row, "osl"), &osl) || !osl))
		return skip(rs, d, file, idx, "osl", "missing or zero osl");
	bool have = ag && as_int(get(row, "users"), &conc);
	if (!(have || as_int(get(row, "conc"), &conc)) || !conc)
		return skip(rs, d, file, idx, "conc", "missing or zero conc");
	if (ag && nok && nok->type == IB_V_INT && !nok->i && get(row, "num_requests_total"))
		return skip(rs, d, file, idx, "num_requests_successful",
		            "no successful request (a failed run)");
	if (ag && res_agentic_valid(row) == 0)
		return skip(rs, d, file, idx, "validation", "failed the validity gate");
	if (ag ? ib_grow(&rs->ag, &rs->cap_ag, rs->nag + 1)
	       : ib_grow(&rs->rows, &rs->cap, rs->n + 1))
		return IB_ENOMEM;
	rep_agg_row *r = ag ? &rs->ag[rs->nag] : &rs->rows[rs->n];
	memset(r, 0, sizeof *r);
	r->src = file;
	r->index = idx;
	r->raw = row;
	if (ag) { /* the nested metrics as the dashboard's flat ones, on a copy */
		ib_val *flat = ib_map_copy(a, row);
		const ib_val *st = get(row, "scenario_type"), *ko = get(row, "kv_offloading");
		if (!flat || res_agentic_flat(a, row, flat))
			return IB_ENOMEM;
		r->raw = flat;
		r->scenario =
		    st && st->type == IB_V_STR ? st->str.s : get(row, "benchmark_type")->str.s;
		r->offload =
		    ko && ko->type == IB_V_STR && ko->str.len ? lower(a, ko->str.s) : "none";
	}
	r->hw = hw;
	r->hw_raw = hwv->str.s;
	r->model = model;
	r->framework = framework_of(a, row, &r->disagg);
	r->precision = precision_of(a, row);
	r->spec = spec_of(a, row);
	r->multinode = parse_bool(get(row, "is_multinode"));
	r->isl = isl;
	r->osl = osl;
	r->conc = conc;
	r->overlay = overlay;
	const ib_val *im = get(row, "image");
	if (im && im->type == IB_V_STR && im->str.len) {
		char *s = ib_arena_strdup(a, im->str.s);
		if (!s)
			return IB_ENOMEM;
		for (char *p = s; *p; p++)
			if (*p == '#')
				*p = '/';
		r->image = s;
	}
	const ib_val *dv = get(row, "date");
	r->date = dv && dv->type == IB_V_STR && dv->str.len >= 10
	              ? ib_arena_strndup(a, dv->str.s, 10)
	              : date;
	if (!r->framework || !r->precision || !r->spec || !r->date)
		return IB_ENOMEM;
	parallelism(r);
	extras(r);
	if (ag)
		rs->nag++;
	else
		rs->n++;
	/* kept, but a chart that needs a missing metric leaves the row out */
	static const char *const need[] = {"tput_per_gpu", "median_intvty", "median_e2el", NULL};
	for (int k = 0; need[k] && (!ag || k < 1); k++)
		if (isnan(rep_row_num(r, need[k]))) {
			char subj[48];
			snprintf(subj, sizeof subj, "row %zu", idx + 1);
			int rc =
			    ib_diag_add(d,
			                &(ib_diag){.severity = IB_SEV_WARNING,
			                           .file = file,
			                           .subject = subj,
			                           .field = need[k]},
			                "missing: the row is left out of the charts that need it");
			if (rc)
				return rc;
		}
	return 0;
}

/* ISL/OSL of an eval row from its source path ([_-]<n>k<m>k[_-.]), else the fields. */
static void eval_seq(const ib_val *row, int *isl, int *osl)
{
	*isl = int_or(row, "isl", 0);
	*osl = int_or(row, "osl", 0);
	const ib_val *s = get(row, "source");
	if (!s || s->type != IB_V_STR)
		return;
	for (const char *p = s->str.s; *p; p++) {
		if (*p != '_' && *p != '-')
			continue;
		char *e1, *e2;
		long x = strtol(p + 1, &e1, 10);
		if (e1 == p + 1 || (*e1 != 'k' && *e1 != 'K'))
			continue;
		long y = strtol(e1 + 1, &e2, 10);
		if (e2 == e1 + 1 || (*e2 != 'k' && *e2 != 'K'))
			continue;
		if (e2[1] == '_' || e2[1] == '-' || e2[1] == '.') {
			*isl = (int)x * 1024;
			*osl = (int)y * 1024;
			return;
		}
	}
}

static int add_eval(ib_arena *a, rep_rowset *rs, ib_diags *d, const char *file, size_t idx,
                    const ib_val *row, const char *date, int overlay)
{
	const char *model = model_key(a, row);
	if (!model)
		return skip(rs, d, file, idx, "model_prefix",
		            "no model prefix and an unmapped model");
	const ib_val *hwv = get(row, "hw");
	if (!hwv)
		hwv = get(row, "hardware"); /* the results database's row shape */
	const char *hw = hwv && hwv->type == IB_V_STR ? rep_gpu_key(hwv->str.s) : NULL;
	if (!hw)
		return skip(rs, d, file, idx, "hw", "unknown GPU");
	/* scores at the top (agg_eval rows) or in `metrics` (database rows) */
	const ib_val *m = get(row, "metrics"), *sc = get(row, "em_strict") ? row : NULL;
	if (!sc && !get(row, "score") && m && m->type == IB_V_MAP)
		sc = m;
	if (!sc)
		sc = row;
	double score, se = NAN;
	bool strict = as_num(get(sc, "em_strict"), &score);
	if (!strict && !as_num(get(sc, "score"), &score))
		return skip(rs, d, file, idx, "score", "no em_strict or score");
	if (!as_num(get(sc, strict ? "em_strict_se" : "score_se"), &se))
		se = NAN;
	if (ib_grow(&rs->evals, &rs->cap_evals, rs->nevals + 1))
		return IB_ENOMEM;
	rep_ev_row *r = &rs->evals[rs->nevals];
	memset(r, 0, sizeof *r);
	bool dis;
	r->src = file;
	r->index = idx;
	r->hw = hw;
	r->model = model;
	r->framework = framework_of(a, row, &dis);
	r->precision = precision_of(a, row);
	r->spec = spec_of(a, row);
	const char *t = str_of(a, get(row, "task"));
	r->task = t ? t : "gsm8k";
	const ib_val *dv = get(row, "date");
	r->date = dv && dv->type == IB_V_STR && dv->str.len >= 10
	              ? ib_arena_strndup(a, dv->str.s, 10)
	              : date;
	eval_seq(row, &r->isl, &r->osl);
	r->conc = int_or(row, "conc", 0);
	/* agg_eval rows say tp/ep/dp_attention, database rows the decode side */
	r->tp = int_or(row, "tp", int_or(row, "decode_tp", 1));
	r->ep = int_or(row, "ep", int_or(row, "decode_ep", 1));
	r->dpa =
	    parse_bool(get(row, get(row, "dp_attention") ? "dp_attention" : "decode_dp_attention"));
	r->score = score;
	r->score_se = se;
	r->overlay = overlay;
	if (!r->framework || !r->precision || !r->spec || !r->date)
		return IB_ENOMEM;
	rs->nevals++;
	return 0;
}

static bool is_eval(const char *file, const ib_val *row)
{
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	return !strncmp(base, "agg_eval", 8) || (row->type == IB_V_MAP && ib_map_has(row, "task"));
}

static const char *file_date(ib_arena *a, const char *path)
{
	struct stat st;
	time_t t = stat(path, &st) ? time(NULL) : st.st_mtime;
	struct tm tm;
	gmtime_r(&t, &tm);
	char b[16];
	strftime(b, sizeof b, "%Y-%m-%d", &tm);
	return ib_arena_strdup(a, b);
}

/* A raw `infbench bench` (benchmark_serving.py) result, not an agg row. */
static bool is_raw(const ib_val *doc)
{
	return doc->type == IB_V_MAP && !ib_map_has(doc, "hw") && !ib_map_has(doc, "hardware") &&
	       ib_map_has(doc, "model_id") && ib_map_has(doc, "total_token_throughput");
}

/* The agg row of a raw result with the default labels (res_labels: one
 * GPU, h100); NULL with a warning when it cannot be made. */
static const ib_val *raw_row(ib_arena *a, const char *file, const ib_val *doc, ib_diags *d)
{
	const char **env = res_labels_env(a, doc, &(res_labels){0}, "raw");
	ib_val *row = NULL;
	ib_error e = {0};
	if (!env || res_raw_agg(a, doc, env, file, &row, &e)) {
		ib_diag_add(d, &(ib_diag){.severity = IB_SEV_WARNING, .file = file},
		            "a raw result that cannot become an agg row (%s); file skipped",
		            env ? e.msg : "out of memory");
		return NULL;
	}
	return row;
}

/* mode 0: everything; 1: arrays only; 2: single-row objects only. */
static int load_one(ib_arena *a, const char *path, const ib_val *doc, int overlay, rep_rowset *rs,
                    ib_diags *d)
{
	const char *date = file_date(a, path), *file = ib_arena_strdup(a, path);
	if (!date || !file)
		return IB_ENOMEM;
	if (doc->type != IB_V_LIST) {
		if (doc->type != IB_V_MAP)
			return ib_diag_add(
			    d, &(ib_diag){.severity = IB_SEV_WARNING, .file = file},
			    "neither a list of agg rows nor one agg row; file skipped");
		return is_eval(file, doc) ? add_eval(a, rs, d, file, 0, doc, date, overlay)
		                          : add_bench(a, rs, d, file, 0, doc, date, overlay);
	}
	if (doc->list.n == 0)
		return ib_diag_add(d, &(ib_diag){.severity = IB_SEV_WARNING, .file = file},
		                   "no rows in the file");
	for (size_t i = 0; i < doc->list.n; i++) {
		const ib_val *row = doc->list.v[i];
		int rc = is_eval(file, row) ? add_eval(a, rs, d, file, i, row, date, overlay)
		                            : add_bench(a, rs, d, file, i, row, date, overlay);
		if (rc)
			return rc;
	}
	return 0;
}

static int parse(ib_arena *a, const char *path, ib_val **doc, ib_diags *d, ib_error *e)
{
	ib_buf b = {0};
	int rc = ib_read_file(path, &b, e);
	if (rc)
		return rc;
	size_t i = 0;
	while (i < b.len && isspace((unsigned char)b.data[i]))
		i++;
	if (i == b.len) {
		ib_buf_free(&b);
		*doc = NULL;
		return ib_diag_add(d, &(ib_diag){.severity = IB_SEV_WARNING, .file = path},
		                   "empty file; skipped");
	}
	rc = ib_json_parse(a, path, b.data, b.len, doc, e);
	ib_buf_free(&b);
	return rc;
}

int rep_rows_load(ib_arena *a, const char *path, int overlay, rep_rowset *rs, ib_diags *d,
                  ib_error *e)
{
	struct stat st;
	if (stat(path, &st))
		return ib_fail(e, IB_ENOENT, path, 0, 0, "no such file or folder");
	if (!S_ISDIR(st.st_mode)) {
		ib_val *doc = NULL;
		int rc = parse(a, path, &doc, d, e);
		if (!rc && doc && is_raw(doc) && !(doc = (ib_val *)raw_row(a, path, doc, d)))
			return 0;
		if (!rc && doc)
			rs->files++;
		return rc || !doc ? rc : load_one(a, path, doc, overlay, rs, d);
	}
	char **paths = NULL;
	size_t n = 0;
	int rc = res_find_json(path, &paths, &n, e);
	if (rc)
		return rc;
	ib_val **docs = calloc(n ? n : 1, sizeof *docs);
	bool arrays = false, ag_arrays = false; /* lists of fixed-length / agentic rows */
	if (!docs)
		rc = IB_ENOMEM;
	for (size_t i = 0; !rc && i < n; i++) {
		rc = parse(a, paths[i], &docs[i], d, e);
		const ib_val *l = rc ? NULL : docs[i];
		if (!l || l->type != IB_V_LIST || !l->list.n)
			continue;
		bool first_ag = res_agentic_row(l->list.v[0]);
		if (!is_eval(paths[i], l->list.v[0]) && !first_ag)
			arrays = true;
		for (size_t k = 0; k < l->list.n; k++) {
			bool ag = res_agentic_row(l->list.v[k]);
			ag_arrays |= ag;
			arrays |= first_ag && !ag && !is_eval(paths[i], l->list.v[k]);
		}
	}
	/* a folder of raw results only (bench --result-dir): each becomes a row */
	bool agg = arrays || ag_arrays;
	for (size_t i = 0; !rc && i < n && !agg; i++)
		agg = docs[i] && docs[i]->type == IB_V_MAP && !is_raw(docs[i]) &&
		      (ib_map_has(docs[i], "hw") || ib_map_has(docs[i], "hardware"));
	for (size_t i = 0; !rc && i < n; i++) {
		ib_val *doc = docs[i];
		if (!agg && doc && is_raw(doc))
			doc = (ib_val *)raw_row(a, paths[i], doc, d);
		if (!doc)
			continue;
		/* a single row object beside an agg list is already in the list (an
		 * agentic row: beside a list holding agentic rows) */
		if (doc->type == IB_V_MAP && !is_eval(paths[i], doc) &&
		    (res_agentic_row(doc) ? ag_arrays : arrays))
			continue;
		/* raw result files and other JSON without agg fields are not rows */
		if (doc->type == IB_V_MAP && !ib_map_has(doc, "hw") && !ib_map_has(doc, "hardware"))
			continue;
		rs->files++;
		rc = load_one(a, paths[i], doc, overlay, rs, d);
	}
	free(docs);
	res_paths_free(paths, n);
	return rc;
}

/* url with its passwords replaced by *** (res_db_redact: postgres://u:p@h/db ->
 * postgres://u:***@h/db) */
static const char *db_label(ib_arena *a, const char *url)
{
	char *safe = res_db_redact(url, url);
	const char *s = safe ? ib_arena_strdup(a, safe) : NULL;
	free(safe);
	return s;
}

int rep_rows_load_db(ib_arena *a, const char *url, const res_db_filter *f, int overlay,
                     rep_rowset *rs, ib_diags *d, ib_error *e)
{
	const char *label = db_label(a, url);
	if (!label)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	res_db *db = NULL;
	int rc = res_db_open(url, false, &db, e);
	/* benchmark rows, eval rows, agentic rows (only these with --scenario) */
	for (int k = f->scenario ? 2 : 0; !rc && k < 3; k++) {
		res_db_filter q = *f;
		q.latest = false;
		q.evals = k == 1;
		q.agentic = k == 2;
		ib_val *rows = NULL;
		rc = res_db_query(db, &q, a, &rows, e);
		if (!rc && rows->list.n) {
			rs->files++;
			rc = load_one(a, label, rows, overlay, rs, d);
		}
	}
	res_db_close(db);
	return rc;
}

void rep_rowset_free(rep_rowset *rs)
{
	free(rs->ag);
	free(rs->rows);
	free(rs->evals);
	memset(rs, 0, sizeof *rs);
}

double rep_row_num(const rep_agg_row *r, const char *key)
{
	double x;
	const ib_val *v = get(r->raw, key), *m;
	if (!v && (m = get(r->raw, "metrics")) && m->type == IB_V_MAP)
		v = get(m, key); /* the results database's row shape */
	return as_num(v, &x) ? x : NAN;
}

const char *rep_seq_label(ib_arena *a, int isl, int osl)
{
	if (isl == 1024 && osl == 1024)
		return "1k/1k";
	if (isl == 1024 && osl == 8192)
		return "1k/8k";
	if (isl == 8192 && osl == 1024)
		return "8k/1k";
	if (isl % 1024 == 0 && osl % 1024 == 0)
		return ib_arena_printf(a, "%dk/%dk", isl / 1024, osl / 1024);
	return ib_arena_printf(a, "%d/%d", isl, osl);
}
