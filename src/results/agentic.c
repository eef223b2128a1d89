/* infbench agentic process / validate: InferenceX's
 * utils/agentic/aggregation/process_agentic_result.py (aiperf artifacts and
 * the environment into the agentic agg row) and
 * utils/agentic/validation/validate_agentic_result.py (the error gate).
 * docs/agentic.md describes every input, output and rule. */
#include "results/agentic_priv.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OOM(e) ib_fail((e), IB_ENOMEM, "", 0, 0, "out of memory")

bool res_ag_is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

char *res_ag_first_sub_with(ib_arena *a, const char *dir, const char *name, bool *oom)
{
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (ib_grow(&names, &cap, n + 1) || !(names[n] = ib_arena_strdup(a, de->d_name))) {
			*oom = true;
			break;
		}
		n++;
	}
	closedir(d);
	char *found = NULL;
	if (n)
		qsort(names, n, sizeof *names, ib_cmp_str);
	for (size_t i = 0; !*oom && i < n && !found; i++) {
		char *sub = ib_arena_printf(a, "%s/%s", dir, names[i]);
		char *f = sub ? ib_arena_printf(a, "%s/%s", sub, name) : NULL;
		if (!f) {
			*oom = true;
			break;
		}
		if (res_ag_is_dir(sub) && pw_is_file(f))
			found = pw_py_path(a, sub);
	}
	free(names);
	return found;
}

char *res_ag_artifact_dir(ib_arena *a, const char *result_dir)
{
	char *base = ib_arena_printf(a, "%s/aiperf_artifacts", result_dir);
	char *f = base ? ib_arena_printf(a, "%s/profile_export.jsonl", base) : NULL;
	if (!f)
		return NULL;
	if (pw_is_file(f))
		return pw_py_path(a, base);
	bool oom = false;
	char *sub = res_ag_first_sub_with(a, base, "profile_export.jsonl", &oom);
	if (oom)
		return NULL;
	return sub ? sub : pw_py_path(a, base);
}

/* ---- values ---- */

bool res_ag_to_float(const ib_val *v, double *out)
{
	if (!v)
		return false;
	switch (v->type) {
	case IB_V_BOOL:
		*out = v->b;
		return true;
	case IB_V_INT:
		*out = (double)v->i;
		return true;
	case IB_V_FLOAT:
		*out = v->f;
		return !v->bigint || isfinite(v->f);
	case IB_V_STR:
		return ib_py_float(v->str.s, v->str.len, out);
	default:
		return false;
	}
}

bool res_ag_to_int(const ib_val *v, int64_t *out)
{
	if (!v)
		return false;
	switch (v->type) {
	case IB_V_BOOL:
		*out = v->b;
		return true;
	case IB_V_INT:
		*out = v->i;
		return true;
	case IB_V_FLOAT:
		if (v->bigint || !isfinite(v->f) || fabs(v->f) >= 9.2e18)
			return false;
		*out = (int64_t)v->f;
		return true;
	case IB_V_STR:
		return ib_py_int(v->str.s, v->str.len, out);
	default:
		return false;
	}
}

const ib_val *res_ag_metric(const ib_val *rec, const char *key)
{
	const ib_val *m = ib_map_get(ib_map_get(rec, "metrics"), key);
	if (m && m->type == IB_V_MAP)
		m = ib_map_get(m, "value");
	return m && m->type != IB_V_NULL ? m : NULL;
}

static double *record_floats(const res_ag_records *r, const char *key, size_t *n)
{
	double *v = malloc((r->n + 1) * sizeof *v);
	*n = 0;
	for (size_t i = 0; v && i < r->n; i++)
		if (res_ag_to_float(res_ag_metric(r->rec[i], key), &v[*n]))
			(*n)++;
	return v;
}

int64_t *res_ag_record_ints(const res_ag_records *r, const char *key, size_t *n)
{
	int64_t *v = malloc((r->n + 1) * sizeof *v);
	*n = 0;
	for (size_t i = 0; v && i < r->n; i++)
		if (res_ag_to_int(res_ag_metric(r->rec[i], key), &v[*n]))
			(*n)++;
	return v;
}

