/* infbench matrix {full-sweep|test-config}: a drop-in for the reference's
 * generate_sweep_configs.py (docs/matrix.md). */
#include "cli/args.h"
#include "cli/cli.h"
#include "matrix/matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof(a)[0])

static const char *const seq_choices[] = {"1k1k", "8k1k", NULL};
static const char *const scen_choices[] = {"fixed-seq-len", "agentic-coding", NULL};
static const char *const excl[][2] = {{"--no-evals", "--evals-only"}, {NULL, NULL}};

static const char matrix_help[] =
    "usage: infbench matrix {full-sweep,test-config} ...\n"
    "\n"
    "Expand master configs into the benchmark sweep matrix (JSON on stdout),\n"
    "byte-compatible with InferenceX's generate_sweep_configs.py.\n"
    "\n"
    "subcommands:\n"
    "  full-sweep   every config, with optional filters (model prefix, precision,\n"
    "               framework, runner type, seq lens, concurrency window, TP/EP caps)\n"
    "  test-config  the given config keys (or glob patterns), fully expanded\n"
    "\n"
    "Run 'infbench matrix <subcommand> --help' for the options. See docs/matrix.md.\n";

#define COMMON_OPTS                                                                                \
	{.name = "--config-files",                                                                 \
	 .kind = ARG_MANY,                                                                         \
	 .required = true,                                                                         \
	 .metavar = "FILE",                                                                        \
	 .help = "master config files (YAML), merged in order"},                                   \
	    {.name = "--runner-config",                                                            \
	     .kind = ARG_ONE,                                                                      \
	     .metavar = "FILE",                                                                    \
	     .help = "runners file (default: configs/runners.yaml)"},                              \
	    {.name = "--no-evals",                                                                 \
	     .kind = ARG_FLAG,                                                                     \
	     .help = "skip eval marking (throughput only)"},                                       \
	    {.name = "--evals-only", .kind = ARG_FLAG, .help = "keep only the eval rows"},         \
	    {.name = "--all-evals",                                                                \
	     .kind = ARG_FLAG,                                                                     \
	     .help = "evaluate every 8k1k/agentic row (implies eval-only output)"},                \
	    {.name = "--runner-node-filter",                                                       \
	     .kind = ARG_ONE,                                                                      \
	     .metavar = "SUBSTRING",                                                               \
	     .help = "expand rows to the runner nodes whose name contains SUBSTRING"},             \
	    {.name = "--scenario-type",                                                            \
	     .kind = ARG_MANY,                                                                     \
	     .choices = scen_choices,                                                              \
	     .metavar = "TYPE",                                                                    \
	     .help = "scenario types to include: fixed-seq-len, agentic-coding (default: all)"},   \
	    {.name = "--gha",                                                                      \
	     .kind = ARG_FLAG,                                                                     \
	     .help = "GitHub Actions step outputs: one FAMILY=<json list> line per job family of " \
	             "InferenceX's workflows, appended to $GITHUB_OUTPUT when set (infbench "      \
	             "extension)"},                                                                \
	{                                                                                          \
		.name = "--output", .kind = ARG_ONE, .metavar = "FILE",                            \
		.help = "write the JSON to FILE atomically instead of stdout (infbench extension)" \
	}

static void opt_strs(arg_opt *o, mx_strs *out)
{
	if (o && o->seen) {
		out->v = o->vals;
		out->n = o->nvals;
	}
}

/* --gha: the job families as FAMILY=<json> lines, to --output FILE
 * (atomically), else appended to $GITHUB_OUTPUT, else stdout. */
