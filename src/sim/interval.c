/* Prediction intervals as data: pools of cross-validated residuals of the
 * simulator (configs/sim/intervals.yaml, docs/sim.md "Prediction
 * intervals"), read with every problem named by file, line and field, and
 * the lookup of a configuration's pool with its widening. */
#include "sim/private.h"
#include "sim/sim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

const char *sim_iv_family(const char *gpu)
{
	static const struct {
		const char *gpu, *family;
	} fam[] = {
	    {"h100", "hopper"},     {"h200", "hopper"},    {"h20", "hopper"},
	    {"b200", "blackwell"},  {"b300", "blackwell"}, {"gb200", "blackwell"},
	    {"gb300", "blackwell"}, {"mi300x", "cdna3"},   {"mi325x", "cdna3"},
	    {"mi355x", "cdna4"},    {"mi350x", "cdna4"},
	};
	for (size_t i = 0; gpu && i < sizeof fam / sizeof *fam; i++)
		if (!strcasecmp(fam[i].gpu, gpu))
			return fam[i].family;
	return gpu ? gpu : "?";
}

const char *sim_iv_vendor(const char *gpu)
{
	return gpu && !strncasecmp(gpu, "mi", 2) ? "amd" : "nvidia";
}

void sim_iv_keys(const char *framework, const char *gpu, char *buf, size_t n, const char *keys[3])
{
	snprintf(buf, n, "%s/%s", framework ? framework : "any", sim_iv_family(gpu));
	keys[0] = buf;
	keys[1] = sim_iv_vendor(gpu);
	keys[2] = "all";
}

static bool listed(const char **list, const char *v)
{
	for (size_t i = 0; list && v && list[i]; i++)
		if (!strcasecmp(list[i], v))
			return true;
	return false;
}

static const sim_iv_pool *pool(const sim_iv_table *t, const char *key)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->pools[i].key, key))
			return &t->pools[i];
	return NULL;
}

/* quantiles in widened s steps by rule r (sim_iv_rule), all the pool
 * "all"'s quantiles of the same figure (NULL: h_all 0), into factors out */
static void widen(const double in[2], const double *all, const sim_iv_rule *r, int s, double out[2])
{
	double c = (in[0] + in[1]) / 2, h0 = (in[1] - in[0]) / 2,
	       ha = all ? (all[1] - all[0]) / 2 : 0;
	double h = h0 * pow(r->inflation, s) + r->add * s * ha;
	if (s > 0 && r->cap > 0)
		h = fmin(h, fmax(h0, r->cap * ha));
	/* a factor of e^200 at most: finite and positive whatever the table */
	h = fmin(h, 200);
	double lo = c - h, hi = c + h;
	if (s > 0 && r->hold_sim) {
		lo = fmin(lo, 0);
		hi = fmax(hi, 0);
	}
	out[0] = exp(fmax(lo, -200));
	out[1] = exp(fmin(hi, 200));
}

int sim_iv_lookup(const sim_iv_table *t, const char *framework, const char *gpu, const char *model,
                  sim_iv *out)
{
	char buf[128];
	const char *keys[3];
	sim_iv_keys(framework, gpu, buf, sizeof buf, keys);
	int steps = 0;
	bool gpu_seen = listed(t->gpus, gpu);
	steps += !gpu_seen;
	steps += !listed(t->models, model);
	/* an unknown framework or a GPU no residual came from: not its family */
	const sim_iv_pool *p = NULL, *last = NULL;
	for (int k = framework && gpu_seen ? 0 : 1; k < 3 && !p; k++) {
		const sim_iv_pool *q = pool(t, keys[k]);
		if (q && q->n)
			last = q;
		if (q && q->n >= t->min_n) {
			p = q;
			steps += k;
		}
	}
	if (!p && last) { /* no pool is big enough: the widest there is */
		p = last;
		steps += 2;
	}
	if (!p)
		return IB_ENOENT;
	const sim_iv_pool *all = pool(t, "all");
	*out = (sim_iv){.level = t->level, .pool = p->key, .widen = steps};
	widen(p->tput, all ? all->tput : NULL, &t->rule, steps, out->tput);
	widen(p->inter, all ? all->inter : NULL, &t->rule, steps, out->inter);
	return 0;
}

/* ---- the file ---- */

int sim_file_bad(ib_diags *d, const ib_val *v, const char *field, const char *fmt, const char *arg)
{
	return ib_diag_add(
	    d, &(ib_diag){.file = v->file, .line = v->line, .col = v->col, .field = field}, fmt,
	    arg);
}

int sim_file_verdict(int rc, const ib_diags *d, size_t before, const char *path, const char *what,
                     ib_error *e)
{
	if (rc == IB_ENOMEM)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	size_t errs = ib_diags_count(d, IB_SEV_ERROR) - before;
	if (errs)
		return ib_fail(e, IB_EINVAL, path, 0, 0, "%zu problem%s in the %s", errs,
		               errs == 1 ? "" : "s", what);
	return 0;
}

