/* JSON writer byte-compatible with Python's json.dumps (dependencies.md J1–J5,
 * F1–F6). */
#include "fmt/fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

/* x * 10^k = m * P / D exactly, with P = 10^max(k,0) and D = 2^s * 10^max(-k,0);
 * rounds it to the nearest integer *c, and says whether *c reads back as x:
 * it lies in x's rounding interval, whose half-width is P / (2 D) here
 * (the ends included when m is even: strtod rounds a tie to even). A tie of
 * the rounding itself returns -1 (left to the printf search). */
static int round_scaled(uint64_t m, int s, int k, const u128 *pow10, u128 *c)
{
	u128 P = k >= 0 ? pow10[k] : 1, D = (u128)1 << s, num = (u128)m * P, q, r;
	if (k < 0) {
		D *= pow10[-k];
		q = num / D;
		r = num % D;
	} else {
		q = num >> s;
		r = num & (D - 1);
	}
	u128 dist;
	if (2 * r > D) {
		*c = q + 1;
		dist = D - r;
	} else if (2 * r < D) {
		*c = q;
		dist = r;
	} else {
		return -1;
	}
	return 2 * dist < P || (2 * dist == P && !(m & 1));
}

static u128 pow10_128[39];

static void pow10_init(void)
{
	if (!pow10_128[0]) {
		u128 p = 1;
		for (int i = 0; i < 39; i++, p *= 10)
			pow10_128[i] = p;
	}
}

/* The shortest digits that read back as the double m / 2^s (2^52 <= m < 2^53,
 * 0 <= s <= 122), exactly, in 128-bit integers; e10 is an estimate (within 2)
 * of the decimal exponent of its first digit. False where the figures leave
 * 128 bits (below about 1e-21) or m is a power of two (a lopsided rounding
 * interval): the printf search handles those. Sets digits (no trailing
 * zeros), *nd and *e, the decimal exponent of the first digit. */
static bool shortest_ms(uint64_t m, int s, int e10, char *digits, size_t *nd, int *e)
{
	const u128 *pow10 = pow10_128;
	if (m == UINT64_C(1) << 52 || s < 0 || s > 122)
		return false;
	/* correct the estimate: 10^16 <= |x| * 10^(16 - e10) < 10^17 */
	for (int tries = 0;; tries++) {
		int k = 16 - e10;
		if (tries > 4 || k > 22 || k < -38 || (k < 0 && s + 4 * -k > 124))
			return false;
		u128 q = k >= 0 ? ((u128)m * pow10[k]) >> s : ((u128)m >> s) / pow10[-k];
		if (q < pow10[16])
			e10--;
		else if (q >= pow10[17])
			e10++;
		else
			break;
	}
	/* the smallest n whose nearest n-digit decimal reads back as x: reading
	 * back is monotone in n, so a binary search over 1..17 */
	int lo = 1, hi = 17;
	u128 best = 0;
	while (lo <= hi) {
		int n = lo + (hi - lo) / 2, k = n - 1 - e10;
		if (k > 22 || (k < 0 && s + 4 * -k > 124))
			return false;
		u128 c;
		int ok = round_scaled(m, s, k, pow10, &c);
		if (ok < 0)
			return false;
		if (ok) {
			best = c;
			hi = n - 1;
		} else {
			lo = n + 1;
		}
	}
	if (lo > 17)
		return false;
	/* best has lo digits, or lo + 1 when the rounding carried (10^lo) */
	char tmp[40];
	size_t len = 0;
	for (uint64_t v = (uint64_t)best; v; v /= 10) /* best <= 10^17 */
		tmp[len++] = (char)('0' + (int)(v % 10));
	*e = e10 + (int)len - lo;
	size_t skip = 0;
	while (skip + 1 < len && tmp[skip] == '0') /* trailing zeros, stored first */
		skip++;
	*nd = 0;
	for (size_t i = len; i-- > skip;)
		digits[(*nd)++] = tmp[i];
	digits[*nd] = '\0';
	return true;
}

