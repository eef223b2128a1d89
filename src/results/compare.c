/* compare: a drop-in for InferenceX's utils/compare_results.py (spec/bench.md
 * §4.4, docs/compare.md). Each agg row is looked up against a baseline source
 * (the results database or a baseline agg file) and printed as GitHub markdown
 * tables with coloured deltas, byte for byte as the reference with tabulate
 * 0.10 prints them. */
#include "results/db_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utf8proc.h>

/* ---- Python value semantics ---- */

/* Python float(v). */
bool res_py_float(const ib_val *v, double *out, const char **why)
{
	switch (v ? v->type : IB_V_NULL) {
	case IB_V_BOOL:
		*out = v->b;
		return true;
	case IB_V_INT:
		*out = (double)v->i;
		return true;
	case IB_V_FLOAT:
		*out = v->f;
		return true;
	case IB_V_STR:
		if (ib_py_float(v->str.s, v->str.len, out))
			return true;
		*why = "could not convert string to float";
		return false;
	default:
		*why = "float() argument must be a string or a real number";
		return false;
	}
}

/* Python parse_bool of the reference: a bool as it is, otherwise
 * str(v).lower() == "true". */
bool res_parse_bool(const ib_val *v)
{
	if (v && v->type == IB_V_BOOL)
		return v->b;
	if (!v || v->type != IB_V_STR || v->str.len != 4)
		return false;
	static const char t[] = "true";
	for (size_t i = 0; i < 4; i++)
		if ((v->str.s[i] | 0x20) != t[i])
			return false;
	return true;
}

/* str.lower() / str.upper() (simple case mapping per code point). */
char *res_py_case(ib_arena *a, const char *s, size_t n, bool upper)
{
	ib_buf b = {0};
	int rc = ib_buf_reserve(&b, n + 1);
	for (size_t i = 0; i < n && !rc;) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80) {
			rc = ib_buf_putc(&b, (char)(upper ? (c >= 'a' && c <= 'z' ? c - 32 : c)
			                                  : (c >= 'A' && c <= 'Z' ? c + 32 : c)));
			i++;
			continue;
		}
		utf8proc_int32_t cp;
		utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
		                                      (utf8proc_ssize_t)(n - i), &cp);
		if (k <= 0) { /* not UTF-8: keep the byte */
			rc = ib_buf_putc(&b, (char)c);
			i++;
			continue;
		}
		utf8proc_uint8_t enc[4];
		utf8proc_ssize_t m =
		    utf8proc_encode_char(upper ? utf8proc_toupper(cp) : utf8proc_tolower(cp), enc);
		rc = ib_buf_append(&b, enc, (size_t)m);
		i += (size_t)k;
	}
	char *r = rc ? NULL : ib_arena_strndup(a, b.data ? b.data : "", b.len);
	ib_buf_free(&b);
	return r;
}

/* Python f"{x:{plus}.{prec}f}". */
static void py_fixed(ib_buf *b, double x, int prec, bool plus)
{
	if (isnan(x))
		ib_buf_puts(b, plus ? "+nan" : "nan");
	else if (isinf(x))
		ib_buf_puts(b, x > 0 ? (plus ? "+inf" : "inf") : "-inf");
	else
		ib_buf_printf(b, plus ? "%+.*f" : "%.*f", prec, x);
}

/* ---- the baseline key of a row ---- */

static int row_fail(ib_error *e, const char *key, const char *why)
{
	return ib_fail(e, IB_EINVAL, NULL, 0, 0, why ? "'%s': %s" : "missing key '%s'", key, why);
}

static int get_str(ib_arena *a, const ib_val *row, const char *key, const char *dflt,
                   const char **out, ib_error *e)
{
	const ib_val *v = ib_map_get(row, key);
	if (!v && !dflt)
		return row_fail(e, key, NULL);
	if (!v) {
		*out = dflt;
		return 0;
	}
	if (v->type != IB_V_STR)
		return row_fail(e, key, "not a string (.lower() fails)");
	*out = res_py_case(a, v->str.s, v->str.len, false);
	return *out ? 0 : IB_ENOMEM;
}

static int get_int(const ib_val *row, const char *key, int64_t *out, ib_error *e)
{
	const ib_val *v = ib_map_get(row, key);
	const char *why = NULL;
	if (!v)
		return row_fail(e, key, NULL);
	return ib_val_py_int(v, out, &why) ? 0 : row_fail(e, key, why);
}

static int get_bool(const ib_val *row, const char *key, bool *out, ib_error *e)
{
	const ib_val *v = ib_map_get(row, key);
	if (!v)
		return row_fail(e, key, NULL);
	*out = res_parse_bool(v);
	return 0;
}

