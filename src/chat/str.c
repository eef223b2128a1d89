/* Python str methods for templates: strip family with Python whitespace,
 * split/rsplit, startswith/endswith, find/index/count, replace, case
 * mappings, join, partition, padding, predicates, format. */
#include "chat/private.h"

#include <string.h>

#define N(a) (sizeof(a) / sizeof(a)[0])

static int mkstr(interp *in, const char *s, size_t n, cv **out)
{
	return (*out = cv_str_ref(in->a, s, n)) ? 0 : rt_nomem(in);
}

int rt_need_str(interp *in, cargs *a, cv *v, const char *fn, const char *what)
{
	if (v && v->t == CV_STR)
		return 0;
	if (v && v->t == CV_UNDEF)
		return rt_undefined(in, a->at, v);
	return rt_fail(in, a->at, IB_EINVAL, "%s() argument%s%s must be str, not %s", fn,
	               what ? " " : "", what ? what : "", v ? cv_typename(v) : "nothing");
}

int rt_need_int(interp *in, cargs *a, cv *v, const char *fn, int64_t *out)
{
	if (v->t == CV_INT || v->t == CV_BOOL) {
		*out = v->t == CV_INT ? v->i : v->b;
		return 0;
	}
	if (v->t == CV_UNDEF)
		return rt_undefined(in, a->at, v);
	return rt_fail(in, a->at, IB_EINVAL,
	               "%s(): '%s' object cannot be interpreted as an integer", fn, cv_typename(v));
}

/* ---- strings ---- */

/* byte offset of code point index i (clamped, negative from the end) */
static size_t cp_byte(const cv *s, int64_t i)
{
	size_t len = cv_strlen(s);
	if (i < 0)
		i += (int64_t)len;
	if (i < 0)
		i = 0;
	if ((size_t)i >= len)
		return s->s.n;
	size_t b = 0;
	for (int64_t k = 0; k < i; k++)
		cu_next(s->s.s, s->s.n, &b);
	return b;
}

/* the [start:end] window of the optional arguments idx, idx+1 */
static int window(interp *in, cargs *a, const cv *s, size_t idx, const char *fn, size_t *lo,
                  size_t *hi)
{
	*lo = 0;
	*hi = s->s.n;
	cv *st = rt_arg(a, idx, NULL), *en = rt_arg(a, idx + 1, NULL);
	int64_t v;
	if (st && st->t != CV_NONE) {
		if (rt_need_int(in, a, st, fn, &v))
			return IB_EINVAL;
		*lo = cp_byte(s, v);
	}
	if (en && en->t != CV_NONE) {
		if (rt_need_int(in, a, en, fn, &v))
			return IB_EINVAL;
		*hi = cp_byte(s, v);
	}
	return 0;
}

static bool in_set(uint32_t c, const cv *chars)
{
	size_t i = 0;
	while (i < chars->s.n)
		if (cu_next(chars->s.s, chars->s.n, &i) == c)
			return true;
	return false;
}

/* start of the code point that ends at byte offset e (> 0) */
static size_t prev_cp(const char *s, size_t e)
{
	size_t b = e - 1;
	while (b > 0 && e - b < 4 && ((unsigned char)s[b] & 0xC0) == 0x80)
		b--;
	size_t k = b;
	cu_next(s, e, &k);
	return k == e ? b : e - 1;
}

/* Python strip family: which = 1 left, 2 right, 3 both */
int chat_strip(interp *in, cv *s, cv *chars, int which, cv **out)
{
	size_t lo = 0, hi = s->s.n, i;
	if (which & 1) {
		while (lo < hi) {
			i = lo;
			uint32_t c = cu_next(s->s.s, hi, &i);
			if (chars ? !in_set(c, chars) : !cu_isspace(c))
				break;
			lo = i;
		}
	}
	if (which & 2) {
		while (hi > lo) {
			size_t st = prev_cp(s->s.s, hi);
			if (st < lo)
				st = lo;
			i = st;
			uint32_t c = cu_next(s->s.s, hi, &i);
			if (chars ? !in_set(c, chars) : !cu_isspace(c))
				break;
			hi = st;
		}
	}
	if (lo == 0 && hi == s->s.n) {
		*out = s;
		return 0;
	}
	return mkstr(in, s->s.s + lo, hi - lo, out);
}

