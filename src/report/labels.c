/* report/labels.c — parallelism labels and the frontier's label gradient,
 * hardware order and ICU root collation, vendor colours and the eval bar
 * chart (README 3.12). */
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parallelism labels ---- */

static void segment(char *out, size_t cap, double tp, double ep, int dpa)
{
	char t[32], e[32];
	snprintf(t, sizeof t, "%.0f", tp);
	snprintf(e, sizeof e, "%.0f", ep);
	bool has_ep = !isnan(ep);
	if (has_ep && ep > 1 && tp == ep) {
		snprintf(out, cap, "%s%s", dpa == 1 ? "DEP" : "TEP", t);
		return;
	}
	snprintf(out, cap, "%s%s%s", dpa == 1 ? "DPA" : "", !has_ep || ep <= 1 ? "TP" : "EP",
	         !has_ep || ep <= 1 ? t : e);
}

static double fb(const rep_row *r, rep_field f, rep_field fallback)
{
	return r->has[f] ? r->f[f] : r->has[fallback] ? r->f[fallback] : NAN;
}

void rep_parallelism_label(const rep_row *r, char *out, size_t cap)
{
	char tp[32];
	if (!r->has[REP_F_EP] && !r->has[REP_F_PREFILL_EP]) {
		snprintf(tp, sizeof tp, "%.0f", r->f[REP_F_TP]);
		snprintf(out, cap, "TP%s", tp);
		return;
	}
	if (r->is_multinode == 1 && r->disagg == 1) {
		char p[64], d[64];
		int pdpa = r->prefill_dp_attention >= 0 ? r->prefill_dp_attention : r->dp_attention;
		int ddpa = r->decode_dp_attention >= 0 ? r->decode_dp_attention : r->dp_attention;
		segment(p, sizeof p, fb(r, REP_F_PREFILL_TP, REP_F_TP),
		        fb(r, REP_F_PREFILL_EP, REP_F_EP), pdpa);
		segment(d, sizeof d, fb(r, REP_F_DECODE_TP, REP_F_TP),
		        fb(r, REP_F_DECODE_EP, REP_F_EP), ddpa);
		double pw = r->has[REP_F_PREFILL_NUM_WORKERS] ? r->f[REP_F_PREFILL_NUM_WORKERS] : 1;
		double dw = r->has[REP_F_DECODE_NUM_WORKERS] ? r->f[REP_F_DECODE_NUM_WORKERS] : 1;
		snprintf(out, cap, "%.0fx%s+%.0fx%s", pw, p, dw, d);
		return;
	}
	segment(out, cap, r->f[REP_F_TP], r->has[REP_F_EP] ? r->f[REP_F_EP] : NAN, r->dp_attention);
}

/* ---- gradient ---- */

/* Components of a label: split on '+', a leading "<n>x" stripped. */
static size_t components(const char *label, char comp[][64], size_t cap)
{
	size_t n = 0;
	const char *s = label;
	while (n < cap) {
		size_t len = strcspn(s, "+");
		const char *p = s;
		size_t k = 0;
		while (k < len && p[k] >= '0' && p[k] <= '9')
			k++;
		if (k > 0 && k < len && p[k] == 'x') {
			p += k + 1;
			len -= k + 1;
		}
		snprintf(comp[n], 64, "%.*s", (int)len, p);
		bool dup = false;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(comp[i], comp[n]))
				dup = true;
		if (!dup)
			n++;
		if (!s[strcspn(s, "+")])
			break;
		s += strcspn(s, "+") + 1;
	}
	return n;
}

static double similarity(const char *a, const char *b)
{
	char ca[16][64], cb[16][64];
	size_t na = components(a, ca, 16), nb = components(b, cb, 16), shared = 0;
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			if (!strcmp(ca[i], cb[j]))
				shared++;
	size_t uni = na + nb - shared;
	return uni ? (double)shared / (double)uni : 0;
}

