/* GitHub-markdown tables as Python's tabulate(rows, headers, tablefmt="github")
 * prints them (tabulate 0.10, defaults: numalign "decimal", stralign "left",
 * floatfmt "g", missingval ""). See fmt.h. */
#include "fmt/fmt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* tabulate's column types, least generic first */
enum { T_NONE, T_BOOL, T_INT, T_FLOAT, T_STR };

static bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/* ^(([+-]?[0-9]{1,3})(?:,([0-9]{3}))*)?(?(1)\.[0-9]*|\.[0-9]+)?$ */
static bool thousands(const char *s, size_t n)
{
	size_t i = 0;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	size_t d = 0;
	while (i + d < n && d < 4 && s[i + d] >= '0' && s[i + d] <= '9')
		d++;
	bool g1 = false;
	if (d >= 1 && d <= 3) {
		g1 = true;
		i += d;
		while (i + 4 <= n && s[i] == ',' && s[i + 1] >= '0' && s[i + 1] <= '9' &&
		       s[i + 2] >= '0' && s[i + 2] <= '9' && s[i + 3] >= '0' && s[i + 3] <= '9')
			i += 4;
	} else if (d == 0 && i > 0) {
		return false; /* a sign without digits */
	} else if (d > 3) {
		return false;
	}
	if (i == n)
		return true;
	if (s[i] != '.')
		return false;
	size_t j = i + 1;
	while (j < n && s[j] >= '0' && s[j] <= '9')
		j++;
	if (j != n)
		return false;
	return g1 || j > i + 1;
}

static bool str_isint(const char *s, size_t n)
{
	int64_t v;
	return ib_py_int(s, n, &v);
}

/* tabulate's _isnumber for a string: float() accepts it and it is not an
 * overflow to inf (the literal words inf, -inf, nan are numbers) */
static bool str_isnumber(const char *s, size_t n)
{
	double d;
	if (!ib_py_float(s, n, &d))
		return false;
	if (!isinf(d) && !isnan(d))
		return true;
	static const char *const w[] = {"inf", "-inf", "nan"};
	for (int k = 0; k < 3; k++)
		if (strlen(w[k]) == n && !strncasecmp(s, w[k], n))
			return true;
	return false;
}

static int cell_type(const ib_val *v)
{
	if (!v || v->type == IB_V_NULL)
		return T_NONE;
	if (v->type == IB_V_BOOL)
		return T_BOOL;
	if (v->type == IB_V_INT)
		return T_INT;
	if (v->type == IB_V_FLOAT)
		return T_FLOAT;
	if (v->type != IB_V_STR)
		return T_STR;
	const char *s = v->str.s;
	size_t n = v->str.len;
	if (!n)
		return T_NONE;
	if ((n == 4 && !memcmp(s, "True", 4)) || (n == 5 && !memcmp(s, "False", 5)))
		return T_BOOL;
	if (str_isint(s, n) || (thousands(s, n) && !memchr(s, '.', n)))
		return T_INT;
	if (str_isnumber(s, n) || thousands(s, n))
		return T_FLOAT;
	return T_STR;
}

/* format(float(v), "g") */
static void fmt_g(ib_buf *b, double d)
{
	if (isnan(d))
		ib_buf_puts(b, "nan");
	else if (isinf(d))
		ib_buf_puts(b, d > 0 ? "inf" : "-inf");
	else
		ib_buf_printf(b, "%g", d);
}

static void format_cell(ib_buf *b, const ib_val *v, int ct)
{
	if (!v || v->type == IB_V_NULL)
		return;
	if (v->type == IB_V_STR && !v->str.len)
		return;
	if (ct == T_FLOAT) {
		double d = 0;
		bool ok = true;
		if (v->type == IB_V_BOOL)
			d = v->b;
		else if (v->type == IB_V_INT)
			d = (double)v->i;
		else if (v->type == IB_V_FLOAT)
			d = v->f;
		else if (v->type == IB_V_STR) {
			ib_buf t = {0};
			for (size_t i = 0; i < v->str.len; i++)
				if (v->str.s[i] != ',')
					ib_buf_putc(&t, v->str.s[i]);
			ok = t.data && ib_py_float(t.data, t.len, &d);
			ib_buf_free(&t);
		} else {
			ok = false;
		}
		if (ok) {
			fmt_g(b, d);
			return;
		}
	}
	ib_val_pystr(b, v);
}

static size_t width(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xC0) != 0x80;
	return w;
}

