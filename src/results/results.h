/* results: turning raw benchmark results into agg rows and collections of them:
 * collect (utils/collect_results.py), success rate (calc_success_rate.py),
 * process (process_result.py, which runs power/'s step). See docs/ and the
 * issue. */
#ifndef IB_RESULTS_H
#define IB_RESULTS_H

#include "base/base.h"
#include "fmt/fmt.h"
#include "power/power.h"

#include <stddef.h>

/* Every file below dir whose name ends in ".json" (case-sensitive; dot-files
 * and a file named ".json" included; directories are descended, symlinked
 * directories too, but a directory whose name ends in ".json" is an error as
 * in the reference), as relative-to-cwd paths "dir/sub/x.json", sorted
 * bytewise (the reference uses filesystem order; see docs/collect.md).
 * A missing dir gives zero paths (as Path.rglob does). On success *paths is a
 * malloc'd array of *n malloc'd strings, freed with res_paths_free.
 * Returns 0, IB_ENOMEM, or IB_EIO (unreadable folder, a directory named
 * *.json) with the path in e. */
int res_find_json(const char *dir, char ***paths, size_t *n, ib_error *e);
void res_paths_free(char **paths, size_t n);

/* Parses every file of res_find_json(dir) and returns them, in that order, as
 * a JSON list in arena a (*out). A file that is not valid JSON is IB_EPARSE
 * naming the file, line and column; unreadable is IB_EIO. */
int res_collect(ib_arena *a, const char *dir, ib_val **out, ib_error *e);

/* res_collect, then writes the list as json.dump(indent=2) (no trailing
 * newline) to out_path atomically (temp + rename): on any error nothing is
 * written. */
int res_collect_write(const char *dir, const char *out_path, ib_error *e);

/* ---- success rate (calc_success_rate.py) ---- */

/* The hardware labels of a runners.yaml tree, as the reference derives them:
 * the "cluster:" keys of its `labels` map (the top level when there is none),
 * prefix removed; without any, the keys of its `hardware` map; sorted
 * bytewise, duplicates removed. Strings point into the tree. Returns 0 or
 * IB_ENOMEM; *labels is malloc'd (free()). */
int res_hw_labels(const ib_val *runners, const char ***labels, size_t *n);

/* The label a job name counts for: the first label (in the given order) that
 * occurs in the lower-cased name, alone or as "cluster:<label>", with no
 * [a-z0-9] character right before or after it. -1 when none. */
int res_job_label(const char *name, const char *const *labels, size_t n);

/* Builds {label: {"n_success": S, "total": T}} in label order from a list of
 * jobs ({"name", "conclusion"}): "skipped" is ignored, every other conclusion
 * (null too) counts in total, "success" also in n_success. A job without a
 * string name is IB_EINVAL. */
int res_success_rates(ib_arena *a, const ib_val *jobs, const char *const *labels, size_t n,
                      ib_val **out, ib_error *e);

/* Appends the reference's text table of rates (None: "No data to display"). */
int res_success_table(ib_buf *b, const ib_val *rates);

/* ---- process and power (process_result.py, aggregate_power*.py) ----
 * docs/process.md and docs/power.md describe every input, output and rule.
 *
 * Output lines: as in power/power.h (pw_log_fn). */
typedef pw_log_fn res_log_fn;

/* The environment process_result.py reads, as NAME=VALUE strings: the first
 * entry of a name wins (put overrides first). env == NULL: the process
 * environment (environ). */
typedef struct {
	const char *dir;        /* working folder; NULL or "": the current one */
	const char *const *env; /* NULL-terminated NAME=VALUE list, or NULL */
	bool derived;           /* add the "derived" object (beyond the reference) */
	pw_log_fn log;
	void *log_ud;
} res_process_opts;

