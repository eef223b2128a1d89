/* infbench aiperf profile: the aiperf command line that InferenceX's
 * build_replay_cmd builds (--scenario inferencex-agentx-mvp), mapped flag
 * by flag onto the AgentX replay (docs/agentx.md "The aiperf shim"). The
 * recipe engine's `aiperf` shims run this command. */
#include "agentx/agentx.h"
#include "cli/args.h"
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NOPT(a) (sizeof(a) / sizeof((a)[0]))

static const char usage[] =
    "usage: infbench aiperf profile [options]\n"
    "\n"
    "The aiperf (SemiAnalysis fork) command line of InferenceX's agentic recipes\n"
    "(benchmark_lib.sh build_replay_cmd), run by infbench's AgentX replay:\n"
    "  profile  --scenario inferencex-agentx-mvp and the flags build_replay_cmd passes\n"
    "\n"
    "Run 'infbench aiperf profile --help' for the flags; see docs/agentx.md.\n";

static const char *const scenarios[] = {"inferencex-agentx-mvp", NULL};
static const char *const endpoint_types[] = {"chat", NULL};

#define ONE(n, mv, h)                                                                              \
	{                                                                                          \
		.name = n, .kind = ARG_ONE, .metavar = mv, .help = h                               \
	}
#define INT(n, mv, h)                                                                              \
	{                                                                                          \
		.name = n, .kind = ARG_ONE, .is_int = true, .metavar = mv, .help = h               \
	}
#define FLAG(n, h)                                                                                 \
	{                                                                                          \
		.name = n, .kind = ARG_FLAG, .help = h                                             \
	}

/* The numbers of the parsed flags into o: 0, or the usage error's status. */
static int read_numbers(arg_parser *p, ax_replay_opts *o, double *stats)
{
	struct {
		const char *name;
		double *x;
		double lo;
	} f[] = {{"--benchmark-duration", &o->duration, 1e-9},
	         {"--stats-interval", stats, 0},
	         {"--failed-request-threshold", &o->live_fail_threshold, 0},
	         {"--trajectory-start-min-ratio", &o->tstar_lo, 0},
	         {"--trajectory-start-max-ratio", &o->tstar_hi, 0},
	         {"--trace-idle-gap-cap-seconds", &o->tree_idle_cap, 1e-9},
	         {"--warmup-grace-period", &o->warmup_grace, 0},
	         {"--dynamo-session-timeout-seconds", NULL, 0},
	         {"--slice-duration", &o->metrics_interval, 1e-9}};
	for (size_t i = 0; i < NOPT(f); i++) {
		arg_opt *x = args_get(p, f[i].name);
		double v;
		if (!x->seen)
			continue;
		if (!ib_py_float(x->vals[0], strlen(x->vals[0]), &v) || !isfinite(v) || v < f[i].lo)
			return args_error(p, p->prog, "argument %s: need a number >= %g, got '%s'",
			                  f[i].name, f[i].lo, x->vals[0]);
		if (f[i].x)
			*f[i].x = v;
	}
	struct {
		const char *name;
		int64_t lo, hi;
	} n[] = {{"--concurrency", 1, 65536},
	         {"--random-seed", 0, UINT32_MAX},
	         {"--warmup-requests-per-lane", 0, 1000000},
	         {"--max-context-length", 0, INT64_MAX},
	         {"--num-dataset-entries", 1, INT64_MAX}};
	int64_t v[NOPT(n)] = {(int64_t)o->concurrency, o->seed, (int64_t)o->warmup_per_lane,
	                      o->max_context, (int64_t)o->max_traces};
	for (size_t i = 0; i < NOPT(n); i++) {
		arg_opt *x = args_get(p, n[i].name);
		if (!x->seen)
			continue;
		if (x->ivals[0] < n[i].lo || x->ivals[0] > n[i].hi)
			return args_error(p, p->prog, "argument %s: need %lld..%lld, got '%s'",
			                  n[i].name, (long long)n[i].lo, (long long)n[i].hi,
			                  x->vals[0]);
		v[i] = x->ivals[0];
	}
	o->concurrency = (size_t)v[0], o->seed = (uint32_t)v[1];
	o->warmup_per_lane = (size_t)v[2], o->max_context = v[3], o->max_traces = (size_t)v[4];
	return 0;
}

/* The replay's strings from the flags and infbench's overrides
 * (INFBENCH_TOKENIZER, INFBENCH_AGENTX_CORPUS: the runner's --tokenizer and
 * --agentx-corpus): 0, a usage error's status (2), or 1 after printing. */
