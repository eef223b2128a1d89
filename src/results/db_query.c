/* Reading the results database (docs/db.md): filtered queries over
 * benchmark_results / latest_benchmarks / eval_results, and compare's
 * baseline lookup. Rows are sorted here, not in SQL, so that both backends
 * give the same bytes whatever their collation. */
#define _GNU_SOURCE /* qsort_r */
#include "results/db_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* column kinds of the query's select list */
enum { K_STR, K_INT, K_BOOL, K_JSON };
static const struct {
	const char *name, *expr;
	int kind;
} COLS[] = {
    {"run_id", "wr.run_id", K_STR},
    {"date", "br.date", K_STR},
    {"branch", "wr.head_branch", K_STR},
    {"sha", "wr.head_sha", K_STR},
    {"runner", "wr.runner", K_STR},
    {"hardware", "c.hardware", K_STR},
    {"framework", "c.framework", K_STR},
    {"model", "c.model", K_STR},
    {"precision", "c.precision", K_STR},
    {"spec_method", "c.spec_method", K_STR},
    {"disagg", "c.disagg", K_BOOL},
    {"is_multinode", "c.is_multinode", K_BOOL},
    {"prefill_tp", "c.prefill_tp", K_INT},
    {"prefill_ep", "c.prefill_ep", K_INT},
    {"prefill_dp_attention", "c.prefill_dp_attention", K_BOOL},
    {"prefill_num_workers", "c.prefill_num_workers", K_INT},
    {"decode_tp", "c.decode_tp", K_INT},
    {"decode_ep", "c.decode_ep", K_INT},
    {"decode_dp_attention", "c.decode_dp_attention", K_BOOL},
    {"decode_num_workers", "c.decode_num_workers", K_INT},
    {"num_prefill_gpu", "c.num_prefill_gpu", K_INT},
    {"num_decode_gpu", "c.num_decode_gpu", K_INT},
    {"benchmark_type", "br.benchmark_type", K_STR}, /* "task" for evals */
    {"isl", "br.isl", K_INT},
    {"osl", "br.osl", K_INT},
    {"conc", "br.conc", K_INT},
    {"image", "br.image", K_STR},
    {"error", "br.error", K_STR},
    {"metrics", "br.metrics_text", K_JSON},
    {"simulated", "br.simulated", K_BOOL}, /* in the output only when true */
    /* agentic rows only (NULL, and not in the output, for the others) */
    {"kv_offloading", "br.kv_offloading", K_STR},
    {"valid", "br.valid", K_BOOL}, /* in the output only when not NULL */
    /* benchmark rows only, in the output only when not NULL */
    {"sim_interval", "br.sim_interval", K_JSON},
};
#define NCOLS (sizeof COLS / sizeof COLS[0])
#define C_KV  30 /* kv_offloading */
/* sort order: identity (hardware .. benchmark_type), isl, osl, kv_offloading,
 * conc, date, run */
static const int ORDER[] = {5,  6,  7,  8,  9,  10, 11, 12, 13,   14, 15, 16,
                            17, 18, 19, 20, 21, 22, 23, 24, C_KV, 25, 1,  0};

static bool truthy(const char *s)
{
	return s && (!strcmp(s, "1") || !strcmp(s, "t") || !strcmp(s, "true"));
}

static int cell_cmp(const char *a, const char *b, int kind)
{
	if (!a || !b)
		return (!a != !b) ? (!a ? -1 : 1) : 0;
	if (kind == K_INT) {
		long long x = atoll(a), y = atoll(b);
		return x < y ? -1 : x > y;
	}
	if (kind == K_BOOL)
		return truthy(a) - truthy(b);
	return strcmp(a, b);
}

/* The rows' cells, the context of row_cmp (qsort_r: no globals, so two
 * queries may sort at once). */
typedef struct {
	char **cells;
	size_t ncols;
} row_order;

static int row_cmp(const void *pa, const void *pb, void *ctx)
{
	const row_order *o = ctx;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	for (size_t i = 0; i < sizeof ORDER / sizeof ORDER[0]; i++) {
		int c = ORDER[i];
		int r = cell_cmp(o->cells[a * o->ncols + (size_t)c],
		                 o->cells[b * o->ncols + (size_t)c], COLS[c].kind);
		if (r)
			return r;
	}
	return a < b ? -1 : a > b;
}