/* process_result.py: reads <dir>/$RESULT_FILENAME.json and the environment,
 * writes <dir>/agg_$RESULT_FILENAME.json, then runs the power step (single
 * node: pw_run with the first existing of $GPU_METRICS_CSV,
 * <dir>/gpu_metrics.csv, /workspace/gpu_metrics.csv; IS_MULTINODE=true:
 * pw_mn_run on $POWER_ARTIFACT_DIR (LOGS/power) and $POWER_RESULT_ROOT
 * (LOGS)), which patches the agg file and writes
 * <dir>/power_validation_$RESULT_FILENAME.json.
 * On success returns 0, appends the final agg row as json.dumps(indent=2)
 * (no newline) to agg_text (may be NULL), and sets *power_status to 1 when
 * REQUIRE_POWER is set and the power measurement is invalid (else 0): the
 * reference exits with that status after printing the row.
 * Errors (nothing was written unless said): IB_EINVAL for a missing or
 * malformed variable or result field, including TPOT = 0 and a GPU count of 0
 * (the reference's ZeroDivisionError); IB_ENOENT / IB_EIO / IB_EPARSE for the
 * result file; e names the variable or file (and line/field). Files are
 * written atomically. An error after the agg file was written (an agg file
 * that the power step cannot read back) leaves that agg file. */
int res_process(const res_process_opts *o, ib_buf *agg_text, int *power_status, ib_error *e);

/* The agg row of a parsed raw result, as res_process builds it before the
 * power step, from the variables in env (NAME=VALUE, NULL-terminated; the
 * same names: RUNNER_TYPE .. IMAGE, TP, EP_SIZE, DP_ATTENTION, ...). Nothing
 * is read or written; file (may be NULL) names the result in messages. The
 * row lives in arena a. Errors as res_process's. */
int res_raw_agg(ib_arena *a, const ib_val *raw, const char *const *env, const char *file,
                ib_val **row, ib_error *e);

/* Labels of a benchmark that its raw result does not carry (infbench sweep,
 * infbench report of raw results); NULL / 0 take the default named. */
typedef struct {
	const char *hw;           /* the GPU, RUNNER_TYPE (default "h100") */
	const char *framework;    /* default "unknown" */
	const char *precision;    /* default "unknown" */
	const char *model_prefix; /* default: the result's model_id after its last '/' */
	const char *image;        /* default "" */
	int64_t gpus;             /* GPUs serving (TP; default 1) */
	int64_t isl, osl;         /* default: the result's workload lengths */
} res_labels;

/* The process_result.py variables for a raw result and labels l, as a
 * NULL-terminated NAME=VALUE list in arena a (result_name: RESULT_FILENAME).
 * NULL when out of memory. */
const char **res_labels_env(ib_arena *a, const ib_val *raw, const res_labels *l,
                            const char *result_name);

/* The "derived" object of res_process (derived = true), beyond the
 * reference: {gpu, power_kw_per_gpu, cost_per_m_{total,output,input}_tokens:
 * {hyperscaler, neocloud, rental}, joules_per_{total,output,input}_token}
 * from the row's hw (up to the first '-' or '_') in the GPU table of
 * spec/evals-report-agentx.md B.6 and its three tput_per_gpu fields; an
 * unknown GPU or a zero throughput gives 0 (as the dashboard). *out is a new
 * map in a. Returns 0 or IB_ENOMEM. */
int res_derived(ib_arena *a, const ib_val *row, ib_val **out);
/* ---- end of process and power ---- */
/* ---- agentic (AgentX) results: utils/agentic of InferenceX ----
 * docs/agentic.md describes every input, output and rule. The three read
 * the environment where the reference reads os.environ: `env` when given
 * (the runner's rows run side by side in one process), else the process
 * environment; the Hugging Face cache lookup of the trace corpus always
 * reads the process environment. */
