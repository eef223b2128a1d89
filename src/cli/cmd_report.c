/* infbench report: agg rows -> one self-contained HTML page, standalone SVG
 * charts, a terminal summary or the page data as JSON (docs/report.md). */
#include "cli/cli.h"
#include "cli/cmd_db.h"
#include "report/html.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char usage[] =
    "usage: infbench report AGG.json|DIR|--db URL [-o FILE.html] [--svg DIR]\n"
    "                       [--format html|text|json] [--baseline AGG.json|DIR]\n"
    "                       [--title TEXT] [--run-label NAME] [DB FILTERS]\n"
    "\n"
    "Draw agg rows (agg_bmk.json, agg_eval_*.json, single agg_*.json rows, or a results\n"
    "folder holding them) as the InferenceX dashboard does: throughput, cost and energy\n"
    "against interactivity and end-to-end latency with a Pareto frontier per GPU x\n"
    "framework x spec decoding x precision, eval bars, and a comparison against a baseline.\n"
    "\n"
    "  --db URL         read the rows from the results database instead (infbench db:\n"
    "                   sqlite:PATH, a file path, or postgres://...), every date, so\n"
    "                   the history view has its trends; narrowed by the filters of\n"
    "                   infbench db: --model M --hw H --framework F --precision P\n"
    "                   --spec S --isl N --osl N --conc N --since DATE --until DATE\n"
    "                   --branch B --run-id ID --simulated yes|no --scenario S (only\n"
    "                   the agentic rows of that scenario)\n"
    "  -o FILE          write the report there (html: required; text/json: default stdout)\n"
    "  --format F       html (default): one self-contained page, no external URL;\n"
    "                   text: frontier tables and the best config per interactivity band;\n"
    "                   json: the page's data (rows, series, the library's frontiers)\n"
    "  --svg DIR        also write each default chart as a standalone SVG file into DIR\n"
    "  --baseline B     official rows to compare against: AGG is drawn over them as an\n"
    "                   unofficial run (own markers and dashed frontiers) with a table at\n"
    "                   25/50/75 % of the overlapping interactivity range\n"
    "  --title TEXT     page title (default \"infbench report\")\n"
    "  --run-label NAME the compared run's name (default: \"run\")\n"
    "  --max-points N   the most rows the page holds (default 20000; 0: every row):\n"
    "                   above it, every frontier point is kept and the others are\n"
    "                   sampled evenly per series (frontiers use every row)\n"
    "\n"
    "Agentic rows (agentic process; scenario_type agentic-*) get their own tab: throughput\n"
    "per GPU against interactivity and end-to-end normalised interactivity at a chosen\n"
    "percentile with Pareto frontiers, cache hit rates, per-request latency percentiles.\n"
    "\n"
    "Rows the dashboard would not draw (unknown GPU, no model, no isl/osl/conc, not an\n"
    "object) are skipped with one warning each on stderr. Exit status: 0, 1 when no row\n"
    "could be used or a file is unreadable or not JSON (nothing written), 2 usage.\n"
    "See docs/report.md.\n";

typedef struct {
	const char *in, *db, *out, *svg, *format, *baseline, *title, *run_label, *max_points;
	size_t max_rows; /* rep_page_opts.max_points */
	res_db_filter f;
	bool filtered;
} report_opts;

static int parse(int argc, char **argv, report_opts *o)
{
	*o = (report_opts){.format = "html"};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **slot = !strcmp(a, "-o") || !strcmp(a, "--output") ? &o->out
		                    : !strcmp(a, "--svg")                      ? &o->svg
		                    : !strcmp(a, "--format")                   ? &o->format
		                    : !strcmp(a, "--baseline")                 ? &o->baseline
		                    : !strcmp(a, "--title")                    ? &o->title
		                    : !strcmp(a, "--run-label")                ? &o->run_label
		                    : !strcmp(a, "--db")                       ? &o->db
		                    : !strcmp(a, "--max-points")               ? &o->max_points
		                                                               : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return CLI_FAIL;
		}
		int fr =
		    cli_db_filter("infbench report", a, i + 1 < argc ? argv[i + 1] : NULL, &o->f);
		if (fr == 2)
			return CLI_USAGE;
		if (fr == 1) {
			o->filtered = true;
			i++;
			continue;
		}
		if (slot) {
			if (i + 1 >= argc) {
				fprintf(stderr,
				        "infbench report: error: %s needs a value (see 'infbench "
				        "report --help')\n",
				        a);
				return CLI_USAGE;
			}
			*slot = argv[++i];
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr,
			        "infbench report: error: unknown option %s (see 'infbench report "
			        "--help')\n",
			        a);
			return CLI_USAGE;
		} else if (!o->in) {
			o->in = a;
		} else {
			fprintf(stderr, "infbench report: error: one input only (got %s)\n", a);
			return CLI_USAGE;
		}
	}
	char *end = NULL;
	unsigned long long mp = o->max_points ? strtoull(o->max_points, &end, 10) : 0;
	o->max_rows = !o->max_points ? 0 : mp ? (size_t)mp : SIZE_MAX; /* 0: every row */
	const char *why =
	    o->max_points && (!*o->max_points || *end || o->max_points[0] == '-' ||
	                      o->max_points[0] == '+' || mp > SIZE_MAX)
	        ? "--max-points must be a number of rows (0: no limit)"
	    : !o->in && !o->db      ? "AGG.json, DIR or --db URL is required"
	    : o->in && o->db        ? "give AGG.json|DIR or --db URL, not both"
	    : o->filtered && !o->db ? "the filters (--model, --hw, ...) need --db URL"
	    : strcmp(o->format, "html") && strcmp(o->format, "text") && strcmp(o->format, "json")
	        ? "--format must be html, text or json"
	    : !strcmp(o->format, "html") && !o->out ? "-o FILE.html is required"
	                                            : NULL;
	if (why) {
		fprintf(stderr, "infbench report: error: %s (see 'infbench report --help')\n", why);
		return CLI_USAGE;
	}
	return CLI_OK;
}

