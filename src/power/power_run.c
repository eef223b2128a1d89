/* aggregate_power.run: the accumulator cross-check, the agg patch, the
 * validation sidecar and the summary lines (docs/power.md). */
#define _GNU_SOURCE /* strcasestr */
#include "power/private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ACC_TOLERANCE 0.05
#define OOM(e)        ib_fail((e), IB_ENOMEM, "", 0, 0, "out of memory")

const char *const pw_metric_names[7] = {"avg_power_w",
                                        "avg_total_gpu_power_w",
                                        "total_gpu_energy_j",
                                        "joules_per_successful_query",
                                        "joules_per_input_token",
                                        "joules_per_output_token",
                                        "joules_per_total_token"};

int pw_patch_agg(const char *path, const char *const *drop, size_t ndrop, bool valid,
                 const char *const *names, const double *vals, size_t n, char *msg, size_t cap,
                 ib_error *e)
{
	ib_arena *a = ib_arena_new();
	if (!a)
		return OOM(e);
	ib_val *v;
	ib_error pe = {0};
	int rc = ib_json_parse_file(a, path, &v, &pe);
	if (rc) {
		char m[2600];
		ib_error_format(&pe, m, sizeof m);
		snprintf(msg, cap, "%s", m);
		ib_arena_free(a);
		return 1;
	}
	if (v->type != IB_V_MAP) {
		rc = ib_fail(e, IB_EINVAL, path, 0, 0,
		             "the agg row is a JSON %s, not an object (the reference crashes)",
		             ib_vtype_pyname(v));
		ib_arena_free(a);
		return rc;
	}
	for (size_t i = 0; i < ndrop; i++)
		ib_map_del(v, drop[i]);
	ib_val *ver = ib_v_int(a, 2), *pv = ib_v_int(a, valid ? 1 : 0);
	if (!ver || !pv || ib_map_set(a, v, "power_metric_schema_version", ver) ||
	    ib_map_set(a, v, "power_valid", pv)) {
		ib_arena_free(a);
		return OOM(e);
	}
	ib_map_del(v, "power_invalid_reasons");
	for (size_t i = 0; valid && i < n; i++) {
		if (!isfinite(vals[i])) {
			snprintf(msg, cap, "non-finite power metric: %s", names[i]);
			ib_arena_free(a);
			return 1;
		}
		size_t l = strlen(names[i]);
		bool three =
		    l >= 2 && (!strcmp(names[i] + l - 2, "_w") || !strcmp(names[i] + l - 2, "_j"));
		ib_val *x = ib_v_float(a, pw_py_round(vals[i], three ? 3 : 6));
		if (!x || ib_map_set(a, v, names[i], x)) {
			ib_arena_free(a);
			return OOM(e);
		}
	}
	ib_error we = {0};
	rc = pw_write_json(path, v, &we);
	ib_arena_free(a);
	if (rc == IB_ENOMEM)
		return OOM(e);
	if (rc) {
		char m[2600];
		ib_error_format(&we, m, sizeof m);
		snprintf(msg, cap, "%s", m);
		return 1;
	}
	return 0;
}

/* ---- the AMD energy-accumulator cross-check (advisory) ---- */

typedef struct {
	const char **id;
	double *j;
	size_t n;
} snap;

/* _read_energy_snapshot: false when unparseable (None). */
static bool read_snapshot(ib_arena *a, const char *path, snap *s, bool *err)
{
	memset(s, 0, sizeof *s);
	ib_buf b = {0};
	ib_error e;
	if (ib_read_file(path, &b, &e)) {
		*err = true;
		return false;
	}
	pw_csv c;
	int rc = pw_csv_parse(a, b.data ? b.data : "", b.len, true, true, NULL, &c);
	ib_buf_free(&b);
	if (rc || (c.error && c.n == 0)) {
		*err = true;
		pw_csv_free(&c);
		return false;
	}
	size_t nh = c.n ? c.rows[0].n : 0;
	const char **names = ib_arena_alloc(a, (nh + 1) * sizeof *names);
	s->id = ib_arena_alloc(a, (c.n + 1) * sizeof *s->id);
	s->j = ib_arena_alloc(a, (c.n + 1) * sizeof *s->j);
	if (!names || !s->id || !s->j) {
		pw_csv_free(&c);
		*err = true;
		return false;
	}
	for (size_t i = 0; i < nh; i++) {
		size_t l;
		const char *x = pw_py_strip(c.rows[0].f[i], c.rows[0].len[i], &l);
		names[i] = ib_arena_strndup(a, x, l);
	}
	int gc = pw_csv_col(names, nh, "gpu"),
	    ec = pw_csv_col(names, nh, "total_energy_consumption");
	if (gc < 0 || ec < 0) {
		pw_csv_free(&c);
		return false;
	}
	for (size_t i = 1; i < c.n; i++) {
		const pw_csv_row *row = &c.rows[i];
		if (!row->n)
			continue;
		size_t gl = 0, el = 0;
		const char *g =
		    (size_t)gc < row->n ? pw_py_strip(row->f[gc], row->len[gc], &gl) : "";
		const char *x =
		    (size_t)ec < row->n ? pw_py_strip(row->f[ec], row->len[ec], &el) : "";
		double d;
		if (!gl || !ib_py_float(x, el, &d) || !isfinite(d))
			continue;
		char *id = ib_arena_strndup(a, g, gl);
		size_t k = 0;
		while (k < s->n && strcmp(s->id[k], id))
			k++;
		if (k == s->n)
			s->id[s->n++] = id;
		s->j[k] = d;
	}
	if (c.error)
		*err = true;
	pw_csv_free(&c);
	return s->n > 0;
}

