/* Python methods of str, list, tuple and dict values as the sandbox allows
 * them (ImmutableSandboxedEnvironment: methods that modify a list or dict
 * are "unsafe"), the loop's cycle()/changed(), and the global functions. */
#include "chat/private.h"

#include <string.h>
#include <time.h>

#define N(a) (sizeof(a) / sizeof(a)[0])

static int mkstr(interp *in, const char *s, size_t n, cv **out)
{
	return (*out = cv_str_ref(in->a, s, n)) ? 0 : rt_nomem(in);
}

/* ---- lists, tuples, dicts ---- */

static int m_seq_count(interp *in, cv *self, cargs *a, cv **out)
{
	if (rt_args_check(in, a, "count", 1, NULL))
		return IB_EINVAL;
	cv *x = rt_arg(a, 0, NULL);
	if (!x)
		return rt_fail(in, a->at, IB_EINVAL,
		               "count() takes exactly one argument (0 given)");
	int64_t c = 0;
	for (size_t i = 0; i < self->l.n; i++)
		c += cv_equal(self->l.v[i], x);
	return (*out = cv_int(in->a, c)) ? 0 : rt_nomem(in);
}

static int m_seq_index(interp *in, cv *self, cargs *a, cv **out)
{
	if (rt_args_check(in, a, "index", 1, NULL))
		return IB_EINVAL;
	cv *x = rt_arg(a, 0, NULL);
	if (!x)
		return rt_fail(in, a->at, IB_EINVAL, "index expected at least 1 argument, got 0");
	for (size_t i = 0; i < self->l.n; i++)
		if (cv_equal(self->l.v[i], x))
			return (*out = cv_int(in->a, (int64_t)i)) ? 0 : rt_nomem(in);
	ib_buf b = {0};
	cv_repr_to(&b, x);
	int rc = rt_fail(in, a->at, IB_EINVAL, "%s is not in %s", b.data ? b.data : "",
	                 self->t == CV_LIST ? "list" : "tuple");
	ib_buf_free(&b);
	return rc;
}

static int m_copy(interp *in, cv *self, cargs *a, cv **out)
{
	if (rt_args_check(in, a, "copy", 0, NULL))
		return IB_EINVAL;
	if (self->t == CV_LIST) {
		cv *l = cv_seq(in->a, CV_LIST, self->l.n);
		if (!l)
			return rt_nomem(in);
		if (self->l.n)
			memcpy(l->l.v, self->l.v, self->l.n * sizeof(cv *));
		*out = l;
		return 0;
	}
	cv *d = cv_new(in->a, CV_DICT);
	if (!d)
		return rt_nomem(in);
	for (size_t i = 0; i < self->d.n; i++)
		if (cv_dict_set(in->a, d, self->d.k[i], self->d.v[i]))
			return rt_nomem(in);
	*out = d;
	return 0;
}

static int m_get(interp *in, cv *self, cargs *a, cv **out)
{
	if (rt_args_check(in, a, "get", 2, NULL))
		return IB_EINVAL;
	cv *k = rt_arg(a, 0, NULL), *dflt = rt_arg(a, 1, NULL);
	if (!k)
		return rt_fail(in, a->at, IB_EINVAL, "get expected at least 1 argument, got 0");
	if (k->t == CV_LIST || k->t == CV_DICT || k->t == CV_NS)
		return rt_fail(in, a->at, IB_EINVAL, "unhashable type: '%s'", cv_typename(k));
	cv *v = cv_dict_get(self, k);
	*out = v ? v : dflt ? dflt : CV_NONE_P;
	return 0;
}

static int dict_view(interp *in, cv *self, cargs *a, cv **out, int kind, const char *fn)
{
	if (rt_args_check(in, a, fn, 0, NULL))
		return IB_EINVAL;
	cv *l = cv_seq(in->a, CV_LIST, self->d.n);
	if (!l)
		return rt_nomem(in);
	l->l.tname = kind == 0 ? "dict_keys" : kind == 1 ? "dict_values" : "dict_items";
	for (size_t i = 0; i < self->d.n; i++) {
		if (kind == 0) {
			l->l.v[i] = self->d.k[i];
		} else if (kind == 1) {
			l->l.v[i] = self->d.v[i];
		} else {
			cv *t = cv_seq(in->a, CV_TUPLE, 2);
			if (!t)
				return rt_nomem(in);
			t->l.v[0] = self->d.k[i];
			t->l.v[1] = self->d.v[i];
			l->l.v[i] = t;
		}
	}
	*out = l;
	return 0;
}

static int m_keys(interp *in, cv *self, cargs *a, cv **out)
{
	return dict_view(in, self, a, out, 0, "keys");
}

static int m_values(interp *in, cv *self, cargs *a, cv **out)
{
	return dict_view(in, self, a, out, 1, "values");
}

static int m_items(interp *in, cv *self, cargs *a, cv **out)
{
	return dict_view(in, self, a, out, 2, "items");
}

/* ---- loop ---- */