/* ---- records ---- */

/* The text of str(x).strip().splitlines()[0] split at ':' (a prefix of s). */
static size_t first_line(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n' || c == '\r' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1e))
			return i;
		if (c == 0xC2 && i + 1 < n && (unsigned char)s[i + 1] == 0x85)
			return i;
		if (c == 0xE2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
		    ((unsigned char)s[i + 2] == 0xA8 || (unsigned char)s[i + 2] == 0xA9))
			return i;
	}
	return n;
}

/* _error_category */
static char *error_category(ib_arena *a, const ib_val *err)
{
	static const char *const keys[] = {"type", "error_type", "code", "class", "status"};
	const ib_val *msg = err;
	ib_buf b = {0};
	char *out = NULL;
	if (err->type == IB_V_MAP) {
		for (size_t i = 0; i < 5; i++) {
			const ib_val *v = ib_map_get(err, keys[i]);
			if (!v || v->type == IB_V_NULL || (v->type == IB_V_STR && !v->str.len))
				continue;
			ib_val_pystr(&b, v);
			out = ib_arena_strndup(a, b.data ? b.data : "", b.len);
			ib_buf_free(&b);
			return out;
		}
		msg = ib_map_get(err, "message");
		if (!ib_val_truthy(msg))
			msg = ib_map_get(err, "error");
	}
	if (!ib_val_truthy(msg))
		return ib_arena_strdup(a, "unknown");
	ib_val_pystr(&b, msg);
	size_t l;
	const char *s = pw_py_strip(b.data ? b.data : "", b.len, &l);
	l = first_line(s, l);
	const char *colon = memchr(s, ':', l);
	if (colon)
		l = (size_t)(colon - s);
	if (!l) {
		ib_buf_free(&b);
		return ib_arena_strdup(a, "unknown");
	}
	/* at most 120 code points */
	size_t k = 0, cps = 0;
	while (k < l && cps < 120) {
		k++;
		while (k < l && ((unsigned char)s[k] & 0xC0) == 0x80)
			k++;
		cps++;
	}
	out = ib_arena_strndup(a, s, k);
	ib_buf_free(&b);
	return out;
}

int res_ag_load_records(ib_arena *a, const char *path, res_ag_records *r, ib_error *e)
{
	memset(r, 0, sizeof *r);
	ib_buf b = {0};
	size_t cap = 0;
	int rc = ib_read_file(path, &b, e);
	if (rc)
		return rc;
	if (!(r->categories = ib_v_map(a)))
		goto oom;
	const char *p = b.data ? b.data : "", *end = p + b.len;
	int line = 0;
	while (p < end) {
		const char *q = p;
		while (q < end && *q != '\n' && *q != '\r')
			q++;
		line++;
		size_t l;
		const char *s = pw_py_strip(p, (size_t)(q - p), &l);
		p = q < end && *q == '\r' && q + 1 < end && q[1] == '\n' ? q + 2 : q + 1;
		if (!l)
			continue;
		ib_val *v;
		ib_error pe = {0};
		if (ib_json_parse(a, path, s, l, &v, &pe)) {
			rc = ib_fail(e, IB_EPARSE, path, line, pe.col, "%s", pe.msg);
			goto done;
		}
		if (v->type != IB_V_MAP) {
			rc = ib_fail(e, IB_EINVAL, path, line, 0,
			             "a record must be a JSON object, not %s", ib_vtype_pyname(v));
			goto done;
		}
		const ib_val *md = ib_map_get(v, "metadata");
		if (md && md->type != IB_V_MAP) {
			rc = ib_fail(e, IB_EINVAL, path, line, 0,
			             "field 'metadata' must be an object");
			goto done;
		}
		r->total++;
		const ib_val *phase = ib_map_get(md, "benchmark_phase");
		bool warm = phase && phase->type != IB_V_NULL &&
		            !(phase->type == IB_V_STR && !strcmp(phase->str.s, "profiling"));
		const ib_val *err = ib_map_get(v, "error");
		bool bad = ib_val_truthy(err);
		if (warm)
			r->warmup++;
		if (bad) {
			r->errors++;
			char *cat = error_category(a, err);
			if (!cat)
				goto oom;
			const ib_val *c = ib_map_get(r->categories, cat);
			ib_val *nv = ib_v_int(a, c ? c->i + 1 : 1);
			if (!nv || ib_map_set(a, r->categories, cat, nv))
				goto oom;
		}
		if (bad || warm)
			continue;
		const ib_val *mt = ib_map_get(v, "metrics");
		if (mt && mt->type != IB_V_MAP) {
			rc = ib_fail(e, IB_EINVAL, path, line, 0,
			             "field 'metrics' must be an object");
			goto done;
		}
		if (ib_grow(&r->rec, &cap, r->n + 1))
			goto oom;
		r->rec[r->n++] = v;
	}
	/* the array lives in the arena so the caller has nothing to free */
	if (r->n) {
		ib_val **arr = ib_arena_alloc(a, r->n * sizeof *arr);
		if (!arr)
			goto oom;
		memcpy(arr, r->rec, r->n * sizeof *arr);
		free(r->rec);
		r->rec = arr;
	} else {
		free(r->rec);
		r->rec = NULL;
	}
	ib_buf_free(&b);
	return 0;
oom:
	rc = OOM(e);
done:
	free(r->rec);
	r->rec = NULL;
	r->n = 0;
	ib_buf_free(&b);
	return rc;
}

