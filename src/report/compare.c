/* report/compare.c — the /compare pages: the interpolated table at the
 * 25/50/75 % points of the overlapping interactivity range, the OG-image
 * samples, and the server-rendered sentences (README 3.10–3.11). */
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static bool range_of(const par_gpu_point *p, size_t n, double *lo, double *hi)
{
	if (n == 0)
		return false;
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (p[i].interactivity < *lo)
			*lo = p[i].interactivity;
		if (p[i].interactivity > *hi)
			*hi = p[i].interactivity;
	}
	return true;
}

static int fill_row(const par_gpu_point *a, size_t na, const par_gpu_point *b, size_t nb,
                    double target, rep_compare_row *row)
{
	memset(row, 0, sizeof *row);
	row->target = target;
	int rc = 0;
	if (na) {
		rc = par_interpolate_for_gpu(a, na, target, PAR_MODE_INTERACTIVITY_TO_THROUGHPUT,
		                             PAR_COST_H, &row->a.r);
		if (rc < 0)
			return rc;
		row->a.present = rc == 1;
	}
	if (nb) {
		rc = par_interpolate_for_gpu(b, nb, target, PAR_MODE_INTERACTIVITY_TO_THROUGHPUT,
		                             PAR_COST_H, &row->b.r);
		if (rc < 0)
			return rc;
		row->b.present = rc == 1;
	}
	return 0;
}

int rep_compare_table_compute(const par_gpu_point *a, size_t na, const par_gpu_point *b, size_t nb,
                              rep_compare_table *out)
{
	memset(out, 0, sizeof *out);
	out->range_min = 0;
	out->range_max = 100;
	double alo, ahi, blo, bhi, lo, hi;
	bool ha = range_of(a, na, &alo, &ahi), hb = range_of(b, nb, &blo, &bhi);
	if (!ha && !hb)
		return 0;
	if (ha && hb) {
		lo = fmax(alo, blo);
		hi = fmin(ahi, bhi);
		if (lo >= hi) {
			lo = fmin(alo, blo);
			hi = fmax(ahi, bhi);
		}
	} else {
		lo = ha ? alo : blo;
		hi = ha ? ahi : bhi;
	}
	out->range_min = ceil(lo);
	out->range_max = floor(hi);
	double span = hi - lo;
	if (span > 0) {
		static const double q[3] = {0.25, 0.5, 0.75};
		for (int i = 0; i < 3; i++)
			out->targets[i] = par_js_round(lo + span * q[i]);
		out->ntargets = 3;
	} else {
		out->targets[0] = par_js_round(lo);
		out->ntargets = 1;
	}
	for (size_t i = 0; i < out->ntargets; i++) {
		int rc = fill_row(a, na, b, nb, out->targets[i], &out->rows[i]);
		if (rc)
			return rc;
	}
	out->nrows = out->ntargets;
	if (out->range_max > out->range_min) {
		double s = out->range_max - out->range_min;
		for (int i = 0; i < 17; i++) {
			int rc = fill_row(a, na, b, nb, out->range_min + s * i / 16,
			                  &out->image_rows[i]);
			if (rc)
				return rc;
		}
		out->nimage_rows = 17;
	}
	return 0;
}

/* ---- narrative ---- */

/* The page seed hash: h = trunc(imul(31, h) + codePointAt(i)) over UTF-16
 * indices, then |h|. */
static double seed_hash(const char *s)
{
	double h = 0;
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		int k = ib_utf8_decode(s + i, n - i, &cp);
		if (k <= 0) {
			cp = (unsigned char)s[i];
			k = 1;
		}
		int32_t h32 = (int32_t)(uint32_t)(int64_t)fmod(h, 4294967296.0);
		int32_t m = (int32_t)((uint32_t)h32 * 31u);
		if (cp >= 0x10000) {
			/* two UTF-16 units: the full code point, then the low surrogate */
			h = (double)m + cp;
			h32 = (int32_t)(uint32_t)(int64_t)fmod(h, 4294967296.0);
			m = (int32_t)((uint32_t)h32 * 31u);
			h = (double)m + (double)(0xDC00 + ((cp - 0x10000) & 0x3FF));
		} else {
			h = (double)m + cp;
		}
		i += (size_t)k;
	}
	return fabs(h);
}

typedef struct {
	const char *model, *a, *b, *cheaper, *pricier, *faster, *present, *missing, *range_text;
	double target, a_cost, b_cost, a_value, b_value, cheaper_cost, pricier_cost, ratio;
	double present_value, present_cost;
	const char *band, *summary;
} narr_in;

