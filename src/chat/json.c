/* json.dumps for template values (transformers' tojson filter) and the
 * stable sort used by the sort, dictsort filters and sort_keys. */
#include "chat/private.h"

#include <string.h>

#define MAX_JSON_DEPTH 1000

static int jput(interp *in, ib_buf *b, const char *s, size_t n)
{
	return ib_buf_append(b, s, n) ? rt_nomem(in) : 0;
}

static int newline_indent(interp *in, ib_buf *b, const chat_json_opts *o, int depth)
{
	if (ib_buf_putc(b, '\n'))
		return rt_nomem(in);
	for (int i = 0; i < depth; i++)
		if (jput(in, b, o->indent, o->indent_n))
			return IB_ENOMEM;
	return 0;
}

static int not_serializable(interp *in, uint32_t at, const cv *v)
{
	return rt_fail(in, at, IB_EINVAL, "Object of type %s is not JSON serializable",
	               cv_typename(v));
}

static int scalar(interp *in, uint32_t at, const cv *v, ib_buf *b, bool ensure_ascii)
{
	char t[64];
	switch (v->t) {
	case CV_NONE:
		return jput(in, b, "null", 4);
	case CV_BOOL:
		return v->b ? jput(in, b, "true", 4) : jput(in, b, "false", 5);
	case CV_INT:
		snprintf(t, sizeof t, "%lld", (long long)v->i);
		return jput(in, b, t, strlen(t));
	case CV_FLOAT:
		ib_json_float_repr(v->f, t, sizeof t);
		return jput(in, b, t, strlen(t));
	case CV_STR:
		return ib_json_write_str(b, v->s.s, v->s.n, ensure_ascii) ? rt_nomem(in) : 0;
	default:
		return not_serializable(in, at, v);
	}
}

static int write_val(interp *in, uint32_t at, const cv *v, const chat_json_opts *o, ib_buf *b,
                     int depth)
{
	int rc;
	if (depth > MAX_JSON_DEPTH)
		return rt_fail(in, at, IB_ERANGE,
		               "maximum recursion depth exceeded while encoding a "
		               "JSON object");
	if ((v->t == CV_LIST && !v->l.tname) || v->t == CV_TUPLE) {
		if (!v->l.n)
			return jput(in, b, "[]", 2);
		if ((rc = jput(in, b, "[", 1)))
			return rc;
		for (size_t i = 0; i < v->l.n; i++) {
			if (i && (rc = jput(in, b, o->item_sep, o->item_sep_n)))
				return rc;
			if (o->has_indent && (rc = newline_indent(in, b, o, depth + 1)))
				return rc;
			if ((rc = write_val(in, at, v->l.v[i], o, b, depth + 1)))
				return rc;
		}
		if (o->has_indent && (rc = newline_indent(in, b, o, depth)))
			return rc;
		return jput(in, b, "]", 1);
	}
	if (v->t != CV_DICT)
		return scalar(in, at, v, b, o->ensure_ascii);
	if (!v->d.n)
		return jput(in, b, "{}", 2);
	size_t n = v->d.n;
	cv **keys = v->d.k, **vals = v->d.v;
	if (o->sort_keys) {
		/* sort (key, value) pairs by key */
		cv **order = ib_arena_alloc(in->a, n * sizeof *order);
		cv **ks = ib_arena_alloc(in->a, n * sizeof *ks);
		if (!order || !ks)
			return rt_nomem(in);
		for (size_t i = 0; i < n; i++) {
			cv *pair = cv_seq(in->a, CV_TUPLE, 2);
			if (!pair)
				return rt_nomem(in);
			pair->l.v[0] = keys[i];
			pair->l.v[1] = vals[i];
			order[i] = pair;
			ks[i] = keys[i];
		}
		if ((rc = chat_sort(in, at, order, n, ks, false)))
			return rc;
		keys = ib_arena_alloc(in->a, n * sizeof *keys);
		vals = ib_arena_alloc(in->a, n * sizeof *vals);
		if (!keys || !vals)
			return rt_nomem(in);
		for (size_t i = 0; i < n; i++) {
			keys[i] = order[i]->l.v[0];
			vals[i] = order[i]->l.v[1];
		}
	}
	if ((rc = jput(in, b, "{", 1)))
		return rc;
	for (size_t i = 0; i < n; i++) {
		if (i && (rc = jput(in, b, o->item_sep, o->item_sep_n)))
			return rc;
		if (o->has_indent && (rc = newline_indent(in, b, o, depth + 1)))
			return rc;
		const cv *k = keys[i];
		if (k->t == CV_STR) {
			rc = scalar(in, at, k, b, o->ensure_ascii);
		} else if (k->t == CV_INT || k->t == CV_FLOAT || k->t == CV_BOOL ||
		           k->t == CV_NONE) {
			ib_buf t = {0};
			rc = scalar(in, at, k, &t, false);
			if (!rc && ib_json_write_str(b, t.data, t.len, false))
				rc = rt_nomem(in);
			ib_buf_free(&t);
		} else {
			rc = rt_fail(in, at, IB_EINVAL,
			             "keys must be str, int, float, bool or None, not %s",
			             cv_typename(k));
		}
		if (rc || (rc = jput(in, b, o->key_sep, o->key_sep_n)) ||
		    (rc = write_val(in, at, vals[i], o, b, depth + 1)))
			return rc;
	}
	if (o->has_indent && (rc = newline_indent(in, b, o, depth)))
		return rc;
	return jput(in, b, "}", 1);
}

