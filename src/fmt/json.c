/* JSON writer byte-compatible with Python's json.dumps (dependencies.md J1–J5,
 * F1–F6). */
#include "fmt/fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ib_json_float_repr(double x, char *out, size_t cap)
{
	if (isnan(x)) {
		snprintf(out, cap, "NaN");
		return;
	}
	if (isinf(x)) {
		snprintf(out, cap, x > 0 ? "Infinity" : "-Infinity");
		return;
	}
	/* F2: the shortest %.{p-1}e that reads back as x. Reading back is
	 * monotone in p (the correctly rounded p+1-digit decimal is at least as
	 * close to x as the p-digit one), so a binary search finds it. */
	char sci[64];
	int lo = 1, hi = 17;
	while (lo < hi) {
		int p = lo + (hi - lo) / 2;
		snprintf(sci, sizeof sci, "%.*e", p - 1, x);
		if (strtod(sci, NULL) == x)
			hi = p;
		else
			lo = p + 1;
	}
	snprintf(sci, sizeof sci, "%.*e", lo - 1, x);
	/* F3: sign, digits, exponent */
	const char *s = sci;
	bool neg = false;
	if (*s == '-') {
		neg = true;
		s++;
	}
	char digits[32];
	size_t nd = 0;
	for (; *s && *s != 'e'; s++)
		if (*s >= '0' && *s <= '9')
			digits[nd++] = *s;
	int e = *s == 'e' ? atoi(s + 1) : 0;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = '\0';

	char buf[400];
	size_t o = 0;
	if (neg)
		buf[o++] = '-';
	if (e >= -4 && e < 16) {
		if (e < 0) { /* F4, negative exponent */
			buf[o++] = '0';
			buf[o++] = '.';
			for (int i = 0; i < -e - 1; i++)
				buf[o++] = '0';
			memcpy(buf + o, digits, nd);
			o += nd;
		} else {
			for (int i = 0; i <= e; i++)
				buf[o++] = (size_t)i < nd ? digits[i] : '0';
			buf[o++] = '.';
			if ((size_t)e + 1 < nd) {
				memcpy(buf + o, digits + e + 1, nd - (size_t)e - 1);
				o += nd - (size_t)e - 1;
			} else {
				buf[o++] = '0';
			}
		}
		buf[o] = '\0';
	} else { /* F5 */
		buf[o++] = digits[0];
		if (nd > 1) {
			buf[o++] = '.';
			memcpy(buf + o, digits + 1, nd - 1);
			o += nd - 1;
		}
		snprintf(buf + o, sizeof buf - o, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
	}
	snprintf(out, cap, "%s", buf);
}

/* Decodes one UTF-8 sequence with the base codec; returns its length and
 * sets *cp, or returns 1 with *cp = U+FFFD for a byte that does not start
 * valid UTF-8. */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	int len = ib_utf8_decode(s, n, cp);
	if (len > 0)
		return (size_t)len;
	*cp = 0xFFFD;
	return 1;
}

