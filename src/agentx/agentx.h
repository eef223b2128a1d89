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
 * each with the file and line (for a list: the line where it starts) and a message naming the trace
 * and the field path ("trace 'x': requests[3].in: ..."); c keeps the traces before it. IB_ENOMEM.
 */
int ax_parse(ib_arena *a, const char *name, const char *text, size_t len, ax_corpus *c,
             ib_error *e);

/* The corpus InferenceX replays for a model (benchmark_lib.sh's
 * resolve_trace_source at 843c6254): `loader` (WEKA_LOADER_OVERRIDE, NULL or
 * "" for none) names one of aiperf's public-dataset loaders; without one the
 * model prefix picks it: the full-context 062126 corpus for dsv4*, glm5.2*,
 * minimaxm3*, kimik3*, its -256k variant for every other prefix. *loader_out
 * (may be NULL) gets the loader name, *dataset the Hugging Face dataset id
 * ("semianalysisai/cc-traces-weka-062126-256k"); both static strings.
 * IB_EINVAL for an unknown loader (the message lists the allowed ones). */
int ax_reference_corpus(const char *model_prefix, const char *loader, const char **loader_out,
                        const char **dataset, ib_error *e);

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
	size_t traces; /* number of traces */
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

/* ---- block -> text synthesis (AX2, AX5) ----
 * Every hash id of a trace stands for block_size tokens of text. The text
 * is drawn from a pool of the served model's "words": token ids whose text is
 * a space and 2-12 lowercase ASCII letters and that re-encode alone to
 * themselves, so that any concatenation of them re-encodes to exactly one
 * token per word (checked when the pool is built). */
typedef struct ax_blocks ax_blocks;
struct tok;
/* Builds the pool of tokenizer t (which must stay loaded while it is used;
 * tok_encode is called, so not concurrently with other users of t).
 * Errors: IB_EINVAL when t has fewer than 256 such words or their
 * concatenations do not re-encode one token per word (the message names
 * the tokenizer as `name`), IB_ENOMEM. */
int ax_blocks_new(struct tok *t, const char *name, ax_blocks **out, ib_error *e);
void ax_blocks_free(ax_blocks *b);
size_t ax_blocks_pool(const ax_blocks *b);
/* Appends n words chosen by SHA-256(scope, key, word index) to out: the same
 * (scope, key, n) always give the same text, and the text (alone or after
 * other such text) encodes to exactly n tokens. A block is
 * ax_words(b, trace_id, hash_id, block_size); a partial tail uses another
 * key. IB_ENOMEM. */
int ax_words(const ax_blocks *b, const char *scope, int64_t key, size_t n, ib_buf *out);
/* The per-replay cache-bust marker "[rid:<12 hex>]" of (seed, replay), NUL
 * terminated: identical within a replay, different between replays. */
void ax_cache_bust(uint32_t seed, uint64_t replay, char out[20]);

/* ---- conversation reconstruction (AX2) ----
 * A chain of requests (a trace's parent turns, or one subagent's requests)
 * becomes a growing messages array. Turn 0: a system message of
 * ceil((tool_tokens + system_tokens) / block_size) blocks (none when both
 * are 0), then a user message with the remaining blocks and a partial tail,
 * so that the content is exactly `in` tokens. Turn k: the previous messages
 * truncated at the longest common prefix of the two turns' hash ids, an
 * assistant message of ceil(prev out / block_size) blocks (the recorded
 * output), then a user message with the rest and the tail. A request's
 * blocks are the first min(len(hash_ids), in / block_size) hash ids. */
typedef struct {
	char role;       /* 's' system, 'u' user, 'a' assistant */
	size_t from, to; /* blocks [from, to) of the current request's hash ids */
	size_t tail;     /* tokens after the blocks (the last user message only) */
} ax_seg;
typedef struct {
	ax_seg *seg;
	size_t n, cap;
	size_t blocks; /* of the current request */
} ax_conv;
/* Moves c to request r, whose predecessor in the chain is prev (NULL for
 * the first turn, which resets c). IB_ENOMEM. */