static int m_strip(interp *in, cv *self, cargs *a, cv **out, int which, const char *fn)
{
	static const char *const names[] = {"chars", NULL};
	if (rt_args_check(in, a, fn, 1, names))
		return IB_EINVAL;
	cv *chars = rt_arg(a, 0, "chars");
	if (chars && chars->t == CV_NONE)
		chars = NULL;
	if (chars && chars->t != CV_STR)
		return rt_fail(in, a->at, IB_EINVAL, "%s arg must be None or str", fn);
	return chat_strip(in, self, chars, which, out);
}

static int m_strip3(interp *in, cv *self, cargs *a, cv **out)
{
	return m_strip(in, self, a, out, 3, "strip");
}

static int m_lstrip(interp *in, cv *self, cargs *a, cv **out)
{
	return m_strip(in, self, a, out, 1, "lstrip");
}

static int m_rstrip(interp *in, cv *self, cargs *a, cv **out)
{
	return m_strip(in, self, a, out, 2, "rstrip");
}

static int affix(interp *in, cv *self, cargs *a, cv **out, bool end, const char *fn)
{
	if (rt_args_check(in, a, fn, 3, NULL))
		return IB_EINVAL;
	cv *p = rt_arg(a, 0, NULL);
	if (!p)
		return rt_fail(in, a->at, IB_EINVAL, "%s() takes at least 1 argument (0 given)",
		               fn);
	size_t lo, hi;
	if (window(in, a, self, 1, fn, &lo, &hi))
		return IB_EINVAL;
	cv **opts = &p;
	size_t nopt = 1;
	if (p->t == CV_TUPLE) {
		opts = p->l.v;
		nopt = p->l.n;
	}
	bool hit = false;
	for (size_t i = 0; i < nopt && !hit; i++) {
		cv *x = opts[i];
		if (x->t != CV_STR)
			return rt_fail(in, a->at, IB_EINVAL,
			               "%s first arg must be str or a tuple of str, not %s", fn,
			               cv_typename(x));
		if (hi < lo || x->s.n > hi - lo)
			continue;
		hit = !memcmp(self->s.s + (end ? hi - x->s.n : lo), x->s.s, x->s.n);
	}
	*out = CV_BOOLV(hit);
	return 0;
}

static int m_startswith(interp *in, cv *self, cargs *a, cv **out)
{
	return affix(in, self, a, out, false, "startswith");
}

static int m_endswith(interp *in, cv *self, cargs *a, cv **out)
{
	return affix(in, self, a, out, true, "endswith");
}

typedef struct {
	cv **v;
	size_t n, cap;
} cvvec;

static int push_item(interp *in, cvvec *l, cv *v)
{
	if (!v)
		return rt_nomem(in);
	if (l->n == l->cap && ib_arena_grow(in->a, &l->v, &l->cap, l->n + 1))
		return rt_nomem(in);
	l->v[l->n++] = v;
	return 0;
}

