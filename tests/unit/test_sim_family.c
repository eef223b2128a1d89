/* Unit tests for the simulator's coverage of the whole InferenceX sweep
 * (docs/sim.md "Profiles", "Prefix cache", "KV offload", "Disaggregated
 * prefill/decode"): the GPU profiles of runners.yaml, mixed-precision
 * checkpoints, runner labels, and each modelling term. */
#define _GNU_SOURCE
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/private.h"
#include "sim/private.h"

static ib_val *row_of(ib_arena *a, const char *json)
{
	ib_val *v;
	ib_error e = {0};
	cr_assert_eq(ib_json_parse(a, "row", json, strlen(json), &v, &e), 0, "%s", e.msg);
	return v;
}

static sim_config cfg(const char *model, const char *hw, const char *prec, int tp, int ep, bool dpa)
{
	sim_config c;
	sim_config_init(&c);
	c.model = *sim_model_find(model);
	c.hw = *sim_hw_find(hw);
	c.precision = prec;
	c.kv_bytes = 1;
	c.tp = tp;
	c.ep = ep;
	c.dp_attn = dpa;
	return c;
}

/* Every GPU of the reference's runners.yaml has a profile, with the
 * host link, scale-out network and scale-up domain the new terms use. */
Test(sim_family, every_runners_yaml_gpu_has_a_profile)
{
	const char *gpus[] = {"h100",  "h200",   "b200",   "b300",   "gb200",
	                      "gb300", "mi300x", "mi325x", "mi355x", "rtx6000pro"};
	for (size_t i = 0; i < sizeof gpus / sizeof *gpus; i++) {
		const sim_hw *h = sim_hw_find(gpus[i]);
		cr_assert_not_null(h, "%s", gpus[i]);
		cr_assert(h->mem_bytes > 0 && h->hbm_bw > 0 && h->link_bw > 0, "%s", gpus[i]);
		cr_assert(h->host_bw > 0 && h->net_bw > 0 && h->net_lat > 0 && h->domain_gpus > 0,
		          "%s", gpus[i]);
	}
	/* NVL72 racks join 72 GPUs at NVLink speed; an HGX node 8 */
	cr_assert_eq(sim_hw_find("gb200")->domain_gpus, 72);
	cr_assert_eq(sim_hw_find("gb300")->domain_gpus, 72);
	cr_assert_eq(sim_hw_find("b200")->domain_gpus, 8);
	/* RTX PRO 6000: no NVLink, its GPUs talk over PCIe (the host link) */
	const sim_hw *r = sim_hw_find("rtx6000pro");
	cr_assert_eq(r->link_bw, r->host_bw);
	cr_assert_lt(r->hbm_bw, sim_hw_find("h100")->hbm_bw);
	/* what nvidia-smi reports (MiB), not the decimal marketing figure */
	cr_assert_float_eq(sim_hw_find("h200")->mem_bytes, 143771.0 * 1048576, 1);
	cr_assert_float_eq(sim_hw_find("b200")->mem_bytes, 183359.0 * 1048576, 1);
}

/* The configurations InferenceX runs fit: DeepSeek-V4-Pro FP8 (MXFP4
 * experts) at TP 8 on H200 and MI300X, with and without DP attention;
 * DeepSeek-R1 FP8 at TP 4 on B200. */
Test(sim_family, what_inferencex_runs_fits)
{
	sim_capacity cap;
	ib_error e = {0};
	sim_config c = cfg("dsv4", "h200", "fp8", 8, 1, false);
	cr_assert_eq(sim_capacity_of(&c, &cap, &e), 0, "%s", e.msg);
	cr_assert_gt(cap.kv_blocks * c.block_size, 100000); /* room for a batch of 8k prompts */
	c = cfg("dsv4", "h200", "fp8", 8, 8, true);
	cr_assert_eq(sim_capacity_of(&c, &cap, &e), 0, "%s", e.msg);
	c = cfg("dsv4", "mi300x", "fp8", 8, 1, false);
	cr_assert_eq(sim_capacity_of(&c, &cap, &e), 0, "%s", e.msg);
	c = cfg("dsr1", "b200", "fp8", 4, 1, false);
	cr_assert_eq(sim_capacity_of(&c, &cap, &e), 0, "%s", e.msg);
	cr_assert_gt(cap.kv_blocks * c.block_size, 8 * 9216); /* 8 sequences of 8k1k */
	/* with the recipe's --mem-fraction-static 0.95, its 32 running requests */
	c.gpu_mem_util = 0.95;
	cr_assert_eq(sim_capacity_of(&c, &cap, &e), 0, "%s", e.msg);
	cr_assert_gt(cap.kv_blocks * c.block_size, 32 * 9216);
	/* still refused where it truly does not fit: R1 FP8 on 2 B200s */
	c = cfg("dsr1", "b200", "fp8", 2, 1, false);
	cr_assert_eq(sim_capacity_of(&c, &cap, &e), IB_EINVAL);
}

