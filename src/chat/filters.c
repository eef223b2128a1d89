/* jinja2's built-in filters on strings and numbers, transformers' tojson, and
 * the filter table (the sequence filters are in filters_seq.c). */
#include "chat/private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof(a)[0])

/* ---- filters ---- */

static int f_abs(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	if (check(in, a, "abs", 1, NULL))
		return IB_EINVAL;
	cv *v = input(a);
	if (v->t == CV_INT) {
		if (v->i == INT64_MIN)
			return rt_fail(in, a->at, IB_ERANGE,
			               "integer result does not fit in 64 bits");
		return ret_int(in, v->i < 0 ? -v->i : v->i, out);
	}
	if (v->t == CV_BOOL)
		return ret_int(in, v->b, out);
	if (v->t == CV_FLOAT)
		return ret_float(in, fabs(v->f), out);
	if (v->t == CV_UNDEF)
		return rt_undefined(in, a->at, v);
	return rt_fail(in, a->at, IB_EINVAL, "bad operand type for abs(): '%s'", cv_typename(v));
}

static int f_attr(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	if (check(in, a, "attr", 2, NULL))
		return IB_EINVAL;
	cv *name = rt_arg(a, 1, NULL);
	if (!name || name->t != CV_STR)
		return rt_fail(in, a->at, IB_EINVAL, "attr() needs an attribute name");
	cv *v = input(a);
	if (v->t == CV_UNDEF)
		return rt_undefined(in, a->at, v);
	/* attributes only: no item lookup (dict keys are not attributes) */
	if (v->t == CV_DICT || v->t == CV_STR || v->t == CV_LIST || v->t == CV_TUPLE) {
		int rc = chat_method(in, v, name->s.s, name->s.n, out);
		if (rc || *out)
			return rc;
		return (*out = cv_undef(in->a, name, v, NULL)) ? 0 : rt_nomem(in);
	}
	return rt_getattr(in, a->at, v, name->s.s, name->s.n, out);
}

static int f_capitalize(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	cv *s;
	if (check(in, a, "capitalize", 1, NULL) || soft_str(in, input(a), &s))
		return IB_EINVAL;
	return chat_capitalize(in, s, out);
}

static int f_center(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	static const char *const names[] = {"value", "width", NULL};
	if (check(in, a, "center", 2, names))
		return IB_EINVAL;
	cv *s, *w = rt_arg(a, 1, "width");
	cv dflt = {.t = CV_INT, .i = 80};
	if (soft_str(in, input(a), &s))
		return IB_ENOMEM;
	cv *f;
	if (chat_method(in, s, "center", 6, &f))
		return IB_ENOMEM;
	cv *args[1] = {w ? w : &dflt};
	cargs b = {.pos = args, .npos = 1, .at = a->at};
	return rt_call(in, f, &b, out);
}

static int f_default(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	static const char *const names[] = {"value", "default_value", "boolean", NULL};
	if (check(in, a, "default", 3, names))
		return IB_EINVAL;
	cv *d = rt_arg(a, 1, "default_value"), *b = rt_arg(a, 2, "boolean");
	cv *v = input(a);
	if (v->t == CV_UNDEF || (b && cv_truthy(b) && !cv_truthy(v)))
		*out = d ? d : CV_EMPTY_STR_P;
	else
		*out = v;
	return 0;
}

static int html_escape(interp *in, cv *v, cv **out)
{
	cv *s;
	if (soft_str(in, v, &s))
		return IB_ENOMEM;
	ib_buf b = {0};
	int rc = 0;
	for (size_t i = 0; !rc && i < s->s.n; i++) {
		switch (s->s.s[i]) {
		case '&':
			rc = ib_buf_puts(&b, "&amp;");
			break;
		case '<':
			rc = ib_buf_puts(&b, "&lt;");
			break;
		case '>':
			rc = ib_buf_puts(&b, "&gt;");
			break;
		case '"':
			rc = ib_buf_puts(&b, "&#34;");
			break;
		case '\'':
			rc = ib_buf_puts(&b, "&#39;");
			break;
		default:
			rc = ib_buf_putc(&b, s->s.s[i]);
		}
	}
	if (rc) {
		ib_buf_free(&b);
		return rt_nomem(in);
	}
	return rt_buf_str(in, &b, out);
}

