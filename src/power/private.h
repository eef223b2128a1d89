/* power: what power.c, power_run.c, power_mn*.c, csv.c and util.c share
 * (private). */
#ifndef IB_POWER_PRIVATE_H
#define IB_POWER_PRIVATE_H

#include "power/power.h"

/* One CSV record: fields point into the reader's arena (NUL-terminated). */
typedef struct {
	const char **f;
	size_t *len;
	size_t n;
	int line; /* 1-based line where the record starts */
} pw_csv_row;

typedef struct {
	pw_csv_row *rows;
	size_t n, cap;
	bool error; /* Python's csv.Error (field larger than the field limit, or a
	             * new-line character seen in an unquoted field) */
	int error_line;
} pw_csv;

/* Reads CSV text the way Python's csv.reader (excel dialect, strict off)
 * reads a file opened with newline='': records end at \n, \r or \r\n
 * outside quotes, an empty line is an empty record (n == 0). With
 * replace_invalid, invalid UTF-8 becomes U+FFFD first (errors="replace");
 * without, invalid UTF-8 sets *bad_utf8 (when not NULL) and stops reading
 * there, as a UnicodeDecodeError would. Rows are read until the first
 * csv.Error (then c->error is set and the rows before it are kept).
 * Returns 0 or IB_ENOMEM; c->rows is freed with pw_csv_free. */
int pw_csv_parse(ib_arena *a, const char *text, size_t n, bool skipinitialspace,
                 bool replace_invalid, bool *bad_utf8, pw_csv *c);
void pw_csv_free(pw_csv *c);

/* A telemetry CSV's header (nvidia-smi, amd-smi, infbench sim
 * --gpu-metrics): the stripped names and the three detected columns (-1:
 * absent): timestamp = the first name containing "time", power = the first
 * containing "power" but not limit/cap/max/min, GPU = a name exactly index,
 * gpu, gpu_id, gpu_index, card or device (any case). */
typedef struct {
	const char **names;
	size_t n;
	int ts, pw, gpu;
} pw_header;
/* Reads a telemetry CSV (skipinitialspace, invalid UTF-8 replaced) and its
 * header; *unreadable when the file cannot be read (0 returned). Returns 0
 * or IB_ENOMEM; c->rows is freed with pw_csv_free. */
int pw_load_telemetry(ib_arena *a, const char *path, pw_csv *c, pw_header *h, bool *unreadable);
/* Row r's cell in column col, stripped ("" when col is -1 or past the row). */
const char *pw_cell(const pw_csv_row *r, int col, size_t *len);

/* The index of header name `name` in the first row's stripped names (the
 * last one when repeated, as csv.DictReader's dict keeps it), or -1. */
int pw_csv_col(const char *const *names, size_t n, const char *name);

/* Python's str.strip() on UTF-8 text: returns the start, sets *len. */
const char *pw_py_strip(const char *s, size_t n, size_t *len);

/* str(Path(p)) of Python: repeated slashes and "." parts removed, no trailing
 * slash; "" is ".". Allocated in a. */
char *pw_py_path(ib_arena *a, const char *p);
/* A list value of the n strings v[0..n) (copied into a); NULL on no memory. */
ib_val *pw_str_list(ib_arena *a, const char *const *v, size_t n);
/* Path(p).with_name(name) of Python for a normalised path. */
char *pw_path_with_name(ib_arena *a, const char *p, const char *name);
/* Path(p).stem. */
char *pw_path_stem(ib_arena *a, const char *p);

/* Python round(x, nd) (correctly rounded, half to even on the binary value). */
double pw_py_round(double x, int nd);

/* Reads a JSON file with Python's json.loads rules (NaN, Infinity accepted). */
int pw_read_json(ib_arena *a, const char *path, ib_val **out, ib_error *e);

/* Timestamp of one telemetry cell, as aggregate_power._parse_timestamp (the
 * cell already stripped): false when unparseable. */
bool pw_parse_timestamp(const char *s, size_t n, double *out);
/* aggregate_power._parse_power: false when None. */
bool pw_parse_power(const char *s, size_t n, double *out);

/* Sort key of GPU ids: numbers (all ASCII digits) by value first, then the
 * others by code point. */
int pw_gpu_cmp(const char *a, const char *b);

/* The exact mean of n doubles, correctly rounded (statistics.mean). */
double pw_mean(const double *v, size_t n);

/* Emits one line to the log callback of an options struct. */
void pw_logf(pw_log_fn log, void *ud, int stream, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Validity reason codes in discovery order, each once (static strings). */
typedef struct {
	const char *v[64];
	size_t n;
	int n_bad_ts, n_bad_pw; /* garbage rows seen (the first is logged) */
} pw_reasons;
void pw_reason(pw_reasons *r, const char *s);

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
                     int64_t expected, pw_integ *in, pw_reasons *r, pw_log_fn log, void *ud);
/* Trapezoid over sorted samples clipped to [start, end] with interpolated
 * ends (both bracketed). */
double pw_integrate(const double *t, const double *p, size_t n, double start, double end);

/* Logs an invalid measurement's reasons as both aggregate_power scripts do:
 * "<tag> Power validation failed: r1, r2 (details: <val>)" on stream 2. */
void pw_log_invalid(pw_log_fn log, void *ud, const char *tag, const pw_reasons *r, const char *val);

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
ib_val *pw_sidecar(ib_arena *a, const pw_opts *o, const char *csv, const char *bench,
                   const pw_bench *b, const pw_integ *in, bool valid, const pw_reasons *r,
                   const double *mv, size_t nmv, ib_val *acc);

/* The sidecar's benchmark_window: null, or the window and counts. */
ib_val *pw_window_val(ib_arena *a, const pw_bench *b);

#endif
