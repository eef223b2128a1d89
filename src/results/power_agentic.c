/* The AgentX power adapter (utils/agentic/aggregation/power_adapter.py):
 * aiperf's profile window and successful requests become the strict power
 * window that aggregate_power.run (pw_run) validates GPU telemetry
 * against (docs/agentic.md). A file of its own, so that it moves with the
 * power code. */
#include "results/agentic_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define OOM(e) ib_fail((e), IB_ENOMEM, "", 0, 0, "out of memory")

/* _captured_timezone: the offset in microseconds, or the reason. */
static const char *captured_tz(ib_arena *a, const char *result_dir, long long *off_us)
{
	char *p = ib_arena_printf(a, "%s/agentic_power_timezone_offset.txt", result_dir);
	if (!p || !pw_is_file(p))
		return "profile_timezone_offset_missing";
	ib_buf b = {0};
	ib_error ig;
	if (ib_read_file(p, &b, &ig)) {
		ib_buf_free(&b);
		return "profile_timezone_offset_invalid";
	}
	size_t n;
	const char *s = pw_py_strip(b.data ? b.data : "", b.len, &n);
	/* ^([+-])(\d{2}):?(\d{2})$ */
	const char *why = "profile_timezone_offset_invalid";
	bool colon = n == 6 && s[3] == ':';
	if ((n == 5 || colon) && (s[0] == '+' || s[0] == '-')) {
		const char *h = s + 1, *m = s + (colon ? 4 : 3);
		bool dig = h[0] >= '0' && h[0] <= '9' && h[1] >= '0' && h[1] <= '9' &&
		           m[0] >= '0' && m[0] <= '9' && m[1] >= '0' && m[1] <= '9';
		int hh = (h[0] - '0') * 10 + (h[1] - '0'), mm = (m[0] - '0') * 10 + (m[1] - '0');
		if (dig && hh <= 23 && mm <= 59) {
			*off_us = (s[0] == '-' ? -1 : 1) * (hh * 3600LL + mm * 60LL) * 1000000LL;
			why = NULL;
		}
	}
	ib_buf_free(&b);
	return why;
}

/* datetime.fromisoformat(value.strip().replace("Z", "+00:00")) */
static bool iso(const ib_val *v, bool *aware, long long *us)
{
	size_t n;
	const char *s = pw_py_strip(v->str.s, v->str.len, &n);
	return pw_py_fromiso(s, n, aware, us);
}

/* _parse_profile_timestamp: false for None. */
static bool profile_ts(const ib_val *v, bool has_tz, long long tz_us, double *out)
{
	if (!v || v->type == IB_V_BOOL)
		return false;
	if (v->type == IB_V_INT || v->type == IB_V_FLOAT) {
		*out = v->type == IB_V_INT ? (double)v->i : v->f;
		return isfinite(*out);
	}
	if (v->type != IB_V_STR)
		return false;
	size_t n;
	pw_py_strip(v->str.s, v->str.len, &n);
	bool aware;
	long long us;
	if (!n || !iso(v, &aware, &us))
		return false;
	if (!aware) {
		if (!has_tz)
			return false;
		us -= tz_us;
	}
	*out = (double)us / 1e6;
	return true;
}

typedef struct {
	double start, end;
	int64_t completed, in, out;
} window;

/* build_power_window: NULL with *w set, or the reason code. */
static const char *build_window(ib_arena *a, const char *result_dir, window *w)
{
	char *dir = res_ag_artifact_dir(a, result_dir);
	char *ap = dir ? ib_arena_printf(a, "%s/profile_export_aiperf.json", dir) : NULL;
	char *rp = dir ? ib_arena_printf(a, "%s/profile_export.jsonl", dir) : NULL;
	if (!ap || !rp || !pw_is_file(ap) || !pw_is_file(rp))
		return "profile_artifacts_missing";
	ib_val *agg;
	res_ag_records r;
	ib_error ig;
	if (ib_json_parse_file(a, ap, &agg, &ig) || agg->type != IB_V_MAP ||
	    res_ag_load_records(a, rp, &r, &ig))
		return "profile_artifacts_invalid";
	const ib_val *rs = ib_map_get(agg, "start_time"), *re = ib_map_get(agg, "end_time");
	if (!rs || !re || rs->type == IB_V_NULL || re->type == IB_V_NULL)
		return "profile_window_missing";
	bool naive = false, aware;
	long long us;
	if (rs->type == IB_V_STR && iso(rs, &aware, &us))
		naive |= !aware;
	if (re->type == IB_V_STR && iso(re, &aware, &us))
		naive |= !aware;
	long long tz = 0;
	if (naive) {
		const char *why = captured_tz(a, result_dir, &tz);
		if (why)
			return why;
	}
	if (!profile_ts(rs, naive, tz, &w->start) || !profile_ts(re, naive, tz, &w->end) ||
	    w->end <= w->start)
		return "profile_window_invalid";
	w->completed = (int64_t)r.n;
	if (w->completed <= 0)
		return "successful_request_count_invalid";
	size_t ni, no;
	int64_t *in = res_ag_record_ints(&r, "input_sequence_length", &ni);
	int64_t *on = res_ag_record_ints(&r, "output_sequence_length", &no);
	bool bad = !in || !on || ni != r.n || no != r.n;
	w->in = w->out = 0;
	for (size_t i = 0; !bad && i < r.n; i++) {
		bad |= in[i] < 0 || on[i] < 0;
		w->in += in[i], w->out += on[i];
	}
	free(in);
	free(on);
	if (bad || w->in <= 0 || w->out <= 0)
		return "incomplete_token_accounting";
	return NULL;
}

