/* infbench sweep: one command from an endpoint to a report (docs/sweep.md):
 * flags -> run_sweep -> exit status. */
#include "cli/args.h"
#include "cli/cli.h"
#include "run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const arg_opt flags[] = {
    {.name = "--help", .alias = "-h", .kind = ARG_FLAG, .help = "show this help message and exit"},
    {.name = "--base-url",
     .kind = ARG_ONE,
     .required = true,
     .metavar = "URL",
     .help = "the server (http://host:port or https://...)"},
    {.name = "--model",
     .kind = ARG_ONE,
     .required = true,
     .metavar = "NAME",
     .help = "the served model"},
    {.name = "--tokenizer",
     .kind = ARG_ONE,
     .metavar = "DIR",
     .help = "tokenizer folder or Hugging Face id in the local cache (default: --model)"},
    {.name = "--results",
     .kind = ARG_ONE,
     .required = true,
     .metavar = "DIR",
     .help = "results folder (created): raw results, agg rows, report.html"},
    {.name = "--concurrencies",
     .kind = ARG_ONE,
     .metavar = "LIST",
     .help = "comma list (default 1,4,16,64)"},
    {.name = "--request-rates",
     .kind = ARG_ONE,
     .metavar = "LIST",
     .help = "comma list of request rates, each run at every concurrency (default inf)"},
    {.name = "--random-input-len",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "default 1024"},
    {.name = "--random-output-len",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "default 1024"},
    {.name = "--random-range-ratio",
     .kind = ARG_ONE,
     .metavar = "R",
     .help = "default 0.8 (InferenceX's)"},
    {.name = "--seed", .kind = ARG_ONE, .is_int = true, .metavar = "N", .help = "default 0"},
    {.name = "--prompts-per-conc",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "num-prompts = N x concurrency (default 10)"},
    {.name = "--warmups-per-conc",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "num-warmups = N x concurrency (default 2; 0: none)"},
    {.name = "--backend", .kind = ARG_ONE, .metavar = "B", .help = "as bench's (default vllm)"},
    {.name = "--endpoint",
     .kind = ARG_ONE,
     .metavar = "PATH",
     .help = "as bench's (default /v1/completions)"},
    {.name = "--use-chat-template", .kind = ARG_FLAG, .help = "wrap prompts in the chat template"},
    {.name = "--hw",
     .kind = ARG_ONE,
     .metavar = "GPU",
     .help = "GPU label of the rows (default h100)"},
    {.name = "--gpus",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "GPUs serving the model (per-GPU figures; default 1)"},
    {.name = "--framework", .kind = ARG_ONE, .metavar = "F", .help = "label (default unknown)"},
    {.name = "--precision", .kind = ARG_ONE, .metavar = "P", .help = "label (default unknown)"},
    {.name = "--model-prefix",
     .kind = ARG_ONE,
     .metavar = "M",
     .help = "model label (default: the model name after its last '/', lower case)"},
    {.name = "--title", .kind = ARG_ONE, .metavar = "TEXT", .help = "the report's title"},
    {.name = "--force",
     .kind = ARG_FLAG,
     .help = "run every point again (default: reuse finished ones)"},
    {.name = "--disable-tqdm", .kind = ARG_FLAG, .help = "no progress line"},
};

/* the client's lines all go to stderr (stdout is the sweep's), the
 * progress line redrawn in place */
static void to_err(void *arg, int stream, const char *text)
{
	(void)arg;
	if (stream != IB_LOG_PROGRESS)
		fputs(text, stderr);
	else
		cli_progress_line(NULL, text);
}

static void note(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "%s\n", line);
}

/* a comma list into strings (pointing into a copy kept by the caller) */
static size_t split(char *s, const char **out, size_t cap)
{
	size_t n = 0;
	for (char *t = strtok(s, ","); t && n < cap; t = strtok(NULL, ","))
		out[n++] = t;
	return n;
}

/* The points' concurrencies (cs[0..nc) into concs), request rates and
 * --random-range-ratio checked: 0, or the usage error's status (printed). */
