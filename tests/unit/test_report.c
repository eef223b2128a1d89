/* Unit tests of src/report beyond the golden cases: empty input, one point,
 * NaN and infinities, JS number printing edge cases, the K6 fix, collation,
 * and the golden comparison contract itself. */
#include "repgold/repgold.h"
#include "report/report.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t front(par_dir d, const par_pt *p, size_t n, size_t *idx)
{
	size_t k = 99;
	cr_assert_eq(par_pareto_front(d, p, n, idx, &k), 0);
	return k;
}

Test(report, pareto_empty_and_single)
{
	size_t idx[4];
	for (int d = PAR_DIR_UPPER_LEFT; d <= PAR_DIR_LOWER_RIGHT; d++) {
		cr_assert_eq(front((par_dir)d, NULL, 0, idx), 0);
		par_pt one = {"a", 3, 4};
		cr_assert_eq(front((par_dir)d, &one, 1, idx), 1);
		cr_assert_eq(idx[0], 0);
	}
	size_t k;
	par_pt one = {"a", 3, 4};
	cr_assert_eq(par_pareto_front(PAR_DIR_NONE, &one, 1, idx, &k), IB_EINVAL);
}

Test(report, pareto_upper_left_nan_wall)
{
	/* a NaN y is pushed and then blocks every later pop */
	par_pt p[] = {{"a", 1, 10}, {"b", 2, NAN}, {"c", 3, 50}};
	size_t idx[3];
	size_t k = front(PAR_DIR_UPPER_LEFT, p, 3, idx);
	cr_assert_eq(k, 3);
	cr_assert_eq(idx[0], 0);
	cr_assert_eq(idx[1], 1);
	cr_assert_eq(idx[2], 2);
	/* without the NaN, c dominates a */
	par_pt q[] = {{"a", 1, 10}, {"c", 3, 50}};
	cr_assert_eq(front(PAR_DIR_UPPER_LEFT, q, 2, idx), 1);
	cr_assert_eq(idx[0], 1);
}

Test(report, pareto_upper_right_keeps_equal_y)
{
	par_pt p[] = {{"a", 10, 100}, {"b", 20, 100}, {"c", 30, 100}};
	size_t idx[3];
	cr_assert_eq(front(PAR_DIR_UPPER_RIGHT, p, 3, idx), 3);
}

Test(report, pareto_lower_right_is_x_descending)
{
	par_pt p[] = {{"a", 1, 1}, {"b", 5, 3}, {"c", 3, 2}, {"d", 4, 9}};
	size_t idx[4];
	size_t k = front(PAR_DIR_LOWER_RIGHT, p, 4, idx);
	cr_assert_eq(k, 3);
	cr_assert_str_eq(p[idx[0]].id, "b");
	cr_assert_str_eq(p[idx[1]].id, "c");
	cr_assert_str_eq(p[idx[2]].id, "a");
}

Test(report, roofline_drops_ineligible_x)
{
	par_pt p[] = {{"zero", 0, 100}, {"nan", NAN, 90}, {"inf", INFINITY, 80}, {"ok", 5, 1}};
	size_t idx[4], k = 9;
	cr_assert_eq(par_roofline(PAR_DIR_UPPER_LEFT, p, 4, idx, &k), 0);
	cr_assert_eq(k, 1); /* one point: optimal but not drawn */
	cr_assert_str_eq(p[idx[0]].id, "ok");
	cr_assert_eq(par_roofline(PAR_DIR_LOWER_LEFT, p, 3, idx, &k), 0);
	cr_assert_eq(k, 0);
}