/* tabulate's _afterpoint */
static int afterpoint(const char *s, size_t n)
{
	if (!(str_isnumber(s, n) || thousands(s, n)))
		return -1;
	if (str_isint(s, n))
		return -1;
	const char *p = NULL;
	for (size_t i = n; i-- > 0;)
		if (s[i] == '.') {
			p = s + i;
			break;
		}
	if (!p)
		for (size_t i = n; i-- > 0;)
			if (s[i] == 'e' || s[i] == 'E') {
				p = s + i;
				break;
			}
	return p ? (int)width(p + 1, (size_t)(s + n - p - 1)) : -1;
}

static int pad(ib_buf *b, size_t k)
{
	int rc = 0;
	while (!rc && k--)
		rc = ib_buf_putc(b, ' ');
	return rc;
}

int ib_table_github(ib_buf *out, const char *const *headers, size_t ncols,
                    const ib_val *const *cells, size_t nrows)
{
	int rc = 0;
	ib_buf *txt = calloc(ncols * nrows + 1, sizeof *txt);
	size_t *w = calloc(ncols + 1, sizeof *w);
	bool *num = calloc(ncols + 1, sizeof *num);
	if (!txt || !w || !num) {
		rc = IB_ENOMEM;
		goto done;
	}
	for (size_t c = 0; c < ncols && !rc; c++) {
		int ct = T_BOOL;
		for (size_t r = 0; r < nrows; r++) {
			int t = cell_type(cells[r * ncols + c]);
			if (t > ct)
				ct = t;
		}
		num[c] = ct == T_INT || ct == T_FLOAT;
		int maxdec = -1;
		for (size_t r = 0; r < nrows && !rc; r++) {
			ib_buf *t = &txt[r * ncols + c];
			ib_buf raw = {0};
			format_cell(&raw, cells[r * ncols + c], ct);
			const char *s = raw.data ? raw.data : "";
			size_t n = raw.len;
			if (!num[c]) { /* str.strip() before left alignment */
				while (n && is_space(*s))
					s++, n--;
				while (n && is_space(s[n - 1]))
					n--;
			}
			rc = ib_buf_append(t, s, n);
			rc = rc ? rc : ib_buf_putc(t, 0);
			t->len = n;
			ib_buf_free(&raw);
			if (num[c]) {
				int d = afterpoint(t->data, t->len);
				if (d > maxdec)
					maxdec = d;
			}
		}
		for (size_t r = 0; r < nrows && !rc && num[c]; r++) {
			ib_buf *t = &txt[r * ncols + c];
			int d = afterpoint(t->data, t->len);
			rc = pad(t, (size_t)(maxdec - d));
		}
		w[c] = width(headers[c], strlen(headers[c])) + 2;
		for (size_t r = 0; r < nrows; r++) {
			ib_buf *t = &txt[r * ncols + c];
			size_t k = width(t->data ? t->data : "", t->len);
			if (k > w[c])
				w[c] = k;
		}
	}
	/* header row, the line below it, data rows */
	for (size_t c = 0; c < ncols && !rc; c++) {
		size_t k = width(headers[c], strlen(headers[c]));
		rc = ib_buf_puts(out, c ? " | " : "| ");
		if (num[c])
			rc = rc ? rc : pad(out, w[c] - k);
		rc = rc ? rc : ib_buf_puts(out, headers[c]);
		if (!num[c])
			rc = rc ? rc : pad(out, w[c] - k);
	}
	rc = rc ? rc : ib_buf_puts(out, " |\n|");
	for (size_t c = 0; c < ncols && !rc; c++) {
		for (size_t k = 0; !rc && k < w[c] + 2; k++)
			rc = ib_buf_putc(out, '-');
		rc = rc ? rc : ib_buf_putc(out, '|');
	}
	for (size_t r = 0; r < nrows && !rc; r++) {
		rc = ib_buf_putc(out, '\n');
		for (size_t c = 0; c < ncols && !rc; c++) {
			ib_buf *t = &txt[r * ncols + c];
			size_t k = width(t->data ? t->data : "", t->len);
			rc = ib_buf_puts(out, c ? " | " : "| ");
			if (num[c])
				rc = rc ? rc : pad(out, w[c] - k);
			rc = rc ? rc : ib_buf_append(out, t->data ? t->data : "", t->len);
			if (!num[c])
				rc = rc ? rc : pad(out, w[c] - k);
		}
		rc = rc ? rc : ib_buf_puts(out, " |");
	}
done:
	if (txt)
		for (size_t i = 0; i < ncols * nrows; i++)
			ib_buf_free(&txt[i]);
	free(txt);
	free(w);
	free(num);
	return rc;
}
