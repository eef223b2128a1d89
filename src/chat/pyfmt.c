/* Python string formatting for templates: str % args (also the `format`
 * filter) and str.format() with the format-spec mini-language. */
#include "chat/private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int fmt_err(interp *in, uint32_t at, const char *msg)
{
	return rt_fail(in, at, IB_EINVAL, "%s", msg);
}

/* appends s padded to width (in code points); left: pad on the right */
static int pad_to(ib_buf *b, const char *s, size_t n, int64_t width, bool left, uint32_t fill)
{
	size_t len = cu_len(s, n);
	size_t padn = width > 0 && (size_t)width > len ? (size_t)width - len : 0;
	int rc = 0;
	for (size_t i = 0; !rc && !left && i < padn; i++)
		rc = cu_put(b, fill);
	if (!rc)
		rc = ib_buf_append(b, s, n);
	for (size_t i = 0; !rc && left && i < padn; i++)
		rc = cu_put(b, fill);
	return rc;
}

static bool is_int(const cv *v)
{
	return v->t == CV_INT || v->t == CV_BOOL;
}

static int64_t ival(const cv *v)
{
	return v->t == CV_INT ? v->i : v->b;
}

/* ---- str % args ---- */

int chat_percent_format(interp *in, uint32_t at, cv *fmt, cv *args, cv **out)
{
	cv **list = &args;
	size_t nargs = 1, used = 0;
	bool mapping = args->t == CV_DICT;
	if (args->t == CV_TUPLE) {
		list = args->l.v;
		nargs = args->l.n;
	}
	const char *s = fmt->s.s;
	size_t n = fmt->s.n, i = 0;
	ib_buf b = {0};
	int rc = 0;
	bool used_key = false;
	while (!rc && i < n) {
		const char *pct = memchr(s + i, '%', n - i);
		size_t lit_end = pct ? (size_t)(pct - s) : n;
		if ((rc = ib_buf_append(&b, s + i, lit_end - i)))
			break;
		if (!pct)
			break;
		i = lit_end + 1;
		cv *arg = NULL;
		if (i < n && s[i] == '(') {
			size_t depth = 1, k = i + 1;
			while (k < n && depth) {
				depth += s[k] == '(' ? 1 : s[k] == ')' ? (size_t)-1 : 0;
				k++;
			}
			if (depth) {
				rc = fmt_err(in, at, "incomplete format key");
				break;
			}
			if (!mapping) {
				rc = fmt_err(in, at, "format requires a mapping");
				break;
			}
			arg = cv_dict_gets(args, s + i + 1, k - i - 2);
			if (!arg) {
				rc = rt_fail(in, at, IB_EINVAL, "KeyError: '%.*s'",
				             (int)(k - i - 2), s + i + 1);
				break;
			}
			used_key = true;
			i = k;
		}
		char flags[8];
		size_t nf = 0;
		while (i < n && strchr("-+ #0", s[i]) && nf + 1 < sizeof flags)
			flags[nf++] = s[i++];
		flags[nf] = 0;
		int64_t width = -1, prec = -1;
		if (i < n && s[i] == '*') {
			if (used >= nargs || !is_int(list[used])) {
				rc = fmt_err(in, at, "* wants int");
				break;
			}
			width = ival(list[used++]);
			i++;
		} else {
			while (i < n && s[i] >= '0' && s[i] <= '9' && width < 100000)
				width = (width < 0 ? 0 : width * 10) + (s[i++] - '0');
		}
		if (i < n && s[i] == '.') {
			i++;
			prec = 0;
			if (i < n && s[i] == '*') {
				if (used >= nargs || !is_int(list[used])) {
					rc = fmt_err(in, at, "* wants int");
					break;
				}
				prec = ival(list[used++]);
				i++;
			} else {
				while (i < n && s[i] >= '0' && s[i] <= '9' && prec < 100000)
					prec = prec * 10 + (s[i++] - '0');
			}
		}
		while (i < n && (s[i] == 'h' || s[i] == 'l' || s[i] == 'L'))
			i++;
		if (i >= n) {
			rc = fmt_err(in, at, "incomplete format");
			break;
		}
		char conv = s[i++];
		if (width > 100000 || prec > 100000) {
			rc = rt_fail(in, at, IB_ERANGE, "width or precision too large");
			break;
		}
		if (conv == '%') {
			rc = ib_buf_putc(&b, '%');
			continue;
		}
		if (!arg) {
			if (mapping) {
				arg = args;
			} else if (used < nargs) {
				arg = list[used++];
			} else {
				rc = fmt_err(in, at, "not enough arguments for format string");
				break;
			}
		}
		bool left = strchr(flags, '-') != NULL;
		if (conv == 's' || conv == 'r' || conv == 'a') {
			ib_buf t = {0};
			rc = conv == 's' ? cv_str_to(&t, arg) : cv_repr_to(&t, arg);
			if (!rc) {
				size_t len = t.len;
				if (prec >= 0) { /* truncate to prec code points */
					size_t k = 0, cnt = 0;
					while (k < t.len && cnt < (size_t)prec) {
						cu_next(t.data, t.len, &k);
						cnt++;
					}
					len = k;
				}
				rc = pad_to(&b, t.data ? t.data : "", len, width, left, ' ');
			}
			ib_buf_free(&t);
			continue;
		}
		if (conv == 'c') {
			uint32_t c;
			if (is_int(arg) && ival(arg) >= 0 && ival(arg) <= 0x10FFFF) {
				c = (uint32_t)ival(arg);
			} else if (arg->t == CV_STR && cv_strlen(arg) == 1) {
				size_t k = 0;
				c = cu_next(arg->s.s, arg->s.n, &k);
			} else {
				rc = fmt_err(in, at, "%c requires int or char");
				break;
			}
			ib_buf t = {0};
			rc = cu_put(&t, c);
			if (!rc)
				rc = pad_to(&b, t.data, t.len, width, left, ' ');
			ib_buf_free(&t);
			continue;
		}
		if (!strchr("diuoxXeEfFgG", conv)) {
			rc = rt_fail(in, at, IB_EINVAL,
			             "unsupported format character '%c' (0x%x) at index %zu", conv,
			             (unsigned)(unsigned char)conv, cu_len(s, i - 1));
			break;
		}
		if (arg->t == CV_UNDEF) {
			rc = rt_undefined(in, at, arg);
			break;
		}
		if (!is_int(arg) && arg->t != CV_FLOAT) {
			rc = rt_fail(in, at, IB_EINVAL, "%%%c format: a %s is required, not %s",
			             conv, strchr("oxX", conv) ? "integer" : "real number",
			             cv_typename(arg));
			break;
		}
		char spec[64], num[512];
		size_t m = 0;
		spec[m++] = '%';
		for (size_t k = 0; k < nf; k++)
			if (!(flags[k] == '#' && strchr("diu", conv)))
				spec[m++] = flags[k];
		if (width >= 0)
			m += (size_t)snprintf(spec + m, sizeof spec - m, "%lld", (long long)width);
		if (prec >= 0)
			m += (size_t)snprintf(spec + m, sizeof spec - m, ".%lld", (long long)prec);
		if (strchr("diuoxX", conv)) {
			if (arg->t == CV_FLOAT && strchr("oxX", conv)) {
				rc =
				    rt_fail(in, at, IB_EINVAL,
				            "%%%c format: an integer is required, not float", conv);
				break;
			}
			long long v = arg->t == CV_FLOAT ? (long long)arg->f : (long long)ival(arg);
			snprintf(spec + m, sizeof spec - m, "ll%c",
			         conv == 'u' || conv == 'i' ? 'd' : conv);
			if (conv == 'o' && strchr(flags, '#')) {
				/* Python writes 0o17 where C writes 017 */
				char *h = strchr(spec, '#');
				memmove(h, h + 1, strlen(h));
				char digits[64];
				snprintf(digits, sizeof digits, "0o%llo",
				         v < 0 ? -(unsigned long long)v : (unsigned long long)v);
				snprintf(num, sizeof num, "%s%s", v < 0 ? "-" : "", digits);
				rc = pad_to(&b, num, strlen(num), width, left, ' ');
				continue;
			}
			snprintf(num, sizeof num, spec, v);
		} else {
			double v = arg->t == CV_FLOAT ? arg->f : (double)ival(arg);
			snprintf(spec + m, sizeof spec - m, "%c", conv);
			snprintf(num, sizeof num, spec, v);
		}
		rc = ib_buf_puts(&b, num);
	}
	/* Python: a mapping argument (anything with __getitem__ but a tuple or a
	 * string) is never "not all converted" */
	if (!rc && !mapping && args->t != CV_LIST && used < nargs && !used_key)
		rc = fmt_err(in, at, "not all arguments converted during string formatting");
	if (rc) {
		ib_buf_free(&b);
		return rc == IB_ENOMEM ? rt_nomem(in) : rc;
	}
	return rt_buf_str(in, &b, out);
}