static int find_id(const snap *s, const char *id)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->id[i], id))
			return (int)i;
	return -1;
}

static int cmp_gpu(const void *x, const void *y)
{
	return pw_gpu_cmp(*(const char *const *)x, *(const char *const *)y);
}

typedef struct {
	double t, p;
} tp;

static int cmp_tp(const void *x, const void *y)
{
	const tp *a = x, *b = y;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return (a->p > b->p) - (a->p < b->p);
}

static ib_val *unavailable(ib_arena *a, const char *why)
{
	ib_val *m = ib_v_map(a);
	if (m && (ib_map_set(a, m, "available", ib_v_bool(a, false)) ||
	          ib_map_set(a, m, "reason", ib_v_str(a, why))))
		return NULL;
	return m;
}

/* cross_check_accumulator: *out is null (no snapshots) or the check object. */
static int cross_check(ib_arena *a, const char *csv_path, ib_val **out)
{
	char *stem = pw_path_stem(a, csv_path);
	char *sp = pw_path_with_name(a, csv_path, ib_arena_printf(a, "%s_energy_start.csv", stem));
	char *ep = pw_path_with_name(a, csv_path, ib_arena_printf(a, "%s_energy_end.csv", stem));
	if (!sp || !ep)
		return IB_ENOMEM;
	bool hs = pw_is_file(sp), he = pw_is_file(ep), err = false;
	if (!hs && !he) {
		*out = ib_v_null(a);
		return *out ? 0 : IB_ENOMEM;
	}
	if (!hs || !he) {
		*out = unavailable(a, hs ? "missing_end_snapshot" : "missing_start_snapshot");
		return *out ? 0 : IB_ENOMEM;
	}
	snap s0, s1;
	bool ok0 = read_snapshot(a, sp, &s0, &err);
	if (err) {
		*out = unavailable(a, "cross_check_error");
		return *out ? 0 : IB_ENOMEM;
	}
	if (!ok0) {
		*out = unavailable(a, "unparseable_start_snapshot");
		return *out ? 0 : IB_ENOMEM;
	}
	bool ok1 = read_snapshot(a, ep, &s1, &err);
	if (err) {
		*out = unavailable(a, "cross_check_error");
		return *out ? 0 : IB_ENOMEM;
	}
	if (!ok1) {
		*out = unavailable(a, "unparseable_end_snapshot");
		return *out ? 0 : IB_ENOMEM;
	}
	const char **matched = ib_arena_alloc(a, (s0.n + 1) * sizeof *matched);
	const char **unmatched = ib_arena_alloc(a, (s0.n + s1.n + 1) * sizeof *unmatched);
	if (!matched || !unmatched)
		return IB_ENOMEM;
	size_t nm = 0, nu = 0;
	for (size_t i = 0; i < s0.n; i++)
		if (find_id(&s1, s0.id[i]) >= 0)
			matched[nm++] = s0.id[i];
		else
			unmatched[nu++] = s0.id[i];
	for (size_t i = 0; i < s1.n; i++)
		if (find_id(&s0, s1.id[i]) < 0)
			unmatched[nu++] = s1.id[i];
	qsort(matched, nm, sizeof *matched, cmp_gpu);
	qsort(unmatched, nu, sizeof *unmatched, cmp_gpu);
	double *delta = ib_arena_alloc(a, (nm + 1) * sizeof *delta);
	const char **neg = ib_arena_alloc(a, (nm + 1) * sizeof *neg);
	if (!delta || !neg)
		return IB_ENOMEM;
	size_t nn = 0;
	double acc = 0;
	for (size_t i = 0; i < nm; i++) {
		delta[i] = s1.j[find_id(&s1, matched[i])] - s0.j[find_id(&s0, matched[i])];
		acc += delta[i];
		if (delta[i] < 0)
			neg[nn++] = matched[i];
	}
	/* the whole stream, per GPU, without window clipping */
	ib_buf b = {0};
	ib_error e;
	if (ib_read_file(csv_path, &b, &e)) {
		*out = unavailable(a, "cross_check_error");
		return *out ? 0 : IB_ENOMEM;
	}
	pw_csv c;
	int rc = pw_csv_parse(a, b.data ? b.data : "", b.len, true, true, NULL, &c);
	ib_buf_free(&b);
	if (rc)
		return rc;
	if (c.error) {
		pw_csv_free(&c);
		*out = unavailable(a, "cross_check_error");
		return *out ? 0 : IB_ENOMEM;
	}
	size_t nh = c.n ? c.rows[0].n : 0;
	const char **names = ib_arena_alloc(a, (nh + 1) * sizeof *names);
	if (!names) {
		pw_csv_free(&c);
		return IB_ENOMEM;
	}
	for (size_t i = 0; i < nh; i++) {
		size_t l;
		const char *x = pw_py_strip(c.rows[0].f[i], c.rows[0].len[i], &l);
		names[i] = ib_arena_strndup(a, x, l);
	}
	int tc = -1, pc = -1, gc = -1;
	static const char *const idn[] = {"index", "gpu", "gpu_id", "gpu_index", "card", "device"};
	for (size_t i = 0; i < nh; i++) {
		const char *s = names[i];
		int col = pw_csv_col(names, nh, s);
		if (tc < 0 && strcasestr(s, "time"))
			tc = col;
		if (pc < 0 && strcasestr(s, "power") && !strcasestr(s, "limit") &&
		    !strcasestr(s, "cap") && !strcasestr(s, "max") && !strcasestr(s, "min"))
			pc = col;
		for (size_t k = 0; gc < 0 && k < 6; k++)
			if (!strcasecmp(s, idn[k]))
				gc = col;
	}
	const char **iid = ib_arena_alloc(a, (nm + 1) * sizeof *iid);
	if (!iid) {
		pw_csv_free(&c);
		return IB_ENOMEM;
	}
	size_t ni = 0;
	double integ = 0, lo = INFINITY, hi = -INFINITY;
	tp *v = malloc((c.n + 1) * sizeof *v);
	if (!v) {
		pw_csv_free(&c);
		return IB_ENOMEM;
	}
	for (size_t m = 0; tc >= 0 && pc >= 0 && gc >= 0 && m < nm; m++) {
		size_t nv = 0;
		for (size_t i = 1; i < c.n; i++) {
			const pw_csv_row *row = &c.rows[i];
			size_t tl = 0, pl = 0, gl = 0;
			const char *ts =
			    (size_t)tc < row->n ? pw_py_strip(row->f[tc], row->len[tc], &tl) : "";
			const char *ps =
			    (size_t)pc < row->n ? pw_py_strip(row->f[pc], row->len[pc], &pl) : "";
			const char *g =
			    (size_t)gc < row->n ? pw_py_strip(row->f[gc], row->len[gc], &gl) : "";
			double t, p;
			if (!row->n || gl != strlen(matched[m]) || memcmp(g, matched[m], gl))
				continue;
			if (!pw_parse_timestamp(ts, tl, &t) || !pw_parse_power(ps, pl, &p) ||
			    !isfinite(t) || !isfinite(p))
				continue;
			v[nv++] = (tp){t, p};
		}
		if (!nv)
			continue;
		qsort(v, nv, sizeof *v, cmp_tp);
		double s = 0;
		for (size_t k = 0; k + 1 < nv; k++)
			s += (v[k + 1].t - v[k].t) * (v[k].p + v[k + 1].p) / 2.0;
		integ += s;
		iid[ni++] = matched[m];
		if (v[0].t < lo)
			lo = v[0].t;
		if (v[nv - 1].t < lo)
			lo = v[nv - 1].t;
		if (v[0].t > hi)
			hi = v[0].t;
		if (v[nv - 1].t > hi)
			hi = v[nv - 1].t;
	}
	free(v);
	pw_csv_free(&c);
	ib_val *o = ib_v_map(a), *pd = ib_v_map(a);
	if (!o || !pd)
		return IB_ENOMEM;
	for (size_t i = 0; i < nm; i++)
		if (ib_map_set(a, pd, matched[i], ib_v_float(a, delta[i])))
			return IB_ENOMEM;
	ib_val *rel = ib_v_null(a);
	bool within = false;
	if (acc > 0) {
		double r = fabs(acc - integ) / acc;
		rel = ib_v_float(a, r);
		within = nn == 0 && r <= ACC_TOLERANCE;
	}
	if (ib_map_set(a, o, "available", ib_v_bool(a, true)) ||
	    ib_map_set(a, o, "accumulator_delta_j", ib_v_float(a, acc)) ||
	    ib_map_set(a, o, "integrated_stream_j", ib_v_float(a, integ)) ||
	    ib_map_set(a, o, "relative_error", rel) ||
	    ib_map_set(a, o, "within_tolerance", ib_v_bool(a, within)) ||
	    ib_map_set(a, o, "tolerance", ib_v_float(a, ACC_TOLERANCE)) ||
	    ib_map_set(a, o, "per_gpu_delta_j", pd) ||
	    ib_map_set(a, o, "integrated_gpu_ids", pw_str_list(a, iid, ni)) ||
	    ib_map_set(a, o, "unmatched_gpus", pw_str_list(a, unmatched, nu)) ||
	    ib_map_set(a, o, "negative_delta_gpus", pw_str_list(a, neg, nn)) ||
	    ib_map_set(a, o, "stream_span_s", ib_v_float(a, ni ? hi - lo : 0.0)))
		return IB_ENOMEM;
	*out = o;
	return 0;
}

