/* results: what agentic.c, agentic_metrics.c and power_agentic.c share
 * (private): the aiperf artifacts as InferenceX's utils/agentic/aggregation
 * reads them (docs/agentic.md). */
#ifndef IB_RESULTS_AGENTIC_PRIV_H
#define IB_RESULTS_AGENTIC_PRIV_H

#include "power/private.h"
#include "results/results.h"

/* profile_export.jsonl after load_records_with_accounting: the kept records
 * (profiling phase or no phase, no truthy error), in file order, as parsed
 * maps in the caller's arena; the counts and error categories of every row. */
typedef struct {
	ib_val **rec;
	size_t n;
	int64_t total, warmup, errors;
	ib_val *categories; /* {category: count} in first-seen order */
} res_ag_records;

/* Reads path. A row that Python's json.loads rejects is IB_EPARSE naming the
 * file and line; a row that is not an object, or whose metadata is not an
 * object, is IB_EINVAL (the reference crashes there); a missing or
 * unreadable file IB_ENOENT / IB_EIO. */
int res_ag_load_records(ib_arena *a, const char *path, res_ag_records *r, ib_error *e);

/* _resolve_artifact_dir: <result_dir>/aiperf_artifacts when it holds
 * profile_export.jsonl, else its first sorted subfolder that does, else
 * <result_dir>/aiperf_artifacts; as Python prints the Path. NULL: no memory. */
char *res_ag_artifact_dir(ib_arena *a, const char *result_dir);

/* The first subfolder of dir, in sorted order, holding a file `name`, as a
 * normalised path in a; NULL when none (or no memory: *oom set). */
char *res_ag_first_sub_with(ib_arena *a, const char *dir, const char *name, bool *oom);
bool res_ag_is_dir(const char *p);

/* compute_request_metrics: the "request_metrics" object (*out, in a) of the
 * kept records and the aiperf aggregate (an object), and the throughput the
 * per-GPU figures divide (t->has false when there is none). Errors: IB_EINVAL
 * for an unusable timestamp or trace turn, IB_ENOMEM. */
typedef struct {
	bool has;
	double total, in, out; /* tokens per second */
} res_ag_tput;
int res_ag_request_metrics(ib_arena *a, const res_ag_records *r, const ib_val *aggregate,
                           ib_val **out, res_ag_tput *t, ib_error *e);

/* to_float / to_int of aggregation_common: false for None and for what
 * float() / int() reject (int(): floats truncated, nan and inf rejected). */
bool res_ag_to_float(const ib_val *v, double *out);
bool res_ag_to_int(const ib_val *v, int64_t *out);
/* _metric_value: record["metrics"][key]["value"] or the bare value; NULL
 * for None. A "metrics" that is not an object is treated as empty. */
const ib_val *res_ag_metric(const ib_val *rec, const char *key);
/* extract_per_record_ints: the records' int values of key (those that
 * parse), *n of them; malloc'd (free()). NULL with n = 0 on no memory. */
int64_t *res_ag_record_ints(const res_ag_records *r, const char *key, size_t *n);

/* compute_server_metrics: the "server_metrics" object (*nested) and the
 * warnings list (*warnings, NULL when none) from the parsed
 * server_metrics_export.json (NULL when absent), FRAMEWORK, the kept records
 * and the server logs. Metrics of no known backend are IB_EINVAL (the
 * reference's ValueError). */
int res_ag_server_metrics(ib_arena *a, const ib_val *export, const char *framework,
                          const res_ag_records *r, const char *const *logs, size_t nlogs,
                          ib_val **nested, ib_val **warnings, ib_error *e);

/* find_server_log_paths: <result_dir>/server.log, then watchtower-*.out in
 * result_dir and up to three of its parents (sorted per folder), each file
 * once. *paths in the arena. Returns 0 or IB_ENOMEM. */
int res_ag_log_paths(ib_arena *a, const char *result_dir, const char ***paths, size_t *n);

/* expected_output_lengths: the recorded output length of each record's turn
 * in the newest cc-traces-weka snapshot of the local Hugging Face cache
 * (agentx's lookup); *out malloc'd (free()), *n = 0 when there is no corpus.
 * IB_EINVAL where the reference crashes (a trace line that is not an
 * object, an unusable turn index). */
int res_ag_expected_outputs(ib_arena *a, const res_ag_records *r, int64_t **out, size_t *n,
                            ib_error *e);

/* ---- statistics (aggregation_common) ---- */
/* percentile(): linear interpolation at (n-1)*p/100 of sorted data. */
double res_ag_percentile(const double *sorted, size_t n, double p);
/* statistics.pstdev (correctly rounded up to the last bit in all but
 * near-tie cases). */
double res_ag_pstdev(const double *v, size_t n);

#endif
