/* infbench changelog {process,validate,gate,ci-priority}: drop-ins for the
 * reference's process_changelog.py, validate_perf_changelog.py and
 * ci_priority.py, plus the byte-level append-only gate (docs/changelog.md). */
#include "changelog/changelog.h"
#include "cli/args.h"
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof(a)[0])

static const char usage[] =
    "usage: infbench changelog {process,validate,gate,ci-priority} ...\n"
    "\n"
    "The perf-changelog tooling, byte-compatible with InferenceX's utils/ scripts.\n"
    "Run in the repository root (git is read through the `git` program).\n"
    "\n"
    "subcommands:\n"
    "  process      the changelog entries added between two refs -> the sweep matrix\n"
    "               (process_changelog.py)\n"
    "  validate     final newline at the head ref, and the diff accepted by process\n"
    "               (validate_perf_changelog.py)\n"
    "  gate         the append-only contract: history byte-identical, entries appended\n"
    "               after one empty line, canonical pr-links (infbench extension)\n"
    "  ci-priority  add priority, queue-token and skip-queue-pr to every job of a matrix\n"
    "               (ci_priority.py)\n"
    "\n"
    "Run 'infbench changelog <subcommand> --help' for the options. See docs/changelog.md.\n";

#define HELP_OPT                                                                                   \
	{                                                                                          \
		.name = "--help", .alias = "-h", .kind = ARG_FLAG,                                 \
		.help = "show this help and exit"                                                  \
	}

#define REF_OPTS                                                                                   \
	{.name = "--base-ref",                                                                     \
	 .kind = ARG_ONE,                                                                          \
	 .required = true,                                                                         \
	 .metavar = "REF",                                                                         \
	 .help = "the revision the change starts from"},                                           \
	{                                                                                          \
		.name = "--head-ref", .kind = ARG_ONE, .required = true, .metavar = "REF",         \
		.help = "the revision with the new changelog entries"                              \
	}

#define EVAL_OPTS                                                                                  \
	{.name = "--all-evals",                                                                    \
	 .kind = ARG_FLAG,                                                                         \
	 .help = "expand every entry's eval selection (throughput unchanged)"},                    \
	{                                                                                          \
		.name = "--evals-only", .kind = ARG_FLAG,                                          \
		.help = "suppress throughput for every entry"                                      \
	}

#define INPUT_OPTS                                                                                 \
	{.name = "--config-files",                                                                 \
	 .kind = ARG_MANY,                                                                         \
	 .metavar = "FILE",                                                                        \
	 .help = "master configs (default: configs/amd-master.yaml configs/nvidia-master.yaml; "   \
	         "infbench extension)"},                                                           \
	{                                                                                          \
		.name = "--runner-config", .kind = ARG_ONE, .metavar = "FILE",                     \
		.help = "runners file (default: configs/runners.yaml; infbench extension)"         \
	}

static void fill(arg_parser *p, clog_opts *o)
{
	*o = (clog_opts){0};
	o->base_ref = args_get(p, "--base-ref")->vals[0];
	o->head_ref = args_get(p, "--head-ref")->vals[0];
	arg_opt *x = args_get(p, "--changelog-file");
	o->changelog_file = x->seen ? x->vals[0] : "perf-changelog.yaml";
	o->all_evals = args_get(p, "--all-evals")->seen;
	o->evals_only = args_get(p, "--evals-only")->seen;
	if ((x = args_get(p, "--trim-conc")))
		o->trim_conc = x->seen;
	if ((x = args_get(p, "--config-files")) && x->seen) {
		o->config_files = x->vals;
		o->nconfig_files = x->nvals;
	}
	if ((x = args_get(p, "--runner-config")) && x->seen)
		o->runner_config = x->vals[0];
}

static int report(const char *prog, int rc, const ib_error *e, const ib_diags *d)
{
	if (d && d->n)
		cli_print_diags(d);
	if (rc == IB_ENOMEM)
		fprintf(stderr, "%s: error: out of memory\n", prog);
	else
		cli_error(prog, NULL, e);
	return CLI_FAIL;
}

