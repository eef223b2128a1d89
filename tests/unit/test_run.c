/* Unit tests for run/: RESULT_FILENAME, the §3.4 environment, what the
 * simulator can model, selection, recipe resolution, identities, the
 * manifest. Processes are exercised by tests/e2e/run.sh. */
#define _GNU_SOURCE
#include <criterion/criterion.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/private.h"

static ib_val *row_of(ib_arena *a, const char *json)
{
	ib_val *v;
	ib_error e = {0};
	cr_assert_eq(ib_json_parse(a, "row", json, strlen(json), &v, &e), 0, "%s", e.msg);
	return v;
}

static const char dsr1[] =
    "{\"image\": \"img:1\", \"model\": \"deepseek-ai/DeepSeek-R1\", \"model-prefix\": \"dsr1\","
    " \"precision\": \"fp8\", \"framework\": \"vllm\", \"runner\": \"h200\", \"isl\": 1024,"
    " \"osl\": 1024, \"tp\": 8, \"pp\": 1, \"dcp-size\": 1, \"pcp-size\": 1, \"conc\": 64,"
    " \"max-model-len\": 2304, \"ep\": 1, \"dp-attn\": false, \"spec-decoding\": \"none\","
    " \"exp-name\": \"dsr1_1k1k\", \"disagg\": false, \"run-eval\": false}";

Test(run, result_filename_is_the_workflow_name)
{
	ib_arena *a = ib_arena_new();
	ib_buf b = {0};
	cr_assert_eq(run_result_filename(&b, row_of(a, dsr1), "h200-cw_00"), 0);
	cr_assert_str_eq(b.data, "dsr1_1k1k_fp8_vllm_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_"
	                         "spec-none_conc64_h200-cw_00");
	ib_buf_free(&b);
	/* a recipe fingerprint adds its first 16 characters */
	ib_val *r = row_of(a, dsr1);
	ib_map_set(a, r, "recipe-fingerprint", ib_v_str(a, "0123456789abcdef0123"));
	cr_assert_eq(run_result_filename(&b, r, "x_1"), 0);
	cr_assert(strstr(b.data, "_conc64_x_1_recipe-0123456789abcdef") != NULL, "%s", b.data);
	cr_assert_eq(strlen(strstr(b.data, "_recipe-")), strlen("_recipe-") + 16);
	ib_buf_free(&b);
	ib_arena_free(a);
}

static const char *env_get(const char *env, const char *k, char *out, size_t cap)
{
	char key[64];
	snprintf(key, sizeof key, "\n%s=", k);
	char *whole = NULL;
	if (asprintf(&whole, "\n%s", env) < 0)
		return NULL;
	const char *p = strstr(whole, key);
	if (!p) {
		free(whole);
		return NULL;
	}
	p += strlen(key);
	snprintf(out, cap, "%.*s", (int)strcspn(p, "\n"), p);
	free(whole);
	return out;
}

