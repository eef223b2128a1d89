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

/* ===================================================================== */
/* Frontiers                                                             */
/* ===================================================================== */

/* The dashboard's direction names (historical; they do not name the corner):
 * UPPER_LEFT maximises x and y, UPPER_RIGHT minimises x and maximises y,
 * LOWER_LEFT minimises both, LOWER_RIGHT maximises x and minimises y. */
typedef enum {
	REP_DIR_UPPER_LEFT = 0,
	REP_DIR_UPPER_RIGHT,
	REP_DIR_LOWER_LEFT,
	REP_DIR_LOWER_RIGHT,
	REP_DIR_NONE, /* a metric without a direction (measuredPowerPercentTdp) */
} rep_dir;

/* "upper_left" ... "lower_right" (and "none"); false for anything else. */
bool rep_dir_parse(const char *s, rep_dir *out);
const char *rep_dir_name(rep_dir d);
/* The direction after the x polarity flips (TTFT x-axis for input-throughput
 * metrics): upper_left <-> upper_right, lower_left <-> lower_right. */
rep_dir rep_dir_flip_x(rep_dir d);

/* A point of a chart; id is borrowed (may be NULL). */
typedef struct {
	const char *id;
	double x, y;
} rep_pt;

/* The frontier of pts[0..n) in direction d (README 3.1), with every quirk of
 * paretoFront*: upper_left's NaN-y "wall", upper_right's equal-y admission,
 * strict y < minY for the lower directions, lower_right in x-descending order.
 * Writes the indices of the frontier points into idx (room for n) in the
 * algorithm's output order and their number into *nidx. d must not be
 * REP_DIR_NONE (IB_EINVAL). IB_ENOMEM when the scratch sort array fails. */
int rep_pareto_front(rep_dir d, const rep_pt *pts, size_t n, size_t *idx, size_t *nidx);

/* The frontier as a chart draws it (README 3.2): points with x not finite or
 * <= 0 are dropped first (isFrontierEligible), then rep_pareto_front, then a
 * stable sort by x ascending. The frontier is drawn as a line when *nidx >= 2.
 * Same errors as rep_pareto_front. */
int rep_roofline(rep_dir d, const rep_pt *pts, size_t n, size_t *idx, size_t *nidx);

/* ===================================================================== */
/* Monotone spline (Steffen / d3.curveMonotoneX)                          */
/* ===================================================================== */

/* Slopes m[0..n) of the monotone cubic through (xs[i], ys[i]), xs ascending
 * (README 3.6): n < 2 gives zeros; interior slopes by Steffen's rule with
 * NaN -> 0; end slopes one-sided (so a two-point spline is curved, unlike the
 * straight segment d3 draws). */
void rep_spline_slopes(const double *xs, const double *ys, size_t n, double *m);
/* The cubic Hermite value at t with the slopes above: n = 0 -> 0, n = 1 ->
 * ys[0], t <= xs[0] -> ys[0], t >= xs[n-1] -> ys[n-1] (flat outside). */
double rep_spline_eval(const double *xs, const double *ys, const double *m, size_t n, double t);
/* Convenience: slopes + evaluation of one target (allocates n doubles; NaN
 * when that allocation fails). */
double rep_spline_at(const double *xs, const double *ys, size_t n, double t);

/* Appends the SVG path data d3.line().curve(d3.curveMonotoneX) draws through
 * the pixel points (x[i], y[i]): "M x0,y0" then "L" for two points, one "C"
 * per segment for three or more, consecutive identical points skipped,
 * numbers rounded to 3 decimals in JS's shortest form; one point gives
 * "Mx,yZ". n = 0 appends nothing and returns 0 (the dashboard's null): the
 * caller tests n. Returns 0 or IB_ENOMEM. */
int rep_monotone_path(const rep_pt *pts, size_t n, ib_buf *out);

/* ===================================================================== */
/* JS number formatting (rounding half away from zero on the binary value) */
/* ===================================================================== */

/* Number.prototype.toString(): shortest round-trip digits, exponent form
 * below 1e-6 and from 1e21 ("1e+21", "1.5e-7"), "NaN", "Infinity". out gets
 * at least 32 bytes. */
