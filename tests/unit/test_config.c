/* Unit tests for config/: the master-config rules V6–V24, runners.yaml R1–R4,
 * lax coercions (matrix.md §1.2) and multi-file loading (§1.1). */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "config/config.h"

/* ---- fixture ---- */

static ib_arena *A;
static ib_diags D;

static void setup(void)
{
	A = ib_arena_new();
	cr_assert_not_null(A);
	D = (ib_diags){.a = A};
}

static void teardown(void)
{
	ib_arena_free(A);
	A = NULL;
}

TestSuite(config, .init = setup, .fini = teardown);

static ib_val *yaml_named(const char *name, const char *text)
{
	ib_val *v = NULL;
	ib_error e = {0};
	int rc = ib_yaml_load(A, name, text, strlen(text), &v, &e);
	cr_assert_eq(rc, 0, "test YAML does not load: %s:%d:%d: %s\n%s", e.file, e.line, e.col,
	             e.msg, text);
	return v;
}

static ib_val *yaml(const char *text)
{
	return yaml_named("entry.yaml", text);
}

/* All recorded problems, one per line (for assertion messages). */
static const char *diags_text(void)
{
	ib_buf b = {0};
	for (size_t i = 0; i < D.n; i++) {
		ib_diag_format(&D.items[i], &b);
		ib_buf_putc(&b, '\n');
	}
	char *s = ib_arena_strdup(A, b.data ? b.data : "(none)");
	ib_buf_free(&b);
	return s;
}

/* Case-insensitive substring test. */
static bool contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *h = hay; *h; h++)
		if (strncasecmp(h, needle, n) == 0)
			return true;
	return n == 0;
}

/* Validates one entry (a fresh problem list each time). */
static bool validate(const char *key, const char *text)
{
	D.n = 0;
	return cfg_validate_entry(key, yaml(text), &D);
}

static void expect_valid(const char *key, const char *text)
{
	bool ok = validate(key, text);
	cr_assert(ok, "entry should be valid; problems:\n%s\n%s", diags_text(), text);
	cr_assert_eq(D.n, 0, "%s", diags_text());
}

/* The entry is invalid, and some problem names entry `key`, has a field path
 * containing `field` (NULL: no field expected), a message containing `msg`
 * (case-insensitive; NULL: any) and a source line > 0. Returns it. */
static const ib_diag *expect_problem(const char *key, const char *text, const char *field,
                                     const char *msg)
{
	bool ok = validate(key, text);
	cr_assert_not(ok, "entry should be invalid (want field '%s')\n%s", field ? field : "",
	              text);
	cr_assert_gt(D.n, 0, "invalid without a recorded problem");
	for (size_t i = 0; i < D.n; i++) {
		const ib_diag *g = &D.items[i];
		if (field && (!g->field || !strstr(g->field, field)))
			continue;
		if (!field && g->field)
			continue;
		if (msg && !contains_ci(g->msg, msg))
			continue;
		cr_assert_not_null(g->subject, "problem without entry: %s", diags_text());
		cr_assert_str_eq(g->subject, key);
		cr_assert_gt(g->line, 0, "problem without a line: %s", diags_text());
		cr_assert_gt(g->col, 0, "problem without a column: %s", diags_text());
		cr_assert_not_null(g->file);
		cr_assert_str_eq(g->file, "entry.yaml");
		return g;
	}
	cr_assert_fail("no problem with field '%s' and message '%s'; got:\n%s", field ? field : "",
	               msg ? msg : "", diags_text());
	return NULL;
}

/* ---- entry templates ---- */

#define HEAD(runner, mn)                                                                           \
	"image: img:1\n"                                                                           \
	"model: org/m\n"                                                                           \
	"model-prefix: m\n"                                                                        \
	"precision: fp8\n"                                                                         \
	"framework: sglang\n"                                                                      \
	"runner: " runner "\n"                                                                     \
	"multinode: " mn "\n"
#define SN_HEAD    HEAD("h100", "false")
#define MN_HEAD    HEAD("gb200", "true")
#define AG_SN_HEAD HEAD("cluster:b300", "false")
#define AG_MN_HEAD HEAD("cluster:b300", "true")

/* one fixed-seq-len config (1k1k) with one search-space entry (flow mapping) */
#define FIXED(entry)                                                                               \
	"scenarios:\n"                                                                             \
	"  fixed-seq-len:\n"                                                                       \
	"  - isl: 1024\n"                                                                          \
	"    osl: 1024\n"                                                                          \
	"    search-space:\n"                                                                      \
	"    - " entry "\n"
/* one agentic-coding config with dram-utilization 0.8 and one entry */
#define AGENTIC(entry)                                                                             \
	"scenarios:\n"                                                                             \
	"  agentic-coding:\n"                                                                      \
	"  - dram-utilization: 0.8\n"                                                              \
	"    search-space:\n"                                                                      \
	"    - " entry "\n"

#define PF  "{num-worker: 1, tp: 4, ep: 1, dp-attn: false}"
#define DF  "{num-worker: 2, tp: 8, ep: 8, dp-attn: true}"
#define SS0 "scenarios.fixed-seq-len[0].search-space[0]"
#define AG0 "scenarios.agentic-coding[0].search-space[0]"

/* ---- positive cases ---- */

Test(config, valid_single_node_entry)
{
	expect_valid("dsr1-fp8-h100-sglang",
	             SN_HEAD "router: {name: sgl-router, version: \"0.2.1\"}\n"
	                     "scenarios:\n"
	                     "  fixed-seq-len:\n"
	                     "  - isl: 8192\n"
	                     "    osl: 1024\n"
	                     "    search-space:\n"
	                     "    - { tp: 8, ep: 8, dp-attn: true, conc-start: 4, conc-end: 64 }\n"
	                     "    - { tp: 4, pp: 2, dcp-size: 2, pcp-size: 1, spec-decoding: mtp,"
	                     " conc-list: [4, 8] }\n"
	                     "    - { tp: 8, ep: null, dp-attn: null, conc-start: 1, conc-end: 4,"
	                     " conc-list: [] }\n"
	                     "  - isl: 1024\n"
	                     "    osl: 1024\n"
	                     "    search-space: []\n");
}