Test(report, spline_degenerate_inputs)
{
	double m[3] = {7, 7, 7};
	par_spline_slopes(NULL, NULL, 0, m);
	cr_assert_eq(par_spline_eval(NULL, NULL, m, 0, 1), 0);
	double x1[] = {2}, y1[] = {5};
	par_spline_slopes(x1, y1, 1, m);
	cr_assert_eq(m[0], 0);
	cr_assert_eq(par_spline_eval(x1, y1, m, 1, 100), 5);
	/* two points: 1.5 s and 0.75 s (not the straight line d3 draws) */
	double x2[] = {0, 10}, y2[] = {0, 10};
	par_spline_slopes(x2, y2, 2, m);
	cr_assert_float_eq(m[0], 1.5, 1e-15);
	cr_assert_float_eq(m[1], 0.75, 1e-15);
	cr_assert_neq(par_spline_eval(x2, y2, m, 2, 5), 5);
	/* flat outside the knots; a NaN knot gives a zero interior slope */
	double x3[] = {0, 1, 2}, y3[] = {0, NAN, 2};
	par_spline_slopes(x3, y3, 3, m);
	cr_assert_eq(m[1], 0);
	cr_assert_eq(par_spline_eval(x3, y3, m, 3, -5), 0);
	cr_assert_eq(par_spline_eval(x3, y3, m, 3, 9), 2);
	/* duplicate xs: zero-width interval returns the lower knot */
	double x4[] = {0, 1, 1, 2}, y4[] = {0, 1, 3, 4};
	cr_assert(isfinite(par_spline_at(x4, y4, 4, 1.5)));
}

static void path_of(const par_pt *p, size_t n, const char *want)
{
	ib_buf b = {0};
	cr_assert_eq(par_monotone_path(p, n, &b), 0);
	cr_assert_str_eq(b.data ? b.data : "", want);
	ib_buf_free(&b);
}

Test(report, monotone_path_small)
{
	path_of(NULL, 0, "");
	par_pt one = {NULL, 1.23456, 2};
	path_of(&one, 1, "M1.235,2Z");
	par_pt two[] = {{NULL, 0, 0}, {NULL, 10.0 / 3, 1e-4}};
	path_of(two, 2, "M0,0L3.333,0");
	par_pt same[] = {{NULL, 1, 1}, {NULL, 1, 1}};
	path_of(same, 2, "M1,1Z");
}

static const char *js(double v)
{
	static char s[64];
	par_js_num(v, s, sizeof s);
	return s;
}

Test(report, js_number_to_string)
{
	cr_assert_str_eq(js(0), "0");
	cr_assert_str_eq(js(-0.0), "0");
	cr_assert_str_eq(js(NAN), "NaN");
	cr_assert_str_eq(js(-INFINITY), "-Infinity");
	cr_assert_str_eq(js(0.1 + 0.2), "0.30000000000000004");
	cr_assert_str_eq(js(1e21), "1e+21");
	cr_assert_str_eq(js(123456789012345680000.0), "123456789012345680000");
	cr_assert_str_eq(js(0.000001), "0.000001");
	cr_assert_str_eq(js(1.5e-7), "1.5e-7");
	cr_assert_str_eq(js(-2.5), "-2.5");
	cr_assert_str_eq(js(100), "100");
}

static const char *fixed(double v, int d)
{
	static char s[128];
	par_js_fixed(v, d, s, sizeof s);
	return s;
}

Test(report, js_to_fixed_rounds_half_away_on_binary_value)
{
	cr_assert_str_eq(fixed(2.5, 0), "3");
	cr_assert_str_eq(fixed(-2.5, 0), "-3");
	cr_assert_str_eq(fixed(0.5, 0), "1");
	cr_assert_str_eq(fixed(2500000.5, 0), "2500001");
	cr_assert_str_eq(fixed(1.005, 2), "1.00"); /* 1.00499999999999989... */
	cr_assert_str_eq(fixed(1.45, 1), "1.4");
	cr_assert_str_eq(fixed(9.995, 2), "9.99");
	cr_assert_str_eq(fixed(0, 3), "0.000");
	cr_assert_str_eq(fixed(1e21, 2), "1e+21");
	cr_assert_float_eq(par_round_fixed(0.1355, 3), 0.136, 1e-15);
	cr_assert_eq(par_js_round(-2.5), -2);
	cr_assert_eq(par_js_round(2.5), 3);
	cr_assert_eq(par_js_round(0.49999999999999994), 0);
}

static const char *fmt(void (*f)(double, char *, size_t), double v)
{
	static char s[128];
	f(v, s, sizeof s);
	return s;
}

