/* The template lexer: jinja2's Lexer with trim_blocks and lstrip_blocks on,
 * the default delimiters and no line statements. Whitespace control follows
 * jinja2 3.1: "{%-"/"-%}" strip all whitespace (Python str.isspace) before
 * or after a tag; "{%+" keeps the whitespace that lstrip_blocks would remove
 * before a block or comment tag; "+%}" keeps the newline that trim_blocks
 * would remove after one. */
#include "chat/private.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	chat_tmpl *t;
	const char *s;
	size_t n;
	token *v;
	size_t nv, cap;
	ib_error *e;
	char stack[256]; /* open brackets inside a tag */
	size_t depth;
} lexer;

static int push(lexer *L, tok_type ty, uint32_t pos, token **out)
{
	if (L->nv == L->cap && ib_arena_grow(L->t->a, &L->v, &L->cap, L->nv + 1))
		return IB_ENOMEM;
	token *k = &L->v[L->nv++];
	memset(k, 0, sizeof *k);
	k->t = ty;
	k->pos = pos;
	if (out)
		*out = k;
	return 0;
}

/* Length of the whitespace run at s[i..n). */
static size_t ws_run(const char *s, size_t n, size_t i)
{
	size_t j = i;
	while (j < n) {
		size_t k = j;
		uint32_t c = cu_next(s, n, &k);
		if (!cu_isspace(c))
			break;
		j = k;
	}
	return j - i;
}

/* Length of s[0..n) without trailing whitespace (Python rstrip()). */
static size_t rstrip_len(const char *s, size_t n)
{
	size_t i = 0, keep = 0;
	while (i < n) {
		uint32_t c = cu_next(s, n, &i);
		if (!cu_isspace(c))
			keep = i;
	}
	return keep;
}

/* Emits the text before a tag, with the tag's whitespace control applied. */
static int emit_text(lexer *L, size_t from, size_t to, char sign, bool lstrip, bool line_starting)
{
	const char *s = L->s + from;
	size_t n = to - from;
	if (sign == '-') {
		n = rstrip_len(s, n);
	} else if (sign != '+' && lstrip) {
		size_t l = n;
		while (l > 0 && s[l - 1] != '\n')
			l--;
		if ((l > 0 || line_starting) && l < n && ws_run(s, n, l) == n - l)
			n = l;
	}
	if (n == 0)
		return 0;
	token *k;
	if (push(L, T_DATA, (uint32_t)from, &k))
		return IB_ENOMEM;
	k->s = s;
	k->n = n;
	return 0;
}

static bool at(const lexer *L, size_t i, const char *lit)
{
	size_t m = strlen(lit);
	return i + m <= L->n && !memcmp(L->s + i, lit, m);
}

static bool isdig(char c)
{
	return c >= '0' && c <= '9';
}

/* jinja2's (\d+_)*\d+ at i: the end, or i when it does not match. */
static size_t digits(const lexer *L, size_t i)
{
	if (i >= L->n || !isdig(L->s[i]))
		return i;
	size_t j = i;
	while (j < L->n && isdig(L->s[j]))
		j++;
	while (j + 1 < L->n && L->s[j] == '_' && isdig(L->s[j + 1])) {
		j++;
		while (j < L->n && isdig(L->s[j]))
			j++;
	}
	return j;
}

/* [eE][+-]?D at i: the end, or i. */
static size_t exponent(const lexer *L, size_t i)
{
	if (i >= L->n || (L->s[i] | 32) != 'e')
		return i;
	size_t j = i + 1;
	if (j < L->n && (L->s[j] == '+' || L->s[j] == '-'))
		j++;
	size_t k = digits(L, j);
	return k > j ? k : i;
}

static size_t float_end(const lexer *L, size_t i)
{
	if (i > 0 && L->s[i - 1] == '.')
		return i;
	size_t j = digits(L, i);
	if (j == i)
		return i;
	if (j < L->n && L->s[j] == '.') {
		size_t k = digits(L, j + 1);
		if (k > j + 1) {
			size_t x = exponent(L, k);
			return x > k ? x : k;
		}
	}
	size_t x = exponent(L, j);
	return x > j ? x : i;
}

