/* The simulator's calibration YAML (sim/calib.c: sim_calib_load, then
 * sim_calib_resolve and sim_calib_apply for a few keys). Checks: no crash;
 * a failure has a message, an IB_EINVAL failure at least one diagnostic and
 * every diagnostic a message, the file and a line (but for an empty
 * document); a loaded file's rules have a line each, and every key resolves
 * to finite parameters inside the documented ranges (docs/sim.md
 * "Calibration"), whatever rules match. */
#include "fuzz.h"

#include <math.h>

#include "sim/sim.h"

static const char *const files[] = {"calibration.yaml", NULL};

static void check_calib(const sim_calib *c)
{
	const double v[] = {c->mem_eff,	 c->compute_eff, c->step_overhead_s, c->seq_overhead_s,
	                    c->comm_eff, c->ep_imbalance, c->draft_cost};
	for (size_t i = 0; i < sizeof v / sizeof *v; i++)
		FUZZ_CHECK(isfinite(v[i]) && v[i] >= 0, "parameter %zu resolves to %g", i, v[i]);
	FUZZ_CHECK(c->mem_eff > 0 && c->mem_eff <= 1 && c->compute_eff > 0 && c->compute_eff <= 1 &&
	               c->comm_eff > 0 && c->comm_eff <= 1 && c->ep_imbalance >= 1,
	           "efficiencies %g %g %g, imbalance %g", c->mem_eff, c->compute_eff, c->comm_eff,
	           c->ep_imbalance);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[512];
	snprintf(path, sizeof path, "%s/calibration.yaml", fuzz_tmpdir(files));
	fuzz_write(path, data, size);
	ib_arena *a = ib_arena_new();
	if (!a)
		return 0;
	ib_diags d = {.a = a};
	ib_error e = {0};
	sim_calib_file f = {0};
	int rc = sim_calib_load(path, a, &f, &d, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc)
		FUZZ_CHECK(e.msg[0], "error %d without a message", rc);
	if (rc == IB_EINVAL)
		FUZZ_CHECK(d.n > 0, "IB_EINVAL without a diagnostic");
	for (size_t i = 0; i < d.n; i++)
		FUZZ_CHECK(d.items[i].msg && d.items[i].msg[0] && d.items[i].file &&
		               (d.items[i].line >= 1 || fuzz_yaml_empty(a, data, size)),
		           "diagnostic %zu: %s at line %d", i, d.items[i].msg, d.items[i].line);
	if (!rc) {
		for (size_t i = 0; i < f.n; i++)
			FUZZ_CHECK(f.rules[i].line >= 1, "rule %zu without a line", i);
		/* keys: the names each rule matches on, and a few fixed ones */
		static const sim_calib_key fixed[] = {
		    {0},
		    {"vllm", "h100", "fp8", "llama3-70b", "none", "v0.10.0"},
		    {"sglang", "b200", "fp4", "dsr1", "mtp", "2026-01-01"},
		};
		for (size_t k = 0; k < sizeof fixed / sizeof *fixed + f.n && k < 64; k++) {
			sim_calib_key key = {0};
			if (k < sizeof fixed / sizeof *fixed)
				key = fixed[k];
			else {
				const sim_calib_rule *r = &f.rules[k - sizeof fixed / sizeof *fixed];
				const char **slot[] = {&key.framework, &key.hardware, &key.precision,
				                       &key.model,     &key.spec,     &key.version};
				for (int m = 0; m < SIM_CALIB_NMATCH; m++)
					*slot[m] = r->match[m] ? r->match[m][0] : NULL;
			}
			sim_calib c;
			sim_calib_resolve(&f, &key, &c);
			check_calib(&c);
			sim_config cfg;
			sim_config_init(&cfg);
			sim_calib_apply(&c, &cfg);
		}
	}
	ib_arena_free(a);
	return 0;
}