Test(config, valid_multinode_disagg_with_transfer)
{
	expect_valid(
	    "dsr1-fp4-gb200-dynamo", MN_HEAD
	    "disagg: true\n"
	    "scenarios:\n"
	    "  fixed-seq-len:\n"
	    "  - isl: 8192\n"
	    "    osl: 1024\n"
	    "    search-space:\n"
	    "    - conc-start: 4\n"
	    "      conc-end: 48\n"
	    "      kv-p2p-transfer: nixl\n"
	    "      spec-decoding: mtp\n"
	    "      router: {name: dynamo-router, version: 1.2.3}\n"
	    "      prefill: { num-worker: 2, tp: 4, pp: 1, ep: 4, dp-attn: true,"
	    " additional-settings: [\"A=1\"] }\n"
	    "      decode: { num-worker: 1, tp: 8, ep: 8, dp-attn: false, dcp-size: 2 }\n"
	    "    - conc-list: [8, 512, 16]\n"
	    "      kv-p2p-transfer: mooncake\n"
	    "      prefill: { hardware: gb200, num-worker: 1, tp: 4, ep: 1, dp-attn: false }\n"
	    "      decode: { hardware: h100, num-worker: 1, tp: 8, ep: 1, dp-attn: false }\n");
	/* the transfer may also be declared once at the top level */
	expect_valid("mn-top-transfer", MN_HEAD "disagg: true\nkv-p2p-transfer: nixl\n" FIXED(
	                                    "{conc-list: [4], prefill: " PF ", decode: " DF "}"));
}

Test(config, valid_agentic_single_node)
{
	expect_valid(
	    "ag-sn", AG_SN_HEAD
	    "scenarios:\n"
	    "  agentic-coding:\n"
	    "  - dram-utilization: 0.8\n"
	    "    search-space:\n"
	    "    - { tp: 8, kv-offloading: none, conc-list: [4, 8] }\n"
	    "    - { tp: 4, pp: 2, kv-offloading: dram, kv-offload-backend: { name: lmcache,"
	    " version: \"0.3.1\" }, conc-start: 1, conc-end: 8, spec-decoding: mtp }\n"
	    "    - { tp: 3, ep: 3, dp-attn: true, kv-offloading: dram, kv-offload-backend:"
	    " { name: native }, conc-list: [16], router: { name: r, version: abc123 } }\n");
}

Test(config, valid_agentic_multinode)
{
	expect_valid("ag-mn",
	             AG_MN_HEAD "disagg: true\n"
	                        "kv-p2p-transfer: nixl\n"
	                        "scenarios:\n"
	                        "  agentic-coding:\n"
	                        "  - dram-utilization: 0.9\n"
	                        "    search-space:\n"
	                        "    - conc-list: [64, 8, 16]\n"
	                        "      kv-offloading: dram\n"
	                        "      kv-offload-backend: { name: mooncake, version: v0.3 }\n"
	                        "      prefill: " PF "\n"
	                        "      decode: " DF "\n"
	                        "    - conc-start: 1\n"
	                        "      conc-end: 32\n"
	                        "      prefill: " PF "\n"
	                        "      decode: " DF "\n");
}

Test(config, lax_values_validate)
{
	/* lax int, lax bool, Literal[False] as 0, Literal[True] as 1 */
	expect_valid(
	    "lax-sn",
	    HEAD("h100", "0")
	        FIXED("{tp: \"8\", ep: 8.0, dp-attn: \"yes\", conc-start: \"4\", conc-end: 64}"));
	expect_valid("lax-mn",
	             HEAD("gb200", "1") "disagg: 0\n" FIXED(
	                 "{conc-list: [\"4\", 8.0, true], prefill: " PF ", decode: " DF "}"));
	/* tp is not range-checked; Python's % makes -8 divisible by 4 */
	expect_valid("tp-neg", SN_HEAD FIXED("{tp: -8, dcp-size: 4, conc-list: [1]}"));
	expect_valid("tp-zero", SN_HEAD FIXED("{tp: 0, conc-list: [1]}"));
}

/* ---- V6 unknown keys ---- */

Test(config, v06_unknown_top_level_key)
{
	const ib_diag *g = expect_problem(
	    "k", SN_HEAD "bogus: 1\n" FIXED("{tp: 8, conc-list: [1]}"), "bogus", NULL);
	cr_assert_str_eq(g->field, "bogus");
	cr_assert_eq(g->line, 8);
	cr_assert_eq(g->col, 1);
}

Test(config, v06_unknown_nested_keys)
{
	expect_problem("k", SN_HEAD FIXED("{tp: 8, conc-list: [1], offloading: x}"),
	               SS0 ".offloading", NULL);
	/* kv-p2p-transfer is unknown on a single-node entry (F10) */
	expect_problem("k", SN_HEAD "kv-p2p-transfer: nixl\n" FIXED("{tp: 8, conc-list: [1]}"),
	               "kv-p2p-transfer", NULL);
	/* fixed SN entries have no kv-p2p-transfer either */
	expect_problem("k", SN_HEAD FIXED("{tp: 8, conc-list: [1], kv-p2p-transfer: nixl}"),
	               SS0 ".kv-p2p-transfer", NULL);
	/* agentic config keys that the current schema dropped */
	expect_problem("k",
	               AG_SN_HEAD "scenarios:\n"
	                          "  agentic-coding:\n"
	                          "  - duration: 3600\n"
	                          "    search-space:\n"
	                          "    - {tp: 8, kv-offloading: none, conc-list: [1]}\n",
	               "scenarios.agentic-coding[0].duration", NULL);
	/* worker keys */
	expect_problem("k",
	               MN_HEAD FIXED("{conc-list: [1], prefill: {num-worker: 1, tp: 4, ep: 1,"
	                             " dp-attn: false, gpus: 4}, decode: " DF "}"),
	               SS0 ".prefill.gpus", NULL);
	/* an underscore spelling is unknown too */
	expect_problem("k", SN_HEAD FIXED("{tp: 8, conc_start: 1, conc-end: 4}"), SS0 ".conc_start",
	               NULL);
}

/* ---- V7 required fields ---- */

Test(config, v07_required_fields)
{
	expect_problem("k",
	               "image: i\nmodel-prefix: m\nprecision: p\nframework: f\nrunner: r\n"
	               "multinode: false\n" FIXED("{tp: 8, conc-list: [1]}"),
	               "model", "required");
	/* multinode is required even though its absence picks the SN schema */
	expect_problem(
	    "k",
	    "image: i\nmodel: m\nmodel-prefix: m\nprecision: p\nframework: f\nrunner: r\n" FIXED(
	        "{tp: 8, conc-list: [1]}"),
	    "multinode", "required");
	expect_problem("k", SN_HEAD "image-x: 1\n", "scenarios", "required");
	expect_problem("k", SN_HEAD FIXED("{ep: 8, conc-list: [1]}"), SS0 ".tp", "required");
	expect_problem("k",
	               MN_HEAD FIXED("{conc-list: [1], prefill: {num-worker: 1, tp: 4, dp-attn:"
	                             " false}, decode: " DF "}"),
	               SS0 ".prefill.ep", "required");
	expect_problem("k", MN_HEAD FIXED("{conc-list: [1], prefill: " PF "}"), SS0 ".decode",
	               "required");
	expect_problem(
	    "k", SN_HEAD "scenarios:\n  fixed-seq-len:\n  - isl: 1024\n    search-space: []\n",
	    "scenarios.fixed-seq-len[0].osl", "required");
}

