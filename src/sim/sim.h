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
#include <stdio.h>
#include "net/net.h"

struct tok;
struct chat_tmpl;
typedef struct sim_grader sim_grader;

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
	int sparse_topk;        /* > 0: sparse attention (DSA, MSA): a decode token reads at most
				 * this many tokens' KV per layer, plus an index of the whole context */
	int index_dim;          /* bytes per token per layer of that index (read over the context) */
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
	net_tls *tls;            /* NULL: plain HTTP; else HTTPS with this context (--tls-cert) */
	double header_timeout;   /* seconds a connection may take to send a request (60; 0: none) */
	const char *served_model_name;
	const char *const *lora; /* LoRA adapter names, also served (vLLM's --lora-modules) */
	size_t nlora;
	/* performance model */
	sim_hw hw;
	sim_model model;
	const char *precision;  /* bf16, fp8, fp4: weights and compute */
	double kv_bytes;        /* bytes per KV element (2 = bf16, 1 = fp8) */
	int tp;
	int ep;                 /* expert parallel ranks (1: experts sharded by TP) */
	bool dp_attn;           /* data-parallel attention: each of the TP ranks runs its own
				 * sequences with the whole attention (own batch and KV) */
	int pp;                 /* pipeline stages (GPUs = TP x PP) */
	/* disaggregated prefill (in-process runs, sim_run_load): prefill_workers
	 * > 0 separate prefill instances of prefill_tp GPUs each take every
	 * prompt (first come, first served), send its KV over the scale-up link,
	 * and this configuration only decodes; 0: aggregated */
	int prefill_workers, prefill_tp;
	int max_num_seqs;
	int max_num_batched_tokens;
	int block_size;
	double gpu_mem_util;
	double mem_eff, compute_eff;
	double step_overhead_s;
	double seq_overhead_s;  /* per running sequence per step (scheduling, sampling) */
	double comm_eff;        /* fraction of the link bandwidth collectives reach */
	double ep_imbalance;    /* the busiest EP rank's expert load over the mean (>= 1) */
	const char *framework;  /* vllm, sglang, trt, atom, ... (calibration rules match it) */
	const char *framework_version; /* its image tag or date (rules may match it), or NULL */
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
} sim_config;

/* Defaults: H100, llama3-8b, bf16, TP 1, vLLM-like scheduler settings. */
void sim_config_init(sim_config *c);