static bool in_base(char c, int base)
{
	if (base == 2)
		return c == '0' || c == '1';
	if (base == 8)
		return c >= '0' && c <= '7';
	if (base == 16)
		return isdig(c) || ((c | 32) >= 'a' && (c | 32) <= 'f');
	return isdig(c);
}

/* jinja2's integer_re at i: the end (and the base), or i. */
static size_t int_end(const lexer *L, size_t i, int *base)
{
	const char *s = L->s;
	size_t n = L->n;
	if (i >= n || !isdig(s[i]))
		return i;
	if (s[i] == '0' && i + 1 < n) {
		char p = (char)(s[i + 1] | 32);
		int b = p == 'b' ? 2 : p == 'o' ? 8 : p == 'x' ? 16 : 0;
		if (b) {
			size_t j = i + 2;
			for (;;) {
				size_t k = j;
				if (k < n && s[k] == '_')
					k++;
				if (k < n && in_base(s[k], b))
					j = k + 1;
				else
					break;
			}
			if (j > i + 2) {
				*base = b;
				return j;
			}
		}
	}
	*base = 10;
	char first = s[i];
	size_t j = i + 1;
	for (;;) {
		size_t k = j;
		if (k < n && s[k] == '_')
			k++;
		if (k < n && (first == '0' ? s[k] == '0' : isdig(s[k])))
			j = k + 1;
		else
			break;
	}
	return j;
}

