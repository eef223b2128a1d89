/* The expression parser: jinja2's Parser.parse_expression and below (ternary,
 * or/and/not, comparisons, + - ~ * / // % **, unary, filters, tests, calls,
 * subscripts, slices, literals), plus assignment targets. */
#include "chat/parse.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void ps_describe(const token *k, char *out, size_t cap)
{
	switch (k->t) {
	case T_NAME:
		snprintf(out, cap, "%.*s", (int)(k->n > 60 ? 60 : k->n), k->s);
		return;
	case T_OP:
		snprintf(out, cap, "%s", chat_op_text(k->op));
		return;
	case T_EOF:
		snprintf(out, cap, "end of template");
		return;
	case T_DATA:
		snprintf(out, cap, "template data / text");
		return;
	case T_VAR_BEGIN:
		snprintf(out, cap, "begin of print statement");
		return;
	case T_VAR_END:
		snprintf(out, cap, "end of print statement");
		return;
	case T_BLOCK_BEGIN:
		snprintf(out, cap, "begin of statement block");
		return;
	case T_BLOCK_END:
		snprintf(out, cap, "end of statement block");
		return;
	case T_STRING:
		snprintf(out, cap, "string");
		return;
	case T_INT:
		snprintf(out, cap, "integer");
		return;
	case T_FLOAT:
		snprintf(out, cap, "float");
		return;
	}
	snprintf(out, cap, "?");
}

int ps_fail(parser *P, const token *k, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return chat_fail_at(P->t, k->pos, P->e, IB_EPARSE, "%s", msg);
}

int ps_nomem(parser *P)
{
	return ib_fail(P->e, IB_ENOMEM, P->t->name, 0, 0, "out of memory");
}

/* expect a token of type ty (and operator op); what names it in messages */
int ps_expect(parser *P, tok_type ty, int op, const char *what)
{
	token *k = ps_cur(P);
	if (k->t == ty && (ty != T_OP || k->op == op)) {
		ps_next(P);
		return 0;
	}
	if (k->t == T_EOF)
		return ps_fail(P, k, "unexpected end of template, expected '%s'.", what);
	char d[80];
	ps_describe(k, d, sizeof d);
	return ps_fail(P, k, "expected token '%s', got '%s'", what, d);
}

int ps_expect_name(parser *P, const char *name)
{
	if (ps_is_name(ps_cur(P), name)) {
		ps_next(P);
		return 0;
	}
	token *k = ps_cur(P);
	if (k->t == T_EOF)
		return ps_fail(P, k, "unexpected end of template, expected '%s'.", name);
	char d[80];
	ps_describe(k, d, sizeof d);
	return ps_fail(P, k, "expected token '%s', got '%s'", name, d);
}

node *ps_node(parser *P, node_type t, uint32_t pos)
{
	node *x = ib_arena_alloc(P->t->a, sizeof *x);
	if (x) {
		x->t = t;
		x->pos = pos;
	}
	return x;
}

int ps_push(parser *P, nvec *v, node *x)
{
	if (v->n == v->cap && ib_arena_grow(P->t->a, &v->v, &v->cap, v->n + 1))
		return ps_nomem(P);
	v->v[v->n++] = x;
	return 0;
}

static int parse_unary(parser *P, bool with_filter, node **out);

int ps_enter(parser *P)
{
	if (++P->depth > MAX_DEPTH)
		return ps_fail(P, ps_cur(P), "template nested too deeply");
	return 0;
}