/* extract_hardware: re.split(r"-(multinode|trt|disagg)$", hw)[0].lower() */
size_t res_hw_base_len(const char *s, size_t n)
{
	static const char *const suf[] = {"-multinode", "-trt", "-disagg"};
	size_t end = n;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < 3; i++) {
			size_t k = strlen(suf[i]);
			if (end >= k && !memcmp(s + end - k, suf[i], k))
				return end - k;
		}
		if (end && s[end - 1] == '\n') /* '$' also matches before a final newline */
			end--;
		else
			break;
	}
	return n;
}

int res_cfg_key_of(ib_arena *a, const ib_val *row, res_cfg_key *k, ib_error *e)
{
	memset(k, 0, sizeof *k);
	int rc;
	k->is_multinode = ib_val_truthy(ib_map_get(row, "is_multinode"));
	const ib_val *hw = ib_map_get(row, "hw");
	if (!hw)
		return row_fail(e, "hw", NULL);
	if (hw->type != IB_V_STR)
		return row_fail(e, "hw", "not a string");
	k->hardware = res_py_case(a, hw->str.s, res_hw_base_len(hw->str.s, hw->str.len), false);
	if (!k->hardware)
		return IB_ENOMEM;
	if ((rc = get_str(a, row, "infmax_model_prefix", NULL, &k->model, e)) ||
	    (rc = get_str(a, row, "framework", NULL, &k->framework, e)) ||
	    (rc = get_str(a, row, "precision", NULL, &k->precision, e)) ||
	    (rc = get_str(a, row, "spec_decoding", "none", &k->spec_method, e)))
		return rc;
	const ib_val *dg = ib_map_get(row, "disagg");
	k->disagg = dg ? res_parse_bool(dg) : false;
	if (k->is_multinode) {
		if ((rc = get_int(row, "prefill_tp", &k->prefill_tp, e)) ||
		    (rc = get_int(row, "prefill_ep", &k->prefill_ep, e)) ||
		    (rc = get_bool(row, "prefill_dp_attention", &k->prefill_dp_attention, e)) ||
		    (rc = get_int(row, "decode_tp", &k->decode_tp, e)) ||
		    (rc = get_int(row, "decode_ep", &k->decode_ep, e)) ||
		    (rc = get_bool(row, "decode_dp_attention", &k->decode_dp_attention, e)))
			return rc;
	} else {
		if ((rc = get_int(row, "tp", &k->prefill_tp, e)) ||
		    (rc = get_int(row, "ep", &k->prefill_ep, e)) ||
		    (rc = get_bool(row, "dp_attention", &k->prefill_dp_attention, e)))
			return rc;
		k->decode_tp = k->prefill_tp;
		k->decode_ep = k->prefill_ep;
		k->decode_dp_attention = k->prefill_dp_attention;
	}
	if ((rc = get_int(row, "isl", &k->isl, e)) || (rc = get_int(row, "osl", &k->osl, e)) ||
	    (rc = get_int(row, "conc", &k->conc, e)))
		return rc;
	return 0;
}

bool res_sql_like(const char *s, size_t sn, const char *p, size_t pn)
{
	/* iterative matcher with backtracking to the last '%' */
	size_t i = 0, j = 0, star = (size_t)-1, mark = 0;
	while (i < sn) {
		if (j < pn && p[j] == '%') {
			star = j++;
			mark = i;
		} else if (j < pn && (p[j] == '_' || p[j] == s[i])) {
			if (p[j] == '_') { /* one character: a whole UTF-8 sequence */
				i++;
				while (i < sn && ((unsigned char)s[i] & 0xC0) == 0x80)
					i++;
			} else {
				i++;
			}
			j++;
		} else if (star != (size_t)-1) {
			j = star + 1;
			i = ++mark;
			while (i < sn && ((unsigned char)s[i] & 0xC0) == 0x80)
				i = ++mark;
		} else {
			return false;
		}
	}
	while (j < pn && p[j] == '%')
		j++;
	return j == pn;
}

/* ---- baseline source over agg rows ---- */

