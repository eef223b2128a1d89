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

#endif
