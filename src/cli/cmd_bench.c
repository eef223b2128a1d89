/* infbench bench: the serving benchmark client, a drop-in for the reference's
 * benchmark_serving.py (docs/bench.md). */
#include "bench/bench.h"
#include "chat/chat.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "tok/tok.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N(a) (sizeof(a) / sizeof(a)[0])

static const char *const backends[] = {"tgi",	       "vllm",	      "lmdeploy", "deepspeed-mii", "openai",
				       "openai-chat", "tensorrt-llm", "scalellm", "sglang",	   NULL};
static const char *const datasets[] = {"random", NULL};
static const char *const tok_modes[] = {"auto", "slow", "mistral", "custom", "deepseek_v4", NULL};

static int64_t count_tokens(const char *text, size_t len, void *arg)
{
	tok_ids ids = {0};
	ib_error e = {0};
	int64_t n = tok_encode(arg, text, len, false, &ids, &e) ? 0 : (int64_t)ids.n;
	tok_ids_free(&ids);
	return n;
}

/* Splits "a,b,c" of numbers. */
static int parse_list(const char *s, double *out, size_t cap, size_t *n)
{
	*n = 0;
	while (*s) {
		char *end;
		double v = strtod(s, &end);
		if (end == s || *n == cap)
			return -1;
		out[(*n)++] = v;
		s = end;
		while (*s == ' ')
			s++;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return 0;
}

/* What happens around the timed window (bench_cfg's hooks). */
typedef struct {
	const char *host;
	int port;
	bench_scrape before;          /* /metrics before the window */
	const bench_cfg *cfg;
	const bench_prompt *test;     /* the reference's test prompt: prompts[0] */
	const char *model_id;         /* --model */
	bool profile;                 /* --profile */
	const char *rate, *burst;     /* as given, for the announcements */
	double burst_v;
} run_ctx;

static void scrape(const char *host, int port, bench_scrape *s)
{
	ib_buf b = {0};
	ib_error e = {0};
	memset(s, 0, sizeof *s);
	if (bench_http(host, port, "GET", "/metrics", NULL, 0, 5000, &b, &e) == 0)
		bench_scrape_values(b.data ? b.data : "", s);
	ib_buf_free(&b);
}

/* --profile: POST the test prompt's body to /start_profile or /stop_profile,
 * as the reference's backend function does (through base_url) */
static void profiler(const run_ctx *c, bool start)
{
	static const char extra[] = ", \"num_steps\": 1, \"merge_profiles\": true, \"profile_by_stage\": true";
	ib_buf body = {0}, resp = {0};
	ib_error e = {0};
	/* stop: no model_name, ignore_eos or extra_body in its input */
	const char *model = start ? c->cfg->model : c->model_id;
	printf(start ? "Starting profiler...\n" : "Stopping profiler...\n");
	fflush(stdout);
	if (bench_request_body(c->cfg, c->test, model, start && c->cfg->ignore_eos, start ? extra : NULL, &body) == 0 &&
	    bench_http(c->host, c->port, "POST", start ? "/start_profile" : "/stop_profile", body.data, body.len,
		       3600 * 1000, &resp, &e) == 0)
		printf(start ? "Profiler started\n" : "Profiler stopped\n");
	else
		fprintf(stderr, "infbench bench: warning: %s: %s\n", start ? "/start_profile" : "/stop_profile",
			e.msg[0] ? e.msg : "out of memory");
	fflush(stdout);
	ib_buf_free(&body);
	ib_buf_free(&resp);
}

/* after the warmup: the reference's announcements, the profiler, /metrics */
static void on_start(void *arg)
{
	run_ctx *c = arg;
	if (c->cfg->num_warmups)
		printf("Warmup completed.\n");
	if (c->profile)
		profiler(c, true);
	printf("Traffic request rate: %s\n", c->rate);
	printf("Burstiness factor: %s (%s)\n", c->burst, c->burst_v == 1.0 ? "Poisson process" : "Gamma distribution");
	if (c->cfg->max_concurrency)
		printf("Maximum request concurrency: %zu\n", c->cfg->max_concurrency);
	else
		printf("Maximum request concurrency: None\n");
	printf("Starting main benchmark run...\n");
	fflush(stdout);
	scrape(c->host, c->port, &c->before);
}

static void on_end(void *arg)
{
	run_ctx *c = arg;
	if (c->profile)
		profiler(c, false);
}

/* sha256 of the tokenizer.json a path names (a folder or the file) */
static void tokenizer_sha(const char *path, char hex[65])
{
	char p[4096];
	ib_buf b = {0};
	ib_error e = {0};
	snprintf(p, sizeof p, "%s/tokenizer.json", path);
	if (ib_read_file(p, &b, &e) && ib_read_file(path, &b, &e)) {
		snprintf(hex, 65, "unknown");
		ib_buf_free(&b);
		return;
	}
	ib_sha256_hex(b.data ? b.data : "", b.len, hex);
	ib_buf_free(&b);
}

/* The workload fingerprint: what was asked of the server, exactly. */
static ib_val *workload(ib_arena *a, const bench_prompt *ps, size_t n, const char *tokpath, uint32_t seed,
			double gen_seconds)
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
	for (int i = 0; i < 32; i++)
		snprintf(h1 + 2 * i, 3, "%02x", d[i]);
	ib_sha256_final(&prompts, d);
	for (int i = 0; i < 32; i++)
		snprintf(h2 + 2 * i, 3, "%02x", d[i]);
	tokenizer_sha(tokpath, h3);
	ib_val *w = ib_v_map(a);
	ib_map_set(a, w, "sha256", ib_v_str(a, h1));
	ib_map_set(a, w, "prompts_sha256", ib_v_str(a, h2));
	ib_map_set(a, w, "tokenizer_sha256", ib_v_str(a, h3));
	ib_map_set(a, w, "seed", ib_v_int(a, seed));
	ib_map_set(a, w, "num_prompts", ib_v_int(a, (int64_t)n));
	ib_map_set(a, w, "generation_seconds", ib_v_float(a, gen_seconds));
	return w;
}