int res_rows_lookup(void *ctx, const res_cfg_key *k, ib_arena *a, size_t max, ib_val ***out,
                    size_t *n, ib_error *e)
{
	res_rows_baseline *rb = ctx;
	*out = NULL;
	*n = 0;
	const ib_val *rows = rb->rows;
	if (!rows || rows->type != IB_V_LIST)
		return 0;
	ib_val **v = ib_arena_alloc(a, (max ? max : 1) * sizeof *v);
	if (!v)
		return IB_ENOMEM;
	char pat[1024];
	snprintf(pat, sizeof pat, "%s%%", k->model);
	for (size_t i = rows->list.n; i-- > 0 && *n < max;) {
		const ib_val *r = rows->list.v[i];
		res_cfg_key b;
		ib_error ignore;
		if (r->type != IB_V_MAP || res_cfg_key_of(a, r, &b, &ignore))
			continue;
		const ib_val *st = ib_map_get(r, "scenario_type");
		if (st && st->type == IB_V_STR && !strcmp(st->str.s, "agentic-coding"))
			continue;
		if (strcmp(b.hardware, k->hardware) || strcmp(b.framework, k->framework) ||
		    strcmp(b.precision, k->precision) || strcmp(b.spec_method, k->spec_method) ||
		    b.disagg != k->disagg || b.is_multinode != k->is_multinode ||
		    b.prefill_tp != k->prefill_tp || b.prefill_ep != k->prefill_ep ||
		    b.prefill_dp_attention != k->prefill_dp_attention ||
		    b.decode_tp != k->decode_tp || b.decode_ep != k->decode_ep ||
		    b.decode_dp_attention != k->decode_dp_attention || b.isl != k->isl ||
		    b.osl != k->osl || b.conc != k->conc ||
		    !res_sql_like(b.model, strlen(b.model), pat, strlen(pat)))
			continue;
		v[(*n)++] = (ib_val *)r;
	}
	*out = v;
	(void)e;
	return 0;
}

/* ---- the report ---- */

typedef struct {
	const char *key, *label;
	bool higher_is_better, ms;
	int prec;
} metric_def;

static const metric_def METRICS[] = {
    {"tput_per_gpu", "TPUT/GPU", true, false, 2},
    {"median_ttft", "TTFT Median (ms)", false, true, 4},
    {"p90_ttft", "TTFT P90 (ms)", false, true, 4},
    {"p99_ttft", "TTFT P99 (ms)", false, true, 4},
    {"p99.9_ttft", "TTFT P99.9 (ms)", false, true, 4},
    {"median_intvty", "Intvty Median", true, false, 4},
    {"p90_intvty", "Intvty@P90 TPOT", true, false, 4},
    {"p99_intvty", "Intvty@P99 TPOT", true, false, 4},
    {"p99.9_intvty", "Intvty@P99.9 TPOT", true, false, 4},
    {"median_e2el", "E2EL Median (s)", false, false, 4},
    {"p90_e2el", "E2EL P90 (s)", false, false, 4},
    {"p99_e2el", "E2EL P99 (s)", false, false, 4},
    {"p99.9_e2el", "E2EL P99.9 (s)", false, false, 4},
};
#define NMET (sizeof METRICS / sizeof METRICS[0])

typedef struct {
	const ib_val *row;
	const char *file;
	size_t index;
	const ib_val *model, *served, *dp;
	const char *hw, *fw, *prec;
	int64_t isl, osl, conc;
	bool multi;
	const char *par[4]; /* tp, ep (single) or the regex groups (multi) */
	ib_val **base;      /* baseline metrics, newest first */
	size_t nbase;
	size_t seq;
} cmp_row;

/* metric value of a map: NULL when absent or None, else float() */
static int metric(const ib_val *m, const char *key, bool *has, double *x, ib_error *e)
{
	const ib_val *v = m ? ib_map_get(m, key) : NULL;
	const char *why = NULL;
	*has = v && v->type != IB_V_NULL;
	if (*has && !res_py_float(v, x, &why))
		return row_fail(e, key, why);
	return 0;
}

static void colour(ib_buf *b, double delta, double pct, int dir, int prec)
{
	/* dir: 1 improved, -1 regressed, 0 neither */
	ib_buf d = {0};
	py_fixed(&d, delta, prec, true);
	if (dir)
		ib_buf_printf(b, "$\\color{%s}\\text{%s}$ (", dir > 0 ? "green" : "red",
		              d.data ? d.data : "");
	else
		ib_buf_printf(b, "%s (", d.data ? d.data : "");
	ib_buf_free(&d);
	py_fixed(b, pct, 1, true);
	ib_buf_puts(b, "%)");
}

/* The direction of a change of metric m to cur (delta from the newest
 * baseline, pct of it): 1 improved, -1 regressed, 0 neither. The reference
 * counts any change; with o->noise_k only a value outside the earlier runs'
 * mean +- k sd counts (none when there are fewer than noise_min); else with
 * min_pct > 0 only a change of more than min_pct percent. */
static int change_dir(const res_compare_opts *o, const cmp_row *r, const metric_def *m, double cur,
                      double delta, double pct, double min_pct, ib_error *e);

