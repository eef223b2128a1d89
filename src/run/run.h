/* run — the sweep runner: matrix row → environment → engine (the built-in
 * simulator or a recipe script) → client → processing → results store
 * (docs/run.md). The only module that starts processes.
 *
 * A run takes a list of matrix rows (ib_val maps, the JSON rows of `infbench
 * matrix`), plans each one (its §3.4 environment, RESULT_FILENAME, identity
 * hash, GPU count, or the reason it is skipped), then executes the pending
 * rows, `jobs` at a time, into a results store:
 *
 *   STORE/manifest.jsonl      one JSON line per state change (appended)
 *   STORE/rows/<identity>/    a finished row's workspace (renamed in place
 *                             when the row is done; never written again)
 *   STORE/work/<identity>/    a row under way (removed or renamed at its end)
 *   STORE/failed/<identity>/  the workspace of the last failed attempt
 *   STORE/lock                flock'd by a local run (one runner at a time)
 *
 * The library never prints: progress goes through the on_event callback,
 * which is called with a mutex held (one call at a time).
 */
#ifndef IB_RUN_H
#define IB_RUN_H

#include "base/base.h"
#include "bench/bench.h"
#include "fmt/fmt.h"
#include "results/results.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
	RUN_PENDING = 0,
	RUN_RUNNING,
	RUN_DONE,
	RUN_FAILED,
	RUN_SKIPPED,
	RUN_INTERRUPTED,
} run_state;
/* "pending", "running", ... */
const char *run_state_name(int state);

typedef enum { RUN_ENGINE_SIM = 0, RUN_ENGINE_RECIPE = 1 } run_engine;

typedef struct run_plan run_plan;

/* What the runner reports as it goes (on_event). Strings are valid during
 * the call only. */
typedef struct {
	int state;            /* the row's new state */
	size_t row;           /* index in the input list */
	size_t done, total;   /* rows finished (any end state) / selected */
	const char *name;     /* RESULT_FILENAME */
	const char *identity; /* 16 hex digits */
	const char *reason;   /* failed/skipped/interrupted: why; else NULL */
	bool reused;          /* done: found in the store, not run */
	double seconds;       /* wall time of this attempt (end states) */
	double eta_seconds;   /* < 0: unknown */
	/* progress within a running row (state RUN_RUNNING, tokens_total > 0):
	 * output tokens the simulator has generated for it so far, and about how
	 * many the row will generate in all (warmups included) */
	double tokens_done, tokens_total;
	/* progress within a running agentic row (state RUN_RUNNING, agentic):
	 * the AgentX replay's warmup, then the profiling seconds (model time)
	 * done of the duration, requests completed and failed, in flight */
	bool agentic, profiling;
	double elapsed, duration;
	size_t requests, failed, warmup_requests, inflight;
} run_event;

typedef struct {
	/* inputs */
	const char *self_exe;    /* the infbench binary (sim and bench) */
	const char *store;       /* results store folder (created) */
	int engine;              /* run_engine */
	const char *recipes;     /* recipe folder (engine recipe) */
	int jobs;                /* rows at once (>= 1) */
	const char *gpus;        /* "0-7", "0,2,4": device ids; NULL: discover */
	int cpus;                /* simulator rows at once at most (0: online CPUs) */
	int gpus_per_node;       /* multi-node recipe rows' GPUs per node (0: 8; -1: 0) */
	const char *runner_name; /* RUNNER_NAME; NULL: "<runner label>_0" */
	const char *tokenizer;   /* client (and simulator) tokenizer folder; NULL: the model id */
	double time_scale;       /* simulator --time-scale (0: real time) */
	int num_spec_tokens;     /* simulator draft tokens for spec rows (0: 3) */
	const char *sim_profile; /* simulator --profile YAML, or NULL */
	const char *const *sim_extra; /* extra simulator arguments (fault injection) */
	size_t nsim_extra;
	double ready_timeout_s; /* server wait-for-ready limit (0: 600) */
	double row_timeout_s;   /* client / recipe limit per row (0: none) */
	int prompts_per_conc;   /* num-prompts = this × CONC (0: 10, the reference) */
	int warmups_per_conc;   /* num-warmups = this × CONC (0: 2; < 0: none) */
	int prompt_threads;     /* client --prompt-threads (0: its default) */
	const char *version;    /* the client's version (part of the identity) */
	/* agentic-coding rows: the AgentX replay's corpus, a Weka trace file
	 * or folder (NULL: the corpus the reference replays for the row's model,
	 * from the local Hugging Face cache, else a stand-in generated once
	 * into STORE/agentx-corpus.jsonl), and the profiling seconds, model
	 * time on the simulator (0: the row's duration) */
	const char *agentx_corpus;
	int agentic_duration;
	/* evals of rows with run-eval (eval-only rows: the eval alone) */
	bool no_evals;            /* run the throughput benchmark only */
	const char *eval_dataset; /* gsm8k folder (train.jsonl, test.jsonl); NULL: the
	                           * stand-in set of `eval make-dataset` in
	                           * STORE/eval-dataset (gsm8k's sizes, seed 1) */
	double eval_accuracy;     /* simulator: fraction graded right (0: 0.93) */
	int eval_limit;           /* eval run --limit (0: every question) */
	bool force;               /* rerun done rows too */
	bool retry_failed;        /* rerun rows whose last attempt failed */
	bool dry_run;             /* plan and report, start nothing */
	bool shared_store;        /* no store lock: Slurm tasks share the store */
	/* containers (docs/run.md "Containers"): each process of a row (the
	 * simulator, the client, the eval; a recipe) runs inside the row's
	 * image with the runtime's flags (cluster/cluster.h) */
	int container;                     /* cl_runtime; 0: on the host */
	const char *container_images;      /* enroot/apptainer: the images as files
	                                    * (DIR/<image>.sqsh|.sif); NULL: by name */
	const char *const *container_opts; /* runtime options passed through */
	size_t ncontainer_opts;
	const char *shm_size; /* docker/podman --shm-size (NULL: 16g) */
	/* progress; may be NULL */
	void (*on_event)(void *arg, const run_event *ev);
	ib_log_fn on_log; /* runner notes (IB_LOG_ERR lines without "\n"), with arg */
	void *arg;
} run_opts;