Test(report, display_formats)
{
	cr_assert_str_eq(fmt(par_fmt_table, 9.95), "10.0"); /* Intl rounds the shortest digits */
	cr_assert_str_eq(fmt(par_fmt_table, -1234.5), "-1,235");
	cr_assert_str_eq(fmt(par_fmt_table, 0.00004), "0.0000");
	cr_assert_str_eq(fmt(par_fmt_table_1dp, 1234567.25), "1,234,567.3");
	cr_assert_str_eq(fmt(par_fmt_tick, 9999), "9999");
	cr_assert_str_eq(fmt(par_fmt_tick, 12345.6789), "12,345.679");
	cr_assert_str_eq(fmt(par_fmt_tick_large, 9999), "10.0k");
	cr_assert_str_eq(fmt(par_fmt_tick_large, 999999), "1000.0k");
	cr_assert_str_eq(fmt(par_fmt_tick_large, 2000000), "2M");
	cr_assert_str_eq(fmt(par_fmt_tick_large, 500), "500");
	char s[32];
	par_fmt_grouped(NAN, 0, 2, s, sizeof s);
	cr_assert_str_eq(s, "NaN");
}

static rep_row row(const char *hw, const char *fw, const char *spec, double tput)
{
	rep_row r;
	memset(&r, 0, sizeof r);
	for (int i = 0; i < REP_F__COUNT; i++)
		r.f[i] = NAN;
	r.overlay_run = -1;
	r.disagg = r.is_multinode = r.dp_attention = -1;
	r.prefill_dp_attention = r.decode_dp_attention = -1;
	r.hw = hw;
	r.framework = fw;
	r.spec_decoding = spec;
	r.precision = "fp8";
	r.date = "2026-08-20";
	r.f[REP_F_TPUT_PER_GPU] = tput;
	r.has[REP_F_TPUT_PER_GPU] = true;
	r.f[REP_F_TP] = 8;
	r.has[REP_F_TP] = true;
	return r;
}

Test(report, hardware_key_rules)
{
	char k[64];
	rep_row r = row("b200-nb_0", "SGLang", "mtp", 1);
	rep_hardware_key(&r, NULL, k, sizeof k);
	cr_assert_str_eq(k, "b200_sglang_mtp");
	r = row("b200_0", "dynamo-trtllm", "eagle3", 1);
	rep_hardware_key(&r, NULL, k, sizeof k);
	cr_assert_str_eq(k, "b200_0_dynamo-trt_eagle3");
	r.benchmark_type = "agentic_traces";
	rep_hardware_key(&r, NULL, k, sizeof k);
	cr_assert_str_eq(k, "b200_0_dynamo-trt");
	rep_spec_base(k, k, sizeof k);
	cr_assert_str_eq(k, "b200");
	r = row(NULL, NULL, NULL, 1);
	rep_hardware_key(&r, NULL, k, sizeof k);
	cr_assert_str_eq(k, "");
}

Test(report, derived_metrics_unknown_gpu_and_zero_tput)
{
	const rep_gpu_table *t = rep_gpu_table_builtin(true);
	rep_metrics m;
	rep_row r = row("rtx5090", "vllm", "none", 100);
	rep_derive_metrics(&r, t, NULL, &m, NULL, 0, NULL, 0, NULL);
	cr_assert(isinf(m.v[REP_M_TP_PER_MW])); /* unguarded divide (quirk 9) */
	cr_assert_eq(m.v[REP_M_COSTH], 0);
	cr_assert_not(m.has[REP_M_OUTPUT_TPUT_PER_GPU]);
	cr_assert(m.has[REP_M_COSTH_OUTPUT]); /* cost fields exist even when O is 0 */
	r = row("rtx5090", "vllm", "none", 0);
	rep_derive_metrics(&r, t, NULL, &m, NULL, 0, NULL, 0, NULL);
	cr_assert(isnan(m.v[REP_M_TP_PER_MW]));
	cr_assert_eq(m.v[REP_M_J_TOTAL], 0);
	r = row("b200-x", "sglang", "none", NAN);
	r.has[REP_F_TPUT_PER_GPU] = false;
	rep_derive_metrics(&r, t, NULL, &m, NULL, 0, NULL, 0, NULL);
	cr_assert_eq(m.v[REP_M_TP_PER_GPU], 0); /* missing metrics become 0 */
	cr_assert_eq(m.v[REP_M_TP_PER_MW], 0);
}