static int hexval(char c)
{
	if (isdig(c))
		return c - '0';
	c = (char)(c | 32);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Decodes a string literal the way jinja2 does: backslashreplace, then
 * Python's unicode-escape codec. */
static int decode_string(lexer *L, size_t from, size_t to, token *k)
{
	ib_buf b = {0};
	const char *s = L->s;
	size_t i = from;
	int rc = 0;
	uint32_t pending_hi = 0; /* a high surrogate waiting for its pair */
	while (!rc && i < to) {
		size_t start = i;
		uint32_t c = cu_next(s, to, &i);
		uint32_t out = c;
		if (c == '\\' && i < to) {
			size_t j = i;
			uint32_t d = cu_next(s, to, &j);
			i = j;
			int need = 0;
			switch (d) {
			case '\n':
				continue;
			case '\\':
			case '\'':
			case '"':
				out = d;
				break;
			case 'a':
				out = 7;
				break;
			case 'b':
				out = 8;
				break;
			case 'f':
				out = 12;
				break;
			case 'n':
				out = 10;
				break;
			case 'r':
				out = 13;
				break;
			case 't':
				out = 9;
				break;
			case 'v':
				out = 11;
				break;
			case 'x':
				need = 2;
				break;
			case 'u':
				need = 4;
				break;
			case 'U':
				need = 8;
				break;
			default:
				if (d >= '0' && d <= '7') {
					out = d - '0';
					for (int m = 0;
					     m < 2 && i < to && s[i] >= '0' && s[i] <= '7'; m++)
						out = out * 8 + (uint32_t)(s[i++] - '0');
				} else if (d >= 0x80) {
					/* backslashreplace turned d into \xhh / \uhhhh /
					 * \Uhhhhhhhh, whose backslash the first one escapes */
					char t[16];
					if (d <= 0xFF)
						snprintf(t, sizeof t, "\\x%02x", d);
					else if (d <= 0xFFFF)
						snprintf(t, sizeof t, "\\u%04x", d);
					else
						snprintf(t, sizeof t, "\\U%08x", d);
					rc = ib_buf_puts(&b, t);
					continue;
				} else {
					rc = ib_buf_putc(&b, '\\');
					out = d;
				}
			}
			if (need) {
				uint32_t v = 0;
				int m = 0;
				for (; m < need && i < to && hexval(s[i]) >= 0; m++)
					v = v * 16 + (uint32_t)hexval(s[i++]);
				if (m < need) {
					ib_buf_free(&b);
					return chat_fail_at(
					    L->t, (uint32_t)start, L->e, IB_EPARSE,
					    "truncated \\%c escape in a string literal", (char)d);
				}
				if (v > 0x10FFFF) {
					ib_buf_free(&b);
					return chat_fail_at(
					    L->t, (uint32_t)start, L->e, IB_EPARSE,
					    "illegal Unicode character in a string literal");
				}
				out = v;
			}
		}
		if (rc)
			break;
		/* surrogates: a pair becomes one character, a lone one U+FFFD */
		if (out >= 0xD800 && out <= 0xDBFF) {
			if (pending_hi)
				rc = cu_put(&b, 0xFFFD);
			pending_hi = out;
			continue;
		}
		if (out >= 0xDC00 && out <= 0xDFFF && pending_hi) {
			out = 0x10000 + ((pending_hi - 0xD800) << 10) + (out - 0xDC00);
			pending_hi = 0;
		} else if (out >= 0xDC00 && out <= 0xDFFF) {
			out = 0xFFFD;
		} else if (pending_hi) {
			rc = cu_put(&b, 0xFFFD);
			pending_hi = 0;
		}
		if (!rc) {
			if (out == c && out >= 0x80 && c != '\\')
				rc = ib_buf_append(&b, s + start, i - start); /* as it was */
			else
				rc = cu_put(&b, out);
		}
	}
	if (!rc && pending_hi)
		rc = cu_put(&b, 0xFFFD);
	if (rc) {
		ib_buf_free(&b);
		return IB_ENOMEM;
	}
	k->n = b.len;
	k->s = b.len ? ib_arena_strndup(L->t->a, b.data, b.len) : "";
	ib_buf_free(&b);
	return k->s ? 0 : IB_ENOMEM;
}

static const struct {
	const char *txt;
	int op;
} ops[] = {
    {"//", OP_FLOORDIV}, {"**", OP_POW},   {"==", OP_EQ},      {"!=", OP_NE},      {">=", OP_GTEQ},
    {"<=", OP_LTEQ},     {"+", OP_ADD},    {"-", OP_SUB},      {"/", OP_DIV},      {"*", OP_MUL},
    {"%", OP_MOD},       {"~", OP_TILDE},  {"[", OP_LBRACKET}, {"]", OP_RBRACKET}, {"(", OP_LPAREN},
    {")", OP_RPAREN},    {"{", OP_LBRACE}, {"}", OP_RBRACE},   {">", OP_GT},       {"<", OP_LT},
    {"=", OP_ASSIGN},    {".", OP_DOT},    {":", OP_COLON},    {"|", OP_PIPE},     {",", OP_COMMA},
    {";", OP_SEMICOLON},
};

const char *chat_op_text(int op)
{
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (ops[i].op == op)
			return ops[i].txt;
	return op == OP_IN ? "in" : op == OP_NOTIN ? "not in" : "?";
}

/* One token inside {{ }} or {% %} at *pos. Returns 0, or 1 when the tag
 * ended, or an error. */
static int tag_token(lexer *L, size_t *pos, bool block, bool *line_starting)
{
	const char *s = L->s;
	size_t n = L->n, i = *pos;
	if (L->depth == 0) {
		if (block) {
			if (at(L, i, "+%}") || at(L, i, "-%}") || at(L, i, "%}")) {
				size_t j = i + (s[i] == '%' ? 2 : 3);
				if (s[i] == '-')
					j += ws_run(s, n, j);
				else if (s[i] == '%' && j < n && s[j] == '\n')
					j++;
				*line_starting = s[j - 1] == '\n';
				*pos = j;
				return push(L, T_BLOCK_END, (uint32_t)i, NULL) ? IB_ENOMEM : 1;
			}
		} else if (at(L, i, "-}}") || at(L, i, "}}")) {
			size_t j = i + (s[i] == '-' ? 3 : 2);
			if (s[i] == '-')
				j += ws_run(s, n, j);
			*line_starting = s[j - 1] == '\n';
			*pos = j;
			return push(L, T_VAR_END, (uint32_t)i, NULL) ? IB_ENOMEM : 1;
		}
	}
	size_t w = ws_run(s, n, i);
	if (w) {
		*pos = i + w;
		return 0;
	}
	token *k;
	size_t j = float_end(L, i);
	if (j > i) {
		char tmp[128];
		size_t m = 0;
		for (size_t x = i; x < j && m + 1 < sizeof tmp; x++)
			if (s[x] != '_')
				tmp[m++] = s[x];
		tmp[m] = 0;
		if (push(L, T_FLOAT, (uint32_t)i, &k))
			return IB_ENOMEM;
		k->f = strtod(tmp, NULL);
		*pos = j;
		return 0;
	}
	int base;
	j = int_end(L, i, &base);
	if (j > i) {
		uint64_t v = 0;
		bool over = false;
		for (size_t x = i + (base == 10 ? 0 : 2); x < j; x++) {
			if (s[x] == '_')
				continue;
			uint64_t d = (uint64_t)hexval(s[x]);
			if (v > (UINT64_MAX - d) / (uint64_t)base)
				over = true;
			v = v * (uint64_t)base + d;
		}
		if (over || v > (uint64_t)INT64_MAX)
			return chat_fail_at(L->t, (uint32_t)i, L->e, IB_EPARSE,
			                    "integer literal %.*s does not fit in 64 bits",
			                    (int)(j - i), s + i);
		if (push(L, T_INT, (uint32_t)i, &k))
			return IB_ENOMEM;
		k->i = (int64_t)v;
		*pos = j;
		return 0;
	}
	size_t x = i;
	uint32_t c = cu_next(s, n, &x);
	if (cu_ident_start(c)) {
		j = x;
		while (j < n) {
			size_t y = j;
			if (!cu_ident_cont(cu_next(s, n, &y)))
				break;
			j = y;
		}
		if (push(L, T_NAME, (uint32_t)i, &k))
			return IB_ENOMEM;
		k->s = s + i;
		k->n = j - i;
		*pos = j;
		return 0;
	}
	if (c == '\'' || c == '"') {
		j = i + 1;
		while (j < n && s[j] != (char)c)
			j += s[j] == '\\' && j + 1 < n ? 2 : 1;
		if (j < n) {
			if (push(L, T_STRING, (uint32_t)i, &k))
				return IB_ENOMEM;
			int rc = decode_string(L, i + 1, j, k);
			if (rc)
				return rc;
			*pos = j + 1;
			return 0;
		}
	}
	for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
		if (!at(L, i, ops[o].txt))
			continue;
		int op = ops[o].op;
		if (op == OP_LPAREN || op == OP_LBRACKET || op == OP_LBRACE) {
			if (L->depth == sizeof L->stack)
				return chat_fail_at(L->t, (uint32_t)i, L->e, IB_EPARSE,
				                    "brackets nested too deeply");
			L->stack[L->depth++] = ops[o].txt[0];
		} else if (op == OP_RPAREN || op == OP_RBRACKET || op == OP_RBRACE) {
			char want = op == OP_RPAREN ? '(' : op == OP_RBRACKET ? '[' : '{';
			if (L->depth == 0)
				return chat_fail_at(L->t, (uint32_t)i, L->e, IB_EPARSE,
				                    "unexpected '%s'", ops[o].txt);
			char open = L->stack[L->depth - 1];
			if (open != want)
				return chat_fail_at(L->t, (uint32_t)i, L->e, IB_EPARSE,
				                    "unexpected '%s', expected '%c'", ops[o].txt,
				                    open == '('   ? ')'
				                    : open == '[' ? ']'
				                                  : '}');
			L->depth--;
		}
		if (push(L, T_OP, (uint32_t)i, &k))
			return IB_ENOMEM;
		k->op = op;
		*pos = i + strlen(ops[o].txt);
		return 0;
	}
	if (c < 0x20 || c == 0x7F)
		return chat_fail_at(L->t, (uint32_t)i, L->e, IB_EPARSE,
		                    "unexpected character U+%04X", c);
	return chat_fail_at(L->t, (uint32_t)i, L->e, IB_EPARSE, "unexpected character '%.*s'",
	                    (int)(x - i), s + i);
}

