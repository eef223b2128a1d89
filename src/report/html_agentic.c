/* The report's agentic view (docs/report.md): AgentX rows as the InferenceX
 * dashboard shows agentic results — throughput per GPU against interactivity
 * and against end-to-end normalised interactivity at a chosen percentile,
 * with Pareto frontiers per series and date (pareto/), the cache hit rates
 * and the per-request latency percentiles. The data part feeds --format
 * json; the charts are drawn here, as SVG, from that data. */
#include "report/html_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* percentiles of the selector (the dashboard's agentic percentile picker) */
static const char *const PCT[] = {"median", "p75", "p90", "p95"};
static const char *const PCT_LABEL[] = {"P50", "P75", "P90", "P95"};
#define NPCT 4
typedef struct {
	const char *key, *title, *label;
} axis_def;
static const axis_def YS[] = {
    {"tput_per_gpu", "Token Throughput per GPU", "Token Throughput per GPU (tok/s/gpu)"},
    {"output_tput_per_gpu", "Output Token Throughput per GPU",
     "Output Token Throughput per GPU (tok/s/gpu)"},
    {"input_tput_per_gpu", "Input Token Throughput per GPU",
     "Input Token Throughput per GPU (tok/s/gpu)"},
};
#define NY (sizeof YS / sizeof YS[0])
/* x 0: interactivity, 1: end-to-end normalised interactivity (the canonical
 * axis: the interactivity frontier keeps only its points) */
static const axis_def XS[] = {
    {"intvty", "Interactivity", "Interactivity (tok/s/user)"},
    {"e2e_norm_intvty", "End-to-end Normalised Interactivity",
     "E2E Normalised Interactivity (tok/s/user)"},
};
/* the per-request distributions */
static const axis_def LAT[] = {
    {"ttft", "Time to First Token", "seconds"},
    {"e2el", "End-to-end Latency", "seconds"},
    {"itl", "Inter-token Latency", "seconds"},
    {"intvty", "Interactivity", "tok/s/user"},
    {"e2e_norm_intvty", "E2E Normalised Interactivity", "tok/s/user"},
};
#define NLAT (sizeof LAT / sizeof LAT[0])
static const char *const LSTAT[] = {"mean", "median", "p75", "p90", "p95", "std"};
#define NLSTAT 6
/* the cache hit rates, in table order */
static const axis_def CACHE[] = {
    {"theoretical_cache_hit_rate", "Theoretical", "the trace's ideal prefix-cache hit rate"},
    {"server_gpu_cache_hit_rate", "GPU", "the server's GPU prefix-cache hit rate"},
    {"server_cpu_cache_hit_rate", "CPU", "the server's CPU (offload) hit rate"},
    {"server_external_cache_hit_rate", "External", "the server's external cache hit rate"},
    {"server_overall_cache_hit_rate", "Overall", "the server's overall hit rate"},
};
#define NCACHE (sizeof CACHE / sizeof CACHE[0])
static const char *const SCALARS[] = {
    "tput_per_gpu",       "output_tput_per_gpu",     "input_tput_per_gpu",
    "total_tput_tps",     "duration_seconds",        "mean_qps",
    "num_requests_total", "num_requests_successful", "gpu_kv_cache_usage_pct"};

typedef struct {
	rep_jb j;
	ib_arena *a;
	const rep_rowset *rs;
	rep_row *lib;
	bool *keep;
	size_t *gid, ng;
	size_t *series, ns;
	const char **skeys, **shw;
	size_t *sfirst;
} agp;

/* groups (scenario x model), the latest date per configuration (and KV
 * offload mode), series (GPU key x precision x offload mode) */
static int index_rows(agp *p)
{
	const rep_rowset *rs = p->rs;
	size_t n = rs->nag;
	const char **keys = malloc(n * sizeof *keys), **hws = malloc(n * sizeof *hws);
	int rc = keys && hws ? 0 : IB_ENOMEM;
	for (size_t i = 0; !rc && i < n; i++) {
		const rep_agg_row *r = &rs->ag[i];
		rep_lib_row(r, &p->lib[i]);
		if (!(keys[i] = ib_arena_printf(p->a, "%s\x01%s", r->scenario, r->model)))
			rc = IB_ENOMEM;
	}
	rc = rc ? rc : rep_first_seen_ids(keys, n, p->gid, &p->ng);
	for (size_t i = 0; !rc && i < n; i++)
		if (!(keys[i] = ib_arena_printf(p->a, "%zu\x01%s", p->gid[i], rs->ag[i].offload)))
			rc = IB_ENOMEM;
	rc = rc ? rc : rep_latest_in_buckets(keys, p->lib, n, p->keep);
	for (size_t i = 0; !rc && i < n; i++) {
		char hk[128];
		const rep_agg_row *r = &rs->ag[i];
		rep_hardware_key(&p->lib[i], rep_gpu_table_builtin(true), hk, sizeof hk);
		keys[i] = strcmp(r->offload, "none")
		              ? ib_arena_printf(p->a, "%s_%s_%s", hk, r->precision, r->offload)
		              : ib_arena_printf(p->a, "%s_%s", hk, r->precision);
		if (!keys[i] || !(hws[i] = ib_arena_strdup(p->a, hk)))
			rc = IB_ENOMEM;
	}
	rc = rc ? rc : rep_first_seen_ids(keys, n, p->series, &p->ns);
	for (size_t i = 0; !rc && i < n; i++)
		if (!p->skeys[p->series[i]]) {
			p->skeys[p->series[i]] = keys[i];
			p->shw[p->series[i]] = hws[i];
			p->sfirst[p->series[i]] = i;
		}
	free(keys);
	free(hws);
	return rc;
}