/* _record_adapter_failure, then the failure line; *status as the
 * reference returns. */
static int adapter_failure(ib_arena *a, const res_agentic_power_opts *o, const char *csv,
                           const char *wpath, const char *vpath, const char *reason, int *status,
                           ib_error *e)
{
	pw_reasons r = {0};
	pw_reason(&r, reason);
	char msg[3000] = "";
	int pr =
	    pw_patch_agg(o->agg_path, pw_metric_names, 7, false, NULL, NULL, 0, msg, sizeof msg, e);
	if (pr < 0)
		return pr;
	if (pr == 1) {
		pw_logf(o->log, o->log_ud, 2, "[agentx_power] Failed to record adapter failure: %s",
		        msg);
	} else {
		pw_opts po = {.has_expected = o->has_expected,
		              .expected_num_gpus = o->expected_num_gpus};
		pw_bench b = {0};
		pw_integ in = {0};
		ib_val *side =
		    pw_sidecar(a, &po, csv, wpath, &b, &in, false, &r, NULL, 0, ib_v_null(a));
		if (!side ||
		    ib_map_set(a, side, "window_source", ib_v_str(a, "aiperf_profile_lifecycle")))
			return OOM(e);
		ib_error we = {0};
		int rc = pw_write_json(vpath, side, &we);
		if (rc == IB_ENOMEM)
			return OOM(e);
		if (rc) {
			char m[2600];
			ib_error_format(&we, m, sizeof m);
			pw_logf(o->log, o->log_ud, 2,
			        "[agentx_power] Failed to record adapter failure: %s", m);
		}
	}
	pw_logf(o->log, o->log_ud, 2, "[agentx_power] Power-window adaptation failed: %s", reason);
	*status = o->require_power ? 1 : 0;
	return 0;
}

int res_agentic_power(const res_agentic_power_opts *o, int *status, ib_error *e)
{
	*status = 0;
	ib_arena *a = ib_arena_new();
	if (!a)
		return OOM(e);
	int rc = 0;
	const char *rd = o->result_dir;
	char *csv = ib_arena_printf(a, "%s/gpu_metrics.csv", rd);
	char *wpath = ib_arena_printf(a, "%s/agentic_power_window.json", rd);
	char *vpath = ib_arena_printf(a, "%s/power_validation.json", rd);
	if (!csv || !wpath || !vpath || !(csv = pw_py_path(a, csv)) ||
	    !(wpath = pw_py_path(a, wpath)) || !(vpath = pw_py_path(a, vpath)))
		goto oom;
	window w;
	const char *why = build_window(a, rd, &w);
	if (why) {
		rc = adapter_failure(a, o, csv, wpath, vpath, why, status, e);
		goto done;
	}
	ib_val *m = ib_v_map(a);
	if (!m || ib_map_set(a, m, "benchmark_start_time_unix", ib_v_float(a, w.start)) ||
	    ib_map_set(a, m, "benchmark_end_time_unix", ib_v_float(a, w.end)) ||
	    ib_map_set(a, m, "duration", ib_v_float(a, w.end - w.start)) ||
	    ib_map_set(a, m, "completed", ib_v_int(a, w.completed)) ||
	    ib_map_set(a, m, "total_input_tokens", ib_v_int(a, w.in)) ||
	    ib_map_set(a, m, "total_output_tokens", ib_v_int(a, w.out)))
		goto oom;
	ib_error we = {0};
	if ((rc = pw_write_json(wpath, m, &we))) {
		if (rc == IB_ENOMEM)
			goto oom;
		rc = adapter_failure(a, o, csv, wpath, vpath, "power_window_unwritable", status, e);
		goto done;
	}
	pw_opts po = {.csv_path = csv,
	              .bench_path = wpath,
	              .agg_path = o->agg_path,
	              .validation_path = vpath,
	              .has_expected = o->has_expected,
	              .expected_num_gpus = o->expected_num_gpus,
	              .require_power = o->require_power,
	              .log = o->log,
	              .log_ud = o->log_ud};
	rc = pw_run(&po, status, e);
	goto done;
oom:
	rc = OOM(e);
done:
	ib_arena_free(a);
	return rc;
}