static int emit_gha(ib_arena *a, const char *path, const ib_val *rows)
{
	ib_val *fam = NULL;
	ib_buf b = {0};
	ib_error e = {0};
	ib_json_opts jo = IB_JSON_PYTHON;
	int rc = mx_gha_families(a, rows, &fam);
	for (size_t i = 0; !rc && i < fam->map.n; i++) {
		rc = ib_buf_printf(&b, "%s=", fam->map.kv[i].key->str.s) ? IB_ENOMEM : 0;
		if (!rc)
			rc = ib_json_write(&b, fam->map.kv[i].val, &jo, &e);
		if (!rc && ib_buf_putc(&b, '\n'))
			rc = IB_ENOMEM;
	}
	const char *gh = getenv("GITHUB_OUTPUT");
	if (!rc && path) {
		rc = ib_buf_write_file(path, &b, &e);
	} else if (!rc && gh && *gh) {
		FILE *f = fopen(gh, "a");
		if (!f || fwrite(b.data, 1, b.len, f) != b.len || fclose(f) != 0) {
			if (f)
				fclose(f);
			rc = ib_fail(&e, IB_EIO, gh, 0, 0,
			             "cannot append the outputs to $GITHUB_OUTPUT");
		}
	} else if (!rc) {
		rc = ib_buf_write_to(stdout, "standard output", &b, &e);
	}
	ib_buf_free(&b);
	if (rc) {
		if (!e.msg[0])
			ib_fail(&e, rc, NULL, 0, 0, "out of memory");
		cli_error("infbench matrix", "--gha", &e);
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* The options of each subcommand (copied: parsing fills them in). */
static const arg_opt full_flags[] = {
    COMMON_OPTS,
    {.name = "--model-prefix",
     .kind = ARG_MANY,
     .metavar = "PREFIX",
     .help = "keep config keys starting with any PREFIX"},
    {.name = "--precision", .kind = ARG_MANY, .metavar = "P", .help = "keep these precisions"},
    {.name = "--framework", .kind = ARG_MANY, .metavar = "F", .help = "keep these frameworks"},
    {.name = "--runner-type",
     .kind = ARG_MANY,
     .metavar = "LABEL",
     .help = "keep configs whose runner is one of these labels"},
    {.name = "--seq-lens",
     .kind = ARG_MANY,
     .choices = seq_choices,
     .metavar = "SEQ",
     .help = "keep 1k1k and/or 8k1k (other lengths are dropped when given)"},
    {.name = "--step-size",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "concurrency multiplier for ranges (default 2)"},
    {.name = "--min-conc",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "lowest concurrency to include"},
    {.name = "--max-conc",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "highest concurrency to include"},
    {.name = "--max-tp",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "skip single-node entries with tp > N"},
    {.name = "--max-ep",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "clamp single-node ep to N"},
    {.name = "--single-node", .kind = ARG_FLAG, .help = "single-node configs only"},
    {.name = "--multi-node", .kind = ARG_FLAG, .help = "multinode configs only"},
    {.name = "--help", .alias = "-h", .kind = ARG_FLAG, .help = "show this help and exit"},
};
static const arg_opt tc_flags[] = {
    COMMON_OPTS,
    {.name = "--config-keys",
     .kind = ARG_MANY,
     .required = true,
     .metavar = "KEY",
     .help = "config keys or glob patterns (* ? [seq]), in the order given"},
    {.name = "--conc",
     .kind = ARG_MANY,
     .is_int = true,
     .metavar = "N",
     .help = "keep only these concurrencies"},
    {.name = "--seq-lens",
     .kind = ARG_MANY,
     .choices = seq_choices,
     .metavar = "SEQ",
     .help = "keep 1k1k and/or 8k1k"},
    {.name = "--help", .alias = "-h", .kind = ARG_FLAG, .help = "show this help and exit"},
};

/* The parsed flags into *o; 0, or a usage error's status. */
static int matrix_opts(arg_parser *p, bool full, mx_opts *op)
{
	mx_opts o;
	mx_opts_init(&o, full);
	o.no_evals = args_get(p, "--no-evals")->seen;
	o.evals_only = args_get(p, "--evals-only")->seen;
	o.all_evals = args_get(p, "--all-evals")->seen;
	arg_opt *f = args_get(p, "--runner-node-filter");
	o.runner_node_filter = f->seen ? f->vals[0] : NULL;
	arg_opt *st = args_get(p, "--scenario-type");
	if (st->seen) {
		o.want_fixed = o.want_agentic = false;
		for (size_t i = 0; i < st->nvals; i++) {
			if (!strcmp(st->vals[i], "fixed-seq-len"))
				o.want_fixed = true;
			else
				o.want_agentic = true;
		}
	}
	arg_opt *sl = args_get(p, "--seq-lens");
	if (sl->seen) {
		o.have_seq_lens = true;
		for (size_t i = 0; i < sl->nvals; i++) {
			if (!strcmp(sl->vals[i], "1k1k"))
				o.seq_1k1k = true;
			else
				o.seq_8k1k = true;
		}
	}
	if (full) {
		opt_strs(args_get(p, "--model-prefix"), &o.model_prefix);
		opt_strs(args_get(p, "--precision"), &o.precision);
		opt_strs(args_get(p, "--framework"), &o.framework);
		opt_strs(args_get(p, "--runner-type"), &o.runner_type);
		arg_opt *x;
		if ((x = args_get(p, "--step-size"))->seen)
			o.step_size = x->ivals[0];
		if ((o.has_min_conc = (x = args_get(p, "--min-conc"))->seen))
			o.min_conc = x->ivals[0];
		if ((o.has_max_conc = (x = args_get(p, "--max-conc"))->seen))
			o.max_conc = x->ivals[0];
		if ((o.has_max_tp = (x = args_get(p, "--max-tp"))->seen))
			o.max_tp = x->ivals[0];
		if ((o.has_max_ep = (x = args_get(p, "--max-ep"))->seen))
			o.max_ep = x->ivals[0];
		bool sn = args_get(p, "--single-node")->seen,
		     mn = args_get(p, "--multi-node")->seen;
		if (sn || mn) {
			o.single_node = sn;
			o.multi_node = mn;
		}
		if (o.step_size <= 1)
			return args_error(p, "infbench matrix",
			                  "--step-size must be greater than 1");
		if (o.has_min_conc && o.has_max_conc && o.min_conc > o.max_conc)
			return args_error(p, "infbench matrix",
			                  "--min-conc must be less than or equal to --max-conc");
	} else {
		opt_strs(args_get(p, "--config-keys"), &o.config_keys);
		arg_opt *c = args_get(p, "--conc");
		if (c->seen) {
			o.conc = c->ivals;
			o.nconc = c->nvals;
		}
	}
	if (o.no_evals && o.all_evals)
		return args_error(p, "infbench matrix",
		                  "--all-evals cannot be combined with --no-evals");
	*op = o;
	return 0;
}

static int run(arg_parser *p, bool full)
{
	mx_opts o;
	int usage = matrix_opts(p, full, &o);
	if (usage)
		return usage;
	arg_opt *cf = args_get(p, "--config-files"), *rc_opt = args_get(p, "--runner-config");
	const char *runner_path = rc_opt->seen ? rc_opt->vals[0] : "configs/runners.yaml";
	arg_opt *out = args_get(p, "--output");
	ib_arena *a = ib_arena_new();
	if (!a) {
		fprintf(stderr, "infbench matrix: error: out of memory\n");
		return CLI_FAIL;
	}
	int status = CLI_FAIL;
	ib_diags d = {.a = a};
	ib_val *master = NULL, *runners = NULL, *rows = NULL;
	int rc = cfg_load_master(a, cf->vals, cf->nvals, &master, &d);
	if (rc == 0)
		rc = cfg_load_runners(a, runner_path, &runners, &d);
	if (rc) {
		cli_print_diags(&d);
		if (rc == IB_ENOMEM)
			fprintf(stderr, "infbench matrix: error: out of memory\n");
		else
			fprintf(stderr,
			        "infbench matrix: %zu problem%s found; no matrix generated\n", d.n,
			        d.n == 1 ? "" : "s");
		goto done;
	}
	ib_error e = {0};
	if (mx_generate(a, &o, master, runners, &rows, &e)) {
		cli_error("infbench matrix", NULL, &e);
		goto done;
	}
	if (args_get(p, "--gha")->seen)
		status = emit_gha(a, out->seen ? out->vals[0] : NULL, rows);
	else
		status = cli_emit_json(out->seen ? out->vals[0] : NULL, rows);
done:
	ib_arena_free(a);
	return status;
}

int cmd_matrix(int argc, char **argv)
{
	/* argv[0] is "matrix"; find the subcommand like argparse's top parser:
	 * option-like tokens before it are set aside as unrecognized. */
	const char *extra[64];
	size_t nextra = 0;
	int sub = -1;
	for (int i = 1; i < argc; i++) {
		const char *t = argv[i];
		if (!strcmp(t, "-h") || (strlen(t) >= 3 && !strncmp("--help", t, strlen(t)))) {
			fputs(matrix_help, stdout);
			return CLI_OK;
		}
		if (t[0] == '-' && t[1]) {
			if (nextra < N(extra))
				extra[nextra++] = t;
			continue;
		}
		sub = i;
		break;
	}
	arg_parser top = {.prog = "infbench matrix"};
	if (sub < 0) {
		fputs("usage: infbench matrix {full-sweep,test-config} ...\n", stderr);
		fprintf(stderr,
		        "infbench matrix: error: the following arguments are required: command\n");
		return CLI_USAGE;
	}
	bool full = !strcmp(argv[sub], "full-sweep");
	if (!full && strcmp(argv[sub], "test-config") != 0) {
		fputs("usage: infbench matrix {full-sweep,test-config} ...\n", stderr);
		fprintf(
		    stderr,
		    "infbench matrix: error: argument command: invalid choice: '%s' (choose from "
		    "'full-sweep', 'test-config')\n",
		    argv[sub]);
		return CLI_USAGE;
	}
	(void)top;
	arg_opt full_opts[N(full_flags)], tc_opts[N(tc_flags)];
	memcpy(full_opts, full_flags, sizeof full_flags);
	memcpy(tc_opts, tc_flags, sizeof tc_flags);
	arg_parser p = {
	    .prog = full ? "infbench matrix full-sweep" : "infbench matrix test-config",
	    .top = "infbench matrix",
	    .desc = full ? "Generate the sweep matrix of every config, with optional filters."
	                 : "Generate the full sweep of the given config keys.",
	    .epilog = "Prints the matrix as one JSON array on stdout. See docs/matrix.md.",
	    .opts = full ? full_opts : tc_opts,
	    .nopts = full ? N(full_opts) : N(tc_opts),
	    .exclusive = excl,
	};
	int rc = args_parse(&p, argc - sub - 1, argv + sub + 1, extra, nextra);
	if (rc == 1)
		rc = 0;
	else if (rc == 0)
		rc = run(&p, full);
	args_free(&p);
	return rc;
}
