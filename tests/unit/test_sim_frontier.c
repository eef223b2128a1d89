/* Frontier and peak rows of `sim validate` (docs/sim.md "Frontier and peak
 * rows"): the throughput at a target interactivity, the peak pick, how the
 * rows are read, the sweep's search space, the calibration fallback. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"
#include "simlab/simlab.h"

static char tmpdir[64];

static const char *write_tmp(const char *name, const char *text)
{
	static char path[128];
	if (!tmpdir[0]) {
		strcpy(tmpdir, "/tmp/ib-simfront-XXXXXX");
		cr_assert_not_null(mkdtemp(tmpdir));
	}
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* Loads the points table `tsv` and the calibration `yaml` (both written to
 * the temporary folder) into a; fails the test on any error. */
static slab_point *load_points_calib(ib_arena *a, const char *tsv, const char *yaml,
                                     sim_calib_file *cal)
{
	ib_error e = {0};
	slab_point *p;
	size_t n;
	cr_assert_eq(slab_points_load(write_tmp("p.tsv", tsv), a, &p, &n, &e), 0, "%s", e.msg);
	ib_diags d = {.a = a};
	cr_assert_eq(sim_calib_load(write_tmp("c.yaml", yaml), a, cal, &d, &e), 0, "%s", e.msg);
	return p;
}

static void cleanup(void)
{
	char path[128];
	const char *names[] = {"p.tsv", "c.yaml"};
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
		unlink(path);
	}
	rmdir(tmpdir);
	tmpdir[0] = 0;
}

TestSuite(sim_frontier, .fini = cleanup);

/* A synthetic sweep: two configs' curves (throughput falls as
 * interactivity rises) and dominated points in between. */
static const double INTER[] = {120, 90, 60, 35, 20, 10, 100, 70, 40, 25, 15, 50, 30};
static const double TPUT[] = {300,  700,  1500, 2600, 3600, 4200, 500,
                              1300, 2900, 3900, 4600, 900,  1000};
static const double CONC[] = {4, 8, 16, 32, 64, 128, 4, 8, 16, 32, 64, 8, 16};
#define NPTS (sizeof INTER / sizeof *INTER)

Test(sim_frontier, throughput_at_equals_interpolate_for_gpu)
{
	par_gpu_point p[NPTS];
	memset(p, 0, sizeof p);
	for (size_t i = 0; i < NPTS; i++) {
		p[i].hw_key = "x";
		p[i].interactivity = INTER[i];
		p[i].throughput = TPUT[i];
		p[i].concurrency = CONC[i];
	}
	const double targets[] = {5, 10, 22.5, 37, 55, 80, 99.9, 120, 200};
	for (size_t t = 0; t < sizeof targets / sizeof *targets; t++) {
		par_interp a, b;
		cr_assert_eq(par_throughput_at(INTER, TPUT, CONC, NPTS, targets[t], &a), 1);
		cr_assert_eq(par_interpolate_for_gpu(p, NPTS, targets[t],
		                                     PAR_MODE_INTERACTIVITY_TO_THROUGHPUT,
		                                     PAR_COST_H, &b),
		             1);
		cr_assert_eq(a.value, b.value, "target %g: %.17g vs %.17g", targets[t], a.value,
		             b.value);
		cr_assert_eq(a.concurrency, b.concurrency);
		cr_assert_eq(a.clamped, b.clamped);
		cr_assert_eq(a.nnearest, b.nnearest);
		cr_assert_eq(a.nearest[0], b.nearest[0]);
	}
	/* on the frontier's knots the value is the knot's; dominated points never count */
	par_interp a;
	cr_assert_eq(par_throughput_at(INTER, TPUT, CONC, NPTS, 40, &a), 1);
	cr_assert_float_eq(a.value, 2900, 1e-9);
	cr_assert_eq(par_throughput_at(INTER, TPUT, CONC, NPTS, 30, &a), 1);
	cr_assert_gt(a.value, 2900);
	cr_assert_lt(a.value, 3900);
	/* outside the frontier: clamped to its ends */
	cr_assert_eq(par_throughput_at(INTER, TPUT, CONC, NPTS, 500, &a), 1);
	cr_assert(a.clamped_above);
	cr_assert_float_eq(a.value, 300, 1e-9);
	cr_assert_eq(par_throughput_at(INTER, TPUT, CONC, 0, 50, &a), 0);
}

Test(sim_frontier, peak_takes_best_config_at_nearest_concurrency)
{
	slab_sweep_point s[] = {
	    {.framework = "vllm", .tp = 8, .conc = 64, .tps_gpu = 1000},
	    {.framework = "vllm", .tp = 4, .conc = 64, .tps_gpu = 1500},
	    {.framework = "sglang", .tp = 4, .conc = 64, .tps_gpu = 1700},
	    {.framework = "vllm", .tp = 4, .conc = 128, .tps_gpu = 2000},
	    {.framework = "vllm", .tp = 4, .conc = 32, .tps_gpu = 900},
	};
	size_t n = sizeof s / sizeof *s;
	cr_assert_eq(slab_sweep_peak(s, n, 64, NULL), 2);
	cr_assert_eq(slab_sweep_peak(s, n, 64, "vllm"), 1);
	cr_assert_eq(slab_sweep_peak(s, n, 100, "vllm"), 3); /* 128 is nearer than 64 */
	cr_assert_eq(slab_sweep_peak(s, n, 96, "vllm"), 1);  /* a tie: the lower */
	cr_assert_eq(slab_sweep_peak(s, n, 2048, NULL), 3);
	cr_assert_eq(slab_sweep_peak(s, n, 64, "trt"), -1);
}