/* ---- call arguments: ( a, b, k=v, *args, **kwargs ) ---- */
int ps_call_args(parser *P, node *call)
{
	token *open = ps_cur(P);
	TRY(ps_expect(P, T_OP, OP_LPAREN, "("));
	nvec args = {0}, kwv = {0};
	const char **kwn = NULL;
	size_t kwcap = 0;
	bool comma = false;
	while (!ps_is_op(ps_cur(P), OP_RPAREN)) {
		if (comma) {
			TRY(ps_expect(P, T_OP, OP_COMMA, ","));
			if (ps_is_op(ps_cur(P), OP_RPAREN))
				break;
		}
		if (ps_is_op(ps_cur(P), OP_MUL)) {
			if (call->dyn || call->dynkw)
				return ps_fail(P, open,
				               "invalid syntax for function call expression");
			ps_next(P);
			TRY(ps_expr(P, true, &call->dyn));
		} else if (ps_is_op(ps_cur(P), OP_POW)) {
			if (call->dynkw)
				return ps_fail(P, open,
				               "invalid syntax for function call expression");
			ps_next(P);
			TRY(ps_expr(P, true, &call->dynkw));
		} else if (ps_cur(P)->t == T_NAME && ps_is_op(ps_look(P), OP_ASSIGN)) {
			if (call->dynkw)
				return ps_fail(P, open,
				               "invalid syntax for function call expression");
			token *key = ps_cur(P);
			ps_next(P);
			ps_next(P);
			node *v;
			TRY(ps_expr(P, true, &v));
			if (kwv.n == kwcap && ib_arena_grow(P->t->a, &kwn, &kwcap, kwv.n + 1))
				return ps_nomem(P);
			if (!(kwn[kwv.n] = ib_arena_strndup(P->t->a, key->s, key->n)))
				return ps_nomem(P);
			TRY(ps_push(P, &kwv, v));
		} else {
			if (call->dyn || call->dynkw || kwv.n)
				return ps_fail(P, open,
				               "invalid syntax for function call expression");
			node *v;
			TRY(ps_expr(P, true, &v));
			TRY(ps_push(P, &args, v));
		}
		comma = true;
	}
	TRY(ps_expect(P, T_OP, OP_RPAREN, ")"));
	call->items = args.v;
	call->nitems = args.n;
	call->kwn = kwn;
	call->kwv = kwv.v;
	call->nkw = kwv.n;
	return 0;
}

/* a dotted name after | or is */
static int dotted_name(parser *P, node *x)
{
	token *k = ps_cur(P);
	if (k->t != T_NAME)
		return ps_expect(P, T_NAME, 0, "name");
	ib_buf b = {0};
	int rc = ib_buf_append(&b, k->s, k->n);
	ps_next(P);
	while (!rc && ps_is_op(ps_cur(P), OP_DOT)) {
		ps_next(P);
		if (ps_cur(P)->t != T_NAME) {
			ib_buf_free(&b);
			return ps_expect(P, T_NAME, 0, "name");
		}
		rc = ib_buf_putc(&b, '.');
		if (!rc)
			rc = ib_buf_append(&b, ps_cur(P)->s, ps_cur(P)->n);
		ps_next(P);
	}
	if (!rc) {
		x->n = b.len;
		x->s = ib_arena_strndup(P->t->a, b.data, b.len);
		rc = x->s ? 0 : IB_ENOMEM;
	}
	ib_buf_free(&b);
	return rc ? ps_nomem(P) : 0;
}

int ps_filter(parser *P, node **x, bool inline_start)
{
	while (ps_is_op(ps_cur(P), OP_PIPE) || inline_start) {
		if (!inline_start)
			ps_next(P);
		inline_start = false;
		node *f = ps_node(P, N_FILTER, ps_cur(P)->pos);
		if (!f)
			return ps_nomem(P);
		f->a = *x;
		TRY(dotted_name(P, f));
		if (ps_is_op(ps_cur(P), OP_LPAREN))
			TRY(ps_call_args(P, f));
		*x = f;
	}
	return 0;
}

static int parse_test(parser *P, node **x)
{
	token *is = ps_cur(P);
	ps_next(P);
	node *t = ps_node(P, N_TEST, is->pos);
	if (!t)
		return ps_nomem(P);
	t->a = *x;
	if (ps_is_name(ps_cur(P), "not")) {
		ps_next(P);
		t->op = 1;
	}
	TRY(dotted_name(P, t));
	token *k = ps_cur(P);
	if (ps_is_op(k, OP_LPAREN)) {
		TRY(ps_call_args(P, t));
	} else if ((k->t == T_NAME || k->t == T_STRING || k->t == T_INT || k->t == T_FLOAT ||
	            ps_is_op(k, OP_LPAREN) || ps_is_op(k, OP_LBRACKET) || ps_is_op(k, OP_LBRACE)) &&
	           !ps_is_name(k, "else") && !ps_is_name(k, "or") && !ps_is_name(k, "and")) {
		if (ps_is_name(k, "is"))
			return ps_fail(P, k, "You cannot chain multiple tests with is");
		node *arg;
		TRY(ps_primary(P, false, &arg));
		TRY(ps_postfix(P, &arg));
		t->items = ib_arena_alloc(P->t->a, sizeof(node *));
		if (!t->items)
			return ps_nomem(P);
		t->items[0] = arg;
		t->nitems = 1;
	}
	*x = t;
	return 0;
}

