/* The statement parser: jinja2's Parser.subparse / parse_statement over the
 * tokens of lex.c (for, if, set, macro, call, filter, with, print, break,
 * continue, and transformers' generation), and template construction. Grammar and messages follow
 * jinja2 3.1. */
#include "chat/parse.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int chat_fail_at(const chat_tmpl *t, uint32_t pos, ib_error *e, int code, const char *fmt, ...)
{
	int line = 1, col = 1;
	if (t->src) {
		size_t i = 0, end = pos < t->len ? pos : t->len;
		while (i < end) {
			if (t->src[i] == '\n') {
				line++;
				col = 1;
				i++;
			} else {
				cu_next(t->src, t->len, &i);
				col++;
			}
		}
	}
	char msg[sizeof e->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ib_fail(e, code, t->name, line, col, "%s", msg);
}

/* ---- statements ---- */

static int subparse(parser *P, const char *const *ends, node **out);

static int fail_eof_or_tag(parser *P, const token *k, const char *tag)
{
	char msg[1024];
	size_t m = 0;
	if (tag)
		m +=
		    (size_t)snprintf(msg + m, sizeof msg - m, "Encountered unknown tag '%s'.", tag);
	else
		m += (size_t)snprintf(msg + m, sizeof msg - m, "Unexpected end of template.");
	if (P->nends) {
		bool expected = false;
		for (int i = 0; tag && i < P->nends; i++)
			for (const char *const *x = P->ends[i]; *x; x++)
				if (!strcmp(*x, tag))
					expected = true;
		char looking[256];
		size_t l = 0;
		looking[0] = 0;
		for (const char *const *x = P->ends[P->nends - 1]; *x && l < sizeof looking; x++)
			l += (size_t)snprintf(looking + l, sizeof looking - l, "%s'%s'",
			                      x == P->ends[P->nends - 1] ? "" : " or ", *x);
		if (m < sizeof msg) {
			if (expected)
				m += (size_t)snprintf(
				    msg + m, sizeof msg - m,
				    " You probably made a nesting mistake. Jinja is "
				    "expecting this tag, but currently looking for %s.",
				    looking);
			else
				m += (size_t)snprintf(
				    msg + m, sizeof msg - m,
				    " Jinja was looking for the following tags: %s.", looking);
		}
	}
	if (P->ntags && P->tags[P->ntags - 1] && m < sizeof msg)
		snprintf(msg + m, sizeof msg - m,
		         " The innermost block that needs to be closed is '%s'.",
		         P->tags[P->ntags - 1]);
	return ps_fail(P, k, "%s", msg);
}

/* expects the end of the opening tag, parses the body up to one of ends
 * (left as the current token); with drop, also steps over that name */
static int parse_statements(parser *P, const char *const *ends, bool drop, node **out)
{
	if (ps_is_op(ps_cur(P), OP_COLON))
		ps_next(P);
	TRY(ps_expect(P, T_BLOCK_END, 0, "end of statement block"));
	TRY(subparse(P, ends, out));
	if (ps_cur(P)->t == T_EOF)
		return fail_eof_or_tag(P, ps_cur(P), NULL);
	if (drop)
		ps_next(P);
	return 0;
}

static int parse_signature(parser *P, node *x)
{
	TRY(ps_expect(P, T_OP, OP_LPAREN, "("));
	nvec args = {0}, defs = {0};
	bool any_default = false;
	while (!ps_is_op(ps_cur(P), OP_RPAREN)) {
		if (args.n)
			TRY(ps_expect(P, T_OP, OP_COMMA, ","));
		node *a;
		TRY(ps_name_only(P, &a));
		node *d = NULL;
		if (ps_is_op(ps_cur(P), OP_ASSIGN)) {
			ps_next(P);
			TRY(ps_expr(P, true, &d));
			any_default = true;
		} else if (any_default) {
			return ps_fail(P, ps_cur(P),
			               "non-default argument follows default argument");
		}
		TRY(ps_push(P, &args, a));
		TRY(ps_push(P, &defs, d));
	}
	TRY(ps_expect(P, T_OP, OP_RPAREN, ")"));
	x->items = args.v;
	x->items2 = defs.v;
	x->nitems = args.n;
	return 0;
}

/* Which of varargs / kwargs / caller a macro body reads. */
static void scan_names(node *m, const node *x)
{
	if (!x)
		return;
	if (x->t == N_NAME) {
		if (x->n == 7 && !memcmp(x->s, "varargs", 7))
			m->uses_varargs = true;
		else if (x->n == 6 && !memcmp(x->s, "kwargs", 6))
			m->uses_kwargs = true;
		else if (x->n == 6 && !memcmp(x->s, "caller", 6))
			m->uses_caller = true;
		return;
	}
	const node *kids[] = {x->a, x->b, x->c, x->d, x->e, x->dyn, x->dynkw};
	for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++)
		scan_names(m, kids[i]);
	for (size_t i = 0; i < x->nitems; i++) {
		if (x->items)
			scan_names(m, x->items[i]);
		if (x->items2)
			scan_names(m, x->items2[i]);
	}
	for (size_t i = 0; i < x->nkw; i++)
		scan_names(m, x->kwv[i]);
}

