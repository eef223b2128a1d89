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
	c->ep = 1;
	c->pp = 1;
	c->max_num_seqs = 256;
	c->max_num_batched_tokens = 8192;
	c->block_size = 16;
	c->gpu_mem_util = 0.9;
	c->mem_eff = 0.8;
	c->compute_eff = 0.6;
	c->step_overhead_s = 300e-6;
	c->comm_eff = 1.0;
	c->ep_imbalance = 1.0;
	c->replicas = 1;
	c->max_model_len = 0; /* no limit beyond KV capacity */
	c->header_timeout = 60;
	c->draft_cost = 0.05;
	c->mean_output_len = 512;
	c->time_scale = 1;
	c->stall_ms = 500;
	c->seed = 1;
}

static double weight_bytes_per_param(const sim_config *c)
{
	if (!strcmp(c->precision, "fp4") || !strcmp(c->precision, "int4"))
		return 0.5625; /* 4-bit values plus block scales */
	if (!strcmp(c->precision, "fp8"))
		return 1.0;
	return 2.0;
}

/* Bytes per routed-expert parameter: the precision's, or fewer when the
 * checkpoint stores the experts narrower (sim_model.expert_wbits). */
static double expert_bytes_per_param(const sim_config *c)
{
	double b = weight_bytes_per_param(c), x = c->model.expert_wbits / 8.0;
	return x > 0 && x < b ? x : b;
}

/* Bytes per dense (non-expert) parameter: the precision's, or more when the
 * checkpoint keeps the dense part wider (sim_model.dense_wbits: a recipe
 * serves the checkpoint's trunk as stored). */
static double dense_bytes_per_param(const sim_config *c)
{
	double b = weight_bytes_per_param(c), x = c->model.dense_wbits / 8.0;
	return x > b ? x : b;
}

/* Layers that keep and read their own sparse-attention index (IndexShare:
 * the others reuse it): sim_model.index_layers, at most the attention layers. */
static double index_layers_of(const sim_model *m)
{
	return m->index_layers > 0 && m->index_layers < m->attn_layers ? m->index_layers
	                                                               : m->attn_layers;
}

static double peak_flops(const sim_config *c)
{
	if (!strcmp(c->precision, "fp4"))
		return c->hw.flops_fp4;
	if (!strcmp(c->precision, "fp8"))
		return c->hw.flops_fp8;
	return c->hw.flops_bf16; /* bf16, and int4 (4-bit weights, 16-bit activations) */
}

static int tp_of(const sim_config *c)
{
	return c->tp > 0 ? c->tp : 1;
}

static int pp_of(const sim_config *c)
{
	return c->pp > 1 ? c->pp : 1;
}

/* Ranks the routed experts are split over: EP ranks, or TP shards. */
static int expert_ways(const sim_config *c)
{
	return c->ep > 1 && c->ep > tp_of(c) ? c->ep : tp_of(c);
}

/* KV elements per token over the layers that keep the whole context. */
static double kv_elems_full(const sim_model *m)
{
	if (m->mla_kv_dim > 0)
		return (double)m->attn_layers * m->mla_kv_dim;
	return (double)m->attn_layers * 2.0 * m->kv_heads * m->head_dim;
}

/* How many ways one token's KV is divided per GPU: GQA heads split over TP
 * (at most kv_heads ways), MLA's latent replicated; with DP attention each
 * rank keeps only its own sequences, whole (so TP ways on average). */
static double kv_shards(const sim_config *c)
{
	if (c->dp_attn)
		return tp_of(c);
	if (c->model.mla_kv_dim > 0)
		return 1;
	return tp_of(c) < c->model.kv_heads ? tp_of(c) : c->model.kv_heads;
}

/* Dense (non-expert) weights per GPU: TP-sharded, or whole on every rank
 * with DP attention; split over pipeline stages. */
static double dense_bytes(const sim_config *c)
{
	const sim_model *m = &c->model;
	double d = (m->params - m->expert_params) * dense_bytes_per_param(c) / pp_of(c);
	return c->dp_attn ? d : d / tp_of(c);
}

int sim_capacity_of(const sim_config *c, sim_capacity *out, ib_error *e)
{
	const sim_model *m = &c->model;
	double ex = m->expert_params * expert_bytes_per_param(c) / pp_of(c) / expert_ways(c);
	double w = dense_bytes(c) + ex;
	double avail = c->hw.mem_bytes * c->gpu_mem_util - w - 2e9; /* activations, graphs */
	double per_tok = kv_elems_full(m) * c->kv_bytes / kv_shards(c) / pp_of(c);
	if (avail <= 0 || per_tok <= 0)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
		               "%s in %s needs %.1f GB of weights per GPU at TP %d; %s has %.1f GB "
		               "(use more TP, a smaller precision or another GPU)",
		               m->name, c->precision, w / 1e9, c->tp, c->hw.name,
		               c->hw.mem_bytes / 1e9);
	/* sliding-window layers keep a fixed number of tokens per sequence:
	 * counted in the per-token cost of the first `window` tokens only, so
	 * they are left out of the capacity here (a small overestimate) */
	out->weight_bytes_per_gpu = w;
	out->expert_bytes_per_gpu = ex;
	out->kv_bytes_per_token = per_tok;
	out->kv_blocks = (int64_t)(avail / (per_tok * c->block_size));
	return 0;
}

