/* The evaluation view's bars and the comparison view's interpolation tables,
 * both computed by the report library. */
#include "report/html_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ib_val *num(ib_arena *a, double x)
{
	return isfinite(x) ? ib_v_float(a, x) : ib_v_null(a);
}

#define SET(m, k, v)                                                                               \
	do {                                                                                       \
		ib_val *v_ = (v);                                                                  \
		if (!v_ || ib_map_set(a, (m), (k), v_))                                            \
			return IB_ENOMEM;                                                          \
	} while (0)

/* ---- evals ---- */

static int eval_group(ib_arena *a, const rep_rowset *rs, const rep_ev_row *g0, int run, ib_val *out)
{
	size_t n = rs->nevals, m = 0;
	rep_eval_row *rows = calloc(n, sizeof *rows);
	const char **hw = calloc(n, sizeof *hw);
	const rep_ev_row **src = calloc(n, sizeof *src);
	int rc = IB_ENOMEM;
	rep_eval_chart *c = NULL;
	if (!rows || !hw || !src)
		goto done;
	bool several_prec = false;
	for (size_t i = 0; i < n; i++) {
		const rep_ev_row *e = &rs->evals[i];
		if (e->overlay != run || strcmp(e->model, g0->model) || e->isl != g0->isl ||
		    e->osl != g0->osl || strcmp(e->task, g0->task))
			continue;
		rep_row lr = {.hw = e->hw,
		              .framework = e->framework,
		              .spec_decoding = e->spec,
		              .overlay_run = -1};
		char hk[128];
		rep_hardware_key(&lr, rep_gpu_table_builtin(true), hk, sizeof hk);
		char *key = ib_arena_strdup(a, hk);
		if (!key)
			goto done;
		hw[m] = key;
		src[m] = e;
		if (m && strcmp(src[0]->precision, e->precision))
			several_prec = true;
		rows[m] = (rep_eval_row){.id = NULL,
		                         .hw_key = key,
		                         .hw_label = rep_label_gpu(e->hw),
		                         .framework = e->framework,
		                         .framework_label = rep_label_framework(e->framework),
		                         .spec_decode = e->spec,
		                         .spec_label = !strcmp(e->spec, "mtp") ? "MTP" : e->spec,
		                         .precision = e->precision,
		                         .date = e->date,
		                         .conc = e->conc,
		                         .tp = e->tp,
		                         .ep = e->ep,
		                         .dpa = e->dpa,
		                         .score = e->score,
		                         .score_error = isnan(e->score_se) ? 0 : e->score_se};
		m++;
	}
	if (!m) {
		rc = 0;
		goto done;
	}
	rc = rep_eval_aggregate(rows, m, hw, m, several_prec, &c);
	if (rc)
		goto done;
	rc = IB_ENOMEM;
	ib_val *g = ib_v_map(a), *bars = ib_v_list(a), *dom = ib_v_list(a);
	if (!g || !bars || !dom || ib_list_push(a, dom, num(a, c->x_domain[0])) ||
	    ib_list_push(a, dom, num(a, c->x_domain[1])))
		goto done;
	for (size_t b = 0; b < c->nbars; b++) {
		const rep_eval_bar *eb = &c->bars[b];
		const rep_ev_row *e = src[eb->first];
		ib_val *o = ib_v_map(a);
		if (!o || ib_map_set(a, o, "label", ib_v_str(a, eb->label)) ||
		    ib_map_set(a, o, "hw", ib_v_str(a, eb->hw_key)) ||
		    ib_map_set(a, o, "score", num(a, eb->score)) ||
		    ib_map_set(a, o, "emin", num(a, eb->error_min)) ||
		    ib_map_set(a, o, "emax", num(a, eb->error_max)) ||
		    ib_map_set(a, o, "min", num(a, eb->min_score)) ||
		    ib_map_set(a, o, "max", num(a, eb->max_score)) ||
		    ib_map_set(a, o, "conc", ib_v_int(a, e->conc)) ||
		    ib_map_set(a, o, "prec", ib_v_str(a, e->precision)) ||
		    ib_map_set(a, o, "tp", ib_v_int(a, e->tp)) ||
		    ib_map_set(a, o, "ep", ib_v_int(a, e->ep)) ||
		    ib_map_set(a, o, "dpa", ib_v_bool(a, e->dpa)) ||
		    ib_map_set(a, o, "date", ib_v_str(a, e->date)) || ib_list_push(a, bars, o))
			goto done;
	}
	if (ib_map_set(a, g, "model", ib_v_str(a, g0->model)) ||
	    ib_map_set(a, g, "seq", ib_v_str(a, rep_seq_label(a, g0->isl, g0->osl))) ||
	    ib_map_set(a, g, "task", ib_v_str(a, g0->task)) ||
	    ib_map_set(a, g, "run", ib_v_int(a, run)) || ib_map_set(a, g, "domain", dom) ||
	    ib_map_set(a, g, "bars", bars) || ib_list_push(a, out, g))
		goto done;
	rc = 0;
done:
	rep_eval_chart_free(c);
	free(rows);
	free(hw);
	free(src);
	return rc;
}

