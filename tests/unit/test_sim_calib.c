/* The calibration file (docs/sim.md "Calibration") and the modelling terms
 * of the performance model that it and the profiles feed. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simlab/simlab.h"

static char tmpdir[64];

static const char *write_tmp(const char *text)
{
	static char path[128];
	if (!tmpdir[0]) {
		strcpy(tmpdir, "/tmp/ib-simcal-XXXXXX");
		cr_assert_not_null(mkdtemp(tmpdir));
	}
	snprintf(path, sizeof path, "%s/c.yaml", tmpdir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void cleanup(void)
{
	char path[128];
	snprintf(path, sizeof path, "%s/c.yaml", tmpdir);
	unlink(path);
	rmdir(tmpdir);
	tmpdir[0] = 0;
}

TestSuite(simcal, .fini = cleanup);

Test(simcal, rules_apply_in_order_and_match_keys)
{
	const char *p =
	    write_tmp("rules:\n"
	              "  - note: base\n"
	              "    mem-eff: 0.7\n"
	              "    step-overhead-us: 500\n"
	              "  - match: {framework: sglang, hardware: [mi300x, mi355x]}\n"
	              "    step-overhead-us: 9000\n"
	              "    seq-overhead-us: 20\n"
	              "  - match: {framework: sglang, hardware: mi355x, precision: fp4}\n"
	              "    compute-eff: 0.4\n"
	              "  - match: {framework: sglang, version: [v0.5.10rc0, \"2026-05-21\"]}\n"
	              "    step-overhead-us: 100\n");
	ib_arena *a = ib_arena_new();
	ib_diags d = {.a = a};
	ib_error e = {0};
	sim_calib_file f;
	cr_assert_eq(sim_calib_load(p, a, &f, &d, &e), 0, "%s", e.msg);
	cr_assert_eq(f.n, 4);
	sim_calib c;
	sim_calib_resolve(&f, &(sim_calib_key){"vllm", "h100", "bf16", "llama3-8b", "none", NULL},
	                  &c);
	cr_assert_float_eq(c.mem_eff, 0.7, 1e-12);
	cr_assert_float_eq(c.step_overhead_s, 500e-6, 1e-12);
	cr_assert_float_eq(c.compute_eff, 0.6, 1e-12); /* the default */
	cr_assert_float_eq(c.seq_overhead_s, 0, 1e-12);
	sim_calib_resolve(
	    &f, &(sim_calib_key){"sglang", "mi355x", "fp8", "llama3-8b", "none", NULL}, &c);
	cr_assert_float_eq(c.step_overhead_s, 9000e-6, 1e-12);
	cr_assert_float_eq(c.seq_overhead_s, 20e-6, 1e-12);
	cr_assert_float_eq(c.compute_eff, 0.6, 1e-12);
	sim_calib_resolve(&f, &(sim_calib_key){"SGLang", "MI355X", "fp4", "x", NULL, NULL}, &c);
	cr_assert_float_eq(c.compute_eff, 0.4, 1e-12); /* names match case-insensitively */
	/* a version rule applies to that build only */
	sim_calib_resolve(&f, &(sim_calib_key){"sglang", "mi355x", "fp8", "x", NULL, "v0.5.10rc0"},
	                  &c);
	cr_assert_float_eq(c.step_overhead_s, 100e-6, 1e-12);
	sim_calib_resolve(&f, &(sim_calib_key){"sglang", "mi355x", "fp8", "x", NULL, "v0.5.8"}, &c);
	cr_assert_float_eq(c.step_overhead_s, 9000e-6, 1e-12);
	/* an unknown framework matches only unconstrained rules */
	sim_calib_resolve(&f, &(sim_calib_key){NULL, "mi355x", "fp4", NULL, NULL, NULL}, &c);
	cr_assert_float_eq(c.step_overhead_s, 500e-6, 1e-12);
	/* no file: the defaults */
	sim_calib_resolve(NULL, &(sim_calib_key){0}, &c);
	sim_calib def;
	sim_calib_defaults(&def);
	cr_assert_eq(memcmp(&c, &def, sizeof c), 0);
	ib_arena_free(a);
}

/* Every problem is reported, each with its line and field. */
Test(simcal, errors_name_file_line_and_field)
{
	const char *p = write_tmp("rules:\n"                      /* 1 */
	                          "  - mem-eff: 1.5\n"            /* 2: out of range */
	                          "    wings: 3\n"                /* 3: unknown parameter */
	                          "  - match: {hardware: h900}\n" /* 4: unknown GPU */
	                          "    compute-eff: fast\n"       /* 5: not a number */
	                          "  - match: {colour: red}\n"    /* 6: unknown match key */
	                          "    ep-imbalance: 0.5\n");     /* 7: below 1 */
	ib_arena *a = ib_arena_new();
	ib_diags d = {.a = a};
	ib_error e = {0};
	sim_calib_file f;
	cr_assert_eq(sim_calib_load(p, a, &f, &d, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "6 problems"), "%s", e.msg);
	struct {
		int line;
		const char *field, *words;
	} want[] = {{2, "mem-eff", "out of range"}, {3, "wings", "unknown parameter"},
	            {4, "match.hardware", "h900"},  {5, "compute-eff", "number"},
	            {6, "match", "colour"},         {7, "ep-imbalance", "out of range"}};
	cr_assert_eq(d.n, 6);
	for (size_t i = 0; i < 6; i++) {
		cr_assert_eq(d.items[i].line, want[i].line, "item %zu: line %d", i,
		             d.items[i].line);
		cr_assert_str_eq(d.items[i].field, want[i].field);
		cr_assert(strstr(d.items[i].msg, want[i].words), "%s", d.items[i].msg);
		cr_assert_str_eq(d.items[i].file, p);
	}
	ib_buf b = {0};
	ib_diag_format(&d.items[0], &b);
	cr_assert(strstr(b.data, ":2:"), "%s", b.data);
	ib_buf_free(&b);
	/* structure errors */
	d = (ib_diags){.a = a};
	p = write_tmp("rulez: []\n");
	cr_assert_eq(sim_calib_load(p, a, &f, &d, &e), IB_EINVAL);
	cr_assert_geq(d.n, 1);
	cr_assert_eq(d.items[0].line, 1);
	d = (ib_diags){.a = a};
	p = write_tmp("rules: [1]\n");
	cr_assert_eq(sim_calib_load(p, a, &f, &d, &e), IB_EINVAL);
	d = (ib_diags){.a = a};
	cr_assert_eq(sim_calib_load("/nonexistent/c.yaml", a, &f, &d, &e), IB_ENOENT);
	p = write_tmp("rules: [\n");
	cr_assert_eq(sim_calib_load(p, a, &f, &d, &e), IB_EPARSE);
	ib_arena_free(a);
}

