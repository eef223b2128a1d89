/* JSON reading: Jansson parses, the result becomes an ib_val tree. */
#include "fmt/fmt.h"

#include <jansson.h>
#include <string.h>

static ib_val *convert(ib_arena *a, json_t *j, bool ints_as_reals)
{
	ib_val *v = NULL;
	switch (json_typeof(j)) {
	case JSON_NULL: return ib_v_null(a);
	case JSON_TRUE: return ib_v_bool(a, true);
	case JSON_FALSE: return ib_v_bool(a, false);
	case JSON_INTEGER: return ib_v_int(a, (int64_t)json_integer_value(j));
	case JSON_REAL: {
		double d = json_real_value(j);
		/* the fallback parse read every number as a real: integral values
		 * that fit become ints again, the huge ones stay floats (range
		 * first: converting an out-of-range double is undefined) */
		if (ints_as_reals && d > -9.2e18 && d < 9.2e18 && d == (double)(int64_t)d)
			return ib_v_int(a, (int64_t)d);
		return ib_v_float(a, d);
	}
	case JSON_STRING: return ib_v_strn(a, json_string_value(j), json_string_length(j));
	case JSON_ARRAY: {
		size_t n = json_array_size(j);
		v = ib_v_list(a);
		if (!v)
			return NULL;
		if (n) {
			v->list.v = ib_arena_alloc(a, n * sizeof(ib_val *));
			if (!v->list.v)
				return NULL;
			v->list.cap = n;
		}
		for (size_t i = 0; i < n; i++) {
			ib_val *item = convert(a, json_array_get(j, i), ints_as_reals);
			if (!item)
				return NULL;
			v->list.v[v->list.n++] = item;
		}
		return v;
	}
	case JSON_OBJECT: {
		size_t n = json_object_size(j);
		v = ib_v_map_cap(a, n);
		if (!v)
			return NULL;
		const char *key;
		size_t klen;
		json_t *val;
		/* Jansson already merged duplicate keys (last value, first position,
		 * like Python), so entries are appended without another lookup. */
		json_object_keylen_foreach(j, key, klen, val)
		{
			ib_val *k = ib_v_strn(a, key, klen), *x = convert(a, val, ints_as_reals);
			if (!k || !x)
				return NULL;
			v->map.kv[v->map.n].key = k;
			v->map.kv[v->map.n].val = x;
			v->map.n++;
		}
		return v;
	}
	}
	return NULL;
}

int ib_json_parse(ib_arena *a, const char *name, const char *text, size_t len, ib_val **out,
		  ib_error *e)
{
	json_error_t je;
	bool reals = false;
	json_t *j = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
	if (!j && strstr(je.text, "too big integer")) {
		/* Python reads integers of any size (tokenizer_config.json has
		 * model_max_length = 1e30): read them as reals instead */
		reals = true;
		j = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &je);
	}
	if (!j)
		return ib_fail(e, IB_EPARSE, name, je.line > 0 ? je.line : 0,
			       je.column > 0 ? je.column : 0, "JSON syntax error: %s", je.text);
	ib_val *v = convert(a, j, reals);
	json_decref(j);
	if (!v)
		return ib_fail(e, IB_ENOMEM, name, 0, 0, "out of memory reading JSON");
	*out = v;
	return 0;
}

int ib_json_parse_file(ib_arena *a, const char *path, ib_val **out, ib_error *e)
{
	ib_buf b = {0};
	int rc = ib_read_file(path, &b, e);
	if (!rc)
		rc = ib_json_parse(a, path, b.data ? b.data : "", b.len, out, e);
	ib_buf_free(&b);
	return rc;
}
