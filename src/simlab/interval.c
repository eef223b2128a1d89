/* Prediction intervals from cross-validation residuals (sim validate --cv;
 * docs/sim.md "Prediction intervals"): the table of residual quantiles per
 * pool, its YAML, and the check of its coverage on held-out groups. */
#include "simlab/private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* type-7 quantile of sorted v[0..n) */
static double quantile(const double *v, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)floor(h);
	size_t hi = lo + 1 < n ? lo + 1 : lo;
	return v[lo] + (h - (double)lo) * (v[hi] - v[lo]);
}

static void opts_of(const slab_iv_opts *o, slab_iv_opts *out)
{
	static const sim_iv_rule def = {SIM_IV_INFLATION, SIM_IV_ADD, SIM_IV_CAP, false};
	*out = (slab_iv_opts){0.8, &def, SIM_IV_MIN_RESIDUALS};
	if (o && o->level > 0 && o->level < 1)
		out->level = o->level;
	if (o && o->rule)
		out->rule = o->rule;
	if (o && o->min_n)
		out->min_n = o->min_n;
}

static bool kept(const slab_resid *r, const char *skip)
{
	return !skip || strcmp(r->group, skip);
}

/* the quantiles of one figure of the residuals in pool key (level k) */
static size_t pool_q(const slab_resid *r, size_t n, const char *skip, int k, const char *key,
                     bool inter, double level, double *tmp, double out[2])
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		char buf[128];
		const char *keys[3];
		sim_iv_keys(r[i].p->framework, r[i].p->gpu, buf, sizeof buf, keys);
		double v = inter ? r[i].r_inter : r[i].r_tps;
		if (kept(&r[i], skip) && !isnan(v) && !strcmp(keys[k], key))
			tmp[m++] = v;
	}
	if (m) {
		qsort(tmp, m, sizeof *tmp, cmp_d);
		out[0] = quantile(tmp, m, (1 - level) / 2);
		out[1] = quantile(tmp, m, (1 + level) / 2);
	}
	return m;
}

static int cmp_s(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* distinct names (sorted, NULL-terminated) in a */
static const char **distinct(const char **v, size_t n, ib_arena *a)
{
	const char **l = ib_arena_alloc(a, (n + 1) * sizeof *l);
	if (!l)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		while (j < k && strcmp(l[j], v[i]))
			j++;
		if (j == k)
			l[k++] = v[i];
	}
	qsort(l, k, sizeof *l, cmp_s);
	l[k] = NULL;
	return l;
}

int slab_iv_build(const slab_resid *r, size_t n, const char *skip, const slab_iv_opts *o,
                  ib_arena *a, sim_iv_table *out)
{
	slab_iv_opts io;
	opts_of(o, &io);
	memset(out, 0, sizeof *out);
	*out = (sim_iv_table){
	    .path = "(cross-validation)", .level = io.level, .rule = *io.rule, .min_n = io.min_n};
	const char **keys = ib_arena_alloc(a, (3 * n + 1) * sizeof *keys),
	           **mods = ib_arena_alloc(a, (n + 1) * sizeof *mods),
	           **gpus = ib_arena_alloc(a, (n + 1) * sizeof *gpus);
	double *tmp = malloc((n + 1) * sizeof *tmp);
	int rc = IB_ENOMEM;
	if (!keys || !mods || !gpus || !tmp)
		goto out;
	size_t nk[3] = {0}, m = 0;
	const char **lk[3] = {keys, keys + n, keys + 2 * n};
	for (size_t i = 0; i < n; i++) {
		if (!kept(&r[i], skip))
			continue;
		char buf[128];
		const char *k[3];
		sim_iv_keys(r[i].p->framework, r[i].p->gpu, buf, sizeof buf, k);
		for (int l = 0; l < 3; l++)
			if (!(lk[l][nk[l]++] = ib_arena_strdup(a, k[l])))
				goto out;
		mods[m] = r[i].p->model;
		gpus[m++] = r[i].p->gpu;
	}
	if (!(out->models = distinct(mods, m, a)) || !(out->gpus = distinct(gpus, m, a)) ||
	    !(out->pools = ib_arena_alloc(a, (3 * n + 1) * sizeof *out->pools)))
		goto out;
	for (int l = 0; l < 3; l++) {
		const char **d = distinct(lk[l], nk[l], a);
		if (!d)
			goto out;
		for (size_t j = 0; d[j]; j++) {
			sim_iv_pool *p = &out->pools[out->n];
			*p = (sim_iv_pool){.key = d[j]};
			p->n = pool_q(r, n, skip, l, d[j], false, io.level, tmp, p->tput);
			if (!pool_q(r, n, skip, l, d[j], true, io.level, tmp, p->inter))
				memcpy(p->inter, p->tput, sizeof p->inter);
			out->n += p->n > 0;
		}
	}
	rc = 0;
out:
	free(tmp);
	return rc;
}