static int parse_statement(parser *P, node **out)
{
	static const char *const end_for[] = {"endfor", "else", NULL};
	static const char *const end_for2[] = {"endfor", NULL};
	static const char *const end_if[] = {"elif", "else", "endif", NULL};
	static const char *const end_if2[] = {"endif", NULL};
	static const char *const end_set[] = {"endset", NULL};
	static const char *const end_macro[] = {"endmacro", NULL};
	static const char *const end_call[] = {"endcall", NULL};
	static const char *const end_filter[] = {"endfilter", NULL};
	static const char *const end_with[] = {"endwith", NULL};
	static const char *const end_generation[] = {"endgeneration", NULL};
	token *k = ps_cur(P);
	if (k->t != T_NAME)
		return ps_fail(P, k, "tag name expected");
	TRY(ps_enter(P));
	if (P->ntags >= MAX_DEPTH)
		return ps_fail(P, k, "template nested too deeply");
	char tag[32];
	snprintf(tag, sizeof tag, "%.*s", (int)(k->n < 31 ? k->n : 31), k->s);
	P->tags[P->ntags++] = NULL;
	node *x = NULL;
	int rc = 0;
#define BODY(endv, drop, dst)                                                                      \
	do {                                                                                       \
		P->ends[P->nends++] = (endv);                                                      \
		rc = parse_statements(P, (endv), (drop), (dst));                                   \
		P->nends--;                                                                        \
		if (rc)                                                                            \
			return rc;                                                                 \
	} while (0)
	if (!strcmp(tag, "for")) {
		P->tags[P->ntags - 1] = "for";
		ps_next(P);
		x = ps_node(P, N_FOR, k->pos);
		if (!x)
			return ps_nomem(P);
		TRY(ps_target(P, false, "in", &x->a));
		TRY(ps_expect_name(P, "in"));
		TRY(ps_tuple(P, 0, false, "recursive", false, &x->b));
		if (ps_is_name(ps_cur(P), "if")) {
			ps_next(P);
			TRY(ps_expr(P, true, &x->e));
		}
		if (ps_is_name(ps_cur(P), "recursive"))
			return ps_fail(P, ps_cur(P), "recursive loops are not supported");
		P->loops++;
		BODY(end_for, false, &x->c);
		P->loops--;
		bool is_else = ps_is_name(ps_cur(P), "else");
		ps_next(P);
		if (is_else)
			BODY(end_for2, true, &x->d);
	} else if (!strcmp(tag, "if")) {
		P->tags[P->ntags - 1] = "if";
		ps_next(P);
		node *top = NULL, **slot = &top;
		for (;;) {
			node *i = ps_node(P, N_IF, ps_cur(P)->pos);
			if (!i)
				return ps_nomem(P);
			*slot = i;
			TRY(ps_tuple(P, 0, false, NULL, false, &i->a));
			BODY(end_if, false, &i->b);
			token *e = ps_cur(P);
			ps_next(P);
			if (ps_is_name(e, "elif")) {
				slot = &i->c;
				continue;
			}
			if (ps_is_name(e, "else"))
				BODY(end_if2, true, &i->c);
			break;
		}
		x = top;
	} else if (!strcmp(tag, "set")) {
		P->tags[P->ntags - 1] = "set";
		ps_next(P);
		node *target;
		TRY(ps_target(P, true, NULL, &target));
		if (ps_is_op(ps_cur(P), OP_ASSIGN)) {
			ps_next(P);
			x = ps_node(P, N_SET, k->pos);
			if (!x)
				return ps_nomem(P);
			x->a = target;
			TRY(ps_tuple(P, 0, true, NULL, false, &x->b));
		} else {
			x = ps_node(P, N_SETBLK, k->pos);
			if (!x)
				return ps_nomem(P);
			x->a = target;
			TRY(ps_filter(P, &x->c, false));
			BODY(end_set, true, &x->b);
		}
	} else if (!strcmp(tag, "macro")) {
		P->tags[P->ntags - 1] = "macro";
		ps_next(P);
		x = ps_node(P, N_MACRO, k->pos);
		if (!x)
			return ps_nomem(P);
		node *name;
		TRY(ps_name_only(P, &name));
		x->s = name->s;
		x->n = name->n;
		TRY(parse_signature(P, x));
		int loops = P->loops;
		P->loops = 0;
		BODY(end_macro, true, &x->b);
		P->loops = loops;
		scan_names(x, x->b);
		for (size_t i = 0; i < x->nitems; i++)
			scan_names(x, x->items2[i]);
	} else if (!strcmp(tag, "call")) {
		P->tags[P->ntags - 1] = "call";
		ps_next(P);
		x = ps_node(P, N_CALLBLK, k->pos);
		if (!x)
			return ps_nomem(P);
		if (ps_is_op(ps_cur(P), OP_LPAREN))
			TRY(parse_signature(P, x));
		TRY(ps_expr(P, true, &x->a));
		if (x->a->t != N_CALL)
			return ps_fail(P, k, "expected call");
		int loops = P->loops;
		P->loops = 0;
		BODY(end_call, true, &x->b);
		P->loops = loops;
		scan_names(x, x->b);
	} else if (!strcmp(tag, "filter")) {
		P->tags[P->ntags - 1] = "filter";
		ps_next(P);
		x = ps_node(P, N_FILTBLK, k->pos);
		if (!x)
			return ps_nomem(P);
		TRY(ps_filter(P, &x->a, true));
		BODY(end_filter, true, &x->b);
	} else if (!strcmp(tag, "with")) {
		P->tags[P->ntags - 1] = "with";
		ps_next(P);
		x = ps_node(P, N_WITH, k->pos);
		if (!x)
			return ps_nomem(P);
		nvec targets = {0}, values = {0};
		while (ps_cur(P)->t != T_BLOCK_END) {
			if (targets.n)
				TRY(ps_expect(P, T_OP, OP_COMMA, ","));
			node *t, *v;
			TRY(ps_target(P, false, NULL, &t));
			TRY(ps_expect(P, T_OP, OP_ASSIGN, "="));
			TRY(ps_expr(P, true, &v));
			TRY(ps_push(P, &targets, t));
			TRY(ps_push(P, &values, v));
		}
		x->items = targets.v;
		x->items2 = values.v;
		x->nitems = targets.n;
		BODY(end_with, true, &x->b);
	} else if (!strcmp(tag, "generation")) {
		/* transformers' AssistantTracker: a call block around the body */
		P->tags[P->ntags - 1] = "generation";
		ps_next(P);
		x = ps_node(P, N_GENBLK, k->pos);
		if (!x)
			return ps_nomem(P);
		int loops = P->loops;
		P->loops = 0;
		BODY(end_generation, true, &x->b);
		P->loops = loops;
	} else if (!strcmp(tag, "print")) {
		P->tags[P->ntags - 1] = "print";
		ps_next(P);
		nvec items = {0};
		while (ps_cur(P)->t != T_BLOCK_END) {
			if (items.n)
				TRY(ps_expect(P, T_OP, OP_COMMA, ","));
			node *v, *p = ps_node(P, N_PRINT, ps_cur(P)->pos);
			if (!p)
				return ps_nomem(P);
			TRY(ps_expr(P, true, &v));
			p->a = v;
			TRY(ps_push(P, &items, p));
		}
		x = ps_node(P, N_BODY, k->pos);
		if (!x)
			return ps_nomem(P);
		x->items = items.v;
		x->nitems = items.n;
	} else if (!strcmp(tag, "break") || !strcmp(tag, "continue")) {
		if (!P->loops)
			return ps_fail(P, k, "'%s' outside of a loop", tag);
		x = ps_node(P, tag[0] == 'b' ? N_BREAK : N_CONTINUE, k->pos);
		if (!x)
			return ps_nomem(P);
		ps_next(P);
	} else {
		P->ntags--;
		return fail_eof_or_tag(P, k, tag);
	}
#undef BODY
	P->ntags--;
	P->depth--;
	*out = x;
	(void)rc;
	return 0;
}

