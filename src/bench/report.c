/* Metrics (M1–M8), the stdout table (O1) and the result JSON keys (O2). */
#include "bench/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int setf(ib_arena *a, ib_val *m, const char *k, double v)
{
	ib_val *x = ib_v_float(a, v);
	return x ? ib_map_set(a, m, k, x) : IB_ENOMEM;
}

static int seti(ib_arena *a, ib_val *m, const char *k, int64_t v)
{
	ib_val *x = ib_v_int(a, v);
	return x ? ib_map_set(a, m, k, x) : IB_ENOMEM;
}

static void line(ib_buf *t, const char *label, const char *fmt, double v)
{
	char val[64];
	snprintf(val, sizeof val, fmt, v);
	ib_buf_printf(t, "%-40s %-10s\n", label, val);
}

/* "p99", "p99.9": the percentile as Python prints it (int when integral). */
static void pname(char *out, size_t cap, double p)
{
	if (p == floor(p))
		snprintf(out, cap, "%.0f", p);
	else {
		char r[32];
		ib_json_float_repr(p, r, sizeof r);
		snprintf(out, cap, "%s", r);
	}
}

typedef struct {
	const char *key, *title, *label;
} metric_names;

static const metric_names names[4] = {
    {"ttft", "Time to First Token", "TTFT"},
    {"tpot", "Time per Output Token (excl. 1st token)", "TPOT"},
    {"itl", "Inter-token Latency", "ITL"},
    {"e2el", "End-to-end Latency", "E2EL"},
};

static int add_metric(ib_arena *a, ib_val *out, ib_buf *t, int which, double *v, size_t n,
                      const bench_metric_opts *mo)
{
	const metric_names *m = &names[which];
	char k[64];
	int rc = 0;
	double mean = bench_mean(v, n) * 1000, std = bench_std(v, n) * 1000;
	double median = bench_percentile(v, n, 50) * 1000;
	snprintf(k, sizeof k, "mean_%s_ms", m->key);
	rc |= setf(a, out, k, mean);
	snprintf(k, sizeof k, "median_%s_ms", m->key);
	rc |= setf(a, out, k, median);
	snprintf(k, sizeof k, "std_%s_ms", m->key);
	rc |= setf(a, out, k, std);
	/* the section header: the title centred in 50 '-' */
	size_t tl = strlen(m->title);
	int left = (int)(50 - tl) / 2, right = (int)(50 - tl) - left;
	ib_buf_printf(t, "%.*s%s%.*s\n", left, "--------------------------------------------------",
	              m->title, right, "--------------------------------------------------");
	char label[96];
	snprintf(label, sizeof label, "Mean %s (ms):", m->label);
	line(t, label, "%.2f", mean);
	snprintf(label, sizeof label, "Median %s (ms):", m->label);
	line(t, label, "%.2f", median);
	for (size_t i = 0; i < mo->npercentiles; i++) {
		char p[32];
		pname(p, sizeof p, mo->percentiles[i]);
		double x = bench_percentile(v, n, mo->percentiles[i]) * 1000;
		snprintf(k, sizeof k, "p%s_%s_ms", p, m->key);
		rc |= setf(a, out, k, x);
		snprintf(label, sizeof label, "P%s %s (ms):", p, m->label);
		line(t, label, "%.2f", x);
	}
	return rc;
}