static void health(ib_arena *a, ib_val *out, const bench_result *res, size_t n, const bench_run_stats *st,
		   double rate, bool kernel_ts)
{
	double *lag = calloc(n + 1, sizeof *lag);
	double *ti = calloc(n + 1, sizeof *ti), *ei = calloc(n + 1, sizeof *ei);
	size_t k = 0;
	for (size_t i = 0; lag && ti && ei && i < n; i++) {
		lag[i] = res[i].schedule_lag;
		if (res[i].success) {
			ti[k] = res[i].ttft_intended;
			ei[k++] = res[i].latency_intended;
		}
	}
	ib_val *h = ib_v_map(a);
	double p50 = bench_percentile(lag, n, 50) * 1000, p99 = bench_percentile(lag, n, 99) * 1000;
	double mx = n ? lag[n - 1] * 1000 : 0;
	double cpu = st->wall_duration > 0 ? 100 * st->cpu_seconds / st->wall_duration : 0;
	ib_map_set(a, h, "schedule_lag_p50_ms", ib_v_float(a, p50));
	ib_map_set(a, h, "schedule_lag_p99_ms", ib_v_float(a, p99));
	ib_map_set(a, h, "schedule_lag_max_ms", ib_v_float(a, mx));
	ib_map_set(a, h, "event_loop_lag_p99_ms", ib_v_float(a, st->loop_lag_p99 * 1000));
	ib_map_set(a, h, "event_loop_lag_max_ms", ib_v_float(a, st->loop_lag_max * 1000));
	ib_map_set(a, h, "client_cpu_percent", ib_v_float(a, cpu));
	ib_map_set(a, h, "target_request_rate", isinf(rate) ? ib_v_str(a, "inf") : ib_v_float(a, rate));
	ib_map_set(a, h, "achieved_request_rate", ib_v_float(a, st->achieved_rate));
	/* closed loop: a request waits for a slot by design, so only the time
	 * from a free slot to the send counts; the engine sends at once, so the
	 * loop lag stands for it */
	double judged = isinf(rate) ? st->loop_lag_p99 * 1000 : p99;
	bool bound = judged > 1.0;
	ib_map_set(a, h, "timestamps", ib_v_str(a, kernel_ts ? "kernel" : "user"));
	ib_map_set(a, h, "client_bound", ib_v_bool(a, bound));
	char why[300];
	if (bound)
		snprintf(why, sizeof why, "the client's %s p99 is %.2f ms (> 1 ms): %s",
			 isinf(rate) ? "event-loop lag" : "schedule lag", judged,
			 kernel_ts ? "its own delays hold requests back (chunk times come from the kernel)"
				   : "its own delays inflate the latencies");
	ib_map_set(a, h, "reason", bound ? ib_v_str(a, why) : ib_v_null(a));
	ib_map_set(a, out, "client_health", h);
	ib_val *in = ib_v_map(a);
	ib_map_set(a, in, "ttft_mean_ms", ib_v_float(a, bench_mean(ti, k) * 1000));
	ib_map_set(a, in, "ttft_p99_ms", ib_v_float(a, bench_percentile(ti, k, 99) * 1000));
	ib_map_set(a, in, "e2el_mean_ms", ib_v_float(a, bench_mean(ei, k) * 1000));
	ib_map_set(a, in, "e2el_p99_ms", ib_v_float(a, bench_percentile(ei, k, 99) * 1000));
	ib_map_set(a, out, "from_intended_send", in);
	free(lag);
	free(ti);
	free(ei);
}