static bool num(const ib_val *v, double *out)
{
	if (v->type == IB_V_INT)
		*out = (double)v->i;
	else if (v->type == IB_V_FLOAT)
		*out = v->f;
	else
		return false;
	return isfinite(*out);
}

/* [lo, hi] with lo <= hi, finite */
static int pair(const ib_val *v, const char *field, double out[2], ib_diags *d)
{
	if (v->type != IB_V_LIST || v->list.n != 2 || !num(v->list.v[0], &out[0]) ||
	    !num(v->list.v[1], &out[1]))
		return sim_file_bad(d, v, field, "should be [lo, hi], two finite numbers%s", "");
	if (out[0] > out[1])
		return sim_file_bad(d, v, field, "lo should not be above hi%s", "");
	if (fabs(out[0]) > 20 || fabs(out[1]) > 20)
		return sim_file_bad(d, v, field, "a log ratio beyond +-20 (a factor of e^20)%s",
		                    "");
	return 0;
}

static int names(const ib_val *v, const char *field, ib_arena *a, const char ***out, ib_diags *d)
{
	if (v->type != IB_V_LIST)
		return sim_file_bad(d, v, field, "should be a list of names%s", "");
	const char **l = ib_arena_alloc(a, (v->list.n + 1) * sizeof *l);
	if (!l)
		return IB_ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < v->list.n; i++) {
		if (v->list.v[i]->type != IB_V_STR)
			sim_file_bad(d, v->list.v[i], field, "should be a name%s", "");
		else if (!(l[k++] = ib_arena_strdup(a, v->list.v[i]->str.s)))
			return IB_ENOMEM;
	}
	l[k] = NULL;
	*out = l;
	return 0;
}

static int load_pool(const ib_val *v, sim_iv_pool *p, ib_arena *a, ib_diags *d)
{
	*p = (sim_iv_pool){.key = ""}; /* a named pool, whatever follows */
	if (v->type != IB_V_MAP)
		return sim_file_bad(d, v, "pools", "each pool should be a mapping%s", "");
	bool have[4] = {0};
	for (size_t i = 0; i < v->map.n; i++) {
		const ib_val *k = v->map.kv[i].key, *x = v->map.kv[i].val;
		const char *name = k->type == IB_V_STR ? k->str.s : "?";
		double f;
		if (!strcmp(name, "pool")) {
			/* the name goes into a response header: letters, digits, . _ / - */
			if (x->type != IB_V_STR || !x->str.len || x->str.len > 63 ||
			    x->str.len != strspn(x->str.s,
			                         "abcdefghijklmnopqrstuvwxyz"
			                         "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-"))
				sim_file_bad(
				    d, x, name,
				    "should be a name of letters, digits, . _ / - (63 at most)%s",
				    "");
			else if (!(p->key = ib_arena_strdup(a, x->str.s)))
				return IB_ENOMEM;
			have[0] = true;
		} else if (!strcmp(name, "residuals")) {
			if (!num(x, &f) || f < 0 || f != floor(f) || f > 1e9)
				sim_file_bad(d, x, name, "should be a count%s", "");
			else
				p->n = (size_t)f;
			have[1] = true;
		} else if (!strcmp(name, "tput-per-gpu")) {
			pair(x, name, p->tput, d);
			have[2] = true;
		} else if (!strcmp(name, "interactivity")) {
			pair(x, name, p->inter, d);
			have[3] = true;
		} else
			sim_file_bad(d, k, name,
			             "unknown key (a pool has pool, residuals, tput-per-gpu, "
			             "interactivity)%s",
			             "");
	}
	static const char *const req[] = {"pool", "residuals", "tput-per-gpu", "interactivity"};
	for (int i = 0; i < 4; i++)
		if (!have[i])
			sim_file_bad(d, v, req[i], "missing%s", "");
	return 0;
}

