/* fmt — a generic value tree, YAML loading with PyYAML 1.1 typing, and a JSON
 * writer byte-compatible with Python's json.dumps.
 *
 * Values live in an ib_arena: whoever owns the arena owns every value built in
 * it, and nothing is freed individually. Values may be shared between trees of
 * the same arena (rows share the raw config values they copy).
 */
#ifndef IB_FMT_H
#define IB_FMT_H

#include "base/base.h"

typedef enum {
	IB_V_NULL,
	IB_V_BOOL,
	IB_V_INT,
	IB_V_FLOAT,
	IB_V_STR,
	IB_V_DATE, /* a YAML 1.1 date or timestamp; the text is kept in str */
	IB_V_LIST,
	IB_V_MAP,
} ib_vtype;

typedef struct ib_val ib_val;
typedef struct {
	ib_val *key;
	ib_val *val;
} ib_kv;

struct ib_val {
	ib_vtype type;
	int line, col;    /* 1-based source position; 0 for synthesized values */
	const char *file; /* source file name, NULL for synthesized values */
	/* IB_V_FLOAT only: the exact decimal text of a JSON integer beyond 64
	 * bits (f holds the nearest double), written back as read; NULL for
	 * every other value. */
	const char *bigint;
	union {
		bool b;
		int64_t i;
		double f;
		struct {
			const char *s; /* NUL-terminated; may also contain NULs */
			size_t len;
		} str;
		struct {
			ib_val **v;
			size_t n, cap;
		} list;
		struct {
			ib_kv *kv;
			size_t n, cap;
		} map;
	};
};

/* ---- construction (NULL only when the arena is out of memory) ---- */
ib_val *ib_v_null(ib_arena *a);
ib_val *ib_v_bool(ib_arena *a, bool b);
ib_val *ib_v_int(ib_arena *a, int64_t i);
ib_val *ib_v_float(ib_arena *a, double f);
ib_val *ib_v_str(ib_arena *a, const char *s);
ib_val *ib_v_strn(ib_arena *a, const char *s, size_t n);
ib_val *ib_v_list(ib_arena *a);
ib_val *ib_v_map(ib_arena *a);
/* An empty map with room for cap keys before it grows. */
ib_val *ib_v_map_cap(ib_arena *a, size_t cap);

/* Appends v to list l. */
int ib_list_push(ib_arena *a, ib_val *l, ib_val *v);

/* The value under string key `key` in map m, or NULL when m is not a map or
 * has no such key. */
ib_val *ib_map_get(const ib_val *m, const char *key);
/* The key node itself (for its source position), or NULL. */
const ib_kv *ib_map_find(const ib_val *m, const char *key);
bool ib_map_has(const ib_val *m, const char *key);
/* Sets m[key] = v with Python dict semantics: an existing key keeps its
 * position, a new one is appended. */
int ib_map_set(ib_arena *a, ib_val *m, const char *key, ib_val *v);
/* Sets m[k] = v where k is any scalar value (Python equality of keys). */
int ib_map_set_key(ib_arena *a, ib_val *m, ib_val *k, ib_val *v);
/* A static string node for a literal, to serve as a map key shared by many
 * maps without allocation: `static ib_val k = IB_KEY_INIT("name");`. */
#define IB_KEY_INIT(lit)                                                                           \
	{                                                                                          \
		.type = IB_V_STR, .str = {.s = "" lit, .len = sizeof(lit) - 1 }                    \
	}
/* rc = (m[lit] = v) with a key node private to this call site (see above). */
#define IB_MAP_SET_LIT(rc, a, m, lit, v)                                                           \
	do {                                                                                       \
		static ib_val key_ = IB_KEY_INIT(lit);                                             \
		(rc) = ib_map_set_key((a), (m), &key_, (v));                                       \
	} while (0)
/* Removes key if present; later keys move up. Returns whether it was there. */
bool ib_map_del(ib_val *m, const char *key);
/* A new map holding the same key/value pointers (Python's {**m}). */
ib_val *ib_map_copy(ib_arena *a, const ib_val *m);

/* Python ==: numbers compare by value across bool/int/float, maps ignore key
 * order, lists compare item by item. */
