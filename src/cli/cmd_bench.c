/* infbench bench: the serving benchmark client, a drop-in for the reference's
 * benchmark_serving.py (docs/bench.md). Flags → bench_options → bench_main
 * → exit status; the library does the rest and prints nothing itself. */
#include "bench/bench.h"
#include "cli/args.h"
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N(a) (sizeof(a) / sizeof(a)[0])

enum {
	BENCH_OK = 0,     /* the run happened, at most 5 % of the requests failed */
	BENCH_FAILED = 1, /* an error, or more than 5 % failed (the result is still written) */
	BENCH_USAGE = 2,  /* a flag the benchmark cannot use */
};

static const char *const backends[] = {"tgi",    "vllm",        "lmdeploy",     "deepspeed-mii",
                                       "openai", "openai-chat", "tensorrt-llm", "scalellm",
                                       "sglang", NULL};
static const char *const datasets[] = {"random", "sharegpt", "custom", NULL};
static const char *const tok_modes[] = {"auto", "slow", "mistral", "custom", "deepseek_v4", NULL};

static const arg_opt flags[] = {
    {.name = "--backend",
     .kind = ARG_ONE,
     .choices = backends,
     .metavar = "B",
     .help = "vllm, openai, sglang (completions) or openai-chat"},
    {.name = "--base-url",
     .kind = ARG_ONE,
     .metavar = "URL",
     .help = "http://host:port (instead of --host/--port)"},
    {.name = "--ca-cert",
     .kind = ARG_ONE,
     .metavar = "FILE",
     .help = "https: trust these PEM certificates (default: the system CA store)"},
    {.name = "--insecure",
     .kind = ARG_FLAG,
     .help = "https: do not verify the server's certificate"},
    {.name = "--host", .kind = ARG_ONE, .metavar = "H", .help = "server host (default 127.0.0.1)"},
    {.name = "--port",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "server port (default 8000)"},
    {.name = "--endpoint", .kind = ARG_ONE, .metavar = "PATH", .help = "default /v1/completions"},
    {.name = "--dataset-name",
     .kind = ARG_ONE,
     .choices = datasets,
     .metavar = "D",
     .help =
         "random (required, as in the reference); sharegpt or custom: prompts from --dataset-path"},
    {.name = "--dataset-path",
     .kind = ARG_ONE,
     .metavar = "P",
     .help = "the file of --dataset-name sharegpt (JSON) or custom (JSON lines)"},
    {.name = "--custom-output-len",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "output tokens per custom prompt (default 256)"},
    {.name = "--max-concurrency",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "requests in flight at most"},
    {.name = "--model",
     .kind = ARG_ONE,
     .required = true,
     .metavar = "M",
     .help = "model (JSON 'model'; default tokenizer path)"},
    {.name = "--tokenizer",
     .kind = ARG_ONE,
     .metavar = "PATH",
     .help = "tokenizer folder or tokenizer.json (default --model)"},
    {.name = "--best-of", .kind = ARG_ONE, .is_int = true, .metavar = "N", .help = "default 1"},
    {.name = "--use-beam-search", .kind = ARG_FLAG, .help = "accepted, unused"},
    {.name = "--num-prompts",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "measured requests (default 1000)"},
    {.name = "--logprobs",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "sent as logprobs"},
    {.name = "--request-rate", .kind = ARG_ONE, .metavar = "R", .help = "requests/s (default inf)"},
    {.name = "--burstiness",
     .kind = ARG_ONE,
     .metavar = "B",
     .help = "gamma shape of inter-arrivals (default 1.0)"},
    {.name = "--seed", .kind = ARG_ONE, .is_int = true, .metavar = "N", .help = "default 0"},
    {.name = "--trust-remote-code", .kind = ARG_FLAG, .help = "accepted"},
    {.name = "--disable-tqdm", .kind = ARG_FLAG, .help = "no progress line"},
    {.name = "--profile",
     .kind = ARG_FLAG,
     .help = "POST /start_profile after the warmup, /stop_profile at the end"},
    {.name = "--save-result", .kind = ARG_FLAG, .help = "write the result JSON"},
    {.name = "--save-detailed",
     .kind = ARG_FLAG,
     .help = "keep ttfts, itls, generated_texts, errors"},
    {.name = "--metadata",
     .kind = ARG_MANY,
     .metavar = "KEY=VALUE",
     .help = "extra string keys in the JSON"},
    {.name = "--result-dir",
     .kind = ARG_ONE,
     .metavar = "DIR",
     .help = "folder of the result file"},
    {.name = "--result-filename", .kind = ARG_ONE, .metavar = "F", .help = "result file name"},
    {.name = "--ignore-eos", .kind = ARG_FLAG, .help = "send ignore_eos: true"},
    {.name = "--percentile-metrics",
     .kind = ARG_ONE,
     .metavar = "L",
     .help = "default ttft,tpot,itl,e2el"},
    {.name = "--metric-percentiles", .kind = ARG_ONE, .metavar = "L", .help = "default 90,99,99.9"},
    {.name = "--goodput",
     .kind = ARG_MANY,
     .metavar = "KEY:MS",
     .help = "SLOs: ttft, tpot, e2el in ms"},
    {.name = "--sonnet-input-len", .kind = ARG_ONE, .metavar = "N", .help = "accepted, unused"},
    {.name = "--sonnet-output-len", .kind = ARG_ONE, .metavar = "N", .help = "accepted, unused"},
    {.name = "--sonnet-prefix-len", .kind = ARG_ONE, .metavar = "N", .help = "accepted, unused"},
    {.name = "--sharegpt-output-len",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "output tokens per ShareGPT prompt (default: the reply's)"},
    {.name = "--hf-subset", .kind = ARG_ONE, .metavar = "S", .help = "accepted, unused"},
    {.name = "--hf-split", .kind = ARG_ONE, .metavar = "S", .help = "accepted, unused"},
    {.name = "--hf-output-len", .kind = ARG_ONE, .metavar = "N", .help = "accepted, unused"},
    {.name = "--random-input-len",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "default 1024"},
    {.name = "--random-output-len",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "default 128"},
    {.name = "--random-range-ratio", .kind = ARG_ONE, .metavar = "R", .help = "default 1.0"},
    {.name = "--random-prefix-len",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "default 0"},
    {.name = "--use-chat-template", .kind = ARG_FLAG, .help = "wrap prompts in the chat template"},
    {.name = "--random-num-workers",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "W",
     .help = "the reference's chunking (0: min(cpus, 8); 1: serial)"},
    {.name = "--dsv4", .kind = ARG_FLAG, .help = "DeepSeek-V4 framing (with --use-chat-template)"},
    {.name = "--tokenizer-mode",
     .kind = ARG_ONE,
     .choices = tok_modes,
     .metavar = "M",
     .help = "accepted"},
    {.name = "--served-model-name", .kind = ARG_ONE, .metavar = "M", .help = "JSON 'model'"},
    {.name = "--lora-modules",
     .kind = ARG_MANY,
     .metavar = "M",
     .help = "a module at random per request (its JSON 'model')"},
    {.name = "--request-timeout",
     .kind = ARG_ONE,
     .metavar = "SECONDS",
     .help = "infbench: bound on each request and its stream (default 21600, the reference's)"},
    {.name = "--num-warmups",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "warmup requests (default 0)"},
    {.name = "--keep-alive",
     .kind = ARG_FLAG,
     .help = "infbench: reuse connections (default: one per request, as the reference)"},
    {.name = "--kernel-timestamps",
     .kind = ARG_FLAG,
     .help = "infbench: chunk times from SO_TIMESTAMPNS (the default)"},
    {.name = "--user-timestamps",
     .kind = ARG_FLAG,
     .help = "infbench: chunk times when the client has read them, as the reference"},
    {.name = "--threads",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "infbench: event-loop threads for very high rates (default 1)"},
    {.name = "--prompt-cache",
     .kind = ARG_ONE,
     .metavar = "DIR",
     .help = "infbench: keep generated prompt sets in DIR and reuse one when everything it depends "
             "on is the same (same prompts, no generation)"},
    {.name = "--prompt-threads",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "infbench: prompt generation threads (default: one per CPU; same prompts for any N)"},
    CLI_TOK_CACHE_OPT,
    {.name = "--help", .alias = "-h", .kind = ARG_FLAG, .help = "show this help and exit"},
};

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

