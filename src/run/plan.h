/* run — the plan (plan_build.c) and the per-row context shared by the
 * executor (execute.c), row.c, slurm.c and store.c. */
#ifndef IB_RUN_PLAN_H
#define IB_RUN_PLAN_H

#include "agentx/agentx.h"
#include "run/private.h"

#include <pthread.h>

typedef struct {
	size_t index; /* in the input list */
	const ib_val *row;
	const char *name; /* RESULT_FILENAME */
	char identity[17];
	const char *identity_json; /* what the identity hashes */
	const char *skip;          /* why the row is skipped, or NULL */
	const char *missing;       /* why the row cannot run (a failure), or NULL */
	const char *recipe;        /* engine recipe: the script */
	bool node_recipe;          /* recipe is a multi-node row's per-node server.sh */
	const char *sim_model, *sim_hw, *sim_spec_method;
	const char *runner_name; /* RUNNER_NAME */
	bool spec, amd;
	/* agentic-coding rows: the AgentX replay's corpus (a trace file or
	 * folder; NULL for recipe rows without --agentx-corpus), what
	 * identifies its content, the dataset name the aggregate records
	 * (NULL: the corpus path), the profiling seconds (model time), and
	 * whether the corpus is the stand-in made in the store */
	bool agentic, standin;
	const char *corpus, *corpus_id, *dataset;
	int64_t duration;
	bool eval, eval_only; /* run-eval / eval-only rows (unless no_evals) */
	int64_t gpus;         /* GPU_COUNT */
	/* scheduling */
	int sched; /* 0 queued, 1 taken, 2 finished */
	int prev_attempts;
} run_item;

/* Resolved options (defaults filled in). */
typedef struct {
	const char *runner_name; /* NULL: per row "<label>_0" */
	double ready_timeout_s;
	int prompts_per_conc, warmups_per_conc, num_spec_tokens, prompt_threads;
	const char *shim_dir;        /* engine recipe: the folder put first in PATH */
	const char *eval_dataset;    /* the gsm8k folder evals use (absolute) */
	const char *eval_dataset_id; /* its content hashes, or the stand-in's recipe */
	double eval_accuracy;
	/* engine sim: the calibration file every simulator gets (--calibration;
	 * resolved once, as `infbench sim` would: sim_calib_find) and its
	 * content hash (part of the identity); NULL: none, built-in defaults */
	const char *sim_calibration, *sim_calibration_sha;
	/* and the prediction-interval table beside it (intervals.yaml, docs/sim.md
	 * "Prediction intervals"), passed as --intervals and mounted with it;
	 * NULL: none. Not part of the identity (it changes no figure). */
	const char *sim_intervals;
	/* agentic rows: --agentx-corpus (absolute) and its content hash, and
	 * where the stand-in corpus lives (STORE/agentx-corpus.jsonl) */
	const char *agentx_corpus, *agentx_corpus_sha, *standin;
} run_resolved;

struct run_plan {
	ib_arena *a;
	run_item *items;
	size_t n;
	run_resolved x;
};

typedef struct {
	const run_opts *o;
	const run_resolved *x;
	const run_item *it;
	ib_arena *a;    /* per attempt */
	const char *ws; /* STORE/work/<id> */
	const char *server_log, *client_log;
	const char *shown_server_log, *shown_client_log; /* where they end up (failed/) */
	int port;
	int64_t conc;
	char devices[256]; /* "0,1,2,3" or "" */
	pid_t server;
	char *const *envp;
	int state;
	ib_buf reason;
	double server_start_s, client_s, process_s; /* phases (bench/run.sh) */
	const char *eval_log, *shown_eval_log;
	const char *prompt_cache; /* STORE/prompt-cache: the client's --prompt-cache */
	void *exec;               /* the executor (execute.c) */
	atomic_int *stop;         /* the run's stop flag: the signal that stops it, or 0 */
	/* containers (container.c) */
	const char *env_text;  /* the row's variables, "K=V" lines */
	const char *cnames[4]; /* the containers this attempt names */
	size_t ncnames;
	pid_t watcher; /* removes them when the runner ends, however (0: none) */
	int watch_fd;  /* its pipe: closing it (or dying) sets it off; -1: none */
} row_ctx;

/* row.c: runs one row in rc->ws; returns its end state (RUN_DONE,
 * RUN_FAILED, RUN_INTERRUPTED) with rc->reason. */
int row_execute(row_ctx *rc);
/* execute.c: reports progress within the running row rc (an on_event of
 * state RUN_RUNNING with tokens_done and tokens_total). */
void run_row_progress(row_ctx *rc, double tokens_done, double tokens_total);
/* The same for an agentic row: where its replay stands (an
 * ax_replay_progress) as a RUN_RUNNING event with `agentic` set. */
