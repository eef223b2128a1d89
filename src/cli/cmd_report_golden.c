/* infbench report-golden CASE_DIR...: runs golden cases of the report maths
 * (tests/golden/report/README.md) through src/report and prints a verdict per
 * case; used by tests/golden/run_report.sh. */
#include "cli/cli.h"
#include "repgold/repgold.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
    "usage: infbench report-golden CASE_DIR...\n"
    "       infbench report-golden --eval FUNCTION INPUT.json\n"
    "\n"
    "Runs each golden case folder (files 'function', 'input.json',\n"
    "'expected.json') through the report library and compares the result with\n"
    "expected.json under the README's contract (numbers to 1e-9 relative,\n"
    "strings byte-exact, array order significant). Prints 'ok NAME' or\n"
    "'FAIL NAME: <first difference>' per case and a last line\n"
    "'report: N passed, N failed'. Exit 0 when all pass, 1 otherwise, 2 on\n"
    "usage errors.\n"
    "\n"
    "--eval prints the JSON the library computes for INPUT.json.\n"
    "\n"
    "See docs/report.md.\n";

/* Reads the first line of path into out. */
static int read_line(const char *path, char *out, size_t cap, ib_error *e)
{
	ib_buf b = {0};
	int rc = ib_read_file(path, &b, e);
	if (rc)
		return rc;
	size_t n = strcspn(b.data ? b.data : "", "\r\n");
	if (n >= cap)
		n = cap - 1;
	memcpy(out, b.data ? b.data : "", n);
	out[n] = 0;
	ib_buf_free(&b);
	return 0;
}

/* One case: 1 pass, 0 fail (diff explains). */
static int run_case(const char *dir, ib_buf *diff)
{
	char path[4096], fn[128];
	ib_error e = {0};
	ib_arena *a = ib_arena_new();
	ib_val *in = NULL, *exp = NULL, *got = NULL;
	int ok = 0;
	if (!a) {
		ib_buf_puts(diff, "out of memory");
		return 0;
	}
	snprintf(path, sizeof path, "%s/function", dir);
	if (read_line(path, fn, sizeof fn, &e))
		goto err;
	snprintf(path, sizeof path, "%s/input.json", dir);
	if (ib_json_parse_file(a, path, &in, &e))
		goto err;
	snprintf(path, sizeof path, "%s/expected.json", dir);
	if (ib_json_parse_file(a, path, &exp, &e))
		goto err;
	if (rg_eval(a, fn, in, &got, &e))
		goto err;
	ok = rg_compare(exp, got, diff);
	goto done;
err : {
	char msg[2700];
	ib_error_format(&e, msg, sizeof msg);
	ib_buf_puts(diff, msg);
}
done:
	ib_arena_free(a);
	return ok;
}

static int eval_one(const char *fn, const char *input)
{
	ib_error e = {0};
	ib_arena *a = ib_arena_new();
	ib_val *in = NULL, *got = NULL;
	int rc = a ? ib_json_parse_file(a, input, &in, &e) : IB_ENOMEM;
	if (!rc)
		rc = rg_eval(a, fn, in, &got, &e);
	if (rc) {
		cli_error("infbench report-golden", NULL, &e);
		ib_arena_free(a);
		return CLI_FAIL;
	}
	rc = cli_emit_json(NULL, got);
	ib_arena_free(a);
	return rc;
}

int cmd_report_golden(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		fprintf(stderr, "infbench report-golden: error: a case folder is required\n");
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "--eval")) {
		if (argc != 4) {
			fputs(usage, stderr);
			fprintf(stderr, "infbench report-golden: error: --eval needs FUNCTION "
			                "and INPUT.json\n");
			return CLI_USAGE;
		}
		return eval_one(argv[2], argv[3]);
	}
	int pass = 0, fail = 0;
	for (int i = 1; i < argc; i++) {
		const char *dir = argv[i];
		const char *name = strrchr(dir, '/');
		name = name && name[1] ? name + 1 : dir;
		ib_buf diff = {0};
		if (run_case(dir, &diff)) {
			pass++;
			printf("ok %s\n", name);
		} else {
			fail++;
			printf("FAIL %s: %s\n", name, diff.data ? diff.data : "");
		}
		ib_buf_free(&diff);
	}
	printf("report: %d passed, %d failed\n", pass, fail);
	return fail ? CLI_FAIL : CLI_OK;
}