Test(report, power_user_quirk_and_fix)
{
	const rep_gpu_table *t = rep_gpu_table_builtin(true); /* b200: 2.17 kW */
	rep_row r = row("b200-x", "sglang", "none", 1000);
	rep_derive_opts o = {.has_user_power = true, .user_power = 1.5};
	rep_metrics m;
	rep_derive_metrics(&r, t, &o, &m, NULL, 0, NULL, 0, NULL);
	/* shipped K6: tpPerMw / P * userPower, grows with power */
	cr_assert_float_eq(m.v[REP_M_POWER_USER],
	                   par_round_fixed(1000 * 1000 / 2.17 / 2.17 * 1.5, 3), 1e-9);
	o.fix_power_user = true;
	rep_derive_metrics(&r, t, &o, &m, NULL, 0, NULL, 0, NULL);
	cr_assert_float_eq(m.v[REP_M_POWER_USER], par_round_fixed(1000 * 1000 / 1.5, 3), 1e-9);
}

Test(report, chart_series_empty_and_all_missing)
{
	rep_chart_opts o = {.x_field = "median_intvty",
	                    .metric = REP_M_OUTPUT_TPUT_PER_GPU,
	                    .dir = PAR_DIR_UPPER_LEFT,
	                    .cost_limit = 5,
	                    .latency_limit = 60,
	                    .gpus = rep_gpu_table_builtin(false)};
	rep_chart *c;
	ib_error e = {0};
	cr_assert_eq(rep_chart_series(NULL, 0, &o, &c, &e), 0);
	cr_assert_eq(c->npoints, 0);
	cr_assert_eq(c->nseries, 0);
	rep_chart_free(c);
	rep_row rows[2] = {row("b200", "vllm", "none", 10), row("b200", "vllm", "none", 20)};
	cr_assert_eq(rep_chart_series(rows, 2, &o, &c, &e), 0);
	cr_assert_eq(c->ndropped, 2); /* no output throughput: no metric */
	cr_assert_str_eq(c->dropped[0].reason, "no-metric");
	rep_chart_free(c);
	o.x_field = "not_a_field";
	cr_assert_eq(rep_chart_series(rows, 2, &o, &c, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "not_a_field"));
}

Test(report, chart_series_one_point_is_optimal_without_path)
{
	rep_chart_opts o = {.x_field = "median_intvty",
	                    .metric = REP_M_TP_PER_GPU,
	                    .dir = PAR_DIR_UPPER_LEFT,
	                    .cost_limit = NAN,
	                    .latency_limit = NAN,
	                    .gpus = rep_gpu_table_builtin(false)};
	rep_row r = row("h100", "vllm", "none", 10);
	r.f[REP_F_MEDIAN_INTVTY] = 50;
	r.has[REP_F_MEDIAN_INTVTY] = true;
	rep_chart *c;
	cr_assert_eq(rep_chart_series(&r, 1, &o, &c, NULL), 0);
	cr_assert_eq(c->npoints, 1);
	cr_assert(c->points[0].roof);
	cr_assert_eq(c->series[0].nfrontier, 1);
	cr_assert_eq(c->series[0].npaths, 0);
	cr_assert_str_eq(c->series[0].key, "h100_vllm_fp8");
	rep_chart_free(c);
}

