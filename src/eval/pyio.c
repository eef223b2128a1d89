/* Python-shaped file loading and operators for validate.c and collect.c. */
#include "eval/private.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void ev_py_repr(ib_buf *b, const char *s, size_t n)
{
	char q = '\'';
	if (memchr(s, '\'', n) && !memchr(s, '"', n))
		q = '"';
	ib_buf_putc(b, q);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\\' || c == (unsigned char)q)
			ib_buf_printf(b, "\\%c", c);
		else if (c == '\n')
			ib_buf_puts(b, "\\n");
		else if (c == '\r')
			ib_buf_puts(b, "\\r");
		else if (c == '\t')
			ib_buf_puts(b, "\\t");
		else if (c < 0x20 || c == 0x7f)
			ib_buf_printf(b, "\\x%02x", c);
		else
			ib_buf_putc(b, (char)c);
	}
	ib_buf_putc(b, q);
}

static void os_error(char *msg, size_t cap, int err, const char *path)
{
	ib_buf b = {0};
	ib_buf_printf(&b, "[Errno %d] %s: ", err, strerror(err));
	ev_py_repr(&b, path, strlen(path));
	snprintf(msg, cap, "%s", b.data ? b.data : "");
	ib_buf_free(&b);
}

static ev_load load(ib_arena *a, const char *path, ib_val **out, char *msg, size_t cap,
                    ib_error *detail)
{
	*out = NULL;
	FILE *f = fopen(path, "rb");
	if (!f) {
		os_error(msg, cap, errno, path);
		return EV_LOAD_OSERROR;
	}
	ib_buf b = {0};
	char chunk[65536];
	size_t k;
	int rc = 0;
	while (!rc && (k = fread(chunk, 1, sizeof chunk, f)) > 0)
		rc = ib_buf_append(&b, chunk, k);
	int ferr = ferror(f) ? errno : 0;
	fclose(f);
	if (ferr || rc) {
		os_error(msg, cap, ferr ? ferr : ENOMEM, path);
		ib_buf_free(&b);
		return EV_LOAD_OSERROR;
	}
	const char *s = b.data ? b.data : "";
	for (size_t i = 0; i < b.len;) {
		uint32_t cp;
		int u = ib_utf8_decode(s + i, b.len - i, &cp);
		if (u < 0) {
			snprintf(msg, cap,
			         "'utf-8' codec can't decode byte 0x%02x in position %zu: %s",
			         (unsigned char)s[i], i, ib_utf8_reason(u));
			ib_buf_free(&b);
			return EV_LOAD_UNICODE;
		}
		i += (size_t)u;
	}
	ib_error e = {0};
	if (ib_json_parse(a, path, s, b.len, out, &e)) {
		if (detail) {
			*detail = e;
			detail->code = IB_EPARSE;
			snprintf(detail->file, sizeof detail->file, "%s", path);
		}
		*out = NULL;
		if (e.line)
			snprintf(msg, cap, "line %d column %d: %s", e.line, e.col, e.msg);
		else
			snprintf(msg, cap, "%s", e.msg);
		ib_buf_free(&b);
		return EV_LOAD_JSON;
	}
	ib_buf_free(&b);
	return EV_LOAD_OK;
}

ev_load ev_load_json(ib_arena *a, const char *path, ib_val **out, char *msg, size_t cap,
                     ib_error *detail)
{
	ev_load r = load(a, path, out, msg, cap, detail);
	if (r != EV_LOAD_OK && r != EV_LOAD_JSON && detail)
		ib_fail(detail, r == EV_LOAD_OSERROR ? IB_EIO : IB_EPARSE, path, 0, 0, "%s", msg);
	return r;
}

int ev_py_in(const ib_val *c, const ib_val *key)
{
	if (!c)
		return -1;
	if (c->type == IB_V_MAP) {
		for (size_t i = 0; i < c->map.n; i++)
			if (ib_val_equal(c->map.kv[i].key, key))
				return 1;
		return 0;
	}
	if (c->type == IB_V_LIST) {
		for (size_t i = 0; i < c->list.n; i++)
			if (ib_val_equal(c->list.v[i], key))
				return 1;
		return 0;
	}
	if (c->type == IB_V_STR && key->type == IB_V_STR) {
		if (!key->str.len)
			return 1;
		for (size_t i = 0; i + key->str.len <= c->str.len; i++)
			if (!memcmp(c->str.s + i, key->str.s, key->str.len))
				return 1;
		return 0;
	}
	return -1;
}

const ib_val *ev_py_getitem(const ib_val *c, const ib_val *key)
{
	if (!c || c->type != IB_V_MAP)
		return NULL;
	for (size_t i = 0; i < c->map.n; i++)
		if (ib_val_equal(c->map.kv[i].key, key))
			return c->map.kv[i].val;
	return NULL;
}