Test(run, environment_has_every_variable_of_the_contract)
{
	ib_arena *a = ib_arena_new();
	ib_val *r = row_of(a, dsr1);
	ib_map_set(a, r, "pp", ib_v_int(a, 2));
	ib_map_set(a, r, "pcp-size", ib_v_int(a, 2));
	ib_map_set(a, r, "dp-attn", ib_v_bool(a, true));
	ib_buf b = {0};
	cr_assert_eq(run_row_env(&b, r, "h200_0", "NAME", 8891), 0);
	const char *need[] = {"MODEL",
	                      "MODEL_PREFIX",
	                      "ISL",
	                      "OSL",
	                      "MAX_MODEL_LEN",
	                      "IMAGE",
	                      "FRAMEWORK",
	                      "PRECISION",
	                      "TP",
	                      "PP_SIZE",
	                      "DCP_SIZE",
	                      "PCP_SIZE",
	                      "EP_SIZE",
	                      "DP_ATTENTION",
	                      "CONC",
	                      "SPEC_DECODING",
	                      "DISAGG",
	                      "RUN_EVAL",
	                      "EVAL_ONLY",
	                      "EXP_NAME",
	                      "RECIPE_FINGERPRINT",
	                      "SCENARIO_TYPE",
	                      "SCENARIO_SUBDIR",
	                      "IS_AGENTIC",
	                      "RANDOM_RANGE_RATIO",
	                      "HF_HUB_CACHE",
	                      "REQUIRE_POWER",
	                      "RUNNER_NAME",
	                      "RUNNER_TYPE",
	                      "RESULT_FILENAME",
	                      "GPU_COUNT",
	                      "PORT"};
	char v[256];
	for (size_t i = 0; i < sizeof need / sizeof *need; i++)
		cr_assert_not_null(env_get(b.data, need[i], v, sizeof v), "missing %s", need[i]);
	cr_assert_str_eq(env_get(b.data, "RANDOM_RANGE_RATIO", v, sizeof v), "0.8");
	cr_assert_str_eq(env_get(b.data, "GPU_COUNT", v, sizeof v), "32"); /* TP 8 x PP 2 x PCP 2 */
	cr_assert_str_eq(env_get(b.data, "DP_ATTENTION", v, sizeof v), "true");
	cr_assert_str_eq(env_get(b.data, "DISAGG", v, sizeof v), "false");
	cr_assert_str_eq(env_get(b.data, "SCENARIO_SUBDIR", v, sizeof v), "fixed_seq_len/");
	cr_assert_str_eq(env_get(b.data, "IS_AGENTIC", v, sizeof v), "0");
	cr_assert_str_eq(env_get(b.data, "RUNNER_TYPE", v, sizeof v), "h200");
	cr_assert_str_eq(env_get(b.data, "PORT", v, sizeof v), "8891");
	cr_assert_str_eq(env_get(b.data, "RECIPE_FINGERPRINT", v, sizeof v), "");
	ib_buf_free(&b);
	ib_arena_free(a);
}

Test(run, simulator_models_or_says_why_not)
{
	ib_arena *a = ib_arena_new();
	const char *m = NULL, *h = NULL;
	cr_assert_null(run_sim_unmodelable(row_of(a, dsr1), &m, &h));
	cr_assert_str_eq(m, "deepseek-r1");
	cr_assert_str_eq(h, "h200");
	ib_val *r = row_of(a, dsr1);
	ib_map_set(a, r, "runner", ib_v_str(a, "tpu7x"));
	const char *why = run_sim_unmodelable(r, NULL, NULL);
	cr_assert(why && strstr(why, "no simulator GPU profile for runner 'tpu7x'"), "%s", why);
	r = row_of(a, dsr1);
	ib_map_set(a, r, "runner", ib_v_str(a, "h200-cw"));
	cr_assert_null(run_sim_unmodelable(r, NULL, &h));
	cr_assert_str_eq(h, "h200");
	r = row_of(a, dsr1);
	ib_map_set(a, r, "model-prefix", ib_v_str(a, "nosuchmodel"));
	why = run_sim_unmodelable(r, NULL, NULL);
	cr_assert(why && strstr(why, "model-prefix 'nosuchmodel'"), "%s", why);
	r = row_of(a, dsr1);
	ib_map_set(a, r, "disagg", ib_v_bool(a, true));
	cr_assert(strstr(run_sim_unmodelable(r, NULL, NULL), "disaggregated"));
	r = row_of(a, dsr1);
	ib_map_set(a, r, "tp", ib_v_int(a, 1)); /* 671 B parameters on one H200 */
	why = run_sim_unmodelable(r, NULL, NULL);
	cr_assert_not_null(why);
	/* an agentic row the simulator models runs (the AgentX replay drives
	 * it); one it cannot model says what is missing, as a fixed-length row */
	r = row_of(a, dsr1);
	ib_map_set(a, r, "scenario-type", ib_v_str(a, "agentic-coding"));
	m = h = NULL;
	cr_assert_null(run_sim_unmodelable(r, &m, &h));
	cr_assert_str_eq(m, "deepseek-r1");
	cr_assert_str_eq(h, "h200");
	ib_map_set(a, r, "model-prefix", ib_v_str(a, "nosuchmodel"));
	why = run_sim_unmodelable(r, NULL, NULL);
	cr_assert(why && strstr(why, "model-prefix 'nosuchmodel'"), "%s", why);
	r = row_of(a, dsr1);
	ib_map_set(a, r, "scenario-type", ib_v_str(a, "swe-bench"));
	cr_assert(strstr(run_sim_unmodelable(r, NULL, NULL), "scenario 'swe-bench'"));
	ib_arena_free(a);
}

