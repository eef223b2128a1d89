/* infbench db history: a metric interpolated at a target interactivity per
 * config group and date, as the dashboard's historical trends
 * (spec/evals-report-agentx.md B.5, P5; docs/db.md). The rows come from the
 * results database, the maths from the report library (rep_). */
#include "cli/cli.h"
#include "cli/cmd_db.h"
#include "report/report.h"
#include "results/results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the group of a trend line and the date of one point */
static const char *const GROUP[] = {"model",     "isl",         "osl",    "hardware",
                                    "framework", "spec_method", "disagg", "precision"};
#define NGROUP (sizeof GROUP / sizeof GROUP[0])

typedef struct {
	const ib_val *row;
	size_t seq;
} hrow;

static int val_cmp(const ib_val *a, const ib_val *b)
{
	if (a->type == IB_V_INT && b->type == IB_V_INT)
		return a->i < b->i ? -1 : a->i > b->i;
	if (a->type == IB_V_BOOL && b->type == IB_V_BOOL)
		return (int)a->b - (int)b->b;
	if (a->type == IB_V_STR && b->type == IB_V_STR)
		return strcmp(a->str.s, b->str.s);
	return (int)a->type - (int)b->type;
}

static int group_cmp(const ib_val *a, const ib_val *b)
{
	for (size_t i = 0; i < NGROUP; i++) {
		int c = val_cmp(ib_map_get(a, GROUP[i]), ib_map_get(b, GROUP[i]));
		if (c)
			return c;
	}
	return 0;
}

static int hrow_cmp(const void *pa, const void *pb)
{
	const hrow *a = pa, *b = pb;
	int c = group_cmp(a->row, b->row);
	if (!c)
		c = val_cmp(ib_map_get(a->row, "date"), ib_map_get(b->row, "date"));
	return c ? c : (a->seq < b->seq ? -1 : a->seq > b->seq);
}

/* The report's view of a stored row: its identity under the agg keys, and
 * its metrics. */
static int report_row(ib_arena *a, const ib_val *r, rep_row *out, ib_error *e)
{
	ib_val *m = ib_map_copy(a, ib_map_get(r, "metrics"));
	static const char *const keys[][2] = {
	    {"hw", "hardware"},         {"framework", "framework"},
	    {"precision", "precision"}, {"spec_decoding", "spec_method"},
	    {"disagg", "disagg"},       {"is_multinode", "is_multinode"},
	    {"model", "model"},         {"date", "date"},
	    {"image", "image"},         {"benchmark_type", "benchmark_type"},
	};
	int rc = m ? 0 : IB_ENOMEM;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0] && !rc; i++) {
		ib_val *v = ib_map_get(r, keys[i][1]);
		if (v && v->type != IB_V_NULL)
			rc = ib_map_set(a, m, keys[i][0], v);
	}
	return rc ? rc : rep_row_from_json(m, 0, out, e);
}

/* The trend value of rows[0..n) (one group, one date): 1 with *v, 0 null. */
static int trend(ib_arena *a, const hrow *rows, size_t n, rep_metric metric, double target,
                 double *v, ib_error *e)
{
	const rep_gpu_table *t = rep_gpu_table_builtin(true);
	rep_trend_point *pts = calloc(n + 1, sizeof *pts);
	rep_metrics *ms = calloc(n + 1, sizeof *ms);
	int rc = pts && ms ? 0 : IB_ENOMEM;
	for (size_t i = 0; i < n && !rc; i++) {
		rep_row r;
		rc = report_row(a, rows[i].row, &r, e);
		if (rc)
			break;
		rep_derive_metrics(&r, t, NULL, &ms[i], NULL, 0, NULL, 0, NULL);
		pts[i] = (rep_trend_point){
		    .id = NULL,
		    .x = r.has[REP_F_MEDIAN_INTVTY] ? r.f[REP_F_MEDIAN_INTVTY] : NAN,
		    .m = &ms[i]};
	}
	rc = rc ? rc : rep_interpolate_trend(pts, n, metric, target, v);
	free(pts);
	free(ms);
	return rc;
}

