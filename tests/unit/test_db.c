/* Unit tests of src/results: compare (the baseline key, SQL LIKE, the table
 * and its deltas, noise flagging) and the results database on SQLite
 * (migration, ingest idempotence and atomicity, latest, baseline lookup,
 * import). */
#include "results/results.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[256];

static void put(const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	cr_assert(f, "cannot create %s", p);
	fputs(text, f);
	fclose(f);
}

static char *path(const char *rel)
{
	static char p[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof p[k], "%s/%s", root, rel);
	return p[k];
}

static void setup(void)
{
	snprintf(root, sizeof root, "/tmp/ib_test_db_XXXXXX");
	cr_assert(mkdtemp(root));
}

static void teardown(void)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

/* one single-node agg row */
static const char *row(const char *hw, int conc, double tput, double ttft)
{
	static char b[4][1024];
	static int k;
	k = (k + 1) % 4;
	snprintf(
	    b[k], sizeof b[k],
	    "{\"hw\": \"%s\", \"conc\": %d, \"model\": \"openai/gpt-oss-120b\","
	    " \"infmax_model_prefix\": \"gptoss\", \"framework\": \"vllm\", \"precision\": \"fp4\","
	    " \"spec_decoding\": \"none\", \"disagg\": false, \"isl\": 1024, \"osl\": 1024,"
	    " \"is_multinode\": false, \"tp\": 8, \"ep\": 1, \"dp_attention\": \"false\","
	    " \"tput_per_gpu\": %.17g, \"median_ttft\": %.17g, \"median_intvty\": 50.0}",
	    hw, conc, tput, ttft);
	return b[k];
}

Test(compare, sql_like)
{
	cr_assert(res_sql_like("gptoss120b", 10, "gptoss%", 7));
	cr_assert(res_sql_like("gptoss", 6, "gptoss%", 7));
	cr_assert(!res_sql_like("xgptoss", 7, "gptoss%", 7));
	cr_assert(!res_sql_like("GPTOSS", 6, "gptoss%", 7), "LIKE is case-sensitive here");
	cr_assert(res_sql_like("gpt-oss", 7, "gpt_oss%", 8), "_ is any one character");
	cr_assert(res_sql_like("a\xc3\xa9"
	                       "b",
	                       4, "a_b%", 4),
	          "_ is one code point");
	cr_assert(res_sql_like("abxcd", 5, "ab%cd%", 6));
	cr_assert(!res_sql_like("abxc", 4, "ab%cd%", 6));
}

Test(compare, config_key)
{
	ib_arena *a = ib_arena_new();
	ib_val *v;
	ib_error e = {0};
	const char *t = "{\"hw\": \"MI355X-Disagg\", \"infmax_model_prefix\": \"DSR1\","
	                " \"framework\": \"SGLang\", \"precision\": \"FP8\", \"disagg\": \"TRUE\","
	                " \"is_multinode\": \"false\", \"prefill_tp\": \"4\", \"prefill_ep\": 4.9,"
	                " \"prefill_dp_attention\": true, \"decode_tp\": 8, \"decode_ep\": 8,"
	                " \"decode_dp_attention\": \"no\", \"isl\": 1024, \"osl\": \" 1_024 \","
	                " \"conc\": 64.7}";
	cr_assert_eq(ib_json_parse(a, "t", t, strlen(t), &v, &e), 0);
	res_cfg_key k;
	cr_assert_eq(res_cfg_key_of(a, v, &k, &e), 0, "%s", e.msg);
	cr_assert_str_eq(k.hardware, "mi355x-disagg", "the suffix is matched case-sensitively");
	cr_assert_str_eq(k.model, "dsr1");
	cr_assert_str_eq(k.framework, "sglang");
	cr_assert_str_eq(k.spec_method, "none");
	cr_assert(k.disagg);
	cr_assert(k.is_multinode, "a non-empty string is truthy");
	cr_assert_eq(k.prefill_tp, 4);
	cr_assert_eq(k.prefill_ep, 4, "int(4.9) truncates");
	cr_assert(k.prefill_dp_attention && !k.decode_dp_attention);
	cr_assert_eq(k.osl, 1024);
	cr_assert_eq(k.conc, 64);
	const char *t2 = "{\"hw\": \"h100\", \"infmax_model_prefix\": \"x\", \"framework\": \"v\","
	                 " \"precision\": \"p\", \"ep\": 1, \"dp_attention\": false}";
	cr_assert_eq(ib_json_parse(a, "t", t2, strlen(t2), &v, &e), 0);
	cr_assert_eq(res_cfg_key_of(a, v, &k, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "'tp'"), "%s", e.msg);
	ib_arena_free(a);
}