typedef struct {
	pw_log_fn log; /* output lines (stream 1 stdout, 2 stderr); NULL drops */
	void *log_ud;
	const char *const *env; /* "KEY=VALUE", NULL-terminated; NULL: the process's */
	const char *dir;        /* relative RESULT_DIR / AGENTIC_OUTPUT_DIR are resolved
	                         * against this folder (NULL: the current one) */
} res_agentic_opts;

/* process_agentic_result.py: reads $RESULT_DIR (default "results")'s aiperf
 * artifacts (aiperf_artifacts/ or its first sorted subfolder holding
 * profile_export.jsonl: the records, profile_export_aiperf.json,
 * server_metrics_export.json), the server logs, the trace corpus of the local
 * Hugging Face cache and the environment, and writes the agentic agg row
 * $AGENTIC_OUTPUT_DIR/$RESULT_FILENAME.json (json.dump indent=2, every float
 * round_floats'd) atomically; logs "Saved aggregated agentic result to
 * <path>" and the summary lines. *out_path (may be NULL) gets the path
 * written (free()). Errors, with nothing written: IB_EINVAL for an unset
 * RESULT_FILENAME, a malformed variable, a record or aggregate the reference
 * cannot read, server metrics of no known backend; IB_ENOENT for a missing
 * profile_export.jsonl; IB_EPARSE (file and line) for malformed JSON. */
int res_agentic_process(const res_agentic_opts *o, char **out_path, ib_error *e);

/* validate_agentic_result.py: the aiperf aggregate of artifact_dir (or of its
 * first sorted subfolder holding one) passes when error_request_count.avg /
 * completed_request_count.avg (default: successes + errors) <= threshold and
 * something completed. Logs the pass line on stream 1 or "ERROR: ..." on
 * stream 2; *status 0 pass, 1 fail. Returns 0, or IB_ENOMEM. */
int res_agentic_validate(const char *artifact_dir, double threshold, const res_agentic_opts *o,
                         int *status, ib_error *e);

/* Agentic agg rows in the database and the report (docs/db.md): a row is
 * agentic when its scenario_type (or, in the database's row shape,
 * benchmark_type) starts with "agentic". */
bool res_agentic_row(const ib_val *row);
/* The validity gate outcome a row carries: its "validation" object's
 * "passed" boolean (the database's row shape: "valid"): 1 passed, 0 failed,
 * -1 absent. */
int res_agentic_valid(const ib_val *row);
/* Adds the flat metrics of an agentic agg row to the map out, under the
 * InferenceX dashboard's names (flattenAgenticAggRow): the latency, qps and
 * token stat blocks as {mean,median,p75,p90,p95,p99,std}_{ttft, e2el, itl,
 * tpot, intvty, e2e_norm_intvty, qps, input_tokens, output_tokens_actual,
 * output_tokens_expected} (p50 is median), the throughputs (tput_per_gpu,
 * output_tput_per_gpu, input_tput_per_gpu, {input,output,total}_tput_tps,
 * duration_seconds), the cache hit rates (theoretical_cache_hit_rate,
 * server_{gpu,cpu,external,overall}_cache_hit_rate), gpu_kv_cache_usage_pct
 * and the server token totals; only finite numbers. Then the dashboard's
 * slow-tail rule: {mean..p99}_intvty = 1 / {mean..p99}_itl, removed where
 * there is no positive ITL. Existing keys of out are overwritten in place.
 * Returns 0, IB_EINVAL (row or out not a map) or IB_ENOMEM. */
int res_agentic_flat(ib_arena *a, const ib_val *row, ib_val *out);

/* utils/agentic/aggregation/power_adapter.py: the power window of an
 * agentic run (the aggregate's start/end time, the successful profiling
 * records' counts and tokens) written to <result_dir>/agentic_power_window.json,
 * then pw_run with <result_dir>/gpu_metrics.csv, that window, agg_path
 * and <result_dir>/power_validation.json. When the window cannot be built
 * (the reason codes of docs/agentic.md) the agg row is patched invalid and an
 * invalid sidecar written (window_source aiperf_profile_lifecycle). Same
 * status contract as pw_run (*status 1 only when require_power and
 * the measurement is invalid). Returns IB_EINVAL where the reference
 * crashes (an agg row that is not an object), IB_ENOMEM. */