/* ---- statistics ---- */

double res_ag_percentile(const double *s, size_t n, double p)
{
	if (!n)
		return 0.0;
	double k = (double)(n - 1) * (p / 100);
	size_t f = (size_t)k, c = f + 1;
	if (c >= n)
		return s[f];
	return s[f] + (k - (double)f) * (s[c] - s[f]);
}

double res_ag_pstdev(const double *v, size_t n)
{
	if (n < 2)
		return 0.0;
	__float128 s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	__float128 m = s / n, ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	return (double)sqrtl((long double)(ss / n));
}

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

static const char *const stat_keys[6] = {"mean", "p50", "p75", "p90", "p95", "std"};
static const double stat_pcts[4] = {50, 75, 90, 95};

/* stats_for (nested): {mean, p50, p75, p90, p95, std}; {} for no values.
 * Sorts v. */
static ib_val *stats_map(ib_arena *a, double *v, size_t n)
{
	ib_val *m = ib_v_map(a);
	if (!m || !n)
		return m;
	double mean = pw_mean(v, n), sd = res_ag_pstdev(v, n);
	qsort(v, n, sizeof *v, cmp_dbl);
	if (ib_map_set(a, m, "mean", ib_v_float(a, mean)))
		return NULL;
	for (size_t i = 0; i < 4; i++)
		if (ib_map_set(a, m, stat_keys[i + 1],
		               ib_v_float(a, res_ag_percentile(v, n, stat_pcts[i]))))
			return NULL;
	return ib_map_set(a, m, "std", ib_v_float(a, sd)) ? NULL : m;
}

/* statistics.mean of Python ints: an int when exact, else the float. */
static ib_val *int_mean(ib_arena *a, const int64_t *v, size_t n)
{
	__int128 s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	if (s % (__int128)n == 0 && s / (__int128)n >= INT64_MIN && s / (__int128)n <= INT64_MAX)
		return ib_v_int(a, (int64_t)(s / (__int128)n));
	return ib_v_float(a, (double)((__float128)s / n));
}

/* _distribution (nested) of ints. */
static ib_val *int_dist(ib_arena *a, const int64_t *v, size_t n)
{
	ib_val *m = ib_v_map(a);
	if (!m || !n)
		return m;
	double *d = malloc(n * sizeof *d);
	if (!d)
		return NULL;
	for (size_t i = 0; i < n; i++)
		d[i] = (double)v[i];
	double sd = res_ag_pstdev(d, n);
	qsort(d, n, sizeof *d, cmp_dbl);
	int rc = ib_map_set(a, m, "mean", int_mean(a, v, n));
	for (size_t i = 0; !rc && i < 4; i++)
		rc = ib_map_set(a, m, stat_keys[i + 1],
		                ib_v_float(a, res_ag_percentile(d, n, stat_pcts[i])));
	free(d);
	if (rc || ib_map_set(a, m, "std", ib_v_float(a, sd)))
		return NULL;
	return m;
}