/* A stored metrics text as a map with its keys sorted and the non-finite
 * markers back as numbers. */
static int metrics_val(ib_arena *a, const char *text, bool sorted, ib_val **out, ib_error *e)
{
	ib_val *v = NULL;
	int rc = ib_json_parse(a, "metrics", text, strlen(text), &v, e);
	if (rc)
		return rc;
	if (v->type != IB_V_MAP)
		return ib_fail(e, IB_EPARSE, NULL, 0, 0, "stored metrics are not an object");
	for (size_t i = 0; i < v->map.n; i++) {
		ib_val *x = v->map.kv[i].val;
		if (x->type != IB_V_STR)
			continue;
		if (!strcmp(x->str.s, "NaN"))
			v->map.kv[i].val = ib_v_float(a, NAN);
		else if (!strcmp(x->str.s, "Infinity"))
			v->map.kv[i].val = ib_v_float(a, INFINITY);
		else if (!strcmp(x->str.s, "-Infinity"))
			v->map.kv[i].val = ib_v_float(a, -INFINITY);
	}
	for (size_t i = 1; sorted && i < v->map.n; i++) /* insertion sort: few keys */
		for (size_t j = i;
		     j > 0 && strcmp(v->map.kv[j - 1].key->str.s, v->map.kv[j].key->str.s) > 0;
		     j--) {
			ib_kv t = v->map.kv[j];
			v->map.kv[j] = v->map.kv[j - 1];
			v->map.kv[j - 1] = t;
		}
	*out = v;
	return 0;
}

static int add_filter(ib_buf *sql, const char **p, size_t *np, const char *expr, const char *op,
                      const char *val)
{
	if (!val)
		return 0;
	p[*np] = val;
	(*np)++;
	return ib_buf_printf(sql, " AND %s %s $%zu", expr, op, *np);
}

