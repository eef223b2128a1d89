/* Private to changelog/. */
#ifndef IB_CHANGELOG_PRIVATE_H
#define IB_CHANGELOG_PRIVATE_H

#include "changelog/changelog.h"

/* Runs `git args...` (NULL-terminated, at most 14) in repo; its stdout is
 * appended to out. A non-zero exit is IB_ENOENT with git's stderr as the
 * message; IB_EIO when git cannot be started. */
int clog_git(const char *repo, const char *const *args, ib_buf *out, ib_error *e);

/* The added lines of a `git diff B H -- PATH` (§4.2): text holds them joined
 * by "\n" (never NULL after success), lines[i] the line in the head file of
 * the i-th. A deleted line that is not blank is IB_EINVAL naming its line at
 * o->base_ref. The caller frees text and lines (also after an error). */
typedef struct {
	ib_buf text;
	int *lines;
	size_t n, cap;
} clog_additions;
int clog_diff_additions(const char *diff, size_t n, const clog_opts *o, clog_additions *ad,
                        ib_error *e);

/* One ChangelogEntry validated (§4.2 table): *norm receives the entry in the
 * model's field order with defaults. `file` and the map `lines` (YAML line
 * -> line in the file; NULL: identity) place errors. */
typedef struct {
	const char *file;
	const int *lines; /* lines[yaml_line - 1], or NULL */
	size_t nlines;
	int index; /* 1-based entry number, for messages */
} clog_where;
int clog_entry_validate(ib_arena *a, const ib_val *entry, const clog_where *w, ib_val **norm,
                        ib_error *e);
/* The line of a YAML node in the file. */
int clog_line(const clog_where *w, const ib_val *v);

/* A row re-emitted in its pydantic model's field order (§4.3 step 8). kind:
 * 'f' SN fixed, 'F' MN fixed, 'a' SN agentic, 'A' MN agentic. */
int clog_model_row(ib_arena *a, const ib_val *row, char kind, ib_val **out, ib_error *e);

/* Python repr of a sorted list of strings: ['a', 'b']. */
void clog_repr_strs(ib_buf *b, const char **v, size_t n);

#endif