/* _interactivity_stats (nested): 1/x of each positive statistic of the
 * latency map st, and the pstdev of the per-request 1/x. */
static ib_val *intvty_map(ib_arena *a, const ib_val *st, const double *x, size_t n)
{
	ib_val *m = ib_v_map(a);
	if (!m)
		return NULL;
	for (size_t i = 0; i < 5; i++) {
		const ib_val *v = ib_map_get(st, stat_keys[i]);
		if (v && v->type == IB_V_FLOAT && v->f > 0 &&
		    ib_map_set(a, m, stat_keys[i], ib_v_float(a, 1.0 / v->f)))
			return NULL;
	}
	double *inv = malloc((n + 1) * sizeof *inv);
	if (!inv)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (x[i] > 0)
			inv[k++] = 1.0 / x[i];
	int rc = k ? ib_map_set(a, m, "std", ib_v_float(a, res_ag_pstdev(inv, k))) : 0;
	free(inv);
	return rc ? NULL : m;
}

/* _ms_to_s: finite positive values / 1000, in place; returns the count. */
static size_t ms_to_s(double *v, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]) && v[i] > 0)
			v[k++] = v[i] / 1000.0;
	return k;
}

/* A latency series (ms -> s), its stats and (when intvty) its
 * interactivity map. */
static int latency(ib_arena *a, const res_ag_records *r, const char *key, ib_val **st, ib_val **iv)
{
	size_t n;
	double *v = record_floats(r, key, &n);
	if (!v)
		return IB_ENOMEM;
	n = ms_to_s(v, n);
	double *copy = malloc((n + 1) * sizeof *copy);
	if (!copy) {
		free(v);
		return IB_ENOMEM;
	}
	memcpy(copy, v, n * sizeof *v);
	*st = stats_map(a, copy, n);
	if (*st && iv)
		*iv = intvty_map(a, *st, v, n);
	free(v);
	free(copy);
	return *st && (!iv || *iv) ? 0 : IB_ENOMEM;
}

/* metadata[key] as an int when truthy: 1 found, 0 not, < 0 error. */
static int md_ns(const ib_val *rec, const char *key, int64_t *out, ib_error *e)
{
	const ib_val *v = ib_map_get(ib_map_get(rec, "metadata"), key);
	if (!ib_val_truthy(v))
		return 0;
	if (!res_ag_to_int(v, out))
		return ib_fail(e, IB_EINVAL, "", 0, 0, "metadata.%s is not an integer", key);
	return 1;
}

/* compute_qps_stats (nested) */
static int qps_stats(ib_arena *a, const res_ag_records *r, ib_val **out, ib_error *e)
{
	int rc = 0;
	ib_val *m = ib_v_map(a);
	double *ends = malloc((r->n + 1) * sizeof *ends), *q = NULL;
	if (!m || !ends)
		goto oom;
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++) {
		int64_t ns;
		int k = md_ns(r->rec[i], "request_end_ns", &ns, e);
		if (k < 0) {
			rc = k;
			goto done;
		}
		if (k)
			ends[n++] = (double)ns / 1e9;
	}
	*out = m;
	if (n < 2)
		goto done;
	qsort(ends, n, sizeof *ends, cmp_dbl);
	double dur = ends[n - 1] - ends[0];
	if (dur <= 0)
		goto done;
	size_t nq = 0, cap = 0, lo = 0;
	for (double cur = ends[0]; cur + 1.0 <= ends[n - 1]; cur += 1.0) {
		while (lo < n && ends[lo] < cur)
			lo++;
		size_t hi = lo;
		while (hi < n && ends[hi] < cur + 1.0)
			hi++;
		if (ib_grow(&q, &cap, nq + 1))
			goto oom;
		q[nq++] = (double)(hi - lo) / 1.0;
	}
	if (ib_map_set(a, m, "window_seconds", ib_v_float(a, 1.0)) ||
	    ib_map_set(a, m, "samples", ib_v_int(a, (int64_t)nq)))
		goto oom;
	if (nq) {
		ib_val *st = stats_map(a, q, nq);
		if (!st)
			goto oom;
		for (size_t i = 0; i < st->map.n; i++)
			if (ib_map_set_key(a, m, st->map.kv[i].key, st->map.kv[i].val))
				goto oom;
	} else if (ib_map_set(a, m, "mean", ib_v_float(a, (double)n / dur)))
		goto oom;
	goto done;