void sim_step_breakdown(const sim_config *c, const sim_step *s, sim_step_parts *o)
{
	const sim_model *m = &c->model;
	memset(o, 0, sizeof *o);
	int k = c->spec_method && strcmp(c->spec_method, "none") && c->num_spec_tokens > 0
	            ? c->num_spec_tokens
	            : 0;
	double dec_tokens = (double)s->decode_seqs * (k + 1);
	double tokens = dec_tokens + s->prefill_tokens;
	if (tokens <= 0)
		return;
	int tp = tp_of(c), pp = pp_of(c);
	/* weights read: the dense part always, the routed experts the batch
	 * touches (each token picks experts_per_token of experts); with expert
	 * parallelism the busiest rank reads ep_imbalance times its share */
	double touched = 0;
	if (m->experts > 0) {
		double p_miss = pow(1.0 - (double)m->experts_per_token / m->experts, tokens);
		touched = m->expert_params * (1.0 - p_miss);
	}
	double imb = c->ep > 1 ? c->ep_imbalance : 1.0;
	o->expert_bytes = touched * expert_bytes_per_param(c) / expert_ways(c) / pp * imb;
	double bytes = dense_bytes(c) + o->expert_bytes;
	/* KV read by attention: every decode token reads its sequence's context
	 * (full layers; sparse attention: at most sparse_topk tokens, plus the
	 * index over all of it) and at most `window` tokens (sliding layers).
	 * With DP attention the busiest rank has 1/TP of the sequences, whole. */
	double kv_full = kv_elems_full(m) * c->kv_bytes / (c->dp_attn ? 1 : kv_shards(c)) / pp;
	double kv_win = 0;
	if (m->window > 0 && m->layers > m->attn_layers)
		kv_win = (double)(m->layers - m->attn_layers) * 2.0 * m->kv_heads * m->head_dim *
		         c->kv_bytes / (c->dp_attn ? 1 : kv_shards(c)) / pp;
	double share = c->dp_attn ? 1.0 / tp : 1.0;
	double ctx_read = s->decode_ctx_sum;
	if (m->sparse_topk > 0 && s->decode_seqs > 0) {
		double mean = s->decode_ctx_sum / s->decode_seqs;
		ctx_read = s->decode_seqs * (mean < m->sparse_topk ? mean : m->sparse_topk);
		o->kv_bytes +=
		    share * s->decode_ctx_sum * (k + 1) * index_layers_of(m) * m->index_dim / pp;
	}
	o->kv_bytes += share * (ctx_read * kv_full * (k + 1) + dec_tokens * m->window * kv_win);
	/* a prefill chunk reads its context's KV about once (flash attention) */
	if (s->prefill_tokens > 0)
		o->kv_bytes += s->prefill_ctx_sum / s->prefill_tokens * kv_full;
	bytes += o->kv_bytes;
	o->bytes_per_gpu = bytes;
	o->mem = bytes / (c->hw.hbm_bw * c->mem_eff);
	/* FLOPs per GPU: 2 per active parameter per token (experts over their
	 * ranks, the rest over TP), plus attention scores and values */
	double attn_w = (double)m->q_heads * m->head_dim;
	double exp_active =
	    m->experts > 0 ? m->expert_params * m->experts_per_token / m->experts : 0;
	double attn_ctx = s->decode_ctx_sum * (k + 1) + s->prefill_ctx_sum;
	if (m->sparse_topk > 0 && s->decode_seqs > 0)
		attn_ctx = ctx_read * (k + 1) + s->prefill_ctx_sum;
	double flops = 2.0 * (m->active_params - exp_active) * tokens / tp +
	               2.0 * exp_active * tokens / expert_ways(c) * imb +
	               4.0 * attn_w * m->attn_layers * attn_ctx / tp;
	o->compute = flops / pp / (peak_flops(c) * c->compute_eff);
	/* communication per layer: TP all-reduces of the activations (two per
	 * layer; one with EP, whose MoE layers exchange tokens all-to-all
	 * instead: dispatch and combine of each token's top-k copies; none for
	 * attention under DP attention) */
	/* TP or EP wider than the scale-up domain (multi-node rows) runs its
	 * collectives over the scale-out network */
	int dom = c->hw.domain_gpus > 0 ? c->hw.domain_gpus : 8;
	bool wide = (tp > dom || c->ep > dom) && c->hw.net_bw > 0;
	double link = (wide ? c->hw.net_bw : c->hw.link_bw) * c->comm_eff;
	double lat = wide ? c->hw.net_lat : c->hw.link_lat;
	double act = tokens * m->hidden * 2.0;
	double ar = tp > 1 ? 2.0 * (tp - 1) / tp * act / link + lat : 0;
	double per_layer = 0;
	if (c->ep > 1 && m->experts > 0) {
		double ranks = c->ep;
		double a2a = 2.0 * (act / tp) * m->experts_per_token * (ranks - 1) / ranks / link +
		             2.0 * lat;
		per_layer = a2a + (c->dp_attn ? 0 : ar);
	} else {
		per_layer = 2.0 * ar;
	}
	o->comm = m->layers * per_layer / pp;
	/* pipeline: a step runs through every stage in turn */
	o->mem *= pp;
	o->compute *= pp;
	/* stages beyond the scale-up domain hand over through the network; a
	 * hand-over is a point-to-point copy, at the link's bandwidth (comm_eff
	 * is the collectives') */
	bool pp_wide = (double)tp * pp > dom && c->hw.net_bw > 0;
	double plink = pp_wide ? c->hw.net_bw : c->hw.link_bw;
	o->comm = o->comm * pp + (pp - 1) * (act / plink + (pp_wide ? c->hw.net_lat : lat));
	/* fixed cost per step, and per token verified in it (scheduling,
	 * sampling, detokenising: the CPU side that makes throughput saturate;
	 * a decode sequence with K drafts verifies K + 1 tokens) */
	double seqs = s->decode_seqs * (k + 1.0) + (s->prefill_tokens > 0 ? 1 : 0);
	o->overhead = c->step_overhead_s + seqs * c->seq_overhead_s;
	/* KV offload hits: each GPU copies its share in over its host link
	 * before the step's attention can use it */
	if (s->host_load_bytes > 0 && c->hw.host_bw > 0)
		o->host_load = s->host_load_bytes / c->hw.host_bw;
	double t =
	    (o->mem > o->compute ? o->mem : o->compute) + o->comm + o->overhead + o->host_load;
	/* the draft model proposes k tokens before verification */
	if (k > 0 && s->decode_seqs > 0)
		t += k * c->draft_cost * t;
	o->total = t;
}