static int emit(const ib_val *groups, const char *format)
{
	if (!format || !strcmp(format, "json"))
		return cli_emit_json(NULL, groups);
	static const char *const h[] = {"model",     "isl",         "osl",    "hardware",
	                                "framework", "spec_method", "disagg", "precision",
	                                "date",      "value"};
	size_t nr = 0;
	for (size_t g = 0; g < groups->list.n; g++)
		nr += ib_map_get(groups->list.v[g], "points")->list.n;
	const ib_val **cells = calloc(nr * 10 + 1, sizeof *cells);
	if (!cells)
		return CLI_FAIL;
	size_t at = 0;
	for (size_t g = 0; g < groups->list.n; g++) {
		const ib_val *gr = groups->list.v[g], *pts = ib_map_get(gr, "points");
		for (size_t p = 0; p < pts->list.n; p++) {
			for (size_t c = 0; c < NGROUP; c++)
				cells[at++] = ib_map_get(gr, h[c]);
			cells[at++] = ib_map_get(pts->list.v[p], "date");
			cells[at++] = ib_map_get(pts->list.v[p], "value");
		}
	}
	ib_buf b = {0};
	int rc = ib_table_github(&b, h, 10, cells, nr);
	if (!rc || ib_buf_error(&b)) { /* a buffer error is reported naming the output */
		ib_buf_putc(&b, '\n');
		rc = cli_emit("infbench db", NULL, &b);
	}
	ib_buf_free(&b);
	free(cells);
	return rc ? 1 : 0;
}

int cmd_db_history(res_db *db, const res_db_filter *f, const char *metric_name,
                   const char *target_s, const char *format, ib_error *e)
{
	int metric = rep_metric_lookup(metric_name ? metric_name : "tpPerGpu");
	char *end = NULL;
	double target = target_s ? strtod(target_s, &end) : NAN;
	if (metric < 0) {
		fprintf(stderr,
		        "infbench db: error: history: unknown metric '%s' (the dashboard's "
		        "names: tpPerGpu, costh, jTotal, ...)\n",
		        metric_name);
		return CLI_USAGE;
	}
	if (!target_s || !*target_s || *end || !isfinite(target)) {
		fprintf(stderr, "infbench db: error: history: --target needs an interactivity "
		                "(tok/s/user)\n");
		return CLI_USAGE;
	}
	ib_arena *a = ib_arena_new();
	ib_val *rows = NULL, *groups = a ? ib_v_list(a) : NULL;
	res_db_filter q = *f;
	q.latest = q.evals = false;
	int rc = groups ? res_db_query(db, &q, a, &rows, e) : IB_ENOMEM;
	size_t n = rc ? 0 : rows->list.n;
	hrow *hr = calloc(n + 1, sizeof *hr);
	if (!rc && !hr)
		rc = IB_ENOMEM;
	for (size_t i = 0; i < n && !rc; i++)
		hr[i] = (hrow){rows->list.v[i], i};
	if (!rc)
		qsort(hr, n, sizeof *hr, hrow_cmp);
	ib_val *pts = NULL;
	for (size_t i = 0, j; i < n && !rc; i = j) {
		const ib_val *date = ib_map_get(hr[i].row, "date");
		for (j = i + 1; j < n && !group_cmp(hr[i].row, hr[j].row) &&
		                !val_cmp(date, ib_map_get(hr[j].row, "date"));
		     j++)
			;
		if (i == 0 || group_cmp(hr[i - 1].row, hr[i].row)) { /* a new group */
			ib_val *g = ib_v_map(a);
			pts = ib_v_list(a);
			for (size_t k = 0; k < NGROUP && g; k++)
				rc = rc ? rc
				        : ib_map_set(a, g, GROUP[k],
				                     ib_map_get(hr[i].row, GROUP[k]));
			rc = rc ? rc
			        : ib_map_set(a, g, "metric", ib_v_str(a, rep_metric_name(metric)));
			rc = rc ? rc : ib_map_set(a, g, "target", ib_v_float(a, target));
			rc = rc ? rc : ib_map_set(a, g, "points", pts);
			rc = rc ? rc : ib_list_push(a, groups, g);
		}
		double v = 0;
		int got = rc ? 0 : trend(a, &hr[i], j - i, (rep_metric)metric, target, &v, e);
		if (got < 0) {
			rc = got;
			break;
		}
		ib_val *p = ib_v_map(a);
		rc = rc ? rc : ib_map_set(a, p, "date", (ib_val *)date);
		rc = rc ? rc : ib_map_set(a, p, "value", got ? ib_v_float(a, v) : ib_v_null(a));
		rc = rc ? rc : ib_list_push(a, pts, p);
	}
	if (!rc)
		rc = emit(groups, format) ? IB_EIO : 0;
	if (rc == IB_EIO && !e->msg[0])
		ib_fail(e, IB_EIO, NULL, 0, 0, "writing the output failed");
	free(hr);
	ib_arena_free(a);
	return rc;
}