/* issue 33, defect 9: .nan, .inf and -.inf are refused for every numeric
 * parameter, with the file, line and field (a NaN passed the range check) */
Test(simcal, nan_and_inf_refused_with_file_line)
{
	const char *keys[] = {"mem-eff",  "compute-eff",  "step-overhead-us", "seq-overhead-us",
	                      "comm-eff", "ep-imbalance", "draft-cost"};
	const char *bad[] = {".nan", ".NaN", ".inf", "-.inf"};
	for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
		for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
			char text[256];
			snprintf(text, sizeof text, "rules:\n  - note: x\n    %s: %s\n", keys[k],
			         bad[b]);
			const char *p = write_tmp(text);
			ib_arena *a = ib_arena_new();
			ib_diags d = {.a = a};
			ib_error e = {0};
			sim_calib_file f;
			cr_assert_eq(sim_calib_load(p, a, &f, &d, &e), IB_EINVAL, "%s: %s accepted",
			             keys[k], bad[b]);
			cr_assert_eq(d.n, 1);
			cr_expect_eq(d.items[0].line, 3);
			cr_expect_str_eq(d.items[0].field, keys[k]);
			cr_expect_str_eq(d.items[0].file, p);
			ib_arena_free(a);
		}
}

/* The repository's own calibration file loads cleanly. */
/* Found by the sim_calib fuzz target: a NaN passed the range check (issue
 * 33's defect 9), `rules:` holding a string was read as a list (a wild
 * pointer), an empty file's diagnostic named no file. */
Test(simcal, nan_non_list_rules_and_empty_files_are_diagnosed)
{
	static const char *const bad[] = {"rules:\n  - mem-eff: .nan\n",
	                                  "rules:\n  - step-overhead-us: -.nan\n",
	                                  "rules: \"-m-0.05 .nan\"\n",
	                                  "rules: 3\n",
	                                  "",
	                                  "rules:\n  - mem-eff:\n"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		const char *p = write_tmp(bad[i]);
		ib_arena *a = ib_arena_new();
		ib_diags d = {.a = a};
		ib_error e = {0};
		sim_calib_file f;
		cr_assert_eq(sim_calib_load(p, a, &f, &d, &e), IB_EINVAL, "case %zu", i);
		cr_assert_geq(d.n, 1, "case %zu", i);
		cr_assert_str_eq(d.items[0].file, p, "case %zu", i);
		if (bad[i][0])
			cr_assert_geq(d.items[0].line, 1, "case %zu: %s", i, d.items[0].msg);
		ib_arena_free(a);
	}
}

Test(simcal, repository_file_is_valid)
{
	ib_arena *a = ib_arena_new();
	ib_diags d = {.a = a};
	ib_error e = {0};
	sim_calib_file f;
	int rc = sim_calib_load("configs/sim/calibration.yaml", a, &f, &d, &e);
	ib_buf b = {0};
	for (size_t i = 0; i < d.n; i++)
		ib_diag_format(&d.items[i], &b);
	cr_assert_eq(rc, 0, "%s %s", e.msg, b.data ? b.data : "");
	cr_assert_gt(f.n, 0);
	ib_buf_free(&b);
	ib_arena_free(a);
}

/* The per-sequence overhead makes throughput saturate with the batch. */
Test(simcal, seq_overhead_saturates_throughput)
{
	sim_config c;
	sim_config_init(&c);
	c.seq_overhead_s = 50e-6;
	sim_step s64 = {.decode_seqs = 64, .decode_ctx_sum = 64 * 1000.0};
	sim_step s256 = {.decode_seqs = 256, .decode_ctx_sum = 256 * 1000.0};
	double t64 = sim_step_time(&c, &s64), t256 = sim_step_time(&c, &s256);
	c.seq_overhead_s = 0;
	double u64 = sim_step_time(&c, &s64), u256 = sim_step_time(&c, &s256);
	cr_assert_float_eq(t64 - u64, 64 * 50e-6, 1e-9);
	cr_assert_float_eq(t256 - u256, 256 * 50e-6, 1e-9);
	/* the gain from 64 to 256 sequences shrinks */
	cr_assert_lt((256 / t256) / (64 / t64), (256 / u256) / (64 / u64));
}

/* ---- modelling terms (docs/sim.md "The performance model") ---- */

static sim_config cfg(const char *model, const char *hw, const char *prec, int tp)
{
	sim_config c;
	sim_config_init(&c);
	c.model = *sim_model_find(model);
	c.hw = *sim_hw_find(hw);
	c.precision = prec;
	c.tp = tp;
	return c;
}