/* ---- str.format ---- */

typedef struct {
	uint32_t fill;
	char align; /* < > ^ = or 0 */
	char sign;  /* + - space or 0 */
	bool alt, zero;
	int64_t width, prec;
	char group; /* , _ or 0 */
	char type;
} fspec;

static int parse_spec(interp *in, uint32_t at, const char *s, size_t n, fspec *f)
{
	memset(f, 0, sizeof *f);
	f->fill = ' ';
	f->width = -1;
	f->prec = -1;
	size_t i = 0;
	/* [[fill]align] */
	size_t k = 0;
	uint32_t c0 = n ? cu_next(s, n, &k) : 0;
	if (k < n && strchr("<>^=", s[k])) {
		f->fill = c0;
		f->align = s[k];
		i = k + 1;
	} else if (n && strchr("<>^=", s[0])) {
		f->align = s[0];
		i = 1;
	}
	if (i < n && strchr("+- ", s[i]))
		f->sign = s[i++];
	if (i < n && s[i] == '#') {
		f->alt = true;
		i++;
	}
	if (i < n && s[i] == '0') {
		f->zero = true;
		i++;
	}
	while (i < n && s[i] >= '0' && s[i] <= '9' && f->width < 100000)
		f->width = (f->width < 0 ? 0 : f->width * 10) + (s[i++] - '0');
	if (i < n && (s[i] == ',' || s[i] == '_'))
		f->group = s[i++];
	if (i < n && s[i] == '.') {
		i++;
		f->prec = 0;
		if (i >= n || s[i] < '0' || s[i] > '9')
			return fmt_err(in, at, "Format specifier missing precision");
		while (i < n && s[i] >= '0' && s[i] <= '9' && f->prec < 100000)
			f->prec = f->prec * 10 + (s[i++] - '0');
	}
	if (i < n)
		f->type = s[i++];
	if (i < n || f->width >= 100000 || f->prec >= 100000)
		return fmt_err(in, at, "Invalid format specifier");
	if (f->zero && !f->align) {
		f->fill = '0';
		f->align = '=';
	}
	return 0;
}