/* ---- V8 types ---- */

Test(config, v08_types)
{
	const ib_diag *g = expect_problem("k",
	                                  "image: 5\nmodel: org/m\nmodel-prefix: m\n"
	                                  "precision: fp8\nframework: sglang\nrunner: h100\n"
	                                  "multinode: false\n" FIXED("{tp: 8, conc-list: [1]}"),
	                                  "image", "string");
	cr_assert_eq(g->line, 1);
	cr_assert_not_null(g->got);
	cr_assert_str_eq(g->got, "5");
	/* an unquoted date is not a string */
	expect_problem(
	    "k",
	    "image: 2026-08-21\nmodel: org/m\nmodel-prefix: m\nprecision: fp8\n"
	    "framework: sglang\nrunner: h100\nmultinode: false\n" FIXED("{tp: 8, conc-list: [1]}"),
	    "image", NULL);
	expect_problem("k", SN_HEAD FIXED("{tp: abc, conc-list: [1]}"), SS0 ".tp", "integer");
	expect_problem("k", SN_HEAD FIXED("{tp: 8.5, conc-list: [1]}"), SS0 ".tp", "integer");
	expect_problem("k", SN_HEAD FIXED("{tp: 8, spec-decoding: MTP, conc-list: [1]}"),
	               SS0 ".spec-decoding", NULL);
	/* spec-decoding has a default but is not Optional: null is rejected */
	expect_problem("k", SN_HEAD FIXED("{tp: 8, spec-decoding: null, conc-list: [1]}"),
	               SS0 ".spec-decoding", NULL);
	expect_problem("k", SN_HEAD FIXED("{tp: 8, dp-attn: maybe, conc-list: [1]}"),
	               SS0 ".dp-attn", "bool");
	expect_problem("k", SN_HEAD FIXED("{tp: 8, conc-list: [4, x]}"), SS0 ".conc-list[1]",
	               "integer");
	/* SN disagg is Literal[False] */
	expect_problem("k", SN_HEAD "disagg: true\n" FIXED("{tp: 8, conc-list: [1]}"), "disagg",
	               "false");
	/* multinode: 2 is truthy (MN schema) but not Literal[True] */
	expect_problem(
	    "k", HEAD("gb200", "2") FIXED("{conc-list: [1], prefill: " PF ", decode: " DF "}"),
	    "multinode", "true");
	expect_problem("k", AG_SN_HEAD AGENTIC("{tp: 8, kv-offloading: DRAM, conc-list: [1]}"),
	               AG0 ".kv-offloading", NULL);
	expect_problem("k",
	               MN_HEAD FIXED("{conc-list: [1], prefill: {num-worker: 1, tp: 4, ep: 1,"
	                             " dp-attn: false, additional-settings: [1]}, decode: " DF "}"),
	               SS0 ".prefill.additional-settings[0]", "string");
}

Test(config, strict_ints_for_pp_dcp_pcp)
{
	expect_valid("k", SN_HEAD FIXED("{tp: 8, pp: 2, conc-list: [1]}"));
	expect_problem("k", SN_HEAD FIXED("{tp: 8, pp: \"2\", conc-list: [1]}"), SS0 ".pp", NULL);
	expect_problem("k", SN_HEAD FIXED("{tp: 8, pp: 2.0, conc-list: [1]}"), SS0 ".pp", NULL);
	expect_problem("k", SN_HEAD FIXED("{tp: 8, pcp-size: true, conc-list: [1]}"),
	               SS0 ".pcp-size", NULL);
	expect_problem("k",
	               MN_HEAD FIXED("{conc-list: [1], prefill: {num-worker: 1, tp: 4, ep: 1,"
	                             " dp-attn: false, dcp-size: \"1\"}, decode: " DF "}"),
	               SS0 ".prefill.dcp-size", NULL);
}

/* ---- V9 ranges ---- */

Test(config, v09_ranges)
{
	expect_problem("k", SN_HEAD FIXED("{tp: 8, pp: 0, conc-list: [1]}"), SS0 ".pp",
	               "greater than 0");
	expect_problem("k", SN_HEAD FIXED("{tp: 8, dcp-size: -1, conc-list: [1]}"), SS0 ".dcp-size",
	               "greater than 0");
	static const char *const bad_util[] = {"1.5", "0", "-0.1", "0.0"};
	for (size_t i = 0; i < 4; i++) {
		char text[1024];
		snprintf(text, sizeof text,
		         AG_SN_HEAD "scenarios:\n  agentic-coding:\n  - dram-utilization: %s\n"
		                    "    search-space:\n"
		                    "    - {tp: 8, kv-offloading: none, conc-list: [1]}\n",
		         bad_util[i]);
		expect_problem("k", text, "scenarios.agentic-coding[0].dram-utilization", NULL);
	}
	expect_valid("k", AG_SN_HEAD "scenarios:\n  agentic-coding:\n  - dram-utilization: 1\n"
	                             "    search-space:\n"
	                             "    - {tp: 8, kv-offloading: none, conc-list: [1]}\n");
}

/* ---- V10 concurrency ---- */

Test(config, v10a_list_and_range)
{
	expect_problem("k", SN_HEAD FIXED("{tp: 8, conc-start: 4, conc-end: 8, conc-list: [4]}"),
	               SS0 ".conc-list", "both");
	expect_problem("k",
	               MN_HEAD FIXED("{conc-start: 4, conc-end: 8, conc-list: [4], prefill: " PF
	                             ", decode: " DF "}"),
	               SS0 ".conc-list", "both");
	/* an empty list does not count */
	expect_valid("k", SN_HEAD FIXED("{tp: 8, conc-start: 4, conc-end: 8, conc-list: []}"));
}

Test(config, v10b_neither_list_nor_range)
{
	expect_problem("k", SN_HEAD FIXED("{tp: 8}"), SS0, "conc-list");
	expect_problem("k", SN_HEAD FIXED("{tp: 8, conc-start: 4}"), SS0, "conc-end");
	expect_problem("k", SN_HEAD FIXED("{tp: 8, conc-list: [], conc-end: 4}"), SS0,
	               "conc-start");
	expect_problem("k", AG_SN_HEAD AGENTIC("{tp: 8, kv-offloading: none}"), AG0, "conc-list");
}

