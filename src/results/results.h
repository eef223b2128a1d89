/* results: turning raw benchmark results into agg rows and collections of them:
 * collect (utils/collect_results.py), success rate (calc_success_rate.py),
 * process (process_result.py) and power (aggregate_power.py,
 * aggregate_power_multinode.py). See docs/ and the issue. */
#ifndef IB_RESULTS_H
#define IB_RESULTS_H

#include "base/base.h"
#include "fmt/fmt.h"

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
 * Output lines: the reference prints a few lines (the power summary on
 * stdout, warnings on stderr). The library never prints: it hands each line
 * (without its newline) to `log` with stream 1 (stdout) or 2 (stderr); a
 * NULL log drops them. */
typedef void (*res_log_fn)(void *ud, int stream, const char *line);

/* The environment process_result.py reads, as NAME=VALUE strings: the first
 * entry of a name wins (put overrides first). env == NULL: the process
 * environment (environ). */
typedef struct {
	const char *dir;              /* working folder; NULL or "": the current one */
	const char *const *env;       /* NULL-terminated NAME=VALUE list, or NULL */
	bool derived;                 /* add the "derived" object (beyond the reference) */
	res_log_fn log;
	void *log_ud;
} res_process_opts;

/* process_result.py: reads <dir>/$RESULT_FILENAME.json and the environment,
 * writes <dir>/agg_$RESULT_FILENAME.json, then runs the power step (single
 * node: res_power_run with the first existing of $GPU_METRICS_CSV,
 * <dir>/gpu_metrics.csv, /workspace/gpu_metrics.csv; IS_MULTINODE=true:
 * res_power_mn_run on $POWER_ARTIFACT_DIR (LOGS/power) and $POWER_RESULT_ROOT
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

/* aggregate_power.run: validates the telemetry CSV against the raw result's
 * window, patches agg_path in place (power_metric_schema_version,
 * power_valid, and the seven metrics when valid) and writes the validation
 * sidecar (validation_path, or power_validation_<bench stem>.json beside the
 * bench result). Every validity problem is a reason code in the sidecar, not
 * an error: returns 0 and sets *status (1 only when require_power and the
 * measurement is invalid). Returns IB_EINVAL only where the reference
 * crashes (an agg file holding something other than an object) with no
 * sidecar written, IB_ENOMEM. */
typedef struct {
	const char *csv_path, *bench_path, *agg_path;
	const char *validation_path; /* NULL: the default beside bench_path */
	bool has_expected;           /* expected_num_gpus given */
	int64_t expected_num_gpus;
	bool require_power;
	res_log_fn log;
	void *log_ud;
} res_power_opts;
int res_power_run(const res_power_opts *o, int *status, ib_error *e);

/* aggregate_power_multinode.run: re-validates an srt-slurm dcgm-power v1
 * package (power_dir/{manifest.json,samples.csv,windows/}), binds the result
 * to its window under logs_root, patches agg_path and writes the sidecar.
 * Same status/return contract as res_power_run. */
typedef struct {
	const char *power_dir, *logs_root, *bench_path, *agg_path;
	const char *validation_path; /* NULL: the default beside bench_path */
	int64_t prefill_gpus, decode_gpus;
	const char *expected_producer_sha; /* NULL or "": none */
	bool require_power;
	res_log_fn log;
	void *log_ud;
} res_power_mn_opts;
int res_power_mn_run(const res_power_mn_opts *o, int *status, ib_error *e);

/* The "derived" object of res_process (derived = true), beyond the
 * reference: {gpu, power_kw_per_gpu, cost_per_m_{total,output,input}_tokens:
 * {hyperscaler, neocloud, rental}, joules_per_{total,output,input}_token}
 * from the row's hw (up to the first '-' or '_') in the GPU table of
 * spec/evals-report-agentx.md B.6 and its three tput_per_gpu fields; an
 * unknown GPU or a zero throughput gives 0 (as the dashboard). *out is a new
 * map in a. Returns 0 or IB_ENOMEM. */
int res_derived(ib_arena *a, const ib_val *row, ib_val **out);
/* ---- end of process and power ---- */

#endif