/* The delta cell of one metric (compute_metric_delta, or the noise rule). */
static int delta_cell(const res_compare_opts *o, const cmp_row *r, const metric_def *m, ib_buf *b,
                      ib_error *e)
{
	bool hc, hb;
	double cur = 0, base = 0;
	int rc = metric(r->row, m->key, &hc, &cur, e);
	if (!rc && r->nbase && ib_map_get(r->base[0], m->key) && r->base[0]->map.n)
		rc = metric(r->base[0], m->key, &hb, &base, e);
	else
		hb = false;
	if (rc)
		return rc;
	if (!hc || !hb || base == 0) {
		ib_buf_puts(b, "N/A");
		return 0;
	}
	double sc = m->ms ? 1000 : 1;
	double delta = cur * sc - base * sc, pct = delta / (base * sc) * 100;
	int dir = change_dir(o, r, m, cur, delta, pct, 0, e);
	colour(b, delta, pct, dir, m->prec);
	return 0;
}

static int change_dir(const res_compare_opts *o, const cmp_row *r, const metric_def *m, double cur,
                      double delta, double pct, double min_pct, ib_error *e)
{
	bool up = m->higher_is_better;
	int dir = (up ? delta > 0 : delta < 0) ? 1 : (up ? delta < 0 : delta > 0) ? -1 : 0;
	if (o->noise_k > 0) { /* beyond the reference: only changes beyond the noise */
		size_t need = o->noise_min ? o->noise_min : 3, k = 0;
		double sum = 0, sq = 0;
		for (size_t i = 0; i < r->nbase; i++) {
			bool h;
			double x;
			if (metric(r->base[i], m->key, &h, &x, e) == 0 && h && isfinite(x)) {
				sum += x;
				sq += x * x;
				k++;
			}
		}
		dir = 0;
		if (k >= need && k >= 2) {
			double mean = sum / (double)k;
			double var = (sq - sum * mean) / (double)(k - 1);
			double sd = var > 0 ? sqrt(var) : 0, lo = mean - o->noise_k * sd,
			       hi = mean + o->noise_k * sd;
			if (cur > hi)
				dir = up ? 1 : -1;
			else if (cur < lo)
				dir = up ? -1 : 1;
		}
	} else if (min_pct > 0 && !(fabs(pct) > min_pct)) {
		dir = 0;
	}
	return dir;
}

static int value_cell(const cmp_row *r, const metric_def *m, ib_buf *b, ib_error *e)
{
	bool h;
	double x = 0;
	int rc = metric(r->row, m->key, &h, &x, e);
	if (rc)
		return rc;
	if (!h)
		ib_buf_puts(b, "N/A");
	else
		py_fixed(b, m->ms ? x * 1000 : x, m->prec, false);
	return 0;
}

static int str_cmp(const char *a, const char *b)
{
	return strcmp(a, b);
}

static int row_cmp(const void *pa, const void *pb)
{
	const cmp_row *a = pa, *b = pb;
	size_t an = a->model->str.len, bn = b->model->str.len;
	int c = memcmp(a->model->str.s, b->model->str.s, an < bn ? an : bn);
	if (!c && an != bn)
		c = an < bn ? -1 : 1;
	if (!c)
		c = str_cmp(a->hw, b->hw);
	if (!c)
		c = str_cmp(a->fw, b->fw);
	if (!c)
		c = a->isl < b->isl ? -1 : a->isl > b->isl;
	if (!c)
		c = a->osl < b->osl ? -1 : a->osl > b->osl;
	if (!c)
		c = a->conc < b->conc ? -1 : a->conc > b->conc;
	if (!c)
		c = a->seq < b->seq ? -1 : a->seq > b->seq; /* Python's sort is stable */
	return c;
}