/* one subscript: an expression or a slice a:b:c */
static int parse_subscribed(parser *P, node **out)
{
	uint32_t pos = ps_cur(P)->pos;
	node *args[3] = {NULL, NULL, NULL};
	if (ps_is_op(ps_cur(P), OP_COLON)) {
		ps_next(P);
	} else {
		node *x;
		TRY(ps_expr(P, true, &x));
		if (!ps_is_op(ps_cur(P), OP_COLON)) {
			*out = x;
			return 0;
		}
		ps_next(P);
		args[0] = x;
	}
	if (!ps_is_op(ps_cur(P), OP_COLON) && !ps_is_op(ps_cur(P), OP_RBRACKET) &&
	    !ps_is_op(ps_cur(P), OP_COMMA))
		TRY(ps_expr(P, true, &args[1]));
	if (ps_is_op(ps_cur(P), OP_COLON)) {
		ps_next(P);
		if (!ps_is_op(ps_cur(P), OP_RBRACKET) && !ps_is_op(ps_cur(P), OP_COMMA))
			TRY(ps_expr(P, true, &args[2]));
	}
	node *s = ps_node(P, N_SLICE, pos);
	if (!s)
		return ps_nomem(P);
	s->a = args[0];
	s->b = args[1];
	s->c = args[2];
	*out = s;
	return 0;
}

int ps_postfix(parser *P, node **x)
{
	for (;;) {
		token *k = ps_cur(P);
		if (ps_is_op(k, OP_DOT)) {
			ps_next(P);
			token *a = ps_cur(P);
			if (a->t == T_NAME) {
				node *g = ps_node(P, N_GETATTR, k->pos);
				if (!g)
					return ps_nomem(P);
				g->a = *x;
				g->s = a->s;
				g->n = a->n;
				ps_next(P);
				*x = g;
			} else if (a->t == T_INT) {
				node *g = ps_node(P, N_GETITEM, k->pos),
				     *c = ps_node(P, N_CONST, a->pos);
				if (!g || !c || !(c->val = cv_int(P->t->a, a->i)))
					return ps_nomem(P);
				g->a = *x;
				g->b = c;
				ps_next(P);
				*x = g;
			} else {
				return ps_fail(P, a, "expected name or number");
			}
		} else if (ps_is_op(k, OP_LBRACKET)) {
			ps_next(P);
			nvec args = {0};
			while (!ps_is_op(ps_cur(P), OP_RBRACKET)) {
				if (args.n)
					TRY(ps_expect(P, T_OP, OP_COMMA, ","));
				node *s = NULL;
				TRY(parse_subscribed(P, &s));
				TRY(ps_push(P, &args, s));
			}
			TRY(ps_expect(P, T_OP, OP_RBRACKET, "]"));
			node *g = ps_node(P, N_GETITEM, k->pos);
			if (!g)
				return ps_nomem(P);
			g->a = *x;
			if (args.n == 1) {
				g->b = args.v[0];
			} else {
				node *tu = ps_node(P, N_TUPLE, k->pos);
				if (!tu)
					return ps_nomem(P);
				tu->items = args.v;
				tu->nitems = args.n;
				g->b = tu;
			}
			*x = g;
		} else if (ps_is_op(k, OP_LPAREN)) {
			node *c = ps_node(P, N_CALL, (*x)->pos);
			if (!c)
				return ps_nomem(P);
			c->a = *x;
			TRY(ps_call_args(P, c));
			*x = c;
		} else {
			return 0;
		}
	}
}