/* ---- the sidecar ---- */

ib_val *pw_window_val(ib_arena *a, const pw_bench *b)
{
	if (!b->ok)
		return ib_v_null(a);
	ib_val *w = ib_v_map(a);
	if (!w || ib_map_set(a, w, "start_time_unix", ib_v_float(a, b->start)) ||
	    ib_map_set(a, w, "end_time_unix", ib_v_float(a, b->end)) ||
	    ib_map_set(a, w, "reported_duration_s", ib_v_float(a, b->duration)) ||
	    ib_map_set(a, w, "integration_duration_s", ib_v_float(a, b->end - b->start)) ||
	    ib_map_set(a, w, "completed", ib_v_int(a, b->completed)) ||
	    ib_map_set(a, w, "total_input_tokens", ib_v_int(a, b->in)) ||
	    ib_map_set(a, w, "total_output_tokens", ib_v_int(a, b->out)))
		return NULL;
	return w;
}

ib_val *pw_sidecar(ib_arena *a, const pw_opts *o, const char *csv, const char *bench,
                   const pw_bench *b, const pw_integ *in, bool valid, const pw_reasons *r,
                   const double *mv, size_t nmv, ib_val *acc)
{
	ib_val *m = ib_v_map(a), *rs = ib_v_list(a), *ids = ib_v_list(a), *cnt = ib_v_map(a),
	       *gap = ib_v_map(a), *en = ib_v_map(a), *iss = ib_v_map(a), *met = ib_v_map(a);
	if (!m || !rs || !ids || !cnt || !gap || !en || !iss || !met)
		return NULL;
	for (size_t i = 0; i < r->n; i++)
		if (ib_list_push(a, rs, ib_v_str(a, r->v[i])))
			return NULL;
	for (size_t i = 0; i < in->n; i++) {
		const pw_dev *d = &in->dev[i];
		const char *id = in->ids[i];
		if (ib_list_push(a, ids, ib_v_str(a, id)) ||
		    ib_map_set(a, cnt, id, ib_v_int(a, (int64_t)d->count)))
			return NULL;
		if (d->has_energy && (ib_map_set(a, gap, id, ib_v_float(a, d->max_gap)) ||
		                      ib_map_set(a, en, id, ib_v_float(a, d->energy))))
			return NULL;
		if (d->issue) {
			ib_val *l = ib_v_list(a);
			if (!l || ib_list_push(a, l, ib_v_str(a, d->issue)) ||
			    ib_map_set(a, iss, id, l))
				return NULL;
		}
	}
	for (size_t i = 0; i < nmv; i++)
		if (isfinite(mv[i]) &&
		    ib_map_set(a, met, pw_metric_names[i], ib_v_float(a, pw_py_round(mv[i], 6))))
			return NULL;
	if (ib_map_set(a, m, "schema_version", ib_v_int(a, 1)) ||
	    ib_map_set(a, m, "power_valid", ib_v_bool(a, valid)) ||
	    ib_map_set(a, m, "reasons", rs) ||
	    ib_map_set(a, m, "telemetry_source", ib_v_str(a, csv)) ||
	    ib_map_set(a, m, "benchmark_result", ib_v_str(a, bench)) ||
	    ib_map_set(a, m, "benchmark_window", pw_window_val(a, b)) ||
	    ib_map_set(a, m, "integration_method",
	               ib_v_str(a, "per_device_trapezoidal_with_linear_boundary_interpolation")) ||
	    ib_map_set(a, m, "expected_gpu_count",
	               o->has_expected ? ib_v_int(a, o->expected_num_gpus) : ib_v_null(a)) ||
	    ib_map_set(a, m, "observed_gpu_count", ib_v_int(a, (int64_t)in->n)) ||
	    ib_map_set(a, m, "observed_gpu_ids", ids) ||
	    ib_map_set(a, m, "per_gpu_sample_counts", cnt) ||
	    ib_map_set(a, m, "per_gpu_max_sample_gap_s", gap) ||
	    ib_map_set(a, m, "per_gpu_energy_j", en) || ib_map_set(a, m, "device_issues", iss) ||
	    ib_map_set(a, m, "accumulator_check", acc) || ib_map_set(a, m, "metrics", met))
		return NULL;
	return m;
}

