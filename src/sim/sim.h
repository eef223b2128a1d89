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

#include "eval/eval.h"
#include "fmt/fmt.h"
#include "net/net.h"
#include <stdio.h>

struct tok;
struct chat_tmpl;
typedef struct sim_grader sim_grader;

/* A GPU type. Bandwidths in bytes/s, FLOPs in FLOP/s (dense). */
typedef struct {
	const char *name;
	double mem_bytes; /* HBM per GPU */
	double hbm_bw;    /* HBM bandwidth per GPU */
	double flops_bf16, flops_fp8, flops_fp4;
	double link_bw;  /* scale-up bandwidth per GPU, one direction */
	double link_lat; /* per all-reduce latency, s */
	double host_bw;  /* GPU <-> host memory per GPU, one direction (PCIe, C2C) */
	double net_bw;   /* scale-out (inter-node) bandwidth per GPU, one direction */
	double net_lat;  /* scale-out latency per transfer or collective, s */
	int domain_gpus; /* GPUs one scale-up (NVLink / Infinity Fabric) domain joins */
} sim_hw;

/* A model. Parameter counts are totals across the model. */
typedef struct {
	const char *name;
	double params;        /* total parameters */
	double active_params; /* per token (MoE: shared + routed experts used) */
	double expert_params; /* routed-expert parameters (0 for dense) */
	int experts, experts_per_token;
	int layers;      /* transformer blocks */
	int attn_layers; /* blocks with full attention over the whole context */
	int hidden;      /* residual width (all-reduce size per token) */
	int q_heads, kv_heads, head_dim;
	int mla_kv_dim;       /* > 0: MLA latent width per token per layer (replicated over TP) */
	int window;           /* > 0: the other layers use a sliding window of this many tokens */
	double default_al[9]; /* acceptance length by num_speculative_tokens 1..8 (0: unknown) */
	int sparse_topk;      /* > 0: sparse attention (DSA, MSA): a decode token reads at most
	                       * this many tokens' KV per layer, plus an index of the whole context */
	int index_dim;        /* bytes per token per layer of that index (read over the context) */
	double expert_wbits;  /* > 0: the checkpoint stores the routed experts in this many bits
	                       * per parameter (scales included) whatever the precision
	                       * (DeepSeek-V4: MXFP4 experts under FP8 attention); 0: as the
	                       * precision */
	double dense_wbits;   /* > 0: the checkpoint stores the dense (non-expert) weights in
	                       * this many bits, which a narrower precision does not shrink
	                       * (Kimi K3: BF16 trunk beside MXFP4 experts); 0: as the precision */
	int index_layers;     /* > 0: only this many layers keep and read their own sparse-
	                       * attention index, the others reuse it (GLM-5.2's IndexShare);
	                       * 0: every full-attention layer */
} sim_model;

const sim_hw *sim_hw_find(const char *name);
const sim_model *sim_model_find(const char *name);
/* Comma-separated names, for help and errors. */
void sim_profile_names(ib_buf *out, bool models);
/* Overrides fields of *hw and *model from a YAML file with optional
 * `hardware:` and `model:` mappings (field names as in docs/sim.md). Errors
 * name the file, line and field. */
int sim_profile_load(const char *path, sim_hw *hw, sim_model *model, ib_arena *a, ib_error *e);

/* sim_config.role */
enum { SIM_ROLE_WHOLE = 0, SIM_ROLE_PREFILL = 1, SIM_ROLE_DECODE = 2 };