/* an agentic single-node row as the matrix writes it */
static const char agentic_row[] =
    "{\"image\": \"img:1\", \"model\": \"openai/gpt-oss-120b\", \"model-prefix\": \"gptoss\","
    " \"precision\": \"fp4\", \"framework\": \"sglang\", \"runner\": \"b200\", \"tp\": 4,"
    " \"pp\": 1, \"dcp-size\": 1, \"pcp-size\": 1, \"ep\": 1, \"dp-attn\": false,"
    " \"spec-decoding\": \"none\", \"conc\": 8, \"kv-offloading\": \"dram\","
    " \"total-cpu-dram-gb\": 1024, \"duration\": 3600, \"exp-name\": \"gptoss_tp4_conc8_dram\","
    " \"scenario-type\": \"agentic-coding\", \"kv-offload-backend\": {\"name\": \"hicache\"},"
    " \"router\": {\"name\": \"sglang-router\", \"version\": \"0.3.2\"},"
    " \"kv-p2p-transfer\": \"nixl\"}";

Test(run, agentic_environment_is_the_workflows)
{
	ib_arena *a = ib_arena_new();
	ib_val *r = row_of(a, agentic_row);
	ib_buf b = {0};
	char v[256];
	unsetenv("WEKA_LOADER_OVERRIDE");
	/* no runner name: an empty value, never "(null)" */
	cr_assert_eq(run_row_env(&b, r, NULL, "NAME", 8891), 0);
	cr_assert_str_eq(env_get(b.data, "RUNNER_NAME", v, sizeof v), "");
	cr_assert_null(strstr(b.data, "(null)"));
	/* agentic jobs: isl, osl and max-model-len '0', the agentic subfolder */
	cr_assert_str_eq(env_get(b.data, "ISL", v, sizeof v), "0");
	cr_assert_str_eq(env_get(b.data, "OSL", v, sizeof v), "0");
	cr_assert_str_eq(env_get(b.data, "MAX_MODEL_LEN", v, sizeof v), "0");
	cr_assert_str_eq(env_get(b.data, "SCENARIO_SUBDIR", v, sizeof v), "agentic/");
	cr_assert_str_eq(env_get(b.data, "IS_AGENTIC", v, sizeof v), "1");
	cr_assert_null(env_get(b.data, "RESULT_DIR", v, sizeof v), "the runner sets the folder");
	b.len = 0;
	cr_assert_eq(run_agentic_env(&b, r, 120, ".", "."), 0);
	cr_assert_str_eq(env_get(b.data, "DURATION", v, sizeof v), "120");
	cr_assert_str_eq(env_get(b.data, "KV_OFFLOADING", v, sizeof v), "dram");
	cr_assert_str_eq(env_get(b.data, "KV_OFFLOAD_BACKEND", v, sizeof v), "hicache");
	cr_assert_str_eq(env_get(b.data, "KV_OFFLOAD_BACKEND_METADATA", v, sizeof v),
	                 "{\"name\":\"hicache\"}");
	cr_assert_str_eq(env_get(b.data, "TOTAL_CPU_DRAM_GB", v, sizeof v), "1024");
	cr_assert_str_eq(env_get(b.data, "ROUTER_METADATA", v, sizeof v),
	                 "{\"name\":\"sglang-router\",\"version\":\"0.3.2\"}");
	cr_assert_str_eq(env_get(b.data, "KV_P2P_TRANSFER", v, sizeof v), "nixl");
	cr_assert_str_eq(env_get(b.data, "AIPERF_FAILED_REQUEST_THRESHOLD", v, sizeof v), "0.10");
	cr_assert_str_eq(env_get(b.data, "AIPERF_EXPERIMENTAL_FAST", v, sizeof v), "0");
	cr_assert_str_eq(env_get(b.data, "RESULT_DIR", v, sizeof v), ".");
	cr_assert_str_eq(env_get(b.data, "AGENTIC_OUTPUT_DIR", v, sizeof v), ".");
	cr_assert_null(env_get(b.data, "WEKA_LOADER_OVERRIDE", v, sizeof v));
	/* no offload: empty backend and metadata, no router; a recipe's override
	 * of the corpus loader is recorded */
	r = row_of(a, agentic_row);
	ib_map_set(a, r, "kv-offloading", ib_v_str(a, "none"));
	ib_map_set(a, r, "kv-offload-backend", ib_v_null(a));
	ib_map_set(a, r, "router", ib_v_null(a));
	setenv("WEKA_LOADER_OVERRIDE", "semianalysis_cc_traces_weka_061526", 1);
	b.len = 0;
	cr_assert_eq(run_agentic_env(&b, r, 3600, "/ws/results", "/ws"), 0);
	unsetenv("WEKA_LOADER_OVERRIDE");
	cr_assert_str_eq(env_get(b.data, "KV_OFFLOADING", v, sizeof v), "none");
	cr_assert_str_eq(env_get(b.data, "KV_OFFLOAD_BACKEND", v, sizeof v), "");
	cr_assert_str_eq(env_get(b.data, "KV_OFFLOAD_BACKEND_METADATA", v, sizeof v), "");
	cr_assert_str_eq(env_get(b.data, "ROUTER_METADATA", v, sizeof v), "");
	cr_assert_str_eq(env_get(b.data, "WEKA_LOADER_OVERRIDE", v, sizeof v),
	                 "semianalysis_cc_traces_weka_061526");
	cr_assert_str_eq(env_get(b.data, "RESULT_DIR", v, sizeof v), "/ws/results");
	/* a multi-node row has KV_P2P_TRANSFER once, from its template */
	ib_val *pool = row_of(a, "{\"num-worker\": 1, \"tp\": 8, \"ep\": 1, \"dp-attn\": false}");
	ib_map_set(a, r, "prefill", pool);
	ib_map_set(a, r, "decode", pool);
	b.len = 0;
	cr_assert_eq(run_row_env(&b, r, "gb200_0", "NAME", 1), 0);
	cr_assert_eq(run_agentic_env(&b, r, 3600, ".", "."), 0);
	const char *k = strstr(b.data, "KV_P2P_TRANSFER=");
	cr_assert(k && !strstr(k + 1, "KV_P2P_TRANSFER="), "%s", b.data);
	ib_buf_free(&b);
	ib_arena_free(a);
}