/* The performance model, exposed for tests and docs. */
typedef struct {
	double weight_bytes_per_gpu;
	double expert_bytes_per_gpu;   /* the routed experts' share of the above */
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

/* The parts of a step's time (model seconds), for tests and calibration. */
typedef struct {
	double mem, compute;   /* roofline terms (the step takes the larger) */
	double comm;           /* all-reduce / all-to-all / pipeline transfers */
	double overhead;       /* per step and per sequence */
	double bytes_per_gpu;  /* HBM bytes read by the busiest GPU */
	double expert_bytes;   /* of which routed-expert weights */
	double kv_bytes;       /* of which KV cache */
	double total;          /* = sim_step_time */
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
	int num_prompts;  /* InferenceX: 10 x concurrency */
	int isl, osl;
	double range_ratio; /* InferenceX: 0.8 */
	uint64_t seed;
} sim_load;

typedef struct {
	int completed;
	double duration;      /* model seconds, first send to last token */
	double median_tpot, mean_tpot, median_ttft; /* seconds (TPOT as InferenceX: (E2EL-TTFT)/(out-1)) */
	double total_tok_s;   /* (input + output tokens) / duration, whole instance */
	double output_tok_s;
	int64_t steps, preemptions;
} sim_load_result;

/* Returns 0, IB_EINVAL when the weights or a request do not fit (e says
 * which) or the load is empty, IB_ENOMEM. */
int sim_run_load(const sim_config *c, const sim_load *ld, sim_load_result *out, ib_error *e);

/* ---- published points (docs/sim.md "Validation") ---- */
typedef enum {
	SIM_POINT_MEASURED, /* blog-measured, pr-table-inferencex: a fixed recipe */
	SIM_POINT_PEAK,     /* blog-peak: a best config, often without its TP */
	SIM_POINT_FRONTIER, /* dashboard and blog-interpolated rows */
	SIM_POINT_OTHER,    /* prose, vendor numbers */
} sim_point_kind;

typedef struct {
	int row_id, line;
	const char *page_kind, *model_name, *gpu_name; /* as the file has them */
	sim_point_kind kind;
	/* the configuration (NULL / 0 where the row does not say) */
	const char *model, *gpu, *precision, *framework, *spec;
	const char *version; /* the first image tag (vX.Y...) or date (YYYY-MM-DD) in the note */
	int tp, ep, conc, isl, osl;
	bool dp_attn, disagg;
	bool no_spec;      /* frontier / peak rows: the page or note rules speculative decoding out */
	double tps_gpu, interactivity; /* published (NAN when absent) */
	double cost;       /* published $ per million total tokens (NAN when absent) */
	double tpot_ms;    /* peak rows: published median TPOT (NAN when absent) */
	bool tps_from_cost; /* tps_gpu was derived from cost (README's formula) */
	const char *why;               /* non-NULL: why the row cannot be run */
} sim_point;

typedef struct {
	double tps_gpu, interactivity, median_tpot, median_ttft;
} sim_point_result;

/* The calibration's framework key named in a text (a framework field such as
 * "dynamo-sglang", a note, an image): "trt", "atom", "sglang" or "vllm", in
 * that order of precedence; NULL when none is named. */
const char *sim_framework_key(const char *text);
/* The first version in a text (an image tag "v0.5.10rc0", else a date
 * "2026-05-02"), copied into a; NULL when none (or text is NULL). */
const char *sim_version_of(ib_arena *a, const char *text);
/* Reads points.tsv (../shared/golden/real-frontiers/README.md) into *out
 * (n rows, in arena a): each row's kind, its configuration from the
 * columns and the recipe note (framework, TP=, EP=, MTP/EAGLE, DP
 * attention, disaggregation, concurrency), and why it cannot run, if so.
 * Errors: IB_ENOENT, IB_EINVAL (a missing column, no rows), IB_ENOMEM. */
int sim_points_load(const char *path, ib_arena *a, sim_point **out, size_t *n, ib_error *e);
/* The simulator configuration of a runnable row, its calibration resolved
 * from cal (NULL: defaults). IB_EINVAL with p->why otherwise. */
int sim_point_config(const sim_point *p, const sim_calib_file *cal, sim_config *c, ib_error *e);
/* Runs the row in process (sim_run_load, prompts_per_conc x concurrency
 * prompts, ratio 0.8, seed = row id) and gives total tok/s per GPU and
 * interactivity (1 / median TPOT). */
int sim_point_run(const sim_point *p, const sim_calib_file *cal, int prompts_per_conc, sim_point_result *r,
		  ib_error *e);

/* ---- frontier sweeps (docs/sim.md "Frontier and peak rows") ----
 * A frontier or peak row stands for the best of every serving config of its
 * series: model x GPU x precision x ISL/OSL (and the framework, framework
 * version and speculative-decoding setting its note names, if any). The
 * sweep runs the generic search space of that series in process:
 * frameworks (the note's, else every framework the calibration file has a
 * rule for on that GPU, else vllm), TP in {1,2,4,8} within a node (4 GPUs
 * on GB200/GB300 trays), EP in {1, TP} for MoE models, DP-attention on/off
 * with EP = TP > 1 (SGLang, vLLM, TRT-LLM), speculative decoding off and
 * on (the model's MTP or EAGLE3 drafts, 3 tokens) unless ruled out or
 * required — with a sweep matrix, on only when a row of that model there
 * runs spec decoding (InferenceX has a recipe) —, concurrency
 * 4..max_conc doubling. Configs whose weights do not
 * fit are left out. */
typedef struct {
	const char *framework, *spec; /* spec: NULL when off */
	int tp, ep, conc;
	bool dp_attn;
	double tps_gpu, interactivity, median_ttft, median_tpot;
	bool from_matrix; /* the config came from the sweep matrix */
} sim_sweep_point;

/* The $/GPU-hr the dashboard prices a GPU at (owning hyperscaler, README of
 * real-frontiers), NAN when unknown; gpu is a profile name ("mi355x"). */
double sim_gpu_price(const char *gpu);
/* GPUs of one node the sweep spreads TP over: 4 on GB200/GB300 trays, else 8. */
int sim_sweep_node_gpus(const char *gpu);
/* True when a and b belong to the same series (one sweep serves both). */
bool sim_point_same_series(const sim_point *a, const sim_point *b);
/* Runs the sweep of p's series (p a frontier or peak row without why)
 * with the options o. *out (malloc'd, the caller frees it) gets the configs that
 * ran, in enumeration order; *nconf the number enumerated. IB_EINVAL when
 * p cannot run, IB_ENOMEM. */
typedef struct {
	int prompts_per_conc; /* prompts per unit of concurrency of each config (InferenceX: 10) */
	int max_conc;         /* the highest concurrency (4, 8, ... max_conc) */
	bool no_spec;         /* spec decoding only where the row requires it */
	/* a sweep matrix (`matrix full-sweep` rows as ib_val maps), or NULL: a
	 * series with single-node rows there sweeps those configs instead of
	 * the generic space (sim_sweep_from_matrix) */
	const ib_val *matrix;
	/* when non-NULL: run exactly these nonly configs (a subset of an
	 * earlier sweep of the same series, e.g. the configs that made its
	 * frontier) instead of enumerating the series' space */
	const struct sim_sweep_config *only;
	size_t nonly;
} sim_sweep_opts;

/* One config of a sweep (concurrency included). */
typedef struct sim_sweep_config {
	const char *framework, *spec; /* spec: NULL when off */
	int tp, ep, conc;
	bool dp_attn;
} sim_sweep_config;
/* The configs of the matrix rows that belong to p's series: single-node,
 * aggregated rows (pp 1) of p's model (model-prefix resolved through the
 * profile aliases), precision, GPU (the runner's name up to its first '-',
 * without "cluster:"), ISL/OSL, framework (when p names one) and spec
 * setting (MTP rows run the model's draft method), concurrency <= max_conc;
 * duplicates once. *out is malloc'd (NULL when none). 0 or IB_ENOMEM. */
int sim_sweep_from_matrix(const ib_val *rows, const sim_point *p, int max_conc,
			  sim_sweep_config **out, size_t *n);
int sim_sweep_run(const sim_point *p, const sim_calib_file *cal, const sim_sweep_opts *o,
		  sim_sweep_point **out, size_t *n, size_t *nconf, ib_error *e);
/* A peak row's counterpart: of the sweep points at the concurrency nearest
 * to conc (ties: the lower) and of framework fw (NULL: any), the one with
 * the highest tok/s/GPU; -1 when none. */
ptrdiff_t sim_sweep_peak(const sim_sweep_point *pts, size_t n, int conc, const char *fw);

/* Absolute percentage errors of a group of rows (sim validate's summary,
 * per kind and per GPU). Zero-initialise; release with sim_ape_free. */
typedef struct {
	size_t total, runnable; /* rows counted, rows that ran */
	double *tps, *inter;    /* |error| in % of each published figure */
	size_t ntps, ninter, cap_tps, cap_inter;
} sim_ape;
/* The signed error of sim against published in %; NAN when published is NAN
 * (the row publishes no such figure). */
double sim_err_pct(double sim, double published);
/* Counts a row; one that ran with its signed errors in % (sim_err_pct; NAN:
 * not published, not counted in that figure). 0 or IB_ENOMEM. */
int sim_ape_add(sim_ape *g, bool runnable, double tps_err, double inter_err);
/* Median and mean of the tok/s/GPU and interactivity APEs (NAN when the
 * group has none); sorts the group's arrays. */
void sim_ape_stats(sim_ape *g, double *tps_median, double *tps_mean, double *inter_median,
		   double *inter_mean);
void sim_ape_free(sim_ape *g);

/* ---- the fit (sim calibrate) ---- */
#define SIM_FIT_MIN_POINTS 4
typedef struct {
	const char *framework, *gpu; /* the group: measured runnable rows of this pair */
	const char *model;           /* and of this model (NULL: any model) */
	const char *version;         /* and of this framework version (NULL: any) */
	/* frontier groups (`sim calibrate`'s frontier levels): frontier rows
	 * of one GPU (model and precision NULL) or of GPU x model x precision;
	 * the rule matches these frameworks (NULL-terminated; framework is
	 * NULL) */
	bool frontier;
	const char *precision;
	const char *const *frameworks;
	size_t nseries;
	size_t npoints, nfigures;    /* rows, and published figures (tok/s/GPU, interactivity) */
	bool fitted;                 /* npoints >= SIM_FIT_MIN_POINTS (frontier groups: and the
				      * rule lowered the group's error) */
	sim_calib values;            /* the group's parameters after the fit */
	double loss_before, loss_after; /* mean squared log error of its figures */
} sim_fit_group;
/* Fits mem-eff, compute-eff, step-overhead-us and seq-overhead-us per framework x GPU
 * group (coordinate descent, golden-section searches, deterministic) on
 * top of base (NULL: defaults), running each point with prompts x its
 * concurrency prompts. *out (in arena a) lists every group. */
/* level -1: every row (one global rule); 0: framework x GPU; 1: x model; 2: x model x
 * version (rows with one) */
int sim_fit(const sim_point *pts, size_t n, const sim_calib_file *base, int prompts, int level,
	    ib_arena *a, sim_fit_group **out, size_t *nout, ib_error *e);
/* A fit's objective: the mean squared log error of some published figures
 * when the simulator runs under cal (*nfigures, when not NULL, gets their
 * count); INFINITY when a run fails. */
typedef double (*sim_fit_loss_fn)(void *ctx, const sim_calib_file *cal, size_t *nfigures);
/* Fits mem-eff, step-overhead-us, seq-overhead-us and compute-eff of cal's
 * last rule (starting from its values; the rule's `set` gains them) by
 * coordinate descent: `passes` rounds of one golden-section search per
 * parameter (`iters` steps each, log scale) minimising loss(ctx, cal).
 * Deterministic when loss is. sim_fit uses it for the measured groups;
 * `sim calibrate` for the frontier groups (docs/sim.md "Calibration"). */
void sim_fit_descend(sim_calib_file *cal, sim_fit_loss_fn loss, void *ctx, int passes, int iters);
/* The calibration rule of group g (its match: framework or frameworks, GPU,
 * precision, model, version, each when set; its values; the fitted
 * parameters marked set), name lists in arena a. 0 or IB_ENOMEM. */
int sim_fit_group_rule(const sim_fit_group *g, ib_arena *a, sim_calib_rule *r);
/* base's rules followed by the fitted groups' (in arena a); IB_ENOMEM. */
int sim_fit_append(const sim_calib_file *base, const sim_fit_group *g, size_t n, ib_arena *a, sim_calib_file *out);
/* The fitted groups as calibration rules (YAML list items, indented two
 * spaces under `rules:`), each with a note of its provenance. */
void sim_fit_rules(const sim_fit_group *g, size_t n, ib_buf *out);
/* The measured part of the calibration (what `sim calibrate` writes before
 * its frontier level): four levels fitted one on top of the other on base
 * (NULL or empty: the defaults) — every row, framework x GPU, x model, x
 * framework version — each level's groups in gs[l] (ng[l] of them, in arena
 * a), the calibration file (a header naming prompts and base_name, the
 * defaults rule, the fitted rules) appended to yaml, and its rules in
 * *fitted (in a; NULL: not wanted). Errors of sim_fit; IB_ENOMEM. */
int sim_calibrate(const sim_point *pts, size_t n, const sim_calib_file *base, const char *base_name,
		  int prompts, ib_arena *a, sim_fit_group *gs[4], size_t ng[4], ib_buf *yaml,
		  sim_calib_file *fitted, ib_error *e);

typedef struct sim_server sim_server;
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

#endif
