/* chat/ parser internals shared by parse.c (statements) and parse_expr.c
 * (expressions). */
#ifndef IB_CHAT_PARSE_H
#define IB_CHAT_PARSE_H

#include "chat/private.h"

#include <string.h>

#define MAX_DEPTH 200

typedef struct {
	chat_tmpl *t;
	token *k;
	size_t n, i;
	ib_error *e;
	int depth;
	int loops; /* enclosing for loops (break / continue) */
	/* end tags the open blocks are waiting for, and their tag names */
	const char *const *ends[MAX_DEPTH];
	const char *tags[MAX_DEPTH];
	int nends, ntags;
} parser;

typedef struct {
	node **v;
	size_t n, cap;
} nvec;

static inline token *ps_cur(parser *P)
{
	return &P->k[P->i];
}

static inline token *ps_look(parser *P)
{
	return P->i + 1 < P->n ? &P->k[P->i + 1] : &P->k[P->n - 1];
}

static inline void ps_next(parser *P)
{
	if (P->i + 1 < P->n)
		P->i++;
}

static inline bool ps_is_name(const token *k, const char *s)
{
	return k->t == T_NAME && k->n == strlen(s) && !memcmp(k->s, s, k->n);
}

static inline bool ps_is_op(const token *k, int op)
{
	return k->t == T_OP && k->op == op;
}

#define TRY(x)                                                                                     \
	do {                                                                                       \
		int rc_ = (x);                                                                     \
		if (rc_)                                                                           \
			return rc_;                                                                \
	} while (0)

void ps_describe(const token *k, char *out, size_t cap);
int ps_fail(parser *P, const token *k, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int ps_nomem(parser *P);
/* expects a token of type ty (and operator op); `what` names it in messages */
int ps_expect(parser *P, tok_type ty, int op, const char *what);
int ps_expect_name(parser *P, const char *name);
node *ps_node(parser *P, node_type t, uint32_t pos);
int ps_push(parser *P, nvec *v, node *x);
/* counts nesting; fails beyond MAX_DEPTH */
int ps_enter(parser *P);

int ps_call_args(parser *P, node *call);
/* a filter chain after x (inline_start: the first name without a '|') */
int ps_filter(parser *P, node **x, bool inline_start);
int ps_postfix(parser *P, node **x);
int ps_primary(parser *P, bool with_ns, node **out);
int ps_expr(parser *P, bool condexpr, node **out);
/* mode 0: full expressions; 1: primaries only (assignment targets);
 * 2: primaries with namespace references. */
int ps_tuple(parser *P, int mode, bool condexpr, const char *extra_end, bool explicit, node **out);
int ps_target(parser *P, bool with_ns, const char *extra_end, node **out);
int ps_name_only(parser *P, node **out);

#endif