Test(run, simulator_shape_follows_the_row)
{
	ib_arena *a = ib_arena_new();
	run_sim_shape s;
	run_sim_shape_of(a, row_of(a, dsr1), &s);
	cr_assert_str_eq(s.framework, "vllm");
	cr_assert_null(s.version); /* "img:1" names none */
	cr_assert(s.tp == 8 && s.ep == 1 && s.pp == 1 && !s.dp_attn && s.fp8_kv);
	ib_val *r = row_of(a, dsr1);
	ib_map_set(a, r, "framework", ib_v_str(a, "dynamo-sglang"));
	ib_map_set(a, r, "image", ib_v_str(a, "lmsysorg/sglang:v0.5.8.post1-rocm700-mi35x"));
	ib_map_set(a, r, "ep", ib_v_int(a, 8));
	ib_map_set(a, r, "pp", ib_v_int(a, 2));
	ib_map_set(a, r, "dp-attn", ib_v_bool(a, true));
	ib_map_set(a, r, "precision", ib_v_str(a, "bf16"));
	run_sim_shape_of(a, r, &s);
	cr_assert_str_eq(s.framework, "sglang");
	cr_assert_str_eq(s.version, "v0.5.8.post1");
	cr_assert(s.ep == 8 && s.pp == 2 && s.dp_attn && !s.fp8_kv);
	/* without an arena no version; a framework no rule names stays as is */
	ib_map_set(a, r, "framework", ib_v_str(a, "tilert"));
	ib_map_set(a, r, "dp-attn", ib_v_str(a, "false"));
	run_sim_shape_of(NULL, r, &s);
	cr_assert_str_eq(s.framework, "tilert");
	cr_assert(!s.version && !s.dp_attn);
	/* pipeline stages and int4 are modelled now */
	r = row_of(a, dsr1);
	ib_map_set(a, r, "pp", ib_v_int(a, 2));
	cr_assert_null(run_sim_unmodelable(r, NULL, NULL), "%s",
	               run_sim_unmodelable(r, NULL, NULL));
	ib_arena_free(a);
}

