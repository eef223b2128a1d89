/* chat/ internals: values, tokens, syntax tree and the interpreter state,
 * shared by the files of the module and by nothing else. */
#ifndef IB_CHAT_PRIVATE_H
#define IB_CHAT_PRIVATE_H

#include "chat/chat.h"

/* ---- UTF-8 and Python's character classes (text.c) ---- */

/* Decodes the code point at s[*i] (n bytes in all) and advances *i. An invalid
 * byte decodes as itself (0x80..0xFF) and advances by one. */
uint32_t cu_next(const char *s, size_t n, size_t *i);
/* Python str.isspace(). */
bool cu_isspace(uint32_t c);
/* Python str.isprintable() for one character (repr escapes the others). */
bool cu_isprintable(uint32_t c);
int cu_put(ib_buf *b, uint32_t c);
/* memmem(): the first occurrence of needle in hay, or NULL. */
const char *cu_find(const char *hay, size_t n, const char *needle, size_t m);
/* Number of code points. */
size_t cu_len(const char *s, size_t n);
/* Simple case mappings (utf8proc). */
uint32_t cu_upper(uint32_t c);
uint32_t cu_lower(uint32_t c);
uint32_t cu_title(uint32_t c);
/* Appends Python's str.upper() / str.lower() of one character. */
int cu_put_upper(ib_buf *b, uint32_t c);
int cu_put_lower(ib_buf *b, uint32_t c);
int cu_put_title(ib_buf *b, uint32_t c);
bool cu_isalpha(uint32_t c);
bool cu_isdigit(uint32_t c);
bool cu_isupper(uint32_t c);
bool cu_islower(uint32_t c);
/* Identifier characters for template names (ASCII letters, digits, '_' and
 * Unicode letters / marks / digits). */
bool cu_ident_start(uint32_t c);
bool cu_ident_cont(uint32_t c);

/* ---- values ---- */

typedef enum {
	CV_UNDEF,
	CV_NONE,
	CV_BOOL,
	CV_INT,
	CV_FLOAT,
	CV_STR,
	CV_LIST,
	CV_TUPLE,
	CV_GEN, /* a generator or iterator: items consumed by iteration */
	CV_DICT,
	CV_NS,    /* namespace(): a dict whose attributes can be set */
	CV_LOOP,  /* the `loop` variable of a for loop */
	CV_FUNC,  /* a built-in function or bound method */
	CV_MACRO, /* a {% macro %} or the caller of a {% call %} block */
} cv_type;

typedef struct cv cv;
typedef struct interp interp;
typedef struct node node;
typedef struct scope scope;

/* Arguments of a call: positional values, then keyword values. */
typedef struct {
	cv **pos;
	size_t npos;
	const char **kwn;
	cv **kwv;
	size_t nkw;
	uint32_t at; /* source offset of the call, for errors */
} cargs;

typedef int (*cv_fn)(interp *in, cv *self, cargs *a, cv **out);

typedef struct {
	cv **items;
	size_t n, i;
	cv *last_changed;
	bool changed_seen;
} cloop;

struct cv {
	cv_type t;
	union {
		bool b;
		int64_t i;
		double f;
		struct {
			const char *s; /* not necessarily NUL-terminated */
			size_t n;
		} s;
		struct {
			cv **v;
			size_t n;
			size_t pos;        /* CV_GEN: items already consumed */
			const char *tname; /* CV_GEN: "generator", "list_reverseiterator"...;
			                      CV_LIST: "dict_items" etc. for dict views */
			const char *fname; /* CV_GEN: the generator function, for printing */
		} l;                       /* list, tuple, generator */
		struct {
			cv **k, **v;
			size_t n, cap;
		} d; /* dict, namespace */
		struct {
			const char *hint; /* the whole message, or NULL */
			cv *name;         /* the missing name / attribute / key */
			cv *obj;          /* the object it was looked up on, or NULL */
			bool security;    /* an unsafe attribute: calling it is a SecurityError */
		} u;
		struct {
			cv_fn fn;
			cv *self;
			const char *name;
		} fn;
		struct {
			const node *def; /* N_MACRO, or the N_CALLBLOCK for a caller */
			scope *closure;
			const char *name;
		} m;
		cloop *loop;
	};
};

/* The shared None, True, False and '' values: const (in read-only memory,
 * shared by every thread and template), so nothing may write to them; the
 * macros hand them out as the cv * the evaluator passes around. */
