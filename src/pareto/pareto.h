/* pareto — the dashboard's maths, shared by the report, the results
 * database's history and the simulator lab: Pareto frontiers
 * ("rooflines"), the Steffen monotone spline and d3 curveMonotoneX paths,
 * interpolation at a target (the calculator and compare pages), the stable
 * sort of JS's Array.prototype.sort and JS number formatting.
 *
 * Every function reproduces the dashboard (tests/golden/report/README.md is
 * the specification). Pure computation: nothing here prints, reads files or
 * calls exit().
 *
 * Conventions of this header:
 * - Numbers follow IEEE/JS semantics: comparisons with NaN are false, missing
 *   numbers are NaN unless a contract says otherwise.
 * - Every sort is stable (JS Array.prototype.sort), so which of two identical
 *   points lands on a frontier depends on input order.
 * - Functions that return index arrays write indices into the caller's
 *   input array, in the algorithm's output order; the caller provides room for
 *   n indices.
 * - Fallible functions return 0 or a negative ib_err (IB_ENOMEM, IB_EINVAL).
 */
#ifndef IB_PARETO_H
#define IB_PARETO_H

#include "base/base.h"

/* ===================================================================== */
/* Frontiers                                                             */
/* ===================================================================== */

/* The dashboard's direction names (historical; they do not name the corner):
 * UPPER_LEFT maximises x and y, UPPER_RIGHT minimises x and maximises y,
 * LOWER_LEFT minimises both, LOWER_RIGHT maximises x and minimises y. */
typedef enum {
	PAR_DIR_UPPER_LEFT = 0,
	PAR_DIR_UPPER_RIGHT,
	PAR_DIR_LOWER_LEFT,
	PAR_DIR_LOWER_RIGHT,
	PAR_DIR_NONE, /* a metric without a direction (measuredPowerPercentTdp) */
} par_dir;

/* "upper_left" ... "lower_right" (and "none"); false for anything else. */
bool par_dir_parse(const char *s, par_dir *out);
const char *par_dir_name(par_dir d);
/* The direction after the x polarity flips (TTFT x-axis for input-throughput
 * metrics): upper_left <-> upper_right, lower_left <-> lower_right. */
par_dir par_dir_flip_x(par_dir d);

/* A point of a chart; id is borrowed (may be NULL). */
typedef struct {
	const char *id;
	double x, y;
} par_pt;

/* The frontier of pts[0..n) in direction d (README 3.1), with every quirk of
 * paretoFront*: upper_left's NaN-y "wall", upper_right's equal-y admission,
 * strict y < minY for the lower directions, lower_right in x-descending order.
 * Writes the indices of the frontier points into idx (room for n) in the
 * algorithm's output order and their number into *nidx. d must not be
 * PAR_DIR_NONE (IB_EINVAL). IB_ENOMEM when the scratch sort array fails. */
int par_pareto_front(par_dir d, const par_pt *pts, size_t n, size_t *idx, size_t *nidx);

/* The frontier as a chart draws it (README 3.2): points with x not finite or
 * <= 0 are dropped first (isFrontierEligible), then par_pareto_front, then a
 * stable sort by x ascending. The frontier is drawn as a line when *nidx >= 2.
 * Same errors as par_pareto_front. */
int par_roofline(par_dir d, const par_pt *pts, size_t n, size_t *idx, size_t *nidx);

/* ===================================================================== */
/* Monotone spline (Steffen / d3.curveMonotoneX)                          */
/* ===================================================================== */

/* Slopes m[0..n) of the monotone cubic through (xs[i], ys[i]), xs ascending
 * (README 3.6): n < 2 gives zeros; interior slopes by Steffen's rule with
 * NaN -> 0; end slopes one-sided (so a two-point spline is curved, unlike the
 * straight segment d3 draws). */
void par_spline_slopes(const double *xs, const double *ys, size_t n, double *m);
/* The cubic Hermite value at t with the slopes above: n = 0 -> 0, n = 1 ->
 * ys[0], t <= xs[0] -> ys[0], t >= xs[n-1] -> ys[n-1] (flat outside). */
double par_spline_eval(const double *xs, const double *ys, const double *m, size_t n, double t);
/* Convenience: slopes + evaluation of one target (allocates n doubles; NaN
 * when that allocation fails). */
double par_spline_at(const double *xs, const double *ys, size_t n, double t);

/* Appends the SVG path data d3.line().curve(d3.curveMonotoneX) draws through
 * the pixel points (x[i], y[i]): "M x0,y0" then "L" for two points, one "C"
 * per segment for three or more, consecutive identical points skipped,
 * numbers rounded to 3 decimals in JS's shortest form; one point gives
 * "Mx,yZ". n = 0 appends nothing and returns 0 (the dashboard's null): the
 * caller tests n. Returns 0 or IB_ENOMEM. */
int par_monotone_path(const par_pt *pts, size_t n, ib_buf *out);

/* ===================================================================== */
/* JS number formatting (rounding half away from zero on the binary value) */
/* ===================================================================== */

/* Number.prototype.toString(): shortest round-trip digits, exponent form
 * below 1e-6 and from 1e21 ("1e+21", "1.5e-7"), "NaN", "Infinity". out gets
 * at least 32 bytes. */
void par_js_num(double v, char *out, size_t cap);
/* Number.prototype.toFixed(digits) for 0 <= digits <= 20 (exact decimal
 * expansion of the double, ties away from zero; |v| >= 1e21 falls back to
 * toString as JS does). */