static double comm_of(const sim_config *c, int seqs)
{
	sim_step s = {.decode_seqs = seqs, .decode_ctx_sum = seqs * 2000.0};
	sim_step_parts p;
	sim_step_breakdown(c, &s, &p);
	return p.comm;
}

Test(simcal, new_profiles_exist)
{
	const char *hws[] = {"b300", "gb300"};
	for (size_t i = 0; i < 2; i++)
		cr_assert_not_null(sim_hw_find(hws[i]), "%s", hws[i]);
	const char *models[] = {"minimax-m3",      "minimax-m2.5",  "glm-5",
	                        "deepseek-v4-pro", "llama-3.3-70b", "dsv4"};
	for (size_t i = 0; i < 6; i++)
		cr_assert_not_null(sim_model_find(models[i]), "%s", models[i]);
	/* MiniMax M3 has its own architecture now: 128 experts, top-4, 4 KV heads */
	const sim_model *m3 = sim_model_find("minimaxm3");
	cr_assert_eq(m3->experts, 128);
	cr_assert_eq(m3->experts_per_token, 4);
	cr_assert_eq(m3->kv_heads, 4);
	cr_assert_float_eq(m3->params, 428e9, 1e9);
	/* the published FP4 peak of a GB300 is above a GB200's */
	cr_assert_gt(sim_hw_find("gb300")->flops_fp4, sim_hw_find("gb200")->flops_fp4);
}

Test(simcal, more_ep_ranks_fewer_expert_bytes_per_gpu)
{
	sim_config c = cfg("deepseek-r1", "b200", "fp4", 4);
	sim_capacity a, b;
	ib_error e = {0};
	cr_assert_eq(sim_capacity_of(&c, &a, &e), 0, "%s", e.msg);
	c.ep = 16; /* wide EP: experts over 16 ranks */
	cr_assert_eq(sim_capacity_of(&c, &b, &e), 0, "%s", e.msg);
	cr_assert_float_eq(b.expert_bytes_per_gpu, a.expert_bytes_per_gpu / 4, 1);
	cr_assert_lt(b.weight_bytes_per_gpu, a.weight_bytes_per_gpu);
	/* and a decode step reads fewer expert bytes */
	sim_step s = {.decode_seqs = 64, .decode_ctx_sum = 64 * 2000.0};
	sim_step_parts p4, p16;
	c.ep = 1;
	sim_step_breakdown(&c, &s, &p4);
	c.ep = 16;
	sim_step_breakdown(&c, &s, &p16);
	cr_assert_lt(p16.expert_bytes, p4.expert_bytes);
}

Test(simcal, ep_imbalance_loads_the_busiest_rank)
{
	sim_config c = cfg("deepseek-r1", "b200", "fp4", 8);
	c.ep = 8;
	sim_step s = {.decode_seqs = 128, .decode_ctx_sum = 128 * 2000.0};
	sim_step_parts a, b;
	sim_step_breakdown(&c, &s, &a);
	c.ep_imbalance = 1.5;
	sim_step_breakdown(&c, &s, &b);
	cr_assert_float_eq(b.expert_bytes, 1.5 * a.expert_bytes, 1);
	cr_assert_gt(b.total, a.total);
}

Test(simcal, ep_uses_all_to_all_instead_of_all_reduce)
{
	sim_config c = cfg("deepseek-r1", "b200", "fp4", 8);
	double tp_only = comm_of(&c, 256);
	c.ep = 8;
	double ep = comm_of(&c, 256);
	c.dp_attn = true;
	double ep_dpa = comm_of(&c, 256);
	cr_assert_neq(ep, tp_only);
	/* DP attention drops the attention all-reduce: only the token exchange is left */
	cr_assert_lt(ep_dpa, ep);
	/* the exchange grows with the tokens each one sends (top-k copies) */
	c.model.experts_per_token = 16;
	cr_assert_gt(comm_of(&c, 256), ep_dpa);
	/* a dense model has no all-to-all: EP changes nothing */
	sim_config d = cfg("llama3-70b", "h100", "fp8", 8);
	double a = comm_of(&d, 64);
	d.ep = 8;
	cr_assert_float_eq(comm_of(&d, 64), a, 1e-12);
}

Test(simcal, dp_attention_keeps_kv_per_rank)
{
	/* MLA: the latent is replicated on every TP rank without DPA; with DPA
	 * each rank keeps only its own sequences */
	sim_config c = cfg("deepseek-r1", "b200", "fp4", 8);
	sim_capacity a, b;
	ib_error e = {0};
	cr_assert_eq(sim_capacity_of(&c, &a, &e), 0, "%s", e.msg);
	c.dp_attn = true;
	cr_assert_eq(sim_capacity_of(&c, &b, &e), 0, "%s", e.msg);
	cr_assert_float_eq(b.kv_bytes_per_token, a.kv_bytes_per_token / 8, 1e-9);
	/* the attention weights are whole on every rank */
	cr_assert_gt(b.weight_bytes_per_gpu, a.weight_bytes_per_gpu);
	/* a step's KV reads: the busiest rank reads 1/8 of the batch's context */
	sim_step s = {.decode_seqs = 256, .decode_ctx_sum = 256 * 4000.0};
	sim_step_parts pa, pb;
	c.dp_attn = false;
	sim_step_breakdown(&c, &s, &pa);
	c.dp_attn = true;
	sim_step_breakdown(&c, &s, &pb);
	cr_assert_float_eq(pb.kv_bytes, pa.kv_bytes / 8, 1);
}