static ib_val *series_json(agp *p)
{
	ib_val *l = rep_jlist(&p->j);
	size_t *rank = calloc(p->ns + 1, sizeof *rank);
	char(*cols)[40] = calloc(p->ns + 1, sizeof *cols);
	if (!rank || !cols || rep_series_palette(p->shw, p->ns, cols, rank))
		p->j.oom = true;
	for (size_t s = 0; !p->j.oom && s < p->ns; s++) {
		const rep_agg_row *r = &p->rs->ag[p->sfirst[s]];
		char lab[240];
		rep_series_label(r, lab, sizeof lab);
		size_t k = strlen(lab);
		snprintf(lab + k, sizeof lab - k, " %s%s%s", r->precision,
		         strcmp(r->offload, "none") ? ", KV offload " : "",
		         strcmp(r->offload, "none") ? r->offload : "");
		ib_val *m = rep_jmap(&p->j);
		rep_jset(&p->j, m, "key", rep_jstr(&p->j, p->skeys[s]));
		rep_jset(&p->j, m, "label", rep_jstr(&p->j, lab));
		rep_jset(&p->j, m, "color", rep_jstr(&p->j, cols[s]));
		rep_jset(&p->j, m, "order", rep_jint(&p->j, (int64_t)rank[s]));
		rep_jpush(&p->j, l, m);
	}
	free(rank);
	free(cols);
	return l;
}

static double metric(const rep_agg_row *r, const char *k)
{
	return rep_row_num(r, k);
}

static ib_val *row_json(agp *p, size_t i)
{
	const rep_agg_row *r = &p->rs->ag[i];
	char par[96], k[64];
	double gpus = 0;
	rep_metrics dm;
	rep_derive_metrics(&p->lib[i], rep_gpu_table_builtin(true), NULL, &dm, NULL, 0, NULL, 0,
	                   &gpus);
	rep_parallelism_label(&p->lib[i], par, sizeof par);
	ib_val *o = rep_jmap(&p->j), *m = rep_jmap(&p->j);
	rep_jset(&p->j, o, "s", rep_jint(&p->j, (int64_t)p->series[i]));
	rep_jset(&p->j, o, "src",
	         rep_jstr(&p->j, ib_arena_printf(p->a, "%s#%zu", r->src, r->index + 1)));
	rep_jset(&p->j, o, "date", rep_jstr(&p->j, r->date));
	rep_jset(&p->j, o, "conc", rep_jint(&p->j, r->conc));
	rep_jset(&p->j, o, "par", rep_jstr(&p->j, par));
	rep_jset(&p->j, o, "gpus", rep_jnum(&p->j, gpus));
	rep_jset(&p->j, o, "image", rep_jstr(&p->j, r->image));
	rep_jset(&p->j, o, "fw", rep_jstr(&p->j, r->framework));
	rep_jset(&p->j, o, "scenario", rep_jstr(&p->j, r->scenario));
	rep_jset(&p->j, o, "offload", rep_jstr(&p->j, r->offload));
	if (r->simulated)
		rep_jset(&p->j, o, "sim", rep_jint(&p->j, 1));
	for (size_t q = 0; q < sizeof SCALARS / sizeof *SCALARS; q++)
		rep_jset(&p->j, m, SCALARS[q], rep_jnum(&p->j, metric(r, SCALARS[q])));
	for (size_t q = 0; q < NCACHE; q++)
		rep_jset(&p->j, m, CACHE[q].key, rep_jnum(&p->j, metric(r, CACHE[q].key)));
	for (size_t q = 0; q < NLAT; q++)
		for (size_t s = 0; s < NLSTAT; s++) {
			snprintf(k, sizeof k, "%s_%s", LSTAT[s], LAT[q].key);
			rep_jset(&p->j, m, k, rep_jnum(&p->j, metric(r, k)));
		}
	rep_jset(&p->j, o, "m", m);
	return o;
}

/* One view of a group: per series and date, the roofline of the kept rows
 * gi[0..gn) at x = pct_x, y; canon (may be NULL) restricts the frontier to
 * rows it marks (the normalised-interactivity frontier). *roof marks the
 * frontier rows (indexed by row). */
