/* PyYAML 1.1 implicit typing of plain scalars (matrix.md Y3). */
#include "fmt/fmt.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool isdig(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_bool_word(const char *s, size_t n, bool *val)
{
	static const char *const t[] = {"yes",  "Yes", "YES", "true", "True",
	                                "TRUE", "on",  "On",  "ON"};
	static const char *const f[] = {"no",    "No",  "NO",  "false", "False",
	                                "FALSE", "off", "Off", "OFF"};
	if (n < 2 || n > 5 || !strchr("yYtToOnNfF", s[0]))
		return false; /* the common case, at once: no word starts so */
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		if (strlen(t[i]) == n && memcmp(t[i], s, n) == 0) {
			*val = true;
			return true;
		}
		if (strlen(f[i]) == n && memcmp(f[i], s, n) == 0) {
			*val = false;
			return true;
		}
	}
	return false;
}

static bool is_null_word(const char *s, size_t n)
{
	return n == 0 || (n == 1 && s[0] == '~') ||
	       (n == 4 &&
	        (!memcmp(s, "null", 4) || !memcmp(s, "Null", 4) || !memcmp(s, "NULL", 4)));
}

/* Matches `(:[0-5]?[0-9])+` from s[i] to the end or, when stop_at_dot, to a '.'. */
static bool sexa_tail(const char *s, size_t n, size_t *i, bool stop_at_dot)
{
	size_t k = *i;
	int groups = 0;
	while (k < n && s[k] == ':') {
		k++;
		if (k < n && s[k] >= '0' && s[k] <= '5' && k + 1 < n && isdig(s[k + 1]))
			k += 2;
		else if (k < n && isdig(s[k]))
			k += 1;
		else
			return false;
		groups++;
	}
	if (!groups)
		return false;
	if (stop_at_dot ? (k >= n || s[k] != '.') : k != n)
		return false;
	*i = k;
	return true;
}

static bool all_in(const char *s, size_t from, size_t n, const char *set)
{
	if (from >= n)
		return false;
	for (size_t k = from; k < n; k++)
		if (!strchr(set, s[k]) || s[k] == '\0')
			return false;
	return true;
}

typedef enum { INT_DEC, INT_BIN, INT_OCT, INT_HEX, INT_SEXA, INT_NONE } int_kind;

static int_kind match_int(const char *s, size_t n)
{
	size_t i = 0;
	if (n && (s[0] == '-' || s[0] == '+'))
		i = 1;
	if (i >= n)
		return INT_NONE;
	if (n - i >= 2 && s[i] == '0' && s[i + 1] == 'b' && all_in(s, i + 2, n, "01_"))
		return INT_BIN;
	if (n - i >= 2 && s[i] == '0' && s[i + 1] == 'x' &&
	    all_in(s, i + 2, n, "0123456789abcdefABCDEF_"))
		return INT_HEX;
	if (s[i] == '0' && n - i >= 2 && all_in(s, i + 1, n, "01234567_"))
		return INT_OCT;
	if (s[i] == '0' && n - i == 1)
		return INT_DEC;
	if (s[i] >= '1' && s[i] <= '9') {
		size_t k = i + 1;
		while (k < n && (isdig(s[k]) || s[k] == '_'))
			k++;
		if (k == n)
			return INT_DEC;
		size_t j = k;
		if (sexa_tail(s, n, &j, false))
			return INT_SEXA;
	}
	return INT_NONE;
}

/* [eE][-+][0-9]+ at s[i..n) exactly, or nothing */
static bool exp_tail(const char *s, size_t n, size_t i)
{
	if (i == n)
		return true;
	if (s[i] != 'e' && s[i] != 'E')
		return false;
	i++;
	if (i >= n || (s[i] != '-' && s[i] != '+'))
		return false;
	i++;
	if (i >= n)
		return false;
	for (; i < n; i++)
		if (!isdig(s[i]))
			return false;
	return true;
}

typedef enum { FL_PLAIN, FL_SEXA, FL_INF, FL_NAN, FL_NONE } fl_kind;