static void name_list(ib_buf *b, const char *what, const char **l)
{
	ib_buf_printf(b, "%s: [", what);
	for (size_t i = 0; l && l[i]; i++)
		ib_buf_printf(b, "%s%s", i ? ", " : "", l[i]);
	ib_buf_puts(b, "]\n");
}

void slab_iv_write(const sim_iv_table *t, const char *source, ib_buf *out)
{
	ib_buf_puts(out, "# Prediction intervals of the simulator (docs/sim.md \"Prediction "
	                 "intervals\"): pools of\n"
	                 "# cross-validated residuals ln(published / simulated) of the measured "
	                 "rows, each with the\n"
	                 "# quantiles (1 - level) / 2 and (1 + level) / 2 per figure. Written by "
	                 "the command in `source`;\n"
	                 "# do not edit by hand: run it again after the calibration changes.\n");
	ib_buf_printf(out,
	              "level: %g\ninflation: %g\nwiden-add: %g\nwiden-cap: %g\n"
	              "widen-holds-sim: %s\nmin-residuals: %zu\n",
	              t->level, t->rule.inflation, t->rule.add, t->rule.cap,
	              t->rule.hold_sim ? "true" : "false", t->min_n);
	ib_buf_printf(out, "source: \"%s\"\n", source ? source : "");
	name_list(out, "models", t->models);
	name_list(out, "gpus", t->gpus);
	ib_buf_puts(out, "pools:\n");
	for (size_t i = 0; i < t->n; i++) {
		const sim_iv_pool *p = &t->pools[i];
		ib_buf_printf(out,
		              "  - {pool: %s, residuals: %zu, tput-per-gpu: [%.4f, %.4f], "
		              "interactivity: [%.4f, %.4f]}\n",
		              p->key, p->n, p->tput[0], p->tput[1], p->inter[0], p->inter[1]);
	}
}

/* the type-7 quantile q of v[0..n) (sorts v); NAN when empty */
static double quantile_of(double *v, size_t n, double q)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof *v, cmp_d);
	return quantile(v, n, q);
}

static void cover_line(const slab_resid *r, const sim_iv *iv, slab_log_fn log, void *ud)
{
	const slab_point *p = r->p;
	bool it = !isnan(r->r_tps) && p->tps_gpu >= r->sim_tps * iv->tput[0] &&
	          p->tps_gpu <= r->sim_tps * iv->tput[1];
	bool ii = !isnan(r->r_inter) && p->interactivity >= r->sim_inter * iv->inter[0] &&
	          p->interactivity <= r->sim_inter * iv->inter[1];
	slab_out(log, ud, SLAB_LOG_OUT,
	         "%-5d %-16.16s %-7.7s %-14.14s +%d  tok/s/GPU %9.1f [%9.1f %9.1f] pub %9.1f "
	         "%-3s  interactivity %7.1f [%7.1f %7.1f] pub %7.1f %s\n",
	         p->row_id, r->group, p->gpu, iv->pool, iv->widen, r->sim_tps,
	         r->sim_tps * iv->tput[0], r->sim_tps * iv->tput[1], p->tps_gpu,
	         isnan(r->r_tps) ? "-"
	         : it            ? "in"
	                         : "OUT",
	         r->sim_inter, r->sim_inter * iv->inter[0], r->sim_inter * iv->inter[1],
	         p->interactivity,
	         isnan(r->r_inter) ? "-"
	         : ii              ? "in"
	                           : "OUT");
}

