/* The results database on SQLite (libsqlite3): one file, WAL journal, a busy
 * timeout for concurrent writers; parameters $1..$n bound by name. */
#include "results/db_private.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libsqlite3 is loaded (dlopen) when a database is first opened, not at
 * start, so that commands without a database do not pay its relocations.
 * The #defines below send each call through the resolved pointer (a macro's
 * own name is not expanded again inside it: __typeof__(f) is the header's
 * declaration). */
#define SQ_FUNCS(X)                                                                                \
	X(sqlite3_bind_null)                                                                       \
	X(sqlite3_bind_parameter_index)                                                            \
	X(sqlite3_bind_text)                                                                       \
	X(sqlite3_busy_timeout)                                                                    \
	X(sqlite3_close)                                                                           \
	X(sqlite3_column_count)                                                                    \
	X(sqlite3_column_text)                                                                     \
	X(sqlite3_errmsg)                                                                          \
	X(sqlite3_errstr)                                                                          \
	X(sqlite3_exec)                                                                            \
	X(sqlite3_finalize)                                                                        \
	X(sqlite3_free)                                                                            \
	X(sqlite3_open_v2)                                                                         \
	X(sqlite3_prepare_v2)                                                                      \
	X(sqlite3_step)

IB_DL_TABLE(SQ_FUNCS, "libsqlite3.so.0")

/* a macro's own name is not expanded again inside it: __typeof__(f) is the
 * header's declaration */
#define SQ_FN(f)                     IB_DL_FN(f)
#define sqlite3_bind_null            SQ_FN(sqlite3_bind_null)
#define sqlite3_bind_parameter_index SQ_FN(sqlite3_bind_parameter_index)
#define sqlite3_bind_text            SQ_FN(sqlite3_bind_text)
#define sqlite3_busy_timeout         SQ_FN(sqlite3_busy_timeout)
#define sqlite3_close                SQ_FN(sqlite3_close)
#define sqlite3_column_count         SQ_FN(sqlite3_column_count)
#define sqlite3_column_text          SQ_FN(sqlite3_column_text)
#define sqlite3_errmsg               SQ_FN(sqlite3_errmsg)
#define sqlite3_errstr               SQ_FN(sqlite3_errstr)
#define sqlite3_exec                 SQ_FN(sqlite3_exec)
#define sqlite3_finalize             SQ_FN(sqlite3_finalize)
#define sqlite3_free                 SQ_FN(sqlite3_free)
#define sqlite3_open_v2              SQ_FN(sqlite3_open_v2)
#define sqlite3_prepare_v2           SQ_FN(sqlite3_prepare_v2)
#define sqlite3_step                 SQ_FN(sqlite3_step)

static int fail(sqlite3 *db, ib_error *e, const char *what)
{
	return ib_fail(e, IB_EIO, NULL, 0, 0, "sqlite: %s: %s", what, sqlite3_errmsg(db));
}

/* PRAGMA quick_check: damaged pages are reported on open, before an ingest
 * that does not touch them could report success over a broken file. */
static int quick_check(sqlite3 *db, const char *path, ib_error *e)
{
	sqlite3_stmt *st = NULL;
	char msg[1024] = "";
	size_t n = 0;
	int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(5)", -1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		rc = SQLITE_OK;
		if (t && strcmp(t, "ok") && n < sizeof msg)
			n += (size_t)snprintf(msg + n, sizeof msg - n, "%s%s", n ? "; " : "", t);
	}
	if (rc != SQLITE_DONE && !msg[0])
		snprintf(msg, sizeof msg, "%s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	if (!msg[0])
		return 0;
	return ib_fail(e, IB_EIO, path, 0, 0,
	               "the SQLite database is damaged (PRAGMA quick_check: %s): restore it from a "
	               "backup, or ingest the rows again into a new file",
	               msg);
}

int res_db_sqlite_open(const char *path, void **h, ib_error *e)
{
	pthread_once(&ib_dl_once, ib_dl_init);
	if (ib_dl_why[0])
		return ib_fail(e, IB_EIO, NULL, 0, 0,
		               "sqlite: cannot load libsqlite3 (Debian package libsqlite3-0): %s",
		               ib_dl_why);
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		ib_fail(e, IB_EIO, path, 0, 0, "cannot open the SQLite database: %s",
		        db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		sqlite3_close(db);
		return IB_EIO;
	}
	sqlite3_busy_timeout(db, 30000);
	char *err = NULL;
	/* WAL: readers do not block the writer; synchronous=NORMAL keeps every
	 * committed transaction across a process crash (kill -9) */
	if (sqlite3_exec(db,
	                 "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
	                 "PRAGMA foreign_keys=ON;",
	                 NULL, NULL, &err) != SQLITE_OK) {
		ib_fail(e, IB_EIO, path, 0, 0, "not an SQLite database: %s", err ? err : "?");
		sqlite3_free(err);
		sqlite3_close(db);
		return IB_EIO;
	}
	if (quick_check(db, path, e)) {
		sqlite3_close(db);
		return IB_EIO;
	}
	*h = db;
	return 0;
}

static int sq_exec(void *h, const char *sql, ib_error *e)
{
	char *err = NULL;
	if (sqlite3_exec(h, sql, NULL, NULL, &err) != SQLITE_OK) {
		int rc = ib_fail(e, IB_EIO, NULL, 0, 0, "sqlite: %s", err ? err : "?");
		sqlite3_free(err);
		return rc;
	}
	return 0;
}

static int sq_query(void *h, const char *sql, const char *const *params, size_t np, res_dbrows *out,
                    ib_error *e)
{
	sqlite3 *db = h;
	sqlite3_stmt *st = NULL;
	if (out)
		memset(out, 0, sizeof *out);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return fail(db, e, "prepare");
	int rc = 0;
	for (size_t i = 0; i < np && !rc; i++) {
		char name[24];
		snprintf(name, sizeof name, "$%zu", i + 1);
		int idx = sqlite3_bind_parameter_index(st, name);
		if (!idx)
			continue;
		int r = params[i] ? sqlite3_bind_text(st, idx, params[i], -1, SQLITE_TRANSIENT)
		                  : sqlite3_bind_null(st, idx);
		if (r != SQLITE_OK)
			rc = fail(db, e, "bind");
	}
	size_t ncols = (size_t)sqlite3_column_count(st), cap = 0;
	for (;;) {
		if (rc)
			break;
		int s = sqlite3_step(st);
		if (s == SQLITE_DONE)
			break;
		if (s != SQLITE_ROW) {
			rc = fail(db, e, "step");
			break;
		}
		if (!out)
			continue;
		out->ncols = ncols;
		if ((rc = ib_grow(&out->cells, &cap, (out->nrows + 1) * ncols + 1)))
			break;
		for (size_t c = 0; c < ncols; c++) {
			const unsigned char *t = sqlite3_column_text(st, (int)c);
			char *v = NULL;
			if (t && !(v = strdup((const char *)t)))
				rc = IB_ENOMEM;
			out->cells[out->nrows * ncols + c] = v;
		}
		out->nrows++;
	}
	sqlite3_finalize(st);
	if (rc && out)
		res_dbrows_free(out);
	return rc;
}

static void sq_close(void *h)
{
	sqlite3_close(h);
}

const res_db_ops res_db_sqlite_ops = {
    .name = "sqlite",
    .id_type = "INTEGER PRIMARY KEY",
    .json_type = "TEXT",
    .begin = "BEGIN IMMEDIATE",
    .exec = sq_exec,
    .query = sq_query,
    .close = sq_close,
};