bool ib_val_equal(const ib_val *x, const ib_val *y);
/* A hash consistent with ib_val_equal (equal values hash equal; map key order
 * does not matter). */
uint64_t ib_val_hash(const ib_val *v);
/* Python bool(x). */
bool ib_val_truthy(const ib_val *v);
/* Python int(v) of a value (the one coercion): a bool, an int, a finite
 * float truncated toward zero (within int64), or a str by ib_py_int; false
 * where Python raises (or the result does not fit int64), with *why (when
 * why is non-NULL) in Python's words. */
bool ib_val_py_int(const ib_val *v, int64_t *out, const char **why);
/* Python's type name for the value: NoneType, bool, int, float, str, date,
 * list, dict. */
const char *ib_vtype_pyname(const ib_val *v);
/* Is v a number (bool excluded)? */
static inline bool ib_val_is_int(const ib_val *v)
{
	return v && v->type == IB_V_INT;
}
/* Appends Python's str(v): strings as they are, None/True/False, numbers as
 * Python prints them (1.0, inf); containers as their short repr. */
void ib_val_pystr(ib_buf *b, const ib_val *v);
/* Writes a short Python-repr-like rendering of v into out (truncated). */
void ib_val_repr(const ib_val *v, char *out, size_t cap);

/* ---- YAML ---- */

/* Parses one YAML document with PyYAML 1.1 `safe_load` semantics (matrix.md
 * §0): plain scalars typed by the YAML 1.1 resolver, quoted scalars are
 * strings, duplicate keys keep the first position and the last value,
 * anchors/aliases and merge keys resolved. An empty document is null.
 * `name` is recorded as the file of every node. Errors: IB_EPARSE with
 * file:line:col (syntax errors, several documents, unsupported tags or
 * unhashable keys), IB_ERANGE for integers beyond 64 bits. */
int ib_yaml_load(ib_arena *a, const char *name, const char *text, size_t len, ib_val **out,
                 ib_error *e);
/* The same, but a key repeated in one mapping is an error (IB_EPARSE at the
 * second key: "found duplicate key 'k'"), as the changelog gate's loader. */
int ib_yaml_load_unique(ib_arena *a, const char *name, const char *text, size_t len, ib_val **out,
                        ib_error *e);
/* The largest YAML file any command reads (master configs, runners.yaml,
 * perf-changelog.yaml, calibration and profiles, task files): 64 MiB. */
#define IB_YAML_MAX_FILE ((size_t)64 << 20)
/* Reads and parses a file; a missing file is IB_ENOENT, a file over
 * IB_YAML_MAX_FILE IB_ERANGE (from its size, before it is read). */
int ib_yaml_load_file(ib_arena *a, const char *path, ib_val **out, ib_error *e);

/* Types one plain scalar by the PyYAML 1.1 rules into *out (allocated in a).
 * Exposed for tests. */
int ib_yaml_resolve_plain(ib_arena *a, const char *s, size_t n, ib_val **out, ib_error *e);

/* ---- JSON ---- */

typedef struct {
	int indent;        /* < 0: one line (default); >= 0: json.dumps(indent=N) */
	bool compact;      /* separators (",", ":") instead of (", ", ": ") */
	bool ensure_ascii; /* \uXXXX for non-ASCII (json.dumps default) */
	bool sort_keys;
} ib_json_opts;

/* The json.dumps defaults: one line, ", " and ": ", ensure_ascii. */
#define IB_JSON_PYTHON ((ib_json_opts){.indent = -1, .ensure_ascii = true})

/* Appends the JSON text of v to out. Dates are not serializable (IB_EINVAL),
 * as in Python. NaN and infinities are written as NaN / Infinity / -Infinity. */
int ib_json_write(ib_buf *out, const ib_val *v, const ib_json_opts *o, ib_error *e);
/* The same, as the item of a container nested at `depth` (its lines are
 * indented for that depth; the caller wrote the first line's indentation). */
int ib_json_write_at(ib_buf *out, const ib_val *v, const ib_json_opts *o, int depth, ib_error *e);
/* Writes the JSON text of v to f, one top-level list item at a time, so that
 * a large list never sits in memory twice. Same format as ib_json_write. */