static int parse_points(arg_parser *p, const char *const *cs, size_t nc, size_t *concs,
                        const char *const *rs, size_t nr, double *ratio)
{
	for (size_t i = 0; i < nc; i++) {
		int64_t v;
		if (!args_parse_int(cs[i], &v) || v <= 0) {
			return args_error(p, "infbench sweep",
			                  "argument --concurrencies: not a positive integer: '%s'",
			                  cs[i]);
		}
		concs[i] = (size_t)v;
	}
	for (size_t i = 0; i < nr; i++) {
		char *end;
		double x = strtod(rs[i], &end);
		if (strcmp(rs[i], "inf") && (*end || end == rs[i] || !(x > 0))) {
			return args_error(p, "infbench sweep",
			                  "argument --request-rates: not 'inf' or a rate > 0: '%s'",
			                  rs[i]);
		}
	}
	const arg_opt *ro = args_get(p, "--random-range-ratio");
	const char *rr = ro->seen ? ro->vals[0] : "0.8";
	char *rend;
	*ratio = strtod(rr, &rend);
	if (*rend || rend == rr || *ratio < 0 || *ratio > 1) {
		return args_error(
		    p, "infbench sweep",
		    "argument --random-range-ratio: a number in [0, 1] is needed: '%s'", rr);
	}
	return 0;
}

int cmd_sweep(int argc, char **argv)
{
	arg_opt opts[N(flags)];
	memcpy(opts, flags, sizeof flags);
	arg_parser p = {
	    .prog = "infbench sweep",
	    .top = "infbench sweep",
	    .desc =
	        "Benchmarks one OpenAI-compatible endpoint at several concurrencies (and request\n"
	        "rates), turns each result into an agg row and writes DIR/report.html. Finished\n"
	        "points are reused when the command is run again.",
	    .epilog = "Exit status: 0; 1 when a point failed or no report could be written;\n"
	              "2 on a usage error. See docs/sweep.md.",
	    .opts = opts,
	    .nopts = N(opts),
	};
	int rc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? 0 : rc;
	}
#define STR(n, d) (args_get(&p, n)->seen ? args_get(&p, n)->vals[0] : (d))
#define INT(n, d) (args_get(&p, n)->seen ? args_get(&p, n)->ivals[0] : (d))
	char concs_text[1024], rates_text[1024];
	snprintf(concs_text, sizeof concs_text, "%s", STR("--concurrencies", "1,4,16,64"));
	snprintf(rates_text, sizeof rates_text, "%s", STR("--request-rates", "inf"));
	const char *cs[64], *rs[64];
	size_t nc = split(concs_text, cs, N(cs)), nr = split(rates_text, rs, N(rs));
	size_t concs[64];
	double ratio = 0;
	if ((rc = parse_points(&p, cs, nc, concs, rs, nr, &ratio))) {
		args_free(&p);
		return rc;
	}
	bool tty = !args_get(&p, "--disable-tqdm")->seen && isatty(2);
	bench_log log = {.fn = to_err, .with_progress = tty};
	run_sweep_opts o = {
	    .base_url = STR("--base-url", NULL),
	    .model = STR("--model", NULL),
	    .tokenizer = STR("--tokenizer", NULL),
	    .backend = STR("--backend", NULL),
	    .endpoint = STR("--endpoint", NULL),
	    .results = STR("--results", NULL),
	    .concs = concs,
	    .nconcs = nc,
	    .rates = rs,
	    .nrates = nr,
	    .input_len = INT("--random-input-len", 1024),
	    .output_len = INT("--random-output-len", 1024),
	    .range_ratio = ratio,
	    .seed = INT("--seed", 0),
	    .prompts_per_conc = (int)INT("--prompts-per-conc", 10),
	    .warmups_per_conc =
	        INT("--warmups-per-conc", 2) == 0 ? -1 : (int)INT("--warmups-per-conc", 2),
	    .use_chat_template = args_get(&p, "--use-chat-template")->seen,
	    .labels = {.hw = STR("--hw", NULL),
	               .framework = STR("--framework", NULL),
	               .precision = STR("--precision", NULL),
	               .model_prefix = STR("--model-prefix", NULL),
	               .gpus = INT("--gpus", 1),
	               .isl = INT("--random-input-len", 1024),
	               .osl = INT("--random-output-len", 1024)},
	    .title = STR("--title", NULL),
	    .force = args_get(&p, "--force")->seen,
	    .log = &log,
	    .note = note,
	};
#undef STR
#undef INT
	run_sweep_summary sum;
	ib_error e = {0};
	rc = run_sweep(&o, &sum, &e);
	args_free(&p);
	if (rc) {
		cli_error("infbench sweep", NULL, &e);
		return 1;
	}
	fprintf(
	    stderr,
	    "infbench sweep: %zu points (%zu run, %zu reused, %zu failed), %zu drawn%s; wrote %s\n",
	    sum.points, sum.ran, sum.reused, sum.failed, sum.drawn,
	    sum.simulated ? " (simulated: the server is infbench sim)" : "", sum.report);
	return sum.failed ? 1 : 0;
}