int rep_page_data_evals(ib_arena *a, const rep_rowset *rs, ib_val **out)
{
	ib_val *l = ib_v_list(a);
	if (!l)
		return IB_ENOMEM;
	for (size_t i = 0; i < rs->nevals; i++) {
		const rep_ev_row *e = &rs->evals[i];
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++) {
			const rep_ev_row *f = &rs->evals[k];
			seen = f->overlay == e->overlay && !strcmp(f->model, e->model) &&
			       f->isl == e->isl && f->osl == e->osl && !strcmp(f->task, e->task);
		}
		if (seen)
			continue;
		int rc = eval_group(a, rs, e, e->overlay, l);
		if (rc)
			return rc;
	}
	*out = l;
	return 0;
}

/* ---- comparison tables ---- */

static void gpu_point(const rep_agg_row *r, const rep_row *lr, const rep_gpu_table *gpus,
                      par_gpu_point *p)
{
	rep_metrics m;
	rep_derive_metrics(lr, gpus, NULL, &m, NULL, 0, NULL, 0, NULL);
	memset(p, 0, sizeof *p);
	p->interactivity = rep_row_num(r, "median_intvty");
	p->throughput = m.v[REP_M_TP_PER_GPU];
	p->output_tput = m.has[REP_M_OUTPUT_TPUT_PER_GPU] ? m.v[REP_M_OUTPUT_TPUT_PER_GPU] : 0;
	p->input_tput = m.has[REP_M_INPUT_TPUT_PER_GPU] ? m.v[REP_M_INPUT_TPUT_PER_GPU] : 0;
	p->concurrency = r->conc;
	static const rep_metric cm[9] = {
	    REP_M_COSTH,  REP_M_COSTN,        REP_M_COSTR,        REP_M_COSTHI,      REP_M_COSTNI,
	    REP_M_COSTRI, REP_M_COSTH_OUTPUT, REP_M_COSTN_OUTPUT, REP_M_COSTR_OUTPUT};
	for (int k = 0; k < 3; k++)
		for (int t = 0; t < 3; t++) {
			rep_metric mm = cm[t * 3 + k];
			p->cost[par_cost_index((par_cost_provider)k, (par_tok_type)t)] =
			    m.has[mm] ? m.v[mm] : 0;
		}
	p->tp_per_mw = m.v[REP_M_TP_PER_MW];
	p->input_tp_per_mw = m.has[REP_M_INPUT_TPUT_PER_MW] ? m.v[REP_M_INPUT_TPUT_PER_MW] : 0;
	p->output_tp_per_mw = m.has[REP_M_OUTPUT_TPUT_PER_MW] ? m.v[REP_M_OUTPUT_TPUT_PER_MW] : 0;
}

static ib_val *side(ib_arena *a, const rep_compare_side *s)
{
	if (!s->present)
		return ib_v_null(a);
	ib_val *o = ib_v_map(a);
	if (!o || ib_map_set(a, o, "value", num(a, s->r.value)) ||
	    ib_map_set(a, o, "cost", num(a, s->r.cost)) ||
	    ib_map_set(a, o, "tpPerMw", num(a, s->r.tp_per_mw)) ||
	    ib_map_set(a, o, "conc", num(a, s->r.concurrency)) ||
	    ib_map_set(a, o, "clamped", ib_v_bool(a, s->r.clamped)))
		return NULL;
	return o;
}

/* One series of the comparison: its rows members[0..nm) (kept, of the
 * group, baseline or run, precision prec and hwKey hk), in row order. */