static int f_escape(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	if (check(in, a, "escape", 1, NULL))
		return IB_EINVAL;
	return html_escape(in, input(a), out);
}

/* Python float(str): strips whitespace, accepts inf/nan and underscores */
static bool parse_float(const cv *s, double *out)
{
	char buf[128];
	size_t n = 0;
	cv t = *s;
	size_t lo = 0, hi = t.s.n;
	while (lo < hi && cu_isspace((unsigned char)t.s.s[lo]))
		lo++;
	while (hi > lo && cu_isspace((unsigned char)t.s.s[hi - 1]))
		hi--;
	if (hi == lo || hi - lo >= sizeof buf)
		return false;
	for (size_t i = lo; i < hi; i++) {
		char c = t.s.s[i];
		if (c == '_') {
			if (i == lo || i + 1 == hi ||
			    !(t.s.s[i - 1] >= '0' && t.s.s[i - 1] <= '9') ||
			    !(t.s.s[i + 1] >= '0' && t.s.s[i + 1] <= '9'))
				return false;
			continue;
		}
		if (!strchr("0123456789+-.eEinfatyINFATY", c))
			return false;
		buf[n++] = c;
	}
	buf[n] = 0;
	char *end;
	*out = strtod(buf, &end);
	if (*end)
		return false;
	/* strtod accepts hex and "infinity"; Python accepts "infinity" too */
	return true;
}

static int f_float(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	static const char *const names[] = {"value", "default", NULL};
	if (check(in, a, "float", 2, names))
		return IB_EINVAL;
	cv *v = input(a), *d = rt_arg(a, 1, "default");
	double f;
	if (v->t == CV_UNDEF)
		return rt_undefined(in, a->at, v);
	if (v->t == CV_FLOAT) {
		*out = v;
		return 0;
	}
	if (v->t == CV_INT || v->t == CV_BOOL)
		return ret_float(in, v->t == CV_INT ? (double)v->i : v->b, out);
	if (v->t == CV_STR && parse_float(v, &f))
		return ret_float(in, f, out);
	if (d) {
		*out = d;
		return 0;
	}
	return ret_float(in, 0.0, out);
}

static int f_format(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	cv *s;
	if (soft_str(in, input(a), &s))
		return IB_ENOMEM;
	if (a->nkw && a->npos > 1)
		return rt_fail(in, a->at, IB_EINVAL,
		               "can't handle positional and keyword arguments at the same time");
	cv *args;
	if (a->nkw) {
		args = cv_new(in->a, CV_DICT);
		if (!args)
			return rt_nomem(in);
		for (size_t i = 0; i < a->nkw; i++) {
			cv *k = cv_str_ref(in->a, a->kwn[i], strlen(a->kwn[i]));
			if (!k || cv_dict_set(in->a, args, k, a->kwv[i]))
				return rt_nomem(in);
		}
	} else {
		args = cv_seq(in->a, CV_TUPLE, a->npos - 1);
		if (!args)
			return rt_nomem(in);
		for (size_t i = 1; i < a->npos; i++)
			args->l.v[i - 1] = a->pos[i];
	}
	return chat_percent_format(in, a->at, s, args, out);
}

