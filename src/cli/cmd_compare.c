/* infbench compare RESULTS_DIR: the drop-in for InferenceX's
 * utils/compare_results.py (docs/compare.md). */
#include "cli/cli.h"
#include "results/results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: infbench compare RESULTS_DIR [--baseline FILE | --db URL] [--branch NAME]\n"
    "                        [--noise-k K] [--noise-min N] [--allow-simulated]\n"
    "                        [--verdict | --markdown] [--threshold PCT] [--fail-on-regression]\n"
    "\n"
    "Compare every agg row below RESULTS_DIR (*.json files holding a row or a list\n"
    "of rows; agentic-coding rows are left out) with its baseline and print GitHub\n"
    "markdown tables (single-node, multi-node) with each metric and its delta,\n"
    "coloured green/red with LaTeX, as utils/compare_results.py does.\n"
    "\n"
    "The baseline of a row is the newest run of the same configuration on the\n"
    "main branch without an error, from the results database named by --db or\n"
    "DATABASE_URL (postgres:// or postgresql:// is PostgreSQL, sqlite:PATH or a\n"
    "path is SQLite; see 'infbench db'), or the last matching row of an agg file\n"
    "given with --baseline.\n"
    "\n"
    "options:\n"
    "  --baseline FILE  baseline agg rows (agg_bmk.json) instead of a database\n"
    "  --db URL         the results database (default: $DATABASE_URL, required\n"
    "                   when there is no --baseline, as in the reference)\n"
    "  --branch NAME    the baseline branch (default: main)\n"
    "  --noise-k K      beyond the reference: colour a delta only when the config\n"
    "                   has at least N earlier runs and the value lies outside\n"
    "                   their mean +- K standard deviations (default: colour all)\n"
    "  --noise-min N    earlier runs needed for --noise-k (default 3)\n"
    "  --verdict        beyond the reference: a plain table of the metrics that\n"
    "                   matter (throughput/GPU, TTFT median and p99, interactivity,\n"
    "                   E2EL) with the change against the newest baseline, changes\n"
    "                   within noise uncoloured, and one 'Verdict: ...' line; the\n"
    "                   default when stdout is a terminal\n"
    "  --markdown       the reference's markdown tables even on a terminal\n"
    "  --threshold PCT  with --verdict and no --noise-k: a change counts when it\n"
    "                   exceeds PCT percent (default 5)\n"
    "  --fail-on-regression  exit 1 when --verdict finds a significant regression\n"
    "  --allow-simulated compare a simulated row (\"simulated\": true, from\n"
    "                   infbench sim) with a measured baseline or the other way\n"
    "                   round; without it that is an error naming the row\n"
    "\n"
    "RESULTS_DIR may also be an agg file or a run store (its agg_*.json files).\n"
    "\n"
    "Exit status: 0, or 1 on an error (missing DATABASE_URL, unreadable JSON, a\n"
    "row without a key the comparison needs, a simulated row against a measured\n"
    "baseline) or, with --fail-on-regression, a significant regression. See\n"
    "docs/compare.md.\n";

typedef struct {
	const char *dir, *baseline, *db, *branch;
	double noise_k;
	long noise_min;
	bool allow_simulated, verdict, markdown, fail_on_regression;
	double threshold;
} cmp_opts;

/* The database is opened at the first lookup, as the reference connects only
 * when there is a row to compare. */
typedef struct {
	const char *url;
	res_db_baseline b;
} lazy_db;

static int lazy_open(lazy_db *l, ib_error *e)
{
	return l->b.db ? 0 : res_db_open(l->url, false, &l->b.db, e);
}

static int lazy_lookup(void *ctx, const res_cfg_key *k, ib_arena *a, size_t max, ib_val ***out,
                       size_t *n, ib_error *e)
{
	lazy_db *l = ctx;
	int rc = lazy_open(l, e);
	return rc ? rc : res_db_lookup(&l->b, k, a, max, out, n, e);
}

static int lazy_prefetch(void *ctx, const res_cfg_key *keys, size_t n, ib_error *e)
{
	lazy_db *l = ctx;
	int rc = lazy_open(l, e);
	return rc ? rc : res_db_prefetch(&l->b, keys, n, e);
}

