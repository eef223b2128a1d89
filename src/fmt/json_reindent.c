/* ib_json_reindent: a JSON text re-laid out as ib_json_write would write the
 * value it holds (fmt.h), in one pass over the text, for the common forms;
 * anything else is left to the tree (returns 1). */
#include "fmt/fmt.h"

#include <string.h>

#define MAX_DEPTH 64
#define KEY_SLOTS 2048 /* a power of two */
#define MAX_KEYS  (KEY_SLOTS / 2)

typedef struct {
	uint32_t obj; /* the object the key is in (1..); 0: a free slot */
	uint32_t len;
	const char *key;
} key_slot;

typedef struct {
	const char *p, *end;
	ib_buf *out;
	int indent;
	uint32_t objs, keys;
	key_slot slot[KEY_SLOTS];
	uint16_t used[MAX_KEYS]; /* the slots taken, to free them at the end */
} rd;

enum { DONE = 0, SLOW = 1 };

/* ib_buf_append and ib_buf_putc, inlined for the room-to-spare case (the
 * per-token calls were a tenth of collect's time) */
static inline int put(rd *r, const char *p, size_t n)
{
	ib_buf *b = r->out;
	if (b->err || b->len + n + 1 > b->cap)
		return ib_buf_append(b, p, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

static inline int put1(rd *r, char c)
{
	return put(r, &c, 1);
}

static void skip_ws(rd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t'))
		r->p++;
}

static void newline(rd *r, int depth)
{
	static const char spaces[] =
	    "                                                                ";
	put1(r, '\n');
	size_t n = (size_t)r->indent * (size_t)depth;
	while (n) {
		size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
		put(r, spaces, k);
		n -= k;
	}
}

/* A string of printable ASCII without escapes, copied as it is (quotes
 * included); its hash in *h. */
static int string(rd *r, uint64_t *h)
{
	const char *s = r->p++;
	for (;; r->p++) {
		if (r->p >= r->end)
			return SLOW;
		unsigned char c = (unsigned char)*r->p;
		if (c == '"')
			break;
		if (c < 0x20 || c >= 0x7f || c == '\\')
			return SLOW;
	}
	r->p++;
	if (h) { /* a key's hash: its length, first and last 8 bytes (cheap; the
		  * table compares whole keys) */
		size_t n = (size_t)(r->p - s - 2);
		uint64_t a = 0, z = 0;
		memcpy(&a, s + 1, n < 8 ? n : 8);
		memcpy(&z, s + 1 + (n < 8 ? 0 : n - 8), n < 8 ? n : 8);
		*h = ib_fnv1a_word(ib_fnv1a_word(ib_fnv1a_word(IB_FNV1A_BASIS, n), a), z);
	}
	return put(r, s, (size_t)(r->p - s)) ? IB_ENOMEM : DONE;
}

/* Records key s[0..n) of object obj; SLOW when it is already there (Python
 * keeps the first position and the last value: the tree does that). */
static int key_add(rd *r, uint32_t obj, const char *s, size_t n, uint64_t h)
{
	if (r->keys >= MAX_KEYS)
		return SLOW;
	size_t i = (size_t)ib_fnv1a_word(h, obj) & (KEY_SLOTS - 1);
	for (; r->slot[i].obj; i = (i + 1) & (KEY_SLOTS - 1))
		if (r->slot[i].obj == obj && r->slot[i].len == n && !memcmp(r->slot[i].key, s, n))
			return SLOW;
	r->slot[i] = (key_slot){.obj = obj, .len = (uint32_t)n, .key = s};
	r->used[r->keys++] = (uint16_t)i;
	return DONE;
}

static bool digit(const rd *r)
{
	return r->p < r->end && *r->p >= '0' && *r->p <= '9';
}

/* One or more digits, skipped; false when there is none. */
static bool digits(rd *r)
{
	if (!digit(r))
		return false;
	while (digit(r))
		r->p++;
	return true;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?, Python's number */
static int number(rd *r)
{
	const char *s = r->p;
	if (*r->p == '-')
		r->p++;
	if (!digit(r))
		return SLOW;
	if (*r->p == '0')
		r->p++;
	else
		digits(r);
	size_t int_len = (size_t)(r->p - s);
	bool real = false;
	if (r->p < r->end && *r->p == '.') {
		r->p++;
		if (!digits(r))
			return SLOW;
		real = true;
	}
	if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
		r->p++;
		if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
			r->p++;
		if (!digits(r))
			return SLOW;
		real = true;
	}
	size_t n = (size_t)(r->p - s);
	if (!real) { /* an int64 as it is; -0 is 0, big integers go to the tree */
		if (int_len - (*s == '-') > 18 || (n == 2 && s[1] == '0'))
			return SLOW;
		return put(r, s, n) ? IB_ENOMEM : DONE;
	}
	char num[64];
	size_t k = ib_json_float_literal_repr(s, n, num);
	if (!k)
		return SLOW;
	return put(r, num, k) ? IB_ENOMEM : DONE;
}

static int value(rd *r, int depth);

/* Opens a container at r->p (its first byte); writes "{}" / "[]" for an
 * empty one (returns EMPTY), else its first byte. */
enum { MORE = 2, EMPTY = 3 };

static int open_box(rd *r, char open, char close)
{
	r->p++;
	skip_ws(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		char two[2] = {open, close};
		return put(r, two, 2) ? IB_ENOMEM : EMPTY;
	}
	return put1(r, open) ? IB_ENOMEM : DONE;
}

/* After an item at depth + 1: a comma (MORE: written) or the closing byte
 * (DONE: written on its own line); anything else is SLOW. */
static int after_item(rd *r, int depth, char close)
{
	skip_ws(r);
	if (r->p < r->end && *r->p == ',') {
		r->p++;
		skip_ws(r);
		return put1(r, ',') ? IB_ENOMEM : MORE;
	}
	if (r->p < r->end && *r->p == close) {
		r->p++;
		newline(r, depth);
		return put1(r, close) ? IB_ENOMEM : DONE;
	}
	return SLOW;
}

static int object(rd *r, int depth)
{
	uint32_t obj = ++r->objs;
	int rc = open_box(r, '{', '}');
	while (rc == DONE || rc == MORE) {
		newline(r, depth + 1);
		if (r->p >= r->end || *r->p != '"')
			return SLOW;
		const char *k = r->p + 1;
		uint64_t h;
		rc = string(r, &h);
		if (!rc)
			rc = key_add(r, obj, k, (size_t)(r->p - 1 - k), h);
		if (rc)
			return rc;
		skip_ws(r);
		if (r->p >= r->end || *r->p != ':')
			return SLOW;
		r->p++;
		put(r, ": ", 2);
		skip_ws(r);
		if ((rc = value(r, depth + 1)))
			return rc;
		if ((rc = after_item(r, depth, '}')) != MORE)
			return rc;
	}
	return rc == EMPTY ? DONE : rc;
}

static int array(rd *r, int depth)
{
	int rc = open_box(r, '[', ']');
	while (rc == DONE || rc == MORE) {
		newline(r, depth + 1);
		if ((rc = value(r, depth + 1)))
			return rc;
		if ((rc = after_item(r, depth, ']')) != MORE)
			return rc;
	}
	return rc == EMPTY ? DONE : rc;
}

static int word(rd *r, const char *w, size_t n)
{
	if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n))
		return SLOW;
	r->p += n;
	return put(r, w, n) ? IB_ENOMEM : DONE;
}

