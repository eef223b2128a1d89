/* Template values: construction, Python truth, equality, str() and repr(). */
#include "chat/private.h"

#include <math.h>
#include <string.h>

const cv cv_none_v = {.t = CV_NONE};
const cv cv_true_v = {.t = CV_BOOL, .b = true};
const cv cv_false_v = {.t = CV_BOOL, .b = false};
const cv cv_empty_str_v = {.t = CV_STR, .s = {.s = "", .n = 0}};

cv *cv_new(ib_arena *a, cv_type t)
{
	cv *v = ib_arena_alloc(a, sizeof *v);
	if (v)
		v->t = t;
	return v;
}

cv *cv_int(ib_arena *a, int64_t i)
{
	cv *v = cv_new(a, CV_INT);
	if (v)
		v->i = i;
	return v;
}

cv *cv_float(ib_arena *a, double f)
{
	cv *v = cv_new(a, CV_FLOAT);
	if (v)
		v->f = f;
	return v;
}

cv *cv_str_ref(ib_arena *a, const char *s, size_t n)
{
	if (n == 0)
		return CV_EMPTY_STR_P;
	cv *v = cv_new(a, CV_STR);
	if (v) {
		v->s.s = s;
		v->s.n = n;
	}
	return v;
}

cv *cv_str(ib_arena *a, const char *s, size_t n)
{
	if (n == 0)
		return CV_EMPTY_STR_P;
	char *p = ib_arena_strndup(a, s, n);
	return p ? cv_str_ref(a, p, n) : NULL;
}

cv *cv_seq(ib_arena *a, cv_type t, size_t n)
{
	cv *v = cv_new(a, t);
	if (!v)
		return NULL;
	if (n) {
		v->l.v = ib_arena_alloc(a, n * sizeof(cv *));
		if (!v->l.v)
			return NULL;
	}
	v->l.n = n;
	return v;
}

cv *cv_undef(ib_arena *a, cv *name, cv *obj, const char *hint)
{
	cv *v = cv_new(a, CV_UNDEF);
	if (v) {
		v->u.name = name;
		v->u.obj = obj;
		v->u.hint = hint;
	}
	return v;
}

static cv **dict_slot(const cv *d, const cv *k)
{
	for (size_t i = 0; i < d->d.n; i++)
		if (cv_equal(d->d.k[i], k))
			return &d->d.v[i];
	return NULL;
}

int cv_dict_set(ib_arena *a, cv *d, cv *k, cv *v)
{
	cv **slot = dict_slot(d, k);
	if (slot) {
		*slot = v;
		return 0;
	}
	if (d->d.n == d->d.cap) { /* keys and values: parallel arrays of one capacity */
		size_t ck = d->d.cap, cv_ = d->d.cap;
		if (ib_arena_grow(a, &d->d.k, &ck, d->d.n + 1) ||
		    ib_arena_grow(a, &d->d.v, &cv_, d->d.n + 1))
			return IB_ENOMEM;
		d->d.cap = ck;
	}
	d->d.k[d->d.n] = k;
	d->d.v[d->d.n] = v;
	d->d.n++;
	return 0;
}

cv *cv_dict_get(const cv *d, const cv *k)
{
	cv **slot = dict_slot(d, k);
	return slot ? *slot : NULL;
}

cv *cv_dict_gets(const cv *d, const char *k, size_t n)
{
	for (size_t i = 0; i < d->d.n; i++) {
		const cv *key = d->d.k[i];
		if (key->t == CV_STR && key->s.n == n && !memcmp(key->s.s, k, n))
			return d->d.v[i];
	}
	return NULL;
}

cv *cv_from_ib(ib_arena *a, const ib_val *v)
{
	if (!v)
		return CV_NONE_P;
	switch (v->type) {
	case IB_V_NULL:
		return CV_NONE_P;
	case IB_V_BOOL:
		return CV_BOOLV(v->b);
	case IB_V_INT:
		return cv_int(a, v->i);
	case IB_V_FLOAT:
		return cv_float(a, v->f);
	case IB_V_STR:
	case IB_V_DATE:
		return cv_str_ref(a, v->str.s, v->str.len);
	case IB_V_LIST: {
		cv *l = cv_seq(a, CV_LIST, v->list.n);
		if (!l)
			return NULL;
		for (size_t i = 0; i < v->list.n; i++)
			if (!(l->l.v[i] = cv_from_ib(a, v->list.v[i])))
				return NULL;
		return l;
	}
	case IB_V_MAP: {
		cv *d = cv_new(a, CV_DICT);
		if (!d)
			return NULL;
		for (size_t i = 0; i < v->map.n; i++) {
			cv *k = cv_from_ib(a, v->map.kv[i].key);
			cv *x = cv_from_ib(a, v->map.kv[i].val);
			if (!k || !x || cv_dict_set(a, d, k, x))
				return NULL;
		}
		return d;
	}
	}
	return CV_NONE_P;
}