int bench_report(ib_arena *a, const bench_prompt *prompts, const bench_result *res, size_t n,
                 const bench_run_stats *st, const bench_metric_opts *mo, bool save_detailed,
                 bench_count_fn count, void *count_arg, ib_val *out, ib_buf *t)
{
	int64_t completed = 0, total_in = 0, total_out = 0, good = 0;
	double *ttft = calloc(n + 1, sizeof *ttft), *tpot = calloc(n + 1, sizeof *tpot);
	double *e2el = calloc(n + 1, sizeof *e2el);
	size_t ntpot = 0, nitl = 0;
	for (size_t i = 0; i < n; i++)
		if (res[i].success)
			nitl += res[i].itl.n;
	double *itl = calloc(nitl + 1, sizeof *itl);
	ib_val *in_lens = ib_v_list(a), *out_lens = ib_v_list(a);
	int rc = (!ttft || !tpot || !e2el || !itl || !in_lens || !out_lens) ? IB_ENOMEM : 0;
	size_t k = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		const bench_result *r = &res[i];
		int64_t out_i = 0;
		if (r->success) {
			out_i = r->output_tokens;
			if (out_i < 0) /* usage said null: count the text (M1) */
				out_i = count ? count(r->text.data ? r->text.data : "", r->text.len,
				                      count_arg)
				              : 0;
			total_in += prompts[i].prompt_len;
			total_out += out_i;
			ttft[completed] = r->ttft;
			e2el[completed] = r->latency;
			completed++;
			double tp = 0;
			if (out_i > 1) {
				tp = (r->latency - r->ttft) / (double)(out_i - 1);
				tpot[ntpot++] = tp;
			}
			for (size_t j = 0; j < r->itl.n; j++)
				itl[k++] = r->itl.v[j];
			if (mo->goodput) {
				bool ok = true;
				if (mo->slo_ttft >= 0 && r->ttft > mo->slo_ttft)
					ok = false;
				if (mo->slo_tpot >= 0 && tp > mo->slo_tpot)
					ok = false;
				if (mo->slo_e2el >= 0 && r->latency > mo->slo_e2el)
					ok = false;
				good += ok;
			}
		}
		ib_val *il = ib_v_int(a, prompts[i].prompt_len), *ol = ib_v_int(a, out_i);
		if (!il || !ol || ib_list_push(a, in_lens, il) || ib_list_push(a, out_lens, ol))
			rc = IB_ENOMEM;
	}
	double d = st->duration > 0 ? st->duration : 1e-9;
	rc |= setf(a, out, "duration", st->duration);
	rc |= setf(a, out, "benchmark_start_time_unix", st->start_unix);
	rc |= setf(a, out, "benchmark_end_time_unix", st->end_unix);
	rc |= seti(a, out, "completed", completed);
	rc |= seti(a, out, "total_input_tokens", total_in);
	rc |= seti(a, out, "total_output_tokens", total_out);
	rc |= setf(a, out, "request_throughput", completed / d);
	if (mo->goodput)
		rc |= setf(a, out, "request_goodput:", good / d);
	else
		rc |= ib_map_set(a, out, "request_goodput:", ib_v_null(a));
	rc |= setf(a, out, "output_throughput", total_out / d);
	rc |= setf(a, out, "total_token_throughput", (total_in + total_out) / d);
	rc |= ib_map_set(a, out, "input_lens", in_lens);
	rc |= ib_map_set(a, out, "output_lens", out_lens);
	if (save_detailed) {
		ib_val *tt = ib_v_list(a), *it = ib_v_list(a), *gt = ib_v_list(a),
		       *er = ib_v_list(a);
		for (size_t i = 0; !rc && i < n; i++) {
			const bench_result *r = &res[i];
			ib_val *l = ib_v_list(a);
			for (size_t j = 0; r->success && l && j < r->itl.n; j++)
				ib_list_push(a, l, ib_v_float(a, r->itl.v[j]));
			rc |= ib_list_push(a, tt, ib_v_float(a, r->success ? r->ttft : 0));
			rc |= ib_list_push(a, it, l);
			rc |= ib_list_push(
			    a, gt, ib_v_strn(a, r->text.data ? r->text.data : "", r->text.len));
			rc |= ib_list_push(a, er, ib_v_str(a, r->error));
		}
		rc |= ib_map_set(a, out, "ttfts", tt);
		rc |= ib_map_set(a, out, "itls", it);
		rc |= ib_map_set(a, out, "generated_texts", gt);
		rc |= ib_map_set(a, out, "errors", er);
	}
	/* the table (O1) */
	ib_buf_printf(t, "%s\n", "============ Serving Benchmark Result ============");
	ib_buf_printf(t, "%-40s %-10lld\n", "Successful requests:", (long long)completed);
	line(t, "Benchmark duration (s):", "%.2f", st->duration);
	ib_buf_printf(t, "%-40s %-10lld\n", "Total input tokens:", (long long)total_in);
	ib_buf_printf(t, "%-40s %-10lld\n", "Total generated tokens:", (long long)total_out);
	line(t, "Request throughput (req/s):", "%.2f", completed / d);
	if (mo->goodput)
		line(t, "Request goodput (req/s):", "%.2f", good / d);
	line(t, "Output token throughput (tok/s):", "%.2f", total_out / d);
	line(t, "Total Token throughput (tok/s):", "%.2f", (total_in + total_out) / d);
	if (mo->ttft)
		rc |= add_metric(a, out, t, 0, ttft, (size_t)completed, mo);
	if (mo->tpot)
		rc |= add_metric(a, out, t, 1, tpot, ntpot, mo);
	if (mo->itl)
		rc |= add_metric(a, out, t, 2, itl, nitl, mo);
	if (mo->e2el)
		rc |= add_metric(a, out, t, 3, e2el, (size_t)completed, mo);
	ib_buf_printf(t, "%s\n", "==================================================");
	free(ttft);
	free(tpot);
	free(e2el);
	free(itl);
	return rc ? IB_ENOMEM : 0;
}
