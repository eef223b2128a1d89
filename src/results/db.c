/* The results database (docs/db.md): schema and migrations, ingest of agg
 * and eval rows, import of dashboard-shaped rows, queries, the latest view and
 * compare's baseline lookup. Every statement is written once, for both
 * backends (db_private.h). */
#define _GNU_SOURCE /* memmem */
#include "results/db_private.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void res_dbrows_free(res_dbrows *r)
{
	if (!r->cells)
		return;
	for (size_t i = 0; i < r->nrows * r->ncols; i++)
		free(r->cells[i]);
	free(r->cells);
	memset(r, 0, sizeof *r);
}

/* ---- schema ---- */

/* Migration k brings the schema from version k to k + 1. @ID@ and @JSON@
 * stand for the backend's key and JSON column types. */
static const char *const MIGRATIONS[] = {
    "CREATE TABLE configs ("
    " id @ID@,"
    " hardware TEXT NOT NULL, framework TEXT NOT NULL, model TEXT NOT NULL,"
    " precision TEXT NOT NULL, spec_method TEXT NOT NULL,"
    " disagg BOOLEAN NOT NULL, is_multinode BOOLEAN NOT NULL,"
    " prefill_tp BIGINT NOT NULL, prefill_ep BIGINT NOT NULL,"
    " prefill_dp_attention BOOLEAN NOT NULL, prefill_num_workers BIGINT NOT NULL,"
    " decode_tp BIGINT NOT NULL, decode_ep BIGINT NOT NULL,"
    " decode_dp_attention BOOLEAN NOT NULL, decode_num_workers BIGINT NOT NULL,"
    " num_prefill_gpu BIGINT NOT NULL, num_decode_gpu BIGINT NOT NULL,"
    " CONSTRAINT configs_natural_key UNIQUE (hardware, framework, model, precision,"
    "  spec_method, disagg, is_multinode, prefill_tp, prefill_ep, prefill_dp_attention,"
    "  prefill_num_workers, decode_tp, decode_ep, decode_dp_attention, decode_num_workers,"
    "  num_prefill_gpu, num_decode_gpu));"
    "CREATE TABLE workflow_runs ("
    " id @ID@, run_id TEXT NOT NULL UNIQUE, date TEXT NOT NULL,"
    " head_branch TEXT, head_sha TEXT, runner TEXT);"
    "CREATE TABLE benchmark_results ("
    " id @ID@,"
    " workflow_run_id BIGINT NOT NULL REFERENCES workflow_runs(id),"
    " config_id BIGINT NOT NULL REFERENCES configs(id),"
    " benchmark_type TEXT NOT NULL, date TEXT NOT NULL,"
    " isl BIGINT NOT NULL, osl BIGINT NOT NULL, conc BIGINT NOT NULL,"
    " image TEXT, metrics @JSON@ NOT NULL, metrics_text TEXT NOT NULL, error TEXT,"
    " CONSTRAINT benchmark_results_unique UNIQUE (workflow_run_id, config_id,"
    "  benchmark_type, isl, osl, conc));"
    "CREATE INDEX benchmark_results_config_idx"
    " ON benchmark_results (config_id, conc, isl, osl, date);"
    "CREATE INDEX benchmark_results_seq_idx ON benchmark_results (isl, osl, date);"
    "CREATE TABLE eval_results ("
    " id @ID@,"
    " workflow_run_id BIGINT NOT NULL REFERENCES workflow_runs(id),"
    " config_id BIGINT NOT NULL REFERENCES configs(id),"
    " task TEXT NOT NULL, date TEXT NOT NULL,"
    " isl BIGINT NOT NULL, osl BIGINT NOT NULL, conc BIGINT NOT NULL,"
    " metrics @JSON@ NOT NULL, metrics_text TEXT NOT NULL,"
    " CONSTRAINT eval_results_unique UNIQUE (workflow_run_id, config_id, task, isl, osl,"
    "  conc));"
    /* the dashboard's latest_benchmarks: the newest error-free row per
     * (config, conc, isl, osl); a plain view (SQLite has no materialized
     * ones), newest date first, then the later ingested run */
    "CREATE VIEW latest_benchmarks AS SELECT * FROM (SELECT br.*, ROW_NUMBER() OVER"
    " (PARTITION BY br.config_id, br.conc, br.isl, br.osl"
    "  ORDER BY br.date DESC, br.workflow_run_id DESC, br.id DESC) AS rn"
    " FROM benchmark_results br WHERE br.error IS NULL) t WHERE t.rn = 1;",
    /* 2: the simulated mark (rows of infbench sim); rows stored before are
     * unmarked until their agg file is ingested again. The view is made
     * again: PostgreSQL expands its * when it is created. */
    "ALTER TABLE benchmark_results ADD COLUMN simulated BOOLEAN NOT NULL DEFAULT FALSE;"
    "ALTER TABLE eval_results ADD COLUMN simulated BOOLEAN NOT NULL DEFAULT FALSE;"
    "DROP VIEW latest_benchmarks;"
    "CREATE VIEW latest_benchmarks AS SELECT * FROM (SELECT br.*, ROW_NUMBER() OVER"
    " (PARTITION BY br.config_id, br.conc, br.isl, br.osl"
    "  ORDER BY br.date DESC, br.workflow_run_id DESC, br.id DESC) AS rn"
    " FROM benchmark_results br WHERE br.error IS NULL) t WHERE t.rn = 1;",
    /* 3: agentic rows (AgentX trace replay; docs/db.md): no ISL/OSL, the
     * scenario and the KV offload mode in their identity, the validity gate
     * outcome (NULL: the row carried none); latest_agentic is
     * latest_benchmarks' rule over them, less the rows that failed the gate */
    "CREATE TABLE agentic_results ("
    " id @ID@,"
    " workflow_run_id BIGINT NOT NULL REFERENCES workflow_runs(id),"
    " config_id BIGINT NOT NULL REFERENCES configs(id),"
    " scenario TEXT NOT NULL, kv_offloading TEXT NOT NULL, conc BIGINT NOT NULL,"
    " date TEXT NOT NULL, image TEXT, metrics @JSON@ NOT NULL, metrics_text TEXT NOT NULL,"
    " error TEXT, valid BOOLEAN, simulated BOOLEAN NOT NULL DEFAULT FALSE,"
    " CONSTRAINT agentic_results_unique UNIQUE (workflow_run_id, config_id, scenario,"
    "  kv_offloading, conc));"
    "CREATE INDEX agentic_results_config_idx"
    " ON agentic_results (config_id, scenario, kv_offloading, conc, date);"
    "CREATE VIEW latest_agentic AS SELECT * FROM (SELECT ar.*, ROW_NUMBER() OVER"
    " (PARTITION BY ar.config_id, ar.scenario, ar.kv_offloading, ar.conc"
    "  ORDER BY ar.date DESC, ar.workflow_run_id DESC, ar.id DESC) AS rn"
    " FROM agentic_results ar WHERE ar.error IS NULL AND (ar.valid IS NULL OR ar.valid))"
    " t WHERE t.rn = 1;",
    /* 4: the simulator's prediction interval of a simulated row (its agg
     * row's sim_interval as JSON text; NULL: none; docs/sim.md "Prediction
     * intervals"). The view is made again, as in 2. */
    "ALTER TABLE benchmark_results ADD COLUMN sim_interval TEXT;"
    "DROP VIEW latest_benchmarks;"
    "CREATE VIEW latest_benchmarks AS SELECT * FROM (SELECT br.*, ROW_NUMBER() OVER"
    " (PARTITION BY br.config_id, br.conc, br.isl, br.osl"
    "  ORDER BY br.date DESC, br.workflow_run_id DESC, br.id DESC) AS rn"
    " FROM benchmark_results br WHERE br.error IS NULL) t WHERE t.rn = 1;",
};
#define NMIG ((int)(sizeof MIGRATIONS / sizeof MIGRATIONS[0]))

