/* Small Python-compatible helpers of the results module (private.h). */
#define _GNU_SOURCE /* timegm */
#include "power/private.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <math.h>
#include <pcre2.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static bool py_space(uint32_t cp)
{
	return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 ||
	       cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
	       cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

const char *pw_py_strip(const char *s, size_t n, size_t *len)
{
	size_t b = 0, e = n;
	while (b < e) {
		uint32_t cp;
		int k = ib_utf8_decode(s + b, e - b, &cp);
		if (k <= 0 || !py_space(cp))
			break;
		b += (size_t)k;
	}
	while (e > b) {
		size_t k = e - 1;
		while (k > b && ((unsigned char)s[k] & 0xC0) == 0x80)
			k--;
		uint32_t cp;
		int m = ib_utf8_decode(s + k, e - k, &cp);
		if (m <= 0 || (size_t)m != e - k || !py_space(cp))
			break;
		e = k;
	}
	*len = e - b;
	return s + b;
}

char *pw_py_path(ib_arena *a, const char *p)
{
	size_t n = strlen(p);
	char *out = ib_arena_alloc(a, n + 2);
	if (!out)
		return NULL;
	size_t o = 0, i = 0;
	if (p[0] == '/') {
		out[o++] = '/';
		if (p[1] == '/' && p[2] != '/')
			out[o++] = '/'; /* POSIX keeps exactly two leading slashes */
	}
	while (i < n) {
		while (i < n && p[i] == '/')
			i++;
		size_t j = i;
		while (j < n && p[j] != '/')
			j++;
		if (j > i && !(j - i == 1 && p[i] == '.')) {
			if (o && out[o - 1] != '/')
				out[o++] = '/';
			memcpy(out + o, p + i, j - i);
			o += j - i;
		}
		i = j;
	}
	if (!o)
		out[o++] = '.';
	out[o] = 0;
	return out;
}

char *pw_path_with_name(ib_arena *a, const char *p, const char *name)
{
	const char *s = strrchr(p, '/');
	if (!s)
		return ib_arena_strdup(a, name);
	return ib_arena_printf(a, "%.*s%s", (int)(s + 1 - p), p, name);
}

char *pw_path_stem(ib_arena *a, const char *p)
{
	const char *s = strrchr(p, '/');
	const char *name = s ? s + 1 : p;
	const char *dot = strrchr(name, '.');
	if (!dot || dot == name || !dot[1])
		return ib_arena_strdup(a, name);
	return ib_arena_strndup(a, name, (size_t)(dot - name));
}

double pw_py_round(double x, int nd)
{
	if (!isfinite(x))
		return x;
	char buf[512];
	snprintf(buf, sizeof buf, "%.*f", nd, x);
	double r = strtod(buf, NULL);
	if (r == 0)
		r = copysign(0.0, x);
	return r;
}

int pw_read_json(ib_arena *a, const char *path, ib_val **out, ib_error *e)
{
	return ib_json_parse_file(a, path, out, e);
}

/* path.parent.mkdir(parents=True, exist_ok=True) */
static void mkdir_parents(const char *path)
{
	char *d = strdup(path);
	if (!d)
		return;
	char *s = strrchr(d, '/');
	if (s && s != d) {
		*s = 0;
		ib_mkdirs(d, 0777, NULL); /* best effort: the write names what failed */
	}
	free(d);
}

int pw_write_json(const char *path, const ib_val *v, ib_error *e)
{
	mkdir_parents(path);
	ib_json_opts o = {.indent = 2, .ensure_ascii = true};
	return ib_json_write_path(path, v, &o, e);
}

/* -?\d+(\.\d+)? anchored at s; returns its length or 0. */
static size_t number_at(const char *s, size_t n)
{
	size_t i = 0;
	if (i < n && s[i] == '-')
		i++;
	size_t d = i;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	if (i == d)
		return 0;
	if (i + 1 < n && s[i] == '.' && s[i + 1] >= '0' && s[i + 1] <= '9') {
		i++;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	return i;
}

static double to_double(const char *s, size_t n)
{
	char buf[512];
	if (n >= sizeof buf) {
		char *t = strndup(s, n);
		double d = t ? strtod(t, NULL) : NAN;
		free(t);
		return d;
	}
	memcpy(buf, s, n);
	buf[n] = 0;
	return strtod(buf, NULL);
}

bool pw_parse_power(const char *s, size_t n, double *out)
{
	s = pw_py_strip(s, n, &n);
	if (!n || (n == 5 && !strncasecmp(s, "[n/a]", 5)) ||
	    (n == 3 && !strncasecmp(s, "n/a", 3)) || (n == 2 && !strncasecmp(s, "na", 2)))
		return false;
	for (size_t i = 0; i < n; i++) {
		size_t k = number_at(s + i, n - i);
		if (k) {
			*out = to_double(s + i, k);
			return true;
		}
	}
	return false;
}

/* ---- datetime ---- */

static int days_in_month(int y, int m)
{
	static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return d[m - 1];
}

static long long utc_seconds(int y, int mo, int d, int h, int mi, int s)
{
	/* days from 1970-01-01 (civil-from-days inverse) */
	y -= mo <= 2;
	long long era = (y >= 0 ? y : y - 399) / 400;
	long long yoe = y - era * 400;
	long long doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	long long days = era * 146097 + doe - 719468;
	return days * 86400 + h * 3600 + mi * 60 + s;
}

static bool local_of(long long u, long long *out)
{
	time_t t = (time_t)u;
	struct tm tm;
	if (!localtime_r(&t, &tm))
		return false;
	*out = utc_seconds(tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
	                   tm.tm_sec);
	return true;
}

/* CPython's local_to_seconds with fold = 0. */
static bool local_to_seconds(int y, int mo, int d, int h, int mi, int s, long long *out)
{
	long long t = utc_seconds(y, mo, d, h, mi, s), lt, a, b, u1, u2, t1, t2;
	if (!local_of(t, &lt))
		return false;
	a = lt - t;
	u1 = t - a;
	if (!local_of(u1, &t1))
		return false;
	if (t1 == t) {
		u2 = u1 - 86400;
		if (!local_of(u2, &lt))
			return false;
		b = lt - u2;
		if (a == b) {
			*out = u1;
			return true;
		}
	} else {
		b = t1 - u1;
	}
	u2 = t - b;
	if (!local_of(u2, &t2))
		return false;
	if (t2 == t)
		*out = u2;
	else if (t1 == t)
		*out = u1;
	else
		*out = u1 > u2 ? u1 : u2;
	return true;
}

typedef struct {
	int y, mo, d, h, mi, s, us;
	bool aware;
	long long off_us; /* UTC offset in microseconds */
} dtm;

static bool dt_valid(const dtm *t)
{
	return t->y >= 1 && t->y <= 9999 && t->mo >= 1 && t->mo <= 12 && t->d >= 1 &&
	       t->d <= days_in_month(t->y, t->mo) && t->h >= 0 && t->h <= 23 && t->mi >= 0 &&
	       t->mi <= 59 && t->s >= 0 && t->s <= 59;
}

static bool dt_timestamp(const dtm *t, double *out)
{
	if (!dt_valid(t))
		return false;
	if (t->aware) {
		long long us = (utc_seconds(t->y, t->mo, t->d, t->h, t->mi, t->s)) * 1000000LL +
		               t->us - t->off_us;
		*out = (double)us / 1e6;
		return true;
	}
	long long sec;
	if (!local_to_seconds(t->y, t->mo, t->d, t->h, t->mi, t->s, &sec))
		return false;
	*out = (double)sec + t->us / 1e6;
	return true;
}

static pcre2_code *nv_re[2];
static pthread_once_t nv_once = PTHREAD_ONCE_INIT;

/* Compiled once per process (the runner processes rows on several threads),
 * anchored at compile time and JIT-compiled when the platform allows: a
 * telemetry CSV has a timestamp per GPU per second. */
static void nv_compile(void)
{
	static const char *const pat[2] = {
	    "(\\d\\d\\d\\d)/(1[0-2]|0[1-9]|[1-9])/(3[01]|[12]\\d|0[1-9]|[1-9]| [1-9])\\s+"
	    "(2[0-3]|[0-1]\\d|\\d):([0-5]\\d|\\d):(6[0-1]|[0-5]\\d|\\d)\\.([0-9]{1,6})",
	    "(\\d\\d\\d\\d)/(1[0-2]|0[1-9]|[1-9])/(3[01]|[12]\\d|0[1-9]|[1-9]| [1-9])\\s+"
	    "(2[0-3]|[0-1]\\d|\\d):([0-5]\\d|\\d):(6[0-1]|[0-5]\\d|\\d)"};
	for (int i = 0; i < 2; i++) {
		int err;
		PCRE2_SIZE off;
		nv_re[i] = pcre2_compile((PCRE2_SPTR)pat[i], PCRE2_ZERO_TERMINATED,
		                         PCRE2_CASELESS | PCRE2_ANCHORED, &err, &off, NULL);
		if (nv_re[i])
			pcre2_jit_compile(nv_re[i], PCRE2_JIT_COMPLETE); /* else interpreted */
	}
}

static bool strptime_nv(const char *s, size_t n, int which, dtm *t)
{
	pthread_once(&nv_once, nv_compile);
	if (!nv_re[which])
		return false;
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(nv_re[which], NULL);
	if (!md)
		return false;
	bool ok = pcre2_match(nv_re[which], (PCRE2_SPTR)s, n, 0, 0, md, NULL) > 0;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
	if (ok && ov[1] != n)
		ok = false; /* unconverted data remains */
	if (ok) {
		int v[7] = {0};
		int groups = which == 0 ? 7 : 6;
		for (int g = 0; g < groups; g++) {
			int x = 0;
			for (PCRE2_SIZE k = ov[2 * (g + 1)]; k < ov[2 * (g + 1) + 1]; k++)
				if (s[k] != ' ')
					x = x * 10 + (s[k] - '0');
			if (g == 6) /* %f: right-padded to six digits */
				for (PCRE2_SIZE k = ov[15] - ov[14]; k < 6; k++)
					x *= 10;
			v[g] = x;
		}
		*t = (dtm){v[0], v[1], v[2], v[3], v[4], v[5], v[6], false, 0};
	}
	pcre2_match_data_free(md);
	return ok;
}

static bool digits(const char *p, int k, int *out)
{
	int x = 0;
	for (int i = 0; i < k; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		x = x * 10 + (p[i] - '0');
	}
	*out = x;
	return true;
}

/* CPython 3.11 parse_hh_mm_ss_ff over [p, end): -1 error, 0 at end, 1 more. */
static int hh_mm_ss_ff(const char *p, const char *end, int *h, int *mi, int *s, int *us)
{
	int *vals[3] = {h, mi, s};
	bool sep = true;
	for (int i = 0; i < 3; i++) {
		if (end - p < 2 || !digits(p, 2, vals[i]))
			return -1;
		p += 2;
		char c = *p++;
		if (i == 0)
			sep = c == ':';
		if (p >= end)
			return c != '\0' ? 1 : 0;
		if (sep && c == ':')
			continue;
		if (c == '.' || c == ',')
			break;
		if (!sep)
			p--;
		else
			return -1;
	}
	/* the fraction */
	size_t rem = (size_t)(end - p), k = rem >= 6 ? 6 : rem;
	if (k == 0 || !digits(p, (int)k, us))
		return -1;
	for (size_t i = k; i < 6; i++)
		*us *= 10;
	p += k;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p < end ? 1 : 0;
}

/* datetime.fromisoformat of Python 3.11 (week dates not supported). */
static bool fromiso(const char *s, size_t n, dtm *t)
{
	memset(t, 0, sizeof *t);
	if (n < 7 || memchr(s, 0, n))
		return false;
	size_t sep;
	if (s[4] == '-') {
		if (s[5] == 'W')
			return false;
		sep = 10;
	} else {
		if (s[4] == 'W')
			return false;
		sep = 8;
	}
	const char *p = s;
	if (!digits(p, 4, &t->y))
		return false;
	p += 4;
	bool usep = *p == '-';
	if (usep)
		p++;
	if ((size_t)(p - s) + 2 > n || !digits(p, 2, &t->mo))
		return false;
	p += 2;
	if (usep && *p++ != '-')
		return false;
	if ((size_t)(p - s) + 2 > n || !digits(p, 2, &t->d))
		return false;
	if (n > sep) {
		const char *q = s + sep + 1, *end = s + n, *tz = q;
		while (tz < end && *tz != 'Z' && *tz != '+' && *tz != '-')
			tz++;
		int rv = hh_mm_ss_ff(q, tz, &t->h, &t->mi, &t->s, &t->us);
		if (rv < 0)
			return false;
		if (tz == end)
			return rv == 0;
		if (*tz == 'Z') {
			if (tz + 1 != end)
				return false;
			t->aware = true;
			return true;
		}
		int sign = *tz == '-' ? -1 : 1, th = 0, tm = 0, ts = 0, tus = 0;
		rv = hh_mm_ss_ff(tz + 1, end, &th, &tm, &ts, &tus);
		if (rv != 0)
			return false;
		long long off = (long long)th * 3600 + tm * 60 + ts;
		if (tm > 59 || ts > 59 || off * 1000000LL + tus >= 86400LL * 1000000LL)
			return false;
		t->aware = true;
		t->off_us = sign * (off * 1000000LL + tus);
	}
	return true;
}

bool pw_parse_timestamp(const char *s, size_t n, double *out)
{
	s = pw_py_strip(s, n, &n);
	if (!n)
		return false;
	if (number_at(s, n) == n) {
		double d = to_double(s, n);
		*out = d > 1e12 ? d / 1000.0 : d;
		return true;
	}
	dtm t;
	if (strptime_nv(s, n, 0, &t) && dt_valid(&t))
		return dt_timestamp(&t, out);
	if (strptime_nv(s, n, 1, &t) && dt_valid(&t))
		return dt_timestamp(&t, out);
	char buf[256];
	if (n >= sizeof buf)
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (memchr(buf, ' ', n) && !memchr(buf, 'T', n))
		*(char *)memchr(buf, ' ', n) = 'T';
	if (!fromiso(buf, n, &t))
		return false;
	return dt_timestamp(&t, out);
}

bool pw_py_fromiso(const char *s, size_t n, bool *aware, long long *us)
{
	dtm t;
	if (!fromiso(s, n, &t) || !dt_valid(&t))
		return false;
	*aware = t.aware;
	*us = utc_seconds(t.y, t.mo, t.d, t.h, t.mi, t.s) * 1000000LL + t.us -
	      (t.aware ? t.off_us : 0);
	return true;
}

int pw_gpu_cmp(const char *a, const char *b)
{
	bool da = *a, db = *b;
	for (const char *p = a; *p; p++)
		da &= *p >= '0' && *p <= '9';
	for (const char *p = b; *p; p++)
		db &= *p >= '0' && *p <= '9';
	if (da != db)
		return da ? -1 : 1;
	if (da) {
		while (*a == '0' && a[1])
			a++;
		while (*b == '0' && b[1])
			b++;
		size_t la = strlen(a), lb = strlen(b);
		if (la != lb)
			return la < lb ? -1 : 1;
	}
	return strcmp(a, b);
}

double pw_mean(const double *v, size_t n)
{
	if (n == 1)
		return v[0];
	__float128 s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return (double)(s / n);
}

void pw_logf(pw_log_fn log, void *ud, int stream, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ib_emitv(log, ud, stream, false, fmt, ap);
	va_end(ap);
}

ib_val *pw_str_list(ib_arena *a, const char *const *v, size_t n)
{
	ib_val *l = ib_v_list(a);
	for (size_t i = 0; l && i < n; i++)
		if (ib_list_push(a, l, ib_v_str(a, v[i])))
			return NULL;
	return l;
}
