/* jinja2's built-in filters on sequences and mappings: batch, dictsort,
 * first, last, items, join, length, list, map, max, min, select, reject,
 * selectattr, rejectattr, reverse, slice, sort, sum, unique. */
#include "chat/private.h"

#include <string.h>

#define N(a) (sizeof(a) / sizeof(a)[0])

/* "a.b.0" attribute paths (jinja2's make_attrgetter); default for Undefined */
static int attr_path(interp *in, uint32_t at, cv *item, cv *attr, cv *dflt, cv **out)
{
	if (attr->t == CV_INT || attr->t == CV_BOOL)
		return rt_getitem(in, at, item, attr, out);
	if (attr->t != CV_STR)
		return rt_getitem(in, at, item, attr, out);
	const char *s = attr->s.s;
	size_t n = attr->s.n, i = 0;
	cv *v = item;
	while (i <= n) {
		size_t j = i;
		while (j < n && s[j] != '.')
			j++;
		bool digits = j > i;
		int64_t num = 0;
		for (size_t k = i; k < j && digits; k++) {
			if (s[k] < '0' || s[k] > '9' || num > INT64_MAX / 10 - 10)
				digits = false;
			else
				num = num * 10 + (s[k] - '0');
		}
		cv *key = digits ? cv_int(in->a, num) : cv_str_ref(in->a, s + i, j - i);
		if (!key)
			return rt_nomem(in);
		int rc = rt_getitem(in, at, v, key, &v);
		if (rc)
			return rc;
		i = j + 1;
		if (j >= n)
			break;
	}
	if (dflt && v->t == CV_UNDEF)
		v = dflt;
	*out = v;
	return 0;
}

/* sort keys: optional attribute, then lower-case strings unless case sensitive */
static int sort_key(interp *in, uint32_t at, cv *item, cv *attr, bool ci, cv **out)
{
	cv *v = item;
	int rc;
	if (attr && (rc = attr_path(in, at, item, attr, NULL, &v)))
		return rc;
	if (ci && v->t == CV_STR)
		return chat_lower(in, v, out);
	*out = v;
	return 0;
}

static int f_batch(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	static const char *const names[] = {"value", "linecount", "fill_with", NULL};
	if (check(in, a, "batch", 3, names))
		return IB_EINVAL;
	cv *lc = rt_arg(a, 1, "linecount"), *fill = rt_arg(a, 2, "fill_with");
	int64_t k;
	if (!lc || rt_need_int(in, a, lc, "batch", &k))
		return lc ? IB_EINVAL
		          : rt_fail(in, a->at, IB_EINVAL, "batch() missing argument 'linecount'");
	if (k <= 0)
		return rt_fail(in, a->at, IB_EINVAL, "batch() linecount must be positive");
	cv **items;
	size_t n;
	int rc = items_of(in, a, input(a), &items, &n);
	if (rc)
		return rc;
	size_t nb = (n + (size_t)k - 1) / (size_t)k;
	cv *l = cv_seq(in->a, CV_LIST, nb);
	if (!l)
		return rt_nomem(in);
	for (size_t b = 0; b < nb; b++) {
		size_t from = b * (size_t)k, cnt = n - from < (size_t)k ? n - from : (size_t)k;
		size_t total = fill && cnt < (size_t)k ? (size_t)k : cnt;
		cv *row = cv_seq(in->a, CV_LIST, total);
		if (!row)
			return rt_nomem(in);
		for (size_t i = 0; i < total; i++)
			row->l.v[i] = i < cnt ? items[from + i] : fill;
		l->l.v[b] = row;
	}
	return chat_gen(in, l->l.v, l->l.n, "generator", "do_batch", out);
}