/* the top-level keys of the table */
static int load_top(const ib_val *doc, sim_iv_table *t, ib_arena *a, ib_diags *d)
{
	const ib_val *pools = NULL;
	int rc = 0;
	bool have_level = false;
	for (size_t i = 0; i < doc->map.n && !rc; i++) {
		const ib_val *k = doc->map.kv[i].key, *x = doc->map.kv[i].val;
		const char *name = k->type == IB_V_STR ? k->str.s : "?";
		double f;
		if (!strcmp(name, "level")) {
			have_level = true;
			if (!num(x, &f) || !(f > 0 && f < 1))
				sim_file_bad(d, x, name, "should be a number in (0, 1)%s", "");
			else
				t->level = f;
		} else if (!strcmp(name, "inflation")) {
			if (!num(x, &f) || !(f >= 1 && f <= 100))
				sim_file_bad(d, x, name, "should be a number in [1, 100]%s", "");
			else
				t->rule.inflation = f;
		} else if (!strcmp(name, "widen-add")) {
			if (!num(x, &f) || !(f >= 0 && f <= 100))
				sim_file_bad(d, x, name, "should be a number in [0, 100]%s", "");
			else
				t->rule.add = f;
		} else if (!strcmp(name, "widen-cap")) {
			if (!num(x, &f) || !(f == 0 || (f >= 1 && f <= 100)))
				sim_file_bad(d, x, name,
				             "should be 0 (none) or a number in [1, 100]%s", "");
			else
				t->rule.cap = f;
		} else if (!strcmp(name, "widen-holds-sim")) {
			if (x->type != IB_V_BOOL)
				sim_file_bad(d, x, name, "should be true or false%s", "");
			else
				t->rule.hold_sim = x->b;
		} else if (!strcmp(name, "min-residuals")) {
			if (!num(x, &f) || f < 1 || f != floor(f) || f > 1e6)
				sim_file_bad(d, x, name, "should be a count of at least 1%s", "");
			else
				t->min_n = (size_t)f;
		} else if (!strcmp(name, "source")) {
			if (x->type != IB_V_STR)
				sim_file_bad(d, x, name, "should be a text%s", "");
		} else if (!strcmp(name, "models"))
			rc = names(x, name, a, &t->models, d);
		else if (!strcmp(name, "gpus"))
			rc = names(x, name, a, &t->gpus, d);
		else if (!strcmp(name, "pools"))
			pools = x;
		else
			sim_file_bad(
			    d, k, name,
			    "unknown key (an interval table has level, inflation, widen-add, "
			    "widen-cap, widen-holds-sim, min-residuals, source, models, gpus, "
			    "pools)%s",
			    "");
	}
	if (rc)
		return rc;
	if (!have_level)
		sim_file_bad(d, doc, "level", "missing%s", "");
	if (!pools)
		return sim_file_bad(d, doc, "pools", "missing%s", "");
	if (pools->type != IB_V_LIST)
		return sim_file_bad(d, pools, "pools", "should be a list of pools%s", "");
	t->pools = ib_arena_alloc(a, (pools->list.n + 1) * sizeof *t->pools);
	if (!t->pools)
		return IB_ENOMEM;
	for (size_t i = 0; i < pools->list.n && !rc; i++)
		rc = load_pool(pools->list.v[i], &t->pools[t->n++], a, d);
	if (!rc && !pool(t, "all"))
		sim_file_bad(d, pools, "pools", "no pool 'all' (the last fallback)%s", "");
	return rc;
}

int sim_iv_load(const char *path, ib_arena *a, sim_iv_table *out, ib_diags *d, ib_error *e)
{
	memset(out, 0, sizeof *out);
	/* absent keys: the multiplicative rule of tables written before
	 * widen-add (sim.h) */
	out->rule = (sim_iv_rule){.inflation = SIM_IV_INFLATION_BEFORE};
	out->min_n = 8;
	ib_val *doc;
	int rc = ib_yaml_load_file(a, path, &doc, e);
	if (rc)
		return rc;
	if (!(out->path = ib_arena_strdup(a, path)))
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	size_t before = ib_diags_count(d, IB_SEV_ERROR);
	if (doc->type != IB_V_MAP)
		rc = ib_diag_add(d,
		                 &(ib_diag){.file = doc->file ? doc->file : path,
		                            .line = doc->line,
		                            .col = doc->col},
		                 "an interval table is a mapping with 'level' and 'pools'");
	else
		rc = load_top(doc, out, a, d);
	return sim_file_verdict(rc, d, before, path, "interval table", e);
}

/* ---- the wire ---- */

void sim_iv_header(const sim_iv *iv, char *buf, size_t n)
{
	int k = snprintf(buf, n,
	                 "X-Infbench-Sim-Interval: level=%.6g; tput=%.17g,%.17g; "
	                 "inter=%.17g,%.17g; pool=%s; widen=%d\r\n",
	                 iv->level, iv->tput[0], iv->tput[1], iv->inter[0], iv->inter[1],
	                 iv->pool ? iv->pool : "?", iv->widen);
	if (n && (k < 0 || (size_t)k >= n))
		buf[0] = 0;
}

bool sim_iv_parse(const char *v, size_t len, sim_iv *out, char *pool, size_t npool)
{
	char s[384], name[128];
	if (len >= sizeof s)
		return false;
	memcpy(s, v, len);
	s[len] = 0;
	int used = 0;
	memset(out, 0, sizeof *out);
	if (sscanf(s, "level=%lf; tput=%lf,%lf; inter=%lf,%lf; pool=%127[^;]; widen=%3d%n",
	           &out->level, &out->tput[0], &out->tput[1], &out->inter[0], &out->inter[1], name,
	           &out->widen, &used) != 7 ||
	    s[used] || strlen(name) >= npool)
		return false;
	snprintf(pool, npool, "%s", name);
	out->pool = pool;
	for (int i = 0; i < 2; i++)
		if (!isfinite(out->tput[i]) || !isfinite(out->inter[i]) || !(out->tput[i] > 0) ||
		    !(out->inter[i] > 0))
			return false;
	return out->level > 0 && out->level < 1 && out->tput[0] <= out->tput[1] &&
	       out->inter[0] <= out->inter[1] && out->widen >= 0;
}