/* Charts built on rep_chart_prepare's rows are those built without it. */
Test(report, chart_series_prepared_rows_same_chart)
{
	rep_chart_opts o = {.x_field = "median_intvty",
	                    .metric = REP_M_TP_PER_GPU,
	                    .dir = PAR_DIR_UPPER_LEFT,
	                    .cost_limit = 5,
	                    .latency_limit = 60,
	                    .gpus = rep_gpu_table_builtin(false)};
	rep_row rows[5] = {row("h100", "vllm", "none", 10), row("b200", "sglang", "mtp", 30),
	                   row("h100", "vllm", "none", 20), row("b200", "sglang", "mtp", 5),
	                   row("h100", "vllm", "none", 15)};
	for (int i = 0; i < 5; i++) {
		rows[i].f[REP_F_MEDIAN_INTVTY] = 10 + 7 * i;
		rows[i].has[REP_F_MEDIAN_INTVTY] = true;
	}
	rows[2].overlay_run = 1;
	rows[4].has[REP_F_TPUT_PER_GPU] = false; /* dropped: no metric */
	rep_chart_rows *pre;
	cr_assert_eq(rep_chart_prepare(rows, 5, o.gpus, NULL, &pre), 0);
	cr_assert_eq(pre->n, 5);
	cr_assert_str_eq(pre->skeys[2], "h100_vllm_fp8_run1");
	rep_chart *a, *b;
	ib_error e = {0};
	cr_assert_eq(rep_chart_series(rows, 5, &o, &a, &e), 0);
	o.pre = pre;
	cr_assert_eq(rep_chart_series(rows, 5, &o, &b, &e), 0);
	cr_assert_eq(a->npoints + a->ndropped, 5, "%zu %zu %s", a->npoints, a->ndropped,
	             a->ndropped ? a->dropped[0].reason : "");
	cr_assert_gt(a->nseries, 1);
	cr_assert_eq(b->npoints, a->npoints);
	cr_assert_eq(b->ndropped, a->ndropped);
	cr_assert_eq(b->nseries, a->nseries);
	for (size_t k = 0; k < a->npoints; k++) {
		cr_assert_eq(b->points[k].row, a->points[k].row);
		cr_assert_eq(b->points[k].series, a->points[k].series);
		cr_assert_eq(b->points[k].roof, a->points[k].roof);
	}
	for (size_t s = 0; s < a->nseries; s++) {
		cr_assert_str_eq(b->series[s].key, a->series[s].key);
		cr_assert_str_eq(b->series[s].hw_key, a->series[s].hw_key);
		cr_assert_eq(b->series[s].nfrontier, a->series[s].nfrontier);
		cr_assert_eq(b->series[s].npaths, a->series[s].npaths);
	}
	for (size_t i = 0; i < 5; i++)
		for (int m = 0; m < REP_M__COUNT; m++) {
			cr_assert_eq(b->metrics[i].has[m], a->metrics[i].has[m]);
			cr_assert(
			    !a->metrics[i].has[m] ||
			    !memcmp(&b->metrics[i].v[m], &a->metrics[i].v[m], sizeof(double)));
		}
	rep_chart_free(b);
	cr_assert_eq(rep_chart_series(rows, 4, &o, &b, &e), IB_EINVAL); /* not pre's rows */
	rep_chart_free(a);
	rep_chart_rows_free(pre);
}

static par_gpu_point gp(double x, double t)
{
	par_gpu_point p;
	memset(&p, 0, sizeof p);
	p.hw_key = "b200_sglang";
	p.interactivity = x;
	p.throughput = t;
	p.output_tput = t / 2;
	p.input_tput = t / 2;
	p.concurrency = 4;
	for (int k = 0; k < 9; k++)
		p.cost[k] = t > 0 ? 1000 / t : 0;
	return p;
}

Test(report, interpolation_edges)
{
	par_interp r;
	cr_assert_eq(par_interpolate_for_gpu(NULL, 0, 10, PAR_MODE_INTERACTIVITY_TO_THROUGHPUT,
	                                     PAR_COST_H, &r),
	             0);
	par_gpu_point one = gp(50, 100);
	cr_assert_eq(par_interpolate_for_gpu(&one, 1, 10, PAR_MODE_INTERACTIVITY_TO_THROUGHPUT,
	                                     PAR_COST_H, &r),
	             1);
	cr_assert(r.clamped && r.clamped_below && !r.clamped_above);
	cr_assert_eq(r.value, 100);
	par_gpu_point two[] = {gp(10, 1000), gp(100, 100)};
	cr_assert_eq(par_interpolate_for_gpu(two, 2, 500, PAR_MODE_INTERACTIVITY_TO_THROUGHPUT,
	                                     PAR_COST_H, &r),
	             1);
	cr_assert(r.clamped_above);
	cr_assert_eq(r.value, 100);
	cr_assert_eq(r.nnearest, 1);
	double v;
	cr_assert_eq(par_max_interactivity_at_cost(two, 2, 0, PAR_COST_H, PAR_TOK_TOTAL, &v), 0);
	cr_assert_eq(par_max_interactivity_at_cost(two, 2, 1e9, PAR_COST_H, PAR_TOK_TOTAL, &v), 1);
	cr_assert_eq(v, 100);
	cr_assert_eq(par_max_interactivity_at_cost(two, 2, 1e-9, PAR_COST_H, PAR_TOK_TOTAL, &v), 0);
}