/* expert_wbits: the routed experts take that many bits per parameter when
 * fewer than the precision's, in memory and in the bytes a step reads;
 * the dense part keeps the precision. */
Test(sim_family, mixed_precision_checkpoint)
{
	sim_config c = cfg("dsv4", "mi355x", "fp8", 8, 1, false); /* FP8 experts fit there too */
	cr_assert_float_eq(c.model.expert_wbits, 4.25, 1e-9);
	sim_capacity mixed, whole;
	ib_error e = {0};
	cr_assert_eq(sim_capacity_of(&c, &mixed, &e), 0, "%s", e.msg);
	cr_assert_float_eq(mixed.expert_bytes_per_gpu, c.model.expert_params * 4.25 / 8 / 8, 1e3);
	sim_step s = {.decode_seqs = 64, .decode_ctx_sum = 64 * 4096.0};
	sim_step_parts pm, pw;
	sim_step_breakdown(&c, &s, &pm);
	c.model.expert_wbits = 0; /* as the precision: FP8 experts */
	cr_assert_eq(sim_capacity_of(&c, &whole, &e), 0, "%s", e.msg);
	cr_assert_float_eq(whole.expert_bytes_per_gpu, c.model.expert_params / 8, 1e3);
	cr_assert_float_eq(whole.weight_bytes_per_gpu - whole.expert_bytes_per_gpu,
	                   mixed.weight_bytes_per_gpu - mixed.expert_bytes_per_gpu, 1);
	sim_step_breakdown(&c, &s, &pw);
	cr_assert_float_eq(pm.expert_bytes / pw.expert_bytes, 4.25 / 8, 1e-9);
	/* under FP4 (NVFP4: 4.5 bits with its scales) the narrower of the two,
	 * the checkpoint's 4.25 bits, still holds */
	c = cfg("dsv4", "b200", "fp4", 8, 1, false);
	sim_capacity f4;
	cr_assert_eq(sim_capacity_of(&c, &f4, &e), 0, "%s", e.msg);
	cr_assert_float_eq(f4.expert_bytes_per_gpu, c.model.expert_params * 4.25 / 8 / 8, 1e3);
}

Test(sim_family, new_profile_fields_load_and_are_checked)
{
	char dir[] = "/tmp/ib-simfam-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof path, "%s/p.yaml", dir);
	FILE *f = fopen(path, "w");
	fputs("hardware:\n  host-link-gbps: 100\n  net-gbps: 25\n  net-latency-us: 3\n"
	      "  scale-up-gpus: 72\nmodel:\n  expert-weight-bits: 4.25\n",
	      f);
	fclose(f);
	sim_config c;
	sim_config_init(&c);
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	cr_assert_eq(sim_profile_load(path, &c.hw, &c.model, a, &e), 0, "%s", e.msg);
	cr_assert_float_eq(c.hw.host_bw, 100e9, 1);
	cr_assert_float_eq(c.hw.net_bw, 25e9, 1);
	cr_assert_float_eq(c.hw.net_lat, 3e-6, 1e-12);
	cr_assert_eq(c.hw.domain_gpus, 72);
	cr_assert_float_eq(c.model.expert_wbits, 4.25, 1e-12);
	f = fopen(path, "w");
	fputs("model:\n  layers: 4\n  expert-weight-bits: 17\n", f);
	fclose(f);
	cr_assert_eq(sim_profile_load(path, &c.hw, &c.model, a, &e), IB_EINVAL);
	cr_assert_eq(e.line, 3);
	cr_assert(strstr(e.msg, "model.expert-weight-bits") && strstr(e.msg, "at most 16"), "%s",
	          e.msg);
	f = fopen(path, "w");
	fputs("hardware:\n  scale-up-gpus: 7.5\n", f);
	fclose(f);
	cr_assert_eq(sim_profile_load(path, &c.hw, &c.model, a, &e), IB_EINVAL);
	cr_assert(e.line == 2 && strstr(e.msg, "hardware.scale-up-gpus"), "%d %s", e.line, e.msg);
	ib_arena_free(a);
	remove(path);
	remove(dir);
}

static const char row_json[] =
    "{\"image\": \"img:1\", \"model\": \"deepseek-ai/DeepSeek-R1\", \"model-prefix\": \"dsr1\","
    " \"precision\": \"fp4\", \"framework\": \"vllm\", \"runner\": \"h200\", \"isl\": 1024,"
    " \"osl\": 1024, \"tp\": 8, \"pp\": 1, \"conc\": 64, \"ep\": 1, \"dp-attn\": false,"
    " \"spec-decoding\": \"none\", \"exp-name\": \"dsr1_1k1k\", \"disagg\": false}";