static int subparse(parser *P, const char *const *ends, node **out)
{
	nvec body = {0};
	uint32_t pos = ps_cur(P)->pos;
	for (;;) {
		token *k = ps_cur(P);
		if (k->t == T_DATA) {
			node *x = ps_node(P, N_TEXT, k->pos);
			if (!x)
				return ps_nomem(P);
			x->s = k->s;
			x->n = k->n;
			TRY(ps_push(P, &body, x));
			ps_next(P);
		} else if (k->t == T_VAR_BEGIN) {
			ps_next(P);
			node *x = ps_node(P, N_PRINT, ps_cur(P)->pos);
			if (!x)
				return ps_nomem(P);
			TRY(ps_tuple(P, 0, true, NULL, false, &x->a));
			TRY(ps_expect(P, T_VAR_END, 0, "end of print statement"));
			TRY(ps_push(P, &body, x));
		} else if (k->t == T_BLOCK_BEGIN) {
			ps_next(P);
			if (ends && ps_cur(P)->t == T_NAME)
				for (const char *const *x = ends; *x; x++)
					if (ps_is_name(ps_cur(P), *x))
						goto done;
			node *x = NULL;
			TRY(parse_statement(P, &x));
			TRY(ps_expect(P, T_BLOCK_END, 0, "end of statement block"));
			TRY(ps_push(P, &body, x));
		} else if (k->t == T_EOF) {
			break;
		} else {
			char d[80];
			ps_describe(k, d, sizeof d);
			return ps_fail(P, k, "unexpected '%s'", d);
		}
	}
done:;
	node *b = ps_node(P, N_BODY, pos);
	if (!b)
		return ps_nomem(P);
	b->items = body.v;
	b->nitems = body.n;
	*out = b;
	return 0;
}