static int compare_series(ib_arena *a, const rep_rowset *rs, const rep_row *rows,
                          const rep_gpu_table *gpus, const ib_val *g, const size_t *members,
                          size_t nm, const char *hk, const char *prec, ib_val *list)
{
	size_t na = 0, nb = 0;
	par_gpu_point *pa = calloc(nm ? nm : 1, sizeof *pa), *pb = calloc(nm ? nm : 1, sizeof *pb);
	int rc = IB_ENOMEM;
	if (!pa || !pb)
		goto done;
	for (size_t k = 0; k < nm; k++) {
		size_t i = members[k];
		const rep_agg_row *r = &rs->rows[i];
		if (r->overlay < 0)
			gpu_point(r, &rows[i], gpus, &pa[na++]);
		else
			gpu_point(r, &rows[i], gpus, &pb[nb++]);
	}
	rc = 0;
	if (!na || !nb)
		goto done;
	rep_compare_table t;
	rc = rep_compare_table_compute(pa, na, pb, nb, &t);
	if (rc)
		goto done;
	rc = IB_ENOMEM;
	ib_val *o = ib_v_map(a), *tr = ib_v_list(a);
	if (!o || !tr)
		goto done;
	for (size_t k = 0; k < t.nrows; k++) {
		ib_val *row = ib_v_map(a);
		ib_val *sa = side(a, &t.rows[k].a), *sb = side(a, &t.rows[k].b);
		if (!row || !sa || !sb || ib_map_set(a, row, "target", num(a, t.rows[k].target)) ||
		    ib_map_set(a, row, "base", sa) || ib_map_set(a, row, "run", sb) ||
		    ib_list_push(a, tr, row))
			goto done;
	}
	/* the compare pages' sentences, baseline as A and the run as B */
	rep_narr_row nr[3];
	ib_buf paras[3] = {{0}};
	size_t np = 0, nn = t.nrows < 3 ? t.nrows : 3;
	for (size_t k = 0; k < nn; k++)
		nr[k] =
		    (rep_narr_row){t.rows[k].target,
		                   {t.rows[k].a.present, t.rows[k].a.r.value, t.rows[k].a.r.cost},
		                   {t.rows[k].b.present, t.rows[k].b.r.value, t.rows[k].b.r.cost}};
	const ib_val *ml = ib_map_get(g, "modelLabel");
	int nrc = rep_compare_narrative("full", ml ? ml->str.s : "", "the baseline", "the run", nr,
	                                nn, t.range_min, t.range_max, paras, &np);
	ib_val *text = ib_v_list(a);
	for (size_t k = 0; k < 3; k++) {
		if (!nrc && text && paras[k].len &&
		    ib_list_push(a, text, ib_v_str(a, paras[k].data)))
			nrc = IB_ENOMEM;
		ib_buf_free(&paras[k]);
	}
	if (nrc == IB_ENOMEM || !text || ib_map_set(a, o, "text", text))
		goto done;
	if (ib_map_set(a, o, "hw", ib_v_str(a, hk)) ||
	    ib_map_set(a, o, "prec", ib_v_str(a, prec)) ||
	    ib_map_set(a, o, "min", num(a, t.range_min)) ||
	    ib_map_set(a, o, "max", num(a, t.range_max)) || ib_map_set(a, o, "rows", tr) ||
	    ib_list_push(a, list, o))
		goto done;
	rc = 0;
done:
	free(pa);
	free(pb);
	return rc;
}

int rep_page_data_compare(ib_arena *a, const rep_rowset *rs, const rep_row *rows, const bool *keep,
                          const size_t *gid, const rep_gpu_table *gpus, ib_val *groups)
{
	/* a series: (group, hwKey, precision) of the kept baseline and run rows */
	size_t n = rs->n, ng = groups->list.n, nids = 0, *ids = malloc((n ? n : 1) * sizeof *ids),
	       *off = NULL, *mem = NULL;
	const char **keys = malloc((n ? n : 1) * sizeof *keys);
	ib_val **lists = calloc(ng ? ng : 1, sizeof *lists);
	bool *done = NULL;
	ib_arena *ka = ib_arena_new();
	int rc = ids && keys && lists && ka ? 0 : IB_ENOMEM;
	for (size_t i = 0; !rc && i < n; i++) {
		char hk[128];
		const rep_agg_row *r = &rs->rows[i];
		rep_hardware_key(&rows[i], gpus, hk, sizeof hk);
		keys[i] = keep[i] && r->overlay <= 0
		              ? ib_arena_printf(ka, "%zu|%s|%s", gid[i], hk, r->precision)
		              : "";
		if (!keys[i])
			rc = IB_ENOMEM;
	}
	if (!rc)
		rc = rep_group_keys(keys, n, ids, &nids, &off, &mem);
	if (!rc && !(done = calloc(nids ? nids : 1, sizeof *done)))
		rc = IB_ENOMEM;
	for (size_t g = 0; !rc && g < ng; g++)
		if (!(lists[g] = ib_v_list(a)))
			rc = IB_ENOMEM;
	/* each series of the run, once, in order of first appearance */
	for (size_t i = 0; !rc && i < n; i++) {
		const rep_agg_row *r = &rs->rows[i];
		if (!keep[i] || r->overlay != 0 || done[ids[i]] || gid[i] >= ng)
			continue;
		done[ids[i]] = true;
		char hk[128];
		rep_hardware_key(&rows[i], gpus, hk, sizeof hk);
		rc = compare_series(a, rs, rows, gpus, groups->list.v[gid[i]], mem + off[ids[i]],
		                    off[ids[i] + 1] - off[ids[i]], hk, r->precision, lists[gid[i]]);
	}
	for (size_t g = 0; !rc && g < ng; g++)
		if (ib_map_set(a, groups->list.v[g], "compare", lists[g]))
			rc = IB_ENOMEM;
	free(ids);
	free(keys);
	free(lists);
	free(done);
	free(off);
	free(mem);
	ib_arena_free(ka);
	return rc;
}

