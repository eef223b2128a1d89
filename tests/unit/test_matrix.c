/* Unit tests for matrix/: concurrency expansion and windows, row layout,
 * runner resolution, agentic rows and DRAM budget, eval marking
 * (spec/matrix.md §2.3–2.8, §2.10). */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "matrix/matrix.h"

/* ---- fixture ---- */

static ib_arena *A;
static ib_val *RUNNERS;

static ib_val *yaml(const char *name, const char *text)
{
	ib_val *v = NULL;
	ib_error e = {0};
	int rc = ib_yaml_load(A, name, text, strlen(text), &v, &e);
	cr_assert_eq(rc, 0, "test YAML does not load: %s:%d:%d: %s\n%s", e.file, e.line, e.col,
	             e.msg, text);
	return v;
}

static void setup(void)
{
	A = ib_arena_new();
	cr_assert_not_null(A);
	RUNNERS = yaml("runners.yaml", "labels:\n"
	                               "  h100: [h100-nv_0, h100-nv_1, h100-cr_0]\n"
	                               "  mi300x: [mi300x-amd_0, mi300x-amd_1]\n"
	                               "  gb200: [gb200-nv_0, gb200-nv_1]\n"
	                               "  cluster:b300: [b300-a_0, b300-b_0]\n"
	                               "  cluster:edge-8: [edge8-a_0]\n"
	                               "  cluster:edge-4: [edge4-a_0]\n"
	                               "  cluster:nohw: [nohw_0]\n"
	                               "hardware:\n"
	                               "  cluster:b300:\n"
	                               "    available-cpu-dram-mib: 2_861_022\n"
	                               "    gpus-per-node: 8\n"
	                               "  cluster:edge-8:\n"
	                               "    available-cpu-dram-mib: 4_000_000\n"
	                               "    gpus-per-node: 8\n"
	                               "  cluster:edge-4:\n"
	                               "    available-cpu-dram-mib: 860_160\n"
	                               "    gpus-per-node: 4\n");
	ib_diags d = {.a = A};
	cr_assert(cfg_validate_runners(RUNNERS, &d, "runners.yaml"));
}

static void teardown(void)
{
	ib_arena_free(A);
	A = NULL;
}

TestSuite(matrix, .init = setup, .fini = teardown);

/* Loads a master config and checks that every entry validates (the
 * generator's precondition). */
static ib_val *master(const char *text)
{
	ib_val *m = yaml("master.yaml", text);
	cr_assert_eq(m->type, IB_V_MAP);
	ib_diags d = {.a = A};
	for (size_t i = 0; i < m->map.n; i++)
		cfg_validate_entry(m->map.kv[i].key->str.s, m->map.kv[i].val, &d);
	if (d.n) {
		ib_buf b = {0};
		ib_diag_format(&d.items[0], &b);
		cr_assert_fail("test config is invalid: %s", b.data);
		ib_buf_free(&b);
	}
	return m;
}

static ib_val *generate(const char *text, const mx_opts *o)
{
	ib_val *rows = NULL;
	ib_error e = {0};
	int rc = mx_generate(A, o, master(text), RUNNERS, &rows, &e);
	cr_assert_eq(rc, 0, "mx_generate failed (%d): %s", rc, e.msg);
	cr_assert_not_null(rows);
	cr_assert_eq(rows->type, IB_V_LIST);
	return rows;
}

static int generate_fail(const char *text, const mx_opts *o, ib_error *e)
{
	ib_val *rows = NULL;
	int rc = mx_generate(A, o, master(text), RUNNERS, &rows, e);
	cr_assert_neq(rc, 0, "mx_generate should fail");
	return rc;
}

static char *dumps(const ib_val *v)
{
	ib_buf b = {0};
	ib_error e = {0};
	ib_json_opts o = IB_JSON_PYTHON;
	cr_assert_eq(ib_json_write(&b, v, &o, &e), 0, "%s", e.msg);
	char *s = ib_arena_strdup(A, b.data);
	ib_buf_free(&b);
	return s;
}

/* The values of `key` over all rows, space-separated: strings raw, other
 * values as compact JSON, "-" when a row has no such key. */
static char *col(const ib_val *rows, const char *key)
{
	ib_buf b = {0};
	ib_buf_puts(&b, "");
	ib_json_opts o = {.indent = -1, .compact = true, .ensure_ascii = true};
	for (size_t i = 0; i < rows->list.n; i++) {
		if (i)
			ib_buf_putc(&b, ' ');
		const ib_val *v = ib_map_get(rows->list.v[i], key);
		if (!v)
			ib_buf_putc(&b, '-');
		else if (v->type == IB_V_STR)
			ib_buf_append(&b, v->str.s, v->str.len);
		else
			cr_assert_eq(ib_json_write(&b, v, &o, NULL), 0);
	}
	char *s = ib_arena_strdup(A, b.data);
	ib_buf_free(&b);
	return s;
}

static mx_opts full_sweep(void)
{
	mx_opts o;
	mx_opts_init(&o, true);
	return o;
}

static mx_opts test_config(const char *const *keys, size_t n)
{
	mx_opts o;
	mx_opts_init(&o, false);
	o.config_keys = (mx_strs){keys, n};
	return o;
}

/* ---- config text builders ---- */

#define HEAD(key, prefix, runner, mn)                                                              \
	key ":\n"                                                                                  \
	    "  image: img:1\n"                                                                     \
	    "  model: org/" prefix "\n"                                                            \
	    "  model-prefix: " prefix "\n"                                                         \
	    "  precision: fp8\n"                                                                   \
	    "  framework: sglang\n"                                                                \
	    "  runner: " runner "\n"                                                               \
	    "  multinode: " mn "\n"
#define FIXED(isl, osl, entries)                                                                   \
	"  scenarios:\n"                                                                           \
	"    fixed-seq-len:\n"                                                                     \
	"    - isl: " isl "\n"                                                                     \
	"      osl: " osl "\n"                                                                     \
	"      search-space:\n" entries
#define AGENTIC(util, entries)                                                                     \
	"  scenarios:\n"                                                                           \
	"    agentic-coding:\n"                                                                    \
	"    - dram-utilization: " util "\n"                                                       \
	"      search-space:\n" entries
#define E(entry)    "      - " entry "\n"
#define SN(entries) HEAD("sn", "m", "h100", "false") FIXED("1024", "1024", entries)

#define PF  "{num-worker: 2, tp: 4, pp: 1, ep: 4, dp-attn: true, additional-settings: [\"A=1\"]}"
#define DF  "{num-worker: 1, tp: 8, ep: 8, dp-attn: false, dcp-size: 2}"
#define PF2 "{num-worker: 1, tp: 4, ep: 1, dp-attn: false}"

/* ---- expansion ---- */

static char *expand_str(int64_t start, int64_t end, int64_t step)
{
	int64_t v[64];
	size_t n = mx_expand(start, end, step, v, 64);
	ib_buf b = {0};
	ib_buf_puts(&b, "");
	for (size_t i = 0; i < n && i < 64; i++)
		ib_buf_printf(&b, "%s%lld", i ? " " : "", (long long)v[i]);
	char *s = ib_arena_strdup(A, b.data);
	ib_buf_free(&b);
	return s;
}