static void fmt_cost(ib_buf *o, double v)
{
	char s[64];
	par_js_fixed(v, v >= 10 ? 1 : 2, s, sizeof s);
	ib_buf_printf(o, "$%s", s);
}

static void fmt_pct(ib_buf *o, double ratio)
{
	char s[64];
	par_js_num(par_js_round((ratio - 1) * 100), s, sizeof s);
	ib_buf_printf(o, "%s%%", s);
}

static void fmt_num(ib_buf *o, double v)
{
	char s[64];
	par_js_num(v, s, sizeof s);
	ib_buf_puts(o, s);
}

static void fmt_fixed0(ib_buf *o, double v)
{
	char s[400];
	par_js_fixed(v, 0, s, sizeof s);
	ib_buf_puts(o, s);
}

/* Expands a template: {M} model, {A}/{B} labels, {T} target, {a$}/{b$}
 * costs, {av}/{bv} throughputs (0 decimals), {C}/{P} cheaper/pricier label,
 * {c$}/{p$} their costs, {F} faster label, {R} ratio as a percent delta,
 * {L}/{X} present/missing label, {v}/{$} present value/cost, {BAND} the band
 * phrase capitalised, {RANGE} the range text, {S} the summary. */
static void expand(ib_buf *o, const char *t, const narr_in *in)
{
	static const char *const keys[] = {
	    "{M}",  "{A}", "{B}", "{T}", "{a$}", "{b$}", "{av}", "{bv}",   "{C}",     "{P}", "{c$}",
	    "{p$}", "{F}", "{R}", "{L}", "{X}",  "{v}",  "{$}",  "{BAND}", "{RANGE}", "{S}"};
	while (*t) {
		int hit = -1;
		if (*t == '{')
			for (int k = 0; k < (int)(sizeof keys / sizeof keys[0]); k++)
				if (!strncmp(t, keys[k], strlen(keys[k]))) {
					hit = k;
					break;
				}
		if (hit < 0) {
			ib_buf_putc(o, *t++);
			continue;
		}
		t += strlen(keys[hit]);
		switch (hit) {
		case 0:
			ib_buf_puts(o, in->model);
			break;
		case 1:
			ib_buf_puts(o, in->a);
			break;
		case 2:
			ib_buf_puts(o, in->b);
			break;
		case 3:
			fmt_num(o, in->target);
			break;
		case 4:
			fmt_cost(o, in->a_cost);
			break;
		case 5:
			fmt_cost(o, in->b_cost);
			break;
		case 6:
			fmt_fixed0(o, in->a_value);
			break;
		case 7:
			fmt_fixed0(o, in->b_value);
			break;
		case 8:
			ib_buf_puts(o, in->cheaper);
			break;
		case 9:
			ib_buf_puts(o, in->pricier);
			break;
		case 10:
			fmt_cost(o, in->cheaper_cost);
			break;
		case 11:
			fmt_cost(o, in->pricier_cost);
			break;
		case 12:
			ib_buf_puts(o, in->faster);
			break;
		case 13:
			fmt_pct(o, in->ratio);
			break;
		case 14:
			ib_buf_puts(o, in->present);
			break;
		case 15:
			ib_buf_puts(o, in->missing);
			break;
		case 16:
			fmt_fixed0(o, in->present_value);
			break;
		case 17:
			fmt_cost(o, in->present_cost);
			break;
		case 18:
			ib_buf_putc(o, (char)(in->band[0] - 'a' + 'A'));
			ib_buf_puts(o, in->band + 1);
			break;
		case 19:
			ib_buf_puts(o, in->range_text);
			break;
		default:
			ib_buf_puts(o, in->summary);
			break;
		}
	}
}