static int m_cycle(interp *in, cv *self, cargs *a, cv **out)
{
	if (a->nkw)
		return rt_fail(in, a->at, IB_EINVAL, "cycle() takes no keyword arguments");
	if (!a->npos)
		return rt_fail(in, a->at, IB_EINVAL, "no items for cycling given");
	*out = a->pos[self->loop->i % a->npos];
	return 0;
}

static int m_changed(interp *in, cv *self, cargs *a, cv **out)
{
	cv *t = cv_seq(in->a, CV_TUPLE, a->npos);
	if (!t)
		return rt_nomem(in);
	for (size_t i = 0; i < a->npos; i++)
		t->l.v[i] = a->pos[i];
	cloop *l = self->loop;
	bool changed = !l->changed_seen || !cv_equal(l->last_changed, t);
	l->changed_seen = true;
	l->last_changed = t;
	*out = CV_BOOLV(changed);
	return 0;
}

typedef struct {
	const char *name;
	cv_fn fn; /* NULL: the method exists but the sandbox forbids it */
} method;

static const method list_methods[] = {
    {"count", m_seq_count}, {"index", m_seq_index}, {"copy", m_copy}, {"append", NULL},
    {"clear", NULL},        {"extend", NULL},       {"insert", NULL}, {"pop", NULL},
    {"remove", NULL},       {"reverse", NULL},      {"sort", NULL},
};

static const method tuple_methods[] = {{"count", m_seq_count}, {"index", m_seq_index}};

static const method dict_methods[] = {
    {"get", m_get},  {"items", m_items}, {"keys", m_keys},  {"values", m_values}, {"copy", m_copy},
    {"clear", NULL}, {"pop", NULL},      {"popitem", NULL}, {"setdefault", NULL}, {"update", NULL},
};

static const method loop_methods[] = {{"cycle", m_cycle}, {"changed", m_changed}};

int chat_method(interp *in, cv *obj, const char *name, size_t n, cv **out)
{
	const method *tab;
	size_t nt;
	*out = NULL;
	switch (obj->t) {
	case CV_STR: {
		const char *canon;
		cv_fn fn = chat_str_method(name, n, &canon);
		if (!fn)
			return 0;
		cv *f = cv_new(in->a, CV_FUNC);
		if (!f)
			return rt_nomem(in);
		f->fn.fn = fn;
		f->fn.self = obj;
		f->fn.name = canon;
		*out = f;
		return 0;
	}
	case CV_LIST:
		tab = list_methods;
		nt = N(list_methods);
		break;
	case CV_TUPLE:
		tab = tuple_methods;
		nt = N(tuple_methods);
		break;
	case CV_DICT:
		tab = dict_methods;
		nt = N(dict_methods);
		break;
	case CV_LOOP:
		tab = loop_methods;
		nt = N(loop_methods);
		break;
	default:
		return 0;
	}
	for (size_t i = 0; i < nt; i++) {
		if (strlen(tab[i].name) != n || memcmp(tab[i].name, name, n))
			continue;
		if (!tab[i].fn) {
			const char *h =
			    ib_arena_printf(in->a,
			                    "access to attribute '%s' of '%s' object is "
			                    "unsafe.",
			                    tab[i].name, cv_typename(obj));
			if (!h || !(*out = cv_undef(in->a, NULL, NULL, h)))
				return rt_nomem(in);
			(*out)->u.security = true;
			return 0;
		}
		cv *f = cv_new(in->a, CV_FUNC);
		if (!f)
			return rt_nomem(in);
		f->fn.fn = tab[i].fn;
		f->fn.self = obj;
		f->fn.name = tab[i].name;
		*out = f;
		return 0;
	}
	return 0;
}

/* ---- global functions ---- */

static int g_range(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	if (a->nkw)
		return rt_fail(in, a->at, IB_EINVAL, "range() takes no keyword arguments");
	if (a->npos < 1 || a->npos > 3)
		return rt_fail(in, a->at, IB_EINVAL, "range expected 1 to 3 arguments, got %zu",
		               a->npos);
	int64_t v[3] = {0, 0, 1};
	for (size_t i = 0; i < a->npos; i++)
		if (rt_need_int(in, a, a->pos[i], "range", &v[a->npos == 1 ? 1 : i]))
			return IB_EINVAL;
	if (v[2] == 0)
		return rt_fail(in, a->at, IB_EINVAL, "range() arg 3 must not be zero");
	int64_t cnt = 0;
	if (v[2] > 0 && v[1] > v[0])
		cnt = (int64_t)(((uint64_t)v[1] - (uint64_t)v[0] - 1) / (uint64_t)v[2] + 1);
	else if (v[2] < 0 && v[1] < v[0])
		cnt =
		    (int64_t)(((uint64_t)v[0] - (uint64_t)v[1] - 1) / (uint64_t)(-(v[2] + 1) + 1) +
		              1);
	if (cnt > 100000)
		return rt_fail(in, a->at, IB_ERANGE,
		               "Range too big. The sandbox blocks ranges larger than MAX_RANGE "
		               "(100000).");
	cv *l = cv_seq(in->a, CV_LIST, (size_t)cnt);
	if (!l)
		return rt_nomem(in);
	for (int64_t i = 0; i < cnt; i++)
		if (!(l->l.v[i] = cv_int(in->a, v[0] + i * v[2])))
			return rt_nomem(in);
	*out = l;
	return 0;
}

