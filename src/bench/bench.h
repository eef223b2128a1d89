/* bench — the serving benchmark client (a drop-in for InferenceX's
 * benchmark_serving.py): streaming response parsing with the reference's
 * timing rules, metrics with numpy's statistics, the result JSON, and the
 * request engine (docs/bench.md).
 *
 * Hot path: a response's bytes go through bench_sse_feed, which splits
 * lines and scans only the fields it needs, without a JSON tree and without
 * allocating per chunk (the per-request arrays grow geometrically).
 */
#ifndef IB_BENCH_H
#define IB_BENCH_H

#include "fmt/fmt.h"
#include "net/net.h"

/* ---- streaming response parsing (spec/bench.md S3–S9) ---- */

typedef struct {
	double *v;
	size_t n, cap;
} bench_vec;
int bench_vec_push(bench_vec *v, double x);
void bench_vec_free(bench_vec *v);

typedef struct {
	bool chat;        /* OpenAI Chat rules (S9) instead of Completions (S6) */
	bool keep_text;   /* collect the generated text (--save-detailed) */
	int64_t start_ns; /* st: just before the request was sent */
	/* memory bound: a stream with more than max_events JSON lines fails
	 * (0: no bound; set after bench_sse_reset); max_tokens for the message */
	size_t max_events, events;
	int64_t max_tokens;
	/* results */
	bool success, failed;
	char error[256];
	double ttft;           /* seconds; 0 until the first token chunk */
	int64_t last_ns;       /* most_recent_timestamp: E2EL = last_ns - start_ns */
	bench_vec itl;         /* gaps between token chunks, seconds */
	int64_t output_tokens; /* usage.completion_tokens; -1 when usage had null */
	int64_t prompt_tokens; /* usage.prompt_tokens; -1 when absent or null */
	bool usage_seen;
	size_t token_chunks;
	ib_buf text;
	/* the server's model clock (X-Infbench-Model-Time, docs/bench.md): the
	 * same figures from the chunks' "infbench_t" / "infbench_t0" (seconds).
	 * m_ok: every JSON line so far carried infbench_t; m_t0_seen: the
	 * arrival was given */
	bool m_ok, m_t0_seen;
	double m_t0, m_ttft, m_last;
	bench_vec m_itl;
	/* line assembly */
	ib_buf line;
} bench_sse;

/* Prepares s for a new response (keeps its buffers' capacity). */
void bench_sse_reset(bench_sse *s, bool chat, bool keep_text, int64_t start_ns);
void bench_sse_free(bench_sse *s);
/* Feeds body bytes received at time t_ns. Returns false once the request
 * has failed (s->error says why); later bytes are then ignored. */
bool bench_sse_feed(bench_sse *s, const char *data, size_t len, int64_t t_ns);
/* The stream ended: applies the success rule (S8/S9). */
void bench_sse_end(bench_sse *s);

/* Scans one JSON text: returns true if it is well-formed JSON, and reports
 * whether its top level has a non-empty "choices" array and a truthy
 * "usage" (with usage.prompt_tokens, -1 when null or absent), numeric "infbench_t" / "infbench_t0"
 * members, with usage.completion_tokens (-1 when null or absent, -2 when negative or over 2^31 - 1:
 * the request fails) and the first choice's text (Completions: choices[0].text, Chat:
 * choices[0].delta.content), unescaped into text when text is non-NULL. */
typedef struct {
	bool has_choices, has_usage;
	int64_t completion_tokens;
	int64_t prompt_tokens; /* usage.prompt_tokens, -1 when null or absent */
	/* top-level "infbench_t" / "infbench_t0" numbers (the simulator's model
	 * clock, docs/sim.md), when present */
	bool has_t, has_t0;
	double t, t0;
} bench_chunk;
bool bench_scan_chunk(const char *p, size_t n, bool chat, bench_chunk *out, ib_buf *text);

/* ---- statistics (numpy semantics) ---- */
/* Sorts v in place. Percentile p in [0, 100] with linear interpolation
 * (numpy's default); an empty list counts as [0]. */
double bench_percentile(double *v, size_t n, double p);
double bench_mean(const double *v, size_t n);
double bench_std(const double *v, size_t n); /* population (ddof = 0) */

/* ---- the request engine ---- */

typedef struct {
	const char *text; /* the prompt as sent */
	size_t len;
	int64_t prompt_len; /* client-side token count (prompt_len) */
	int64_t output_len; /* max_tokens / max_completion_tokens */
} bench_prompt;

