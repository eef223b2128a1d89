/* Prediction intervals (docs/sim.md "Prediction intervals"): the table
 * file, the lookup's fallback order and widening, the header on the wire,
 * and the table built from cross-validation residuals. */
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
		strcpy(tmpdir, "/tmp/ib-simiv-XXXXXX");
		cr_assert_not_null(mkdtemp(tmpdir));
	}
	snprintf(path, sizeof path, "%s/iv.yaml", tmpdir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void cleanup(void)
{
	char path[128];
	snprintf(path, sizeof path, "%s/iv.yaml", tmpdir);
	unlink(path);
	rmdir(tmpdir);
	tmpdir[0] = 0;
}

TestSuite(simiv, .fini = cleanup);

static const char table[] =
    "level: 0.8\n"
    "inflation: 2\n"
    "min-residuals: 3\n"
    "source: \"test\"\n"
    "models: [llama3-70b, deepseek-r1]\n"
    "gpus: [h100, h200, mi355x]\n"
    "pools:\n"
    "  - {pool: vllm/hopper, residuals: 4, tput-per-gpu: [-0.1, 0.1], interactivity: [-0.2, "
    "0.0]}\n"
    "  - {pool: sglang/hopper, residuals: 2, tput-per-gpu: [-0.05, 0.05], interactivity: "
    "[-0.05, 0.05]}\n"
    "  - {pool: nvidia, residuals: 6, tput-per-gpu: [-0.3, 0.1], interactivity: [-0.3, 0.3]}\n"
    "  - {pool: amd, residuals: 2, tput-per-gpu: [-1, 1], interactivity: [-1, 1]}\n"
    "  - {pool: all, residuals: 8, tput-per-gpu: [-0.4, 0.2], interactivity: [-0.5, 0.5]}\n";

static void load(sim_iv_table *t, ib_arena *a)
{
	ib_diags d = {.a = a};
	ib_error e = {0};
	cr_assert_eq(sim_iv_load(write_tmp(table), a, t, &d, &e), 0, "%s", e.msg);
	cr_assert_eq(t->n, 5);
	cr_assert_float_eq(t->level, 0.8, 1e-12);
	/* a table without widen-add (written before the additive rule):
	 * multiplicative only, as it was */
	cr_assert_float_eq(t->rule.inflation, 2, 1e-12);
	cr_assert_float_eq(t->rule.add, 0, 1e-12);
	cr_assert_float_eq(t->rule.cap, 0, 1e-12);
	cr_assert(!t->rule.hold_sim);
	cr_assert_eq(t->min_n, 3);
}

Test(simiv, family_and_vendor_names)
{
	cr_assert_str_eq(sim_iv_family("h200"), "hopper");
	cr_assert_str_eq(sim_iv_family("GB300"), "blackwell");
	cr_assert_str_eq(sim_iv_family("mi355x"), "cdna4");
	cr_assert_str_eq(sim_iv_family("rtx6000pro"), "rtx6000pro");
	cr_assert_str_eq(sim_iv_vendor("mi300x"), "amd");
	cr_assert_str_eq(sim_iv_vendor("b200"), "nvidia");
	char buf[64];
	const char *k[3];
	sim_iv_keys(NULL, "h100", buf, sizeof buf, k);
	cr_assert_str_eq(k[0], "any/hopper");
	cr_assert_str_eq(k[1], "nvidia");
	cr_assert_str_eq(k[2], "all");
}

Test(simiv, the_framework_family_pool_first_unwidened)
{
	ib_arena *a = ib_arena_new();
	sim_iv_table t;
	load(&t, a);
	sim_iv iv;
	cr_assert_eq(sim_iv_lookup(&t, "vllm", "h200", "llama3-70b", &iv), 0);
	cr_assert_str_eq(iv.pool, "vllm/hopper");
	cr_assert_eq(iv.widen, 0);
	cr_assert_float_eq(iv.tput[0], exp(-0.1), 1e-12);
	cr_assert_float_eq(iv.tput[1], exp(0.1), 1e-12);
	cr_assert_float_eq(iv.inter[0], exp(-0.2), 1e-12);
	cr_assert_float_eq(iv.inter[1], 1, 1e-12);
	cr_assert_float_eq(iv.level, 0.8, 1e-12);
	ib_arena_free(a);
}

Test(simiv, a_small_pool_falls_back_to_the_vendor_then_all_widening)
{
	ib_arena *a = ib_arena_new();
	sim_iv_table t;
	load(&t, a);
	sim_iv iv;
	/* sglang/hopper has 2 < 3 residuals: nvidia, one step (x2 about the centre) */
	cr_assert_eq(sim_iv_lookup(&t, "sglang", "h100", "deepseek-r1", &iv), 0);
	cr_assert_str_eq(iv.pool, "nvidia");
	cr_assert_eq(iv.widen, 1);
	cr_assert_float_eq(iv.tput[0], exp(-0.1 - 0.4), 1e-12);
	cr_assert_float_eq(iv.tput[1], exp(-0.1 + 0.4), 1e-12);
	/* amd has 2: all, two steps (x4) */
	cr_assert_eq(sim_iv_lookup(&t, "vllm", "mi355x", "llama3-70b", &iv), 0);
	cr_assert_str_eq(iv.pool, "all");
	cr_assert_eq(iv.widen, 2);
	cr_assert_float_eq(iv.tput[0], exp(-0.1 - 1.2), 1e-12);
	cr_assert_float_eq(iv.tput[1], exp(-0.1 + 1.2), 1e-12);
	ib_arena_free(a);
}

Test(simiv, no_data_near_widens_more)
{
	ib_arena *a = ib_arena_new();
	sim_iv_table t;
	load(&t, a);
	sim_iv near, far;
	/* a model no residual came from: one more step than the same config */
	cr_assert_eq(sim_iv_lookup(&t, "vllm", "h200", "llama3-70b", &near), 0);
	cr_assert_eq(sim_iv_lookup(&t, "vllm", "h200", "kimi-k2.5", &far), 0);
	cr_assert_str_eq(far.pool, "vllm/hopper");
	cr_assert_eq(far.widen, near.widen + 1);
	cr_assert_float_eq(log(far.tput[1] / far.tput[0]), 2 * log(near.tput[1] / near.tput[0]),
	                   1e-9);
	/* a GPU no residual came from skips its family pool: vendor, +1 +1 */
	cr_assert_eq(sim_iv_lookup(&t, "vllm", "b200", "llama3-70b", &far), 0);
	cr_assert_str_eq(far.pool, "nvidia");
	cr_assert_eq(far.widen, 2);
	/* unknown framework: not its family either; unknown model and GPU too */
	cr_assert_eq(sim_iv_lookup(&t, NULL, "h100", "llama3-70b", &far), 0);
	cr_assert_str_eq(far.pool, "nvidia");
	cr_assert_eq(far.widen, 1);
	cr_assert_eq(sim_iv_lookup(&t, NULL, "b300", NULL, &far), 0);
	cr_assert_eq(far.widen, 3);
	/* every interval holds its centre and widens monotonically */
	cr_assert_leq(far.tput[0], near.tput[0]);
	cr_assert_geq(far.tput[1], near.tput[1]);
	ib_arena_free(a);
}

/* the table above with the additive rule's keys */
static void load_rule(sim_iv_table *t, ib_arena *a, const char *rule)
{
	char text[sizeof table + 256];
	const char *rest = strstr(table, "min-residuals");
	snprintf(text, sizeof text, "level: 0.8\n%s%s", rule, rest);
	ib_diags d = {.a = a};
	ib_error e = {0};
	cr_assert_eq(sim_iv_load(write_tmp(text), a, t, &d, &e), 0, "%s\n%s", e.msg, text);
}

Test(simiv, the_additive_rule_adds_the_all_pool_half_width_per_step_up_to_its_cap)
{
	ib_arena *a = ib_arena_new();
	sim_iv_table t;
	load_rule(&t, a, "inflation: 1\nwiden-add: 1\nwiden-cap: 0\nwiden-holds-sim: false\n");
	cr_assert_float_eq(t.rule.add, 1, 1e-12);
	sim_iv iv;
	/* unwidened: the pool's own quantiles */
	cr_assert_eq(sim_iv_lookup(&t, "vllm", "h200", "llama3-70b", &iv), 0);
	cr_assert_float_eq(iv.tput[0], exp(-0.1), 1e-12);
	/* nvidia (half-width 0.2), one step: + all's half-width 0.3 (tput), 0.5
	 * (interactivity) */
	cr_assert_eq(sim_iv_lookup(&t, "sglang", "h100", "deepseek-r1", &iv), 0);
	cr_assert_eq(iv.widen, 1);
	cr_assert_float_eq(iv.tput[0], exp(-0.1 - 0.5), 1e-12);
	cr_assert_float_eq(iv.tput[1], exp(-0.1 + 0.5), 1e-12);
	cr_assert_float_eq(iv.inter[0], exp(-0.3 - 0.5), 1e-12);
	cr_assert_float_eq(iv.inter[1], exp(0.3 + 0.5), 1e-12);
	/* all (0.3), two steps: 0.3 + 2 x 0.3 = 0.9 */
	cr_assert_eq(sim_iv_lookup(&t, "vllm", "mi355x", "llama3-70b", &iv), 0);
	cr_assert_eq(iv.widen, 2);
	cr_assert_float_eq(iv.tput[1], exp(-0.1 + 0.9), 1e-12);
	/* nvidia, three steps (an unknown framework, GPU and model): 0.2 + 3 x
	 * 0.3 = 1.1; with a cap of 2: 2 x 0.3 = 0.6 */
	cr_assert_eq(sim_iv_lookup(&t, NULL, "b300", NULL, &iv), 0);
	cr_assert_eq(iv.widen, 3);
	cr_assert_str_eq(iv.pool, "nvidia");
	cr_assert_float_eq(iv.tput[1], exp(-0.1 + 1.1), 1e-12);
	load_rule(&t, a, "inflation: 1\nwiden-add: 1\nwiden-cap: 2\n");
	cr_assert_eq(sim_iv_lookup(&t, NULL, "b300", NULL, &iv), 0);
	cr_assert_float_eq(iv.tput[0], exp(-0.1 - 0.6), 1e-12);
	cr_assert_float_eq(iv.tput[1], exp(-0.1 + 0.6), 1e-12);
	/* the cap never narrows a pool below its own quantiles, nor the
	 * unwidened */
	load_rule(&t, a, "inflation: 1\nwiden-add: 1\nwiden-cap: 1\n");
	cr_assert_eq(sim_iv_lookup(&t, "vllm", "h200", "llama3-70b", &iv), 0);
	cr_assert_float_eq(iv.tput[1], exp(0.1), 1e-12);
	/* hold-sim: a widened interval holds the simulated value (log 0) */
	sim_iv_pool one[] = {{"all", 10, {0.2, 0.4}, {-0.5, -0.1}}};
	const char *none[] = {NULL};
	sim_iv_table h = {.level = 0.8,
	                  .rule = {.inflation = 1, .hold_sim = true},
	                  .min_n = 1,
	                  .models = none,
	                  .gpus = none,
	                  .pools = one,
	                  .n = 1};
	cr_assert_eq(sim_iv_lookup(&h, "vllm", "h100", "x", &iv), 0);
	cr_assert_eq(iv.widen, 4);
	cr_assert_float_eq(iv.tput[0], 1, 1e-12);
	cr_assert_float_eq(iv.tput[1], exp(0.4), 1e-12);
	cr_assert_float_eq(iv.inter[0], exp(-0.5), 1e-12);
	cr_assert_float_eq(iv.inter[1], 1, 1e-12);
	h.rule.hold_sim = false;
	cr_assert_eq(sim_iv_lookup(&h, "vllm", "h100", "x", &iv), 0);
	cr_assert_float_eq(iv.tput[0], exp(0.2), 1e-12);
	ib_arena_free(a);
}

Test(simiv, bad_tables_are_named_by_line_and_field)
{
	static const char *const bad[] = {
	    "level: 1.5\npools:\n  - {pool: all, residuals: 1, tput-per-gpu: [0, 0], "
	    "interactivity: [0, 0]}\n",
	    "level: 0.8\npools:\n  - {pool: all, residuals: 1, tput-per-gpu: [0.2, 0.1], "
	    "interactivity: [0, 0]}\n",
	    "level: 0.8\npools:\n  - {pool: nvidia, residuals: 1, tput-per-gpu: [0, 0], "
	    "interactivity: [0, 0]}\n",
	    "level: 0.8\npools:\n  - {pool: all, residuals: 1, tput-per-gpu: [0, .nan], "
	    "interactivity: [0, 0]}\n",
	    "level: 0.8\nwidth: 3\npools:\n  - {pool: all, residuals: 1, tput-per-gpu: [0, 0], "
	    "interactivity: [0, 0]}\n",
	    "level: 0.8\npools:\n  - {pool: all, tput-per-gpu: [0, 0], interactivity: [0, 0]}\n",
	    "level: 0.8\nwiden-add: -1\npools:\n  - {pool: all, residuals: 1, tput-per-gpu: [0, "
	    "0], interactivity: [0, 0]}\n",
	    "level: 0.8\nwiden-cap: 0.5\npools:\n  - {pool: all, residuals: 1, tput-per-gpu: [0, "
	    "0], interactivity: [0, 0]}\n",
	    "level: 0.8\nwiden-holds-sim: 1\npools:\n  - {pool: all, residuals: 1, tput-per-gpu: "
	    "[0, 0], interactivity: [0, 0]}\n",
	};
	static const char *const field[] = {"level",        "tput-per-gpu", "pools",
	                                    "tput-per-gpu", "width",        "residuals",
	                                    "widen-add",    "widen-cap",    "widen-holds-sim"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		ib_arena *a = ib_arena_new();
		ib_diags d = {.a = a};
		ib_error e = {0};
		sim_iv_table t;
		cr_assert_eq(sim_iv_load(write_tmp(bad[i]), a, &t, &d, &e), IB_EINVAL, "case %zu",
		             i);
		cr_assert_geq(d.n, 1, "case %zu", i);
		cr_assert_geq(d.items[0].line, 1, "case %zu", i);
		cr_assert_str_eq(d.items[0].field, field[i], "case %zu", i);
		ib_arena_free(a);
	}
}

Test(simiv, the_header_round_trips_and_rejects_junk)
{
	sim_iv iv = {.level = 0.8,
	             .tput = {0.7, 1.3},
	             .inter = {0.8, 1.25},
	             .pool = "vllm/hopper",
	             .widen = 1},
	       back;
	char h[256], pool[64];
	sim_iv_header(&iv, h, sizeof h);
	const char *name = "X-Infbench-Sim-Interval: ";
	cr_assert_eq(strncmp(h, name, strlen(name)), 0, "%s", h);
	const char *v = h + strlen(name);
	size_t len = strlen(v) - 2; /* less the CRLF */
	cr_assert(sim_iv_parse(v, len, &back, pool, sizeof pool), "%s", h);
	cr_assert_float_eq(back.tput[0], 0.7, 1e-15);
	cr_assert_float_eq(back.inter[1], 1.25, 1e-15);
	cr_assert_str_eq(back.pool, "vllm/hopper");
	cr_assert_eq(back.widen, 1);
	static const char *const junk[] = {
	    "level=0.8; tput=1.3,0.7; inter=0.8,1.2; pool=all; widen=0",
	    "level=0.8; tput=0.7,1.3; inter=0.8,1.2; pool=all; widen=0; x=1",
	    "level=1; tput=0.7,1.3; inter=0.8,1.2; pool=all; widen=0",
	    "level=0.8; tput=nan,1.3; inter=0.8,1.2; pool=all; widen=0",
	    "level=0.8; tput=0,1.3; inter=0.8,1.2; pool=all; widen=0",
	    "level=0.8; tput=0.7,1.3; inter=0.8,1.2; pool=all",
	    "",
	};
	for (size_t i = 0; i < sizeof junk / sizeof *junk; i++)
		cr_assert(!sim_iv_parse(junk[i], strlen(junk[i]), &back, pool, sizeof pool), "%s",
		          junk[i]);
	char tiny[16];
	sim_iv_header(&iv, tiny, sizeof tiny);
	cr_assert_eq(tiny[0], 0, "a header that does not fit is left out");
}

/* residuals of two held-out groups on two GPUs */
Test(simiv, the_table_from_residuals_quantiles_skip_and_coverage)
{
	ib_arena *a = ib_arena_new();
	slab_point p[3] = {
	    {.row_id = 1, .model = "llama3-70b", .gpu = "h100", .framework = "vllm"},
	    {.row_id = 2, .model = "llama3-70b", .gpu = "h200", .framework = "vllm"},
	    {.row_id = 3, .model = "deepseek-r1", .gpu = "mi355x", .framework = "sglang"},
	};
	slab_resid r[12];
	for (int i = 0; i < 12; i++) {
		const slab_point *q = &p[i < 5 ? 0 : i < 10 ? 1 : 2];
		double x = (i - 5) * 0.1; /* -0.5 .. 0.6 */
		r[i] = (slab_resid){q, i < 5 ? "g1" : i < 10 ? "g2" : "g3", 100, 10, x, x / 2};
	}
	slab_iv_opts o = {.level = 0.5, .rule = &(sim_iv_rule){.inflation = 1.5}, .min_n = 4};
	sim_iv_table t;
	cr_assert_eq(slab_iv_build(r, 12, NULL, &o, a, &t), 0);
	/* pools: vllm/hopper, sglang/cdna4, amd, nvidia, all (sorted per level) */
	cr_assert_eq(t.n, 5);
	cr_assert_str_eq(t.pools[0].key, "sglang/cdna4");
	cr_assert_str_eq(t.pools[1].key, "vllm/hopper");
	cr_assert_str_eq(t.pools[4].key, "all");
	cr_assert_eq(t.pools[1].n, 10);
	/* type-7 quartiles of -0.5 .. 0.4 step 0.1: -0.275, 0.175 */
	cr_assert_float_eq(t.pools[1].tput[0], -0.275, 1e-12);
	cr_assert_float_eq(t.pools[1].tput[1], 0.175, 1e-12);
	cr_assert_float_eq(t.pools[1].inter[0], -0.1375, 1e-12);
	cr_assert_str_eq(t.models[0], "deepseek-r1");
	cr_assert_str_eq(t.gpus[2], "mi355x");
	/* skipping g2: vllm/hopper has 5 residuals, h200 is no longer seen */
	sim_iv_table s;
	cr_assert_eq(slab_iv_build(r, 12, "g2", &o, a, &s), 0);
	cr_assert_eq(s.pools[1].n, 5);
	sim_iv iv;
	cr_assert_eq(sim_iv_lookup(&s, "vllm", "h200", "llama3-70b", &iv), 0);
	cr_assert_str_eq(iv.pool, "nvidia");
	cr_assert_eq(iv.widen, 2);
	/* the written table loads back to the same pools */
	ib_buf y = {0};
	slab_iv_write(&t, "unit test", &y);
	ib_diags d = {.a = a};
	ib_error e = {0};
	sim_iv_table back;
	cr_assert_eq(sim_iv_load(write_tmp(y.data), a, &back, &d, &e), 0, "%s\n%s", e.msg, y.data);
	cr_assert_eq(back.n, t.n);
	cr_assert_float_eq(back.pools[1].tput[0], -0.275, 1e-4);
	cr_assert_float_eq(back.level, 0.5, 1e-12);
	ib_buf_free(&y);
	/* the held-out check counts each figure once, inside or not */
	slab_iv_cover c;
	cr_assert_eq(slab_iv_check(r, 12, &o, a, false, NULL, NULL, &c), 0);
	cr_assert_eq(c.n_tps, 12);
	cr_assert_eq(c.n_inter, 12);
	cr_assert_leq(c.in_tps, 12);
	cr_assert_eq(c.n_w[0] + c.n_w[1] + c.n_w[2] + c.n_w[3], 12);
	cr_assert_gt(c.width_tps, 1);
	cr_assert_geq(c.p90_tps, c.width_tps);
	/* a wider rule covers at least as much, with wider bands (sim validate
	 * --cv prints the coverage and widths of candidate rules: how
	 * SIM_IV_INFLATION, _ADD and _CAP were chosen) */
	slab_iv_opts wide = o;
	wide.rule = &(sim_iv_rule){.inflation = 1.5, .add = 1};
	slab_iv_cover cw;
	cr_assert_eq(slab_iv_check(r, 12, &wide, a, false, NULL, NULL, &cw), 0);
	cr_assert_geq(cw.in_tps, c.in_tps);
	cr_assert_geq(cw.in_inter, c.in_inter);
	cr_assert_gt(cw.width_tps, c.width_tps);
	/* no rule asked: the table gets SIM_IV_INFLATION, _ADD, _CAP,
	 * _MIN_RESIDUALS, and
	 * writes them (a table written now loads with its rule) */
	sim_iv_table z;
	cr_assert_eq(slab_iv_build(r, 12, NULL, &(slab_iv_opts){0}, a, &z), 0);
	cr_assert_float_eq(z.rule.inflation, SIM_IV_INFLATION, 1e-12);
	cr_assert_float_eq(z.rule.add, SIM_IV_ADD, 1e-12);
	cr_assert_float_eq(z.rule.cap, SIM_IV_CAP, 1e-12);
	cr_assert_eq(z.min_n, SIM_IV_MIN_RESIDUALS);
	ib_buf zy = {0};
	slab_iv_write(&z, "unit test", &zy);
	sim_iv_table zb;
	cr_assert_eq(sim_iv_load(write_tmp(zy.data), a, &zb, &d, &e), 0, "%s", e.msg);
	cr_assert_float_eq(zb.rule.inflation, SIM_IV_INFLATION, 1e-12);
	cr_assert_float_eq(zb.rule.add, SIM_IV_ADD, 1e-12);
	cr_assert_float_eq(zb.rule.cap, SIM_IV_CAP, 1e-12);
	cr_assert(!zb.rule.hold_sim);
	cr_assert_eq(zb.min_n, SIM_IV_MIN_RESIDUALS);
	ib_buf_free(&zy);
	ib_arena_free(a);
}