/* the hook: stdout for the reference's lines, stderr for the rest, the
 * progress line redrawn in place */
static void to_user(void *arg, int stream, const char *text)
{
	(void)arg;
	if (stream == IB_LOG_OUT) {
		fputs(text, stdout);
		fflush(stdout);
	} else if (stream == IB_LOG_ERR) {
		fflush(stdout);
		fputs(text, stderr);
	} else {
		cli_progress_line(NULL, text);
	}
}

/* --percentile-metrics, --metric-percentiles, --goodput; 0 or a usage error */
static int metric_flags(arg_parser *p, bench_metric_opts *mo, double *pcts, size_t cap)
{
	arg_opt *o = args_get(p, "--percentile-metrics");
	const char *pm = o->seen ? o->vals[0] : "ttft,tpot,itl,e2el";
	mo->ttft = strstr(pm, "ttft") != NULL;
	mo->tpot = strstr(pm, "tpot") != NULL;
	mo->itl = strstr(pm, "itl") != NULL;
	mo->e2el = strstr(pm, "e2el") != NULL;
	o = args_get(p, "--metric-percentiles");
	if (parse_list(o->seen ? o->vals[0] : "90,99,99.9", pcts, cap, &mo->npercentiles))
		return args_error(
		    p, NULL, "argument --metric-percentiles: a comma-separated list of numbers");
	mo->percentiles = pcts;
	o = args_get(p, "--goodput");
	mo->goodput = o->seen;
	for (size_t i = 0; i < o->nvals; i++) {
		const char *kv = o->vals[i], *c = strchr(kv, ':');
		double ms = c ? atof(c + 1) : -1;
		double *slo = !strncmp(kv, "ttft:", 5)   ? &mo->slo_ttft
		              : !strncmp(kv, "tpot:", 5) ? &mo->slo_tpot
		              : !strncmp(kv, "e2el:", 5) ? &mo->slo_e2el
		                                         : NULL;
		if (!c || ms < 0)
			return args_error(
			    p, NULL,
			    "argument --goodput: KEY:VALUE with ttft, tpot or e2el (got %s)", kv);
		if (!slo)
			return args_error(p, NULL, "argument --goodput: unknown metric in %s", kv);
		*slo = ms / 1000;
	}
	return 0;
}

