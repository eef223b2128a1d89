/* The replay's artifacts, as aiperf (SemiAnalysis fork, scenario
 * inferencex-agentx-mvp) writes them and InferenceX's utils/agentic reads
 * them: aiperf_artifacts/profile_export.jsonl (one record per request, in
 * completion order), aiperf_artifacts/profile_export_aiperf.json (the
 * aggregate), and the env file of the processing (docs/agentx.md). */
#include "agentx/replay_priv.h"
#include "bench/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- profile_export.jsonl ---- */

/* "<trace>", or "<trace>::sa:<agent>" for a subagent's request */
static void conv_id(ib_buf *b, const ax_rec *x)
{
	char id[512];
	const char *ag = x->subagent ? x->trace->entries[x->entry].s.agent_id : NULL;
	if (!x->subagent)
		snprintf(id, sizeof id, "%s", x->trace->id);
	else if (ag)
		snprintf(id, sizeof id, "%s::sa:%s", x->trace->id, ag);
	else
		snprintf(id, sizeof id, "%s::sa:entry-%zu", x->trace->id, x->entry);
	ib_json_write_str(b, id, strlen(id), true);
}

static void metric(ib_buf *b, bool *first, const char *name, double v, const char *unit,
                   bool integer)
{
	ib_buf_printf(b, "%s\"%s\":{\"value\":", *first ? "" : ",", name);
	if (integer)
		ib_buf_printf(b, "%lld", (long long)v);
	else
		ib_buf_printf(b, "%.6f", v);
	ib_buf_printf(b, ",\"unit\":\"%s\"}", unit);
	*first = false;
}

static void record(ib_buf *b, const ax_rec *x)
{
	ib_buf_printf(b,
	              "{\"metadata\":{\"session_num\":%llu,\"x_request_id\":\"agentx-%llu\","
	              "\"x_correlation_id\":\"%s-r%llu\",\"conversation_id\":",
	              (unsigned long long)x->replay, (unsigned long long)x->id, x->trace->id,
	              (unsigned long long)x->replay);
	conv_id(b, x);
	ib_buf_printf(b,
	              ",\"turn_index\":%zu,\"request_start_ns\":%lld,\"request_ack_ns\":%lld,"
	              "\"request_end_ns\":%lld,\"worker_id\":\"worker_0\","
	              "\"record_processor_id\":\"record_processor_0\",\"benchmark_phase\":\"%s\","
	              "\"was_cancelled\":false,\"cancellation_time_ns\":null},\"metrics\":{",
	              x->turn, (long long)x->start_ns, (long long)x->ack_ns, (long long)x->end_ns,
	              x->warmup ? "warmup" : "profiling");
	bool first = true;
	if (!x->ok) {
		metric(b, &first, "error_isl", (double)x->isl, "tokens", true);
		ib_buf_puts(b, "},\"error\":{\"code\":");
		if (x->code)
			ib_buf_printf(b, "%d", x->code);
		else
			ib_buf_puts(b, "null");
		ib_buf_puts(b, ",\"type\":");
		ib_json_write_str(b, x->etype, strlen(x->etype), true);
		ib_buf_puts(b, ",\"message\":");
		ib_json_write_str(b, x->emsg, strlen(x->emsg), true);
		ib_buf_puts(b, "}}\n");
		return;
	}
	metric(b, &first, "time_to_first_token", x->ttft_ms, "ms", false);
	metric(b, &first, "request_latency", x->latency_ms, "ms", false);
	if (x->osl > 1) {
		double itl = (x->latency_ms - x->ttft_ms) / (double)(x->osl - 1);
		metric(b, &first, "inter_token_latency", itl, "ms", false);
		if (itl > 0)
			metric(b, &first, "output_token_throughput_per_user", 1e3 / itl,
			       "tokens/sec/user", false);
	}
	metric(b, &first, "input_sequence_length", (double)x->isl, "tokens", true);
	metric(b, &first, "output_sequence_length", (double)x->osl, "tokens", true);
	metric(b, &first, "output_token_count", (double)x->osl, "tokens", true);
	ib_buf_puts(b, "},\"error\":null}\n");
}

