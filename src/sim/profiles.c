/* Built-in hardware and model profiles (public spec sheets and model
 * configs; docs/sim.md lists the sources and assumptions), and YAML
 * overrides. */
#include "sim/sim.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define GiB (1024.0 * 1024.0 * 1024.0)
#define T   1e12
#define P   1e15

#define MiB (1024.0 * 1024.0)
#define G   1e9

static const sim_hw hws[] = {
    /* name      memory      HBM BW    BF16       FP8        FP4        link     latency
     *           host link  scale-out  its latency  scale-up domain (docs/sim.md) */
    {"h100", 80 * GiB, 3.35 * T, 989 * 1e12, 1979 * 1e12, 1979 * 1e12, 450e9, 8e-6, 64 * G, 50 * G,
     5e-6, 8},
    {"h200", 143771 * MiB, 4.8 * T, 989 * 1e12, 1979 * 1e12, 1979 * 1e12, 450e9, 8e-6, 64 * G,
     50 * G, 5e-6, 8},
    {"b200", 183359 * MiB, 8.0 * T, 2.25 * P, 4.5 * P, 9.0 * P, 900e9, 6e-6, 64 * G, 50 * G, 5e-6,
     8},
    {"b300", 288e9, 8.0 * T, 2.25 * P, 4.5 * P, 13.5 * P, 900e9, 6e-6, 128 * G, 100 * G, 5e-6, 8},
    {"gb200", 186e9, 8.0 * T, 2.5 * P, 5.0 * P, 10.0 * P, 900e9, 6e-6, 225 * G, 50 * G, 5e-6, 72},
    {"gb300", 288e9, 8.0 * T, 2.5 * P, 5.0 * P, 15.0 * P, 900e9, 6e-6, 225 * G, 100 * G, 5e-6, 72},
    {"mi300x", 192 * GiB, 5.3 * T, 1.307 * P, 2.615 * P, 2.615 * P, 448e9, 10e-6, 64 * G, 50 * G,
     5e-6, 8},
    {"mi325x", 256 * GiB, 6.0 * T, 1.307 * P, 2.615 * P, 2.615 * P, 448e9, 10e-6, 64 * G, 50 * G,
     5e-6, 8},
    {"mi355x", 288 * GiB, 8.0 * T, 2.5 * P, 5.0 * P, 10.0 * P, 537.6e9, 10e-6, 64 * G, 50 * G, 5e-6,
     8},
    /* RTX PRO 6000 Blackwell Server Edition: 96 GB GDDR7, no NVLink (the
     * GPUs of a node talk over PCIe Gen5) */
    {"rtx6000pro", 96 * GiB, 1.792 * T, 0.5 * P, 1.0 * P, 2.0 * P, 64e9, 20e-6, 64 * G, 50 * G,
     5e-6, 8},
};

/* acceptance lengths (thinking_on, k = 1..8) from the golden files named in
 * docs/sim.md */
#define AL_QWEN35                                                                                  \
	{                                                                                          \
		0, 1.93, 2.73, 3.39, 3.97, 4.41, 4.80, 5.04, 5.21                                  \
	}
#define AL_MINIMAXM3                                                                               \
	{                                                                                          \
		0, 1.78, 2.38, 2.83, 3.11, 3.35, 3.45, 3.53, 3.74                                  \
	}
#define AL_KIMIK25                                                                                 \
	{                                                                                          \
		0, 1.83, 2.43, 2.88, 3.24, 3.46, 3.62, 3.71, 3.77                                  \
	}
#define AL_GLM52                                                                                   \
	{                                                                                          \
		0, 1.84, 2.50, 2.99, 3.33, 3.61, 3.78, 3.91, 4.06                                  \
	}
/* DeepSeek V4 Pro's MTP (dsv4_mtp.yaml) */
#define AL_DSV4                                                                                    \
	{                                                                                          \
		0, 1.79, 2.27, 2.49, 2.54, 2.55, 2.55, 2.54, 2.58                                  \
	}
#define AL_KIMIK3                                                                                  \
	{                                                                                          \
		0, 1.84, 2.45, 2.87, 3.22, 3.44, 3.54, 3.78, 3.88                                  \
	}

