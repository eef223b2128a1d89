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

/* The page's style sheet and script (html_assets.c, generated from
 * src/report/assets/ by scripts/report-assets.sh). */
extern const char rep_asset_css[];
extern const char rep_asset_js[];

#endif