int ib_json_write_str(ib_buf *out, const char *str, size_t n, bool ensure_ascii)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	if (ib_buf_reserve(out, n + 2))
		return IB_ENOMEM;
	ib_buf_putc(out, '"');
	size_t i = 0;
	while (i < n) {
		/* copy a run of characters that need no escaping */
		size_t j = i;
		while (j < n && s[j] >= 0x20 && s[j] != '"' && s[j] != '\\' &&
		       s[j] < (ensure_ascii ? 0x7F : 0x80)) /* non-ASCII: decoded below */
			j++;
		if (j > i && ib_buf_append(out, s + i, j - i))
			return IB_ENOMEM;
		i = j;
		if (i >= n)
			break;
		unsigned c = s[i];
		char esc[16];
		const char *e = NULL;
		switch (c) {
		case '"':
			e = "\\\"";
			break;
		case '\\':
			e = "\\\\";
			break;
		case '\n':
			e = "\\n";
			break;
		case '\r':
			e = "\\r";
			break;
		case '\t':
			e = "\\t";
			break;
		case '\b':
			e = "\\b";
			break;
		case '\f':
			e = "\\f";
			break;
		default:
			break;
		}
		if (e) {
			if (ib_buf_puts(out, e))
				return IB_ENOMEM;
			i++;
			continue;
		}
		uint32_t cp;
		size_t len = c < 0x80 ? 1 : utf8_decode(s + i, n - i, &cp);
		if (c < 0x80)
			cp = c;
		i += len;
		if (cp < 0x80 || ensure_ascii) {
			if (cp >= 0x10000) {
				uint32_t v = cp - 0x10000;
				uint32_t hi = 0xD800 | (v >> 10), lo = 0xDC00 | (v & 0x3FF);
				snprintf(esc, sizeof esc, "\\u%c%c%c%c\\u%c%c%c%c", hex[hi >> 12],
				         hex[(hi >> 8) & 15], hex[(hi >> 4) & 15], hex[hi & 15],
				         hex[lo >> 12], hex[(lo >> 8) & 15], hex[(lo >> 4) & 15],
				         hex[lo & 15]);
			} else {
				snprintf(esc, sizeof esc, "\\u%c%c%c%c", hex[cp >> 12],
				         hex[(cp >> 8) & 15], hex[(cp >> 4) & 15], hex[cp & 15]);
			}
			if (ib_buf_puts(out, esc))
				return IB_ENOMEM;
		} else if (ib_buf_append(out,
		                         cp == 0xFFFD ? "\xEF\xBF\xBD" : (const char *)s + i - len,
		                         cp == 0xFFFD ? 3 : len)) {
			return IB_ENOMEM; /* (a byte that is not UTF-8 went out as U+FFFD) */
		}
	}
	return ib_buf_putc(out, '"');
}

static int newline_indent(ib_buf *out, const ib_json_opts *o, int depth)
{
	if (ib_buf_putc(out, '\n'))
		return IB_ENOMEM;
	for (int i = 0; i < o->indent * depth; i++)
		if (ib_buf_putc(out, ' '))
			return IB_ENOMEM;
	return 0;
}

static int key_cmp(const void *a, const void *b)
{
	const ib_kv *x = a, *y = b;
	size_t n = x->key->str.len < y->key->str.len ? x->key->str.len : y->key->str.len;
	int c = memcmp(x->key->str.s, y->key->str.s, n);
	if (c)
		return c;
	return x->key->str.len < y->key->str.len ? -1 : x->key->str.len > y->key->str.len;
}

