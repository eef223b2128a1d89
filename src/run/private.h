/* run — private helpers shared by the files of the module. */
#ifndef IB_RUN_PRIVATE_H
#define IB_RUN_PRIVATE_H

#include "run/run.h"

#include <signal.h>
#include <stdatomic.h>
#include <sys/types.h>

/* plan.c */
void run_field(ib_buf *b, const ib_val *row, const char *key, const char *dflt);
const char *run_fieldz(ib_arena *a, const ib_val *row, const char *key, const char *dflt);
int64_t run_gpu_count(const ib_val *row);
bool run_row_is_spec(const ib_val *row);
/* An agentic-coding row (its scenario-type). */
bool run_row_agentic(const ib_val *row);
/* A boolean row field (run-eval, eval-only): JSON true or the text "true". */
bool run_row_flag(const ib_val *row, const char *key);
/* How the simulator models a row (the flags of `infbench sim` the runner
 * passes): the calibration's framework key (the row's framework, "dynamo-"
 * and "-disagg" forms mapped to it) and version (from the image tag; NULL
 * when a is NULL or the tag names none), the parallelism and an FP8 KV cache
 * for every precision but bf16 (as InferenceX's recipes, and as `sim
 * validate` runs published rows). */
typedef struct {
	const char *framework, *version;
	int tp, ep, pp;
	bool dp_attn, fp8_kv;
	/* a disaggregated row (its `prefill` and `decode` pools): tp/ep/pp/
	 * dp_attn above are a decode worker's; 0 prefill workers: aggregated */
	int prefill_workers, prefill_tp, prefill_ep, decode_workers;
	bool prefill_dp_attn;
} run_sim_shape;
void run_sim_shape_of(ib_arena *a, const ib_val *row, run_sim_shape *s);
/* One item of an index list like "0,3-5" (--rows, --gpus): reads "A" or
 * "A-B" (0 <= A <= B) at *s into *a, *b and advances *s past it; false on
 * bad syntax. run_range_sep then takes the ',' after it: true at a ',' (which
 * it skips) or at the end of the string, false otherwise. */
bool run_range(const char **s, long *a, long *b);
bool run_range_sep(const char **s);

/* proc.c: child processes in their own process group (through base's one
 * spawner, ib_proc_spawn; ib_proc_reap collects them).
 * Starts argv[0] (a path, or looked up in PATH) with the environment envp
 * (NULL: the runner's), in folder cwd, stdin from /dev/null and stdout +
 * stderr appended to log (created). The child leads a new process group
 * (pgid = pid), with every signal unblocked and default dispositions, and
 * dies with the runner (PR_SET_PDEATHSIG: SIGKILL when the thread that
 * started it ends, the runner killed by SIGKILL included). */
int run_spawn(const char *const *argv, char *const *envp, const char *cwd, const char *log,
              pid_t *pid, ib_error *e);
/* Stops the process group of pid: SIGTERM, up to grace_ms for pid to exit,
 * then SIGKILL to the group; reaps pid. Returns its status. */
int run_stop_group(pid_t pid, int grace_ms);
/* GET http://127.0.0.1:port/health answered with a status < 400 within
 * timeout_ms. */
bool run_health(int port, int timeout_ms);
/* A TCP port that is free on 127.0.0.1 now (bound and released), never one
 * in avoid[0..n); 0 on failure. */
int run_free_port(const int *avoid, size_t n);
/* Appends the last nlines lines of the file at path (each prefixed with
 * "  | ") to b; nothing when it cannot be read. */
void run_tail(ib_buf *b, const char *path, int nlines);
/* Sleeps ms milliseconds (resumes after signals). */
void run_sleep_ms(int ms);

/* store.c */
typedef struct {
	int fd; /* manifest, O_APPEND */
	int lock_fd;
	char *dir;
} run_store;
int run_store_open(run_store *s, const char *dir, bool lock, ib_error *e);
void run_store_close(run_store *s);
/* Appends one manifest record (a JSON object, one line, one write). */
int run_store_append(run_store *s, const ib_val *rec, ib_error *e);
/* Reads the manifest's latest record per identity into a map identity →
 * record (arena a); *stale gets the identities whose last record is
 * "running". A missing manifest gives an empty map. */
int run_store_latest(ib_arena *a, const char *dir, ib_val **latest, ib_error *e);
/* Takes the lock of one row, STORE/locks/<identity> (flock, exclusive,
 * not waiting), which a runner holds while the row is in flight (from
 * before its workspace is cleaned until its end is recorded). Returns the
 * lock's fd (close it to release), or -1: another runner holds it (errno
 * EWOULDBLOCK) or it cannot be opened. */
int run_store_row_lock(const char *store, const char *identity);
/* Whether the row's STORE/rows/<identity>/agg_<name>.json is there and
 * parses as a JSON object: only then is a "done" row done (a damaged one
 * is run again, and counts as failed in an outcome read back). */
bool run_store_agg_ok(const char *store, const char *identity, const char *name);
/* Removes a folder tree (best effort). */
void run_rmtree(const char *path);

#endif