static int view_json(agp *p, const size_t *gi, size_t gn, const char *xk, const char *yk,
                     const bool *canon, bool *roof, ib_val *views, const char *vkey)
{
	par_pt *pts = malloc((gn + 1) * sizeof *pts);
	size_t *who = malloc((gn + 1) * sizeof *who), *idx = malloc((gn + 1) * sizeof *idx), np = 0,
	       nb = 0, *bid = malloc((gn + 1) * sizeof *bid), *off = NULL, *mem = NULL;
	const char **keys = malloc((gn + 1) * sizeof *keys);
	par_pt *sub = malloc((gn + 1) * sizeof *sub);
	int rc = pts && who && idx && bid && keys && sub ? 0 : IB_ENOMEM;
	for (size_t k = 0; !rc && k < gn; k++) {
		const rep_agg_row *r = &p->rs->ag[gi[k]];
		double x = metric(r, xk), y = metric(r, yk);
		roof[gi[k]] = false;
		if (!isfinite(x) || x <= 0 || !isfinite(y))
			continue;
		who[np] = gi[k];
		pts[np] = (par_pt){NULL, x, y};
		if (!(keys[np++] = ib_arena_printf(p->a, "%zu\x01%s", p->series[gi[k]], r->date)))
			rc = IB_ENOMEM;
	}
	rc = rc ? rc : rep_group_keys(keys, np, bid, &nb, &off, &mem);
	ib_val *v = rep_jmap(&p->j), *rl = rep_jlist(&p->j), *paths = rep_jlist(&p->j);
	for (size_t b = 0; !rc && b < nb; b++) {
		size_t m = off[b + 1] - off[b], nf = 0;
		for (size_t k = 0; k < m; k++)
			sub[k] = pts[mem[off[b] + k]];
		rc = par_roofline(PAR_DIR_UPPER_LEFT, sub, m, idx, &nf);
		ib_val *path = rep_jlist(&p->j);
		for (size_t t = 0; !rc && t < nf; t++) {
			size_t row = who[mem[off[b] + idx[t]]];
			if (canon && !canon[row])
				continue;
			roof[row] = true;
			rep_jpush(&p->j, rl, rep_jint(&p->j, (int64_t)row));
			rep_jpush(&p->j, path, rep_jint(&p->j, (int64_t)row));
		}
		if (path && path->list.n)
			rep_jpush(&p->j, paths, path);
	}
	rep_jset(&p->j, v, "roof", rl);
	rep_jset(&p->j, v, "paths", paths);
	rep_jset(&p->j, views, vkey, v);
	free(pts);
	free(who);
	free(idx);
	free(bid);
	free(keys);
	free(sub);
	free(off);
	free(mem);
	return rc ? rc : p->j.oom ? IB_ENOMEM : 0;
}

static int group_json(agp *p, const size_t *members, size_t nm, ib_val *groups)
{
	size_t gn = 0, *gi = malloc((nm + 1) * sizeof *gi), n = p->rs->nag;
	bool *canon = calloc(n + 1, sizeof *canon), *roof = calloc(n + 1, sizeof *roof);
	int rc = gi && canon && roof ? 0 : IB_ENOMEM;
	for (size_t k = 0; !rc && k < nm; k++)
		if (p->keep[members[k]])
			gi[gn++] = members[k];
	const rep_agg_row *r0 = &p->rs->ag[members[0]];
	ib_val *g = rep_jmap(&p->j), *views = rep_jmap(&p->j), *rows = rep_jlist(&p->j);
	rep_jset(&p->j, g, "model", rep_jstr(&p->j, r0->model));
	rep_jset(&p->j, g, "modelLabel", rep_jstr(&p->j, rep_label_model(r0->model)));
	rep_jset(&p->j, g, "scenario", rep_jstr(&p->j, r0->scenario));
	for (size_t k = 0; k < gn; k++)
		rep_jpush(&p->j, rows, rep_jint(&p->j, (int64_t)gi[k]));
	rep_jset(&p->j, g, "rows", rows);
	for (size_t pi = 0; !rc && pi < NPCT; pi++)
		for (size_t yi = 0; !rc && yi < NY; yi++) {
			char xk[2][48], vk[2][96];
			bool any = false;
			for (int xi = 1; xi >= 0; xi--) {
				snprintf(xk[xi], sizeof xk[xi], "%s_%s", PCT[pi], XS[xi].key);
				snprintf(vk[xi], sizeof vk[xi], "%d|%zu|%zu", xi, pi, yi);
			}
			for (size_t k = 0; k < gn; k++)
				any |= isfinite(metric(&p->rs->ag[gi[k]], xk[1]));
			rc = view_json(p, gi, gn, xk[1], YS[yi].key, NULL, canon, views, vk[1]);
			rc = rc ? rc
			        : view_json(p, gi, gn, xk[0], YS[yi].key, any ? canon : NULL, roof,
			                    views, vk[0]);
		}
	rep_jset(&p->j, g, "views", views);
	rep_jpush(&p->j, groups, g);
	free(gi);
	free(canon);
	free(roof);
	return rc ? rc : p->j.oom ? IB_ENOMEM : 0;
}

static ib_val *axis_list(agp *p, const axis_def *d, size_t n)
{
	ib_val *l = rep_jlist(&p->j);
	for (size_t i = 0; i < n; i++) {
		ib_val *m = rep_jmap(&p->j);
		rep_jset(&p->j, m, "key", rep_jstr(&p->j, d[i].key));
		rep_jset(&p->j, m, "title", rep_jstr(&p->j, d[i].title));
		rep_jset(&p->j, m, "label", rep_jstr(&p->j, d[i].label));
		rep_jpush(&p->j, l, m);
	}
	return l;
}