static int cl_process(int argc, char **argv)
{
	arg_opt opts[] = {
	    HELP_OPT,
	    REF_OPTS,
	    {.name = "--changelog-file",
	     .kind = ARG_ONE,
	     .required = true,
	     .metavar = "PATH",
	     .help = "the changelog, relative to the repository root"},
	    {.name = "--trim-conc",
	     .kind = ARG_FLAG,
	     .help = "keep only the lowest concurrency of each recipe"},
	    EVAL_OPTS,
	    INPUT_OPTS,
	    {.name = "--output",
	     .kind = ARG_ONE,
	     .metavar = "FILE",
	     .help = "write the matrix to FILE atomically instead of stdout (infbench extension)"},
	};
	arg_parser p = {.prog = "infbench changelog process",
	                .desc = "The sweep matrix of the changelog entries added between two refs "
	                        "(process_changelog.py). Master configs are read from the working "
	                        "tree.",
	                .opts = opts,
	                .nopts = N(opts)};
	int prc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (prc) {
		args_free(&p);
		return prc == 1 ? CLI_OK : CLI_USAGE;
	}
	clog_opts o;
	fill(&p, &o);
	arg_opt *out = args_get(&p, "--output");
	ib_arena *a = ib_arena_new();
	int status = CLI_FAIL;
	if (!a) {
		fprintf(stderr, "%s: error: out of memory\n", p.prog);
		goto done;
	}
	ib_diags d = {.a = a};
	ib_error e = {0};
	ib_val *m;
	int rc = clog_process(a, &o, &m, &d, &e);
	if (rc) {
		status = report(p.prog, rc, &e, &d);
		goto done;
	}
	ib_buf text = {0};
	if ((rc = clog_write_matrix(&text, m, &e)) && !ib_buf_error(&text))
		status = report(p.prog, rc, &e, NULL);
	else /* a buffer error is reported naming the output */
		status = cli_emit(p.prog, out->seen ? out->vals[0] : NULL, &text);
	ib_buf_free(&text);
done:
	ib_arena_free(a);
	args_free(&p);
	return status;
}

static int cl_validate(int argc, char **argv)
{
	arg_opt opts[] = {
	    HELP_OPT,
	    REF_OPTS,
	    {.name = "--changelog-file",
	     .kind = ARG_ONE,
	     .metavar = "PATH",
	     .help = "the changelog (default: perf-changelog.yaml)"},
	    EVAL_OPTS,
	    INPUT_OPTS,
	};
	arg_parser p = {.prog = "infbench changelog validate",
	                .desc = "Check that the changelog at the head ref ends with a newline and "
	                        "that process accepts the diff (validate_perf_changelog.py).",
	                .opts = opts,
	                .nopts = N(opts)};
	int prc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (prc) {
		args_free(&p);
		return prc == 1 ? CLI_OK : CLI_USAGE;
	}
	clog_opts o;
	fill(&p, &o);
	ib_arena *a = ib_arena_new();
	int status = CLI_FAIL;
	if (a) {
		ib_diags d = {.a = a};
		ib_error e = {0};
		int rc = clog_validate(a, &o, &d, &e);
		if (rc) {
			if (d.n)
				cli_print_diags(&d);
			char msg[2700];
			ib_error_format(&e, msg, sizeof msg);
			fprintf(stderr, "ERROR: %s\n", rc == IB_ENOMEM ? "out of memory" : msg);
		} else {
			printf("Validated %s: final newline present and matrix generated\n",
			       o.changelog_file);
			status = fflush(stdout) ? 1 : 0;
		}
	}
	ib_arena_free(a);
	args_free(&p);
	return status;
}