static int f_dictsort(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	static const char *const names[] = {"value", "case_sensitive", "by", "reverse", NULL};
	if (check(in, a, "dictsort", 4, names))
		return IB_EINVAL;
	cv *cs = rt_arg(a, 1, "case_sensitive"), *by = rt_arg(a, 2, "by"),
	   *rev = rt_arg(a, 3, "reverse");
	int pos = 0;
	if (by && by->t == CV_STR && by->s.n == 5 && !memcmp(by->s.s, "value", 5))
		pos = 1;
	else if (by && !(by->t == CV_STR && by->s.n == 3 && !memcmp(by->s.s, "key", 3)))
		return rt_fail(in, a->at, IB_EINVAL,
		               "You can only sort by either \"key\" or \"value\"");
	cv *d = input(a);
	if (d->t == CV_UNDEF) /* value.items() of an Undefined */
		return rt_undefined(in, a->at, d);
	if (d->t != CV_DICT)
		return rt_fail(in, a->at, IB_EINVAL, "'%s' object has no attribute 'items'",
		               cv_typename(d));
	size_t n = d->d.n;
	cv **pairs = ib_arena_alloc(in->a, (n + 1) * sizeof *pairs);
	cv **keys = ib_arena_alloc(in->a, (n + 1) * sizeof *keys);
	if (!pairs || !keys)
		return rt_nomem(in);
	for (size_t i = 0; i < n; i++) {
		cv *t = cv_seq(in->a, CV_TUPLE, 2);
		if (!t)
			return rt_nomem(in);
		t->l.v[0] = d->d.k[i];
		t->l.v[1] = d->d.v[i];
		pairs[i] = t;
		int rc = sort_key(in, a->at, t->l.v[pos], NULL, !(cs && cv_truthy(cs)), &keys[i]);
		if (rc)
			return rc;
	}
	int rc = chat_sort(in, a->at, pairs, n, keys, rev && cv_truthy(rev));
	return rc ? rc : mklist(in, pairs, n, out);
}

static int first_last(interp *in, cargs *a, cv **out, bool last)
{
	if (check(in, a, last ? "last" : "first", 1, NULL))
		return IB_EINVAL;
	cv *v = input(a);
	if (v->t == CV_GEN) {
		/* first takes one item of a generator; last cannot reverse it */
		if (last)
			return rt_fail(in, a->at, IB_EINVAL, "'%s' object is not reversible",
			               cv_typename(v));
		if (v->l.pos < v->l.n) {
			*out = v->l.v[v->l.pos++];
			return 0;
		}
	}
	cv **items;
	size_t n;
	int rc = items_of(in, a, v, &items, &n);
	if (rc)
		return rc;
	if (n) {
		*out = items[last ? n - 1 : 0];
		return 0;
	}
	*out = cv_undef(in->a, NULL, NULL,
	                last ? "No last item, sequence was empty."
	                     : "No first item, sequence was empty.");
	return *out ? 0 : rt_nomem(in);
}

static int f_first(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	return first_last(in, a, out, false);
}

static int f_last(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	return first_last(in, a, out, true);
}

static int f_items(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	if (check(in, a, "items", 1, NULL))
		return IB_EINVAL;
	cv *d = input(a);
	if (d->t == CV_UNDEF)
		return chat_gen(in, NULL, 0, "generator", "do_items", out);
	if (d->t != CV_DICT)
		return rt_fail(in, a->at, IB_EINVAL, "Can only get item pairs from a mapping.");
	cv *f, *view;
	if (chat_method(in, d, "items", 5, &f))
		return IB_ENOMEM;
	cargs none = {.at = a->at};
	int rc = rt_call(in, f, &none, &view);
	return rc ? rc : chat_gen(in, view->l.v, view->l.n, "generator", "do_items", out);
}

static int f_join(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	static const char *const names[] = {"value", "d", "attribute", NULL};
	if (check(in, a, "join", 3, names))
		return IB_EINVAL;
	cv *sep = rt_arg(a, 1, "d"), *attr = rt_arg(a, 2, "attribute");
	cv **items;
	size_t n;
	int rc = items_of(in, a, input(a), &items, &n);
	if (rc)
		return rc;
	if (attr && n) {
		cv **m = ib_arena_alloc(in->a, n * sizeof *m);
		if (!m)
			return rt_nomem(in);
		for (size_t i = 0; i < n; i++)
			if ((rc = attr_path(in, a->at, items[i], attr, NULL, &m[i])))
				return rc;
		items = m;
	}
	cv *s = CV_EMPTY_STR_P;
	if (sep && (rc = soft_str(in, sep, &s)))
		return rc;
	return chat_join(in, a->at, s, items, n, false, out);
}

static int f_length(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	if (check(in, a, "length", 1, NULL))
		return IB_EINVAL;
	cv *v = input(a);
	switch (v->t) {
	case CV_UNDEF:
		return ret_int(in, 0, out);
	case CV_STR:
		return ret_int(in, (int64_t)cv_strlen(v), out);
	case CV_LIST:
	case CV_TUPLE:
		return ret_int(in, (int64_t)v->l.n, out);
	case CV_DICT:
		return ret_int(in, (int64_t)v->d.n, out);
	case CV_LOOP:
		return ret_int(in, (int64_t)v->loop->n, out);
	default:
		return rt_fail(in, a->at, IB_EINVAL, "object of type '%s' has no len()",
		               cv_typename(v));
	}
}

