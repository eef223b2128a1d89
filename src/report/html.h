/* report/html — `infbench report`: agg rows in, one self-contained HTML page
 * (or standalone SVG charts, or a terminal summary) out.
 *
 * The numbers on the page (frontiers, derived metrics, labels, colours,
 * formatting) come from the report library (report.h); this part loads and
 * validates rows, lays the page out and embeds the library's results. See
 * docs/report.md.
 *
 * Ownership: everything a rep_ function here returns lives in the arena the
 * caller passed; nothing is freed individually. */
#ifndef IB_REPORT_HTML_H
#define IB_REPORT_HTML_H

#include "base/base.h"
#include "fmt/fmt.h"
#include "results/results.h"

#include <stdbool.h>
#include <stddef.h>

/* One benchmark row after the dashboard's mapBenchmarkRow normalisation. */
typedef struct {
	const char *src;       /* file the row came from */
	size_t index;          /* 0-based position in that file (0 for one-row files) */
	const char *hw;        /* canonical GPU key (h100 … mi355x) */
	const char *hw_raw;    /* the row's `hw` as given */
	const char *model;     /* model key (prefix without precision suffix) */
	const char *framework; /* alias-resolved, lower case */
	const char *precision; /* lower case, nvfp4/mxfp4 -> fp4 */
	const char *spec;      /* spec_decoding, lower case; "none" when absent */
	bool disagg, multinode;
	int isl, osl, conc;
	int tp, ep, pp; /* single node (v1): tp/ep/pp; v2 rows: decode side */
	bool dpa;       /* single node dp_attention */
	bool v2;        /* the row has prefill_tp (prefill/decode fields below) */
	int ptp, pep, pnw, dtp, dep, dnw, npg, ndg;
	bool pdpa, ddpa;
	const char *image; /* '#' turned into '/', or NULL */
	const char *date;  /* YYYY-MM-DD: the row's `date`, else the file's mtime */
	const ib_val *raw; /* the original row map (numeric metrics are read from it) */
	/* beyond the dashboard (docs/report.md): NULL / -1 / NaN when absent */
	int client_bound; /* client_health.client_bound: 1, 0, or -1 unknown */
	bool simulated;   /* "simulated": true (a result of infbench sim) */
	/* sim_interval of a simulated row: tput_per_gpu lo, hi, median_intvty
	 * lo, hi (docs/sim.md "Prediction intervals"); NAN: none */
	double iv[4];
	const char *health_why;  /* client_health.reason */
	double accept_len;       /* measured mean acceptance length */
	const char *fingerprint; /* workload fingerprint (tokenizer + prompts) */
	int overlay;             /* -1: official; k >= 0: the k-th compared run */
	/* agentic rows (isl = osl = 0; raw holds the flat metrics too) */
	const char *scenario; /* scenario_type / benchmark_type; NULL: a fixed-length row */
	const char *offload;  /* kv_offloading, "none" when absent */
} rep_agg_row;

/* One eval row (agg_eval_*.json) after mapAggEvalRow. */
typedef struct {
	const char *src;
	size_t index;
	const char *hw, *model, *framework, *precision, *spec, *task, *date;
	int isl, osl, conc, tp, ep;
	bool dpa;
	double score, score_se; /* em_strict (else score) and its stderr (NaN: none) */
	int overlay;
} rep_ev_row;

typedef struct {
	rep_agg_row *rows;
	size_t n, cap;
	rep_agg_row *ag; /* agentic rows (docs/report.md, the agentic view) */
	size_t nag, cap_ag;
	rep_ev_row *evals;
	size_t nevals, cap_evals;
	size_t files;   /* files read */
	size_t skipped; /* rows skipped (one diagnostic each) */
} rep_rowset;

/* The canonical GPU key of a runner label (`mi355x-amd_0` -> `mi355x`,
 * `cluster:mi300x-amds` -> `mi300x`: the reference's cluster prefix is
 * dropped first), or NULL when the stripped name is not a known GPU.
 * Returned strings are static. */
const char *rep_gpu_key(const char *hw);