void run_opts_init(run_opts *o);

/* Selection: `rows` is a comma list of indexes and ranges ("0,3-5"), NULL for
 * all; each filter is KEY=GLOB over the row's fields as Python str() prints
 * them (every filter must match). *keep gets n flags. IB_EINVAL for a bad
 * list or filter (named in e). */
int run_select(const ib_val *list, const char *rows, const char *const *filters, size_t nfilters,
               bool *keep, ib_error *e);

/* ---- planning (pure; exposed for tests) ---- */

/* The §3.5 RESULT_FILENAME of a row under runner name rn (appended to b). */
int run_result_filename(ib_buf *b, const ib_val *row, const char *runner_name);
/* The §3.4 environment of a row as "KEY=VALUE" lines (appended to b, one per
 * line, in the reference's order), given runner name, RESULT_FILENAME and port. */
int run_row_env(ib_buf *b, const ib_val *row, const char *runner_name, const char *result_filename,
                int port);
/* The agentic-coding variables of a row's environment, appended as
 * "KEY=VALUE" lines: what benchmark-tmpl.yml passes to an agentic job
 * (DURATION, KV_OFFLOADING, KV_OFFLOAD_BACKEND and its metadata as compact
 * JSON, TOTAL_CPU_DRAM_GB, ROUTER_METADATA, KV_P2P_TRANSFER for single-node
 * rows, AIPERF_FAILED_REQUEST_THRESHOLD=0.10, AIPERF_EXPERIMENTAL_FAST=0),
 * WEKA_LOADER_OVERRIDE when the runner's environment sets it, and the
 * processing's folders RESULT_DIR and AGENTIC_OUTPUT_DIR. IB_ENOMEM. */
int run_agentic_env(ib_buf *b, const ib_val *row, int64_t duration, const char *result_dir,
                    const char *output_dir);
/* Why the simulator cannot model a row (a sentence), or NULL when it can;
 * *model / *hw get the simulator's profile names when it can. Agentic-coding
 * rows are checked like fixed-length ones (the AgentX replay drives them). */
const char *run_sim_unmodelable(const ib_val *row, const char **model, const char **hw);
/* The recipe script for a row, as the launchers resolve it (§3.1 step 3)
 * under dir: DIR/[single_node/]SCENARIO_SUBDIR<prefix>_<precision>_<gpu>_<framework>[_mtp].sh,
 * then without the framework, then the benchmarks/ layout; the first that
 * exists. Returns 0 and the path in out, or IB_ENOENT with the names tried. */
int run_recipe_path(ib_buf *out, const char *dir, const ib_val *row, ib_error *e);
/* A multi-node row's per-node recipe (docs/run.md "Per-node recipes"):
 * DIR/[benchmarks/]multi_node/[SCENARIO_SUBDIR]<name>/server.sh for the
 * names run_recipe_path tries, the first that exists. Returns 0 and the
 * path in out, or IB_ENOENT (nothing in e). */
int run_node_recipe_path(ib_buf *out, const char *dir, const ib_val *row);
/* The GPUs per node of o's multi-node recipe rows (--gpus-per-node: 8
 * unless set; 0 when set to 0). */
int run_gpus_per_node(const run_opts *o);

/* Plans every selected row (keep may be NULL: all). Returns 0 or an error
 * (IB_EIO for the store, IB_ENOMEM). Free with run_plan_free. */
int run_plan_new(const run_opts *o, const ib_val *list, const bool *keep, run_plan **out,
                 ib_error *e);
void run_plan_free(run_plan *p);
size_t run_plan_count(const run_plan *p);
/* The i-th planned row's identity (16 hex) and RESULT_FILENAME. */
const char *run_plan_identity(const run_plan *p, size_t i);
const char *run_plan_name(const run_plan *p, size_t i);

