/* The calibration file (docs/sim.md "Calibration") and the modelling terms
 * of the performance model that it and the profiles feed. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/sim.h"

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
	const char *p = write_tmp("rules:\n"
				  "  - note: base\n"
				  "    mem-eff: 0.7\n"
				  "    step-overhead-us: 500\n"
				  "  - match: {framework: sglang, hardware: [mi300x, mi355x]}\n"
				  "    step-overhead-us: 9000\n"
				  "    seq-overhead-us: 20\n"
				  "  - match: {framework: sglang, hardware: mi355x, precision: fp4}\n"
				  "    compute-eff: 0.4\n");
	ib_arena *a = ib_arena_new();
	ib_diags d = {.a = a};
	ib_error e = {0};
	sim_calib_file f;
	cr_assert_eq(sim_calib_load(p, a, &f, &d, &e), 0, "%s", e.msg);
	cr_assert_eq(f.n, 3);
	sim_calib c;
	sim_calib_resolve(&f, &(sim_calib_key){"vllm", "h100", "bf16", "llama3-8b", "none"}, &c);
	cr_assert_float_eq(c.mem_eff, 0.7, 1e-12);
	cr_assert_float_eq(c.step_overhead_s, 500e-6, 1e-12);
	cr_assert_float_eq(c.compute_eff, 0.6, 1e-12); /* the default */
	cr_assert_float_eq(c.seq_overhead_s, 0, 1e-12);
	sim_calib_resolve(&f, &(sim_calib_key){"sglang", "mi355x", "fp8", "llama3-8b", "none"}, &c);
	cr_assert_float_eq(c.step_overhead_s, 9000e-6, 1e-12);
	cr_assert_float_eq(c.seq_overhead_s, 20e-6, 1e-12);
	cr_assert_float_eq(c.compute_eff, 0.6, 1e-12);
	sim_calib_resolve(&f, &(sim_calib_key){"SGLang", "MI355X", "fp4", "x", NULL}, &c);
	cr_assert_float_eq(c.compute_eff, 0.4, 1e-12); /* names match case-insensitively */
	/* an unknown framework matches only unconstrained rules */
	sim_calib_resolve(&f, &(sim_calib_key){NULL, "mi355x", "fp4", NULL, NULL}, &c);
	cr_assert_float_eq(c.step_overhead_s, 500e-6, 1e-12);
	/* no file: the defaults */
	sim_calib_resolve(NULL, &(sim_calib_key){0}, &c);
	sim_calib def;
	sim_calib_defaults(&def);
	cr_assert_eq(memcmp(&c, &def, sizeof c), 0);
	ib_diags_free(&d);
	ib_arena_free(a);
}

/* Every problem is reported, each with its line and field. */
Test(simcal, errors_name_file_line_and_field)
{
	const char *p = write_tmp("rules:\n"                              /* 1 */
				  "  - mem-eff: 1.5\n"                      /* 2: out of range */
				  "    wings: 3\n"                          /* 3: unknown parameter */
				  "  - match: {hardware: h900}\n"           /* 4: unknown GPU */
				  "    compute-eff: fast\n"                 /* 5: not a number */
				  "  - match: {colour: red}\n"              /* 6: unknown match key */
				  "    ep-imbalance: 0.5\n");               /* 7: below 1 */
	ib_arena *a = ib_arena_new();
	ib_diags d = {.a = a};
	ib_error e = {0};
	sim_calib_file f;
	cr_assert_eq(sim_calib_load(p, a, &f, &d, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "6 problems"), "%s", e.msg);
	struct {
		int line;
		const char *field, *words;
	} want[] = {{2, "mem-eff", "out of range"},     {3, "wings", "unknown parameter"},
		    {4, "match.hardware", "h900"},       {5, "compute-eff", "number"},
		    {6, "match", "colour"},              {7, "ep-imbalance", "out of range"}};
	cr_assert_eq(d.n, 6);
	for (size_t i = 0; i < 6; i++) {
		cr_assert_eq(d.items[i].line, want[i].line, "item %zu: line %d", i, d.items[i].line);
		cr_assert_str_eq(d.items[i].field, want[i].field);
		cr_assert(strstr(d.items[i].msg, want[i].words), "%s", d.items[i].msg);
		cr_assert_str_eq(d.items[i].file, p);
	}
	ib_buf b = {0};
	ib_diag_format(&d.items[0], &b);
	cr_assert(strstr(b.data, ":2:"), "%s", b.data);
	ib_buf_free(&b);
	ib_diags_free(&d);
	/* structure errors */
	d = (ib_diags){.a = a};
	p = write_tmp("rulez: []\n");
	cr_assert_eq(sim_calib_load(p, a, &f, &d, &e), IB_EINVAL);
	cr_assert_geq(d.n, 1);
	cr_assert_eq(d.items[0].line, 1);
	ib_diags_free(&d);
	d = (ib_diags){.a = a};
	p = write_tmp("rules: [1]\n");
	cr_assert_eq(sim_calib_load(p, a, &f, &d, &e), IB_EINVAL);
	ib_diags_free(&d);
	d = (ib_diags){.a = a};
	cr_assert_eq(sim_calib_load("/nonexistent/c.yaml", a, &f, &d, &e), IB_ENOENT);
	p = write_tmp("rules: [\n");
	cr_assert_eq(sim_calib_load(p, a, &f, &d, &e), IB_EPARSE);
	ib_diags_free(&d);
	ib_arena_free(a);
}

/* The repository's own calibration file loads cleanly. */
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
	ib_diags_free(&d);
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