static int split(interp *in, cv *self, cargs *a, cv **out, bool right, const char *fn)
{
	static const char *const names[] = {"sep", "maxsplit", NULL};
	if (rt_args_check(in, a, fn, 2, names))
		return IB_EINVAL;
	cv *sep = rt_arg(a, 0, "sep"), *ms = rt_arg(a, 1, "maxsplit");
	int64_t max = -1;
	if (ms && rt_need_int(in, a, ms, fn, &max))
		return IB_EINVAL;
	if (sep && sep->t == CV_NONE)
		sep = NULL;
	if (sep && sep->t != CV_STR)
		return rt_fail(in, a->at, IB_EINVAL, "must be str or None, not %s",
		               cv_typename(sep));
	if (sep && sep->s.n == 0)
		return rt_fail(in, a->at, IB_EINVAL, "empty separator");
	const char *s = self->s.s;
	size_t n = self->s.n;
	/* collect (start, end) pairs in order of discovery */
	cvvec list = {0};
	int64_t splits = 0;
	if (sep) {
		if (!right) {
			size_t i = 0;
			for (;;) {
				const char *hit = max >= 0 && splits >= max
				                      ? NULL
				                      : cu_find(s + i, n - i, sep->s.s, sep->s.n);
				size_t e = hit ? (size_t)(hit - s) : n;
				cv *piece = cv_str_ref(in->a, s + i, e - i);
				if (push_item(in, &list, piece))
					return IB_ENOMEM;
				if (!hit)
					break;
				i = e + sep->s.n;
				splits++;
			}
		} else {
			size_t e = n;
			for (;;) {
				size_t found = SIZE_MAX;
				if (!(max >= 0 && splits >= max) && e >= sep->s.n)
					for (size_t k = e - sep->s.n + 1; k-- > 0;)
						if (!memcmp(s + k, sep->s.s, sep->s.n)) {
							found = k;
							break;
						}
				size_t b = found == SIZE_MAX ? 0 : found + sep->s.n;
				cv *piece = cv_str_ref(in->a, s + b, e - b);
				if (push_item(in, &list, piece))
					return IB_ENOMEM;
				if (found == SIZE_MAX)
					break;
				e = found;
				splits++;
			}
		}
	} else if (!right) {
		size_t i = 0;
		for (;;) {
			while (i < n) { /* skip whitespace */
				size_t k = i;
				if (!cu_isspace(cu_next(s, n, &k)))
					break;
				i = k;
			}
			if (i >= n)
				break;
			if (max >= 0 && splits >= max) {
				/* the rest, trailing whitespace included */
				if (push_item(in, &list, cv_str_ref(in->a, s + i, n - i)))
					return IB_ENOMEM;
				break;
			}
			size_t e = i;
			while (e < n) {
				size_t k = e;
				if (cu_isspace(cu_next(s, n, &k)))
					break;
				e = k;
			}
			cv *piece = cv_str_ref(in->a, s + i, e - i);
			if (push_item(in, &list, piece))
				return IB_ENOMEM;
			splits++;
			i = e;
		}
	} else {
		/* rsplit on whitespace, from the right */
		size_t e = n;
		for (;;) {
			while (e > 0) { /* skip whitespace */
				size_t st = prev_cp(s, e);
				size_t k = st;
				if (!cu_isspace(cu_next(s, n, &k)))
					break;
				e = st;
			}
			if (e == 0)
				break;
			if (max >= 0 && splits >= max) {
				if (push_item(in, &list, cv_str_ref(in->a, s, e)))
					return IB_ENOMEM;
				break;
			}
			size_t b = e;
			while (b > 0) {
				size_t st = prev_cp(s, b);
				size_t k = st;
				if (cu_isspace(cu_next(s, n, &k)))
					break;
				b = st;
			}
			if (push_item(in, &list, cv_str_ref(in->a, s + b, e - b)))
				return IB_ENOMEM;
			splits++;
			e = b;
		}
	}
	if (right) { /* found from the right: reverse */
		for (size_t i = 0; i < list.n / 2; i++) {
			cv *t = list.v[i];
			list.v[i] = list.v[list.n - 1 - i];
			list.v[list.n - 1 - i] = t;
		}
	}
	return mklist(in, list.v, list.n, out);
}

static int m_split(interp *in, cv *self, cargs *a, cv **out)
{
	return split(in, self, a, out, false, "split");
}

static int m_rsplit(interp *in, cv *self, cargs *a, cv **out)
{
	return split(in, self, a, out, true, "rsplit");
}

static bool is_linebreak(uint32_t c)
{
	return c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || c == 0x1C || c == 0x1D ||
	       c == 0x1E || c == 0x85 || c == 0x2028 || c == 0x2029;
}

