/* eval — the gsm8k accuracy protocol (spec/evals-report-agentx.md Part A).
 *
 * This session covers answer extraction and scoring (E1–E5): the task YAML's
 * filter_list (regex + take_first, lm-eval semantics) and its exact_match
 * metric with regexes_to_ignore / ignore_case / ignore_punctuation /
 * ignore_numbers, then per-filter mean and sample stderr.
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

#endif
