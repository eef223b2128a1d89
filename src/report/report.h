/* report — the InferenceX dashboard's numbers: Pareto frontiers ("rooflines"),
 * the Steffen monotone spline and d3 curveMonotoneX paths, interpolation at a
 * target interactivity (calculator, compare pages, historical trends), the
 * derived cost/energy metrics K1–K7, grouping into chart series, nice ticks and
 * axis domains, JS number formatting, compare tables and narratives, vendor
 * colours, parallelism labels and eval bars.
 *
 * Every function reproduces the dashboard (tests/golden/report/README.md is the
 * specification; its quirks are kept by default, deliberate fixes are opt-in
 * and listed in docs/report.md). Pure computation: nothing here prints,
 * reads files or calls exit().
 *
 * Conventions of this header:
 * - Numbers follow IEEE/JS semantics: comparisons with NaN are false, missing
 *   numbers are NaN unless a contract says otherwise.
 * - Every sort is stable (JS Array.prototype.sort), so which of two identical
 *   points lands on a frontier depends on input order.
 * - Functions that return index arrays write indices into the caller's
 *   input array, in the algorithm's output order; the caller provides room for
 *   n indices.
 * - Fallible functions return 0 or a negative ib_err (IB_ENOMEM, IB_EINVAL);
 *   objects returned through out pointers are owned by the caller and freed
 *   with the matching _free.
 */
#ifndef IB_REPORT_H
#define IB_REPORT_H

#include "base/base.h"
#include "fmt/fmt.h"
#include "pareto/pareto.h"

/* ===================================================================== */
/* Rows, series keys and the GPU table                                   */
/* ===================================================================== */

/* Numeric fields of an agg_bmk row the report uses. */
typedef enum {
	REP_F_CONC = 0,
	REP_F_ISL,
	REP_F_OSL,
	REP_F_TP,
	REP_F_PP,
	REP_F_EP,
	REP_F_PREFILL_TP,
	REP_F_PREFILL_EP,
	REP_F_PREFILL_NUM_WORKERS,
	REP_F_DECODE_TP,
	REP_F_DECODE_EP,
	REP_F_DECODE_NUM_WORKERS,
	REP_F_NUM_PREFILL_GPU,
	REP_F_NUM_DECODE_GPU,
	REP_F_TPUT_PER_GPU,
	REP_F_OUTPUT_TPUT_PER_GPU,
	REP_F_INPUT_TPUT_PER_GPU,
	REP_F_MEDIAN_INTVTY,
	REP_F_MEAN_INTVTY,
	REP_F_P90_INTVTY,
	REP_F_P99_INTVTY,
	REP_F_MEDIAN_E2EL,
	REP_F_MEAN_E2EL,
	REP_F_P90_E2EL,
	REP_F_P99_E2EL,
	REP_F_MEDIAN_TTFT,
	REP_F_MEAN_TTFT,
	REP_F_P90_TTFT,
	REP_F_P99_TTFT,
	REP_F_MEDIAN_TPOT,
	REP_F_MEAN_TPOT,
	REP_F_P90_TPOT,
	REP_F_P99_TPOT,
	REP_F_AVG_POWER_W,
	REP_F_PREFILL_AVG_POWER_W,
	REP_F_DECODE_AVG_POWER_W,
	REP_F_J_PER_OUTPUT_TOKEN, /* joules_per_output_token */
	REP_F_J_PER_TOTAL_TOKEN,
	REP_F_J_PER_INPUT_TOKEN,
	REP_F_J_PER_QUERY, /* joules_per_successful_query */
	REP_F__COUNT
} rep_field;

/* The agg_bmk.json key of a field, and the reverse (-1 when unknown). */
const char *rep_field_name(rep_field f);
int rep_field_lookup(const char *name);

/* One agg_bmk row as the report sees it. Strings are borrowed from the
 * parsed JSON (or the caller); NULL when absent. Booleans are -1 when
 * absent, else 0/1. A numeric field is NaN and has[f] false when absent
 * or not a number. */
typedef struct {
	const char *id; /* a caller-chosen identity (goldens: "id"); may be NULL */
	const char *hw, *framework, *precision, *spec_decoding, *mtp, *benchmark_type;
	const char *date, *model, *image;
	int disagg, is_multinode, dp_attention, prefill_dp_attention, decode_dp_attention;
	int overlay_run; /* unofficial-run index k, -1 for official rows */
	double f[REP_F__COUNT];
	bool has[REP_F__COUNT];
} rep_row;

/* Fills r from a JSON object (strings point into obj's arena). Numbers may
 * be ints or floats, and the strings "NaN"/"Infinity"/"-Infinity". Errors:
 * IB_EINVAL when obj is not an object (message names the row index given). */
