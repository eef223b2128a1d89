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

/* ---- a task's filters and metric, for scoring responses one by one ----
 * An ev_task holds the compiled filters (regex + take_first) and the
 * exact_match settings of a task YAML mapping (which must outlive it: filter
 * names point into it). It keeps scratch buffers: one thread at a time. */
typedef struct ev_task ev_task;
int ev_task_new(const ib_val *task, ev_task **out, ib_error *e);
void ev_task_free(ev_task *t);
size_t ev_task_nfilters(const ev_task *t);
const char *ev_task_filter(const ev_task *t, size_t i);
/* Filters resp with every filter (answers[i] receives filter i's answer) and
 * scores it against target (scores[i]: 1.0 or 0.0). */
int ev_task_score(ev_task *t, const char *resp, size_t rn, const char *target, size_t tn,
                  ib_buf *answers, double *scores, ib_error *e);
/* lm-eval's mean and mean_stderr (sample standard deviation / sqrt(n); 0
 * when n < 2). */
void ev_mean_stderr(const double *x, size_t n, double *mean, double *se);

/* ---- the gsm8k data (DIR/train.jsonl, DIR/test.jsonl) ----
 *
 * JSON lines {"question": ..., "answer": ...} as in the original
 * grade-school-math release (other keys are ignored; blank lines skipped).
 * Strings live in the dataset's arena. */
typedef struct {
	const char *question, *answer;
	size_t qlen, alen;
} ev_doc;

typedef struct {
	ev_doc *v;
	size_t n;
} ev_docs;

typedef struct {
	ib_arena *a;
	ev_docs train, test;
} ev_dataset;

/* Loads DIR/train.jsonl and DIR/test.jsonl. Errors name the file and line:
 * IB_ENOENT for a missing file, IB_EPARSE for a line that is not JSON,
 * IB_EINVAL for a line without string "question"/"answer" or an empty split.
 * Release with ev_dataset_free (also after a failure). */
int ev_dataset_load(const char *dir, ev_dataset *d, ib_error *e);
void ev_dataset_free(ev_dataset *d);
/* Loads one JSON-lines split into docs (allocated in a). */
int ev_docs_load(ib_arena *a, const char *path, ev_docs *docs, ib_error *e);

/* The final answer of a gsm8k answer text: what follows the last "#### "
 * up to the end of its line, trimmed (answer[*off .. *off + *len)); false
 * when there is none. */
bool ev_answer_number(const char *answer, size_t n, size_t *off, size_t *len);

/* Writes a deterministic set of arithmetic word problems in the gsm8k format
 * (worked answers with <<a*b=c>> annotations and a final "#### N") to
 * DIR/train.jsonl and DIR/test.jsonl (each atomically; DIR is created).
 * The same seed and sizes give the same bytes. */
int ev_dataset_generate(const char *dir, size_t ntrain, size_t ntest, uint64_t seed, ib_error *e);

/* CPython's random.sample(range(n), k) on m (a generator seeded like
 * random.Random(seed), see ib_mt_py_seed): the k chosen indices into out.
 * Requires k <= n. */
void ev_py_sample(ib_mt *m, size_t n, size_t k, size_t *out);

/* ---- the HTTP driver ---- */
typedef struct {
	const char *name; /* label of the progress line */
	const char *host; /* IPv4 address */
	int port;
	struct net_tls *tls;     /* NULL: http; else https with this client context (net.h) */
	const char *server_name; /* https: SNI and the certificate's name */
	const char *path;        /* "/v1/chat/completions" */
	const char *api_key;     /* Authorization: Bearer <key>; NULL: EMPTY */
	size_t concurrency;      /* requests in flight */
	double timeout_s;        /* per attempt */
	int max_attempts;        /* lm-eval max_retries: 5 */
	double retry_min_s, retry_max_s; /* backoff bounds: 1 and 10 as lm-eval */
	/* progress lines (IB_LOG_PROGRESS: "NAME: D/N answered, R retried", the
	 * last one of a run ending in "\n"), to redraw in place; NULL: none */
	ib_log_fn log;
	void *log_arg;
} ev_http_opts;

typedef struct {
	bool ok;    /* a 200 answer arrived */
	int status; /* the last HTTP status (0: none) */
	int attempts;
	double seconds; /* of the last attempt */
	ib_buf body;    /* the last answer's body */
	char error[200];
} ev_http_result;

/* The most bytes one answer may take (head and body): a larger one fails
 * the attempt ("response larger than N bytes"), so a server that never
 * stops sending costs bounded memory. */
#define EV_MAX_RESPONSE ((size_t)32 * 1024 * 1024)

/* POSTs bodies[i] (JSON) and fills res[i]; an attempt fails on a connection
 * error, a status other than 200, an answer over EV_MAX_RESPONSE or the
 * timeout (which holds while data keeps arriving), and is retried after
 * 0.5 * 2^k s clamped to [retry_min_s, retry_max_s] until max_attempts.
 * Returns 0 (failed requests are results), or an error when the run cannot
 * start. Release each res[i].body with ib_buf_free. */
int ev_http_run(const ev_http_opts *o, const ib_buf *bodies, size_t n, ev_http_result *res,
                ib_error *e);

/* The built-in gsm8k task definition (YAML text). */
extern const char ev_gsm8k_task_yaml[];

/* ---- the whole protocol (spec Part A: A.2, A.3, A.6) ---- */
typedef struct {
	ev_http_opts http;
	const char *model;    /* "model" of every request */
	const char *base_url; /* as given, for the results' model_args */
	const ev_dataset *data;
	const ib_val *task;   /* the task YAML mapping */
	size_t limit;         /* 0: every test question */
	int64_t max_tokens;   /* "max_tokens" */
	int64_t max_length;   /* the context, for model_args */
	int64_t seed;         /* "seed" of every request: 1234 */
	int64_t fewshot_seed; /* 1234 */
} ev_run_opts;

typedef struct {
	size_t n; /* questions asked */
	size_t nfilters;
	const char *filters[8];
	double mean[8], se[8];
	size_t failed;  /* requests that failed after every attempt (scored 0) */
	size_t retried; /* requests that needed more than one attempt */
	double seconds;
	char results_path[4096], samples_path[4096];
} ev_summary;

/* Asks every question (few-shot messages, request body A.2), scores the
 * answers, and writes DIR/results_<ts><suffix>.json and
 * DIR/samples_<task>_<ts><suffix>.jsonl (atomically). suffix: "" or
 * "_conc<N>". */
int ev_run(const ev_run_opts *o, const char *dir, const char *suffix, ev_summary *s, ib_error *e);

/* The request body of one question (exposed for tests). shots: num_fewshot
 * train indices. */
int ev_request_body(const ev_run_opts *o, size_t doc, const size_t *shots, size_t nshots,
                    ib_buf *out, ib_error *e);

/* meta_env.json in dir from the environment (A.6: FRAMEWORK, PRECISION, TP,
 * EP_SIZE, CONC, MODEL_PREFIX, RUNNER_TYPE, ISL, OSL, ... as the reference's
 * _write_lm_eval_meta_json). concs: the batched concurrencies (NULL / 0:
 * not batched) with completed / failed flags. */
int ev_write_meta_env(const char *dir, const int64_t *concs, const bool *failed, size_t nconcs,
                      ib_error *e);
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
int ev_collect(const char *root, const char *name, const char *sort_by, ib_buf *out, ib_error *e);

#endif
