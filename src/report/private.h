/* report/private.h — helpers shared by the report module's files. */
#ifndef IB_REPORT_PRIVATE_H
#define IB_REPORT_PRIVATE_H

#include "report/report.h"

/* A JS-style comparator over indices: < 0 when a sorts before b; NaN
 * results must already be mapped to 0 by the comparator. */
typedef double (*rep_cmp_fn)(size_t a, size_t b, const void *ctx);
/* Sorts idx[0..n) in place the way V8's Array.prototype.sort does (stable).
 * Returns 0 or IB_ENOMEM. */
int rep_stable_sort(size_t *idx, size_t n, rep_cmp_fn cmp, const void *ctx);

/* A JSON number (int, float, or the strings "NaN", "Infinity",
 * "-Infinity") into *out; false for anything else. */
bool rep_json_number(const ib_val *v, double *out);

#endif