static int m_splitlines(interp *in, cv *self, cargs *a, cv **out)
{
	static const char *const names[] = {"keepends", NULL};
	if (rt_args_check(in, a, "splitlines", 1, names))
		return IB_EINVAL;
	cv *ke = rt_arg(a, 0, "keepends");
	bool keep = ke && cv_truthy(ke);
	const char *s = self->s.s;
	size_t n = self->s.n, i = 0, start = 0;
	cvvec list = {0};
	while (i < n) {
		size_t at = i;
		uint32_t c = cu_next(s, n, &i);
		if (!is_linebreak(c))
			continue;
		if (c == '\r' && i < n && s[i] == '\n')
			i++;
		cv *piece = cv_str_ref(in->a, s + start, (keep ? i : at) - start);
		if (push_item(in, &list, piece))
			return IB_ENOMEM;
		start = i;
	}
	if (start < n) {
		cv *piece = cv_str_ref(in->a, s + start, n - start);
		if (push_item(in, &list, piece))
			return IB_ENOMEM;
	}
	return mklist(in, list.v, list.n, out);
}

/* maps every code point; mode 0 upper, 1 lower, 2 swapcase */
static int map_case(interp *in, cv *self, int mode, cv **out)
{
	ib_buf b = {0};
	size_t i = 0;
	int rc = 0;
	while (!rc && i < self->s.n) {
		uint32_t c = cu_next(self->s.s, self->s.n, &i);
		bool up = mode == 0 || (mode == 2 && !cu_isupper(c));
		rc = up ? cu_put_upper(&b, c) : cu_put_lower(&b, c);
	}
	if (rc) {
		ib_buf_free(&b);
		return rt_nomem(in);
	}
	return rt_buf_str(in, &b, out);
}

int chat_upper(interp *in, cv *s, cv **out)
{
	return map_case(in, s, 0, out);
}

int chat_lower(interp *in, cv *s, cv **out)
{
	return map_case(in, s, 1, out);
}

static int m_upper(interp *in, cv *self, cargs *a, cv **out)
{
	if (rt_args_check(in, a, "upper", 0, NULL))
		return IB_EINVAL;
	return map_case(in, self, 0, out);
}

static int m_lower(interp *in, cv *self, cargs *a, cv **out)
{
	if (rt_args_check(in, a, "lower", 0, NULL))
		return IB_EINVAL;
	return map_case(in, self, 1, out);
}

static int m_swapcase(interp *in, cv *self, cargs *a, cv **out)
{
	if (rt_args_check(in, a, "swapcase", 0, NULL))
		return IB_EINVAL;
	return map_case(in, self, 2, out);
}

static bool cased(uint32_t c)
{
	return cu_isupper(c) || cu_islower(c) || cu_upper(c) != c || cu_lower(c) != c;
}

/* Python str.title() */
static int m_title(interp *in, cv *self, cargs *a, cv **out)
{
	if (rt_args_check(in, a, "title", 0, NULL))
		return IB_EINVAL;
	ib_buf b = {0};
	size_t i = 0;
	bool prev_cased = false;
	int rc = 0;
	while (!rc && i < self->s.n) {
		uint32_t c = cu_next(self->s.s, self->s.n, &i);
		rc = prev_cased ? cu_put_lower(&b, c) : cu_put_title(&b, c);
		prev_cased = cased(c);
	}
	if (rc) {
		ib_buf_free(&b);
		return rt_nomem(in);
	}
	return rt_buf_str(in, &b, out);
}

/* Python str.capitalize(): first character title-cased, the rest lowered */
int chat_capitalize(interp *in, cv *self, cv **out)
{
	ib_buf b = {0};
	size_t i = 0;
	int rc = 0;
	bool first = true;
	while (!rc && i < self->s.n) {
		uint32_t c = cu_next(self->s.s, self->s.n, &i);
		rc = first ? cu_put_title(&b, c) : cu_put_lower(&b, c);
		first = false;
	}
	if (rc) {
		ib_buf_free(&b);
		return rt_nomem(in);
	}
	return rt_buf_str(in, &b, out);
}