static char *expand(const char *sql, const res_db_ops *ops)
{
	ib_buf b = {0};
	for (const char *p = sql; *p;) {
		if (!strncmp(p, "@ID@", 4)) {
			ib_buf_puts(&b, ops->id_type);
			p += 4;
		} else if (!strncmp(p, "@JSON@", 6)) {
			ib_buf_puts(&b, ops->json_type);
			p += 6;
		} else {
			ib_buf_putc(&b, *p++);
		}
	}
	if (ib_buf_putc(&b, 0)) {
		ib_buf_free(&b);
		return NULL;
	}
	return b.data;
}

static int q(res_db *db, const char *sql, const char *const *p, size_t np, res_dbrows *out,
             ib_error *e)
{
	return db->ops->query(db->h, sql, p, np, out, e);
}

int res_db_schema_version(res_db *db, int *version, ib_error *e)
{
	res_dbrows r;
	int rc = q(db, "SELECT version FROM ib_schema", NULL, 0, &r, e);
	if (rc)
		return rc;
	*version = r.nrows && r.cells[0] ? atoi(r.cells[0]) : 0;
	res_dbrows_free(&r);
	return 0;
}

static int migrate(res_db *db, ib_error *e)
{
	const res_db_ops *o = db->ops;
	int rc =
	    o->exec(db->h, "CREATE TABLE IF NOT EXISTS ib_schema (version INTEGER NOT NULL)", e);
	if (rc)
		return rc;
	if ((rc = o->exec(db->h, o->begin, e)))
		return rc;
	if (db->ops == &res_db_pg_ops) /* one migrator at a time */
		rc = o->exec(db->h, "LOCK TABLE ib_schema IN EXCLUSIVE MODE", e);
	int v = 0;
	res_dbrows r = {0};
	rc = rc ? rc : q(db, "SELECT version FROM ib_schema", NULL, 0, &r, e);
	if (!rc && !r.nrows)
		rc = o->exec(db->h, "INSERT INTO ib_schema (version) VALUES (0)", e);
	else if (!rc && r.cells[0])
		v = atoi(r.cells[0]);
	res_dbrows_free(&r);
	if (!rc && v > NMIG)
		rc = ib_fail(e, IB_EIO, NULL, 0, 0,
		             "the database has schema version %d; this infbench knows up to %d", v,
		             NMIG);
	for (; !rc && v < NMIG; v++) {
		char *sql = expand(MIGRATIONS[v], o);
		rc = sql ? o->exec(db->h, sql, e) : IB_ENOMEM;
		free(sql);
		char up[64];
		snprintf(up, sizeof up, "UPDATE ib_schema SET version = %d", v + 1);
		rc = rc ? rc : o->exec(db->h, up, e);
	}
	if (rc) {
		o->exec(db->h, "ROLLBACK", NULL);
		return rc;
	}
	return o->exec(db->h, "COMMIT", e);
}