Test(config, v10c_range_not_positive)
{
	expect_problem("k", SN_HEAD FIXED("{tp: 8, conc-start: 0, conc-end: 8}"), SS0 ".conc-start",
	               "greater than 0");
	expect_problem("k", SN_HEAD FIXED("{tp: 8, conc-start: -4, conc-end: -2}"), SS0,
	               "greater than 0");
}

Test(config, v10d_start_after_end)
{
	expect_problem("k", SN_HEAD FIXED("{tp: 8, conc-start: 64, conc-end: 4}"),
	               SS0 ".conc-start", "(64)");
	expect_valid("k", SN_HEAD FIXED("{tp: 8, conc-start: 4, conc-end: 4}"));
}

Test(config, v10e_list_item_not_positive)
{
	expect_problem("k", SN_HEAD FIXED("{tp: 8, conc-list: [4, 0]}"), SS0 ".conc-list",
	               "greater than 0");
	expect_problem("k", AG_SN_HEAD AGENTIC("{tp: 8, kv-offloading: none, conc-list: [-1]}"),
	               AG0 ".conc-list", "greater than 0");
}

/* ---- V11 tp / dcp-size ---- */

Test(config, v11_tp_divisible_by_dcp)
{
	expect_problem("k", SN_HEAD FIXED("{tp: 6, dcp-size: 4, conc-list: [1]}"), SS0 ".tp",
	               "divisible");
	expect_valid("k", SN_HEAD FIXED("{tp: 8, dcp-size: 4, conc-list: [1]}"));
	expect_problem("k",
	               MN_HEAD FIXED("{conc-list: [1], prefill: {num-worker: 1, tp: 6, ep: 1,"
	                             " dp-attn: false, dcp-size: 4}, decode: " DF "}"),
	               SS0 ".prefill.tp", "divisible");
}

/* ---- V12 hardware on both workers or neither ---- */

Test(config, v12_hardware_pair)
{
	const ib_diag *g = expect_problem(
	    "k",
	    MN_HEAD FIXED("{conc-list: [1], prefill: {hardware: gb200, num-worker: 1, tp: 4, ep: 1,"
	                  " dp-attn: false}, decode: " DF "}"),
	    SS0, "hardware");
	cr_assert(strstr(g->field, "decode") || strstr(g->field, "prefill"), "%s", g->field);
	expect_problem("k",
	               AG_MN_HEAD AGENTIC("{conc-list: [1], kv-offloading: none, prefill: " PF
	                                  ", decode: {hardware: h100, num-worker: 2, tp: 8, ep: 8,"
	                                  " dp-attn: true}}"),
	               AG0, "hardware");
}

/* ---- V13 / V14 component metadata ---- */

Test(config, v13_version_not_an_image)
{
	expect_problem("k",
	               SN_HEAD "router: {name: r, version: \"image:sgl:1\"}\n" FIXED(
	                   "{tp: 8, conc-list: [1]}"),
	               "router.version", "image");
	expect_problem(
	    "k",
	    AG_SN_HEAD AGENTIC("{tp: 8, kv-offloading: dram, kv-offload-backend: {name: x,"
	                       " version: \"image:lmcache\"}, conc-list: [1]}"),
	    AG0 ".kv-offload-backend.version", "image");
}

Test(config, v14_empty_strings)
{
	expect_problem(
	    "k", SN_HEAD "router: {name: \"\", version: \"1\"}\n" FIXED("{tp: 8, conc-list: [1]}"),
	    "router.name", "1 character");
	expect_problem("k",
	               MN_HEAD "kv-p2p-transfer: \"\"\n" FIXED("{conc-list: [1], prefill: " PF
	                                                       ", decode: " DF "}"),
	               "kv-p2p-transfer", "1 character");
	expect_problem("k",
	               MN_HEAD FIXED("{conc-list: [1], prefill: {hardware: \"\", num-worker: 1,"
	                             " tp: 4, ep: 1, dp-attn: false}, decode: " DF "}"),
	               SS0 ".prefill.hardware", "1 character");
	expect_problem("k",
	               AG_SN_HEAD AGENTIC("{tp: 8, kv-offloading: dram, kv-offload-backend:"
	                                  " {name: \"\"}, conc-list: [1]}"),
	               AG0 ".kv-offload-backend.name", "1 character");
	/* a router needs both name and version */
	expect_problem("k", SN_HEAD "router: {name: r}\n" FIXED("{tp: 8, conc-list: [1]}"),
	               "router.version", "required");
}

/* ---- V15–V17 kv offloading ---- */

Test(config, v15_backend_requires_offloading)
{
	expect_problem("k",
	               AG_SN_HEAD AGENTIC("{tp: 8, kv-offload-backend: {name: x}, conc-list: [1]}"),
	               AG0 ".kv-offload-backend", "requires kv-offloading");
}

Test(config, v16_backend_with_offloading_none)
{
	expect_problem(
	    "k",
	    AG_SN_HEAD AGENTIC("{tp: 8, kv-offloading: none, kv-offload-backend: {name: x},"
	                       " conc-list: [1]}"),
	    AG0 ".kv-offload-backend", "none");
}

Test(config, v17_dram_requires_backend)
{
	expect_problem("k", AG_SN_HEAD AGENTIC("{tp: 8, kv-offloading: dram, conc-list: [1]}"),
	               AG0 ".kv-offloading", "required");
}

/* ---- V18 agentic entry shapes ---- */

Test(config, v18a_tp_or_prefill_decode)
{
	expect_problem(
	    "k",
	    AG_SN_HEAD AGENTIC("{tp: 8, prefill: " PF ", kv-offloading: none, conc-list: [1]}"),
	    AG0, "either tp or both prefill and decode");
	expect_problem("k",
	               AG_MN_HEAD AGENTIC("{prefill: " PF ", kv-offloading: none, conc-list: [1]}"),
	               AG0, "either tp or both prefill and decode");
}

Test(config, v18b_single_node_agentic_needs_kv_offloading)
{
	expect_problem("k", AG_SN_HEAD AGENTIC("{tp: 8, conc-list: [1]}"), AG0, "kv-offloading");
	/* null is the same as absent */
	expect_problem("k", AG_SN_HEAD AGENTIC("{tp: 8, kv-offloading: null, conc-list: [1]}"), AG0,
	               "kv-offloading");
}