static int m_capitalize(interp *in, cv *self, cargs *a, cv **out)
{
	if (rt_args_check(in, a, "capitalize", 0, NULL))
		return IB_EINVAL;
	return chat_capitalize(in, self, out);
}

/* Python str.replace(old, new, count=-1) */
int chat_replace(interp *in, cv *s, cv *old, cv *new, int64_t count, cv **out)
{
	ib_buf b = {0};
	int rc = 0;
	int64_t done = 0;
	if (old->s.n == 0) {
		size_t i = 0;
		while (!rc && (count < 0 || done < count)) {
			rc = ib_buf_append(&b, new->s.s, new->s.n);
			done++;
			if (i >= s->s.n)
				break;
			size_t k = i;
			cu_next(s->s.s, s->s.n, &k);
			if (!rc)
				rc = ib_buf_append(&b, s->s.s + i, k - i);
			i = k;
		}
		if (!rc && i < s->s.n)
			rc = ib_buf_append(&b, s->s.s + i, s->s.n - i);
	} else {
		size_t i = 0;
		while (!rc) {
			const char *hit = count >= 0 && done >= count
			                      ? NULL
			                      : cu_find(s->s.s + i, s->s.n - i, old->s.s, old->s.n);
			if (!hit) {
				rc = ib_buf_append(&b, s->s.s + i, s->s.n - i);
				break;
			}
			size_t at = (size_t)(hit - s->s.s);
			rc = ib_buf_append(&b, s->s.s + i, at - i);
			if (!rc)
				rc = ib_buf_append(&b, new->s.s, new->s.n);
			i = at + old->s.n;
			done++;
		}
	}
	if (rc) {
		ib_buf_free(&b);
		return rt_nomem(in);
	}
	if ((rc = rt_buf_str(in, &b, out)))
		return rc;
	return rt_check_mem(in, 0);
}

static int m_replace(interp *in, cv *self, cargs *a, cv **out)
{
	static const char *const names[] = {"old", "new", "count", NULL};
	if (rt_args_check(in, a, "replace", 3, names))
		return IB_EINVAL;
	cv *o = rt_arg(a, 0, "old"), *nw = rt_arg(a, 1, "new"), *c = rt_arg(a, 2, "count");
	int64_t count = -1;
	if (rt_need_str(in, a, o, "replace", "1") || rt_need_str(in, a, nw, "replace", "2") ||
	    (c && rt_need_int(in, a, c, "replace", &count)))
		return IB_EINVAL;
	return chat_replace(in, self, o, nw, count, out);
}

/* find / rfind / index / rindex / count */
static int search(interp *in, cv *self, cargs *a, cv **out, int kind, const char *fn)
{
	if (rt_args_check(in, a, fn, 3, NULL))
		return IB_EINVAL;
	cv *sub = rt_arg(a, 0, NULL);
	if (rt_need_str(in, a, sub, fn, NULL))
		return IB_EINVAL;
	size_t lo, hi;
	if (window(in, a, self, 1, fn, &lo, &hi))
		return IB_EINVAL;
	const char *s = self->s.s;
	int64_t found = -1, cnt = 0;
	if (hi >= lo && sub->s.n <= hi - lo) {
		if (kind == 1 || kind == 3) { /* rfind, rindex */
			for (size_t k = hi - sub->s.n + 1; k-- > lo;)
				if (!memcmp(s + k, sub->s.s, sub->s.n)) {
					found = (int64_t)k;
					break;
				}
		} else if (kind == 4) { /* count */
			if (sub->s.n == 0) {
				cnt = (int64_t)cu_len(s + lo, hi - lo) + 1;
			} else {
				size_t i = lo;
				const char *hit;
				while ((hit = cu_find(s + i, hi - i, sub->s.s, sub->s.n))) {
					cnt++;
					i = (size_t)(hit - s) + sub->s.n;
				}
			}
		} else {
			const char *hit =
			    sub->s.n ? cu_find(s + lo, hi - lo, sub->s.s, sub->s.n) : s + lo;
			if (hit)
				found = hit - s;
		}
	}
	if (kind == 4)
		return (*out = cv_int(in->a, cnt)) ? 0 : rt_nomem(in);
	if (found < 0 && (kind == 2 || kind == 3))
		return rt_fail(in, a->at, IB_EINVAL, "substring not found");
	int64_t idx = found < 0 ? -1 : (int64_t)cu_len(s, (size_t)found);
	return (*out = cv_int(in->a, idx)) ? 0 : rt_nomem(in);
}