size_t rep_gradient_stops(const rep_grad_point *p, size_t n, rep_grad_stop *stops)
{
	if (n < 2)
		return 0;
	bool distinct = false;
	for (size_t i = 1; i < n; i++)
		if (strcmp(p[i].label, p[0].label))
			distinct = true;
	double first = p[0].x, last = p[n - 1].x, range = last - first;
	if (!distinct || range == 0)
		return 0;
	size_t k = 0;
#define OFF(px) fmin(1, fmax(0, ((px)-first) / range))
	for (size_t i = 0; i < n; i++) {
		double left = i == 0 ? p[0].x : (p[i - 1].x + p[i].x) / 2;
		double right = i == n - 1 ? p[n - 1].x : (p[i].x + p[i + 1].x) / 2;
		if (i == n - 1) {
			stops[k++] = (rep_grad_stop){OFF(right), p[i].color};
			break;
		}
		if (strcmp(p[i].label, p[i + 1].label)) {
			double next_right =
			    i + 1 == n - 1 ? p[n - 1].x : (p[i + 1].x + p[i + 2].x) / 2;
			double own = right - left, next = next_right - right;
			double blend = fmin(own, next) *
			               (0.05 + 0.15 * similarity(p[i].label, p[i + 1].label));
			stops[k++] = (rep_grad_stop){OFF(left), p[i].color};
			stops[k++] = (rep_grad_stop){OFF(right - blend), p[i].color};
			stops[k++] = (rep_grad_stop){OFF(right + blend), p[i + 1].color};
		} else if (i == 0) {
			stops[k++] = (rep_grad_stop){OFF(left), p[i].color};
		}
	}
#undef OFF
	if (stops[0].offset != 0) {
		memmove(stops + 1, stops, k * sizeof *stops);
		stops[0].offset = 0;
		k++;
	}
	if (stops[k - 1].offset != 1) {
		stops[k] = stops[k - 1];
		stops[k].offset = 1;
		k++;
	}
	return k;
}

/* ---- order and collation ---- */

int rep_hw_order(const char *key)
{
	static const char *const order[] = {"gb300", "gb",     "b300", "b",     "mi355x",
	                                    "h200",  "mi325x", "h100", "mi300x"};
	for (int i = 0; i < 9; i++)
		if (key && ib_str_has_prefix(key, order[i]))
			return i;
	return 9;
}

/* The primary weight of an ASCII character in CLDR root order:
 * whitespace < punctuation < symbols < currency < digits < letters
 * (letters case-folded); 0 for anything unranked, which sorts after
 * letters by code point. */
static int primary(unsigned char c)
{
	static const char order[] = "\t\n\v\f\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789";
	if (c >= 'A' && c <= 'Z')
		c = (unsigned char)(c - 'A' + 'a');
	if (c >= 'a' && c <= 'z')
		return 100 + (c - 'a');
	const char *p = c ? strchr(order, c) : NULL;
	if (p)
		return 1 + (int)(p - order);
	return 200 + c;
}

int rep_collate(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
	size_t i = 0;
	for (;; i++) {
		if (!x[i] || !y[i])
			break;
		int d = primary(x[i]) - primary(y[i]);
		if (d)
			return d;
	}
	if (x[i] || y[i])
		return x[i] ? 1 : -1; /* a proper prefix sorts first */
	/* tertiary: lower case before upper case */
	for (i = 0; x[i]; i++) {
		bool ux = x[i] >= 'A' && x[i] <= 'Z', uy = y[i] >= 'A' && y[i] <= 'Z';
		if (ux != uy)
			return ux ? 1 : -1;
	}
	return strcmp(a, b);
}

/* ---- vendor colours ---- */

static int vendor_of(const char *key)
{
	char base[64];
	snprintf(base, sizeof base, "%.*s", (int)strcspn(key, "_"), key);
	static const char *const nv[] = {"h100", "h200", "b200", "b300", "gb200", "gb300"};
	static const char *const amd[] = {"mi300x", "mi325x", "mi355x"};
	for (int i = 0; i < 6; i++)
		if (!strcmp(base, nv[i]))
			return 1;
	for (int i = 0; i < 3; i++)
		if (!strcmp(base, amd[i]))
			return 0;
	return 2;
}

static double cmp_legend(size_t a, size_t b, const void *ctx)
{
	const char *const *k = ctx;
	int d = rep_hw_order(k[a]) - rep_hw_order(k[b]);
	return d ? d : rep_collate(k[a], k[b]);
}