int rep_row_from_json(const ib_val *obj, size_t index, rep_row *r, ib_error *e);

/* A JSON number (int, float, or the strings "NaN", "Infinity",
 * "-Infinity") into *out; false for anything else. */
bool rep_json_number(const ib_val *v, double *out);

/* The dashboard's first reduction (CHARTS.md 1.3, spec B.4): among rows with
 * the same (hw, framework, spec_decoding, disagg, precision), only those of
 * the latest date are kept. keep[i] receives the verdict for rows[i]; rows
 * without a date compare as the empty string. Dates are ISO (YYYY-MM-DD...),
 * compared as strings. O(n log n) time. Returns 0 or IB_ENOMEM (keep is
 * then unset). */
int rep_latest_rows(const rep_row *rows, size_t n, bool *keep);

/* Numbers the distinct strings of keys[0..n) in order of first appearance:
 * ids[i] is the rank of keys[i]'s first occurrence among the first
 * occurrences, *nids the number of distinct keys. O(n) expected (a hash
 * table): the report's grouping by series, group and date uses it instead of
 * linear searches.
 * Returns 0 or IB_ENOMEM. */
int rep_first_seen_ids(const char *const *keys, size_t n, size_t *ids, size_t *nids);

/* Buckets 0..n-1 by ids (each < nids), stably: the members of id k are
 * (*members)[(*off)[k] .. (*off)[k + 1]) in increasing order. Both arrays
 * are malloc'd (free()). Returns 0 or IB_ENOMEM (both NULL then). */
int rep_bucket_ids(const size_t *ids, size_t n, size_t nids, size_t **off, size_t **members);

/* Both: ids of keys (rep_first_seen_ids), then their buckets (rep_bucket_ids).
 * Returns 0 or IB_ENOMEM (*off and *members NULL then). */
int rep_group_keys(const char *const *keys, size_t n, size_t *ids, size_t *nids, size_t **off,
                   size_t **members);

/* GPU table entry (spec B.6 and README 6.2): power in kW per GPU all-in,
 * $/GPU-hour for the hyperscaler (h), neocloud (n) and 3-year rental (r)
 * columns, TDP in W. */
typedef struct {
	char name[32];
	double power, costh, costn, costr, tdp;
} rep_gpu_spec;

typedef struct {
	const rep_gpu_spec *gpus; /* borrowed */
	size_t n;
	double usd_to_cny;
	const char *const *known; /* base GPUs that are "known" (isKnownGpu) */
	size_t nknown;
} rep_gpu_table;

/* The built-in table: "april" = the April 2026 power column (spec B.6),
 * otherwise the later "All-In (W)" sheet; usd_to_cny = 7.1 (a placeholder,
 * see README 6.2). Static storage. */
const rep_gpu_table *rep_gpu_table_builtin(bool april);
/* The entry for a base GPU, or NULL (unknown GPUs use zeros). */
const rep_gpu_spec *rep_gpu_find(const rep_gpu_table *t, const char *base);

/* The series key getHardwareKey (README 3.5) of a row into out: base GPU
 * (hw up to the first '-'), "_<framework alias>", then "_mtp" or
 * "_<spec>" unless benchmark_type is agentic_traces. Truncated to cap. */
void rep_hardware_key(const rep_row *r, const rep_gpu_table *t, char *out, size_t cap);
/* The key into the GPU table: key up to the first '-' or '_' (out may be
 * hw_key itself). */
void rep_spec_base(const char *hw_key, char *out, size_t cap);

/* ===================================================================== */
/* Derived metrics (K1–K7)                                               */
/* ===================================================================== */

