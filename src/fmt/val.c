#include "fmt/fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static ib_val *mk(ib_arena *a, ib_vtype t)
{
	ib_val *v = ib_arena_alloc(a, sizeof *v);
	if (v)
		v->type = t;
	return v;
}

ib_val *ib_v_null(ib_arena *a)
{
	return mk(a, IB_V_NULL);
}

ib_val *ib_v_bool(ib_arena *a, bool b)
{
	ib_val *v = mk(a, IB_V_BOOL);
	if (v)
		v->b = b;
	return v;
}

ib_val *ib_v_int(ib_arena *a, int64_t i)
{
	ib_val *v = mk(a, IB_V_INT);
	if (v)
		v->i = i;
	return v;
}

ib_val *ib_v_float(ib_arena *a, double f)
{
	ib_val *v = mk(a, IB_V_FLOAT);
	if (v)
		v->f = f;
	return v;
}

ib_val *ib_v_strn(ib_arena *a, const char *s, size_t n)
{
	ib_val *v = mk(a, IB_V_STR);
	if (!v)
		return NULL;
	char *p = ib_arena_strndup(a, s, n);
	if (!p)
		return NULL;
	v->str.s = p;
	v->str.len = n;
	return v;
}

ib_val *ib_v_str(ib_arena *a, const char *s)
{
	return ib_v_strn(a, s, strlen(s));
}

ib_val *ib_v_list(ib_arena *a)
{
	return mk(a, IB_V_LIST);
}

ib_val *ib_v_map(ib_arena *a)
{
	return mk(a, IB_V_MAP);
}

ib_val *ib_v_map_cap(ib_arena *a, size_t cap)
{
	ib_val *m = mk(a, IB_V_MAP);
	if (m && cap) {
		m->map.kv = ib_arena_alloc(a, cap * sizeof(ib_kv));
		if (!m->map.kv)
			return NULL;
		m->map.cap = cap;
	}
	return m;
}

int ib_list_push(ib_arena *a, ib_val *l, ib_val *v)
{
	if (ib_arena_grow(a, &l->list.v, &l->list.cap, l->list.n + 1))
		return IB_ENOMEM;
	l->list.v[l->list.n++] = v;
	return 0;
}

static bool key_is(const ib_val *k, const char *key, size_t n)
{
	return k->type == IB_V_STR && k->str.len == n && memcmp(k->str.s, key, n) == 0;
}

const ib_kv *ib_map_find(const ib_val *m, const char *key)
{
	if (!m || m->type != IB_V_MAP)
		return NULL;
	size_t n = strlen(key);
	for (size_t i = 0; i < m->map.n; i++)
		if (key_is(m->map.kv[i].key, key, n))
			return &m->map.kv[i];
	return NULL;
}

ib_val *ib_map_get(const ib_val *m, const char *key)
{
	const ib_kv *kv = ib_map_find(m, key);
	return kv ? kv->val : NULL;
}

bool ib_map_has(const ib_val *m, const char *key)
{
	return ib_map_find(m, key) != NULL;
}

int ib_map_set_key(ib_arena *a, ib_val *m, ib_val *k, ib_val *v)
{
	bool str = k->type == IB_V_STR; /* the common case, compared here */
	for (size_t i = 0; i < m->map.n; i++) {
		const ib_val *o = m->map.kv[i].key;
		if (str && o->type == IB_V_STR ? key_is(o, k->str.s, k->str.len)
		                               : ib_val_equal(o, k)) {
			m->map.kv[i].val = v;
			return 0;
		}
	}
	if (ib_arena_grow(a, &m->map.kv, &m->map.cap, m->map.n + 1))
		return IB_ENOMEM;
	m->map.kv[m->map.n].key = k;
	m->map.kv[m->map.n].val = v;
	m->map.n++;
	return 0;
}

int ib_map_set(ib_arena *a, ib_val *m, const char *key, ib_val *v)
{
	ib_kv *kv = (ib_kv *)ib_map_find(m, key);
	if (kv) {
		kv->val = v;
		return 0;
	}
	ib_val *k = ib_v_str(a, key);
	if (!k || ib_arena_grow(a, &m->map.kv, &m->map.cap, m->map.n + 1))
		return IB_ENOMEM;
	m->map.kv[m->map.n].key = k;
	m->map.kv[m->map.n].val = v;
	m->map.n++;
	return 0;
}

bool ib_map_del(ib_val *m, const char *key)
{
	const ib_kv *kv = ib_map_find(m, key);
	if (!kv)
		return false;
	size_t i = (size_t)(kv - m->map.kv);
	memmove(&m->map.kv[i], &m->map.kv[i + 1], (m->map.n - i - 1) * sizeof(ib_kv));
	m->map.n--;
	return true;
}