int ps_primary(parser *P, bool with_ns, node **out)
{
	token *k = ps_cur(P);
	node *x = NULL;
	ib_arena *a = P->t->a;
	if (k->t == T_NAME) {
		if (ps_is_name(k, "true") || ps_is_name(k, "True") || ps_is_name(k, "false") ||
		    ps_is_name(k, "False")) {
			x = ps_node(P, N_CONST, k->pos);
			if (x)
				x->val = CV_BOOLV(k->s[0] == 't' || k->s[0] == 'T');
		} else if (ps_is_name(k, "none") || ps_is_name(k, "None")) {
			x = ps_node(P, N_CONST, k->pos);
			if (x)
				x->val = CV_NONE_P;
		} else if (with_ns && ps_is_op(ps_look(P), OP_DOT)) {
			x = ps_node(P, N_NSREF, k->pos);
			if (!x)
				return ps_nomem(P);
			x->s = k->s;
			x->n = k->n;
			ps_next(P);
			ps_next(P);
			if (ps_cur(P)->t != T_NAME)
				return ps_expect(P, T_NAME, 0, "name");
			x->s2 = ps_cur(P)->s;
			x->n2 = ps_cur(P)->n;
		} else {
			x = ps_node(P, N_NAME, k->pos);
			if (x) {
				x->s = k->s;
				x->n = k->n;
			}
		}
		if (!x)
			return ps_nomem(P);
		ps_next(P);
	} else if (k->t == T_STRING) {
		ib_buf b = {0};
		while (ps_cur(P)->t == T_STRING) {
			if (ib_buf_append(&b, ps_cur(P)->s, ps_cur(P)->n)) {
				ib_buf_free(&b);
				return ps_nomem(P);
			}
			ps_next(P);
		}
		x = ps_node(P, N_CONST, k->pos);
		if (x)
			x->val = cv_str(a, b.data ? b.data : "", b.len);
		ib_buf_free(&b);
		if (!x || !x->val)
			return ps_nomem(P);
	} else if (k->t == T_INT || k->t == T_FLOAT) {
		x = ps_node(P, N_CONST, k->pos);
		if (!x || !(x->val = k->t == T_INT ? cv_int(a, k->i) : cv_float(a, k->f)))
			return ps_nomem(P);
		ps_next(P);
	} else if (ps_is_op(k, OP_LPAREN)) {
		ps_next(P);
		TRY(ps_tuple(P, 0, true, NULL, true, &x));
		TRY(ps_expect(P, T_OP, OP_RPAREN, ")"));
	} else if (ps_is_op(k, OP_LBRACKET)) {
		ps_next(P);
		nvec items = {0};
		while (!ps_is_op(ps_cur(P), OP_RBRACKET)) {
			if (items.n)
				TRY(ps_expect(P, T_OP, OP_COMMA, ","));
			if (ps_is_op(ps_cur(P), OP_RBRACKET))
				break;
			node *it;
			TRY(ps_expr(P, true, &it));
			TRY(ps_push(P, &items, it));
		}
		TRY(ps_expect(P, T_OP, OP_RBRACKET, "]"));
		if (!(x = ps_node(P, N_LIST, k->pos)))
			return ps_nomem(P);
		x->items = items.v;
		x->nitems = items.n;
	} else if (ps_is_op(k, OP_LBRACE)) {
		ps_next(P);
		nvec keys = {0}, vals = {0};
		while (!ps_is_op(ps_cur(P), OP_RBRACE)) {
			if (keys.n)
				TRY(ps_expect(P, T_OP, OP_COMMA, ","));
			if (ps_is_op(ps_cur(P), OP_RBRACE))
				break;
			node *kx, *vx;
			TRY(ps_expr(P, true, &kx));
			TRY(ps_expect(P, T_OP, OP_COLON, ":"));
			TRY(ps_expr(P, true, &vx));
			TRY(ps_push(P, &keys, kx));
			TRY(ps_push(P, &vals, vx));
		}
		TRY(ps_expect(P, T_OP, OP_RBRACE, "}"));
		if (!(x = ps_node(P, N_DICT, k->pos)))
			return ps_nomem(P);
		x->items = keys.v;
		x->items2 = vals.v;
		x->nitems = keys.n;
	} else {
		char d[80];
		ps_describe(k, d, sizeof d);
		return ps_fail(P, k, "unexpected '%s'", d);
	}
	*out = x;
	return 0;
}

static int parse_unary(parser *P, bool with_filter, node **out)
{
	TRY(ps_enter(P));
	token *k = ps_cur(P);
	node *x;
	if (ps_is_op(k, OP_SUB) || ps_is_op(k, OP_ADD)) {
		ps_next(P);
		x = ps_node(P, ps_is_op(k, OP_SUB) ? N_NEG : N_POS, k->pos);
		if (!x)
			return ps_nomem(P);
		TRY(parse_unary(P, false, &x->a));
	} else {
		TRY(ps_primary(P, false, &x));
	}
	TRY(ps_postfix(P, &x));
	if (with_filter) {
		for (;;) {
			if (ps_is_op(ps_cur(P), OP_PIPE))
				TRY(ps_filter(P, &x, false));
			else if (ps_is_name(ps_cur(P), "is"))
				TRY(parse_test(P, &x));
			else if (ps_is_op(ps_cur(P), OP_LPAREN))
				TRY(ps_postfix(P, &x));
			else
				break;
		}
	}
	P->depth--;
	*out = x;
	return 0;
}

static int binop(parser *P, node_type t, int op, uint32_t pos, node *l, node *r, node **out)
{
	node *x = ps_node(P, t, pos);
	if (!x)
		return ps_nomem(P);
	x->op = op;
	x->a = l;
	x->b = r;
	*out = x;
	return 0;
}

