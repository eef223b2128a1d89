/* infbench agentx make-traces|check: the stand-in Weka trace corpus and the
 * trace-format check (docs/agentx.md). */
#include "agentx/agentx.h"
#include "cli/args.h"
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOPT(a) (sizeof(a) / sizeof((a)[0]))

static const char usage[] =
    "usage: infbench agentx <command> [options]\n"
    "\n"
    "AgentX traces (the Weka format of semianalysisai/cc-traces-weka-*):\n"
    "  make-traces  write a deterministic stand-in corpus in the same format\n"
    "  check        parse a corpus (file, folder or cached dataset id) and summarise it\n"
    "  replay       replay a corpus against a server (aiperf's inferencex-agentx-mvp)\n"
    "\n"
    "Run 'infbench agentx <command> --help' for its options; see docs/agentx.md.\n";

/* "N" or "MIN:MAX" */
static bool parse_range(const char *s, ax_range *r)
{
	const char *c = strchr(s, ':');
	if (!c)
		return ib_py_int(s, strlen(s), &r->lo) && (r->hi = r->lo, true);
	return ib_py_int(s, (size_t)(c - s), &r->lo) && ib_py_int(c + 1, strlen(c + 1), &r->hi);
}

static bool parse_frange(const char *s, ax_frange *r)
{
	const char *c = strchr(s, ':');
	if (!c)
		return ib_py_float(s, strlen(s), &r->lo) && (r->hi = r->lo, true);
	return ib_py_float(s, (size_t)(c - s), &r->lo) && ib_py_float(c + 1, strlen(c + 1), &r->hi);
}

static bool parse_num(const char *s, double *out)
{
	return ib_py_float(s, strlen(s), out);
}

#define OPT(n, mv, h)                                                                              \
	{                                                                                          \
		.name = n, .kind = ARG_ONE, .metavar = mv, .help = h                               \
	}

typedef struct {
	const char *name;
	double *x;
} num_opt;

/* The numeric options of list that were given, into their targets: 0, or
 * the usage error's status (printed). */
static int read_nums(arg_parser *p, const num_opt *list, size_t n)
{
	arg_opt *x;
	for (size_t i = 0; i < n; i++)
		if ((x = args_get(p, list[i].name))->seen && !parse_num(x->vals[0], list[i].x))
			return args_error(p, p->prog, "argument %s: invalid number '%s'",
			                  list[i].name, x->vals[0]);
	return 0;
}

/* The generator's parameters from the parsed options into o: 0, or the
 * usage error's status (printed). */