static int emit(const char *path, const ib_buf *b)
{
	return cli_emit("infbench report", path && strcmp(path, "-") ? path : NULL, b);
}

static int render(const report_opts *o, ib_arena *a, const rep_rowset *rs, const ib_diags *d)
{
	char date[16];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(date, sizeof date, "%Y-%m-%d", &tm);
	rep_page_opts po = {.title = o->title,
	                    .generated = date,
	                    .run_label = o->run_label,
	                    .compare = o->baseline != NULL,
	                    .max_points = o->max_rows};
	ib_error e = {0};
	ib_val *data = NULL;
	ib_buf b = {0};
	int rc = rep_page_data(a, rs, d, &po, &data, &e);
	if (!rc && !strcmp(o->format, "html"))
		rc = rep_html_write(&b, data, &po, &e);
	else if (!rc && !strcmp(o->format, "text"))
		rc = rep_text_summary(&b, data);
	else if (!rc)
		rc = ib_json_write(&b, data, &(ib_json_opts){.indent = -1, .ensure_ascii = true},
		                   &e) ||
		     ib_buf_putc(&b, '\n');
	int status = CLI_OK;
	if (rc && !ib_buf_error(&b)) { /* a buffer error is reported naming the output */
		cli_error("infbench report", NULL, &e);
		status = CLI_FAIL;
	}
	if (!status)
		status = emit(o->out, &b);
	if (!status && o->svg) {
		size_t n = 0;
		if (rep_svg_write_dir(data, o->svg, &n, &e)) {
			cli_error("infbench report", "--svg", &e);
			status = CLI_FAIL;
		} else {
			fprintf(stderr, "infbench report: %zu SVG charts in %s\n", n, o->svg);
		}
	}
	if (!status && o->out && strcmp(o->out, "-"))
		fprintf(stderr, "infbench report: wrote %s (%zu bytes)\n", o->out, b.len);
	ib_buf_free(&b);
	return status;
}

int cmd_report(int argc, char **argv)
{
	report_opts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc == 1 ? CLI_OK : rc;
	ib_arena *a = ib_arena_new();
	if (!a) {
		fprintf(stderr, "infbench report: error: out of memory\n");
		return CLI_FAIL;
	}
	ib_diags d = {.a = a};
	rep_rowset rs = {0};
	ib_error e = {0};
	int status = CLI_OK;
	if (o.baseline) {
		rc = rep_rows_load(a, o.baseline, -1, &rs, &d, &e);
		/* an empty baseline would silently compare against nothing */
		if (!rc && !rs.n && !rs.nevals && !rs.nag)
			rc = ib_fail(
			    &e, IB_EINVAL, o.baseline, 0, 0,
			    "--baseline holds no usable rows (an empty file or folder, or every "
			    "row skipped)");
	}
	if (!rc && o.db)
		rc = rep_rows_load_db(a, o.db, &o.f, o.baseline ? 0 : -1, &rs, &d, &e);
	else if (!rc)
		rc = rep_rows_load(a, o.in, o.baseline ? 0 : -1, &rs, &d, &e);
	for (size_t i = 0; i < d.n; i++) {
		ib_buf b = {0};
		ib_diag_format(&d.items[i], &b);
		fprintf(stderr, "infbench report: %s\n", b.data ? b.data : "");
		ib_buf_free(&b);
	}
	if (rc) {
		cli_error("infbench report", NULL, &e);
		status = CLI_FAIL;
	} else if (!rs.n && !rs.nevals && !rs.nag) {
		fprintf(stderr, "infbench report: error: no usable rows in %s%s\n",
		        o.db ? "the database (or none matches the filters)" : o.in,
		        d.n ? " (every row was skipped, see above)" : "");
		status = CLI_FAIL;
	} else {
		if (d.n)
			fprintf(stderr,
			        "infbench report: %zu row%s skipped, %zu drawn, %zu warning%s\n",
			        rs.skipped, rs.skipped == 1 ? "" : "s", rs.n + rs.nag, d.n,
			        d.n == 1 ? "" : "s");
		status = render(&o, a, &rs, &d);
	}
	rep_rowset_free(&rs);
	ib_arena_free(a);
	return status;
}