/* Returns -1 to go on, else the exit status. */
static int parse(int argc, char **argv, cmp_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			return CLI_OK;
		}
		bool *flag = !strcmp(a, "--allow-simulated")      ? &o->allow_simulated
		             : !strcmp(a, "--verdict")            ? &o->verdict
		             : !strcmp(a, "--markdown")           ? &o->markdown
		             : !strcmp(a, "--fail-on-regression") ? &o->fail_on_regression
		                                                  : NULL;
		if (flag) {
			*flag = true;
			continue;
		}
		const char **dst = !strcmp(a, "--baseline") ? &o->baseline
		                   : !strcmp(a, "--db")     ? &o->db
		                   : !strcmp(a, "--branch") ? &o->branch
		                                            : NULL;
		bool num = !strcmp(a, "--noise-k") || !strcmp(a, "--noise-min") ||
		           !strcmp(a, "--threshold");
		if ((dst || num) && i + 1 >= argc) {
			fprintf(stderr, "infbench compare: error: %s needs a value\n", a);
			return CLI_USAGE;
		}
		if (dst) {
			*dst = argv[++i];
		} else if (num) {
			char *end;
			const char *v = argv[++i];
			double x = strtod(v, &end);
			if (!*v || *end || x < 0) {
				fprintf(stderr,
				        "infbench compare: error: %s: not a number >= 0: '%s'\n", a,
				        v);
				return CLI_USAGE;
			}
			if (!strcmp(a, "--noise-k"))
				o->noise_k = x;
			else if (!strcmp(a, "--threshold"))
				o->threshold = x;
			else
				o->noise_min = (long)x;
		} else if (a[0] == '-' && a[1] == '-' && !o->dir) {
			fprintf(stderr, "infbench compare: error: unknown option '%s'\n", a);
			return CLI_USAGE;
		} else if (!o->dir) {
			o->dir = a;
		} /* further arguments are ignored, as the reference ignores them */
	}
	if (!o->dir) { /* the reference's usage line, on stdout, exit 1 */
		fputs("Usage: python compare_results.py <results_dir>\n", stdout);
		return CLI_FAIL;
	}
	return -1;
}

int cmd_compare(int argc, char **argv)
{
	cmp_opts o = {0};
	int st = parse(argc, argv, &o);
	if (st >= 0)
		return st;
	if (!o.baseline && !o.db)
		o.db = getenv("DATABASE_URL");
	if (!o.baseline && !o.db) {
		fprintf(stderr,
		        "infbench compare: error: DATABASE_URL is not set (give --db URL or "
		        "--baseline FILE)\n");
		return CLI_FAIL;
	}
	ib_error e = {0};
	ib_arena *a = ib_arena_new();
	res_rows_baseline rb = {0};
	lazy_db ldb = {.url = o.db, .b = {.branch = o.branch}};
	res_compare_opts co = {.results_dir = o.dir,
	                       .noise_k = o.noise_k,
	                       .noise_min = o.noise_min > 0 ? (size_t)o.noise_min : 0,
	                       .allow_simulated = o.allow_simulated,
	                       .verdict = o.verdict || (!o.markdown && isatty(1)),
	                       .colour = isatty(1) && !getenv("NO_COLOR"),
	                       .threshold = o.threshold};
	int rc = a ? 0 : IB_ENOMEM;
	if (!rc && o.baseline) {
		ib_val *rows = NULL;
		rc = ib_json_parse_file(a, o.baseline, &rows, &e);
		if (!rc && rows->type != IB_V_LIST)
			rc = ib_fail(&e, IB_EINVAL, o.baseline, 0, 0,
			             "expected a JSON list of agg rows");
		rb.rows = rows;
		co.lookup = res_rows_lookup;
		co.ctx = &rb;
	} else {
		co.lookup = lazy_lookup;
		co.prefetch = lazy_prefetch;
		co.ctx = &ldb;
	}
	ib_buf out = {0};
	res_compare_stats stats = {0};
	if (!rc)
		rc = res_compare(&co, &out, &stats, &e);
	if (cli_emit("infbench compare", NULL, &out))
		rc = rc ? rc : IB_EIO;
	else if (rc)
		cli_error("infbench compare", NULL, &e);
	else if (stats.rows)
		fprintf(stderr, "Summary: %zu matched, %zu unmatched out of %zu results\n",
		        stats.matched, stats.unmatched, stats.rows);
	ib_buf_free(&out);
	res_db_baseline_free(&ldb.b);
	res_db_close(ldb.b.db);
	ib_arena_free(a);
	if (!rc && co.verdict && o.fail_on_regression && stats.regressions)
		return CLI_FAIL;
	return rc ? CLI_FAIL : CLI_OK;
}