/* str(v) into the arena */
static const char *pystr(ib_arena *a, const ib_val *v)
{
	ib_buf b = {0};
	ib_val_pystr(&b, v);
	const char *s = ib_arena_strndup(a, b.data ? b.data : "", b.len);
	ib_buf_free(&b);
	return s;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Tells o->prefetch every row's key, in build_row's order; a row whose key
 * cannot be read skips it (build_row then reports that row). */
static int prefetch(const res_compare_opts *o, ib_arena *a, const cmp_row *rows, size_t n,
                    ib_error *e)
{
	res_cfg_key *keys = ib_arena_alloc(a, n * sizeof *keys);
	if (!keys)
		return IB_ENOMEM;
	ib_error ignore = {0};
	for (size_t i = 0; i < n; i++)
		if (res_cfg_key_of(a, rows[i].row, &keys[i], &ignore))
			return 0;
	return o->prefetch(o->ctx, keys, n, e);
}

/* One result row: its key, its baseline and its display fields. */
static int build_row(const res_compare_opts *o, ib_arena *a, cmp_row *r, res_compare_stats *st,
                     ib_error *e)
{
	res_cfg_key k;
	int rc = res_cfg_key_of(a, r->row, &k, e);
	if (rc)
		return rc;
	size_t max = o->noise_k > 0 ? 64 : 1;
	rc = o->lookup ? o->lookup(o->ctx, &k, a, max, &r->base, &r->nbase, e) : 0;
	if (rc)
		return rc;
	/* a result of the simulator is never set against a measured one (nor
	 * the other way round) unless the caller allows it */
	bool sim = res_parse_bool(ib_map_get(r->row, "simulated"));
	if (r->nbase && !o->allow_simulated &&
	    sim != res_parse_bool(ib_map_get(r->base[0], "simulated")))
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
		               "a %s result against a %s baseline: the numbers are not comparable "
		               "(pass --allow-simulated to compare anyway)",
		               sim ? "simulated" : "measured", sim ? "measured" : "simulated");
	if (r->nbase)
		st->matched++;
	else
		st->unmatched++;
	r->multi = k.is_multinode;
	static const char *const mk[] = {"prefill_tp", "prefill_ep", "decode_tp", "decode_ep"};
	static const char *const sk[] = {"tp", "ep"};
	for (int i = 0; i < (r->multi ? 4 : 2); i++) {
		const ib_val *v = ib_map_get(r->row, r->multi ? mk[i] : sk[i]);
		if (!v)
			return row_fail(e, r->multi ? mk[i] : sk[i], NULL);
		if (!(r->par[i] = pystr(a, v)))
			return IB_ENOMEM;
	}
	if (r->multi && !(all_digits(r->par[0]) && all_digits(r->par[1]) && all_digits(r->par[2]) &&
	                  all_digits(r->par[3])))
		r->par[0] = r->par[1] = r->par[2] = r->par[3] = ""; /* the regex does not match */
	r->model = ib_map_get(r->row, "infmax_model_prefix");
	if (!(r->served = ib_map_get(r->row, "model")))
		return row_fail(e, "model", NULL);
	const ib_val *fw = ib_map_get(r->row, "framework"), *pr = ib_map_get(r->row, "precision");
	r->hw = res_py_case(a, k.hardware, strlen(k.hardware), true);
	r->fw = res_py_case(a, fw->str.s, fw->str.len, true);
	r->prec = res_py_case(a, pr->str.s, pr->str.len, true);
	if (!r->hw || !r->fw || !r->prec)
		return IB_ENOMEM;
	r->isl = k.isl;
	r->osl = k.osl;
	r->conc = k.conc;
	r->dp = ib_map_get(r->row, "dp_attention");
	return 0;
}

/* names the file and row of a row error */
static void at_row(ib_error *e, const cmp_row *r)
{
	char m2[sizeof e->msg];
	snprintf(m2, sizeof m2, "%.2000s", e->msg);
	ib_fail(e, e->code, r->file, 0, 0, "row %zu: %s", r->index + 1, m2);
}