typedef struct {
	const char *result_dir, *agg_path;
	bool has_expected; /* expected_num_gpus given */
	int64_t expected_num_gpus;
	bool require_power;
	pw_log_fn log;
	void *log_ud;
} res_agentic_power_opts;
int res_agentic_power(const res_agentic_power_opts *o, int *status, ib_error *e);
/* ---- end of agentic ---- */
/* ---- compare (compare_results.py) and the results database ---- */

/* The configuration a baseline is looked up by, as compare_results.py builds
 * it from an agg row (build_config_params + isl/osl/conc): hardware is the
 * runner label without a trailing -multinode/-trt/-disagg, lower-cased;
 * model is the lower-cased infmax_model_prefix, matched as the SQL pattern
 * `model || '%'` (LIKE: '%' any run, '_' any one character, case-sensitive);
 * single-node rows have prefill_* = decode_* = tp/ep/dp_attention. Strings
 * point into the caller's arena. */
typedef struct {
	const char *hardware, *framework, *model, *precision, *spec_method;
	bool disagg, is_multinode;
	int64_t prefill_tp, prefill_ep, decode_tp, decode_ep;
	bool prefill_dp_attention, decode_dp_attention;
	int64_t isl, osl, conc;
} res_cfg_key;

/* SQL LIKE of s against pattern p ('%', '_', no escape), case-sensitive. */
bool res_sql_like(const char *s, size_t sn, const char *p, size_t pn);

/* A baseline source: fills *out with the metrics maps (in arena a) of at
 * most max earlier runs matching k (on the source's baseline branch, without
 * an error), newest first (*n of them; 0 when none). Returns 0 or an ib_err. */
typedef int (*res_baseline_fn)(void *ctx, const res_cfg_key *k, ib_arena *a, size_t max,
                               ib_val ***out, size_t *n, ib_error *e);
/* Told every row's key, in the order the lookups will come, before them
 * (a source that can answer them all at once does so here). 0 or an ib_err. */
typedef int (*res_prefetch_fn)(void *ctx, const res_cfg_key *keys, size_t n, ib_error *e);

typedef struct {
	/* every *.json below it: agg rows or lists of them; beyond the
	 * reference, an agg file itself, and in a run store (a folder with
	 * manifest.jsonl) only its agg_*.json files (not agg_eval*) */
	const char *results_dir;
	res_baseline_fn lookup;   /* called lazily: not at all when there is no row */
	res_prefetch_fn prefetch; /* optional; once, when every row's key could be read */
	void *ctx;
	/* Beyond the reference: 0 colours every delta (the reference); k > 0
	 * colours a delta only when the config has >= noise_min earlier runs and
	 * the value lies outside their mean +- k * sample standard deviation. */
	double noise_k;
	size_t noise_min; /* 0 means 3 */
	/* a row marked "simulated" and its baseline not (or the other way
	 * round) is IB_EINVAL naming the row, unless this is set */
	bool allow_simulated;
	/* Beyond the reference: instead of the markdown tables, a plain table
	 * of the metrics that matter (throughput per GPU, TTFT median and p99,
	 * interactivity, E2EL) with the change against the newest baseline,
	 * then one "Verdict: ..." line. A change counts (coloured with ANSI
	 * codes when colour is set; counted in the stats) only when it is
	 * significant: with noise_k, outside the earlier runs' band; else more
	 * than threshold percent (0 means 5). */
	bool verdict, colour;
	double threshold;
} res_compare_opts;

typedef struct {
	size_t rows, matched, unmatched;
	size_t regressions, improvements; /* significant changes (verdict mode) */
	double worst_pct;                 /* the largest regression, percent */
} res_compare_stats;

