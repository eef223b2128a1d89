/* infbench eval run: the InferenceX gsm8k eval against an OpenAI-compatible
 * chat endpoint (docs/eval.md). */
#define _POSIX_C_SOURCE 200809L
#include "cli/args.h"
#include "cli/cli.h"
#include "eval/eval.h"
#include "net/net.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/* http(s)://host[:port][/path] → an IPv4 address, the host's name, the
 * port and the endpoint path */
static int parse_url(const char *url, char *host, char *name, size_t hcap, int *port, bool *https,
                     char *path, size_t pcap, const char **why)
{
	*https = !strncmp(url, "https://", 8);
	if (strncmp(url, "http://", 7) && !*https) {
		*why = "must start with http:// or https://";
		return -1;
	}
	const char *h = url + (*https ? 8 : 7), *slash = strchr(h, '/');
	const char *end = slash ? slash : h + strlen(h);
	const char *colon = memchr(h, ':', (size_t)(end - h));
	size_t hl = (size_t)((colon ? colon : end) - h);
	if (!hl || hl >= hcap) {
		*why = "has no host";
		return -1;
	}
	snprintf(name, hcap, "%.*s", (int)hl, h);
	*port = *https ? 443 : 80;
	if (colon) {
		char *e;
		long p = strtol(colon + 1, &e, 10);
		if (e != end || p < 1 || p > 65535) {
			*why = "has a bad port";
			return -1;
		}
		*port = (int)p;
	}
	const char *pth = slash ? slash : "";
	size_t pl = strlen(pth);
	while (pl && pth[pl - 1] == '/')
		pl--;
	/* a base URL gets the chat-completions path, as OpenAI clients add it */
	if (pl >= 17 && !strncmp(pth + pl - 17, "/chat/completions", 17))
		snprintf(path, pcap, "%.*s", (int)pl, pth);
	else if (pl >= 3 && !strncmp(pth + pl - 3, "/v1", 3))
		snprintf(path, pcap, "%.*s/chat/completions", (int)pl, pth);
	else
		snprintf(path, pcap, "%.*s/v1/chat/completions", (int)pl, pth);
	char ip[64];
	ib_error e = {0};
	if (net_resolve(name, ip, &e)) {
		*why = "names a host that does not resolve (IPv4)";
		return -1;
	}
	snprintf(host, hcap, "%s", ip);
	return 0;
}

/* "64" or "16 32 64" (spaces or commas) */
static size_t parse_concs(const char *s, int64_t *out, size_t cap)
{
	size_t n = 0;
	while (*s) {
		while (*s == ' ' || *s == ',')
			s++;
		if (!*s)
			break;
		char *e;
		long long v = strtoll(s, &e, 10);
		if (e == s || v < 1 || v > 100000 || (*e && *e != ' ' && *e != ','))
			return 0;
		if (n == cap)
			return 0;
		out[n++] = v;
		s = e;
	}
	return n;
}