/* Runner labels resolve as the reference's normalize_hardware_label: the
 * "cluster:" prefix off, then the GPU up to the first '-'. */
Test(sim_family, runner_labels_resolve_like_the_reference)
{
	ib_arena *a = ib_arena_new();
	const char *labels[][2] = {{"cluster:b300-nv", "b300"},
	                           {"cluster:b200-dgxc", "b200"},
	                           {"cluster:mi325x-tw", "mi325x"},
	                           {"rtx6000pro-lat", "rtx6000pro"},
	                           {"cluster:rtx6000pro-lat", "rtx6000pro"},
	                           {"b200-dsv4", "b200"},
	                           {"gb300", "gb300"}};
	for (size_t i = 0; i < sizeof labels / sizeof *labels; i++) {
		ib_val *r = row_of(a, row_json);
		ib_map_set(a, r, "runner", ib_v_str(a, labels[i][0]));
		const char *h = NULL;
		const char *why = run_sim_unmodelable(r, NULL, &h);
		cr_assert_null(why, "%s: %s", labels[i][0], why);
		cr_assert_str_eq(h, labels[i][1], "%s", labels[i][0]);
	}
	ib_val *r = row_of(a, row_json);
	ib_map_set(a, r, "runner", ib_v_str(a, "cluster:tpu7x-gc"));
	const char *why = run_sim_unmodelable(r, NULL, NULL);
	cr_assert(why && strstr(why, "no simulator GPU profile for runner 'cluster:tpu7x-gc'"),
	          "%s", why);
	/* an agentic row the simulator models runs (the AgentX replay in
	 * run), with the profiles it runs on; one it cannot model says why
	 * (the GPU), as a fixed-length row would */
	r = row_of(a, row_json);
	ib_map_set(a, r, "scenario-type", ib_v_str(a, "agentic-coding"));
	const char *m = NULL, *h = NULL;
	why = run_sim_unmodelable(r, &m, &h);
	cr_assert_null(why, "%s", why);
	cr_assert_not_null(m);
	cr_assert_not_null(h);
	ib_map_set(a, r, "runner", ib_v_str(a, "cluster:tpu7x-gc"));
	why = run_sim_unmodelable(r, NULL, NULL);
	cr_assert(why && strstr(why, "no simulator GPU profile for runner 'cluster:tpu7x-gc'"),
	          "%s", why);
	ib_arena_free(a);
}

/* KV offload: a step that copies blocks in from the host tier takes their
 * bytes over the host link on top of its roofline time. */
Test(sim_family, host_load_costs_the_host_link)
{
	sim_config c = cfg("llama3-8b", "h100", "bf16", 1, 1, false);
	sim_step s = {.prefill_tokens = 16, .prefill_ctx_sum = 16 * 1000.0};
	sim_step_parts a, b;
	sim_step_breakdown(&c, &s, &a);
	cr_assert_eq(a.host_load, 0);
	s.host_load_bytes = 6.4e9; /* 100 ms at 64 GB/s */
	sim_step_breakdown(&c, &s, &b);
	cr_assert_float_eq(b.host_load, 0.1, 1e-12);
	cr_assert_float_eq(b.total - a.total, 0.1, 1e-12);
	/* a faster host link (NVLink-C2C on GB200) costs less */
	c.hw = *sim_hw_find("gb200");
	sim_step_breakdown(&c, &s, &b);
	cr_assert_float_eq(b.host_load, 6.4e9 / 225e9, 1e-12);
}

/* Block hashes are chained: a block is named by its content and by every
 * block before it, so equal blocks after different prefixes differ. */
Test(sim_family, block_hashes_are_chained)
{
	const char a[] = "0123456789abcdef", b[] = "fedcba9876543210";
	uint64_t h1 = sim_pc_hash(0, a, 16), h1b = sim_pc_hash(0, a, 16);
	cr_assert_eq(h1, h1b);
	cr_assert_neq(h1, 0);
	uint64_t h2 = sim_pc_hash(h1, b, 16);
	cr_assert_neq(h2, sim_pc_hash(0, b, 16)); /* same block, other prefix */
	cr_assert_neq(h2, sim_pc_hash(sim_pc_hash(0, b, 16), b, 16));
	cr_assert_neq(sim_pc_hash(0, a, 16), sim_pc_hash(0, b, 16));
}

/* ---- disaggregated prefill/decode, replicas, multi-node ---- */