/* counts residual r under interval iv */
static void cover_add(const slab_resid *r, const sim_iv *iv, slab_iv_cover *c, double *wt,
                      double *wi)
{
	int w = iv->widen < 3 ? iv->widen : 3;
	if (!isnan(r->r_tps)) {
		bool in = r->r_tps >= log(iv->tput[0]) && r->r_tps <= log(iv->tput[1]);
		wt[c->n_tps++] = iv->tput[1] / iv->tput[0];
		c->in_tps += in;
		c->n_w[w]++;
		c->in_w[w] += in;
	}
	if (!isnan(r->r_inter)) {
		wi[c->n_inter++] = iv->inter[1] / iv->inter[0];
		c->in_inter += r->r_inter >= log(iv->inter[0]) && r->r_inter <= log(iv->inter[1]);
	}
}

static void pct_of(char *b, size_t n, size_t in, size_t of)
{
	if (of)
		snprintf(b, n, "%5.1f%% (%zu/%zu)", 100.0 * (double)in / (double)of, in, of);
	else
		snprintf(b, n, "-");
}

int slab_iv_check(const slab_resid *r, size_t n, const slab_iv_opts *o, ib_arena *a, bool rows,
                  slab_log_fn log, void *ud, slab_iv_cover *c)
{
	slab_iv_opts io;
	opts_of(o, &io);
	memset(c, 0, sizeof *c);
	double *wt = malloc((2 * n + 1) * sizeof *wt), *wi = wt ? wt + n : NULL;
	if (!wt)
		return IB_ENOMEM;
	if (rows)
		slab_out(log, ud, SLAB_LOG_OUT,
		         "\nprediction intervals (%.0f %%) of the held-out measured rows, each "
		         "from the residuals of the other groups:\n"
		         "%-5s %-16s %-7s %-14s %-3s\n",
		         io.level * 100, "row", "held-out group", "gpu", "pool", "+w");
	sim_iv_table t = {0};
	const char *built = NULL;
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		/* a fold's rows are consecutive: one table per held-out group */
		if (!built || strcmp(built, r[i].group)) {
			if ((rc = slab_iv_build(r, n, r[i].group, &io, a, &t)))
				break;
			built = r[i].group;
		}
		sim_iv iv;
		if (sim_iv_lookup(&t, r[i].p->framework, r[i].p->gpu, r[i].p->model, &iv))
			continue; /* no other group has a residual */
		cover_add(&r[i], &iv, c, wt, wi);
		if (rows)
			cover_line(&r[i], &iv, log, ud);
	}
	c->width_tps = quantile_of(wt, c->n_tps, 0.5);
	c->width_inter = quantile_of(wi, c->n_inter, 0.5);
	c->p90_tps = quantile_of(wt, c->n_tps, 0.9);
	c->p90_inter = quantile_of(wi, c->n_inter, 0.9);
	free(wt);
	if (rc)
		return rc;
	char s[6][48];
	pct_of(s[0], sizeof s[0], c->in_tps, c->n_tps);
	pct_of(s[1], sizeof s[1], c->in_inter, c->n_inter);
	slab_out(log, ud, SLAB_LOG_OUT,
	         "held-out coverage of the %.0f %% intervals: tok/s/GPU %s, interactivity %s; "
	         "median width (hi / lo) tok/s/GPU %.2fx, interactivity %.2fx; p90 %.3gx, %.3gx\n",
	         io.level * 100, s[0], s[1], c->width_tps, c->width_inter, c->p90_tps,
	         c->p90_inter);
	for (int w = 0; w < 4; w++)
		pct_of(s[2 + w], sizeof s[2 + w], c->in_w[w], c->n_w[w]);
	slab_out(log, ud, SLAB_LOG_OUT,
	         "  tok/s/GPU coverage by widening steps: +0 %s, +1 %s, +2 %s, +3.. %s\n", s[2],
	         s[3], s[4], s[5]);
	return 0;
}