typedef struct {
	/* target */
	const char *host; /* IPv4 address to connect to */
	int port;
	net_tls *tls;              /* NULL: http; else https with this client context */
	const char *server_name;   /* https: SNI and the name the certificate must carry */
	const char *endpoint;      /* "/v1/completions" */
	bool chat;                 /* OpenAI Chat body and parsing */
	const char *model;         /* JSON "model" */
	const char *const *models; /* NULL, or per measured request (--lora-modules) */
	const char *api_key;       /* Authorization: Bearer <key> ("None" when unset, as Python) */
	int best_of;
	const char *logprobs; /* JSON text of "logprobs", NULL: null */
	bool ignore_eos;
	/* load */
	size_t max_concurrency; /* 0: unlimited */
	double request_rate;    /* requests/s; INFINITY: all at once */
	double burstiness;      /* gamma shape */
	ib_mt *rng;             /* the global generator (inter-arrival draws) */
	size_t num_warmups;
	bool keep_alive;        /* reuse connections (default: one per request) */
	int threads;            /* event loops (default 1); slots are split over them */
	bool kernel_timestamps; /* SO_TIMESTAMPNS receive times */
	bool keep_text;         /* --save-detailed */
	double request_timeout; /* seconds a request and its stream may take (0: none) */
	/* tests only (0 otherwise): CPU ns burnt on every read of a response,
	 * a deliberately slow client for the client_bound verdict's tests */
	int64_t test_burn_ns_per_read;
	/* a status line to redraw in place (IB_LOG_PROGRESS; NULL text: clear
	 * it); NULL: none. Called from the client's event-loop thread. */
	ib_log_fn progress;
	void *progress_arg;
	/* called once, after the warmup and before the timed window starts;
	 * on_end once the last request ended, inside the window (as the
	 * reference stops its profiler); arg is hook_arg */
	void (*on_start)(void *arg);
	void (*on_end)(void *arg);
	void *hook_arg;
	/* the server's time scale when known before the run (GET /v1/models,
	 * bench_probe_time_scale), 0 when not: open-loop arrivals are then due
	 * request_rate per second of model time */
	double time_scale_hint;
} bench_cfg;

typedef struct {
	bool success;
	char error[256];      /* the reference's error (a non-200: the reason phrase) */
	char detail[256];     /* a failure, said fully: "HTTP 404 Not Found: <message>" */
	double ttft, latency; /* seconds from the send (the reference's st) */
	double ttft_intended, latency_intended; /* from the intended send time */
	bench_vec itl;
	int64_t output_tokens; /* usage.completion_tokens; -1: null (count the text) */
	ib_buf text;
	double schedule_lag; /* send time - intended send time, seconds */
	/* the same request on the server's model clock, when every chunk
	 * carried it (m_ok): seconds; m_t0 the arrival, m_end the last chunk */
	bool m_ok;
	double m_ttft, m_latency, m_t0, m_end;
	bench_vec m_itl;
} bench_result;

typedef struct {
	double duration; /* seconds, monotonic */
	double start_unix, end_unix;
	double cpu_seconds;                /* the client's user + system CPU in the window */
	double loop_lag_p99, loop_lag_max; /* timer lateness of the event loop, s */
	/* the busiest event loop's share of the window spent outside its waits
	 * for the network (running callbacks, or runnable and preempted), 0..1,
	 * and its thread's CPU share of the window */
	double loop_busy, loop_cpu_share;
	double achieved_rate; /* requests started per second */
	/* A time-scaled server (the simulator) announces its scale S in the
	 * X-Infbench-Time-Scale response header: each second of wall time is S
	 * seconds of model time. With S announced, bench_run converts every
	 * measured duration (duration, achieved_rate and each result's ttft,
	 * latency, itl) to model time; schedule lag and loop lag stay in wall
	 * time (they are the client's own health). 0: none announced (a real
	 * server), nothing converted; -1: responses announced different
	 * scales, nothing converted. */
	double time_scale;
	double wall_duration; /* the window in wall seconds, whatever the scale */
	/* a response carried X-Infbench-Engine (infbench sim announces itself
	 * so): the result is marked "simulated": true */
	bool simulated;
	/* the value of the first X-Infbench-Sim-Interval response header (the
	 * simulator's prediction interval, docs/sim.md "Prediction intervals"),
	 * verbatim into the result's "sim_interval"; "": none */
	char sim_interval[256];
	/* the clock of the figures: BENCH_CLOCK_MODEL when every successful
	 * request carried the server's model timestamps (then ttft, latency,
	 * itl are those, duration runs from the earliest arrival to the latest
	 * end, model seconds); else BENCH_CLOCK_SCALED (wall x time_scale) or
	 * BENCH_CLOCK_WALL */
	int clock;
} bench_run_stats;
enum { BENCH_CLOCK_WALL, BENCH_CLOCK_SCALED, BENCH_CLOCK_MODEL };