Test(matrix, expand)
{
	cr_assert_str_eq(expand_str(1, 64, 2), "1 2 4 8 16 32 64");
	cr_assert_str_eq(expand_str(3, 40, 2), "3 6 12 24 40");
	cr_assert_str_eq(expand_str(1, 64, 3), "1 3 9 27 64");
	cr_assert_str_eq(expand_str(8, 8, 2), "8");
	cr_assert_str_eq(expand_str(5, 64, 2), "5 10 20 40 64");
	cr_assert_str_eq(expand_str(4, 48, 2), "4 8 16 32 48");
	cr_assert_str_eq(expand_str(2, 1000, 10), "2 20 200 1000");
	/* the total is returned even when cap is smaller */
	int64_t v[3] = {0, 0, 0};
	cr_assert_eq(mx_expand(1, 64, 2, v, 2), 7);
	cr_assert_eq(v[0], 1);
	cr_assert_eq(v[1], 2);
	cr_assert_eq(v[2], 0, "nothing written past cap");
	/* no overflow near the int64 limit */
	cr_assert_eq(mx_expand(INT64_MAX / 2, INT64_MAX, 4, v, 3), 2);
	cr_assert_eq(v[1], INT64_MAX);
}

/* ---- row layout (§2.5, §2.10) ---- */

Test(matrix, sn_row_key_order_and_bytes)
{
	mx_opts o = full_sweep();
	ib_val *rows = generate(SN(E("{tp: 8, conc-start: 4, conc-end: 8}")), &o);
	cr_assert_eq(rows->list.n, 2);
	cr_assert_str_eq(
	    dumps(rows->list.v[0]),
	    "{\"image\": \"img:1\", \"model\": \"org/m\", \"model-prefix\": \"m\", "
	    "\"precision\": \"fp8\", \"framework\": \"sglang\", \"runner\": \"h100\", "
	    "\"isl\": 1024, \"osl\": 1024, \"tp\": 8, \"pp\": 1, \"dcp-size\": 1, "
	    "\"pcp-size\": 1, \"conc\": 4, \"max-model-len\": 2304, \"ep\": 1, "
	    "\"dp-attn\": false, \"spec-decoding\": \"none\", \"exp-name\": \"m_1k1k\", "
	    "\"disagg\": false, \"run-eval\": false}");
	cr_assert_eq(ib_map_get(rows->list.v[1], "conc")->i, 8);
}

Test(matrix, sn_row_raw_values_and_router)
{
	mx_opts o = full_sweep();
	/* raw values are copied (a lax "8" stays a string); the entry's router
	 * is appended; non-standard seq lens name themselves */
	ib_val *rows = generate(
	    HEAD("sn", "m", "h100", "false")
	        FIXED("2048", "2048",
	              E("{tp: \"8\", pp: 2, dcp-size: 2, pcp-size: 1, ep: 4, dp-attn: yes,"
	                " spec-decoding: draft_model, conc-list: [5],"
	                " router: {name: own, version: \"2\"}}") E("{tp: 4, conc-list: [6]}")),
	    &o);
	cr_assert_eq(rows->list.n, 2);
	cr_assert_str_eq(dumps(rows->list.v[0]),
	                 "{\"image\": \"img:1\", \"model\": \"org/m\", \"model-prefix\": \"m\", "
	                 "\"precision\": \"fp8\", \"framework\": \"sglang\", \"runner\": \"h100\", "
	                 "\"isl\": 2048, \"osl\": 2048, \"tp\": \"8\", \"pp\": 2, \"dcp-size\": 2, "
	                 "\"pcp-size\": 1, \"conc\": 5, \"max-model-len\": 4352, \"ep\": 4, "
	                 "\"dp-attn\": true, \"spec-decoding\": \"draft_model\", "
	                 "\"exp-name\": \"m_2048_2048\", \"disagg\": false, \"run-eval\": false, "
	                 "\"router\": {\"name\": \"own\", \"version\": \"2\"}}");
	cr_assert_not(ib_map_has(rows->list.v[1], "router"));
	/* a top-level router goes to every row */
	rows = generate(
	    HEAD("sn", "m", "h100", "false") "  router: {name: top, version: \"1\"}\n" FIXED(
	        "1024", "1024", E("{tp: 4, conc-list: [6, 7]}")),
	    &o);
	cr_assert_str_eq(col(rows, "router"), "{\"name\":\"top\",\"version\":\"1\"} "
	                                      "{\"name\":\"top\",\"version\":\"1\"}");
	/* a null router in the entry hides the top-level one (the key is present) */
	rows = generate(
	    HEAD("sn", "m", "h100", "false") "  router: {name: top, version: \"1\"}\n" FIXED(
	        "1024", "1024", E("{tp: 4, conc-list: [6], router: null}")),
	    &o);
	cr_assert_str_eq(col(rows, "router"), "-");
}

Test(matrix, mn_row_with_worker_defaults)
{
	mx_opts o = full_sweep();
	ib_val *rows = generate(
	    HEAD("mn", "mn", "gb200",
	         "true") "  disagg: true\n"
	                 "  router: {name: dynamo-router, version: 1.2.3}\n" FIXED(
	                     "1024", "1024",
	                     E("{conc-start: 4, conc-end: 48, kv-p2p-transfer: nixl, prefill: " PF
	                       ", decode: " DF "}")),
	    &o);
	cr_assert_eq(rows->list.n, 1);
	cr_assert_str_eq(
	    dumps(rows->list.v[0]),
	    "{\"image\": \"img:1\", \"model\": \"org/mn\", \"model-prefix\": \"mn\", "
	    "\"precision\": \"fp8\", \"framework\": \"sglang\", \"runner\": \"gb200\", "
	    "\"isl\": 1024, \"osl\": 1024, \"spec-decoding\": \"none\", "
	    "\"prefill\": {\"num-worker\": 2, \"tp\": 4, \"pp\": 1, \"ep\": 4, \"dp-attn\": true, "
	    "\"additional-settings\": [\"A=1\"], \"dcp-size\": 1, \"pcp-size\": 1}, "
	    "\"decode\": {\"num-worker\": 1, \"tp\": 8, \"ep\": 8, \"dp-attn\": false, "
	    "\"dcp-size\": 2, \"pp\": 1, \"pcp-size\": 1}, "
	    "\"conc\": [4, 8, 16, 32, 48], \"max-model-len\": 2304, \"exp-name\": \"mn_1k1k\", "
	    "\"disagg\": true, \"run-eval\": false, "
	    "\"router\": {\"name\": \"dynamo-router\", \"version\": \"1.2.3\"}, "
	    "\"kv-p2p-transfer\": \"nixl\"}");
}