/* The sentence pools (their wording is the dashboard's; the goldens pin it). */
static const char *const full_both[] = {
    "At {T} tok/s/user interactivity on {M}, {A} delivers {av} tok/s/GPU at {a$} per million "
    "tokens; {B} delivers {bv} tok/s/GPU at {b$}. {S} at this point.",
    "{A} posts {av} tok/s/GPU for {a$} per million tokens at {T} tok/s/user on {M}; {B} posts "
    "{bv} tok/s/GPU for {b$}. {S}.",
    "Throughput at {T} tok/s/user on {M}: {A} hits {av} tok/s/GPU, {B} hits {bv}. Per-million "
    "costs land at {a$} and {b$} respectively. {S}.",
    "{A} / {B} on {M} at {T} tok/s/user: {av} / {bv} tok/s/GPU, {a$} / {b$} per million tokens. "
    "{S}.",
    "{BAND} of the {RANGE} interactivity band, at {T} tok/s/user on {M}: {A} runs {av} tok/s/GPU "
    "at {a$}/M tokens, {B} runs {bv} at {b$}/M. {S}.",
    "Setting {T} tok/s/user as the target on {M}, {A} produces {av} tok/s/GPU ({a$} per million "
    "tokens) and {B} produces {bv} ({b$}). {S}.",
};
static const char *const full_single[] = {
    "At {T} tok/s/user on {M}, {L} delivers {v} tok/s/GPU at {$} per million tokens; {X} hasn't "
    "been benchmarked at this target.",
    "{L} hits {v} tok/s/GPU for {$} per million tokens at {T} tok/s/user on {M}. No {X} data at "
    "this operating point.",
    "{L}: {v} tok/s/GPU, {$} per million tokens at {T} tok/s/user on {M}. {X} is unmeasured here.",
};
static const char *const pd_both[] = {
    "At {T} tok/s/user on {M}, {A} costs {a$} per million tokens; {B} costs {b$}. {C} is {R} "
    "more cost-efficient at this operating point.",
    "{C} edges {P} at {T} tok/s/user on {M} — {c$} per million tokens versus {p$}, a {R} "
    "cost-per-token gap.",
    "Push {M} to {T} tok/s/user and {A} lands at {a$} per million tokens against {B}'s {b$} — "
    "{C} pulls ahead by {R}.",
    "{A}: {a$} per million tokens. {B}: {b$}. Both at {T} tok/s/user on {M}, with {C} {R} "
    "cheaper.",
    "{BAND} of the {RANGE} interactivity band — at {T} tok/s/user — {A} runs {a$} per million "
    "tokens on {M} while {B} runs {b$}. {C} is the cheaper choice by {R}.",
    "On {M} at {T} tok/s/user, the per-million math comes out to {a$} for {A} and {b$} for {B}; "
    "{C} delivers {R} more output per dollar.",
};
static const char *const pd_tied[] = {
    "At {T} tok/s/user on {M}, {A} and {B} land within ~1% on cost per million tokens ({a$} vs "
    "{b$}) — call it a tie at this operating point.",
    "{A} {a$} and {B} {b$} per million tokens at {T} tok/s/user on {M}: effectively the same "
    "cost.",
    "Cost-per-million is essentially even between {A} ({a$}) and {B} ({b$}) at {T} tok/s/user "
    "on {M}.",
};
static const char *const pd_zero[] = {
    "At {T} tok/s/user on {M}, {A} and {B} register {a$} and {b$} per million tokens — one side "
    "has missing pricing or throughput, so a like-for-like ratio isn't meaningful here.",
    "{A} ({a$}) and {B} ({b$}) per million tokens at {T} tok/s/user on {M}: at least one input "
    "is zero, so the gap can't be expressed as a ratio.",
};
static const char *const pd_single[] = {
    "{L} costs {$} per million tokens at {T} tok/s/user on {M}; we have no {X} benchmark data at "
    "this exact target.",
    "At {T} tok/s/user on {M}, {L} comes in at {$} per million tokens. {X} hasn't been "
    "benchmarked at this operating point.",
    "Only {L} has cost data at {T} tok/s/user on {M} — {$} per million tokens. {X} is "
    "unmeasured at this target.",
};

static const char *pick(const char *const *pool, size_t len, double seed, size_t row)
{
	size_t start = (size_t)fmod(seed, (double)len);
	return pool[(start + row) % len];
}

/* The "full" variant's summary sentence into s. */
static void full_summary(ib_buf *s, const narr_in *in, bool cost_ok, bool tput_ok,
                         double cost_ratio, double tput_ratio)
{
	ib_buf parts = {0};
	if (cost_ok && cost_ratio < 1.01)
		ib_buf_puts(&parts, "cost per token is essentially tied");
	else if (cost_ok) {
		ib_buf_printf(&parts, "%s is ", in->cheaper);
		fmt_pct(&parts, cost_ratio);
		ib_buf_puts(&parts, " cheaper per token");
	}
	if (tput_ok && parts.len)
		ib_buf_puts(&parts, "; ");
	if (tput_ok && tput_ratio < 1.01)
		ib_buf_puts(&parts, "throughput per GPU is essentially tied");
	else if (tput_ok) {
		ib_buf_printf(&parts, "%s delivers ", in->faster);
		fmt_pct(&parts, tput_ratio);
		ib_buf_puts(&parts, " more tok/s/GPU");
	}
	if (parts.len) {
		char c = parts.data[0];
		if (c >= 'a' && c <= 'z')
			parts.data[0] = (char)(c - 'a' + 'A');
		ib_buf_puts(s, parts.data);
	} else {
		ib_buf_puts(s, "numbers are too close to call");
	}
	ib_buf_free(&parts);
}