double sim_step_time(const sim_config *c, const sim_step *s)
{
	sim_step_parts p;
	sim_step_breakdown(c, s, &p);
	return p.total;
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

/* ---- disaggregated prefill/decode (docs/sim.md) ---- */

void sim_prefill_config(const sim_config *c, sim_config *pc)
{
	*pc = *c;
	pc->tp = c->prefill_tp > 0 ? c->prefill_tp : c->tp;
	pc->ep = c->prefill_ep > 0 ? c->prefill_ep : c->ep;
	pc->dp_attn = c->prefill_dp_attn;
	pc->replicas = c->prefill_workers > 0 ? c->prefill_workers : 1;
	pc->prefill_workers = 0;
}

static int instance_gpus(const sim_config *c)
{
	int w = c->ep > tp_of(c) ? c->ep : tp_of(c);
	return w * pp_of(c);
}

int sim_config_gpus(const sim_config *c)
{
	int n = instance_gpus(c) * (c->replicas > 1 ? c->replicas : 1);
	if (c->prefill_workers > 0) {
		sim_config pc;
		sim_prefill_config(c, &pc);
		n += instance_gpus(&pc) * c->prefill_workers;
	}
	return n;
}

double sim_kv_transfer_s(const sim_config *c, double tokens)
{
	if (c->prefill_workers <= 0 || tokens <= 0)
		return 0;
	sim_config pc;
	sim_prefill_config(c, &pc);
	/* the KV a prefill GPU holds for the prompt: its share, sent at once
	 * with every other GPU's */
	double bytes =
	    kv_elems_full(&pc.model) * pc.kv_bytes / kv_shards(&pc) / pp_of(&pc) * tokens;
	int dom = c->hw.domain_gpus > 0 ? c->hw.domain_gpus : 8;
	bool local = sim_config_gpus(c) <= dom || c->hw.net_bw <= 0;
	/* a bulk point-to-point copy: the link's bandwidth (comm_eff is the
	 * collectives') */
	double bw = local ? c->hw.link_bw : c->hw.net_bw;
	return bytes / bw + (local ? c->hw.link_lat : c->hw.net_lat);
}
