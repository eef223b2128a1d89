/* The labels a raw benchmark result does not carry (GPU, framework, GPU
 * count, ...) as the environment process_result.py reads: infbench sweep and
 * infbench report of raw results turn raw results into agg rows with it. */
#include "results/results.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a length of the workload: the nominal one bench recorded, else the mean */
static int64_t length_of(const ib_val *raw, const char *nominal, const char *total)
{
	const ib_val *w = ib_map_get(raw, "workload");
	const ib_val *v = w && w->type == IB_V_MAP ? ib_map_get(w, nominal) : NULL;
	if (v && v->type == IB_V_INT && v->i > 0)
		return v->i;
	const ib_val *t = ib_map_get(raw, total), *c = ib_map_get(raw, "completed");
	double tv = t && t->type == IB_V_INT ? (double)t->i : t && t->type == IB_V_FLOAT ? t->f : 0;
	double cv = c && c->type == IB_V_INT ? (double)c->i : 0;
	return cv > 0 && tv > 0 ? (int64_t)llround(tv / cv) : 1;
}

const char **res_labels_env(ib_arena *a, const ib_val *raw, const res_labels *l,
                            const char *result_name)
{
	const ib_val *m = ib_map_get(raw, "model_id");
	const char *model = m && m->type == IB_V_STR ? m->str.s : "model";
	const char *slash = strrchr(model, '/');
	char *prefix = ib_arena_strdup(a, l->model_prefix ? l->model_prefix
	                                  : slash         ? slash + 1
	                                                  : model);
	if (!prefix)
		return NULL;
	if (!l->model_prefix)
		for (char *p = prefix; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
	int64_t isl =
	    l->isl > 0 ? l->isl : length_of(raw, "random_input_len", "total_input_tokens");
	int64_t osl =
	    l->osl > 0 ? l->osl : length_of(raw, "random_output_len", "total_output_tokens");
	const char **env = ib_arena_alloc(a, 16 * sizeof *env);
	if (!env)
		return NULL;
	size_t n = 0;
	env[n++] = ib_arena_printf(a, "RUNNER_TYPE=%s", l->hw ? l->hw : "h100");
	env[n++] = ib_arena_printf(a, "FRAMEWORK=%s", l->framework ? l->framework : "unknown");
	env[n++] = ib_arena_printf(a, "PRECISION=%s", l->precision ? l->precision : "unknown");
	env[n++] = ib_arena_printf(a, "SPEC_DECODING=none");
	env[n++] = ib_arena_printf(a, "RESULT_FILENAME=%s", result_name);
	env[n++] = ib_arena_printf(a, "ISL=%lld", (long long)isl);
	env[n++] = ib_arena_printf(a, "OSL=%lld", (long long)osl);
	env[n++] = ib_arena_printf(a, "DISAGG=false");
	env[n++] = ib_arena_printf(a, "MODEL_PREFIX=%s", prefix);
	env[n++] = ib_arena_printf(a, "IMAGE=%s", l->image ? l->image : "");
	env[n++] = ib_arena_printf(a, "TP=%lld", (long long)(l->gpus > 0 ? l->gpus : 1));
	env[n++] = ib_arena_printf(a, "EP_SIZE=1");
	env[n++] = ib_arena_printf(a, "DP_ATTENTION=false");
	env[n] = NULL;
	for (size_t i = 0; i < n; i++)
		if (!env[i])
			return NULL;
	return env;
}