Test(simcal, pipeline_stages_split_weights_not_latency)
{
	sim_config c = cfg("llama3-70b", "h100", "fp8", 4);
	sim_capacity a, b;
	ib_error e = {0};
	cr_assert_eq(sim_capacity_of(&c, &a, &e), 0, "%s", e.msg);
	sim_step s = {.decode_seqs = 8, .decode_ctx_sum = 8 * 1000.0};
	double t1 = sim_step_time(&c, &s);
	c.pp = 2;
	cr_assert_eq(sim_capacity_of(&c, &b, &e), 0, "%s", e.msg);
	cr_assert_float_eq(b.weight_bytes_per_gpu, a.weight_bytes_per_gpu / 2, 1);
	cr_assert_float_eq(b.kv_bytes_per_token, a.kv_bytes_per_token / 2, 1e-9);
	/* a step still goes through every layer, plus the stage hand-over */
	cr_assert_geq(sim_step_time(&c, &s), t1);
}

Test(simcal, sparse_attention_caps_kv_reads_at_long_context)
{
	sim_config c = cfg("glm-5", "mi355x", "fp8", 8);
	sim_step s = {.decode_seqs = 16, .decode_ctx_sum = 16 * 100000.0};
	sim_step_parts sparse, dense;
	sim_step_breakdown(&c, &s, &sparse);
	c.model.sparse_topk = 0;
	sim_step_breakdown(&c, &s, &dense);
	cr_assert_lt(sparse.kv_bytes, dense.kv_bytes / 5); /* the index over the context remains */
	/* at short context, where every token is in the top-k, the same reads
	 * plus the index */
	sim_step sh = {.decode_seqs = 16, .decode_ctx_sum = 16 * 1000.0};
	sim_step_breakdown(&c, &sh, &dense);
	c.model.sparse_topk = 2048;
	sim_step_breakdown(&c, &sh, &sparse);
	cr_assert_gt(sparse.kv_bytes, dense.kv_bytes);
}

Test(simcal, int4_weights_at_bf16_compute)
{
	sim_config c = cfg("kimi-k2.5", "h200", "int4", 8);
	sim_capacity cap;
	ib_error e = {0};
	cr_assert_eq(sim_capacity_of(&c, &cap, &e), 0, "%s", e.msg);
	/* the 1.015T routed-expert parameters at ~0.56 B each, the 25B of the
	 * trunk at 2 (BF16, as the checkpoint stores it), over 8 GPUs */
	cr_assert(cap.weight_bytes_per_gpu > 76e9 && cap.weight_bytes_per_gpu < 79e9, "%g",
	          cap.weight_bytes_per_gpu);
}

/* ---- in-process runs (the engine on a virtual clock) ---- */

Test(simcal, in_process_run_matches_the_step_model)
{
	sim_config c = cfg("llama3-8b", "h100", "bf16", 1);
	sim_load ld = {.concurrency = 1,
	               .num_prompts = 3,
	               .isl = 1000,
	               .osl = 101,
	               .range_ratio = 1,
	               .seed = 1};
	sim_load_result r;
	ib_error e = {0};
	cr_assert_eq(sim_run_load(&c, &ld, &r, &e), 0, "%s", e.msg);
	cr_assert_eq(r.completed, 3);
	/* one sequence decoding at ~1050 tokens of context: TPOT is that step */
	sim_step s = {.decode_seqs = 1, .decode_ctx_sum = 1050};
	double t = sim_step_time(&c, &s);
	cr_assert(fabs(r.median_tpot - t) / t < 0.01, "TPOT %g vs step %g", r.median_tpot, t);
	/* TTFT: the 1000-token prefill step */
	sim_step pf = {.prefill_tokens = 1000, .prefill_ctx_sum = 1000 * 500.0};
	cr_assert(fabs(r.median_ttft - sim_step_time(&c, &pf)) < 1e-9, "TTFT %g", r.median_ttft);
	/* throughput: every token over the run */
	cr_assert_float_eq(r.total_tok_s, 3 * 1101 / r.duration, 1e-6);
	/* the same seed gives the same run */
	sim_load_result r2;
	cr_assert_eq(sim_run_load(&c, &ld, &r2, &e), 0);
	cr_assert_eq(r.duration, r2.duration);
}

Test(simcal, in_process_run_concurrency_trades_latency_for_throughput)
{
	sim_config c = cfg("llama3-70b", "h100", "fp8", 4);
	sim_load_result r4, r64;
	ib_error e = {0};
	sim_load ld = {.concurrency = 4,
	               .num_prompts = 40,
	               .isl = 1024,
	               .osl = 256,
	               .range_ratio = 0.8,
	               .seed = 3};
	cr_assert_eq(sim_run_load(&c, &ld, &r4, &e), 0, "%s", e.msg);
	ld.concurrency = 64;
	ld.num_prompts = 640;
	cr_assert_eq(sim_run_load(&c, &ld, &r64, &e), 0, "%s", e.msg);
	cr_assert_gt(r64.total_tok_s, 4 * r4.total_tok_s);
	cr_assert_gt(r64.median_tpot, r4.median_tpot);
	/* a request bigger than the KV cache is refused */
	ld.isl = 50000000;
	cr_assert_eq(sim_run_load(&c, &ld, &r4, &e), IB_EINVAL);
}