static int f_list(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	if (check(in, a, "list", 1, NULL))
		return IB_EINVAL;
	cv **items;
	size_t n;
	int rc = items_of(in, a, input(a), &items, &n);
	return rc ? rc : mklist(in, items, n, out);
}

static int f_map(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	cv **items = NULL;
	size_t n = 0;
	int rc = 0;
	if (cv_truthy(input(a)) && (rc = items_of(in, a, input(a), &items, &n)))
		return rc;
	cv *attr = rt_arg(a, a->npos + 99, "attribute");
	cv *l = cv_seq(in->a, CV_LIST, n);
	if (!l)
		return rt_nomem(in);
	if (attr) {
		cv *dflt = NULL;
		for (size_t i = 0; i < a->nkw; i++) {
			if (!strcmp(a->kwn[i], "default"))
				dflt = a->kwv[i];
			else if (strcmp(a->kwn[i], "attribute"))
				return rt_fail(in, a->at, IB_EINVAL,
				               "Unexpected keyword argument '%s'", a->kwn[i]);
		}
		if (a->npos > 1)
			return rt_fail(in, a->at, IB_EINVAL,
			               "map() with attribute takes no positional arguments");
		for (size_t i = 0; i < n; i++)
			if ((rc = attr_path(in, a->at, items[i], attr, dflt, &l->l.v[i])))
				return rc;
		return chat_gen(in, l->l.v, l->l.n, "generator", "sync_do_map", out);
	}
	if (a->npos < 2) /* no filter: the items themselves */
		return chat_gen(in, items, n, "generator", "sync_do_map", out);
	cv *name = a->pos[1];
	if (name->t != CV_STR)
		return rt_fail(in, a->at, IB_EINVAL, "map() needs a filter name");
	cv_fn fn = chat_filter(name->s.s, name->s.n);
	if (!fn)
		return rt_fail(in, a->at, IB_EINVAL, "No filter named '%.*s'.", (int)name->s.n,
		               name->s.s);
	cargs b = *a;
	b.pos = ib_arena_alloc(in->a, (a->npos) * sizeof(cv *));
	if (!b.pos)
		return rt_nomem(in);
	b.npos = a->npos - 1;
	for (size_t k = 2; k < a->npos; k++)
		b.pos[k - 1] = a->pos[k];
	for (size_t i = 0; i < n; i++) {
		b.pos[0] = items[i];
		if ((rc = fn(in, NULL, &b, &l->l.v[i])))
			return rc;
	}
	return chat_gen(in, l->l.v, l->l.n, "generator", "sync_do_map", out);
}

static int minmax(interp *in, cargs *a, cv **out, bool max)
{
	static const char *const names[] = {"value", "case_sensitive", "attribute", NULL};
	if (check(in, a, max ? "max" : "min", 3, names))
		return IB_EINVAL;
	cv *cs = rt_arg(a, 1, "case_sensitive"), *attr = rt_arg(a, 2, "attribute");
	cv **items;
	size_t n;
	int rc = items_of(in, a, input(a), &items, &n);
	if (rc)
		return rc;
	if (!n) {
		*out = cv_undef(in->a, NULL, NULL,
		                max ? "No largest item, sequence was empty."
		                    : "No smallest item, sequence was empty.");
		return *out ? 0 : rt_nomem(in);
	}
	bool ci = !(cs && cv_truthy(cs));
	cv *best = items[0], *bk;
	if ((rc = sort_key(in, a->at, best, attr, ci, &bk)))
		return rc;
	for (size_t i = 1; i < n; i++) {
		cv *k;
		bool better;
		if ((rc = sort_key(in, a->at, items[i], attr, ci, &k)) ||
		    (rc = rt_less(in, a->at, max ? bk : k, max ? k : bk, &better)))
			return rc;
		if (better) {
			best = items[i];
			bk = k;
		}
	}
	*out = best;
	return 0;
}

static int f_max(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	return minmax(in, a, out, true);
}

static int f_min(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	return minmax(in, a, out, false);
}

