/* A CSV reader with the rules of Python's csv.reader (excel dialect, strict
 * off) over a file opened with newline='' (private.h). */
#include "power/private.h"

#include <stdlib.h>
#include <string.h>

enum { START_RECORD, START_FIELD, IN_FIELD, IN_QUOTED, QUOTE_IN_QUOTED, EAT_CRNL };
#define FIELD_LIMIT 131072 /* csv.field_size_limit() default */

typedef struct {
	ib_arena *a;
	pw_csv *c;
	ib_buf field;
	size_t field_cp; /* code points in the field */
	const char **f;
	size_t *len;
	size_t n, cap, lcap;
	int line, rec_line;
} rd;

static int save_field(rd *r)
{
	if (ib_grow(&r->f, &r->cap, r->n + 1) || ib_grow(&r->len, &r->lcap, r->n + 1))
		return IB_ENOMEM;
	char *s = ib_arena_strndup(r->a, r->field.data ? r->field.data : "", r->field.len);
	if (!s)
		return IB_ENOMEM;
	r->f[r->n] = s;
	r->len[r->n++] = r->field.len;
	r->field.len = 0;
	r->field_cp = 0;
	return 0;
}

static int save_record(rd *r)
{
	pw_csv *c = r->c;
	if (ib_grow(&c->rows, &c->cap, c->n + 1))
		return IB_ENOMEM;
	pw_csv_row *row = &c->rows[c->n++];
	row->n = r->n;
	row->line = r->rec_line;
	row->f = ib_arena_alloc(r->a, (r->n ? r->n : 1) * sizeof *row->f);
	row->len = ib_arena_alloc(r->a, (r->n ? r->n : 1) * sizeof *row->len);
	if (!row->f || !row->len)
		return IB_ENOMEM;
	if (r->n) {
		memcpy(row->f, r->f, r->n * sizeof *row->f);
		memcpy(row->len, r->len, r->n * sizeof *row->len);
	}
	r->n = 0;
	return 0;
}

static int add_char(rd *r, char ch)
{
	if ((ch & 0xC0) != 0x80 && ++r->field_cp > FIELD_LIMIT)
		return 1; /* csv.Error: field larger than field limit */
	return ib_buf_putc(&r->field, ch) ? IB_ENOMEM : 0;
}

/* One character of a line (eol: the end-of-line marker Python injects). */
static int step(rd *r, int *st, int ch, bool eol, bool skipws)
{
	int rc;
	switch (*st) {
	case START_RECORD:
		if (eol)
			return save_record(r); /* an empty line: [] */
		if (ch == '\n' || ch == '\r') {
			*st = EAT_CRNL;
			return 0;
		}
		*st = START_FIELD;
		/* fall through */
	case START_FIELD:
		if (eol || ch == '\n' || ch == '\r') {
			if ((rc = save_field(r)))
				return rc;
			*st = eol ? START_RECORD : EAT_CRNL;
			return eol ? save_record(r) : 0;
		}
		if (ch == '"') {
			*st = IN_QUOTED;
			return 0;
		}
		if (ch == ' ' && skipws)
			return 0;
		if (ch == ',')
			return save_field(r);
		*st = IN_FIELD;
		return add_char(r, (char)ch);
	case IN_FIELD:
		if (eol || ch == '\n' || ch == '\r') {
			if ((rc = save_field(r)))
				return rc;
			*st = eol ? START_RECORD : EAT_CRNL;
			return eol ? save_record(r) : 0;
		}
		if (ch == ',') {
			*st = START_FIELD;
			return save_field(r);
		}
		return add_char(r, (char)ch);
	case IN_QUOTED:
		if (eol)
			return 0;
		if (ch == '"') {
			*st = QUOTE_IN_QUOTED;
			return 0;
		}
		return add_char(r, (char)ch);
	case QUOTE_IN_QUOTED:
		if (!eol && ch == '"') {
			*st = IN_QUOTED;
			return add_char(r, '"');
		}
		if (!eol && ch == ',') {
			*st = START_FIELD;
			return save_field(r);
		}
		if (eol || ch == '\n' || ch == '\r') {
			if ((rc = save_field(r)))
				return rc;
			*st = eol ? START_RECORD : EAT_CRNL;
			return eol ? save_record(r) : 0;
		}
		*st = IN_FIELD;
		return add_char(r, (char)ch);
	case EAT_CRNL:
		if (eol) {
			*st = START_RECORD;
			return save_record(r);
		}
		if (ch == '\n' || ch == '\r')
			return 0;
		return 1; /* csv.Error: new-line character seen in unquoted field */
	}
	return 0;
}