static int write_val(ib_buf *out, const ib_val *v, const ib_json_opts *o, int depth, ib_error *e)
{
	const char *item_sep = o->indent >= 0 ? "," : o->compact ? "," : ", ";
	const char *key_sep = o->compact ? ":" : ": ";
	char num[64];
	switch (v->type) {
	case IB_V_NULL:
		return ib_buf_puts(out, "null");
	case IB_V_BOOL:
		return ib_buf_puts(out, v->b ? "true" : "false");
	case IB_V_INT: {
		/* decimal digits without printf: this is the hot path of big outputs */
		char *p = num + sizeof num;
		uint64_t u = v->i < 0 ? -(uint64_t)v->i : (uint64_t)v->i;
		do
			*--p = (char)('0' + u % 10);
		while ((u /= 10) != 0);
		if (v->i < 0)
			*--p = '-';
		return ib_buf_append(out, p, (size_t)(num + sizeof num - p));
	}
	case IB_V_FLOAT:
		if (v->bigint)
			return ib_buf_puts(out, v->bigint);
		ib_json_float_repr(v->f, num, sizeof num);
		return ib_buf_puts(out, num);
	case IB_V_STR:
		return ib_json_write_str(out, v->str.s, v->str.len, o->ensure_ascii);
	case IB_V_DATE:
		return ib_fail(e, IB_EINVAL, v->file, v->line, v->col,
		               "Object of type date is not JSON serializable (got %s)", v->str.s);
	case IB_V_LIST:
		if (v->list.n == 0)
			return ib_buf_puts(out, "[]");
		ib_buf_putc(out, '[');
		for (size_t i = 0; i < v->list.n; i++) {
			if (i && ib_buf_puts(out, item_sep))
				return IB_ENOMEM;
			if (o->indent >= 0 && newline_indent(out, o, depth + 1))
				return IB_ENOMEM;
			int rc = write_val(out, v->list.v[i], o, depth + 1, e);
			if (rc)
				return rc;
		}
		if (o->indent >= 0 && newline_indent(out, o, depth))
			return IB_ENOMEM;
		return ib_buf_putc(out, ']');
	case IB_V_MAP: {
		if (v->map.n == 0)
			return ib_buf_puts(out, "{}");
		const ib_kv *kvs = v->map.kv;
		ib_kv *sorted = NULL;
		if (o->sort_keys) {
			for (size_t i = 0; i < v->map.n; i++)
				if (v->map.kv[i].key->type != IB_V_STR)
					return ib_fail(e, IB_EINVAL, NULL, 0, 0,
					               "sort_keys needs string keys");
			sorted = malloc(v->map.n * sizeof *sorted);
			if (!sorted)
				return IB_ENOMEM;
			memcpy(sorted, v->map.kv, v->map.n * sizeof *sorted);
			qsort(sorted, v->map.n, sizeof *sorted, key_cmp);
			kvs = sorted;
		}
		int rc = ib_buf_putc(out, '{');
		for (size_t i = 0; i < v->map.n && !rc; i++) {
			if (i)
				rc = ib_buf_puts(out, item_sep);
			if (!rc && o->indent >= 0)
				rc = newline_indent(out, o, depth + 1);
			const ib_val *k = kvs[i].key;
			if (rc)
				break;
			/* Python converts scalar keys to strings */
			if (k->type == IB_V_STR) {
				rc = ib_json_write_str(out, k->str.s, k->str.len, o->ensure_ascii);
			} else if (k->type == IB_V_INT || k->type == IB_V_FLOAT ||
			           k->type == IB_V_BOOL || k->type == IB_V_NULL) {
				ib_buf tmp = {0};
				rc = write_val(&tmp, k, o, depth, e);
				if (!rc)
					rc = ib_json_write_str(out, tmp.data, tmp.len, true);
				ib_buf_free(&tmp);
			} else {
				rc = ib_fail(e, IB_EINVAL, k->file, k->line, k->col,
				             "keys must be str, int, float, bool or None");
			}
			if (!rc)
				rc = ib_buf_puts(out, key_sep);
			if (!rc)
				rc = write_val(out, kvs[i].val, o, depth + 1, e);
		}
		free(sorted);
		if (rc)
			return rc;
		if (o->indent >= 0 && newline_indent(out, o, depth))
			return IB_ENOMEM;
		return ib_buf_putc(out, '}');
	}
	}
	return IB_EINVAL;
}

int ib_json_write(ib_buf *out, const ib_val *v, const ib_json_opts *o, ib_error *e)
{
	int rc = write_val(out, v, o, 0, e);
	if (rc == IB_ENOMEM)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory writing JSON");
	return rc;
}

int ib_json_write_path(const char *path, const ib_val *v, const ib_json_opts *o, ib_error *e)
{
	ib_buf b = {0};
	int rc = ib_json_write(&b, v, o, e);
	if (!rc || ib_buf_error(&b)) /* the buffer's error is reported naming path */
		rc = ib_buf_write_file(path, &b, e);
	ib_buf_free(&b);
	return rc;
}

int ib_json_write_file(FILE *f, const ib_val *v, const ib_json_opts *o, ib_error *e)
{
	ib_buf b = {0};
	int rc = 0;
	if (v->type != IB_V_LIST || v->list.n == 0 || o->indent >= 0) {
		rc = ib_json_write(&b, v, o, e);
	} else {
		const char *sep = o->compact ? "," : ", ";
		rc = ib_buf_putc(&b, '[');
		for (size_t i = 0; !rc && i < v->list.n; i++) {
			if (i)
				rc = ib_buf_puts(&b, sep);
			if (!rc)
				rc = ib_json_write(&b, v->list.v[i], o, e);
			if (!rc && b.len >= 65536) {
				if (fwrite(b.data, 1, b.len, f) != b.len)
					rc = ib_fail(e, IB_EIO, NULL, 0, 0, "write error");
				b.len = 0;
			}
		}
		if (!rc)
			rc = ib_buf_putc(&b, ']');
	}
	if (!rc && b.len && fwrite(b.data, 1, b.len, f) != b.len)
		rc = ib_fail(e, IB_EIO, NULL, 0, 0, "write error");
	ib_buf_free(&b);
	return rc;
}