int rep_vendor_colors(const char *const *keys, size_t n, bool dark, char (*out)[40], size_t *order)
{
	/* zones: AMD, NVIDIA, unknown */
	static const double hue[3][2] = {{12, 42}, {120, 170}, {275, 330}};
	static const double chroma[3][2] = {{0.18, 0.22}, {0.15, 0.15}, {0.14, 0.16}};
	double lmin = dark ? 0.50 : 0.42, lmax = dark ? 0.78 : 0.68;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	int rc = par_stable_sort(order, n, cmp_legend, keys);
	if (rc)
		return rc;
	for (int v = 0; v < 3; v++) {
		size_t cnt = 0;
		for (size_t i = 0; i < n; i++)
			if (vendor_of(keys[order[i]]) == v)
				cnt++;
		size_t idx = 0;
		for (size_t i = 0; i < n; i++) {
			size_t k = order[i];
			if (vendor_of(keys[k]) != v)
				continue;
			double h = cnt <= 1
			               ? (hue[v][0] + hue[v][1]) / 2
			               : hue[v][0] + (idx + 0.5) / cnt * (hue[v][1] - hue[v][0]);
			double l = cnt <= 1
			               ? (lmin + lmax) / 2
			               : lmax - (double)idx / (double)(cnt - 1) * (lmax - lmin);
			char ls[10], cs[10], hs[10];
			par_js_fixed(l, 3, ls, sizeof ls);
			par_js_num(chroma[v][dark ? 1 : 0], cs, sizeof cs);
			par_js_fixed(h, 1, hs, sizeof hs);
			snprintf(out[k], 40, "oklch(%s %s %s)", ls, cs, hs);
			idx++;
		}
	}
	return 0;
}

/* ---- eval bars ---- */

static char *eval_label(ib_arena *a, const rep_eval_row *r, bool show_precision)
{
	ib_buf b = {0};
	ib_buf_puts(&b, r->hw_label ? r->hw_label : "");
	if (r->framework_label) {
		ib_buf_printf(&b, " (%s", r->framework_label);
		if (r->spec_label)
			ib_buf_printf(&b, ", %s", r->spec_label);
		ib_buf_putc(&b, ')');
	}
	ib_buf parts = {0};
	if (show_precision && r->precision) {
		for (const char *p = r->precision; *p; p++)
			ib_buf_putc(&parts, (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p));
	}
	if (!isnan(r->conc) && r->conc != 0)
		ib_buf_printf(&parts, "%sC%.0f", parts.len ? ", " : "", r->conc);
	if (!isnan(r->tp) && r->tp != 0)
		ib_buf_printf(&parts, "%sTP%.0f", parts.len ? ", " : "", r->tp);
	if (!isnan(r->ep) && r->ep > 1)
		ib_buf_printf(&parts, "%sEP%.0f", parts.len ? ", " : "", r->ep);
	if (r->dpa)
		ib_buf_printf(&parts, "%sDPA", parts.len ? ", " : "");
	if (parts.len)
		ib_buf_printf(&b, "\n%s", parts.data);
	char *s = b.data ? ib_arena_strdup(a, b.data) : ib_arena_strdup(a, "");
	ib_buf_free(&b);
	ib_buf_free(&parts);
	return s;
}

static bool same(const char *x, const char *y)
{
	return (!x && !y) || (x && y && !strcmp(x, y));
}

static double cmp_label(size_t a, size_t b, const void *ctx)
{
	char *const *l = ctx;
	return rep_collate(l[a], l[b]);
}

typedef struct {
	const rep_eval_bar *bars;
} bar_ctx;

static double cmp_bar(size_t a, size_t b, const void *ctx)
{
	const rep_eval_bar *x = &((const bar_ctx *)ctx)->bars[a],
	                   *y = &((const bar_ctx *)ctx)->bars[b];
	int d = rep_hw_order(x->hw_key) - rep_hw_order(y->hw_key);
	if (d)
		return d;
	d = rep_collate(x->hw_key, y->hw_key);
	return d ? d : rep_collate(x->label, y->label);
}

static bool is_enabled(const char *k, const char *const *en, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (k && !strcmp(k, en[i]))
			return true;
	return false;
}