Test(matrix, output_is_ascii_json)
{
	mx_opts o = full_sweep();
	ib_val *rows =
	    generate("u:\n"
	             "  image: img\n"
	             "  model: \"org/Mod\xc3\xa8le-\xce\xb2\"\n"
	             "  model-prefix: u\n"
	             "  precision: fp8\n"
	             "  framework: vllm\n"
	             "  runner: h100\n"
	             "  multinode: false\n" FIXED("1024", "1024", E("{tp: 1, conc-list: [1]}")),
	             &o);
	cr_assert(strstr(dumps(rows), "\"model\": \"org/Mod\\u00e8le-\\u03b2\""), "%s",
	          dumps(rows));
}

/* ---- full-sweep concurrency windows (§2.3.1, §2.3.2) ---- */

#define RANGE_4_64 SN(E("{tp: 8, conc-start: 4, conc-end: 64}"))

Test(matrix, full_sweep_step_size)
{
	mx_opts o = full_sweep();
	cr_assert_str_eq(col(generate(RANGE_4_64, &o), "conc"), "4 8 16 32 64");
	o.step_size = 3;
	cr_assert_str_eq(col(generate(RANGE_4_64, &o), "conc"), "4 12 36 64");
}

Test(matrix, min_conc_restarts_the_doubling)
{
	mx_opts o = full_sweep();
	o.has_min_conc = true;
	o.min_conc = 5;
	cr_assert_str_eq(col(generate(RANGE_4_64, &o), "conc"), "5 10 20 40 64");
	o.min_conc = 65; /* above the end: entry skipped */
	cr_assert_eq(generate(RANGE_4_64, &o)->list.n, 0);
	o.min_conc = 0;
	cr_assert_eq(generate(RANGE_4_64, &o)->list.n, 0);
	o.min_conc = 2; /* below the start: unchanged */
	cr_assert_str_eq(col(generate(RANGE_4_64, &o), "conc"), "4 8 16 32 64");
}

Test(matrix, max_conc_clamps_the_end)
{
	mx_opts o = full_sweep();
	o.has_max_conc = true;
	o.max_conc = 48;
	cr_assert_str_eq(col(generate(RANGE_4_64, &o), "conc"), "4 8 16 32 48");
	o.max_conc = 2; /* start above max: the single value max */
	cr_assert_str_eq(col(generate(RANGE_4_64, &o), "conc"), "2");
	o.max_conc = 0;
	cr_assert_eq(generate(RANGE_4_64, &o)->list.n, 0);
	/* both */
	o.max_conc = 48;
	o.has_min_conc = true;
	o.min_conc = 5;
	cr_assert_str_eq(col(generate(RANGE_4_64, &o), "conc"), "5 10 20 40 48");
}

Test(matrix, list_window_filters)
{
	const char *cfg = SN(E("{tp: 8, conc-list: [64, 4, 16]}"));
	mx_opts o = full_sweep();
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "64 4 16", "list order kept");
	o.has_min_conc = true;
	o.min_conc = 10;
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "64 16");
	o.min_conc = 100;
	cr_assert_eq(generate(cfg, &o)->list.n, 0);
	o.has_min_conc = false;
	o.has_max_conc = true;
	o.max_conc = 10;
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "4");
	o.max_conc = 2; /* nothing left: [max] */
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "2");
}

Test(matrix, max_tp_skips_entries)
{
	const char *cfg = SN(E("{tp: 8, conc-list: [1]}") E("{tp: 4, conc-list: [2]}")
	                         E("{tp: 2, conc-list: [3]}"));
	mx_opts o = full_sweep();
	o.has_max_tp = true;
	o.max_tp = 4;
	cr_assert_str_eq(col(generate(cfg, &o), "tp"), "4 2");
	o.max_tp = 8;
	cr_assert_str_eq(col(generate(cfg, &o), "tp"), "8 4 2");
	o.max_tp = 0;
	cr_assert_eq(generate(cfg, &o)->list.n, 0);
}

Test(matrix, max_ep_clamps)
{
	const char *cfg = SN(E("{tp: 8, ep: 8, conc-list: [1]}") E("{tp: 8, ep: 2, conc-list: [2]}")
	                         E("{tp: 8, conc-list: [3]}"));
	mx_opts o = full_sweep();
	o.has_max_ep = true;
	o.max_ep = 4;
	cr_assert_str_eq(col(generate(cfg, &o), "ep"), "4 2 1");
	o.max_ep = 0;
	cr_assert_eq(generate(cfg, &o)->list.n, 0);
}

#define MN_CFG(entries) HEAD("mn", "mn", "gb200", "true") FIXED("1024", "1024", entries)

Test(matrix, multinode_windows_filter_without_restart)
{
	const char *cfg =
	    MN_CFG(E("{conc-start: 4, conc-end: 48, prefill: " PF2 ", decode: " PF2 "}")
	               E("{conc-list: [8, 512, 16], prefill: " PF2 ", decode: " DF "}"));
	mx_opts o = full_sweep();
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "[4,8,16,32,48] [8,512,16]");
	o.has_min_conc = true;
	o.min_conc = 5;
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "[8,16,32,48] [8,512,16]");
	o.has_max_conc = true;
	o.max_conc = 10;
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "[8] [8]");
	o.has_min_conc = false;
	o.max_conc = 2;
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "[2] [2]");
	/* --max-tp / --max-ep do not apply to multinode rows */
	o.has_max_conc = false;
	o.has_max_tp = o.has_max_ep = true;
	o.max_tp = 1;
	o.max_ep = 1;
	cr_assert_eq(generate(cfg, &o)->list.n, 2);
}

/* ---- selection filters (§2.3 steps 1–5) ---- */

#define THREE                                                                                      \
	HEAD("dsr1-fp8-h100-sglang", "dsr1", "h100", "false")                                      \
	FIXED("8192", "1024", E("{tp: 8, conc-list: [4]}"))                                        \
	HEAD("dsr1-fp4-mi300x-vllm", "dsr1", "mi300x", "false")                                    \
	FIXED("1024", "1024", E("{tp: 4, conc-list: [8]}"))                                        \
	HEAD("gptoss-fp8-h100-sglang", "gptoss", "h100", "false")                                  \
	FIXED("2048", "1024", E("{tp: 2, conc-list: [16]}"))                                       \
	HEAD("mn-fp8-gb200", "mn", "gb200", "true")                                                \
	FIXED("8192", "1024", E("{conc-list: [1], prefill: " PF2 ", decode: " PF2 "}"))