extern const cv cv_none_v, cv_true_v, cv_false_v, cv_empty_str_v;
#define CV_NONE_P      ((cv *)&cv_none_v)
#define CV_BOOLV(x)    ((x) ? (cv *)&cv_true_v : (cv *)&cv_false_v)
#define CV_EMPTY_STR_P ((cv *)&cv_empty_str_v)

/* Constructors allocate in the render (or template) arena; NULL means out of
 * memory. */
cv *cv_new(ib_arena *a, cv_type t);
cv *cv_int(ib_arena *a, int64_t i);
cv *cv_float(ib_arena *a, double f);
/* Points at s (no copy): s must outlive the value. */
cv *cv_str_ref(ib_arena *a, const char *s, size_t n);
/* Copies s. */
cv *cv_str(ib_arena *a, const char *s, size_t n);
cv *cv_seq(ib_arena *a, cv_type t, size_t n); /* list or tuple of n NULL items */
cv *cv_undef(ib_arena *a, cv *name, cv *obj, const char *hint);
int cv_dict_set(ib_arena *a, cv *d, cv *k, cv *v);
cv *cv_dict_get(const cv *d, const cv *k);
cv *cv_dict_gets(const cv *d, const char *k, size_t n);
/* ib_val → cv (strings are shared, not copied). */
cv *cv_from_ib(ib_arena *a, const ib_val *v);

bool cv_truthy(const cv *v);
/* Python ==. */
/* Values nest at most CV_MAX_DEPTH levels for the recursive operations
 * (repr / str, ==, ordering, hashing): a deeper value, or one that contains
 * itself, is an error ("maximum recursion depth exceeded", IB_ERANGE from
 * cv_str_to / cv_repr_to) instead of a stack overflow; cv_equal answers
 * false beyond it. */
#define CV_MAX_DEPTH 1000
bool cv_equal(const cv *x, const cv *y);
/* Python's type name: str, int, list, dict, NoneType, Undefined, ... */
const char *cv_typename(const cv *v);
/* Appends Python str(v) / repr(v). */
int cv_str_to(ib_buf *b, const cv *v);
int cv_repr_to(ib_buf *b, const cv *v);
/* Code points of a string value. */
size_t cv_strlen(const cv *v);

/* ---- tokens (lex.c) ---- */

typedef enum {
	T_EOF,
	T_DATA,        /* template text: s, n */
	T_VAR_BEGIN,   /* {{ */
	T_VAR_END,     /* }} */
	T_BLOCK_BEGIN, /* {% */
	T_BLOCK_END,   /* %} */
	T_NAME,        /* s, n */
	T_STRING,      /* decoded s, n */
	T_INT,         /* i */
	T_FLOAT,       /* f */
	T_OP,          /* op: one of the OP_ codes */
} tok_type;

enum {
	OP_ADD = 1,
	OP_SUB,
	OP_DIV,
	OP_FLOORDIV,
	OP_MUL,
	OP_MOD,
	OP_POW,
	OP_TILDE,
	OP_LBRACKET,
	OP_RBRACKET,
	OP_LPAREN,
	OP_RPAREN,
	OP_LBRACE,
	OP_RBRACE,
	OP_EQ,
	OP_NE,
	OP_GT,
	OP_GTEQ,
	OP_LT,
	OP_LTEQ,
	OP_ASSIGN,
	OP_DOT,
	OP_COLON,
	OP_PIPE,
	OP_COMMA,
	OP_SEMICOLON,
	/* not operators of the lexer: comparison kinds of the parser */
	OP_IN,
	OP_NOTIN,
};

typedef struct {
	tok_type t;
	int op;
	uint32_t pos; /* byte offset in the normalised source */
	const char *s;
	size_t n;
	int64_t i;
	double f;
} token;

/* The parsed template: source, tokens and tree live in its arena. */
struct chat_tmpl {
	ib_arena *a;
	char *name;
	char *src; /* newlines normalised, one trailing newline dropped */
	size_t len;
	node *root;
};