static fl_kind match_float(const char *s, size_t n)
{
	size_t i = 0;
	bool sign = n && (s[0] == '-' || s[0] == '+');
	if (sign)
		i = 1;
	if (i < n && s[i] == '.') {
		const char *r = s + i + 1;
		size_t rn = n - i - 1;
		if (rn == 3 &&
		    (!memcmp(r, "inf", 3) || !memcmp(r, "Inf", 3) || !memcmp(r, "INF", 3)))
			return FL_INF;
		if (!sign && rn == 3 &&
		    (!memcmp(r, "nan", 3) || !memcmp(r, "NaN", 3) || !memcmp(r, "NAN", 3)))
			return FL_NAN;
		/* \.[0-9][0-9_]*(exp)? without sign */
		if (sign || rn == 0 || !isdig(r[0]))
			return FL_NONE;
		size_t k = i + 2;
		while (k < n && (isdig(s[k]) || s[k] == '_'))
			k++;
		return exp_tail(s, n, k) ? FL_PLAIN : FL_NONE;
	}
	if (i >= n || !isdig(s[i]))
		return FL_NONE;
	size_t k = i + 1;
	while (k < n && (isdig(s[k]) || s[k] == '_'))
		k++;
	if (k < n && s[k] == '.') {
		k++;
		while (k < n && (isdig(s[k]) || s[k] == '_'))
			k++;
		return exp_tail(s, n, k) ? FL_PLAIN : FL_NONE;
	}
	if (k < n && s[k] == ':') {
		size_t j = k;
		if (sexa_tail(s, n, &j, true)) {
			j++; /* the '.' */
			while (j < n && (isdig(s[j]) || s[j] == '_'))
				j++;
			if (j == n)
				return FL_SEXA;
		}
	}
	return FL_NONE;
}

static bool digits(const char *s, size_t n, size_t *i, size_t min, size_t max)
{
	size_t k = 0;
	while (*i + k < n && k < max && isdig(s[*i + k]))
		k++;
	if (k < min)
		return false;
	*i += k;
	return true;
}

static bool match_timestamp(const char *s, size_t n)
{
	size_t i = 0;
	if (n == 10 && digits(s, n, &i, 4, 4) && s[4] == '-' && isdig(s[5]) && isdig(s[6]) &&
	    s[7] == '-' && isdig(s[8]) && isdig(s[9]))
		return true;
	i = 0;
	if (!digits(s, n, &i, 4, 4) || i >= n || s[i++] != '-' || !digits(s, n, &i, 1, 2) ||
	    i >= n || s[i++] != '-' || !digits(s, n, &i, 1, 2))
		return false;
	if (i < n && (s[i] == 'T' || s[i] == 't')) {
		i++;
	} else {
		size_t k = i;
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == k)
			return false;
	}
	if (!digits(s, n, &i, 1, 2) || i >= n || s[i++] != ':' || !digits(s, n, &i, 2, 2) ||
	    i >= n || s[i++] != ':' || !digits(s, n, &i, 2, 2))
		return false;
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && isdig(s[i]))
			i++;
	}
	size_t k = i;
	while (k < n && (s[k] == ' ' || s[k] == '\t'))
		k++;
	if (k < n && s[k] == 'Z') {
		i = k + 1;
	} else if (k < n && (s[k] == '-' || s[k] == '+')) {
		k++;
		if (!digits(s, n, &k, 1, 2))
			return false;
		if (k < n && s[k] == ':') {
			k++;
			if (!digits(s, n, &k, 2, 2))
				return false;
		}
		i = k;
	}
	return i == n;
}

/* Copies s without '_' into buf (NUL-terminated); returns false if too long. */
static bool strip_us(const char *s, size_t n, char *buf, size_t cap)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '_')
			continue;
		if (o + 1 >= cap)
			return false;
		buf[o++] = s[i];
	}
	buf[o] = '\0';
	return true;
}