Test(simcal, points_file_rows_and_reasons)
{
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	slab_point *p;
	size_t n;
	cr_assert_eq(slab_points_load("tests/data/sim/points.tsv", a, &p, &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 390);
	size_t measured = 0, runnable = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i].kind != SLAB_POINT_MEASURED)
			continue;
		measured++;
		runnable += !p[i].why;
		if (p[i].row_id == 147) { /* MiniMax M3 on H200, vLLM TP=8 EP=1, concurrency 4 */
			cr_assert_str_eq(p[i].model, "minimax-m3");
			cr_assert_str_eq(p[i].gpu, "h200");
			cr_assert_str_eq(p[i].framework, "vllm");
			cr_assert_eq(p[i].tp, 8);
			cr_assert_eq(p[i].conc, 4);
			cr_assert_null(p[i].spec);
			cr_assert_float_eq(p[i].interactivity, 119.0, 1e-9);
		}
		if (p[i].row_id == 305) /* GLM-5 SGLang FP8 + MTP */
			cr_assert_str_eq(p[i].spec, "mtp");
	}
	cr_assert_eq(measured, 103);
	cr_assert_geq(runnable * 10, measured * 9);
	ib_arena_free(a);
}

/* The fit reproduces points generated with known parameters (one group,
 * never one point), deterministically. */
Test(simcal, validation_errors_median_and_mean)
{
	cr_assert_float_eq(slab_err_pct(110, 100), 10, 1e-9);
	cr_assert_float_eq(slab_err_pct(80, 100), -20, 1e-9);
	cr_assert(isnan(slab_err_pct(5, NAN)) && isnan(slab_err_pct(5, 0)));
	slab_ape g = {0};
	double mt, at, mi, ai;
	slab_ape_stats(&g, &mt, &at, &mi, &ai);
	cr_assert(isnan(mt) && isnan(at) && isnan(mi) && isnan(ai),
	          "an empty group has no figures");
	cr_assert_eq(slab_ape_add(&g, false, NAN, NAN), 0); /* counted, not run */
	cr_assert_eq(slab_ape_add(&g, true, -30, NAN), 0);  /* no interactivity published */
	cr_assert_eq(slab_ape_add(&g, true, 10, 4), 0);
	cr_assert_eq(slab_ape_add(&g, true, -2, -8), 0);
	for (int i = 0; i < 20; i++) /* past the first growth */
		cr_assert_eq(slab_ape_add(&g, true, 5, 5), 0);
	cr_assert_eq(g.total, 24);
	cr_assert_eq(g.runnable, 23);
	cr_assert_eq(g.ntps, 23);
	cr_assert_eq(g.ninter, 22);
	slab_ape_stats(&g, &mt, &at, &mi, &ai);
	cr_assert_float_eq(mt, 5, 1e-9);
	cr_assert_float_eq(at, (30 + 10 + 2 + 100) / 23.0, 1e-9, "absolute values: %g", at);
	cr_assert_float_eq(mi, 5, 1e-9);
	cr_assert_float_eq(ai, (4 + 8 + 100) / 22.0, 1e-9);
	slab_ape_free(&g);
	slab_ape h = {0};
	slab_ape_add(&h, true, 1, 1);
	slab_ape_add(&h, true, -3, 3);
	slab_ape_stats(&h, &mt, &at, &mi, &ai);
	cr_assert_float_eq(mt, 2, 1e-9, "an even count: the mean of the middle two");
	slab_ape_free(&h);
}

/* n measured rows of Llama 3.3 70B FP8 on gpu (vLLM, TP 4, OSL 128) at
 * concurrency concs[i] and input length isls[i] (1024 when isls is NULL),
 * with the figures the simulator gives under the calibration `truth`: the
 * points a fit must reproduce. */
static void measure_points(slab_point *pts, int n, const char *gpu, const int *concs,
                           const int *isls, const sim_calib_file *truth)
{
	for (int i = 0; i < n; i++) {
		pts[i] = (slab_point){.row_id = i + 1,
		                      .kind = SLAB_POINT_MEASURED,
		                      .model = "llama3-70b",
		                      .gpu = gpu,
		                      .precision = "fp8",
		                      .framework = "vllm",
		                      .tp = 4,
		                      .conc = concs[i],
		                      .isl = isls ? isls[i] : 1024,
		                      .osl = 128};
		slab_point_result r;
		ib_error e = {0};
		cr_assert_eq(slab_point_run(&pts[i], truth, 2, &r, &e), 0, "%s", e.msg);
		pts[i].tps_gpu = r.tps_gpu;
		pts[i].interactivity = r.interactivity;
	}
}

/* A generating rule: the defaults with the fit's mem-eff and these
 * overheads (rule set: mem-eff, step, seq). */
static sim_calib_rule truth_rule(double step_s, double seq_s)
{
	sim_calib_rule r = {.set = 1u | 4u | 8u};
	sim_calib_defaults(&r.values);
	r.values.mem_eff = SLAB_FIT_MEM_EFF; /* the fit does not search it */
	r.values.step_overhead_s = step_s;
	r.values.seq_overhead_s = seq_s;
	return r;
}

/* The fitted groups' rules as slab_fit_rules writes them, which must hold
 * `must` (NULL: anything), loaded back into *f (in a). */
static void rules_load_back(const slab_fit_group *g, size_t n, const char *must, ib_arena *a,
                            sim_calib_file *f)
{
	ib_buf y = {0};
	ib_buf_puts(&y, "rules:\n");
	slab_fit_rules(g, n, &y);
	cr_assert(!must || strstr(y.data, must), "%s", y.data);
	const char *p = write_tmp(y.data);
	ib_diags d = {.a = a};
	ib_error e = {0};
	cr_assert_eq(sim_calib_load(p, a, f, &d, &e), 0, "%s\n%s", e.msg, y.data);
	ib_buf_free(&y);
}

