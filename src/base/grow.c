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

/* ib_grow_ (a == NULL: realloc) and ib_arena_grow_ (a new array in a). */
static int grow_in(ib_arena *a, void *pp, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t nc, bytes;
	if (!grown(*cap, need, size, &nc, &bytes))
		return IB_ERANGE;
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

static const char *dup_or_null(ib_arena *a, const char *s, int *rc)
{
	if (!s || !*s)
		return NULL;
	char *c = ib_arena_strdup(a, s);
	if (!c)
		*rc = IB_ENOMEM;
	return c;
}

int ib_diag_add(ib_diags *d, int severity, const char *file, int line, int col, const char *rule,
                const char *subject, const char *field, const char *fmt, ...)
{
	if (ib_grow(&d->items, &d->cap, d->n + 1))
		return IB_ENOMEM;
	ib_buf msg = {0};
	va_list ap;
	va_start(ap, fmt);
	int rc = ib_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	if (rc) {
		ib_buf_free(&msg);
		return IB_ENOMEM;
	}
	ib_diag g = {.severity = severity, .line = line, .col = col};
	g.file = dup_or_null(d->a, file, &rc);
	g.rule = dup_or_null(d->a, rule, &rc);
	g.subject = dup_or_null(d->a, subject, &rc);
	g.field = dup_or_null(d->a, field, &rc);
	g.msg = ib_arena_strdup(d->a, msg.data ? msg.data : "");
	ib_buf_free(&msg);
	if (rc || !g.msg)
		return IB_ENOMEM;
	d->items[d->n++] = g;
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
	if (g->subject)
		ib_buf_printf(out, "'%s': ", g->subject);
	if (g->field)
		ib_buf_printf(out, "field '%s': ", g->field);
	if (g->severity == IB_SEV_WARNING)
		ib_buf_puts(out, "warning: ");
	else if (g->severity == IB_SEV_NOTE)
		ib_buf_puts(out, "note: ");
	ib_buf_puts(out, g->msg);
}

size_t ib_diags_count(const ib_diags *d, int severity)
{
	size_t n = 0;
	for (size_t i = 0; i < d->n; i++)
		n += d->items[i].severity == severity;
	return n;
}

void ib_diags_free(ib_diags *d)
{
	free(d->items);
	d->items = NULL;
	d->n = d->cap = 0;
}