Test(matrix, full_sweep_filters)
{
	mx_opts o = full_sweep();
	o.no_evals = true;
	cr_assert_str_eq(col(generate(THREE, &o), "conc"), "4 8 16 [1]");
	static const char *const pre[] = {"dsr1-fp4", "gpt"};
	o.model_prefix = (mx_strs){pre, 2};
	cr_assert_str_eq(col(generate(THREE, &o), "conc"), "8 16");
	o.model_prefix = (mx_strs){NULL, 0};
	static const char *const rt[] = {"h100"};
	o.runner_type = (mx_strs){rt, 1};
	cr_assert_str_eq(col(generate(THREE, &o), "conc"), "4 16");
	o.runner_type = (mx_strs){NULL, 0};
	o.have_seq_lens = true;
	o.seq_8k1k = true;
	cr_assert_str_eq(col(generate(THREE, &o), "conc"), "4 [1]");
	o.seq_1k1k = true;
	cr_assert_str_eq(col(generate(THREE, &o), "conc"), "4 8 [1]");
	o.have_seq_lens = false;
	o.multi_node = false;
	cr_assert_str_eq(col(generate(THREE, &o), "conc"), "4 8 16");
	o.multi_node = true;
	o.single_node = false;
	cr_assert_str_eq(col(generate(THREE, &o), "conc"), "[1]");
}

Test(matrix, unknown_runner_type_is_error)
{
	mx_opts o = full_sweep();
	static const char *const rt[] = {"h100", "h999"};
	o.runner_type = (mx_strs){rt, 2};
	ib_error e = {0};
	cr_assert_eq(generate_fail(THREE, &o, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "h999"), "%s", e.msg);
	cr_assert_null(strstr(e.msg, "'h100'"), "only the invalid one is named: %s", e.msg);
}

/* ---- test-config (§2.4) ---- */

Test(matrix, test_config_patterns_and_user_order)
{
	static const char *const keys[] = {"gptoss-*", "dsr1-*-vllm", "dsr1-fp8-h100-sglang",
	                                   "gptoss-fp8-h100-sglang"};
	mx_opts o = test_config(keys, 4);
	o.no_evals = true;
	ib_val *rows = generate(THREE, &o);
	cr_assert_str_eq(col(rows, "exp-name"), "gptoss_2048_1024 dsr1_1k1k dsr1_8k1k");
	cr_assert_str_eq(col(rows, "runner"), "h100 mi300x h100");
	/* one pattern, merged order; ? and [seq] classes */
	static const char *const k2[] = {"dsr1-fp[48]-*"};
	o = test_config(k2, 1);
	o.no_evals = true;
	cr_assert_str_eq(col(generate(THREE, &o), "conc"), "4 8");
	static const char *const k3[] = {"*-h1?0-*"};
	o = test_config(k3, 1);
	o.no_evals = true;
	cr_assert_str_eq(col(generate(THREE, &o), "conc"), "4 16");
}

Test(matrix, test_config_unknown_keys_and_patterns)
{
	ib_error e = {0};
	static const char *const k1[] = {"dsr1-*-trt"};
	mx_opts o = test_config(k1, 1);
	cr_assert_eq(generate_fail(THREE, &o, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "dsr1-*-trt"), "%s", e.msg);
	cr_assert(strstr(e.msg, "dsr1-fp4-mi300x-vllm, dsr1-fp8-h100-sglang, gptoss"),
	          "available keys sorted: %s", e.msg);
	/* '[' alone does not make a pattern: exact key required */
	static const char *const k2[] = {"dsr1-fp[48]-h100-sglang"};
	o = test_config(k2, 1);
	cr_assert_eq(generate_fail(THREE, &o, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "dsr1-fp[48]-h100-sglang"), "%s", e.msg);
	static const char *const k3[] = {"dsr1-fp8-h100-sglang", "nope"};
	o = test_config(k3, 2);
	cr_assert_eq(generate_fail(THREE, &o, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "nope"), "%s", e.msg);
}

Test(matrix, test_config_conc_filter_and_step)
{
	static const char *const keys[] = {"sn"};
	mx_opts o = test_config(keys, 1);
	o.no_evals = true;
	const char *cfg = SN(E("{tp: 8, conc-start: 4, conc-end: 64}")
	                         E("{tp: 4, conc-list: [64, 8]}") E("{tp: 2, conc-list: [3]}"));
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "4 8 16 32 64 64 8 3");
	static const int64_t conc[] = {8, 64};
	o.conc = conc;
	o.nconc = 2;
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "8 64 64 8");
	cr_assert_str_eq(col(generate(cfg, &o), "tp"), "8 8 4 4");
}

Test(matrix, empty_conc_list_full_sweep_vs_test_config)
{
	const char *cfg = SN(E("{tp: 8, conc-start: 1, conc-end: 4, conc-list: []}"));
	mx_opts o = full_sweep();
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "1 2 4");
	static const char *const keys[] = {"sn"};
	o = test_config(keys, 1);
	cr_assert_eq(generate(cfg, &o)->list.n, 0);
	const char *mn = MN_CFG(
	    E("{conc-start: 1, conc-end: 4, conc-list: [], prefill: " PF2 ", decode: " PF2 "}"));
	o = full_sweep();
	cr_assert_str_eq(col(generate(mn, &o), "conc"), "[1,2,4]");
	static const char *const mk[] = {"mn"};
	o = test_config(mk, 1);
	cr_assert_str_eq(col(generate(mn, &o), "conc"), "[]");
}

/* ---- runner-node filter (§2.6) ---- */

Test(matrix, node_filter_full_sweep_excludes_label)
{
	const char *cfg = SN(E("{tp: 8, conc-list: [4, 8]}"));
	mx_opts o = full_sweep();
	o.runner_node_filter = "nv";
	ib_val *rows = generate(cfg, &o);
	/* SN: conc outer, runner inner */
	cr_assert_str_eq(col(rows, "runner"), "h100-nv_0 h100-nv_1 h100-nv_0 h100-nv_1");
	cr_assert_str_eq(col(rows, "conc"), "4 4 8 8");
	o.runner_node_filter = "h100";
	cr_assert_str_eq(col(generate(cfg, &o), "runner"),
	                 "h100-nv_0 h100-nv_1 h100-cr_0 h100-nv_0 h100-nv_1 h100-cr_0");
	o.runner_node_filter = "mi300x";
	cr_assert_eq(generate(cfg, &o)->list.n, 0);
	o.runner_node_filter = "";
	cr_assert_str_eq(col(generate(cfg, &o), "runner"), "h100 h100");
}

Test(matrix, node_filter_test_config_includes_matching_label)
{
	const char *cfg = SN(E("{tp: 8, conc-list: [4]}"));
	static const char *const keys[] = {"sn"};
	mx_opts o = test_config(keys, 1);
	o.runner_node_filter = "h100";
	cr_assert_str_eq(col(generate(cfg, &o), "runner"), "h100 h100-nv_0 h100-nv_1 h100-cr_0");
	o.runner_node_filter = "cr";
	cr_assert_str_eq(col(generate(cfg, &o), "runner"), "h100-cr_0");
	o.runner_node_filter = "zzz";
	cr_assert_eq(generate(cfg, &o)->list.n, 0);
}

Test(matrix, node_filter_multinode_one_row_per_node)
{
	const char *cfg = MN_CFG(E("{conc-list: [4, 8], prefill: " PF2 ", decode: " PF2 "}"));
	mx_opts o = full_sweep();
	o.runner_node_filter = "gb200-nv";
	ib_val *rows = generate(cfg, &o);
	cr_assert_str_eq(col(rows, "runner"), "gb200-nv_0 gb200-nv_1");
	cr_assert_str_eq(col(rows, "conc"), "[4,8] [4,8]");
}