/* Loads benchmark and eval rows from `path`: a JSON file (an array of agg
 * rows, or one agg row object) or a folder (every *.json below it; when any
 * file holds an array of benchmark rows, e.g. agg_bmk.json, files holding a
 * single row object are ignored, so a runner's folder with both is not
 * counted twice). Eval rows are those with a `task` field. Rows that break
 * mapBenchmarkRow's rules (unknown GPU, unmapped model, missing isl/osl/conc,
 * not an object) are skipped with one diagnostic each in d (severity
 * warning, subject "row N", file set); other problems of a kept row (e.g. no
 * throughput) are left to the chart code. `overlay` is stored in every row
 * loaded (-1 for official data). A kept row missing tput_per_gpu,
 * median_intvty or median_e2el gets a warning too (the charts needing it
 * leave it out). Returns 0, IB_ENOMEM, or IB_EIO / IB_EPARSE
 * for an unreadable file or one that is not JSON (e names it). */
int rep_rows_load(ib_arena *a, const char *path, int overlay, rep_rowset *rs, ib_diags *d,
                  ib_error *e);
/* Loads the rows of the results database at url (res_db_open; never
 * created) that match f, as rep_rows_load does for files: every stored
 * benchmark row of every date (the history view draws its trends from them;
 * the charts keep each configuration's newest) and every eval row. f->evals
 * and f->latest are ignored: both tables are read. Diagnostics name the
 * database by its URL without a password. Errors: those of res_db_open and
 * res_db_query (e names the database). */
int rep_rows_load_db(ib_arena *a, const char *url, const res_db_filter *f, int overlay,
                     rep_rowset *rs, ib_diags *d, ib_error *e);
void rep_rowset_free(rep_rowset *rs);

/* A numeric metric of a row (a number, or a string Python float() reads),
 * or NaN when absent. */
double rep_row_num(const rep_agg_row *r, const char *key);

/* The sequence label of isl/osl: "1k/1k", "1k/8k", "8k/1k", else "<isl>/<osl>". */
const char *rep_seq_label(ib_arena *a, int isl, int osl);

typedef struct {
	const char *title;     /* page title; NULL: "infbench report" */
	const char *generated; /* shown in the caption (a date); NULL: none */
	const char *run_label; /* the compared run's name (comparison view); NULL: "run" */
	bool compare;          /* rows with overlay >= 0 are a run drawn over the others */
	/* The most rows the page embeds (a bounded page; docs/report.md): above
	 * it, every row on a frontier of any view is kept and the rest thinned
	 * evenly per group and series. 0: REP_MAX_POINTS; SIZE_MAX: every row. */
	size_t max_points;
} rep_page_opts;

#define REP_MAX_POINTS 20000

/* Builds the page data (every view's points, derived metrics and library
 * frontiers) as a JSON value in a. Frontiers are computed on every row; when
 * more rows than o->max_points would be drawn, the data holds the frontier
 * rows and an even sample of the others ("maxPoints" and "rowsTotal" in the
 * root, "total" in each thinned group). Returns 0 or IB_ENOMEM / IB_EINVAL. */
int rep_page_data(ib_arena *a, const rep_rowset *rs, const ib_diags *d, const rep_page_opts *o,
                  ib_val **out, ib_error *e);

/* Appends the whole HTML document (data embedded, no external URL) to out. */
int rep_html_write(ib_buf *out, const ib_val *data, const rep_page_opts *o, ib_error *e);

/* Loads the rows at `in` (rep_rows_load: a file or a folder, raw results
 * included) and writes the HTML report to `out` atomically (title NULL: the
 * default). *nrows (may be NULL) gets the benchmark rows drawn; skipped rows
 * are warnings in d (the caller formats them; d's arena must outlive the
 * call). Errors: rep_rows_load's, IB_EINVAL when no row is usable (nothing
 * written), IB_EIO writing out. */
int rep_write_html_file(const char *in, const char *out, const char *title, size_t *nrows,
                        ib_diags *d, ib_error *e);

/* Writes one standalone SVG per chart of the default view of every model and
 * sequence (chart A and B, throughput per GPU and cost per million total
 * tokens) into dir (created if missing), atomically; *nfiles counts them. */
int rep_svg_write_dir(const ib_val *data, const char *dir, size_t *nfiles, ib_error *e);

/* Appends the terminal summary: per model and sequence, the frontier of each
 * series as a table and the best config per interactivity band. */
int rep_text_summary(ib_buf *out, const ib_val *data);

#endif