oom:
	rc = OOM(e);
done:
	free(ends);
	free(q);
	return rc;
}

/* _e2e_normalized_interactivity_stats: e2el(s)/osl per record. */
static int e2e_norm(ib_arena *a, const res_ag_records *r, ib_val **out)
{
	double *v = malloc((r->n + 1) * sizeof *v);
	if (!v)
		return IB_ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++) {
		double ms, osl;
		if (!res_ag_to_float(res_ag_metric(r->rec[i], "request_latency"), &ms) ||
		    !res_ag_to_float(res_ag_metric(r->rec[i], "output_sequence_length"), &osl) ||
		    !isfinite(ms) || !isfinite(osl) || ms <= 0 || osl <= 0)
			continue;
		v[n++] = ms / 1000.0 / osl;
	}
	double *copy = malloc((n + 1) * sizeof *copy);
	ib_val *st = NULL;
	if (copy) {
		memcpy(copy, v, n * sizeof *v);
		st = stats_map(a, copy, n);
	}
	*out = st ? intvty_map(a, st, v, n) : NULL;
	free(v);
	free(copy);
	return *out ? 0 : IB_ENOMEM;
}

static ib_val *tps(ib_arena *a, double x)
{
	ib_val *m = ib_v_map(a);
	return m && !ib_map_set(a, m, "tokens_per_second", ib_v_float(a, x)) ? m : NULL;
}

/* compute_throughput_stats (nested) */
static int throughput(ib_arena *a, const res_ag_records *r, ib_val **out, res_ag_tput *t,
                      ib_error *e)
{
	memset(t, 0, sizeof *t);
	int64_t lo = 0, hi = 0;
	bool hs = false, he = false;
	for (size_t i = 0; i < r->n; i++) {
		int64_t s, x;
		int k = md_ns(r->rec[i], "request_start_ns", &s, e);
		if (k < 0)
			return k;
		if (k && (!hs || s < lo))
			lo = s, hs = true;
		k = md_ns(r->rec[i], "request_end_ns", &x, e);
		if (k < 0)
			return k;
		if (k && (!he || x > hi))
			hi = x, he = true;
	}
	if (!(*out = ib_v_map(a)))
		return OOM(e);
	if (!hs || !he)
		return 0;
	double dur = (double)(hi - lo) / 1e9;
	if (dur <= 0)
		return 0;
	size_t ni, no;
	int64_t *in = res_ag_record_ints(r, "input_sequence_length", &ni);
	int64_t *on = res_ag_record_ints(r, "output_sequence_length", &no);
	int64_t si = 0, so = 0;
	for (size_t i = 0; in && i < ni; i++)
		si += in[i];
	for (size_t i = 0; on && i < no; i++)
		so += on[i];
	bool ok = in && on;
	free(in);
	free(on);
	if (!ok)
		return OOM(e);
	t->has = true;
	t->in = (double)si / dur, t->out = (double)so / dur, t->total = (double)(si + so) / dur;
	ib_val *m = *out;
	if (ib_map_set(a, m, "input", tps(a, t->in)) ||
	    ib_map_set(a, m, "output", tps(a, t->out)) ||
	    ib_map_set(a, m, "total", tps(a, t->total)) ||
	    ib_map_set(a, m, "duration_seconds", ib_v_float(a, dur)) ||
	    ib_map_set(a, m, "per_gpu", ib_v_map(a)))
		return OOM(e);
	return 0;
}