/* url[from..to) %-decoded where the escapes are valid, into out (cap >= to - from + 1) */
static void pct_decode(const char *p, size_t n, char *out)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '%' && i + 2 < n && isxdigit((unsigned char)p[i + 1]) &&
		    isxdigit((unsigned char)p[i + 2])) {
			char hex[3] = {p[i + 1], p[i + 2], 0};
			out[k++] = (char)strtol(hex, NULL, 16);
			i += 2;
		} else {
			out[k++] = p[i];
		}
	}
	out[k] = 0;
}

/* Replaces every occurrence of the n bytes at pw in *s by "***". */
static int redact_one(char **s, const char *pw, size_t n)
{
	if (!n)
		return 0;
	ib_buf b = {0};
	const char *p = *s, *hit;
	int rc = 0;
	while (!rc && (hit = memmem(p, strlen(p), pw, n))) {
		rc = ib_buf_append(&b, p, (size_t)(hit - p));
		rc = rc ? rc : ib_buf_puts(&b, "***");
		p = hit + n;
	}
	rc = rc ? rc : ib_buf_puts(&b, p);
	if (rc) {
		ib_buf_free(&b);
		return rc;
	}
	free(*s);
	*s = b.data;
	return 0;
}

/* The raw and %-decoded forms of the password pw[0..n). */
static int redact_span(char **s, const char *pw, size_t n)
{
	char *dec = malloc(n + 1);
	if (!dec)
		return IB_ENOMEM;
	pct_decode(pw, n, dec);
	/* the longer one first: the raw text may contain the decoded one */
	int rc = redact_one(s, pw, n);
	rc = rc ? rc : redact_one(s, dec, strlen(dec));
	free(dec);
	return rc;
}

char *res_db_redact(const char *url, const char *text)
{
	char *s = strdup(text ? text : "");
	if (!s || !url)
		return s;
	int rc = 0;
	const char *sch = strstr(url, "://");
	if (sch) {
		const char *auth = sch + 3, *first = strchr(auth, '@'), *last = strrchr(auth, '@');
		const char *colon = first ? memchr(auth, ':', (size_t)(last - auth)) : NULL;
		if (colon) {
			/* to the last '@' (a password with a raw '@'), then each piece
			 * between the '@'s (libpq cuts at the first one) */
			rc = redact_span(&s, colon + 1, (size_t)(last - colon - 1));
			for (const char *from = colon + 1, *at; !rc && from < last; from = at + 1) {
				at = strchr(from, '@');
				rc = redact_span(&s, from, (size_t)(at - from));
			}
		}
	}
	for (const char *k = url; !rc && (k = strstr(k, "password=")); k++) {
		const char *v = k + 9;
		size_t n = strcspn(v, "& \t'");
		rc = redact_span(&s, v, n);
	}
	if (rc) {
		free(s);
		return NULL;
	}
	return s;
}

int res_db_open(const char *url, bool create, res_db **out, ib_error *e)
{
	*out = NULL;
	res_db *db = calloc(1, sizeof *db);
	if (!db)
		return IB_ENOMEM;
	int rc;
	if (ib_str_has_prefix(url, "postgres://") || ib_str_has_prefix(url, "postgresql://")) {
		db->ops = &res_db_pg_ops;
		rc = res_db_pg_open(url, &db->h, e);
	} else {
		db->ops = &res_db_sqlite_ops;
		const char *path = ib_str_has_prefix(url, "sqlite:") ? url + 7 : url;
		if (!create && access(path, F_OK))
			rc = ib_fail(e, IB_ENOENT, path, 0, 0, "no such database file");
		else
			rc = res_db_sqlite_open(path, &db->h, e);
	}
	if (!rc && (rc = migrate(db, e)))
		db->ops->close(db->h);
	if (rc) {
		free(db);
		return rc;
	}
	*out = db;
	return 0;
}

void res_db_close(res_db *db)
{
	if (!db)
		return;
	db->ops->close(db->h);
	free(db);
}

const char *res_db_backend(const res_db *db)
{
	return db->ops->name;
}

/* ---- rows into the schema ---- */

typedef struct {
	const char *hardware, *framework, *model, *precision, *spec_method;
	bool disagg, is_multinode, pdp, ddp;
	bool simulated;           /* "simulated": true in the row */
	const char *sim_interval; /* its sim_interval as JSON text, or NULL */
	int64_t ptp, pep, pnw, dtp, dep, dnw, npg, ndg;
	const char *kind; /* benchmark_type, the task of an eval row, an agentic row's scenario */
	bool eval;
	bool agentic;        /* an agentic row (agentic_results) */
	const char *offload; /* its kv_offloading ("none" when absent) */
	int valid;           /* its validity gate outcome: 1, 0, -1 none */
	int64_t isl, osl, conc;
	const char *image, *error, *metrics, *date, *run_id, *branch, *sha, *runner;
} db_row;

/* keys of an agg row that are identity, not metrics */
static bool identity_key(const char *k)
{
	static const char *const ids[] = {
	    "isl",
	    "osl",
	    "conc",
	    "tp",
	    "ep",
	    "prefill_tp",
	    "prefill_ep",
	    "prefill_num_workers",
	    "decode_tp",
	    "decode_ep",
	    "decode_num_workers",
	    "num_prefill_gpu",
	    "num_decode_gpu",
	};
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
		if (!strcmp(k, ids[i]))
			return true;
	return false;
}

