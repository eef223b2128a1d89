/* JSON reading: Jansson parses, the result becomes an ib_val tree. */
#include "fmt/fmt.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Python's json reads the non-JSON tokens NaN, Infinity and -Infinity, a
 * number too large for a double as an infinity (1e400) and integers of any
 * size. Jansson rejects them,
 * so a text that fails to parse is rewritten with these tokens as private
 * sentinel strings, which convert() turns back into floats. */
#define SENT "\\u0000\\u0001py"
static const char sent_prefix[] = "\0\001py";

static bool is_num_char(char c)
{
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* Python refuses integer literals of more than 4300 digits
 * (sys.get_int_max_str_digits()); so does this reader. */
#define MAX_INT_DIGITS 4300

/* Is t[0..n) a JSON integer literal (-?(0|[1-9][0-9]*)) outside int64, of at
 * most MAX_INT_DIGITS digits? */
static bool is_big_int(const char *t, size_t n)
{
	bool neg = n && t[0] == '-';
	const char *d = t + neg;
	size_t nd = n - neg;
	if (!nd || nd > MAX_INT_DIGITS || (d[0] == '0' && nd > 1))
		return false;
	for (size_t k = 0; k < nd; k++)
		if (d[k] < '0' || d[k] > '9')
			return false;
	const char *lim = neg ? "9223372036854775808" : "9223372036854775807";
	return nd > 19 || (nd == 19 && memcmp(d, lim, 19) > 0);
}

/* Appends the rewritten text to b; returns whether anything was replaced
 * (false also on allocation failure, which then shows as the first error). */
static bool rewrite_py_tokens(const char *t, size_t n, ib_buf *b)
{
	bool in_str = false, any = false;
	for (size_t i = 0; i < n;) {
		char c = t[i];
		if (in_str) {
			if (c == '\\' && i + 1 < n) {
				if (ib_buf_append(b, t + i, 2))
					return false;
				i += 2;
				continue;
			}
			if (c == '"')
				in_str = false;
		} else if (c == '"') {
			in_str = true;
		} else if (c == 'N' && n - i >= 3 && !memcmp(t + i, "NaN", 3)) {
			if (ib_buf_puts(b, "\"" SENT "nan\""))
				return false;
			i += 3, any = true;
			continue;
		} else if (c == 'I' && n - i >= 8 && !memcmp(t + i, "Infinity", 8)) {
			if (ib_buf_puts(b, "\"" SENT "inf\""))
				return false;
			i += 8, any = true;
			continue;
		} else if (c == '-' && n - i >= 9 && !memcmp(t + i, "-Infinity", 9)) {
			if (ib_buf_puts(b, "\"" SENT "-inf\""))
				return false;
			i += 9, any = true;
			continue;
		} else if ((c >= '0' && c <= '9') || c == '-') {
			size_t j = i;
			bool real = false;
			while (j < n && is_num_char(t[j])) {
				real |= t[j] == 'e' || t[j] == 'E' || t[j] == '.';
				j++;
			}
			if (!real && is_big_int(t + i, j - i)) {
				if (ib_buf_puts(b, "\"" SENT "int:") ||
				    ib_buf_append(b, t + i, j - i) || ib_buf_putc(b, '"'))
					return false;
				i = j, any = true;
				continue;
			}
			char tmp[64];
			if (real && j - i < sizeof tmp) {
				memcpy(tmp, t + i, j - i);
				tmp[j - i] = 0;
				double d = strtod(tmp, NULL);
				if (isinf(d)) {
					if (ib_buf_puts(b, d < 0 ? "\"" SENT "-inf\""
					                         : "\"" SENT "inf\""))
						return false;
					i = j, any = true;
					continue;
				}
			}
			if (ib_buf_append(b, t + i, j - i))
				return false;
			i = j;
			continue;
		}
		if (ib_buf_putc(b, c))
			return false;
		i++;
	}
	return any;
}

static ib_val *convert(ib_arena *a, json_t *j)
{
	ib_val *v = NULL;
	switch (json_typeof(j)) {
	case JSON_NULL:
		return ib_v_null(a);
	case JSON_TRUE:
		return ib_v_bool(a, true);
	case JSON_FALSE:
		return ib_v_bool(a, false);
	case JSON_INTEGER:
		return ib_v_int(a, (int64_t)json_integer_value(j));
	case JSON_REAL:
		return ib_v_float(a, json_real_value(j));
	case JSON_STRING: {
		const char *s = json_string_value(j);
		size_t n = json_string_length(j), p = sizeof sent_prefix - 1;
		if (n > p && !memcmp(s, sent_prefix, p)) {
			if (!strcmp(s + p, "nan"))
				return ib_v_float(a, NAN);
			if (!strcmp(s + p, "inf"))
				return ib_v_float(a, INFINITY);
			if (!strcmp(s + p, "-inf"))
				return ib_v_float(a, -INFINITY);
			if (!strncmp(s + p, "int:", 4)) {
				v = ib_v_float(a, strtod(s + p + 4, NULL));
				if (v && !(v->bigint = ib_arena_strdup(a, s + p + 4)))
					return NULL;
				return v;
			}
		}
		return ib_v_strn(a, s, n);
	}
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
			ib_val *item = convert(a, json_array_get(j, i));
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
			ib_val *k = ib_v_strn(a, key, klen), *x = convert(a, val);
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
	ib_buf rw = {0};
	json_t *j = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
	if (!j && rewrite_py_tokens(text, len, &rw)) {
		json_error_t je2;
		json_t *j2 = json_loadb(rw.data, rw.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je2);
		if (j2) {
			j = j2, je = je2, text = rw.data, len = rw.len;
		}
	}
	if (!j) {
		ib_buf_free(&rw);
		return ib_fail(e, IB_EPARSE, name, je.line > 0 ? je.line : 0,
		               je.column > 0 ? je.column : 0, "JSON syntax error: %s", je.text);
	}
	ib_val *v = convert(a, j);
	json_decref(j);
	ib_buf_free(&rw);
	if (!v)
		return ib_fail(e, IB_ENOMEM, name, 0, 0, "out of memory reading JSON");
	*out = v;
	return 0;
}

int ib_json_parse_file(ib_arena *a, const char *path, ib_val **out, ib_error *e)
{
	ib_buf b = {0};
	int rc = ib_read_file_max(path, IB_JSON_MAX_FILE, &b, e);
	if (!rc)
		rc = ib_json_parse(a, path, b.data ? b.data : "", b.len, out, e);
	ib_buf_free(&b);
	return rc;
}