/* the flags into o (pointing into p's values); 0, or the exit status of an
 * error already printed */
static int options(arg_parser *p, bench_options *o, double *pcts, size_t cap)
{
#define OPT(name)      args_get(p, name)
#define STR(name, def) (OPT(name)->seen ? OPT(name)->vals[0] : (def))
#define INT(name, def) (OPT(name)->seen ? OPT(name)->ivals[0] : (def))
	bench_options_init(o);
	if (!OPT("--dataset-name")->seen) { /* the reference fails at run time: exit 1 */
		fprintf(stderr, "infbench bench: error: Unknown dataset: sharegpt (the reference's "
		                "default; pass "
		                "--dataset-name random)\n");
		return BENCH_FAILED;
	}
	if (OPT("--kernel-timestamps")->seen && OPT("--user-timestamps")->seen)
		return args_error(p, NULL,
		                  "--kernel-timestamps and --user-timestamps exclude each other");
	o->backend = STR("--backend", o->backend);
	o->base_url = STR("--base-url", NULL);
	o->host = STR("--host", o->host);
	o->port = (int)INT("--port", o->port);
	o->endpoint = STR("--endpoint", o->endpoint);
	o->ca_cert = STR("--ca-cert", NULL);
	o->insecure = OPT("--insecure")->seen;
	o->api_key = getenv("OPENAI_API_KEY");
	o->model = STR("--model", "");
	o->tokenizer = STR("--tokenizer", NULL);
	o->served_model_name = STR("--served-model-name", NULL);
	o->lora_modules = OPT("--lora-modules")->vals;
	o->nlora = OPT("--lora-modules")->nvals;
	int64_t np = INT("--num-prompts", 1000), conc = INT("--max-concurrency", 0),
	        warm = INT("--num-warmups", 0);
	if (np < 0 || conc < 0 || warm < 0)
		return args_error(
		    p, NULL, "--num-prompts, --max-concurrency and --num-warmups must be >= 0");
	o->num_prompts = (size_t)np;
	o->max_concurrency = (size_t)conc;
	o->num_warmups = (size_t)warm;
	o->input_len = INT("--random-input-len", o->input_len);
	o->dataset_name = STR("--dataset-name", "random");
	o->dataset_path = STR("--dataset-path", NULL);
	o->file_output_len = !strcmp(o->dataset_name, "custom") ? INT("--custom-output-len", 0)
	                                                        : INT("--sharegpt-output-len", 0);
	o->output_len = INT("--random-output-len", o->output_len);
	o->prefix_len = INT("--random-prefix-len", o->prefix_len);
	o->range_ratio = atof(STR("--random-range-ratio", "1.0"));
	o->seed = INT("--seed", 0);
	o->random_num_workers = (int)INT("--random-num-workers", 0);
	o->prompt_threads = (int)INT("--prompt-threads", 0);
	o->prompt_cache = STR("--prompt-cache", NULL);
	o->use_chat_template = OPT("--use-chat-template")->seen;
	o->dsv4 = OPT("--dsv4")->seen;
	o->best_of = (int)INT("--best-of", 1);
	o->logprobs_set = OPT("--logprobs")->seen;
	o->logprobs = INT("--logprobs", 0);
	o->ignore_eos = OPT("--ignore-eos")->seen;
	o->request_rate = STR("--request-rate", "inf");
	o->burstiness = STR("--burstiness", "1.0");
	o->keep_alive = OPT("--keep-alive")->seen;
	o->user_timestamps = OPT("--user-timestamps")->seen;
	o->threads = (int)INT("--threads", 1);
	if (OPT("--request-timeout")->seen)
		o->request_timeout = atof(OPT("--request-timeout")->vals[0]);
	o->profile = OPT("--profile")->seen;
	o->save_result = OPT("--save-result")->seen;
	o->save_detailed = OPT("--save-detailed")->seen;
	o->metadata = OPT("--metadata")->vals;
	o->nmetadata = OPT("--metadata")->nvals;
	o->result_dir = STR("--result-dir", NULL);
	o->result_filename = STR("--result-filename", NULL);
	ib_error e = {0};
	int rc = metric_flags(p, &o->metrics, pcts, cap);
	if (!rc && bench_options_check(o, &e))
		rc = args_error(p, NULL, "%s", e.msg);
	return rc;
#undef OPT
#undef STR
#undef INT
}