static sim_load_result load(const sim_config *c, int conc, int isl, int osl)
{
	sim_load ld = {.concurrency = conc,
	               .num_prompts = 4 * conc,
	               .isl = isl,
	               .osl = osl,
	               .range_ratio = 0.8,
	               .seed = 7};
	sim_load_result r;
	ib_error e = {0};
	cr_assert_eq(sim_run_load(c, &ld, &r, &e), 0, "%s", e.msg);
	return r;
}

/* The KV transfer grows with the input length, and crosses the scale-up
 * link inside one domain, the slower network beyond it. */
Test(sim_family, kv_transfer_grows_with_input_and_link)
{
	sim_config c = cfg("dsr1", "h200", "fp8", 8, 1, false);
	cr_assert_eq(sim_kv_transfer_s(&c, 8192), 0); /* aggregated: none */
	c.prefill_workers = 1;
	c.prefill_tp = 8;
	double t1 = sim_kv_transfer_s(&c, 1024), t8 = sim_kv_transfer_s(&c, 8192);
	cr_assert_gt(t8, 7 * (t1 - c.hw.net_lat));
	/* 1 prefill + 1 decode worker of 8 GPUs: 16 GPUs, two nodes -> network:
	 * MLA's 576 fp8 bytes x 61 layers per token at 50 GB/s */
	cr_assert_eq(sim_config_gpus(&c), 16);
	cr_assert_float_eq(t8, 576.0 * 61 * 8192 / 50e9 + 5e-6, 1e-9);
	/* the same pools inside an NVL72 rack use NVLink */
	sim_config g = cfg("dsr1", "gb200", "fp8", 4, 1, false);
	g.prefill_workers = 2;
	g.prefill_tp = 4;
	g.replicas = 4;
	cr_assert_eq(sim_config_gpus(&g), 24);
	cr_assert_float_eq(sim_kv_transfer_s(&g, 8192), 576.0 * 61 * 8192 / 900e9 + 6e-6, 1e-9);
	/* and grows with the input length in process too: TTFT at 8k over 1k */
	sim_config d = cfg("llama3-8b", "h100", "bf16", 1, 1, false);
	d.prefill_workers = 1;
	sim_load_result a = load(&d, 1, 1024, 16), b = load(&d, 1, 8192, 16);
	cr_assert_gt(b.median_ttft, 6 * a.median_ttft);
}

/* TTFT is the prefill pool's, TPOT the decode pool's. */
Test(sim_family, ttft_from_prefill_pool_tpot_from_decode_pool)
{
	sim_config c = cfg("llama3-70b", "h100", "fp8", 4, 1, false);
	c.prefill_workers = 2;
	c.prefill_tp = 2;
	sim_load_result base = load(&c, 4, 8192, 256);
	c.prefill_tp = 8; /* a faster prefill pool */
	sim_load_result fastp = load(&c, 4, 8192, 256);
	cr_assert_lt(fastp.median_ttft, 0.6 * base.median_ttft, "%g %g", fastp.median_ttft,
	             base.median_ttft);
	cr_assert_float_eq(fastp.median_tpot / base.median_tpot, 1.0, 0.05);
	c.prefill_tp = 2;
	c.tp = 8; /* a faster decode pool */
	sim_load_result fastd = load(&c, 4, 8192, 256);
	cr_assert_lt(fastd.median_tpot, 0.8 * base.median_tpot, "%g %g", fastd.median_tpot,
	             base.median_tpot);
	cr_assert_float_eq(fastd.median_ttft / base.median_ttft, 1.0, 0.05);
}

/* Replicas: the router spreads sequences, each step is one instance's
 * share: 2 sequences on 2 replicas decode like 1 on one. */
Test(sim_family, replicas_share_the_load)
{
	sim_config c = cfg("llama3-8b", "h100", "bf16", 1, 1, false);
	sim_load_result one = load(&c, 1, 1024, 128);
	c.replicas = 2;
	sim_load_result two = load(&c, 2, 1024, 128);
	cr_assert_float_eq(two.median_tpot / one.median_tpot, 1.0, 0.05, "%g %g", two.median_tpot,
	                   one.median_tpot);
	cr_assert_gt(two.total_tok_s, 1.8 * one.total_tok_s);
	c.replicas = 1;
	sim_load_result packed = load(&c, 2, 1024, 128);
	cr_assert_gt(packed.median_tpot, two.median_tpot);
}

/* TP wider than the scale-up domain (multi-node aggregated rows) runs its
 * all-reduces over the network. */
