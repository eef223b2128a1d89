/* The results database's row mapping (results/db*.c: res_db_ingest of agg
 * and eval rows, res_db_import of dashboard rows, res_db_query,
 * res_db_lookup) on SQLite in memory. The input is an ingest file, then
 * optionally a form feed and an import file. Checks: no crash; a failure
 * has a message; an ingest counts every row as inserted or existing and a
 * second ingest of the same file inserts nothing (idempotence), as does a
 * second import; the query gives as many benchmark rows as were inserted,
 * and its rows serialise; a baseline lookup by each stored row's key runs;
 * agentic rows (AgentX agg rows) are queried back, as many as inserted. */
#include "fuzz.h"

#include "results/results.h"

static const char *const files[] = {"ingest.json", "import.json", NULL};

static void query(res_db *db, ib_arena *a, size_t want)
{
	ib_val *rows = NULL;
	ib_error e = {0};
	res_db_filter f = {0};
	FUZZ_CHECK(res_db_query(db, &f, a, &rows, &e) == 0, "query: %s", e.msg);
	FUZZ_CHECK(rows && rows->type == IB_V_LIST, "query: not a list");
	if (want != (size_t)-1)
		FUZZ_CHECK(rows->list.n == want, "query: %zu rows, %zu inserted", rows->list.n,
		           want);
	ib_buf b = {0};
	ib_json_opts jo = {.indent = 2, .sort_keys = true};
	FUZZ_CHECK(ib_json_write(&b, rows, &jo, &e) == 0, "rows do not serialise: %s", e.msg);
	ib_buf_free(&b);
	f.evals = true;
	FUZZ_CHECK(res_db_query(db, &f, a, &rows, &e) == 0, "eval query: %s", e.msg);
	/* a baseline lookup by the key of each stored row */
	res_db_baseline bl = {.db = db, .branch = "main"};
	for (size_t i = 0; i < rows->list.n && i < 8; i++) {
		res_cfg_key k;
		ib_val **got;
		size_t n;
		if (!res_cfg_key_of(a, rows->list.v[i], &k, &e))
			FUZZ_CHECK(res_db_lookup(&bl, &k, a, 5, &got, &n, &e) == 0 && n <= 5,
			           "lookup: %s", e.msg);
	}
}

/* the agentic rows (agentic_results): as many as inserted, and the latest
 * view no more; each with null ISL/OSL and its KV offload mode */
static void agentic_query(res_db *db, ib_arena *a, size_t want)
{
	ib_val *rows = NULL, *latest = NULL;
	ib_error e = {0};
	res_db_filter f = {.agentic = true};
	FUZZ_CHECK(res_db_query(db, &f, a, &rows, &e) == 0, "agentic query: %s", e.msg);
	FUZZ_CHECK(rows->list.n == want, "agentic query: %zu rows, %zu inserted", rows->list.n,
	           want);
	for (size_t i = 0; i < rows->list.n; i++) {
		const ib_val *r = rows->list.v[i], *isl = ib_map_get(r, "isl");
		const ib_val *kv = ib_map_get(r, "kv_offloading");
		FUZZ_CHECK(isl && isl->type == IB_V_NULL && kv && kv->type == IB_V_STR,
		           "agentic row %zu: isl or kv_offloading", i);
	}
	f.latest = true;
	FUZZ_CHECK(res_db_query(db, &f, a, &latest, &e) == 0, "latest agentic: %s", e.msg);
	FUZZ_CHECK(latest->list.n <= rows->list.n, "latest agentic: %zu of %zu rows",
	           latest->list.n, rows->list.n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_tmpdir(files);
	size_t off[2], len[2];
	size_t np = fuzz_parts(data, size, 2, off, len);
	char ingest[512], import[512];
	snprintf(ingest, sizeof ingest, "%s/ingest.json", dir);
	snprintf(import, sizeof import, "%s/import.json", dir);
	fuzz_write(ingest, data + off[0], len[0]);
	if (np > 1)
		fuzz_write(import, data + off[1], len[1]);
	res_db *db = NULL;
	ib_error e = {0};
	FUZZ_CHECK(res_db_open(":memory:", true, &db, &e) == 0, "open: %s", e.msg);
	ib_arena *a = ib_arena_new();
	if (!a)
		abort();
	res_run_meta m = {.run_id = "run-1", .date = "2026-01-02", .branch = "main"};
	const char *fl[] = {ingest};
	res_ingest_stats st = {0}, again = {0};
	size_t inserted = 0, agentic = 0;
	int rc = res_db_ingest(db, &m, fl, 1, &st, &e);
	FUZZ_CHECK(rc <= 0, "ingest rc %d", rc);
	if (rc) {
		FUZZ_CHECK(e.msg[0], "ingest: error %d without a message", rc);
	} else {
		FUZZ_CHECK(st.inserted + st.existing == st.rows && st.evals_inserted <= st.evals,
		           "ingest: %zu rows, %zu inserted, %zu existing", st.rows, st.inserted,
		           st.existing);
		FUZZ_CHECK(res_db_ingest(db, &m, fl, 1, &again, &e) == 0, "second ingest: %s",
		           e.msg);
		FUZZ_CHECK(again.inserted == 0 && again.evals_inserted == 0 &&
		               again.agentic_inserted == 0 && again.rows == st.rows &&
		               st.agentic_inserted <= st.agentic && again.agentic == st.agentic,
		           "second ingest inserted %zu rows, %zu evals, %zu agentic",
		           again.inserted, again.evals_inserted, again.agentic_inserted);
		agentic = st.agentic_inserted;
		inserted = st.inserted;
	}
	query(db, a, inserted);
	agentic_query(db, a, agentic);
	if (np > 1) {
		size_t skipped = 0;
		rc = res_db_import(db, import, &st, &skipped, &e);
		FUZZ_CHECK(rc <= 0, "import rc %d", rc);
		if (rc) {
			FUZZ_CHECK(e.msg[0], "import: error %d without a message", rc);
		} else {
			FUZZ_CHECK(res_db_import(db, import, &again, &skipped, &e) == 0,
			           "second import: %s", e.msg);
			FUZZ_CHECK(again.inserted == 0, "second import inserted %zu",
			           again.inserted);
			query(db, a, (size_t)-1);
		}
	}
	ib_arena_free(a);
	res_db_close(db);
	return 0;
}