int ax_conv_turn(ax_conv *c, const ax_trace *t, const ax_request *prev, const ax_request *r);
void ax_conv_free(ax_conv *c);

/* A trace's table of block texts: each hash id's ax_words text, made on
 * first use and kept, so that a request body is composed by copying block
 * texts (a replay keeps one table per trace in use). b and t must outlive
 * it. It is sized once for every block t names (the text buffer reserved,
 * the slot table never rehashed), so a text never moves: ax_texts_get points
 * *s at the text of block id, valid until ax_texts_free (for an id t does
 * not name, until the next ax_texts_get); IB_ENOMEM. ax_texts_bytes: the
 * memory it uses (text made, slots). */
typedef struct ax_texts ax_texts;
int ax_texts_new(const ax_blocks *b, const ax_trace *t, ax_texts **out);
void ax_texts_free(ax_texts *x);
int ax_texts_get(ax_texts *x, int64_t id, const char **s, size_t *n);
size_t ax_texts_bytes(const ax_texts *x);

/* The OpenAI chat-completions body of request r (conversation c) as
 * InferenceX's replay sends it: {"model", "messages", "max_tokens",
 * "ignore_eos": true, "stream": true, "stream_options": {"include_usage":
 * true}}; block texts from texts (t's table), or made from b when texts is
 * NULL (the same bytes), in the trace's scope (its id), the tail keyed by
 * tail_key; marker (may be NULL) and a blank line before the first user
 * message. Appends to out; IB_ENOMEM. */
int ax_chat_body(ib_buf *out, const ax_blocks *b, ax_texts *texts, const ax_trace *t,
                 const ax_conv *c, const ax_request *r, int64_t tail_key, const char *model,
                 int64_t max_tokens, const char *marker);

/* ---- the lane scheduler (AX4), in the caller's time ----
 * N lanes, each replaying one conversation tree at a time. A parent turn is
 * due when the previous one completed plus its think_time; the subagents
 * recorded after a parent turn are spawned when it completes, run their
 * requests one after another (completion + think_time), and the next parent
 * turn waits for all of them (the join); subagents after the last parent
 * turn run in the background. A tree drains when nothing of it is left; its
 * lane then recycles to the next trace (in a seeded order), replayed from
 * turn 0 with a new replay number. At start each lane draws t* uniformly in
 * [tstar_lo, tstar_hi] of its trace's parent turns: the turn before t* and
 * warmup_per_lane 1-token requests on its prefix are warmup; profiling
 * starts at turn t* once every lane's warmup has drained. Idle caps: when a
 * tree has nothing in flight its pending timers move so that its next
 * request is due within tree_idle_cap seconds; when nothing at all is in
 * flight, every timer moves so that the next request is due within
 * global_idle_cap. Traces with a request whose in + out exceeds
 * max_context (0: no limit) are dropped. The scheduler never reads a clock:
 * the caller passes `now` (seconds, monotonic). */
typedef struct {
	const ax_corpus *corpus;
	size_t lanes;
	uint32_t seed;
	double tstar_lo, tstar_hi; /* 0.25, 0.75 in InferenceX */
	size_t warmup_per_lane;    /* 10 */
	double global_idle_cap;    /* 10 s */
	double tree_idle_cap;      /* 300 s */
	int64_t max_context;       /* 0: none */
} ax_sched_opts;

typedef struct {
	uint64_t id;        /* for ax_sched_done */
	size_t lane, trace; /* trace: index in the corpus */
	uint64_t replay;    /* a number of its own per tree replay (the cache-bust marker's seed) */
	size_t entry;       /* the parent request's or the subagent's entry index */
	size_t sub_req;     /* within a subagent (0 for parent turns) */
	bool subagent, warmup;
	const ax_request *req; /* the recorded request */
	int64_t max_tokens;    /* req->out, or 1 for the extra warmup requests */
	double due;            /* when it became due */
} ax_dispatch;