static int read_gen_opts(arg_parser *p, ax_gen_opts *o)
{
	int rc = 0;
	struct {
		const char *name;
		ax_range *r;
	} ranges[] = {{"--turns", &o->turns},         {"--first-in", &o->first_in},
	              {"--context", &o->context},     {"--out", &o->out},
	              {"--subagents", &o->subagents}, {"--subagent-turns", &o->subagent_turns}};
	num_opt nums[] = {{"--long-tail", &o->long_tail},
	                  {"--subagent-rate", &o->subagent_rate},
	                  {"--background-rate", &o->background_rate},
	                  {"--compact-rate", &o->compact_rate},
	                  {"--ttft", &o->ttft_s},
	                  {"--prefill", &o->prefill_s_per_1k},
	                  {"--tpot", &o->tpot_s}};
	struct {
		const char *name;
		int64_t *x;
	} ints[] = {{"--max-context", &o->max_context},
	            {"--block-size", &o->block_size},
	            {"--system-tokens", &o->system_tokens},
	            {"--tool-tokens", &o->tool_tokens}};
	arg_opt *x;
	for (size_t i = 0; !rc && i < NOPT(ranges); i++)
		if ((x = args_get(p, ranges[i].name))->seen &&
		    !parse_range(x->vals[0], ranges[i].r))
			rc = args_error(p, p->prog, "argument %s: expected N or MIN:MAX, got '%s'",
			                ranges[i].name, x->vals[0]);
	if (!rc)
		rc = read_nums(p, nums, NOPT(nums));
	for (size_t i = 0; !rc && i < NOPT(ints); i++)
		if ((x = args_get(p, ints[i].name))->seen &&
		    !ib_py_int(x->vals[0], strlen(x->vals[0]), ints[i].x))
			rc = args_error(p, p->prog, "argument %s: invalid integer '%s'",
			                ints[i].name, x->vals[0]);
	int64_t v;
	if (!rc && (x = args_get(p, "--traces"))->seen) {
		if (!ib_py_int(x->vals[0], strlen(x->vals[0]), &v) || v < 0)
			rc = args_error(p, p->prog, "argument --traces: invalid count '%s'",
			                x->vals[0]);
		else
			o->traces = (size_t)v;
	}
	if (!rc && (x = args_get(p, "--seed"))->seen) {
		if (!ib_py_int(x->vals[0], strlen(x->vals[0]), &v) || v < 0 || v > UINT32_MAX)
			rc = args_error(p, p->prog, "argument --seed: need 0 <= S < 2^32, got '%s'",
			                x->vals[0]);
		else
			o->seed = (uint32_t)v;
	}
	if (!rc && (x = args_get(p, "--think"))->seen && !parse_frange(x->vals[0], &o->think))
		rc = args_error(p, p->prog, "argument --think: expected S or MIN:MAX, got '%s'",
		                x->vals[0]);
	if ((x = args_get(p, "--model"))->seen)
		o->model = x->vals[0];
	if ((x = args_get(p, "--subagent-model"))->seen)
		o->subagent_model = x->vals[0];
	return rc;
}

static int make_traces(int argc, char **argv)
{
	ax_gen_opts o;
	ax_gen_defaults(&o);
	arg_opt opts[] = {
	    {.name = "--help",
	     .alias = "-h",
	     .kind = ARG_FLAG,
	     .help = "show this help message and exit"},
	    {.name = "--output",
	     .alias = "-o",
	     .kind = ARG_ONE,
	     .metavar = "FILE",
	     .help = "write the corpus here (atomically; default: stdout)"},
	    OPT("--traces", "N", "number of traces (default 393)"),
	    OPT("--seed", "S", "seed; trace i depends only on the seed and i (default 42)"),
	    OPT("--turns", "MIN:MAX", "parent turns per trace (default 4:40)"),
	    OPT("--first-in", "MIN:MAX", "input tokens of turn 0 (default 16384:32768)"),
	    OPT("--context", "MIN:MAX",
	        "final context of an ordinary trace, tokens (default 16384:131072)"),
	    OPT("--long-tail", "FRAC",
	        "fraction of traces growing to --max-context instead (default 0.05)"),
	    OPT("--max-context", "TOKENS",
	        "in + out of a request never exceeds it (default 262144)"),
	    OPT("--out", "MIN:MAX", "output tokens per request, log-uniform (default 32:4096)"),
	    OPT("--think", "MIN:MAX", "think time between turns, seconds (default 0.5:8)"),
	    OPT("--subagent-rate", "P", "chance that a parent turn spawns subagents (default 0.1)"),
	    OPT("--subagents", "MIN:MAX", "subagents per spawn (default 1:3)"),
	    OPT("--subagent-turns", "MIN:MAX", "requests per subagent (default 2:12)"),
	    OPT("--background-rate", "P",
	        "chance of background subagents after the last turn (default 0.1)"),
	    OPT("--compact-rate", "P",
	        "chance that a turn compacts the context, shortening the LCP (default 0.01)"),
	    OPT("--block-size", "N", "tokens per hash id (default 64)"),
	    OPT("--system-tokens", "N",
	        "system prompt tokens, shared with subagents (default 3072)"),
	    OPT("--tool-tokens", "N", "tool definition tokens (default 12288)"),
	    OPT("--ttft", "S",
	        "recorded api_time = TTFT + in/1000 * PREFILL + out * TPOT: TTFT (default 0.4)"),
	    OPT("--prefill", "S", "seconds per 1000 input tokens (default 0.02)"),
	    OPT("--tpot", "S", "seconds per output token (default 0.02)"),
	    OPT("--model", "NAME", "the parent's model (default claude-sonnet-4-5)"),
	    OPT("--subagent-model", "NAME", "the subagents' model (default claude-haiku-4-5)"),
	};
	arg_parser p = {
	    .prog = "infbench agentx make-traces",
	    .desc =
	        "Write a deterministic stand-in for the cc-traces-weka corpus: one Weka-format\n"
	        "trace per line (docs/agentx.md describes the shape and every parameter).",
	    .epilog = "Exit status: 0 written; 1 a bad parameter or an unwritable output; 2 usage\n"
	              "errors.",
	    .opts = opts,
	    .nopts = NOPT(opts),
	};
	int rc = args_parse(&p, argc, argv, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? 0 : rc;
	}
	rc = read_gen_opts(&p, &o);
	arg_opt *x;
	const char *out = (x = args_get(&p, "--output"))->seen ? x->vals[0] : NULL;
	if (!rc) {
		ib_error e = {0};
		if (ax_gen_write(&o, out, stdout, &e)) {
			cli_error(p.prog, NULL, &e);
			rc = 1;
		}
	}
	args_free(&p);
	return rc;
}

