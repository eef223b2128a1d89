/* infbench power: aggregate_power.py (single node) — validate GPU telemetry
 * against the benchmark window, integrate energy per GPU, patch the agg row
 * and write the validation sidecar (docs/power.md). */
#define _GNU_SOURCE /* strcasestr */
#include "power/private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_GAP       3.0
#define ACC_TOLERANCE 0.05

void pw_reason(pw_reasons *r, const char *s)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i], s))
			return;
	if (r->n < sizeof r->v / sizeof r->v[0])
		r->v[r->n++] = s;
}

void pw_log_invalid(pw_log_fn log, void *ud, const char *tag, const pw_reasons *r, const char *val)
{
	ib_buf j = {0};
	for (size_t i = 0; i < r->n; i++)
		ib_buf_printf(&j, "%s%s", i ? ", " : "", r->v[i]);
	pw_logf(log, ud, 2, "%s Power validation failed: %s (details: %s)", tag,
	        j.data ? j.data : "", val);
	ib_buf_free(&j);
}

bool pw_is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

bool pw_is_num(const ib_val *v)
{
	return v && (v->type == IB_V_INT || v->type == IB_V_FLOAT);
}

static double num(const ib_val *v)
{
	return v->type == IB_V_INT ? (double)v->i : v->f;
}

static bool count_of(const ib_val *v, int64_t *out)
{
	if (!v || v->type != IB_V_INT || v->i <= 0)
		return false;
	*out = v->i;
	return true;
}

int pw_load_bench(ib_arena *a, const char *path, pw_bench *b, pw_reasons *r, ib_error *e)
{
	memset(b, 0, sizeof *b);
	ib_val *v = NULL;
	ib_error ignore;
	if (ib_json_parse_file(a, path, &v, &ignore)) {
		pw_reason(r, "invalid_benchmark_result");
		return 0;
	}
	if (v->type != IB_V_MAP) /* bench.get raises AttributeError in the reference */
		return ib_fail(e, IB_EINVAL, path, 0, 0,
		               "the benchmark result is a JSON %s, not an object",
		               ib_vtype_pyname(v));
	const ib_val *s = ib_map_get(v, "benchmark_start_time_unix"),
	             *en = ib_map_get(v, "benchmark_end_time_unix"), *d = ib_map_get(v, "duration");
	if (!pw_is_num(s) || !pw_is_num(en) || !pw_is_num(d)) {
		pw_reason(r, "invalid_benchmark_window");
		return 0;
	}
	b->start = num(s), b->end = num(en), b->duration = num(d);
	if (!isfinite(b->start) || !isfinite(b->end) || !isfinite(b->duration) ||
	    b->end <= b->start || b->duration <= 0) {
		pw_reason(r, "invalid_benchmark_window");
		return 0;
	}
	b->ok = true;
	double integ = b->end - b->start, tol = integ * 0.01 > 0.5 ? integ * 0.01 : 0.5;
	if (fabs(b->duration - integ) > tol)
		pw_reason(r, "benchmark_duration_mismatch");
	if (!count_of(ib_map_get(v, "completed"), &b->completed))
		pw_reason(r, "invalid_successful_query_count");
	if (!count_of(ib_map_get(v, "total_input_tokens"), &b->in))
		pw_reason(r, "invalid_input_token_count");
	if (!count_of(ib_map_get(v, "total_output_tokens"), &b->out))
		pw_reason(r, "invalid_output_token_count");
	return 0;
}

/* ---- telemetry ---- */

typedef struct {
	const char *id;
	size_t seq, first;
	double t, p;
} raw;