ib_val *ib_map_copy(ib_arena *a, const ib_val *m)
{
	ib_val *c = ib_v_map(a);
	if (!c)
		return NULL;
	c->line = m->line;
	c->col = m->col;
	c->file = m->file;
	if (m->map.n) {
		c->map.kv = ib_arena_alloc(a, (m->map.n + 4) * sizeof(ib_kv));
		if (!c->map.kv)
			return NULL;
		memcpy(c->map.kv, m->map.kv, m->map.n * sizeof(ib_kv));
		c->map.n = m->map.n;
		c->map.cap = m->map.n + 4;
	}
	return c;
}

static bool is_num(const ib_val *v)
{
	return v->type == IB_V_BOOL || v->type == IB_V_INT || v->type == IB_V_FLOAT;
}

static double num(const ib_val *v)
{
	return v->type == IB_V_BOOL ? (double)v->b : v->type == IB_V_INT ? (double)v->i : v->f;
}

bool ib_val_equal(const ib_val *x, const ib_val *y)
{
	if (x == y)
		return true;
	if (!x || !y)
		return false;
	if (is_num(x) && is_num(y)) {
		if (x->type != IB_V_FLOAT && y->type != IB_V_FLOAT) {
			int64_t a = x->type == IB_V_BOOL ? x->b : x->i;
			int64_t b = y->type == IB_V_BOOL ? y->b : y->i;
			return a == b;
		}
		return num(x) == num(y);
	}
	if (x->type != y->type)
		return false;
	switch (x->type) {
	case IB_V_NULL:
		return true;
	case IB_V_STR:
	case IB_V_DATE:
		return x->str.len == y->str.len && memcmp(x->str.s, y->str.s, x->str.len) == 0;
	case IB_V_LIST:
		if (x->list.n != y->list.n)
			return false;
		for (size_t i = 0; i < x->list.n; i++)
			if (!ib_val_equal(x->list.v[i], y->list.v[i]))
				return false;
		return true;
	case IB_V_MAP:
		if (x->map.n != y->map.n)
			return false;
		for (size_t i = 0; i < x->map.n; i++) {
			const ib_kv *kv = &x->map.kv[i];
			bool found = false;
			for (size_t j = 0; j < y->map.n; j++) {
				if (ib_val_equal(kv->key, y->map.kv[j].key)) {
					if (!ib_val_equal(kv->val, y->map.kv[j].val))
						return false;
					found = true;
					break;
				}
			}
			if (!found)
				return false;
		}
		return true;
	default:
		return false;
	}
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

uint64_t ib_val_hash(const ib_val *v)
{
	if (!v)
		return 0;
	switch (v->type) {
	case IB_V_NULL:
		return 0x9e3779b97f4a7c15ULL;
	case IB_V_BOOL:
	case IB_V_INT:
	case IB_V_FLOAT: {
		/* equal numbers of any type hash alike: hash the double value */
		double d = num(v);
		if (d == 0)
			d = 0; /* -0.0 == 0.0 */
		uint64_t bits;
		memcpy(&bits, &d, sizeof bits);
		return mix(bits ^ 0x1234567ULL);
	}
	case IB_V_STR:
	case IB_V_DATE: {
		/* (this basis lacks the last digit of FNV's; kept: hashes stay as they were) */
		return mix(
		    ib_fnv1a(1469598103934665603ULL ^ (uint64_t)v->type, v->str.s, v->str.len));
	}
	case IB_V_LIST: {
		uint64_t h = 0x51ed2701ULL;
		for (size_t i = 0; i < v->list.n; i++)
			h = mix(h * 31 + ib_val_hash(v->list.v[i]));
		return h;
	}
	case IB_V_MAP: {
		uint64_t h = 0x7a3b9c1dULL;
		for (size_t i = 0; i < v->map.n; i++) /* order-insensitive */
			h +=
			    mix(ib_val_hash(v->map.kv[i].key) * 31 + ib_val_hash(v->map.kv[i].val));
		return h;
	}
	}
	return 0;
}

bool ib_val_py_int(const ib_val *v, int64_t *out, const char **why)
{
	switch (v ? v->type : IB_V_NULL) {
	case IB_V_BOOL:
		*out = v->b;
		return true;
	case IB_V_INT:
		*out = v->i;
		return true;
	case IB_V_FLOAT:
		if (isnan(v->f) || isinf(v->f) || fabs(v->f) >= 9.2e18) {
			if (why)
				*why = "cannot convert float to integer";
			return false;
		}
		*out = (int64_t)v->f;
		return true;
	case IB_V_STR:
		if (ib_py_int(v->str.s, v->str.len, out))
			return true;
		if (why)
			*why = "invalid literal for int()";
		return false;
	default:
		if (why)
			*why = "int() argument must be a string or a number";
		return false;
	}
}

bool ib_val_truthy(const ib_val *v)
{
	if (!v)
		return false;
	switch (v->type) {
	case IB_V_NULL:
		return false;
	case IB_V_BOOL:
		return v->b;
	case IB_V_INT:
		return v->i != 0;
	case IB_V_FLOAT:
		return v->f != 0.0;
	case IB_V_STR:
		return v->str.len != 0;
	case IB_V_DATE:
		return true;
	case IB_V_LIST:
		return v->list.n != 0;
	case IB_V_MAP:
		return v->map.n != 0;
	}
	return false;
}

const char *ib_vtype_pyname(const ib_val *v)
{
	if (!v)
		return "NoneType";
	switch (v->type) {
	case IB_V_NULL:
		return "NoneType";
	case IB_V_BOOL:
		return "bool";
	case IB_V_INT:
		return "int";
	case IB_V_FLOAT:
		return "float";
	case IB_V_STR:
		return "str";
	case IB_V_DATE:
		return "date";
	case IB_V_LIST:
		return "list";
	case IB_V_MAP:
		return "dict";
	}
	return "object";
}

/* Python str() of None, bools and numbers (inf, nan as Python prints them). */
static void scalar_str(const ib_val *v, ib_buf *b)
{
	char f[40];
	switch (v ? v->type : IB_V_NULL) {
	case IB_V_NULL:
		ib_buf_puts(b, "None");
		break;
	case IB_V_BOOL:
		ib_buf_puts(b, v->b ? "True" : "False");
		break;
	case IB_V_INT:
		ib_buf_printf(b, "%lld", (long long)v->i);
		break;
	case IB_V_FLOAT:
		if (v->bigint)
			f[0] = 0;
		else if (isnan(v->f))
			snprintf(f, sizeof f, "nan");
		else if (isinf(v->f))
			snprintf(f, sizeof f, v->f > 0 ? "inf" : "-inf");
		else
			ib_json_float_repr(v->f, f, sizeof f);
		ib_buf_puts(b, v->bigint ? v->bigint : f);
		break;
	default:
		break;
	}
}

static void repr_into(const ib_val *v, ib_buf *b, int depth)
{
	if (b->len > 200)
		return;
	switch (v ? v->type : IB_V_NULL) {
	case IB_V_NULL:
	case IB_V_BOOL:
	case IB_V_INT:
	case IB_V_FLOAT:
		scalar_str(v, b);
		break;
	case IB_V_STR:
		ib_buf_printf(b, "'%.*s'", (int)(v->str.len > 80 ? 80 : v->str.len), v->str.s);
		if (v->str.len > 80)
			ib_buf_puts(b, "...");
		break;
	case IB_V_DATE:
		ib_buf_printf(b, "date(%s)", v->str.s);
		break;
	case IB_V_LIST:
		if (depth > 1) {
			ib_buf_puts(b, "[...]");
			break;
		}
		ib_buf_putc(b, '[');
		for (size_t i = 0; i < v->list.n; i++) {
			if (i)
				ib_buf_puts(b, ", ");
			repr_into(v->list.v[i], b, depth + 1);
		}
		ib_buf_putc(b, ']');
		break;
	case IB_V_MAP:
		if (depth > 1) {
			ib_buf_puts(b, "{...}");
			break;
		}
		ib_buf_putc(b, '{');
		for (size_t i = 0; i < v->map.n; i++) {
			if (i)
				ib_buf_puts(b, ", ");
			repr_into(v->map.kv[i].key, b, depth + 1);
			ib_buf_puts(b, ": ");
			repr_into(v->map.kv[i].val, b, depth + 1);
		}
		ib_buf_putc(b, '}');
		break;
	}
}

void ib_val_repr(const ib_val *v, char *out, size_t cap)
{
	ib_buf b = {0};
	repr_into(v, &b, 0);
	if (b.data && b.len > 200) {
		b.len = 200;
		b.data[b.len] = '\0';
		ib_buf_puts(&b, "...");
	}
	snprintf(out, cap, "%s", b.data ? b.data : "");
	ib_buf_free(&b);
}

void ib_val_pystr(ib_buf *b, const ib_val *v)
{
	if (v && (v->type == IB_V_STR || v->type == IB_V_DATE)) {
		ib_buf_append(b, v->str.s, v->str.len);
	} else if (v && (v->type == IB_V_LIST || v->type == IB_V_MAP)) {
		char r[256];
		ib_val_repr(v, r, sizeof r);
		ib_buf_puts(b, r);
	} else {
		scalar_str(v, b);
	}
}