void run_row_agentic_progress(row_ctx *rc, const ax_replay_progress *p);
/* execute.c: records a started process group (for cleanup after a SIGKILL). */
void run_note_pid(row_ctx *rc, pid_t pid);
/* plan_build.c: makes the stand-in eval dataset (x->eval_dataset) unless it is
 * there already; atomic (a temp folder renamed). */
int run_eval_dataset(const run_resolved *x, ib_error *e);
/* container.c: --container. Before a row's first process: the preflight
 * (the image on this host, the weights staged in the HF cache for recipe
 * rows, GPUs for recipe rows), leftovers of the row removed by name, and a
 * watcher that removes the row's containers when the runner ends, even by
 * SIGKILL. Returns RUN_RUNNING, or RUN_FAILED with rc->reason. */
int row_container_begin(row_ctx *rc);
/* The command line that runs argv inside the row's image as role ("server",
 * "client", "eval", "recipe"); argv itself when no container is asked for;
 * NULL with rc->reason set when it cannot be built. */
const char **row_in_container(row_ctx *rc, const char *role, const char **argv);
/* After the row's processes ended: its containers stopped and removed
 * (through the watcher, else directly). */
void row_container_end(row_ctx *rc);
/* agentic.c: an agentic row's AgentX replay, in this thread, against the
 * row's server (watching the stop flag, the server and --row-timeout);
 * RUN_RUNNING when it ran, else the end state with rc->reason. */
int row_agentic_replay(row_ctx *rc);
/* agentic.c: after an agentic row's engine: process_agentic_result into
 * <name>.json (the simulator engine; a recipe did its own), the power
 * adapter (single-node rows), the validity gate, and agg_<name>.json.
 * RUN_RUNNING, or RUN_FAILED with rc->reason. */
int row_agentic_finish(row_ctx *rc);
/* plan_build.c: makes the stand-in corpus (x->standin) unless it is there
 * already (written atomically). */
int run_agentx_standin(const run_resolved *x, ib_error *e);
/* row.c: appends argv as one shell-quoted line to WS/commands.txt. */
void row_note_command(const char *ws, const char *const *argv);
/* row.c: sets rc->reason and rc->state; returns state. */
int row_fail(row_ctx *rc, int state, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* row.c: the simulator's command line, configured from the row; appends
 * argv, as shell words, as a line of the workspace's commands.txt. */
const char **row_sim_argv(row_ctx *rc);
void row_note_command(const char *ws, const char *const *argv);
/* roles.c: whether rc is a multi-node row inside its Slurm job (the job
 * script exported FRONTEND_NODE) on the simulator engine, or with a
 * per-node recipe (run_item.node_recipe); then the command that runs its
 * roles as srun steps (WS/roles.sh, cl_mn_roles_script), or NULL with
 * rc->reason: on the simulator engine one simulator per role and node (the
 * row's simulator command line with --role and --replicas; in the row's
 * container when asked) and the frontend (`infbench sim frontend` on
 * PORT); on the recipe engine the row's server.sh on every node
 * (cl_mn_nodes_of) with NODE_RANK, the addresses of WS/nodes.env and the
 * node's GPU monitor, in the row's container when asked. */
bool row_roles_wanted(const row_ctx *rc);
const char **row_roles_argv(row_ctx *rc);
/* The variables such a row adds to its environment: POWER_PRODUCER_SHA
 * (the producer row_roles_power names) and for per-node recipes
 * GPUS_PER_NODE, xP, yD (the pools' workers). Nothing for other rows. */
void row_roles_env(const row_ctx *rc, ib_buf *env);
/* The producers that row_roles_power names in its package, which the row's
 * POWER_PRODUCER_SHA pins: simulated telemetry, the nodes' monitors. */
#define RUN_SIM_POWER_PRODUCER  "infbench-sim-telemetry"
#define RUN_NODE_POWER_PRODUCER "infbench-node-monitor"
/* After the roles stopped: the multinode power package of the row
 * (pw_mn_pack) at WS/LOGS/power from the roles' telemetry (simulated, or
 * the per-node recipes' monitors)
 * (WS/LOGS/gpu_metrics/NODE/ROLE.csv: prefill-N, decode-N, worker-N as
 * the roles prefill, decode, agg), which processing then validates; what it
 * did, or why it could not, in WS/power_package.log. Best effort, as the
 * reference's: a missing package makes the row's power invalid, never the
 * row fail. */
void row_roles_power(row_ctx *rc);
/* After the client ended, before the roles stop: waits (3 s at most) until
 * every telemetry file under WS/LOGS/gpu_metrics/ was written after now, so
 * that the monitors' samples bracket the benchmark's window. */
void row_roles_settle(row_ctx *rc);
/* execute.c: the variables a recipe also gets (PATH with the client shim, ...). */
void run_recipe_env(row_ctx *rc, ib_buf *env);

#endif
