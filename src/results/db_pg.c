/* The results database on PostgreSQL (libpq): text parameters, text results;
 * notices are dropped (the library does not print). */
#include "results/db_private.h"

#include <libpq-fe.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* libpq is loaded when a PostgreSQL database is opened, not when infbench
 * starts: with its dependencies (Kerberos, LDAP, GnuTLS, ...) it is 20 of
 * the binary's 31 shared libraries, and loading them cost every command,
 * `infbench process` per row included, about 4 ms of CPU. */
static struct {
	__typeof__(PQclear) *clear;
	__typeof__(PQconnectdb) *connectdb;
	__typeof__(PQerrorMessage) *errorMessage;
	__typeof__(PQexec) *exec;
	__typeof__(PQexecParams) *execParams;
	__typeof__(PQfinish) *finish;
	__typeof__(PQgetisnull) *getisnull;
	__typeof__(PQgetvalue) *getvalue;
	__typeof__(PQnfields) *nfields;
	__typeof__(PQntuples) *ntuples;
	__typeof__(PQresultStatus) *resultStatus;
	__typeof__(PQsetNoticeProcessor) *setNoticeProcessor;
	__typeof__(PQstatus) *status;
} pq;
static pthread_once_t pq_once = PTHREAD_ONCE_INIT;
static char pq_why[512];

static void pq_load(void)
{
	static const char *const names[] = {
	    "PQclear",        "PQconnectdb",          "PQerrorMessage", "PQexec",    "PQexecParams",
	    "PQfinish",       "PQgetisnull",          "PQgetvalue",     "PQnfields", "PQntuples",
	    "PQresultStatus", "PQsetNoticeProcessor", "PQstatus"};
	void *sym[sizeof names / sizeof *names];
	if (ib_dl_load("libpq.so.5", names, sym, sizeof names / sizeof *names, pq_why,
	               sizeof pq_why))
		return;
	size_t i = 0;
#define SET(f) (pq.f = (__typeof__(PQ##f) *)sym[i++])
	SET(clear), SET(connectdb), SET(errorMessage), SET(exec), SET(execParams), SET(finish);
	SET(getisnull), SET(getvalue), SET(nfields), SET(ntuples), SET(resultStatus);
	SET(setNoticeProcessor), SET(status);
#undef SET
}

static void no_notice(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

static int pg_fail(PGconn *c, ib_error *e, const char *what)
{
	char msg[1024];
	snprintf(msg, sizeof msg, "%s", pq.errorMessage(c));
	size_t n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = 0;
	return ib_fail(e, IB_EIO, NULL, 0, 0, "postgresql: %s: %s", what, msg);
}

int res_db_pg_open(const char *url, void **h, ib_error *e)
{
	pthread_once(&pq_once, pq_load);
	if (pq_why[0])
		return ib_fail(e, IB_EIO, NULL, 0, 0,
		               "postgresql: cannot load libpq (Debian package libpq5): %s", pq_why);
	PGconn *c = pq.connectdb(url);
	if (!c)
		return IB_ENOMEM;
	if (pq.status(c) != CONNECTION_OK) {
		/* libpq quotes the URL, or its password, in some errors (an
		 * unclosed '[', a bad %-escape): redacted before any cut */
		char *safe = res_db_redact(url, pq.errorMessage(c));
		size_t n = safe ? strlen(safe) : 0;
		while (n && (safe[n - 1] == '\n' || safe[n - 1] == ' '))
			safe[--n] = 0;
		pq.finish(c);
		int rc = ib_fail(e, IB_EIO, NULL, 0, 0, "postgresql: cannot connect: %s",
		                 safe ? safe : "(out of memory)");
		free(safe);
		return rc;
	}
	pq.setNoticeProcessor(c, no_notice, NULL);
	*h = c;
	return 0;
}

static int pg_exec(void *h, const char *sql, ib_error *e)
{
	PGresult *r = pq.exec(h, sql);
	ExecStatusType s = pq.resultStatus(r);
	int rc = (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) ? 0 : pg_fail(h, e, "exec");
	pq.clear(r);
	return rc;
}

static int pg_query(void *h, const char *sql, const char *const *params, size_t np, res_dbrows *out,
                    ib_error *e)
{
	if (out)
		memset(out, 0, sizeof *out);
	PGresult *r = pq.execParams(h, sql, (int)np, NULL, params, NULL, NULL, 0);
	ExecStatusType s = pq.resultStatus(r);
	if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
		int rc = pg_fail(h, e, "query");
		pq.clear(r);
		return rc;
	}
	int rc = 0;
	if (out && s == PGRES_TUPLES_OK) {
		size_t nr = (size_t)pq.ntuples(r), nc = (size_t)pq.nfields(r);
		out->ncols = nc;
		out->cells = calloc(nr * nc + 1, sizeof *out->cells);
		if (!out->cells)
			rc = IB_ENOMEM;
		for (size_t i = 0; i < nr && !rc; i++) {
			for (size_t c = 0; c < nc && !rc; c++) {
				if (pq.getisnull(r, (int)i, (int)c))
					continue;
				char *v = strdup(pq.getvalue(r, (int)i, (int)c));
				if (!v)
					rc = IB_ENOMEM;
				out->cells[i * nc + c] = v;
			}
			out->nrows = i + 1;
		}
	}
	pq.clear(r);
	if (rc && out)
		res_dbrows_free(out);
	return rc;
}

static void pg_close(void *h)
{
	pq.finish(h);
}

const res_db_ops res_db_pg_ops = {
    .name = "postgresql",
    .id_type = "BIGSERIAL PRIMARY KEY",
    .json_type = "JSONB",
    .begin = "BEGIN",
    .exec = pg_exec,
    .query = pg_query,
    .close = pg_close,
};