typedef struct {
	/* serving */
	const char *host;
	int port;
	net_tls *tls;          /* NULL: plain HTTP; else HTTPS with this context (--tls-cert) */
	double header_timeout; /* seconds a connection may take to send a request (60; 0: none) */
	int send_threads;      /* threads writing the streams beside the loop's (0: none) */
	const char *served_model_name;
	const char *const *lora; /* LoRA adapter names, also served (vLLM's --lora-modules) */
	size_t nlora;
	/* performance model */
	sim_hw hw;
	sim_model model;
	const char *precision; /* bf16, fp8, fp4: weights and compute */
	double kv_bytes;       /* bytes per KV element (2 = bf16, 1 = fp8) */
	int tp;
	int ep;       /* expert parallel ranks (1: experts sharded by TP) */
	bool dp_attn; /* data-parallel attention: each of the TP ranks runs its own
	               * sequences with the whole attention (own batch and KV) */
	int pp;       /* pipeline stages (GPUs = TP x PP) */
	/* disaggregated prefill/decode (docs/sim.md "Disaggregated prefill/
	 * decode"): prefill_workers > 0 separate prefill instances of
	 * prefill_tp GPUs (prefill_ep, prefill_dp_attn) take every prompt,
	 * send its KV to the decode side (sim_kv_transfer_s), and this
	 * configuration only decodes; 0: aggregated */
	int prefill_workers, prefill_tp, prefill_ep;
	bool prefill_dp_attn;
	/* one role of that deployment in a process of its own (docs/sim.md
	 * "Roles"; a multi-node row's srun steps): SIM_ROLE_PREFILL serves
	 * the prefill pool (replicas: this process's workers) and answers
	 * every request with its first token only; SIM_ROLE_DECODE takes
	 * every request as prefilled elsewhere: the first token at once, the
	 * KV transfer (sim_kv_transfer_s), then decoding. 0: the whole */
	int role;
	/* identical instances of this configuration behind one endpoint (the
	 * decode workers of a disaggregated row, data-parallel replicas): a
	 * router spreads the sequences evenly, so each step is one instance's
	 * share; KV and --max-num-seqs are per instance (1: one) */
	int replicas;
	int max_num_seqs;
	int max_num_batched_tokens;
	int block_size;
	double gpu_mem_util;
	/* KV offload (docs/sim.md "KV offload"): host memory in GB for KV
	 * blocks evicted from the GPU (the row's total-cpu-dram-gb), 0: none */
	double kv_offload_gb;
	bool no_prefix_cache; /* --no-enable-prefix-caching: every prompt is computed */
	double mem_eff, compute_eff;
	double step_overhead_s;
	double seq_overhead_s; /* per running sequence per step (scheduling, sampling) */
	double comm_eff;       /* fraction of the link bandwidth collectives reach */
	double ep_imbalance;   /* the busiest EP rank's expert load over the mean (>= 1) */
	const char *framework; /* vllm, sglang, trt, atom, ... (calibration rules match it) */
	const char *framework_version; /* its image tag or date (rules may match it), or NULL */
	int max_model_len;
	/* speculative decoding */
	const char *spec_method; /* NULL/"none", "mtp", "eagle3" */
	int num_spec_tokens;
	double acceptance_length; /* mean tokens per step incl. the bonus token */
	double draft_cost;        /* one draft token's cost as a fraction of a decode step */
	/* output */
	int mean_output_len; /* natural length when ignore_eos is false */
	double time_scale;   /* model runs this many times faster than real time */
	bool max_speed;      /* no model: stream as fast as the client reads */
	double pace;         /* > 0: no model; a step every 1/pace s (real time) */
	/* per streamed request, one JSON line with the moments its chunks left
	 * (docs/sim.md); NULL: none. Owned by the caller. */
	FILE *trace;
	/* every HTTP request as it arrived, one JSON line each: {"method",
	 * "path", "body"} with the body's bytes as a JSON string (docs/sim.md);
	 * NULL: none. Owned by the caller. */
	FILE *request_log;
	/* notes for the operator (IB_LOG_ERR lines without "\n": the profiler
	 * started / stopped); NULL: none */
	ib_log_fn log;
	void *log_arg;
	/* exact token counts (NULL: estimated); owned by the caller */
	struct tok *tokenizer;
	const struct chat_tmpl *chat_template; /* for chat prompt counts, or NULL */
	const ib_val *chat_special;            /* bos_token, eos_token, ... */
	/* faults */
	uint64_t seed;
	double fail_rate, drop_rate, stall_rate, malformed_rate;
	double stall_ms;
	/* --eval-dataset: chat requests whose last user turn is one of its
	 * questions get a graded worked answer (docs/sim.md "Grading evals");
	 * NULL: none. Owned by the caller, read-only while serving. */
	const sim_grader *grader;
	/* the prediction interval announced on every response
	 * (X-Infbench-Sim-Interval; docs/sim.md "Prediction intervals"); NULL:
	 * none. Owned by the caller. */
	const struct sim_iv *interval;
} sim_config;

/* Defaults: H100, llama3-8b, bf16, TP 1, vLLM-like scheduler settings. */
void sim_config_init(sim_config *c);

