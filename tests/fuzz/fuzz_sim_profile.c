/* The simulator's profile YAML (`sim --profile`, `run --sim-profile`;
 * sim/profiles.c: sim_profile_load over the built-in H100 and Llama 3 8B),
 * then the performance model's capacity and one step's time. Checks: no
 * crash (a value no int holds is refused, not converted); a failure has a
 * message and a line (but for an empty document); a loaded profile has only
 * finite, non-negative numbers, its links (host, scale-out) > 0 and its
 * scale-up domain 1..1e6 GPUs, a checkpoint's expert and dense bits 0..16,
 * no more index layers than attention layers; a disaggregated
 * configuration's KV transfer on them is finite. */
#include "fuzz.h"

#include <math.h>

#include "sim/sim.h"

static const char *const files[] = {"profile.yaml", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[512];
	snprintf(path, sizeof path, "%s/profile.yaml", fuzz_tmpdir(files));
	fuzz_write(path, data, size);
	ib_arena *a = ib_arena_new();
	if (!a)
		return 0;
	sim_config c;
	sim_config_init(&c);
	ib_error e = {0};
	int rc = sim_profile_load(path, &c.hw, &c.model, a, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc) {
		FUZZ_CHECK(e.msg[0], "error %d without a message", rc);
		FUZZ_CHECK(rc == IB_ENOMEM || e.line >= 1 || fuzz_yaml_empty(a, data, size),
		           "error without a line: %s", e.msg);
		goto out;
	}
	const double hw[] = {c.hw.mem_bytes, c.hw.hbm_bw,  c.hw.flops_bf16, c.hw.flops_fp8,
	                     c.hw.flops_fp4, c.hw.link_bw, c.hw.link_lat,   c.hw.net_lat};
	for (size_t i = 0; i < sizeof hw / sizeof *hw; i++)
		FUZZ_CHECK(isfinite(hw[i]) && hw[i] >= 0, "hardware field %zu is %g", i, hw[i]);
	/* the families' links and domain: what a transfer divides by */
	FUZZ_CHECK(isfinite(c.hw.host_bw) && c.hw.host_bw > 0, "host-link %g", c.hw.host_bw);
	FUZZ_CHECK(isfinite(c.hw.net_bw) && c.hw.net_bw > 0, "net %g", c.hw.net_bw);
	FUZZ_CHECK(c.hw.domain_gpus >= 1 && c.hw.domain_gpus <= 1000000, "scale-up-gpus %d",
	           c.hw.domain_gpus);
	const double md[] = {c.model.params, c.model.active_params, c.model.expert_params};
	for (size_t i = 0; i < sizeof md / sizeof *md; i++)
		FUZZ_CHECK(isfinite(md[i]) && md[i] >= 0, "model field %zu is %g", i, md[i]);
	/* a checkpoint's bits per weight: 0 (as the precision) .. 16 */
	const double bits[] = {c.model.expert_wbits, c.model.dense_wbits};
	for (size_t i = 0; i < sizeof bits / sizeof *bits; i++)
		FUZZ_CHECK(bits[i] >= 0 && bits[i] <= 16, "weight bits %zu is %g", i, bits[i]);
	/* IndexShare: the index layers are some of the attention layers */
	FUZZ_CHECK(c.model.index_layers >= 0 && c.model.index_layers <= c.model.attn_layers,
	           "index-layers %d of %d attention layers", c.model.index_layers,
	           c.model.attn_layers);
	const int mi[] = {c.model.experts,     c.model.experts_per_token,
	                  c.model.layers,      c.model.attn_layers,
	                  c.model.hidden,      c.model.q_heads,
	                  c.model.kv_heads,    c.model.head_dim,
	                  c.model.mla_kv_dim,  c.model.window,
	                  c.model.sparse_topk, c.model.index_dim};
	for (size_t i = 0; i < sizeof mi / sizeof *mi; i++)
		FUZZ_CHECK(mi[i] >= 0, "model integer %zu is %d", i, mi[i]);
	sim_capacity cap;
	if (sim_capacity_of(&c, &cap, &e) == 0) {
		sim_step s = {.decode_seqs = 8,
		              .decode_ctx_sum = 8 * 1024.0,
		              .prefill_tokens = 512,
		              .prefill_ctx_sum = 512 * 256.0};
		(void)sim_step_time(&c, &s);
		/* the families on these links: a disaggregated multi-node
		 * configuration's KV transfer (finite, non-negative) */
		c.tp = 8;
		c.replicas = 2;
		c.prefill_workers = 3;
		c.prefill_tp = 4;
		double t = sim_kv_transfer_s(&c, 8192);
		FUZZ_CHECK(isfinite(t) && t >= 0, "KV transfer %g s", t);
		FUZZ_CHECK(sim_config_gpus(&c) == 8 * 2 + 3 * 4, "GPUs %d", sim_config_gpus(&c));
	}
out:
	ib_arena_free(a);
	return 0;
}