/* ---- historical trends ---- */

static const double trend_targets[] = {10, 20, 30, 40, 50, 75, 100, 150, 200, 300};
static const rep_metric trend_metrics[] = {REP_M_TP_PER_GPU, REP_M_COSTH, REP_M_J_TOTAL};
#define NTT (sizeof trend_targets / sizeof trend_targets[0])
#define NTM (sizeof trend_metrics / sizeof trend_metrics[0])

/* One series' values per metric x target x date (null: no value); its rows
 * are members[0..nm) (row order), dates[0..nd) sorted and distinct. */
static int trend_series(ib_arena *a, const rep_rowset *rs, const rep_row *rows,
                        const rep_gpu_table *gpus, int s, const size_t *members, size_t nm,
                        const char **dates, size_t nd, ib_val *out)
{
	size_t n1 = nm ? nm : 1, *did = malloc(n1 * sizeof *did), *off = NULL, *by = NULL;
	rep_trend_point *pts = malloc(n1 * sizeof *pts);
	rep_metrics *ms = malloc(n1 * sizeof *ms);
	ib_val *vals = ib_v_list(a);
	double *v = malloc((NTM * NTT * nd + 1) * sizeof *v);
	int rc = pts && ms && vals && v && did ? 0 : IB_ENOMEM;
	for (size_t k = 0; !rc && k < nm; k++) {
		const char *d = rs->rows[members[k]].date;
		const char **at = bsearch(&d, dates, nd, sizeof *dates, ib_cmp_str);
		did[k] = at ? (size_t)(at - dates) : nd;
	}
	if (!rc)
		rc = rep_bucket_ids(did, nm, nd + 1, &off, &by);
	for (size_t di = 0; !rc && di < nd; di++) {
		size_t m = 0;
		for (size_t k = off[di]; k < off[di + 1]; k++) {
			size_t i = members[by[k]];
			rep_derive_metrics(&rows[i], gpus, NULL, &ms[m], NULL, 0, NULL, 0, NULL);
			pts[m] = (rep_trend_point){NULL, rep_row_num(&rs->rows[i], "median_intvty"),
			                           &ms[m]};
			m++;
		}
		for (size_t mi = 0; !rc && mi < NTM; mi++)
			for (size_t ti = 0; !rc && ti < NTT; ti++) {
				double x = NAN;
				int got = m ? rep_interpolate_trend(pts, m, trend_metrics[mi],
				                                    trend_targets[ti], &x)
				            : 0;
				if (got < 0)
					rc = IB_ENOMEM;
				v[(mi * NTT + ti) * nd + di] = got == 1 ? x : NAN;
			}
	}
	for (size_t k = 0; !rc && k < NTM * NTT * nd; k++)
		if (ib_list_push(a, vals, isnan(v[k]) ? ib_v_null(a) : num(a, v[k])))
			rc = IB_ENOMEM;
	free(v);
	ib_val *o = rc ? NULL : ib_v_map(a);
	if (!rc && (!o || ib_map_set(a, o, "s", ib_v_int(a, s)) || ib_map_set(a, o, "v", vals) ||
	            ib_list_push(a, out, o)))
		rc = IB_ENOMEM;
	free(pts);
	free(ms);
	free(did);
	free(off);
	free(by);
	return rc;
}