static int render(const res_compare_opts *o, ib_arena *a, cmp_row *rows, size_t n, bool multi,
                  ib_buf *out, ib_error *e)
{
	static const char *const single_h[] = {"Model",     "Served Model", "Hardware", "Framework",
	                                       "Precision", "ISL",          "OSL",      "TP",
	                                       "EP",        "DP Attention", "Conc"};
	static const char *const multi_h[] = {
	    "Model", "Served Model", "Hardware",   "Framework", "Precision", "ISL",
	    "OSL",   "Prefill TP",   "Prefill EP", "Decode TP", "Decode EP", "Conc"};
	size_t nconf = multi ? 12 : 11, ncols = nconf + 2 * NMET, nr = 0;
	for (size_t i = 0; i < n; i++)
		nr += rows[i].multi == multi;
	if (!nr)
		return 0;
	const char **h = ib_arena_alloc(a, ncols * sizeof *h);
	const ib_val **cells = ib_arena_alloc(a, (nr * ncols + 1) * sizeof *cells);
	if (!h || !cells)
		return IB_ENOMEM;
	for (size_t c = 0; c < nconf; c++)
		h[c] = multi ? multi_h[c] : single_h[c];
	for (size_t m = 0; m < NMET; m++) {
		h[nconf + 2 * m] = METRICS[m].label;
		h[nconf + 2 * m + 1] = ib_arena_printf(a, "%s Delta", METRICS[m].label);
	}
	size_t at = 0;
	ib_buf t = {0};
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		cmp_row *r = &rows[i];
		if (r->multi != multi)
			continue;
		cells[at++] = r->model;
		cells[at++] = r->served;
		cells[at++] = ib_v_str(a, r->hw);
		cells[at++] = ib_v_str(a, r->fw);
		cells[at++] = ib_v_str(a, r->prec);
		cells[at++] = ib_v_int(a, r->isl);
		cells[at++] = ib_v_int(a, r->osl);
		for (int p = 0; p < (multi ? 4 : 2); p++)
			cells[at++] = ib_v_str(a, r->par[p]);
		if (!multi)
			cells[at++] = r->dp ? r->dp : ib_v_bool(a, false);
		cells[at++] = ib_v_int(a, r->conc);
		for (size_t m = 0; m < NMET && !rc; m++) {
			t.len = 0;
			rc = value_cell(r, &METRICS[m], &t, e);
			cells[at++] = rc ? NULL : ib_v_strn(a, t.data ? t.data : "", t.len);
			t.len = 0;
			rc = rc ? rc : delta_cell(o, r, &METRICS[m], &t, e);
			cells[at++] = rc ? NULL : ib_v_strn(a, t.data ? t.data : "", t.len);
		}
		if (rc && rc != IB_ENOMEM && !e->file[0])
			at_row(e, r);
	}
	ib_buf_free(&t);
	if (rc)
		return rc;
	rc = ib_buf_puts(out, multi ? "## Multi-Node Comparison vs. Most Recent\n\n"
	                            : "## Single-Node Comparison vs. Most Recent\n\n");
	rc = rc ? rc : ib_table_github(out, h, ncols, cells, nr);
	rc = rc ? rc : ib_buf_puts(out, multi ? "\n" : "\n\n");
	return rc;
}

/* ---- beyond the reference: a plain table and a verdict ---- */

/* the metrics that matter, in the verdict table */
static const char *const VERDICT_KEYS[] = {"tput_per_gpu", "median_ttft", "p99_ttft",
                                           "median_intvty", "median_e2el"};
#define NVK (sizeof VERDICT_KEYS / sizeof VERDICT_KEYS[0])

static const metric_def *metric_of(const char *key)
{
	for (size_t i = 0; i < NMET; i++)
		if (!strcmp(METRICS[i].key, key))
			return &METRICS[i];
	return NULL;
}

/* a number with about four significant digits, never "-0" */
static void plain_num(ib_buf *b, double x)
{
	double ax = fabs(x);
	if (ax < 5e-5)
		x = ax = 0;
	ib_buf_printf(b, ax >= 1000 ? "%.0f" : ax >= 100 ? "%.1f" : ax >= 10 ? "%.2f" : "%.3f", x);
}

static int verdict_cell(const res_compare_opts *o, const cmp_row *r, const metric_def *m, ib_buf *b,
                        int *dir, double *pct, ib_error *e)
{
	bool hc, hb = false;
	double cur = 0, base = 0;
	*dir = 0;
	*pct = NAN;
	int rc = metric(r->row, m->key, &hc, &cur, e);
	if (!rc && r->nbase)
		rc = metric(r->base[0], m->key, &hb, &base, e);
	if (rc)
		return rc;
	double sc = m->ms ? 1000 : 1;
	if (!hc) {
		ib_buf_puts(b, "-");
		return 0;
	}
	plain_num(b, cur * sc);
	if (!hb || base == 0)
		return 0;
	double delta = (cur - base) * sc;
	*pct = delta / (base * sc) * 100;
	double shown = fabs(*pct) < 0.05 ? 0 : *pct;
	ib_buf_printf(b, " (%+.1f%%)", shown);
	*dir = change_dir(o, r, m, cur, delta, *pct, o->threshold > 0 ? o->threshold : 5, e);
	return 0;
}

static const char *config_label(ib_arena *a, const cmp_row *r)
{
	const ib_val *dpa = r->dp;
	bool dp = dpa && res_parse_bool(dpa);
	if (r->multi)
		return ib_arena_printf(a, "%s %s %s P:TP%s/EP%s D:TP%s/EP%s %lld/%lld conc %lld",
		                       r->hw, r->fw, r->prec, r->par[0], r->par[1], r->par[2],
		                       r->par[3], (long long)r->isl, (long long)r->osl,
		                       (long long)r->conc);
	return ib_arena_printf(a, "%s %s %s TP%s EP%s%s %lld/%lld conc %lld", r->hw, r->fw, r->prec,
	                       r->par[0], r->par[1], dp ? " DPA" : "", (long long)r->isl,
	                       (long long)r->osl, (long long)r->conc);
}