static int check(int argc, char **argv)
{
	arg_opt opts[] = {
	    {.name = "--help",
	     .alias = "-h",
	     .kind = ARG_FLAG,
	     .help = "show this help message and exit"},
	    OPT("--corpus", "SRC",
	        "a trace file, a folder of them, or a dataset id org/name in the "
	        "local Hugging Face cache (default "
	        "semianalysisai/cc-traces-weka-062126)"),
	};
	arg_parser p = {
	    .prog = "infbench agentx check",
	    .desc = "Parse a Weka-format trace corpus and print a summary (traces, requests,\n"
	            "subagents, background subagents, the largest in + out); the first bad\n"
	            "record is reported with its file, line and field.",
	    .epilog = "Exit status: 0 valid; 1 a bad or missing corpus; 2 usage errors.",
	    .opts = opts,
	    .nopts = NOPT(opts),
	};
	int rc = args_parse(&p, argc, argv, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? 0 : rc;
	}
	arg_opt *x = args_get(&p, "--corpus");
	const char *src = x->seen ? x->vals[0] : "semianalysisai/cc-traces-weka-062126";
	ib_arena *a = ib_arena_new();
	ax_corpus c = {0};
	ib_error e = {0};
	if (!a || ax_corpus_load(a, src, &c, &e)) {
		if (!a)
			ib_fail(&e, IB_ENOMEM, "", 0, 0, "out of memory");
		cli_error(p.prog, NULL, &e);
		ib_arena_free(a);
		args_free(&p);
		return 1;
	}
	size_t req = 0, sub = 0, bg = 0, subreq = 0;
	int64_t maxctx = 0;
	for (size_t i = 0; i < c.n; i++) {
		const ax_trace *t = &c.t[i];
		size_t last_parent = 0;
		for (size_t k = 0; k < t->n; k++)
			if (!t->entries[k].is_subagent)
				last_parent = k;
		for (size_t k = 0; k < t->n; k++) {
			const ax_entry *en = &t->entries[k];
			if (!en->is_subagent) {
				req++;
				if (en->r.in + en->r.out > maxctx)
					maxctx = en->r.in + en->r.out;
				continue;
			}
			sub++, bg += k > last_parent, subreq += en->s.nreq;
			for (size_t q = 0; q < en->s.nreq; q++)
				if (en->s.req[q].in + en->s.req[q].out > maxctx)
					maxctx = en->s.req[q].in + en->s.req[q].out;
		}
	}
	printf("traces: %zu\nparent requests: %zu\nsubagents: %zu (background %zu, requests %zu)\n"
	       "largest in + out: %lld tokens\n",
	       c.n, req, sub, bg, subreq, (long long)maxctx);
	ib_arena_free(a);
	args_free(&p);
	return 0;
}