Test(config, v18c_agentic_tp_divisible_by_dcp)
{
	expect_problem(
	    "k", AG_SN_HEAD AGENTIC("{tp: 6, dcp-size: 4, kv-offloading: none, conc-list: [1]}"),
	    AG0 ".tp", "divisible");
}

Test(config, v18d_multinode_agentic_no_pp_dcp_pcp)
{
	static const char *const keys[] = {"pp: 1", "dcp-size: 1", "pcp-size: 2"};
	static const char *const names[] = {AG0 ".pp", AG0 ".dcp-size", AG0 ".pcp-size"};
	for (size_t i = 0; i < 3; i++) {
		char text[2048];
		snprintf(text, sizeof text,
		         AG_MN_HEAD AGENTIC("{%s, prefill: " PF ", decode: " DF
		                            ", kv-offloading: none, conc-list: [1]}"),
		         keys[i]);
		expect_problem("k", text, names[i], "pp");
	}
}

Test(config, v18e_multinode_agentic_hardware_pair)
{
	expect_problem("k",
	               AG_MN_HEAD AGENTIC("{prefill: {hardware: b300, num-worker: 1, tp: 4, ep: 1,"
	                                  " dp-attn: false}, decode: " DF
	                                  ", kv-offloading: none, conc-list: [1]}"),
	               AG0, "hardware");
}

/* ---- V19 dram needs dram-utilization ---- */

Test(config, v19_dram_requires_utilization)
{
	expect_problem("k",
	               AG_SN_HEAD
	               "scenarios:\n"
	               "  agentic-coding:\n"
	               "  - search-space:\n"
	               "    - {tp: 8, kv-offloading: none, conc-list: [1]}\n"
	               "    - {tp: 8, kv-offloading: dram, kv-offload-backend: {name: x},"
	               " conc-list: [1]}\n",
	               "scenarios.agentic-coding[0].search-space[1]", "dram-utilization");
	/* without any dram entry, no utilization is needed */
	expect_valid("k", AG_SN_HEAD "scenarios:\n"
	                             "  agentic-coding:\n"
	                             "  - search-space:\n"
	                             "    - {tp: 8, kv-offloading: none, conc-list: [1]}\n");
}

/* ---- V20 at least one scenario ---- */

Test(config, v20_some_scenario)
{
	expect_problem("k", SN_HEAD "scenarios: {}\n", "scenarios", "scenario");
	expect_problem("k", SN_HEAD "scenarios:\n  fixed-seq-len: []\n  agentic-coding: null\n",
	               "scenarios", "scenario");
}

/* ---- V21 agentic configs need a cluster runner ---- */

Test(config, v21_agentic_needs_cluster_runner)
{
	const ib_diag *g = expect_problem(
	    "k", HEAD("b300", "false") AGENTIC("{tp: 8, kv-offloading: none, conc-list: [1]}"),
	    "runner", "cluster:");
	cr_assert_str_eq(g->field, "runner");
	cr_assert_eq(g->line, 6);
}

/* ---- V22–V24 top-level component rules ---- */

Test(config, v22_router_or_transfer_not_both)
{
	expect_problem("k",
	               SN_HEAD "router: {name: r, version: \"1\"}\n" FIXED(
	                   "{tp: 8, conc-list: [1], router: {name: r, version: \"2\"}}"),
	               "router", "not both");
	expect_problem("k",
	               MN_HEAD
	               "kv-p2p-transfer: nixl\n" FIXED("{conc-list: [1], kv-p2p-transfer: nixl,"
	                                               " prefill: " PF ", decode: " DF "}"),
	               "kv-p2p-transfer", "not both");
	/* an agentic entry counts too */
	expect_problem("k",
	               AG_SN_HEAD "router: {name: r, version: \"1\"}\n" AGENTIC(
	                   "{tp: 8, kv-offloading: none, conc-list: [1], router: {name: r,"
	                   " version: \"2\"}}"),
	               "router", "not both");
}

Test(config, v23_transfer_only_on_multinode)
{
	expect_problem("k",
	               AG_SN_HEAD AGENTIC("{tp: 8, kv-offloading: none, kv-p2p-transfer: nixl,"
	                                  " conc-list: [1]}"),
	               "kv-p2p-transfer", "multinode");
}

Test(config, v24_disagg_requires_transfer)
{
	expect_problem("k",
	               MN_HEAD
	               "disagg: true\n" FIXED("{conc-list: [1], prefill: " PF ", decode: " DF "}"),
	               "disagg", "kv-p2p-transfer");
	/* one entry of two without it */
	expect_problem("k",
	               MN_HEAD "disagg: true\n"
	                       "scenarios:\n"
	                       "  fixed-seq-len:\n"
	                       "  - isl: 1024\n"
	                       "    osl: 1024\n"
	                       "    search-space:\n"
	                       "    - {conc-list: [1], kv-p2p-transfer: nixl, prefill: " PF
	                       ", decode: " DF "}\n"
	                       "    - {conc-list: [2], prefill: " PF ", decode: " DF "}\n",
	               "disagg", "kv-p2p-transfer");
	/* no search-space entries at all */
	expect_problem("k",
	               MN_HEAD "disagg: true\n"
	                       "scenarios:\n"
	                       "  fixed-seq-len:\n"
	                       "  - {isl: 1024, osl: 1024, search-space: []}\n",
	               "disagg", "kv-p2p-transfer");
	/* agentic entries count */
	expect_problem("k",
	               AG_MN_HEAD "disagg: true\n" AGENTIC("{conc-list: [1], kv-offloading: none,"
	                                                   " prefill: " PF ", decode: " DF "}"),
	               "disagg", "kv-p2p-transfer");
	/* aggregated multinode needs nothing */
	expect_valid("k", MN_HEAD FIXED("{conc-list: [1], prefill: " PF ", decode: " DF "}"));
}

/* ---- all problems are reported ---- */

Test(config, three_problems_three_diags)
{
	bool ok = validate("k3", "image: 5\n"
	                         "model: org/m\n"
	                         "model-prefix: m\n"
	                         "precision: fp8\n"
	                         "framework: sglang\n"
	                         "runner: h100\n"
	                         "multinode: false\n"
	                         "scenarios:\n"
	                         "  fixed-seq-len:\n"
	                         "  - isl: 1024\n"
	                         "    osl: 1024\n"
	                         "    search-space:\n"
	                         "    - {tp: 8, conc-list: [1], offloading: x}\n"
	                         "  - isl: 8192\n"
	                         "    osl: 1024\n"
	                         "    search-space:\n"
	                         "    - {tp: 8, pp: \"2\", conc-list: [1]}\n");
	cr_assert_not(ok);
	cr_assert_eq(D.n, 3, "want 3 problems, got:\n%s", diags_text());
	static const char *const fields[] = {"image", SS0 ".offloading",
	                                     "scenarios.fixed-seq-len[1].search-space[0].pp"};
	static const int lines[] = {1, 13, 17};
	for (size_t k = 0; k < 3; k++) {
		bool found = false;
		for (size_t i = 0; i < D.n && !found; i++) {
			if (!D.items[i].field || strcmp(D.items[i].field, fields[k]))
				continue;
			found = true;
			cr_assert_eq(D.items[i].line, lines[k], "%s", fields[k]);
			cr_assert_str_eq(D.items[i].subject, "k3");
		}
		cr_assert(found, "no problem at %s:\n%s", fields[k], diags_text());
	}
}