int ib_json_write_file(FILE *f, const ib_val *v, const ib_json_opts *o, ib_error *e);
/* Writes the JSON text of v to path atomically (ib_buf_write_file): nothing
 * is written on any error, and an allocation failure names path. */
int ib_json_write_path(const char *path, const ib_val *v, const ib_json_opts *o, ib_error *e);
/* Appends s as a JSON string literal. A byte that does not start valid UTF-8
 * is written as U+FFFD (\ufffd with ensure_ascii), so the text stays valid
 * UTF-8 as JSON must be. */
int ib_json_write_str(ib_buf *out, const char *s, size_t n, bool ensure_ascii);
/* Parses JSON text (any value at the top) into a tree in arena a, keeping
 * key order; duplicate keys keep the first position and the last value, as
 * Python's json does; \u0000 is allowed in strings. An integer beyond 64
 * bits (Python reads any size) becomes an IB_V_FLOAT holding the nearest
 * double and, in `bigint`, its exact digits, which the writers and
 * ib_val_pystr print unchanged; NaN, Infinity, -Infinity and numbers beyond
 * the double range (1e400) are read as Python reads them.
 * Malformed text is IB_EPARSE with the line and column of the error.
 * Values carry no source positions. Object keys are shared: one value per
 * distinct key (up to 4,096 of them) per parse, in every map that has it, so
 * a key must not be modified in place. A top-level list is read one item at
 * a time, so memory holds one item's Jansson tree besides the result. */
int ib_json_parse(ib_arena *a, const char *name, const char *text, size_t len, ib_val **out,
                  ib_error *e);
/* The largest JSON file ib_json_parse_file reads (agg rows, matrices, result
 * files): 512 MiB, refused from its size (IB_ERANGE) before it is read. */
#define IB_JSON_MAX_FILE ((size_t)512 << 20)
int ib_json_parse_file(ib_arena *a, const char *path, ib_val **out, ib_error *e);
/* Python repr(float) (shortest round-trip text) into out (at least 32 bytes). */
void ib_json_float_repr(double x, char *out, size_t cap);
/* Python's repr(float(s)) for a JSON number literal s[0..n) with a fraction
 * or an exponent (the caller checked the grammar), computed exactly in
 * 128-bit integers, without strtod, for the values 1e-20 <= |x| < 9e15 of
 * at most 19 significant digits that are not a power of two; returns the
 * length written to out (at least 32 bytes), or 0 for the rest (the caller
 * reads the number with strtod and uses ib_json_float_repr). */
size_t ib_json_float_literal_repr(const char *s, size_t n, char *out);
/* Writes the JSON text t[0..n) to out as ib_json_write with {.indent =
 * indent} writes the value ib_json_parse reads from it, nested at depth
 * `depth` (the caller wrote the first line's indentation), in one pass and
 * without building the tree. It handles the common forms only: strings of
 * printable ASCII without escapes, integers of at most 18 digits, floats
 * that ib_json_float_literal_repr converts, no key repeated in an object,
 * nesting to 64 and 1,024 keys in all. For anything else, text that is not
 * JSON included, it returns 1 and leaves out as it was: the caller parses
 * the text (which reports the error). 0 when written; IB_ENOMEM. */
int ib_json_reindent(ib_buf *out, const char *t, size_t n, int indent, int depth);

/* ---- tables ---- */

/* Appends tabulate(rows, headers, tablefmt="github") of Python's tabulate
 * 0.10 with its defaults (no trailing newline): each column typed as the most
 * generic of its cells (None and "" do not count; bool < int < float < str,
 * numeric strings count as numbers, "1,000" too), numeric columns formatted
 * with "g" for floats and right-aligned on the decimal point, text columns
 * stripped and left-aligned, widths in code points and at least the header
 * plus 2. cells is row-major, nrows * ncols; a NULL cell is None (empty).
 * Cells with line breaks are not laid out on several lines as tabulate
 * does. Returns 0 or IB_ENOMEM. */
int ib_table_github(ib_buf *out, const char *const *headers, size_t ncols,
                    const ib_val *const *cells, size_t nrows);

#endif