/* ---- agentic rows and the DRAM budget (§2.5, §2.7) ---- */

#define AG_SN(runner, util, entries) HEAD("ag", "ag", runner, "false") AGENTIC(util, entries)

Test(matrix, agentic_sn_exp_names)
{
	mx_opts o = full_sweep();
	ib_val *rows =
	    generate(AG_SN("cluster:b300", "0.8",
	                   E("{tp: 8, kv-offloading: none, spec-decoding: mtp, conc-list: [4]}")
	                       E("{tp: 4, kv-offloading: dram, kv-offload-backend: {name:"
	                         " hicache}, conc-start: 2, conc-end: 4}")),
	             &o);
	cr_assert_str_eq(col(rows, "exp-name"),
	                 "ag_tp8_conc4_kvnone_spec-mtp ag_tp4_conc2_kvdram-hicache "
	                 "ag_tp4_conc4_kvdram-hicache");
	cr_assert_str_eq(col(rows, "total-cpu-dram-gb"), "0 1199 1199");
	cr_assert_str_eq(col(rows, "scenario-type"),
	                 "agentic-coding agentic-coding agentic-coding");
	cr_assert_str_eq(col(rows, "duration"), "3600 3600 3600");
}

Test(matrix, agentic_sn_row_bytes)
{
	mx_opts o = full_sweep();
	ib_val *rows = generate(AG_SN("cluster:edge-8", "0.333",
	                              E("{ tp: 3, ep: 3, dp-attn: true, kv-offloading: dram,"
	                                " kv-offload-backend: { name: native }, conc-list: [16],"
	                                " router: { name: r, version: abc123 } }")),
	                        &o);
	cr_assert_eq(rows->list.n, 1);
	cr_assert_str_eq(
	    dumps(rows->list.v[0]),
	    "{\"image\": \"img:1\", \"model\": \"org/ag\", \"model-prefix\": \"ag\", "
	    "\"precision\": \"fp8\", \"framework\": \"sglang\", \"runner\": "
	    "\"cluster:edge-8\", \"tp\": 3, \"pp\": 1, \"dcp-size\": 1, \"pcp-size\": 1, "
	    "\"ep\": 3, \"dp-attn\": true, \"spec-decoding\": \"none\", \"conc\": 16, "
	    "\"kv-offloading\": \"dram\", \"total-cpu-dram-gb\": 374, \"duration\": 3600, "
	    "\"exp-name\": \"ag_tp3_conc16_kvdram-native\", \"scenario-type\": "
	    "\"agentic-coding\", \"kv-offload-backend\": {\"name\": \"native\"}, "
	    "\"router\": {\"name\": \"r\", \"version\": \"abc123\"}, \"run-eval\": false}");
	/* --no-evals: agentic rows have no run-eval key at all */
	o.no_evals = true;
	rows = generate(
	    AG_SN("cluster:edge-8", "0.333", E("{tp: 8, kv-offloading: none, conc-list: [1]}")),
	    &o);
	cr_assert_not(ib_map_has(rows->list.v[0], "run-eval"));
}

Test(matrix, agentic_sn_outer_conc_inner_runner)
{
	mx_opts o = full_sweep();
	o.runner_node_filter = "b300";
	ib_val *rows = generate(
	    AG_SN("cluster:b300", "0.8", E("{tp: 8, kv-offloading: none, conc-list: [1, 2]}")), &o);
	cr_assert_str_eq(col(rows, "runner"), "b300-a_0 b300-b_0 b300-a_0 b300-b_0");
	cr_assert_str_eq(col(rows, "conc"), "1 1 2 2");
}

/* total-cpu-dram-gb of one SN dram entry */
static char *dram_gb(const char *runner, const char *util, const char *entry)
{
	char text[2048];
	snprintf(text, sizeof text, HEAD("ag", "ag", "%s", "false") AGENTIC("%s", E("%s")), runner,
	         util, entry);
	mx_opts o = full_sweep();
	ib_val *rows = generate(text, &o);
	cr_assert_eq(rows->list.n, 1);
	return col(rows, "total-cpu-dram-gb");
}

#define DRAM_ENTRY(par)                                                                            \
	"{" par ", kv-offloading: dram, kv-offload-backend: {name: x}, conc-list: [1]}"

Test(matrix, dram_budget_examples)
{
	/* 2_861_022 MiB, u = 0.8, n = g */
	cr_assert_str_eq(dram_gb("cluster:b300", "0.8", DRAM_ENTRY("tp: 8")), "2399");
	/* the text of the parsed float counts: 0.80 is 0.8 */
	cr_assert_str_eq(dram_gb("cluster:b300", "0.80", DRAM_ENTRY("tp: 8")), "2399");
	/* 4_000_000 MiB is capped at 2_861_022; u = 0.333 */
	cr_assert_str_eq(dram_gb("cluster:edge-8", "0.333", DRAM_ENTRY("tp: 4, pp: 2")), "998");
	cr_assert_str_eq(dram_gb("cluster:edge-8", "0.333", DRAM_ENTRY("tp: 3")), "374");
	/* dcp does not count, pcp does */
	cr_assert_str_eq(dram_gb("cluster:b300", "0.8", DRAM_ENTRY("tp: 4, dcp-size: 2")), "1199");
	cr_assert_str_eq(dram_gb("cluster:b300", "0.8", DRAM_ENTRY("tp: 4, pcp-size: 2")), "2399");
	cr_assert_str_eq(dram_gb("cluster:b300", "1", DRAM_ENTRY("tp: 8")), "2999");
}

