/* The results database on PostgreSQL (libpq): text parameters, text results;
 * notices are dropped (the library does not print). */
#include "results/db_private.h"

#include <libpq-fe.h>
#include <stdlib.h>
#include <string.h>

static void no_notice(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

static int pg_fail(PGconn *c, ib_error *e, const char *what)
{
	char msg[1024];
	snprintf(msg, sizeof msg, "%s", PQerrorMessage(c));
	size_t n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = 0;
	return ib_fail(e, IB_EIO, NULL, 0, 0, "postgresql: %s: %s", what, msg);
}

int res_db_pg_open(const char *url, void **h, ib_error *e)
{
	PGconn *c = PQconnectdb(url);
	if (!c)
		return IB_ENOMEM;
	if (PQstatus(c) != CONNECTION_OK) {
		int rc = pg_fail(c, e, "cannot connect");
		PQfinish(c);
		return rc;
	}
	PQsetNoticeProcessor(c, no_notice, NULL);
	*h = c;
	return 0;
}

static int pg_exec(void *h, const char *sql, ib_error *e)
{
	PGresult *r = PQexec(h, sql);
	ExecStatusType s = PQresultStatus(r);
	int rc = (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) ? 0 : pg_fail(h, e, "exec");
	PQclear(r);
	return rc;
}

static int pg_query(void *h, const char *sql, const char *const *params, size_t np, res_dbrows *out,
                    ib_error *e)
{
	if (out)
		memset(out, 0, sizeof *out);
	PGresult *r = PQexecParams(h, sql, (int)np, NULL, params, NULL, NULL, 0);
	ExecStatusType s = PQresultStatus(r);
	if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
		int rc = pg_fail(h, e, "query");
		PQclear(r);
		return rc;
	}
	int rc = 0;
	if (out && s == PGRES_TUPLES_OK) {
		size_t nr = (size_t)PQntuples(r), nc = (size_t)PQnfields(r);
		out->ncols = nc;
		out->cells = calloc(nr * nc + 1, sizeof *out->cells);
		if (!out->cells)
			rc = IB_ENOMEM;
		for (size_t i = 0; i < nr && !rc; i++) {
			for (size_t c = 0; c < nc && !rc; c++) {
				if (PQgetisnull(r, (int)i, (int)c))
					continue;
				char *v = strdup(PQgetvalue(r, (int)i, (int)c));
				if (!v)
					rc = IB_ENOMEM;
				out->cells[i * nc + c] = v;
			}
			out->nrows = i + 1;
		}
	}
	PQclear(r);
	if (rc && out)
		res_dbrows_free(out);
	return rc;
}

static void pg_close(void *h)
{
	PQfinish(h);
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