static int raw_by_id(const void *x, const void *y)
{
	const raw *a = x, *b = y;
	int c = strcmp(a->id, b->id);
	return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

static int raw_by_key(const void *x, const void *y)
{
	const raw *a = x, *b = y;
	int c = pw_gpu_cmp(a->id, b->id);
	if (c)
		return c;
	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static size_t bisect_left(const double *t, size_t n, double x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (t[m] < x)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

static size_t bisect_right(const double *t, size_t n, double x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (x < t[m])
			hi = m;
		else
			lo = m + 1;
	}
	return lo;
}

static double interp(const double *t, const double *p, size_t n, double x)
{
	size_t r = bisect_left(t, n, x);
	if (r < n && fabs(t[r] - x) <= 1e-9)
		return p[r];
	size_t l = r - 1; /* bracketed by the caller's checks */
	double f = (x - t[l]) / (t[r] - t[l]);
	return p[l] + f * (p[r] - p[l]);
}

double pw_integrate(const double *t, const double *p, size_t n, double start, double end)
{
	double sp = interp(t, p, n, start), ep = interp(t, p, n, end);
	double lt = start, lp = sp, energy = 0.0;
	for (size_t i = 0; i < n; i++) {
		if (!(start < t[i] && t[i] < end))
			continue;
		energy += (t[i] - lt) * (lp + p[i]) / 2.0;
		lt = t[i], lp = p[i];
	}
	energy += (end - lt) * (lp + ep) / 2.0;
	return energy;
}

static bool has_ci(const char *s, const char *w)
{
	return strcasestr(s, w) != NULL;
}

static int read_header(ib_arena *a, const pw_csv *c, pw_header *h)
{
	h->n = c->n ? c->rows[0].n : 0;
	h->names = ib_arena_alloc(a, (h->n + 1) * sizeof *h->names);
	if (!h->names)
		return IB_ENOMEM;
	h->ts = h->pw = h->gpu = -1;
	for (size_t i = 0; i < h->n; i++) {
		size_t l;
		const char *s = pw_py_strip(c->rows[0].f[i], c->rows[0].len[i], &l);
		h->names[i] = ib_arena_strndup(a, s, l);
		if (!h->names[i])
			return IB_ENOMEM;
	}
	/* DictReader keys: a repeated name maps to its last column */
	for (size_t i = 0; i < h->n; i++) {
		const char *s = h->names[i];
		int col = pw_csv_col(h->names, h->n, s);
		if (h->ts < 0 && has_ci(s, "time"))
			h->ts = col;
		if (h->pw < 0 && has_ci(s, "power") && !has_ci(s, "limit") && !has_ci(s, "cap") &&
		    !has_ci(s, "max") && !has_ci(s, "min"))
			h->pw = col;
		size_t l;
		const char *st = pw_py_strip(s, strlen(s), &l);
		static const char *const ids[] = {"index",     "gpu",  "gpu_id",
		                                  "gpu_index", "card", "device"};
		for (size_t k = 0; h->gpu < 0 && k < 6; k++)
			if (l == strlen(ids[k]) && !strncasecmp(st, ids[k], l))
				h->gpu = col;
	}
	return 0;
}

const char *pw_cell(const pw_csv_row *r, int col, size_t *len)
{
	if (col < 0 || (size_t)col >= r->n) {
		*len = 0;
		return "";
	}
	return pw_py_strip(r->f[col], r->len[col], len);
}

int pw_load_telemetry(ib_arena *a, const char *path, pw_csv *c, pw_header *h, bool *unreadable)
{
	ib_buf b = {0};
	ib_error e;
	*unreadable = false;
	if (ib_read_file(path, &b, &e)) {
		*unreadable = true;
		return 0;
	}
	int rc = pw_csv_parse(a, b.data ? b.data : "", b.len, true, true, NULL, c);
	ib_buf_free(&b);
	if (!rc)
		rc = read_header(a, c, h);
	return rc;
}

static int empty_integration(pw_integ *in)
{
	in->ids = NULL;
	in->n = 0;
	return 0;
}

int pw_integrate_csv(ib_arena *a, const char *path, double start, double end, bool has_expected,
                     int64_t expected, pw_integ *in, pw_reasons *r, pw_log_fn log, void *ud)
{
	memset(in, 0, sizeof *in);
	if (has_expected && expected <= 0)
		pw_reason(r, "invalid_expected_gpu_count");
	struct stat st;
	if (!pw_is_file(path)) {
		pw_reason(r, "telemetry_file_missing");
		return empty_integration(in);
	}
	if (stat(path, &st) != 0) {
		pw_reason(r, "telemetry_file_unreadable");
		return empty_integration(in);
	}
	if (st.st_size == 0) {
		pw_reason(r, "telemetry_file_empty");
		return empty_integration(in);
	}
	pw_csv c;
	pw_header h;
	bool unreadable;
	int rc = pw_load_telemetry(a, path, &c, &h, &unreadable);
	if (rc)
		return rc;
	if (unreadable || (c.error && c.n == 0)) {
		pw_csv_free(&c);
		pw_reason(r, "telemetry_file_unreadable");
		return empty_integration(in);
	}
	bool missing = false;
	if (h.ts < 0)
		pw_reason(r, "timestamp_column_missing"), missing = true;
	if (h.pw < 0)
		pw_reason(r, "power_column_missing"), missing = true;
	if (h.gpu < 0)
		pw_reason(r, "gpu_identity_column_missing"), missing = true;
	if (missing) {
		pw_csv_free(&c);
		return empty_integration(in);
	}
	raw *rs = NULL;
	size_t nr = 0, cap = 0;
	bool missing_id = false;
	for (size_t i = 1; i < c.n && !rc; i++) {
		const pw_csv_row *row = &c.rows[i];
		if (!row->n)
			continue; /* DictReader skips empty records */
		size_t tl, pl, gl;
		const char *ts = pw_cell(row, h.ts, &tl);
		double t, p;
		if (!pw_parse_timestamp(ts, tl, &t) || !isfinite(t)) {
			if (r->n_bad_ts++ == 0)
				pw_logf(log, ud, 2, "%s:%d: unparseable timestamp '%.*s'", path,
				        row->line, (int)(tl > 80 ? 80 : tl), ts);
			pw_reason(r, "invalid_timestamp_sample");
			continue;
		}
		if (t < start - MAX_GAP || t > end + MAX_GAP)
			continue;
		const char *ps = pw_cell(row, h.pw, &pl);
		const char *g = pw_cell(row, h.gpu, &gl);
		if (!pw_parse_power(ps, pl, &p) || !isfinite(p) || p < 0) {
			if (r->n_bad_pw++ == 0)
				pw_logf(log, ud, 2, "%s:%d: invalid power reading '%.*s'", path,
				        row->line, (int)(pl > 80 ? 80 : pl), ps);
			pw_reason(r, "invalid_power_sample");
			continue;
		}
		if (!gl) {
			missing_id = true;
			continue;
		}
		if (ib_grow(&rs, &cap, nr + 1)) {
			rc = IB_ENOMEM;
			break;
		}
		char *id = ib_arena_strndup(a, g, gl);
		if (!id) {
			rc = IB_ENOMEM;
			break;
		}
		rs[nr] = (raw){id, nr, 0, t, p};
		nr++;
	}
	if (c.error)
		pw_logf(log, ud, 2, "%s:%d: CSV error", path, c.error_line);
	if (!rc && c.error) {
		/* csv.Error: the reference reports the file unreadable and stops */
		pw_reason(r, "telemetry_file_unreadable");
		pw_csv_free(&c);
		free(rs);
		return empty_integration(in);
	}
	pw_csv_free(&c);
	if (rc) {
		free(rs);
		return rc;
	}
	if (missing_id)
		pw_reason(r, "gpu_identity_missing");
	if (!nr) {
		pw_reason(r, "no_usable_power_samples");
		free(rs);
		return empty_integration(in);
	}
	/* first appearance of each id (the dict order of the reference) */
	qsort(rs, nr, sizeof *rs, raw_by_id);
	for (size_t i = 0; i < nr;) {
		size_t j = i;
		while (j < nr && !strcmp(rs[j].id, rs[i].id))
			j++;
		for (size_t k = i; k < j; k++)
			rs[k].first = rs[i].seq;
		i = j;
	}
	qsort(rs, nr, sizeof *rs, raw_by_key);
	size_t ndev = 0;
	for (size_t i = 0; i < nr; i++)
		if (!i || strcmp(rs[i].id, rs[i - 1].id))
			ndev++;
	in->ids = ib_arena_alloc(a, ndev * sizeof *in->ids);
	in->dev = ib_arena_alloc(a, ndev * sizeof *in->dev);
	double *t = malloc(nr * sizeof *t), *p = malloc(nr * sizeof *p),
	       *vals = malloc(nr * sizeof *vals);
	if (!in->ids || !in->dev || !t || !p || !vals) {
		free(rs), free(t), free(p), free(vals);
		return IB_ENOMEM;
	}
	in->n = ndev;
	if (has_expected && expected > 0 && (int64_t)ndev != expected)
		pw_reason(r, "expected_gpu_count_mismatch");
	bool all = true;
	size_t d = 0;
	for (size_t i = 0; i < nr; d++) {
		size_t j = i, ns = 0;
		while (j < nr && !strcmp(rs[j].id, rs[i].id))
			j++;
		for (size_t k = i; k < j;) {
			size_t m = k, nv = 0;
			while (m < j && rs[m].t == rs[k].t)
				vals[nv++] = rs[m++].p;
			t[ns] = rs[k].t;
			p[ns++] = pw_mean(vals, nv);
			k = m;
		}
		pw_dev *dv = &in->dev[d];
		in->ids[d] = rs[i].id;
		dv->count = ns;
		if (ns < 2) {
			dv->issue = "insufficient_power_samples";
		} else if (t[0] > start || t[ns - 1] < end) {
			dv->issue = "benchmark_window_not_bracketed";
		} else {
			size_t l = bisect_right(t, ns, start) - 1, rr = bisect_left(t, ns, end);
			double mg = 0.0;
			for (size_t k = l; k < rr && k + 1 < ns; k++)
				if (t[k + 1] - t[k] > mg)
					mg = t[k + 1] - t[k];
			dv->has_energy = true;
			dv->max_gap = mg;
			if (mg > MAX_GAP)
				dv->issue = "sampling_gap_exceeded";
			dv->energy = pw_integrate(t, p, ns, start, end);
		}
		if (dv->issue)
			pw_reason(r, dv->issue);
		all &= dv->has_energy;
		i = j;
	}
	free(rs), free(t), free(p), free(vals);
	if (all) {
		double total = 0.0;
		for (size_t k = 0; k < ndev; k++)
			total += in->dev[k].energy;
		in->has_totals = true;
		in->total = total;
		in->avg_total = total / (end - start);
		in->avg = in->avg_total / (double)ndev;
	}
	return 0;
}