Test(sim_family, multinode_tp_uses_the_network)
{
	sim_config h = cfg("dsr1", "h200", "fp8", 16, 1, false), g = h;
	g.hw = *sim_hw_find("gb200");
	g.hw.link_bw = h.hw.link_bw; /* same link speed, different domain */
	g.hw.link_lat = h.hw.link_lat;
	sim_step s = {.decode_seqs = 64, .decode_ctx_sum = 64 * 2000.0};
	sim_step_parts ph, pg;
	sim_step_breakdown(&h, &s, &ph);
	sim_step_breakdown(&g, &s, &pg);
	cr_assert_gt(ph.comm, 2 * pg.comm, "%g %g", ph.comm, pg.comm);
	h.tp = 8; /* inside a node: the scale-up link */
	sim_step_breakdown(&h, &s, &ph);
	g.tp = 8;
	sim_step_breakdown(&g, &s, &pg);
	cr_assert_float_eq(ph.comm, pg.comm, 1e-12);
}

/* A matrix row's pools: the decode worker's shape, the prefill pool, the
 * decode workers as replicas; no decode workers: the prefill workers serve
 * it aggregated; a pool that does not fit says which. */
Test(sim_family, multinode_rows_map_to_pools)
{
	ib_arena *a = ib_arena_new();
	const char *pool = "\"num-worker\": %d, \"tp\": %d, \"ep\": %d, \"dp-attn\": %s";
	char pre[128], dec[128], js[1024];
	snprintf(pre, sizeof pre, pool, 2, 4, 4, "true");
	snprintf(dec, sizeof dec, pool, 3, 8, 1, "false");
	snprintf(
	    js, sizeof js,
	    "{\"model-prefix\": \"dsr1\", \"precision\": \"fp4\", \"framework\": \"dynamo-trt\","
	    " \"runner\": \"gb200\", \"prefill\": {%s}, \"decode\": {%s}, \"disagg\": true,"
	    " \"conc\": [4, 8]}",
	    pre, dec);
	ib_val *r = row_of(a, js);
	run_sim_shape sh;
	run_sim_shape_of(a, r, &sh);
	cr_assert(sh.tp == 8 && sh.ep == 1 && !sh.dp_attn && sh.decode_workers == 3);
	cr_assert(sh.prefill_workers == 2 && sh.prefill_tp == 4 && sh.prefill_ep == 4 &&
	          sh.prefill_dp_attn);
	cr_assert_str_eq(sh.framework, "trt");
	const char *h = NULL;
	cr_assert_null(run_sim_unmodelable(r, NULL, &h));
	/* no decode workers: aggregated over the prefill workers */
	snprintf(dec, sizeof dec, pool, 0, 8, 1, "false");
	snprintf(js, sizeof js,
	         "{\"model-prefix\": \"dsr1\", \"precision\": \"fp4\", \"runner\": \"gb200\","
	         " \"prefill\": {%s}, \"decode\": {%s}, \"disagg\": true}",
	         pre, dec);
	r = row_of(a, js);
	run_sim_shape_of(a, r, &sh);
	cr_assert(sh.prefill_workers == 0 && sh.decode_workers == 2 && sh.tp == 4 && sh.dp_attn);
	cr_assert_null(run_sim_unmodelable(r, NULL, NULL));
	/* a prefill pool whose weights do not fit names the pool */
	snprintf(pre, sizeof pre, pool, 1, 1, 1, "false");
	snprintf(dec, sizeof dec, pool, 1, 8, 1, "false");
	snprintf(js, sizeof js,
	         "{\"model-prefix\": \"dsr1\", \"precision\": \"fp8\", \"runner\": \"h200\","
	         " \"prefill\": {%s}, \"decode\": {%s}, \"disagg\": true}",
	         pre, dec);
	const char *why = run_sim_unmodelable(row_of(a, js), NULL, NULL);
	cr_assert(why && strstr(why, "the prefill workers: deepseek-r1 in fp8 needs"), "%s", why);
	/* disagg without pools */
	why = run_sim_unmodelable(row_of(a, "{\"model-prefix\": \"dsr1\", \"precision\": \"fp8\","
	                                    " \"runner\": \"h200\", \"tp\": 8, \"disagg\": true}"),
	                          NULL, NULL);
	cr_assert(why && strstr(why, "without its 'prefill' and 'decode' pools"), "%s", why);
	ib_arena_free(a);
}

/* A profile file's bad text, and the line and field its error must name. */
typedef struct {
	const char *text, *field;
	int line;
} bad_profile;

/* Writes text to path and loads it over the defaults into *c. */
static int load_text(const char *path, const char *text, sim_config *c, ib_arena *a, ib_error *e)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	sim_config_init(c);
	return sim_profile_load(path, &c->hw, &c->model, a, e);
}

/* Loads good (which must load) into *c, then checks that each bad text is
 * refused with its file, line and field. */