/* The performance model, exposed for tests and docs. */
typedef struct {
	double weight_bytes_per_gpu;
	double expert_bytes_per_gpu; /* the routed experts' share of the above */
	double kv_bytes_per_token;   /* per GPU */
	int64_t kv_blocks;           /* capacity in blocks */
} sim_capacity;
/* The configuration of one prefill instance of a disaggregated c (its TP,
 * EP and DP attention, aggregated, one replica per worker). */
void sim_prefill_config(const sim_config *c, sim_config *pc);
/* Model seconds to move the KV of `tokens` prompt tokens from a prefill
 * instance of c to a decode instance: every GPU sends its share at once,
 * over the scale-up link when both pools fit in one scale-up domain
 * (hw.domain_gpus: a node, an NVL72 rack), else over the scale-out
 * network; plus one latency. 0 when c is not disaggregated. */
double sim_kv_transfer_s(const sim_config *c, double tokens);
/* GPUs the whole configuration occupies (both pools, every replica). */
int sim_config_gpus(const sim_config *c);
/* Returns 0, or IB_EINVAL when the weights do not fit in GPU memory. */
int sim_capacity_of(const sim_config *c, sim_capacity *out, ib_error *e);

/* One engine step: decode sequences (with their context lengths) and prefill
 * chunks. Returns the step's duration in model seconds. */
typedef struct {
	int decode_seqs;
	double decode_ctx_sum;  /* sum of context lengths of the decode sequences */
	int prefill_tokens;     /* tokens prefilled in this step */
	double prefill_ctx_sum; /* sum over prefilled tokens of their position */
	double host_load_bytes; /* KV copied in from the host tier, per GPU (KV offload hits) */
	int prefill_seqs;       /* sequences the prefill tokens belong to (0: not counted) */
} sim_step;
double sim_step_time(const sim_config *c, const sim_step *s);

/* The parts of a step's time (model seconds), for tests and calibration. */
typedef struct {
	double mem, compute;  /* roofline terms (the step takes the larger) */
	double comm;          /* all-reduce / all-to-all / pipeline transfers */
	double host_load;     /* KV offload hits copied over the host link */
	double overhead;      /* per step and per sequence */
	double bytes_per_gpu; /* HBM bytes read by the busiest GPU */
	double expert_bytes;  /* of which routed-expert weights */
	double kv_bytes;      /* of which KV cache */
	double total;         /* = sim_step_time */
} sim_step_parts;
void sim_step_breakdown(const sim_config *c, const sim_step *s, sim_step_parts *out);

/* Tokens a decode step emits for one sequence: 1 + accepted drafts, with the
 * "minimum variance" schedule (floor(AL-1) drafts, one more with probability
 * frac(AL-1)), capped at 1 + num_spec_tokens. u is uniform in [0, 1). */
int sim_tokens_per_step(const sim_config *c, double u);

/* ---- calibration (docs/sim.md "Calibration") ----
 *
 * The efficiency and overhead parameters are data: a YAML file of rules,
 * each with an optional `match` (framework, hardware, precision, model,
 * spec: a name or a list of names; absent: any) and parameter values.
 * Resolving a key starts from the defaults and applies every matching rule
 * in file order, so later, more specific rules win. */
typedef struct {
	double mem_eff, compute_eff;
	double step_overhead_s, seq_overhead_s;
	double comm_eff, ep_imbalance;
	double draft_cost;
} sim_calib;

#define SIM_CALIB_NMATCH 6
typedef struct {
	const char *const *match[SIM_CALIB_NMATCH]; /* NULL-terminated name lists, NULL: any */
	sim_calib values;
	unsigned set; /* which parameters the rule sets (bit i: the i-th documented) */
	const char *file;
	int line;
} sim_calib_rule;

typedef struct {
	const char *path;
	sim_calib_rule *rules;
	size_t n;
} sim_calib_file;

typedef struct {
	const char *framework, *hardware, *precision, *model, *spec; /* NULL: unknown */
	const char *version; /* the framework's image tag or build date, NULL: unknown */
} sim_calib_key;

/* The uncalibrated defaults. */
void sim_calib_defaults(sim_calib *c);
/* Loads a calibration file into *out (in arena a). Every problem (unknown
 * key or name, wrong type, value out of range) is added to d with its file,
 * line and field; then IB_EINVAL with a count in e. A missing file is
 * IB_ENOENT, malformed YAML IB_EPARSE (e says where). */