typedef enum {
	REP_M_TP_PER_GPU = 0, /* tpPerGpu */
	REP_M_OUTPUT_TPUT_PER_GPU,
	REP_M_INPUT_TPUT_PER_GPU,
	REP_M_TP_PER_MW,
	REP_M_INPUT_TPUT_PER_MW,
	REP_M_OUTPUT_TPUT_PER_MW,
	REP_M_COSTH,
	REP_M_COSTN,
	REP_M_COSTR,
	REP_M_COSTH_OUTPUT,
	REP_M_COSTN_OUTPUT,
	REP_M_COSTR_OUTPUT,
	REP_M_COSTHI,
	REP_M_COSTNI,
	REP_M_COSTRI,
	REP_M_TOKENS_PER_DOLLAR_H,
	REP_M_TOKENS_PER_DOLLAR_N,
	REP_M_TOKENS_PER_DOLLAR_R,
	REP_M_OUTPUT_TOKENS_PER_DOLLAR_H,
	REP_M_OUTPUT_TOKENS_PER_DOLLAR_N,
	REP_M_OUTPUT_TOKENS_PER_DOLLAR_R,
	REP_M_INPUT_TOKENS_PER_DOLLAR_H,
	REP_M_INPUT_TOKENS_PER_DOLLAR_N,
	REP_M_INPUT_TOKENS_PER_DOLLAR_R,
	REP_M_TOKENS_PER_RMB_H,
	REP_M_TOKENS_PER_RMB_N,
	REP_M_TOKENS_PER_RMB_R,
	REP_M_OUTPUT_TOKENS_PER_RMB_H,
	REP_M_OUTPUT_TOKENS_PER_RMB_N,
	REP_M_OUTPUT_TOKENS_PER_RMB_R,
	REP_M_INPUT_TOKENS_PER_RMB_H,
	REP_M_INPUT_TOKENS_PER_RMB_N,
	REP_M_INPUT_TOKENS_PER_RMB_R,
	REP_M_TOKENS_PER_CALORIE,
	REP_M_TOKENS_PER_BIG_MAC,
	REP_M_J_TOTAL,
	REP_M_J_OUTPUT,
	REP_M_J_INPUT,
	REP_M_MEASURED_AVG_POWER,
	REP_M_MEASURED_PREFILL_AVG_POWER,
	REP_M_MEASURED_DECODE_AVG_POWER,
	REP_M_MEASURED_J_PER_OUTPUT_TOKEN,
	REP_M_MEASURED_J_PER_TOTAL_TOKEN,
	REP_M_MEASURED_J_PER_INPUT_TOKEN,
	REP_M_MEASURED_J_PER_QUERY,
	REP_M_MEASURED_WH_PER_QUERY,
	REP_M_MEASURED_POWER_PERCENT_TDP,
	REP_M_COST_USER,  /* only with user values (rep_derive_opts) */
	REP_M_POWER_USER, /* idem */
	REP_M__COUNT
} rep_metric;

/* The dashboard's camelCase name ("tpPerGpu", "costhOutput", ...), and the
 * reverse (-1 when unknown). */
const char *rep_metric_name(rep_metric m);
int rep_metric_lookup(const char *name);
/* The direction of a metric on the interactivity chart (e2e = false) or the
 * end-to-end latency chart (README 6.1); PAR_DIR_NONE for
 * measuredPowerPercentTdp. */
par_dir rep_metric_direction(rep_metric m, bool e2e);
/* One of the nine built-in cost metrics costh..costri (not costUser): the
 * ones the cost limit clips. */
bool rep_metric_is_cost(rep_metric m);

/* A metric set: v[m] is meaningful only when has[m] (absence matters: a
 * metric the dashboard does not create is not there). */
typedef struct {
	double v[REP_M__COUNT];
	bool has[REP_M__COUNT];
} rep_metrics;

typedef struct {
	bool has_user_cost; /* custom $/GPU-hr -> costUser (K5) */
	double user_cost;
	bool has_user_power; /* custom power -> powerUser (K6) */
	double user_power;
	/* Deliberate fix of K6 (docs/report.md): powerUser = tput*1000/user_power
	 * instead of the shipped tpPerMw/P*user_power. Off by default. */
	bool fix_power_user;
} rep_derive_opts;

/* createChartDataPoint's metrics for row r with the GPU table t (README 3.4;
 * formulas of @01c58d3: tpPerMw unguarded, so Infinity/NaN for unknown
 * GPUs). hw_key/spec_base receive the series key and its base GPU (either may
 * be NULL). *gpu_count gets the tooltip "Total GPUs" (K7) when non-NULL.
 * o may be NULL. */
void rep_derive_metrics(const rep_row *r, const rep_gpu_table *t, const rep_derive_opts *o,
                        rep_metrics *out, char *hw_key, size_t hw_key_cap, char *spec_base,
                        size_t spec_base_cap, double *gpu_count);

/* ===================================================================== */
/* Chart series: rows in, per-series frontiers out                       */
/* ===================================================================== */

typedef struct {
	const char *x_field;  /* a rep_field name, e.g. "median_intvty", "p90_ttft" */
	rep_metric metric;    /* the y metric */
	par_dir dir;          /* the frontier direction (6.1, flipped for TTFT) */
	double cost_limit;    /* NaN: no limit; dashboard: 5 $/M tok */
	double latency_limit; /* NaN: no limit; dashboard: 60 s (TTFT x only) */
	const rep_gpu_table *gpus;
	const rep_derive_opts *derive; /* may be NULL */
	/* may be NULL; else rep_chart_prepare's of the same rows, gpus and
	 * derive (many charts of one row set derive the rows' metrics once) */
	const struct rep_chart_rows *pre;
} rep_chart_opts;

