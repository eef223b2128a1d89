/* Python semantics of the template operators: arithmetic, comparison,
 * membership, attribute and item access, iteration. */
#include "chat/private.h"

#include <math.h>
#include <string.h>

static bool is_num(const cv *v)
{
	return v->t == CV_INT || v->t == CV_FLOAT || v->t == CV_BOOL;
}

static bool is_intlike(const cv *v)
{
	return v->t == CV_INT || v->t == CV_BOOL;
}

static int64_t ival(const cv *v)
{
	return v->t == CV_BOOL ? v->b : v->i;
}

static double fval(const cv *v)
{
	return v->t == CV_FLOAT ? v->f : (double)ival(v);
}

static int type_error(interp *in, uint32_t at, int op, const cv *x, const cv *y)
{
	return rt_fail(in, at, IB_EINVAL, "unsupported operand type(s) for %s: '%s' and '%s'",
	               chat_op_text(op), cv_typename(x), cv_typename(y));
}

static int overflow(interp *in, uint32_t at)
{
	return rt_fail(in, at, IB_ERANGE, "integer result does not fit in 64 bits");
}

static int mk_int(interp *in, int64_t i, cv **out)
{
	return (*out = cv_int(in->a, i)) ? 0 : rt_nomem(in);
}

static int mk_float(interp *in, double f, cv **out)
{
	return (*out = cv_float(in->a, f)) ? 0 : rt_nomem(in);
}

/* s * k for strings and sequences */
static int repeat(interp *in, uint32_t at, const cv *s, int64_t k, cv **out)
{
	if (k < 0)
		k = 0;
	size_t unit = s->t == CV_STR ? s->s.n : s->l.n * sizeof(cv *);
	if (unit && (uint64_t)k > in->mem_limit / unit)
		return rt_fail(in, at, IB_ERANGE, "repetition result too large");
	if (s->t == CV_STR) {
		size_t n = s->s.n * (size_t)k;
		char *p = ib_arena_alloc(in->a, n + 1);
		if (!p)
			return rt_nomem(in);
		for (int64_t i = 0; i < k; i++)
			memcpy(p + (size_t)i * s->s.n, s->s.s, s->s.n);
		*out = cv_str_ref(in->a, p, n);
	} else {
		size_t n = s->l.n * (size_t)k;
		*out = cv_seq(in->a, s->t, n);
		if (*out)
			for (size_t i = 0; i < n; i++)
				(*out)->l.v[i] = s->l.v[i % s->l.n];
	}
	return *out ? rt_check_mem(in, at) : rt_nomem(in);
}

