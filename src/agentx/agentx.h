/* agentx — AgentX, the agentic half of InferenceX: Weka traces (the
 * recorded Claude Code conversations of semianalysisai/cc-traces-weka-*),
 * the corpus in the local Hugging Face cache, and a deterministic stand-in
 * corpus of the same shape (docs/agentx.md; spec evals-report-agentx.md
 * Part C). */
#ifndef IB_AGENTX_H
#define IB_AGENTX_H

#include "base/base.h"

/* ---- the corpus in the local Hugging Face cache (datasets layout) ----
 * The hub cache is the first of $HF_HUB_CACHE, $HUGGINGFACE_HUB_CACHE,
 * $HF_HOME/hub and ~/.cache/huggingface/hub (tok_hf_caches's list without
 * $XDG_CACHE_HOME, which InferenceX's trace lookup does not read). Its
 * folders whose name matches `pattern` (a glob, NULL:
 * "datasets--semianalysisai--cc-traces-weka*") hold snapshots/<rev>/.
 * ax_hf_snapshot picks the newest snapshot folder by modification time (ties:
 * dataset folder, then snapshot, by name) that holds a *.jsonl or *.json
 * entry, as InferenceX's trace_metadata does. Returns 1 with *dir (malloc'd,
 * free()), 0 when there is none (why, when not NULL, gets where it looked),
 * IB_ENOMEM. Nothing is ever downloaded. */
int ax_hf_snapshot(const char *pattern, char **dir, ib_buf *why);

/* The trace files of a snapshot folder: its *.jsonl entries, then its *.json
 * entries, each group sorted bytewise, as "dir/name". *paths is a malloc'd
 * array of *n malloc'd strings (ax_paths_free). Returns 0, IB_EIO (the
 * folder cannot be read), IB_ENOMEM. */
int ax_corpus_files(const char *dir, char ***paths, size_t *n, ib_error *e);
void ax_paths_free(char **paths, size_t n);

#endif