/* shortest_ms for a finite double x; zero is "0". */
static bool shortest_fast(double x, char *digits, size_t *nd, int *e)
{
	if (x == 0) {
		digits[0] = '0';
		digits[1] = '\0';
		*nd = 1;
		*e = 0;
		return true;
	}
	uint64_t bits;
	memcpy(&bits, &x, sizeof bits);
	int be = (int)((bits >> 52) & 0x7ff);
	if (be == 0)
		return false; /* subnormal */
	pow10_init();
	uint64_t m = (bits & ((UINT64_C(1) << 52) - 1)) | UINT64_C(1) << 52;
	return shortest_ms(m, 1075 - be, (int)floor(log10(fabs(x))), digits, nd, e);
}

/* The shortest digits of x (finite) by printf and strtod: the slow path. */
static void repr_search(double x, char *digits, size_t *ndp, int *ep)
{
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
	/* F3: digits, exponent */
	const char *s = sci + (sci[0] == '-');
	size_t nd = 0;
	for (; *s && *s != 'e'; s++)
		if (*s >= '0' && *s <= '9')
			digits[nd++] = *s;
	*ep = *s == 'e' ? atoi(s + 1) : 0;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = '\0';
	*ndp = nd;
}

/* F3-F5: Python's layout of the digits (nd of them, no trailing zeros) and
 * the decimal exponent e of the first: fixed for 1e-4 <= |x| < 1e16, else
 * d.ddde+XX. buf holds at least 32 bytes; returns the length. */
static size_t repr_format(bool neg, const char *digits, size_t nd, int e, char *buf)
{
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
	} else { /* F5 */
		buf[o++] = digits[0];
		if (nd > 1) {
			buf[o++] = '.';
			memcpy(buf + o, digits + 1, nd - 1);
			o += nd - 1;
		}
		buf[o++] = 'e';
		buf[o++] = e < 0 ? '-' : '+';
		unsigned u = (unsigned)(e < 0 ? -e : e);
		if (u >= 100)
			buf[o++] = (char)('0' + u / 100);
		buf[o++] = (char)('0' + u / 10 % 10);
		buf[o++] = (char)('0' + u % 10);
	}
	buf[o] = '\0';
	return o;
}

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
	bool neg = signbit(x);
	char digits[32];
	size_t nd = 0;
	int e = 0;
	if (!shortest_fast(x, digits, &nd, &e))
		repr_search(x, digits, &nd, &e);

	char buf[64];
	repr_format(neg, digits, nd, e, buf);
	if (cap) { /* the text, truncated to cap - 1 bytes as snprintf would */
		size_t n = strlen(buf);
		if (n >= cap)
			n = cap - 1;
		memcpy(out, buf, n);
		out[n] = '\0';
	}
}

static int bitlen128(u128 v)
{
	uint64_t hi = (uint64_t)(v >> 64), lo = (uint64_t)v;
	return hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
}