/* Splits t->src into tokens (allocated in t->a). */
int chat_lex(chat_tmpl *t, token **out, size_t *n, ib_error *e);
/* Builds the tree from the tokens. */
int chat_parse(chat_tmpl *t, token *toks, size_t ntoks, ib_error *e);
/* Fills e with t's name and the line:col of byte offset pos. */
int chat_fail_at(const chat_tmpl *t, uint32_t pos, ib_error *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Python's representation of an operator token, for messages. */
const char *chat_op_text(int op);

/* ---- syntax tree ---- */

typedef enum {
	/* expressions */
	N_CONST,   /* val */
	N_NAME,    /* s */
	N_LIST,    /* items */
	N_TUPLE,   /* items */
	N_DICT,    /* items (keys), items2 (values) */
	N_GETATTR, /* a . s */
	N_GETITEM, /* a [ b ] */
	N_SLICE,   /* a : b : c, each may be NULL */
	N_CALL,    /* a ( items, kwn = kwv, *dyn, **dynkw ) */
	N_FILTER,  /* a | s ( args ); a is NULL in a filter block chain */
	N_TEST,    /* a is [not: op] s ( args ) */
	N_NEG,     /* - a */
	N_POS,     /* + a */
	N_NOT,     /* not a */
	N_BINOP,   /* a op b */
	N_CONCAT,  /* items joined by ~ */
	N_COMPARE, /* a, then ops[i] items[i] */
	N_AND,     /* a and b */
	N_OR,      /* a or b */
	N_COND,    /* a if b else c */
	N_NSREF,   /* s . s2 as an assignment target */
	/* statements */
	N_TEXT,    /* s */
	N_PRINT,   /* a */
	N_BODY,    /* items */
	N_IF,      /* if a: b else c */
	N_FOR,     /* for a in b [if e]: c else d */
	N_SET,     /* a = b */
	N_SETBLK,  /* a = (body b | filter chain c) */
	N_MACRO,   /* s (items: params, items2: defaults or NULL): b */
	N_CALLBLK, /* a is the call; items/items2 the caller's signature; b body */
	N_FILTBLK, /* filter chain a over body b */
	N_WITH,    /* items targets = items2 values: b */
	N_GENBLK,  /* {% generation %} b {% endgeneration %} (transformers) */
	N_BREAK,
	N_CONTINUE,
} node_type;

struct node {
	node_type t;
	int op;       /* N_BINOP operator, N_TEST negation */
	uint32_t pos; /* byte offset in the source, for errors */
	const char *s, *s2;
	size_t n, n2;
	cv *val;
	node *a, *b, *c, *d, *e;
	node **items, **items2;
	size_t nitems;
	int *ops; /* N_COMPARE */
	const char **kwn;
	node **kwv;
	size_t nkw;
	node *dyn, *dynkw;
	/* N_MACRO / N_CALLBLK: which special names the body uses */
	bool uses_varargs, uses_kwargs, uses_caller;
};

/* ---- the interpreter (eval.c) ---- */

struct scope {
	scope *parent;
	const char **names;
	size_t *lens;
	cv **vals;
	size_t n, cap;
};

struct interp {
	ib_arena *a;
	const chat_tmpl *t;
	ib_error *e;
	ib_buf *out;
	scope *sc;
	int depth; /* macro calls */
	int nest;  /* eval / exec recursion */
	size_t mem_limit;
};

/* Fails with line:col of source offset `at`. Returns the code. */
int rt_fail(interp *in, uint32_t at, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int rt_nomem(interp *in);
/* The error of a failed cv_str_to / cv_repr_to (rc): a value nested too
 * deeply (IB_ERANGE) names the limit, anything else is out of memory. */
int rt_str_fail(interp *in, uint32_t at, int rc);
/* The error an Undefined raises when it is used (UndefinedError text). */
int rt_undefined(interp *in, uint32_t at, const cv *u);
/* Checks the memory budget; returns 0 or the error. */
int rt_check_mem(interp *in, uint32_t at);

/* Python str(v) as a new string value. */
int rt_to_str(interp *in, cv *v, cv **out);
/* Calls a callable value. */
int rt_call(interp *in, cv *f, cargs *a, cv **out);
/* jinja2's environment.getattr / getitem. */
int rt_getattr(interp *in, uint32_t at, cv *obj, const char *name, size_t n, cv **out);
int rt_getitem(interp *in, uint32_t at, cv *obj, cv *key, cv **out);
/* Materialises the items of an iterable (list, tuple, dict keys, string
 * characters; Undefined is empty); other values are a TypeError. */
int rt_iter(interp *in, uint32_t at, cv *v, cv ***items, size_t *n);
/* Python a op b for the N_BINOP operators, comparisons and `in`. */
int rt_binop(interp *in, uint32_t at, int op, cv *x, cv *y, cv **out);
int rt_compare(interp *in, uint32_t at, int op, cv *x, cv *y, bool *out);
/* Python's ordering for sort/min/max (a TypeError for mixed types). */
int rt_less(interp *in, uint32_t at, cv *x, cv *y, bool *out);
/* obj[a:b:c] (each bound may be NULL). */
int chat_slice(interp *in, uint32_t at, cv *obj, cv *sa, cv *sb, cv *sc, cv **out);
/* Python's str % args. */
int chat_percent_format(interp *in, uint32_t at, cv *fmt, cv *args, cv **out);

/* Argument helpers for built-ins: the value of argument `idx` or keyword
 * `name` (NULL: not given). rt_args_check rejects more than npos positional
 * arguments and keywords not among names (NULL-terminated). */
cv *rt_arg(cargs *a, size_t idx, const char *name);
int rt_args_check(interp *in, cargs *a, const char *fn, size_t npos, const char *const *names);

/* ---- built-ins (filters.c, methods.c, json.c) ---- */

/* The filter / test named name, or NULL. A filter receives the input value
 * as a->pos[0]; so does a test. */
cv_fn chat_filter(const char *name, size_t n);
cv_fn chat_test(const char *name, size_t n);
/* Global functions: range, namespace, dict, joiner, cycler..., or NULL. */
cv_fn chat_global(const char *name, size_t n, const char **canon);
/* A bound method of a str, list, tuple or dict value: 0 and *out set, or
 * 0 and *out NULL when there is no such method, or an error. */
int chat_method(interp *in, cv *obj, const char *name, size_t n, cv **out);
/* json.dumps(v, ensure_ascii, indent (<0: none; string given as ind_s),
 * separators, sort_keys). */
typedef struct {
	bool ensure_ascii;
	bool sort_keys;
	bool has_indent;
	const char *indent; /* indent string */
	size_t indent_n;
	const char *item_sep, *key_sep;
	size_t item_sep_n, key_sep_n;
} chat_json_opts;
int chat_tojson(interp *in, uint32_t at, const cv *v, const chat_json_opts *o, ib_buf *b);

/* str methods (str.c): the method named name, or NULL. */
cv_fn chat_str_method(const char *name, size_t n, const char **canon);
/* Python str.strip/lstrip/rstrip (which: 1 left, 2 right, 3 both; chars NULL:
 * whitespace), upper/lower/capitalize, replace, join (strict: items must be
 * strings), str.format. */
int chat_strip(interp *in, cv *s, cv *chars, int which, cv **out);
int chat_upper(interp *in, cv *s, cv **out);
int chat_lower(interp *in, cv *s, cv **out);
int chat_capitalize(interp *in, cv *s, cv **out);
int chat_replace(interp *in, cv *s, cv *old, cv *new_, int64_t count, cv **out);
int chat_join(interp *in, uint32_t at, cv *sep, cv **items, size_t n, bool strict, cv **out);
int chat_str_format(interp *in, uint32_t at, cv *fmt, cargs *a, cv **out);
/* Argument checks: 0, or the TypeError (Undefined: its error). */
int rt_need_str(interp *in, cargs *a, cv *v, const char *fn, const char *what);
int rt_need_int(interp *in, cargs *a, cv *v, const char *fn, int64_t *out);

/* Filters on sequences (filters_seq.c). */
cv_fn chat_filter_seq(const char *name, size_t n);

/* A generator over items (copied) named like jinja2's: tname "generator" and
 * fname the function ("select_or_reject"), or tname an iterator type. */
int chat_gen(interp *in, cv **items, size_t n, const char *tname, const char *fname, cv **out);

/* Small helpers of the filters: the input value, results, arguments. */
static inline cv *input(cargs *a)
{
	return a->pos[0];
}
static inline int check(interp *in, cargs *a, const char *fn, size_t npos, const char *const *names)
{
	return rt_args_check(in, a, fn, npos, names);
}
static inline int items_of(interp *in, cargs *a, cv *v, cv ***items, size_t *n)
{
	return rt_iter(in, a->at, v, items, n);
}
/* jinja2's soft_str: str(v), "" for Undefined */
static inline int soft_str(interp *in, cv *v, cv **out)
{
	return rt_to_str(in, v, out);
}
int ret_int(interp *in, int64_t i, cv **out);
int ret_float(interp *in, double f, cv **out);
int mklist(interp *in, cv **items, size_t n, cv **out);

/* Rendering helpers used by the built-ins. */
/* A string value of b's text (copied into the arena); frees b. */
int rt_buf_str(interp *in, ib_buf *b, cv **out);
/* Stable sort of v[0..n) by keys[0..n) with Python's < (reverse keeps equal
 * items in order, as list.sort(reverse=True)); a TypeError for keys that do
 * not order. */
int chat_sort(interp *in, uint32_t at, cv **v, size_t n, cv **keys, bool reverse);

#endif