static int render_verdict(const res_compare_opts *o, ib_arena *a, cmp_row *rows, size_t n,
                          ib_buf *out, res_compare_stats *st, ib_error *e)
{
	size_t ncol = NVK + 1;
	const char **cells = ib_arena_alloc(a, (n + 1) * ncol * sizeof *cells);
	int *dirs = ib_arena_alloc(a, (n + 1) * ncol * sizeof *dirs);
	size_t *w = ib_arena_alloc(a, ncol * sizeof *w);
	if (!cells || !dirs || !w)
		return IB_ENOMEM;
	cells[0] = "configuration";
	for (size_t k = 0; k < NVK; k++)
		cells[k + 1] = metric_of(VERDICT_KEYS[k])->label;
	double worst = 0;
	const char *worst_at = NULL, *worst_metric = NULL;
	size_t regressed_cfgs = 0;
	ib_buf t = {0};
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		cmp_row *r = &rows[i];
		const char **c = &cells[(i + 1) * ncol];
		int *d = &dirs[(i + 1) * ncol];
		c[0] = config_label(a, r);
		d[0] = 0;
		bool bad = false;
		for (size_t k = 0; k < NVK && !rc; k++) {
			const metric_def *m = metric_of(VERDICT_KEYS[k]);
			double pct;
			t.len = 0;
			rc = verdict_cell(o, r, m, &t, &d[k + 1], &pct, e);
			c[k + 1] = rc ? NULL : ib_arena_strndup(a, t.data ? t.data : "", t.len);
			if (rc)
				break;
			if (d[k + 1] < 0) {
				st->regressions++;
				bad = true;
				if (!worst_at || fabs(pct) > worst) {
					worst = fabs(pct);
					worst_at = c[0];
					worst_metric = m->label;
					st->worst_pct = pct;
				}
			} else if (d[k + 1] > 0) {
				st->improvements++;
			}
		}
		if (rc && rc != IB_ENOMEM && !e->file[0])
			at_row(e, r);
		regressed_cfgs += bad;
	}
	ib_buf_free(&t);
	if (rc)
		return rc;
	for (size_t k = 0; k < ncol; k++) {
		w[k] = 0;
		for (size_t i = 0; i <= n; i++) {
			size_t l = strlen(cells[i * ncol + k]);
			w[k] = l > w[k] ? l : w[k];
		}
	}
	for (size_t i = 0; i <= n; i++) {
		for (size_t k = 0; k < ncol; k++) {
			const char *c = cells[i * ncol + k];
			int d = i ? dirs[i * ncol + k] : 0;
			size_t pad = w[k] - strlen(c);
			if (k)
				ib_buf_puts(out, "  ");
			if (k) /* numbers right-aligned */
				ib_buf_printf(out, "%*s", (int)pad, "");
			if (d && o->colour)
				ib_buf_puts(out, d < 0 ? "\033[31m" : "\033[32m");
			ib_buf_puts(out, c);
			if (d && o->colour)
				ib_buf_puts(out, "\033[0m");
			if (!k && k + 1 < ncol)
				ib_buf_printf(out, "%*s", (int)pad, "");
		}
		ib_buf_putc(out, '\n');
	}
	double thr = o->threshold > 0 ? o->threshold : 5;
	char rule[96];
	if (o->noise_k > 0)
		snprintf(rule, sizeof rule, "outside the earlier runs' mean +- %g sd", o->noise_k);
	else
		snprintf(rule, sizeof rule, "beyond +-%g%%", thr);
	size_t nobase = st->unmatched;
	if (!st->matched)
		rc = ib_buf_printf(
		    out, "\nVerdict: nothing to compare: none of the %zu rows has a baseline\n", n);
	else if (st->regressions)
		rc = ib_buf_printf(
		    out,
		    "\nVerdict: REGRESSION: %zu significant regression%s (%s) in %zu of %zu "
		    "configurations compared; worst: %s %+.1f%% on %s; %zu improvement%s%s\n",
		    st->regressions, st->regressions == 1 ? "" : "s", rule, regressed_cfgs,
		    st->matched, worst_metric, st->worst_pct, worst_at, st->improvements,
		    st->improvements == 1 ? "" : "s",
		    nobase ? ib_arena_printf(a, "; %zu without a baseline", nobase) : "");
	else if (st->improvements)
		rc = ib_buf_printf(
		    out,
		    "\nVerdict: IMPROVED: %zu significant improvement%s (%s), no regression, %zu "
		    "configurations compared%s\n",
		    st->improvements, st->improvements == 1 ? "" : "s", rule, st->matched,
		    nobase ? ib_arena_printf(a, "; %zu without a baseline", nobase) : "");
	else
		rc = ib_buf_printf(out,
		                   "\nVerdict: no significant change: %zu configurations compared, "
		                   "every change within noise (%s)%s\n",
		                   st->matched, rule,
		                   nobase ? ib_arena_printf(a, "; %zu without a baseline", nobase)
		                          : "");
	return rc;
}

