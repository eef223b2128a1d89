/* `infbench report --format text`: the frontier of each series as a table
 * and the best configuration per interactivity band, for a shell. */
#include "report/html_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const ib_val *get(const ib_val *m, const char *k)
{
	return m && m->type == IB_V_MAP ? ib_map_get(m, k) : NULL;
}
static const char *sget(const ib_val *m, const char *k)
{
	const ib_val *v = get(m, k);
	return v && v->type == IB_V_STR ? v->str.s : "";
}
static double nth(const ib_val *l, size_t i)
{
	if (!l || l->type != IB_V_LIST || i >= l->list.n)
		return NAN;
	const ib_val *v = l->list.v[i];
	return v->type == IB_V_FLOAT ? v->f : v->type == IB_V_INT ? (double)v->i : NAN;
}
static long long inth(const ib_val *v)
{
	return v && v->type == IB_V_INT ? (long long)v->i : -1;
}

typedef struct {
	long long row;
	double x, y;
} tpt;

static int by_x(const void *a, const void *b)
{
	const tpt *p = a, *q = b;
	return p->x < q->x ? -1 : p->x > q->x ? 1 : (p->row > q->row) - (p->row < q->row);
}

static void cell(char *out, size_t cap, double v)
{
	if (!isfinite(v))
		snprintf(out, cap, "-");
	else
		par_fmt_table(v, out, cap);
}

static int series_table(ib_buf *b, const ib_val *data, const tpt *pts, size_t n, long long si)
{
	const ib_val *rows = get(data, "rows"), *series = get(data, "series");
	const ib_val *s = series->list.v[si];
	int rc = ib_buf_printf(b, "\n  %s %s%s\n", sget(s, "label"), sget(s, "prec"),
	                       inth(get(s, "run")) >= 0 ? " (compared run)" : "");
	rc = rc ? rc
	        : ib_buf_printf(b, "    %6s  %-16s %12s %12s %10s %10s %s\n", "conc", "parallelism",
	                        "tok/s/user", "tok/s/gpu", "e2el s", "$/M tok", "");
	for (size_t k = 0; !rc && k < n; k++) {
		const ib_val *r = rows->list.v[pts[k].row];
		char x[40], y[40], e2[40], c[40];
		cell(x, sizeof x, pts[k].x);
		cell(y, sizeof y, pts[k].y);
		cell(e2, sizeof e2, nth(get(r, "x"), 1));
		cell(c, sizeof c, nth(get(r, "y"), 6));
		rc = ib_buf_printf(b, "    %6lld  %-16s %12s %12s %10s %10s %s\n",
		                   inth(get(r, "conc")), sget(r, "par"), x, y, e2, c,
		                   inth(get(r, "cb")) == 1 ? "client-bound" : "");
	}
	return rc;
}

static const double bands[] = {0, 25, 50, 100, 200, INFINITY};

static int group_text(ib_buf *b, const ib_val *data, const ib_val *g)
{
	const ib_val *rows = get(data, "rows"), *series = get(data, "series");
	rep_vpt *vp = NULL;
	size_t n = 0, m = 0;
	int rc = rep_view_points(data, g, "A|tpPerGpu|median_intvty", &vp, &n);
	if (rc)
		return rc;
	tpt *roof = calloc(n ? n : 1, sizeof *roof);
	if (!roof) {
		free(vp);
		return IB_ENOMEM;
	}
	for (size_t k = 0; k < n; k++)
		if (vp[k].roof)
			roof[m++] = (tpt){vp[k].row, vp[k].x, vp[k].y};
	free(vp);
	qsort(roof, m, sizeof *roof, by_x);
	rc = ib_buf_printf(b,
	                   "\n== %s %s: %zu points; frontier (throughput per GPU vs. "
	                   "interactivity) per series\n",
	                   sget(g, "modelLabel"), sget(g, "seq"), n);
	if (!rc && get(g, "fpwarn"))
		rc = ib_buf_printf(b, "  warning: %s\n", sget(g, "fpwarn"));
	for (size_t si = 0; !rc && si < series->list.n; si++) {
		tpt *mine = calloc(m ? m : 1, sizeof *mine);
		size_t k2 = 0;
		if (!mine) {
			rc = IB_ENOMEM;
			break;
		}
		for (size_t k = 0; k < m; k++)
			if (inth(get(rows->list.v[roof[k].row], "s")) == (long long)si)
				mine[k2++] = roof[k];
		if (k2)
			rc = series_table(b, data, mine, k2, (long long)si);
		free(mine);
	}
	rc = rc ? rc : ib_buf_puts(b, "\n  best throughput per GPU per interactivity band\n");
	for (size_t q = 0; !rc && q + 1 < sizeof bands / sizeof bands[0]; q++) {
		const tpt *best = NULL;
		for (size_t k = 0; k < m; k++)
			if (roof[k].x >= bands[q] && roof[k].x < bands[q + 1] &&
			    (!best || roof[k].y > best->y))
				best = &roof[k];
		char lo[40];
		snprintf(lo, sizeof lo, isinf(bands[q + 1]) ? ">= %g" : "%g-%g", bands[q],
		         bands[q + 1]);
		if (!best) {
			rc = ib_buf_printf(b, "    %-10s tok/s/user: -\n", lo);
			continue;
		}
		const ib_val *r = rows->list.v[best->row], *s = series->list.v[inth(get(r, "s"))];
		char y[40], x[40];
		cell(y, sizeof y, best->y);
		cell(x, sizeof x, best->x);
		rc = ib_buf_printf(
		    b, "    %-10s tok/s/user: %s %s, %s, conc %lld: %s tok/s/gpu at %s\n", lo,
		    sget(s, "label"), sget(s, "prec"), sget(r, "par"), inth(get(r, "conc")), y, x);
	}
	free(roof);
	return rc;
}

int rep_text_summary(ib_buf *out, const ib_val *data)
{
	const ib_val *groups = get(data, "groups"), *sk = get(data, "skipped");
	const ib_val *total = get(data, "rowsTotal");
	int rc = ib_buf_printf(out, "%s: %zu benchmark rows in %zu model/sequence groups\n",
	                       sget(data, "title"), get(data, "rows")->list.n, groups->list.n);
	if (!rc && total && total->type == IB_V_INT)
		rc = ib_buf_printf(out,
		                   "(thinned from %lld rows: every frontier point kept, the others "
		                   "sampled; --max-points 0 for all)\n",
		                   (long long)total->i);
	for (size_t i = 0; !rc && i < groups->list.n; i++)
		rc = group_text(out, data, groups->list.v[i]);
	if (!rc && get(data, "agentic"))
		rc = rep_agentic_text(out, get(data, "agentic"));
	if (!rc && sk && sk->list.n)
		rc = ib_buf_printf(out, "\n%zu input problems (rows skipped); see stderr\n",
		                   sk->list.n);
	return rc;
}
