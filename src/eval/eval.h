/* eval — the gsm8k accuracy protocol (spec/evals-report-agentx.md Part A).
 *
 * score: answer extraction and scoring (E1–E5): the task YAML's filter_list
 * (regex + take_first, lm-eval semantics) and its exact_match metric with
 * regexes_to_ignore / ignore_case / ignore_punctuation / ignore_numbers, then
 * per-filter mean and sample stderr.
 * validate: the score thresholds and the batched-eval manifest (T1–T6), as
 * InferenceX's utils/evals/validate_scores.py.
 * collect: the eval rows of a tree of eval artifacts, their tables and
 * agg_eval_<name>.json, as InferenceX's utils/collect_eval_results.py.
 */
#ifndef IB_EVAL_H
#define IB_EVAL_H

#include "base/base.h"
#include "fmt/fmt.h"

/* Scores RESPONSES_JSONL (lines {"response": text, "target": gsm8k answer})
 * with the task at yaml_path. Appends to out, per non-empty line, one JSON
 * line {"<filter>": answer, ..., "exact_match,<filter>": 0.0|1.0, ...} and
 * then a summary line {"alias": task, "exact_match,<f>": mean,
 * "exact_match_stderr,<f>": se, ...} ("N/A" for a mean of no items and a
 * stderr of fewer than 2), all in Python json.dumps format.
 * Returns 0; IB_ENOENT/IB_EIO for unreadable files, IB_EPARSE for bad YAML or
 * JSON (with the line number), IB_EINVAL for an unsupported filter, metric or
 * regex, IB_ENOMEM. On error out may hold a partial text. */
int ev_score_file(const char *yaml_path, const char *responses_path, ib_buf *out, ib_error *e);

/* ---- validate (spec Part A.5, T1–T6) ---- */

typedef struct {
	double min_score;             /* the fallback floor (--min-score, 0.85) */
	const char *thresholds;       /* a YAML/JSON file; NULL: the built-in floors */
	const char *meta_env;         /* NULL: "meta_env.json" */
	const char *model_prefix;     /* --model-prefix, or NULL / "" */
	const char *env_model_prefix; /* $MODEL_PREFIX, or NULL */
	const char *metric_prefix;    /* NULL: "exact_match," */
	const char *results_glob;     /* NULL: "results*.json" */
	const char *expected_concs;   /* --expected-concs as given, or NULL */
} ev_validate_opts;

/* The name printed for the built-in thresholds (InferenceX's floors of
 * spec A.5) in "Loaded thresholds from ...". */
extern const char ev_builtin_thresholds_name[];

/* Checks the lm-eval result files matching results_glob (sorted bytewise)
 * against the thresholds and the batched-eval manifest in meta_env, printing
 * what the reference prints: PASS, "Loaded thresholds", "Model prefix" lines
 * to out, FAIL and WARN lines to err. *status is the exit status the
 * reference gives (0 every metric passed, 1 a failure or nothing checked).
 * Returns 0, or a negative ib_err where the reference stops with an uncaught
 * exception: a result file or meta_env.json that is unreadable, not JSON or
 * not UTF-8 where the reference does not catch it, a threshold that is not a
 * number, thresholds/results of the wrong shape (e names the file and, for
 * thresholds, the line); out and err then hold what was printed before. */
int ev_validate(const ev_validate_opts *o, ib_buf *out, ib_buf *err, int *status, ib_error *e);

/* The concurrency of a result file, as the search of
 * _conc(\d+)(?:_\d+)?\.json$ in its basename: true with the digits in
 * (*digits, *len), pointing into path; false when there is none. */
bool ev_conc_suffix(const char *path, const char **digits, size_t *len);

/* ---- collect (spec Part A.7) ---- */

/* The eval rows of the artifacts below root, in discovery order (root itself
 * first when it holds meta_env.json, then its subfolders holding one, in
 * bytewise name order; per set the newest lm-eval file, or the newest per
 * _concN when batched; see docs/eval.md), as a JSON list of the reference's
 * row objects in arena a. Returns 0, IB_ENOMEM, or IB_EINVAL where
 * the reference raises (meta_env.json or a results file of the wrong shape, a
 * hw/framework/precision that is not a string), naming the file. */
int ev_collect_rows(ib_arena *a, const char *root, ib_val **rows, ib_error *e);

/* Appends the reference's stdout for rows: the single-node and multi-node
 * tables (sorted by sort_by "hw", else by model prefix) or "> No eval results
 * found to summarize.". Rows whose sort keys do not compare (a number against
 * a string) are IB_EINVAL, as Python's TypeError. */
int ev_collect_report(const ib_val *rows, const char *sort_by, ib_buf *out, ib_error *e);

/* collect_eval_results.py ROOT NAME [SORT]: ev_collect_rows, the report into
 * out, then agg_eval_<name>.json written atomically in the working folder
 * (json.dump indent=2). On an error after the report, out holds it. */
int ev_collect(const char *root, const char *name, const char *sort_by, ib_buf *out,
               ib_error *e);

#endif