static int cl_gate(int argc, char **argv)
{
	arg_opt opts[] = {
	    HELP_OPT,
	    REF_OPTS,
	    {.name = "--changelog-file",
	     .kind = ARG_ONE,
	     .metavar = "PATH",
	     .help = "the changelog (default: perf-changelog.yaml)"},
	    {.name = "--pr-number",
	     .kind = ARG_ONE,
	     .is_int = true,
	     .metavar = "N",
	     .help = "the pull request being checked (allows its link or an XXX placeholder); "
	             "without it new entries need a canonical pr-link"},
	    {.name = "--repo",
	     .kind = ARG_ONE,
	     .metavar = "DIR",
	     .help = "the git repository (default: the current folder)"},
	};
	arg_parser p = {.prog = "infbench changelog gate",
	                .desc = "The append-only contract of perf-changelog.yaml between two refs: "
	                        "existing entries unchanged (pr-link corrections aside), new "
	                        "entries appended at the end after one empty line, every entry a "
	                        "valid ChangelogEntry.",
	                .opts = opts,
	                .nopts = N(opts)};
	int prc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (prc) {
		args_free(&p);
		return prc == 1 ? CLI_OK : CLI_USAGE;
	}
	const char *base_ref = args_get(&p, "--base-ref")->vals[0];
	const char *head_ref = args_get(&p, "--head-ref")->vals[0];
	arg_opt *x = args_get(&p, "--changelog-file");
	const char *path = x->seen ? x->vals[0] : "perf-changelog.yaml";
	x = args_get(&p, "--pr-number");
	int64_t pr = x->seen ? x->ivals[0] : -1;
	x = args_get(&p, "--repo");
	const char *repo = x->seen ? x->vals[0] : NULL;
	ib_arena *a = ib_arena_new();
	ib_buf b = {0}, h = {0};
	ib_error e = {0};
	int status = 1, rc = a ? 0 : IB_ENOMEM;
	if (!rc)
		rc = clog_git_show(repo, base_ref, path, &b, &e);
	if (!rc)
		rc = clog_git_show(repo, head_ref, path, &h, &e);
	size_t added = 0, corr = 0;
	if (!rc)
		rc = clog_gate(a, b.data ? b.data : "", b.len, h.data ? h.data : "", h.len, path,
		               pr, &added, &corr, &e);
	if (rc) {
		if (rc == IB_EINVAL && !e.file[0])
			snprintf(e.file, sizeof e.file, "%s", path);
		report(p.prog, rc, &e, NULL);
	} else {
		printf("%s: %zu entr%s appended, %zu pr-link correction%s; append-only contract "
		       "holds\n",
		       path, added, added == 1 ? "y" : "ies", corr, corr == 1 ? "" : "s");
		status = fflush(stdout) ? 1 : 0;
	}
	ib_buf_free(&b);
	ib_buf_free(&h);
	ib_arena_free(a);
	args_free(&p);
	return status;
}

/* A JSON list of strings (or null / "") into v; false when it is not one. */
static int str_list(ib_arena *a, const char *opt, const char *text, const char ***v, size_t *n,
                    bool *given)
{
	*v = NULL;
	*n = 0;
	*given = false;
	if (!text || !*text)
		return CLI_OK;
	ib_val *j;
	ib_error e;
	if (ib_json_parse(a, opt, text, strlen(text), &j, &e)) {
		fprintf(stderr, "infbench changelog ci-priority: error: %s: not JSON: %s\n", opt,
		        e.msg);
		return CLI_FAIL;
	}
	if (j->type == IB_V_NULL)
		return CLI_OK;
	bool ok = j->type == IB_V_LIST;
	for (size_t i = 0; ok && i < j->list.n; i++)
		ok = j->list.v[i]->type == IB_V_STR;
	if (!ok) {
		fprintf(stderr,
		        "infbench changelog ci-priority: error: %s must be a JSON array of "
		        "strings\n",
		        opt);
		return CLI_FAIL;
	}
	*v = ib_arena_alloc(a, (j->list.n + 1) * sizeof **v);
	if (!*v)
		return CLI_FAIL;
	for (size_t i = 0; i < j->list.n; i++)
		(*v)[i] = j->list.v[i]->str.s;
	*n = j->list.n;
	*given = true;
	return CLI_OK;
}