Test(report, trend_edges)
{
	double v;
	cr_assert_eq(rep_interpolate_trend(NULL, 0, REP_M_TP_PER_GPU, 10, &v), 0);
	rep_metrics m[2];
	memset(m, 0, sizeof m);
	m[0].v[REP_M_TP_PER_GPU] = 100;
	m[0].has[REP_M_TP_PER_GPU] = true;
	m[1].v[REP_M_TP_PER_GPU] = 50;
	m[1].has[REP_M_TP_PER_GPU] = true;
	rep_trend_point p[2] = {{"a", 10, &m[0]}, {"b", 20, &m[1]}};
	cr_assert_eq(rep_interpolate_trend(p, 2, REP_M_TP_PER_GPU, 5, &v), 0);  /* below */
	cr_assert_eq(rep_interpolate_trend(p, 2, REP_M_TP_PER_GPU, 25, &v), 0); /* above */
	cr_assert_eq(rep_interpolate_trend(p, 2, REP_M_COSTH, 15, &v), 0);      /* missing */
	cr_assert_eq(rep_interpolate_trend(p, 2, REP_M_TP_PER_GPU, 20, &v), 1);
	cr_assert_eq(v, 50);
	cr_assert_eq(rep_interpolate_trend(p, 1, REP_M_TP_PER_GPU, 10.5, &v), 0); /* one point */
	cr_assert_eq(rep_interpolate_trend(p, 1, REP_M_TP_PER_GPU, 10, &v), 1);
	m[1].has[REP_M_TP_PER_GPU] = false; /* a point without the frontier key: null */
	cr_assert_eq(rep_interpolate_trend(p, 2, REP_M_TP_PER_GPU, 10, &v), 0);
}

Test(report, ticks_and_nice_edges)
{
	double t[64];
	cr_assert_eq(rep_ticks(0, 10, 0, t, 64), 0);
	cr_assert_eq(rep_ticks(3, 3, 10, t, 64), 1);
	cr_assert_eq(t[0], 3);
	double lo = 5, hi = 5;
	rep_nice(&lo, &hi, 10);
	cr_assert(lo == 5 && hi == 5);
	lo = 0.2;
	hi = 9.7;
	rep_nice(&lo, &hi, 10);
	cr_assert(lo == 0 && hi == 10);
	size_t n = rep_ticks(0, 1, 5, t, 64);
	cr_assert_eq(n, 6);
	cr_assert_eq(t[3], 0.6); /* 3 / 5, not 3 * 0.2 */
	lo = 0.15;
	hi = 870;
	rep_log_nice(&lo, &hi);
	cr_assert(lo == 0.1 && hi == 1000);
	rep_axes_opts o = {.scale_type = "auto"};
	rep_axis x, y;
	rep_scatter_axes(NULL, 0, &o, &x, &y);
	cr_assert(x.domain[0] == 0 && x.domain[1] == 105);
}

Test(report, collation_root_order)
{
	cr_assert_lt(rep_collate("a_b", "a-b"), 0);
	cr_assert_lt(rep_collate("a-b", "a0"), 0);
	cr_assert_lt(rep_collate("a9", "aa"), 0);
	cr_assert_lt(rep_collate("b200", "b200_x"), 0); /* a proper prefix first */
	cr_assert_lt(rep_collate("a", "B"), 0);         /* letters case-insensitive */
	cr_assert_lt(rep_collate("ab", "Ab"), 0);       /* lower case first as a tie-break */
	cr_assert_lt(rep_collate("x y", "x(y"), 0);     /* whitespace before punctuation */
	cr_assert_eq(rep_collate("same", "same"), 0);
	cr_assert_eq(rep_hw_order("gb300_x"), 0);
	cr_assert_eq(rep_hw_order("gb200_x"), 1);
	cr_assert_eq(rep_hw_order("rtx"), 9);
}