static const arg_opt flags[] = {
    {.name = "--help", .alias = "-h", .kind = ARG_FLAG, .help = "show this help and exit"},
    {.name = "--base-url",
     .kind = ARG_ONE,
     .required = true,
     .metavar = "URL",
     .help = "the chat-completions endpoint, or its base (http(s)://host:port[/v1])"},
    {.name = "--ca-cert",
     .kind = ARG_ONE,
     .metavar = "FILE",
     .help = "https: trust these PEM certificates (default: the system CA store)"},
    {.name = "--insecure",
     .kind = ARG_FLAG,
     .help = "https: do not verify the server's certificate"},
    {.name = "--model",
     .kind = ARG_ONE,
     .metavar = "NAME",
     .help = "the served model name (default: $MODEL_NAME, then $MODEL)"},
    {.name = "--dataset",
     .kind = ARG_ONE,
     .required = true,
     .metavar = "DIR",
     .help = "folder with train.jsonl (few-shot) and test.jsonl (questions)"},
    {.name = "--output-path",
     .kind = ARG_ONE,
     .required = true,
     .metavar = "DIR",
     .help = "folder for results_*.json, samples_*.jsonl and meta_env.json (created)"},
    {.name = "--task",
     .kind = ARG_ONE,
     .metavar = "FILE",
     .help = "task YAML (default: the built-in InferenceX gsm8k task)"},
    {.name = "--num-concurrent",
     .kind = ARG_ONE,
     .metavar = "C",
     .help = "requests in flight (default: $EVAL_CONCURRENT_REQUESTS, $CONC, 64); a "
             "list \"16 32\" runs once per value (batched mode, *_concN files)"},
    {.name = "--limit",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "only the first N questions (default: $EVAL_LIMIT, all)"},
    {.name = "--max-model-len",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "the context (default: $EVAL_MAX_MODEL_LEN, 16384); max_tokens is N-4096 "
             "above 4096, else N/2, at most 16384"},
    {.name = "--max-tokens",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "max_tokens of every request (overrides the context rule)"},
    {.name = "--timeout",
     .kind = ARG_ONE,
     .metavar = "S",
     .help = "seconds per attempt (default 1800)"},
    {.name = "--max-retries",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "attempts per request (default 5, as lm-eval's max_retries)"},
    {.name = "--retry-min",
     .kind = ARG_ONE,
     .metavar = "S",
     .help = "shortest backoff between attempts (default 1; then 0.5*2^k s, at most 10)"},
    {.name = "--retry-max",
     .kind = ARG_ONE,
     .metavar = "S",
     .help = "longest backoff between attempts (default 10)"},
    {.name = "--api-key",
     .kind = ARG_ONE,
     .metavar = "KEY",
     .help = "Authorization: Bearer KEY (default: $OPENAI_API_KEY, EMPTY)"},
    {.name = "--no-meta-env", .kind = ARG_FLAG, .help = "do not write meta_env.json"},
};

/* the context length (--max-model-len, EVAL_MAX_MODEL_LEN, 16384) into
 * *ctx; returns max_tokens (--max-tokens, else what the context leaves) */
static int64_t lengths(arg_parser *p, int64_t *ctx)
{
	arg_opt *ml = args_get(p, "--max-model-len"), *mt = args_get(p, "--max-tokens");
	*ctx = ml->seen                    ? ml->ivals[0]
	       : env("EVAL_MAX_MODEL_LEN") ? strtoll(env("EVAL_MAX_MODEL_LEN"), NULL, 10)
	                                   : 16384;
	if (*ctx <= 0)
		*ctx = 16384;
	int64_t maxout = *ctx > 4096 ? *ctx - 4096 : *ctx / 2;
	if (maxout > 16384)
		maxout = 16384;
	return mt->seen ? mt->ivals[0] : maxout;
}

/* One concurrency's scores on stderr, its results file on stdout; true
 * when requests failed for good. */
static bool report(const char *prog, int64_t conc, const ev_summary *s, int64_t tries)
{
	fprintf(stderr, "%s: conc %lld: %zu questions in %.1f s", prog, (long long)conc, s->n,
	        s->seconds);
	for (size_t f = 0; f < s->nfilters; f++)
		fprintf(stderr, "%s %s %.4f ± %.4f", f ? "," : ";", s->filters[f], s->mean[f],
		        s->se[f]);
	fprintf(stderr, "\n");
	if (s->retried)
		fprintf(stderr, "%s: %zu requests needed more than one attempt\n", prog,
		        s->retried);
	if (s->failed)
		fprintf(stderr,
		        "%s: error: %zu requests failed after %lld attempts and were scored as "
		        "wrong (lm-eval would have aborted the run)\n",
		        prog, s->failed, (long long)tries);
	printf("%s\n", s->results_path);
	return s->failed > 0;
}

/* The client's progress line, redrawn in place on stderr. */
static void progress(void *arg, int stream, const char *line)
{
	(void)arg;
	(void)stream;
	fprintf(stderr, "\r%s", line ? line : "");
	fflush(stderr);
}

/* The value of a one-value option, or NULL when absent. */
static const char *sopt(arg_parser *p, const char *name)
{
	arg_opt *o = args_get(p, name);
	return o->seen ? o->vals[0] : NULL;
}