void rep_js_num(double v, char *out, size_t cap);
/* Number.prototype.toFixed(digits) for 0 <= digits <= 20 (exact decimal
 * expansion of the double, ties away from zero; |v| >= 1e21 falls back to
 * toString as JS does). */
void rep_js_fixed(double v, int digits, char *out, size_t cap);
/* parseFloat(v.toFixed(digits)) — the "round3" of costUser/powerUser. */
double rep_round_fixed(double v, int digits);
/* Math.round (half toward +infinity). */
double rep_js_round(double v);
/* Intl.NumberFormat('en-US', {minimumFractionDigits: lo,
 * maximumFractionDigits: hi}).format(v): grouping commas, half away from
 * zero. */
void rep_fmt_grouped(double v, int lo, int hi, char *out, size_t cap);
/* The table cell format (formatInferenceTableNumber): 0 decimals for
 * |v| >= 100, 1 for >= 1, 3 for >= 0.01, else 4; grouped. */
void rep_fmt_table(double v, char *out, size_t cap);
/* The throughput column: always 1 decimal, grouped. */
void rep_fmt_table_1dp(double v, char *out, size_t cap);
/* Axis/tooltip formatNumber: v < 10000 -> toString(), else grouped with up
 * to 3 fraction digits. */
void rep_fmt_tick(double v, char *out, size_t cap);
/* formatLargeNumber for the y axis: |v| >= 1e6 -> "<v/1e6>M" (0 decimals if
 * whole, else 1), |v| >= 1e3 -> "k" likewise, else rep_fmt_tick. Quirks
 * kept: 9999 -> "10.0k", 999999 -> "1000.0k". */
void rep_fmt_tick_large(double v, char *out, size_t cap);

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

/* The dashboard's first reduction (CHARTS.md 1.3, spec B.4): among rows with
 * the same (hw, framework, spec_decoding, disagg, precision), only those of
 * the latest date are kept. keep[i] receives the verdict for rows[i]; rows
 * without a date compare as the empty string. Dates are ISO (YYYY-MM-DD...),
 * compared as strings. O(n^2) time, no allocation. */
void rep_latest_rows(const rep_row *rows, size_t n, bool *keep);

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
 * end-to-end latency chart (README 6.1); REP_DIR_NONE for
 * measuredPowerPercentTdp. */
rep_dir rep_metric_direction(rep_metric m, bool e2e);
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
	rep_dir dir;          /* the frontier direction (6.1, flipped for TTFT) */
	double cost_limit;    /* NaN: no limit; dashboard: 5 $/M tok */
	double latency_limit; /* NaN: no limit; dashboard: 60 s (TTFT x only) */
	const rep_gpu_table *gpus;
	const rep_derive_opts *derive; /* may be NULL */
} rep_chart_opts;

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
	rep_metrics *metrics; /* per input row (nrows), for tooltips */
} rep_chart;

/* One scatter chart (README 3.3): series identity, derived metrics, the
 * no-metric / cost-limit / latency-limit drops, coordinates, per-date
 * frontiers (overlay rows: per run, no date split) and the optimal flags.
 * *out is new; free with rep_chart_free. IB_EINVAL when o->x_field is not a
 * known field or o->dir is REP_DIR_NONE; IB_ENOMEM. */
int rep_chart_series(const rep_row *rows, size_t nrows, const rep_chart_opts *o, rep_chart **out,
                     ib_error *e);
void rep_chart_free(rep_chart *c);

/* ===================================================================== */
/* Interpolation at a target                                             */
/* ===================================================================== */

/* A GPU data point of the calculator / compare pages (README 3.7). cost[]
 * is indexed by rep_cost_index(provider, type). */
typedef enum { REP_COST_H = 0, REP_COST_N, REP_COST_R } rep_cost_provider;
typedef enum { REP_TOK_TOTAL = 0, REP_TOK_INPUT, REP_TOK_OUTPUT } rep_tok_type;
static inline int rep_cost_index(rep_cost_provider p, rep_tok_type t)
{
	return (int)t * 3 + (int)p;
}
/* "costh"/"costn"/"costr"; "total"/"input"/"output". */
bool rep_cost_provider_parse(const char *s, rep_cost_provider *out);
bool rep_tok_type_parse(const char *s, rep_tok_type *out);