static void check_profile_texts(const char *good, sim_config *c, const bad_profile *bad, size_t n)
{
	char dir[] = "/tmp/ib_simfam_XXXXXX", path[64];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/p.yaml", dir);
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	sim_config t;
	cr_assert_eq(load_text(path, good, c, a, &e), 0, "%s", e.msg);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(load_text(path, bad[i].text, &t, a, &e), IB_EINVAL, "%s", bad[i].text);
		cr_assert_eq(e.line, bad[i].line, "%s: %s", bad[i].text, e.msg);
		cr_assert_not_null(strstr(e.msg, bad[i].field), "%s: %s", bad[i].text, e.msg);
		cr_assert_not_null(strstr(e.file, "p.yaml"), "%s", e.file);
	}
	ib_arena_free(a);
	remove(path);
	rmdir(dir);
}

/* The families' profile fields (KV offload's host link, multi-node's
 * scale-out network, the scale-up domain of disaggregated transfers) are
 * range-checked with the file's line and the field's name. */
Test(sim_family, family_profile_fields_are_range_checked)
{
	static const bad_profile bad[] = {
	    {"hardware:\n  host-link-gbps: 0\n", "hardware.host-link-gbps", 2},
	    {"hardware:\n  name: x\n  net-gbps: 0\n", "hardware.net-gbps", 3},
	    {"hardware:\n  link-gbps: 0\n", "hardware.link-gbps", 2},
	    {"hardware:\n  scale-up-gpus: 0\n", "hardware.scale-up-gpus", 2},
	    {"hardware:\n  scale-up-gpus: 1000001\n", "hardware.scale-up-gpus", 2},
	    {"hardware:\n  scale-up-gpus: 8.5\n", "hardware.scale-up-gpus", 2},
	    {"hardware:\n  net-latency-us: -1\n", "hardware.net-latency-us", 2},
	    {"hardware:\n  host-link-gbps: .inf\n", "hardware.host-link-gbps", 2},
	    {"hardware:\n  net-gbps: fast\n", "hardware.net-gbps", 2},
	};
	sim_config c;
	check_profile_texts(
	    "hardware:\n  host-link-gbps: 225\n  net-gbps: 100\n  net-latency-us: 5\n"
	    "  scale-up-gpus: 72\n",
	    &c, bad, sizeof bad / sizeof *bad);
	cr_assert_float_eq(c.hw.host_bw, 225e9, 1);
	cr_assert_float_eq(c.hw.net_bw, 100e9, 1);
	cr_assert_float_eq(c.hw.net_lat, 5e-6, 1e-12);
	cr_assert_eq(c.hw.domain_gpus, 72);
}

/* ---- the models of the sweep's newest rows (docs/sim.md "Profiles") ---- */

/* Kimi K3 (model-prefix kimik3): 93 layers, 24 of them gated MLA that keep
 * KV, 69 KDA layers that keep none; 896 experts top-16 whose MXFP4 weights
 * sit beside a BF16 trunk; the TP 8 B300 row fits, 4 B300s do not. */
Test(sim_family, kimi_k3_profile)
{
	const sim_model *m = sim_model_find("kimik3");
	cr_assert_not_null(m);
	cr_assert_str_eq(m->name, "kimi-k3");
	cr_assert_eq(sim_model_find("kimi-k3"), m);
	cr_assert(m->layers == 93 && m->attn_layers == 24 && m->hidden == 7168 &&
	          m->q_heads == 96 && m->mla_kv_dim == 576);
	cr_assert(m->experts == 896 && m->experts_per_token == 16);
	/* total, active and routed parameters agree: dense + routed x 16/896 */
	double dense = m->params - m->expert_params;
	cr_assert_float_eq(dense + m->expert_params * 16 / 896, m->active_params,
	                   0.01 * m->active_params);
	cr_assert_float_eq(m->default_al[3], 2.87, 1e-9); /* golden DSpark AL, 3 drafts */
	sim_config c = cfg("kimik3", "b300", "fp4", 8, 1, false);
	sim_capacity cap;
	ib_error e = {0};
	cr_assert_eq(sim_capacity_of(&c, &cap, &e), 0, "%s", e.msg);
	/* experts at 4.25 bits, the trunk at 16 bits whatever the precision */
	cr_assert_float_eq(cap.expert_bytes_per_gpu, m->expert_params * 4.25 / 8 / 8, 1e3);
	cr_assert_float_eq(cap.weight_bytes_per_gpu - cap.expert_bytes_per_gpu, dense * 2 / 8, 1e3);
	/* only the MLA layers' latent is cached: 24 x 576 FP8 bytes per token */
	cr_assert_float_eq(cap.kv_bytes_per_token, 24.0 * 576, 1e-6);
	cr_assert_gt(cap.kv_blocks * c.block_size, 1000000); /* room for agentic contexts */
	c.model.dense_wbits = 0; /* as the precision: an FP4 trunk would be a quarter */
	sim_capacity narrow;
	cr_assert_eq(sim_capacity_of(&c, &narrow, &e), 0, "%s", e.msg);
	cr_assert_float_eq(narrow.weight_bytes_per_gpu - narrow.expert_bytes_per_gpu,
	                   dense * 0.5625 / 8, 1e3);
	/* "a ~1.5 TB MXFP4 checkpoint does not fit below 8 GPUs" */
	c = cfg("kimik3", "b300", "fp4", 4, 1, false);
	cr_assert_eq(sim_capacity_of(&c, &cap, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "kimi-k3 in fp4 needs"), "%s", e.msg);
}

