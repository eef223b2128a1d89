/* The growable byte buffer and its sticky error (the policy: base.h). */
#include "base/base.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Records rc as b's error unless one is there already; returns b's error. */
static int stick(ib_buf *b, int rc)
{
	if (!b->err)
		b->err = rc;
	return b->err;
}

int ib_buf_reserve(ib_buf *b, size_t extra)
{
	if (b->err)
		return b->err;
	size_t need;
	if (!ib_size_add(b->len, extra, &need) || !ib_size_add(need, 1, &need))
		return stick(b, IB_ERANGE);
	if (need <= b->cap)
		return 0;
	if (!b->cap && need < 64)
		need = 64;
	int rc = ib_grow(&b->data, &b->cap, need);
	return rc ? stick(b, rc) : 0;
}

int ib_buf_append(ib_buf *b, const void *p, size_t n)
{
	if (ib_buf_reserve(b, n))
		return b->err;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int ib_buf_puts(ib_buf *b, const char *s)
{
	return ib_buf_append(b, s, strlen(s));
}

int ib_buf_putc(ib_buf *b, char c)
{
	if ((b->err || b->len + 2 > b->cap) && ib_buf_reserve(b, 1))
		return b->err;
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
	return 0;
}

int ib_buf_vprintf(ib_buf *b, const char *fmt, va_list ap)
{
	if (b->err)
		return b->err;
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return stick(b, IB_EINVAL);
	if (ib_buf_reserve(b, (size_t)n))
		return b->err;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int ib_buf_printf(ib_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = ib_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

void ib_buf_free(ib_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->err = 0;
}

int ib_fail_unwritten(ib_error *e, int code, const char *name)
{
	return ib_fail(e, code, name, 0, 0, "not written: %s while building it",
	               code == IB_ENOMEM   ? "out of memory"
	               : code == IB_ERANGE ? "a size past the address space"
	                                   : "a text that could not be formatted");
}

int ib_buf_write_file(const char *path, const ib_buf *b, ib_error *e)
{
	if (b->err)
		return ib_fail_unwritten(e, b->err, path);
	return ib_write_file_atomic(path, b->data ? b->data : "", b->len, e);
}

int ib_buf_write_to(FILE *f, const char *name, const ib_buf *b, ib_error *e)
{
	if (b->err)
		return ib_fail_unwritten(e, b->err, name);
	if ((b->len && fwrite(b->data, 1, b->len, f) != b->len) || fflush(f) != 0)
		return ib_fail(e, IB_EIO, name, 0, 0, "cannot write: %s",
		               strerror(errno ? errno : EIO));
	return 0;
}

void ib_emitv(void (*fn)(void *arg, int stream, const char *text), void *arg, int stream,
              bool lines, const char *fmt, va_list ap)
{
	ib_buf b = {0};
	if (!fn || ib_buf_vprintf(&b, fmt, ap)) {
		ib_buf_free(&b);
		return;
	}
	char *s = b.data ? b.data : "";
	if (!lines) {
		fn(arg, stream, s);
	} else {
		for (char *nl; *s; s = nl + 1) {
			nl = strchr(s, '\n');
			if (!nl) {
				fn(arg, stream, s);
				break;
			}
			*nl = 0;
			fn(arg, stream, s);
		}
	}
	ib_buf_free(&b);
}