static int value(rd *r, int depth)
{
	if (r->p >= r->end || depth > MAX_DEPTH)
		return SLOW;
	switch (*r->p) {
	case '{':
		return object(r, depth);
	case '[':
		return array(r, depth);
	case '"':
		return string(r, NULL);
	case 't':
		return word(r, "true", 4);
	case 'f':
		return word(r, "false", 5);
	case 'n':
		return word(r, "null", 4);
	default:
		return *r->p == '-' || (*r->p >= '0' && *r->p <= '9') ? number(r) : SLOW;
	}
}

int ib_json_reindent(ib_buf *out, const char *t, size_t n, int indent, int depth)
{
	static _Thread_local rd r; /* 40 KiB of key slots, kept free between calls */
	if (indent < 0 || ib_buf_error(out))
		return indent < 0 ? SLOW : ib_buf_error(out);
	size_t mark = out->len;
	r.p = t;
	r.end = t + n;
	r.out = out;
	r.indent = indent;
	r.objs = r.keys = 0;
	skip_ws(&r);
	int rc = value(&r, depth);
	skip_ws(&r);
	if (!rc && r.p != r.end)
		rc = SLOW;
	if (!rc && ib_buf_error(out))
		rc = IB_ENOMEM;
	for (uint32_t i = 0; i < r.keys; i++)
		r.slot[r.used[i]].obj = 0;
	if (rc == SLOW)
		out->len = mark;
	return rc;
}