/* compare_results.py: appends the markdown report to out ("No benchmark
 * results found to compare.\n" without rows; otherwise the single-node and
 * multi-node tables, tabulate "github", deltas coloured with LaTeX). A row
 * the reference cannot handle (missing key, a value int()/float() rejects,
 * a non-object row) is IB_EINVAL naming the file, row and key; unreadable or
 * malformed JSON is IB_EIO/IB_EPARSE naming the file. On an error, out holds
 * what the reference prints before it fails (the single-node table when a
 * multi-node row is bad). stats may be NULL. */
int res_compare(const res_compare_opts *o, ib_buf *out, res_compare_stats *stats, ib_error *e);

/* The baseline key of an agg row (arena a holds the strings). IB_EINVAL
 * names the missing or ill-typed key. */
int res_cfg_key_of(ib_arena *a, const ib_val *row, res_cfg_key *k, ib_error *e);

/* A baseline source over agg rows in memory (compare --baseline FILE): the
 * matching rows, the last in file order taken as the newest. ctx is a
 * res_rows_baseline. */
typedef struct {
	const ib_val *rows; /* a list of agg rows */
} res_rows_baseline;
int res_rows_lookup(void *ctx, const res_cfg_key *k, ib_arena *a, size_t max, ib_val ***out,
                    size_t *n, ib_error *e);

/* ---- the results database (docs/db.md) ----
 * One schema on two backends: SQLite (embedded: one file, WAL journal) and
 * PostgreSQL (shared, through libpq). Tables as the InferenceX dashboard's:
 * configs, workflow_runs, benchmark_results (metrics as JSON / JSONB),
 * eval_results, and the view latest_benchmarks; versioned in ib_schema and
 * migrated forward on open. */
typedef struct res_db res_db;

/* Opens (migrating as needed) the database at url: "postgres://..." /
 * "postgresql://..." is PostgreSQL, "sqlite:PATH" or any other text a SQLite
 * file path, created when `create` is set (else a missing file is
 * IB_ENOENT). Errors: IB_EIO (cannot open or connect, a schema newer than
 * this build knows) with the reason. */
int res_db_open(const char *url, bool create, res_db **db, ib_error *e);
/* text with every password that url holds replaced by "***", whatever the
 * URL's shape (well-formed or not): the user info's password of a
 * scheme://user:password@host URI, cut at the first or at the last '@',
 * as written and %-decoded, and every password=VALUE keyword or query
 * parameter. Returns a new string (free it), NULL when out of memory.
 * Every message that may quote a database URL goes through it. */
char *res_db_redact(const char *url, const char *text);
void res_db_close(res_db *db);
/* "sqlite" or "postgresql" */
const char *res_db_backend(const res_db *db);
/* The schema version of the open database (after migration). */
int res_db_schema_version(res_db *db, int *version, ib_error *e);

/* Run metadata of an ingest: run_id keys idempotence (NULL: derived from the
 * files' contents); date "YYYY-MM-DD" or an ISO timestamp (NULL: today,
 * UTC); branch, sha, runner may be NULL. progress (may be NULL) is called
 * inside the open transaction after every progress_every rows written
 * (0: never) with a line that counts the rows done and the total. */
typedef struct {
	const char *run_id, *date, *branch, *sha, *runner;
	ib_log_fn progress; /* IB_LOG_PROGRESS: "ingest: D of N rows written" */
	void *progress_ctx;
	size_t progress_every;
} res_run_meta;

typedef struct {
	size_t rows, inserted, existing;  /* benchmark rows */
	size_t evals, evals_inserted;     /* eval rows */
	size_t agentic, agentic_inserted; /* agentic rows */
} res_ingest_stats;