static int compare_dir(const char *base_json, double noise_k, ib_buf *out, ib_error *e)
{
	ib_arena *a = ib_arena_new();
	ib_val *rows;
	cr_assert_eq(ib_json_parse(a, "b", base_json, strlen(base_json), &rows, e), 0);
	res_rows_baseline rb = {.rows = rows};
	res_compare_opts o = {
	    .results_dir = path("res"), .lookup = res_rows_lookup, .ctx = &rb, .noise_k = noise_k};
	int rc = res_compare(&o, out, NULL, e);
	ib_arena_free(a);
	return rc;
}

Test(compare, deltas_and_baselines, .init = setup, .fini = teardown)
{
	cr_assert_eq(mkdir(path("res"), 0755), 0);
	char text[4096];
	snprintf(text, sizeof text, "[%s, %s, %s]", row("h100", 8, 110.0, 0.5),
	         row("h100-trt", 16, 90.0, 0.5), row("b200", 4, 1.0, 0.5));
	put("res/agg_bmk.json", text);
	char base[4096];
	/* h100 conc 8: two baselines, the last one (100, 0.4) counts; conc 16: 100 */
	snprintf(base, sizeof base, "[%s, %s, %s]", row("h100", 8, 50.0, 1.0),
	         row("h100", 8, 100.0, 0.4), row("h100", 16, 100.0, 0.5));
	ib_buf out = {0};
	ib_error e = {0};
	cr_assert_eq(compare_dir(base, 0, &out, &e), 0, "%s", e.msg);
	const char *s = out.data;
	cr_assert(strstr(s, "## Single-Node Comparison vs. Most Recent\n\n| Model "), "%s", s);
	cr_assert(!strstr(s, "Multi-Node"));
	cr_assert(strstr(s, "$\\color{green}\\text{+10.00}$ (+10.0%)"), "%s", s);
	cr_assert(strstr(s, "$\\color{red}\\text{+100.0000}$ (+25.0%)"), "TTFT in ms: %s", s);
	cr_assert(strstr(s, "$\\color{red}\\text{-10.00}$ (-10.0%)"), "%s", s);
	cr_assert(strstr(s, "+0.0000 (+0.0%)"), "no change is uncoloured: %s", s);
	/* b200 has no baseline: its deltas are N/A; rows sorted by hardware */
	cr_assert(strstr(s, "| B200 ") < strstr(s, "| H100 "), "%s", s);
	ib_buf_free(&out);
}

