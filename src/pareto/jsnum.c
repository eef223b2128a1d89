/* pareto/jsnum.c — JavaScript number printing: Number.prototype.toString,
 * toFixed, Math.round and Intl.NumberFormat('en-US'), with rounding half away
 * from zero (glibc's printf rounds exact ties to even, so digits are rounded
 * here by hand). */
#include "pareto/pareto.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shortest round-trip decimal digits of |v| (finite, non-zero): digits into
 * dig (no dot, no leading zeros), returns the decimal exponent n such that
 * |v| = 0.d1d2... x 10^n. */
static int shortest_digits(double v, char *dig, size_t cap)
{
	char buf[64];
	v = fabs(v);
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, sizeof buf, "%.*e", p - 1, v);
		if (strtod(buf, NULL) == v || p == 17)
			break;
	}
	/* buf = d.ddde[+-]xx */
	size_t k = 0;
	const char *s = buf;
	for (; *s && *s != 'e'; s++)
		if (*s >= '0' && *s <= '9' && k + 1 < cap)
			dig[k++] = *s;
	/* drop trailing zeros */
	while (k > 1 && dig[k - 1] == '0')
		k--;
	dig[k] = 0;
	int e = atoi(s + 1);
	return e + 1;
}

void par_js_num(double v, char *out, size_t cap)
{
	if (isnan(v)) {
		snprintf(out, cap, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(out, cap, v > 0 ? "Infinity" : "-Infinity");
		return;
	}
	if (v == 0) {
		snprintf(out, cap, "0");
		return;
	}
	char dig[40];
	int n = shortest_digits(v, dig, sizeof dig);
	int k = (int)strlen(dig);
	char buf[128];
	size_t o = 0;
	if (v < 0)
		buf[o++] = '-';
	if (k <= n && n <= 21) {
		memcpy(buf + o, dig, (size_t)k);
		o += (size_t)k;
		for (int i = 0; i < n - k; i++)
			buf[o++] = '0';
	} else if (0 < n && n <= 21) {
		memcpy(buf + o, dig, (size_t)n);
		o += (size_t)n;
		buf[o++] = '.';
		memcpy(buf + o, dig + n, (size_t)(k - n));
		o += (size_t)(k - n);
	} else if (-6 < n && n <= 0) {
		buf[o++] = '0';
		buf[o++] = '.';
		for (int i = 0; i < -n; i++)
			buf[o++] = '0';
		memcpy(buf + o, dig, (size_t)k);
		o += (size_t)k;
	} else {
		buf[o++] = dig[0];
		if (k > 1) {
			buf[o++] = '.';
			memcpy(buf + o, dig + 1, (size_t)(k - 1));
			o += (size_t)(k - 1);
		}
		o += (size_t)snprintf(buf + o, sizeof buf - o, "e%c%d", n - 1 >= 0 ? '+' : '-',
		                      abs(n - 1));
	}
	buf[o] = 0;
	snprintf(out, cap, "%s", buf);
}

/* Rounds the plain decimal text s ("123.4567", no sign) to frac fraction
 * digits, half up in magnitude, into out (integer part, then "." and frac
 * digits when frac > 0). */
static void round_plain(const char *s, int frac, char *out, size_t cap)
{
	const char *dot = strchr(s, '.');
	size_t ilen = dot ? (size_t)(dot - s) : strlen(s);
	const char *fr = dot ? dot + 1 : "";
	size_t flen = strlen(fr);
	/* digits: integer part + frac fraction digits (padded) */
	size_t nd = ilen + (size_t)frac;
	char *d = malloc(nd + 2);
	if (!d) {
		snprintf(out, cap, "NaN");
		return;
	}
	d[0] = '0'; /* room for a carry */
	memcpy(d + 1, s, ilen);
	for (int i = 0; i < frac; i++)
		d[1 + ilen + (size_t)i] = (size_t)i < flen ? fr[i] : '0';
	d[nd + 1] = 0;
	char next = (size_t)frac < flen ? fr[frac] : '0';
	if (next >= '5') {
		size_t i = nd;
		for (;;) {
			if (d[i] == '9') {
				d[i] = '0';
				i--;
			} else {
				d[i]++;
				break;
			}
		}
	}
	const char *p = d[0] == '0' ? d + 1 : d;
	size_t plen = strlen(p);
	size_t int_digits = plen - (size_t)frac;
	size_t o = 0;
	for (size_t i = 0; i < int_digits && o + 1 < cap; i++)
		out[o++] = p[i];
	if (int_digits == 0 && o + 1 < cap)
		out[o++] = '0';
	if (frac > 0 && o + 1 < cap) {
		out[o++] = '.';
		for (size_t i = int_digits; i < plen && o + 1 < cap; i++)
			out[o++] = p[i];
	}
	out[o] = 0;
	free(d);
}

void par_js_fixed(double v, int digits, char *out, size_t cap)
{
	if (!isfinite(v) || fabs(v) >= 1e21) {
		par_js_num(v, out, cap);
		return;
	}
	if (digits < 0)
		digits = 0;
	if (digits > 100)
		digits = 100;
	char exact[1200];
	snprintf(exact, sizeof exact, "%.1100f", fabs(v));
	char r[200];
	round_plain(exact, digits, r, sizeof r);
	/* JS: x < 0 -> "-" + toFixed(-x); (-0).toFixed gives "0" */
	snprintf(out, cap, "%s%s", v < 0 ? "-" : "", r);
}

double par_round_fixed(double v, int digits)
{
	char buf[256];
	par_js_fixed(v, digits, buf, sizeof buf);
	return strtod(buf, NULL);
}

double par_js_round(double v)
{
	if (!isfinite(v))
		return v;
	double f = floor(v);
	if (v - f >= 0.5)
		f += 1;
	if (f == 0 && (v < 0 || signbit(v)))
		return -0.0;
	return f;
}

/* Plain (no exponent) text of |v| from its shortest digits. */
static void shortest_plain(double v, char *out, size_t cap)
{
	char dig[40];
	int n = shortest_digits(v, dig, sizeof dig);
	int k = (int)strlen(dig);
	size_t o = 0;
	if (n <= 0) {
		out[o++] = '0';
		out[o++] = '.';
		for (int i = 0; i < -n && o + 2 < cap; i++)
			out[o++] = '0';
		for (int i = 0; i < k && o + 1 < cap; i++)
			out[o++] = dig[i];
	} else {
		for (int i = 0; i < n && o + 2 < cap; i++)
			out[o++] = i < k ? dig[i] : '0';
		if (k > n) {
			out[o++] = '.';
			for (int i = n; i < k && o + 1 < cap; i++)
				out[o++] = dig[i];
		}
	}
	out[o] = 0;
}

void par_fmt_grouped(double v, int lo, int hi, char *out, size_t cap)
{
	if (isnan(v)) {
		snprintf(out, cap, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(out, cap, v > 0 ? "∞" : "-∞");
		return;
	}
	char plain[400], r[400];
	if (v == 0)
		snprintf(plain, sizeof plain, "0");
	else
		shortest_plain(v, plain, sizeof plain);
	round_plain(plain, hi, r, sizeof r);
	/* trim fraction zeros down to lo */
	char *dot = strchr(r, '.');
	if (dot) {
		size_t len = strlen(r);
		size_t minlen = (size_t)(dot - r) + 1 + (size_t)lo;
		while (len > minlen && r[len - 1] == '0')
			r[--len] = 0;
		if (r[len - 1] == '.')
			r[--len] = 0;
	}
	bool neg = signbit(v); /* Intl shows the sign of -0 and of negatives rounded to 0 */
	dot = strchr(r, '.');
	size_t ilen = dot ? (size_t)(dot - r) : strlen(r);
	size_t o = 0;
	if (neg && o + 1 < cap)
		out[o++] = '-';
	for (size_t i = 0; i < ilen && o + 1 < cap; i++) {
		if (i > 0 && (ilen - i) % 3 == 0 && o + 1 < cap)
			out[o++] = ',';
		out[o++] = r[i];
	}
	for (const char *p = r + ilen; *p && o + 1 < cap; p++)
		out[o++] = *p;
	out[o] = 0;
}

void par_fmt_table(double v, char *out, size_t cap)
{
	double a = fabs(v);
	int d = a >= 100 ? 0 : a >= 1 ? 1 : a >= 0.01 ? 3 : 4;
	par_fmt_grouped(v, d, d, out, cap);
}

void par_fmt_table_1dp(double v, char *out, size_t cap)
{
	par_fmt_grouped(v, 1, 1, out, cap);
}

void par_fmt_tick(double v, char *out, size_t cap)
{
	if (v < 10000)
		par_js_num(v, out, cap);
	else
		par_fmt_grouped(v, 0, 3, out, cap);
}

void par_fmt_tick_large(double v, char *out, size_t cap)
{
	double a = fabs(v);
	char num[64];
	if (a >= 1e6 || a >= 1e3) {
		double div = a >= 1e6 ? 1e6 : 1e3;
		double q = v / div;
		par_js_fixed(q, fmod(v, div) == 0 ? 0 : 1, num, sizeof num);
		snprintf(out, cap, "%s%s", num, div == 1e6 ? "M" : "k");
		return;
	}
	par_fmt_tick(v, out, cap);
}