/* The trend of group g: its official rows gm[0..ngm) (row order), whose
 * series sid[] has the rows smem[soff[k] .. soff[k + 1]). */
static int trend_group(ib_arena *a, const rep_rowset *rs, const rep_row *rows, const int *series,
                       const rep_gpu_table *gpus, ib_val *g, const size_t *gm, size_t ngm,
                       const size_t *sid, const size_t *soff, const size_t *smem, bool *done)
{
	const char **dates = malloc((ngm ? ngm : 1) * sizeof *dates);
	size_t nd = 0;
	int rc = dates ? 0 : IB_ENOMEM;
	for (size_t k = 0; !rc && k < ngm; k++)
		dates[k] = rs->rows[gm[k]].date;
	if (!rc)
		qsort(dates, ngm, sizeof *dates, ib_cmp_str);
	for (size_t k = 0; !rc && k < ngm; k++)
		if (!nd || strcmp(dates[nd - 1], dates[k]))
			dates[nd++] = dates[k];
	if (rc || nd < 2) /* no history in this group */
		goto done;
	ib_val *t = ib_v_map(a), *dl = ib_v_list(a), *tl = ib_v_list(a), *ml = ib_v_list(a),
	       *sl = ib_v_list(a);
	if (!t || !dl || !tl || !ml || !sl) {
		rc = IB_ENOMEM;
		goto done;
	}
	for (size_t k = 0; !rc && k < nd; k++)
		rc = ib_list_push(a, dl, ib_v_str(a, dates[k]));
	for (size_t k = 0; !rc && k < NTT; k++)
		rc = ib_list_push(a, tl, num(a, trend_targets[k]));
	for (size_t k = 0; !rc && k < NTM; k++)
		rc = ib_list_push(a, ml, ib_v_str(a, rep_metric_name(trend_metrics[k])));
	/* every official series of the group, once */
	for (size_t k = 0; !rc && k < ngm; k++) {
		size_t i = gm[k], s = sid[i];
		if (done[s])
			continue;
		done[s] = true;
		rc = trend_series(a, rs, rows, gpus, series[i], smem + soff[s],
		                  soff[s + 1] - soff[s], dates, nd, sl);
	}
	if (!rc && (ib_map_set(a, t, "dates", dl) || ib_map_set(a, t, "targets", tl) ||
	            ib_map_set(a, t, "metrics", ml) || ib_map_set(a, t, "series", sl) ||
	            ib_map_set(a, g, "trend", t)))
		rc = IB_ENOMEM;
done:
	free(dates);
	return rc;
}

int rep_page_data_trends(ib_arena *a, const rep_rowset *rs, const rep_row *rows, const int *series,
                         const size_t *gid, const rep_gpu_table *gpus, ib_val *groups)
{
	/* official rows by group, and by (group, series) */
	size_t n = rs->n, ng = groups->list.n, nids = 0;
	size_t *gk = malloc((n ? n : 1) * sizeof *gk), *sid = malloc((n ? n : 1) * sizeof *sid);
	size_t *goff = NULL, *gmem = NULL, *soff = NULL, *smem = NULL;
	const char **keys = malloc((n ? n : 1) * sizeof *keys);
	bool *done = NULL;
	ib_arena *ka = ib_arena_new();
	int rc = gk && sid && keys && ka ? 0 : IB_ENOMEM;
	for (size_t i = 0; !rc && i < n; i++) {
		bool official = rs->rows[i].overlay < 0 && gid[i] < ng;
		gk[i] = official ? gid[i] : ng;
		keys[i] = official ? ib_arena_printf(ka, "%zu|%d", gid[i], series[i]) : "";
		if (!keys[i])
			rc = IB_ENOMEM;
	}
	if (!rc)
		rc = rep_bucket_ids(gk, n, ng + 1, &goff, &gmem);
	if (!rc)
		rc = rep_group_keys(keys, n, sid, &nids, &soff, &smem);
	if (!rc && !(done = calloc(nids ? nids : 1, sizeof *done)))
		rc = IB_ENOMEM;
	for (size_t g = 0; !rc && g < ng; g++)
		rc = trend_group(a, rs, rows, series, gpus, groups->list.v[g], gmem + goff[g],
		                 goff[g + 1] - goff[g], sid, soff, smem, done);
	free(gk);
	free(sid);
	free(keys);
	free(done);
	free(goff);
	free(gmem);
	free(soff);
	free(smem);
	ib_arena_free(ka);
	return rc ? IB_ENOMEM : 0;
}