Test(config, entry_not_a_mapping)
{
	D.n = 0;
	cr_assert_not(cfg_validate_entry("k", yaml("k: [1, 2]\n")->map.kv[0].val, &D));
	cr_assert_eq(D.n, 1);
	cr_assert_str_eq(D.items[0].subject, "k");
	cr_assert_gt(D.items[0].line, 0);
}

/* The problem line: position, entry, field path, message and the value got,
 * and the parts left out when absent (an empty key is still named). */
Test(config, diag_format)
{
	cr_assert_not(
	    cfg_validate_runners(yaml_named("r.yaml", "labels:\n  h100: 5\n"), &D, "r.yaml"));
	const char *missing[] = {"no-such-dir/nope.yaml"};
	ib_val *merged = NULL;
	cr_assert_eq(cfg_load_master(A, missing, 1, &merged, &D), IB_EINVAL);
	cr_assert_not(cfg_validate_entry("", yaml("[1]\n"), &D));
	cr_assert_eq(D.n, 3, "%s", diags_text());
	ib_buf b = {0};
	ib_diag_format(&D.items[0], &b);
	cr_assert_str_eq(b.data,
	                 "r.yaml:2:9: entry 'h100': field 'labels.h100': must be a list, got "
	                 "int (got 5)");
	b.len = 0;
	ib_diag_format(&D.items[1], &b);
	cr_assert_str_eq(b.data, "no-such-dir/nope.yaml: input file does not exist");
	cr_assert_null(D.items[1].field, "no field");
	cr_assert_null(D.items[1].subject, "no entry");
	b.len = 0;
	ib_diag_format(&D.items[2], &b);
	cr_assert_str_eq(b.data,
	                 "entry.yaml:1:1: entry '': a master config entry must be a mapping "
	                 "(got [1])");
	ib_buf_free(&b);
	cr_assert_eq(ib_diags_count(&D, IB_SEV_ERROR), 3, "config problems are errors");
}

/* ---- lax coercions ---- */

Test(config, lax_int)
{
	int64_t i = -1;
	cr_assert(cfg_lax_int(ib_v_int(A, 8), &i));
	cr_assert_eq(i, 8);
	cr_assert(cfg_lax_int(ib_v_str(A, "8"), &i));
	cr_assert_eq(i, 8);
	cr_assert(cfg_lax_int(ib_v_str(A, "-12"), &i));
	cr_assert_eq(i, -12);
	cr_assert(cfg_lax_int(ib_v_float(A, 8.0), &i));
	cr_assert_eq(i, 8);
	cr_assert(cfg_lax_int(ib_v_bool(A, true), &i));
	cr_assert_eq(i, 1);
	cr_assert(cfg_lax_int(ib_v_bool(A, false), &i));
	cr_assert_eq(i, 0);
	cr_assert_not(cfg_lax_int(ib_v_float(A, 8.5), &i));
	cr_assert_not(cfg_lax_int(ib_v_str(A, "abc"), &i));
	cr_assert_not(cfg_lax_int(ib_v_str(A, ""), &i));
	cr_assert_not(cfg_lax_int(ib_v_str(A, "8x"), &i));
	cr_assert_not(cfg_lax_int(ib_v_null(A), &i));
	cr_assert_not(cfg_lax_int(ib_v_list(A), &i));
	cr_assert_not(cfg_lax_int(NULL, &i));
}

Test(config, lax_bool)
{
	static const char *const t[] = {"true", "True", "TRUE", "yes", "YES", "on",
	                                "On",   "t",    "T",    "y",   "Y",   "1"};
	static const char *const f[] = {"false", "False", "no", "No", "off", "OFF",
	                                "f",     "F",     "n",  "N",  "0"};
	bool b;
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		b = false;
		cr_expect(cfg_lax_bool(ib_v_str(A, t[i]), &b), "'%s' accepted", t[i]);
		cr_expect(b, "'%s' is true", t[i]);
	}
	for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
		b = true;
		cr_expect(cfg_lax_bool(ib_v_str(A, f[i]), &b), "'%s' accepted", f[i]);
		cr_expect_not(b, "'%s' is false", f[i]);
	}
	static const char *const bad[] = {"maybe", "2", "", "yess", "tru", "none"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		cr_expect_not(cfg_lax_bool(ib_v_str(A, bad[i]), &b), "'%s' rejected", bad[i]);
	cr_assert(cfg_lax_bool(ib_v_int(A, 1), &b));
	cr_assert(b);
	cr_assert(cfg_lax_bool(ib_v_int(A, 0), &b));
	cr_assert_not(b);
	cr_assert(cfg_lax_bool(ib_v_bool(A, true), &b));
	cr_assert(b);
	cr_assert_not(cfg_lax_bool(ib_v_int(A, 2), &b));
	cr_assert_not(cfg_lax_bool(ib_v_null(A), &b));
}

Test(config, lax_float)
{
	double x = 0;
	cr_assert(cfg_lax_float(ib_v_float(A, 0.8), &x));
	cr_assert(x == 0.8);
	cr_assert(cfg_lax_float(ib_v_int(A, 1), &x));
	cr_assert(x == 1.0);
	cr_assert(cfg_lax_float(ib_v_str(A, "0.25"), &x));
	cr_assert(x == 0.25);
	cr_assert_not(cfg_lax_float(ib_v_str(A, "abc"), &x));
	cr_assert_not(cfg_lax_float(ib_v_null(A), &x));
}

/* ---- runners.yaml R1–R4 ---- */

static bool runners(const char *text)
{
	D.n = 0;
	return cfg_validate_runners(yaml_named("runners.yaml", text), &D, "runners.yaml");
}

/* The runners document is invalid and a problem has a field containing
 * `field` and a line > 0; returns it. */
