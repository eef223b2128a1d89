/* A small JSON reader for tokenizer.json (see private.h for why tok has one).
 * Strict RFC 8259: no comments, no trailing commas, no lone surrogates, no raw
 * control characters in strings. Strings without escapes are used in place:
 * their closing quote is overwritten with a NUL. */
#include "tok/private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 256 };

typedef struct {
	ib_arena *a;
	const char *name;
	char *s; /* the text (mutable: strings are terminated in place) */
	size_t len, i;
	tj *stk; /* children of the containers being read */
	size_t n, cap;
	ib_error *e;
} parser;

static int fail_at(parser *p, size_t at, const char *msg)
{
	int line = 1, col = 1;
	for (size_t k = 0; k < at && k < p->len; k++) {
		if (p->s[k] == '\n') {
			line++;
			col = 1;
		} else if (((unsigned char)p->s[k] & 0xC0) != 0x80) {
			col++;
		}
	}
	return ib_fail(p->e, IB_EPARSE, p->name, line, col, "JSON syntax error: %s", msg);
}

static void skip_ws(parser *p)
{
	while (p->i < p->len) {
		char c = p->s[p->i];
		if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
			return;
		p->i++;
	}
}

static int push(parser *p, tj v)
{
	if (p->n == p->cap && ib_grow(&p->stk, &p->cap, p->n + 1))
		return ib_fail(p->e, IB_ENOMEM, p->name, 0, 0, "out of memory reading JSON");
	p->stk[p->n++] = v;
	return 0;
}