Test(matrix, dram_budget_multinode_examples)
{
	mx_opts o = full_sweep();
	const char *cfg = HEAD(
	    "mnag", "mnag", "cluster:edge-4",
	    "true") "  disagg: true\n"
	            "  kv-p2p-transfer: nixl\n" AGENTIC(
	                "0.9",
	                E("{conc-list: [64, 8, 16], kv-offloading: dram, kv-offload-backend:"
	                  " {name: mooncake, version: v0.3}, prefill: {num-worker: 1, tp: 8,"
	                  " ep: 8, dp-attn: true}, decode: {num-worker: 2, tp: 2, ep: 1,"
	                  " dp-attn: false}}")
	                    E("{conc-start: 1, conc-end: 2, kv-offloading: dram,"
	                      " kv-offload-backend: {name: m}, spec-decoding: mtp, prefill: "
	                      "{num-worker:"
	                      " 2, tp: 2, ep: 2, dp-attn: false}, decode: {num-worker: 1, tp: 4,"
	                      " ep: 4, dp-attn: true}}"));
	ib_val *rows = generate(cfg, &o);
	/* 860_160 MiB, u = 0.9: prefill tp 8 spans 2 nodes of 4 -> n = g -> 811;
	 * prefill tp 2 -> n = 2 of 4 -> 405 */
	cr_assert_str_eq(col(rows, "total-cpu-dram-gb"), "811 811 811 405 405");
	cr_assert_str_eq(
	    col(rows, "exp-name"),
	    "mnag_p1x8ep8dpa_d2x2_conc64_kvdram-mooncake "
	    "mnag_p1x8ep8dpa_d2x2_conc8_kvdram-mooncake "
	    "mnag_p1x8ep8dpa_d2x2_conc16_kvdram-mooncake "
	    "mnag_p2x2ep2_d1x4ep4dpa_conc1_kvdram-m mnag_p2x2ep2_d1x4ep4dpa_conc2_kvdram-m");
	cr_assert_str_eq(
	    dumps(rows->list.v[0]),
	    "{\"image\": \"img:1\", \"model\": \"org/mnag\", \"model-prefix\": \"mnag\", "
	    "\"precision\": \"fp8\", \"framework\": \"sglang\", \"runner\": \"cluster:edge-4\", "
	    "\"spec-decoding\": \"none\", \"prefill\": {\"num-worker\": 1, \"tp\": 8, \"ep\": 8, "
	    "\"dp-attn\": true, \"pp\": 1, \"dcp-size\": 1, \"pcp-size\": 1}, \"decode\": "
	    "{\"num-worker\": 2, \"tp\": 2, \"ep\": 1, \"dp-attn\": false, \"pp\": 1, "
	    "\"dcp-size\": 1, \"pcp-size\": 1}, \"conc\": [64], \"kv-offloading\": \"dram\", "
	    "\"total-cpu-dram-gb\": 811, \"duration\": 3600, \"exp-name\": "
	    "\"mnag_p1x8ep8dpa_d2x2_conc64_kvdram-mooncake\", \"disagg\": true, "
	    "\"scenario-type\": \"agentic-coding\", \"kv-offload-backend\": {\"name\": "
	    "\"mooncake\", \"version\": \"v0.3\"}, \"kv-p2p-transfer\": \"nixl\", "
	    "\"run-eval\": false}");
}

Test(matrix, multinode_agentic_no_offload_exp_name)
{
	mx_opts o = full_sweep();
	ib_val *rows =
	    generate(HEAD("mnag", "dsv4", "cluster:b300", "true")
	                 AGENTIC("0.8", E("{conc-list: [16], kv-offloading: none, prefill:"
	                                  " {num-worker: 2, tp: 4, ep: 4, dp-attn: false}, decode:"
	                                  " {num-worker: 1, tp: 4, ep: 1, dp-attn: false}}")),
	             &o);
	cr_assert_str_eq(col(rows, "exp-name"), "dsv4_p2x4ep4_d1x4_conc16");
	cr_assert_str_eq(col(rows, "total-cpu-dram-gb"), "0");
	cr_assert_str_eq(col(rows, "disagg"), "false");
}

Test(matrix, dram_budget_errors)
{
	mx_opts o = full_sweep();
	ib_error e = {0};
	/* SN: more GPUs than a node has */
	cr_assert_eq(
	    generate_fail(AG_SN("cluster:b300", "0.8", E(DRAM_ENTRY("tp: 8, pp: 2"))), &o, &e),
	    IB_EINVAL);
	cr_assert(strstr(e.msg, "gpus-per-node=8"), "%s", e.msg);
	cr_assert(strstr(e.msg, "ag"), "%s", e.msg);
	/* runner without hardware metadata */
	cr_assert_eq(generate_fail(AG_SN("cluster:nohw", "0.8", E(DRAM_ENTRY("tp: 8"))), &o, &e),
	             IB_EINVAL);
	cr_assert(strstr(e.msg, "cluster:nohw"), "%s", e.msg);
	cr_assert(strstr(e.msg, "available-cpu-dram-mib"), "checked first: %s", e.msg);
	/* fails even when the window filters out every concurrency */
	o.has_max_conc = true;
	o.max_conc = 0;
	cr_assert_eq(generate_fail(AG_SN("cluster:b300", "0.8", E(DRAM_ENTRY("tp: 16"))), &o, &e),
	             IB_EINVAL);
	/* without dram the budget is not computed: no error */
	o.has_max_conc = false;
	cr_assert_str_eq(col(generate(AG_SN("cluster:nohw", "0.8",
	                                    E("{tp: 16, kv-offloading: none, conc-list: [1]}")),
	                              &o),
	                     "total-cpu-dram-gb"),
	                 "0");
	/* MN: the prefill worker must tile the node */
	const char *bad_div = HEAD("mnag", "mnag", "cluster:edge-4", "true") AGENTIC(
	    "0.9", E("{conc-list: [1], kv-offloading: dram, kv-offload-backend: {name: x},"
	             " prefill: {num-worker: 1, tp: 3, ep: 1, dp-attn: false}, decode: " PF2 "}"));
	cr_assert_eq(generate_fail(bad_div, &o, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "does not divide"), "%s", e.msg);
	const char *bad_mul = HEAD("mnag", "mnag", "cluster:edge-4", "true") AGENTIC(
	    "0.9", E("{conc-list: [1], kv-offloading: dram, kv-offload-backend: {name: x},"
	             " prefill: {num-worker: 1, tp: 6, ep: 1, dp-attn: false}, decode: " PF2 "}"));
	cr_assert_eq(generate_fail(bad_mul, &o, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "not a multiple"), "%s", e.msg);
}

Test(matrix, agentic_windows_have_no_fallback)
{
	const char *cfg =
	    AG_SN("cluster:b300", "0.8", E("{tp: 8, kv-offloading: none, conc-list: [4, 32]}"));
	mx_opts o = full_sweep();
	o.has_max_conc = true;
	o.max_conc = 2;
	cr_assert_eq(generate(cfg, &o)->list.n, 0);
	o.max_conc = 16;
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "4");
	o.has_max_conc = false;
	o.has_min_conc = true;
	o.min_conc = -1; /* any sign; fixed rows would vanish */
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "4 32");
	/* --max-tp / --max-ep / --seq-lens do not apply */
	o.has_min_conc = false;
	o.has_max_tp = o.has_max_ep = o.have_seq_lens = true;
	o.max_tp = 1;
	o.max_ep = 1;
	o.seq_1k1k = true;
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "4 32");
}

Test(matrix, scenario_type_selection)
{
	const char *cfg =
	    HEAD("both", "b", "cluster:b300",
	         "false") "  scenarios:\n"
	                  "    fixed-seq-len:\n"
	                  "    - {isl: 1024, osl: 1024, search-space: [{tp: 8, conc-list: [1]}]}\n"
	                  "    agentic-coding:\n"
	                  "    - search-space: [{tp: 8, kv-offloading: none, conc-list: [2]}]\n";
	mx_opts o = full_sweep();
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "1 2");
	o.want_agentic = false;
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "1");
	o.want_agentic = true;
	o.want_fixed = false;
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "2");
}

/* ---- eval marking (§2.8) ---- */