static int m_find(interp *in, cv *self, cargs *a, cv **out)
{
	return search(in, self, a, out, 0, "find");
}

static int m_rfind(interp *in, cv *self, cargs *a, cv **out)
{
	return search(in, self, a, out, 1, "rfind");
}

static int m_index(interp *in, cv *self, cargs *a, cv **out)
{
	return search(in, self, a, out, 2, "index");
}

static int m_rindex(interp *in, cv *self, cargs *a, cv **out)
{
	return search(in, self, a, out, 3, "rindex");
}

static int m_count(interp *in, cv *self, cargs *a, cv **out)
{
	return search(in, self, a, out, 4, "count");
}

int chat_join(interp *in, uint32_t at, cv *sep, cv **items, size_t n, bool strict, cv **out)
{
	ib_buf b = {0};
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		if (strict && items[i]->t != CV_STR) {
			ib_buf_free(&b);
			return rt_fail(in, at, IB_EINVAL,
			               "sequence item %zu: expected str instance, %s found", i,
			               cv_typename(items[i]));
		}
		if (i)
			rc = ib_buf_append(&b, sep->s.s, sep->s.n);
		if (!rc)
			rc = cv_str_to(&b, items[i]);
	}
	if (rc) {
		ib_buf_free(&b);
		return rt_nomem(in);
	}
	if ((rc = rt_buf_str(in, &b, out)))
		return rc;
	return rt_check_mem(in, at);
}

static int m_join(interp *in, cv *self, cargs *a, cv **out)
{
	if (rt_args_check(in, a, "join", 1, NULL))
		return IB_EINVAL;
	cv *it = rt_arg(a, 0, NULL);
	cv **items;
	size_t n;
	if (!it)
		return rt_fail(in, a->at, IB_EINVAL, "join() takes exactly one argument (0 given)");
	if (it->t == CV_UNDEF)
		return rt_undefined(in, a->at, it);
	int rc = rt_iter(in, a->at, it, &items, &n);
	return rc ? rc : chat_join(in, a->at, self, items, n, true, out);
}

static int str_pred(interp *in, cv *self, cargs *a, cv **out, int kind, const char *fn)
{
	if (rt_args_check(in, a, fn, 0, NULL))
		return IB_EINVAL;
	size_t i = 0;
	bool ok = self->s.n > 0, any_cased = false;
	while (i < self->s.n) {
		uint32_t c = cu_next(self->s.s, self->s.n, &i);
		switch (kind) {
		case 0:
			ok = ok && cu_isdigit(c);
			break;
		case 1:
			ok = ok && cu_isalpha(c);
			break;
		case 2:
			ok = ok && (cu_isalpha(c) || cu_isdigit(c));
			break;
		case 3:
			ok = ok && cu_isspace(c);
			break;
		case 4: /* isupper */
			if (cu_islower(c))
				ok = false;
			if (cu_isupper(c))
				any_cased = true;
			break;
		case 5: /* islower */
			if (cu_isupper(c))
				ok = false;
			if (cu_islower(c))
				any_cased = true;
			break;
		}
	}
	if (kind >= 4)
		ok = ok && any_cased;
	*out = CV_BOOLV(ok);
	return 0;
}

static int m_isdigit(interp *in, cv *self, cargs *a, cv **out)
{
	return str_pred(in, self, a, out, 0, "isdigit");
}

static int m_isalpha(interp *in, cv *self, cargs *a, cv **out)
{
	return str_pred(in, self, a, out, 1, "isalpha");
}