int rt_binop(interp *in, uint32_t at, int op, cv *x, cv *y, cv **out)
{
	if (x->t == CV_UNDEF)
		return rt_undefined(in, at, x);
	if (y->t == CV_UNDEF)
		return rt_undefined(in, at, y);
	if (op == OP_ADD && x->t == CV_STR && y->t == CV_STR) {
		size_t n = x->s.n + y->s.n;
		if (!y->s.n || !x->s.n) {
			*out = x->s.n ? x : y;
			return 0;
		}
		char *p = ib_arena_alloc(in->a, n + 1);
		if (!p)
			return rt_nomem(in);
		memcpy(p, x->s.s, x->s.n);
		memcpy(p + x->s.n, y->s.s, y->s.n);
		*out = cv_str_ref(in->a, p, n);
		return *out ? rt_check_mem(in, at) : rt_nomem(in);
	}
	if (op == OP_ADD && x->t == y->t && (x->t == CV_LIST || x->t == CV_TUPLE)) {
		*out = cv_seq(in->a, x->t, x->l.n + y->l.n);
		if (!*out)
			return rt_nomem(in);
		for (size_t i = 0; i < x->l.n; i++)
			(*out)->l.v[i] = x->l.v[i];
		for (size_t i = 0; i < y->l.n; i++)
			(*out)->l.v[x->l.n + i] = y->l.v[i];
		return rt_check_mem(in, at);
	}
	if (op == OP_ADD && (x->t == CV_STR || x->t == CV_LIST || x->t == CV_TUPLE))
		return rt_fail(in, at, IB_EINVAL, "can only concatenate %s (not \"%s\") to %s",
		               cv_typename(x), cv_typename(y), cv_typename(x));
	if (op == OP_MUL && (x->t == CV_STR || x->t == CV_LIST || x->t == CV_TUPLE) &&
	    is_intlike(y))
		return repeat(in, at, x, ival(y), out);
	if (op == OP_MUL && (y->t == CV_STR || y->t == CV_LIST || y->t == CV_TUPLE) &&
	    is_intlike(x))
		return repeat(in, at, y, ival(x), out);
	if (op == OP_MOD && x->t == CV_STR)
		return chat_percent_format(in, at, x, y, out);
	if (!is_num(x) || !is_num(y))
		return type_error(in, at, op, x, y);
	bool ints = is_intlike(x) && is_intlike(y);
	int64_t a = ints ? ival(x) : 0, b = ints ? ival(y) : 0, r;
	double fa = fval(x), fb = fval(y);
	switch (op) {
	case OP_ADD:
		if (ints)
			return __builtin_add_overflow(a, b, &r) ? overflow(in, at)
			                                        : mk_int(in, r, out);
		return mk_float(in, fa + fb, out);
	case OP_SUB:
		if (ints)
			return __builtin_sub_overflow(a, b, &r) ? overflow(in, at)
			                                        : mk_int(in, r, out);
		return mk_float(in, fa - fb, out);
	case OP_MUL:
		if (ints)
			return __builtin_mul_overflow(a, b, &r) ? overflow(in, at)
			                                        : mk_int(in, r, out);
		return mk_float(in, fa * fb, out);
	case OP_DIV:
		if (fb == 0)
			return rt_fail(in, at, IB_EINVAL,
			               ints ? "division by zero" : "float division by zero");
		return mk_float(in, fa / fb, out);
	case OP_FLOORDIV:
	case OP_MOD:
		if (ints) {
			if (b == 0)
				return rt_fail(in, at, IB_EINVAL,
				               op == OP_MOD ? "integer modulo by zero"
				                            : "integer division or modulo by zero");
			if (a == INT64_MIN && b == -1)
				return op == OP_MOD ? mk_int(in, 0, out) : overflow(in, at);
			int64_t q = a / b, m = a % b;
			if (m != 0 && ((m < 0) != (b < 0))) {
				q--;
				m += b;
			}
			return mk_int(in, op == OP_MOD ? m : q, out);
		}
		if (fb == 0)
			return rt_fail(in, at, IB_EINVAL,
			               op == OP_MOD ? "float modulo"
			                            : "float floor division by zero");
		{
			/* Python's float divmod */
			double m = fmod(fa, fb), d = (fa - m) / fb;
			if (m != 0) {
				if ((fb < 0) != (m < 0)) {
					m += fb;
					d -= 1.0;
				}
			} else {
				m = copysign(0.0, fb);
			}
			if (op == OP_MOD)
				return mk_float(in, m, out);
			double f;
			if (d != 0) {
				f = floor(d);
				if (d - f > 0.5)
					f += 1.0;
			} else {
				f = copysign(0.0, fa / fb);
			}
			return mk_float(in, f, out);
		}
	case OP_POW:
		if (ints && b >= 0) {
			int64_t acc = 1, base = a;
			int64_t e = b;
			while (e) {
				if ((e & 1) && __builtin_mul_overflow(acc, base, &acc))
					return overflow(in, at);
				e >>= 1;
				if (e && __builtin_mul_overflow(base, base, &base))
					return overflow(in, at);
			}
			return mk_int(in, acc, out);
		}
		if (fa == 0 && fb < 0)
			return rt_fail(in, at, IB_EINVAL,
			               "0.0 cannot be raised to a negative power");
		if (fa < 0 && fb != floor(fb))
			return rt_fail(in, at, IB_EINVAL,
			               "negative number cannot be raised to a fractional power");
		return mk_float(in, pow(fa, fb), out);
	}
	return type_error(in, at, op, x, y);
}

/* three-way comparison for ordering; *ok false when the types do not order */
static int cmp3_d(interp *in, uint32_t at, const cv *x, const cv *y, int *res, bool *ok, int depth)
{
	*ok = true;
	if (depth > CV_MAX_DEPTH)
		return rt_fail(
		    in, at, IB_ERANGE,
		    "maximum recursion depth exceeded in comparison (values nested deeper "
		    "than %d levels)",
		    CV_MAX_DEPTH);
	if (is_num(x) && is_num(y)) {
		if (is_intlike(x) && is_intlike(y)) {
			int64_t a = ival(x), b = ival(y);
			*res = a < b ? -1 : a > b;
		} else {
			double a = fval(x), b = fval(y);
			if (isnan(a) || isnan(b))
				*res = 2; /* unordered: every comparison is false */
			else
				*res = a < b ? -1 : a > b;
		}
		return 0;
	}
	if (x->t == CV_STR && y->t == CV_STR) {
		size_t n = x->s.n < y->s.n ? x->s.n : y->s.n;
		int c = memcmp(x->s.s, y->s.s, n);
		*res = c < 0 ? -1 : c > 0 ? 1 : x->s.n < y->s.n ? -1 : x->s.n > y->s.n;
		return 0;
	}
	if (x->t == y->t && (x->t == CV_LIST || x->t == CV_TUPLE)) {
		size_t n = x->l.n < y->l.n ? x->l.n : y->l.n;
		for (size_t i = 0; i < n; i++) {
			if (cv_equal(x->l.v[i], y->l.v[i]))
				continue;
			return cmp3_d(in, at, x->l.v[i], y->l.v[i], res, ok, depth + 1);
		}
		*res = x->l.n < y->l.n ? -1 : x->l.n > y->l.n;
		return 0;
	}
	*ok = false;
	return 0;
}