/* The metrics JSON of a row: every numeric field that is not identity (all:
 * every field, as an imported metrics object is kept verbatim), in row
 * order, then for an agentic row its flat metrics (res_agentic_flat);
 * non-finite values as the strings "NaN", "Infinity", "-Infinity" (JSONB has
 * no such numbers). */
static int metrics_json(ib_arena *a, const ib_val *row, bool all, bool agentic, const char **out,
                        ib_error *e)
{
	ib_val *m = ib_v_map(a);
	int rc = m ? 0 : IB_ENOMEM;
	for (size_t i = 0; i < row->map.n && !rc; i++) {
		const ib_kv *kv = &row->map.kv[i];
		const ib_val *v = kv->val;
		if (!all && ((v->type != IB_V_INT && v->type != IB_V_FLOAT) ||
		             identity_key(kv->key->str.s)))
			continue;
		if (v->type == IB_V_FLOAT && !isfinite(v->f))
			v = ib_v_str(a, isnan(v->f) ? "NaN" : v->f > 0 ? "Infinity" : "-Infinity");
		rc = v ? ib_map_set_key(a, m, kv->key, (ib_val *)v) : IB_ENOMEM;
	}
	if (!rc && agentic) /* the nested metrics win, as the dashboard's {...row, ...flat} */
		rc = res_agentic_flat(a, row, m);
	ib_buf b = {0};
	rc = rc ? rc : ib_json_write(&b, m, &IB_JSON_PYTHON, e);
	*out = rc ? NULL : ib_arena_strndup(a, b.data ? b.data : "{}", b.data ? b.len : 2);
	ib_buf_free(&b);
	return rc ? rc : *out ? 0 : IB_ENOMEM;
}

/* A row's sim_interval (an object: the simulator's prediction interval)
 * as JSON text into *out; NULL when the row has none. 0, IB_EINVAL when it
 * is not an object, IB_ENOMEM. */
static int interval_json(ib_arena *a, const ib_val *row, const char **out, ib_error *e)
{
	const ib_val *v = ib_map_get(row, "sim_interval");
	*out = NULL;
	if (!v || v->type == IB_V_NULL)
		return 0;
	if (v->type != IB_V_MAP)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
		               "field 'sim_interval': expected an object");
	ib_buf b = {0};
	int rc = ib_json_write(&b, v, &IB_JSON_PYTHON, e);
	if (!rc && !(*out = ib_arena_strndup(a, b.data ? b.data : "{}", b.data ? b.len : 2)))
		rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	ib_buf_free(&b);
	return rc;
}

static int need(const ib_val *row, const char *key, const ib_val **v, ib_error *e)
{
	*v = ib_map_get(row, key);
	return *v ? 0 : ib_fail(e, IB_EINVAL, NULL, 0, 0, "missing field '%s'", key);
}

static int lstr(ib_arena *a, const ib_val *row, const char *key, const char *dflt, const char **out,
                ib_error *e)
{
	const ib_val *v = ib_map_get(row, key);
	if (!v || v->type == IB_V_NULL || (v->type == IB_V_STR && !v->str.len && dflt)) {
		if (!dflt)
			return ib_fail(e, IB_EINVAL, NULL, 0, 0, "missing field '%s'", key);
		*out = dflt;
		return 0;
	}
	if (v->type != IB_V_STR)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "field '%s': expected a string, got %s",
		               key, ib_vtype_pyname(v));
	*out = res_py_case(a, v->str.s, v->str.len, false);
	return *out ? 0 : IB_ENOMEM;
}

static int lint(const ib_val *row, const char *key, int64_t dflt, bool required, int64_t *out,
                ib_error *e)
{
	const ib_val *v = ib_map_get(row, key);
	const char *why = "";
	if (!v || v->type == IB_V_NULL) {
		if (required)
			return ib_fail(e, IB_EINVAL, NULL, 0, 0, "missing field '%s'", key);
		*out = dflt;
		return 0;
	}
	if (v->type == IB_V_BOOL || !ib_val_py_int(v, out, &why))
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "field '%s': not an integer (%s)", key,
		               v->type == IB_V_BOOL ? "a bool" : why);
	return 0;
}

/* A string with a NUL (JSON "\u0000") anywhere in v, keys included: neither
 * SQLite's text binding nor PostgreSQL's text and JSONB can hold it, so the
 * row is refused rather than silently cut. */
static int no_nul(const ib_val *v, const char *field, ib_error *e)
{
	if (v->type == IB_V_STR && memchr(v->str.s, 0, v->str.len))
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
		               "field '%s' (line %d): a string with \\u0000 (NUL), which the "
		               "database cannot store",
		               field, v->line);
	if (v->type == IB_V_LIST)
		for (size_t i = 0; i < v->list.n; i++) {
			int rc = no_nul(v->list.v[i], field, e);
			if (rc)
				return rc;
		}
	if (v->type == IB_V_MAP)
		for (size_t i = 0; i < v->map.n; i++) {
			const ib_val *k = v->map.kv[i].key;
			const char *name = k->type == IB_V_STR ? k->str.s : field;
			int rc = no_nul(k, name, e);
			rc = rc ? rc : no_nul(v->map.kv[i].val, name, e);
			if (rc)
				return rc;
		}
	return 0;
}