static void x_domain(rep_eval_chart *c)
{
	double lo = NAN, hi = NAN;
	for (size_t i = 0; i < c->nbars; i++) {
		double l = c->bars[i].score - c->bars[i].score_error;
		double h = c->bars[i].score + c->bars[i].score_error;
		lo = isnan(lo) || l < lo ? l : lo;
		hi = isnan(hi) || h > hi ? h : hi;
	}
	if (isnan(lo) || lo == 0)
		lo = 0;
	if (isnan(hi) || hi == 0)
		hi = 1;
	double pad = 0.3 * (hi - lo);
	c->x_domain[0] = fmax(0, lo - pad);
	c->x_domain[1] = fmin(1, hi + pad);
}

int rep_eval_aggregate(const rep_eval_row *rows, size_t n, const char *const *enabled,
                       size_t nenabled, bool show_precision, rep_eval_chart **out)
{
	*out = NULL;
	rep_eval_chart *c = calloc(1, sizeof *c);
	size_t *idx = NULL;
	if (!c || !(c->arena = ib_arena_new()))
		goto oom;
	size_t n1 = n ? n : 1;
	c->labels = ib_arena_alloc(c->arena, n1 * sizeof *c->labels);
	c->latest = ib_arena_alloc(c->arena, n1 * sizeof *c->latest);
	c->bars = ib_arena_alloc(c->arena, n1 * sizeof *c->bars);
	idx = malloc(n1 * sizeof *idx);
	if (!c->labels || !c->latest || !c->bars || !idx)
		goto oom;
	for (size_t i = 0; i < n; i++)
		if (!(c->labels[i] = eval_label(c->arena, &rows[i], show_precision)))
			goto oom;
	/* the latest date of each (hwKey, framework, spec, precision) group */
	for (size_t i = 0; i < n; i++) {
		bool latest = true;
		for (size_t j = 0; j < n && latest; j++)
			if (same(rows[i].hw_key, rows[j].hw_key) &&
			    same(rows[i].framework, rows[j].framework) &&
			    same(rows[i].spec_decode, rows[j].spec_decode) &&
			    same(rows[i].precision, rows[j].precision) && rows[j].date &&
			    rows[i].date && strcmp(rows[j].date, rows[i].date) > 0)
				latest = false;
		if (latest)
			c->latest[c->nlatest++] = i;
	}
	if (par_stable_sort(c->latest, c->nlatest, cmp_label, c->labels))
		goto oom;
	for (size_t q = 0; q < c->nlatest; q++) {
		size_t i = c->latest[q];
		if (!is_enabled(rows[i].hw_key, enabled, nenabled))
			continue;
		size_t b = 0;
		while (b < c->nbars && strcmp(c->bars[b].label, c->labels[i]))
			b++;
		double se = rows[i].score_error, s = rows[i].score;
		double emin = fmax(0, s - se), emax = fmin(1, s + se);
		rep_eval_bar *bar = &c->bars[b];
		if (b == c->nbars) {
			*bar =
			    (rep_eval_bar){c->labels[i], rows[i].hw_key, i, 0, 0, s, s, emin, emax};
			c->nbars++;
			idx[b] = 0;
		}
		bar->score += s; /* sum now, mean below */
		idx[b]++;
		bar->min_score = fmin(bar->min_score, s);
		bar->max_score = fmax(bar->max_score, s);
		bar->error_min = fmin(bar->error_min, emin);
		bar->error_max = fmax(bar->error_max, emax);
	}
	for (size_t b = 0; b < c->nbars; b++) {
		c->bars[b].score /= (double)idx[b];
		c->bars[b].score_error = (c->bars[b].error_max - c->bars[b].error_min) / 2;
	}
	/* sort the bars: hardware order, hwKey, label */
	for (size_t b = 0; b < c->nbars; b++)
		idx[b] = b;
	bar_ctx bc = {c->bars};
	if (par_stable_sort(idx, c->nbars, cmp_bar, &bc))
		goto oom;
	rep_eval_bar *sorted = ib_arena_alloc(c->arena, (c->nbars ? c->nbars : 1) * sizeof *sorted);
	if (!sorted)
		goto oom;
	for (size_t b = 0; b < c->nbars; b++)
		sorted[b] = c->bars[idx[b]];
	c->bars = sorted;
	x_domain(c);
	free(idx);
	*out = c;
	return 0;
oom:
	free(idx);
	rep_eval_chart_free(c);
	return IB_ENOMEM;
}

void rep_eval_chart_free(rep_eval_chart *c)
{
	if (!c)
		return;
	ib_arena_free(c->arena);
	free(c);
}