typedef struct {
	const char *id, *hw_key;
	double interactivity, throughput, output_tput, input_tput, concurrency;
	double cost[9]; /* costh costn costr | costhi costni costri | costhOutput ... */
	double tp_per_mw, input_tp_per_mw, output_tp_per_mw;
	bool has_cache_hit_rate;
	double cache_hit_rate;
} rep_gpu_point;

typedef enum {
	REP_MODE_INTERACTIVITY_TO_THROUGHPUT = 0,
	REP_MODE_THROUGHPUT_TO_INTERACTIVITY,
} rep_interp_mode;

typedef struct {
	const char *hw_key; /* borrowed from the first point */
	double value, output_tput, input_tput;
	double cost, cost_input, cost_output;
	double tp_per_mw, input_tp_per_mw, output_tp_per_mw;
	bool has_cache_hit_rate;
	double cache_hit_rate;
	double concurrency; /* rounded (Math.round) */
	bool clamped, clamped_above, clamped_below;
	size_t nearest[2]; /* indices into the caller's points */
	size_t nnearest;   /* 1 or 2 */
} rep_interp;

/* interpolateForGPU (README 3.7): frontier upper_left on (x, y) of the
 * mode, target clamped into the frontier's x range, every metric splined and
 * clamped to its knot range, costs derived from a consistent cost x
 * throughput rate (1e-3 relative) or else splined. Returns 1 with *out filled,
 * 0 when there is no result (no points), IB_ENOMEM. */
int rep_interpolate_for_gpu(const rep_gpu_point *pts, size_t n, double target, rep_interp_mode mode,
                            rep_cost_provider prov, rep_interp *out);

/* The dashboard's throughput at a target interactivity over raw operating
 * points (interactivity inter[i], tok/s/GPU tput[i], concurrency conc[i]):
 * rep_interpolate_for_gpu in REP_MODE_INTERACTIVITY_TO_THROUGHPUT on those
 * points (its upper_left frontier and monotone spline, the target clamped
 * into the frontier's range). Returns 1 with *out filled, 0 when n is 0,
 * IB_ENOMEM. Used by `sim validate` for frontier rows. */
int rep_throughput_at(const double *inter, const double *tput, const double *conc, size_t n,
                      double target, rep_interp *out);

/* maxInteractivityAtCost (README 3.8): the highest interactivity whose
 * cost of the given provider/type is <= target_cost. Returns 1 with *out, 0
 * when none, IB_ENOMEM. */
int rep_max_interactivity_at_cost(const rep_gpu_point *pts, size_t n, double target_cost,
                                  rep_cost_provider prov, rep_tok_type type, double *out);

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
	rep_interp r;
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
int rep_compare_table_compute(const rep_gpu_point *a, size_t na, const rep_gpu_point *b, size_t nb,
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
void rep_scatter_axes(const rep_pt *pts, size_t n, const rep_axes_opts *o, rep_axis *x,
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

/* The table's default order (stable): ascending y when dir is a lower_*
 * direction, else descending. Writes indices into idx. IB_ENOMEM. */
int rep_table_sort(const double *y, size_t n, rep_dir dir, size_t *idx);

/* ===================================================================== */
/* Golden harness (tests/golden/report)                                  */
/* ===================================================================== */

/* Evaluates golden function `fn` on its JSON input, building the expected
 * JSON shape in arena a. IB_ENOENT for an unknown function, IB_EINVAL for
 * a malformed input (message names the field). */
int rep_golden_eval(ib_arena *a, const char *fn, const ib_val *input, ib_val **out, ib_error *e);
/* Compares got with expected under the README's contract (numbers 1e-9
 * relative or both <= 1e-12, non-finite as strings, byte-exact strings,
 * ordered arrays, unordered object keys). Returns true when equal; else
 * appends the path and values of the first difference to diff. */
bool rep_golden_compare(const ib_val *expected, const ib_val *got, ib_buf *diff);

#endif
