/* The whole benchmark as one call (what `infbench bench` does, and what the
 * runner calls): options → tokenizer and prompts → the run → the result
 * JSON, with the decisions that belong to it: the client_bound verdict, the
 * workload fingerprint, the result file's name and the 5 % failure gate.
 * Every line for the user goes through the caller's bench_log. */
#include "bench/bench.h"
#include "tok/tok.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void bench_options_init(bench_options *o)
{
	memset(o, 0, sizeof *o);
	o->backend = "vllm";
	o->host = "127.0.0.1";
	o->port = 8000;
	o->endpoint = "/v1/completions";
	o->num_prompts = 1000;
	o->request_rate = "inf";
	o->burstiness = "1.0";
	o->input_len = 1024;
	o->output_len = 128;
	o->range_ratio = 1.0;
	o->best_of = 1;
	o->threads = 1;
	o->request_timeout = 6 * 3600; /* the reference's aiohttp timeout */
	o->metrics = (bench_metric_opts){.ttft = true,
	                                 .tpot = true,
	                                 .itl = true,
	                                 .e2el = true,
	                                 .slo_ttft = -1,
	                                 .slo_tpot = -1,
	                                 .slo_e2el = -1};
}

static bool is_chat(const bench_options *o)
{
	return !strcmp(o->backend, "openai-chat");
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

int bench_options_check(const bench_options *o, ib_error *e)
{
	static const char *const ok[] = {"vllm",     "openai",   "sglang",
	                                 "lmdeploy", "scalellm", "openai-chat"};
	bool known = false;
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		known |= !strcmp(o->backend, ok[i]);
	if (!known)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
		               "argument --backend: '%s' is not supported by infbench (use vllm, "
		               "openai, sglang or "
		               "openai-chat)",
		               o->backend);
	if (!o->model || !*o->model)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "argument --model: required");
	bool file = o->dataset_name && strcmp(o->dataset_name, "random");
	if (file && strcmp(o->dataset_name, "sharegpt") && strcmp(o->dataset_name, "custom"))
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
		               "argument --dataset-name: random, sharegpt or custom (got %s)",
		               o->dataset_name);
	if (file && (!o->dataset_path || !*o->dataset_path))
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
		               "argument --dataset-path: required with --dataset-name %s",
		               o->dataset_name);
	if (o->file_output_len < 0)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "the output length must be > 0");
	bool chat = is_chat(o);
	if (chat ? !ends_with(o->endpoint, "chat/completions")
	         : !ends_with(o->endpoint, "completions") && !ends_with(o->endpoint, "profile"))
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
		               "the %s backend needs an endpoint ending in '%s' (got %s)",
		               o->backend, chat ? "chat/completions" : "completions", o->endpoint);
	if (o->base_url && strncmp(o->base_url, "http://", 7) &&
	    strncmp(o->base_url, "https://", 8))
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
		               "argument --base-url: must start with http:// or https:// (got %s)",
		               o->base_url);
	bool https = o->base_url && !strncmp(o->base_url, "https://", 8);
	if (!https && (o->ca_cert || o->insecure))
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
		               "--ca-cert and --insecure apply to https:// base URLs");
	double rate = strcmp(o->request_rate, "inf") ? atof(o->request_rate) : INFINITY;
	double burst = atof(o->burstiness);
	if (!(rate > 0) || !(burst > 0) || !(o->range_ratio >= 0 && o->range_ratio <= 1))
		return ib_fail(
		    e, IB_EINVAL, NULL, 0, 0,
		    "--request-rate and --burstiness must be > 0, --random-range-ratio in [0, 1]");
	if (o->threads < 1 || o->threads > 256)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "argument --threads: must be 1..256");
	if (o->prompt_threads < 0 || o->prompt_threads > 256)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
		               "argument --prompt-threads: must be 0..256");
	if (o->dsv4 && !o->use_chat_template)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "--dsv4 requires --use-chat-template");
	if (!(o->request_timeout > 0) || o->request_timeout > 1e9)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
		               "argument --request-timeout: must be > 0 seconds");
	if (o->input_len < 0 || o->output_len < 0 || o->prefix_len < 0 ||
	    o->input_len > INT32_MAX || o->output_len > INT32_MAX || o->prefix_len > INT32_MAX)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
		               "--random-input-len, --random-output-len and "
		               "--random-prefix-len must be 0..2147483647");
	for (size_t i = 0; i < o->nmetadata; i++)
		if (!strchr(o->metadata[i], '='))
			return ib_fail(e, IB_EINVAL, NULL, 0, 0,
			               "argument --metadata: needs KEY=VALUE (got %s)",
			               o->metadata[i]);
	return 0;
}