static int read_strings(arg_parser *p, ax_replay_opts *o)
{
	o->base_url = args_get(p, "--url")->vals[0];
	o->model = args_get(p, "--model")->vals[0];
	o->artifact_dir = args_get(p, "--output-artifact-dir")->vals[0];
	o->out_dir = NULL;
	arg_opt *x;
	if ((x = args_get(p, "--endpoint"))->seen)
		o->endpoint = x->vals[0];
	const char *env = getenv("INFBENCH_TOKENIZER");
	if (env && *env)
		o->tokenizer = env;
	else if ((x = args_get(p, "--tokenizer"))->seen)
		o->tokenizer = x->vals[0];
	if ((x = args_get(p, "--extra-inputs"))->seen)
		return args_error(p, p->prog,
		                  "argument --extra-inputs: not supported: infbench's replay sends "
		                  "the scenario's request body only (unset AIPERF_EXTRA_INPUTS)");
	const char *lv = getenv("AIPERF_DATASET_WEKA_LIVE_ASSISTANT_RESPONSES");
	if (lv && *lv && strcmp(lv, "0") && strcasecmp(lv, "false")) {
		fprintf(stderr,
		        "%s: error: AIPERF_DATASET_WEKA_LIVE_ASSISTANT_RESPONSES=%s: the "
		        "live-assistant "
		        "mode is not supported (infbench replays the recorded assistant turns)\n",
		        p->prog, lv);
		return 1;
	}
	env = getenv("INFBENCH_AGENTX_CORPUS");
	x = args_get(p, "--public-dataset");
	if (env && *env) {
		o->corpus = env;
		return 0;
	}
	if (!x->seen)
		return args_error(
		    p, p->prog, "argument --public-dataset: required (or INFBENCH_AGENTX_CORPUS)");
	ib_error e = {0};
	if (ax_reference_corpus(NULL, x->vals[0], NULL, &o->dataset, &e)) {
		cli_error(p->prog, "--public-dataset", &e);
		return 1;
	}
	o->corpus = o->dataset;
	return 0;
}

/* Checks what infbench does not model and says so (stderr); the server
 * metrics endpoints into o. */
static int read_flags(arg_parser *p, ax_replay_opts *o)
{
	if (o->duration < 900 && !args_get(p, "--unsafe-override")->seen)
		return args_error(
		    p, p->prog,
		    "the inferencex-agentx-mvp scenario needs --benchmark-duration >= "
		    "900 s (got %g); --unsafe-override allows shorter runs",
		    o->duration);
	if (o->tstar_lo > o->tstar_hi)
		return args_error(
		    p, p->prog,
		    "--trajectory-start-min-ratio is above --trajectory-start-max-ratio");
	o->dynamo_session =
	    ib_env_true(getenv("AIPERF_HTTP_X_DYNAMO_SESSION_ID_FROM_CORRELATION_ID"));
	if (args_get(p, "--use-dynamo-conv-aware-routing")->seen)
		fprintf(stderr,
		        "%s: --use-dynamo-conv-aware-routing: not sent: nvext.session_control is "
		        "a removed Dynamo proof of concept (current Dynamo answers 400); "
		        "AIPERF_HTTP_X_DYNAMO_SESSION_ID_FROM_CORRELATION_ID=true sends the "
		        "X-Dynamo-Session-ID header instead\n",
		        p->prog);
	arg_opt *x = args_get(p, "--server-metrics");
	for (size_t i = 0; x->seen && i < x->nvals; i++)
		if (strncmp(x->vals[i], "http://", 7) && strncmp(x->vals[i], "https://", 8))
			return args_error(p, p->prog, "argument --server-metrics: not a URL: '%s'",
			                  x->vals[i]);
	if (x->seen)
		o->metrics_urls = x->vals, o->nmetrics_urls = x->nvals;
	return 0;
}

/* --stats-interval: aiperf's realtime block, one line on stdout */
static void stats_line(void *arg, const ax_replay_progress *p)
{
	(void)arg;
	if (!p->profiling)
		printf("infbench aiperf: warmup: %zu requests ended, %zu in flight\n",
		       p->warmup_done, p->inflight);
	else
		printf(
		    "infbench aiperf: profiling %.0f / %.0f s: %zu requests completed, %zu failed, "
		    "%zu in flight, %.0f output tokens\n",
		    p->elapsed, p->duration, p->done, p->failed, p->inflight, p->output_tokens);
	fflush(stdout);
}

static int profile_run(arg_parser *p)
{
	ax_replay_opts o;
	ax_replay_defaults(&o);
	double stats = 0;
	int rc = read_numbers(p, &o, &stats);
	if (!rc)
		rc = read_strings(p, &o);
	if (!rc)
		rc = read_flags(p, &o);
	if (rc)
		return rc;
	o.progress = stats > 0 ? stats_line : NULL;
	o.progress_every = stats;
	ib_error e = {0};
	ax_replay_outcome out;
	if (ax_replay(&o, cli_log_line, NULL, &out, &e)) {
		cli_error(p->prog, NULL, &e);
		return 1;
	}
	if (out.threshold_exceeded) {
		fprintf(stderr,
		        "%s: error: %zu of %zu profiling requests failed, over the "
		        "--failed-request-threshold %g (the artifacts are written)\n",
		        p->prog, out.errors, out.errors + out.profiled, o.live_fail_threshold);
		return 1;
	}
	return 0;
}