static int cl_priority(int argc, char **argv)
{
	arg_opt opts[] = {
	    HELP_OPT,
	    {.name = "--policy",
	     .kind = ARG_ONE,
	     .metavar = "FILE",
	     .help = "the policy (default: configs/ci-priority.yaml)"},
	    {.name = "--event-name",
	     .kind = ARG_ONE,
	     .metavar = "NAME",
	     .help = "the GitHub event (push adds the push adjustment)"},
	    {.name = "--labels-json",
	     .kind = ARG_ONE,
	     .metavar = "JSON",
	     .help = "the PR labels, a JSON array of strings (default: [])"},
	    {.name = "--queue-namespace",
	     .kind = ARG_ONE,
	     .metavar = "NS",
	     .help = "salt of the queue tokens (default: local)"},
	    {.name = "--pr-number",
	     .kind = ARG_ONE,
	     .is_int = true,
	     .metavar = "N",
	     .help = "the pull request (with the skip-queue label: skip-queue-pr)"},
	    {.name = "--criteria-json",
	     .kind = ARG_ONE,
	     .metavar = "JSON",
	     .help = "score only these facts, a JSON array of strings"},
	    {.name = "--input",
	     .kind = ARG_ONE,
	     .metavar = "FILE",
	     .help = "read the matrix JSON from FILE instead of stdin"},
	};
	arg_parser p = {.prog = "infbench changelog ci-priority",
	                .desc = "Assign deterministic CI priority scores and queue tokens to every "
	                        "job of a generated matrix (ci_priority.py).",
	                .opts = opts,
	                .nopts = N(opts)};
	int prc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (prc) {
		args_free(&p);
		return prc == 1 ? CLI_OK : CLI_USAGE;
	}
#define OPT(n, d) (args_get(&p, n)->seen ? args_get(&p, n)->vals[0] : (d))
	const char *policy_path = OPT("--policy", "configs/ci-priority.yaml");
	clog_prio_ctx c = {.event_name = OPT("--event-name", ""),
	                   .queue_namespace = OPT("--queue-namespace", "local")};
	const char *labels = OPT("--labels-json", "[]"), *criteria = OPT("--criteria-json", "");
	const char *input = OPT("--input", NULL);
#undef OPT
	arg_opt *pr = args_get(&p, "--pr-number");
	if ((c.has_pr = pr->seen))
		c.pr_number = pr->ivals[0];
	ib_arena *a = ib_arena_new();
	int status = CLI_FAIL;
	ib_error e = {0};
	ib_buf in = {0}, out = {0};
	ib_val *policy, *payload, *res;
	bool lg;
	if (!a)
		goto done;
	if (str_list(a, "--labels-json", labels, (const char ***)&c.labels, &c.nlabels, &lg) ||
	    str_list(a, "--criteria-json", criteria, (const char ***)&c.criteria, &c.ncriteria,
	             &c.has_criteria))
		goto done;
	int rc = ib_yaml_load_file(a, policy_path, &policy, &e);
	if (!rc)
		rc = clog_policy_check(policy, policy_path, &e);
	if (!rc)
		rc = cli_read_input(input, &in, &e);
	if (!rc)
		rc = ib_json_parse(a, input ? input : "<stdin>", in.data ? in.data : "", in.len,
		                   &payload, &e);
	if (!rc)
		rc = clog_annotate(a, payload, policy, &c, &res, &e);
	ib_json_opts jo = {.indent = -1, .compact = true, .ensure_ascii = true};
	if (!rc)
		rc = ib_json_write(&out, res, &jo, &e);
	if (!rc)
		rc = ib_buf_putc(&out, '\n');
	if (rc && !ib_buf_error(&out)) {
		report(p.prog, rc, &e, NULL);
		goto done;
	}
	status = cli_emit(p.prog, NULL, &out);
done:
	ib_buf_free(&in);
	ib_buf_free(&out);
	ib_arena_free(a);
	args_free(&p);
	return status;
}

int cmd_changelog(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		fprintf(stderr, "infbench changelog: error: a subcommand is required\n");
		return CLI_USAGE;
	}
	const char *s = argv[1];
	if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
		fputs(usage, stdout);
		return CLI_OK;
	}
	if (!strcmp(s, "process"))
		return cl_process(argc - 1, argv + 1);
	if (!strcmp(s, "validate"))
		return cl_validate(argc - 1, argv + 1);
	if (!strcmp(s, "gate"))
		return cl_gate(argc - 1, argv + 1);
	if (!strcmp(s, "ci-priority"))
		return cl_priority(argc - 1, argv + 1);
	fputs(usage, stderr);
	fprintf(stderr, "infbench changelog: error: unknown subcommand '%s'\n", s);
	return CLI_USAGE;
}