int rep_page_data_agentic(ib_arena *a, const rep_rowset *rs, ib_val **out)
{
	size_t n = rs->nag ? rs->nag : 1;
	agp p = {.j = {.a = a}, .a = a, .rs = rs};
	p.lib = calloc(n, sizeof *p.lib);
	p.keep = calloc(n, sizeof *p.keep);
	p.gid = calloc(n, sizeof *p.gid);
	p.series = calloc(n, sizeof *p.series);
	p.skeys = calloc(n, sizeof *p.skeys);
	p.shw = calloc(n, sizeof *p.shw);
	p.sfirst = calloc(n, sizeof *p.sfirst);
	int rc =
	    p.lib && p.keep && p.gid && p.series && p.skeys && p.shw && p.sfirst ? 0 : IB_ENOMEM;
	rc = rc ? rc : index_rows(&p);
	ib_val *root = rep_jmap(&p.j), *rows = rep_jlist(&p.j), *groups = rep_jlist(&p.j),
	       *pl = rep_jlist(&p.j);
	for (size_t i = 0; !rc && i < NPCT; i++) {
		ib_val *m = rep_jmap(&p.j);
		rep_jset(&p.j, m, "key", rep_jstr(&p.j, PCT[i]));
		rep_jset(&p.j, m, "label", rep_jstr(&p.j, PCT_LABEL[i]));
		rep_jpush(&p.j, pl, m);
	}
	rep_jset(&p.j, root, "percentiles", pl);
	rep_jset(&p.j, root, "ys", axis_list(&p, YS, NY));
	rep_jset(&p.j, root, "xs", axis_list(&p, XS, 2));
	rep_jset(&p.j, root, "lat", axis_list(&p, LAT, NLAT));
	rep_jset(&p.j, root, "cache", axis_list(&p, CACHE, NCACHE));
	if (!rc)
		rep_jset(&p.j, root, "series", series_json(&p));
	for (size_t i = 0; !rc && i < rs->nag; i++)
		rep_jpush(&p.j, rows, row_json(&p, i));
	size_t *off = NULL, *mem = NULL;
	rc = rc ? rc : rep_bucket_ids(p.gid, rs->nag, p.ng, &off, &mem);
	for (size_t g = 0; !rc && g < p.ng; g++)
		rc = group_json(&p, mem + off[g], off[g + 1] - off[g], groups);
	free(off);
	free(mem);
	rep_jset(&p.j, root, "rows", rows);
	rep_jset(&p.j, root, "groups", groups);
	free(p.lib);
	free(p.keep);
	free(p.gid);
	free(p.series);
	free(p.skeys);
	free(p.shw);
	free(p.sfirst);
	if (!rc && p.j.oom)
		rc = IB_ENOMEM;
	if (!rc)
		*out = root;
	return rc;
}

/* ---- the HTML section: charts as SVG, drawn from the data ---- */

static const ib_val *get(const ib_val *m, const char *k)
{
	return m && m->type == IB_V_MAP ? ib_map_get(m, k) : NULL;
}
static const char *sget(const ib_val *m, const char *k)
{
	const ib_val *v = get(m, k);
	return v && v->type == IB_V_STR ? v->str.s : "";
}
static double nget(const ib_val *m, const char *k)
{
	const ib_val *v = get(m, k);
	return !v ? NAN : v->type == IB_V_FLOAT ? v->f : v->type == IB_V_INT ? (double)v->i : NAN;
}
static long long iget(const ib_val *m, const char *k)
{
	const ib_val *v = get(m, k);
	return v && v->type == IB_V_INT ? (long long)v->i : -1;
}
static const ib_val *nth(const ib_val *l, size_t i)
{
	return l && l->type == IB_V_LIST && i < l->list.n ? l->list.v[i] : NULL;
}

/* A mark of a chart: its row, coordinates and colour. */
typedef struct {
	long long row;
	double x, y;
	const char *color;
	bool roof;
} mark;

/* One chart: axes from the marks, lines through the marks of each run of
 * paths (row lists; lines[k] ends where brk[k] is set), the marks as circles
 * of class cls with a title each. */
typedef struct {
	const char *title, *xl, *yl, *cls;
	const mark *m;
	size_t n;
	const size_t *line; /* indices into m, polylines separated by SIZE_MAX */
	size_t nline;
	const char *const *tips; /* per mark */
	bool dashed_odd;         /* every second polyline dashed (theoretical rates) */
} chart;