typedef struct ax_sched ax_sched;
/* A scheduler at time `now`; *s freed with ax_sched_free. IB_EINVAL: no
 * lanes, no trace left after dropping, t* bounds outside [0, 1]. */
int ax_sched_new(const ax_sched_opts *o, double now, ax_sched **s, ib_error *e);
void ax_sched_free(ax_sched *s);
/* Pops one request due at or before now into *d: true, or false when none
 * is due. */
bool ax_sched_next(ax_sched *s, double now, ax_dispatch *d);
/* The earliest time a request becomes due (INFINITY when none is pending:
 * everything is in flight). */
double ax_sched_next_due(const ax_sched *s);
/* Request id completed at now. Returns 0, or IB_EINVAL for an unknown id. */
int ax_sched_done(ax_sched *s, uint64_t id, double now);
/* Whether warmup has drained (profiling requests are being dispatched). */
bool ax_sched_profiling(const ax_sched *s);
/* Traces dropped for max_context. */
size_t ax_sched_dropped(const ax_sched *s);

/* Where a running replay stands (ax_replay_opts.progress). */
typedef struct {
	bool profiling;       /* warmup has drained */
	double elapsed;       /* model seconds of profiling so far (0 in warmup) */
	double duration;      /* the profiling seconds asked for */
	size_t warmup_done;   /* warmup requests ended */
	size_t done, failed;  /* profiling requests completed, failed */
	size_t inflight;      /* requests in flight */
	double output_tokens; /* output tokens of the completed profiling requests */
} ax_replay_progress;

/* ---- the replay (infbench agentx replay; AX2-AX5) ----
 * Drives ax_sched's lanes against an OpenAI-compatible server with real
 * requests on bench/'s connections and stream parser (one event loop):
 * every dispatch becomes POST /v1/chat/completions with the full growing
 * messages array (ax_conv_turn over the chain up to the request), the
 * replay's cache-bust marker, max_tokens = the dispatch's, ignore_eos and
 * usage on; the body is composed from the trace's table of block texts
 * (ax_texts, kept per trace in use, least recently used dropped past
 * text_budget bytes) straight into the slot's request buffer, which is
 * reused. The clock is the server's model time: a server announcing a time
 * scale S (infbench sim) runs S model seconds per wall second, so think
 * times, the idle caps and the duration are model seconds. Profiling lasts
 * `duration` seconds from the moment warmup drained; then nothing new is
 * sent, requests in flight may finish within `grace` seconds, the rest are
 * cancelled (left out of the records). */