Test(run, selection_by_rows_and_filters)
{
	ib_arena *a = ib_arena_new();
	ib_val *list = ib_v_list(a);
	for (int c = 1; c <= 8; c *= 2) {
		ib_val *r = row_of(a, dsr1);
		ib_map_set(a, r, "conc", ib_v_int(a, c));
		ib_list_push(a, list, r);
	}
	bool keep[4];
	ib_error e = {0};
	cr_assert_eq(run_select(list, "0,2-3", NULL, 0, keep, &e), 0);
	cr_assert(keep[0] && !keep[1] && keep[2] && keep[3]);
	const char *f[] = {"conc=[12]"};
	cr_assert_eq(run_select(list, NULL, f, 1, keep, &e), 0);
	cr_assert(keep[0] && keep[1] && !keep[2] && !keep[3]);
	const char *g[] = {"dp-attn=false", "runner=h2*"};
	cr_assert_eq(run_select(list, "1-3", g, 2, keep, &e), 0);
	cr_assert(!keep[0] && keep[1] && keep[2] && keep[3]);
	cr_assert_eq(run_select(list, "7", NULL, 0, keep, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "row 7 does not exist"), "%s", e.msg);
	cr_assert_eq(run_select(list, "2-1", NULL, 0, keep, &e), IB_EINVAL);
	const char *bad[] = {"conc"};
	cr_assert_eq(run_select(list, NULL, bad, 1, keep, &e), IB_EINVAL);
	ib_arena_free(a);
}

static void touch(const char *dir, const char *rel)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	char *sl = strrchr(p, '/');
	*sl = 0;
	ib_error e = {0};
	cr_assert_eq(ib_mkdirs(p, 0755, &e), 0);
	*sl = '/';
	FILE *f = fopen(p, "w");
	cr_assert_not_null(f);
	fclose(f);
}

Test(run, recipe_names_as_the_launchers_resolve_them)
{
	char dir[] = "/tmp/ib_run_XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	ib_arena *a = ib_arena_new();
	ib_val *r = row_of(a, dsr1);
	ib_map_set(a, r, "runner", ib_v_str(a, "h200-cw"));
	ib_buf b = {0};
	ib_error e = {0};
	cr_assert_eq(run_recipe_path(&b, dir, r, &e), IB_ENOENT);
	cr_assert(strstr(e.msg, "dsr1_fp8_h200_vllm.sh"), "%s", e.msg);
	/* the framework-less fallback, in the InferenceX benchmarks/ layout */
	touch(dir, "single_node/fixed_seq_len/dsr1_fp8_h200.sh");
	cr_assert_eq(run_recipe_path(&b, dir, r, &e), 0, "%s", e.msg);
	cr_assert(strstr(b.data, "/single_node/fixed_seq_len/dsr1_fp8_h200.sh"), "%s", b.data);
	/* the framework name wins */
	touch(dir, "single_node/fixed_seq_len/dsr1_fp8_h200_vllm.sh");
	b.len = 0;
	cr_assert_eq(run_recipe_path(&b, dir, r, &e), 0);
	cr_assert(strstr(b.data, "dsr1_fp8_h200_vllm.sh"), "%s", b.data);
	/* spec-decoding rows take the _mtp script */
	ib_map_set(a, r, "spec-decoding", ib_v_str(a, "mtp"));
	b.len = 0;
	cr_assert_eq(run_recipe_path(&b, dir, r, &e), IB_ENOENT);
	touch(dir, "single_node/fixed_seq_len/dsr1_fp8_h200_vllm_mtp.sh");
	b.len = 0;
	cr_assert_eq(run_recipe_path(&b, dir, r, &e), 0);
	cr_assert(strstr(b.data, "dsr1_fp8_h200_vllm_mtp.sh"), "%s", b.data);
	/* per-node recipes: a folder with server.sh under multi_node/, never a
	 * single-node script */
	ib_map_set(a, r, "spec-decoding", ib_v_str(a, "none"));
	b.len = 0;
	touch(dir, "multi_node/fixed_seq_len/dsr1_fp8_h200_vllm.sh");
	cr_assert_eq(run_node_recipe_path(&b, dir, r), IB_ENOENT);
	touch(dir, "benchmarks/multi_node/fixed_seq_len/dsr1_fp8_h200/server.sh");
	cr_assert_eq(run_node_recipe_path(&b, dir, r), 0);
	cr_assert(strstr(b.data, "/benchmarks/multi_node/fixed_seq_len/dsr1_fp8_h200/server.sh"),
	          "%s", b.data);
	touch(dir,
	      "multi_node/fixed_seq_len/dsr1_fp8_h200_vllm/server.sh"); /* the framework wins */
	b.len = 0;
	cr_assert_eq(run_node_recipe_path(&b, dir, r), 0);
	cr_assert(strstr(b.data, "/multi_node/fixed_seq_len/dsr1_fp8_h200_vllm/server.sh"), "%s",
	          b.data);
	ib_buf_free(&b);
	run_rmtree(dir);
	ib_arena_free(a);
}