/* The concurrencies, limits, lengths, timeout and retries of the run, from
 * the flags and the environment; 0, or -1 after a usage error. */
static int run_limits(arg_parser *p, int64_t *concs, size_t *nconcs, int64_t *limit,
                      int64_t *maxout, int64_t *ctx, double *timeout, double *rmin, double *rmax,
                      int64_t *tries)
{
	const char *cs = sopt(p, "--num-concurrent");
	if (!cs)
		cs = env("EVAL_CONCURRENT_REQUESTS") ? env("EVAL_CONCURRENT_REQUESTS")
		     : env("CONC")                   ? env("CONC")
		                                     : "64";
	*nconcs = parse_concs(cs, concs, 64);
	if (!*nconcs) {
		args_error(p, p->prog,
		           "argument --num-concurrent: '%s' is not a list of positive "
		           "integers",
		           cs);
		return -1;
	}
	*limit = 0;
	if (args_get(p, "--limit")->seen)
		*limit = args_get(p, "--limit")->ivals[0];
	else if (env("EVAL_LIMIT"))
		*limit = strtoll(env("EVAL_LIMIT"), NULL, 10);
	*maxout = lengths(p, ctx);
	const char *ts = sopt(p, "--timeout"), *rs = sopt(p, "--retry-min"),
	           *rx = sopt(p, "--retry-max");
	*rmax = rx ? strtod(rx, NULL) : 10;
	*timeout = ts ? strtod(ts, NULL) : 1800;
	*rmin = rs ? strtod(rs, NULL) : 1;
	*tries = args_get(p, "--max-retries")->seen ? args_get(p, "--max-retries")->ivals[0] : 5;
	if (*limit < 0 || *maxout < 1 || !(*timeout > 0) || !(*rmin >= 0) || !(*rmax >= *rmin) ||
	    *tries < 1 || *tries > 100) {
		args_error(p, p->prog,
		           "--limit must be >= 0, --max-tokens >= 1, --timeout > 0, "
		           "--retry-min >= 0 and --max-retries 1..100");
		return -1;
	}
	return 0;
}

/* Runs the eval of o at each concurrency (result files suffixed _conc<N>
 * when there are several), then writes meta_env.json unless !meta; the
 * exit status. */
static int run_concs(const char *prog, ev_run_opts *o, const char *dir, const int64_t *concs,
                     size_t nconcs, int64_t tries, bool meta)
{
	bool failed[64] = {false};
	bool any_fail = false;
	ib_error e = {0};
	for (size_t i = 0; i < nconcs; i++) {
		o->http.concurrency = (size_t)concs[i];
		char suffix[32] = "";
		if (nconcs > 1)
			snprintf(suffix, sizeof suffix, "_conc%lld", (long long)concs[i]);
		ev_summary s;
		if (ev_run(o, dir, suffix, &s, &e)) {
			cli_error(prog, NULL, &e);
			failed[i] = any_fail = true;
			continue;
		}
		if (report(prog, concs[i], &s, tries))
			failed[i] = any_fail = true;
	}
	if (meta && ev_write_meta_env(dir, nconcs > 1 ? concs : NULL, failed,
	                              nconcs > 1 ? nconcs : 0, &e)) {
		cli_error(prog, NULL, &e);
		any_fail = true;
	}
	int status = any_fail ? CLI_FAIL : CLI_OK;
	if (fflush(stdout))
		status = CLI_FAIL;
	return status;
}

/* the task (a file, or the built-in gsm8k task), the dataset and the output folder */
static int load_inputs(ib_arena *a, const char *tpath, const char *dataset, const char *dir,
                       ib_val **task, ev_dataset *data, ib_error *e)
{
	int rc = tpath ? ib_yaml_load_file(a, tpath, task, e)
	               : ib_yaml_load(a, "<built-in gsm8k task>", ev_gsm8k_task_yaml,
	                              strlen(ev_gsm8k_task_yaml), task, e);
	if (!rc && (*task)->type != IB_V_MAP)
		rc = ib_fail(e, IB_EINVAL, tpath, 0, 0, "a task file must be a YAML mapping");
	if (!rc)
		rc = ev_dataset_load(dataset, data, e);
	if (!rc)
		rc = ib_mkdirs(dir, 0777, e);
	return rc;
}