static int f_indent(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	static const char *const names[] = {"s", "width", "first", "blank", NULL};
	if (check(in, a, "indent", 4, names))
		return IB_EINVAL;
	cv *s = input(a), *w = rt_arg(a, 1, "width"), *first = rt_arg(a, 2, "first"),
	   *blank = rt_arg(a, 3, "blank");
	/* jinja2 appends "\n" to the value itself */
	if (s->t == CV_UNDEF)
		return rt_undefined(in, a->at, s);
	if (s->t != CV_STR)
		return rt_fail(in, a->at, IB_EINVAL,
		               "unsupported operand type(s) for +=: '%s' and 'str'",
		               cv_typename(s));
	ib_buf ind = {0};
	int rc = 0;
	if (w && w->t == CV_STR) {
		rc = ib_buf_append(&ind, w->s.s, w->s.n);
	} else {
		int64_t k = 4;
		if (w && rt_need_int(in, a, w, "indent", &k))
			return IB_EINVAL;
		if (k > 4096)
			return rt_fail(in, a->at, IB_ERANGE, "indent() width too large");
		for (int64_t i = 0; !rc && i < k; i++)
			rc = ib_buf_putc(&ind, ' ');
	}
	/* s + "\n", split into lines (Python splitlines) */
	cv *f, *lines;
	ib_buf t = {0};
	if (!rc)
		rc = ib_buf_append(&t, s->s.s, s->s.n);
	if (!rc)
		rc = ib_buf_putc(&t, '\n');
	if (rc) {
		ib_buf_free(&ind);
		ib_buf_free(&t);
		return rt_nomem(in);
	}
	cv *ts;
	if ((rc = rt_buf_str(in, &t, &ts)) || (rc = chat_method(in, ts, "splitlines", 10, &f))) {
		ib_buf_free(&ind);
		return rc;
	}
	cargs none = {.at = a->at};
	if ((rc = rt_call(in, f, &none, &lines))) {
		ib_buf_free(&ind);
		return rc;
	}
	ib_buf b = {0};
	if (first && cv_truthy(first))
		rc = ib_buf_append(&b, ind.data ? ind.data : "", ind.len);
	for (size_t i = 0; !rc && i < lines->l.n; i++) {
		cv *line = lines->l.v[i];
		if (i) {
			rc = ib_buf_putc(&b, '\n');
			if (!rc && ((blank && cv_truthy(blank)) || line->s.n))
				rc = ib_buf_append(&b, ind.data ? ind.data : "", ind.len);
		}
		if (!rc)
			rc = ib_buf_append(&b, line->s.s, line->s.n);
	}
	ib_buf_free(&ind);
	if (rc) {
		ib_buf_free(&b);
		return rt_nomem(in);
	}
	return rt_buf_str(in, &b, out);
}

