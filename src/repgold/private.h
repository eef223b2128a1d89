/* repgold/private.h — private to the golden harness (golden.c, golden_*.c):
 * JSON accessors and one adapter per golden function. */
#ifndef IB_REPGOLD_PRIVATE_H
#define IB_REPGOLD_PRIVATE_H

#include "repgold/repgold.h"

/* A number from JSON: ints, floats and the strings "NaN", "Infinity",
 * "-Infinity"; anything else (or NULL) is NaN. */
double g_num(const ib_val *v);
bool g_is_num(const ib_val *v);
double g_getnum(const ib_val *m, const char *k);
const char *g_getstr(const ib_val *m, const char *k);
const ib_val *g_getlist(const ib_val *m, const char *k);
size_t g_len(const ib_val *l);
/* A number for the expected-JSON shape: non-finite values as strings. */
ib_val *g_vnum(ib_arena *a, double x);
/* m[k] = v / push v; a NULL v (allocation failed) gives IB_ENOMEM. */
int g_set(ib_arena *a, ib_val *m, const char *k, ib_val *v);
int g_push(ib_arena *a, ib_val *l, ib_val *v);

/* Calculator GPU points from a JSON list (arena), and a rep_interp as the
 * dashboard's InterpolatedResult object. */
rep_gpu_point *g_read_gpu_points(ib_arena *a, const ib_val *l, size_t *n);
ib_val *g_interp_obj(ib_arena *a, const rep_gpu_point *pts, const rep_interp *r);

/* One adapter per function: reads `in`, fills the map `out`. */
typedef int (*g_fn)(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int g_pareto_front(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int g_roofline(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int g_table_sort(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int g_number_format(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int g_monotone_spline(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int g_monotone_path(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int g_hardware_key(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int g_derived_metrics(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int g_chart_series(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int g_interpolate_for_gpu(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int g_max_interactivity_at_cost(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int g_interpolate_trend(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int g_compare_table(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int g_compare_narrative(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int g_linear_nice_ticks(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int g_scatter_axes(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int g_parallelism_label(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int g_vendor_colors(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int g_gradient_stops(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);
int g_eval_aggregate(ib_arena *a, const ib_val *in, ib_val *out, ib_error *e);

#endif