/* ---- the aggregate ---- */

static ib_val *dist(ib_arena *a, const char *tag, const char *header, const char *unit, double *v,
                    size_t n)
{
	ib_val *m = ib_v_map(a);
	ib_map_set(a, m, "tag", ib_v_str(a, tag));
	ib_map_set(a, m, "header", ib_v_str(a, header));
	ib_map_set(a, m, "unit", ib_v_str(a, unit));
	if (!n)
		return m;
	ib_map_set(a, m, "avg", ib_v_float(a, bench_mean(v, n)));
	double sd = bench_std(v, n);
	static const int ps[] = {1, 5, 25, 50, 75, 90, 95, 99};
	double pv[8];
	for (size_t i = 0; i < 8; i++)
		pv[i] = bench_percentile(v, n, ps[i]); /* sorts v */
	ib_map_set(a, m, "min", ib_v_float(a, v[0]));
	ib_map_set(a, m, "max", ib_v_float(a, v[n - 1]));
	for (size_t i = 0; i < 8; i++) {
		char k[8];
		snprintf(k, sizeof k, "p%d", ps[i]);
		ib_map_set(a, m, ib_arena_strdup(a, k), ib_v_float(a, pv[i]));
	}
	ib_map_set(a, m, "std", ib_v_float(a, sd));
	return m;
}

static ib_val *scalar(ib_arena *a, const char *tag, const char *header, const char *unit,
                      ib_val *avg)
{
	ib_val *m = ib_v_map(a);
	ib_map_set(a, m, "tag", ib_v_str(a, tag));
	ib_map_set(a, m, "header", ib_v_str(a, header));
	ib_map_set(a, m, "unit", ib_v_str(a, unit));
	ib_map_set(a, m, "avg", avg);
	return m;
}

/* naive local ISO time with microseconds, as aiperf's datetime.isoformat() */
static ib_val *iso(ib_arena *a, double unix)
{
	time_t s = (time_t)floor(unix);
	struct tm tm;
	localtime_r(&s, &tm);
	char buf[64];
	int us = (int)((unix - floor(unix)) * 1e6);
	snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06d", tm.tm_year + 1900,
	         tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, us);
	return ib_v_str(a, buf);
}

static ib_val *error_summary(ib_arena *a, const ax_art *t)
{
	ib_val *l = ib_v_list(a);
	for (size_t i = 0; i < t->n; i++) {
		const ax_rec *x = &t->rec[i];
		if (x->ok || x->warmup)
			continue;
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++) {
			const ax_rec *y = &t->rec[k];
			seen = !y->ok && !y->warmup && y->code == x->code &&
			       !strcmp(y->etype, x->etype) && !strcmp(y->emsg, x->emsg);
		}
		if (seen)
			continue;
		int64_t count = 0;
		for (size_t k = i; k < t->n; k++) {
			const ax_rec *y = &t->rec[k];
			count += !y->ok && !y->warmup && y->code == x->code &&
			         !strcmp(y->etype, x->etype) && !strcmp(y->emsg, x->emsg);
		}
		ib_val *d = ib_v_map(a), *m = ib_v_map(a);
		ib_map_set(a, d, "code", x->code ? ib_v_int(a, x->code) : ib_v_null(a));
		ib_map_set(a, d, "message", ib_v_str(a, x->emsg));
		ib_map_set(a, d, "type", ib_v_str(a, x->etype));
		ib_map_set(a, m, "error_details", d);
		ib_map_set(a, m, "count", ib_v_int(a, count));
		ib_list_push(a, l, m);
	}
	return l;
}