/* Python int(str, base) */
static bool parse_int(const cv *s, int base, int64_t *out)
{
	size_t lo = 0, hi = s->s.n;
	const char *p = s->s.s;
	while (lo < hi && cu_isspace((unsigned char)p[lo]))
		lo++;
	while (hi > lo && cu_isspace((unsigned char)p[hi - 1]))
		hi--;
	bool neg = false;
	if (lo < hi && (p[lo] == '+' || p[lo] == '-'))
		neg = p[lo++] == '-';
	if (lo + 1 < hi && p[lo] == '0') {
		char c = (char)(p[lo + 1] | 32);
		int b = c == 'x' ? 16 : c == 'o' ? 8 : c == 'b' ? 2 : 0;
		if (b && (base == b || base == 0)) {
			base = b;
			lo += 2;
			if (lo < hi && p[lo] == '_')
				lo++;
		}
	}
	if (base == 0)
		base = 10;
	if (lo >= hi)
		return false;
	uint64_t v = 0;
	for (size_t i = lo; i < hi; i++) {
		char c = p[i];
		if (c == '_' && i > lo && i + 1 < hi && p[i + 1] != '_')
			continue;
		int d = c >= '0' && c <= '9'                 ? c - '0'
		        : (c | 32) >= 'a' && (c | 32) <= 'z' ? (c | 32) - 'a' + 10
		                                             : 99;
		if (d >= base)
			return false;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return false;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	if (v > (uint64_t)INT64_MAX + (neg ? 1 : 0))
		return false;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

static int f_int(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	static const char *const names[] = {"value", "default", "base", NULL};
	if (check(in, a, "int", 3, names))
		return IB_EINVAL;
	cv *v = input(a), *d = rt_arg(a, 1, "default"), *b = rt_arg(a, 2, "base");
	int64_t base = 10, i;
	if (b && rt_need_int(in, a, b, "int", &base))
		return IB_EINVAL;
	if (v->t == CV_UNDEF)
		return rt_undefined(in, a->at, v);
	if (v->t == CV_INT) {
		*out = v;
		return 0;
	}
	if (v->t == CV_BOOL)
		return ret_int(in, v->b, out);
	if (v->t == CV_FLOAT && isfinite(v->f) && fabs(v->f) < 9.2e18)
		return ret_int(in, (int64_t)v->f, out);
	if (v->t == CV_STR) {
		if (base >= 0 && base <= 36 && base != 1 && parse_int(v, (int)base, &i))
			return ret_int(in, i, out);
		double f;
		if (parse_float(v, &f) && isfinite(f) && fabs(f) < 9.2e18)
			return ret_int(in, (int64_t)f, out);
	}
	if (d) {
		*out = d;
		return 0;
	}
	return ret_int(in, 0, out);
}

static int f_lower(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	cv *s;
	if (check(in, a, "lower", 1, NULL) || soft_str(in, input(a), &s))
		return IB_EINVAL;
	return chat_lower(in, s, out);
}

static int f_upper(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	cv *s;
	if (check(in, a, "upper", 1, NULL) || soft_str(in, input(a), &s))
		return IB_EINVAL;
	return chat_upper(in, s, out);
}

static int f_replace(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	static const char *const names[] = {"s", "old", "new", "count", NULL};
	if (check(in, a, "replace", 4, names))
		return IB_EINVAL;
	cv *s, *o = rt_arg(a, 1, "old"), *nw = rt_arg(a, 2, "new"), *c = rt_arg(a, 3, "count");
	int64_t count = -1;
	if (soft_str(in, input(a), &s))
		return IB_ENOMEM;
	if (!o || !nw)
		return rt_fail(in, a->at, IB_EINVAL, "replace() needs the old and new strings");
	if (o->t != CV_STR && soft_str(in, o, &o))
		return IB_ENOMEM;
	if (nw->t != CV_STR && soft_str(in, nw, &nw))
		return IB_ENOMEM;
	if (c && c->t != CV_NONE && rt_need_int(in, a, c, "replace", &count))
		return IB_EINVAL;
	return chat_replace(in, s, o, nw, count, out);
}

static int f_round(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	static const char *const names[] = {"value", "precision", "method", NULL};
	if (check(in, a, "round", 3, names))
		return IB_EINVAL;
	cv *v = input(a), *p = rt_arg(a, 1, "precision"), *m = rt_arg(a, 2, "method");
	int64_t prec = 0;
	if (p && rt_need_int(in, a, p, "round", &prec))
		return IB_EINVAL;
	int method = 0; /* common, ceil, floor */
	if (m) {
		if (m->t == CV_STR && m->s.n == 4 && !memcmp(m->s.s, "ceil", 4))
			method = 1;
		else if (m->t == CV_STR && m->s.n == 5 && !memcmp(m->s.s, "floor", 5))
			method = 2;
		else if (!(m->t == CV_STR && m->s.n == 6 && !memcmp(m->s.s, "common", 6)))
			return rt_fail(in, a->at, IB_EINVAL,
			               "method must be common, ceil or floor");
	}
	if (v->t == CV_UNDEF)
		return rt_undefined(in, a->at, v);
	if (v->t != CV_INT && v->t != CV_FLOAT && v->t != CV_BOOL)
		return rt_fail(in, a->at, IB_EINVAL, "type %s doesn't define __round__ method",
		               cv_typename(v));
	if (method == 0 && v->t != CV_FLOAT && prec >= 0) {
		*out = v->t == CV_BOOL ? cv_int(in->a, v->b) : v;
		return *out ? 0 : rt_nomem(in);
	}
	double x = v->t == CV_FLOAT ? v->f : v->t == CV_INT ? (double)v->i : v->b;
	if (prec > 300)
		prec = 300;
	if (prec < -300)
		prec = -300;
	double scale = pow(10.0, (double)prec);
	if (method == 1)
		return ret_float(in, ceil(x * scale) / scale, out);
	if (method == 2)
		return ret_float(in, floor(x * scale) / scale, out);
	if (!isfinite(x))
		return ret_float(in, x, out);
	if (prec >= 0) {
		char buf[400];
		snprintf(buf, sizeof buf, "%.*f", (int)prec, x);
		return ret_float(in, strtod(buf, NULL), out);
	}
	double r = nearbyint(x * scale) / scale;
	if (v->t != CV_FLOAT)
		return ret_int(in, (int64_t)r, out);
	return ret_float(in, r, out);
}

static int f_safe(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	if (check(in, a, "safe", 1, NULL))
		return IB_EINVAL;
	return soft_str(in, input(a), out);
}

static int f_string(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	if (check(in, a, "string", 1, NULL))
		return IB_EINVAL;
	return soft_str(in, input(a), out);
}

/* jinja2's title: words start after - whitespace ( { [ < */
static int f_title(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	cv *s;
	if (check(in, a, "title", 1, NULL) || soft_str(in, input(a), &s))
		return IB_EINVAL;
	ib_buf b = {0};
	size_t i = 0;
	bool start = true;
	int rc = 0;
	while (!rc && i < s->s.n) {
		uint32_t c = cu_next(s->s.s, s->s.n, &i);
		bool sep =
		    c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || cu_isspace(c);
		if (sep) {
			rc = cu_put(&b, c);
			start = true;
		} else {
			rc = start ? cu_put_upper(&b, c) : cu_put_lower(&b, c);
			start = false;
		}
	}
	if (rc) {
		ib_buf_free(&b);
		return rt_nomem(in);
	}
	return rt_buf_str(in, &b, out);
}

static int f_tojson(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	static const char *const names[] = {"x",          "ensure_ascii", "indent",
	                                    "separators", "sort_keys",    NULL};
	if (check(in, a, "tojson", 5, names))
		return IB_EINVAL;
	cv *ea = rt_arg(a, 1, "ensure_ascii"), *ind = rt_arg(a, 2, "indent"),
	   *sep = rt_arg(a, 3, "separators"), *sk = rt_arg(a, 4, "sort_keys");
	chat_json_opts o = {.ensure_ascii = ea && cv_truthy(ea), .sort_keys = sk && cv_truthy(sk)};
	char spaces[4096];
	if (ind && ind->t != CV_NONE) {
		o.has_indent = true;
		if (ind->t == CV_STR) {
			o.indent = ind->s.s;
			o.indent_n = ind->s.n;
		} else {
			int64_t k;
			if (rt_need_int(in, a, ind, "tojson", &k))
				return IB_EINVAL;
			if (k > (int64_t)sizeof spaces)
				return rt_fail(in, a->at, IB_ERANGE, "tojson() indent too large");
			if (k < 0)
				k = 0;
			memset(spaces, ' ', (size_t)k);
			o.indent = spaces;
			o.indent_n = (size_t)k;
		}
	}
	o.item_sep = o.has_indent ? "," : ", ";
	o.item_sep_n = o.has_indent ? 1 : 2;
	o.key_sep = ": ";
	o.key_sep_n = 2;
	if (sep && sep->t != CV_NONE) {
		if ((sep->t != CV_LIST && sep->t != CV_TUPLE) || sep->l.n != 2 ||
		    sep->l.v[0]->t != CV_STR || sep->l.v[1]->t != CV_STR)
			return rt_fail(in, a->at, IB_EINVAL,
			               "tojson() separators must be a pair of strings");
		o.item_sep = sep->l.v[0]->s.s;
		o.item_sep_n = sep->l.v[0]->s.n;
		o.key_sep = sep->l.v[1]->s.s;
		o.key_sep_n = sep->l.v[1]->s.n;
	}
	ib_buf b = {0};
	int rc = chat_tojson(in, a->at, input(a), &o, &b);
	if (rc) {
		ib_buf_free(&b);
		return rc;
	}
	return rt_buf_str(in, &b, out);
}

static int f_trim(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	static const char *const names[] = {"value", "chars", NULL};
	if (check(in, a, "trim", 2, names))
		return IB_EINVAL;
	cv *s, *chars = rt_arg(a, 1, "chars");
	if (soft_str(in, input(a), &s))
		return IB_ENOMEM;
	if (chars && chars->t == CV_NONE)
		chars = NULL;
	if (chars && chars->t != CV_STR)
		return rt_fail(in, a->at, IB_EINVAL, "strip arg must be None or str");
	return chat_strip(in, s, chars, 3, out);
}

static int f_truncate(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	static const char *const names[] = {"s", "length", "killwords", "end", "leeway", NULL};
	if (check(in, a, "truncate", 5, names))
		return IB_EINVAL;
	cv *s, *len = rt_arg(a, 1, "length"), *kw = rt_arg(a, 2, "killwords"),
	       *end = rt_arg(a, 3, "end"), *lw = rt_arg(a, 4, "leeway");
	int64_t length = 255, leeway = 5;
	s = input(a);
	if ((len && rt_need_int(in, a, len, "truncate", &length)) ||
	    (lw && lw->t != CV_NONE && rt_need_int(in, a, lw, "truncate", &leeway)))
		return IB_EINVAL;
	cv dots = {.t = CV_STR, .s = {.s = "...", .n = 3}};
	if (!end)
		end = &dots;
	if (end->t != CV_STR && soft_str(in, end, &end))
		return IB_ENOMEM;
	int64_t endlen = (int64_t)cv_strlen(end);
	if (length < endlen)
		return rt_fail(in, a->at, IB_EINVAL, "expected length >= %lld, got %lld",
		               (long long)endlen, (long long)length);
	if (leeway < 0)
		return rt_fail(in, a->at, IB_EINVAL, "expected leeway >= 0, got %lld",
		               (long long)leeway);
	/* jinja2 neither converts s nor checks it is a string */
	int64_t slen;
	if (s->t == CV_STR)
		slen = (int64_t)cv_strlen(s);
	else if (s->t == CV_LIST || s->t == CV_TUPLE)
		slen = (int64_t)s->l.n;
	else if (s->t == CV_DICT)
		slen = (int64_t)s->d.n;
	else if (s->t == CV_UNDEF)
		slen = 0;
	else
		return rt_fail(in, a->at, IB_EINVAL, "object of type '%s' has no len()",
		               cv_typename(s));
	if (slen <= length + leeway) {
		*out = s;
		return 0;
	}
	if (s->t != CV_STR)
		return rt_fail(in, a->at, IB_EINVAL, "'%s' object has no attribute 'rsplit'",
		               cv_typename(s));
	cv *head, stop = {.t = CV_INT, .i = length - endlen};
	if (chat_slice(in, a->at, s, NULL, &stop, NULL, &head))
		return IB_ENOMEM;
	if (!(kw && cv_truthy(kw))) {
		const char *sp = NULL;
		for (size_t i = head->s.n; i-- > 0;)
			if (head->s.s[i] == ' ') {
				sp = head->s.s + i;
				break;
			}
		if (sp && !(head = cv_str_ref(in->a, head->s.s, (size_t)(sp - head->s.s))))
			return rt_nomem(in);
	}
	return rt_binop(in, a->at, OP_ADD, head, end, out);
}

static int f_wordcount(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	cv *s;
	if (check(in, a, "wordcount", 1, NULL) || soft_str(in, input(a), &s))
		return IB_EINVAL;
	int64_t words = 0;
	bool inword = false;
	size_t i = 0;
	while (i < s->s.n) {
		uint32_t c = cu_next(s->s.s, s->s.n, &i);
		bool w = c == '_' || cu_isalpha(c) || cu_isdigit(c);
		if (w && !inword)
			words++;
		inword = w;
	}
	return ret_int(in, words, out);
}

typedef struct {
	const char *name;
	cv_fn fn;
} entry;

static const entry filters[] = {
    {"abs", f_abs},
    {"attr", f_attr},
    {"capitalize", f_capitalize},
    {"center", f_center},
    {"d", f_default},
    {"default", f_default},
    {"e", f_escape},
    {"escape", f_escape},
    {"float", f_float},
    {"forceescape", f_escape},
    {"format", f_format},
    {"indent", f_indent},
    {"int", f_int},
    {"lower", f_lower},
    {"replace", f_replace},
    {"round", f_round},
    {"safe", f_safe},
    {"string", f_string},
    {"title", f_title},
    {"tojson", f_tojson},
    {"trim", f_trim},
    {"truncate", f_truncate},
    {"upper", f_upper},
    {"wordcount", f_wordcount},
};

cv_fn chat_filter(const char *name, size_t n)
{
	cv_fn f = chat_filter_seq(name, n);
	if (f)
		return f;
	for (size_t i = 0; i < N(filters); i++)
		if (strlen(filters[i].name) == n && !memcmp(filters[i].name, name, n))
			return filters[i].fn;
	return NULL;
}