static int parse_pow(parser *P, node **out)
{
	node *l;
	TRY(parse_unary(P, true, &l));
	while (ps_is_op(ps_cur(P), OP_POW)) {
		uint32_t pos = ps_cur(P)->pos;
		ps_next(P);
		node *r;
		TRY(parse_unary(P, true, &r));
		TRY(binop(P, N_BINOP, OP_POW, pos, l, r, &l));
	}
	*out = l;
	return 0;
}

static int parse_math2(parser *P, node **out)
{
	node *l;
	TRY(parse_pow(P, &l));
	for (;;) {
		token *k = ps_cur(P);
		if (!(ps_is_op(k, OP_MUL) || ps_is_op(k, OP_DIV) || ps_is_op(k, OP_FLOORDIV) ||
		      ps_is_op(k, OP_MOD)))
			break;
		ps_next(P);
		node *r;
		TRY(parse_pow(P, &r));
		TRY(binop(P, N_BINOP, k->op, k->pos, l, r, &l));
	}
	*out = l;
	return 0;
}

static int parse_concat(parser *P, node **out)
{
	node *first;
	uint32_t pos = ps_cur(P)->pos;
	TRY(parse_math2(P, &first));
	if (!ps_is_op(ps_cur(P), OP_TILDE)) {
		*out = first;
		return 0;
	}
	nvec args = {0};
	TRY(ps_push(P, &args, first));
	while (ps_is_op(ps_cur(P), OP_TILDE)) {
		ps_next(P);
		node *x;
		TRY(parse_math2(P, &x));
		TRY(ps_push(P, &args, x));
	}
	node *c = ps_node(P, N_CONCAT, pos);
	if (!c)
		return ps_nomem(P);
	c->items = args.v;
	c->nitems = args.n;
	*out = c;
	return 0;
}

static int parse_math1(parser *P, node **out)
{
	node *l;
	TRY(parse_concat(P, &l));
	while (ps_is_op(ps_cur(P), OP_ADD) || ps_is_op(ps_cur(P), OP_SUB)) {
		token *k = ps_cur(P);
		ps_next(P);
		node *r;
		TRY(parse_concat(P, &r));
		TRY(binop(P, N_BINOP, k->op, k->pos, l, r, &l));
	}
	*out = l;
	return 0;
}

static int parse_compare(parser *P, node **out)
{
	uint32_t pos = ps_cur(P)->pos;
	node *first;
	TRY(parse_math1(P, &first));
	nvec opnds = {0};
	int *ops = NULL;
	size_t opcap = 0;
	for (;;) {
		token *k = ps_cur(P);
		int op;
		if (k->t == T_OP && (k->op == OP_EQ || k->op == OP_NE || k->op == OP_LT ||
		                     k->op == OP_LTEQ || k->op == OP_GT || k->op == OP_GTEQ)) {
			op = k->op;
			ps_next(P);
		} else if (ps_is_name(k, "in")) {
			op = OP_IN;
			ps_next(P);
		} else if (ps_is_name(k, "not") && ps_is_name(ps_look(P), "in")) {
			op = OP_NOTIN;
			ps_next(P);
			ps_next(P);
		} else {
			break;
		}
		node *x;
		TRY(parse_math1(P, &x));
		if (opnds.n == opcap && ib_arena_grow(P->t->a, &ops, &opcap, opnds.n + 1))
			return ps_nomem(P);
		ops[opnds.n] = op;
		TRY(ps_push(P, &opnds, x));
	}
	if (!opnds.n) {
		*out = first;
		return 0;
	}
	node *c = ps_node(P, N_COMPARE, pos);
	if (!c)
		return ps_nomem(P);
	c->a = first;
	c->items = opnds.v;
	c->nitems = opnds.n;
	c->ops = ops;
	*out = c;
	return 0;
}

static int parse_not(parser *P, node **out)
{
	if (ps_is_name(ps_cur(P), "not")) {
		TRY(ps_enter(P));
		node *x = ps_node(P, N_NOT, ps_cur(P)->pos);
		if (!x)
			return ps_nomem(P);
		ps_next(P);
		TRY(parse_not(P, &x->a));
		P->depth--;
		*out = x;
		return 0;
	}
	return parse_compare(P, out);
}