int pw_run(const pw_opts *o, int *status, ib_error *e)
{
	*status = 0;
	ib_arena *a = ib_arena_new();
	if (!a)
		return OOM(e);
	int rc = 0;
	const char *csv = pw_py_path(a, o->csv_path), *bench = pw_py_path(a, o->bench_path),
	           *agg = pw_py_path(a, o->agg_path);
	const char *val = o->validation_path ? pw_py_path(a, o->validation_path) : NULL;
	if (!csv || !bench || !agg)
		goto oom;
	if (!val) {
		char *stem = pw_path_stem(a, bench);
		val = stem ? pw_path_with_name(a, bench,
		                               ib_arena_printf(a, "power_validation_%s.json", stem))
		           : NULL;
		if (!val)
			goto oom;
	}
	pw_reasons r = {0};
	pw_bench b;
	if ((rc = pw_load_bench(a, bench, &b, &r, e)))
		goto done;
	pw_integ in = {0};
	if (b.ok && (rc = pw_integrate_csv(a, csv, b.start, b.end, o->has_expected,
	                                   o->expected_num_gpus, &in, &r, o->log, o->log_ud)))
		goto oom;
	bool valid = r.n == 0;
	double mv[7];
	size_t nmv = 0;
	if (valid && b.ok) {
		double en = in.total;
		mv[0] = in.avg, mv[1] = in.avg_total, mv[2] = en;
		mv[3] = en / (double)b.completed, mv[4] = en / (double)b.in,
		mv[5] = en / (double)b.out;
		mv[6] = en / ((double)(b.in + b.out));
		nmv = 7;
	}
	if (!pw_is_file(agg)) {
		pw_reason(&r, "aggregate_result_missing");
		valid = false, nmv = 0;
	} else {
		char msg[3000] = "";
		int pr = pw_patch_agg(agg, pw_metric_names, 7, valid, pw_metric_names, mv, nmv, msg,
		                      sizeof msg, e);
		if (pr < 0) {
			rc = pr;
			goto done;
		}
		if (pr == 1) {
			pw_reason(&r, "aggregate_result_unwritable");
			valid = false, nmv = 0;
			pw_logf(o->log, o->log_ud, 2, "[aggregate_power] Failed to patch %s: %s",
			        agg, msg);
		}
	}
	ib_val *acc;
	if (cross_check(a, csv, &acc))
		goto oom;
	ib_val *side = pw_sidecar(a, o, csv, bench, &b, &in, valid, &r, mv, nmv, acc);
	if (!side)
		goto oom;
	ib_error we = {0};
	if (pw_write_json(val, side, &we)) {
		char m[2600];
		ib_error_format(&we, m, sizeof m);
		pw_logf(o->log, o->log_ud, 2,
		        "[aggregate_power] Failed to write validation artifact %s: %s", val, m);
		*status = o->require_power ? 1 : 0;
		goto done;
	}
	if (!valid) {
		pw_log_invalid(o->log, o->log_ud, "[aggregate_power]", &r, val);
		*status = o->require_power ? 1 : 0;
		goto done;
	}
	pw_logf(o->log, o->log_ud, 1,
	        "[aggregate_power] avg_power_w=%.2f avg_total_gpu_power_w=%.2f "
	        "total_gpu_energy_j=%.2f (n=%zu) -> %s",
	        mv[0], mv[1], mv[2], in.n, agg);
	goto done;
oom:
	rc = OOM(e);
done:
	ib_arena_free(a);
	return rc;
}