/* An agg row (or eval row) of the results pipeline into db_row. */
static int map_agg_row(ib_arena *a, const ib_val *row, db_row *d, ib_error *e)
{
	memset(d, 0, sizeof *d);
	int nul = no_nul(row, "?", e);
	if (nul)
		return nul;
	const ib_val *hw, *task = ib_map_get(row, "task");
	int rc = need(row, "hw", &hw, e);
	if (rc)
		return rc;
	if (hw->type != IB_V_STR)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "field 'hw': expected a string");
	d->hardware = res_py_case(a, hw->str.s, res_hw_base_len(hw->str.s, hw->str.len), false);
	const char *mk = ib_map_get(row, "infmax_model_prefix") ? "infmax_model_prefix"
	                 : ib_map_get(row, "model_prefix")      ? "model_prefix"
	                                                        : "model";
	if ((rc = lstr(a, row, mk, NULL, &d->model, e)) ||
	    (rc = lstr(a, row, "framework", NULL, &d->framework, e)) ||
	    (rc = lstr(a, row, "precision", NULL, &d->precision, e)) ||
	    (rc = lstr(a, row, "spec_decoding", "none", &d->spec_method, e)))
		return rc;
	d->disagg = res_parse_bool(ib_map_get(row, "disagg"));
	d->is_multinode = ib_val_truthy(ib_map_get(row, "is_multinode"));
	if (d->is_multinode || ib_map_get(row, "prefill_tp")) {
		if ((rc = lint(row, "prefill_tp", 0, true, &d->ptp, e)) ||
		    (rc = lint(row, "prefill_ep", 1, false, &d->pep, e)) ||
		    (rc = lint(row, "prefill_num_workers", 0, false, &d->pnw, e)) ||
		    (rc = lint(row, "decode_tp", 0, true, &d->dtp, e)) ||
		    (rc = lint(row, "decode_ep", 1, false, &d->dep, e)) ||
		    (rc = lint(row, "decode_num_workers", 0, false, &d->dnw, e)) ||
		    (rc = lint(row, "num_prefill_gpu", 0, false, &d->npg, e)) ||
		    (rc = lint(row, "num_decode_gpu", 0, false, &d->ndg, e)))
			return rc;
		d->pdp = res_parse_bool(ib_map_get(row, "prefill_dp_attention"));
		d->ddp = res_parse_bool(ib_map_get(row, "decode_dp_attention"));
	} else {
		if ((rc = lint(row, "tp", 0, true, &d->ptp, e)) ||
		    (rc = lint(row, "ep", 1, false, &d->pep, e)))
			return rc;
		d->dtp = d->ptp;
		d->dep = d->pep;
		d->pdp = d->ddp = res_parse_bool(ib_map_get(row, "dp_attention"));
		d->npg = d->ndg = d->ptp * d->pep; /* the dashboard's v1 rule */
	}
	/* agentic rows: no ISL/OSL; identity adds the scenario and KV offload mode */
	d->agentic = !task && res_agentic_row(row);
	if ((rc = lint(row, "isl", 0, !task && !d->agentic, &d->isl, e)) ||
	    (rc = lint(row, "osl", 0, !task && !d->agentic, &d->osl, e)) ||
	    (rc = lint(row, "conc", 0, true, &d->conc, e)))
		return rc;
	if (d->agentic) {
		d->isl = d->osl = 0;
		const ib_val *st = ib_map_get(row, "scenario_type");
		if (!st || st->type != IB_V_STR)
			st = ib_map_get(row, "benchmark_type");
		d->kind = st->str.s; /* a string: res_agentic_row */
		if ((rc = lstr(a, row, "kv_offloading", "none", &d->offload, e)))
			return rc;
		d->valid = res_agentic_valid(row);
	} else if (task) {
		d->eval = true;
		if ((rc = lstr(a, row, "task", NULL, &d->kind, e)))
			return rc;
	} else {
		const ib_val *st = ib_map_get(row, "scenario_type");
		d->kind = st && st->type == IB_V_STR && st->str.len ? st->str.s : "single_turn";
	}
	d->simulated = res_parse_bool(ib_map_get(row, "simulated"));
	if ((rc = interval_json(a, row, &d->sim_interval, e)))
		return rc;
	const ib_val *img = ib_map_get(row, "image");
	d->image = img && img->type == IB_V_STR ? img->str.s : NULL;
	return metrics_json(a, row, false, d->agentic, &d->metrics, e);
}

/* ---- writing ---- */

typedef struct {
	char *key;
	char id[32];
} cfg_cache;

static void b01(char *out, bool v)
{
	out[0] = v ? '1' : '0';
	out[1] = 0;
}