static int m_isalnum(interp *in, cv *self, cargs *a, cv **out)
{
	return str_pred(in, self, a, out, 2, "isalnum");
}

static int m_isspace(interp *in, cv *self, cargs *a, cv **out)
{
	return str_pred(in, self, a, out, 3, "isspace");
}

static int m_isupper(interp *in, cv *self, cargs *a, cv **out)
{
	return str_pred(in, self, a, out, 4, "isupper");
}

static int m_islower(interp *in, cv *self, cargs *a, cv **out)
{
	return str_pred(in, self, a, out, 5, "islower");
}

static int fix(interp *in, cv *self, cargs *a, cv **out, bool suffix, const char *fn)
{
	if (rt_args_check(in, a, fn, 1, NULL))
		return IB_EINVAL;
	cv *p = rt_arg(a, 0, NULL);
	if (rt_need_str(in, a, p, fn, NULL))
		return IB_EINVAL;
	if (p->s.n && p->s.n <= self->s.n &&
	    !memcmp(self->s.s + (suffix ? self->s.n - p->s.n : 0), p->s.s, p->s.n))
		return mkstr(in, self->s.s + (suffix ? 0 : p->s.n), self->s.n - p->s.n, out);
	*out = self;
	return 0;
}

static int m_removeprefix(interp *in, cv *self, cargs *a, cv **out)
{
	return fix(in, self, a, out, false, "removeprefix");
}

static int m_removesuffix(interp *in, cv *self, cargs *a, cv **out)
{
	return fix(in, self, a, out, true, "removesuffix");
}

static int partition(interp *in, cv *self, cargs *a, cv **out, bool right, const char *fn)
{
	if (rt_args_check(in, a, fn, 1, NULL))
		return IB_EINVAL;
	cv *sep = rt_arg(a, 0, NULL);
	if (rt_need_str(in, a, sep, fn, NULL))
		return IB_EINVAL;
	if (!sep->s.n)
		return rt_fail(in, a->at, IB_EINVAL, "empty separator");
	const char *s = self->s.s;
	size_t n = self->s.n, at = SIZE_MAX;
	if (!right) {
		const char *hit = cu_find(s, n, sep->s.s, sep->s.n);
		if (hit)
			at = (size_t)(hit - s);
	} else if (sep->s.n <= n) {
		for (size_t k = n - sep->s.n + 1; k-- > 0;)
			if (!memcmp(s + k, sep->s.s, sep->s.n)) {
				at = k;
				break;
			}
	}
	cv *t = cv_seq(in->a, CV_TUPLE, 3);
	if (!t)
		return rt_nomem(in);
	if (at == SIZE_MAX) {
		t->l.v[0] = right ? CV_EMPTY_STR_P : self;
		t->l.v[1] = CV_EMPTY_STR_P;
		t->l.v[2] = right ? self : CV_EMPTY_STR_P;
	} else {
		t->l.v[0] = cv_str_ref(in->a, s, at);
		t->l.v[1] = sep;
		t->l.v[2] = cv_str_ref(in->a, s + at + sep->s.n, n - at - sep->s.n);
		if (!t->l.v[0] || !t->l.v[2])
			return rt_nomem(in);
	}
	*out = t;
	return 0;
}

static int m_partition(interp *in, cv *self, cargs *a, cv **out)
{
	return partition(in, self, a, out, false, "partition");
}

static int m_rpartition(interp *in, cv *self, cargs *a, cv **out)
{
	return partition(in, self, a, out, true, "rpartition");
}