/* What rep_chart_series computes per row before placing the points, which
 * depends on the rows, the GPU table and the derive options only: derived
 * metrics, series key (hwKey) and point series key ("hwKey_precision",
 * "_run<k>" for an overlay row). */
typedef struct rep_chart_rows {
	ib_arena *arena; /* owns everything below */
	size_t n;
	rep_metrics *metrics;
	char **keys;
	char **skeys;
} rep_chart_rows;

/* *out is new (free with rep_chart_rows_free, after the charts made with
 * it: their metrics and series keys are its); 0 or IB_ENOMEM. */
int rep_chart_prepare(const rep_row *rows, size_t nrows, const rep_gpu_table *gpus,
                      const rep_derive_opts *derive, rep_chart_rows **out);
void rep_chart_rows_free(rep_chart_rows *p);

typedef struct {
	size_t row;    /* index into the caller's rows */
	size_t series; /* index into rep_chart.series */
	double x, y;
	bool roof; /* "Optimal Only": on (or a duplicate of) the frontier */
} rep_chart_point;

typedef struct {
	const char *key; /* "hwKey_precision" or "hwKey_precision_run<k>" */
	const char *hw_key;
	const char *precision;
	int overlay_run;  /* -1 for official */
	size_t *frontier; /* point indices (rep_chart.points), x ascending */
	size_t nfrontier;
	/* one drawn path per date with >= 2 frontier points: path p holds
	 * path_pts[path_off[p] .. path_off[p+1]) (point indices, x ascending) */
	size_t *path_pts;
	size_t *path_off; /* npaths + 1 entries */
	size_t npaths;
} rep_series;

typedef struct {
	size_t row;
	const char *reason; /* "no-metric", "cost-limit", "latency-limit" */
} rep_dropped;

typedef struct {
	ib_arena *arena;         /* owns everything below */
	rep_chart_point *points; /* by hwKey first appearance, then row order */
	size_t npoints;
	rep_series *series; /* in order of first appearance among points */
	size_t nseries;
	rep_dropped *dropped;
	size_t ndropped;
	rep_metrics *metrics; /* per input row (nrows), for tooltips; o->pre's if given */
} rep_chart;

/* One scatter chart (README 3.3): series identity, derived metrics, the
 * no-metric / cost-limit / latency-limit drops, coordinates, per-date
 * frontiers (overlay rows: per run, no date split) and the optimal flags.
 * *out is new; free with rep_chart_free. IB_EINVAL when o->x_field is not a
 * known field or o->dir is PAR_DIR_NONE; IB_ENOMEM. */
int rep_chart_series(const rep_row *rows, size_t nrows, const rep_chart_opts *o, rep_chart **out,
                     ib_error *e);
void rep_chart_free(rep_chart *c);

/* ===================================================================== */
/* Interpolation at a target (the rest is in pareto/pareto.h)            */
/* ===================================================================== */

/* A point of a historical trend: x = interactivity and its metric set. */
typedef struct {
	const char *id;
	double x;
	const rep_metrics *m;
} rep_trend_point;

/* interpolateMetricAtInteractivity (README 3.9): the metric at interactivity
 * target on the upper_left frontier of (x, throughput), null outside the
 * range. Returns 1 with *out, 0 for null, IB_ENOMEM. Used by `db history`. */
int rep_interpolate_trend(const rep_trend_point *pts, size_t n, rep_metric metric, double target,
                          double *out);

/* ===================================================================== */
/* Compare pages                                                         */
/* ===================================================================== */

typedef struct {
	bool present;
	par_interp r;
} rep_compare_side;

typedef struct {
	double target;
	rep_compare_side a, b;
} rep_compare_row;

typedef struct {
	double range_min, range_max; /* interactivityRange: ceil(min), floor(max) */
	double targets[3];
	size_t ntargets;
	rep_compare_row rows[3];
	size_t nrows;
	rep_compare_row image_rows[17]; /* the OG image (values and costs) */
	size_t nimage_rows;
} rep_compare_table;

/* computeCompareTableData (README 3.10) over the GPU points of A and B
 * (each may be empty). Returns 0 or IB_ENOMEM. */
int rep_compare_table_compute(const par_gpu_point *a, size_t na, const par_gpu_point *b, size_t nb,
                              rep_compare_table *out);

typedef struct {
	bool present;
	double value, cost;
} rep_narr_side;

typedef struct {
	double target;
	rep_narr_side a, b;
} rep_narr_row;

