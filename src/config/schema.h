/* Private to config/: a small declarative schema engine in the spirit of the
 * reference's pydantic models. */
#ifndef IB_CONFIG_SCHEMA_H
#define IB_CONFIG_SCHEMA_H

#include "config/config.h"

typedef enum {
	FT_STR,        /* str */
	FT_STR1,       /* str, at least one character */
	FT_VERSION,    /* str, at least one character, not starting with "image:" (V13) */
	FT_INT,        /* lax int */
	FT_INT_POS,    /* lax int > 0 */
	FT_SINT_POS,   /* strict int > 0 (pp, dcp-size, pcp-size) */
	FT_BOOL,       /* lax bool */
	FT_FALSE,      /* Literal[False] */
	FT_TRUE,       /* Literal[True] */
	FT_SPEC,       /* 'mtp' | 'draft_model' | 'none' */
	FT_KVOFF,      /* 'none' | 'dram' */
	FT_UTIL,       /* float, 0 < x <= 1 */
	FT_INT_LIST,   /* list of lax ints */
	FT_STR_LIST,   /* list of str */
	FT_MODEL,      /* nested model */
	FT_MODEL_LIST, /* list of nested models */
	FT_MODEL_DICT, /* mapping of str -> nested model */
} ftype;

typedef enum {
	P_REQ, /* required: absent is an error, null fails the type check */
	P_OPT, /* Optional[...] = None: null is the same as absent */
	P_DEF, /* has a default but is not Optional: null fails the type check */
} fpres;

typedef struct vctx vctx;
typedef struct model model;

typedef struct {
	const char *name;
	ftype t;
	fpres pres;
	const model *sub;
} field;

struct model {
	const char *name;
	const field *fields;
	size_t nfields;
	/* Runs only when every field of the node validated; reports at most one
	 * problem (the first failing rule) and returns whether the node is valid. */
	bool (*after)(vctx *c, const ib_val *node);
};

/* Records an error in d: at file:line:col (line 0: no position), about
 * master-config key or runner label `entry` (kind "entry"; NULL: none), at
 * dotted field path `path` (NULL or "": none), with `got` rendered by
 * ib_val_repr (NULL: none). Returns 0 or IB_ENOMEM. */
int cfg_problem(ib_diags *d, const char *file, int line, int col, const char *entry,
                const char *path, const ib_val *got, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

struct vctx {
	ib_diags *d;
	const char *entry;
	char path[1024];
	size_t plen;
};

bool sch_validate(vctx *c, const model *m, const ib_val *node);
/* Records a problem at node (or at the position of node[key] when that key is
 * present), with the current path plus `sub` (may be NULL). */
void sch_fail(vctx *c, const ib_val *node, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
size_t sch_push(vctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sch_pop(vctx *c, size_t mark);

#endif