static int hex4(const char *s, uint32_t *out)
{
	uint32_t v = 0;
	for (int k = 0; k < 4; k++) {
		char c = s[k];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* p->i is just after the opening quote. */
static int read_string(parser *p, tj *out)
{
	size_t start = p->i, k = start;
	const unsigned char *s = (const unsigned char *)p->s;
	while (k < p->len && s[k] != '"' && s[k] != '\\' && s[k] >= 0x20)
		k++;
	if (k < p->len && s[k] == '"') { /* no escapes: in place */
		p->s[k] = '\0';
		out->type = TJ_STR;
		out->s = p->s + start;
		out->n = (uint32_t)(k - start);
		p->i = k + 1;
		return 0;
	}
	/* with escapes: decode into the arena (never longer than the source) */
	size_t end = k;
	while (end < p->len && s[end] != '"') {
		if (s[end] < 0x20)
			return fail_at(p, end, "control character in string");
		end += s[end] == '\\' ? 2 : 1;
	}
	if (end >= p->len)
		return fail_at(p, start - 1, "unterminated string");
	char *d = ib_arena_alloc(p->a, end - start + 1);
	if (!d)
		return ib_fail(p->e, IB_ENOMEM, p->name, 0, 0, "out of memory reading JSON");
	size_t o = k - start;
	memcpy(d, p->s + start, o);
	while (k < end) {
		if (s[k] != '\\') {
			d[o++] = (char)s[k++];
			continue;
		}
		char c = (char)s[k + 1];
		size_t at = k;
		k += 2;
		switch (c) {
		case '"':
			d[o++] = '"';
			break;
		case '\\':
			d[o++] = '\\';
			break;
		case '/':
			d[o++] = '/';
			break;
		case 'b':
			d[o++] = '\b';
			break;
		case 'f':
			d[o++] = '\f';
			break;
		case 'n':
			d[o++] = '\n';
			break;
		case 'r':
			d[o++] = '\r';
			break;
		case 't':
			d[o++] = '\t';
			break;
		case 'u': {
			uint32_t cp, lo;
			if (k + 4 > end || hex4(p->s + k, &cp))
				return fail_at(p, at, "invalid \\u escape");
			k += 4;
			if (cp >= 0xDC00 && cp <= 0xDFFF)
				return fail_at(p, at, "lone low surrogate in \\u escape");
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				if (k + 6 > end || s[k] != '\\' || s[k + 1] != 'u' ||
				    hex4(p->s + k + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF)
					return fail_at(p, at, "lone high surrogate in \\u escape");
				k += 6;
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			}
			o += tok_utf8_put(d + o, cp);
			break;
		}
		default:
			return fail_at(p, at, "invalid escape");
		}
	}
	d[o] = '\0';
	out->type = TJ_STR;
	out->s = d;
	out->n = (uint32_t)o;
	p->i = end + 1;
	return 0;
}

static int read_number(parser *p, tj *out)
{
	size_t start = p->i, k = start;
	const char *s = p->s;
	bool is_int = true;
	if (k < p->len && s[k] == '-')
		k++;
	if (k < p->len && s[k] == '0') {
		k++;
	} else if (k < p->len && s[k] >= '1' && s[k] <= '9') {
		while (k < p->len && s[k] >= '0' && s[k] <= '9')
			k++;
	} else {
		return fail_at(p, start, "invalid value");
	}
	if (k < p->len && s[k] == '.') {
		is_int = false;
		k++;
		if (k >= p->len || s[k] < '0' || s[k] > '9')
			return fail_at(p, k, "invalid number");
		while (k < p->len && s[k] >= '0' && s[k] <= '9')
			k++;
	}
	if (k < p->len && (s[k] == 'e' || s[k] == 'E')) {
		is_int = false;
		k++;
		if (k < p->len && (s[k] == '+' || s[k] == '-'))
			k++;
		if (k >= p->len || s[k] < '0' || s[k] > '9')
			return fail_at(p, k, "invalid number");
		while (k < p->len && s[k] >= '0' && s[k] <= '9')
			k++;
	}
	/* strtoll/strtod stop at the first character that is not part of the
	 * number, and the text always ends with a NUL, so they stay in bounds */
	errno = 0;
	if (is_int) {
		long long v = strtoll(s + start, NULL, 10);
		if (errno == 0) {
			out->type = TJ_INT;
			out->i = v;
			p->i = k;
			return 0;
		}
	}
	out->type = TJ_NUM;
	out->f = strtod(s + start, NULL);
	p->i = k;
	return 0;
}

static int read_value(parser *p, tj *out, int depth);

static int read_container(parser *p, tj *out, int depth, bool obj)
{
	char close = obj ? '}' : ']';
	size_t base = p->n, count = 0;
	int rc;
	p->i++;
	skip_ws(p);
	if (p->i < p->len && p->s[p->i] == close) {
		p->i++;
		goto done;
	}
	for (;;) {
		tj v;
		skip_ws(p);
		if (obj) {
			if (p->i >= p->len || p->s[p->i] != '"')
				return fail_at(p, p->i, "expected a string key");
			p->i++;
			if ((rc = read_string(p, &v)) || (rc = push(p, v)))
				return rc;
			skip_ws(p);
			if (p->i >= p->len || p->s[p->i] != ':')
				return fail_at(p, p->i, "expected ':'");
			p->i++;
		}
		if ((rc = read_value(p, &v, depth + 1)) || (rc = push(p, v)))
			return rc;
		count++;
		skip_ws(p);
		if (p->i < p->len && p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->i < p->len && p->s[p->i] == close) {
			p->i++;
			break;
		}
		return fail_at(p, p->i, obj ? "expected ',' or '}'" : "expected ',' or ']'");
	}
done:
	out->type = obj ? TJ_OBJ : TJ_ARR;
	out->n = (uint32_t)count;
	out->items = NULL;
	if (p->n > base) {
		out->items = ib_arena_alloc(p->a, (p->n - base) * sizeof(tj));
		if (!out->items)
			return ib_fail(p->e, IB_ENOMEM, p->name, 0, 0,
			               "out of memory reading JSON");
		memcpy(out->items, p->stk + base, (p->n - base) * sizeof(tj));
	}
	p->n = base;
	return 0;
}

static int read_value(parser *p, tj *out, int depth)
{
	if (depth > MAX_DEPTH)
		return fail_at(p, p->i, "nesting too deep");
	skip_ws(p);
	if (p->i >= p->len)
		return fail_at(p, p->i, "unexpected end of text");
	char c = p->s[p->i];
	switch (c) {
	case '{':
		return read_container(p, out, depth, true);
	case '[':
		return read_container(p, out, depth, false);
	case '"':
		p->i++;
		return read_string(p, out);
	case 't':
	case 'f':
	case 'n': {
		const char *w = c == 't' ? "true" : c == 'f' ? "false" : "null";
		size_t wl = strlen(w);
		if (p->len - p->i < wl || memcmp(p->s + p->i, w, wl))
			return fail_at(p, p->i, "invalid value");
		p->i += wl;
		out->type = c == 't' ? TJ_TRUE : c == 'f' ? TJ_FALSE : TJ_NULL;
		out->n = 0;
		return 0;
	}
	default:
		return read_number(p, out);
	}
}

int tj_parse(ib_arena *a, const char *name, char *text, size_t len, tj **out, ib_error *e)
{
	parser p = {.a = a, .name = name, .s = text, .len = len, .e = e};
	size_t bad = tok_utf8_check(text, len);
	if (bad < len)
		return fail_at(&p, bad, "invalid UTF-8");
	tj *root = ib_arena_alloc(a, sizeof *root);
	int rc = root ? read_value(&p, root, 0) : IB_ENOMEM;
	if (!rc) {
		skip_ws(&p);
		if (p.i < p.len)
			rc = fail_at(&p, p.i, "extra data after the JSON value");
	} else if (rc == IB_ENOMEM && e && !e->msg[0]) {
		ib_fail(e, IB_ENOMEM, name, 0, 0, "out of memory reading JSON");
	}
	free(p.stk);
	if (!rc)
		*out = root;
	return rc;
}

const tj *tj_get(const tj *o, const char *key)
{
	if (!o || o->type != TJ_OBJ)
		return NULL;
	size_t kl = strlen(key);
	for (size_t k = o->n; k-- > 0;) {
		const tj *kv = &o->items[2 * k];
		if (kv->n == kl && !memcmp(kv->s, key, kl))
			return &o->items[2 * k + 1];
	}
	return NULL;
}

const char *tj_type_name(const tj *v)
{
	if (!v)
		return "nothing";
	switch (v->type) {
	case TJ_NULL:
		return "null";
	case TJ_FALSE:
	case TJ_TRUE:
		return "a boolean";
	case TJ_INT:
	case TJ_NUM:
		return "a number";
	case TJ_STR:
		return "a string";
	case TJ_ARR:
		return "a list";
	default:
		return "an object";
	}
}