static int config_id(res_db *db, const db_row *d, char id[32], cfg_cache **cache, size_t *nc,
                     size_t *cap, ib_error *e)
{
	char n[8][24], b[4][2];
	snprintf(n[0], 24, "%lld", (long long)d->ptp);
	snprintf(n[1], 24, "%lld", (long long)d->pep);
	snprintf(n[2], 24, "%lld", (long long)d->pnw);
	snprintf(n[3], 24, "%lld", (long long)d->dtp);
	snprintf(n[4], 24, "%lld", (long long)d->dep);
	snprintf(n[5], 24, "%lld", (long long)d->dnw);
	snprintf(n[6], 24, "%lld", (long long)d->npg);
	snprintf(n[7], 24, "%lld", (long long)d->ndg);
	b01(b[0], d->disagg);
	b01(b[1], d->is_multinode);
	b01(b[2], d->pdp);
	b01(b[3], d->ddp);
	const char *p[17] = {d->hardware, d->framework, d->model, d->precision, d->spec_method,
	                     b[0],        b[1],         n[0],     n[1],         b[2],
	                     n[2],        n[3],         n[4],     b[3],         n[5],
	                     n[6],        n[7]};
	ib_buf key = {0};
	for (int i = 0; i < 17; i++)
		ib_buf_printf(&key, "%s%c", p[i], 1);
	int rc = key.data ? 0 : IB_ENOMEM;
	for (size_t i = 0; i < *nc && !rc; i++)
		if (!strcmp((*cache)[i].key, key.data)) {
			memcpy(id, (*cache)[i].id, 32);
			ib_buf_free(&key);
			return 0;
		}
	static const char ins[] =
	    "INSERT INTO configs (hardware, framework, model, precision, spec_method, disagg,"
	    " is_multinode, prefill_tp, prefill_ep, prefill_dp_attention, prefill_num_workers,"
	    " decode_tp, decode_ep, decode_dp_attention, decode_num_workers, num_prefill_gpu,"
	    " num_decode_gpu) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,"
	    " $14, $15, $16, $17) ON CONFLICT DO NOTHING";
	static const char sel[] =
	    "SELECT id FROM configs WHERE hardware = $1 AND framework = $2 AND model = $3 AND"
	    " precision = $4 AND spec_method = $5 AND disagg = $6 AND is_multinode = $7 AND"
	    " prefill_tp = $8 AND prefill_ep = $9 AND prefill_dp_attention = $10 AND"
	    " prefill_num_workers = $11 AND decode_tp = $12 AND decode_ep = $13 AND"
	    " decode_dp_attention = $14 AND decode_num_workers = $15 AND num_prefill_gpu = $16"
	    " AND num_decode_gpu = $17";
	res_dbrows r = {0};
	rc = rc ? rc : q(db, ins, p, 17, NULL, e);
	rc = rc ? rc : q(db, sel, p, 17, &r, e);
	if (!rc && (!r.nrows || !r.cells[0]))
		rc = ib_fail(e, IB_EIO, NULL, 0, 0, "config row not found after insert");
	if (!rc) {
		snprintf(id, 32, "%s", r.cells[0]);
		rc = ib_grow(cache, cap, *nc + 1);
	}
	if (!rc) {
		(*cache)[*nc].key = key.data;
		memcpy((*cache)[*nc].id, id, 32);
		(*nc)++;
		key.data = NULL;
	}
	res_dbrows_free(&r);
	ib_buf_free(&key);
	return rc;
}

static int run_id(res_db *db, const db_row *d, char id[32], ib_error *e)
{
	const char *p[5] = {d->run_id, d->date, d->branch, d->sha, d->runner};
	res_dbrows r = {0};
	int rc = q(db,
	           "INSERT INTO workflow_runs (run_id, date, head_branch, head_sha, runner)"
	           " VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
	           p, 5, NULL, e);
	rc = rc ? rc : q(db, "SELECT id FROM workflow_runs WHERE run_id = $1", p, 1, &r, e);
	if (!rc && (!r.nrows || !r.cells[0]))
		rc = ib_fail(e, IB_EIO, NULL, 0, 0, "run row not found after insert");
	if (!rc)
		snprintf(id, 32, "%s", r.cells[0]);
	res_dbrows_free(&r);
	return rc;
}

/* Inserts one row of an open transaction; *added tells whether it is new. */
static int put_row(res_db *db, const db_row *d, const char *run, const char *cfg, bool *added,
                   ib_error *e)
{
	char n[3][24];
	snprintf(n[0], 24, "%lld", (long long)d->isl);
	snprintf(n[1], 24, "%lld", (long long)d->osl);
	snprintf(n[2], 24, "%lld", (long long)d->conc);
	char sim[2], valid[2];
	b01(sim, d->simulated);
	b01(valid, d->valid > 0);
	const char *p[13] = {run,      cfg,      d->kind,        d->date,    n[0],
	                     n[1],     n[2],     d->metrics,     d->metrics, sim,
	                     d->image, d->error, d->sim_interval};
	if (d->agentic) /* $5 the offload mode, $6 the gate outcome (NULL: none) */
		p[4] = d->offload, p[5] = d->valid < 0 ? NULL : valid;
	res_dbrows r = {0};
	int rc =
	    q(db,
	      d->agentic
	          ? "INSERT INTO agentic_results (workflow_run_id, config_id, scenario, date,"
	            " kv_offloading, valid, conc, metrics, metrics_text, simulated, image, error)"
	            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
	            " ON CONFLICT DO NOTHING RETURNING id"
	      : d->eval ? "INSERT INTO eval_results (workflow_run_id, config_id, task, date, isl,"
	                  " osl, conc, metrics, metrics_text, simulated) VALUES ($1, $2, $3, $4,"
	                  " $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING RETURNING id"
	                : "INSERT INTO benchmark_results (workflow_run_id, config_id,"
	                  " benchmark_type, date, isl, osl, conc, metrics, metrics_text, simulated,"
	                  " image, error, sim_interval) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9,"
	                  " $10, $11, $12, $13) ON CONFLICT DO NOTHING RETURNING id",
	      p,
	      d->eval      ? 10
	      : d->agentic ? 12
	                   : 13,
	      &r, e);
	*added = !rc && r.nrows > 0;
	res_dbrows_free(&r);
	/* a row stored before the mark existed gets it when ingested again */
	const char *up[8] = {run, cfg, d->kind, n[0], n[1], n[2], sim, d->sim_interval};
	if (!rc && !*added && d->simulated && d->agentic) {
		const char *ua[6] = {run, cfg, d->kind, d->offload, n[2], sim};
		return q(db,
		         "UPDATE agentic_results SET simulated = $6 WHERE workflow_run_id = $1 AND"
		         " config_id = $2 AND scenario = $3 AND kv_offloading = $4 AND conc = $5",
		         ua, 6, NULL, e);
	}
	if (!rc && !*added && d->simulated)
		rc = q(db,
		       d->eval ? "UPDATE eval_results SET simulated = $7 WHERE workflow_run_id = $1"
		                 " AND config_id = $2 AND task = $3 AND isl = $4 AND osl = $5"
		                 " AND conc = $6"
		               : "UPDATE benchmark_results SET simulated = $7, sim_interval = $8"
		                 " WHERE workflow_run_id = $1 AND config_id = $2 AND benchmark_type"
		                 " = $3 AND isl = $4 AND osl = $5 AND conc = $6",
		       up, d->eval ? 7 : 8, NULL, e);
	return rc;
}