int sim_calib_load(const char *path, ib_arena *a, sim_calib_file *out, ib_diags *d, ib_error *e);
/* The parameters for key k: defaults, then each matching rule of f (NULL:
 * none) in order. */
void sim_calib_resolve(const sim_calib_file *f, const sim_calib_key *k, sim_calib *out);
/* True when the match list of a calibration rule (NULL: the rule does not
 * match on that key) names v, case-insensitively; false for a NULL v. */
bool sim_calib_names(const char *const *list, const char *v);
/* The hardware name calibration rules are matched with for GPU gpu: gpu
 * itself when a rule of cal names it, else its closest sibling that one
 * names within its architecture (B300/GB200 -> B200, GB300 -> B300 or
 * B200, B200 -> B300, H100 <-> H200, MI300X <-> MI325X), else gpu (docs/sim.md "Frontier and
 * peak rows"). Only rules that can apply to precision count (a rule
 * matching other precisions does not make a GPU calibrated for this one;
 * precision NULL: every rule). */
const char *sim_calib_hw_for(const sim_calib_file *cal, const char *gpu, const char *precision);
/* The same for a server of model `model`: gpu when a rule names both, else
 * the first sibling of gpu (as above) with a rule naming both — the model's
 * calibration on the same architecture is closer than another model's on
 * this GPU — else sim_calib_hw_for(cal, gpu). */
const char *sim_calib_hw_for_model(const sim_calib_file *cal, const char *gpu, const char *model,
                                   const char *precision);
/* The framework whose calibration rules a server of `framework` on
 * calibration hardware hw (sim_calib_hw_for's answer) takes: framework
 * itself when a rule of cal names it together with hw, else the first
 * framework a rule names for hw (the one calibrated on that GPU: its
 * kernels and host overheads are the closest measured), else framework
 * (the model-wide rules apply; docs/sim.md "Frontier and peak rows").
 * Only rules that can apply to model and precision count
 * (sim_calib_rule_can_apply). */
const char *sim_calib_fw_for(const sim_calib_file *cal, const char *framework, const char *hw,
                             const char *model, const char *precision);
/* True when rule r can apply to a server of model and precision: its model
 * and precision matches are absent or name them (NULL: not checked). A rule
 * for other models or precisions says nothing about which GPUs and
 * frameworks are calibrated for this one (the fallbacks above, the sweep's
 * frameworks). */
bool sim_calib_rule_can_apply(const sim_calib_rule *r, const char *model, const char *precision);
/* The key a server of framework (at version) on gpu serving model at
 * precision with spec (NULL: "none") resolves its parameters with: the GPU
 * by sim_calib_hw_for_model, the framework by sim_calib_fw_for. The one
 * resolution of `infbench sim` and of the in-process lab (sim validate,
 * sim calibrate), so that a served run and the lab give the same figures. */
void sim_calib_key_for(const sim_calib_file *cal, const char *framework, const char *gpu,
                       const char *precision, const char *model, const char *spec,
                       const char *version, sim_calib_key *k);
/* Copies the parameters into a configuration. */
void sim_calib_apply(const sim_calib *cal, sim_config *c);
/* The calibration file to use: $INFBENCH_SIM_CALIBRATION, else
 * configs/sim/calibration.yaml under the working directory, else under
 * exe's folder's parent or grandparent (a checkout's build/ or build/san/);
 * NULL when none is readable. buf holds the path in the last cases. */
const char *sim_calib_find(const char *exe, char *buf, size_t len);

/* ---- in-process runs (docs/sim.md "Validation") ----
 * The server's engine (scheduler and step model) on a virtual clock, under
 * InferenceX's client load: a closed loop of `concurrency` requests,
 * num_prompts in all, input and output lengths drawn uniformly from
 * [range_ratio x len, len], ignore_eos, no warmup (an idle engine keeps
 * nothing from it). Deterministic for a seed; takes milliseconds. */
typedef struct {
	int concurrency;
	int num_prompts; /* InferenceX: 10 x concurrency */
	int isl, osl;
	double range_ratio; /* InferenceX: 0.8 */
	uint64_t seed;
} sim_load;

typedef struct {
	int completed;
	double duration; /* model seconds, first send to last token */
	double median_tpot, mean_tpot,
	    median_ttft;    /* seconds (TPOT as InferenceX: (E2EL-TTFT)/(out-1)) */
	double total_tok_s; /* (input + output tokens) / duration, whole instance */
	double output_tok_s;
	int64_t steps, preemptions;
} sim_load_result;