int chat_tojson(interp *in, uint32_t at, const cv *v, const chat_json_opts *o, ib_buf *b)
{
	int rc = write_val(in, at, v, o, b, 0);
	if (!rc && b->len > in->mem_limit)
		return rt_fail(in, at, IB_ERANGE, "tojson output too large");
	return rc;
}

/* ---- stable merge sort by keys, with Python's < (errors propagate) ---- */

static int merge(interp *in, uint32_t at, cv **v, cv **k, cv **tv, cv **tk, size_t lo, size_t mid,
                 size_t hi, bool reverse)
{
	size_t i = lo, j = mid, o = lo;
	while (i < mid && j < hi) {
		bool take_right;
		/* take the right item only when it sorts strictly before the left one */
		int rc = reverse ? rt_less(in, at, k[i], k[j], &take_right)
		                 : rt_less(in, at, k[j], k[i], &take_right);
		if (rc)
			return rc;
		if (take_right) {
			tv[o] = v[j];
			tk[o++] = k[j++];
		} else {
			tv[o] = v[i];
			tk[o++] = k[i++];
		}
	}
	while (i < mid) {
		tv[o] = v[i];
		tk[o++] = k[i++];
	}
	while (j < hi) {
		tv[o] = v[j];
		tk[o++] = k[j++];
	}
	memcpy(v + lo, tv + lo, (hi - lo) * sizeof *v);
	memcpy(k + lo, tk + lo, (hi - lo) * sizeof *k);
	return 0;
}

int chat_sort(interp *in, uint32_t at, cv **v, size_t n, cv **keys, bool reverse)
{
	if (n < 2)
		return 0;
	cv **tv = ib_arena_alloc(in->a, n * sizeof *tv),
	   **tk = ib_arena_alloc(in->a, n * sizeof *tk);
	if (!tv || !tk)
		return rt_nomem(in);
	for (size_t w = 1; w < n; w *= 2)
		for (size_t lo = 0; lo + w < n; lo += 2 * w) {
			size_t mid = lo + w, hi = lo + 2 * w < n ? lo + 2 * w : n;
			int rc = merge(in, at, v, keys, tv, tk, lo, mid, hi, reverse);
			if (rc)
				return rc;
		}
	return 0;
}
