/* The performance model: capacity, step time (roofline + all-reduce),
 * speculative-decoding acceptance, and the PRNG. */
#include "sim/sim.h"

#include <math.h>
#include <string.h>

void sim_config_init(sim_config *c)
{
	memset(c, 0, sizeof *c);
	c->host = "127.0.0.1";
	c->port = 8000;
	c->hw = *sim_hw_find("h100");
	c->model = *sim_model_find("llama3-8b");
	c->precision = "bf16";
	c->kv_bytes = 2;
	c->tp = 1;
	c->max_num_seqs = 256;
	c->max_num_batched_tokens = 8192;
	c->block_size = 16;
	c->gpu_mem_util = 0.9;
	c->mem_eff = 0.8;
	c->compute_eff = 0.6;
	c->step_overhead_s = 300e-6;
	c->comm_eff = 1.0;
	c->ep_imbalance = 1.0;
	c->max_model_len = 0; /* no limit beyond KV capacity */
	c->draft_cost = 0.05;
	c->mean_output_len = 512;
	c->time_scale = 1;
	c->stall_ms = 500;
	c->seed = 1;
}

static double weight_bytes_per_param(const sim_config *c)
{
	if (!strcmp(c->precision, "fp4"))
		return 0.5625; /* 4-bit values plus block scales */
	if (!strcmp(c->precision, "fp8"))
		return 1.0;
	return 2.0;
}

static double peak_flops(const sim_config *c)
{
	if (!strcmp(c->precision, "fp4"))
		return c->hw.flops_fp4;
	if (!strcmp(c->precision, "fp8"))
		return c->hw.flops_fp8;
	return c->hw.flops_bf16;
}

/* KV elements per token over the layers that keep the whole context. */
static double kv_elems_full(const sim_model *m)
{
	if (m->mla_kv_dim > 0)
		return (double)m->attn_layers * m->mla_kv_dim;
	return (double)m->attn_layers * 2.0 * m->kv_heads * m->head_dim;
}

/* KV sharding over TP: GQA heads split (at most kv_heads ways); MLA's latent
 * cache is replicated. */
static double kv_shards(const sim_config *c)
{
	if (c->model.mla_kv_dim > 0)
		return 1;
	return c->tp < c->model.kv_heads ? c->tp : c->model.kv_heads;
}

int sim_capacity_of(const sim_config *c, sim_capacity *out, ib_error *e)
{
	const sim_model *m = &c->model;
	double w = m->params * weight_bytes_per_param(c) / c->tp;
	double avail = c->hw.mem_bytes * c->gpu_mem_util - w - 2e9; /* activations, graphs */
	double per_tok = kv_elems_full(m) * c->kv_bytes / kv_shards(c);
	if (avail <= 0 || per_tok <= 0)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
			       "%s in %s needs %.1f GB of weights per GPU at TP %d; %s has %.1f GB "
			       "(use more TP, a smaller precision or another GPU)",
			       m->name, c->precision, w / 1e9, c->tp, c->hw.name, c->hw.mem_bytes / 1e9);
	/* sliding-window layers keep a fixed number of tokens per sequence:
	 * counted in the per-token cost of the first `window` tokens only, so
	 * they are left out of the capacity here (a small overestimate) */
	out->weight_bytes_per_gpu = w;
	out->kv_bytes_per_token = per_tok;
	out->kv_blocks = (int64_t)(avail / (per_tok * c->block_size));
	return 0;
}

double sim_step_time(const sim_config *c, const sim_step *s)
{
	const sim_model *m = &c->model;
	int k = c->spec_method && strcmp(c->spec_method, "none") && c->num_spec_tokens > 0
			? c->num_spec_tokens
			: 0;
	double dec_tokens = (double)s->decode_seqs * (k + 1);
	double tokens = dec_tokens + s->prefill_tokens;
	if (tokens <= 0)
		return 0;
	double bpp = weight_bytes_per_param(c);
	/* weights read: the dense part always, the routed experts the batch
	 * touches (each token picks experts_per_token of experts) */
	double dense = m->params - m->expert_params;
	double touched = 0;
	if (m->experts > 0) {
		double p_miss = pow(1.0 - (double)m->experts_per_token / m->experts, tokens);
		touched = m->expert_params * (1.0 - p_miss);
	}
	double bytes = (dense + touched) * bpp / c->tp;
	/* KV read by attention: every decode token reads its sequence's context
	 * (full layers) and at most `window` tokens (sliding layers) */
	double kv_full = kv_elems_full(m) * c->kv_bytes / kv_shards(c);
	double kv_win = 0;
	if (m->window > 0 && m->layers > m->attn_layers)
		kv_win = (double)(m->layers - m->attn_layers) * 2.0 * m->kv_heads * m->head_dim *
			 c->kv_bytes / kv_shards(c);
	bytes += s->decode_ctx_sum * kv_full * (k + 1) + dec_tokens * m->window * kv_win;
	/* a prefill chunk reads its context's KV about once (flash attention) */
	if (s->prefill_tokens > 0)
		bytes += s->prefill_ctx_sum / s->prefill_tokens * kv_full;
	double mem_t = bytes / (c->hw.hbm_bw * c->mem_eff);
	/* FLOPs: 2 per active parameter per token, plus attention scores and
	 * values over the context */
	double attn_w = (double)m->q_heads * m->head_dim;
	double flops = 2.0 * m->active_params * tokens +
		       4.0 * attn_w * m->attn_layers * (s->decode_ctx_sum * (k + 1) + s->prefill_ctx_sum);
	double comp_t = flops / (c->tp * peak_flops(c) * c->compute_eff);
	/* tensor parallel: two ring all-reduces of the activations per layer */
	double comm_t = 0;
	if (c->tp > 1) {
		double size = tokens * m->hidden * 2.0;
		double per = 2.0 * (c->tp - 1) / c->tp * size / (c->hw.link_bw * c->comm_eff) + c->hw.link_lat;
		comm_t = 2.0 * m->layers * per;
	}
	/* fixed cost per step, and per sequence in it (scheduling, sampling,
	 * detokenising: the CPU side that makes throughput saturate) */
	double seqs = s->decode_seqs + (s->prefill_tokens > 0 ? 1 : 0);
	double t = (mem_t > comp_t ? mem_t : comp_t) + comm_t + c->step_overhead_s + seqs * c->seq_overhead_s;
	/* the draft model proposes k tokens before verification */
	if (k > 0 && s->decode_seqs > 0)
		t += k * c->draft_cost * t;
	return t;
}

int sim_tokens_per_step(const sim_config *c, double u)
{
	int k = c->spec_method && strcmp(c->spec_method, "none") ? c->num_spec_tokens : 0;
	if (k <= 0)
		return 1;
	double extra = c->acceptance_length - 1.0;
	if (extra < 0)
		extra = 0;
	int acc = (int)floor(extra);
	if (u < extra - acc)
		acc++;
	if (acc > k)
		acc = k;
	return 1 + acc;
}

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void sim_rng_seed(sim_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t sim_rng_next(sim_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double sim_rng_uniform(sim_rng *r)
{
	return (double)(sim_rng_next(r) >> 11) * 0x1.0p-53;
}