Test(simcal, fit_reproduces_generating_model)
{
	static const int concs[] = {1, 4, 16, 64};
	slab_point pts[4];
	sim_calib_rule truth = truth_rule(6000e-6, 50e-6);
	sim_calib_file tf = {.path = "truth", .rules = &truth, .n = 1};
	measure_points(pts, 4, "h100", concs, NULL, &tf);
	ib_arena *a = ib_arena_new();
	slab_fit_group *g, *g2;
	size_t n, n2;
	ib_error e = {0};
	cr_assert_eq(slab_fit(pts, 4, NULL, 2, 0.0, SLAB_LEVEL_FW_GPU, a, &g, &n, &e), 0, "%s",
	             e.msg);
	cr_assert_eq(n, 1);
	cr_assert(g[0].fitted);
	cr_assert_eq(g[0].npoints, 4);
	cr_assert_gt(sqrt(g[0].loss_before), 0.2);
	cr_assert_lt(sqrt(g[0].loss_after), 0.03, "rms %g", sqrt(g[0].loss_after));
	/* mem-eff is fixed, not fitted: whatever the data, the rule reads at the
	 * published bandwidth */
	cr_assert_eq(g[0].values.mem_eff, SLAB_FIT_MEM_EFF);
	/* the same points give the same fit */
	cr_assert_eq(slab_fit(pts, 4, NULL, 2, 0.0, SLAB_LEVEL_FW_GPU, a, &g2, &n2, &e), 0);
	cr_assert_eq(g2[0].values.step_overhead_s, g[0].values.step_overhead_s);
	cr_assert_eq(g2[0].values.seq_overhead_s, g[0].values.seq_overhead_s);
	/* the rules it writes load back */
	sim_calib_file f;
	rules_load_back(g, n, NULL, a, &f);
	cr_assert_eq(f.n, 1);
	ib_arena_free(a);
}

/* The framework level groups a framework's rows over every GPU (its rule
 * matches the framework alone), and the ridge pulls a level's rule towards
 * what the level before gives the group: with a strong pull the fit stays
 * at the base values, without it it moves to the data. */
