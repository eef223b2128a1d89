/* Frontier sweeps (docs/sim.md "Frontier and peak rows"): the generic
 * search space of a published frontier or peak row's series, each config
 * run in process on the engine model. */
#include "simlab/private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

double slab_gpu_price(const char *gpu)
{
	static const struct {
		const char *gpu;
		double usd_per_hr;
	} prices[] = {{"h100", 1.30},   {"h200", 1.41},   {"b200", 1.95},
	              {"b300", 2.34},   {"gb200", 2.21},  {"gb300", 2.652},
	              {"mi300x", 1.12}, {"mi325x", 1.28}, {"mi355x", 1.48}};
	for (size_t i = 0; gpu && i < sizeof prices / sizeof *prices; i++)
		if (!strcasecmp(gpu, prices[i].gpu))
			return prices[i].usd_per_hr;
	return NAN;
}

int slab_sweep_node_gpus(const char *gpu)
{
	return gpu && !strncasecmp(gpu, "gb", 2) ? 4 : 8;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

bool slab_point_same_series(const slab_point *a, const slab_point *b)
{
	return same_str(a->model, b->model) && same_str(a->gpu, b->gpu) &&
	       same_str(a->precision, b->precision) && a->isl == b->isl && a->osl == b->osl &&
	       same_str(a->framework, b->framework) && same_str(a->version, b->version) &&
	       same_str(a->spec, b->spec) && a->no_spec == b->no_spec && a->disagg == b->disagg;
}

/* The draft method a model's recipes use (its profile's MTP heads or an
 * EAGLE3 head with golden acceptance lengths; Kimi K3's DSpark drafter is
 * run as MTP), NULL when none is modelled. */
static const char *spec_method_of(const char *model)
{
	static const char *const mtp[] = {"deepseek-r1",       "deepseek-v4-pro", "glm-5",
	                                  "qwen3.5-397b-a17b", "glm-5.2",         "kimi-k3"};
	static const char *const eagle[] = {"minimax-m3", "kimi-k2.5"};
	for (size_t i = 0; i < sizeof mtp / sizeof *mtp; i++)
		if (!strcmp(model, mtp[i]))
			return "mtp";
	for (size_t i = 0; i < sizeof eagle / sizeof *eagle; i++)
		if (!strcmp(model, eagle[i]))
			return "eagle3";
	return NULL;
}

/* The frameworks a series sweeps: the row's, else those the calibration
 * has a rule for on this GPU (in file order), else vllm. */
static size_t frameworks_of(const slab_point *p, const sim_calib_file *cal, const char **fw,
                            size_t cap)
{
	size_t n = 0;
	const char *hw = sim_calib_hw_for(cal, p->gpu, p->precision);
	if (p->framework) {
		fw[0] = p->framework;
		return 1;
	}
	for (size_t i = 0; cal && i < cal->n; i++) {
		const sim_calib_rule *r = &cal->rules[i];
		if (!r->match[0] || !sim_calib_names(r->match[1], hw) ||
		    !sim_calib_rule_can_apply(r, p->model, p->precision))
			continue;
		for (size_t j = 0; r->match[0][j]; j++) {
			size_t k = 0;
			while (k < n && strcasecmp(fw[k], r->match[0][j]))
				k++;
			if (k == n && n < cap)
				fw[n++] = r->match[0][j];
		}
	}
	if (!n)
		fw[n++] = "vllm";
	return n;
}

static bool supports_dp_attn(const char *fw)
{
	return !strcmp(fw, "sglang") || !strcmp(fw, "vllm") || !strcmp(fw, "trt");
}

static int push_config(slab_sweep_config **v, size_t *n, size_t *cap, const slab_sweep_config *c)
{
	for (size_t i = 0; i < *n; i++) {
		const slab_sweep_config *x = &(*v)[i];
		if (!strcmp(x->framework, c->framework) && same_str(x->spec, c->spec) &&
		    x->tp == c->tp && x->ep == c->ep && x->conc == c->conc &&
		    x->dp_attn == c->dp_attn && !memcmp(&x->pools, &c->pools, sizeof c->pools))
			return 0;
	}
	if (ib_grow(v, cap, *n + 1))
		return IB_ENOMEM;
	(*v)[(*n)++] = *c;
	return 0;
}

static bool matrix_has_spec(const ib_val *rows, const char *model);

/* The generic search space of p's series (sim.h). */
static int generic_space(const slab_point *p, const sim_calib_file *cal, const slab_sweep_opts *o,
                         slab_sweep_config **v, size_t *n)
{
	const sim_model *m = sim_model_find(p->model);
	const char *fws[8];
	size_t nfw = frameworks_of(p, cal, fws, 8), cap = 0;
	int node = slab_sweep_node_gpus(p->gpu);
	const char *method = p->spec ? p->spec : spec_method_of(p->model);
	const char *specs[2];
	size_t nspec = 0;
	if (!p->spec)
		specs[nspec++] = NULL;
	/* optional speculative decoding only where InferenceX has a recipe
	 * for it: with master configs, a row of this model with spec decoding
	 * (the dashboard's "may include ... MTP where recipes exist") */
	bool recipe = !o->matrix || matrix_has_spec(o->matrix, p->model);
	if (method && !p->no_spec && (p->spec || (!o->no_spec && recipe)))
		specs[nspec++] = method;
	for (size_t f = 0; f < nfw; f++)
		for (int tp = 1; tp <= node; tp *= 2)
			for (int v3 = 0; v3 < 3; v3++) {
				/* 0 EP 1; 1 EP = TP; 2 EP = TP with DP-attention */
				if (v3 && (m->experts == 0 || tp == 1))
					continue;
				if (v3 == 2 && !supports_dp_attn(fws[f]))
					continue;
				for (size_t s = 0; s < nspec; s++)
					for (int conc = 4; conc <= o->max_conc; conc *= 2) {
						slab_sweep_config c = {.framework = fws[f],
						                       .spec = specs[s],
						                       .tp = tp,
						                       .ep = v3 ? tp : 1,
						                       .conc = conc,
						                       .dp_attn = v3 == 2};
						if (push_config(v, n, &cap, &c))
							return IB_ENOMEM;
					}
			}
	return 0;
}

static const char *row_str(const ib_val *row, const char *key)
{
	const ib_val *v = ib_map_get(row, key);
	return v && v->type == IB_V_STR ? v->str.s : NULL;
}

static int row_int(const ib_val *row, const char *key, int dflt)
{
	const ib_val *v = ib_map_get(row, key);
	return v && v->type == IB_V_INT ? (int)v->i : dflt;
}

static bool row_bool(const ib_val *row, const char *key)
{
	const ib_val *v = ib_map_get(row, key);
	return v && v->type == IB_V_BOOL && v->b;
}

/* The GPU profile of a runner label ("cluster:b300-nv" -> b300), or NULL. */
static const char *runner_gpu(const char *runner)
{
	if (!runner)
		return NULL;
	if (!strncmp(runner, "cluster:", 8))
		runner += 8;
	char buf[32];
	size_t k = strcspn(runner, "-");
	if (k == 0 || k >= sizeof buf)
		return NULL;
	memcpy(buf, runner, k);
	buf[k] = 0;
	const sim_hw *hw = sim_hw_find(buf);
	return hw ? hw->name : NULL;
}

/* True when a matrix row of model (model-prefix through the profile
 * aliases, any GPU, precision or workload) runs speculative decoding. */
static bool matrix_has_spec(const ib_val *rows, const char *model)
{
	for (size_t i = 0; rows && rows->type == IB_V_LIST && i < rows->list.n; i++) {
		const ib_val *r = rows->list.v[i];
		const char *prefix = row_str(r, "model-prefix"),
		           *spec = row_str(r, "spec-decoding");
		const sim_model *m = prefix ? sim_model_find(prefix) : NULL;
		if (m && !strcmp(m->name, model) && spec && strcmp(spec, "none"))
			return true;
	}
	return false;
}

/* The pools of a multi-node matrix row (its `prefill` and `decode` maps)
 * into c: the decode worker's TP/EP/DP attention and worker count, the
 * prefill pool's; with no decode workers (aggregated over several nodes)
 * the prefill workers are the replicas. False when r is not multi-node. */
static bool row_pools(const ib_val *r, slab_sweep_config *c)
{
	const ib_val *pre = ib_map_get(r, "prefill"), *dec = ib_map_get(r, "decode");
	if (!pre || !dec || pre->type != IB_V_MAP || dec->type != IB_V_MAP)
		return false;
	bool agg = row_int(dec, "num-worker", 1) == 0;
	const ib_val *inst = agg ? pre : dec;
	c->tp = row_int(inst, "tp", 0);
	c->ep = row_int(inst, "ep", 1);
	c->dp_attn = row_bool(inst, "dp-attn");
	c->pools.replicas = row_int(inst, "num-worker", 1);
	if (!agg) {
		c->pools.prefill_workers = row_int(pre, "num-worker", 1);
		c->pools.prefill_tp = row_int(pre, "tp", 1);
		c->pools.prefill_ep = row_int(pre, "ep", 1);
		c->pools.prefill_dp_attn = row_bool(pre, "dp-attn");
	}
	return true;
}

/* A pool's pipeline stages (multi-node rows keep pp in each pool). */
static int pools_pp(const ib_val *r)
{
	int pp = row_int(r, "pp", 1);
	const char *const pool[] = {"prefill", "decode"};
	for (int i = 0; i < 2; i++) {
		const ib_val *m = ib_map_get(r, pool[i]);
		if (m && m->type == IB_V_MAP && row_int(m, "pp", 1) > pp)
			pp = row_int(m, "pp", 1);
	}
	return pp;
}

/* Adds c at each concurrency of the row (an int, or a multi-node row's
 * list) up to max_conc. 0 or IB_ENOMEM. */
static int push_concs(const ib_val *r, slab_sweep_config c, int max_conc, slab_sweep_config **out,
                      size_t *n, size_t *cap)
{
	const ib_val *v = ib_map_get(r, "conc");
	size_t k = v && v->type == IB_V_LIST ? v->list.n : 1;
	for (size_t i = 0; i < k; i++) {
		const ib_val *x = v && v->type == IB_V_LIST ? v->list.v[i] : v;
		c.conc = x && x->type == IB_V_INT && x->i > 0 && x->i <= max_conc ? (int)x->i : 0;
		if (c.tp >= 1 && c.conc >= 1 && push_config(out, n, cap, &c))
			return IB_ENOMEM;
	}
	return 0;
}

/* slab_sweep_from_matrix, or with other_wl the single-node configs of
 * p's model x precision x GPU [x framework] at any workload, each at the
 * generic concurrencies 4..o->max_conc (slab_sweep_other_workload). */
static int matrix_configs(const ib_val *rows, const slab_point *p, const slab_sweep_opts *o,
                          bool other_wl, slab_sweep_config **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	size_t cap = 0;
	if (!rows || rows->type != IB_V_LIST || !p->model || !p->gpu || !p->precision)
		return 0;
	for (size_t i = 0; i < rows->list.n; i++) {
		const ib_val *r = rows->list.v[i];
		const char *prefix = row_str(r, "model-prefix"), *prec = row_str(r, "precision");
		const char *fw = sim_framework_key(row_str(r, "framework"));
		const char *gpu = runner_gpu(row_str(r, "runner"));
		const char *spec = row_str(r, "spec-decoding");
		const sim_model *m = prefix ? sim_model_find(prefix) : NULL;
		if (!m || strcmp(m->name, p->model) || !prec || strcasecmp(prec, p->precision) ||
		    !gpu || strcmp(gpu, p->gpu) || !fw ||
		    (!other_wl &&
		     (row_int(r, "isl", 0) != p->isl || row_int(r, "osl", 0) != p->osl)) ||
		    pools_pp(r) > 1 || (p->framework && strcmp(fw, p->framework)))
			continue;
		bool sd = spec && strcmp(spec, "none");
		if ((sd && p->no_spec) || (!sd && p->spec))
			continue;
		const char *method = spec_method_of(p->model);
		slab_sweep_config c = {.framework = fw,
		                       .spec = sd ? (p->spec  ? p->spec
		                                     : method ? method
		                                              : "mtp")
		                                  : NULL,
		                       .tp = row_int(r, "tp", 0),
		                       .ep = row_int(r, "ep", 1),
		                       .dp_attn = row_bool(r, "dp-attn")};
		bool multi = row_pools(r, &c);
		if (p->kind == SLAB_POINT_PEAK && multi != p->disagg)
			continue;
		if (!multi && row_bool(r, "disagg"))
			continue;
		if (other_wl && multi)
			continue;
		int rc = 0;
		if (other_wl) /* the row's concurrencies are another workload's */
			for (c.conc = 4; !rc && c.tp >= 1 && c.conc <= o->max_conc; c.conc *= 2)
				rc = push_config(out, n, &cap, &c);
		else
			rc = push_concs(r, c, multi ? o->max_conc_multinode : o->max_conc, out, n,
			                &cap);
		if (rc) {
			free(*out);
			*out = NULL;
			*n = 0;
			return IB_ENOMEM;
		}
	}
	return 0;
}

int slab_sweep_from_matrix(const ib_val *rows, const slab_point *p, const slab_sweep_opts *o,
                           slab_sweep_config **out, size_t *n)
{
	return matrix_configs(rows, p, o, false, out, n);
}

int slab_sweep_other_workload(const ib_val *rows, const slab_point *p, const slab_sweep_opts *o,
                              slab_sweep_config **out, size_t *n)
{
	return matrix_configs(rows, p, o, true, out, n);
}

slab_sweep_config slab_sweep_config_of(const slab_sweep_point *q)
{
	return (slab_sweep_config){.framework = q->framework,
	                           .spec = q->spec,
	                           .tp = q->tp,
	                           .ep = q->ep,
	                           .conc = q->conc,
	                           .dp_attn = q->dp_attn,
	                           .pools = q->pools};
}

/* The pools of k into c (sim_config: replicas, the prefill pool). */
static void apply_pools(const slab_pools *k, sim_config *c)
{
	c->replicas = k->replicas > 1 ? k->replicas : 1;
	c->prefill_workers = k->prefill_workers;
	c->prefill_tp = k->prefill_tp;
	c->prefill_ep = k->prefill_ep;
	c->prefill_dp_attn = k->prefill_dp_attn;
}

/* A config's load seed: a hash of the config itself, so that its figures
 * do not depend on where it stands in a sweep (or whether the sweep is a
 * subset, slab_sweep_opts.only). */
static uint64_t config_seed(const slab_sweep_config *k)
{
	/* FNV-1a from a start that is not the usual basis (kept: seeds and so
	 * the committed calibration depend on it) */
	uint64_t h = 1469598103934665603u;
	const char *parts[2] = {k->framework, k->spec ? k->spec : "-"};
	for (int j = 0; j < 2; j++)
		h = ib_fnv1a(h, parts[j], strlen(parts[j]));
	int nums[4] = {k->tp, k->ep, k->conc, k->dp_attn};
	for (int j = 0; j < 4; j++)
		h = ib_fnv1a_word(h, (unsigned)nums[j]);
	/* multi-node pools (single-node configs keep their seeds) */
	int pools[5] = {k->pools.replicas, k->pools.prefill_workers, k->pools.prefill_tp,
	                k->pools.prefill_ep, k->pools.prefill_dp_attn};
	for (int j = 0; k->pools.replicas > 0 && j < 5; j++)
		h = ib_fnv1a_word(h, (unsigned)pools[j]);
	return h % 1000003u + 1;
}

/* v without the configs that run optional speculative decoding when o
 * leaves it out (o->no_spec, p does not require it); the new count. */
static size_t drop_optional_spec(const slab_point *p, const slab_sweep_opts *o,
                                 slab_sweep_config *v, size_t nv)
{
	if (!o->no_spec || p->spec)
		return nv;
	size_t k = 0;
	for (size_t i = 0; i < nv; i++)
		if (!v[i].spec)
			v[k++] = v[i];
	return k;
}

int slab_sweep_run(const slab_point *p, const sim_calib_file *cal, const slab_sweep_opts *o,
                   slab_sweep_point **out, size_t *n, size_t *nconf, ib_error *e)
{
	*out = NULL;
	*n = *nconf = 0;
	if (p->why)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "%s", p->why);
	if (p->kind != SLAB_POINT_FRONTIER && p->kind != SLAB_POINT_PEAK)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "row %d is not a frontier or peak row",
		               p->row_id);
	slab_sweep_config *v = NULL;
	size_t nv = 0, cap = 0;
	int rc = 0;
	slab_sweep_source source = SLAB_SWEEP_GIVEN;
	if (o->only) {
		if (o->nonly && !(v = malloc(o->nonly * sizeof *v)))
			return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		if (o->nonly)
			memcpy(v, o->only, o->nonly * sizeof *v);
		nv = o->nonly;
	} else {
		source = SLAB_SWEEP_MATRIX;
		rc = slab_sweep_from_matrix(o->matrix, p, o, &v, &nv);
		nv = drop_optional_spec(p, o, v, nv);
		/* no config at the row's workload: the recipes' configs at
		 * another workload, else the generic space (disaggregated: the
		 * matrix's pools only) */
		if (!rc && !nv && !p->disagg) {
			free(v);
			source = SLAB_SWEEP_OTHER_WORKLOAD;
			rc = slab_sweep_other_workload(o->matrix, p, o, &v, &nv);
			nv = drop_optional_spec(p, o, v, nv);
		}
		if (!rc && !nv && !p->disagg) {
			source = SLAB_SWEEP_GENERIC;
			rc = generic_space(p, cal, o, &v, &nv);
		}
	}
	if (rc) {
		rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		goto fail;
	}
	*nconf = nv;
	for (size_t i = 0; i < nv; i++) {
		const slab_sweep_config *k = &v[i];
		sim_config c;
		slab_point_config_with(p, cal, k->framework, k->spec, k->tp, k->ep, k->dp_attn,
		                       k->conc, &c);
		apply_pools(&k->pools, &c);
		slab_point_result r;
		ib_error skip = {0};
		rc = slab_config_run(&c, k->conc, o->prompts_per_conc, p->isl, p->osl,
		                     config_seed(k), &r, &skip);
		if (rc == IB_EINVAL) { /* does not fit: not a config */
			rc = 0;
			continue;
		}
		if (rc) {
			*e = skip;
			goto fail;
		}
		if (ib_grow(out, &cap, *n + 1)) {
			rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
			goto fail;
		}
		(*out)[(*n)++] = (slab_sweep_point){.framework = k->framework,
		                                    .spec = k->spec,
		                                    .tp = k->tp,
		                                    .ep = k->ep,
		                                    .conc = k->conc,
		                                    .dp_attn = k->dp_attn,
		                                    .tps_gpu = r.tps_gpu,
		                                    .interactivity = r.interactivity,
		                                    .median_ttft = r.median_ttft,
		                                    .median_tpot = r.median_tpot,
		                                    .source = source,
		                                    .pools = k->pools};
	}
	free(v);
	return 0;
fail:
	free(v);
	free(*out);
	*out = NULL;
	*n = 0;
	return rc;
}

ptrdiff_t slab_sweep_peak(const slab_sweep_point *pts, size_t n, int conc, const char *fw)
{
	int best_conc = -1;
	for (size_t i = 0; i < n; i++) {
		if (fw && strcasecmp(pts[i].framework, fw))
			continue;
		int d = abs(pts[i].conc - conc), bd = abs(best_conc - conc);
		if (best_conc < 0 || d < bd || (d == bd && pts[i].conc < best_conc))
			best_conc = pts[i].conc;
	}
	ptrdiff_t best = -1;
	for (size_t i = 0; i < n; i++)
		if (pts[i].conc == best_conc && (!fw || !strcasecmp(pts[i].framework, fw)) &&
		    (best < 0 || pts[i].tps_gpu > pts[best].tps_gpu))
			best = (ptrdiff_t)i;
	return best;
}