#define HDR                                                                                        \
	"row_id\tmodel\tgpu\tprecision\tframework_or_config_note\tisl\tosl\t"                      \
	"interactivity_tok_s_user\tthroughput_tok_s_gpu\tcost_usd_per_m_tokens\t"                  \
	"other_metric_name\tother_metric_value\tpage_kind\n"

Test(sim_frontier, rows_read_as_series)
{
	const char *path = write_tmp(
	    "p.tsv", HDR
	    "1\tMiniMax M3\tMI300X\tFP8\tper-dollar page; best available config per "
	    "GPU\t1024\t1024\t"
	    "55\t\t0.871\tconcurrency_approx\t29\tcompare-per-dollar\n"
	    "2\tGLM-5\tMI355X\tFP8\tSGLang FP8 non-MTP; iso-interactivity cost; 2026-05-20\t8192\t"
	    "1024\t15\t\t0.28\t\t\tblog-interpolated\n"
	    "3\tQwen 3.5 397B-A17B\tMI355X\tFP8\tspeculative decoding = MTP; spec-decode "
	    "page\t1024\t"
	    "1024\t50\t2000\t\t\t\tcompare-spec-decode\n"
	    "4\tMiniMax M2.5\tB200\tFP8\tbest available serving config for that side (may include "
	    "speculative decoding such as MTP where recipes exist)\t1024\t1024\t40\t3000\t\t\t\t"
	    "compare-precision\n"
	    "5\tMiniMax M2.5\tB200\tFP8\tvllm; peak config\t8192\t1024\t\t9652.0\t0.06\t"
	    "median_TTFT_ms;median_TPOT_ms;concurrency\t436.4;58.4;256\tblog-peak\n"
	    "6\tDeepSeek R1 0528\tB200\tFP4\tdynamo-trt; peak\t1024\t1024\t\t13429.7\t0.04\t"
	    "median_TTFT_ms;median_TPOT_ms;concurrency\t4144.9;33.5;1691\tblog-peak\n"
	    "7\tgpt-oss 120B\tB200\tFP4\ttrt; peak\t8192\t1024\t\t9420.6\t\tpeak_throughput\t"
	    "9420.6\tblog-peak\n");
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	slab_point *p;
	size_t n;
	cr_assert_eq(slab_points_load(path, a, &p, &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 7);
	/* a cost-only row: throughput from the README's formula at MI300X's $1.12 */
	cr_assert_eq(p[0].kind, SLAB_POINT_FRONTIER);
	cr_assert_null(p[0].why);
	cr_assert(p[0].tps_from_cost);
	cr_assert_float_eq(p[0].tps_gpu, 1.12 / (0.871 * 0.0036), 1e-9);
	cr_assert_eq(p[0].tp, 0); /* TP / EP are the sweep's */
	/* non-MTP rules spec decoding out; MTP pages require it; "may include" allows it */
	cr_assert(p[1].no_spec);
	cr_assert_null(p[1].spec);
	cr_assert_str_eq(p[1].framework, "sglang");
	cr_assert_str_eq(p[2].spec, "mtp");
	cr_assert_not(p[2].no_spec);
	cr_assert_null(p[3].spec);
	cr_assert_not(p[3].no_spec);
	cr_assert(slab_point_same_series(&p[3], &p[3]));
	cr_assert_not(slab_point_same_series(&p[3], &p[4])); /* ISL and framework differ */
	/* peak rows: concurrency and TPOT -> interactivity */
	cr_assert_eq(p[4].kind, SLAB_POINT_PEAK);
	cr_assert_null(p[4].why);
	cr_assert_eq(p[4].conc, 256);
	cr_assert_float_eq(p[4].interactivity, 1000 / 58.4, 1e-9);
	cr_assert_not(p[4].tps_from_cost);
	/* Dynamo serves multi-node disaggregated recipes: runnable, its worker
	 * counts come from the master configs' multi-node rows (the sweep);
	 * no concurrency: no peak */
	cr_assert(p[5].disagg);
	cr_assert_null(p[5].why);
	cr_assert_not(slab_point_same_series(&p[4], &p[5]));
	cr_assert_not_null(p[6].why);
	cr_assert_not_null(strstr(p[6].why, "concurrency"));
	ib_arena_free(a);
}

Test(sim_frontier, sweep_space_and_calibration_fallback)
{
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	sim_calib_file cal;
	slab_point *p = load_points_calib(
	    a,
	    HDR "1\tLlama 3.3 70B\tB300\tFP8\tvLLM; frontier\t1024\t1024\t40\t1000\t\t\t\t"
	        "compare\n"
	        "2\tLlama 3.3 70B\tB300\tFP8\tvLLM TP=4; measured\t1024\t1024\t40\t1000\t\t"
	        "TPOT_ms;concurrency\t25;8\tblog-measured\n",
	    "rules:\n"
	    "  - match: {framework: vllm, hardware: b200}\n"
	    "    step-overhead-us: 777\n",
	    &cal);
	/* B300 has no rule of its own: the B200 rule applies (same architecture) */
	sim_config c;
	cr_assert_eq(slab_point_config(&p[1], &cal, &c, &e), 0, "%s", e.msg);
	cr_assert_float_eq(c.step_overhead_s, 777e-6, 1e-12);
	cr_assert_str_eq(c.hw.name, "b300"); /* the hardware itself stays B300 */
	/* the sweep: dense model -> EP 1 and no DP-attention; no spec method for Llama */
	slab_sweep_opts o = {.prompts_per_conc = 1, .max_conc = 16};
	slab_sweep_point *s;
	size_t ns, nconf;
	cr_assert_eq(slab_sweep_run(&p[0], &cal, &o, &s, &ns, &nconf, &e), 0, "%s", e.msg);
	cr_assert_eq(nconf, 4 * 3); /* TP 1, 2, 4, 8 x concurrency 4, 8, 16 */
	cr_assert_eq(ns, nconf);    /* 70B in FP8 fits one B300 */
	for (size_t i = 0; i < ns; i++) {
		cr_assert_eq(s[i].ep, 1);
		cr_assert_not(s[i].dp_attn);
		cr_assert_null(s[i].spec);
		cr_assert_str_eq(s[i].framework, "vllm");
		cr_assert_gt(s[i].tps_gpu, 0);
		cr_assert_gt(s[i].interactivity, 0);
	}
	/* more concurrency on one config: more throughput, less interactivity */
	cr_assert_eq(s[0].tp, 1);
	cr_assert_eq(s[2].conc, 16);
	cr_assert_gt(s[2].tps_gpu, s[0].tps_gpu);
	cr_assert_lt(s[2].interactivity, s[0].interactivity);
	free(s);
	/* a measured row is not a series */
	cr_assert_eq(slab_sweep_run(&p[1], &cal, &o, &s, &ns, &nconf, &e), IB_EINVAL);
	ib_arena_free(a);
}

/* A sweep restricted to some of its configs (slab_sweep_opts.only, what the
 * frontier fit of `sim calibrate` runs) gives those configs exactly the
 * figures the whole sweep gives them: a config's load does not depend on
 * its place in the sweep. */
Test(sim_frontier, subset_sweep_gives_the_same_figures)
{
	const char *tsv = write_tmp(
	    "p.tsv", HDR "1\tQwen 3.5 397B-A17B\tMI355X\tFP8\tSGLang; frontier\t1024\t1024\t40\t"
	                 "1000\t\t\t\tcompare\n");
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	slab_point *p;
	size_t n;
	cr_assert_eq(slab_points_load(tsv, a, &p, &n, &e), 0, "%s", e.msg);
	slab_sweep_opts o = {.prompts_per_conc = 1, .max_conc = 16};
	slab_sweep_point *s, *t;
	size_t ns, nt, nconf;
	cr_assert_eq(slab_sweep_run(&p[0], NULL, &o, &s, &ns, &nconf, &e), 0, "%s", e.msg);
	cr_assert_gt(ns, 6);
	/* every third config, in reverse order */
	slab_sweep_config only[64];
	size_t k = 0;
	for (size_t i = ns; i-- > 0 && k < 64;)
		if (i % 3 == 0)
			only[k++] = slab_sweep_config_of(&s[i]);
	o.only = only;
	o.nonly = k;
	cr_assert_eq(slab_sweep_run(&p[0], NULL, &o, &t, &nt, &nconf, &e), 0, "%s", e.msg);
	cr_assert_eq(nconf, k);
	cr_assert_eq(nt, k);
	for (size_t j = 0; j < nt; j++) {
		size_t i = ns - 1 - 3 * j - (ns - 1) % 3; /* the config only[j] came from */
		cr_assert_eq(t[j].tp, s[i].tp);
		cr_assert_eq(t[j].conc, s[i].conc);
		cr_assert_eq(t[j].dp_attn, s[i].dp_attn);
		cr_assert_float_eq(t[j].tps_gpu, s[i].tps_gpu, 1e-9 * s[i].tps_gpu);
		cr_assert_float_eq(t[j].interactivity, s[i].interactivity,
		                   1e-9 * s[i].interactivity);
		cr_assert_eq(t[j].source, SLAB_SWEEP_GIVEN); /* not the matrix's */
	}
	free(s);
	free(t);
	/* an empty subset runs nothing (not the whole space) */
	o.nonly = 0;
	cr_assert_eq(slab_sweep_run(&p[0], NULL, &o, &t, &nt, &nconf, &e), 0, "%s", e.msg);
	cr_assert_eq(nt, 0);
	cr_assert_eq(nconf, 0);
	free(t);
	ib_arena_free(a);
}

Test(sim_frontier, moe_sweep_has_ep_dpa_and_spec)
{
	const char *tsv = write_tmp(
	    "p.tsv", HDR "1\tQwen 3.5 397B-A17B\tMI355X\tFP8\tSGLang; frontier\t1024\t1024\t40\t"
	                 "1000\t\t\t\tcompare\n");
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	slab_point *p;
	size_t n;
	cr_assert_eq(slab_points_load(tsv, a, &p, &n, &e), 0, "%s", e.msg);
	slab_sweep_opts o = {.prompts_per_conc = 1, .max_conc = 4};
	slab_sweep_point *s;
	size_t ns, nconf;
	cr_assert_eq(slab_sweep_run(&p[0], NULL, &o, &s, &ns, &nconf, &e), 0, "%s", e.msg);
	/* TP 1 (EP 1 only) + TP 2, 4, 8 x (EP 1, EP = TP, EP = TP + DPA), each without and
	 * with MTP, one concurrency */
	cr_assert_eq(nconf, (1 + 3 * 3) * 2);
	bool dpa = false, ep = false, spec = false;
	for (size_t i = 0; i < ns; i++) {
		dpa |= s[i].dp_attn;
		ep |= s[i].ep > 1;
		if (s[i].spec) {
			spec = true;
			cr_assert_str_eq(s[i].spec, "mtp");
		}
	}
	cr_assert(dpa && ep && spec);
	free(s);
	o.no_spec = true;
	cr_assert_eq(slab_sweep_run(&p[0], NULL, &o, &s, &ns, &nconf, &e), 0, "%s", e.msg);
	cr_assert_eq(nconf, 1 + 3 * 3);
	free(s);
	ib_arena_free(a);
}

Test(sim_frontier, matrix_rows_of_a_series)
{
	const char *tsv =
	    write_tmp("p.tsv", HDR
	              "1\tQwen 3.5 397B-A17B\tMI355X\tFP8\tspeculative decoding = Off\t1024\t1024\t"
	              "40\t1000\t\t\t\tcompare-spec-decode\n"
	              "2\tQwen 3.5 397B-A17B\tMI355X\tFP8\tspeculative decoding = MTP\t1024\t1024\t"
	              "40\t1000\t\t\t\tcompare-spec-decode\n");
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	slab_point *p;
	size_t n;
	cr_assert_eq(slab_points_load(tsv, a, &p, &n, &e), 0, "%s", e.msg);
	/* rows as `matrix full-sweep` writes them (the keys the sweep reads) */
	const char *json =
	    "["
	    "{\"model-prefix\":\"qwen3.5\",\"precision\":\"fp8\",\"framework\":\"sglang\","
	    "\"runner\":\"mi355x\",\"isl\":1024,\"osl\":1024,\"tp\":4,\"ep\":1,\"pp\":1,\"conc\":8,"
	    "\"dp-attn\":false,\"spec-decoding\":\"none\",\"disagg\":false},"
	    /* the same config again (another runner node): once */
	    "{\"model-prefix\":\"qwen3.5\",\"precision\":\"fp8\",\"framework\":\"sglang\","
	    "\"runner\":\"mi355x\",\"isl\":1024,\"osl\":1024,\"tp\":4,\"ep\":1,\"pp\":1,\"conc\":8,"
	    "\"dp-attn\":false,\"spec-decoding\":\"none\",\"disagg\":false},"
	    "{\"model-prefix\":\"qwen3.5\",\"precision\":\"fp8\",\"framework\":\"atom\","
	    "\"runner\":\"cluster:mi355x-amds\",\"isl\":1024,\"osl\":1024,\"tp\":8,\"ep\":8,\"pp\":"
	    "1,"
	    "\"conc\":64,\"dp-attn\":true,\"spec-decoding\":\"mtp\",\"disagg\":false},"
	    /* not the series: 8k1k, another GPU, another precision, disaggregated, too much conc */
	    "{\"model-prefix\":\"qwen3.5\",\"precision\":\"fp8\",\"framework\":\"sglang\","
	    "\"runner\":\"mi355x\",\"isl\":8192,\"osl\":1024,\"tp\":4,\"ep\":1,\"conc\":8,"
	    "\"spec-decoding\":\"none\"},"
	    "{\"model-prefix\":\"qwen3.5\",\"precision\":\"fp8\",\"framework\":\"sglang\","
	    "\"runner\":\"mi325x\",\"isl\":1024,\"osl\":1024,\"tp\":4,\"ep\":1,\"conc\":8,"
	    "\"spec-decoding\":\"none\"},"
	    "{\"model-prefix\":\"qwen3.5\",\"precision\":\"fp4\",\"framework\":\"sglang\","
	    "\"runner\":\"mi355x\",\"isl\":1024,\"osl\":1024,\"tp\":4,\"ep\":1,\"conc\":8,"
	    "\"spec-decoding\":\"none\"},"
	    "{\"model-prefix\":\"qwen3.5\",\"precision\":\"fp8\",\"framework\":\"sglang\","
	    "\"runner\":\"mi355x\",\"isl\":1024,\"osl\":1024,\"tp\":4,\"ep\":1,\"conc\":8,"
	    "\"spec-decoding\":\"none\",\"disagg\":true},"
	    "{\"model-prefix\":\"qwen3.5\",\"precision\":\"fp8\",\"framework\":\"sglang\","
	    "\"runner\":\"mi355x\",\"isl\":1024,\"osl\":1024,\"tp\":4,\"ep\":1,\"conc\":1024,"
	    "\"spec-decoding\":\"none\"},"
	    /* multi-node: disaggregated (2 prefill TP 4 DPA, 3 decode TP 8 EP 8) with a
	     * concurrency list, and aggregated over 2 workers (no decode workers) */
	    "{\"model-prefix\":\"qwen3.5\",\"precision\":\"fp8\",\"framework\":\"sglang-disagg\","
	    "\"runner\":\"mi355x-disagg\",\"isl\":1024,\"osl\":1024,\"conc\":[16,32,2048],"
	    "\"spec-decoding\":\"none\",\"disagg\":true,"
	    "\"prefill\":{\"num-worker\":2,\"tp\":4,\"ep\":1,\"dp-attn\":true,\"pp\":1},"
	    "\"decode\":{\"num-worker\":3,\"tp\":8,\"ep\":8,\"dp-attn\":false,\"pp\":1}},"
	    "{\"model-prefix\":\"qwen3.5\",\"precision\":\"fp8\",\"framework\":\"dynamo-sglang\","
	    "\"runner\":\"mi355x\",\"isl\":1024,\"osl\":1024,\"conc\":[64],"
	    "\"spec-decoding\":\"none\",\"disagg\":false,"
	    "\"prefill\":{\"num-worker\":2,\"tp\":8,\"ep\":8,\"dp-attn\":false,\"pp\":1},"
	    "\"decode\":{\"num-worker\":0,\"tp\":8,\"ep\":1,\"dp-attn\":false,\"pp\":1}}"
	    "]";
	ib_val *rows;
	cr_assert_eq(ib_json_parse(a, "m.json", json, strlen(json), &rows, &e), 0, "%s", e.msg);
	slab_sweep_config *c;
	size_t nc;
	slab_sweep_opts mo = {.max_conc = 512};
	cr_assert_eq(slab_sweep_from_matrix(rows, &p[0], &mo, &c, &nc), 0);
	cr_assert_eq(nc, 1); /* spec decoding off: the MTP row is not this series' */
	cr_assert_str_eq(c[0].framework, "sglang");
	cr_assert_eq(c[0].tp, 4);
	cr_assert_eq(c[0].conc, 8);
	cr_assert_null(c[0].spec);
	cr_assert_eq(c[0].pools.replicas, 0);
	free(c);
	/* with multi-node configs: each concurrency of the list up to the
	 * cap, the decode worker's shape and both pools */
	mo.max_conc_multinode = 1024;
	cr_assert_eq(slab_sweep_from_matrix(rows, &p[0], &mo, &c, &nc), 0);
	cr_assert_eq(nc, 4);
	cr_assert_eq(c[1].conc, 16);
	cr_assert_eq(c[2].conc, 32);
	cr_assert_eq(c[1].tp, 8);
	cr_assert_eq(c[1].ep, 8);
	cr_assert_not(c[1].dp_attn);
	cr_assert_eq(c[1].pools.replicas, 3);
	cr_assert_eq(c[1].pools.prefill_workers, 2);
	cr_assert_eq(c[1].pools.prefill_tp, 4);
	cr_assert(c[1].pools.prefill_dp_attn);
	cr_assert_eq(c[3].conc, 64); /* aggregated: 2 workers of TP 8 EP 8 */
	cr_assert_eq(c[3].tp, 8);
	cr_assert_eq(c[3].ep, 8);
	cr_assert_eq(c[3].pools.replicas, 2);
	cr_assert_eq(c[3].pools.prefill_workers, 0);
	free(c);
	/* a disaggregated peak row takes the multi-node configs only */
	slab_point dp = p[0];
	dp.kind = SLAB_POINT_PEAK;
	dp.disagg = true;
	cr_assert_eq(slab_sweep_from_matrix(rows, &dp, &mo, &c, &nc), 0);
	cr_assert_eq(nc, 3);
	cr_assert_eq(c[0].pools.prefill_workers, 2);
	free(c);
	/* it runs: tok/s/GPU over both pools' 8 + 24 GPUs */
	slab_sweep_opts ro = {
	    .prompts_per_conc = 1, .max_conc = 512, .max_conc_multinode = 16, .matrix = rows};
	slab_sweep_point *sp;
	size_t nsp, nconf0;
	cr_assert_eq(slab_sweep_run(&dp, NULL, &ro, &sp, &nsp, &nconf0, &e), 0, "%s", e.msg);
	cr_assert_eq(nsp, 1);
	cr_assert_eq(sp[0].pools.replicas, 3);
	cr_assert_gt(sp[0].tps_gpu, 0);
	free(sp);
	mo.max_conc_multinode = 0;
	cr_assert_eq(slab_sweep_from_matrix(rows, &p[1], &mo, &c, &nc), 0);
	cr_assert_eq(nc, 1); /* spec decoding required: only the MTP row */
	cr_assert_str_eq(c[0].framework, "atom");
	cr_assert_str_eq(c[0].spec, "mtp");
	cr_assert_eq(c[0].ep, 8);
	cr_assert(c[0].dp_attn);
	free(c);
	/* the sweep runs the matrix's configs, marked as such */
	slab_sweep_opts o = {.prompts_per_conc = 1, .max_conc = 512, .matrix = rows};
	slab_sweep_point *s;
	size_t ns, nconf;
	cr_assert_eq(slab_sweep_run(&p[1], NULL, &o, &s, &ns, &nconf, &e), 0, "%s", e.msg);
	cr_assert_eq(nconf, 1);
	cr_assert_eq(ns, 1);
	cr_assert_eq(s[0].source, SLAB_SWEEP_MATRIX);
	free(s);
	/* a series the matrix has at another workload only: that workload's
	 * configs (here the 8k/1k row's TP 4 and the 1k/1k rows'), at the
	 * generic concurrencies, never a multi-node one */
	slab_point ow = p[0];
	ow.isl = 2048;
	mo.max_conc = 16;
	mo.max_conc_multinode = 1024;
	cr_assert_eq(slab_sweep_from_matrix(rows, &ow, &mo, &c, &nc), 0);
	cr_assert_eq(nc, 0);
	cr_assert_eq(slab_sweep_other_workload(rows, &ow, &mo, &c, &nc), 0);
	cr_assert_eq(nc, 3, "%zu",
	             nc); /* sglang TP 4 at 4, 8, 16; the MTP row is not the series' */
	for (size_t i = 0; i < nc; i++) {
		cr_assert_str_eq(c[i].framework, "sglang");
		cr_assert_eq(c[i].tp, 4);
		cr_assert_null(c[i].spec);
		cr_assert_eq(c[i].pools.replicas, 0);
		cr_assert_eq(c[i].conc, 4 << i);
	}
	free(c);
	/* ... and the sweep runs them, from the matrix */
	o.max_conc = 8;
	ow.kind = SLAB_POINT_FRONTIER;
	cr_assert_eq(slab_sweep_run(&ow, NULL, &o, &s, &ns, &nconf, &e), 0, "%s", e.msg);
	cr_assert_eq(nconf, 2);
	cr_assert(ns > 0 && s[0].tp == 4);
	free(s);
	/* a series the matrix does not cover: the generic space */
	o.max_conc = 4;
	p[1].gpu = "b200";
	cr_assert_eq(slab_sweep_run(&p[1], NULL, &o, &s, &ns, &nconf, &e), 0, "%s", e.msg);
	cr_assert_gt(nconf, 1);
	cr_assert(ns > 0 && s[0].source == SLAB_SWEEP_GENERIC);
	free(s);
	ib_arena_free(a);
}

/* A framework without a rule on a GPU takes the rules of the framework
 * calibrated there (same GPU, its kernels and host), not the global rule;
 * a framework with its own rule keeps it. */
Test(sim_frontier, calibration_falls_back_to_the_gpus_framework)
{
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	sim_calib_file cal;
	slab_point *p = load_points_calib(
	    a,
	    HDR "1\tDeepSeek R1 0528\tB200\tFP8\tSGLang TP=8; measured\t1024\t1024\t40\t"
	        "1000\t\tconcurrency\t8\tblog-measured\n"
	        "2\tDeepSeek R1 0528\tMI355X\tFP8\tSGLang TP=8; measured\t1024\t1024\t40\t"
	        "1000\t\tconcurrency\t8\tblog-measured\n"
	        "3\tDeepSeek R1 0528\tH200\tFP8\tSGLang TP=8; measured\t1024\t1024\t40\t"
	        "1000\t\tconcurrency\t8\tblog-measured\n",
	    "rules:\n"
	    "  - step-overhead-us: 9999\n"
	    "  - match: {framework: vllm, hardware: b200}\n"
	    "    step-overhead-us: 777\n"
	    "  - match: {framework: sglang, hardware: mi355x}\n"
	    "    step-overhead-us: 555\n",
	    &cal);
	sim_config c;
	cr_assert_eq(slab_point_config(&p[0], &cal, &c, &e), 0, "%s", e.msg);
	cr_assert_float_eq(c.step_overhead_s, 777e-6, 1e-12); /* vLLM's B200 rule */
	cr_assert_str_eq(c.framework, "sglang");              /* still an SGLang server */
	cr_assert_eq(slab_point_config(&p[1], &cal, &c, &e), 0, "%s", e.msg);
	cr_assert_float_eq(c.step_overhead_s, 555e-6, 1e-12); /* its own rule */
	cr_assert_eq(slab_point_config(&p[2], &cal, &c, &e), 0, "%s", e.msg);
	cr_assert_float_eq(c.step_overhead_s, 9999e-6, 1e-12); /* nothing on H200: global */
	ib_arena_free(a);
}

/* A model without a rule on its GPU takes its rules from a sibling GPU of
 * the same architecture that has one (H100 <- H200), before another
 * model's rules on its own GPU; with a rule of its own it keeps it. */
Test(sim_frontier, calibration_takes_the_models_rule_from_a_sibling_gpu)
{
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	sim_calib_file cal;
	slab_point *p = load_points_calib(
	    a,
	    HDR "1\tMiniMax M3\tH100\tFP8\tvLLM TP=8; measured\t1024\t1024\t40\t"
	        "1000\t\tconcurrency\t8\tblog-measured\n"
	        "2\tMiniMax M2.5\tH100\tFP8\tvLLM TP=8; measured\t1024\t1024\t40\t"
	        "1000\t\tconcurrency\t8\tblog-measured\n"
	        "3\tMiniMax M3\tB200\tFP8\tvLLM TP=8; measured\t1024\t1024\t40\t"
	        "1000\t\tconcurrency\t8\tblog-measured\n",
	    "rules:\n"
	    "  - match: {framework: vllm, hardware: h100}\n"
	    "    step-overhead-us: 555\n"
	    "  - match: {framework: vllm, hardware: h200}\n"
	    "    step-overhead-us: 222\n"
	    "  - match: {framework: vllm, hardware: h200, model: minimax-m3}\n"
	    "    seq-overhead-us: 33\n"
	    "  - match: {framework: vllm, hardware: b200}\n"
	    "    step-overhead-us: 777\n",
	    &cal);
	sim_config c;
	/* M3 on H100: H200's rules, its model rule included */
	cr_assert_eq(slab_point_config(&p[0], &cal, &c, &e), 0, "%s", e.msg);
	cr_assert_float_eq(c.step_overhead_s, 222e-6, 1e-12);
	cr_assert_float_eq(c.seq_overhead_s, 33e-6, 1e-12);
	cr_assert_str_eq(c.hw.name, "h100"); /* the hardware stays H100 */
	/* M2.5 has no model rule anywhere: H100's own rule */
	cr_assert_eq(slab_point_config(&p[1], &cal, &c, &e), 0, "%s", e.msg);
	cr_assert_float_eq(c.step_overhead_s, 555e-6, 1e-12);
	cr_assert_float_eq(c.seq_overhead_s, 0, 1e-12);
	/* B200 is no sibling of H200: its own rule */
	cr_assert_eq(slab_point_config(&p[2], &cal, &c, &e), 0, "%s", e.msg);
	cr_assert_float_eq(c.step_overhead_s, 777e-6, 1e-12);
	ib_arena_free(a);
}

/* A rule for one precision only (a frontier rule of `sim calibrate`) does
 * not make its GPU calibrated for the other precisions: B300 FP4 still
 * borrows B200's rules, B300 FP8 takes its own. */
Test(sim_frontier, a_precision_rule_calibrates_only_that_precision)
{
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	sim_calib_file cal;
	slab_point *p = load_points_calib(
	    a,
	    HDR "1\tMiniMax M3\tB300\tFP8\tvLLM TP=4; measured\t1024\t1024\t40\t"
	        "1000\t\tconcurrency\t8\tblog-measured\n"
	        "2\tMiniMax M3\tB300\tFP4\tvLLM TP=4; measured\t1024\t1024\t40\t"
	        "1000\t\tconcurrency\t8\tblog-measured\n",
	    "rules:\n"
	    "  - step-overhead-us: 9999\n"
	    "  - match: {framework: vllm, hardware: b200}\n"
	    "    step-overhead-us: 777\n"
	    "  - match: {framework: [vllm], hardware: b300, model: minimax-m3, precision: fp8}\n"
	    "    step-overhead-us: 333\n",
	    &cal);
	sim_config c;
	cr_assert_eq(slab_point_config(&p[0], &cal, &c, &e), 0, "%s", e.msg);
	cr_assert_float_eq(c.step_overhead_s, 333e-6, 1e-12); /* its own FP8 rule */
	cr_assert_eq(slab_point_config(&p[1], &cal, &c, &e), 0, "%s", e.msg);
	cr_assert_float_eq(c.step_overhead_s, 777e-6, 1e-12); /* B200's, not the global */
	cr_assert_str_eq(c.hw.name, "b300");
	ib_arena_free(a);
}

/* The generic space adds optional speculative decoding only for a model
 * that has a spec-decoding recipe in the sweep matrix (any GPU); without a
 * matrix, always; a row that requires it keeps it. */
Test(sim_frontier, generic_space_spec_only_where_a_recipe_exists)
{
	const char *tsv = write_tmp(
	    "p.tsv", HDR "1\tKimi K2.5\tB200\tINT4\tvLLM; frontier\t1024\t1024\t40\t1000\t\t\t\t"
	                 "compare\n"
	                 "2\tKimi K2.5\tB200\tINT4\tspeculative decoding = EAGLE\t1024\t1024\t40\t"
	                 "1000\t\t\t\tcompare-spec-decode\n");
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	slab_point *p;
	size_t n;
	cr_assert_eq(slab_points_load(tsv, a, &p, &n, &e), 0, "%s", e.msg);
	/* the matrix has Kimi only without spec decoding (another GPU) */
	const char *none = "[{\"model-prefix\":\"kimik2.5\",\"precision\":\"int4\",\"framework\":"
	                   "\"vllm\",\"runner\":\"h200\",\"isl\":1024,\"osl\":1024,\"tp\":8,"
	                   "\"ep\":1,\"conc\":8,\"spec-decoding\":\"none\"}]";
	const char *eagle = "[{\"model-prefix\":\"kimik2.5\",\"precision\":\"int4\",\"framework\":"
	                    "\"vllm\",\"runner\":\"h200\",\"isl\":1024,\"osl\":1024,\"tp\":8,"
	                    "\"ep\":1,\"conc\":8,\"spec-decoding\":\"eagle\"}]";
	ib_val *rows_none, *rows_eagle;
	cr_assert_eq(ib_json_parse(a, "n.json", none, strlen(none), &rows_none, &e), 0, "%s",
	             e.msg);
	cr_assert_eq(ib_json_parse(a, "e.json", eagle, strlen(eagle), &rows_eagle, &e), 0, "%s",
	             e.msg);
	slab_sweep_opts o = {.prompts_per_conc = 1, .max_conc = 4};
	const ib_val *m[3] = {NULL, rows_none, rows_eagle};
	size_t with_spec[3];
	for (int k = 0; k < 3; k++) {
		o.matrix = m[k];
		slab_sweep_point *s;
		size_t ns, nconf;
		cr_assert_eq(slab_sweep_run(&p[0], NULL, &o, &s, &ns, &nconf, &e), 0, "%s", e.msg);
		with_spec[k] = 0;
		for (size_t i = 0; i < ns; i++)
			with_spec[k] += s[i].spec != NULL;
		free(s);
	}
	cr_assert_gt(with_spec[0], 0); /* no matrix: spec on and off */
	cr_assert_eq(with_spec[1], 0); /* no recipe: spec off only */
	cr_assert_gt(with_spec[2], 0); /* a recipe (on H200): on and off */
	/* a row that requires spec decoding sweeps it whatever the matrix says */
	o.matrix = rows_none;
	slab_sweep_point *s;
	size_t ns, nconf;
	cr_assert_eq(slab_sweep_run(&p[1], NULL, &o, &s, &ns, &nconf, &e), 0, "%s", e.msg);
	cr_assert_gt(ns, 0);
	for (size_t i = 0; i < ns; i++)
		cr_assert_not_null(s[i].spec);
	free(s);
	ib_arena_free(a);
}

/* A framework named only by a rule of another model (a frontier rule of
 * `sim calibrate`) is not calibrated on that GPU for this model: SGLang
 * Qwen 3.5 on B200 still takes vLLM's B200 rule, SGLang DeepSeek R1 FP8 its
 * own; the generic space sweeps only the frameworks of rules that apply. */
Test(sim_frontier, a_model_rule_names_its_framework_only_for_that_model)
{
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	sim_calib_file cal;
	slab_point *p = load_points_calib(
	    a,
	    HDR "1\tDeepSeek R1 0528\tB200\tFP8\tSGLang TP=8; measured\t1024\t1024\t40\t"
	        "1000\t\tconcurrency\t8\tblog-measured\n"
	        "2\tQwen 3.5 397B-A17B\tB200\tFP8\tSGLang TP=8; measured\t1024\t1024\t40\t"
	        "1000\t\tconcurrency\t8\tblog-measured\n"
	        "3\tQwen 3.5 397B-A17B\tB200\tFP8\tbest available config\t1024\t1024\t40\t"
	        "1000\t\t\t\tcompare\n",
	    "rules:\n"
	    "  - step-overhead-us: 9999\n"
	    "  - match: {framework: vllm, hardware: b200}\n"
	    "    step-overhead-us: 777\n"
	    "  - match: {framework: [sglang], hardware: b200, model: deepseek-r1, precision: fp8}\n"
	    "    step-overhead-us: 333\n",
	    &cal);
	sim_config c;
	cr_assert_eq(slab_point_config(&p[0], &cal, &c, &e), 0, "%s", e.msg);
	cr_assert_float_eq(c.step_overhead_s, 333e-6, 1e-12); /* its own rule */
	cr_assert_eq(slab_point_config(&p[1], &cal, &c, &e), 0, "%s", e.msg);
	cr_assert_float_eq(c.step_overhead_s, 777e-6, 1e-12); /* vLLM's, not the global */
	cr_assert_str_eq(c.framework, "sglang");
	slab_sweep_opts o = {.prompts_per_conc = 1, .max_conc = 4, .no_spec = true};
	slab_sweep_point *s;
	size_t ns, nconf;
	cr_assert_eq(slab_sweep_run(&p[2], &cal, &o, &s, &ns, &nconf, &e), 0, "%s", e.msg);
	cr_assert_gt(ns, 0);
	for (size_t i = 0; i < ns; i++)
		cr_assert_str_eq(s[i].framework, "vllm");
	free(s);
	ib_arena_free(a);
}