/* The replay's options from the parsed flags into o: 0, or the usage
 * error's status (printed). */
static int read_replay_opts(arg_parser *p, ax_replay_opts *o)
{
	struct {
		const char *name;
		const char **x;
	} strs[] = {{"--corpus", &o->corpus},       {"--base-url", &o->base_url},
	            {"--endpoint", &o->endpoint},   {"--model", &o->model},
	            {"--tokenizer", &o->tokenizer}, {"--api-key", &o->api_key},
	            {"--output-dir", &o->out_dir},  {"--dataset-name", &o->dataset},
	            {"--ca-cert", &o->ca_cert}};
	num_opt nums[] = {{"--benchmark-duration", &o->duration},
	                  {"--grace-period", &o->grace},
	                  {"--trajectory-start-min-ratio", &o->tstar_lo},
	                  {"--trajectory-start-max-ratio", &o->tstar_hi},
	                  {"--global-idle-cap-seconds", &o->global_idle_cap},
	                  {"--trace-idle-gap-cap-seconds", &o->tree_idle_cap},
	                  {"--request-timeout", &o->request_timeout}};
	arg_opt *x;
	int rc = 0;
	for (size_t i = 0; i < NOPT(strs); i++)
		if ((x = args_get(p, strs[i].name))->seen)
			*strs[i].x = x->vals[0];
	if (!rc)
		rc = read_nums(p, nums, NOPT(nums));
	struct {
		const char *name;
		int64_t lo, hi, v;
	} ints[] = {{"--concurrency", 1, 65536, (int64_t)o->concurrency},
	            {"--random-seed", 0, UINT32_MAX, o->seed},
	            {"--warmup-requests-per-lane", 0, 1000000, (int64_t)o->warmup_per_lane},
	            {"--max-context-length", 0, INT64_MAX, o->max_context}};
	for (size_t i = 0; !rc && i < NOPT(ints); i++) {
		if (!(x = args_get(p, ints[i].name))->seen)
			continue;
		if (!ib_py_int(x->vals[0], strlen(x->vals[0]), &ints[i].v) ||
		    ints[i].v < ints[i].lo || ints[i].v > ints[i].hi)
			rc = args_error(
			    p, p->prog, "argument %s: need an integer in %lld..%lld, got '%s'",
			    ints[i].name, (long long)ints[i].lo, (long long)ints[i].hi, x->vals[0]);
	}
	o->insecure = args_get(p, "--insecure")->seen;
	o->dynamo_session = args_get(p, "--dynamo-session-header")->seen;
	o->concurrency = (size_t)ints[0].v, o->seed = (uint32_t)ints[1].v;
	o->warmup_per_lane = (size_t)ints[2].v, o->max_context = ints[3].v;
	if ((x = args_get(p, "--env"))->seen) {
		for (size_t i = 0; !rc && i < x->nvals; i++)
			if (!strchr(x->vals[i], '=') || x->vals[i][0] == '=' ||
			    strchr(x->vals[i], '\n'))
				rc = args_error(p, p->prog,
				                "argument --env: need KEY=VALUE, got '%s'",
				                x->vals[i]);
		o->env = x->vals, o->nenv = x->nvals;
	}
	return rc;
}