#define EVAL_SN                                                                                    \
	HEAD("ev", "ev", "h100", "false")                                                          \
	"  scenarios:\n"                                                                           \
	"    fixed-seq-len:\n"                                                                     \
	"    - isl: 8192\n"                                                                        \
	"      osl: 1024\n"                                                                        \
	"      search-space:\n" E("{tp: 8, conc-start: 4, conc-end: 256}") E(                      \
	    "{tp: 4, conc-list: [512]}") E("{tp: 8, ep: 8, dp-attn: true, conc-list: [512, 32]}")  \
	    E("{tp: 2, conc-list: [4, 8]}") "    - isl: 1024\n"                                    \
	                                    "      osl: 1024\n"                                    \
	                                    "      search-space:\n" E("{tp: 8, conc-list: [256]}")

Test(matrix, eval_marks_upper_median_and_max)
{
	mx_opts o = full_sweep();
	ib_val *rows = generate(EVAL_SN, &o);
	cr_assert_str_eq(col(rows, "conc"), "4 8 16 32 64 128 256 512 512 32 4 8 256");
	/* dp-attn false: {16..512} (6 values) -> C[3] = 128 and 512;
	 * dp-attn true: {32, 512} -> C[1] = 512; below 16 and 1k1k never */
	cr_assert_str_eq(col(rows, "run-eval"),
	                 "false false false false false true false true true "
	                 "false false false false");
	cr_assert_str_eq(col(rows, "eval-conc"), "- - - - - - - - - - - - -");
	/* odd count: {16, 32, 64, 128, 256} -> C[2] = 64 */
	rows = generate(HEAD("ev", "ev", "h100", "false")
	                    FIXED("8192", "1024", E("{tp: 8, conc-start: 4, conc-end: 256}")),
	                &o);
	cr_assert_str_eq(col(rows, "run-eval"), "false false false false true false true");
	/* a node filter makes each node its own group */
	o.runner_node_filter = "nv";
	rows = generate(HEAD("ev", "ev", "h100", "false")
	                    FIXED("8192", "1024", E("{tp: 8, conc-list: [16, 32]}")),
	                &o);
	cr_assert_str_eq(col(rows, "runner"), "h100-nv_0 h100-nv_1 h100-nv_0 h100-nv_1");
	cr_assert_str_eq(col(rows, "run-eval"), "false false true true");
}

Test(matrix, no_evals_leaves_rows_unmarked)
{
	mx_opts o = full_sweep();
	o.no_evals = true;
	ib_val *rows = generate(EVAL_SN, &o);
	cr_assert_str_eq(col(rows, "run-eval"), "false false false false false false false false "
	                                        "false false false false false");
}

#define EVAL_MN                                                                                    \
	HEAD("evmn", "evmn", "gb200", "true")                                                      \
	"  disagg: true\n"                                                                         \
	"  kv-p2p-transfer: nixl\n" FIXED(                                                         \
	    "8192", "1024",                                                                        \
	    E("{conc-start: 4, conc-end: 48, prefill: " PF ", decode: " DF "}")                    \
	        E("{conc-list: [8, 512, 16], spec-decoding: mtp, prefill: " PF2 ", decode: " PF2   \
	          "}") E("{conc-list: [1, 2, 4], prefill: " PF2 ", decode: " PF2 "}")              \
	            E("{conc-list: [128, 64], prefill: " PF ", decode: " DF "}"))

Test(matrix, eval_multinode_highest_eligible_conc)
{
	mx_opts o = full_sweep();
	ib_val *rows = generate(EVAL_MN, &o);
	cr_assert_eq(rows->list.n, 4);
	cr_assert_str_eq(col(rows, "run-eval"), "false true false true");
	cr_assert_str_eq(col(rows, "eval-conc"), "- 512 - 128");
	/* eval-conc is appended at the end */
	const ib_val *r = rows->list.v[3];
	cr_assert_str_eq(r->map.kv[r->map.n - 1].key->str.s, "eval-conc");
	cr_assert_str_eq(r->map.kv[r->map.n - 2].key->str.s, "kv-p2p-transfer");
}

Test(matrix, evals_only_keeps_marked_rows)
{
	mx_opts o = full_sweep();
	o.evals_only = true;
	ib_val *rows = generate(EVAL_SN EVAL_MN, &o);
	cr_assert_str_eq(col(rows, "conc"), "128 512 512 [8,512,16] [128,64]");
	cr_assert_str_eq(col(rows, "eval-only"), "true true true true true");
	for (size_t i = 0; i < rows->list.n; i++) {
		const ib_val *r = rows->list.v[i];
		cr_assert_str_eq(r->map.kv[r->map.n - 1].key->str.s, "eval-only");
	}
}

Test(matrix, evals_only_agentic_largest_conc_per_group)
{
	const char *cfg = AG_SN("cluster:b300", "0.8",
	                        E("{tp: 8, kv-offloading: none, conc-list: [4, 8]}")
	                            E("{tp: 4, kv-offloading: none, conc-list: [8, 2]}"));
	/* default: agentic rows are not marked */
	mx_opts o = full_sweep();
	cr_assert_str_eq(col(generate(cfg, &o), "run-eval"), "false false false false");
	/* with --evals-only: the largest conc of the group, first on ties, no
	 * threshold */
	o.evals_only = true;
	ib_val *rows = generate(cfg, &o);
	cr_assert_str_eq(col(rows, "tp"), "8");
	cr_assert_str_eq(col(rows, "conc"), "8");
	const ib_val *r = rows->list.v[0];
	cr_assert_str_eq(r->map.kv[r->map.n - 2].key->str.s, "run-eval");
	cr_assert_str_eq(r->map.kv[r->map.n - 1].key->str.s, "eval-only");
}

Test(matrix, all_evals_merges_multinode_rows)
{
	mx_opts o = full_sweep();
	o.all_evals = true;
	ib_val *rows = generate(EVAL_SN EVAL_MN, &o);
	/* SN 8k1k: every row, even below 16; 1k1k dropped; MN merged per topology
	 * (the [1, 2, 4] topology too: no threshold) */
	cr_assert_str_eq(col(rows, "conc"), "4 8 16 32 64 128 256 512 512 32 4 8 "
	                                    "[4,8,16,32,48,64,128] [8,16,512] [1,2,4]");
	cr_assert_str_eq(col(rows, "eval-all-concs"), "- - - - - - - - - - - - true true true");
	cr_assert_str_eq(col(rows, "eval-conc"), "- - - - - - - - - - - - - - -");
	cr_assert_str_eq(
	    col(rows, "run-eval"),
	    "true true true true true true true true true true true true true true true");
	cr_assert_str_eq(
	    col(rows, "eval-only"),
	    "true true true true true true true true true true true true true true true");
	const ib_val *r = rows->list.v[13];
	size_t n = r->map.n;
	/* ..., run-eval, kv-p2p-transfer (top level), [eval-conc removed],
	 * eval-all-concs, eval-only */
	cr_assert_str_eq(r->map.kv[n - 4].key->str.s, "run-eval");
	cr_assert_str_eq(r->map.kv[n - 3].key->str.s, "kv-p2p-transfer");
	cr_assert_str_eq(r->map.kv[n - 2].key->str.s, "eval-all-concs");
	cr_assert_str_eq(r->map.kv[n - 1].key->str.s, "eval-only");
	/* the merged row keeps the position of its first member: conc stays in place */
	cr_assert_str_eq(r->map.kv[11].key->str.s, "conc");
}