bool cv_truthy(const cv *v)
{
	switch (v->t) {
	case CV_UNDEF:
	case CV_NONE:
		return false;
	case CV_BOOL:
		return v->b;
	case CV_INT:
		return v->i != 0;
	case CV_FLOAT:
		return v->f != 0.0;
	case CV_STR:
		return v->s.n != 0;
	case CV_LIST:
	case CV_TUPLE:
		return v->l.n != 0;
	case CV_DICT:
		return v->d.n != 0;
	default:
		return true; /* generators too, whatever they hold */
	}
}

static bool numeric(const cv *v, double *f, int64_t *i, bool *is_int)
{
	switch (v->t) {
	case CV_BOOL:
		*i = v->b;
		*f = v->b;
		*is_int = true;
		return true;
	case CV_INT:
		*i = v->i;
		*f = (double)v->i;
		*is_int = true;
		return true;
	case CV_FLOAT:
		*f = v->f;
		*is_int = false;
		return true;
	default:
		return false;
	}
}

/* Python int == float, exactly. */
static bool int_eq_float(int64_t i, double f)
{
	if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0) || f != floor(f))
		return false;
	return (int64_t)f == i;
}

static bool eq_d(const cv *x, const cv *y, int depth);

bool cv_equal(const cv *x, const cv *y)
{
	return eq_d(x, y, 0);
}

static bool eq_d(const cv *x, const cv *y, int depth)
{
	if (depth > CV_MAX_DEPTH)
		return false;
	if (x == y)
		return x->t != CV_FLOAT || !isnan(x->f);
	double fx, fy;
	int64_t ix, iy;
	bool nx, ny;
	if (numeric(x, &fx, &ix, &nx) && numeric(y, &fy, &iy, &ny)) {
		if (nx && ny)
			return ix == iy;
		if (nx)
			return int_eq_float(ix, fy);
		if (ny)
			return int_eq_float(iy, fx);
		return fx == fy;
	}
	if (x->t != y->t)
		return false;
	switch (x->t) {
	case CV_UNDEF:
	case CV_NONE:
		return true;
	case CV_STR:
		return x->s.n == y->s.n && !memcmp(x->s.s, y->s.s, x->s.n);
	case CV_LIST:
	case CV_TUPLE:
		if (x->l.n != y->l.n)
			return false;
		for (size_t i = 0; i < x->l.n; i++)
			if (!eq_d(x->l.v[i], y->l.v[i], depth + 1))
				return false;
		return true;
	case CV_DICT:
		if (x->d.n != y->d.n)
			return false;
		for (size_t i = 0; i < x->d.n; i++) {
			const cv *o = cv_dict_get(y, x->d.k[i]);
			if (!o || !eq_d(x->d.v[i], o, depth + 1))
				return false;
		}
		return true;
	case CV_FUNC:
		return x->fn.fn == y->fn.fn && x->fn.self == y->fn.self;
	default:
		return false; /* identity, handled above */
	}
}

const char *cv_typename(const cv *v)
{
	switch (v->t) {
	case CV_UNDEF:
		return "Undefined";
	case CV_NONE:
		return "NoneType";
	case CV_BOOL:
		return "bool";
	case CV_INT:
		return "int";
	case CV_FLOAT:
		return "float";
	case CV_STR:
		return "str";
	case CV_LIST:
		return v->l.tname ? v->l.tname : "list";
	case CV_TUPLE:
		return "tuple";
	case CV_GEN:
		return v->l.tname ? v->l.tname : "generator";
	case CV_DICT:
		return "dict";
	case CV_NS:
		return "Namespace";
	case CV_LOOP:
		return "LoopContext";
	case CV_FUNC:
		return "builtin_function_or_method";
	case CV_MACRO:
		return "Macro";
	}
	return "object";
}

size_t cv_strlen(const cv *v)
{
	return cu_len(v->s.s, v->s.n);
}

static int float_str(ib_buf *b, double f)
{
	if (isnan(f))
		return ib_buf_puts(b, "nan");
	if (isinf(f))
		return ib_buf_puts(b, f > 0 ? "inf" : "-inf");
	char t[64];
	ib_json_float_repr(f, t, sizeof t);
	return ib_buf_puts(b, t);
}