static int chart_svg(ib_buf *b, const chart *c)
{
	par_pt *pp = calloc(c->n + 1, sizeof *pp);
	if (!pp)
		return IB_ENOMEM;
	for (size_t k = 0; k < c->n; k++)
		pp[k] = (par_pt){NULL, c->m[k].x, c->m[k].y};
	rep_axes_opts ao = {.scale_type = "linear"};
	rep_axis ax, ay;
	rep_scatter_axes(pp, c->n, &ao, &ax, &ay);
	for (rep_axis *q = &ax; q; q = q == &ax ? &ay : NULL) /* one value: no zero span */
		if (!(q->nice[1] > q->nice[0]))
			q->nice[1] = q->nice[0] + 1;
	rep_lin sx = {ax.nice[0], ax.nice[1], REP_SVG_ML, REP_SVG_W - REP_SVG_MR},
	        sy = {ay.nice[0], ay.nice[1], REP_SVG_H - REP_SVG_MB, REP_SVG_MT};
	int rc = ib_buf_printf(b,
	                       "<svg viewBox=\"0 0 %d %d\" role=\"img\" font-family=\"sans-serif\">"
	                       "<text x=\"%d\" y=\"18\" font-size=\"13\" font-weight=\"600\">",
	                       REP_SVG_W, REP_SVG_H, REP_SVG_ML);
	rc = rc ? rc : rep_svg_esc(b, c->title);
	rc = rc ? rc : ib_buf_puts(b, "</text>\n");
	rc = rc ? rc : rep_svg_axes(b, &ax, &ay, &sx, &sy, c->xl, c->yl);
	par_pt *fp = calloc(c->nline + 1, sizeof *fp);
	size_t nf = 0, lines = 0;
	if (!fp)
		rc = IB_ENOMEM;
	for (size_t t = 0; !rc && t <= c->nline; t++) {
		if (t < c->nline && c->line[t] != SIZE_MAX) {
			const mark *m = &c->m[c->line[t]];
			/* the id carries the line's colour */
			fp[nf++] = (par_pt){m->color, rep_lin_px(&sx, m->x), rep_lin_px(&sy, m->y)};
			continue;
		}
		ib_buf d = {0};
		if (nf >= 2 && !(rc = par_monotone_path(fp, nf, &d)))
			rc = ib_buf_printf(b,
			                   "<path class=\"frontier\" d=\"%s\" fill=\"none\" "
			                   "stroke=\"%s\" stroke-width=\"2.5\"%s/>\n",
			                   d.data, fp[0].id,
			                   c->dashed_odd && lines % 2 ? " stroke-dasharray=\"6 3\""
			                                              : "");
		ib_buf_free(&d);
		lines += nf > 0;
		nf = 0;
	}
	for (size_t k = 0; !rc && k < c->n; k++) {
		const mark *m = &c->m[k];
		rc = ib_buf_printf(
		    b,
		    "<circle class=\"%s%s\" data-row=\"%lld\" cx=\"%.2f\" cy=\"%.2f\" "
		    "r=\"4\" fill=\"%s\"><title>",
		    c->cls, m->roof ? " roof" : "", m->row, rep_lin_px(&sx, m->x),
		    rep_lin_px(&sy, m->y), m->color);
		rc = rc ? rc : rep_svg_esc(b, c->tips[k]);
		rc = rc ? rc : ib_buf_puts(b, "</title></circle>\n");
	}
	free(fp);
	free(pp);
	return rc ? rc : ib_buf_puts(b, "</svg>");
}

typedef struct {
	ib_arena *a; /* scratch for titles */
	const ib_val *ag, *rows, *series;
} hctx;

static const ib_val *row_of(const hctx *h, long long i)
{
	return nth(h->rows, (size_t)i);
}
static const ib_val *series_of(const hctx *h, const ib_val *r)
{
	return nth(h->series, (size_t)iget(r, "s"));
}
static double rmet(const ib_val *r, const char *k)
{
	return nget(get(r, "m"), k);
}

/* the frontier chart of view key vk of group g */
static int view_chart(ib_buf *b, const hctx *h, const ib_val *g, size_t xi, size_t pi, size_t yi)
{
	const ib_val *rows = get(g, "rows");
	char vk[64], xk[64];
	snprintf(vk, sizeof vk, "%zu|%zu|%zu", xi, pi, yi);
	snprintf(xk, sizeof xk, "%s_%s", PCT[pi], XS[xi].key);
	const ib_val *v = get(get(g, "views"), vk), *roof = get(v, "roof"),
	             *paths = get(v, "paths");
	size_t n = rows ? rows->list.n : 0, nm = 0, nl = 0;
	mark *m = calloc(n + 1, sizeof *m);
	const char **tips = calloc(n + 1, sizeof *tips);
	size_t cap = n + (paths ? paths->list.n : 0) + 1, *line = calloc(cap, sizeof *line);
	int rc = m && tips && line ? 0 : IB_ENOMEM;
	for (size_t k = 0; !rc && k < n; k++) {
		long long ri = rows->list.v[k]->i;
		const ib_val *r = row_of(h, ri), *s = series_of(h, r);
		double x = rmet(r, xk), y = rmet(r, YS[yi].key);
		if (!isfinite(x) || x <= 0 || !isfinite(y))
			continue;
		bool on = false;
		for (size_t q = 0; roof && q < roof->list.n; q++)
			on |= roof->list.v[q]->i == ri;
		m[nm] = (mark){ri, x, y, sget(s, "color"), on};
		tips[nm++] = ib_arena_printf(h->a, "%s • %s • conc %lld • %s %s %.4g, %s %.4g",
		                             sget(s, "label"), sget(r, "par"), iget(r, "conc"),
		                             PCT_LABEL[pi], XS[xi].title, x, YS[yi].title, y);
		rc = tips[nm - 1] ? 0 : IB_ENOMEM;
	}
	for (size_t q = 0; !rc && paths && q < paths->list.n; q++) {
		const ib_val *path = paths->list.v[q];
		for (size_t t = 0; t < path->list.n; t++)
			for (size_t k = 0; k < nm; k++)
				if (m[k].row == path->list.v[t]->i)
					line[nl++] = k;
		line[nl++] = SIZE_MAX;
	}
	char title[200], xl[120];
	snprintf(title, sizeof title, "%s vs. %s %s", YS[yi].title, PCT_LABEL[pi], XS[xi].title);
	snprintf(xl, sizeof xl, "%s %s", PCT_LABEL[pi], XS[xi].label);
	chart c = {title, xl, YS[yi].label, "apt", m, nm, line, nl, tips, false};
	if (!rc)
		rc = ib_buf_printf(
		    b, "<div class=\"agv\" data-x=\"%zu\" data-p=\"%zu\" data-y=\"%zu\">", xi, pi,
		    yi);
	rc = rc ? rc : chart_svg(b, &c);
	rc = rc ? rc : ib_buf_puts(b, "</div>\n");
	free(m);
	free(tips);
	free(line);
	return rc;
}