static int profile(int argc, char **argv)
{
	arg_opt opts[] = {
	    FLAG("--help", "show this help message and exit"),
	    {.name = "--scenario",
	     .kind = ARG_ONE,
	     .required = true,
	     .choices = scenarios,
	     .help = "the only scenario: the AgentX trace replay"},
	    {.name = "--url",
	     .kind = ARG_ONE,
	     .required = true,
	     .metavar = "URL",
	     .help = "the server, http://host:port"},
	    ONE("--endpoint", "PATH", "default /v1/chat/completions"),
	    {.name = "--endpoint-type",
	     .kind = ARG_ONE,
	     .choices = endpoint_types,
	     .help = "chat only"},
	    FLAG("--streaming", "accepted: the replay always streams"),
	    {.name = "--model",
	     .kind = ARG_ONE,
	     .required = true,
	     .metavar = "NAME",
	     .help = "the served model (JSON \"model\")"},
	    ONE("--tokenizer", "NAME",
	        "tokenizer folder, file or HF id (default --model; INFBENCH_TOKENIZER wins)"),
	    INT("--concurrency", "N", "lanes (agentx replay --concurrency)"),
	    ONE("--benchmark-duration", "S", "profiling seconds (>= 900 unless --unsafe-override)"),
	    ONE("--stats-interval", "S", "a progress line on stdout every S seconds"),
	    INT("--random-seed", "N", "agentx replay --random-seed"),
	    ONE("--failed-request-threshold", "F",
	        "stop once failed / completed profiling requests exceeds F (exit 1)"),
	    ONE("--trajectory-start-min-ratio", "F", "t* lower bound"),
	    ONE("--trajectory-start-max-ratio", "F", "t* upper bound"),
	    INT("--warmup-requests-per-lane", "N", "1-token warmup requests per lane"),
	    ONE("--trace-idle-gap-cap-seconds", "S", "per-tree idle cap"),
	    ONE("--warmup-grace-period", "S", "warmup not drained by then fails the replay"),
	    FLAG("--use-server-token-count", "accepted: token counts are the server's usage"),
	    {.name = "--extra-inputs",
	     .kind = ARG_MANY,
	     .metavar = "X",
	     .help = "rejected: the request body is the scenario's"},
	    FLAG("--use-dynamo-conv-aware-routing",
	         "accepted; nvext.session_control is not sent (a removed Dynamo field)"),
	    ONE("--dynamo-session-timeout-seconds", "S", "accepted with the flag above"),
	    FLAG("--no-gpu-telemetry", "accepted: infbench collects no GPU telemetry"),
	    FLAG("--tokenizer-trust-remote-code", "accepted: infbench runs no tokenizer code"),
	    INT("--max-context-length", "TOKENS", "drop traces with a request over it"),
	    INT("--num-dataset-entries", "N", "replay the first N traces of the corpus"),
	    ONE("--slice-duration", "S", "gauges of the server metrics sampled every S seconds"),
	    {.name = "--server-metrics",
	     .kind = ARG_MANY,
	     .metavar = "URL",
	     .help = "Prometheus endpoints scraped besides the server's /metrics"},
	    {.name = "--output-artifact-dir",
	     .kind = ARG_ONE,
	     .required = true,
	     .metavar = "DIR",
	     .help = "where aiperf's files go (profile_export.jsonl, ...)"},
	    FLAG("--unsafe-override", "allow --benchmark-duration under 900 s"),
	    ONE("--public-dataset", "LOADER",
	        "one of aiperf's cc-traces-weka loaders, read offline from the HF cache "
	        "(INFBENCH_AGENTX_CORPUS wins)"),
	};
	arg_parser p = {
	    .prog = "infbench aiperf profile",
	    .desc = "aiperf's `profile --scenario inferencex-agentx-mvp`, as InferenceX's\n"
	            "build_replay_cmd calls it, run by infbench's AgentX replay (agentx replay):\n"
	            "every flag build_replay_cmd passes is accepted and mapped; any other is an\n"
	            "error naming it.",
	    .epilog =
	        "Exit status: 0 the replay ran and its artifacts were written; 1 a bad corpus,\n"
	        "tokenizer or server, or the live failed-request threshold was exceeded; 2\n"
	        "usage errors (an unknown flag). See docs/agentx.md.",
	    .opts = opts,
	    .nopts = NOPT(opts),
	};
	int rc = args_parse(&p, argc, argv, NULL, 0);
	if (!rc)
		rc = profile_run(&p);
	else if (rc == 1)
		rc = 0;
	args_free(&p);
	return rc;
}

int cmd_aiperf(int argc, char **argv)
{
	static const cli_sub subs[] = {{"profile", profile}};
	return cli_dispatch("infbench aiperf", usage, subs, NOPT(subs), argc, argv);
}