Test(matrix, all_evals_agentic)
{
	const char *cfg = AG_SN("cluster:b300", "0.8",
	                        E("{tp: 8, kv-offloading: none, conc-list: [4, 8]}"))
	    HEAD("mnag", "mnag", "cluster:b300", "true")
	        AGENTIC("0.8", E("{conc-list: [32, 2], kv-offloading: none, prefill: " PF2
	                         ", decode: " PF2 "}") E("{conc-list: [8], kv-offloading: none,"
	                                                 " prefill: " PF2 ", decode: " PF2 "}"));
	mx_opts o = full_sweep();
	o.all_evals = true;
	ib_val *rows = generate(cfg, &o);
	cr_assert_str_eq(col(rows, "conc"), "4 8 [2,8,32]");
	cr_assert_str_eq(col(rows, "eval-conc"), "- - 32");
	cr_assert_str_eq(col(rows, "run-eval"), "true true true");
	cr_assert_str_eq(col(rows, "eval-all-concs"), "- - -");
	/* direct use of the two passes gives the same */
	o = full_sweep();
	o.no_evals = true;
	ib_val *raw = generate(cfg, &o);
	cr_assert_eq(mx_mark_evals(A, raw, true), 0);
	cr_assert_str_eq(col(raw, "run-eval"), "false true true false false");
	cr_assert_str_eq(col(raw, "eval-conc"), "- - 32 - -");
	ib_val *all = NULL;
	cr_assert_eq(mx_mark_all_evals(A, raw, &all), 0);
	cr_assert_str_eq(col(all, "conc"), "4 8 [2,8,32]");
	cr_assert_str_eq(col(all, "eval-conc"), "- - 32");
}

Test(matrix, eval_distinct_concs_mark_every_matching_row)
{
	mx_opts o = full_sweep();
	ib_val *rows = generate(
	    HEAD("ev", "ev", "h100", "false")
	        FIXED("8192", "1024",
	              E("{tp: 8, conc-list: [16, 32]}") E("{tp: 4, ep: 4, conc-list: [32, 64]}")
	                  E("{tp: 4, spec-decoding: mtp, conc-list: [16, 32]}")),
	    &o);
	/* group (spec none, dp false): distinct {16, 32, 64} -> 32 and 64, both
	 * 32-rows; spec mtp is its own group: {16, 32} -> C[1] = 32 */
	cr_assert_str_eq(col(rows, "conc"), "16 32 32 64 16 32");
	cr_assert_str_eq(col(rows, "run-eval"), "false true true true false true");
}

Test(matrix, precision_and_framework_filters)
{
	const char *cfg =
	    "a:\n  image: i\n  model: m\n  model-prefix: a\n  precision: fp4\n"
	    "  framework: vllm\n  runner: h100\n  multinode: false\n" FIXED(
	        "1024", "1024",
	        E("{tp: 1, conc-list: [1]}")) "b:\n  image: i\n  model: m\n  model-prefix: b\n  "
	                                      "precision: fp8\n"
	                                      "  framework: sglang\n  runner: h100\n  multinode: "
	                                      "false\n" FIXED(
	                                          "1024", "1024",
	                                          E("{tp: 1, conc-list: [2]}")) "c:\n  image: i\n  "
	                                                                        "model: m\n  "
	                                                                        "model-prefix: c\n "
	                                                                        " precision: fp8\n"
	                                                                        "  framework: "
	                                                                        "vllm\n  runner: "
	                                                                        "h100\n  "
	                                                                        "multinode: "
	                                                                        "false\n" FIXED(
	                                                                            "1024", "1024",
	                                                                            E("{tp: 1, "
	                                                                              "conc-list: "
	                                                                              "[3]}"));
	mx_opts o = full_sweep();
	static const char *const p8[] = {"fp8"};
	static const char *const fw[] = {"vllm", "trt"};
	o.precision = (mx_strs){p8, 1};
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "2 3");
	o.framework = (mx_strs){fw, 2};
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "3");
	o.precision = (mx_strs){NULL, 0};
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "1 3");
}

Test(matrix, test_config_null_conc_list_with_range_is_error)
{
	const char *cfg = SN(E("{tp: 8, conc-start: 1, conc-end: 4, conc-list: null}"));
	mx_opts o = full_sweep();
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "1 2 4");
	static const char *const keys[] = {"sn"};
	o = test_config(keys, 1);
	ib_error e = {0};
	cr_assert_eq(generate_fail(cfg, &o, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "conc-list"), "%s", e.msg);
	cr_assert(strstr(e.msg, "sn"), "%s", e.msg);
}

Test(matrix, test_config_agentic_list_by_truthiness)
{
	const char *cfg =
	    AG_SN("cluster:b300", "0.8",
	          E("{tp: 8, kv-offloading: none, conc-start: 1, conc-end: 4, conc-list: []}"));
	static const char *const keys[] = {"ag"};
	mx_opts o = test_config(keys, 1);
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "1 2 4");
	static const int64_t conc[] = {4, 16};
	o.conc = conc;
	o.nconc = 2;
	cr_assert_str_eq(col(generate(cfg, &o), "conc"), "4");
}

Test(matrix, dram_budget_uses_label_with_node_filter)
{
	mx_opts o = full_sweep();
	o.runner_node_filter = "b300-b";
	ib_val *rows = generate(AG_SN("cluster:b300", "0.8", E(DRAM_ENTRY("tp: 8"))), &o);
	cr_assert_str_eq(col(rows, "runner"), "b300-b_0");
	cr_assert_str_eq(col(rows, "total-cpu-dram-gb"), "2399");
}

Test(matrix, multinode_agentic_defaults)
{
	mx_opts o = full_sweep();
	/* kv-offloading absent -> "none"; spec-decoding is not in the exp-name */
	ib_val *rows =
	    generate(HEAD("mnag", "x", "cluster:b300", "true")
	                 AGENTIC("0.8", E("{conc-start: 1, conc-end: 2, spec-decoding: mtp,"
	                                  " prefill: " PF2 ", decode: " PF2 "}")),
	             &o);
	cr_assert_str_eq(col(rows, "kv-offloading"), "none none");
	cr_assert_str_eq(col(rows, "exp-name"), "x_p1x4_d1x4_conc1 x_p1x4_d1x4_conc2");
	cr_assert_str_eq(col(rows, "conc"), "[1] [2]");
	cr_assert_str_eq(col(rows, "spec-decoding"), "mtp mtp");
	cr_assert_str_eq(col(rows, "kv-offload-backend"), "- -");
}