typedef struct {
	const char *corpus;    /* ax_corpus_load's source */
	const char *base_url;  /* http[s]://host:port */
	const char *endpoint;  /* "/v1/chat/completions" */
	const char *model;     /* the served model name (JSON "model") */
	const char *tokenizer; /* a folder, tokenizer.json or HF id; NULL: model */
	const char *api_key;   /* NULL: none */
	/* https:// base URLs: the CA file (PEM; NULL: the system store), or no
	 * certificate verification at all */
	const char *ca_cert;
	bool insecure;
	size_t concurrency; /* lanes */
	double duration;    /* profiling seconds (3600 in InferenceX) */
	double grace;       /* seconds in-flight requests may finish after it (30) */
	uint32_t seed;      /* 42 */
	size_t warmup_per_lane;
	double tstar_lo, tstar_hi, global_idle_cap, tree_idle_cap;
	int64_t max_context;    /* --max-context-length; 0: none */
	double request_timeout; /* seconds (model time); 0: none */
	size_t text_budget;     /* bytes of block texts kept (0: 1 GiB) */
	const char *out_dir;    /* <out_dir>/aiperf_artifacts/, <out_dir>/env; NULL
	                         * with artifact_dir: no env file */
	/* the artifacts' folder itself (aiperf's --output-artifact-dir); NULL:
	 * <out_dir>/aiperf_artifacts */
	const char *artifact_dir;
	size_t max_traces; /* aiperf's --num-dataset-entries: the first N traces; 0: all */
	/* aiperf's live --failed-request-threshold: once 10 profiling requests
	 * have ended and failed / completed exceeds it, the replay stops as at
	 * the end of its duration (in flight cancelled at once), writes its
	 * artifacts and reports it in ax_replay_outcome.threshold_exceeded;
	 * < 0: never (the default) */
	double live_fail_threshold;
	/* aiperf's --warmup-grace-period: warmup that has not drained this many
	 * seconds (model time) after the start fails the replay (IB_EIO); 0:
	 * no limit (the default) */
	double warmup_grace;
	/* Prometheus endpoints scraped besides the server's own /metrics
	 * (aiperf's --server-metrics; an URL equal to <base_url>/metrics is
	 * that one), and how often their gauges are sampled within the window
	 * (wall seconds; 0: at its start and end only) */
	const char *const *metrics_urls;
	size_t nmetrics_urls;
	double metrics_interval;
	/* extra KEY=VALUE lines for the env file (after CONC, MODEL, RESULT_DIR,
	 * DURATION, which they override) */
	const char *const *env;
	size_t nenv;
	const char *dataset; /* metadata.dataset.hf_dataset_name (NULL: corpus) */
	/* aiperf's AIPERF_HTTP_X_DYNAMO_SESSION_ID_FROM_CORRELATION_ID: every
	 * request carries "X-Dynamo-Session-ID: <ax_session_id>" of its
	 * conversation, for a Dynamo router's (or `infbench sim frontend`'s)
	 * session affinity */
	bool dynamo_session;
	/* polled about every 50 ms of wall time while the replay runs (NULL:
	 * never): true ends it at once, requests in flight closed, nothing
	 * written, and ax_replay returns IB_EIO "cancelled" (the caller knows
	 * why) */
	bool (*cancel)(void *arg);
	void *cancel_arg;
	/* called about every progress_every wall seconds while the replay runs
	 * (NULL or 0: never), from the replay's thread */
	void (*progress)(void *arg, const ax_replay_progress *p);
	void *progress_arg;
	double progress_every;
} ax_replay_opts;

/* The X-Dynamo-Session-ID of a conversation, NUL terminated: the tree
 * replay's cache-bust hex (ax_cache_bust of seed and replay) as
 * "ax-<12 hex>" for its parent turns, and "ax-<12 hex>-sa<entry>" for the
 * subagent recorded at entry index `entry` (subagent true), which is a
 * conversation of its own (its own messages array), as in aiperf. The same
 * for every request of one conversation, different between conversations
 * and between tree replays; only [a-z0-9-] (no trace id bytes). */
void ax_session_id(uint32_t seed, uint64_t replay, bool subagent, size_t entry, char out[48]);

/* Fills o with InferenceX's settings (seed 42, 10 warmup requests per lane,
 * t* in [0.25, 0.75], idle caps 10 s and 300 s, duration 3600 s, grace
 * 30 s, the chat endpoint). */
void ax_replay_defaults(ax_replay_opts *o);

typedef struct {
	size_t sent, profiled, warmup, errors, cancelled, dropped_traces;
	double time_scale;       /* the scale the server announced (1: none) */
	bool threshold_exceeded; /* live_fail_threshold stopped it */
	double wall_seconds;
} ax_replay_outcome;

/* Runs the replay and writes the artifacts. Lines for the user (a summary,
 * IB_LOG_ERR) go to log (may be NULL). Returns 0 when the replay ran and
 * its artifacts were written (failed requests are records, not errors);
 * IB_EINVAL options, IB_ENOENT a missing corpus or tokenizer (the message
 * names it), IB_EPARSE/IB_EINVAL a bad trace (file:line), IB_EIO the server
 * cannot be reached or an artifact cannot be written, IB_ENOMEM. */
int ax_replay(const ax_replay_opts *o, ib_log_fn log, void *log_arg, ax_replay_outcome *out,
              ib_error *e);

#endif
