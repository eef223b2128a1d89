/* infbench review: the mechanical part of InferenceX's review checklist over
 * a change (--base) or over files (docs/review.md). */
#include "cli/cli.h"
#include "review/review.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: infbench review --repo DIR --base REF [--head REF] [--format F]\n"
    "       infbench review --repo DIR [--format F] FILE...\n"
    "\n"
    "Check a change (the files changed between merge-base(REF, head) and head,\n"
    "read with git; head defaults to HEAD) or files of the working tree of DIR\n"
    "(paths relative to DIR) against the mechanical rules of InferenceX's review\n"
    "checklist: spec-decoding recipes pass --use-chat-template, expert parallelism\n"
    "only under EP_SIZE / DP_ATTENTION, launch options one per line, consistency\n"
    "with the sister recipes, perf-changelog.yaml appended at the end, config keys\n"
    "and recipe names, model prefixes and images.\n"
    "\n"
    "options:\n"
    "  --repo DIR     the repository (required)\n"
    "  --base REF     review the change from REF to --head\n"
    "  --head REF     the change's head (default: HEAD)\n"
    "  --format F     text (default), json, or github (workflow annotations)\n"
    "  -h, --help     show this help and exit\n"
    "\n"
    "Exit status: 0 no blocking finding, 1 blocking findings, 2 usage error or\n"
    "the review could not run (bad repository, ref or file).\n"
    "See docs/review.md.\n";

static int usage_error(const char *fmt, const char *arg)
{
	fputs(usage, stderr);
	fprintf(stderr, "infbench review: error: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return CLI_USAGE;
}

int cmd_review(int argc, char **argv)
{
	rv_opts o = {0};
	const char *format = "text";
	const char **files = calloc((size_t)argc + 1, sizeof *files);
	if (!files) {
		fprintf(stderr, "infbench review: error: out of memory\n");
		return CLI_FAIL;
	}
	size_t nf = 0;
	int rc = 0;
	bool only_files = false;
	for (int i = 1; i < argc && !rc; i++) {
		const char *a = argv[i];
		const char **slot = NULL;
		if (only_files || a[0] != '-' || !strcmp(a, "-")) {
			files[nf++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_files = true;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			free(files);
			return CLI_OK;
		}
		const char *eq = strchr(a, '=');
		size_t nl = eq ? (size_t)(eq - a) : strlen(a);
		if (nl == 6 && !strncmp(a, "--repo", 6))
			slot = &o.repo;
		else if (nl == 6 && !strncmp(a, "--base", 6))
			slot = &o.base;
		else if (nl == 6 && !strncmp(a, "--head", 6))
			slot = &o.head;
		else if (nl == 8 && !strncmp(a, "--format", 8))
			slot = &format;
		else {
			rc = usage_error("unrecognized argument: %s", a);
			break;
		}
		if (eq)
			*slot = eq + 1;
		else if (i + 1 < argc)
			*slot = argv[++i];
		else
			rc = usage_error("argument %s: expected one argument", a);
	}
	if (!rc && !o.repo)
		rc = usage_error("%s", "the following arguments are required: --repo");
	if (!rc && strcmp(format, "text") && strcmp(format, "json") && strcmp(format, "github"))
		rc = usage_error("argument --format: invalid choice: '%s' (choose from 'text', "
		                 "'json', 'github')",
		                 format);
	if (!rc && o.base && nf)
		rc = usage_error("%s", "give either --base REF or FILE..., not both");
	if (!rc && !o.base && o.head)
		rc = usage_error("%s", "--head needs --base");
	if (!rc && !o.base && !nf)
		rc = usage_error("%s", "nothing to review: give --base REF or FILE...");
	if (rc) {
		free(files);
		return rc;
	}
	o.files = files;
	o.nfiles = nf;
	ib_arena *a = ib_arena_new();
	if (!a) {
		free(files);
		fprintf(stderr, "infbench review: error: out of memory\n");
		return CLI_FAIL;
	}
	rv_report r = {.a = a};
	ib_error e = {0};
	int status = CLI_OK;
	if (rv_review(&o, &r, &e)) {
		cli_error("infbench review", NULL, &e);
		status = CLI_USAGE;
	} else {
		ib_buf out = {0};
		int frc = !strcmp(format, "json")     ? rv_format_json(&r, &out)
		          : !strcmp(format, "github") ? rv_format_github(&r, &out)
		                                      : rv_format_text(&r, &out);
		if (frc && !ib_buf_error(&out)) {
			fprintf(stderr, "infbench review: error: out of memory\n");
			status = CLI_FAIL;
		} else if (cli_emit("infbench review", NULL, &out)) {
			status = CLI_FAIL;
		} else {
			status = ib_diags_count(&r.findings, RV_BLOCKING) ? 1 : 0;
		}
		ib_buf_free(&out);
	}
	rv_report_free(&r);
	ib_arena_free(a);
	free(files);
	return status;
}