/* Runs warmup (discarded) then the measured requests against the server.
 * results[i] belongs to prompts[i]. Returns 0, or an error for a run that
 * could not happen at all (no such host, out of memory); failed requests
 * are results, not errors. */
int bench_run(const bench_cfg *cfg, const bench_prompt *prompts, size_t n, bench_result *results,
              bench_run_stats *st, ib_error *e);
void bench_result_free(bench_result *r);
/* The JSON body the reference's backend function posts for prompt p (H3 /
 * H4, Python json.dumps spacing) with `model`; extra: NULL or members
 * (", \"k\": v") appended last, as its extra_body. */
int bench_request_body(const bench_cfg *cfg, const bench_prompt *p, const char *model,
                       bool ignore_eos, const char *extra, ib_buf *body);

/* ---- the random dataset (spec/bench.md D1–D12), bit for bit ---- */

struct tok;
struct chat_tmpl;

typedef struct {
	struct tok *tok;        /* the tokenizer */
	struct chat_tmpl *tmpl; /* the chat template, or NULL */
	const ib_val *special;  /* bos_token, eos_token, ... for the template */
	bool dsv4;              /* the built-in DeepSeek-V4 framing */
	bool cleanup;           /* transformers' clean_up_tokenization_spaces */
	bool use_chat_template; /* as opened */
	const char *path;       /* as opened (in arena) */
	ib_arena *arena;
} bench_tokenizer;

/* Loads the tokenizer at path (a folder with tokenizer.json and
 * tokenizer_config.json, or a tokenizer.json), and its chat template when
 * use_chat_template without dsv4. Free with bench_tokenizer_close. One
 * bench_tokenizer is used by one thread at a time. */
int bench_tokenizer_open(bench_tokenizer *t, const char *path, bool use_chat_template, bool dsv4,
                         ib_error *e);
void bench_tokenizer_close(bench_tokenizer *t);

typedef struct {
	size_t num_prompts;
	int64_t input_len, output_len, prefix_len;
	double range_ratio;
	bool use_chat_template;
	int num_workers; /* the reference's chunking: 1 serial, W > 1 W chunks */
	int threads;     /* generation threads; 0: one per online CPU */
	/* a folder of generated prompt sets (--prompt-cache), or NULL: a set is
	 * keyed by everything it depends on (tokenizer files, the random
	 * state, lengths, counts, chunking, template), so a hit gives the very
	 * prompts generation would; read/write problems only mean a miss */
	const char *cache_dir;
	bool cache_hit; /* out: the prompts came from cache_dir */
	/* a status line to redraw in place (IB_LOG_PROGRESS; NULL text: clear
	 * it); may be called from several generation threads */
	ib_log_fn progress;
	void *progress_arg;
} bench_random_opts;

/* Builds the prompts exactly as the reference's sample_random_requests:
 * draws from `global` (seeded by --seed), the consecutive-id ramps, the
 * decode/encode correction loop, the chat template, the final re-encode.
 * *out (n = num_prompts) and its texts are allocated in arena a. The
 * statistics block is appended to stats. Runs on o->threads threads, each
 * but the caller's with a tokenizer of its own loaded from t->path; the
 * result is the same for every thread count (num_workers alone changes
 * it, as in the reference). */
int bench_random_dataset(ib_arena *a, bench_tokenizer *t, ib_mt *global, bench_random_opts *o,
                         bench_prompt **out, ib_buf *stats, ib_error *e);
/* Prompts from a file (vLLM's formats, docs/bench.md "Datasets from
 * files"). sharegpt: a JSON list of {"conversations": [{"value": prompt},
 * {"value": reply}, ...]}; the first num_prompts usable entries in file
 * order (two turns or more; prompt >= 4 and <= 1,024 tokens, the reply
 * >= 4 when it sets the output length, total <= 2,048), output length the
 * reply's tokens or output_len when > 0. custom: JSON lines
 * {"prompt": "..."} (blank lines skipped), output length output_len (0:
 * 256). The chat template is applied when t says so; prompt_len is the
 * final text's token count. *out (num_prompts entries) lives in arena a.
 * Errors: IB_ENOENT/IB_EIO for the file, IB_EPARSE/IB_EINVAL naming the
 * file and line (custom) or entry (sharegpt) and field, IB_EINVAL when
 * fewer than num_prompts prompts are usable. */