Test(report, labels_and_gradient_edges)
{
	rep_row r = row("b200", "vllm", "none", 1);
	char s[64];
	rep_parallelism_label(&r, s, sizeof s);
	cr_assert_str_eq(s, "TP8");
	r.f[REP_F_EP] = 8;
	r.has[REP_F_EP] = true;
	r.dp_attention = 1;
	rep_parallelism_label(&r, s, sizeof s);
	cr_assert_str_eq(s, "DEP8");
	rep_grad_stop st[8];
	rep_grad_point one[] = {{0, "TP8", "#000"}};
	cr_assert_eq(rep_gradient_stops(one, 1, st), 0);
	rep_grad_point flat[] = {{5, "TP8", "#000"}, {5, "TP4", "#fff"}};
	cr_assert_eq(rep_gradient_stops(flat, 2, st), 0); /* zero x range */
}

Test(report, narrative_edges)
{
	ib_buf p[2] = {{0}, {0}};
	size_t n = 9;
	rep_narr_row rows[2];
	memset(rows, 0, sizeof rows);
	cr_assert_eq(rep_compare_narrative("bogus", "M", "A", "B", rows, 2, 0, 1, p, &n),
	             IB_EINVAL);
	cr_assert_eq(rep_compare_narrative("full", "M", "A", "B", rows, 2, 0, 1, p, &n), 0);
	cr_assert_eq(n, 0);
	rows[1].target = 10;
	rows[1].b = (rep_narr_side){true, 123.4, 0.5};
	cr_assert_eq(rep_compare_narrative("per-dollar", "M", "A", "B", rows, 2, 0, 20, p, &n), 0);
	cr_assert_eq(n, 1);
	cr_assert(strstr(p[0].data, "$0.50"));
	ib_buf_free(&p[0]);
	ib_buf_free(&p[1]);
	rep_compare_table t;
	cr_assert_eq(rep_compare_table_compute(NULL, 0, NULL, 0, &t), 0);
	cr_assert(t.range_min == 0 && t.range_max == 100 && t.nrows == 0);
}

static ib_val *parse(ib_arena *a, const char *s)
{
	ib_val *v = NULL;
	cr_assert_eq(ib_json_parse(a, "t", s, strlen(s), &v, NULL), 0);
	return v;
}

Test(report, golden_comparison_contract)
{
	ib_arena *a = ib_arena_new();
	ib_buf d = {0};
	cr_assert(rg_compare(parse(a, "{\"x\":1.0,\"y\":[1,2]}"),
	                     parse(a, "{\"y\":[1,2.0000000000001],\"x\":1}"), &d));
	cr_assert_not(rg_compare(parse(a, "[1,2]"), parse(a, "[2,1]"), &d));
	d.len = 0;
	cr_assert_not(rg_compare(parse(a, "{\"v\":1}"), parse(a, "{\"v\":1.00000001}"), &d));
	cr_assert(strstr(d.data, ".v"));
	d.len = 0;
	cr_assert(rg_compare(parse(a, "{\"v\":1e-13}"), parse(a, "{\"v\":-1e-13}"), &d));
	ib_val *nan = ib_v_float(a, NAN);
	cr_assert(rg_compare(parse(a, "\"NaN\""), nan, &d));
	cr_assert_not(rg_compare(parse(a, "{\"k\":null}"), parse(a, "{}"), &d));
	cr_assert_not(rg_compare(parse(a, "{}"), parse(a, "{\"k\":null}"), &d));
	cr_assert_not(rg_compare(parse(a, "\"M0,0\""), parse(a, "\"M0,0 \""), &d));
	ib_val *out;
	ib_error e = {0};
	cr_assert_eq(rg_eval(a, "no_such_function", parse(a, "{}"), &out, &e), IB_ENOENT);
	cr_assert_eq(rg_eval(a, "pareto_front", parse(a, "{\"direction\":\"up\"}"), &out, &e),
	             IB_EINVAL);
	ib_buf_free(&d);
	ib_arena_free(a);
}