int rt_compare(interp *in, uint32_t at, int op, cv *x, cv *y, bool *out)
{
	switch (op) {
	case OP_EQ:
		*out = cv_equal(x, y);
		return 0;
	case OP_NE:
		*out = !cv_equal(x, y);
		return 0;
	case OP_IN:
	case OP_NOTIN: {
		bool found = false;
		if (y->t == CV_STR) {
			if (x->t == CV_UNDEF)
				return rt_fail(in, at, IB_EINVAL,
				               "'in <string>' requires string as left operand, not "
				               "Undefined");
			if (x->t != CV_STR)
				return rt_fail(
				    in, at, IB_EINVAL,
				    "'in <string>' requires string as left operand, not %s",
				    cv_typename(x));
			found = x->s.n == 0 || (x->s.n <= y->s.n &&
			                        cu_find(y->s.s, y->s.n, x->s.s, x->s.n) != NULL);
		} else if (y->t == CV_LIST || y->t == CV_TUPLE) {
			for (size_t i = 0; i < y->l.n && !found; i++)
				found = cv_equal(x, y->l.v[i]);
		} else if (y->t == CV_GEN) {
			while (y->l.pos < y->l.n && !found)
				found = cv_equal(x, y->l.v[y->l.pos++]);
		} else if (y->t == CV_DICT) {
			if (x->t == CV_LIST || x->t == CV_DICT || x->t == CV_NS)
				return rt_fail(in, at, IB_EINVAL, "unhashable type: '%s'",
				               cv_typename(x));
			found = cv_dict_get(y, x) != NULL;
		} else if (y->t == CV_UNDEF) {
			found = false;
		} else {
			return rt_fail(in, at, IB_EINVAL, "argument of type '%s' is not iterable",
			               cv_typename(y));
		}
		*out = op == OP_IN ? found : !found;
		return 0;
	}
	default:
		break;
	}
	if (x->t == CV_UNDEF)
		return rt_undefined(in, at, x);
	if (y->t == CV_UNDEF)
		return rt_undefined(in, at, y);
	int r = 0;
	bool ok;
	int rc = cmp3_d(in, at, x, y, &r, &ok, 0);
	if (rc)
		return rc;
	if (!ok)
		return rt_fail(in, at, IB_EINVAL,
		               "'%s' not supported between instances of '%s' and '%s'",
		               chat_op_text(op), cv_typename(x), cv_typename(y));
	if (r == 2) {
		*out = false;
		return 0;
	}
	switch (op) {
	case OP_LT:
		*out = r < 0;
		break;
	case OP_LTEQ:
		*out = r <= 0;
		break;
	case OP_GT:
		*out = r > 0;
		break;
	default:
		*out = r >= 0;
		break;
	}
	return 0;
}

int rt_less(interp *in, uint32_t at, cv *x, cv *y, bool *out)
{
	return rt_compare(in, at, OP_LT, x, y, out);
}

/* ---- attribute and item access ---- */

static int undefined_attr(interp *in, cv *obj, cv *name, cv **out)
{
	return (*out = cv_undef(in->a, name, obj, NULL)) ? 0 : rt_nomem(in);
}