/* After "{% raw %}": the text up to "{% endraw %}". */
static int raw_block(lexer *L, size_t begin, size_t *pos, bool *line_starting)
{
	const char *s = L->s;
	size_t n = L->n;
	for (size_t q = *pos; q + 1 < n; q++) {
		if (s[q] != '{' || s[q + 1] != '%')
			continue;
		size_t j = q + 2;
		char sign = j < n && (s[j] == '-' || s[j] == '+') ? s[j] : 0;
		if (sign)
			j++;
		j += ws_run(s, n, j);
		if (!at(L, j, "endraw"))
			continue;
		j += 6;
		j += ws_run(s, n, j);
		size_t end;
		if (at(L, j, "+%}")) {
			end = j + 3;
		} else if (at(L, j, "-%}")) {
			end = j + 3;
			end += ws_run(s, n, end);
		} else if (at(L, j, "%}")) {
			end = j + 2;
			if (end < n && s[end] == '\n')
				end++;
		} else {
			continue;
		}
		int rc = emit_text(L, *pos, q, sign, true, *line_starting);
		if (rc)
			return rc;
		*line_starting = s[end - 1] == '\n';
		*pos = end;
		return 0;
	}
	return chat_fail_at(L->t, (uint32_t)begin, L->e, IB_EPARSE,
	                    "missing end of raw directive ({%% endraw %%})");
}

