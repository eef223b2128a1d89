/* results: what power.c, power_run.c and power_mn*.c share (private). */
#ifndef IB_RESULTS_POWER_PRIV_H
#define IB_RESULTS_POWER_PRIV_H

#include "results/private.h"

/* Validity reason codes in discovery order, each once (static strings). */
typedef struct {
	const char *v[64];
	size_t n;
	int n_bad_ts, n_bad_pw; /* garbage rows seen (the first is logged) */
} pw_reasons;
void pw_reason(pw_reasons *r, const char *s);

bool pw_is_file(const char *p);
bool pw_is_num(const ib_val *v); /* int or float, not bool */

/* The raw result's window and counts (_load_benchmark_data). ok is false when
 * the window is unusable (benchmark_window null in the sidecar); counts that
 * are not positive JSON integers are 0 with a reason. */
typedef struct {
	bool ok;
	double start, end, duration;
	int64_t completed, in, out;
} pw_bench;
/* Returns IB_EINVAL (the reference crashes) when the file is JSON but not an
 * object; an unreadable file is the reason invalid_benchmark_result. */
int pw_load_bench(ib_arena *a, const char *path, pw_bench *b, pw_reasons *r, ib_error *e);

typedef struct {
	size_t count;
	bool has_energy; /* max_gap and energy set */
	double max_gap, energy;
	const char *issue; /* NULL or the device's reason */
} pw_dev;

typedef struct {
	const char **ids; /* sorted GPU ids (arena) */
	pw_dev *dev;
	size_t n;
	bool has_totals;
	double total, avg_total, avg;
} pw_integ;

/* integrate_power over one telemetry CSV. Returns 0 or IB_ENOMEM. */
int pw_integrate_csv(ib_arena *a, const char *path, double start, double end, bool has_expected,
                     int64_t expected, pw_integ *in, pw_reasons *r, res_log_fn log, void *ud);
/* Trapezoid over sorted samples clipped to [start, end] with interpolated
 * ends (both bracketed). */
double pw_integrate(const double *t, const double *p, size_t n, double start, double end);

/* Logs an invalid measurement's reasons as both aggregate_power scripts do:
 * "<tag> Power validation failed: r1, r2 (details: <val>)" on stream 2. */
void pw_log_invalid(res_log_fn log, void *ud, const char *tag, const pw_reasons *r,
                    const char *val);

/* Removes the listed keys from the agg row file, sets the schema version and
 * power_valid, appends the metrics (names[i] = vals[i], rounded to 3 places
 * for *_w / *_j and 6 otherwise) and rewrites the file atomically.
 * Returns 0; IB_EINVAL when the file holds a non-object (the reference
 * crashes); 1 when the reference reports aggregate_result_unwritable (msg
 * gets the reason). */
int pw_patch_agg(const char *path, const char *const *drop, size_t ndrop, bool valid,
                 const char *const *names, const double *vals, size_t n, char *msg, size_t cap,
                 ib_error *e);

/* The seven energy metrics of aggregate_power, in the agg row's order. */
extern const char *const pw_metric_names[7];

/* _validation_payload: the sidecar object (in a) of a measurement: o gives
 * the expected GPU count, csv and bench the paths as printed, b the window
 * (b->ok false: null), in the per-GPU results, mv[0..nmv) the metrics in
 * pw_metric_names order, acc the accumulator check (null or an object).
 * NULL when out of memory. */
ib_val *pw_sidecar(ib_arena *a, const res_power_opts *o, const char *csv, const char *bench,
                   const pw_bench *b, const pw_integ *in, bool valid, const pw_reasons *r,
                   const double *mv, size_t nmv, ib_val *acc);

/* The sidecar's benchmark_window: null, or the window and counts. */
ib_val *pw_window_val(ib_arena *a, const pw_bench *b);

#endif