int cmd_bench(int argc, char **argv)
{
	arg_opt opts[N(flags)];
	memcpy(opts, flags, sizeof flags);
	arg_parser p = {
	    .prog = "infbench bench",
	    .top = "infbench bench",
	    .desc = "The serving benchmark client: streams requests to an OpenAI-compatible server "
	            "and\n"
	            "reports TTFT, TPOT, ITL, E2EL and throughput like InferenceX's "
	            "benchmark_serving.py.",
	    .epilog = "See docs/bench.md.",
	    .opts = opts,
	    .nopts = N(opts),
	};
	int rc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? BENCH_OK : rc;
	}
	bench_options o;
	double pcts[32];
	if ((rc = options(&p, &o, pcts, N(pcts))) ||
	    (rc = cli_tok_cache(p.prog, args_get(&p, "--tok-cache")->seen
	                                    ? args_get(&p, "--tok-cache")->vals[0]
	                                    : NULL))) {
		args_free(&p);
		return rc;
	}
	bool tty = !args_get(&p, "--disable-tqdm")->seen && isatty(2);
	bench_log log = {.fn = to_user, .with_progress = tty};
	bench_outcome out;
	ib_error e = {0};
	int status = BENCH_OK;
	if (bench_main(&o, &log, &out, &e)) {
		cli_error("infbench bench", NULL, &e);
		status = BENCH_FAILED;
	} else if (out.failure_gate) {
		status = BENCH_FAILED;
	}
	args_free(&p);
	return status;
}