static int aggregate(ib_arena *a, const ax_art *t, ib_val **out)
{
	size_t n = t->n;
	double *v[5];
	for (int i = 0; i < 5; i++)
		if (!(v[i] = calloc(n + 1, sizeof *v[i]))) {
			for (int k = 0; k < i; k++)
				free(v[k]);
			return IB_ENOMEM;
		}
	size_t ok = 0, nitl = 0, errors = 0;
	double hit = 0, in = 0, first = INFINITY, last = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		const ax_rec *x = &t->rec[i];
		if (x->warmup)
			continue;
		if (!x->ok) {
			errors++;
			continue;
		}
		v[0][ok] = x->latency_ms, v[1][ok] = x->ttft_ms;
		v[3][ok] = (double)x->isl, v[4][ok] = (double)x->osl;
		if (x->osl > 1)
			v[2][nitl++] = (x->latency_ms - x->ttft_ms) / (double)(x->osl - 1);
		hit += (double)(x->hit_tokens < x->isl ? x->hit_tokens : x->isl);
		in += (double)x->isl;
		first = fmin(first, (double)x->start_ns * 1e-9);
		last = fmax(last, (double)x->end_ns * 1e-9);
		ok++;
	}
	double dur = t->end_unix - t->start_unix;
	ib_val *m = ib_v_map(a);
	ib_map_set(a, m, "request_throughput",
	           scalar(a, "request_throughput", "Request Throughput", "requests/sec",
	                  ib_v_float(a, dur > 0 ? (double)ok / dur : 0)));
	ib_map_set(a, m, "request_latency",
	           dist(a, "request_latency", "Request Latency", "ms", v[0], ok));
	ib_map_set(a, m, "time_to_first_token",
	           dist(a, "time_to_first_token", "Time to First Token", "ms", v[1], ok));
	ib_map_set(a, m, "inter_token_latency",
	           dist(a, "inter_token_latency", "Inter Token Latency", "ms", v[2], nitl));
	ib_map_set(a, m, "input_sequence_length",
	           dist(a, "input_sequence_length", "Input Sequence Length", "tokens", v[3], ok));
	ib_map_set(a, m, "output_sequence_length",
	           dist(a, "output_sequence_length", "Output Sequence Length", "tokens", v[4], ok));
	ib_map_set(
	    a, m, "request_count",
	    scalar(a, "request_count", "Request Count", "requests", ib_v_int(a, (int64_t)ok)));
	ib_map_set(a, m, "error_request_count",
	           scalar(a, "error_request_count", "Error Request Count", "requests",
	                  ib_v_int(a, (int64_t)errors)));
	ib_map_set(a, m, "completed_request_count",
	           scalar(a, "completed_request_count", "Completed Requests (Success + Error)",
	                  "requests", ib_v_int(a, (int64_t)(ok + errors))));
	ib_val *tp = scalar(a, "theoretical_prefix_cache_hit", "Theoretical Prefix Cache Hit", "%",
	                    ib_v_float(a, in > 0 ? 100 * hit / in : 0));
	ib_map_set(a, tp, "sum", ib_v_int(a, (int64_t)hit));
	ib_map_set(a, tp, "count", ib_v_int(a, (int64_t)in));
	ib_map_set(a, m, "theoretical_prefix_cache_hit", tp);
	ib_map_set(
	    a, m, "benchmark_duration",
	    scalar(a, "benchmark_duration", "Benchmark Duration", "sec", ib_v_float(a, dur)));
	ib_map_set(a, m, "start_time", iso(a, t->start_unix));
	ib_map_set(a, m, "end_time", iso(a, t->end_unix));
	ib_map_set(a, m, "was_cancelled", ib_v_bool(a, t->cancelled));
	ib_map_set(a, m, "error_summary", error_summary(a, t));
	ib_val *md = ib_v_map(a), *ds = ib_v_map(a);
	const char *name = t->o->dataset ? t->o->dataset : t->o->corpus;
	ib_map_set(a, ds, "source_type",
	           ib_v_str(a, strchr(name, '/') && name[0] != '/' && name[0] != '.'
	                           ? "public_dataset"
	                           : "file"));
	ib_map_set(a, ds, "loader", ib_v_str(a, "semianalysis_cc_traces_weka_with_subagents"));
	ib_map_set(a, ds, "hf_dataset_name", ib_v_str(a, name));
	ib_map_set(a, ds, "hf_split", ib_v_str(a, "train"));
	ib_map_set(a, ds, "num_dataset_entries", ib_v_int(a, (int64_t)t->ntraces));
	ib_map_set(a, md, "dataset", ds);
	ib_map_set(a, md, "scenario", ib_v_str(a, "inferencex-agentx-mvp"));
	ib_map_set(a, md, "time_scale", ib_v_float(a, t->scale));
	ib_map_set(a, m, "metadata", md);
	for (int i = 0; i < 5; i++)
		free(v[i]);
	(void)first, (void)last;
	*out = m;
	return 0;
}