static int construct_int(const char *s, size_t n, int_kind kind, int64_t *out)
{
	char buf[128];
	if (!strip_us(s, n, buf, sizeof buf))
		return IB_ERANGE;
	char *p = buf;
	bool neg = false;
	if (*p == '-' || *p == '+') {
		neg = *p == '-';
		p++;
	}
	unsigned __int128 v = 0;
	const unsigned __int128 lim = (unsigned __int128)INT64_MAX + (neg ? 1 : 0);
	int base = 10;
	if (kind == INT_BIN) {
		base = 2;
		p += 2;
	} else if (kind == INT_HEX) {
		base = 16;
		p += 2;
	} else if (kind == INT_OCT) {
		base = 8;
	}
	if (kind == INT_SEXA) {
		/* parts separated by ':' in base 60 */
		char *part = p;
		for (;;) {
			char *colon = strchr(part, ':');
			if (colon)
				*colon = '\0';
			errno = 0;
			unsigned long long d = strtoull(part, NULL, 10);
			if (errno)
				return IB_ERANGE;
			v = v * 60 + d;
			if (v > lim)
				return IB_ERANGE;
			if (!colon)
				break;
			part = colon + 1;
		}
	} else {
		if (!*p)
			return IB_EPARSE; /* e.g. "0b_" has no digits */
		for (; *p; p++) {
			int d = isdig(*p) ? *p - '0' : (*p | 0x20) - 'a' + 10;
			v = v * (unsigned)base + (unsigned)d;
			if (v > lim)
				return IB_ERANGE;
		}
	}
	*out = neg ? (int64_t)(-(__int128)v) : (int64_t)v;
	return 0;
}

static double construct_float(const char *s, size_t n, fl_kind kind)
{
	char buf[512];
	if (!strip_us(s, n, buf, sizeof buf))
		return NAN;
	char *p = buf;
	double sign = 1.0;
	if (*p == '-' || *p == '+') {
		if (*p == '-')
			sign = -1.0;
		p++;
	}
	if (kind == FL_INF)
		return sign * INFINITY;
	if (kind == FL_NAN)
		return NAN;
	if (kind == FL_SEXA) {
		double parts[64];
		int np = 0;
		char *part = p;
		for (;;) {
			char *colon = strchr(part, ':');
			if (colon)
				*colon = '\0';
			if (np < 64)
				parts[np++] = strtod(part, NULL);
			if (!colon)
				break;
			part = colon + 1;
		}
		double v = 0.0, base = 1.0;
		for (int i = np - 1; i >= 0; i--) {
			v += parts[i] * base;
			base *= 60;
		}
		return sign * v;
	}
	return sign * strtod(p, NULL);
}

int ib_yaml_resolve_plain(ib_arena *a, const char *s, size_t n, ib_val **out, ib_error *e)
{
	bool b;
	ib_val *v = NULL;
	if (is_bool_word(s, n, &b)) {
		v = ib_v_bool(a, b);
	} else if (is_null_word(s, n)) {
		v = ib_v_null(a);
	} else {
		fl_kind fk = match_float(s, n);
		int_kind ik = fk == FL_NONE ? match_int(s, n) : INT_NONE;
		if (fk != FL_NONE) {
			v = ib_v_float(a, construct_float(s, n, fk));
		} else if (ik != INT_NONE) {
			int64_t i = 0;
			int rc = construct_int(s, n, ik, &i);
			if (rc == IB_ERANGE)
				return ib_fail(e, IB_ERANGE, NULL, 0, 0,
				               "integer %.*s does not fit in 64 bits", (int)n, s);
			if (rc)
				return ib_fail(e, IB_EPARSE, NULL, 0, 0, "invalid integer %.*s",
				               (int)n, s);
			v = ib_v_int(a, i);
		} else if (match_timestamp(s, n)) {
			v = ib_v_strn(a, s, n);
			if (v)
				v->type = IB_V_DATE;
		} else if (n == 1 && s[0] == '=') {
			return ib_fail(e, IB_EPARSE, NULL, 0, 0,
			               "a plain '=' has no value (YAML 1.1 value key); quote it");
		} else {
			v = ib_v_strn(a, s, n);
		}
	}
	if (!v)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	*out = v;
	return 0;
}