static const char *band_of(double target, double lo, double hi)
{
	double span = hi - lo;
	if (span <= 0)
		return "around the middle";
	double t = (target - lo) / span;
	return t < 1.0 / 3   ? "near the low end"
	       : t > 2.0 / 3 ? "toward the upper edge"
	                     : "around the middle";
}

static void one_paragraph(ib_buf *o, bool per_dollar, const rep_narr_row *r, size_t row,
                          double seed, narr_in *in, double lo, double hi)
{
	in->target = r->target;
	in->band = band_of(r->target, lo, hi);
	if (r->a.present && r->b.present) {
		double ac = r->a.cost, bc = r->b.cost;
		bool a_cheaper = ac < bc;
		in->a_cost = ac;
		in->b_cost = bc;
		in->a_value = r->a.value;
		in->b_value = r->b.value;
		in->cheaper = a_cheaper ? in->a : in->b;
		in->pricier = a_cheaper ? in->b : in->a;
		in->cheaper_cost = a_cheaper ? ac : bc;
		in->pricier_cost = a_cheaper ? bc : ac;
		if (per_dollar) {
			if (!(ac > 0 && bc > 0)) {
				expand(o, pick(pd_zero, 2, seed, row), in);
				return;
			}
			in->ratio = a_cheaper ? bc / ac : ac / bc;
			if (in->ratio < 1.01)
				expand(o, pick(pd_tied, 3, seed, row), in);
			else
				expand(o, pick(pd_both, 6, seed, row), in);
			return;
		}
		bool cost_ok = ac > 0 && bc > 0, tput_ok = r->a.value > 0 && r->b.value > 0;
		bool a_faster = r->a.value > r->b.value;
		in->faster = a_faster ? in->a : in->b;
		double cr = a_cheaper ? bc / ac : ac / bc;
		double tr = a_faster ? r->a.value / r->b.value : r->b.value / r->a.value;
		ib_buf s = {0};
		full_summary(&s, in, cost_ok, tput_ok, cr, tr);
		in->summary = s.data ? s.data : "";
		expand(o, pick(full_both, 6, seed, row), in);
		in->summary = NULL;
		ib_buf_free(&s);
		return;
	}
	const rep_narr_side *p = r->a.present ? &r->a : &r->b;
	in->present = r->a.present ? in->a : in->b;
	in->missing = r->a.present ? in->b : in->a;
	in->present_value = p->value;
	in->present_cost = p->cost;
	if (per_dollar)
		expand(o, pick(pd_single, 3, seed, row), in);
	else
		expand(o, pick(full_single, 3, seed, row), in);
}

int rep_compare_narrative(const char *variant, const char *model, const char *a_label,
                          const char *b_label, const rep_narr_row *rows, size_t nrows,
                          double range_min, double range_max, ib_buf *paras, size_t *nparas)
{
	*nparas = 0;
	bool per_dollar;
	if (variant && !strcmp(variant, "full"))
		per_dollar = false;
	else if (variant && !strcmp(variant, "per-dollar"))
		per_dollar = true;
	else
		return IB_EINVAL;
	ib_buf seed_text = {0}, range = {0};
	char lo[64], hi[64];
	par_js_num(range_min, lo, sizeof lo);
	par_js_num(range_max, hi, sizeof hi);
	int rc = ib_buf_printf(&seed_text, "%s|%s|%s|%s", variant, model, a_label, b_label);
	rc = rc ? rc : ib_buf_printf(&range, "%s–%s tok/s/user", lo, hi);
	if (rc) {
		ib_buf_free(&seed_text);
		ib_buf_free(&range);
		return rc;
	}
	double seed = seed_hash(seed_text.data);
	narr_in in = {.model = model, .a = a_label, .b = b_label, .range_text = range.data};
	for (size_t i = 0; i < nrows; i++) {
		if (!rows[i].a.present && !rows[i].b.present)
			continue;
		one_paragraph(&paras[*nparas], per_dollar, &rows[i], i, seed, &in, range_min,
		              range_max);
		if (!paras[*nparas].data) {
			rc = IB_ENOMEM;
			break;
		}
		(*nparas)++;
	}
	ib_buf_free(&seed_text);
	ib_buf_free(&range);
	return rc;
}
