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

/* Object keys interned per parse: one ib_val per distinct key, shared by
 * every object that has it, instead of one value and string per key per
 * row (an agg file repeats the same few dozen keys in every row). Keys are
 * never modified in place, so sharing them is invisible. Open addressing,
 * power-of-two capacity; once INTERN_MAX distinct keys are held (a map
 * keyed by data, such as a vocabulary) further keys are allocated one by
 * one as before, so the table stays small. */
enum { INTERN_MAX = 4096 };
typedef struct {
	ib_val **slot;
	size_t cap, n;
} intern;

static ib_val *key_val(ib_arena *a, intern *in, const char *key, size_t klen)
{
	if (in->n >= INTERN_MAX)
		return ib_v_strn(a, key, klen);
	if (in->n * 2 >= in->cap) {
		size_t cap = in->cap ? in->cap * 2 : 64;
		ib_val **slot = calloc(cap, sizeof *slot);
		if (!slot)
			return NULL;
		for (size_t i = 0; i < in->cap; i++) {
			ib_val *k = in->slot[i];
			if (!k)
				continue;
			size_t h =
			    (size_t)ib_fnv1a(IB_FNV1A_BASIS, k->str.s, k->str.len) & (cap - 1);
			while (slot[h])
				h = (h + 1) & (cap - 1);
			slot[h] = k;
		}
		free(in->slot);
		in->slot = slot;
		in->cap = cap;
	}
	size_t h = (size_t)ib_fnv1a(IB_FNV1A_BASIS, key, klen) & (in->cap - 1);
	for (ib_val *k; (k = in->slot[h]); h = (h + 1) & (in->cap - 1))
		if (k->str.len == klen && !memcmp(k->str.s, key, klen))
			return k;
	ib_val *k = ib_v_strn(a, key, klen);
	if (k) {
		in->slot[h] = k;
		in->n++;
	}
	return k;
}

static ib_val *convert(ib_arena *a, intern *in, json_t *j)
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
			ib_val *item = convert(a, in, json_array_get(j, i));
			if (!item)
				return NULL;
			v->list.v[v->list.n++] = item;
			/* free the item's Jansson tree now (null is a static
			 * singleton): the two trees are never both whole */
			json_array_set_new(j, i, json_null());
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
			ib_val *k = key_val(a, in, key, klen), *x = convert(a, in, val);
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

#define JSON_FLAGS (JSON_DECODE_ANY | JSON_ALLOW_NUL)

static size_t skip_ws(const char *t, size_t n, size_t i)
{
	while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
		i++;
	return i;
}

/* A top-level list of objects or lists (an agg file) read one item at a
 * time: Jansson parses the item, it is converted and its Jansson tree freed
 * before the next, so only one item's tree is ever held (whole, the Jansson
 * tree of 200,000 agg rows is as large as their ib_val tree). An item that
 * does not parse makes the rest of the text rewritten for Python's tokens
 * (rewrite_py_tokens, which changes nothing in an item Jansson read) and
 * read on from it. Returns 0 with *out set; 1 when the text is not such a
 * list or does not parse (the caller parses the whole text, which reports
 * the error as before; what was converted stays in the arena unused);
 * IB_ENOMEM. */
static int parse_list(ib_arena *a, intern *in, const char *t, size_t n, ib_val **out)
{
	size_t i = skip_ws(t, n, 0);
	if (i >= n || t[i] != '[')
		return 1;
	ib_val *l = ib_v_list(a);
	if (!l)
		return IB_ENOMEM;
	ib_buf rw = {0};
	int rc = 1;
	bool rewritten = false;
	i = skip_ws(t, n, i + 1);
	if (i < n && t[i] == ']')
		goto end;
	for (;;) {
		if (i >= n || (t[i] != '{' && t[i] != '['))
			goto out;
		json_error_t je;
		json_t *j = json_loadb(t + i, n - i, JSON_FLAGS | JSON_DISABLE_EOF_CHECK, &je);
		if (!j) {
			if (rewritten || !rewrite_py_tokens(t + i, n - i, &rw))
				goto out;
			/* read on in the rewritten rest */
			rewritten = true;
			t = rw.data, n = rw.len, i = 0;
			continue;
		}
		ib_val *item = convert(a, in, j);
		json_decref(j);
		if (!item || ib_list_push(a, l, item)) {
			rc = IB_ENOMEM;
			goto out;
		}
		i = skip_ws(t, n, i + (size_t)je.position);
		if (i < n && t[i] == ',') {
			i = skip_ws(t, n, i + 1);
			continue;
		}
		if (i < n && t[i] == ']')
			break;
		goto out;
	}
end:
	if (skip_ws(t, n, i + 1) == n) {
		*out = l;
		rc = 0;
	}
out:
	ib_buf_free(&rw);
	return rc;
}

int ib_json_parse(ib_arena *a, const char *name, const char *text, size_t len, ib_val **out,
                  ib_error *e)
{
	intern in = {0};
	int rc = parse_list(a, &in, text, len, out);
	if (rc != 1) {
		free(in.slot);
		return rc ? ib_fail(e, IB_ENOMEM, name, 0, 0, "out of memory reading JSON") : 0;
	}
	json_error_t je;
	ib_buf rw = {0};
	json_t *j = json_loadb(text, len, JSON_FLAGS, &je);
	if (!j && rewrite_py_tokens(text, len, &rw)) {
		json_error_t je2;
		json_t *j2 = json_loadb(rw.data, rw.len, JSON_FLAGS, &je2);
		if (j2) {
			j = j2, je = je2, text = rw.data, len = rw.len;
		}
	}
	if (!j) {
		free(in.slot);
		ib_buf_free(&rw);
		return ib_fail(e, IB_EPARSE, name, je.line > 0 ? je.line : 0,
		               je.column > 0 ? je.column : 0, "JSON syntax error: %s", je.text);
	}
	ib_val *v = convert(a, &in, j);
	json_decref(j);
	free(in.slot);
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