static const char *ident(ib_arena *a, const run_opts *o, const char *json)
{
	ib_val *list = ib_v_list(a);
	ib_list_push(a, list, row_of(a, json));
	run_plan *p = NULL;
	ib_error e = {0};
	cr_assert_eq(run_plan_new(o, list, NULL, &p, &e), 0, "%s", e.msg);
	const char *id = ib_arena_strdup(a, run_plan_identity(p, 0));
	run_plan_free(p);
	return id;
}

Test(run, identity_follows_what_determines_the_numbers)
{
	ib_arena *a = ib_arena_new();
	run_opts o;
	run_opts_init(&o);
	o.store = "/nonexistent";
	const char *base = ident(a, &o, dsr1);
	cr_assert_eq(strlen(base), 16);
	cr_assert_str_eq(ident(a, &o, dsr1), base, "stable");
	o.jobs = 4; /* how the run is scheduled is not part of it */
	cr_assert_str_eq(ident(a, &o, dsr1), base);
	o.time_scale = 20;
	const char *scaled = ident(a, &o, dsr1);
	cr_assert_str_neq(scaled, base);
	char prof[] = "/tmp/ib_run_prof_XXXXXX";
	int fd = mkstemp(prof);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, "hardware:\n  mem-gb: 96\n", 23), 23);
	o.sim_profile = prof;
	const char *p1 = ident(a, &o, dsr1);
	cr_assert_str_neq(p1, scaled);
	cr_assert_eq(write(fd, "  hbm-tbps: 4.0\n", 16), 16);
	close(fd);
	cr_assert_str_neq(ident(a, &o, dsr1), p1, "the profile's content counts");
	unlink(prof);
	o.sim_profile = NULL;
	/* the calibration file the simulators get: its content counts */
	char cal[] = "/tmp/ib_run_cal_XXXXXX";
	fd = mkstemp(cal);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, "rules: []\n", 10), 10);
	setenv("INFBENCH_SIM_CALIBRATION", cal, 1);
	const char *c1 = ident(a, &o, dsr1);
	cr_assert_str_neq(c1, scaled);
	cr_assert_eq(write(fd, "# refitted\n", 11), 11);
	close(fd);
	cr_assert_str_neq(ident(a, &o, dsr1), c1, "the calibration's content counts");
	unsetenv("INFBENCH_SIM_CALIBRATION");
	unlink(cal);
	o.prompts_per_conc = 4;
	cr_assert_str_neq(ident(a, &o, dsr1), scaled, "the workload counts");
	ib_arena_free(a);
}