int res_db_query(res_db *db, const res_db_filter *f, ib_arena *a, ib_val **rows, ib_error *e)
{
	ib_buf sql = {0};
	char n[3][24];
	const char *p[16];
	size_t np = 0;
	bool ag = !f->evals && (f->agentic || f->scenario);
	ib_buf_puts(&sql, "SELECT ");
	for (size_t i = 0; i < NCOLS; i++) {
		const char *x = COLS[i].expr, *name = COLS[i].name;
		if (f->evals && !strcmp(name, "benchmark_type"))
			x = "br.task";
		else if (f->evals && (!strcmp(name, "image") || !strcmp(name, "error")))
			x = "NULL";
		else if (ag && !strcmp(name, "benchmark_type"))
			x = "br.scenario";
		else if (ag ? !strcmp(name, "isl") || !strcmp(name, "osl")
		            : !strcmp(name, "kv_offloading") || !strcmp(name, "valid"))
			x = "NULL";
		if ((ag || f->evals) && !strcmp(name, "sim_interval"))
			x = "NULL";
		ib_buf_printf(&sql, "%s%s", i ? ", " : "", x);
	}
	ib_buf_printf(&sql,
	              " FROM %s br JOIN configs c ON c.id = br.config_id"
	              " JOIN workflow_runs wr ON wr.id = br.workflow_run_id WHERE 1 = 1",
	              f->evals    ? "eval_results"
	              : ag        ? (f->latest ? "latest_agentic" : "agentic_results")
	              : f->latest ? "latest_benchmarks"
	                          : "benchmark_results");
	if (ag)
		add_filter(&sql, p, &np, "br.scenario", "=", f->scenario);
	add_filter(&sql, p, &np, "c.model", "=", f->model);
	add_filter(&sql, p, &np, "c.hardware", "=", f->hardware);
	add_filter(&sql, p, &np, "c.framework", "=", f->framework);
	add_filter(&sql, p, &np, "c.precision", "=", f->precision);
	add_filter(&sql, p, &np, "c.spec_method", "=", f->spec_method);
	add_filter(&sql, p, &np, "br.date", ">=", f->since);
	add_filter(&sql, p, &np, "br.date", "<=", f->until);
	add_filter(&sql, p, &np, "wr.head_branch", "=", f->branch);
	add_filter(&sql, p, &np, "wr.run_id", "=", f->run_id);
	if (f->simulated)
		ib_buf_puts(&sql, f->simulated > 0 ? " AND br.simulated" : " AND NOT br.simulated");
	const int64_t iv[3] = {f->isl, f->osl, f->conc};
	static const char *const ie[3] = {"br.isl", "br.osl", "br.conc"};
	for (int i = ag ? 2 : 0; i < 3; i++) /* agentic rows have no ISL/OSL */
		if (iv[i]) {
			snprintf(n[i], sizeof n[i], "%lld", (long long)iv[i]);
			add_filter(&sql, p, &np, ie[i], "=", n[i]);
		}
	if (ib_buf_putc(&sql, 0)) {
		ib_buf_free(&sql);
		return IB_ENOMEM;
	}
	res_dbrows r = {0};
	int rc = db->ops->query(db->h, sql.data, p, np, &r, e);
	ib_buf_free(&sql);
	if (rc)
		return rc;
	size_t *idx = malloc((r.nrows + 1) * sizeof *idx);
	ib_val *list = ib_v_list(a);
	if (!idx || !list)
		rc = IB_ENOMEM;
	for (size_t i = 0; i < r.nrows && !rc; i++)
		idx[i] = i;
	if (!rc) {
		row_order ro = {.cells = r.cells, .ncols = r.ncols};
		qsort_r(idx, r.nrows, sizeof *idx, row_cmp, &ro);
	}
	for (size_t k = 0; k < r.nrows && !rc; k++) {
		char **c = &r.cells[idx[k] * r.ncols];
		ib_val *m = ib_v_map_cap(a, NCOLS);
		for (size_t i = 0; i < NCOLS && !rc && m; i++) {
			ib_val *v = NULL;
			if (!c[i])
				v = ib_v_null(a);
			else if (COLS[i].kind == K_INT)
				v = ib_v_int(a, atoll(c[i]));
			else if (COLS[i].kind == K_BOOL)
				v = ib_v_bool(a, truthy(c[i]));
			else if (COLS[i].kind == K_JSON)
				rc = metrics_val(a, c[i], true, &v, e);
			else
				v = ib_v_str(a, c[i]);
			const char *name = f->evals && !strcmp(COLS[i].name, "benchmark_type")
			                       ? "task"
			                       : COLS[i].name;
			if (!rc && f->evals && (!strcmp(name, "image") || !strcmp(name, "error")))
				continue;
			if (!rc && !c[i] && !strcmp(name, "sim_interval"))
				continue;
			if (!rc && !strcmp(name, "simulated") && !truthy(c[i]))
				continue;
			if (!rc && (ag ? !strcmp(name, "valid") && !c[i]
			               : !strcmp(name, "kv_offloading") || !strcmp(name, "valid")))
				continue;
			rc = rc ? rc : v ? ib_map_set(a, m, name, v) : IB_ENOMEM;
		}
		rc = rc ? rc : m ? ib_list_push(a, list, m) : IB_ENOMEM;
	}
	free(idx);
	res_dbrows_free(&r);
	if (!rc)
		*rows = list;
	return rc;
}

/* The 16 text parameters of compare's baseline query for key k (num holds
 * the numbers' text). */
static void key_params(const res_cfg_key *k, const char *branch, char num[7][24], const char *p[16])
{
	long long iv[7] = {k->prefill_tp, k->prefill_ep, k->decode_tp, k->decode_ep,
	                   k->isl,        k->osl,        k->conc};
	for (int i = 0; i < 7; i++)
		snprintf(num[i], sizeof num[i], "%lld", iv[i]);
	const char *v[16] = {k->hardware,
	                     k->framework,
	                     k->precision,
	                     k->spec_method,
	                     k->disagg ? "1" : "0",
	                     k->is_multinode ? "1" : "0",
	                     num[0],
	                     num[1],
	                     k->prefill_dp_attention ? "1" : "0",
	                     num[2],
	                     num[3],
	                     k->decode_dp_attention ? "1" : "0",
	                     num[4],
	                     num[5],
	                     num[6],
	                     branch ? branch : "main"};
	memcpy(p, v, sizeof v);
}

/* The baselines of k among result rows [from, to) of r, whose columns from
 * col are metrics_text, model, simulated, newest first: compare_results.py's
 * LIKE on the model runs here, in C, so that both backends match the same
 * way (case-sensitive, no escape). */