/* center / ljust / rjust / zfill */
static int pad(interp *in, cv *self, cargs *a, cv **out, int kind, const char *fn)
{
	if (rt_args_check(in, a, fn, kind == 3 ? 1 : 2, NULL))
		return IB_EINVAL;
	cv *w = rt_arg(a, 0, NULL), *f = rt_arg(a, 1, NULL);
	int64_t width;
	if (!w)
		return rt_fail(in, a->at, IB_EINVAL, "%s() takes at least 1 argument (0 given)",
		               fn);
	if (rt_need_int(in, a, w, fn, &width))
		return IB_EINVAL;
	uint32_t fill = kind == 3 ? '0' : ' ';
	if (f) {
		if (f->t != CV_STR || cv_strlen(f) != 1)
			return rt_fail(in, a->at, IB_EINVAL,
			               "The fill character must be exactly one character long");
		size_t i = 0;
		fill = cu_next(f->s.s, f->s.n, &i);
	}
	size_t len = cv_strlen(self);
	if (width <= (int64_t)len) {
		*out = self;
		return 0;
	}
	if ((uint64_t)width > in->mem_limit / 4)
		return rt_fail(in, a->at, IB_ERANGE, "%s() width too large", fn);
	size_t total = (size_t)width - len, left;
	if (kind == 0) /* Python's center: the extra goes left when len and width are odd */
		left = total / 2 + (total & (size_t)width & 1);
	else
		left = kind == 2 || kind == 3 ? total : 0;
	ib_buf b = {0};
	int rc = 0;
	const char *s = self->s.s;
	size_t n = self->s.n, skip = 0;
	if (kind == 3 && n && (s[0] == '+' || s[0] == '-')) {
		rc = ib_buf_putc(&b, s[0]);
		skip = 1;
	}
	for (size_t i = 0; !rc && i < left; i++)
		rc = cu_put(&b, fill);
	if (!rc)
		rc = ib_buf_append(&b, s + skip, n - skip);
	for (size_t i = left; !rc && i < total; i++)
		rc = cu_put(&b, fill);
	if (rc) {
		ib_buf_free(&b);
		return rt_nomem(in);
	}
	return rt_buf_str(in, &b, out);
}

static int m_center(interp *in, cv *self, cargs *a, cv **out)
{
	return pad(in, self, a, out, 0, "center");
}

static int m_ljust(interp *in, cv *self, cargs *a, cv **out)
{
	return pad(in, self, a, out, 1, "ljust");
}

static int m_rjust(interp *in, cv *self, cargs *a, cv **out)
{
	return pad(in, self, a, out, 2, "rjust");
}

static int m_zfill(interp *in, cv *self, cargs *a, cv **out)
{
	return pad(in, self, a, out, 3, "zfill");
}

static int m_format(interp *in, cv *self, cargs *a, cv **out)
{
	return chat_str_format(in, a->at, self, a, out);
}

typedef struct {
	const char *name;
	cv_fn fn;
} method;

static const method str_methods[] = {
    {"startswith", m_startswith},
    {"endswith", m_endswith},
    {"split", m_split},
    {"rsplit", m_rsplit},
    {"splitlines", m_splitlines},
    {"strip", m_strip3},
    {"lstrip", m_lstrip},
    {"rstrip", m_rstrip},
    {"upper", m_upper},
    {"lower", m_lower},
    {"title", m_title},
    {"capitalize", m_capitalize},
    {"swapcase", m_swapcase},
    {"replace", m_replace},
    {"find", m_find},
    {"rfind", m_rfind},
    {"index", m_index},
    {"rindex", m_rindex},
    {"count", m_count},
    {"join", m_join},
    {"isdigit", m_isdigit},
    {"isalpha", m_isalpha},
    {"isalnum", m_isalnum},
    {"isspace", m_isspace},
    {"isupper", m_isupper},
    {"islower", m_islower},
    {"removeprefix", m_removeprefix},
    {"removesuffix", m_removesuffix},
    {"partition", m_partition},
    {"rpartition", m_rpartition},
    {"center", m_center},
    {"ljust", m_ljust},
    {"rjust", m_rjust},
    {"zfill", m_zfill},
    {"format", m_format},
};

cv_fn chat_str_method(const char *name, size_t n, const char **canon)
{
	for (size_t i = 0; i < N(str_methods); i++)
		if (strlen(str_methods[i].name) == n && !memcmp(str_methods[i].name, name, n)) {
			*canon = str_methods[i].name;
			return str_methods[i].fn;
		}
	return NULL;
}