int cmd_bench(int argc, char **argv)
{
	arg_opt opts[] = {
		{.name = "--backend", .kind = ARG_ONE, .choices = backends, .metavar = "B", .help = "vllm, openai, sglang (completions) or openai-chat"},
		{.name = "--base-url", .kind = ARG_ONE, .metavar = "URL", .help = "http://host:port (instead of --host/--port)"},
		{.name = "--host", .kind = ARG_ONE, .metavar = "H", .help = "server host (default 127.0.0.1)"},
		{.name = "--port", .kind = ARG_ONE, .is_int = true, .metavar = "N", .help = "server port (default 8000)"},
		{.name = "--endpoint", .kind = ARG_ONE, .metavar = "PATH", .help = "default /v1/completions"},
		{.name = "--dataset-name", .kind = ARG_ONE, .choices = datasets, .metavar = "D", .help = "random (required, as in the reference)"},
		{.name = "--dataset-path", .kind = ARG_ONE, .metavar = "P", .help = "accepted, unused"},
		{.name = "--max-concurrency", .kind = ARG_ONE, .is_int = true, .metavar = "N", .help = "requests in flight at most"},
		{.name = "--model", .kind = ARG_ONE, .required = true, .metavar = "M", .help = "model (JSON 'model'; default tokenizer path)"},
		{.name = "--tokenizer", .kind = ARG_ONE, .metavar = "PATH", .help = "tokenizer folder or tokenizer.json (default --model)"},
		{.name = "--best-of", .kind = ARG_ONE, .is_int = true, .metavar = "N", .help = "default 1"},
		{.name = "--use-beam-search", .kind = ARG_FLAG, .help = "accepted, unused"},
		{.name = "--num-prompts", .kind = ARG_ONE, .is_int = true, .metavar = "N", .help = "measured requests (default 1000)"},
		{.name = "--logprobs", .kind = ARG_ONE, .is_int = true, .metavar = "N", .help = "sent as logprobs"},
		{.name = "--request-rate", .kind = ARG_ONE, .metavar = "R", .help = "requests/s (default inf)"},
		{.name = "--burstiness", .kind = ARG_ONE, .metavar = "B", .help = "gamma shape of inter-arrivals (default 1.0)"},
		{.name = "--seed", .kind = ARG_ONE, .is_int = true, .metavar = "N", .help = "default 0"},
		{.name = "--trust-remote-code", .kind = ARG_FLAG, .help = "accepted"},
		{.name = "--disable-tqdm", .kind = ARG_FLAG, .help = "no progress line"},
		{.name = "--profile", .kind = ARG_FLAG, .help = "POST /start_profile after the warmup, /stop_profile at the end"},
		{.name = "--save-result", .kind = ARG_FLAG, .help = "write the result JSON"},
		{.name = "--save-detailed", .kind = ARG_FLAG, .help = "keep ttfts, itls, generated_texts, errors"},
		{.name = "--metadata", .kind = ARG_MANY, .metavar = "KEY=VALUE", .help = "extra string keys in the JSON"},
		{.name = "--result-dir", .kind = ARG_ONE, .metavar = "DIR", .help = "folder of the result file"},
		{.name = "--result-filename", .kind = ARG_ONE, .metavar = "F", .help = "result file name"},
		{.name = "--ignore-eos", .kind = ARG_FLAG, .help = "send ignore_eos: true"},
		{.name = "--percentile-metrics", .kind = ARG_ONE, .metavar = "L", .help = "default ttft,tpot,itl,e2el"},
		{.name = "--metric-percentiles", .kind = ARG_ONE, .metavar = "L", .help = "default 90,99,99.9"},
		{.name = "--goodput", .kind = ARG_MANY, .metavar = "KEY:MS", .help = "SLOs: ttft, tpot, e2el in ms"},
		{.name = "--sonnet-input-len", .kind = ARG_ONE, .metavar = "N", .help = "accepted, unused"},
		{.name = "--sonnet-output-len", .kind = ARG_ONE, .metavar = "N", .help = "accepted, unused"},
		{.name = "--sonnet-prefix-len", .kind = ARG_ONE, .metavar = "N", .help = "accepted, unused"},
		{.name = "--sharegpt-output-len", .kind = ARG_ONE, .metavar = "N", .help = "accepted, unused"},
		{.name = "--hf-subset", .kind = ARG_ONE, .metavar = "S", .help = "accepted, unused"},
		{.name = "--hf-split", .kind = ARG_ONE, .metavar = "S", .help = "accepted, unused"},
		{.name = "--hf-output-len", .kind = ARG_ONE, .metavar = "N", .help = "accepted, unused"},
		{.name = "--random-input-len", .kind = ARG_ONE, .is_int = true, .metavar = "N", .help = "default 1024"},
		{.name = "--random-output-len", .kind = ARG_ONE, .is_int = true, .metavar = "N", .help = "default 128"},
		{.name = "--random-range-ratio", .kind = ARG_ONE, .metavar = "R", .help = "default 1.0"},
		{.name = "--random-prefix-len", .kind = ARG_ONE, .is_int = true, .metavar = "N", .help = "default 0"},
		{.name = "--use-chat-template", .kind = ARG_FLAG, .help = "wrap prompts in the chat template"},
		{.name = "--random-num-workers", .kind = ARG_ONE, .is_int = true, .metavar = "W", .help = "the reference's chunking (0: min(cpus, 8); 1: serial)"},
		{.name = "--dsv4", .kind = ARG_FLAG, .help = "DeepSeek-V4 framing (with --use-chat-template)"},
		{.name = "--tokenizer-mode", .kind = ARG_ONE, .choices = tok_modes, .metavar = "M", .help = "accepted"},
		{.name = "--served-model-name", .kind = ARG_ONE, .metavar = "M", .help = "JSON 'model'"},
		{.name = "--lora-modules", .kind = ARG_MANY, .metavar = "M", .help = "a module at random per request (its JSON 'model')"},
		{.name = "--num-warmups", .kind = ARG_ONE, .is_int = true, .metavar = "N", .help = "warmup requests (default 0)"},
		{.name = "--keep-alive", .kind = ARG_FLAG, .help = "infbench: reuse connections (default: one per request, as the reference)"},
		{.name = "--kernel-timestamps", .kind = ARG_FLAG, .help = "infbench: chunk times from SO_TIMESTAMPNS (the default)"},
		{.name = "--user-timestamps", .kind = ARG_FLAG, .help = "infbench: chunk times when the client has read them, as the reference"},
		{.name = "--threads", .kind = ARG_ONE, .is_int = true, .metavar = "N", .help = "infbench: event-loop threads for very high rates (default 1)"},
		{.name = "--prompt-threads", .kind = ARG_ONE, .is_int = true, .metavar = "N", .help = "infbench: prompt generation threads (default: one per CPU; same prompts for any N)"},
		{.name = "--help", .alias = "-h", .kind = ARG_FLAG, .help = "show this help and exit"},
	};
	arg_parser p = {
		.prog = "infbench bench",
		.top = "infbench bench",
		.desc = "The serving benchmark client: streams requests to an OpenAI-compatible server and\n"
			"reports TTFT, TPOT, ITL, E2EL and throughput like InferenceX's benchmark_serving.py.",
		.epilog = "See docs/bench.md.",
		.opts = opts,
		.nopts = N(opts),
	};
	int rc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? 0 : rc;
	}
	int status = 1;
	arg_opt *o;
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	ib_buf out = {0};
	bench_tokenizer bt = {0};
	bench_prompt *prompts = NULL;
	bench_result *results = NULL;
	const char **lora = NULL;
	size_t n = 1000;