Test(compare, noise_flagging, .init = setup, .fini = teardown)
{
	cr_assert_eq(mkdir(path("res"), 0755), 0);
	put("res/a.json", row("h100", 8, 103.0, 0.5));
	char base[4096];
	/* earlier runs 100, 104, 96 (mean 100, sd 4): 103 is inside 100 +- 2*4 */
	snprintf(base, sizeof base, "[%s, %s, %s]", row("h100", 8, 100.0, 0.5),
	         row("h100", 8, 104.0, 0.5), row("h100", 8, 96.0, 0.5));
	ib_buf out = {0};
	ib_error e = {0};
	cr_assert_eq(compare_dir(base, 2.0, &out, &e), 0, "%s", e.msg);
	cr_assert(strstr(out.data, "| +7.00 (+7.3%) "), "%s", out.data);
	cr_assert(!strstr(out.data, "color"), "within the noise: %s", out.data);
	out.len = 0;
	/* without --noise-k the same delta is green */
	cr_assert_eq(compare_dir(base, 0, &out, &e), 0, "%s", e.msg);
	cr_assert(strstr(out.data, "$\\color{green}\\text{+7.00}$ (+7.3%)"), "%s", out.data);
	out.len = 0;
	/* far outside: 130 */
	put("res/a.json", row("h100", 8, 130.0, 0.5));
	cr_assert_eq(compare_dir(base, 2.0, &out, &e), 0, "%s", e.msg);
	cr_assert(strstr(out.data, "$\\color{green}\\text{+34.00}$"), "%s", out.data);
	out.len = 0;
	/* two earlier runs only: never coloured */
	snprintf(base, sizeof base, "[%s, %s]", row("h100", 8, 100.0, 0.5),
	         row("h100", 8, 96.0, 0.5));
	cr_assert_eq(compare_dir(base, 2.0, &out, &e), 0, "%s", e.msg);
	cr_assert(!strstr(out.data, "color"), "%s", out.data);
	ib_buf_free(&out);
}

Test(compare, bad_rows, .init = setup, .fini = teardown)
{
	cr_assert_eq(mkdir(path("res"), 0755), 0);
	put("res/a.json", "[{\"scenario_type\": \"agentic-coding\"}]");
	ib_buf out = {0};
	ib_error e = {0};
	cr_assert_eq(compare_dir("[]", 0, &out, &e), 0);
	cr_assert_str_eq(out.data, "No benchmark results found to compare.\n");
	put("res/a.json", "[{\"hw\": \"h100\"}]");
	out.len = 0;
	cr_assert_eq(compare_dir("[]", 0, &out, &e), IB_EINVAL);
	cr_assert(strstr(e.file, "res/a.json"), "%s", e.file);
	cr_assert(strstr(e.msg, "row 1: missing key 'infmax_model_prefix'"), "%s", e.msg);
	put("res/a.json", "[1]");
	cr_assert_eq(compare_dir("[]", 0, &out, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "not a JSON object"), "%s", e.msg);
	put("res/a.json", "[{\"hw\": ");
	cr_assert_eq(compare_dir("[]", 0, &out, &e), IB_EPARSE);
	ib_buf_free(&out);
}

/* ---- the database on SQLite ---- */

static double num(const ib_val *v)
{
	cr_assert(v && (v->type == IB_V_INT || v->type == IB_V_FLOAT));
	return v->type == IB_V_INT ? (double)v->i : v->f;
}

static size_t count(res_db *db, bool latest)
{
	ib_arena *a = ib_arena_new();
	ib_val *rows;
	ib_error e = {0};
	res_db_filter f = {.latest = latest};
	cr_assert_eq(res_db_query(db, &f, a, &rows, &e), 0, "%s", e.msg);
	size_t n = rows->list.n;
	ib_arena_free(a);
	return n;
}