/* The kept rows of a group, ordered by series, then concurrency. */
static size_t *ordered_rows(const hctx *h, const ib_val *g, size_t *n)
{
	const ib_val *rows = get(g, "rows");
	*n = rows ? rows->list.n : 0;
	size_t *o = calloc(*n + 1, sizeof *o);
	for (size_t k = 0; o && k < *n; k++)
		o[k] = (size_t)rows->list.v[k]->i;
	for (size_t i = 1; o && i < *n; i++) /* insertion sort: a few rows */
		for (size_t j = i; j > 0; j--) {
			const ib_val *a = row_of(h, (long long)o[j - 1]),
			             *c = row_of(h, (long long)o[j]);
			long long sa = iget(a, "s"), sc = iget(c, "s");
			if (sa < sc || (sa == sc && iget(a, "conc") <= iget(c, "conc")))
				break;
			size_t t = o[j];
			o[j] = o[j - 1];
			o[j - 1] = t;
		}
	return o;
}

static int pct_cell(ib_buf *b, double v)
{
	if (!isfinite(v))
		return ib_buf_puts(b, "<td class=\"na\">–</td>");
	double w = v < 0 ? 0 : v > 1 ? 100 : v * 100;
	return ib_buf_printf(b,
	                     "<td class=\"rate\"><span class=\"bar\" style=\"width:%.1f%%\"></span>"
	                     "<span class=\"v\">%.1f%%</span></td>",
	                     w * 0.6, v * 100);
}

/* cache hit rates: a chart against concurrency (per series the GPU hit rate,
 * solid, and the theoretical one, dashed) and the table of every rate */
static int cache_panel(ib_buf *b, const hctx *h, const ib_val *g)
{
	size_t n = 0, *o = ordered_rows(h, g, &n), nm = 0, nl = 0;
	mark *m = calloc(2 * n + 1, sizeof *m);
	const char **tips = calloc(2 * n + 1, sizeof *tips);
	size_t *line = calloc(4 * n + 4, sizeof *line);
	int rc = o && m && tips && line ? 0 : IB_ENOMEM;
	/* per series: the GPU (else overall) rates, then the theoretical ones */
	for (size_t k0 = 0; !rc && k0 < n;) {
		size_t k1 = k0;
		long long s = iget(row_of(h, (long long)o[k0]), "s");
		while (k1 < n && iget(row_of(h, (long long)o[k1]), "s") == s)
			k1++;
		for (int pass = 0; pass < 2; pass++) {
			for (size_t k = k0; !rc && k < k1; k++) {
				const ib_val *r = row_of(h, (long long)o[k]);
				double y = rmet(r, pass ? "theoretical_cache_hit_rate"
				                        : "server_gpu_cache_hit_rate");
				if (!pass && !isfinite(y))
					y = rmet(r, "server_overall_cache_hit_rate");
				if (!isfinite(y))
					continue;
				m[nm] = (mark){(long long)o[k], (double)iget(r, "conc"), y * 100,
				               sget(series_of(h, r), "color"), false};
				tips[nm] =
				    ib_arena_printf(h->a, "%s • conc %lld • %s hit rate %.1f%%",
				                    sget(series_of(h, r), "label"), iget(r, "conc"),
				                    pass ? "theoretical" : "GPU", y * 100);
				rc = tips[nm] ? 0 : IB_ENOMEM;
				line[nl++] = nm++;
			}
			line[nl++] = SIZE_MAX;
		}
		k0 = k1;
	}
	chart c = {"Prefix-cache hit rate vs. Concurrency (solid: GPU, dashed: theoretical)",
	           "Concurrency (conversation lanes)",
	           "Cache hit rate (%)",
	           "acp",
	           m,
	           nm,
	           line,
	           nl,
	           tips,
	           true};
	rc = rc ? rc : ib_buf_puts(b, "<div class=\"agc\">");
	rc = rc ? rc : chart_svg(b, &c);
	rc = rc ? rc
	        : ib_buf_puts(b, "<table class=\"agt cache\"><thead><tr><th>Series</th>"
	                         "<th>Conc</th><th>KV offload</th>");
	for (size_t q = 0; !rc && q < NCACHE; q++)
		rc = ib_buf_printf(b, "<th title=\"%s\">%s</th>", CACHE[q].label, CACHE[q].title);
	rc = rc ? rc : ib_buf_puts(b, "<th>GPU KV usage</th></tr></thead><tbody>");
	for (size_t k = 0; !rc && k < n; k++) {
		const ib_val *r = row_of(h, (long long)o[k]);
		rc = ib_buf_printf(b, "<tr data-row=\"%zu\"><td>", o[k]);
		rc = rc ? rc : rep_svg_esc(b, sget(series_of(h, r), "label"));
		rc = rc ? rc : ib_buf_printf(b, "</td><td>%lld</td><td>", iget(r, "conc"));
		rc = rc ? rc : rep_svg_esc(b, sget(r, "offload"));
		rc = rc ? rc : ib_buf_puts(b, "</td>");
		for (size_t q = 0; !rc && q < NCACHE; q++)
			rc = pct_cell(b, rmet(r, CACHE[q].key));
		rc = rc ? rc : pct_cell(b, rmet(r, "gpu_kv_cache_usage_pct"));
		rc = rc ? rc : ib_buf_puts(b, "</tr>");
	}
	rc = rc ? rc : ib_buf_puts(b, "</tbody></table></div>\n");
	free(o);
	free(m);
	free(tips);
	free(line);
	return rc;
}