/* Ingests the agg rows (and eval rows: rows with a "task") of the files, as
 * one run, in one transaction: either every row is stored or none. A row
 * already stored for the same run and config identity (configs' natural key
 * plus benchmark type, isl, osl, conc; task for evals) is left as it is, so
 * ingesting twice changes nothing. Every row is checked before anything is
 * written: a bad row is IB_EINVAL naming the file, row and field. */
int res_db_ingest(res_db *db, const res_run_meta *m, const char *const *files, size_t nfiles,
                  res_ingest_stats *st, ib_error *e);

/* Imports rows in the shape of the dashboard's joined tables (a JSON list of
 * {hardware, framework, model, precision, spec_method, disagg, is_multinode,
 * prefill_tp, ..., decode_dp_attention, isl, osl, conc, date, error,
 * metrics, head_branch[, run_id, head_sha]}), verbatim (metrics objects as
 * they are), each row its own run unless run_id is given. Rows whose values
 * could never match a baseline query (ill-typed keys) are skipped and
 * counted in *skipped. Idempotent. */
int res_db_import(res_db *db, const char *file, res_ingest_stats *st, size_t *skipped, ib_error *e);

/* Filters of query/latest/history; NULL / 0 = any. Strings compare exactly
 * with the stored (lower-case) identity; since/until bound the date
 * (inclusive, compared as text). */
typedef struct {
	const char *model, *hardware, *framework, *precision, *spec_method;
	const char *since, *until, *branch, *run_id;
	int64_t isl, osl, conc;
	bool latest;   /* only the rows of the latest_benchmarks view */
	bool evals;    /* eval_results instead of benchmark_results */
	int simulated; /* 1: only simulated rows, -1: only measured ones, 0: any */
	/* agentic_results (latest: the latest_agentic view) instead of
	 * benchmark_results; scenario (non-NULL implies agentic) filters them */
	bool agentic;
	const char *scenario;
} res_db_filter;

/* The matching rows as a list of maps (in arena a), sorted by identity, then
 * date and run: {run_id, date, branch, sha, runner, hardware, framework,
 * model, precision, spec_method, disagg, is_multinode, prefill_tp,
 * prefill_ep, prefill_dp_attention, prefill_num_workers, decode_tp,
 * decode_ep, decode_dp_attention, decode_num_workers, num_prefill_gpu,
 * num_decode_gpu, benchmark_type|task, isl, osl, conc, image, error,
 * metrics{keys sorted}[, simulated: true]} (simulated only on the rows of
 * the simulator). Agentic rows (f->agentic or f->scenario) have the same
 * shape with benchmark_type = the scenario, isl and osl null, and after the
 * metrics [simulated,] kv_offloading[, valid] (valid only when the row
 * carried a gate outcome); sorted with kv_offloading before conc. The same
 * rows give the same bytes on both backends. */
int res_db_query(res_db *db, const res_db_filter *f, ib_arena *a, ib_val **rows, ib_error *e);

/* A res_baseline_fn over the database (ctx: res_db_baseline): the query of
 * compare_results.py (a baseline of the simulator carries "simulated": true
 * in its metrics map) (runs on `branch`, default "main", without an error,
 * newest date first; ties: the later ingested run first). */
typedef struct {
	res_db *db;
	const char *branch;
	struct res_db_batch *batch; /* res_db_prefetch's answers (private) */
} res_db_baseline;
int res_db_lookup(void *ctx, const res_cfg_key *k, ib_arena *a, size_t max, ib_val ***out,
                  size_t *n, ib_error *e);
/* A res_prefetch_fn over the database (ctx: res_db_baseline): on PostgreSQL,
 * every key's baseline query in one statement (the keys sent as arrays), so
 * that the lookups that follow, in the same order, need no round trip each
 * (a lookup of another key queries as before); nothing on SQLite. Freed by
 * res_db_baseline_free. */
int res_db_prefetch(void *ctx, const res_cfg_key *keys, size_t n, ib_error *e);
void res_db_baseline_free(res_db_baseline *b);

#endif
