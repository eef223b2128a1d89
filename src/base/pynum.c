/* Python's int(str) and float(str) for decimal text (base.h). */
#include "base/base.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* str.strip()'s ASCII whitespace: space, \t \n \v \f \r and \x1c-\x1f. */
static bool py_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

static void trim(const char **s, size_t *n)
{
	while (*n && py_space((unsigned char)**s))
		(*s)++, (*n)--;
	while (*n && py_space((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

/* Copies the digits of s[i..) into out while '_' appears only between two
 * digits; returns the index after the run, and *nd the digits taken. */
static size_t digits(const char *s, size_t n, size_t i, char *out, size_t *o, size_t *nd)
{
	*nd = 0;
	while (i < n) {
		if (s[i] >= '0' && s[i] <= '9') {
			out[(*o)++] = s[i++];
			(*nd)++;
		} else if (s[i] == '_' && *nd && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9') {
			i++;
		} else {
			break;
		}
	}
	return i;
}

bool ib_py_int(const char *s, size_t n, int64_t *out)
{
	trim(&s, &n);
	size_t i = 0;
	bool neg = false;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		neg = s[i++] == '-';
	if (i >= n)
		return false;
	uint64_t v = 0;
	bool last_digit = false;
	for (; i < n; i++) {
		if (s[i] == '_') {
			if (!last_digit || i + 1 >= n)
				return false;
			last_digit = false;
			continue;
		}
		if (s[i] < '0' || s[i] > '9')
			return false;
		uint64_t d = (uint64_t)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
		last_digit = true;
	}
	if (!last_digit || v > (uint64_t)INT64_MAX + (neg ? 1u : 0u))
		return false;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

bool ib_py_float(const char *s, size_t n, double *out)
{
	trim(&s, &n);
	if (!n || n > 400)
		return false;
	char buf[408];
	size_t o = 0, i = 0, nd, nf;
	if (s[i] == '+' || s[i] == '-')
		buf[o++] = s[i++];
	static const char *const words[] = {"inf", "infinity", "nan"};
	for (size_t w = 0; w < 3; w++) {
		size_t k = strlen(words[w]);
		if (n - i == k && !strncasecmp(s + i, words[w], k)) {
			*out = w == 2 ? (buf[0] == '-' ? -__builtin_nan("") : __builtin_nan(""))
			              : (buf[0] == '-' ? -__builtin_inf() : __builtin_inf());
			return true;
		}
	}
	i = digits(s, n, i, buf, &o, &nd);
	nf = 0;
	if (i < n && s[i] == '.') {
		buf[o++] = s[i++];
		i = digits(s, n, i, buf, &o, &nf);
	}
	if (!nd && !nf)
		return false;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		buf[o++] = s[i++];
		if (i < n && (s[i] == '+' || s[i] == '-'))
			buf[o++] = s[i++];
		size_t ne;
		i = digits(s, n, i, buf, &o, &ne);
		if (!ne)
			return false;
	}
	if (i != n)
		return false;
	buf[o] = 0;
	*out = strtod(buf, NULL); /* correctly rounded; overflow gives inf, as Python */
	return true;
}