typedef struct {
	bool sharegpt;    /* else custom */
	const char *path; /* --dataset-path */
	size_t num_prompts;
	int64_t output_len; /* --sharegpt-output-len / --custom-output-len; 0: default */
} bench_file_opts;
int bench_file_dataset(ib_arena *a, bench_tokenizer *t, const bench_file_opts *o,
                       bench_prompt **out, ib_error *e);
/* transformers' clean_up_tokenization on b's bytes from `from` on, in
 * place: " ." -> ".", " ?", " !", " ,", " ' " -> "'", " n't", " 'm", " 's",
 * " 've", " 're", each a left-to-right str.replace over the text the
 * previous one left. bench_cleanup does it in one scan; bench_cleanup_slow
 * is the ten scans (its fallback when out of memory, and its test). */
void bench_cleanup(ib_buf *b, size_t from);
void bench_cleanup_slow(ib_buf *b, size_t from);
/* decode with the tokenizer, then transformers' cleanup when t->cleanup */
int bench_decode(bench_tokenizer *t, const uint32_t *ids, size_t n, ib_buf *out, ib_error *e);
/* the chat template (or DSV4 framing) around one user message */
int bench_apply_template(bench_tokenizer *t, const char *content, size_t len, ib_buf *out,
                         ib_error *e);

/* ---- side requests: /metrics, the profiler ---- */

/* A blocking request to cfg's server (host, port, and TLS when cfg->tls)
 * on a connection of its own (Connection: close); body (JSON) may be NULL.
 * The response body, de-chunked, is appended to resp. Fails (IB_EIO, the
 * message says why) on a non-200 status, a failed connection, or when the
 * whole exchange, connect included, takes over timeout_ms. */
int bench_http(const bench_cfg *cfg, const char *method, const char *path, const char *body,
               size_t body_len, int timeout_ms, ib_buf *resp, ib_error *e);
/* The time scale a server announces in GET /v1/models (the first model's
 * "time_scale", as infbench sim serves it) on cfg's server (TLS included);
 * 0 when it announces none or cannot be asked within timeout_ms. */
double bench_probe_time_scale(const bench_cfg *cfg, int timeout_ms);

typedef struct {
	bool ok;
	double drafts, draft_tokens, accepted, per_pos[16]; /* vLLM counters, NAN if absent */
	double sglang_accept_length;
	double prefix_hits, prefix_queries, sglang_cache_hit_rate;
} bench_scrape;

/* ---- Prometheus text, sample by sample (bench/prom.c) ----
 * bench_prom_each calls fn for every sample line of text (n bytes): its
 * name, the raw text inside its {...} (labels_len 0: none) and its value.
 * type is its family's (the last "# TYPE" line) when the sample belongs to
 * it (the family's name, or a counter family's name + "_total"), a
 * counter's "_created" samples BENCH_PROM_OTHER, else BENCH_PROM_UNTYPED.
 * Lines that are not samples are skipped. A non-zero return of fn stops
 * the walk and is returned; else 0. */
typedef enum {
	BENCH_PROM_UNTYPED,
	BENCH_PROM_COUNTER,
	BENCH_PROM_GAUGE,
	BENCH_PROM_OTHER /* histogram, summary, info, a counter's _created */
} bench_prom_type;
typedef struct {
	const char *name;
	size_t name_len;
	const char *labels;
	size_t labels_len;
	double value;
	bench_prom_type type;
} bench_prom_sample;
typedef int (*bench_prom_fn)(void *arg, const bench_prom_sample *s);
int bench_prom_each(const char *text, size_t n, bench_prom_fn fn, void *arg);
/* A sample's labels (`k="v",...`, escapes \\ \" \n) as a map in a: 0,
 * IB_EPARSE for a malformed set (named in e), IB_ENOMEM. */
int bench_prom_labels(ib_arena *a, const char *s, size_t n, ib_val **out, ib_error *e);

/* Reads the counters of a Prometheus text (summing every label set). */
void bench_scrape_values(const char *text, bench_scrape *s);
/* The "server_metrics" object for the result: acceptance statistics and
 * prefix-cache hits between two scrapes; null where the server has none. */
