/* results: helpers shared by the files of the module (not part of its face). */
#ifndef IB_RESULTS_PRIVATE_H
#define IB_RESULTS_PRIVATE_H

#include "results/results.h"

/* One CSV record: fields point into the reader's arena (NUL-terminated). */
typedef struct {
	const char **f;
	size_t *len;
	size_t n;
	int line; /* 1-based line where the record starts */
} res_csv_row;

typedef struct {
	res_csv_row *rows;
	size_t n, cap;
	bool error; /* Python's csv.Error (field larger than the field limit, or a
	             * new-line character seen in an unquoted field) */
	int error_line;
} res_csv;

/* Reads CSV text the way Python's csv.reader (excel dialect, strict off)
 * reads a file opened with newline='': records end at \n, \r or \r\n
 * outside quotes, an empty line is an empty record (n == 0). With
 * replace_invalid, invalid UTF-8 becomes U+FFFD first (errors="replace");
 * without, invalid UTF-8 sets *bad_utf8 (when not NULL) and stops reading
 * there, as a UnicodeDecodeError would. Rows are read until the first
 * csv.Error (then c->error is set and the rows before it are kept).
 * Returns 0 or IB_ENOMEM; c->rows is freed with res_csv_free. */
int res_csv_parse(ib_arena *a, const char *text, size_t n, bool skipinitialspace,
                  bool replace_invalid, bool *bad_utf8, res_csv *c);
void res_csv_free(res_csv *c);

/* The index of header name `name` in the first row's stripped names (the
 * last one when repeated, as csv.DictReader's dict keeps it), or -1. */
int res_csv_col(const char *const *names, size_t n, const char *name);

/* Python's str.strip() on UTF-8 text: returns the start, sets *len. */
const char *res_py_strip(const char *s, size_t n, size_t *len);

/* str(Path(p)) of Python: repeated slashes and "." parts removed, no trailing
 * slash; "" is ".". Allocated in a. */
char *res_py_path(ib_arena *a, const char *p);
/* Path(p).with_name(name) of Python for a normalised path. */
char *res_path_with_name(ib_arena *a, const char *p, const char *name);
/* Path(p).stem. */
char *res_path_stem(ib_arena *a, const char *p);

/* Python round(x, nd) (correctly rounded, half to even on the binary value). */
double res_py_round(double x, int nd);

/* Reads a JSON file with Python's json.loads rules (NaN, Infinity accepted). */
int res_read_json(ib_arena *a, const char *path, ib_val **out, ib_error *e);
/* Writes v as json.dumps(v, indent=2) (no newline) to path atomically. */
int res_write_json(const char *path, const ib_val *v, ib_error *e);

/* Timestamp of one telemetry cell, as aggregate_power._parse_timestamp (the
 * cell already stripped): false when unparseable. */
bool res_parse_timestamp(const char *s, size_t n, double *out);
/* datetime.fromisoformat(s) of Python 3.11 (s[0..n), no NUL): false when
 * it raises. *aware tells whether it has an offset; *us is its Unix time in
 * microseconds, read as UTC when naive. */
bool res_py_fromiso(const char *s, size_t n, bool *aware, long long *us);
/* aggregate_power._parse_power: false when None. */
bool res_parse_power(const char *s, size_t n, double *out);

/* Sort key of GPU ids: numbers (all ASCII digits) by value first, then the
 * others by code point. */
int res_gpu_cmp(const char *a, const char *b);

/* The exact mean of n doubles, correctly rounded (statistics.mean). */
double res_mean(const double *v, size_t n);

/* Emits one line to the log callback of an options struct. */
void res_logf(res_log_fn log, void *ud, int stream, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