/* select / reject / selectattr / rejectattr */
static int selecting(interp *in, cargs *a, cv **out, bool attr_mode, bool keep)
{
	cv **items = NULL;
	size_t n = 0;
	int rc = 0;
	/* jinja2 iterates only a true value: None, 0, "" give nothing */
	if (cv_truthy(input(a)) && (rc = items_of(in, a, input(a), &items, &n)))
		return rc;
	size_t ti = attr_mode ? 2 : 1;
	cv *attr = attr_mode ? rt_arg(a, 1, NULL) : NULL;
	if (attr_mode && !attr)
		return rt_fail(in, a->at, IB_EINVAL, "Missing parameter for attribute name");
	cv_fn test = NULL;
	if (a->npos > ti) {
		cv *name = a->pos[ti];
		if (name->t != CV_STR || !(test = chat_test(name->s.s, name->s.n)))
			return rt_fail(in, a->at, IB_EINVAL, "No test named '%.*s'.",
			               name->t == CV_STR ? (int)name->s.n : 1,
			               name->t == CV_STR ? name->s.s : "?");
	}
	cargs b = {.at = a->at, .kwn = a->kwn, .kwv = a->kwv, .nkw = a->nkw};
	size_t extra = a->npos > ti + 1 ? a->npos - ti - 1 : 0;
	b.pos = ib_arena_alloc(in->a, (extra + 1) * sizeof(cv *));
	cv **kept = ib_arena_alloc(in->a, (n + 1) * sizeof *kept);
	if (!b.pos || !kept)
		return rt_nomem(in);
	b.npos = extra + 1;
	for (size_t k = 0; k < extra; k++)
		b.pos[k + 1] = a->pos[ti + 1 + k];
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		cv *v = items[i], *r;
		if (attr && (rc = attr_path(in, a->at, v, attr, NULL, &v)))
			return rc;
		if (test) {
			b.pos[0] = v;
			if ((rc = test(in, NULL, &b, &r)))
				return rc;
		} else {
			r = v;
		}
		if (cv_truthy(r) == keep)
			kept[m++] = items[i];
	}
	return chat_gen(in, kept, m, "generator", "select_or_reject", out);
}

static int f_select(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	return selecting(in, a, out, false, true);
}

static int f_reject(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	return selecting(in, a, out, false, false);
}

static int f_selectattr(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	return selecting(in, a, out, true, true);
}

static int f_rejectattr(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	return selecting(in, a, out, true, false);
}

static int f_reverse(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	if (check(in, a, "reverse", 1, NULL))
		return IB_EINVAL;
	cv *v = input(a);
	if (v->t == CV_STR)
		return chat_slice(in, a->at, v, NULL, NULL, &(cv){.t = CV_INT, .i = -1}, out);
	cv **items;
	size_t n;
	int rc = items_of(in, a, v, &items, &n);
	if (rc)
		return rc;
	cv **r = ib_arena_alloc(in->a, (n + 1) * sizeof *r);
	if (!r)
		return rt_nomem(in);
	for (size_t i = 0; i < n; i++)
		r[i] = items[n - 1 - i];
	/* Python's reversed(): an iterator over a sequence; a generator
	 * cannot be reversed, so jinja2 makes a list of it */
	if (v->t == CV_GEN)
		return mklist(in, r, n, out);
	const char *it = v->t == CV_TUPLE                ? "reversed"
	                 : v->t == CV_DICT               ? "dict_reversekeyiterator"
	                 : v->t == CV_LIST && v->l.tname ? "dict_reverseitemiterator"
	                                                 : "list_reverseiterator";
	return chat_gen(in, r, n, it, NULL, out);
}

static int f_slice(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	static const char *const names[] = {"value", "slices", "fill_with", NULL};
	if (check(in, a, "slice", 3, names))
		return IB_EINVAL;
	cv *sl = rt_arg(a, 1, "slices"), *fill = rt_arg(a, 2, "fill_with");
	int64_t k;
	if (!sl)
		return rt_fail(in, a->at, IB_EINVAL, "slice() missing argument 'slices'");
	if (rt_need_int(in, a, sl, "slice", &k))
		return IB_EINVAL;
	if (k <= 0 || k > 100000)
		return rt_fail(in, a->at, IB_EINVAL, "slice() needs a positive number of slices");
	cv **items;
	size_t n;
	int rc = items_of(in, a, input(a), &items, &n);
	if (rc)
		return rc;
	size_t per = n / (size_t)k, extra = n % (size_t)k, offset = 0;
	cv *l = cv_seq(in->a, CV_LIST, (size_t)k);
	if (!l)
		return rt_nomem(in);
	for (size_t i = 0; i < (size_t)k; i++) {
		size_t start = offset + i * per;
		if (i < extra)
			offset++;
		size_t end = offset + (i + 1) * per;
		size_t cnt = end - start + (fill && i >= extra ? 1 : 0);
		cv *row = cv_seq(in->a, CV_LIST, cnt);
		if (!row)
			return rt_nomem(in);
		for (size_t j = 0; j < end - start; j++)
			row->l.v[j] = items[start + j];
		if (fill && i >= extra)
			row->l.v[cnt - 1] = fill;
		l->l.v[i] = row;
	}
	return chat_gen(in, l->l.v, l->l.n, "generator", "sync_do_slice", out);
}