size_t ib_json_float_literal_repr(const char *s, size_t n, char *out)
{
	bool neg = n && s[0] == '-', dot = false;
	char sig[40];
	size_t ns = 0, i = neg;
	int j = 0; /* the value is sig * 10^j */
	for (; i < n; i++) {
		char c = s[i];
		if (c >= '0' && c <= '9') {
			j -= dot;
			if (ns == 0 && c == '0')
				continue;
			if (ns == sizeof sig)
				return 0;
			sig[ns++] = c;
		} else if (c == '.') {
			dot = true;
		} else if (c == 'e' || c == 'E') {
			break;
		} else {
			return 0;
		}
	}
	if (i < n) { /* the exponent */
		i++;
		bool eneg = i < n && s[i] == '-';
		i += i < n && (s[i] == '-' || s[i] == '+');
		int x = 0;
		for (; i < n; i++) {
			if (s[i] < '0' || s[i] > '9' || x > 10000)
				return 0;
			x = x * 10 + (s[i] - '0');
		}
		j += eneg ? -x : x;
	}
	char digits[32];
	size_t nd;
	int e;
	if (ns == 0)
		return repr_format(neg, "0", 1, 0, out);
	while (sig[ns - 1] == '0')
		ns--, j++;
	if (ns > 19)
		return 0;
	int e10 = j + (int)ns - 1;
	if (e10 > 15 || e10 < -20)
		return 0;
	/* at most 15 digits (DBL_DIG): the double nearest them reads back as
	 * them and as no shorter or other text of as many digits, so they are
	 * its repr's digits */
	if (ns <= 15)
		return repr_format(neg, sig, ns, e10, out);
	pow10_init();
	uint64_t c = 0;
	for (size_t k = 0; k < ns; k++)
		c = c * 10 + (uint64_t)(sig[k] - '0');
	/* x = N / T exactly; q = N * 2^s / T, correctly rounded, in [2^52, 2^53):
	 * one division gives 53 or 54 bits (N / T lies within a factor of 2 of
	 * 2^(bits(N) - bits(T))); a 54th is folded into the rounding */
	u128 N = (u128)c * pow10_128[j > 0 ? j : 0], T = pow10_128[j < 0 ? -j : 0];
	int bn = bitlen128(N), s2 = 53 - (bn - bitlen128(T));
	if (s2 < 1 || bn + s2 > 127)
		return 0;
	u128 q = (N << s2) / T, r = (N << s2) - q * T;
	bool up, tie;
	if (q >= (u128)1 << 53) { /* drop the lowest bit: the remainder is (bit * T + r) / 2T */
		bool bit = q & 1;
		q >>= 1;
		s2--;
		up = bit && r;
		tie = bit && !r;
	} else {
		up = 2 * r > T;
		tie = 2 * r == T;
	}
	if (up || (tie && (q & 1)))
		q++;
	if (q == (u128)1 << 53) {
		q >>= 1;
		s2--;
	}
	/* the usual case, text some shortest-repr writer made: the literal's
	 * digits are the nearest of their length to x and one digit fewer does
	 * not read back as x (then no shorter text does) */
	u128 near, fewer;
	int k = (int)ns - 1 - e10;
	if (q != (u128)1 << 52 && s2 >= 0 && s2 <= 122 && k >= 1 && k <= 22 &&
	    round_scaled((uint64_t)q, s2, k, pow10_128, &near) == 1 && near == c &&
	    round_scaled((uint64_t)q, s2, k - 1, pow10_128, &fewer) == 0)
		return repr_format(neg, sig, ns, e10, out);
	if (!shortest_ms((uint64_t)q, s2, e10, digits, &nd, &e))
		return 0;
	return repr_format(neg, digits, nd, e, out);
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
			/* \uXXXX, or a surrogate pair (written by hand: a prompt of
			 * non-ASCII text has thousands) */
			uint32_t units[2] = {cp, 0};
			size_t nu = 1, k = 0;
			if (cp >= 0x10000) {
				uint32_t v = cp - 0x10000;
				units[0] = 0xD800 | (v >> 10);
				units[1] = 0xDC00 | (v & 0x3FF);
				nu = 2;
			}
			for (size_t q = 0; q < nu; q++) {
				uint32_t x = units[q];
				esc[k++] = '\\';
				esc[k++] = 'u';
				esc[k++] = hex[x >> 12];
				esc[k++] = hex[(x >> 8) & 15];
				esc[k++] = hex[(x >> 4) & 15];
				esc[k++] = hex[x & 15];
			}
			if (ib_buf_append(out, esc, k))
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
	return ib_json_write_at(out, v, o, 0, e);
}

int ib_json_write_at(ib_buf *out, const ib_val *v, const ib_json_opts *o, int depth, ib_error *e)
{
	int rc = write_val(out, v, o, depth, e);
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