/* _aiperf_percent_metric_as_rate; NULL value (None) as an IB_V_NULL. */
static ib_val *theoretical(ib_arena *a, const ib_val *aggregate)
{
	const ib_val *m = ib_map_get(aggregate, "theoretical_prefix_cache_hit");
	if (!m || m->type != IB_V_MAP)
		return ib_v_null(a);
	double s, c, avg;
	if (res_ag_to_float(ib_map_get(m, "sum"), &s) &&
	    res_ag_to_float(ib_map_get(m, "count"), &c) && c > 0)
		return ib_v_float(a, s / c);
	if (!res_ag_to_float(ib_map_get(m, "avg"), &avg))
		return ib_v_null(a);
	ib_buf b = {0};
	const ib_val *u = ib_map_get(m, "unit");
	if (u)
		ib_val_pystr(&b, u);
	else
		ib_buf_puts(&b, "");
	size_t l;
	const char *s2 = pw_py_strip(b.data ? b.data : "", b.len, &l);
	bool pct = l == 1 && *s2 == '%';
	ib_buf_free(&b);
	return ib_v_float(a, pct ? avg / 100.0 : avg);
}

int res_ag_request_metrics(ib_arena *a, const res_ag_records *r, const ib_val *aggregate,
                           ib_val **out, res_ag_tput *t, ib_error *e)
{
	ib_val *m = ib_v_map(a), *lat = ib_v_map(a), *tok = ib_v_map(a), *cache = ib_v_map(a);
	if (!m || !lat || !tok || !cache)
		return OOM(e);
	ib_val *q = NULL, *tp = NULL;
	int rc = qps_stats(a, r, &q, e);
	if (rc)
		return rc;
	/* latency */
	ib_val *ttft = NULL, *e2el = NULL, *itl = NULL, *tpot = NULL, *iv = NULL, *en = NULL,
	       *fr = NULL, *friv = NULL;
	if (latency(a, r, "time_to_first_token", &ttft, NULL) ||
	    latency(a, r, "request_latency", &e2el, NULL) ||
	    latency(a, r, "inter_token_latency", &itl, &iv) ||
	    latency(a, r, "inter_token_latency", &tpot, NULL) || e2e_norm(a, r, &en) ||
	    latency(a, r, "full_response_inter_token_latency", &fr, &friv))
		return OOM(e);
	if (ib_map_set(a, lat, "ttft", ttft) || ib_map_set(a, lat, "e2el", e2el) ||
	    ib_map_set(a, lat, "itl", itl) || ib_map_set(a, lat, "tpot", tpot) ||
	    ib_map_set(a, lat, "intvty", iv) || ib_map_set(a, lat, "e2e_norm_intvty", en) ||
	    ib_map_set(a, lat, "full_response_itl", fr) ||
	    ib_map_set(a, lat, "full_response_intvty", friv))
		return OOM(e);
	/* tokens */
	size_t ni, no, nx = 0;
	int64_t *in = res_ag_record_ints(r, "input_sequence_length", &ni);
	int64_t *on = res_ag_record_ints(r, "output_sequence_length", &no);
	int64_t *ex = NULL;
	if (!in || !on) {
		free(in);
		free(on);
		return OOM(e);
	}
	rc = res_ag_expected_outputs(a, r, &ex, &nx, e);
	if (!rc && (ib_map_set(a, tok, "input", int_dist(a, in, ni)) ||
	            ib_map_set(a, tok, "output_actual", int_dist(a, on, no)) ||
	            ib_map_set(a, tok, "output_expected", int_dist(a, ex, nx))))
		rc = OOM(e);
	free(in);
	free(on);
	free(ex);
	if (rc)
		return rc;
	if ((rc = throughput(a, r, &tp, t, e)))
		return rc;
	if (ib_map_set(a, cache, "theoretical_cache_hit_rate", theoretical(a, aggregate)) ||
	    ib_map_set(a, m, "qps", q) || ib_map_set(a, m, "latency", lat) ||
	    ib_map_set(a, m, "tokens", tok) || ib_map_set(a, m, "throughput", tp) ||
	    ib_map_set(a, m, "cache", cache))
		return OOM(e);
	*out = m;
	return 0;
}
