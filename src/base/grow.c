/* The one growth helper and the diagnostics list (base.h). */
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

/* The capacity for `need` elements: *cap doubled (from at least 8) until it
 * holds them, and its size in bytes; false when either overflows size_t. */
static bool grown(size_t cap, size_t need, size_t size, size_t *nc, size_t *bytes)
{
	size_t c = cap ? cap : 8;
	while (c < need) {
		if (!ib_size_mul(c, 2, &c))
			return false;
	}
	*nc = c;
	return ib_size_mul(c, size ? size : 1, bytes);
}

/* ib_test_fail_growth's countdown (< 0: off); per thread. */
static _Thread_local long fail_growth = -1;

void ib_test_fail_growth(long n)
{
	fail_growth = n < 0 ? -1 : n;
}

/* ib_grow_ (a == NULL: realloc) and ib_arena_grow_ (a new array in a). */
static int grow_in(ib_arena *a, void *pp, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t nc, bytes;
	if (!grown(*cap, need, size, &nc, &bytes))
		return IB_ERANGE;
	if (fail_growth >= 0 && fail_growth-- == 0)
		return IB_ENOMEM;
	void *old, *p;
	memcpy(&old, pp, sizeof old);
	if (!a) {
		p = realloc(old, bytes);
	} else {
		p = ib_arena_alloc(a, bytes);
		if (p && old && *cap)
			memcpy(p, old, *cap * (size ? size : 1));
	}
	if (!p)
		return IB_ENOMEM;
	memcpy(pp, &p, sizeof p);
	*cap = nc;
	return 0;
}

int ib_grow_(void *pp, size_t *cap, size_t need, size_t size)
{
	return grow_in(NULL, pp, cap, need, size);
}

int ib_arena_grow_(ib_arena *a, void *pp, size_t *cap, size_t need, size_t size)
{
	return grow_in(a, pp, cap, need, size);
}

/* A copy of s in a (NULL stays NULL); sets *rc on allocation failure. */
static const char *dup(ib_arena *a, const char *s, int *rc)
{
	if (!s)
		return NULL;
	char *c = ib_arena_strdup(a, s);
	if (!c)
		*rc = IB_ENOMEM;
	return c;
}

int ib_diag_addv(ib_diags *d, const ib_diag *g, const char *fmt, va_list ap)
{
	if (ib_arena_grow(d->a, &d->items, &d->cap, d->n + 1))
		return IB_ENOMEM;
	ib_buf msg = {0};
	int rc = ib_buf_vprintf(&msg, fmt, ap);
	if (rc) {
		ib_buf_free(&msg);
		return IB_ENOMEM;
	}
	ib_diag c = {.severity = g->severity, .line = g->line, .col = g->col};
	c.file = dup(d->a, g->file, &rc);
	c.rule = dup(d->a, g->rule, &rc);
	c.kind = dup(d->a, g->kind, &rc);
	c.subject = dup(d->a, g->subject, &rc);
	c.field = dup(d->a, g->field && *g->field ? g->field : NULL, &rc);
	c.got = dup(d->a, g->got, &rc);
	c.fix = dup(d->a, g->fix, &rc);
	c.msg = dup(d->a, msg.data ? msg.data : "", &rc);
	ib_buf_free(&msg);
	if (rc)
		return IB_ENOMEM;
	d->items[d->n++] = c;
	return 0;
}

int ib_diag_add(ib_diags *d, const ib_diag *g, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = ib_diag_addv(d, g, fmt, ap);
	va_end(ap);
	return rc;
}

int ib_diag_quote_add(ib_diags *d, const char *file, int line, const char *text)
{
	if (!d->n)
		return IB_EINVAL;
	ib_diag *g = &d->items[d->n - 1];
	size_t n;
	if (!ib_size_add(g->nquotes, 1, &n) || !ib_size_mul(n, sizeof *g->quotes, &n))
		return IB_ENOMEM;
	ib_diag_quote *q = ib_arena_alloc(d->a, n);
	if (!q)
		return IB_ENOMEM;
	if (g->nquotes)
		memcpy(q, g->quotes, sizeof *q * g->nquotes);
	int rc = 0;
	q[g->nquotes].file = dup(d->a, file, &rc);
	q[g->nquotes].line = line;
	q[g->nquotes].text = dup(d->a, text ? text : "", &rc);
	if (rc)
		return rc;
	g->quotes = q;
	g->nquotes++;
	return 0;
}

void ib_diag_format(const ib_diag *g, ib_buf *out)
{
	if (g->file) {
		ib_buf_puts(out, g->file);
		if (g->line > 0) {
			ib_buf_printf(out, ":%d", g->line);
			if (g->col > 0)
				ib_buf_printf(out, ":%d", g->col);
		}
		ib_buf_puts(out, ": ");
	}
	if (g->rule)
		ib_buf_printf(out, "[%s] ", g->rule);
	if (g->subject) {
		if (g->kind)
			ib_buf_printf(out, "%s ", g->kind);
		ib_buf_printf(out, "'%s': ", g->subject);
	}
	if (g->field)
		ib_buf_printf(out, "field '%s': ", g->field);
	if (g->severity == IB_SEV_WARNING)
		ib_buf_puts(out, "warning: ");
	else if (g->severity == IB_SEV_NOTE)
		ib_buf_puts(out, "note: ");
	ib_buf_puts(out, g->msg);
	if (g->got)
		ib_buf_printf(out, " (got %s)", g->got);
}

size_t ib_diags_count(const ib_diags *d, int severity)
{
	size_t n = 0;
	for (size_t i = 0; i < d->n; i++)
		n += d->items[i].severity == severity;
	return n;
}