bool bench_failure_gate(size_t completed, size_t n)
{
	/* failed / n > 5 %, in integers (failed * 20 > n, without overflow):
	 * exactly 5.0 % passes */
	size_t failed = n - (completed < n ? completed : n);
	return failed > n / 20;
}

int bench_result_name(const char *backend, const char *rate, size_t max_concurrency,
                      const char *model, const char *date, ib_buf *out)
{
	const char *base = strrchr(model, '/') ? strrchr(model, '/') + 1 : model;
	char conc[64] = "";
	if (max_concurrency)
		snprintf(conc, sizeof conc, "-concurrency%zu", max_concurrency);
	return ib_buf_printf(out, "%s-%sqps%s-%s-%s.json", backend, rate, conc, base, date)
	           ? IB_ENOMEM
	           : 0;
}

/* ---- logging through the caller's hooks ---- */

static void say(const bench_log *l, bool err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(const bench_log *l, bool err, const char *fmt, ...)
{
	if (!l || !l->fn)
		return;
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	l->fn(l->arg, err ? IB_LOG_ERR : IB_LOG_OUT, buf);
}

/* ---- the hooks around the timed window ---- */

typedef struct {
	const bench_options *o;
	const bench_log *log;
	const bench_cfg *cfg;
	const bench_prompt *test; /* the reference's test prompt: prompts[0] */
	bench_scrape before;      /* /metrics before the window */
	double burst;
} run_ctx;

static void scrape(const bench_cfg *c, bench_scrape *s)
{
	ib_buf b = {0};
	ib_error e = {0};
	memset(s, 0, sizeof *s);
	if (bench_http(c, "GET", "/metrics", NULL, 0, 5000, &b, &e) == 0)
		bench_scrape_values(b.data ? b.data : "", s);
	ib_buf_free(&b);
}

/* --profile: POST the test prompt's body to /start_profile or /stop_profile,
 * as the reference's backend function does (through base_url) */
static void profiler(const run_ctx *c, bool start)
{
	static const char extra[] =
	    ", \"num_steps\": 1, \"merge_profiles\": true, \"profile_by_stage\": true";
	ib_buf body = {0}, resp = {0};
	ib_error e = {0};
	/* stop: no model_name, ignore_eos or extra_body in its input */
	const char *model = start ? c->cfg->model : c->o->model;
	say(c->log, false, start ? "Starting profiler...\n" : "Stopping profiler...\n");
	if (bench_request_body(c->cfg, c->test, model, start && c->cfg->ignore_eos,
	                       start ? extra : NULL, &body) == 0 &&
	    bench_http(c->cfg, "POST", start ? "/start_profile" : "/stop_profile", body.data,
	               body.len, 3600 * 1000, &resp, &e) == 0)
		say(c->log, false, start ? "Profiler started\n" : "Profiler stopped\n");
	else
		say(c->log, true, "infbench bench: warning: %s: %s\n",
		    start ? "/start_profile" : "/stop_profile", e.msg[0] ? e.msg : "out of memory");
	ib_buf_free(&body);
	ib_buf_free(&resp);
}

/* after the warmup: the reference's announcements, the profiler, /metrics */
static void on_start(void *arg)
{
	run_ctx *c = arg;
	if (c->cfg->num_warmups)
		say(c->log, false, "Warmup completed.\n");
	if (c->o->profile)
		profiler(c, true);
	say(c->log, false, "Traffic request rate: %s\n", c->o->request_rate);
	say(c->log, false, "Burstiness factor: %s (%s)\n", c->o->burstiness,
	    c->burst == 1.0 ? "Poisson process" : "Gamma distribution");
	if (c->cfg->max_concurrency)
		say(c->log, false, "Maximum request concurrency: %zu\n", c->cfg->max_concurrency);
	else
		say(c->log, false, "Maximum request concurrency: None\n");
	say(c->log, false, "Starting main benchmark run...\n");
	scrape(c->cfg, &c->before);
}

static void on_end(void *arg)
{
	run_ctx *c = arg;
	if (c->o->profile)
		profiler(c, false);
}

/* ---- the workload fingerprint and the client's health ---- */

static void hex32(const uint8_t d[32], char out[65])
{
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

ib_val *bench_workload(ib_arena *a, const bench_prompt *ps, size_t n, struct tok *tk, uint32_t seed,
                       double gen_seconds, double gen_cpu_seconds)
{
	ib_sha256 all, prompts;
	ib_sha256_init(&all);
	ib_sha256_init(&prompts);
	for (size_t i = 0; i < n; i++) {
		char num[32];
		int k = snprintf(num, sizeof num, "%lld\n", (long long)ps[i].output_len);
		ib_sha256_update(&all, ps[i].text, ps[i].len);
		ib_sha256_update(&all, "\0", 1);
		ib_sha256_update(&all, num, (size_t)k);
		if (i)
			ib_sha256_update(&prompts, "\n", 1);
		ib_sha256_update(&prompts, ps[i].text, ps[i].len);
	}
	uint8_t d[32];
	char h1[65], h2[65], h3[65];
	ib_sha256_final(&all, d);
	hex32(d, h1);
	ib_sha256_final(&prompts, d);
	hex32(d, h2);
	/* the tokenizer cache keeps it: the file is not hashed at every run */
	ib_error ignore = {0};
	if (tok_source_sha256(tk, h3, &ignore))
		snprintf(h3, sizeof h3, "unknown");
	ib_val *w = ib_v_map(a);
	ib_map_set(a, w, "sha256", ib_v_str(a, h1));
	ib_map_set(a, w, "prompts_sha256", ib_v_str(a, h2));
	ib_map_set(a, w, "tokenizer_sha256", ib_v_str(a, h3));
	ib_map_set(a, w, "seed", ib_v_int(a, seed));
	ib_map_set(a, w, "num_prompts", ib_v_int(a, (int64_t)n));
	ib_map_set(a, w, "generation_seconds", ib_v_float(a, gen_seconds));
	ib_map_set(a, w, "generation_cpu_seconds", ib_v_float(a, gen_cpu_seconds));
	return w;
}

bool bench_client_bound(const bench_run_stats *st, double schedule_lag_p90_ms, double rate,
                        bool kernel_ts, char *why, size_t cap)
{
	const char *effect =
	    kernel_ts ? "its own delays hold requests back (chunk times come from the kernel)"
	              : "its own delays hold requests back and inflate the latencies";
	if (st->loop_busy >= BENCH_BOUND_BUSY) {
		/* busy but mostly not running: preempted, the machine starves it */
		bool starved = st->loop_cpu_share < st->loop_busy / 2;
		if (why)
			snprintf(
			    why, cap,
			    "the client's event loop was busy %.0f%% of the window (>= %.0f%%; "
			    "its thread's CPU %.0f%%%s): it, not the server, set the pace; %s",
			    100 * st->loop_busy, 100 * BENCH_BOUND_BUSY, 100 * st->loop_cpu_share,
			    starved ? ", the rest it waited for a CPU: a busy machine starves it"
			            : "",
			    effect);
		return true;
	}
	/* closed loop: a request waits for a slot by design and is sent the
	 * moment one is free, so only the busy share speaks */
	if (!isinf(rate) && schedule_lag_p90_ms > 1.0) {
		if (why)
			snprintf(
			    why, cap,
			    "the client's schedule lag p90 is %.2f ms (> 1 ms): one request in "
			    "ten or more left late; %s",
			    schedule_lag_p90_ms, effect);
		return true;
	}
	return false;
}

static int health(ib_arena *a, ib_val *out, const bench_result *res, size_t n,
                  const bench_run_stats *st, double rate, bool kernel_ts)
{
	double *lag = calloc(n + 1, sizeof *lag);
	double *ti = calloc(n + 1, sizeof *ti), *ei = calloc(n + 1, sizeof *ei);
	size_t k = 0;
	int rc = lag && ti && ei ? 0 : IB_ENOMEM;
	for (size_t i = 0; !rc && i < n; i++) {
		lag[i] = res[i].schedule_lag;
		if (res[i].success) {
			ti[k] = res[i].ttft_intended;
			ei[k++] = res[i].latency_intended;
		}
	}
	ib_val *h = ib_v_map(a), *in = ib_v_map(a);
	if (rc || !h || !in)
		goto out;
	double p50 = bench_percentile(lag, n, 50) * 1000, p99 = bench_percentile(lag, n, 99) * 1000;
	double p90 = bench_percentile(lag, n, 90) * 1000;
	double mx = n ? lag[n - 1] * 1000 : 0;
	/* the client's CPU share of the window as it passed: wall time */
	double cpu = st->wall_duration > 0 ? 100 * st->cpu_seconds / st->wall_duration : 0;
	ib_map_set(a, h, "schedule_lag_p50_ms", ib_v_float(a, p50));
	ib_map_set(a, h, "schedule_lag_p99_ms", ib_v_float(a, p99));
	ib_map_set(a, h, "schedule_lag_max_ms", ib_v_float(a, mx));
	ib_map_set(a, h, "event_loop_lag_p99_ms", ib_v_float(a, st->loop_lag_p99 * 1000));
	ib_map_set(a, h, "event_loop_lag_max_ms", ib_v_float(a, st->loop_lag_max * 1000));
	ib_map_set(a, h, "client_cpu_percent", ib_v_float(a, cpu));
	ib_map_set(a, h, "target_request_rate",
	           isinf(rate) ? ib_v_str(a, "inf") : ib_v_float(a, rate));
	ib_map_set(a, h, "achieved_request_rate", ib_v_float(a, st->achieved_rate));
	char why[300];
	bool bound = bench_client_bound(st, p90, rate, kernel_ts, why, sizeof why);
	ib_map_set(a, h, "timestamps", ib_v_str(a, kernel_ts ? "kernel" : "user"));
	ib_map_set(a, h, "client_bound", ib_v_bool(a, bound));
	ib_map_set(a, h, "reason", bound ? ib_v_str(a, why) : ib_v_null(a));
	ib_map_set(a, out, "client_health", h);
	ib_map_set(a, in, "ttft_mean_ms", ib_v_float(a, bench_mean(ti, k) * 1000));
	ib_map_set(a, in, "ttft_p99_ms", ib_v_float(a, bench_percentile(ti, k, 99) * 1000));
	ib_map_set(a, in, "e2el_mean_ms", ib_v_float(a, bench_mean(ei, k) * 1000));
	ib_map_set(a, in, "e2el_p99_ms", ib_v_float(a, bench_percentile(ei, k, 99) * 1000));
	ib_map_set(a, out, "from_intended_send", in);
out:
	free(lag);
	free(ti);
	free(ei);
	return rc;
}

int bench_error_summary(const bench_result *res, size_t n, size_t max_reasons, ib_buf *out)
{
	enum { CAP = 16 };
	const char *why[CAP];
	size_t count[CAP] = {0}, k = 0, failed = 0, other = 0;
	if (max_reasons > CAP)
		max_reasons = CAP;
	for (size_t i = 0; i < n; i++) {
		if (res[i].success)
			continue;
		failed++;
		const char *w = res[i].detail[0]  ? res[i].detail
		                : res[i].error[0] ? res[i].error
		                                  : "unknown error";
		size_t j = 0;
		while (j < k && strcmp(why[j], w))
			j++;
		if (j < k)
			count[j]++;
		else if (k < max_reasons) {
			why[k] = w;
			count[k++] = 1;
		} else
			other++;
	}
	if (!failed)
		return 0;
	int rc = ib_buf_printf(
	    out, "Errors of the %zu failed request%s (first %zu distinct reason%s):\n", failed,
	    failed == 1 ? "" : "s", k, k == 1 ? "" : "s");
	for (size_t j = 0; j < k; j++)
		rc |= ib_buf_printf(out, "  %6zu  %s\n", count[j], why[j]);
	if (other)
		rc |= ib_buf_printf(out, "  %6zu  (other reasons)\n", other);
	return rc ? IB_ENOMEM : 0;
}

/* ---- the run ---- */

static int64_t count_tokens(const char *text, size_t len, void *arg)
{
	tok_ids ids = {0};
	ib_error e = {0};
	int64_t n = tok_encode(arg, text, len, false, &ids, &e) ? 0 : (int64_t)ids.n;
	tok_ids_free(&ids);
	return n;
}

int bench_target(const char *base_url, const char *host_in, int port_in, char host[256], int *port,
                 char name[256], bool *https, ib_error *e)
{
	snprintf(name, 256, "%s", host_in);
	*port = port_in;
	*https = false;
	if (base_url) {
		const char *u = base_url;
		*https = !strncmp(u, "https://", 8);
		u += *https ? 8 : 7;
		const char *colon = strchr(u, ':'), *slash = strchr(u, '/');
		if (colon && slash && slash < colon)
			colon = NULL;
		size_t hl = colon ? (size_t)(colon - u) : slash ? (size_t)(slash - u) : strlen(u);
		snprintf(name, 256, "%.*s", (int)(hl < 255 ? hl : 255), u);
		*port = colon ? atoi(colon + 1) : *https ? 443 : 80;
		if (*port <= 0 || *port > 65535)
			return ib_fail(e, IB_EINVAL, NULL, 0, 0,
			               "argument --base-url: bad port in %s", base_url);
	}
	char ip[64];
	int rc = net_resolve(name, ip, e);
	if (!rc)
		snprintf(host, 256, "%s", ip);
	return rc;
}

/* host and port from --base-url (or --host/--port), resolved */
static int target(const bench_options *o, char host[256], int *port, char name[256], bool *https,
                  ib_error *e)
{
	return bench_target(o->base_url, o->host, o->port, host, port, name, https, e);
}

/* the result file: --result-dir/--result-filename or the reference's name;
 * never replaces something that is not a regular file */
static int save(const bench_options *o, const ib_val *r, const char *date, char *path, size_t cap,
                ib_error *e)
{
	ib_buf name = {0};
	int rc = o->result_filename ? ib_buf_puts(&name, o->result_filename)
	                            : bench_result_name(o->backend, o->request_rate,
	                                                o->max_concurrency, o->model, date, &name);
	if (rc)
		goto out;
	snprintf(path, cap, "%s%s%s", o->result_dir ? o->result_dir : "", o->result_dir ? "/" : "",
	         name.data);
	struct stat st;
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		rc = ib_fail(e, IB_EINVAL, path, 0, 0,
		             "exists and is not a regular file: the result is not written over it");
		goto out;
	}
	ib_json_opts jo = IB_JSON_PYTHON;
	rc = ib_json_write_path(path, r, &jo, e);
out:
	if (rc == IB_ENOMEM && !e->msg[0])
		ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	ib_buf_free(&name);
	return rc;
}

/* the reference's keys up to max_concurrency, then the metrics and infbench's */
static int result(ib_arena *a, const bench_options *o, const bench_cfg *cfg,
                  const bench_tokenizer *bt, const bench_prompt *prompts, const bench_result *res,
                  const bench_run_stats *st, double rate, double burst, const char *date,
                  ib_buf *table, ib_val **out)
{
	size_t n = o->num_prompts;
	ib_val *r = ib_v_map(a);
	if (!r)
		return IB_ENOMEM;
	ib_map_set(a, r, "date", ib_v_str(a, date));
	ib_map_set(a, r, "backend", ib_v_str(a, o->backend));
	ib_map_set(a, r, "model_id", ib_v_str(a, o->model));
	ib_map_set(a, r, "tokenizer_id", ib_v_str(a, o->tokenizer ? o->tokenizer : o->model));
	ib_map_set(a, r, "best_of", ib_v_int(a, cfg->best_of));
	ib_map_set(a, r, "num_prompts", ib_v_int(a, (int64_t)n));
	for (size_t i = 0; i < o->nmetadata; i++) {
		const char *kv = o->metadata[i], *eq = strchr(kv, '=');
		const char *eq2 = strchr(eq + 1, '=');
		size_t vl = eq2 ? (size_t)(eq2 - eq - 1) : strlen(eq + 1);
		char *k = ib_arena_strndup(a, kv, (size_t)(eq - kv));
		if (!k)
			return IB_ENOMEM;
		ib_map_set(a, r, k, ib_v_strn(a, eq + 1, vl));
	}
	ib_map_set(a, r, "request_rate", isinf(rate) ? ib_v_str(a, "inf") : ib_v_float(a, rate));
	ib_map_set(a, r, "burstiness", ib_v_float(a, burst));
	ib_map_set(a, r, "max_concurrency",
	           o->max_concurrency ? ib_v_int(a, (int64_t)o->max_concurrency) : ib_v_null(a));
	if (bench_report(a, prompts, res, n, st, &o->metrics, cfg->keep_text, count_tokens, bt->tok,
	                 r, table) ||
	    health(a, r, res, n, st, rate, cfg->kernel_timestamps))
		return IB_ENOMEM;
	/* a time-scaled server: the figures above are in model time */
	if (st->time_scale != 0 || st->clock == BENCH_CLOCK_MODEL) {
		ib_map_set(a, r, "time_scale",
		           st->time_scale > 0 ? ib_v_float(a, st->time_scale) : ib_v_null(a));
		ib_map_set(a, r, "wall_duration", ib_v_float(a, st->wall_duration));
		ib_map_set(a, r, "clock",
		           ib_v_str(a, st->clock == BENCH_CLOCK_MODEL    ? "server-model"
		                       : st->clock == BENCH_CLOCK_SCALED ? "wall-scaled"
		                                                         : "wall"));
	}
	if (st->simulated) /* the server announced itself as the simulator */
		ib_map_set(a, r, "simulated", ib_v_bool(a, true));
	if (st->sim_interval[0]) /* and its prediction interval (results parses it) */
		ib_map_set(a, r, "sim_interval", ib_v_str(a, st->sim_interval));
	*out = r;
	return 0;
}

/* tokenizer, prompts; *gen_s: the generation time, *gen_cpu_s its CPU (all
 * threads) */
static int prompts_for(const bench_options *o, const bench_log *log, bench_tokenizer *bt,
                       ib_arena *a, ib_mt *global, bench_prompt **prompts, double *gen_s,
                       double *gen_cpu_s, ib_error *e)
{
	const char *tokpath = o->tokenizer ? o->tokenizer : o->model;
	int rc = bench_tokenizer_open(bt, tokpath, o->use_chat_template, o->dsv4, e);
	if (rc) {
		if (!e->file[0]) /* else the file names it */
			snprintf(e->file, sizeof e->file, "tokenizer '%s'", tokpath);
		return rc;
	}
	int workers = o->random_num_workers;
	if (workers == 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		workers = cpus < 8 ? (int)cpus : 8;
	}
	size_t n = o->num_prompts;
	if (o->dataset_name && strcmp(o->dataset_name, "random")) { /* a prompt file */
		bench_file_opts fo = {.sharegpt = !strcmp(o->dataset_name, "sharegpt"),
		                      .path = o->dataset_path,
		                      .num_prompts = n,
		                      .output_len = o->file_output_len};
		int64_t g0 = ib_now_ns();
		double c0 = ib_cpu_s();
		rc = bench_file_dataset(a, bt, &fo, prompts, e);
		*gen_s = (double)(ib_now_ns() - g0) * 1e-9;
		*gen_cpu_s = ib_cpu_s() - c0;
		if (!rc)
			say(log, true, "infbench: %zu prompts from %s (%s)\n", n, o->dataset_path,
			    o->dataset_name);
		return rc;
	}
	bench_random_opts ro = {
	    .num_prompts = n,
	    .input_len = o->input_len,
	    .output_len = o->output_len,
	    .prefix_len = o->prefix_len,
	    .range_ratio = o->range_ratio,
	    .use_chat_template = o->use_chat_template,
	    .num_workers = workers,
	    .threads = o->prompt_threads,
	    .cache_dir = o->prompt_cache,
	    .progress = log && log->with_progress ? log->fn : NULL,
	    .progress_arg = log ? log->arg : NULL,
	};
	/* the reference's parallel path announces its chunks ("worker
	 * processes") and its time; the threads doing the work are
	 * --prompt-threads */
	size_t chunk = workers > 1 ? (n + (size_t)workers - 1) / (size_t)workers : 0;
	if (chunk && n)
		say(log, false, "Generating %zu prompts using %zu worker processes...\n", n,
		    (n + chunk - 1) / chunk);
	ib_buf stats = {0};
	int64_t gen0 = ib_now_ns();
	double cpu0 = ib_cpu_s();
	rc = bench_random_dataset(a, bt, global, &ro, prompts, &stats, e);
	*gen_s = (double)(ib_now_ns() - gen0) * 1e-9;
	*gen_cpu_s = ib_cpu_s() - cpu0;
	if (!rc && chunk && n)
		say(log, false, "Prompt generation completed in %.1fs\n", *gen_s);
	if (!rc && ro.cache_hit)
		say(log, true, "infbench: the %zu prompts came from the prompt cache in %s\n", n,
		    o->prompt_cache);
	if (!rc && stats.data && log && log->fn)
		log->fn(log->arg, IB_LOG_OUT, stats.data);
	ib_buf_free(&stats);
	return rc;
}

/* The client-health verdict after the summary, on stderr (the reference's
 * stdout stays as it is), and the simulated mark. */
static void health_line(const bench_log *log, const ib_val *r, const bench_run_stats *st)
{
	const ib_val *h = ib_map_get(r, "client_health");
	const ib_val *b = h ? ib_map_get(h, "client_bound") : NULL;
	const ib_val *why = h ? ib_map_get(h, "reason") : NULL;
	const ib_val *loop = h ? ib_map_get(h, "event_loop_lag_p99_ms") : NULL;
	const ib_val *sched = h ? ib_map_get(h, "schedule_lag_p99_ms") : NULL;
	if (b && b->type == IB_V_BOOL && b->b)
		say(log, true, "Client health: CLIENT-BOUND: %s\n",
		    why && why->type == IB_V_STR ? why->str.s : "");
	else if (b && b->type == IB_V_BOOL)
		say(log, true,
		    "Client health: ok (event loop busy %.0f%% of the window, client-bound at "
		    "%.0f%%; event-loop lag p99 %.2f ms, schedule lag p99 %.2f ms)\n",
		    100 * st->loop_busy, 100 * BENCH_BOUND_BUSY,
		    loop && loop->type == IB_V_FLOAT ? loop->f : 0,
		    sched && sched->type == IB_V_FLOAT ? sched->f : 0);
	const ib_val *sim = ib_map_get(r, "simulated");
	if (sim && sim->type == IB_V_BOOL && sim->b)
		say(log, true,
		    "Simulated: the server is infbench sim; the result is marked "
		    "\"simulated\": true\n");
}

int bench_main(const bench_options *o, const bench_log *log, bench_outcome *outcome, ib_error *e)
{
	memset(outcome, 0, sizeof *outcome);
	int rc = bench_options_check(o, e);
	if (rc)
		return rc;
	size_t n = o->num_prompts;
	ib_arena *a = ib_arena_new();
	bench_tokenizer bt = {0};
	bench_prompt *prompts = NULL;
	bench_result *results = calloc(n + 1, sizeof *results);
	const char **lora = NULL;
	net_tls *tls = NULL;
	ib_buf table = {0}, errs = {0};
	if (!a || !results) {
		rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		goto out;
	}
	char host[256], name[256];
	int port;
	bool https;
	if ((rc = target(o, host, &port, name, &https, e)))
		goto out;
	if (https && (rc = net_tls_client_new(o->ca_cert, o->insecure, &tls, e)))
		goto out;
	double rate = strcmp(o->request_rate, "inf") ? atof(o->request_rate) : INFINITY;
	double burst = atof(o->burstiness);
	ib_mt global;
	ib_mt_seed(&global, (uint32_t)o->seed);
	double gen_s = 0, gen_cpu_s = 0;
	/* the result's folder exists and is writable before the run, not after */
	if (o->save_result && o->result_dir && *o->result_dir &&
	    (rc = ib_mkdirs_writable(o->result_dir, e)))
		goto out;
	if ((rc = prompts_for(o, log, &bt, a, &global, &prompts, &gen_s, &gen_cpu_s, e)))
		goto out;
	char lp[32];
	bench_cfg cfg = {
	    .host = host,
	    .port = port,
	    .tls = tls,
	    .server_name = name,
	    .endpoint = o->endpoint,
	    .chat = is_chat(o),
	    .model = o->served_model_name ? o->served_model_name : o->model,
	    .api_key = o->api_key ? o->api_key : "None",
	    .best_of = o->best_of,
	    .ignore_eos = o->ignore_eos,
	    .max_concurrency = o->max_concurrency,
	    .request_rate = rate,
	    .burstiness = burst,
	    .rng = &global,
	    .num_warmups = o->num_warmups,
	    .keep_alive = o->keep_alive,
	    .kernel_timestamps = !o->user_timestamps,
	    .threads = o->threads,
	    .keep_text = o->save_detailed,
	    .request_timeout = o->request_timeout,
	    .progress = log && log->with_progress ? log->fn : NULL,
	    .progress_arg = log ? log->arg : NULL,
	};
	if (o->logprobs >= 0 && o->logprobs_set) {
		snprintf(lp, sizeof lp, "%lld", (long long)o->logprobs);
		cfg.logprobs = lp;
	}
	/* --lora-modules: a module per measured request, drawn as the reference
	 * does with Python's random (seeded by --seed) after the warmup */
	if (o->nlora) {
		if (!(lora = calloc(n + 1, sizeof *lora))) {
			rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
			goto out;
		}
		ib_mt py;
		ib_mt_py_seed(&py, o->seed);
		for (size_t i = 0; i < n; i++)
			lora[i] = o->lora_modules[ib_mt_py_randbelow(&py, o->nlora)];
		cfg.models = lora;
	}
	if (cfg.num_warmups)
		say(log, false, "Warming up with %zu requests...\n", cfg.num_warmups);
	/* open loop on a time-scaled server: arrivals due in model time */
	if (!isinf(rate))
		cfg.time_scale_hint = bench_probe_time_scale(&cfg, 2000);
	run_ctx sc = {.o = o, .log = log, .cfg = &cfg, .test = &prompts[0], .burst = burst};
	cfg.on_start = on_start;
	cfg.on_end = on_end;
	cfg.hook_arg = &sc;
	bench_run_stats st;
	if ((rc = bench_run(&cfg, prompts, n, results, &st, e)))
		goto out;
	char date[32];
	time_t now = time(NULL);
	strftime(date, sizeof date, "%Y%m%d-%H%M%S", localtime(&now));
	ib_val *r;
	if ((rc = result(a, o, &cfg, &bt, prompts, results, &st, rate, burst, date, &table, &r))) {
		rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		goto out;
	}
	if (st.time_scale < 0)
		say(log, true,
		    "infbench bench: warning: the server announced different time scales; "
		    "the figures are in wall time\n");
	bench_scrape after;
	scrape(&cfg, &after);
	ib_map_set(a, r, "server_metrics", bench_scrape_diff(a, &sc.before, &after));
	ib_val *wl = bench_workload(a, prompts, n, bt.tok, (uint32_t)o->seed, gen_s, gen_cpu_s);
	if (wl && o->dataset_name && strcmp(o->dataset_name, "random")) {
		ib_map_set(a, wl, "dataset", ib_v_str(a, o->dataset_name));
		ib_map_set(a, wl, "dataset_path", ib_v_str(a, o->dataset_path));
	} else if (wl) { /* the nominal lengths, for a later agg row (infbench sweep, report) */
		ib_map_set(a, wl, "random_input_len", ib_v_int(a, (int64_t)o->input_len));
		ib_map_set(a, wl, "random_output_len", ib_v_int(a, (int64_t)o->output_len));
	}
	ib_map_set(a, r, "workload", wl);
	if (log && log->fn && table.data)
		log->fn(log->arg, IB_LOG_OUT, table.data);
	health_line(log, r, &st);
	outcome->num_prompts = n;
	outcome->simulated = st.simulated;
	outcome->time_scale = st.time_scale;
	outcome->completed = (size_t)ib_map_get(r, "completed")->i;
	outcome->failed = n - outcome->completed;
	outcome->failure_gate = bench_failure_gate(outcome->completed, n);
	if (outcome->completed == 0 && n)
		say(log, true,
		    "All requests failed. This is likely due to a misconfiguration on the "
		    "benchmark "
		    "arguments.\n");
	if (outcome->failure_gate && bench_error_summary(results, n, 5, &errs) == 0 && errs.data &&
	    log && log->fn)
		log->fn(log->arg, IB_LOG_ERR, errs.data);
	if (o->save_result &&
	    (rc = save(o, r, date, outcome->result_path, sizeof outcome->result_path, e)))
		goto out;
	if (outcome->failure_gate)
		say(log, true,
		    "FAIL: request failure rate %.1f%% exceeds 5%% threshold (%zu/%zu completed)\n",
		    100.0 * (double)outcome->failed / (double)n, outcome->completed, n);
out:
	for (size_t i = 0; results && i < n; i++)
		bench_result_free(&results[i]);
	free(results);
	free(lora);
	bench_tokenizer_close(&bt);
	net_tls_free(tls);
	ib_buf_free(&table);
	ib_buf_free(&errs);
	ib_arena_free(a);
	return rc;
}
