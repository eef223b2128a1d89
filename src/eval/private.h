/* eval internals shared by validate.c and collect.c: reading files the way
 * Python's open() + json.load() fail, and the few Python operators the
 * reference applies to JSON values. */
#ifndef IB_EVAL_PRIVATE_H
#define IB_EVAL_PRIVATE_H

#include "eval/eval.h"

/* How a Python open(path) + json.load(f) of a file ended. */
typedef enum {
	EV_LOAD_OK,
	EV_LOAD_OSERROR, /* OSError: msg is "[Errno N] <strerror>: '<path>'" */
	EV_LOAD_JSON,    /* json.JSONDecodeError: msg is our parser's "line L column C: ..." */
	EV_LOAD_UNICODE, /* UnicodeDecodeError (not caught where the reference catches
	                    JSON errors): msg is Python's text */
} ev_load;

/* Loads path as JSON into a; on failure *out is NULL and msg (cap bytes)
 * explains as above. detail (may be NULL) receives the error with the path
 * and, for EV_LOAD_JSON, the line and column. */
ev_load ev_load_json(ib_arena *a, const char *path, ib_val **out, char *msg, size_t cap,
                     ib_error *detail);

/* Appends Python's repr() of a str (quotes chosen as Python does). */
void ev_py_repr(ib_buf *b, const char *s, size_t n);

/* Python `key in c` for a str key: 1, 0, or -1 where Python raises
 * TypeError (c is not a dict, list or str). */
int ev_py_in(const ib_val *c, const ib_val *key);
/* c[key] for a dict (Python key equality), NULL when absent or c is no dict. */
const ib_val *ev_py_getitem(const ib_val *c, const ib_val *key);

#endif