/* one model a line or two, the fields in the order of the first comment */
/* clang-format off */
static const sim_model models[] = {
    /* name, params, active, expert params, experts, top-k, layers, attn layers, hidden,
     * q heads, kv heads, head dim, MLA latent, window, AL, sparse top-k, index bytes,
     * expert bits, dense bits, index layers */
    {"llama3-8b", 8.03e9, 8.03e9, 0, 0, 0, 32, 32, 4096, 32, 8, 128, 0, 0, {0}, 0, 0, 0, 0, 0},
    {"llama3-70b", 70.6e9, 70.6e9, 0, 0, 0, 80, 80, 8192, 64, 8, 128, 0, 0, {0}, 0, 0, 0, 0, 0},
    {"deepseek-r1", 671e9, 37e9, 654e9, 256, 8, 61, 61, 7168, 128, 128, 128, 576, 0, {0},
     0, 0, 0, 0, 0},
    {"gpt-oss-120b", 116.8e9, 5.1e9, 114.7e9, 128, 4, 36, 18, 2880, 64, 8, 64, 0, 128, {0},
     0, 0, 0, 0, 0},
    {"qwen3.5-397b-a17b", 397e9, 17e9, 386.5e9, 512, 10, 60, 15, 4096, 32, 2, 256, 0, 0,
     AL_QWEN35, 0, 0, 0, 0, 0},
    /* MiniMax M2.5 / M2.7 (the architecture the old minimax-m3 profile held) */
    {"minimax-m2.5", 230e9, 10e9, 224.7e9, 256, 8, 62, 62, 3072, 48, 8, 128, 0, 0, {0},
     0, 0, 0, 0, 0},
    /* MiniMax M3: 428B / 23B, 128 experts top-4, 64/4 heads x 128 (docs/sim.md:
     * layers and hidden are assumptions, the rest published); MSA sparse
     * attention modelled as a top-k of 2048 tokens with a 128-byte index */
    {"minimax-m3", 428e9, 23e9, 418.1e9, 128, 4, 62, 62, 6144, 64, 4, 128, 0, 0, AL_MINIMAXM3,
     2048, 128, 0, 0, 0},
    /* Kimi K2.5: INT4 (quantization-aware) routed experts; the trunk (MLA
     * attention, the dense first layer, the shared expert, embeddings) in
     * BF16, which an INT4 recipe serves as stored */
    {"kimi-k2.5", 1.04e12, 32e9, 1.015e12, 384, 8, 61, 61, 7168, 64, 64, 128, 576, 0, AL_KIMIK25,
     0, 0, 0, 16, 0},
    /* GLM-5: 744B / 40B, 256 experts top-8, MLA + DSA (top-2048, FP8 index of 128);
     * its MTP head is GLM-5.2's (the same glm_moe_dsa shape), whose golden
     * acceptance lengths are the family's only measured ones */
    {"glm-5", 744e9, 40e9, 726.7e9, 256, 8, 78, 78, 6144, 64, 64, 192, 576, 0, AL_GLM52,
     2048, 132, 0, 0, 0},
    /* GLM-5.2: GLM-5's shape (glm_moe_dsa config: 78 layers, 6144, 64 heads,
     * MLA 512 + 64, 256 experts top-8) with IndexShare: 21 of the 78 layers
     * run the DSA indexer (FP8 keys of 128 + a 4-byte scale), the others
     * reuse their top-k; golden MTP acceptance lengths */
    {"glm-5.2", 744e9, 40e9, 726.7e9, 256, 8, 78, 78, 6144, 64, 64, 192, 576, 0, AL_GLM52,
     2048, 132, 0, 0, 21},
    /* DeepSeek V4 Pro: 1.6T / 49B, MLA-style compressed KV + DSA; the
     * checkpoint keeps the routed experts in MXFP4 (4 bits + an 8-bit
     * scale per 32) under FP8 attention, and FP8 recipes keep them so */
    {"deepseek-v4-pro", 1.6e12, 49e9, 1.584e12, 384, 8, 61, 61, 7168, 128, 128, 128, 576, 0, AL_DSV4,
     2048, 132, 4.25, 0, 0},
    /* Kimi K3: 2.78T / 104B; 93 layers of which 24 gated MLA (512 + 64
     * cached per token) and 69 KDA linear-attention layers (a fixed state
     * per sequence, no KV); a latent MoE of 896 experts top-16 whose
     * weights are MXFP4 (4.25 bits) beside a BF16 trunk; golden DSpark
     * acceptance lengths (drafted like MTP heads here) */
    {"kimi-k3", 2.78e12, 104e9, 2.7247e12, 896, 16, 93, 24, 7168, 96, 96, 128, 576, 0, AL_KIMIK3,
     0, 0, 4.25, 16, 0},
};
/* clang-format on */