/* Valid UTF-8 of text (invalid sequences as U+FFFD when replace; otherwise
 * the text is cut at the first invalid byte and *bad set). */
static int clean_utf8(const char *t, size_t n, bool replace, ib_buf *out, bool *bad)
{
	if (ib_buf_reserve(out, n + 1))
		return IB_ENOMEM;
	for (size_t i = 0; i < n;) {
		/* the longest valid run from i, copied at once */
		size_t run = i;
		while (run < n) {
			uint32_t cp;
			int k = (unsigned char)t[run] < 0x80
			            ? 1
			            : ib_utf8_decode(t + run, n - run, &cp);
			if (k <= 0)
				break;
			run += (size_t)k;
		}
		if (run > i && ib_buf_append(out, t + i, run - i))
			return IB_ENOMEM;
		i = run;
		if (i == n)
			break;
		if (!replace) {
			*bad = true;
			return 0;
		}
		if (ib_buf_puts(out, "\xEF\xBF\xBD"))
			return IB_ENOMEM;
		/* the maximal valid prefix of a sequence counts as one error */
		unsigned char c0 = (unsigned char)t[i];
		size_t want = c0 >= 0xF0 ? 4 : c0 >= 0xE0 ? 3 : c0 >= 0xC2 ? 2 : 1, j = i + 1;
		if (want > 1 && c0 <= 0xF4) {
			while (j < n && j < i + want && ((unsigned char)t[j] & 0xC0) == 0x80) {
				unsigned char c1 = (unsigned char)t[j];
				if (j == i + 1 &&
				    ((c0 == 0xE0 && c1 < 0xA0) || (c0 == 0xED && c1 > 0x9F) ||
				     (c0 == 0xF0 && c1 < 0x90) || (c0 == 0xF4 && c1 > 0x8F)))
					break;
				j++;
			}
		}
		i = j;
	}
	return 0;
}

int pw_csv_parse(ib_arena *a, const char *text, size_t n, bool skipinitialspace,
                 bool replace_invalid, bool *bad_utf8, pw_csv *c)
{
	memset(c, 0, sizeof *c);
	ib_buf clean = {0};
	bool bad = false;
	int rc = clean_utf8(text, n, replace_invalid, &clean, &bad);
	if (bad_utf8)
		*bad_utf8 = bad;
	rd r = {.a = a, .c = c, .line = 1, .rec_line = 1};
	int st = START_RECORD;
	const char *t = clean.data ? clean.data : "";
	size_t len = clean.len;
	for (size_t i = 0; !rc && i < len;) {
		/* one line: up to and including \n, \r\n or a lone \r */
		size_t j = i;
		while (j < len && t[j] != '\n' && t[j] != '\r')
			j++;
		if (j < len)
			j += (t[j] == '\r' && j + 1 < len && t[j + 1] == '\n') ? 2 : 1;
		if (st == START_RECORD)
			r.rec_line = r.line;
		for (size_t k = i; !rc && k < j; k++)
			rc = step(&r, &st, (unsigned char)t[k], false, skipinitialspace);
		if (!rc)
			rc = step(&r, &st, 0, true, skipinitialspace);
		r.line++;
		i = j;
	}
	if (rc == 1) {
		c->error = true;
		c->error_line = r.line;
		rc = 0;
	} else if (!rc && (r.field.len || st == IN_QUOTED)) {
		/* end of data inside a record: Python saves the field and yields it */
		rc = save_field(&r);
		if (!rc)
			rc = save_record(&r);
	} else if (!rc && r.n) {
		rc = save_record(&r);
	}
	free(r.f);
	free(r.len);
	ib_buf_free(&r.field);
	ib_buf_free(&clean);
	if (rc == 1)
		rc = 0;
	return rc ? IB_ENOMEM : 0;
}

void pw_csv_free(pw_csv *c)
{
	free(c->rows);
	memset(c, 0, sizeof *c);
}

int pw_csv_col(const char *const *names, size_t n, const char *name)
{
	int at = -1;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			at = (int)i;
	return at;
}