ib_val *bench_scrape_diff(ib_arena *a, const bench_scrape *before, const bench_scrape *after);

/* ---- metrics and the result (spec/bench.md M1–M8, O1–O4) ---- */

typedef struct {
	bool ttft, tpot, itl, e2el; /* --percentile-metrics */
	const double *percentiles;  /* --metric-percentiles */
	size_t npercentiles;
	bool goodput;                        /* --goodput given */
	double slo_ttft, slo_tpot, slo_e2el; /* seconds; < 0 when not set */
} bench_metric_opts;

/* Output token count of a successful request whose usage said null: the
 * caller counts generated_text with the tokenizer (M1); NULL callback
 * counts 0. */
typedef int64_t (*bench_count_fn)(const char *text, size_t len, void *arg);

/* Computes every aggregate and appends, in the reference's key order, to
 * the result map `out` (which already holds date .. max_concurrency): the
 * keys from "duration" to the percentiles, with the per-request arrays.
 * Also prints the reference's stdout table to `table`. Extra infbench keys
 * (client_health, latencies from the intended send time) are appended after
 * the reference's keys. */
int bench_report(ib_arena *a, const bench_prompt *prompts, const bench_result *res, size_t n,
                 const bench_run_stats *st, const bench_metric_opts *mo, bool save_detailed,
                 bench_count_fn count, void *count_arg, ib_val *out, ib_buf *table);

/* ---- the whole benchmark: options → prompts → run → result ----
 *
 * What `infbench bench` does, as one call the runner can make too:
 *
 *     bench_options o;
 *     bench_options_init(&o);            // the reference's defaults
 *     o.model = "amd/MiniMax-M3-MXFP4";  // a folder or a Hugging Face id
 *     o.base_url = "http://127.0.0.1:8000";
 *     o.num_prompts = 40; o.max_concurrency = 4; o.save_result = true;
 *     bench_outcome out;
 *     int rc = bench_main(&o, &log, &out, &e);  // 0: the run happened
 *     exit status: rc ? error : out.failure_gate ? 1 : 0
 */

/* Lines for the user through base's one log shape; the library prints
 * nothing itself. IB_LOG_OUT: what the reference prints on stdout
 * (announcements, the dataset statistics, the result table); IB_LOG_ERR:
 * warnings, "All requests failed", the distinct error reasons and the FAIL
 * line of the 5 % gate (for stderr); IB_LOG_PROGRESS: a status line to
 * redraw in place, NULL text to clear it (called from the client and
 * generation threads; with_progress false: none is sent). Texts end in
 * "\n" except progress's. fn may be NULL. */
typedef struct {
	ib_log_fn fn;
	void *arg;
	bool with_progress;
} bench_log;

typedef struct {
	/* target */
	const char *backend;  /* vllm, openai, sglang, lmdeploy, scalellm; openai-chat */
	const char *base_url; /* http://host[:port] or https://...; NULL: host and port */
	const char *host;     /* "127.0.0.1"; a name is resolved (localhost: 127.0.0.1) */
	int port;             /* 8000 */
	const char *endpoint; /* "/v1/completions" */
	const char *ca_cert;  /* https: PEM CA file (NULL: the system store) */
	bool insecure;        /* https: no certificate verification */
	const char *api_key;  /* Authorization: Bearer (NULL: "None", as the reference) */
	/* model and prompts */
	const char *model; /* required: JSON "model", and the tokenizer by default */
	const char
	    *tokenizer; /* NULL: model; a folder, a tokenizer.json or a HF id (tok_resolve) */
	const char *served_model_name;   /* NULL: model */
	const char *const *lora_modules; /* one drawn per measured request */
	size_t nlora;
	size_t num_prompts;       /* 1000 */
	const char *dataset_name; /* "random" (default), "sharegpt", "custom" */
	const char *dataset_path; /* the file of sharegpt / custom */
	int64_t file_output_len;  /* --sharegpt-output-len / --custom-output-len (0: default) */
	int64_t input_len, output_len, prefix_len; /* 1024, 128, 0 */
	double range_ratio;                        /* 1.0 */
	int64_t seed;                              /* 0 */
	int random_num_workers;                    /* the reference's chunking; 0: min(cpus, 8) */
	int prompt_threads;                        /* 0: one per CPU */
	const char *prompt_cache; /* --prompt-cache DIR, or NULL (bench_random_opts.cache_dir) */
	bool use_chat_template, dsv4;
	/* requests */
	int best_of;       /* 1 */
	bool logprobs_set; /* send "logprobs": logprobs (else null) */
	int64_t logprobs;
	bool ignore_eos;
	/* load */
	size_t max_concurrency;   /* 0: unlimited */
	const char *request_rate; /* "inf" or a number, as text (it names the result file) */
	const char *burstiness;   /* "1.0" */
	size_t num_warmups;
	bool keep_alive, user_timestamps;
	int threads;            /* 1 */
	double request_timeout; /* seconds, 21600 (the reference's aiohttp timeout) */
	bool profile;
	/* result */
	bench_metric_opts metrics;
	bool save_result, save_detailed;
	const char *const *metadata; /* KEY=VALUE strings added to the JSON */
	size_t nmetadata;
	const char *result_dir, *result_filename;
} bench_options;

