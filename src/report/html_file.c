/* One call from rows on disk to the HTML report file: the library path of
 * `infbench sweep` (the command `report` keeps its own options). */
#include "report/html.h"

#include <stdio.h>
#include <time.h>

int rep_write_html_file(const char *in, const char *out, const char *title, size_t *nrows,
                        ib_diags *d, ib_error *e)
{
	ib_arena *a = ib_arena_new();
	if (!a)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	rep_rowset rs = {0};
	ib_val *data = NULL;
	ib_buf b = {0};
	char date[16];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(date, sizeof date, "%Y-%m-%d", &tm);
	rep_page_opts po = {.title = title, .generated = date};
	int rc = rep_rows_load(a, in, -1, &rs, d, e);
	if (!rc && !rs.n && !rs.nevals && !rs.nag)
		rc = ib_fail(e, IB_EINVAL, in, 0, 0, "no usable rows for the report");
	rc = rc ? rc : rep_page_data(a, &rs, d, &po, &data, e);
	rc = rc ? rc : rep_html_write(&b, data, &po, e);
	rc = rc ? rc : ib_write_file_atomic(out, b.data, b.len, e);
	if (nrows)
		*nrows = rs.n;
	ib_buf_free(&b);
	rep_rowset_free(&rs);
	ib_arena_free(a);
	return rc;
}