static int loop_attr(interp *in, cv *obj, const char *name, size_t n, cv **out)
{
	cloop *l = obj->loop;
#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(name, lit, n))
	if (IS("index"))
		return mk_int(in, (int64_t)l->i + 1, out);
	if (IS("index0"))
		return mk_int(in, (int64_t)l->i, out);
	if (IS("revindex"))
		return mk_int(in, (int64_t)(l->n - l->i), out);
	if (IS("revindex0"))
		return mk_int(in, (int64_t)(l->n - l->i - 1), out);
	if (IS("first")) {
		*out = CV_BOOLV(l->i == 0);
		return 0;
	}
	if (IS("last")) {
		*out = CV_BOOLV(l->i + 1 == l->n);
		return 0;
	}
	if (IS("length"))
		return mk_int(in, (int64_t)l->n, out);
	if (IS("depth"))
		return mk_int(in, 1, out);
	if (IS("depth0"))
		return mk_int(in, 0, out);
	if (IS("previtem")) {
		if (l->i > 0) {
			*out = l->items[l->i - 1];
			return 0;
		}
		*out = cv_undef(in->a, NULL, NULL, "there is no previous item");
		return *out ? 0 : rt_nomem(in);
	}
	if (IS("nextitem")) {
		if (l->i + 1 < l->n) {
			*out = l->items[l->i + 1];
			return 0;
		}
		*out = cv_undef(in->a, NULL, NULL, "there is no next item");
		return *out ? 0 : rt_nomem(in);
	}
#undef IS
	return chat_method(in, obj, name, n, out);
}

int rt_getattr(interp *in, uint32_t at, cv *obj, const char *name, size_t n, cv **out)
{
	cv *v;
	*out = NULL;
	switch (obj->t) {
	case CV_UNDEF:
		return rt_undefined(in, at, obj);
	case CV_DICT: {
		int rc = chat_method(in, obj, name, n, out);
		if (rc || *out)
			return rc;
		if ((v = cv_dict_gets(obj, name, n))) {
			*out = v;
			return 0;
		}
		break;
	}
	case CV_NS:
		if ((v = cv_dict_gets(obj, name, n))) {
			*out = v;
			return 0;
		}
		break;
	case CV_LOOP: {
		int rc = loop_attr(in, obj, name, n, out);
		if (rc || *out)
			return rc;
		break;
	}
	default: {
		int rc = chat_method(in, obj, name, n, out);
		if (rc || *out)
			return rc;
		break;
	}
	}
	cv *nm = cv_str(in->a, name, n);
	if (!nm)
		return rt_nomem(in);
	return undefined_attr(in, obj, nm, out);
}

/* Python's slice.indices() */
/* one end of a slice as Python's slice.indices clamps it: negative from
 * the end, then into [lo, hi]; dflt when absent */
static int64_t slice_bound(const cv *v, int64_t len, int64_t lo, int64_t hi, int64_t dflt)
{
	if (!v || v->t == CV_NONE)
		return dflt;
	int64_t s = ival(v);
	if (s < 0) {
		s += len;
		if (s < lo)
			s = lo;
	} else if (s > hi) {
		s = hi;
	}
	return s;
}

static void slice_indices(int64_t len, const cv *sa, const cv *sb, const cv *sc, int64_t *start,
                          int64_t *stop, int64_t *step)
{
	*step = sc && sc->t != CV_NONE ? ival(sc) : 1;
	int64_t lo = *step < 0 ? -1 : 0, hi = *step < 0 ? len - 1 : len;
	*start = slice_bound(sa, len, lo, hi, *step < 0 ? hi : lo);
	*stop = slice_bound(sb, len, lo, hi, *step < 0 ? lo : hi);
}

/* byte offsets of the code points of a string (n+1 entries) */
static size_t *cp_offsets(interp *in, const cv *s, size_t *ncp)
{
	size_t n = cv_strlen(s);
	size_t *off = ib_arena_alloc(in->a, (n + 1) * sizeof *off);
	if (!off)
		return NULL;
	size_t i = 0, k = 0;
	while (i < s->s.n) {
		off[k++] = i;
		cu_next(s->s.s, s->s.n, &i);
	}
	off[k] = s->s.n;
	*ncp = n;
	return off;
}