/* inserts thousands separators into the digits of body's integer part */
static void group_digits(char *body, size_t cap, char sep)
{
	char *p = body;
	while (*p && (*p < '0' || *p > '9'))
		p++;
	char *e = p;
	while (*e >= '0' && *e <= '9')
		e++;
	size_t nd = (size_t)(e - p);
	if (nd <= 3)
		return;
	char tmp[600];
	size_t m = 0;
	for (size_t i = 0; i < nd && m + 2 < sizeof tmp; i++) {
		if (i && (nd - i) % 3 == 0)
			tmp[m++] = sep;
		tmp[m++] = p[i];
	}
	tmp[m] = 0;
	char rest[600];
	snprintf(rest, sizeof rest, "%s", e);
	snprintf(p, cap - (size_t)(p - body), "%s%s", tmp, rest);
}

static int format_value(interp *in, uint32_t at, cv *v, const char *specs, size_t specn, ib_buf *b)
{
	fspec f;
	int rc = parse_spec(in, at, specs, specn, &f);
	if (rc)
		return rc;
	char num[700];
	const char *body = "";
	size_t bodyn = 0;
	ib_buf t = {0};
	if (v->t == CV_STR || (!specn && v->t != CV_INT && v->t != CV_FLOAT)) {
		if (f.type && f.type != 's')
			return rt_fail(in, at, IB_EINVAL,
			               "Unknown format code '%c' for object of type '%s'", f.type,
			               cv_typename(v));
		if (f.sign || f.align == '=')
			return fmt_err(in, at, "Sign not allowed in string format specifier");
		if (v->t != CV_STR && specn)
			return rt_fail(in, at, IB_EINVAL,
			               "unsupported format string passed to %s.__format__",
			               cv_typename(v));
		if (cv_str_to(&t, v)) {
			ib_buf_free(&t);
			return rt_nomem(in);
		}
		size_t len = t.len;
		if (f.prec >= 0) {
			size_t k = 0, cnt = 0;
			while (k < t.len && cnt < (size_t)f.prec) {
				cu_next(t.data, t.len, &k);
				cnt++;
			}
			len = k;
		}
		body = t.data ? t.data : "";
		bodyn = len;
		if (!f.align)
			f.align = '<';
	} else if (is_int(v) || v->t == CV_FLOAT) {
		char type = f.type;
		bool as_float = v->t == CV_FLOAT || (type && strchr("eEfFgG%", type));
		if (!type && v->t == CV_BOOL && !specn) {
			body = v->b ? "True" : "False";
			bodyn = strlen(body);
		}
		if (as_float) {
			double x = v->t == CV_FLOAT ? v->f : (double)ival(v);
			if (type && !strchr("eEfFgGn%", type))
				return rt_fail(
				    in, at, IB_EINVAL,
				    "Unknown format code '%c' for object of type 'float'", type);
			if (!type && f.prec < 0) {
				ib_buf_free(&t);
				if (cv_str_to(&t, v))
					return rt_nomem(in);
				snprintf(num, sizeof num, "%s%s",
				         f.sign == '+' && x >= 0   ? "+"
				         : f.sign == ' ' && x >= 0 ? " "
				                                   : "",
				         t.data);
			} else {
				char ty = type == 'n' || !type ? 'g' : type == '%' ? 'f' : type;
				double y = type == '%' ? x * 100 : x;
				int prec = f.prec < 0 ? 6 : (int)f.prec;
				char spec[16];
				snprintf(spec, sizeof spec, "%%%s%s.%d%c",
				         f.sign == '+'   ? "+"
				         : f.sign == ' ' ? " "
				                         : "",
				         f.alt ? "#" : "", prec, ty);
				snprintf(num, sizeof num, spec, y);
				if (type == '%')
					strncat(num, "%", sizeof num - strlen(num) - 1);
			}
		} else {
			int64_t x = ival(v);
			if (type && !strchr("dbcoxXn", type))
				return rt_fail(in, at, IB_EINVAL,
				               "Unknown format code '%c' for object of type 'int'",
				               type);
			if (type == 'c') {
				if (x < 0 || x > 0x10FFFF)
					return fmt_err(in, at, "%c arg not in range(0x110000)");
				ib_buf_free(&t);
				if (cu_put(&t, (uint32_t)x))
					return rt_nomem(in);
				snprintf(num, sizeof num, "%s", t.data);
			} else {
				unsigned long long m =
				    x < 0 ? 0ULL - (unsigned long long)x : (unsigned long long)x;
				char digits[80];
				if (type == 'b') {
					size_t k = 0;
					char tmp[70];
					do {
						tmp[k++] = (char)('0' + (m & 1));
						m >>= 1;
					} while (m);
					for (size_t j = 0; j < k; j++)
						digits[j] = tmp[k - 1 - j];
					digits[k] = 0;
				} else {
					snprintf(digits, sizeof digits,
					         type == 'o'   ? "%llo"
					         : type == 'x' ? "%llx"
					         : type == 'X' ? "%llX"
					                       : "%llu",
					         m);
				}
				const char *prefix = !f.alt        ? ""
				                     : type == 'b' ? "0b"
				                     : type == 'o' ? "0o"
				                     : type == 'x' ? "0x"
				                     : type == 'X' ? "0X"
				                                   : "";
				snprintf(num, sizeof num, "%s%s%s",
				         x < 0           ? "-"
				         : f.sign == '+' ? "+"
				         : f.sign == ' ' ? " "
				                         : "",
				         prefix, digits);
			}
		}
		if (f.group && (!f.type || strchr("dfFeEgG%", f.type)))
			group_digits(num, sizeof num, f.group);
		if (!(!type && v->t == CV_BOOL && !specn)) {
			body = num;
			bodyn = strlen(num);
		}
		if (!f.align)
			f.align = '>';
	} else {
		return rt_fail(in, at, IB_EINVAL,
		               "unsupported format string passed to %s.__format__", cv_typename(v));
	}
	size_t len = cu_len(body, bodyn);
	size_t padn = f.width > 0 && (size_t)f.width > len ? (size_t)f.width - len : 0;
	size_t lpad = f.align == '<' ? 0 : f.align == '^' ? padn / 2 : padn;
	rc = 0;
	if (f.align == '=' && bodyn && strchr("+- ", body[0])) {
		rc = ib_buf_putc(b, body[0]);
		body++;
		bodyn--;
	}
	for (size_t i = 0; !rc && i < lpad; i++)
		rc = cu_put(b, f.fill);
	if (!rc)
		rc = ib_buf_append(b, body, bodyn);
	for (size_t i = lpad; !rc && i < padn; i++)
		rc = cu_put(b, f.fill);
	ib_buf_free(&t);
	return rc ? rt_nomem(in) : 0;
}