Test(simcal, fit_framework_level_and_ridge)
{
	static const int concs[] = {1, 4, 16, 64};
	slab_point pts[8];
	sim_calib_rule truth = truth_rule(3000e-6, 50e-6);
	sim_calib_file tf = {.path = "truth", .rules = &truth, .n = 1};
	measure_points(pts, 4, "h100", concs, NULL, &tf);
	measure_points(pts + 4, 4, "b200", concs, NULL, &tf);
	ib_arena *a = ib_arena_new();
	slab_fit_group *g;
	size_t n;
	ib_error e = {0};
	cr_assert_eq(slab_fit(pts, 8, NULL, 1, 0.0, SLAB_LEVEL_FW, a, &g, &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(g[0].framework, "vllm");
	cr_assert_null(g[0].gpu);
	cr_assert_eq(g[0].npoints, 8);
	ib_buf y = {0};
	slab_fit_rules(g, n, &y);
	cr_assert_not_null(strstr(y.data, "    match: {framework: vllm}\n"), "%s", y.data);
	ib_buf_free(&y);
	/* the base: the defaults with mem-eff 0.9 and 200 us of step overhead */
	sim_calib_rule base = {.values = {0}};
	sim_calib_defaults(&base.values);
	base.values.mem_eff = 0.9;
	base.values.step_overhead_s = 200e-6;
	base.values.seq_overhead_s = 5e-6;
	base.set = 1u | 2u | 4u | 8u;
	sim_calib_file bf = {.path = "base", .rules = &base, .n = 1};
	slab_fit_group *free_fit, *pulled;
	cr_assert_eq(slab_fit(pts, 4, &bf, 1, 0.0, SLAB_LEVEL_FW_GPU, a, &free_fit, &n, &e), 0);
	cr_assert_eq(slab_fit(pts, 4, &bf, 1, 1e4, SLAB_LEVEL_FW_GPU, a, &pulled, &n, &e), 0);
	/* free: the data's 3 ms step (and a lower error than the base's);
	 * pulled: the base's 200 us, within the search's resolution */
	cr_assert_gt(free_fit[0].values.step_overhead_s, 1000e-6, "%g",
	             free_fit[0].values.step_overhead_s);
	cr_assert_lt(free_fit[0].loss_after, free_fit[0].loss_before);
	cr_assert(fabs(log(pulled[0].values.step_overhead_s / 200e-6)) < 0.1, "%g",
	          pulled[0].values.step_overhead_s);
	cr_assert(fabs(log(pulled[0].values.seq_overhead_s / 5e-6)) < 0.1, "%g",
	          pulled[0].values.seq_overhead_s);
	/* mem-eff is not pulled but fixed: the base's 0.9 does not carry over */
	cr_assert_eq(pulled[0].values.mem_eff, SLAB_FIT_MEM_EFF);
	cr_assert_eq(free_fit[0].values.mem_eff, SLAB_FIT_MEM_EFF);
	ib_arena_free(a);
}

/* compute-eff is fitted too: the prefill of long inputs is compute-bound,
 * the decode memory- and overhead-bound, so rows of one group at two input
 * lengths tell it apart; the rules written carry it. */
Test(simcal, fit_recovers_compute_eff_from_input_lengths)
{
	static const int concs[] = {1, 16, 64, 1, 16, 64};
	static const int isls[] = {1024, 1024, 1024, 8192, 8192, 8192};
	slab_point pts[6];
	sim_calib_rule truth = truth_rule(2000e-6, 40e-6);
	truth.values.compute_eff = 0.15;
	truth.set |= 2u;
	sim_calib_file tf = {.path = "truth", .rules = &truth, .n = 1};
	measure_points(pts, 6, "h100", concs, isls, &tf);
	ib_arena *a = ib_arena_new();
	slab_fit_group *g;
	size_t n;
	ib_error e = {0};
	cr_assert_eq(slab_fit(pts, 6, NULL, 2, 0.0, SLAB_LEVEL_FW_GPU, a, &g, &n, &e), 0, "%s",
	             e.msg);
	cr_assert_eq(n, 1);
	cr_assert_lt(sqrt(g[0].loss_after), 0.1, "rms %g ce %g", sqrt(g[0].loss_after),
	             g[0].values.compute_eff);
	/* the default (0.6) would make the long prefills four times too cheap */
	cr_assert(g[0].values.compute_eff > 0.08 && g[0].values.compute_eff < 0.3, "compute-eff %g",
	          g[0].values.compute_eff);
	sim_calib_file f;
	rules_load_back(g, n, "compute-eff: ", a, &f);
	sim_calib cv;
	sim_calib_key k = {"vllm", "h100", "fp8", "llama3-70b", "none", NULL};
	sim_calib_resolve(&f, &k, &cv);
	cr_assert_float_eq(cv.compute_eff, g[0].values.compute_eff, 1e-4);
	ib_arena_free(a);
}

/* comm-eff (the fraction of the link bandwidth the all-reduces reach) is
 * set by the first level's rule, for every framework and GPU, and not
 * searched (SLAB_FIT_COMM_EFF); a lower level inherits it and its rule does
 * not set it. The all-reduces grow with TP and the overheads do not: with
 * it, the fit finds the generating overheads from rows at TP 2 and 8. */
Test(simcal, first_level_sets_comm_eff_for_every_level)
{
	static const int concs[] = {4, 16, 64, 4, 16, 64};
	slab_point pts[6];
	sim_calib_rule truth = truth_rule(3000e-6, 40e-6);
	truth.values.comm_eff = SLAB_FIT_COMM_EFF;
	truth.set |= 16u;
	sim_calib_file tf = {.path = "truth", .rules = &truth, .n = 1};
	measure_points(pts, 6, "h100", concs, NULL, &tf);
	for (int i = 0; i < 6; i++) { /* again at TP 2 and TP 8 */
		pts[i].tp = i < 3 ? 2 : 8;
		slab_point_result r;
		ib_error re = {0};
		cr_assert_eq(slab_point_run(&pts[i], &tf, 2, &r, &re), 0, "%s", re.msg);
		pts[i].tps_gpu = r.tps_gpu;
		pts[i].interactivity = r.interactivity;
	}
	ib_arena *a = ib_arena_new();
	slab_fit_group *g, *lower;
	size_t n, nl;
	ib_error e = {0};
	cr_assert_eq(slab_fit(pts, 6, NULL, 2, 0.0, SLAB_LEVEL_ALL, a, &g, &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 1);
	cr_assert_eq(g[0].values.comm_eff, SLAB_FIT_COMM_EFF);
	cr_assert_lt(sqrt(g[0].loss_after), 0.05, "rms %g", sqrt(g[0].loss_after));
	cr_assert(fabs(log(g[0].values.seq_overhead_s / 40e-6)) < 0.3, "seq %g",
	          g[0].values.seq_overhead_s);
	sim_calib_file f;
	char want[64];
	snprintf(want, sizeof want, "    comm-eff: %.4f\n", SLAB_FIT_COMM_EFF);
	rules_load_back(g, n, want, a, &f);
	cr_assert(f.rules[0].set & 16u);
	/* the framework x GPU level on top: comm-eff is the first level's */
	cr_assert_eq(slab_fit(pts, 6, &f, 2, 0.0, SLAB_LEVEL_FW_GPU, a, &lower, &nl, &e), 0);
	cr_assert_eq(lower[0].values.comm_eff, SLAB_FIT_COMM_EFF);
	ib_buf y = {0};
	slab_fit_rules(lower, nl, &y);
	cr_assert_null(strstr(y.data, "comm-eff"), "%s", y.data);
	sim_calib_rule r;
	cr_assert_eq(slab_fit_group_rule(&lower[0], a, &r), 0);
	cr_assert_not(r.set & 16u);
	ib_buf_free(&y);
	ib_arena_free(a);
}

/* The cross-validation keys of a row per grouping, and the groupings'
 * names. */
Test(simcal, cv_keys)
{
	slab_point p = {.model = "minimax-m3", .gpu = "h200", .framework = "vllm"};
	char k[64];
	slab_cv_key(&p, SLAB_CV_MODEL, k, sizeof k);
	cr_assert_str_eq(k, "minimax-m3");
	slab_cv_key(&p, SLAB_CV_GPU, k, sizeof k);
	cr_assert_str_eq(k, "h200");
	slab_cv_key(&p, SLAB_CV_MODEL_GPU, k, sizeof k);
	cr_assert_str_eq(k, "minimax-m3/h200");
	slab_cv_key(&p, SLAB_CV_FW_VENDOR, k, sizeof k);
	cr_assert_str_eq(k, "vllm/nvidia");
	p.gpu = "mi355x";
	p.framework = NULL; /* a dashboard row names no framework */
	slab_cv_key(&p, SLAB_CV_FW_VENDOR, k, sizeof k);
	cr_assert_str_eq(k, "any/amd");
	slab_cv_grouping g;
	cr_assert_eq(slab_cv_grouping_parse("model-gpu", &g), 0);
	cr_assert_eq(g, SLAB_CV_MODEL_GPU);
	cr_assert_eq(slab_cv_grouping_parse("framework-vendor", &g), 0);
	cr_assert_eq(g, SLAB_CV_FW_VENDOR);
	cr_assert_eq(slab_cv_grouping_parse("precision", &g), IB_EINVAL);
	cr_assert(slab_name_in("a,b/c,d", "b/c") && !slab_name_in("a,b/c", "b"));
	/* the p90 of the summaries: nearest rank */
	slab_ape ape = {0};
	for (int i = 10; i >= 1; i--)
		cr_assert_eq(slab_ape_add(&ape, true, -i, i < 3 ? i : NAN), 0);
	double t90, i90;
	slab_ape_p90(&ape, &t90, &i90);
	cr_assert_float_eq(t90, 9, 1e-12);
	cr_assert_float_eq(i90, 2, 1e-12);
	slab_ape_free(&ape);
}

/* Leave one group out: the fold's training set never holds a row of the
 * held-out group, and its calibration predicts that group from the others
 * only. Two groups measured under different truths (Llama 3.3 70B on H100
 * with a 1 ms step overhead, on H200 with 8 ms): fitted on both, the H200
 * rows come out within a few %; with H200 held out, its rows resolve the
 * H100 rules (its sibling) and come out far off — the out-of-sample error the
 * in-sample figure hides. */
Test(simcal, cv_fold_leaves_its_group_out)
{
	static const int concs[] = {1, 4, 16, 64};
	slab_point pts[8];
	sim_calib_rule t1 = {.set = 4u | 8u | 16u}, t2 = {.set = 4u | 8u | 16u};
	sim_calib_defaults(&t1.values);
	sim_calib_defaults(&t2.values);
	/* the fit's comm-eff (its first level sets it) */
	t1.values.comm_eff = t2.values.comm_eff = SLAB_FIT_COMM_EFF;
	t1.values.step_overhead_s = 1000e-6;
	t1.values.seq_overhead_s = 20e-6;
	t2.values.step_overhead_s = 8000e-6;
	t2.values.seq_overhead_s = 20e-6;
	sim_calib_file f1 = {.path = "t1", .rules = &t1, .n = 1},
	               f2 = {.path = "t2", .rules = &t2, .n = 1};
	measure_points(pts, 4, "h100", concs, NULL, &f1);
	measure_points(pts + 4, 4, "h200", concs, NULL, &f2);
	for (int i = 4; i < 8; i++)
		pts[i].row_id = i + 1;
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	slab_point *train;
	size_t nt, nm;
	cr_assert_eq(slab_cv_train(pts, 8, SLAB_CV_GPU, "h200", a, &train, &nt, &nm), 0);
	cr_assert_eq(nt, 4);
	cr_assert_eq(nm, 4);
	for (size_t i = 0; i < nt; i++) {
		char k[64];
		slab_cv_key(&train[i], SLAB_CV_GPU, k, sizeof k);
		cr_assert_str_neq(k, "h200");
	}
	sim_calib_file all, fold;
	cr_assert_eq(slab_cv_fit(pts, 8, 2, a, &all, &e), 0, "%s", e.msg);
	cr_assert_eq(slab_cv_fit(train, nt, 2, a, &fold, &e), 0, "%s", e.msg);
	/* the fold's rules never name the held-out GPU */
	for (size_t r = 0; r < fold.n; r++)
		for (const char *const *h = fold.rules[r].match[1]; h && *h; h++)
			cr_assert_str_neq(*h, "h200");
	double in = 0, out = 0;
	for (int i = 4; i < 8; i++) {
		slab_point_result ri, ro;
		cr_assert_eq(slab_point_run(&pts[i], &all, 2, &ri, &e), 0, "%s", e.msg);
		cr_assert_eq(slab_point_run(&pts[i], &fold, 2, &ro, &e), 0, "%s", e.msg);
		in += fabs(log(ri.interactivity / pts[i].interactivity));
		out += fabs(log(ro.interactivity / pts[i].interactivity));
	}
	cr_assert_lt(in / 4, 0.1, "in-sample mean |log error| %g", in / 4);
	cr_assert_gt(out / 4, 0.3, "held-out mean |log error| %g (in sample %g)", out / 4, in / 4);
	ib_arena_free(a);
}

/* Disaggregated prefill: with a free prefill worker for every request, the
 * first token does not wait for the decode engine's load; aggregated, it
 * does. */
Test(simcal, disagg_ttft_independent_of_decode_load)
{
	sim_config c = cfg("llama3-70b", "h100", "fp8", 4);
	sim_load ld = {.isl = 2048, .osl = 128, .range_ratio = 1, .seed = 5};
	sim_load_result lo, hi, alo, ahi;
	ib_error e = {0};
	ld.concurrency = 4;
	ld.num_prompts = 16;
	cr_assert_eq(sim_run_load(&c, &ld, &alo, &e), 0, "%s", e.msg);
	ld.concurrency = 64;
	ld.num_prompts = 256;
	cr_assert_eq(sim_run_load(&c, &ld, &ahi, &e), 0, "%s", e.msg);
	cr_assert_gt(ahi.median_ttft,
	             alo.median_ttft); /* aggregated: prefills share steps with decodes */
	c.prefill_workers = 64;
	c.prefill_tp = 4;
	ld.concurrency = 4;
	ld.num_prompts = 16;
	cr_assert_eq(sim_run_load(&c, &ld, &lo, &e), 0, "%s", e.msg);
	ld.concurrency = 64;
	ld.num_prompts = 256;
	cr_assert_eq(sim_run_load(&c, &ld, &hi, &e), 0, "%s", e.msg);
	cr_assert_eq(hi.completed, 256);
	cr_assert_float_eq(hi.median_ttft, lo.median_ttft, 1e-9);
	/* while decoding still slows with load */
	cr_assert_gt(hi.median_tpot, lo.median_tpot);
	/* and the prefill pool's TTFT is the prefill alone */
	sim_step pf = {.prefill_tokens = 2048, .prefill_ctx_sum = 2048 * 1024.0};
	cr_assert_float_eq(lo.median_ttft, sim_step_time(&c, &pf), 1e-6);
}