static const ib_diag *runner_problem(const char *text, const char *field)
{
	cr_assert_not(runners(text), "runners should be invalid:\n%s", text);
	for (size_t i = 0; i < D.n; i++) {
		const ib_diag *g = &D.items[i];
		if (!g->field || !strstr(g->field, field))
			continue;
		cr_assert_str_eq(g->file, "runners.yaml");
		cr_assert_gt(g->line, 0, "%s", diags_text());
		return g;
	}
	cr_assert_fail("no problem at '%s':\n%s", field, diags_text());
	return NULL;
}

#define LABELS "labels:\n  h100: [h100-nv_0, h100-nv_1]\n  cluster:b300: [b300_0]\n"

Test(config, runners_valid)
{
	cr_assert(runners(LABELS "hardware:\n"
	                         "  cluster:b300:\n"
	                         "    available-cpu-dram-mib: 2_861_022\n"
	                         "    gpus-per-node: 8\n"),
	          "%s", diags_text());
	cr_assert_eq(D.n, 0);
	cr_assert(runners(LABELS), "hardware is optional: %s", diags_text());
}

Test(config, r1_labels)
{
	runner_problem("hardware: {}\n", "labels");
	runner_problem("labels: [a, b]\n", "labels");
	const ib_diag *g = runner_problem("labels:\n  h100: h100-nv_0\n", "labels.h100");
	cr_assert_str_eq(g->subject, "h100");
	cr_assert(strstr(g->msg, "str"), "%s", g->msg);
	g = runner_problem("labels:\n  ok: [a]\n  h100: []\n", "labels.h100");
	cr_assert(strstr(g->msg, "empty"), "%s", g->msg);
	cr_assert_eq(g->line, 3);
	g = runner_problem("labels:\n  h100: [a, 5]\n", "labels.h100");
	cr_assert(strstr(g->msg, "string"), "%s", g->msg);
	runner_problem("labels:\n  h100: null\n", "labels.h100");
	/* every bad label is reported */
	cr_assert_not(runners("labels:\n  a: []\n  b: x\n  c: [1]\n"));
	cr_assert_eq(D.n, 3, "%s", diags_text());
}

Test(config, r2_unknown_keys)
{
	runner_problem(LABELS "extra: 1\n", "extra");
	runner_problem(LABELS "hardware:\n  cluster:b300:\n    available-cpu-dram-mib: 1\n"
	                      "    gpus-per-node: 8\n    cpus: 64\n",
	               "hardware.cluster:b300.cpus");
}

Test(config, r3_available_dram)
{
	runner_problem(LABELS "hardware:\n  cluster:b300:\n    gpus-per-node: 8\n",
	               "hardware.cluster:b300.available-cpu-dram-mib");
	runner_problem(LABELS "hardware:\n  cluster:b300:\n    available-cpu-dram-mib: 0\n"
	                      "    gpus-per-node: 8\n",
	               "hardware.cluster:b300.available-cpu-dram-mib");
}

Test(config, r4_gpus_per_node)
{
	const ib_diag *g = runner_problem(LABELS "hardware:\n  cluster:b300:\n"
	                                         "    available-cpu-dram-mib: 1000\n"
	                                         "    gpus-per-node: 0\n",
	                                  "hardware.cluster:b300.gpus-per-node");
	cr_assert_eq(g->line, 7);
	runner_problem(LABELS "hardware:\n  cluster:b300:\n    available-cpu-dram-mib: 1000\n",
	               "hardware.cluster:b300.gpus-per-node");
	runner_problem(LABELS "hardware:\n  cluster:b300:\n    available-cpu-dram-mib: 1000\n"
	                      "    gpus-per-node: eight\n",
	               "hardware.cluster:b300.gpus-per-node");
}

/* ---- loading master files (§1.1) ---- */

typedef struct {
	char dir[64];
	char paths[8][128];
	int n;
} tmpfiles;

static const char *put_file(tmpfiles *t, const char *name, const char *text)
{
	if (!t->dir[0]) {
		snprintf(t->dir, sizeof t->dir, "/tmp/ib_cfg_XXXXXX");
		cr_assert_not_null(mkdtemp(t->dir));
	}
	cr_assert_lt(t->n, 8);
	char *p = t->paths[t->n++];
	size_t dl = strlen(t->dir);
	memcpy(p, t->dir, dl);
	snprintf(p + dl, 128 - dl, "/%s", name);
	if (text) {
		FILE *f = fopen(p, "w");
		cr_assert_not_null(f);
		fputs(text, f);
		fclose(f);
	}
	return p;
}

static void cleanup_files(tmpfiles *t)
{
	for (int i = 0; i < t->n; i++)
		unlink(t->paths[i]);
	if (t->dir[0])
		cr_assert_eq(rmdir(t->dir), 0, "temp dir not empty");
}

/* A valid SN entry under key k, as a top-level mapping item. */
#define ENTRY(k)                                                                                   \
	k ":\n"                                                                                    \
	  "  image: img\n"                                                                         \
	  "  model: m\n"                                                                           \
	  "  model-prefix: mp\n"                                                                   \
	  "  precision: fp8\n"                                                                     \
	  "  framework: vllm\n"                                                                    \
	  "  runner: h100\n"                                                                       \
	  "  multinode: false\n"                                                                   \
	  "  scenarios:\n"                                                                         \
	  "    fixed-seq-len:\n"                                                                   \
	  "    - {isl: 1024, osl: 1024, search-space: [{tp: 8, conc-list: [4]}]}\n"

/* The problem recorded for file path (the first one), or a failure. */
static const ib_diag *diag_for_file(const char *path)
{
	for (size_t i = 0; i < D.n; i++)
		if (D.items[i].file && !strcmp(D.items[i].file, path))
			return &D.items[i];
	cr_assert_fail("no problem names %s:\n%s", path, diags_text());
	return NULL;
}

Test(config, load_master_merges_in_order)
{
	tmpfiles t = {0};
	const char *p[2] = {put_file(&t, "a.yaml", ENTRY("k2") ENTRY("k1")),
	                    put_file(&t, "b.yaml", ENTRY("k0"))};
	ib_val *merged = NULL;
	cr_assert_eq(cfg_load_master(A, p, 2, &merged, &D), 0, "%s", diags_text());
	cr_assert_eq(D.n, 0);
	cr_assert_eq(merged->map.n, 3);
	cr_assert_str_eq(merged->map.kv[0].key->str.s, "k2");
	cr_assert_str_eq(merged->map.kv[1].key->str.s, "k1");
	cr_assert_str_eq(merged->map.kv[2].key->str.s, "k0");
	cr_assert_str_eq(ib_map_get(merged, "k0")->file, p[1]);
	cleanup_files(&t);
}