/* Returns 0, IB_EINVAL when the weights or a request do not fit (e says
 * which) or the load is empty, IB_ENOMEM. */
int sim_run_load(const sim_config *c, const sim_load *ld, sim_load_result *out, ib_error *e);

/* ---- calibration keys from text (docs/sim.md "Frontier and peak rows") ---- */
/* The calibration's framework key named in a text (a framework field such as
 * "dynamo-sglang", a note, an image): "trt", "atom", "sglang" or "vllm", in
 * that order of precedence; NULL when none is named. */
const char *sim_framework_key(const char *text);
/* The first version in a text (an image tag "v0.5.10rc0", else a date
 * "2026-05-02"), copied into a; NULL when none (or text is NULL). */
const char *sim_version_of(ib_arena *a, const char *text);

/* The median of v[0..n) (sorts v); 0 when n is 0. */
double sim_median(double *v, size_t n);

typedef struct sim_server sim_server;

/* ---- simulated GPU telemetry (docs/sim.md "Simulated GPU telemetry") ---- */
/* Board power (W) of a GPU of type hw (a profile name; unknown: 700 W
 * boards) at utilisation util in [0, 1]: SIM_IDLE_POWER_FRAC of its board
 * limit idle, rising linearly to SIM_BUSY_POWER_FRAC busy. A model, not a
 * measurement. */
#define SIM_IDLE_POWER_FRAC 0.15
#define SIM_BUSY_POWER_FRAC 0.9
double sim_board_power(const char *hw, double util);
/* Writes the GPU monitor's CSV of server s's GPUs to path while the loop
 * runs: a header (timestamp, index, power.draw [W], utilization.gpu [%],
 * simulated), then every interval seconds one row per GPU (nvidia-smi's
 * local-time timestamp, index 0.., sim_board_power at the busy fraction of
 * the interval, utilisation, 1). The GPUs are the engine's replicas' and its
 * in-process prefill pool's (a --role process: its own). IB_EINVAL for an
 * interval <= 0, IB_EIO when path cannot be written. */
typedef struct sim_telemetry sim_telemetry;
int sim_telemetry_start(sim_server *s, const char *path, double interval, sim_telemetry **out,
                        ib_error *e);
/* Writes a last sample, closes the file (IB_EIO when a write failed) and
 * frees t (NULL: nothing). Before the server is freed. */
int sim_telemetry_stop(sim_telemetry *t, ib_error *e);

/* Starts listening on c->host:c->port (port 0: a free port). */
int sim_server_new(net_loop *l, const sim_config *c, sim_server **out, ib_error *e);
int sim_server_port(const sim_server *s);
void sim_server_free(sim_server *s);
/* The request log's sticky error (base.h's buffer policy): IB_ENOMEM once a
 * line could not be built (that line and every later one are left out), 0
 * while every line was written. The caller checks it before committing the
 * log, so an incomplete log is an error, never a short file. */
int sim_server_log_error(const sim_server *s);

/* Deterministic PRNG (splitmix64 / xoshiro256**) used for faults, text and
 * acceptance draws. */
typedef struct {
	uint64_t s[4];
} sim_rng;
void sim_rng_seed(sim_rng *r, uint64_t seed);
uint64_t sim_rng_next(sim_rng *r);
double sim_rng_uniform(sim_rng *r); /* [0, 1) */

/* ---- grading evals (docs/sim.md "Grading evals") ----
 *
 * A grader holds the questions of DIR/test.jsonl (gsm8k lines) in a hash
 * table. Each question gets a verdict that depends only on (seed, question
 * text): right with probability `accuracy` (a tenth of those answered in
 * reasoning_content only), else one of the wrong or badly formatted kinds
 * below, in the mixture documented in docs/sim.md. */
typedef enum {
	SIM_EVAL_RIGHT,           /* worked answer ending "#### <right number>" */
	SIM_EVAL_WRONG_NUMBER,    /* the same, ending "#### <a wrong number>" */
	SIM_EVAL_REASONING_RIGHT, /* the right answer, but in reasoning_content only */
	SIM_EVAL_REASONING_WRONG, /* a wrong-number answer in reasoning_content only */
	SIM_EVAL_NO_MARKER,       /* worked answer ending "The answer is <right>." (no ####) */
} sim_eval_kind;

