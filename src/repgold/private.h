/* repgold/private.h — private to the golden harness (golden.c, golden_*.c):
 * JSON accessors and one adapter per golden function. */
#ifndef IB_REPGOLD_PRIVATE_H
#define IB_REPGOLD_PRIVATE_H

#include "repgold/repgold.h"

/* A number from JSON: ints, floats and the strings "NaN", "Infinity",
 * "-Infinity"; anything else (or NULL) is NaN. */
double rg_num(const ib_val *v);
bool rg_is_num(const ib_val *v);
double rg_getnum(const ib_val *m, const char *k);
const char *rg_getstr(const ib_val *m, const char *k);
const ib_val *rg_getlist(const ib_val *m, const char *k);
size_t rg_len(const ib_val *l);
/* A number for the expected-JSON shape: non-finite values as strings. */
ib_val *rg_vnum(ib_arena *a, double x);
/* m[k] = v / push v; a NULL v (allocation failed) gives IB_ENOMEM. */
int rg_set(ib_arena *a, ib_val *m, const char *k, ib_val *v);
int rg_push(ib_arena *a, ib_val *l, ib_val *v);

/* Calculator GPU points from a JSON list (arena), and a par_interp as the
 * dashboard's InterpolatedResult object. */
par_gpu_point *rg_read_gpu_points(ib_arena *a, const ib_val *l, size_t *n);
ib_val *rg_interp_obj(ib_arena *a, const par_gpu_point *pts, const par_interp *r);

/* One adapter per function: reads `in`, fills the map `out`. */
typedef int (*rg_fn)(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int rg_pareto_front(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int rg_roofline(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int rg_table_sort(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int rg_number_format(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int rg_monotone_spline(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int rg_monotone_path(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int rg_hardware_key(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int rg_derived_metrics(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int rg_chart_series(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int rg_interpolate_for_gpu(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int rg_max_interactivity_at_cost(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int rg_interpolate_trend(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int rg_compare_table(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int rg_compare_narrative(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int rg_linear_nice_ticks(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int rg_scatter_axes(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int rg_parallelism_label(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int rg_vendor_colors(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int rg_gradient_stops(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int rg_eval_aggregate(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);

#endif
