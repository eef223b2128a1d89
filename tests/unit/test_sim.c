#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/sim.h"

static double step(const sim_config *c, int seqs, double ctx)
{
	sim_step s = {.decode_seqs = seqs, .decode_ctx_sum = seqs * ctx};
	return sim_step_time(c, &s);
}

Test(sim, profiles_exist)
{
	const char *hws[] = {"h100", "h200", "b200", "gb200", "mi300x", "mi325x", "mi355x"};
	for (size_t i = 0; i < 7; i++)
		cr_assert_not_null(sim_hw_find(hws[i]), "%s", hws[i]);
	const char *models[] = {"llama3-8b", "llama3-70b", "deepseek-r1", "gpt-oss-120b",
				"qwen3.5-397b-a17b", "minimax-m3", "dsr1", "qwen3.5"};
	for (size_t i = 0; i < 8; i++)
		cr_assert_not_null(sim_model_find(models[i]), "%s", models[i]);
	cr_assert_null(sim_model_find("nope"));
}

Test(sim, decode_is_memory_bound_and_batching_pays)
{
	sim_config c;
	sim_config_init(&c);
	double t1 = step(&c, 1, 1000), t64 = step(&c, 64, 1000), t256 = step(&c, 256, 1000);
	/* llama3-8b bf16 on one H100: ~16 GB of weights at ~2.7 TB/s */
	cr_assert(t1 > 0.005 && t1 < 0.008, "t1 %g", t1);
	/* per user slower, in total faster */
	cr_assert_gt(t64, t1);
	cr_assert_gt(t256, t64);
	cr_assert_gt(64 / t64, 1 / t1);
	cr_assert_gt(256 / t256, 64 / t64);
}

Test(sim, prefill_grows_with_length_and_tp_helps)
{
	sim_config c;
	sim_config_init(&c);
	sim_step a = {.prefill_tokens = 1024, .prefill_ctx_sum = 1024 * 512.0};
	sim_step b = {.prefill_tokens = 8192, .prefill_ctx_sum = 8192 * 4096.0};
	cr_assert_gt(sim_step_time(&c, &b), 4 * sim_step_time(&c, &a));
	double tp1 = step(&c, 8, 1000);
	c.tp = 8;
	cr_assert_lt(step(&c, 8, 1000), tp1 / 2);
}

Test(sim, moe_reads_touched_experts)
{
	sim_config c;
	sim_config_init(&c);
	c.model = *sim_model_find("deepseek-r1");
	c.hw = *sim_hw_find("b200");
	c.precision = "fp8";
	c.tp = 8;
	/* one token touches few experts, a big batch nearly all of them */
	double t1 = step(&c, 1, 100), t512 = step(&c, 512, 100);
	cr_assert_gt(t512, 3 * t1);
}

Test(sim, capacity_and_fit)
{
	sim_config c;
	sim_config_init(&c);
	sim_capacity cap;
	ib_error e = {0};
	cr_assert_eq(sim_capacity_of(&c, &cap, &e), 0);
	/* (80 GiB * 0.9 - 16 GB - 2 GB) / 128 KiB per token */
	cr_assert(cap.kv_blocks > 20000 && cap.kv_blocks < 30000, "%lld", (long long)cap.kv_blocks);
	c.model = *sim_model_find("llama3-70b");
	cr_assert_eq(sim_capacity_of(&c, &cap, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "needs"), "%s", e.msg);
}

Test(sim, acceptance_schedule_mean)
{
	sim_config c;
	sim_config_init(&c);
	c.spec_method = "mtp";
	c.num_spec_tokens = 3;
	c.acceptance_length = 2.49;
	sim_rng r;
	sim_rng_seed(&r, 42);
	long total = 0, steps = 100000;
	for (long i = 0; i < steps; i++) {
		int n = sim_tokens_per_step(&c, sim_rng_uniform(&r));
		cr_assert(n == 2 || n == 3, "minimum-variance schedule: %d", n);
		total += n;
	}
	cr_assert(fabs((double)total / steps - 2.49) < 0.01, "%g", (double)total / steps);
	c.acceptance_length = 9;
	cr_assert_eq(sim_tokens_per_step(&c, 0.5), 4); /* capped at k + 1 */
	c.spec_method = "none";
	cr_assert_eq(sim_tokens_per_step(&c, 0.5), 1);
}

Test(sim, profile_file_overrides_and_errors)
{
	char dir[] = "/tmp/ib-sim-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof path, "%s/p.yaml", dir);
	FILE *f = fopen(path, "w");
	fputs("hardware:\n  name: my-gpu\n  hbm-tbps: 10\nmodel:\n  layers: 40\n  params-b: 9\n", f);
	fclose(f);
	sim_config c;
	sim_config_init(&c);
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	cr_assert_eq(sim_profile_load(path, &c.hw, &c.model, a, &e), 0, "%s", e.msg);
	cr_assert_str_eq(c.hw.name, "my-gpu");
	cr_assert_eq(c.hw.hbm_bw, 10e12);
	cr_assert_eq(c.model.layers, 40);
	cr_assert_eq(c.model.params, 9e9);
	f = fopen(path, "w");
	fputs("model:\n  layers: 40\n  wings: 2\n", f);
	fclose(f);
	cr_assert_eq(sim_profile_load(path, &c.hw, &c.model, a, &e), IB_EINVAL);
	cr_assert_eq(e.line, 3);
	cr_assert(strstr(e.msg, "model.wings"), "%s", e.msg);
	ib_arena_free(a);
	remove(path);
	remove(dir);
}