Test(run, agentic_rows_are_planned_with_their_corpus_and_duration)
{
	ib_arena *a = ib_arena_new();
	run_opts o;
	run_opts_init(&o);
	o.store = "/nonexistent";
	char hub[] = "/tmp/ib_run_hub_XXXXXX";
	cr_assert_not_null(mkdtemp(hub));
	setenv("HF_HUB_CACHE", hub, 1);
	unsetenv("WEKA_LOADER_OVERRIDE");
	/* nothing in the cache: the stand-in; the row is planned, not skipped */
	const char *standin = ident(a, &o, agentic_row);
	cr_assert_str_eq(ident(a, &o, agentic_row), standin, "stable");
	o.prompts_per_conc = 4; /* the fixed-length workload does not count */
	cr_assert_str_eq(ident(a, &o, agentic_row), standin);
	o.agentic_duration = 60;
	const char *short_run = ident(a, &o, agentic_row);
	cr_assert_str_neq(short_run, standin, "the duration counts");
	/* the reference's corpus for gptoss is the -256k variant, in the cache */
	char p[512];
	snprintf(p, sizeof p,
	         "%s/datasets--semianalysisai--cc-traces-weka-062126-256k/snapshots/r1", hub);
	ib_error e = {0};
	cr_assert_eq(ib_mkdirs(p, 0755, &e), 0);
	strcat(p, "/traces.jsonl");
	FILE *f = fopen(p, "w");
	cr_assert_not_null(f);
	fputs("{\"id\": \"t\", \"models\": [\"m\"], \"block_size\": 64, \"hash_id_scope\": "
	      "\"local\", \"requests\": [{\"t\": 0, \"type\": \"n\", \"in\": 64, \"out\": 4, "
	      "\"hash_ids\": [1], \"api_time\": 1, \"think_time\": 1}]}\n",
	      f);
	fclose(f);
	const char *cached = ident(a, &o, agentic_row);
	cr_assert_str_neq(cached, short_run, "the corpus counts");
	/* a loader override that names no corpus stops the plan */
	setenv("WEKA_LOADER_OVERRIDE", "no_such_loader", 1);
	ib_val *list = ib_v_list(a);
	ib_list_push(a, list, row_of(a, agentic_row));
	run_plan *plan = NULL;
	cr_assert_eq(run_plan_new(&o, list, NULL, &plan, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "no_such_loader") && strstr(e.msg, "Allowed:"), "%s", e.msg);
	unsetenv("WEKA_LOADER_OVERRIDE");
	/* --agentx-corpus: its content; a broken record names its file and line */
	o.agentx_corpus = p;
	const char *given = ident(a, &o, agentic_row);
	cr_assert_str_neq(given, cached);
	f = fopen(p, "a");
	fputs("{\"id\": \"u\", \"requests\": [}\n", f);
	fclose(f);
	memset(&e, 0, sizeof e);
	cr_assert_eq(run_plan_new(&o, list, NULL, &plan, &e), IB_EPARSE);
	cr_assert_str_eq(e.file, p);
	cr_assert_eq(e.line, 2);
	unsetenv("HF_HUB_CACHE");
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", hub);
	cr_assert_eq(system(cmd), 0);
	ib_arena_free(a);
}

Test(run, manifest_latest_record_wins_and_torn_lines_are_ignored)
{
	char dir[] = "/tmp/ib_run_XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	run_store s;
	ib_error e = {0};
	cr_assert_eq(run_store_open(&s, dir, true, &e), 0, "%s", e.msg);
	run_store s2;
	cr_assert_eq(run_store_open(&s2, dir, true, &e), IB_EIO, "a second runner is refused");
	cr_assert(strstr(e.msg, "another infbench run"), "%s", e.msg);
	ib_arena *a = ib_arena_new();
	run_store_close(&s2);
	const char *recs[] = {"{\"identity\": \"a\", \"state\": \"pending\"}",
	                      "{\"identity\": \"b\", \"state\": \"running\"}",
	                      "{\"identity\": \"a\", \"state\": \"done\"}"};
	for (size_t i = 0; i < 3; i++)
		cr_assert_eq(run_store_append(&s, row_of(a, recs[i]), &e), 0);
	run_store_close(&s);
	char p[512];
	snprintf(p, sizeof p, "%s/manifest.jsonl", dir);
	FILE *f = fopen(p, "a");
	fputs("{\"identity\": \"a\", \"sta", f); /* a writer killed mid-line */
	fclose(f);
	ib_val *latest;
	cr_assert_eq(run_store_latest(a, dir, &latest, &e), 0, "%s", e.msg);
	cr_assert_eq(latest->map.n, 2);
	cr_assert_str_eq(ib_map_get(ib_map_get(latest, "a"), "state")->str.s, "done");
	/* status: a running record without a live runner is interrupted */
	ib_val *st;
	cr_assert_eq(run_store_status(a, dir, &st, &e), 0);
	cr_assert_eq(st->list.n, 2);
	cr_assert_str_eq(ib_map_get(st->list.v[1], "state")->str.s, "interrupted");
	/* the next writer ends the torn line; both are skipped by readers */
	cr_assert_eq(run_store_open(&s, dir, true, &e), 0, "%s", e.msg);
	cr_assert_eq(
	    run_store_append(&s, row_of(a, "{\"identity\": \"b\", \"state\": \"done\"}"), &e), 0);
	run_store_close(&s);
	cr_assert_eq(run_store_latest(a, dir, &latest, &e), 0, "%s", e.msg);
	cr_assert_eq(latest->map.n, 2);
	cr_assert_str_eq(ib_map_get(ib_map_get(latest, "b"), "state")->str.s, "done");
	cr_assert_str_eq(ib_map_get(ib_map_get(latest, "a"), "state")->str.s, "done");
	run_rmtree(dir);
	ib_arena_free(a);
}

