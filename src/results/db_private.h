/* The results database's backends (private to src/results/): a minimal SQL
 * executor that SQLite (db_sqlite.c) and PostgreSQL (db_pg.c) both provide,
 * so db.c holds every statement and rule once. Parameters are passed as
 * text and written $1..$n in the SQL for both backends (SQLite binds them by
 * name); booleans are passed as "1"/"0". Results come back as text (NULL for
 * SQL NULL): PostgreSQL booleans as "t"/"f", SQLite's as "1"/"0". */
#ifndef IB_RESULTS_DB_PRIVATE_H
#define IB_RESULTS_DB_PRIVATE_H

#include "results/results.h"

typedef struct {
	char **cells; /* row-major nrows * ncols, malloc'd; NULL = SQL NULL */
	size_t nrows, ncols;
} res_dbrows;

void res_dbrows_free(res_dbrows *r);

typedef struct {
	const char *name;      /* "sqlite" / "postgresql" */
	const char *id_type;   /* an auto-increment primary key */
	const char *json_type; /* TEXT / JSONB */
	const char *begin;     /* the statement that starts a write transaction */
	/* Runs one or more statements without parameters or results. */
	int (*exec)(void *h, const char *sql, ib_error *e);
	/* Runs one statement with text parameters; out (may be NULL) gets the rows. */
	int (*query)(void *h, const char *sql, const char *const *params, size_t np,
	             res_dbrows *out, ib_error *e);
	void (*close)(void *h);
} res_db_ops;

/* Opens a backend connection: *h for ops. Errors: IB_EIO with the reason. */
int res_db_sqlite_open(const char *path, void **h, ib_error *e);
int res_db_pg_open(const char *url, void **h, ib_error *e);
extern const res_db_ops res_db_sqlite_ops;
extern const res_db_ops res_db_pg_ops;

struct res_db {
	const res_db_ops *ops;
	void *h;
};

/* Python semantics shared by compare and the database (compare.c):
 * int(v) and float(v) of a JSON value (false with a reason where Python
 * raises), the reference's parse_bool (a bool, or str(v).lower() == "true"),
 * and str.lower()/str.upper() per code point into arena a (NULL: no memory). */
bool res_py_float(const ib_val *v, double *out, const char **why);
bool res_parse_bool(const ib_val *v);
char *res_py_case(ib_arena *a, const char *s, size_t n, bool upper);
/* The hardware name of a runner label: without a trailing -multinode, -trt
 * or -disagg (compare_results.py's extract_hardware, before lower()). */
size_t res_hw_base_len(const char *s, size_t n);

#endif