/* Executes the plan: reuses done rows, runs the rest, appends the manifest,
 * stops cleanly on SIGINT/SIGTERM (blocked during the call and handled by a
 * thread of the runner). Returns 0 when the run itself worked (whatever the
 * rows' states), IB_EIO when the store is unusable or locked by another
 * runner. *failed / *skipped / *interrupted count rows in those end states
 * (each may be NULL). */
typedef struct {
	size_t done, reused, failed, skipped, interrupted;
	int stopped_by; /* the signal that stopped the run (SIGINT, SIGTERM), or 0 */
} run_summary;
int run_execute(const run_opts *o, run_plan *p, run_summary *sum, ib_error *e);

/* ---- Slurm ---- */

typedef struct {
	const char *partition, *account, *time; /* NULL: the cluster's defaults */
} run_slurm_opts;

/* Submits the plan's rows as Slurm job arrays (sbatch --array, one task per
 * row running `infbench run STORE/slurm/<stamp>/matrix.json --row-index
 * $SLURM_ARRAY_TASK_ID` with the options of o, against the shared store):
 * one array per GPU count for the recipe engine (--gres=gpu:N), one array
 * without GPUs for the simulator. Appends the job ids, blank-separated, to
 * jobids. IB_EIO when sbatch cannot be run or refuses (its message in e). */
int run_slurm_submit(const run_opts *o, const run_plan *p, const run_slurm_opts *so, ib_buf *jobids,
                     ib_error *e);
/* Appends `squeue` lines "JOBID_TASK STATE" of the given jobs to out (empty
 * when none is queued or running any more). Returns 0, or IB_EIO when squeue
 * cannot be run. */
int run_slurm_queue(const char *jobids, ib_buf *out, ib_error *e);
/* Counts the plan's rows by their latest manifest state into *sum (done,
 * failed, skipped, interrupted; others are not counted). */
int run_plan_outcome(const run_plan *p, const char *store, run_summary *sum, ib_error *e);

/* ---- the store ---- */

/* The latest manifest record per identity, as a JSON list of objects
 * (arena a), in first-seen order; a running record whose runner is gone is
 * reported as "interrupted"; lines torn by a crash are skipped. Returns 0,
 * IB_ENOENT (no manifest), IB_EIO. */
int run_store_status(ib_arena *a, const char *store, ib_val **out, ib_error *e);

/* Collects every STORE/rows/<id>/agg_*.json of the plan's done rows into a
 * JSON list, written like `infbench collect` (indent 2) to out_path atomically.
 * When done rows ran an eval, their eval rows (`infbench eval collect`'s, one
 * folder each) go to agg_eval_<X> beside it, where out_path's file name is
 * agg_<X> (agg_bmk.json -> agg_eval_bmk.json). */
int run_collect(const run_plan *p, const char *store, const char *out_path, ib_error *e);

/* The matrix rows of a parsed matrix document: a JSON list of rows as it is,
 * or the object `infbench changelog process` prints (changelog_metadata
 * and buckets): its single_node and multi_node buckets, then evals,
 * agentic_evals, multinode_evals, multinode_agentic_evals, in that order,
 * as one list in arena a. IB_EINVAL for anything else. */
int run_matrix_rows(ib_arena *a, const ib_val *doc, const ib_val **rows, ib_error *e);

/* ---- infbench sweep: one endpoint, several loads, one report ---- */

/* Runs the benchmark client (in process) against o->base_url once per
 * request rate x concurrency, each into o->results as <name>.json (the raw
 * result; name "conc<C>" for rate inf, else "rate<R>-conc<C>"), turns each
 * into the agg row agg_<name>.json (res_process with the labels' variables;
 * a simulator's results stay marked simulated), and writes
 * o->results/report.html from the folder. A point whose agg row is already
 * there is reused (resume) unless o->force. The folder is created (or
 * checked writable) first. Lines for the user go to o->note; the client's
 * own lines to o->log. Returns 0 when the report was written (points may
 * have failed: *sum says), IB_EINVAL for options the client rejects, IB_EIO
 * for the folder or the report, or the first point's error when it could
 * not run at all. */
typedef struct {
	const char *base_url, *model, *tokenizer, *backend, *endpoint;
	const char *results; /* DIR */
	const size_t *concs;
	size_t nconcs;
	const char *const *rates; /* "inf" or numbers as text; NULL: {"inf"} */
	size_t nrates;
	int64_t input_len, output_len;
	double range_ratio;
	int64_t seed;
	int prompts_per_conc, warmups_per_conc; /* num-prompts/-warmups = x * CONC */
	bool use_chat_template;
	res_labels labels;
	const char *title; /* the report's; NULL: the default */
	bool force;        /* run every point again */
	const bench_log *log;
	void (*note)(void *arg, const char *line);
	void *arg;
} run_sweep_opts;

typedef struct {
	size_t points, ran, reused, failed, drawn;
	bool simulated; /* a point's server announced itself as the simulator */
	char report[4200];
} run_sweep_summary;

int run_sweep(const run_sweep_opts *o, run_sweep_summary *sum, ib_error *e);

#endif