static int pick(const res_dbrows *r, size_t from, size_t to, size_t col, const res_cfg_key *k,
                ib_arena *a, size_t max, ib_val ***out, size_t *n, ib_error *e)
{
	int rc = 0;
	size_t plen = strlen(k->model);
	char *pat = malloc(plen + 2);
	ib_val **v = ib_arena_alloc(a, (max ? max : 1) * sizeof *v);
	if (!pat || !v)
		rc = IB_ENOMEM;
	if (pat) {
		memcpy(pat, k->model, plen);
		memcpy(pat + plen, "%", 2);
	}
	for (size_t i = from; i < to && !rc && *n < max; i++) {
		char *const *c = &r->cells[i * r->ncols + col];
		if (!c[1] || !c[0] || !res_sql_like(c[1], strlen(c[1]), pat, plen + 1))
			continue;
		rc = metrics_val(a, c[0], false, &v[*n], e);
		if (!rc && truthy(c[2]) && ib_map_set(a, v[*n], "simulated", ib_v_bool(a, true)))
			rc = IB_ENOMEM;
		if (!rc)
			(*n)++;
	}
	free(pat);
	*out = v;
	return rc;
}

/* What res_db_prefetch fetched: the parameters of each key (joined, to
 * recognise the key when its lookup comes), and its rows' range. */
struct res_db_batch {
	res_dbrows r;
	size_t nkeys, next;
	char **params;
	size_t *from, *to;
};

void res_db_baseline_free(res_db_baseline *b)
{
	struct res_db_batch *t = b ? b->batch : NULL;
	if (!t)
		return;
	res_dbrows_free(&t->r);
	for (size_t i = 0; i < t->nkeys; i++)
		free(t->params[i]);
	free(t->params);
	free(t->from);
	free(t->to);
	free(t);
	b->batch = NULL;
}

static char *joined(const char *const p[16])
{
	ib_buf b = {0};
	for (int i = 0; i < 16; i++) {
		ib_buf_puts(&b, p[i]);
		ib_buf_putc(&b, '\x1f');
	}
	if (ib_buf_putc(&b, 0)) {
		ib_buf_free(&b);
		return NULL;
	}
	return b.data;
}

/* Appends p as an element of a PostgreSQL array literal: quoted, with \ and
 * " escaped. */
static void array_item(ib_buf *b, const char *p, bool first)
{
	ib_buf_puts(b, first ? "{\"" : ",\"");
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			ib_buf_putc(b, '\\');
		ib_buf_putc(b, *p);
	}
	ib_buf_putc(b, '"');
}