/* ---- the env file ---- */

static bool overridden(const ax_art *t, const char *key)
{
	size_t kl = strlen(key);
	for (size_t i = 0; i < t->o->nenv; i++)
		if (!strncmp(t->o->env[i], key, kl) && t->o->env[i][kl] == '=')
			return true;
	return false;
}

static void env_file(ib_buf *b, const ax_art *t)
{
	if (!overridden(t, "RESULT_DIR"))
		ib_buf_puts(b, "RESULT_DIR=.\n");
	if (!overridden(t, "CONC"))
		ib_buf_printf(b, "CONC=%zu\n", t->o->concurrency);
	if (!overridden(t, "MODEL"))
		ib_buf_printf(b, "MODEL=%s\n", t->o->model);
	if (!overridden(t, "DURATION"))
		ib_buf_printf(b, "DURATION=%.17g\n", t->o->duration);
	for (size_t i = 0; i < t->o->nenv; i++)
		ib_buf_printf(b, "%s\n", t->o->env[i]);
}

int ax_art_write(const ax_art *t, ib_error *e)
{
	ib_buf path = {0}, b = {0}, dir = {0};
	ib_arena *a = ib_arena_new();
	ib_val *agg = NULL;
	int rc = 0;
	if (!a) {
		rc = ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
		goto out;
	}
	if (t->o->artifact_dir)
		ib_buf_puts(&dir, t->o->artifact_dir);
	else
		ib_buf_printf(&dir, "%s/aiperf_artifacts", t->o->out_dir);
	if (ib_buf_error(&dir)) {
		rc = ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
		goto out;
	}
	if ((rc = ib_mkdirs_writable(dir.data, e)))
		goto out;
	for (size_t i = 0; i < t->n; i++)
		record(&b, &t->rec[i]);
	path.len = 0;
	ib_buf_printf(&path, "%s/profile_export.jsonl", dir.data);
	if ((rc = ib_buf_write_file(path.data, &b, e)))
		goto out;
	if ((rc = aggregate(a, t, &agg))) {
		rc = ib_fail(e, rc, "", 0, 0, "out of memory");
		goto out;
	}
	path.len = 0;
	ib_buf_printf(&path, "%s/profile_export_aiperf.json", dir.data);
	ib_json_opts jo = {.indent = 2, .ensure_ascii = true};
	if ((rc = ib_json_write_path(path.data, agg, &jo, e)))
		goto out;
	ib_val *sm;
	b.len = 0;
	if ((rc = ax_smx_export(a, t->mx, t->nmx, t->end_unix - t->start_unix, &sm, &b, e)))
		goto out;
	path.len = 0;
	ib_buf_printf(&path, "%s/server_metrics_export.json", dir.data);
	if (sm && (rc = ib_json_write_path(path.data, sm, &jo, e)))
		goto out;
	path.len = 0;
	ib_buf_printf(&path, "%s/server_metrics_export.csv", dir.data);
	if (sm && (rc = ib_buf_write_file(path.data, &b, e)))
		goto out;
	if (t->o->out_dir) {
		b.len = 0;
		env_file(&b, t);
		path.len = 0;
		ib_buf_printf(&path, "%s/env", t->o->out_dir);
		rc = ib_buf_write_file(path.data, &b, e);
	}
out:
	if (!rc && ib_buf_error(&path))
		rc = ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	ib_buf_free(&path);
	ib_buf_free(&dir);
	ib_buf_free(&b);
	ib_arena_free(a);
	return rc;
}
