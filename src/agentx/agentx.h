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

/* ---- the Weka trace format (AX1) ----
 * One JSON object per trace (a .jsonl file: one per line; a .json file: one
 * object or a list of them):
 *   {id, models: [..], block_size: 64, hash_id_scope: "local",
 *    [tool_tokens], [system_tokens], requests: [entry, ...]}
 * An entry is a request {t, type: "n"|"s", model, in, out (or
 * output_length), hash_ids: [int, ...], api_time, think_time, [ttft]} or a
 * subagent {t, type: "subagent", agent_id, subagent_type, duration_ms,
 * total_tokens, status, models, requests: [request, ...]}. Each hash id
 * names one block_size-token KV block, in the trace's own scope (a parent
 * and its subagents may share blocks). Unknown keys are ignored.
 * Everything below lives in the caller's arena. */
typedef struct {
	double t;          /* seconds from the start of the trace (or subagent) */
	char type;         /* 'n' (normal) or 's' */
	const char *model; /* NULL when absent */
	int64_t in, out;   /* input tokens (hashed), recorded output tokens */
	const int64_t *hash_ids;
	size_t nhash;
	double api_time, think_time; /* seconds (0 when absent) */
	bool has_ttft;
	double ttft;
} ax_request;

typedef struct {
	double t;
	const char *agent_id, *subagent_type, *status; /* NULL when absent */
	int64_t duration_ms, total_tokens;             /* -1 when absent */
	const char **models;
	size_t nmodels;
	ax_request *req;
	size_t nreq;
} ax_subagent;

typedef struct {
	bool is_subagent;
	ax_request r;  /* !is_subagent */
	ax_subagent s; /* is_subagent */
} ax_entry;

typedef struct {
	const char *id;
	const char **models;
	size_t nmodels;
	int64_t block_size; /* 64 when absent */
	const char *hash_id_scope;
	int64_t tool_tokens, system_tokens; /* 0 when absent */
	ax_entry *entries;
	size_t n;
	const char *file; /* where it was read (NULL when built) */
	int line;
} ax_trace;

typedef struct {
	ax_trace *t;
	size_t n;
} ax_corpus;

/* Parses text (named `name` in messages) into c (arena a), appending to
 * what c already holds. Blank lines are skipped; text whose first non-blank
 * character is '[' is one JSON list of traces. Errors: IB_EPARSE (malformed
 * JSON) and IB_EINVAL (a field missing, of the wrong type or out of range),
 * each with the file and line (for a list: the line where it starts) and a message naming the trace and the field
 * path ("trace 'x': requests[3].in: ..."); c keeps the traces before it.
 * IB_ENOMEM. */
int ax_parse(ib_arena *a, const char *name, const char *text, size_t len, ax_corpus *c,
             ib_error *e);

/* Loads a corpus: `src` is a trace file, a folder (its ax_corpus_files), or
 * a Hugging Face dataset id "org/name" looked up in the local hub cache
 * (datasets--org--name, newest snapshot; see ax_hf_snapshot). A missing
 * source is IB_ENOENT naming every place looked; otherwise as ax_parse. */
int ax_corpus_load(ib_arena *a, const char *src, ax_corpus *c, ib_error *e);

/* Appends trace t as one line of JSON (Python json.dumps separators, no
 * newline), the keys in the order of the format above. IB_ENOMEM. */
int ax_trace_write(ib_buf *out, const ax_trace *t);

/* ---- the stand-in corpus (infbench agentx make-traces) ----
 * A deterministic generator of traces of the Weka shape (docs/agentx.md):
 * parent turns whose hash ids grow by the previous turn's output blocks and
 * a user delta (the longest common prefix of consecutive turns is the whole
 * previous context, except after a compaction), subagents spawned after a
 * parent turn and joined by the next (background ones after the last turn),
 * a long-context tail. Ranges are inclusive [lo, hi]. */
typedef struct {
	int64_t lo, hi;
} ax_range;
typedef struct {
	double lo, hi;
} ax_frange;

typedef struct {
	size_t traces;           /* number of traces */
	uint32_t seed;
	ax_range turns;          /* parent turns per trace */
	ax_range first_in;       /* input tokens of turn 0 */
	ax_range context;        /* final context (tokens) of an ordinary trace */
	double long_tail;        /* fraction of traces whose context reaches
	                          * max_context instead */
	int64_t max_context;     /* in + out of a request never exceeds it */
	ax_range out;            /* output tokens per request (log-uniform) */
	ax_frange think;         /* think time, seconds (uniform) */
	double subagent_rate;    /* per parent turn, chance of a spawn */
	ax_range subagents;      /* subagents per spawn */
	ax_range subagent_turns; /* requests per subagent */
	double background_rate;  /* per trace, chance of background subagents */
	double compact_rate;     /* per turn, chance the context is compacted */
	int64_t block_size;
	int64_t system_tokens, tool_tokens;
	double ttft_s, prefill_s_per_1k, tpot_s; /* api_time = ttft + in/1000*prefill + out*tpot */
	const char *model, *subagent_model;
} ax_gen_opts;

/* The defaults (docs/agentx.md). */
void ax_gen_defaults(ax_gen_opts *o);
/* Checks the options: IB_EINVAL naming the option. */
int ax_gen_check(const ax_gen_opts *o, ib_error *e);
/* Generates trace i (0-based) of the corpus o describes into *t (arena a):
 * the same options and index always give the same trace. */
int ax_gen_trace(ib_arena *a, const ax_gen_opts *o, size_t i, ax_trace *t, ib_error *e);
/* Writes the whole corpus to path atomically (one trace per line), or to
 * f when path is NULL. */
int ax_gen_write(const ax_gen_opts *o, const char *path, FILE *f, ib_error *e);

#endif