/* Fills o with the reference's defaults (as above). */
void bench_options_init(bench_options *o);
/* Checks the options without running: IB_EINVAL, the message naming the
 * flag, for a value the benchmark cannot use. */
int bench_options_check(const bench_options *o, ib_error *e);

typedef struct {
	size_t num_prompts, completed, failed;
	bool failure_gate;      /* more than 5 % failed: the run counts as failed */
	char result_path[4096]; /* the file written ("" when none) */
	double time_scale;      /* the scale the server announced (bench_run_stats):
	                         * 0 none (figures as measured), > 0 the figures
	                         * are model time, -1 conflicting (wall time) */
	bool simulated;         /* the server announced itself as infbench sim */
} bench_outcome;

/* Runs the benchmark: checks o, resolves the tokenizer, builds the prompts,
 * runs warmup and the measured requests, computes the result and writes it
 * (o->save_result) atomically, never over something that is not a regular
 * file. Returns 0 when the run happened (out says how it went; a run over
 * the 5 % gate still returns 0 with out->failure_gate), or an error: IB_EINVAL
 * (options), IB_ENOENT (tokenizer not found: the message lists where it
 * looked), IB_EIO (TLS setup, the result file), IB_ENOMEM. */
int bench_main(const bench_options *o, const bench_log *log, bench_outcome *out, ib_error *e);

/* The decisions, for callers that assemble their own run: */
/* The server of base_url ("http[s]://name[:port][/...]"), or of host_in and
 * port_in when base_url is NULL: name (as given), its resolved IPv4 address
 * in host, the port, whether https. IB_EINVAL for a bad port, net_resolve's
 * error for a name that does not resolve. */
int bench_target(const char *base_url, const char *host_in, int port_in, char host[256], int *port,
                 char name[256], bool *https, ib_error *e);
/* more than 5 % of n failed (integers: exactly 5.0 % is not more) */
bool bench_failure_gate(size_t completed, size_t n);
/* The reference's result file name,
 * "<backend>-<rate>qps[-concurrency<C>]-<model basename>-<date>.json". */
int bench_result_name(const char *backend, const char *rate, size_t max_concurrency,
                      const char *model, const char *date, ib_buf *out);
/* The client_bound verdict: the client, not the server, set the pace.
 * True when the busiest event loop spent at least BENCH_BOUND_BUSY of the
 * window outside its waits for the network (st->loop_busy: always work at
 * hand, or wanting the CPU: a saturated or starved client), or, for an open
 * loop (finite rate), when one request in ten or more left over 1 ms late
 * (schedule_lag_p90_ms > 1: sustained, not one burst). Timer lateness alone
 * (event-loop lag) is not a verdict: a shared machine wakes an idle client
 * late without the client holding anything back. why (may be NULL) gets the
 * reason when bound. */
#define BENCH_BOUND_BUSY 0.9
bool bench_client_bound(const bench_run_stats *st, double schedule_lag_p90_ms, double rate,
                        bool kernel_ts, char *why, size_t cap);
/* The "workload" object: sha256 of the prompts and output lengths, of the
 * prompts alone, of the tokenizer.json, the seed, the generation time and
 * the process CPU (user + system, all threads) the generation took. */
ib_val *bench_workload(ib_arena *a, const bench_prompt *ps, size_t n, struct tok *tk, uint32_t seed,
                       double gen_seconds, double gen_cpu_seconds);
/* The first max_reasons distinct failure reasons (detail, else error) with
 * their counts, lines appended to out; nothing when none failed. */
int bench_error_summary(const bench_result *res, size_t n, size_t max_reasons, ib_buf *out);

#endif