int chat_slice(interp *in, uint32_t at, cv *obj, cv *sa, cv *sb, cv *sc, cv **out)
{
	cv *parts[3] = {sa, sb, sc};
	for (int i = 0; i < 3; i++) {
		if (parts[i] && parts[i]->t == CV_UNDEF)
			return rt_undefined(in, at, parts[i]);
		if (parts[i] && parts[i]->t != CV_NONE && !is_intlike(parts[i]))
			return rt_fail(
			    in, at, IB_EINVAL,
			    "slice indices must be integers or None or have an __index__ "
			    "method");
	}
	if (sc && sc->t != CV_NONE && ival(sc) == 0)
		return rt_fail(in, at, IB_EINVAL, "slice step cannot be zero");
	if (obj->t == CV_UNDEF)
		return rt_undefined(in, at, obj);
	int64_t start, stop, step;
	if ((obj->t == CV_LIST && !obj->l.tname) || obj->t == CV_TUPLE) {
		slice_indices((int64_t)obj->l.n, sa, sb, sc, &start, &stop, &step);
		size_t cnt = 0;
		for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step)
			cnt++;
		cv *r = cv_seq(in->a, obj->t, cnt);
		if (!r)
			return rt_nomem(in);
		size_t k = 0;
		for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step)
			r->l.v[k++] = obj->l.v[i];
		*out = r;
		return 0;
	}
	if (obj->t == CV_STR) {
		size_t ncp;
		size_t *off = cp_offsets(in, obj, &ncp);
		if (!off)
			return rt_nomem(in);
		slice_indices((int64_t)ncp, sa, sb, sc, &start, &stop, &step);
		if (step == 1) {
			if (stop <= start)
				*out = CV_EMPTY_STR_P;
			else
				*out = cv_str_ref(in->a, obj->s.s + off[start],
				                  off[stop] - off[start]);
			return *out ? 0 : rt_nomem(in);
		}
		ib_buf b = {0};
		int rc = 0;
		for (int64_t i = start; !rc && (step > 0 ? i < stop : i > stop); i += step)
			rc = ib_buf_append(&b, obj->s.s + off[i], off[i + 1] - off[i]);
		if (rc) {
			ib_buf_free(&b);
			return rt_nomem(in);
		}
		return rt_buf_str(in, &b, out);
	}
	/* jinja2 compiles slices to obj[a:b:c]: anything else is a TypeError */
	if (obj->t == CV_DICT)
		return rt_fail(in, at, IB_EINVAL, "unhashable type: 'slice'");
	return rt_fail(in, at, IB_EINVAL, "'%s' object is not subscriptable", cv_typename(obj));
}

int rt_getitem(interp *in, uint32_t at, cv *obj, cv *key, cv **out)
{
	*out = NULL;
	if (obj->t == CV_UNDEF)
		return rt_undefined(in, at, obj);
	switch (obj->t) {
	case CV_DICT:
		if (key->t != CV_LIST && key->t != CV_DICT && key->t != CV_NS) {
			cv *v = cv_dict_get(obj, key);
			if (v) {
				*out = v;
				return 0;
			}
		}
		break;
	case CV_LIST:
	case CV_TUPLE:
	case CV_STR:
		if (is_intlike(key) && !(obj->t == CV_LIST && obj->l.tname)) { /* views: no index */
			int64_t i = ival(key);
			if (obj->t == CV_STR) {
				size_t ncp;
				size_t *off = cp_offsets(in, obj, &ncp);
				if (!off)
					return rt_nomem(in);
				if (i < 0)
					i += (int64_t)ncp;
				if (i >= 0 && i < (int64_t)ncp) {
					*out = cv_str_ref(in->a, obj->s.s + off[i],
					                  off[i + 1] - off[i]);
					return *out ? 0 : rt_nomem(in);
				}
			} else {
				if (i < 0)
					i += (int64_t)obj->l.n;
				if (i >= 0 && i < (int64_t)obj->l.n) {
					*out = obj->l.v[i];
					return 0;
				}
			}
			return undefined_attr(in, obj, key, out);
		}
		break;
	default:
		break;
	}
	if (key->t == CV_STR)
		return rt_getattr(in, at, obj, key->s.s, key->s.n, out);
	return undefined_attr(in, obj, key, out);
}

int rt_iter(interp *in, uint32_t at, cv *v, cv ***items, size_t *n)
{
	switch (v->t) {
	case CV_UNDEF:
		*items = NULL;
		*n = 0;
		return 0;
	case CV_LIST:
	case CV_TUPLE:
		*items = v->l.v;
		*n = v->l.n;
		return 0;
	case CV_GEN:                                        /* iterating consumes what is left */
		*items = v->l.v ? v->l.v + v->l.pos : NULL; /* an empty one has no array */
		*n = v->l.n - v->l.pos;
		v->l.pos = v->l.n;
		return 0;
	case CV_DICT:
		*items = v->d.k;
		*n = v->d.n;
		return 0;
	case CV_STR: {
		size_t ncp = cv_strlen(v), i = 0, k = 0;
		cv **it = ncp ? ib_arena_alloc(in->a, ncp * sizeof *it) : NULL;
		if (ncp && !it)
			return rt_nomem(in);
		while (i < v->s.n) {
			size_t s = i;
			cu_next(v->s.s, v->s.n, &i);
			if (!(it[k++] = cv_str_ref(in->a, v->s.s + s, i - s)))
				return rt_nomem(in);
		}
		*items = it;
		*n = ncp;
		return 0;
	}
	default:
		return rt_fail(in, at, IB_EINVAL, "'%s' object is not iterable", cv_typename(v));
	}
}