int chat_parse(chat_tmpl *t, token *toks, size_t ntoks, ib_error *e)
{
	parser P = {.t = t, .k = toks, .n = ntoks, .e = e};
	return subparse(&P, NULL, &t->root);
}

int chat_tmpl_parse(const char *src, size_t len, const char *name, chat_tmpl **out, ib_error *e)
{
	*out = NULL;
	if (len > UINT32_MAX / 2)
		return ib_fail(e, IB_ERANGE, name, 0, 0, "template too large");
	ib_arena *a = ib_arena_new();
	chat_tmpl *t = a ? ib_arena_alloc(a, sizeof *t) : NULL;
	if (!t) {
		ib_arena_free(a);
		return ib_fail(e, IB_ENOMEM, name, 0, 0, "out of memory");
	}
	t->a = a;
	t->name = ib_arena_strdup(a, name ? name : "<template>");
	/* jinja2: \r\n and \r become \n, and one trailing newline goes */
	t->src = ib_arena_alloc(a, len + 1);
	if (!t->name || !t->src) {
		ib_arena_free(a);
		return ib_fail(e, IB_ENOMEM, name, 0, 0, "out of memory");
	}
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		if (src[i] == '\r') {
			t->src[n++] = '\n';
			if (i + 1 < len && src[i + 1] == '\n')
				i++;
		} else {
			t->src[n++] = src[i];
		}
	}
	if (n && t->src[n - 1] == '\n')
		n--;
	t->src[n] = 0;
	t->len = n;
	token *toks;
	size_t ntoks;
	int rc = chat_lex(t, &toks, &ntoks, e);
	if (!rc)
		rc = chat_parse(t, toks, ntoks, e);
	if (rc) {
		ib_arena_free(a);
		return rc;
	}
	*out = t;
	return 0;
}

void chat_tmpl_free(chat_tmpl *t)
{
	if (t)
		ib_arena_free(t->a);
}