static void fmt_val(char *out, size_t cap, double v)
{
	if (!isfinite(v))
		snprintf(out, cap, "–");
	else
		par_fmt_table(v, out, cap);
}

/* per-request latency distributions: per metric, the percentiles of every
 * row as a line (x = the percentile), and the table of every statistic */
static int latency_panel(ib_buf *b, const hctx *h, const ib_val *g)
{
	static const double at[] = {50, 75, 90, 95};
	size_t n = 0, *o = ordered_rows(h, g, &n);
	mark *m = calloc(4 * n + 1, sizeof *m);
	const char **tips = calloc(4 * n + 1, sizeof *tips);
	size_t *line = calloc(5 * n + 1, sizeof *line);
	int rc = o && m && tips && line ? 0 : IB_ENOMEM;
	rc = rc ? rc : ib_buf_puts(b, "<div class=\"agl\">");
	for (size_t q = 0; !rc && q < NLAT; q++) {
		size_t nm = 0, nl = 0;
		for (size_t k = 0; !rc && k < n; k++) {
			const ib_val *r = row_of(h, (long long)o[k]);
			for (size_t pi = 0; !rc && pi < NPCT; pi++) {
				char key[64];
				snprintf(key, sizeof key, "%s_%s", PCT[pi], LAT[q].key);
				double y = rmet(r, key);
				if (!isfinite(y))
					continue;
				m[nm] = (mark){(long long)o[k], at[pi], y,
				               sget(series_of(h, r), "color"), false};
				tips[nm] =
				    ib_arena_printf(h->a, "%s • conc %lld • %s %s %.4g %s",
				                    sget(series_of(h, r), "label"), iget(r, "conc"),
				                    PCT_LABEL[pi], LAT[q].title, y, LAT[q].label);
				rc = tips[nm] ? 0 : IB_ENOMEM;
				line[nl++] = nm++;
			}
			line[nl++] = SIZE_MAX;
		}
		char title[160], yl[160];
		snprintf(title, sizeof title, "%s per request: percentiles (one line per point)",
		         LAT[q].title);
		snprintf(yl, sizeof yl, "%s (%s)", LAT[q].title, LAT[q].label);
		chart c = {title, "Percentile", yl, "alp", m, nm, line, nl, tips, false};
		rc = rc ? rc : ib_buf_printf(b, "<div class=\"agm\" data-m=\"%zu\">", q);
		rc = rc ? rc : chart_svg(b, &c);
		rc = rc ? rc : ib_buf_puts(b, "</div>\n");
	}
	rc = rc ? rc
	        : ib_buf_puts(b, "<table class=\"agt lat\"><thead><tr><th>Series</th>"
	                         "<th>Conc</th><th>Metric</th>");
	for (size_t s = 0; !rc && s < NLSTAT; s++)
		rc =
		    ib_buf_printf(b, "<th>%s</th>", !strcmp(LSTAT[s], "median") ? "p50" : LSTAT[s]);
	rc = rc ? rc : ib_buf_puts(b, "</tr></thead><tbody>");
	for (size_t k = 0; !rc && k < n; k++)
		for (size_t q = 0; !rc && q < NLAT; q++) {
			const ib_val *r = row_of(h, (long long)o[k]);
			rc = ib_buf_printf(b, "<tr data-row=\"%zu\"><td>", o[k]);
			rc = rc ? rc : rep_svg_esc(b, sget(series_of(h, r), "label"));
			rc = rc ? rc
			        : ib_buf_printf(b, "</td><td>%lld</td><td>%s (%s)</td>",
			                        iget(r, "conc"), LAT[q].title, LAT[q].label);
			for (size_t s = 0; !rc && s < NLSTAT; s++) {
				char key[64], cell[64];
				snprintf(key, sizeof key, "%s_%s", LSTAT[s], LAT[q].key);
				fmt_val(cell, sizeof cell, rmet(r, key));
				rc = ib_buf_printf(b, "<td>%s</td>", cell);
			}
			rc = rc ? rc : ib_buf_puts(b, "</tr>");
		}
	rc = rc ? rc : ib_buf_puts(b, "</tbody></table></div>\n");
	free(o);
	free(m);
	free(tips);
	free(line);
	return rc;
}

static int options(ib_buf *b, const char *id, const char *label, const ib_val *l, size_t sel)
{
	int rc = ib_buf_printf(b, "<label>%s <select id=\"%s\">", label, id);
	for (size_t i = 0; !rc && l && i < l->list.n; i++) {
		rc = ib_buf_printf(b, "<option value=\"%zu\"%s>", i, i == sel ? " selected" : "");
		const ib_val *t = get(l->list.v[i], "title");
		rc = rc ? rc : rep_svg_esc(b, sget(l->list.v[i], t ? "title" : "label"));
		rc = rc ? rc : ib_buf_puts(b, "</option>");
	}
	return rc ? rc : ib_buf_puts(b, "</select></label>");
}