typedef struct {
	sim_eval_kind kind;
	int delta; /* the wrong number is the right one plus delta (+-1..9) */
} sim_eval_verdict;

/* The verdict of question q[0..n) (already trimmed) under seed and accuracy
 * in [0, 1]: deterministic, independent of any other question. */
sim_eval_verdict sim_eval_judge(uint64_t seed, double accuracy, const char *q, size_t n);
/* The uniform [0, 1) draw behind the right/wrong verdict (right iff < accuracy). */
double sim_eval_draw(uint64_t seed, const char *q, size_t n);
/* True for the kinds answered in reasoning_content with an empty content. */
bool sim_eval_in_reasoning(sim_eval_kind k);

/* Appends the answer text for doc d under verdict v to out (raw, not JSON
 * escaped): d's worked answer without its <<calculator>> annotations, then
 * the final line the kind calls for. Returns 0, IB_EINVAL when d->answer has
 * no "#### N" line, or IB_ENOMEM. */
int sim_eval_answer(const ev_doc *d, const sim_eval_verdict *v, ib_buf *out);

/* The question inside an eval prompt turn s[0..n): the text between the
 * first "Question: " and the next "\nEnd your response" (or "\nAnswer:", or
 * the end), trimmed; without "Question: ", the whole turn trimmed. Sets
 * *off and *len; false when that is empty. */
bool sim_eval_question(const char *s, size_t n, size_t *off, size_t *len);

/* Loads DIR/test.jsonl (ev_docs_load) into a new grader. Questions whose
 * answer has no "#### N" line are left out. accuracy must be in [0, 1].
 * Errors: IB_ENOENT (no such folder or file), IB_EPARSE / IB_EINVAL from the
 * loader (file:line), IB_EINVAL when no question is gradable, IB_ENOMEM.
 * Free with sim_grader_free. */
int sim_grader_load(const char *dir, double accuracy, uint64_t seed, sim_grader **out, ib_error *e);
void sim_grader_free(sim_grader *g);
/* Questions in the table (gradable, distinct). */
size_t sim_grader_count(const sim_grader *g);
/* The doc whose trimmed question is q[0..n) exactly, or NULL. */
const ev_doc *sim_grader_find(const sim_grader *g, const char *q, size_t n);
double sim_grader_accuracy(const sim_grader *g);
uint64_t sim_grader_seed(const sim_grader *g);

/* ---- prediction intervals (docs/sim.md "Prediction intervals") ----
 *
 * How far off the simulator tends to be for a configuration like the one
 * asked, as data: a table (configs/sim/intervals.yaml, written by `sim
 * validate --cv model-gpu --write-intervals`) of pools of cross-validated
 * residuals r = ln(published / simulated), each pool with the quantiles
 * (1 - level) / 2 and (1 + level) / 2 of r for tok/s/GPU and for
 * interactivity. A configuration takes the first pool with at least
 * min-residuals residuals of: its framework x GPU family, its GPU's vendor,
 * all; each step down that list, and a model or GPU no residual came from,
 * is a widening step, and the table's widening rule (sim_iv_rule) makes the
 * interval wider by the steps about its centre (in log space). */

/* A widening rule: a configuration s steps from its data gets, about its
 * pool's centre c in log space, the half-width
 *   h_s = h * inflation^s + add * s * h_all
 * (h: its pool's half-width, h_all: the pool "all"'s, per figure), at most
 * max(h, cap * h_all) when cap > 0 and s > 0; with hold_sim a widened
 * interval (s > 0) is stretched to hold the simulated value (log 0). The
 * half-width is never above 200 (finite bounds whatever the table). */
typedef struct {
	double inflation; /* >= 1; 1: none */
	double add;       /* >= 0; 0: none */
	double cap;       /* 0: none, else >= 1 */
	bool hold_sim;
} sim_iv_rule;