static const struct {
	const char *alias, *name;
} aliases[] = {
    {"dsr1", "deepseek-r1"},
    {"deepseek-v3", "deepseek-r1"},
    {"gptoss", "gpt-oss-120b"},
    {"qwen3.5", "qwen3.5-397b-a17b"},
    {"minimaxm3", "minimax-m3"},
    {"kimik2.5", "kimi-k2.5"},
    {"llama-3-8b", "llama3-8b"},
    {"llama-3-70b", "llama3-70b"},
    {"llama3.3-70b", "llama3-70b"},
    {"llama-3.3-70b", "llama3-70b"},
    {"minimaxm2.5", "minimax-m2.5"},
    {"minimax-m2.7", "minimax-m2.5"},
    {"glm5", "glm-5"},
    {"glm-5.1", "glm-5"},
    {"dsv4", "deepseek-v4-pro"},
    {"deepseek-v4", "deepseek-v4-pro"},
    {"kimi-k2.6", "kimi-k2.5"},
    {"kimik2.6", "kimi-k2.5"},
    {"glm5.1", "glm-5"},
    {"glm5.2", "glm-5.2"},
    {"kimik3", "kimi-k3"},
};

const sim_hw *sim_hw_find(const char *name)
{
	for (size_t i = 0; i < sizeof hws / sizeof *hws; i++)
		if (!strcasecmp(hws[i].name, name))
			return &hws[i];
	return NULL;
}

const sim_model *sim_model_find(const char *name)
{
	for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
		if (!strcasecmp(aliases[i].alias, name))
			name = aliases[i].name;
	for (size_t i = 0; i < sizeof models / sizeof *models; i++)
		if (!strcasecmp(models[i].name, name))
			return &models[i];
	return NULL;
}

void sim_profile_names(ib_buf *out, bool want_models)
{
	size_t n = want_models ? sizeof models / sizeof *models : sizeof hws / sizeof *hws;
	for (size_t i = 0; i < n; i++)
		ib_buf_printf(out, "%s%s", i ? ", " : "",
		              want_models ? models[i].name : hws[i].name);
}

/* ---- YAML overrides ---- */

typedef struct {
	const char *key;
	size_t off;   /* offset of a double, or of an int when is_int */
	double scale; /* value in the file * scale = stored value */
	bool is_int;
	double max;    /* > 0: the largest value the file may give */
	bool positive; /* 0 is refused (a bandwidth or a domain size a time is divided by) */
} ovr;

#define HW(k, f, s)                                                                                \
	{                                                                                          \
		k, offsetof(sim_hw, f), s, false, 0, false                                         \
	}
#define MD(k, f, s)                                                                                \
	{                                                                                          \
		k, offsetof(sim_model, f), s, false, 0, false                                      \
	}
#define MI(k, f)                                                                                   \
	{                                                                                          \
		k, offsetof(sim_model, f), 1, true, 0, false                                       \
	}

static const ovr hw_fields[] = {
    HW("mem-gb", mem_bytes, 1e9),
    HW("hbm-tbps", hbm_bw, 1e12),
    HW("bf16-tflops", flops_bf16, 1e12),
    HW("fp8-tflops", flops_fp8, 1e12),
    HW("fp4-tflops", flops_fp4, 1e12),
    {"link-gbps", offsetof(sim_hw, link_bw), 1e9, false, 0, true},
    HW("link-latency-us", link_lat, 1e-6),
    /* the families' links (KV offload, multi-node, disaggregation): a
     * transfer divides by them, so they must be > 0; a domain of at most
     * 1,000,000 GPUs */
    {"host-link-gbps", offsetof(sim_hw, host_bw), 1e9, false, 0, true},
    {"net-gbps", offsetof(sim_hw, net_bw), 1e9, false, 0, true},
    HW("net-latency-us", net_lat, 1e-6),
    {"scale-up-gpus", offsetof(sim_hw, domain_gpus), 1, true, 1e6, true},
};

static const ovr model_fields[] = {
    MD("params-b", params, 1e9),
    MD("active-params-b", active_params, 1e9),
    MD("expert-params-b", expert_params, 1e9),
    MI("experts", experts),
    MI("experts-per-token", experts_per_token),
    MI("layers", layers),
    MI("attention-layers", attn_layers),
    MI("hidden", hidden),
    MI("q-heads", q_heads),
    MI("kv-heads", kv_heads),
    MI("head-dim", head_dim),
    MI("mla-kv-dim", mla_kv_dim),
    MI("window", window),
    MI("sparse-topk", sparse_topk),
    MI("index-bytes", index_dim),
    {"expert-weight-bits", offsetof(sim_model, expert_wbits), 1, false, 16, false},
    {"dense-weight-bits", offsetof(sim_model, dense_wbits), 1, false, 16, false},
    MI("index-layers", index_layers),
};