Test(config, load_master_missing_file)
{
	tmpfiles t = {0};
	const char *p[1] = {put_file(&t, "missing.yaml", NULL)};
	ib_val *merged = NULL;
	cr_assert_eq(cfg_load_master(A, p, 1, &merged, &D), IB_EINVAL);
	cr_assert_eq(D.n, 1, "%s", diags_text());
	const ib_diag *g = diag_for_file(p[0]);
	cr_assert(strstr(g->msg, "does not exist"), "%s", g->msg);
	cr_assert_not_null(merged);
	cr_assert_eq(merged->map.n, 0);
	cleanup_files(&t);
}

Test(config, load_master_not_a_mapping)
{
	tmpfiles t = {0};
	const char *p[2] = {put_file(&t, "list.yaml", "- a\n- b\n"),
	                    put_file(&t, "empty.yaml", "")};
	ib_val *merged = NULL;
	cr_assert_eq(cfg_load_master(A, p, 2, &merged, &D), IB_EINVAL);
	cr_assert_eq(D.n, 2, "%s", diags_text());
	const ib_diag *g = diag_for_file(p[0]);
	cr_assert(strstr(g->msg, "mapping"), "%s", g->msg);
	cr_assert_eq(g->line, 1);
	g = diag_for_file(p[1]);
	cr_assert(strstr(g->msg, "mapping"), "%s", g->msg);
	cleanup_files(&t);
}

Test(config, load_master_wildcard_key)
{
	tmpfiles t = {0};
	const char *p[1] = {put_file(&t, "w.yaml", ENTRY("ok") ENTRY("dsr1-*"))};
	ib_val *merged = NULL;
	cr_assert_eq(cfg_load_master(A, p, 1, &merged, &D), IB_EINVAL);
	cr_assert_eq(D.n, 1, "%s", diags_text());
	const ib_diag *g = diag_for_file(p[0]);
	cr_assert_str_eq(g->subject, "dsr1-*");
	cr_assert(strstr(g->msg, "*"), "%s", g->msg);
	cr_assert_eq(g->line, 12);
	cr_assert(ib_map_has(merged, "ok"));
	cr_assert_not(ib_map_has(merged, "dsr1-*"));
	cleanup_files(&t);
}

Test(config, load_master_duplicate_across_files)
{
	tmpfiles t = {0};
	const char *p[2] = {put_file(&t, "first.yaml", ENTRY("k1")),
	                    put_file(&t, "second.yaml", ENTRY("k2") ENTRY("k1"))};
	ib_val *merged = NULL;
	cr_assert_eq(cfg_load_master(A, p, 2, &merged, &D), IB_EINVAL);
	cr_assert_eq(D.n, 1, "%s", diags_text());
	const ib_diag *g = diag_for_file(p[1]);
	cr_assert_str_eq(g->subject, "k1");
	cr_assert(strstr(g->msg, p[0]), "the message names the earlier file: %s", g->msg);
	cr_assert_eq(g->line, 12);
	/* the first definition is kept */
	cr_assert_str_eq(ib_map_get(merged, "k1")->file, p[0]);
	cr_assert_eq(merged->map.n, 2);
	cleanup_files(&t);
}

Test(config, load_master_reports_every_file)
{
	tmpfiles t = {0};
	const char *p[5] = {
	    put_file(&t, "gone.yaml", NULL),
	    put_file(&t, "syntax.yaml", "a: [1, 2\n"),
	    put_file(&t, "list.yaml", "- 1\n"),
	    put_file(&t, "wild.yaml", ENTRY("x*")),
	    put_file(&t, "bad.yaml", ENTRY("good") "broken:\n  image: 5\n"),
	};
	ib_val *merged = NULL;
	cr_assert_eq(cfg_load_master(A, p, 5, &merged, &D), IB_EINVAL);
	for (int i = 0; i < 5; i++)
		diag_for_file(p[i]);
	const ib_diag *g = diag_for_file(p[1]);
	cr_assert_gt(g->line, 0, "syntax errors carry a position");
	/* the invalid entry of the last file is validated too */
	bool broken = false;
	for (size_t i = 0; i < D.n; i++)
		broken |= D.items[i].subject && !strcmp(D.items[i].subject, "broken");
	cr_assert(broken, "%s", diags_text());
	cr_assert(ib_map_has(merged, "good"));
	cleanup_files(&t);
}

Test(config, load_master_non_string_key)
{
	tmpfiles t = {0};
	const char *p[1] = {put_file(&t, "n.yaml", ENTRY("ok") "123:\n  image: x\n")};
	ib_val *merged = NULL;
	cr_assert_eq(cfg_load_master(A, p, 1, &merged, &D), IB_EINVAL);
	cr_assert_eq(D.n, 1, "%s", diags_text());
	const ib_diag *g = diag_for_file(p[0]);
	cr_assert(strstr(g->msg, "string"), "%s", g->msg);
	cr_assert_eq(g->line, 12);
	cr_assert_eq(merged->map.n, 1);
	cleanup_files(&t);
}

Test(config, load_master_validates_all_entries)
{
	tmpfiles t = {0};
	const char *p[1] = {
	    put_file(&t, "m.yaml", "one:\n  image: 1\n" ENTRY("fine") "two:\n  model: 2\n")};
	ib_val *merged = NULL;
	cr_assert_eq(cfg_load_master(A, p, 1, &merged, &D), IB_EINVAL);
	bool one = false, two = false, fine = false;
	for (size_t i = 0; i < D.n; i++) {
		const char *e = D.items[i].subject;
		one |= e && !strcmp(e, "one");
		two |= e && !strcmp(e, "two");
		fine |= e && !strcmp(e, "fine");
	}
	cr_assert(one && two, "%s", diags_text());
	cr_assert_not(fine, "%s", diags_text());
	cleanup_files(&t);
}

Test(config, load_runners_file)
{
	tmpfiles t = {0};
	const char *good = put_file(&t, "runners.yaml", LABELS);
	const char *flat = put_file(&t, "flat.yaml", "h100: [a, b]\n");
	const char *gone = put_file(&t, "gone.yaml", NULL);
	ib_val *r = NULL;
	cr_assert_eq(cfg_load_runners(A, good, &r, &D), 0, "%s", diags_text());
	cr_assert(ib_map_has(ib_map_get(r, "labels"), "cluster:b300"));
	cr_assert_eq(cfg_load_runners(A, flat, &r, &D), IB_EINVAL);
	diag_for_file(flat);
	cr_assert_eq(cfg_load_runners(A, gone, &r, &D), IB_EINVAL);
	diag_for_file(gone);
	cleanup_files(&t);
}