Test(report, latest_rows_per_config)
{
	rep_row r[4] = {row("b200", "vllm", "none", 1), row("b200", "vllm", "none", 2),
	                row("b200", "vllm", "mtp", 3), row("h100", "vllm", "none", 4)};
	r[0].date = "2026-07-01";
	r[2].date = "2026-01-01"; /* another spec: its own group */
	r[3].date = NULL;
	bool keep[4];
	cr_assert_eq(rep_latest_rows(r, 4, keep), 0);
	cr_assert(!keep[0] && keep[1] && keep[2] && keep[3]);
}

/* rep_latest_rows against its definition (a row is dropped when a row of the
 * same configuration has a later date), on random rows with NULL fields. */
Test(report, latest_rows_matches_pairwise_definition)
{
	static const char *const hws[] = {"b200", "h100", NULL};
	static const char *const dates[] = {"2026-01-01", "2026-02-01", "2026-02-01T10", NULL};
	enum { N = 300 };
	rep_row r[N];
	bool keep[N];
	uint32_t s = 12345;
	for (int t = 0; t < 20; t++) {
		for (int i = 0; i < N; i++) {
			s = s * 1103515245u + 12345u;
			r[i] = row(hws[(s >> 8) % 3], (s >> 12) % 2 ? "vllm" : "sglang", "none", 1);
			r[i].date = dates[(s >> 16) % 4];
			r[i].disagg = (int)((s >> 20) % 3) - 1;
			r[i].precision = (s >> 24) % 2 ? "fp8" : NULL;
		}
		cr_assert_eq(rep_latest_rows(r, N, keep), 0);
		for (int i = 0; i < N; i++) {
			bool want = true;
			for (int j = 0; j < N; j++) {
				const rep_row *a = &r[i], *b = &r[j];
#define SAME(f) (!strcmp(a->f ? a->f : "", b->f ? b->f : ""))
				if (SAME(hw) && SAME(framework) && SAME(spec_decoding) &&
				    SAME(precision) && a->disagg == b->disagg &&
				    strcmp(b->date ? b->date : "", a->date ? a->date : "") > 0)
					want = false;
#undef SAME
			}
			cr_assert_eq(keep[i], want, "round %d row %d", t, i);
		}
	}
}

Test(report, first_seen_ids_and_buckets)
{
	const char *keys[] = {"b", "a", "b", "c", "a", "b", ""};
	size_t ids[7], n = 0, *off = NULL, *mem = NULL;
	cr_assert_eq(rep_first_seen_ids(keys, 7, ids, &n), 0);
	cr_assert_eq(n, 4);
	size_t want[7] = {0, 1, 0, 2, 1, 0, 3};
	for (int i = 0; i < 7; i++)
		cr_assert_eq(ids[i], want[i], "key %d", i);
	cr_assert_eq(rep_bucket_ids(ids, 7, n, &off, &mem), 0);
	size_t woff[5] = {0, 3, 5, 6, 7}, wmem[7] = {0, 2, 5, 1, 4, 3, 6};
	for (int k = 0; k < 5; k++)
		cr_assert_eq(off[k], woff[k], "off %d", k);
	for (int i = 0; i < 7; i++)
		cr_assert_eq(mem[i], wmem[i], "member %d", i);
	free(off);
	free(mem);
	/* many distinct keys (the hash table grows past its first size) */
	enum { M = 5000 };
	char buf[M][16];
	const char *many[2 * M];
	size_t mids[2 * M];
	for (int i = 0; i < M; i++) {
		snprintf(buf[i], sizeof buf[i], "k%d", i);
		many[i] = many[2 * M - 1 - i] = buf[i];
	}
	cr_assert_eq(rep_first_seen_ids(many, 2 * M, mids, &n), 0);
	cr_assert_eq(n, M);
	for (int i = 0; i < M; i++)
		cr_assert(mids[i] == (size_t)i && mids[2 * M - 1 - i] == (size_t)i, "key %d", i);
	cr_assert_eq(rep_first_seen_ids(NULL, 0, NULL, &n), 0);
	cr_assert_eq(n, 0);
}