void par_js_fixed(double v, int digits, char *out, size_t cap);
/* parseFloat(v.toFixed(digits)) — the "round3" of costUser/powerUser. */
double par_round_fixed(double v, int digits);
/* Math.round (half toward +infinity). */
double par_js_round(double v);
/* Intl.NumberFormat('en-US', {minimumFractionDigits: lo,
 * maximumFractionDigits: hi}).format(v): grouping commas, half away from
 * zero. */
void par_fmt_grouped(double v, int lo, int hi, char *out, size_t cap);
/* The table cell format (formatInferenceTableNumber): 0 decimals for
 * |v| >= 100, 1 for >= 1, 3 for >= 0.01, else 4; grouped. */
void par_fmt_table(double v, char *out, size_t cap);
/* The throughput column: always 1 decimal, grouped. */
void par_fmt_table_1dp(double v, char *out, size_t cap);
/* Axis/tooltip formatNumber: v < 10000 -> toString(), else grouped with up
 * to 3 fraction digits. */
void par_fmt_tick(double v, char *out, size_t cap);
/* formatLargeNumber for the y axis: |v| >= 1e6 -> "<v/1e6>M" (0 decimals if
 * whole, else 1), |v| >= 1e3 -> "k" likewise, else par_fmt_tick. Quirks
 * kept: 9999 -> "10.0k", 999999 -> "1000.0k". */
void par_fmt_tick_large(double v, char *out, size_t cap);

/* ===================================================================== */
/* Sorting                                                               */
/* ===================================================================== */

/* A JS-style comparator over indices: < 0 when a sorts before b; NaN
 * results must already be mapped to 0 by the comparator. */
typedef double (*par_cmp_fn)(size_t a, size_t b, const void *ctx);
/* Sorts idx[0..n) in place the way V8's Array.prototype.sort does (stable).
 * Returns 0 or IB_ENOMEM. */
int par_stable_sort(size_t *idx, size_t n, par_cmp_fn cmp, const void *ctx);

/* The table's default order (stable): ascending y when dir is a lower_*
 * direction, else descending. Writes indices into idx. IB_ENOMEM. */
int par_table_sort(const double *y, size_t n, par_dir dir, size_t *idx);

/* ===================================================================== */
/* Interpolation at a target                                             */
/* ===================================================================== */

/* A GPU data point of the calculator / compare pages (README 3.7). cost[]
 * is indexed by par_cost_index(provider, type). */
typedef enum { PAR_COST_H = 0, PAR_COST_N, PAR_COST_R } par_cost_provider;
typedef enum { PAR_TOK_TOTAL = 0, PAR_TOK_INPUT, PAR_TOK_OUTPUT } par_tok_type;
static inline int par_cost_index(par_cost_provider p, par_tok_type t)
{
	return (int)t * 3 + (int)p;
}
/* "costh"/"costn"/"costr"; "total"/"input"/"output". */
bool par_cost_provider_parse(const char *s, par_cost_provider *out);
bool par_tok_type_parse(const char *s, par_tok_type *out);

typedef struct {
	const char *id, *hw_key;
	double interactivity, throughput, output_tput, input_tput, concurrency;
	double cost[9]; /* costh costn costr | costhi costni costri | costhOutput ... */
	double tp_per_mw, input_tp_per_mw, output_tp_per_mw;
	bool has_cache_hit_rate;
	double cache_hit_rate;
} par_gpu_point;

typedef enum {
	PAR_MODE_INTERACTIVITY_TO_THROUGHPUT = 0,
	PAR_MODE_THROUGHPUT_TO_INTERACTIVITY,
} par_interp_mode;

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
} par_interp;

/* interpolateForGPU (README 3.7): frontier upper_left on (x, y) of the
 * mode, target clamped into the frontier's x range, every metric splined and
 * clamped to its knot range, costs derived from a consistent cost x
 * throughput rate (1e-3 relative) or else splined. Returns 1 with *out filled,
 * 0 when there is no result (no points), IB_ENOMEM. */
int par_interpolate_for_gpu(const par_gpu_point *pts, size_t n, double target, par_interp_mode mode,
                            par_cost_provider prov, par_interp *out);

/* The dashboard's throughput at a target interactivity over raw operating
 * points (interactivity inter[i], tok/s/GPU tput[i], concurrency conc[i]):
 * par_interpolate_for_gpu in PAR_MODE_INTERACTIVITY_TO_THROUGHPUT on those
 * points (its upper_left frontier and monotone spline, the target clamped
 * into the frontier's range). Returns 1 with *out filled, 0 when n is 0,
 * IB_ENOMEM. Used by `sim validate` for frontier rows. */
int par_throughput_at(const double *inter, const double *tput, const double *conc, size_t n,
                      double target, par_interp *out);

/* maxInteractivityAtCost (README 3.8): the highest interactivity whose
 * cost of the given provider/type is <= target_cost. Returns 1 with *out, 0
 * when none, IB_ENOMEM. */
int par_max_interactivity_at_cost(const par_gpu_point *pts, size_t n, double target_cost,
                                  par_cost_provider prov, par_tok_type type, double *out);

/* Math.max of two numbers: NaN wins (C's fmax drops it). */
double par_js_max(double a, double b);
/* The constant c of a metric defined as c / throughput (or, with ratio, as
 * c * throughput) over vals[i] and tputs[i]: every pair with both values > 0
 * must agree within 1e-3 relative with the first; false when none
 * qualifies or they disagree. */
bool par_recover_constant(const double *vals, const double *tputs, size_t n, bool ratio,
                          double *out);
/* c / tput when have and tput > 0, else 0. */
double par_reciprocal_at(bool have, double c, double tput);

#endif