static int write_rows(res_db *db, db_row *rows, size_t n, const res_run_meta *m,
                      res_ingest_stats *st, ib_error *e)
{
	cfg_cache *cache = NULL;
	size_t nc = 0, cap = 0;
	int rc = db->ops->exec(db->h, db->ops->begin, e);
	char run[32] = "", cfg[32];
	const char *last_run = NULL;
	for (size_t i = 0; i < n && !rc; i++) {
		db_row *d = &rows[i];
		if (!last_run || strcmp(last_run, d->run_id)) {
			rc = run_id(db, d, run, e);
			last_run = d->run_id;
		}
		bool added = false;
		rc = rc ? rc : config_id(db, d, cfg, &cache, &nc, &cap, e);
		rc = rc ? rc : put_row(db, d, run, cfg, &added, e);
		if (d->eval) {
			st->evals++;
			st->evals_inserted += added;
		} else if (d->agentic) {
			st->agentic++;
			st->agentic_inserted += added;
		} else {
			st->rows++;
			st->inserted += added;
			st->existing += !added;
		}
		if (!rc && m && m->progress && m->progress_every &&
		    (i + 1) % m->progress_every == 0) {
			char line[96];
			snprintf(line, sizeof line, "ingest: %zu of %zu rows written", i + 1, n);
			m->progress(m->progress_ctx, IB_LOG_PROGRESS, line);
		}
	}
	for (size_t i = 0; i < nc; i++)
		free(cache[i].key);
	free(cache);
	if (rc) {
		db->ops->exec(db->h, "ROLLBACK", NULL);
		return rc;
	}
	return db->ops->exec(db->h, "COMMIT", e);
}

static void today(char out[16])
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 16, "%Y-%m-%d", &tm);
}

int res_db_ingest(res_db *db, const res_run_meta *m, const char *const *files, size_t nfiles,
                  res_ingest_stats *st, ib_error *e)
{
	res_ingest_stats dummy;
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof *st);
	ib_arena *a = ib_arena_new();
	if (!a)
		return IB_ENOMEM;
	db_row *rows = NULL;
	size_t n = 0, cap = 0;
	char date[16], rid[40];
	today(date);
	ib_sha256 h;
	ib_sha256_init(&h);
	int rc = 0;
	for (size_t f = 0; f < nfiles && !rc; f++) {
		ib_buf text = {0};
		ib_val *v = NULL;
		rc = ib_read_file_max(files[f], IB_JSON_MAX_FILE, &text, e);
		rc = rc ? rc
		        : ib_json_parse(a, files[f], text.data ? text.data : "", text.len, &v, e);
		if (!rc)
			ib_sha256_update(&h, text.data ? text.data : "", text.len);
		ib_buf_free(&text);
		if (rc) {
			if (!e->file[0])
				snprintf(e->file, sizeof e->file, "%s", files[f]);
			break;
		}
		size_t cnt = v->type == IB_V_LIST ? v->list.n : 1;
		for (size_t j = 0; j < cnt && !rc; j++) {
			const ib_val *r = v->type == IB_V_LIST ? v->list.v[j] : v;
			if ((rc = ib_grow(&rows, &cap, n + 1)))
				break;
			if (r->type != IB_V_MAP)
				rc = ib_fail(e, IB_EINVAL, NULL, 0, 0, "not a JSON object");
			else
				rc = map_agg_row(a, r, &rows[n], e);
			if (rc && rc != IB_ENOMEM) {
				char msg[2010];
				snprintf(msg, sizeof msg, "%.2000s", e->msg);
				ib_fail(e, rc, files[f], 0, 0, "row %zu: %s", j + 1, msg);
			}
			n++;
		}
	}
	if (!rc) {
		uint8_t dig[32];
		ib_sha256_final(&h, dig);
		snprintf(rid, sizeof rid, "sha256:");
		for (int i = 0; i < 8; i++)
			snprintf(rid + 7 + 2 * i, 3, "%02x", dig[i]);
		for (size_t i = 0; i < n; i++) {
			rows[i].run_id = m && m->run_id ? m->run_id : rid;
			rows[i].date = m && m->date ? m->date : date;
			rows[i].branch = m ? m->branch : NULL;
			rows[i].sha = m ? m->sha : NULL;
			rows[i].runner = m ? m->runner : NULL;
		}
		rc = write_rows(db, rows, n, m, st, e);
	}
	free(rows);
	ib_arena_free(a);
	return rc;
}