/* "{% raw %}" at p (after the sign at i): the end of the opening tag, or 0. */
static size_t raw_begin(const lexer *L, size_t i)
{
	size_t j = i + ws_run(L->s, L->n, i);
	if (!at(L, j, "raw"))
		return 0;
	j += 3;
	j += ws_run(L->s, L->n, j);
	if (at(L, j, "-%}"))
		return j + 3 + ws_run(L->s, L->n, j + 3);
	if (at(L, j, "%}"))
		return j + 2;
	return 0;
}

int chat_lex(chat_tmpl *t, token **out, size_t *nout, ib_error *e)
{
	lexer L = {.t = t, .s = t->src, .n = t->len, .e = e};
	const char *s = L.s;
	size_t n = L.n, pos = 0;
	bool line_starting = true;
	int rc = 0;
	while (!rc && pos < n) {
		size_t p = pos;
		while (p + 1 < n &&
		       !(s[p] == '{' && (s[p + 1] == '{' || s[p + 1] == '%' || s[p + 1] == '#')))
			p++;
		if (p + 1 >= n) {
			rc = emit_text(&L, pos, n, 0, false, false);
			break;
		}
		char kind = s[p + 1];
		char sign = p + 2 < n && (s[p + 2] == '-' || s[p + 2] == '+') ? s[p + 2] : 0;
		size_t after = p + 2 + (sign ? 1 : 0);
		size_t raw_end = kind == '%' ? raw_begin(&L, after) : 0;
		rc = emit_text(&L, pos, p, sign, kind != '{', line_starting);
		if (rc)
			break;
		if (raw_end) {
			line_starting = s[raw_end - 1] == '\n';
			pos = raw_end;
			rc = raw_block(&L, p, &pos, &line_starting);
			continue;
		}
		if (kind == '#') {
			size_t q = after;
			size_t end = 0;
			for (; q + 1 < n; q++) {
				if ((s[q] == '+' || s[q] == '-') && at(&L, q + 1, "#}")) {
					end = q + 3;
					if (s[q] == '-')
						end += ws_run(s, n, end);
					break;
				}
				if (s[q] == '#' && s[q + 1] == '}') {
					end = q + 2;
					if (end < n && s[end] == '\n')
						end++;
					break;
				}
			}
			if (!end)
				return chat_fail_at(t, (uint32_t)p, e, IB_EPARSE,
				                    "missing end of comment tag (#})");
			line_starting = s[end - 1] == '\n';
			pos = end;
			continue;
		}
		bool block = kind == '%';
		rc = push(&L, block ? T_BLOCK_BEGIN : T_VAR_BEGIN, (uint32_t)p, NULL);
		line_starting = false;
		pos = after;
		L.depth = 0;
		while (!rc && pos < n) {
			rc = tag_token(&L, &pos, block, &line_starting);
			if (rc == 1) {
				rc = 0;
				break;
			}
		}
	}
	if (!rc)
		rc = push(&L, T_EOF, (uint32_t)n, NULL);
	if (rc == IB_ENOMEM)
		return ib_fail(e, IB_ENOMEM, t->name, 0, 0, "out of memory");
	if (rc)
		return rc;
	*out = L.v;
	*nout = L.nv;
	return 0;
}