#define OPT(name) args_get(&p, name)
#define STR(name, def) (OPT(name)->seen ? OPT(name)->vals[0] : (def))
#define INT(name, def) (OPT(name)->seen ? OPT(name)->ivals[0] : (def))
	const char *backend = STR("--backend", "vllm");
	bool chat = !strcmp(backend, "openai-chat");
	if (strcmp(backend, "vllm") && strcmp(backend, "openai") && strcmp(backend, "sglang") &&
	    strcmp(backend, "lmdeploy") && strcmp(backend, "scalellm") && !chat) {
		status = args_error(&p, NULL, "argument --backend: '%s' is not supported by infbench (use vllm, "
					      "openai, sglang or openai-chat)", backend);
		goto out;
	}
	if (!OPT("--dataset-name")->seen) {
		fprintf(stderr, "infbench bench: error: Unknown dataset: sharegpt (the reference's default; pass "
				"--dataset-name random)\n");
		goto out;
	}
	const char *endpoint = STR("--endpoint", "/v1/completions");
	size_t el = strlen(endpoint);
	if (chat ? (el < 16 || strcmp(endpoint + el - 16, "chat/completions"))
		 : (el < 11 || (strcmp(endpoint + el - 11, "completions") && strcmp(endpoint + el - 7, "profile")))) {
		fprintf(stderr, "infbench bench: error: the %s backend needs an endpoint ending in '%s' (got %s)\n",
			backend, chat ? "chat/completions" : "completions", endpoint);
		goto out;
	}
	char host[256] = "127.0.0.1";
	int port = (int)INT("--port", 8000);
	snprintf(host, sizeof host, "%s", STR("--host", "127.0.0.1"));
	if ((o = OPT("--base-url"))->seen) {
		const char *u = o->vals[0];
		if (strncmp(u, "http://", 7)) {
			fprintf(stderr, "infbench bench: error: --base-url must start with http:// (got %s)\n", u);
			goto out;
		}
		u += 7;
		const char *colon = strchr(u, ':'), *slash = strchr(u, '/');
		size_t hl = colon ? (size_t)(colon - u) : slash ? (size_t)(slash - u) : strlen(u);
		snprintf(host, sizeof host, "%.*s", (int)hl, u);
		port = colon ? atoi(colon + 1) : 80;
	}
	if (!strcmp(host, "localhost") || !strcmp(host, "0.0.0.0"))
		snprintf(host, sizeof host, "127.0.0.1");
	const char *model = STR("--model", "");
	const char *tokpath = STR("--tokenizer", model);
	n = (size_t)INT("--num-prompts", 1000);
	double rate = INFINITY, burst = 1.0, ratio = 1.0;
	if ((o = OPT("--request-rate"))->seen && strcmp(o->vals[0], "inf"))
		rate = atof(o->vals[0]);
	if ((o = OPT("--burstiness"))->seen)
		burst = atof(o->vals[0]);
	if ((o = OPT("--random-range-ratio"))->seen)
		ratio = atof(o->vals[0]);
	if (!(rate > 0) || !(burst > 0) || ratio < 0 || ratio > 1) {
		status = args_error(&p, NULL, "--request-rate and --burstiness must be > 0, --random-range-ratio in [0, 1]");
		goto out;
	}
	if (INT("--threads", 1) < 1 || INT("--threads", 1) > 256) {
		status = args_error(&p, NULL, "argument --threads: must be 1..256");
		goto out;
	}
	if (OPT("--kernel-timestamps")->seen && OPT("--user-timestamps")->seen) {
		status = args_error(&p, NULL, "--kernel-timestamps and --user-timestamps exclude each other");
		goto out;
	}
	if (INT("--prompt-threads", 0) < 0 || INT("--prompt-threads", 0) > 256) {
		status = args_error(&p, NULL, "argument --prompt-threads: must be 0..256");
		goto out;
	}
	bool use_chat = OPT("--use-chat-template")->seen, dsv4 = OPT("--dsv4")->seen;
	if (dsv4 && !use_chat) {
		fprintf(stderr, "infbench bench: error: --dsv4 requires --use-chat-template\n");
		goto out;
	}
	bench_metric_opts mo = {.slo_ttft = -1, .slo_tpot = -1, .slo_e2el = -1};
	const char *pm = STR("--percentile-metrics", "ttft,tpot,itl,e2el");
	mo.ttft = strstr(pm, "ttft") != NULL;
	mo.tpot = strstr(pm, "tpot") != NULL;
	mo.itl = strstr(pm, "itl") != NULL;
	mo.e2el = strstr(pm, "e2el") != NULL;
	double pcts[32];
	size_t npcts;
	if (parse_list(STR("--metric-percentiles", "90,99,99.9"), pcts, 32, &npcts)) {
		status = args_error(&p, NULL, "argument --metric-percentiles: a comma-separated list of numbers");
		goto out;
	}
	mo.percentiles = pcts;
	mo.npercentiles = npcts;
	if ((o = OPT("--goodput"))->seen) {
		mo.goodput = true;
		for (size_t i = 0; i < o->nvals; i++) {
			const char *kv = o->vals[i], *c = strchr(kv, ':');
			double ms = c ? atof(c + 1) : -1;
			if (!c || ms < 0) {
				status = args_error(&p, NULL, "argument --goodput: KEY:VALUE with ttft, tpot or e2el (got %s)", kv);
				goto out;
			}
			if (!strncmp(kv, "ttft:", 5))
				mo.slo_ttft = ms / 1000;
			else if (!strncmp(kv, "tpot:", 5))
				mo.slo_tpot = ms / 1000;
			else if (!strncmp(kv, "e2el:", 5))
				mo.slo_e2el = ms / 1000;
			else {
				status = args_error(&p, NULL, "argument --goodput: unknown metric in %s", kv);
				goto out;
			}
		}
	}
	/* the tokenizer and the prompts */
	if (bench_tokenizer_open(&bt, tokpath, use_chat, dsv4, &e)) {
		char ctx[4200];
		snprintf(ctx, sizeof ctx, "tokenizer '%s'", tokpath);
		cli_error("infbench bench", ctx, &e);
		goto out;
	}
	ib_mt global;
	ib_mt_seed(&global, (uint32_t)INT("--seed", 0));
	int workers = (int)INT("--random-num-workers", 0);
	if (workers == 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		workers = cpus < 8 ? (int)cpus : 8;
	}
	bench_random_opts ro = {
		.num_prompts = n,
		.input_len = INT("--random-input-len", 1024),
		.output_len = INT("--random-output-len", 128),
		.prefix_len = INT("--random-prefix-len", 0),
		.range_ratio = ratio,
		.use_chat_template = use_chat,
		.num_workers = workers,
		.threads = (int)INT("--prompt-threads", 0),
		.progress = !OPT("--disable-tqdm")->seen && isatty(2),
	};
	ib_buf stats = {0};
	/* the reference's parallel path announces its chunks ("worker
	 * processes") and its time; the threads doing the work are
	 * --prompt-threads */
	size_t chunk = workers > 1 ? (n + (size_t)workers - 1) / (size_t)workers : 0;
	if (chunk && n) {
		printf("Generating %zu prompts using %zu worker processes...\n", n, (n + chunk - 1) / chunk);
		fflush(stdout);
	}
	int64_t gen0 = ib_now_ns();
	if (bench_random_dataset(a, &bt, &global, &ro, &prompts, &stats, &e)) {
		cli_error("infbench bench", "building the prompts", &e);
		ib_buf_free(&stats);
		goto out;
	}
	double gen_s = (double)(ib_now_ns() - gen0) * 1e-9;
	if (chunk && n)
		printf("Prompt generation completed in %.1fs\n", gen_s);
	fputs(stats.data ? stats.data : "", stdout);
	ib_buf_free(&stats);
	results = calloc(n + 1, sizeof *results);
	const char *api_key = getenv("OPENAI_API_KEY");
	size_t conc = (size_t)INT("--max-concurrency", 0);
	bench_cfg cfg = {
		.host = host,
		.port = port,
		.endpoint = endpoint,
		.chat = chat,
		.model = STR("--served-model-name", model),
		.api_key = api_key ? api_key : "None",
		.best_of = (int)INT("--best-of", 1),
		.ignore_eos = OPT("--ignore-eos")->seen,
		.max_concurrency = conc,
		.request_rate = rate,
		.burstiness = burst,
		.rng = &global,
		.num_warmups = (size_t)INT("--num-warmups", 0),
		.keep_alive = OPT("--keep-alive")->seen,
		.kernel_timestamps = !OPT("--user-timestamps")->seen,
		.threads = (int)INT("--threads", 1),
		.keep_text = OPT("--save-detailed")->seen,
		.progress = !OPT("--disable-tqdm")->seen && isatty(2),
	};
	char lp[32];
	if ((o = OPT("--logprobs"))->seen) {
		snprintf(lp, sizeof lp, "%lld", (long long)o->ivals[0]);
		cfg.logprobs = lp;
	}
	/* --lora-modules: a module per measured request, drawn as the reference
	 * does with Python's random (seeded by --seed) after the warmup */
	if ((o = OPT("--lora-modules"))->seen) {
		if (!(lora = calloc(n + 1, sizeof *lora))) {
			fprintf(stderr, "infbench bench: error: out of memory\n");
			goto out;
		}
		ib_mt py;
		ib_mt_py_seed(&py, INT("--seed", 0));
		for (size_t i = 0; i < n; i++)
			lora[i] = o->vals[ib_mt_py_randbelow(&py, o->nvals)];
		cfg.models = lora;
	}
	if (cfg.num_warmups)
		printf("Warming up with %zu requests...\n", cfg.num_warmups);
	fflush(stdout);
	run_ctx sc = {.host = host,
		      .port = port,
		      .cfg = &cfg,
		      .test = &prompts[0],
		      .model_id = model,
		      .profile = OPT("--profile")->seen,
		      .rate = isinf(rate) ? "inf" : STR("--request-rate", "inf"),
		      .burst = STR("--burstiness", "1.0"),
		      .burst_v = burst};
	/* open loop on a time-scaled server: arrivals due in model time */
	if (!isinf(rate))
		cfg.time_scale_hint = bench_probe_time_scale(host, port, 2000);
	cfg.on_start = on_start;
	cfg.on_end = on_end;
	cfg.hook_arg = &sc;
	bench_run_stats st;
	if (bench_run(&cfg, prompts, n, results, &st, &e)) {
		cli_error("infbench bench", NULL, &e);
		goto out;
	}
	/* the result: the reference's keys in order, then infbench's */
	ib_val *r = ib_v_map(a);
	char date[32];
	time_t now = time(NULL);
	strftime(date, sizeof date, "%Y%m%d-%H%M%S", localtime(&now));
	ib_map_set(a, r, "date", ib_v_str(a, date));
	ib_map_set(a, r, "backend", ib_v_str(a, backend));
	ib_map_set(a, r, "model_id", ib_v_str(a, model));
	ib_map_set(a, r, "tokenizer_id", ib_v_str(a, tokpath));
	ib_map_set(a, r, "best_of", ib_v_int(a, cfg.best_of));
	ib_map_set(a, r, "num_prompts", ib_v_int(a, (int64_t)n));
	if ((o = OPT("--metadata"))->seen)
		for (size_t i = 0; i < o->nvals; i++) {
			const char *kv = o->vals[i], *eq = strchr(kv, '=');
			if (!eq) {
				fprintf(stderr, "infbench bench: error: --metadata needs KEY=VALUE (got %s)\n", kv);
				goto out;
			}
			char k[256];
			snprintf(k, sizeof k, "%.*s", (int)(eq - kv), kv);
			const char *eq2 = strchr(eq + 1, '=');
			size_t vl = eq2 ? (size_t)(eq2 - eq - 1) : strlen(eq + 1);
			ib_map_set(a, r, k, ib_v_strn(a, eq + 1, vl));
		}
	ib_map_set(a, r, "request_rate", isinf(rate) ? ib_v_str(a, "inf") : ib_v_float(a, rate));
	ib_map_set(a, r, "burstiness", ib_v_float(a, burst));
	ib_map_set(a, r, "max_concurrency", conc ? ib_v_int(a, (int64_t)conc) : ib_v_null(a));
	if (bench_report(a, prompts, results, n, &st, &mo, cfg.keep_text, count_tokens, bt.tok, r, &out)) {
		fprintf(stderr, "infbench bench: error: out of memory\n");
		goto out;
	}
	health(a, r, results, n, &st, rate, cfg.kernel_timestamps);
	/* a time-scaled server: the figures above are in model time */
	if (st.time_scale != 0) {
		ib_map_set(a, r, "time_scale", st.time_scale > 0 ? ib_v_float(a, st.time_scale) : ib_v_null(a));
		ib_map_set(a, r, "wall_duration", ib_v_float(a, st.wall_duration));
		if (st.time_scale < 0)
			fprintf(stderr, "infbench bench: warning: the server announced different time scales; "
					"the figures are in wall time\n");
	}
	bench_scrape after;
	scrape(host, port, &after);
	ib_map_set(a, r, "server_metrics", bench_scrape_diff(a, &sc.before, &after));
	ib_map_set(a, r, "workload", workload(a, prompts, n, tokpath, (uint32_t)INT("--seed", 0), gen_s));
	fputs(out.data, stdout);
	fflush(stdout);
	int64_t completed = ib_map_get(r, "completed")->i;
	if (completed == 0)
		fprintf(stderr, "All requests failed. This is likely due to a misconfiguration on the benchmark "
				"arguments.\n");
	if (OPT("--save-result")->seen) {
		char name[1024], path[4096];
		if ((o = OPT("--result-filename"))->seen)
			snprintf(name, sizeof name, "%s", o->vals[0]);
		else {
			const char *base = strrchr(model, '/') ? strrchr(model, '/') + 1 : model;
			char conc_part[64] = "";
			if (conc)
				snprintf(conc_part, sizeof conc_part, "-concurrency%zu", conc);
			snprintf(name, sizeof name, "%s-%sqps%s-%s-%s.json", backend,
				 isinf(rate) ? "inf" : STR("--request-rate", "inf"), conc_part, base, date);
		}
		if ((o = OPT("--result-dir"))->seen)
			snprintf(path, sizeof path, "%s/%s", o->vals[0], name);
		else
			snprintf(path, sizeof path, "%s", name);
		ib_buf j = {0};
		ib_json_opts jo = IB_JSON_PYTHON;
		if (ib_json_write(&j, r, &jo, &e) || ib_write_file_atomic(path, j.data, j.len, &e)) {
			cli_error("infbench bench", NULL, &e);
			ib_buf_free(&j);
			goto out;
		}
		ib_buf_free(&j);
	}
	status = 0;
	double failure = n ? 1.0 - (double)completed / (double)n : 0;
	if (failure > 0.05) {
		fprintf(stderr, "FAIL: request failure rate %.1f%% exceeds 5%% threshold (%lld/%zu completed)\n",
			failure * 100, (long long)completed, n);
		status = 1;
	}
out:
	for (size_t i = 0; results && i < n; i++)
		bench_result_free(&results[i]);
	free(results);
	free(lora);
	bench_tokenizer_close(&bt);
	ib_buf_free(&out);
	ib_arena_free(a);
	args_free(&p);
	return status;
}