static int replay(int argc, char **argv)
{
	ax_replay_opts o;
	ax_replay_defaults(&o);
	arg_opt opts[] = {
	    {.name = "--help",
	     .alias = "-h",
	     .kind = ARG_FLAG,
	     .help = "show this help message and exit"},
	    OPT("--corpus", "SRC",
	        "a trace file, a folder of them, or a dataset id in the local "
	        "Hugging Face cache (required)"),
	    OPT("--base-url", "URL", "the server, http[s]://host:port (required)"),
	    OPT("--ca-cert", "FILE", "https: trust this PEM CA (default: the system store)"),
	    {.name = "--insecure",
	     .kind = ARG_FLAG,
	     .help = "https: do not verify the server's certificate"},
	    OPT("--endpoint", "PATH", "default /v1/chat/completions"),
	    OPT("--model", "NAME",
	        "the served model (JSON \"model\"; the tokenizer by default; required)"),
	    OPT("--tokenizer", "PATH",
	        "a tokenizer folder, tokenizer.json or HF id (default: --model)"),
	    OPT("--api-key", "KEY", "sent as Authorization: Bearer KEY"),
	    OPT("--concurrency", "N", "lanes: conversation trees replayed at once (default 1)"),
	    OPT("--benchmark-duration", "S",
	        "profiling seconds, model time on a time-scaled "
	        "server (default 3600)"),
	    OPT("--grace-period", "S",
	        "seconds in-flight requests may finish after it (default 30)"),
	    OPT("--random-seed", "N", "trace order, t* draws, cache-bust markers (default 42)"),
	    OPT("--warmup-requests-per-lane", "N", "1-token warmup requests per lane (default 10)"),
	    OPT("--trajectory-start-min-ratio", "F", "t* lower bound (default 0.25)"),
	    OPT("--trajectory-start-max-ratio", "F", "t* upper bound (default 0.75)"),
	    OPT("--global-idle-cap-seconds", "S", "whole-system idle cap (default 10)"),
	    OPT("--trace-idle-gap-cap-seconds", "S", "per-tree idle cap (default 300)"),
	    OPT("--max-context-length", "TOKENS",
	        "drop traces with a request whose in + out "
	        "exceeds it (default: none)"),
	    OPT("--request-timeout", "S", "seconds a request may take (default 1800)"),
	    {.name = "--dynamo-session-header",
	     .kind = ARG_FLAG,
	     .help = "send X-Dynamo-Session-ID (one id per conversation) for a router's "
	             "session affinity"},
	    OPT("--output-dir", "DIR", "write DIR/aiperf_artifacts/ and DIR/env (default .)"),
	    OPT("--dataset-name", "NAME", "the dataset named in the aggregate (default: --corpus)"),
	    {.name = "--env",
	     .kind = ARG_MANY,
	     .metavar = "KEY=VALUE",
	     .help = "lines for DIR/env, the environment of the processing"},
	    CLI_TOK_CACHE_OPT,
	};
	arg_parser p = {
	    .prog = "infbench agentx replay",
	    .desc = "Replay a Weka-format trace corpus against an OpenAI-compatible server, as\n"
	            "InferenceX runs aiperf --scenario inferencex-agentx-mvp, and write aiperf's\n"
	            "artifacts for 'infbench agentic process' (docs/agentx.md).",
	    .epilog = "Exit status: 0 the replay ran and its artifacts were written; 1 a bad\n"
	              "option, corpus or tokenizer, an unreachable server or an unwritable\n"
	              "output; 2 usage errors.",
	    .opts = opts,
	    .nopts = NOPT(opts),
	};
	int rc = args_parse(&p, argc, argv, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? 0 : rc;
	}
	rc = read_replay_opts(&p, &o);
	if (!rc && args_get(&p, "--tok-cache")->seen)
		rc = cli_tok_cache(p.prog, args_get(&p, "--tok-cache")->vals[0]);
	if (!rc) {
		ib_error e = {0};
		ax_replay_outcome out;
		if (ax_replay(&o, cli_log_line, NULL, &out, &e)) {
			cli_error(p.prog, NULL, &e);
			rc = 1;
		}
	}
	args_free(&p);
	return rc;
}

int cmd_agentx(int argc, char **argv)
{
	static const cli_sub subs[] = {
	    {"make-traces", make_traces},
	    {"check", check},
	    {"replay", replay},
	};
	return cli_dispatch("infbench agentx", usage, subs, NOPT(subs), argc, argv);
}