static int str_repr(ib_buf *b, const char *s, size_t n)
{
	bool sq = memchr(s, '\'', n) != NULL, dq = memchr(s, '"', n) != NULL;
	char q = sq && !dq ? '"' : '\'';
	int rc = ib_buf_putc(b, q);
	size_t i = 0;
	while (!rc && i < n) {
		uint32_t c = cu_next(s, n, &i);
		char t[16];
		if (c == (uint32_t)q || c == '\\') {
			t[0] = '\\';
			t[1] = (char)c;
			rc = ib_buf_append(b, t, 2);
		} else if (c == '\t') {
			rc = ib_buf_puts(b, "\\t");
		} else if (c == '\n') {
			rc = ib_buf_puts(b, "\\n");
		} else if (c == '\r') {
			rc = ib_buf_puts(b, "\\r");
		} else if (c < 0x20 || c == 0x7F) {
			snprintf(t, sizeof t, "\\x%02x", c);
			rc = ib_buf_puts(b, t);
		} else if (c < 0x7F || cu_isprintable(c)) {
			rc = cu_put(b, c);
		} else {
			if (c <= 0xFF)
				snprintf(t, sizeof t, "\\x%02x", c);
			else if (c <= 0xFFFF)
				snprintf(t, sizeof t, "\\u%04x", c);
			else
				snprintf(t, sizeof t, "\\U%08x", c);
			rc = ib_buf_puts(b, t);
		}
	}
	return rc ? rc : ib_buf_putc(b, q);
}

static int repr_d(ib_buf *b, const cv *v, int depth);
static int str_d(ib_buf *b, const cv *v, int depth);

int cv_repr_to(ib_buf *b, const cv *v)
{
	return repr_d(b, v, 0);
}

int cv_str_to(ib_buf *b, const cv *v)
{
	return str_d(b, v, 0);
}

static int repr_d(ib_buf *b, const cv *v, int depth)
{
	int rc = 0;
	if (depth > CV_MAX_DEPTH)
		return IB_ERANGE;
	switch (v->t) {
	case CV_UNDEF:
		return ib_buf_puts(b, "Undefined");
	case CV_STR:
		return str_repr(b, v->s.s, v->s.n);
	case CV_GEN:
		if (v->l.fname)
			return ib_buf_printf(b, "<generator object %s>", v->l.fname);
		return ib_buf_printf(b, "<%s object>", cv_typename(v));
	case CV_LIST:
		if (v->l.tname) { /* a dict view: dict_items([...]) */
			cv plain = *v;
			plain.l.tname = NULL;
			rc = ib_buf_printf(b, "%s(", v->l.tname);
			if (!rc)
				rc = repr_d(b, &plain, depth);
			return rc ? rc : ib_buf_putc(b, ')');
		}
		/* fall through */
	case CV_TUPLE:
		rc = ib_buf_putc(b, v->t == CV_LIST ? '[' : '(');
		for (size_t i = 0; !rc && i < v->l.n; i++) {
			if (i)
				rc = ib_buf_puts(b, ", ");
			if (!rc)
				rc = repr_d(b, v->l.v[i], depth + 1);
		}
		if (!rc && v->t == CV_TUPLE && v->l.n == 1)
			rc = ib_buf_putc(b, ',');
		return rc ? rc : ib_buf_putc(b, v->t == CV_LIST ? ']' : ')');
	case CV_DICT:
		rc = ib_buf_putc(b, '{');
		for (size_t i = 0; !rc && i < v->d.n; i++) {
			if (i)
				rc = ib_buf_puts(b, ", ");
			if (!rc)
				rc = repr_d(b, v->d.k[i], depth + 1);
			if (!rc)
				rc = ib_buf_puts(b, ": ");
			if (!rc)
				rc = repr_d(b, v->d.v[i], depth + 1);
		}
		return rc ? rc : ib_buf_putc(b, '}');
	case CV_NS: {
		cv d = *v;
		d.t = CV_DICT;
		rc = ib_buf_puts(b, "<Namespace ");
		if (!rc)
			rc = repr_d(b, &d, depth);
		return rc ? rc : ib_buf_putc(b, '>');
	}
	default:
		return str_d(b, v, depth);
	}
}

static int str_d(ib_buf *b, const cv *v, int depth)
{
	char t[64];
	switch (v->t) {
	case CV_UNDEF:
		return 0;
	case CV_NONE:
		return ib_buf_puts(b, "None");
	case CV_BOOL:
		return ib_buf_puts(b, v->b ? "True" : "False");
	case CV_INT:
		snprintf(t, sizeof t, "%lld", (long long)v->i);
		return ib_buf_puts(b, t);
	case CV_FLOAT:
		return float_str(b, v->f);
	case CV_STR:
		return ib_buf_append(b, v->s.s, v->s.n);
	case CV_LOOP:
		return ib_buf_printf(b, "<LoopContext %zu/%zu>", v->loop->i + 1, v->loop->n);
	case CV_FUNC:
		if (v->fn.self)
			return ib_buf_printf(b, "<built-in method %s of %s object>", v->fn.name,
			                     cv_typename(v->fn.self));
		return ib_buf_printf(b, "<built-in function %s>", v->fn.name);
	case CV_MACRO:
		return ib_buf_printf(b, "<Macro '%s'>", v->m.name);
	default:
		return repr_d(b, v, depth);
	}
}