int rep_agentic_html(ib_buf *b, const ib_val *ag, bool on)
{
	ib_arena *a = ib_arena_new();
	if (!a)
		return IB_ENOMEM;
	hctx h = {a, ag, get(ag, "rows"), get(ag, "series")};
	const ib_val *groups = get(ag, "groups");
	int rc = ib_buf_printf(b,
	                       "<section class=\"view%s\" id=\"view-agentic\"><style>\n%s</style>"
	                       "<div class=\"controls\"><label>Model · scenario <select "
	                       "id=\"ag-group\">",
	                       on ? " on" : "", rep_asset_agentic_css);
	for (size_t i = 0; !rc && groups && i < groups->list.n; i++) {
		const ib_val *g = groups->list.v[i];
		rc = ib_buf_printf(b, "<option value=\"%zu\">", i);
		rc = rc ? rc : rep_svg_esc(b, sget(g, "modelLabel"));
		rc = rc ? rc : ib_buf_puts(b, " · ");
		rc = rc ? rc : rep_svg_esc(b, sget(g, "scenario"));
		rc = rc ? rc : ib_buf_puts(b, "</option>");
	}
	rc = rc ? rc : ib_buf_puts(b, "</select></label>");
	rc = rc ? rc : options(b, "ag-pct", "Percentile", get(ag, "percentiles"), 2);
	rc = rc ? rc : options(b, "ag-y", "Y-axis metric", get(ag, "ys"), 0);
	rc = rc ? rc : options(b, "ag-lat", "Latency distribution", get(ag, "lat"), 0);
	rc = rc ? rc : ib_buf_puts(b, "</div>\n");
	for (size_t gi = 0; !rc && groups && gi < groups->list.n; gi++) {
		const ib_val *g = groups->list.v[gi];
		rc = ib_buf_printf(b, "<div class=\"agg\" data-g=\"%zu\" data-rows=\"%zu\">", gi,
		                   get(g, "rows")->list.n);
		rc = rc ? rc : ib_buf_puts(b, "<div class=\"charts\">");
		for (size_t xi = 0; !rc && xi < 2; xi++)
			for (size_t pi = 0; !rc && pi < NPCT; pi++)
				for (size_t yi = 0; !rc && yi < NY; yi++)
					rc = view_chart(b, &h, g, xi, pi, yi);
		rc = rc ? rc : ib_buf_puts(b, "</div><h3>Cache hit rates</h3>");
		rc = rc ? rc : cache_panel(b, &h, g);
		rc = rc ? rc : ib_buf_puts(b, "<h3>Per-request latency distributions</h3>");
		rc = rc ? rc : latency_panel(b, &h, g);
		rc = rc ? rc : ib_buf_puts(b, "</div>\n");
	}
	rc = rc ? rc
	        : ib_buf_puts(b,
	                      "<p class=\"note\">AgentX (agentic trace replay) rows, as the "
	                      "InferenceX dashboard shows agentic results: throughput per GPU "
	                      "against interactivity (1 / inter-token latency at the percentile) "
	                      "and against end-to-end normalised interactivity (output tokens / "
	                      "end-to-end latency per request), with Pareto frontiers per GPU × "
	                      "framework × precision × KV offload mode and date, computed by "
	                      "infbench's pareto library; the interactivity frontier keeps only "
	                      "points on the normalised one (the dashboard's canonical frontier). "
	                      "Ringed points are on a frontier; hover a point for details.</p>"
	                      "</section>\n");
	ib_arena_free(a);
	return rc;
}

int rep_agentic_text(ib_buf *b, const ib_val *ag)
{
	ib_arena *a = ib_arena_new();
	if (!a)
		return IB_ENOMEM;
	hctx h = {a, ag, get(ag, "rows"), get(ag, "series")};
	const ib_val *groups = get(ag, "groups");
	int rc = 0;
	for (size_t gi = 0; !rc && groups && gi < groups->list.n; gi++) {
		const ib_val *g = groups->list.v[gi];
		const ib_val *roof = get(get(get(g, "views"), "1|2|0"), "roof");
		size_t n = 0, *o = ordered_rows(&h, g, &n);
		if (!o) {
			rc = IB_ENOMEM;
			break;
		}
		rc = ib_buf_printf(b,
		                   "\nagentic: %s · %s (* on the P90 normalised-interactivity "
		                   "frontier)\n    %-36s %5s %10s %10s %10s %8s %8s\n",
		                   sget(g, "modelLabel"), sget(g, "scenario"), "series", "conc",
		                   "tok/s/gpu", "p90 intvty", "p90 e2e-n", "GPU hit", "theor.");
		for (size_t k = 0; !rc && k < n; k++) {
			const ib_val *r = row_of(&h, (long long)o[k]);
			char c[5][40];
			static const char *const keys[] = {"tput_per_gpu", "p90_intvty",
			                                   "p90_e2e_norm_intvty"};
			for (int q = 0; q < 3; q++)
				fmt_val(c[q], sizeof c[q], rmet(r, keys[q]));
			for (int q = 0; q < 2; q++) {
				double v = rmet(r, q ? "theoretical_cache_hit_rate"
				                     : "server_gpu_cache_hit_rate");
				if (isfinite(v))
					snprintf(c[3 + q], sizeof c[3 + q], "%.1f%%", v * 100);
				else
					snprintf(c[3 + q], sizeof c[3 + q], "-");
			}
			bool on = false;
			for (size_t q = 0; roof && q < roof->list.n; q++)
				on |= (size_t)roof->list.v[q]->i == o[k];
			rc = ib_buf_printf(b, "  %c %-36.36s %5lld %10s %10s %10s %8s %8s\n",
			                   on ? '*' : ' ', sget(series_of(&h, r), "label"),
			                   iget(r, "conc"), c[0], c[1], c[2], c[3], c[4]);
		}
		free(o);
	}
	ib_arena_free(a);
	return rc;
}