static int parse_and(parser *P, node **out)
{
	node *l;
	TRY(parse_not(P, &l));
	while (ps_is_name(ps_cur(P), "and")) {
		uint32_t pos = ps_cur(P)->pos;
		ps_next(P);
		node *r;
		TRY(parse_not(P, &r));
		TRY(binop(P, N_AND, 0, pos, l, r, &l));
	}
	*out = l;
	return 0;
}

static int parse_or(parser *P, node **out)
{
	node *l;
	TRY(parse_and(P, &l));
	while (ps_is_name(ps_cur(P), "or")) {
		uint32_t pos = ps_cur(P)->pos;
		ps_next(P);
		node *r;
		TRY(parse_and(P, &r));
		TRY(binop(P, N_OR, 0, pos, l, r, &l));
	}
	*out = l;
	return 0;
}

static int parse_condexpr(parser *P, node **out)
{
	TRY(ps_enter(P));
	node *x;
	TRY(parse_or(P, &x));
	while (ps_is_name(ps_cur(P), "if")) {
		uint32_t pos = ps_cur(P)->pos;
		ps_next(P);
		node *c = ps_node(P, N_COND, pos);
		if (!c)
			return ps_nomem(P);
		c->a = x;
		TRY(parse_or(P, &c->b));
		if (ps_is_name(ps_cur(P), "else")) {
			ps_next(P);
			TRY(parse_condexpr(P, &c->c));
		}
		x = c;
	}
	P->depth--;
	*out = x;
	return 0;
}

int ps_expr(parser *P, bool condexpr, node **out)
{
	return condexpr ? parse_condexpr(P, out) : parse_or(P, out);
}

static bool tuple_end(parser *P, const char *extra_end)
{
	token *k = ps_cur(P);
	if (k->t == T_VAR_END || k->t == T_BLOCK_END || ps_is_op(k, OP_RPAREN))
		return true;
	return extra_end && ps_is_name(k, extra_end);
}

int ps_tuple(parser *P, int mode, bool condexpr, const char *extra_end, bool explicit, node **out)
{
	uint32_t pos = ps_cur(P)->pos;
	nvec args = {0};
	bool is_tuple = false;
	for (;;) {
		if (args.n)
			TRY(ps_expect(P, T_OP, OP_COMMA, ","));
		if (tuple_end(P, extra_end))
			break;
		node *x;
		if (mode)
			TRY(ps_primary(P, mode == 2, &x));
		else
			TRY(ps_expr(P, condexpr, &x));
		TRY(ps_push(P, &args, x));
		if (ps_is_op(ps_cur(P), OP_COMMA))
			is_tuple = true;
		else
			break;
	}
	if (!is_tuple) {
		if (args.n) {
			*out = args.v[0];
			return 0;
		}
		if (!explicit) {
			char d[80];
			ps_describe(ps_cur(P), d, sizeof d);
			return ps_fail(P, ps_cur(P), "Expected an expression, got '%s'", d);
		}
	}
	node *t = ps_node(P, N_TUPLE, pos);
	if (!t)
		return ps_nomem(P);
	t->items = args.v;
	t->nitems = args.n;
	*out = t;
	return 0;
}

static int check_target(parser *P, node *x)
{
	if (x->t == N_NAME || x->t == N_NSREF)
		return 0;
	if (x->t == N_TUPLE) {
		for (size_t i = 0; i < x->nitems; i++)
			TRY(check_target(P, x->items[i]));
		return 0;
	}
	static const char *const names[] = {
	    [N_CONST] = "const",     [N_LIST] = "list",       [N_DICT] = "dict",
	    [N_GETATTR] = "getattr", [N_GETITEM] = "getitem", [N_CALL] = "call",
	    [N_FILTER] = "filter",   [N_TEST] = "test"};
	const char *what =
	    x->t < sizeof names / sizeof names[0] && names[x->t] ? names[x->t] : "expression";
	return chat_fail_at(P->t, x->pos, P->e, IB_EPARSE, "can't assign to '%s'", what);
}

int ps_target(parser *P, bool with_ns, const char *extra_end, node **out)
{
	TRY(ps_tuple(P, with_ns ? 2 : 1, true, extra_end, false, out));
	return check_target(P, *out);
}

int ps_name_only(parser *P, node **out)
{
	token *k = ps_cur(P);
	if (k->t != T_NAME)
		return ps_expect(P, T_NAME, 0, "name");
	node *x = ps_node(P, N_NAME, k->pos);
	if (!x)
		return ps_nomem(P);
	x->s = k->s;
	x->n = k->n;
	ps_next(P);
	*out = x;
	return 0;
}