/* GLM-5.2 (glm5.2): GLM-5's shape with IndexShare, 21 of 78 layers keeping
 * and reading their DSA index; a long-context decode step reads that much
 * less index than GLM-5's. */
Test(sim_family, glm52_profile)
{
	const sim_model *m = sim_model_find("glm5.2"), *g5 = sim_model_find("glm-5");
	cr_assert_not_null(m);
	cr_assert_str_eq(m->name, "glm-5.2");
	cr_assert(m->layers == 78 && m->hidden == 6144 && m->q_heads == 64 && m->mla_kv_dim == 576);
	cr_assert(m->experts == 256 && m->experts_per_token == 8 && m->sparse_topk == 2048);
	cr_assert(m->index_dim == 132 && m->index_layers == 21 && g5->index_layers == 0);
	cr_assert_float_eq(m->default_al[3], 2.99, 1e-9); /* golden MTP AL, 3 drafts */
	sim_config c = cfg("glm5.2", "h200", "fp8", 8, 1, false), d = c;
	d.model = *g5;
	sim_step s = {.decode_seqs = 64, .decode_ctx_sum = 64 * 100000.0};
	sim_step_parts p52, p5;
	sim_step_breakdown(&c, &s, &p52);
	sim_step_breakdown(&d, &s, &p5);
	cr_assert_float_eq(p5.kv_bytes - p52.kv_bytes, 64 * 100000.0 * (78 - 21) * 132, 1);
	cr_assert_lt(p52.total, p5.total);
	/* the H200 rows fit: TP 8 with DP attention (the 2P2D recipe's workers) */
	sim_capacity cap;
	ib_error e = {0};
	c.dp_attn = true;
	cr_assert_eq(sim_capacity_of(&c, &cap, &e), 0, "%s", e.msg);
}

/* The sweep's kimik3 and glm5.2 rows resolve to these profiles. */
Test(sim_family, new_models_resolve_from_rows)
{
	ib_arena *a = ib_arena_new();
	const char *rows[][2] = {
	    {"{\"model-prefix\": \"kimik3\", \"precision\": \"fp4\", \"runner\": "
	     "\"cluster:b300-nv\","
	     " \"tp\": 8, \"ep\": 1}",
	     "kimi-k3"},
	    {"{\"model-prefix\": \"glm5.2\", \"precision\": \"fp4\", \"runner\": \"b200\","
	     " \"tp\": 8, \"ep\": 8, \"dp-attn\": true}",
	     "glm-5.2"},
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		const char *m = NULL, *h = NULL;
		const char *why = run_sim_unmodelable(row_of(a, rows[i][0]), &m, &h);
		cr_assert_null(why, "%s: %s", rows[i][1], why);
		cr_assert_str_eq(m, rows[i][1]);
	}
	ib_arena_free(a);
}

/* dense-weight-bits and index-layers load from a profile and are checked
 * with the file's line and the field's name. */
Test(sim_family, checkpoint_and_index_fields_are_checked)
{
	static const bad_profile bad[] = {
	    {"model:\n  dense-weight-bits: 17\n", "model.dense-weight-bits", 2},
	    {"model:\n  dense-weight-bits: -2\n", "model.dense-weight-bits", 2},
	    {"model:\n  dense-weight-bits: .nan\n", "model.dense-weight-bits", 2},
	    {"model:\n  index-layers: 2.5\n", "model.index-layers", 2},
	    {"model:\n  index-layers: -1\n", "model.index-layers", 2},
	    /* more index layers than attention layers (llama3-8b's 32) */
	    {"model:\n  name: x\n  index-layers: 33\n", "model.index-layers", 3},
	    {"model:\n  attention-layers: 12\n  index-layers: 20\n", "model.index-layers", 3},
	    {"model:\n  index-layers: 20\n  attention-layers: 12\n", "model.attention-layers", 3},
	};
	sim_config c;
	check_profile_texts("model:\n  attention-layers: 40\n  dense-weight-bits: 16\n"
	                    "  index-layers: 10\n",
	                    &c, bad, sizeof bad / sizeof *bad);
	cr_assert_float_eq(c.model.dense_wbits, 16, 1e-12);
	cr_assert_eq(c.model.index_layers, 10);
}