/* issue 33, defect 6: a full disk (here a file-size limit, RLIMIT_FSIZE,
 * which fails a write the same way) tears a manifest record; the records
 * before it and every record appended after room comes back survive. */
Test(run, manifest_survives_a_full_disk)
{
	char dir[] = "/tmp/ib_run_full_XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	ib_arena *a = ib_arena_new();
	run_store s;
	ib_error e = {0};
	cr_assert_eq(run_store_open(&s, dir, true, &e), 0, "%s", e.msg);
	cr_assert_eq(run_store_append(&s,
	                              row_of(a, "{\"time\": \"t1\", \"identity\": \"a\", "
	                                        "\"state\": \"done\"}"),
	                              &e),
	             0);
	struct stat st;
	char p[512];
	snprintf(p, sizeof p, "%s/manifest.jsonl", dir);
	cr_assert_eq(stat(p, &st), 0);
	/* room for 20 more bytes: the next record is cut after them */
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit old, lim;
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = (rlim_t)st.st_size + 20;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	int rc = run_store_append(
	    &s, row_of(a, "{\"time\": \"t2\", \"identity\": \"b\", \"state\": \"running\"}"), &e);
	cr_assert_eq(rc, IB_EIO, "a failed append is an error");
	setrlimit(RLIMIT_FSIZE, &old);
	cr_assert_eq(run_store_append(&s,
	                              row_of(a, "{\"time\": \"t3\", \"identity\": \"c\", "
	                                        "\"state\": \"done\"}"),
	                              &e),
	             0, "%s", e.msg);
	run_store_close(&s);
	ib_val *latest;
	cr_assert_eq(run_store_latest(a, dir, &latest, &e), 0, "%s", e.msg);
	cr_expect(ib_map_get(latest, "a"), "the record before the full disk is lost");
	cr_expect(ib_map_get(latest, "c"), "the record after the full disk is lost");
	cr_expect_eq(latest->map.n, 2);
	/* a torn fragment an older writer left before a whole record: repaired on load */
	FILE *f = fopen(p, "a");
	fputs("{\"time\": \"t4\", \"identity\": \"d\", \"sta"
	      "{\"time\": \"t5\", \"identity\": \"e\", \"state\": \"done\"}\n",
	      f);
	fclose(f);
	cr_assert_eq(run_store_latest(a, dir, &latest, &e), 0, "%s", e.msg);
	cr_expect(ib_map_get(latest, "e"), "the whole record after a torn fragment is lost");
	cr_expect(!ib_map_get(latest, "d"));
	run_rmtree(dir);
	ib_arena_free(a);
}

Test(run, tail_quotes_the_last_lines)
{
	char p[] = "/tmp/ib_run_tail_XXXXXX";
	int fd = mkstemp(p);
	const char *text = "one\ntwo\nthree\nfour\n";
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	ib_buf b = {0};
	run_tail(&b, p, 2);
	cr_assert_str_eq(b.data, "\n  | three\n  | four");
	unlink(p);
	ib_buf_free(&b);
}