/* ---- import of dashboard-shaped rows ---- */

static bool imp_str(const ib_val *r, const char *k, const char **out)
{
	const ib_val *v = ib_map_get(r, k);
	if (!v || v->type != IB_V_STR)
		return false;
	*out = v->str.s;
	return true;
}

static bool imp_bool(const ib_val *r, const char *k, bool *out)
{
	const ib_val *v = ib_map_get(r, k);
	if (!v || v->type != IB_V_BOOL)
		return false;
	*out = v->b;
	return true;
}

static bool imp_int(const ib_val *r, const char *k, int64_t dflt, bool required, int64_t *out)
{
	const ib_val *v = ib_map_get(r, k);
	if (!v)
		*out = dflt;
	else if (v->type == IB_V_INT)
		*out = v->i;
	else if (v->type == IB_V_FLOAT && v->f == floor(v->f) && fabs(v->f) < 9e18)
		*out = (int64_t)v->f;
	else
		return false;
	return v || !required;
}

static int import_row(ib_arena *a, const ib_val *r, db_row *d, bool *ok, ib_error *e)
{
	memset(d, 0, sizeof *d);
	const ib_val *met = ib_map_get(r, "metrics"), *err = ib_map_get(r, "error");
	*ok = r->type == IB_V_MAP && imp_str(r, "hardware", &d->hardware) &&
	      imp_str(r, "framework", &d->framework) && imp_str(r, "model", &d->model) &&
	      imp_str(r, "precision", &d->precision) &&
	      imp_str(r, "spec_method", &d->spec_method) && imp_bool(r, "disagg", &d->disagg) &&
	      imp_bool(r, "is_multinode", &d->is_multinode) &&
	      imp_int(r, "prefill_tp", 0, true, &d->ptp) &&
	      imp_int(r, "prefill_ep", 0, true, &d->pep) &&
	      imp_bool(r, "prefill_dp_attention", &d->pdp) &&
	      imp_int(r, "decode_tp", 0, true, &d->dtp) &&
	      imp_int(r, "decode_ep", 0, true, &d->dep) &&
	      imp_bool(r, "decode_dp_attention", &d->ddp) &&
	      imp_int(r, "prefill_num_workers", 0, false, &d->pnw) &&
	      imp_int(r, "decode_num_workers", 0, false, &d->dnw) &&
	      imp_int(r, "num_prefill_gpu", 0, false, &d->npg) &&
	      imp_int(r, "num_decode_gpu", 0, false, &d->ndg) &&
	      imp_int(r, "isl", 0, true, &d->isl) && imp_int(r, "osl", 0, true, &d->osl) &&
	      imp_int(r, "conc", 0, true, &d->conc) && imp_str(r, "date", &d->date) && met &&
	      met->type == IB_V_MAP;
	if (!*ok)
		return 0;
	d->kind = "single_turn";
	imp_str(r, "benchmark_type", &d->kind);
	imp_str(r, "image", &d->image);
	imp_str(r, "head_branch", &d->branch);
	imp_str(r, "head_sha", &d->sha);
	if (err && err->type != IB_V_NULL) {
		ib_buf b = {0};
		ib_val_pystr(&b, err);
		d->error = ib_arena_strndup(a, b.data ? b.data : "", b.len);
		ib_buf_free(&b);
	}
	int rc = metrics_json(a, met, true, false, &d->metrics, e);
	if (rc)
		return rc;
	if (!imp_str(r, "run_id", &d->run_id)) {
		ib_buf b = {0};
		rc = ib_json_write(&b, r, &IB_JSON_PYTHON, e);
		char hex[65];
		ib_sha256_hex(b.data ? b.data : "", b.len, hex);
		ib_buf_free(&b);
		d->run_id = ib_arena_printf(a, "import:%.16s", hex);
	}
	return rc;
}

int res_db_import(res_db *db, const char *file, res_ingest_stats *st, size_t *skipped, ib_error *e)
{
	res_ingest_stats dummy;
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof *st);
	*skipped = 0;
	ib_arena *a = ib_arena_new();
	if (!a)
		return IB_ENOMEM;
	ib_val *v = NULL;
	db_row *rows = NULL;
	size_t n = 0, cap = 0;
	int rc = ib_json_parse_file(a, file, &v, e);
	if (!rc && v->type != IB_V_LIST)
		rc = ib_fail(e, IB_EINVAL, file, 0, 0, "expected a JSON list of rows");
	for (size_t i = 0; !rc && i < v->list.n; i++) {
		bool ok;
		if ((rc = ib_grow(&rows, &cap, n + 1)))
			break;
		rc = no_nul(v->list.v[i], "?", e);
		if (rc) {
			char msg[2010];
			snprintf(msg, sizeof msg, "%.2000s", e->msg);
			ib_fail(e, rc, file, v->list.v[i]->line, 0, "row %zu: %s", i + 1, msg);
			break;
		}
		rc = import_row(a, v->list.v[i], &rows[n], &ok, e);
		if (ok)
			n++;
		else
			(*skipped)++;
	}
	rc = rc ? rc : write_rows(db, rows, n, NULL, st, e);
	free(rows);
	ib_arena_free(a);
	return rc;
}
