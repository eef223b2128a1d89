/* `report`'s row mapping (report/html_rows.c: rep_rows_load, the
 * dashboard's mapBenchmarkRow / mapAggEvalRow, then rep_page_data and the
 * terminal summary), and the library's own row reader (rep_row_from_json,
 * rep_latest_rows, rep_derive_metrics, rep_chart_series). The input is one
 * JSON file: an array of agg rows or one row. Checks: no crash; loading
 * fails with a message or keeps rows whose GPU, model and lengths are set,
 * each skipped row with one warning naming the file; the page data is an
 * object and summarises (agentic rows: their view is present and renders);
 * the library's chart points lie inside the rows
 * and frontiers inside the points. */
#include "fuzz.h"

#include "report/html_int.h"

static const char *const files[] = {"rows.json", NULL};

static void library(ib_arena *a, const char *path)
{
	ib_val *doc;
	ib_error e = {0};
	if (ib_json_parse_file(a, path, &doc, &e))
		return;
	size_t n = doc->type == IB_V_LIST ? doc->list.n : 1;
	if (n > 4096)
		return;
	rep_row *rows = calloc(n ? n : 1, sizeof *rows);
	bool *keep = calloc(n ? n : 1, sizeof *keep);
	if (!rows || !keep)
		abort();
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const ib_val *o = doc->type == IB_V_LIST ? doc->list.v[i] : doc;
		int rc = rep_row_from_json(o, i, &rows[k], &e);
		FUZZ_CHECK(rc <= 0 && (!rc || e.msg[0]), "row %zu: rc %d", i, rc);
		k += rc == 0;
	}
	if (rep_latest_rows(rows, k, keep))
		abort();
	const rep_gpu_table *t = rep_gpu_table_builtin(false);
	for (size_t i = 0; i < k; i++) {
		rep_metrics m;
		char key[128], base[64];
		double gpus;
		rep_derive_metrics(&rows[i], t, NULL, &m, key, sizeof key, base, sizeof base,
		                   &gpus);
	}
	rep_chart_opts o = {.x_field = "median_intvty",
	                    .metric = REP_M_TP_PER_GPU,
	                    .dir = PAR_DIR_UPPER_RIGHT,
	                    .cost_limit = 5,
	                    .latency_limit = 60,
	                    .gpus = t};
	rep_chart *c = NULL;
	FUZZ_CHECK(rep_chart_series(rows, k, &o, &c, &e) == 0, "chart: %s", e.msg);
	for (size_t i = 0; i < c->npoints; i++)
		FUZZ_CHECK(c->points[i].row < k && c->points[i].series < c->nseries,
		           "point %zu: row %zu series %zu", i, c->points[i].row,
		           c->points[i].series);
	for (size_t s = 0; s < c->nseries; s++)
		for (size_t j = 0; j < c->series[s].nfrontier; j++)
			FUZZ_CHECK(c->series[s].frontier[j] < c->npoints, "series %zu frontier %zu",
			           s, j);
	rep_chart_free(c);
	free(rows);
	free(keep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[512];
	snprintf(path, sizeof path, "%s/rows.json", fuzz_tmpdir(files));
	fuzz_write(path, data, size);
	ib_arena *a = ib_arena_new();
	if (!a)
		abort();
	ib_diags d = {.a = a};
	rep_rowset rs = {0};
	ib_error e = {0};
	int rc = rep_rows_load(a, path, -1, &rs, &d, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc) {
		FUZZ_CHECK(e.msg[0], "error %d without a message", rc);
		goto out;
	}
	FUZZ_CHECK(rs.skipped <= d.n, "%zu skipped, %zu diagnostics", rs.skipped, d.n);
	for (size_t i = 0; i < d.n; i++)
		FUZZ_CHECK(d.items[i].msg && d.items[i].msg[0] && d.items[i].file,
		           "diagnostic %zu without a message or file", i);
	for (size_t i = 0; i < rs.n; i++) {
		const rep_agg_row *r = &rs.rows[i];
		FUZZ_CHECK(r->hw && r->model && r->framework && r->precision && r->date,
		           "row %zu without its keys", i);
	}
	for (size_t i = 0; i < rs.nag; i++) {
		const rep_agg_row *r = &rs.ag[i];
		FUZZ_CHECK(r->hw && r->model && r->framework && r->precision && r->date &&
		               r->scenario && r->offload && r->conc,
		           "agentic row %zu without its keys", i);
	}
	ib_val *page = NULL;
	rep_page_opts po = {0};
	rc = rep_page_data(a, &rs, &d, &po, &page, &e);
	FUZZ_CHECK(rc <= 0 && (!rc || e.msg[0]), "page data rc %d", rc);
	if (!rc) {
		FUZZ_CHECK(page && page->type == IB_V_MAP, "page data is not an object");
		ib_buf b = {0};
		FUZZ_CHECK(rep_text_summary(&b, page) == 0, "summary");
		const ib_val *ag = ib_map_get(page, "agentic");
		FUZZ_CHECK(!rs.nag == !ag, "%zu agentic rows, agentic view %s", rs.nag,
		           ag ? "present" : "absent");
		if (ag)
			FUZZ_CHECK(rep_agentic_html(&b, ag, true) == 0, "agentic html");
		ib_buf_free(&b);
	}
	library(a, path);
out:
	rep_rowset_free(&rs);
	ib_arena_free(a);
	return 0;
}