int chat_str_format(interp *in, uint32_t at, cv *fmt, cargs *a, cv **out)
{
	const char *s = fmt->s.s;
	size_t n = fmt->s.n, i = 0;
	ib_buf b = {0};
	int rc = 0;
	int64_t auto_idx = 0;
	int numbering = 0; /* 1 auto, 2 manual */
	while (!rc && i < n) {
		char c = s[i];
		if (c == '}') {
			if (i + 1 < n && s[i + 1] == '}') {
				rc = ib_buf_putc(&b, '}') ? rt_nomem(in) : 0;
				i += 2;
				continue;
			}
			rc = fmt_err(in, at, "Single '}' encountered in format string");
			break;
		}
		if (c != '{') {
			rc = ib_buf_putc(&b, c) ? rt_nomem(in) : 0;
			i++;
			continue;
		}
		if (i + 1 < n && s[i + 1] == '{') {
			rc = ib_buf_putc(&b, '{') ? rt_nomem(in) : 0;
			i += 2;
			continue;
		}
		size_t j = i + 1;
		while (j < n && s[j] != '}' && s[j] != '{')
			j++;
		if (j >= n || s[j] == '{') {
			rc = fmt_err(in, at,
			             j >= n ? "Single '{' encountered in format string"
			                    : "nested replacement fields are not supported");
			break;
		}
		/* field [!conv] [:spec] in s[i+1..j) */
		const char *fs = s + i + 1;
		size_t fn = j - i - 1, name_end = 0;
		while (name_end < fn && fs[name_end] != '!' && fs[name_end] != ':')
			name_end++;
		char conv = 0;
		const char *spec = "";
		size_t specn = 0;
		if (name_end < fn && fs[name_end] == '!') {
			if (name_end + 1 >= fn) {
				rc = fmt_err(
				    in, at, "end of string while looking for conversion specifier");
				break;
			}
			conv = fs[name_end + 1];
			if (name_end + 2 < fn && fs[name_end + 2] != ':') {
				rc = fmt_err(in, at, "expected ':' after conversion specifier");
				break;
			}
			if (name_end + 2 < fn) {
				spec = fs + name_end + 3;
				specn = fn - name_end - 3;
			}
		} else if (name_end < fn) {
			spec = fs + name_end + 1;
			specn = fn - name_end - 1;
		}
		/* arg name: up to the first . or [ */
		size_t an = 0;
		while (an < name_end && fs[an] != '.' && fs[an] != '[')
			an++;
		cv *v = NULL;
		bool digits = an > 0;
		int64_t idx = 0;
		for (size_t k = 0; k < an && digits; k++) {
			digits = fs[k] >= '0' && fs[k] <= '9' && idx < 1000000;
			idx = idx * 10 + (fs[k] - '0');
		}
		if (an == 0 || digits) {
			if (an == 0) {
				if (numbering == 2) {
					rc = fmt_err(
					    in, at,
					    "cannot switch from manual field specification to "
					    "automatic field numbering");
					break;
				}
				numbering = 1;
				idx = auto_idx++;
			} else {
				if (numbering == 1) {
					rc = fmt_err(
					    in, at,
					    "cannot switch from automatic field numbering to "
					    "manual field specification");
					break;
				}
				numbering = 2;
			}
			if ((size_t)idx >= a->npos) {
				rc = rt_fail(in, at, IB_EINVAL,
				             "Replacement index %lld out of range for "
				             "positional args tuple",
				             (long long)idx);
				break;
			}
			v = a->pos[idx];
		} else {
			for (size_t k = 0; k < a->nkw && !v; k++)
				if (strlen(a->kwn[k]) == an && !memcmp(a->kwn[k], fs, an))
					v = a->kwv[k];
			if (!v) {
				rc = rt_fail(in, at, IB_EINVAL, "KeyError: '%.*s'", (int)an, fs);
				break;
			}
		}
		/* .attr and [key] */
		size_t k = an;
		while (!rc && k < name_end) {
			if (fs[k] == '.') {
				size_t e = k + 1;
				while (e < name_end && fs[e] != '.' && fs[e] != '[')
					e++;
				rc = rt_getattr(in, at, v, fs + k + 1, e - k - 1, &v);
				k = e;
			} else if (fs[k] == '[') {
				size_t e = k + 1;
				while (e < name_end && fs[e] != ']')
					e++;
				if (e >= name_end) {
					rc = fmt_err(in, at, "Missing ']' in format string");
					break;
				}
				bool dig = e > k + 1;
				int64_t num = 0;
				for (size_t q = k + 1; q < e && dig; q++) {
					dig = fs[q] >= '0' && fs[q] <= '9' && num < 1000000000;
					num = num * 10 + (fs[q] - '0');
				}
				cv *key = dig ? cv_int(in->a, num)
				              : cv_str_ref(in->a, fs + k + 1, e - k - 1);
				rc = key ? rt_getitem(in, at, v, key, &v) : rt_nomem(in);
				k = e + 1;
			} else {
				rc = fmt_err(
				    in, at,
				    "Only '.' or '[' may follow ']' in format field specifier");
			}
		}
		if (rc)
			break;
		if (conv) {
			if (conv != 'r' && conv != 's' && conv != 'a') {
				rc = rt_fail(in, at, IB_EINVAL, "Unknown conversion specifier %c",
				             conv);
				break;
			}
			ib_buf t = {0};
			if (conv == 's' ? cv_str_to(&t, v) : cv_repr_to(&t, v)) {
				ib_buf_free(&t);
				rc = rt_nomem(in);
				break;
			}
			if ((rc = rt_buf_str(in, &t, &v)))
				break;
		}
		rc = format_value(in, at, v, spec, specn, &b);
		i = j + 1;
	}
	if (rc) {
		ib_buf_free(&b);
		return rc;
	}
	return rt_buf_str(in, &b, out);
}