/* dict(mapping or pairs, **kw) into d */
static int fill_dict(interp *in, cargs *a, cv *d, const char *fn)
{
	if (a->npos > 1)
		return rt_fail(in, a->at, IB_EINVAL, "%s expected at most 1 argument, got %zu", fn,
		               a->npos);
	if (a->npos) {
		cv *src = a->pos[0];
		if (src->t == CV_DICT || src->t == CV_NS) {
			for (size_t i = 0; i < src->d.n; i++)
				if (cv_dict_set(in->a, d, src->d.k[i], src->d.v[i]))
					return rt_nomem(in);
		} else {
			cv **items;
			size_t n;
			int rc = rt_iter(in, a->at, src, &items, &n);
			if (rc)
				return rc;
			for (size_t i = 0; i < n; i++) {
				cv **kv;
				size_t m;
				if ((rc = rt_iter(in, a->at, items[i], &kv, &m)))
					return rc;
				if (m != 2)
					return rt_fail(
					    in, a->at, IB_EINVAL,
					    "dictionary update sequence element #%zu has length "
					    "%zu; 2 is required",
					    i, m);
				if (cv_dict_set(in->a, d, kv[0], kv[1]))
					return rt_nomem(in);
			}
		}
	}
	for (size_t i = 0; i < a->nkw; i++) {
		cv *k = cv_str_ref(in->a, a->kwn[i], strlen(a->kwn[i]));
		if (!k || cv_dict_set(in->a, d, k, a->kwv[i]))
			return rt_nomem(in);
	}
	return 0;
}

static int g_dict(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	cv *d = cv_new(in->a, CV_DICT);
	if (!d)
		return rt_nomem(in);
	*out = d;
	return fill_dict(in, a, d, "dict");
}

static int g_namespace(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	cv *d = cv_new(in->a, CV_NS);
	if (!d)
		return rt_nomem(in);
	*out = d;
	return fill_dict(in, a, d, "namespace");
}

static int g_raise(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	(void)out;
	cv *m = rt_arg(a, 0, "message");
	if (!m)
		return rt_fail(in, a->at, IB_EINVAL,
		               "raise_exception() missing 1 required positional argument");
	ib_buf b = {0};
	if (cv_str_to(&b, m)) {
		ib_buf_free(&b);
		return rt_nomem(in);
	}
	int rc = rt_fail(in, a->at, IB_EINVAL, "%s", b.data ? b.data : "");
	ib_buf_free(&b);
	return rc;
}

static int g_strftime_now(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	if (rt_args_check(in, a, "strftime_now", 1, NULL))
		return IB_EINVAL;
	cv *f = rt_arg(a, 0, NULL);
	if (rt_need_str(in, a, f, "strftime_now", NULL))
		return IB_EINVAL;
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	char *fmt = ib_arena_strndup(in->a, f->s.s, f->s.n);
	if (!fmt)
		return rt_nomem(in);
	for (size_t cap = 256; cap <= 65536; cap *= 4) {
		char *buf = ib_arena_alloc(in->a, cap);
		if (!buf)
			return rt_nomem(in);
		size_t n = strftime(buf, cap, fmt, &tm);
		if (n || !*fmt)
			return mkstr(in, buf, n, out);
	}
	return mkstr(in, "", 0, out);
}

static int g_joiner_call(interp *in, cv *self, cargs *a, cv **out)
{
	(void)a;
	(void)in;
	/* self is a two-slot list: the separator and whether it was called */
	if (self->l.v[1] == CV_BOOLV(false)) {
		self->l.v[1] = CV_BOOLV(true);
		*out = CV_EMPTY_STR_P;
		return 0;
	}
	*out = self->l.v[0];
	return 0;
}

static int g_joiner(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	static const char *const names[] = {"sep", NULL};
	if (rt_args_check(in, a, "joiner", 1, names))
		return IB_EINVAL;
	cv *sep = rt_arg(a, 0, "sep");
	cv *st = cv_seq(in->a, CV_LIST, 2), *f = cv_new(in->a, CV_FUNC);
	if (!st || !f)
		return rt_nomem(in);
	st->l.v[0] = sep ? sep : cv_str_ref(in->a, ", ", 2);
	st->l.v[1] = CV_BOOLV(false);
	if (!st->l.v[0])
		return rt_nomem(in);
	f->fn.fn = g_joiner_call;
	f->fn.self = st;
	f->fn.name = "joiner";
	*out = f;
	return 0;
}

static const method globals[] = {
    {"range", g_range},
    {"dict", g_dict},
    {"namespace", g_namespace},
    {"raise_exception", g_raise},
    {"strftime_now", g_strftime_now},
    {"joiner", g_joiner},
};

cv_fn chat_global(const char *name, size_t n, const char **canon)
{
	for (size_t i = 0; i < N(globals); i++)
		if (strlen(globals[i].name) == n && !memcmp(globals[i].name, name, n)) {
			*canon = globals[i].name;
			return globals[i].fn;
		}
	return NULL;
}