Test(db, ingest_latest_lookup, .init = setup, .fini = teardown)
{
	res_db *db;
	ib_error e = {0};
	cr_assert_eq(res_db_open(path("r.db"), false, &db, &e), IB_ENOENT);
	cr_assert_eq(res_db_open(path("r.db"), true, &db, &e), 0, "%s", e.msg);
	int v = 0;
	cr_assert_eq(res_db_schema_version(db, &v, &e), 0);
	cr_assert_eq(v, 4); /* schema 4: sim_interval */
	char t[4096];
	snprintf(t, sizeof t, "[%s, %s]", row("h100", 8, 100.0, 0.5), row("h100", 16, 80.0, 0.5));
	put("old.json", t);
	snprintf(t, sizeof t, "[%s]", row("h100", 8, 120.0, 0.5));
	put("new.json", t);
	const char *f1[] = {path("old.json")}, *f2[] = {path("new.json")};
	res_run_meta m1 = {.run_id = "1", .date = "2026-01-01", .branch = "main"};
	res_run_meta m2 = {.run_id = "2", .date = "2026-01-02", .branch = "feature"};
	res_ingest_stats st;
	cr_assert_eq(res_db_ingest(db, &m1, f1, 1, &st, &e), 0, "%s", e.msg);
	cr_assert_eq(st.inserted, 2);
	cr_assert_eq(res_db_ingest(db, &m1, f1, 1, &st, &e), 0, "%s", e.msg);
	cr_assert_eq(st.inserted, 0, "idempotent");
	cr_assert_eq(st.existing, 2);
	cr_assert_eq(res_db_ingest(db, &m2, f2, 1, &st, &e), 0, "%s", e.msg);
	cr_assert_eq(count(db, false), 3);
	cr_assert_eq(count(db, true), 2, "latest: one row per (config, conc, isl, osl)");
	/* latest holds the newest (feature-branch) row; compare's baseline is main's */
	ib_arena *a = ib_arena_new();
	ib_val *rows;
	res_db_filter f = {.latest = true, .conc = 8};
	cr_assert_eq(res_db_query(db, &f, a, &rows, &e), 0);
	cr_assert_eq(rows->list.n, 1);
	cr_assert_str_eq(ib_map_get(rows->list.v[0], "run_id")->str.s, "2");
	res_cfg_key k;
	ib_val *r8;
	const char *one = row("h100-trt", 8, 1.0, 1.0);
	cr_assert_eq(ib_json_parse(a, "r", one, strlen(one), &r8, &e), 0);
	cr_assert_eq(res_cfg_key_of(a, r8, &k, &e), 0);
	res_db_baseline b = {.db = db};
	ib_val **base;
	size_t n;
	cr_assert_eq(res_db_lookup(&b, &k, a, 4, &base, &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 1);
	cr_assert_eq(num(ib_map_get(base[0], "tput_per_gpu")), 100.0);
	b.branch = "feature";
	cr_assert_eq(res_db_lookup(&b, &k, a, 4, &base, &n, &e), 0);
	cr_assert_eq(n, 1);
	cr_assert_eq(num(ib_map_get(base[0], "tput_per_gpu")), 120.0);
	ib_arena_free(a);
	res_db_close(db);
}

Test(db, bad_input_writes_nothing, .init = setup, .fini = teardown)
{
	res_db *db;
	ib_error e = {0};
	cr_assert_eq(res_db_open(path("r.db"), true, &db, &e), 0, "%s", e.msg);
	char t[4096];
	snprintf(t, sizeof t,
	         "[%s, {\"hw\": \"h100\", \"infmax_model_prefix\": \"m\","
	         " \"framework\": \"f\", \"precision\": \"p\", \"tp\": true,"
	         " \"isl\": 1, \"osl\": 1, \"conc\": 1}]",
	         row("h100", 8, 100.0, 0.5));
	put("bad.json", t);
	const char *f[] = {path("bad.json")};
	res_ingest_stats st;
	cr_assert_eq(res_db_ingest(db, NULL, f, 1, &st, &e), IB_EINVAL);
	cr_assert(strstr(e.file, "bad.json"), "%s", e.file);
	cr_assert(strstr(e.msg, "row 2: field 'tp'"), "%s", e.msg);
	cr_assert_eq(count(db, false), 0, "nothing of the file is stored");
	res_db_close(db);
}

Test(db, import_dashboard_rows, .init = setup, .fini = teardown)
{
	put("b.json",
	    "[{\"hardware\": \"h100\", \"framework\": \"vllm\", \"model\": \"gptoss120b\","
	    " \"precision\": \"fp4\", \"spec_method\": \"none\", \"disagg\": false,"
	    " \"is_multinode\": false, \"prefill_tp\": 8, \"prefill_ep\": 1,"
	    " \"prefill_dp_attention\": false, \"decode_tp\": 8, \"decode_ep\": 1.0,"
	    " \"decode_dp_attention\": false, \"isl\": 1024, \"osl\": 1024, \"conc\": 8,"
	    " \"head_branch\": \"main\", \"error\": null, \"date\": \"2026-01-01\","
	    " \"metrics\": {\"tput_per_gpu\": 7.5}},"
	    " {\"hardware\": \"h100\", \"disagg\": 0}]");
	res_db *db;
	ib_error e = {0};
	cr_assert_eq(res_db_open(path("r.db"), true, &db, &e), 0, "%s", e.msg);
	res_ingest_stats st;
	size_t skipped;
	cr_assert_eq(res_db_import(db, path("b.json"), &st, &skipped, &e), 0, "%s", e.msg);
	cr_assert_eq(st.inserted, 1);
	cr_assert_eq(skipped, 1);
	cr_assert_eq(res_db_import(db, path("b.json"), &st, &skipped, &e), 0, "%s", e.msg);
	cr_assert_eq(st.inserted, 0, "importing twice changes nothing");
	ib_arena *a = ib_arena_new();
	res_cfg_key k = {.hardware = "h100",
	                 .framework = "vllm",
	                 .model = "gptoss",
	                 .precision = "fp4",
	                 .spec_method = "none",
	                 .prefill_tp = 8,
	                 .prefill_ep = 1,
	                 .decode_tp = 8,
	                 .decode_ep = 1,
	                 .isl = 1024,
	                 .osl = 1024,
	                 .conc = 8};
	res_db_baseline b = {.db = db};
	ib_val **base;
	size_t n;
	cr_assert_eq(res_db_lookup(&b, &k, a, 1, &base, &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 1, "model LIKE 'gptoss%%'");
	k.model = "gptoss1200";
	cr_assert_eq(res_db_lookup(&b, &k, a, 1, &base, &n, &e), 0);
	cr_assert_eq(n, 0);
	ib_arena_free(a);
	res_db_close(db);
}

Test(db, eval_rows, .init = setup, .fini = teardown)
{
	put("agg_eval_all.json",
	    "[{\"is_multinode\": false, \"model_prefix\": \"dsr1\", \"model\": \"x/DeepSeek\","
	    " \"hw\": \"H200\", \"framework\": \"sglang\", \"precision\": \"fp8\","
	    " \"spec_decoding\": \"none\", \"isl\": 8192, \"osl\": 1024, \"tp\": 8, \"ep\": 1,"
	    " \"prefill_tp\": 8, \"prefill_ep\": 1, \"prefill_num_workers\": 1, \"decode_tp\": 8,"
	    " \"decode_ep\": 1, \"decode_num_workers\": 1, \"conc\": 64, \"dp_attention\": "
	    "\"false\","
	    " \"task\": \"gsm8k\", \"em_strict\": 0.953, \"n_eff\": 1319, \"score\": 0.953,"
	    " \"score_name\": \"em_strict\"}]");
	res_db *db;
	ib_error e = {0};
	cr_assert_eq(res_db_open(path("r.db"), true, &db, &e), 0, "%s", e.msg);
	const char *f[] = {path("agg_eval_all.json")};
	res_run_meta m = {.run_id = "7", .date = "2026-03-01"};
	res_ingest_stats st;
	cr_assert_eq(res_db_ingest(db, &m, f, 1, &st, &e), 0, "%s", e.msg);
	cr_assert_eq(st.evals, 1);
	cr_assert_eq(st.evals_inserted, 1);
	cr_assert_eq(st.rows, 0);
	cr_assert_eq(res_db_ingest(db, &m, f, 1, &st, &e), 0, "%s", e.msg);
	cr_assert_eq(st.evals_inserted, 0, "idempotent");
	ib_arena *a = ib_arena_new();
	ib_val *rows;
	res_db_filter q = {.evals = true, .hardware = "h200"};
	cr_assert_eq(res_db_query(db, &q, a, &rows, &e), 0, "%s", e.msg);
	cr_assert_eq(rows->list.n, 1);
	const ib_val *r = rows->list.v[0];
	cr_assert_str_eq(ib_map_get(r, "task")->str.s, "gsm8k");
	cr_assert_str_eq(ib_map_get(r, "model")->str.s, "dsr1");
	cr_assert_eq(ib_map_get(r, "prefill_num_workers")->i, 1);
	const ib_val *met = ib_map_get(r, "metrics");
	cr_assert_eq(num(ib_map_get(met, "em_strict")), 0.953);
	cr_assert_null(ib_map_get(met, "score_name"), "strings are not metrics");
	cr_assert_null(ib_map_get(r, "image"));
	cr_assert_eq(count(db, false), 0, "no benchmark rows");
	ib_arena_free(a);
	res_db_close(db);
}

/* issue 33, defect 3: no password in a PostgreSQL error, whatever the URL's
 * shape (libpq quotes malformed URLs, and a bad %-escape's whole value) */
Test(db, postgres_errors_never_print_the_password)
{
	const char *urls[] = {
	    "postgresql://user:s3cr3tPW@[::1/db",            /* unclosed '[' */
	    "postgresql://user:s3cr3tPW%zz@localhost/db",    /* bad %-escape in the password */
	    "postgresql://user:s3cr3t%50W@host:notaport/db", /* %-encoded: libpq prints it decoded
	                                                      */
	    "postgres://user:s3cr3t@PW@[bad/db",             /* a raw '@' inside the password */
	    "postgresql:///db?user=u&password=s3cr3tPW&host=[x", /* as a query parameter */
	    "postgresql://user:s3cr3tPW@/db?port=%zz",
	};
	for (size_t i = 0; i < sizeof urls / sizeof *urls; i++) {
		res_db *db = NULL;
		ib_error e = {0};
		int rc = res_db_open(urls[i], false, &db, &e);
		cr_assert(rc < 0, "%s opened", urls[i]);
		cr_expect(!strstr(e.msg, "s3cr3t"), "%s: the error prints the password: %s",
		          urls[i], e.msg);
		cr_expect(!strstr(e.msg, "PW"), "%s: the error prints part of the password: %s",
		          urls[i], e.msg);
	}
	char *s = res_db_redact("postgres://u:p%40ss@h/db", "u:p%40ss@h and p@ss");
	cr_assert(s);
	cr_expect_str_eq(s, "u:***@h and ***");
	free(s);
}

/* ---- agentic rows (AgentX agg rows of `agentic process`) ---- */

/* the golden expected row of an agentic case (tests/golden/agentic) */
static ib_val *golden_agentic(ib_arena *a, const char *prefix)
{
	char cmd[512], file[512] = "";
	snprintf(cmd, sizeof cmd, "ls tests/golden/agentic/cases/%s*/expected/*.json", prefix);
	FILE *p = popen(cmd, "r");
	cr_assert(p);
	cr_assert(fgets(file, sizeof file, p), "no golden case %s", prefix);
	pclose(p);
	file[strcspn(file, "\n")] = 0;
	ib_val *v = NULL;
	ib_error e = {0};
	cr_assert_eq(ib_json_parse_file(a, file, &v, &e), 0, "%s", e.msg);
	return v;
}

static double flat(const ib_val *m, const char *k)
{
	const ib_val *v = ib_map_get(m, k);
	cr_assert(v, "no %s", k);
	return num(v);
}

Test(db, agentic_row_mapping)
{
	ib_arena *a = ib_arena_new();
	ib_val *row = golden_agentic(a, "par-001"), *m = ib_v_map(a);
	cr_assert(res_agentic_row(row));
	cr_assert_eq(res_agentic_valid(row), -1, "no gate outcome in the row");
	cr_assert_eq(res_agentic_flat(a, row, m), 0);
	/* the dashboard's flat names: per-GPU throughput, p50 as median_* */
	cr_assert_float_eq(flat(m, "tput_per_gpu"), 3010.08209, 1e-9);
	cr_assert_float_eq(flat(m, "output_tput_per_gpu"), 78.8237, 1e-9);
	cr_assert_float_eq(flat(m, "median_ttft"), 0.58278, 1e-9);
	cr_assert_float_eq(flat(m, "p95_e2el"), 33.35675, 1e-9);
	cr_assert_float_eq(flat(m, "p90_e2e_norm_intvty"), 41.96195, 1e-9);
	cr_assert_float_eq(flat(m, "std_intvty"), 17.64719, 1e-9, "std is not inverted");
	/* slow-tail interactivity: 1 / the ITL percentile, not the row's value */
	cr_assert_float_eq(flat(m, "p90_intvty"), 1 / 0.02206, 1e-9);
	cr_assert_float_eq(flat(m, "median_intvty"), 1 / 0.01631, 1e-9);
	cr_assert_float_eq(flat(m, "mean_qps"), 0.63889, 1e-9);
	cr_assert_float_eq(flat(m, "p90_input_tokens"), 46419.8, 1e-9);
	/* cache hit rates */
	cr_assert_float_eq(flat(m, "theoretical_cache_hit_rate"), 0.78411, 1e-9);
	cr_assert_float_eq(flat(m, "server_gpu_cache_hit_rate"), 0.74546, 1e-9);
	cr_assert_float_eq(flat(m, "server_overall_cache_hit_rate"), 0.74546, 1e-9);
	cr_assert_null(ib_map_get(m, "server_cpu_cache_hit_rate"), "null rates are absent");
	cr_assert_null(ib_map_get(m, "median_full_response_itl"));
	cr_assert_float_eq(flat(m, "total_prompt_tokens"), 4812345, 0);
	/* no ITL: no interactivity at all (the dashboard deletes it) */
	ib_val *m2 = ib_v_map(a), *rm = ib_map_get(row, "request_metrics");
	ib_map_del(ib_map_get(rm, "latency"), "itl");
	cr_assert_eq(res_agentic_flat(a, row, m2), 0);
	cr_assert_null(ib_map_get(m2, "p90_intvty"));
	cr_assert(ib_map_get(m2, "p90_ttft"));
	/* the gate outcome, and what is not agentic */
	ib_val *g = ib_v_map(a);
	ib_map_set(a, g, "passed", ib_v_bool(a, false));
	ib_map_set(a, row, "validation", g);
	cr_assert_eq(res_agentic_valid(row), 0);
	ib_map_set(a, row, "scenario_type", ib_v_str(a, "fixed-seq-len"));
	cr_assert_not(res_agentic_row(row));
	cr_assert_eq(res_agentic_flat(a, ib_v_str(a, "x"), m2), IB_EINVAL);
	ib_arena_free(a);
}

static void put_json(const char *rel, const ib_val *v)
{
	ib_buf b = {0};
	ib_error e = {0};
	cr_assert_eq(ib_json_write(&b, v, &IB_JSON_PYTHON, &e), 0);
	cr_assert_eq(ib_buf_putc(&b, 0), 0);
	put(rel, b.data);
	ib_buf_free(&b);
}

Test(db, agentic_ingest_query_latest, .init = setup, .fini = teardown)
{
	ib_arena *a = ib_arena_new();
	ib_val *r1 = golden_agentic(a, "par-001"), *r2 = ib_map_copy(a, r1);
	ib_val *r3 = ib_map_copy(a, r1), *r4 = ib_map_copy(a, r1), *l = ib_v_list(a);
	ib_map_set(a, r2, "conc", ib_v_int(a, 32));
	ib_map_set(a, r3, "kv_offloading", ib_v_str(a, "DRAM")); /* its own identity */
	ib_val *g = ib_v_map(a);
	ib_map_set(a, g, "passed", ib_v_bool(a, false));
	ib_map_set(a, r4, "validation", g);
	ib_map_set(a, r4, "conc", ib_v_int(a, 64));
	ib_list_push(a, l, r1);
	ib_list_push(a, l, r2);
	ib_list_push(a, l, r3);
	ib_list_push(a, l, r4);
	char t[4096];
	snprintf(t, sizeof t, "[%s]", row("h100", 8, 100.0, 0.5)); /* and a fixed-length row */
	put("fixed.json", t);
	put_json("agentic.json", l);
	res_db *db;
	ib_error e = {0};
	cr_assert_eq(res_db_open(path("r.db"), true, &db, &e), 0, "%s", e.msg);
	const char *f[] = {path("fixed.json"), path("agentic.json")};
	res_run_meta m = {.run_id = "1", .date = "2026-12-01", .branch = "main"};
	res_ingest_stats st;
	cr_assert_eq(res_db_ingest(db, &m, f, 2, &st, &e), 0, "%s", e.msg);
	cr_assert_eq(st.rows, 1);
	cr_assert_eq(st.agentic, 4);
	cr_assert_eq(st.agentic_inserted, 4);
	cr_assert_eq(res_db_ingest(db, &m, f, 2, &st, &e), 0, "%s", e.msg);
	cr_assert_eq(st.agentic_inserted, 0, "idempotent");
	/* the fixed-length views hold the fixed-length row only */
	cr_assert_eq(count(db, false), 1);
	cr_assert_eq(count(db, true), 1);
	ib_val *rows;
	res_db_filter q = {.agentic = true};
	cr_assert_eq(res_db_query(db, &q, a, &rows, &e), 0, "%s", e.msg);
	cr_assert_eq(rows->list.n, 4);
	const ib_val *x = rows->list.v[0];
	cr_assert_str_eq(ib_map_get(x, "benchmark_type")->str.s, "agentic-coding");
	cr_assert_eq(ib_map_get(x, "isl")->type, IB_V_NULL);
	cr_assert_str_eq(ib_map_get(x, "hardware")->str.s, "h200");
	cr_assert_str_eq(ib_map_get(x, "model")->str.s, "dsr1");
	cr_assert_eq(ib_map_get(x, "decode_tp")->i, 8);
	cr_assert_float_eq(flat(ib_map_get(x, "metrics"), "p90_e2e_norm_intvty"), 41.96195, 1e-9);
	cr_assert_float_eq(flat(ib_map_get(x, "metrics"), "kv_cache_pool_tokens"), 4875264, 0);
	/* sorted by offload mode before concurrency: dram, then none 16, 32, 64 */
	cr_assert_str_eq(ib_map_get(x, "kv_offloading")->str.s, "dram");
	cr_assert_null(ib_map_get(x, "valid"), "no gate outcome: no valid key");
	cr_assert_eq(ib_map_get(rows->list.v[3], "valid")->b, false);
	/* the latest view leaves out the row that failed the gate */
	q.latest = true;
	cr_assert_eq(res_db_query(db, &q, a, &rows, &e), 0, "%s", e.msg);
	cr_assert_eq(rows->list.n, 3);
	q = (res_db_filter){.scenario = "agentic-coding", .conc = 32};
	cr_assert_eq(res_db_query(db, &q, a, &rows, &e), 0, "%s", e.msg);
	cr_assert_eq(rows->list.n, 1);
	q.scenario = "other";
	cr_assert_eq(res_db_query(db, &q, a, &rows, &e), 0, "%s", e.msg);
	cr_assert_eq(rows->list.n, 0);
	res_db_close(db);
	ib_arena_free(a);
}
