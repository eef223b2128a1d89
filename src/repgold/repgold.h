/* repgold — the golden-check harness of the report maths
 * (tests/golden/report/README.md): one adapter per dashboard function from a
 * case's input.json to the expected JSON shape, and the README's comparison.
 * Used by `infbench report-golden` only; not part of the report library. */
#ifndef IB_REPGOLD_H
#define IB_REPGOLD_H

#include "report/report.h"

/* Evaluates golden function `fn` on its JSON input, building the expected
 * JSON shape in arena a. IB_ENOENT for an unknown function, IB_EINVAL for
 * a malformed input (message names the field). */
int rg_eval(ib_arena *a, const char *fn, const ib_val *input, ib_val **out, ib_error *e);
/* Compares got with expected under the README's contract (numbers 1e-9
 * relative or both <= 1e-12, non-finite as strings, byte-exact strings,
 * ordered arrays, unordered object keys). Returns true when equal; else
 * appends the path and values of the first difference to diff. */
bool rg_compare(const ib_val *expected, const ib_val *got, ib_buf *diff);

#endif