int res_db_prefetch(void *ctx, const res_cfg_key *keys, size_t n, ib_error *e)
{
	res_db_baseline *b = ctx;
	if (b->db->ops != &res_db_pg_ops || !n || b->batch)
		return 0; /* SQLite answers each lookup in-process: nothing to save */
	struct res_db_batch *t = calloc(1, sizeof *t);
	ib_buf arr[15] = {{0}};
	int rc = t ? 0 : IB_ENOMEM;
	if (!rc) {
		t->params = calloc(n, sizeof *t->params);
		t->from = calloc(n, sizeof *t->from);
		t->to = calloc(n, sizeof *t->to);
		rc = t->params && t->from && t->to ? 0 : IB_ENOMEM;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		char num[7][24];
		const char *p[16];
		key_params(&keys[i], b->branch, num, p);
		for (int c = 0; c < 15; c++)
			array_item(&arr[c], p[c], i == 0);
		t->params[i] = joined(p);
		t->nkeys = i + 1;
		rc = t->params[i] ? 0 : IB_ENOMEM;
	}
	const char *ap[16];
	for (int c = 0; c < 15 && !rc; c++) {
		rc = ib_buf_puts(&arr[c], "}") || ib_buf_putc(&arr[c], 0) ? IB_ENOMEM : 0;
		ap[c] = arr[c].data;
	}
	ap[15] = b->branch ? b->branch : "main";
	/* every key's baseline query in one statement (one round trip, one plan):
	 * the keys as arrays, unnested with their position */
	static const char sql[] =
	    "SELECT k.i, br.metrics_text, c.model, br.simulated FROM unnest($1::text[],"
	    " $2::text[], $3::text[], $4::text[], $5::boolean[], $6::boolean[], $7::bigint[],"
	    " $8::bigint[], $9::boolean[], $10::bigint[], $11::bigint[], $12::boolean[],"
	    " $13::bigint[], $14::bigint[], $15::bigint[]) WITH ORDINALITY AS k(hardware,"
	    " framework, precision, spec_method, disagg, is_multinode, prefill_tp, prefill_ep,"
	    " prefill_dp_attention, decode_tp, decode_ep, decode_dp_attention, isl, osl, conc, i)"
	    " JOIN configs c ON c.hardware = k.hardware AND c.framework = k.framework"
	    " AND c.precision = k.precision AND c.spec_method = k.spec_method"
	    " AND c.disagg = k.disagg AND c.is_multinode = k.is_multinode"
	    " AND c.prefill_tp = k.prefill_tp AND c.prefill_ep = k.prefill_ep"
	    " AND c.prefill_dp_attention = k.prefill_dp_attention AND c.decode_tp = k.decode_tp"
	    " AND c.decode_ep = k.decode_ep AND c.decode_dp_attention = k.decode_dp_attention"
	    " JOIN benchmark_results br ON br.config_id = c.id AND br.isl = k.isl"
	    " AND br.osl = k.osl AND br.conc = k.conc"
	    " JOIN workflow_runs wr ON wr.id = br.workflow_run_id"
	    " WHERE wr.head_branch = $16 AND br.error IS NULL"
	    " ORDER BY k.i, br.date DESC, br.workflow_run_id DESC, br.id DESC";
	if (!rc)
		rc = b->db->ops->query(b->db->h, sql, ap, 16, &t->r, e);
	for (int c = 0; c < 15; c++)
		ib_buf_free(&arr[c]);
	/* each key's range of rows (ordered by k.i, 1-based) */
	for (size_t r = 0; !rc && r < t->r.nrows; r++) {
		const char *ki = t->r.cells[r * t->r.ncols];
		long long i = ki ? atoll(ki) - 1 : -1;
		if (i < 0 || (size_t)i >= n)
			continue;
		if (t->to[i] == 0)
			t->from[i] = r;
		t->to[i] = r + 1;
	}
	if (rc) {
		b->batch = t;
		res_db_baseline_free(b);
		return rc;
	}
	b->batch = t;
	return 0;
}

int res_db_lookup(void *ctx, const res_cfg_key *k, ib_arena *a, size_t max, ib_val ***out,
                  size_t *n, ib_error *e)
{
	res_db_baseline *b = ctx;
	char num[7][24];
	const char *p[16];
	key_params(k, b->branch, num, p);
	*out = NULL;
	*n = 0;
	/* the prefetched answer, when this is the next key res_db_prefetch saw */
	struct res_db_batch *t = b->batch;
	if (t && t->next < t->nkeys) {
		char *j = joined(p);
		if (!j)
			return IB_ENOMEM;
		bool same = !strcmp(j, t->params[t->next]);
		free(j);
		if (same) {
			size_t i = t->next++;
			return pick(&t->r, t->from[i], t->to[i], 1, k, a, max, out, n, e);
		}
	}
	/* compare_results.py's BASELINE_QUERY (its LIKE: pick) */
	static const char sql[] =
	    "SELECT br.metrics_text, c.model, br.simulated FROM benchmark_results br"
	    " JOIN configs c ON c.id = br.config_id"
	    " JOIN workflow_runs wr ON wr.id = br.workflow_run_id"
	    " WHERE c.hardware = $1 AND c.framework = $2 AND c.precision = $3"
	    " AND c.spec_method = $4 AND c.disagg = $5 AND c.is_multinode = $6"
	    " AND c.prefill_tp = $7 AND c.prefill_ep = $8 AND c.prefill_dp_attention = $9"
	    " AND c.decode_tp = $10 AND c.decode_ep = $11 AND c.decode_dp_attention = $12"
	    " AND br.isl = $13 AND br.osl = $14 AND br.conc = $15 AND wr.head_branch = $16"
	    " AND br.error IS NULL ORDER BY br.date DESC, br.workflow_run_id DESC, br.id DESC";
	res_dbrows r = {0};
	int rc = b->db->ops->query(b->db->h, sql, p, 16, &r, e);
	if (rc)
		return rc;
	rc = pick(&r, 0, r.nrows, 0, k, a, max, out, n, e);
	res_dbrows_free(&r);
	return rc;
}