static int apply(const ib_val *m, const ovr *f, size_t nf, void *dst, const char **name,
                 ib_arena *a, const char *section, ib_error *e)
{
	if (m->type != IB_V_MAP)
		return ib_fail(e, IB_EINVAL, m->file, m->line, m->col, "'%s' must be a mapping",
		               section);
	for (size_t i = 0; i < m->map.n; i++) {
		const ib_val *k = m->map.kv[i].key, *v = m->map.kv[i].val;
		if (k->type == IB_V_STR && !strcmp(k->str.s, "name")) {
			if (v->type != IB_V_STR)
				return ib_fail(e, IB_EINVAL, v->file, v->line, v->col,
				               "field '%s.name': should be a string", section);
			*name = ib_arena_strdup(a, v->str.s);
			continue;
		}
		size_t j = 0;
		while (j < nf && !(k->type == IB_V_STR && !strcmp(k->str.s, f[j].key)))
			j++;
		if (j == nf)
			return ib_fail(e, IB_EINVAL, k->file, k->line, k->col,
			               "field '%s.%s': unknown field", section,
			               k->type == IB_V_STR ? k->str.s : "?");
		double x;
		if (v->type == IB_V_INT)
			x = (double)v->i;
		else if (v->type == IB_V_FLOAT)
			x = v->f;
		else
			return ib_fail(e, IB_EINVAL, v->file, v->line, v->col,
			               "field '%s.%s': should be a number", section, f[j].key);
		/* NaN, infinities and integers no int holds are refused before any
		 * conversion (converting them is undefined) */
		if (!(x >= 0) || !isfinite(x) || (f[j].is_int && (x > INT_MAX || x != floor(x))))
			return ib_fail(e, IB_EINVAL, v->file, v->line, v->col,
			               "field '%s.%s': should be a %s", section, f[j].key,
			               f[j].is_int ? "non-negative integer (at most 2147483647)"
			                           : "finite non-negative number");
		if (f[j].positive && x == 0)
			return ib_fail(e, IB_EINVAL, v->file, v->line, v->col,
			               "field '%s.%s': should be greater than 0", section,
			               f[j].key);
		if (f[j].max > 0 && x > f[j].max)
			return ib_fail(e, IB_EINVAL, v->file, v->line, v->col,
			               "field '%s.%s': should be at most %g", section, f[j].key,
			               f[j].max);
		if (f[j].is_int)
			*(int *)((char *)dst + f[j].off) = (int)x;
		else
			*(double *)((char *)dst + f[j].off) = x * f[j].scale;
	}
	return 0;
}

/* The index layers are some of the attention layers: checked once the
 * whole file is applied, at the last line that set either. */
static int index_layers_fit(const ib_val *idx, const ib_val *attn, const sim_model *m, ib_error *e)
{
	if (m->index_layers <= m->attn_layers)
		return 0;
	if (idx && (!attn || idx->line > attn->line))
		return ib_fail(
		    e, IB_EINVAL, idx->file, idx->line, idx->col,
		    "field 'model.index-layers': should be at most attention-layers (%d)",
		    m->attn_layers);
	return ib_fail(e, IB_EINVAL, attn->file, attn->line, attn->col,
	               "field 'model.attention-layers': should be at least index-layers (%d)",
	               m->index_layers);
}

int sim_profile_load(const char *path, sim_hw *hw, sim_model *model, ib_arena *a, ib_error *e)
{
	ib_val *doc;
	int rc = ib_yaml_load_file(a, path, &doc, e);
	if (rc)
		return rc;
	if (doc->type != IB_V_MAP)
		return ib_fail(e, IB_EINVAL, path, doc->line, doc->col,
		               "a profile file is a mapping with 'hardware' and/or 'model'");
	const ib_val *idx = NULL, *attn = NULL; /* the model fields last set */
	for (size_t i = 0; i < doc->map.n; i++) {
		const ib_val *k = doc->map.kv[i].key, *v = doc->map.kv[i].val;
		if (k->type == IB_V_STR && !strcmp(k->str.s, "hardware"))
			rc = apply(v, hw_fields, sizeof hw_fields / sizeof *hw_fields, hw,
			           &hw->name, a, "hardware", e);
		else if (k->type == IB_V_STR && !strcmp(k->str.s, "model")) {
			rc = apply(v, model_fields, sizeof model_fields / sizeof *model_fields,
			           model, &model->name, a, "model", e);
			if (ib_map_get(v, "index-layers"))
				idx = ib_map_get(v, "index-layers");
			if (ib_map_get(v, "attention-layers"))
				attn = ib_map_get(v, "attention-layers");
		} else
			rc = ib_fail(e, IB_EINVAL, k->file, k->line, k->col,
			             "unknown section (a profile file has 'hardware' and 'model')");
		if (rc)
			return rc;
	}
	/* the built-in profiles agree, so a file set one of the two */
	return idx || attn ? index_layers_fit(idx, attn, model, e) : 0;
}
