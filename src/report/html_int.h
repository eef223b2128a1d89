/* report/html private: the parts of the page data built in html_views.c. */
#ifndef IB_REPORT_HTML_INT_H
#define IB_REPORT_HTML_INT_H

#include "report/html.h"
#include "report/report.h"

/* The evaluation view: per model x sequence x task, the library's eval bars
 * (official rows, then the compared run's as their own bars). *out is a JSON
 * list in a. Returns 0 or IB_ENOMEM. */
int rep_page_data_evals(ib_arena *a, const rep_rowset *rs, ib_val **out);

/* The comparison tables (25/50/75 % of the overlapping interactivity range):
 * for each series present in both the baseline (overlay -1) and the run
 * (overlay 0) of a group, rep_compare_table_compute(baseline, run), stored
 * as "compare" in the matching group object of groups. rows/keep/gid are
 * index-aligned with rs->rows; gid[i] is the index in groups of row i's
 * group. Returns 0 or IB_ENOMEM. */
int rep_page_data_compare(ib_arena *a, const rep_rowset *rs, const rep_row *rows, const bool *keep,
                          const size_t *gid, const rep_gpu_table *gpus, ib_val *groups);

/* A point of a view as the page draws it: the group's rows less the view's
 * drops, coordinates from the row (or the view's "xy" override). */
typedef struct {
	long long row;
	double x, y;
	bool roof;
} rep_vpt;

/* The points of view `key` ("A|tpPerGpu|median_intvty") of group g in
 * data (rep_page_data's shape). *out is malloc'd (free()), *n its count.
 * Returns 0, IB_ENOENT (no such view) or IB_ENOMEM. */
int rep_view_points(const ib_val *data, const ib_val *g, const char *key, rep_vpt **out, size_t *n);

/* Historical trends, for groups whose official rows span several dates:
 * per series, the library's rep_interpolate_trend of tpPerGpu, costh and
 * jTotal at fixed target interactivities (10 ... 300 tok/s/user) on each
 * date's rows, stored as "trend" {dates, targets, metrics, series: [{s, v:
 * metric-major, then target, then date; null = no value}]} in the group.
 * series[i] is the series index of rs->rows[i], gid[i] the index in groups
 * of its group. Returns 0 or IB_ENOMEM. */
int rep_page_data_trends(ib_arena *a, const rep_rowset *rs, const rep_row *rows, const int *series,
                         const size_t *gid, const rep_gpu_table *gpus, ib_val *groups);

/* GPU / framework / model display labels (the dashboard's tables; the key
 * itself when unknown). */
const char *rep_label_gpu(const char *key);
const char *rep_label_framework(const char *key);

/* Small JSON builders into arena a: each returns the new value, or NULL and
 * sets oom when out of memory (and rep_jset/rep_jpush then do nothing), so a
 * whole tree is built and checked once. rep_jnum: null for NaN/±Infinity;
 * rep_jstr(NULL): null. */
typedef struct {
	ib_arena *a;
	bool oom;
} rep_jb;
ib_val *rep_jchk(rep_jb *j, ib_val *v);
ib_val *rep_jnum(rep_jb *j, double x);
ib_val *rep_jint(rep_jb *j, long long x);
ib_val *rep_jstr(rep_jb *j, const char *s);
ib_val *rep_jmap(rep_jb *j);
ib_val *rep_jlist(rep_jb *j);
void rep_jset(rep_jb *j, ib_val *m, const char *k, ib_val *v);
void rep_jpush(rep_jb *j, ib_val *l, ib_val *v);

/* The report library's row of an agg row (the integers mapBenchmarkRow
 * resolved; agentic rows get the dashboard's benchmark type agentic_traces). */
void rep_lib_row(const rep_agg_row *r, rep_row *out);
/* The dashboard's latest-date reduction (rep_latest_rows) within each
 * bucket of rows that share a key: keep[i] for rows[i]. Returns 0 or
 * IB_ENOMEM. */
int rep_latest_in_buckets(const char *const *keys, const rep_row *rows, size_t n, bool *keep);
/* Per series s (of the base GPU keys shw[s]), its colour (rep_vendor_colors,
 * one hue per GPU key) and legend rank. Returns 0 or IB_ENOMEM. */
int rep_series_palette(const char *const *shw, size_t nseries, char (*cols)[40], size_t *rank);
/* The legend label of a row's series: "H200 (vLLM)", "B200 (SGLang, MTP)". */
void rep_series_label(const rep_agg_row *r, char *out, size_t cap);
const char *rep_label_model(const char *key);

/* The agentic view (docs/report.md): per model x scenario, the latest rows,
 * the frontiers of throughput per GPU against interactivity and end-to-end
 * normalised interactivity at each percentile (pareto/'s roofline, per
 * series and date; the interactivity frontier restricted to the points on
 * the normalised one, as the dashboard's canonical frontier), the cache hit
 * rates and the latency percentiles. *out is a JSON map in a. Returns 0 or
 * IB_ENOMEM. */
int rep_page_data_agentic(ib_arena *a, const rep_rowset *rs, ib_val **out);
/* Appends the agentic view's section (charts drawn here as SVG from the
 * data's "agentic" map) to b; on is whether it is the tab shown first.
 * Returns 0 or IB_ENOMEM. */
int rep_agentic_html(ib_buf *b, const ib_val *agentic, bool on);
/* The agentic rows of --format text: per model x scenario, every point's
 * throughput per GPU, P90 interactivity and normalised interactivity and
 * cache hit rates, the P90 normalised frontier marked. */
int rep_agentic_text(ib_buf *b, const ib_val *agentic);

/* SVG chart pieces shared by --svg files and the agentic view (svg_chart.c):
 * a chart of W x H with margins; a linear pixel scale; the axes with ticks and
 * labels; XML text escaping. */
enum {
	REP_SVG_W = 600,
	REP_SVG_H = 440,
	REP_SVG_MT = 40,
	REP_SVG_MR = 10,
	REP_SVG_MB = 60,
	REP_SVG_ML = 60
};
typedef struct {
	double lo, hi;
	int r0, r1;
} rep_lin;
double rep_lin_px(const rep_lin *s, double v);
int rep_svg_axes(ib_buf *b, const rep_axis *x, const rep_axis *y, const rep_lin *sx,
                 const rep_lin *sy, const char *xl, const char *yl);
int rep_svg_esc(ib_buf *b, const char *s);

/* The page's style sheet and script (html_assets.c, generated from
 * src/report/assets/ by scripts/report-assets.sh); the agentic view's
 * script and style, in pages with agentic rows only. */
extern const char rep_asset_css[];
extern const char rep_asset_js[];
extern const char rep_asset_agentic_css[];
extern const char rep_asset_agentic_js[];

#endif