int cmd_eval_run(int argc, char **argv)
{
	arg_opt opts[sizeof flags / sizeof flags[0]];
	memcpy(opts, flags, sizeof flags);
	arg_parser p = {.prog = "infbench eval run",
	                .desc =
	                    "Run InferenceX's gsm8k eval (lm-eval 0.4.9.2 local-chat-completions "
	                    "protocol: 5-shot multi-turn prompts, greedy decoding, strict-match "
	                    "and flexible-extract scores) against an OpenAI-compatible server.",
	                .opts = opts,
	                .nopts = sizeof opts / sizeof opts[0]};
	int prc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (prc) {
		args_free(&p);
		return prc == 1 ? CLI_OK : CLI_USAGE;
	}
#define OPT(n)  args_get(&p, n)
#define SOPT(n) (OPT(n)->seen ? OPT(n)->vals[0] : NULL)
	int status = CLI_USAGE;
	ev_dataset data = {0};
	ib_arena *a = ib_arena_new();
	const char *url = SOPT("--base-url");
	const char *model = SOPT("--model");
	if (!model)
		model = env("MODEL_NAME") ? env("MODEL_NAME") : env("MODEL");
	char host[256], name[256], path[1024];
	int port;
	bool https;
	net_tls *tls = NULL;
	const char *why = NULL;
	if (!a)
		goto out;
	if (!model) {
		args_error(&p, p.prog, "--model is required (or set MODEL_NAME / MODEL)");
		goto out;
	}
	if (parse_url(url, host, name, sizeof host, &port, &https, path, sizeof path, &why)) {
		args_error(&p, p.prog, "argument --base-url: '%s' %s", url, why);
		goto out;
	}
	if (!https && (OPT("--ca-cert")->seen || OPT("--insecure")->seen)) {
		args_error(&p, p.prog, "--ca-cert and --insecure apply to https:// base URLs");
		goto out;
	}
	int64_t concs[64], limit, ctx, maxout, tries;
	size_t nconcs;
	double timeout, rmin, rmax;
	if (run_limits(&p, concs, &nconcs, &limit, &maxout, &ctx, &timeout, &rmin, &rmax, &tries))
		goto out;
	status = CLI_FAIL;
	ib_error e = {0};
	if (https && net_tls_client_new(SOPT("--ca-cert"), OPT("--insecure")->seen, &tls, &e)) {
		cli_error(p.prog, "--ca-cert", &e);
		goto out;
	}
	ib_val *task;
	const char *dir = SOPT("--output-path");
	if (load_inputs(a, SOPT("--task"), SOPT("--dataset"), dir, &task, &data, &e)) {
		cli_error(p.prog, NULL, &e);
		goto out;
	}
	const char *key = SOPT("--api-key");
	if (!key)
		key = env("OPENAI_API_KEY") ? env("OPENAI_API_KEY") : "EMPTY";
	ev_run_opts o = {
	    .http = {.name = "eval",
	             .host = host,
	             .port = port,
	             .tls = tls,
	             .server_name = name,
	             .path = path,
	             .api_key = key,
	             .timeout_s = timeout,
	             .max_attempts = (int)tries,
	             .retry_min_s = rmin,
	             .retry_max_s = rmax,
	             .log = isatty(2) ? progress : NULL},
	    .model = model,
	    .base_url = url,
	    .data = &data,
	    .task = task,
	    .limit = (size_t)limit,
	    .max_tokens = maxout,
	    .max_length = ctx,
	    .seed = 1234,
	    .fewshot_seed = 1234,
	};
	status = run_concs(p.prog, &o, dir, concs, nconcs, tries, !OPT("--no-meta-env")->seen);
out:
	net_tls_free(tls);
	ev_dataset_free(&data);
	ib_arena_free(a);
	args_free(&p);
	return status;
}