/* The rule a table written by `sim validate --cv --write-intervals` gets:
 * three quarters of the pool "all"'s half-width more per step, never wider
 * than twice the pool "all" (inflation 1, add 0.75, cap 2, hold_sim false),
 * from pools of at least 12 residuals (min-residuals; a narrower pool with
 * fewer falls to the next). Chosen by measurement (the model x GPU
 * cross-validation of the 103 measured rows, `sim validate --cv model-gpu
 * --cv-prompts-per-conc 1 --kinds measured`, which prints the held-out
 * coverage and median / p90 width of 13 candidate rules; docs/sim.md
 * "Prediction intervals"). With the fitter of 2026-12-07 (mem-eff fixed
 * at 1) the 80 % intervals covered 79.6 % / 77.1 % of the held-out
 * tok/s/GPU / interactivity figures with median widths (hi / lo) 4.45x /
 * 4.10x and p90 15.1x / 15x; add 0.5 covered only 71.8 % / 70.8 % (3.19x /
 * 2.94x), and the multiplicative x3 from pools of 8 of before 84.5 % /
 * 76.0 % at 8.79x / 6.06x, p90 159x / 80x. (With the fitter before it, add
 * 0.5 covered 77.7 % / 74.0 %.) Chosen on that same check (no nested
 * cross-validation), so re-read it when the fitter changes. */
#define SIM_IV_INFLATION     1
#define SIM_IV_ADD           0.75
#define SIM_IV_CAP           2
#define SIM_IV_MIN_RESIDUALS 12
/* sim_iv_load gives an absent key its value of before that rule (a table
 * written then has none of inflation's companions): inflation
 * SIM_IV_INFLATION_BEFORE, widen-add 0, widen-cap 0 (none), widen-holds-sim
 * false, min-residuals 8 — multiplicative only, so such a table gives the
 * intervals it gave then. */
#define SIM_IV_INFLATION_BEFORE 3

typedef struct {
	const char *key;          /* "vllm/hopper", "nvidia", "all" */
	size_t n;                 /* residuals pooled */
	double tput[2], inter[2]; /* quantiles of ln(published / simulated) */
} sim_iv_pool;

typedef struct {
	const char *path;
	double level;                /* the intervals' nominal coverage, (0, 1) */
	sim_iv_rule rule;            /* the widening */
	size_t min_n;                /* residuals a pool needs to be used */
	const char **models, **gpus; /* the models and GPUs residuals came from (NULL-terminated) */
	sim_iv_pool *pools;
	size_t n;
} sim_iv_table;

/* An interval for one configuration: multiply the simulated figure by
 * tput[0] / tput[1] (inter[0] / inter[1]) for its bounds. */
typedef struct sim_iv {
	double level;
	double tput[2], inter[2];
	const char *pool; /* the pool used (the table's key) */
	int widen;        /* widening steps applied */
} sim_iv;

/* The GPU family of a profile name (hopper, blackwell, cdna3, cdna4; other
 * names: themselves) and its vendor (amd for mi*, else nvidia). */
const char *sim_iv_family(const char *gpu);
const char *sim_iv_vendor(const char *gpu);
/* Loads an interval table into *out (in a). Problems (unknown key, wrong
 * type, level outside (0, 1), a widening value out of range, quantiles not lo <= hi or not
 * finite, no pool "all") go into d with file, line and field, then
 * IB_EINVAL; a missing file IB_ENOENT, malformed YAML IB_EPARSE. */
int sim_iv_load(const char *path, ib_arena *a, sim_iv_table *out, ib_diags *d, ib_error *e);
/* The interval of a configuration (framework and model may be NULL:
 * unknown) into *out: the pool and widening steps above, widened by the
 * table's rule. 0, or IB_ENOENT when the table has no pool with a residual. */
int sim_iv_lookup(const sim_iv_table *t, const char *framework, const char *gpu, const char *model,
                  sim_iv *out);
/* The response header that announces iv, with its CRLF, into buf (n
 * bytes; nothing when it does not fit):
 * "X-Infbench-Sim-Interval: level=0.8; tput=0.71,1.32; inter=0.8,1.2;
 * pool=vllm/hopper; widen=0" (tput and inter: factors on the simulated
 * figures; pool and widen: sim_iv's). */
void sim_iv_header(const sim_iv *iv, char *buf, size_t n);
/* Parses the value of that header into *out, its pool name copied into
 * pool (npool bytes; out->pool points there); false when it is not one
 * (missing or extra fields, non-finite or non-positive factors, lo above
 * hi, level outside (0, 1), a negative widening). */
bool sim_iv_parse(const char *v, size_t len, sim_iv *out, char *pool, size_t npool);
/* The pool keys of a configuration in lookup order into keys[3] (in buf,
 * n bytes): framework x family ("any" framework when NULL), vendor, "all". */
void sim_iv_keys(const char *framework, const char *gpu, char *buf, size_t n, const char *keys[3]);

#endif