/* Worker shapes the sweep's newest rows use: prefill context parallelism
 * (tp x pcp-size GPUs, served as that TP), and vLLM's TP x DP with EP over
 * all (dp-attn with ep > tp > 1: ep / tp replicas of TP tp). */
Test(sim_family, context_parallel_and_tp_dp_workers)
{
	ib_arena *a = ib_arena_new();
	/* GLM-5.2 FP8 on H200, 2P2D: prefill tp 1 x pcp 8, decode TP 8 DEP */
	ib_val *r = row_of(
	    a,
	    "{\"model-prefix\": \"glm5.2\", \"precision\": \"fp8\", \"runner\": "
	    "\"cluster:h200-dgxc\", \"disagg\": true, \"prefill\": {\"num-worker\": 2, \"tp\": 1,"
	    " \"ep\": 1, \"dp-attn\": false, \"pcp-size\": 8}, \"decode\": {\"num-worker\": 2,"
	    " \"tp\": 8, \"ep\": 1, \"dp-attn\": true}}");
	run_sim_shape sh;
	run_sim_shape_of(a, r, &sh);
	cr_assert(sh.prefill_workers == 2 && sh.prefill_tp == 8 && sh.prefill_ep == 1);
	cr_assert(sh.tp == 8 && sh.dp_attn && sh.decode_workers == 2);
	const char *why = run_sim_unmodelable(r, NULL, NULL);
	cr_assert_null(why, "%s", why);
	/* Kimi K3 on H200: TP 8 x DP 4, EP 32, four workers of one engine */
	const char *pool = "{\"num-worker\": %d, \"tp\": %d, \"ep\": %d, \"dp-attn\": true}";
	char pre[128], dec[128], js[512];
	snprintf(pre, sizeof pre, pool, 4, 8, 32);
	snprintf(dec, sizeof dec, pool, 0, 8, 32);
	snprintf(js, sizeof js,
	         "{\"model-prefix\": \"kimik3\", \"precision\": \"fp4\", \"runner\": "
	         "\"cluster:h200-dgxc\", \"prefill\": %s, \"decode\": %s}",
	         pre, dec);
	r = row_of(a, js);
	run_sim_shape_of(a, r, &sh);
	cr_assert(sh.tp == 8 && sh.ep == 32 && !sh.dp_attn && sh.decode_workers == 4, "%d %d %d %d",
	          sh.tp, sh.ep, sh.dp_attn, sh.decode_workers);
	why = run_sim_unmodelable(r, NULL, NULL);
	cr_assert_null(why, "%s", why);
	/* its whole BF16 trunk on every GPU (SGLang's DP attention) would not fit */
	sim_config c = cfg("kimik3", "h200", "fp4", 8, 32, true);
	sim_capacity cap;
	ib_error e = {0};
	cr_assert_eq(sim_capacity_of(&c, &cap, &e), IB_EINVAL);
	/* GB200: TP 4 x DP 4, EP 16 in one worker */
	snprintf(pre, sizeof pre, pool, 1, 4, 16);
	snprintf(dec, sizeof dec, pool, 0, 4, 16);
	snprintf(js, sizeof js,
	         "{\"model-prefix\": \"kimik3\", \"precision\": \"fp4\", \"runner\": "
	         "\"cluster:gb200-nv\", \"prefill\": %s, \"decode\": %s}",
	         pre, dec);
	r = row_of(a, js);
	run_sim_shape_of(a, r, &sh);
	cr_assert(sh.tp == 4 && sh.ep == 16 && !sh.dp_attn && sh.decode_workers == 4);
	cr_assert_null(run_sim_unmodelable(r, NULL, NULL));
	/* TP 1 with EP 8 and DP attention (DEP 8) stays as it was */
	snprintf(pre, sizeof pre, pool, 1, 1, 8);
	snprintf(dec, sizeof dec, pool, 0, 1, 8);
	snprintf(js, sizeof js,
	         "{\"model-prefix\": \"dsv4\", \"precision\": \"fp4\", \"runner\": \"gb200\","
	         " \"prefill\": %s, \"decode\": %s}",
	         pre, dec);
	run_sim_shape_of(a, row_of(a, js), &sh);
	cr_assert(sh.tp == 1 && sh.ep == 8 && sh.dp_attn && sh.decode_workers == 1);
	ib_arena_free(a);
}