static int f_sort(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	static const char *const names[] = {"value", "reverse", "case_sensitive", "attribute",
	                                    NULL};
	if (check(in, a, "sort", 4, names))
		return IB_EINVAL;
	cv *rev = rt_arg(a, 1, "reverse"), *cs = rt_arg(a, 2, "case_sensitive"),
	   *attr = rt_arg(a, 3, "attribute");
	cv **items;
	size_t n;
	int rc = items_of(in, a, input(a), &items, &n);
	if (rc)
		return rc;
	cv **v = ib_arena_alloc(in->a, (n + 1) * sizeof *v),
	   **keys = ib_arena_alloc(in->a, (n + 1) * sizeof *keys);
	if (!v || !keys)
		return rt_nomem(in);
	for (size_t i = 0; i < n; i++) {
		v[i] = items[i];
		if ((rc = sort_key(in, a->at, items[i], attr, !(cs && cv_truthy(cs)), &keys[i])))
			return rc;
	}
	if ((rc = chat_sort(in, a->at, v, n, keys, rev && cv_truthy(rev))))
		return rc;
	return mklist(in, v, n, out);
}

static int f_sum(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	static const char *const names[] = {"iterable", "attribute", "start", NULL};
	if (check(in, a, "sum", 3, names))
		return IB_EINVAL;
	cv *attr = rt_arg(a, 1, "attribute"), *start = rt_arg(a, 2, "start");
	cv **items;
	size_t n;
	int rc = items_of(in, a, input(a), &items, &n);
	if (rc)
		return rc;
	cv zero = {.t = CV_INT, .i = 0}, *acc = start ? start : &zero;
	for (size_t i = 0; i < n; i++) {
		cv *v = items[i];
		if (attr && (rc = attr_path(in, a->at, v, attr, NULL, &v)))
			return rc;
		if ((rc = rt_binop(in, a->at, OP_ADD, acc, v, &acc)))
			return rc;
	}
	if (acc == &zero)
		return ret_int(in, 0, out);
	*out = acc;
	return 0;
}

static int f_unique(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	static const char *const names[] = {"value", "case_sensitive", "attribute", NULL};
	if (check(in, a, "unique", 3, names))
		return IB_EINVAL;
	cv *cs = rt_arg(a, 1, "case_sensitive"), *attr = rt_arg(a, 2, "attribute");
	cv **items;
	size_t n;
	int rc = items_of(in, a, input(a), &items, &n);
	if (rc)
		return rc;
	cv **kept = ib_arena_alloc(in->a, (n + 1) * sizeof *kept);
	cv **keys = ib_arena_alloc(in->a, (n + 1) * sizeof *keys);
	if (!kept || !keys)
		return rt_nomem(in);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		cv *k;
		if ((rc = sort_key(in, a->at, items[i], attr, !(cs && cv_truthy(cs)), &k)))
			return rc;
		bool seen = false;
		for (size_t j = 0; j < m && !seen; j++)
			seen = cv_equal(keys[j], k);
		if (!seen) {
			keys[m] = k;
			kept[m++] = items[i];
		}
	}
	return chat_gen(in, kept, m, "generator", "sync_do_unique", out);
}

typedef struct {
	const char *name;
	cv_fn fn;
} entry;

static const entry filters[] = {
    {"batch", f_batch},
    {"count", f_length},
    {"dictsort", f_dictsort},
    {"first", f_first},
    {"items", f_items},
    {"join", f_join},
    {"last", f_last},
    {"length", f_length},
    {"list", f_list},
    {"map", f_map},
    {"max", f_max},
    {"min", f_min},
    {"reject", f_reject},
    {"rejectattr", f_rejectattr},
    {"reverse", f_reverse},
    {"select", f_select},
    {"selectattr", f_selectattr},
    {"slice", f_slice},
    {"sort", f_sort},
    {"sum", f_sum},
    {"unique", f_unique},
};

cv_fn chat_filter_seq(const char *name, size_t n)
{
	for (size_t i = 0; i < N(filters); i++)
		if (strlen(filters[i].name) == n && !memcmp(filters[i].name, name, n))
			return filters[i].fn;
	return NULL;
}