/* Loads every row below the results folder (objects or lists of them). */
static int load_rows(ib_arena *a, const char *dir, cmp_row **rows, size_t *n, ib_error *e)
{
	char **paths = NULL;
	size_t np = 0, cap = 0;
	struct stat sb;
	int rc = 0;
	bool store = false;
	if (stat(dir, &sb) == 0 && S_ISREG(sb.st_mode)) {
		/* beyond the reference: an agg file itself (agg_bmk.json) */
		if (!(paths = malloc(sizeof *paths)) || !(paths[0] = strdup(dir)))
			rc = IB_ENOMEM;
		np = rc ? 0 : 1;
	} else {
		/* beyond the reference: a run store (manifest.jsonl) holds more than
		 * agg rows; only its agg_*.json files are rows */
		char *mf = ib_arena_printf(a, "%s/manifest.jsonl", dir);
		store = mf && access(mf, F_OK) == 0;
		rc = res_find_json(dir, &paths, &np, e);
	}
	if (rc)
		return rc;
	*rows = NULL;
	*n = 0;
	for (size_t i = 0; i < np && !rc; i++) {
		const char *base = strrchr(paths[i], '/');
		base = base ? base + 1 : paths[i];
		if (store && (strncmp(base, "agg_", 4) || !strncmp(base, "agg_eval", 8)))
			continue;
		ib_val *v = NULL;
		rc = ib_json_parse_file(a, paths[i], &v, e);
		if (rc)
			break;
		const char *file = ib_arena_strdup(a, paths[i]);
		size_t cnt = v->type == IB_V_LIST ? v->list.n : 1;
		for (size_t j = 0; j < cnt && !rc; j++) {
			const ib_val *r = v->type == IB_V_LIST ? v->list.v[j] : v;
			if (r->type != IB_V_MAP) {
				rc = ib_fail(e, IB_EINVAL, paths[i], 0, 0,
				             "row %zu: not a JSON object (%s)", j + 1,
				             ib_vtype_pyname(r));
				break;
			}
			if ((rc = ib_grow(rows, &cap, *n + 1)))
				break;
			(*rows)[*n] = (cmp_row){.row = r, .file = file, .index = j, .seq = *n};
			(*n)++;
		}
	}
	res_paths_free(paths, np);
	return rc;
}

int res_compare(const res_compare_opts *o, ib_buf *out, res_compare_stats *stats, ib_error *e)
{
	ib_error dummy;
	if (!e)
		e = &dummy;
	memset(e, 0, sizeof *e);
	res_compare_stats st = {0};
	ib_arena *a = ib_arena_new();
	if (!a)
		return IB_ENOMEM;
	cmp_row *all = NULL;
	size_t n = 0, keep = 0;
	int rc = load_rows(a, o->results_dir, &all, &n, e);
	for (size_t i = 0; i < n && !rc; i++) {
		const ib_val *stv = ib_map_get(all[i].row, "scenario_type");
		bool agentic = stv && stv->type == IB_V_STR && stv->str.len == 14 &&
		               !memcmp(stv->str.s, "agentic-coding", 14);
		if (!agentic)
			all[keep++] = all[i];
	}
	st.rows = keep;
	if (!rc && !keep)
		rc = ib_buf_puts(out, "No benchmark results found to compare.\n");
	if (!rc && keep && o->prefetch)
		rc = prefetch(o, a, all, keep, e);
	for (size_t i = 0; i < keep && !rc; i++) {
		rc = build_row(o, a, &all[i], &st, e);
		if (rc && rc != IB_ENOMEM && !e->file[0])
			at_row(e, &all[i]);
	}
	if (!rc && keep && o->verdict) {
		qsort(all, keep, sizeof *all, row_cmp);
		rc = render_verdict(o, a, all, keep, out, &st, e);
	} else if (!rc && keep) {
		qsort(all, keep, sizeof *all, row_cmp);
		/* as the reference, the single-node table is out before a bad
		 * multi-node row fails */
		rc = render(o, a, all, keep, false, out, e);
		rc = rc ? rc : render(o, a, all, keep, true, out, e);
	}
	if (stats)
		*stats = st;
	free(all);
	ib_arena_free(a);
	return rc;
}
