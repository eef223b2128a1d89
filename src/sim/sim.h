/* sim — the engine simulator: an OpenAI-compatible server (completions and
 * chat, streaming and not) over a continuous-batching performance model of a
 * model on a GPU type (docs/sim.md).
 *
 * The model: a step loop like vLLM's scheduler (waiting queue, --max-num-seqs,
 * a token budget per step with chunked prefill, KV cache in blocks with
 * preemption), each step lasting what a roofline of the hardware gives for
 * the weights and KV bytes read and the FLOPs done, divided over TP, plus
 * all-reduce costs; speculative decoding emits several tokens per step.
 */
#ifndef IB_SIM_H
#define IB_SIM_H

#include "fmt/fmt.h"
#include <stdio.h>
#include "net/net.h"

struct tok;
struct chat_tmpl;

/* A GPU type. Bandwidths in bytes/s, FLOPs in FLOP/s (dense). */
typedef struct {
	const char *name;
	double mem_bytes;   /* HBM per GPU */
	double hbm_bw;      /* HBM bandwidth per GPU */
	double flops_bf16, flops_fp8, flops_fp4;
	double link_bw;     /* scale-up bandwidth per GPU, one direction */
	double link_lat;    /* per all-reduce latency, s */
} sim_hw;

/* A model. Parameter counts are totals across the model. */
typedef struct {
	const char *name;
	double params;          /* total parameters */
	double active_params;   /* per token (MoE: shared + routed experts used) */
	double expert_params;   /* routed-expert parameters (0 for dense) */
	int experts, experts_per_token;
	int layers;             /* transformer blocks */
	int attn_layers;        /* blocks with full attention over the whole context */
	int hidden;             /* residual width (all-reduce size per token) */
	int q_heads, kv_heads, head_dim;
	int mla_kv_dim;         /* > 0: MLA latent width per token per layer (replicated over TP) */
	int window;             /* > 0: the other layers use a sliding window of this many tokens */
	double default_al[9];   /* acceptance length by num_speculative_tokens 1..8 (0: unknown) */
} sim_model;

const sim_hw *sim_hw_find(const char *name);
const sim_model *sim_model_find(const char *name);
/* Comma-separated names, for help and errors. */
void sim_profile_names(ib_buf *out, bool models);
/* Overrides fields of *hw and *model from a YAML file with optional
 * `hardware:` and `model:` mappings (field names as in docs/sim.md). Errors
 * name the file, line and field. */
int sim_profile_load(const char *path, sim_hw *hw, sim_model *model, ib_arena *a, ib_error *e);

typedef struct {
	/* serving */
	const char *host;
	int port;
	const char *served_model_name;
	const char *const *lora; /* LoRA adapter names, also served (vLLM's --lora-modules) */
	size_t nlora;
	/* performance model */
	sim_hw hw;
	sim_model model;
	const char *precision;  /* bf16, fp8, fp4: weights and compute */
	double kv_bytes;        /* bytes per KV element (2 = bf16, 1 = fp8) */
	int tp;
	int max_num_seqs;
	int max_num_batched_tokens;
	int block_size;
	double gpu_mem_util;
	double mem_eff, compute_eff;
	double step_overhead_s;
	int max_model_len;
	/* speculative decoding */
	const char *spec_method; /* NULL/"none", "mtp", "eagle3" */
	int num_spec_tokens;
	double acceptance_length; /* mean tokens per step incl. the bonus token */
	double draft_cost;        /* one draft token's cost as a fraction of a decode step */
	/* output */
	int mean_output_len;      /* natural length when ignore_eos is false */
	double time_scale;        /* model runs this many times faster than real time */
	bool max_speed;           /* no model: stream as fast as the client reads */
	double pace;              /* > 0: no model; a step every 1/pace s (real time) */
	/* per streamed request, one JSON line with the moments its chunks left
	 * (docs/sim.md); NULL: none. Owned by the caller. */
	FILE *trace;
	/* exact token counts (NULL: estimated); owned by the caller */
	struct tok *tokenizer;
	const struct chat_tmpl *chat_template; /* for chat prompt counts, or NULL */
	const ib_val *chat_special;            /* bos_token, eos_token, ... */
	/* faults */
	uint64_t seed;
	double fail_rate, drop_rate, stall_rate, malformed_rate;
	double stall_ms;
} sim_config;

/* Defaults: H100, llama3-8b, bf16, TP 1, vLLM-like scheduler settings. */
void sim_config_init(sim_config *c);

/* The performance model, exposed for tests and docs. */
typedef struct {
	double weight_bytes_per_gpu;
	double kv_bytes_per_token;     /* per GPU */
	int64_t kv_blocks;             /* capacity in blocks */
} sim_capacity;
/* Returns 0, or IB_EINVAL when the weights do not fit in GPU memory. */
int sim_capacity_of(const sim_config *c, sim_capacity *out, ib_error *e);

/* One engine step: decode sequences (with their context lengths) and prefill
 * chunks. Returns the step's duration in model seconds. */
typedef struct {
	int decode_seqs;
	double decode_ctx_sum;   /* sum of context lengths of the decode sequences */
	int prefill_tokens;      /* tokens prefilled in this step */
	double prefill_ctx_sum;  /* sum over prefilled tokens of their position */
} sim_step;
double sim_step_time(const sim_config *c, const sim_step *s);

/* Tokens a decode step emits for one sequence: 1 + accepted drafts, with the
 * "minimum variance" schedule (floor(AL-1) drafts, one more with probability
 * frac(AL-1)), capped at 1 + num_spec_tokens. u is uniform in [0, 1). */
int sim_tokens_per_step(const sim_config *c, double u);

typedef struct sim_server sim_server;
/* Starts listening on c->host:c->port (port 0: a free port). */
int sim_server_new(net_loop *l, const sim_config *c, sim_server **out, ib_error *e);
int sim_server_port(const sim_server *s);
void sim_server_free(sim_server *s);

/* Deterministic PRNG (splitmix64 / xoshiro256**) used for faults, text and
 * acceptance draws. */
typedef struct {
	uint64_t s[4];
} sim_rng;
void sim_rng_seed(sim_rng *r, uint64_t seed);
uint64_t sim_rng_next(sim_rng *r);
double sim_rng_uniform(sim_rng *r); /* [0, 1) */

#endif