/* compareTableNarrative (README 3.11): one paragraph per row with a side,
 * template chosen by the seeded hash of "variant|model|a|b". variant is
 * "full" or "per-dollar". Appends each paragraph to paras (an ib_buf per row
 * given, unused rows left empty; *nparas gets the count). Returns 0,
 * IB_EINVAL (unknown variant) or IB_ENOMEM. */
int rep_compare_narrative(const char *variant, const char *model, const char *a_label,
                          const char *b_label, const rep_narr_row *rows, size_t nrows,
                          double range_min, double range_max, ib_buf *paras, size_t *nparas);

/* ===================================================================== */
/* Axes                                                                  */
/* ===================================================================== */

/* d3-scale 4.0.2 linear nice(count) of [lo, hi] in place (a reversed domain
 * stays reversed), and ticks(count) into ticks (room for cap; *nticks gets
 * the number, at most cap). */
void rep_nice(double *lo, double *hi, int count);
size_t rep_ticks(double lo, double hi, int count, double *ticks, size_t cap);
/* d3 log scale nice() and ticks() (base 10). */
void rep_log_nice(double *lo, double *hi);
size_t rep_log_ticks(double lo, double hi, int count, double *ticks, size_t cap);

typedef struct {
	bool is_input_tput_metric;
	bool x_is_ttft;
	const char *scale_type; /* "auto", "linear", "log" */
	bool log_y;
} rep_axes_opts;

typedef struct {
	bool log;
	double domain[2], nice[2];
	double ticks[64];
	size_t nticks;
} rep_axis;

/* The scatter chart's axes (README 3.12 scatter_axes). */
void rep_scatter_axes(const par_pt *pts, size_t n, const rep_axes_opts *o, rep_axis *x,
                      rep_axis *y);

/* ===================================================================== */
/* Labels, colours, eval bars, table order                               */
/* ===================================================================== */

/* TP8 / TEP8 / DEP8 / EP16 / DPAEP16 / DPATP2 / "2xDEP4+1xDEP32" of a row. */
void rep_parallelism_label(const rep_row *r, char *out, size_t cap);

/* Index of the first of gb300, gb, b300, b, mi355x, h200, mi325x, h100,
 * mi300x that key starts with; 9 when none. */
int rep_hw_order(const char *key);
/* localeCompare under ICU root collation for the report's keys and labels
 * (<0, 0, >0). */
int rep_collate(const char *a, const char *b);

/* generateVendorColors: colour strings "oklch(L C H)" for keys[0..n) (out[i]
 * for keys[i], each at least 40 bytes) and legend order indices into
 * order[0..n). dark selects the dark theme. IB_ENOMEM. */
int rep_vendor_colors(const char *const *keys, size_t n, bool dark, char (*out)[40], size_t *order);

typedef struct {
	double x; /* pixels */
	const char *label, *color;
} rep_grad_point;
typedef struct {
	double offset;
	const char *color; /* borrowed from the points */
} rep_grad_stop;
/* The parallelism gradient of a frontier: stops (room for 3n + 2) and their
 * count; 0 stops when there is no gradient (< 2 points, < 2 distinct labels,
 * zero x range). */
size_t rep_gradient_stops(const rep_grad_point *pts, size_t n, rep_grad_stop *stops);

typedef struct {
	const char *id, *hw_key, *hw_label, *framework, *framework_label, *spec_decode, *spec_label,
	    *precision, *date;
	double conc, tp, score, score_error;
	/* beyond the dashboard: EP and DP attention, so that evals of configs
	 * differing only there are bars of their own ("EP8", "DPA" in the
	 * label); 0 / false (the dashboard's rows): not in the label */
	double ep;
	bool dpa;
} rep_eval_row;
typedef struct {
	char *label; /* arena */
	const char *hw_key;
	size_t first; /* index of the first row of the bar */
	double score, score_error, min_score, max_score, error_min, error_max;
} rep_eval_bar;
typedef struct {
	ib_arena *arena;
	char **labels;  /* per input row */
	size_t *latest; /* indices of rows kept (latest date), sorted by label */
	size_t nlatest;
	rep_eval_bar *bars;
	size_t nbars;
	double x_domain[2];
} rep_eval_chart;
/* The eval bar chart (README 3.12 eval_aggregate). enabled: hw keys shown.
 * *out is new; free with rep_eval_chart_free. IB_ENOMEM. */
int rep_eval_aggregate(const rep_eval_row *rows, size_t n, const char *const *enabled,
                       size_t nenabled, bool show_precision, rep_eval_chart **out);
void rep_eval_chart_free(rep_eval_chart *c);

#endif
