/* Unit tests of the report command's row loading and page data
 * (src/report/html*.c): mapBenchmarkRow's rules, folders, the page data. */
#include "report/html.h"
#include "report/html_int.h"

#include <criterion/criterion.h>
#include <math.h>
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

static void setup(void)
{
	snprintf(root, sizeof root, "/tmp/ib-report-html-XXXXXX");
	cr_assert(mkdtemp(root));
}

static void teardown(void)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

#define ROW(hw, conc, extra)                                                                       \
	"{\"hw\": \"" hw "\", \"infmax_model_prefix\": \"dsr1-fp8\", \"framework\": \"sglang\", "  \
	"\"precision\": \"FP8\", \"isl\": 1024, \"osl\": 1024, \"conc\": " #conc ", \"tp\": 8, "   \
	"\"ep\": 1, \"dp_attention\": \"false\", \"tput_per_gpu\": 1" #conc ", "                   \
	"\"median_intvty\": 100, \"median_e2el\": 5" extra "}"

Test(report_html, gpu_keys)
{
	cr_assert_str_eq(rep_gpu_key("mi355x-amd_0"), "mi355x");
	cr_assert_str_eq(rep_gpu_key("H200-NV"), "h200");
	cr_assert_str_eq(rep_gpu_key("b200-multinode-slurm"), "b200");
	cr_assert_str_eq(rep_gpu_key("gb300-nv_12"), "gb300");
	cr_assert_str_eq(rep_gpu_key("b200-nscale"), "b200"); /* beyond the dashboard */
	cr_assert_null(rep_gpu_key("rtx6000pro-lat_2"));
	cr_assert_null(rep_gpu_key("tpu"));
	cr_assert_null(rep_gpu_key(""));
}

Test(report_html, seq_labels)
{
	ib_arena *a = ib_arena_new();
	cr_assert_str_eq(rep_seq_label(a, 1024, 1024), "1k/1k");
	cr_assert_str_eq(rep_seq_label(a, 1024, 8192), "1k/8k");
	cr_assert_str_eq(rep_seq_label(a, 8192, 1024), "8k/1k");
	cr_assert_str_eq(rep_seq_label(a, 2048, 1024), "2k/1k");
	cr_assert_str_eq(rep_seq_label(a, 1000, 100), "1000/100");
	ib_arena_free(a);
}

Test(report_html, bad_rows_skipped_one_diagnostic_each, .init = setup, .fini = teardown)
{
	put("rows.json",
	    "[1, \"x\", {}, " ROW("tpu-v5", 4, "") ", " ROW(
	        "h200", 0,
	        "") ", "
	            "{\"hw\": \"h200\", \"isl\": 1024, \"osl\": 1024, \"conc\": 2}, " ROW(
	                "h200_0", 8, ", \"spec_decoding\": \"\", \"image\": \"a#b\"") "]");
	ib_arena *a = ib_arena_new();
	ib_diags d = {.a = a};
	rep_rowset rs = {0};
	ib_error e = {0};
	char p[300];
	snprintf(p, sizeof p, "%s/rows.json", root);
	cr_assert_eq(rep_rows_load(a, p, -1, &rs, &d, &e), 0, "%s", e.msg);
	cr_assert_eq(rs.n, 1);
	cr_assert_eq(d.n, 6);
	cr_assert_str_eq(d.items[0].subject, "row 1");
	cr_assert_str_eq(d.items[3].field, "hw");
	cr_assert_str_eq(d.items[4].field, "conc");
	cr_assert_str_eq(d.items[5].field, "infmax_model_prefix");
	const rep_agg_row *r = &rs.rows[0];
	cr_assert_str_eq(r->hw, "h200");
	cr_assert_str_eq(r->model, "dsr1");
	cr_assert_str_eq(r->precision, "fp8");
	cr_assert_str_eq(r->spec, "none");
	cr_assert_str_eq(r->image, "a/b");
	cr_assert_eq(r->conc, 8);
	cr_assert_eq(r->index, 6);
	cr_assert(rep_row_num(r, "tput_per_gpu") == 18);
	cr_assert(isnan(rep_row_num(r, "p99_ttft")));
	rep_rowset_free(&rs);
	ib_arena_free(a);
}

Test(report_html, folder_list_wins_over_single_rows, .init = setup, .fini = teardown)
{
	put("agg_bmk.json", "[" ROW("b200", 4, "") ", " ROW("b200", 8, "") "]");
	put("agg_x.json", ROW("b200", 4, ""));
	put("raw.json", "{\"max_concurrency\": 4}");
	put("agg_eval_all.json",
	    "[{\"hw\": \"B200\", \"model_prefix\": \"dsr1\", \"framework\": \"sglang\", "
	    "\"precision\": \"fp8\", \"task\": \"gsm8k\", \"em_strict\": 0.9, \"em_strict_se\": "
	    "0.01, \"conc\": 4, \"tp\": 8, \"source\": \"x_dsr1_1k8k_fp8.json\"}]");
	ib_arena *a = ib_arena_new();
	ib_diags d = {.a = a};
	rep_rowset rs = {0};
	ib_error e = {0};
	cr_assert_eq(rep_rows_load(a, root, -1, &rs, &d, &e), 0, "%s", e.msg);
	cr_assert_eq(rs.n, 2);
	cr_assert_eq(rs.nevals, 1);
	cr_assert_eq(rs.evals[0].isl, 1024);
	cr_assert_eq(rs.evals[0].osl, 8192);
	cr_assert(fabs(rs.evals[0].score - 0.9) < 1e-12);
	cr_assert_eq(d.n, 0);
	rep_rowset_free(&rs);
	ib_arena_free(a);
}

Test(report_html, unreadable_or_malformed_file_is_an_error, .init = setup, .fini = teardown)
{
	put("bad.json", "[{\"hw\": ");
	put("empty.json", "  \n");
	ib_arena *a = ib_arena_new();
	ib_diags d = {.a = a};
	rep_rowset rs = {0};
	ib_error e = {0};
	char p[300];
	snprintf(p, sizeof p, "%s/bad.json", root);
	cr_assert_eq(rep_rows_load(a, p, -1, &rs, &d, &e), IB_EPARSE);
	cr_assert_gt(e.line, 0);
	snprintf(p, sizeof p, "%s/empty.json", root);
	cr_assert_eq(rep_rows_load(a, p, -1, &rs, &d, &e), 0);
	cr_assert_eq(rs.n, 0);
	cr_assert_eq(d.n, 1);
	snprintf(p, sizeof p, "%s/none.json", root);
	cr_assert_eq(rep_rows_load(a, p, -1, &rs, &d, &e), IB_ENOENT);
	rep_rowset_free(&rs);
	ib_arena_free(a);
}

/* The page data: latest date only, views with the library's frontier, and
 * the points a view draws. */
Test(report_html, page_data_views, .init = setup, .fini = teardown)
{
	/* clang-format off */
	static const char rows[] =
	    "[" ROW("b200", 4, ", \"date\": \"2026-01-01\", \"median_intvty\": 90") ", "
	    ROW("b200", 8, ", \"date\": \"2026-02-01\", \"median_intvty\": 80") ", "
	    ROW("b200", 16, ", \"date\": \"2026-02-01\", \"median_intvty\": 60") ", "
	    ROW("b200", 32, ", \"date\": \"2026-02-01\", \"median_intvty\": 50, "
	                    "\"tput_per_gpu\": 100") "]";
	/* clang-format on */
	put("rows.json", rows);
	ib_arena *a = ib_arena_new();
	ib_diags d = {.a = a};
	rep_rowset rs = {0};
	ib_error e = {0};
	char p[300];
	snprintf(p, sizeof p, "%s/rows.json", root);
	cr_assert_eq(rep_rows_load(a, p, -1, &rs, &d, &e), 0);
	ib_val *data = NULL;
	rep_page_opts o = {0};
	cr_assert_eq(rep_page_data(a, &rs, &d, &o, &data, &e), 0, "%s", e.msg);
	const ib_val *g = ib_map_get(data, "groups")->list.v[0];
	cr_assert_eq(ib_map_get(g, "rows")->list.n, 3, "the 2026-01-01 row is not the latest");
	rep_vpt *vp = NULL;
	size_t n = 0;
	cr_assert_eq(rep_view_points(data, g, "A|tpPerGpu|median_intvty", &vp, &n), 0);
	cr_assert_eq(n, 3);
	size_t roof = 0;
	for (size_t k = 0; k < n; k++)
		roof += vp[k].roof;
	/* (60, 116) and (80, 18) on the frontier; (50, 100) dominated */
	cr_assert_eq(roof, 2);
	const ib_val *paths =
	    ib_map_get(ib_map_get(ib_map_get(g, "views"), "A|tpPerGpu|median_intvty"), "paths");
	cr_assert_eq(paths->list.n, 1);
	cr_assert_eq(paths->list.v[0]->list.n, 2);
	free(vp);
	cr_assert_eq(rep_view_points(data, g, "A|nope|median_intvty", &vp, &n), IB_ENOENT);
	ib_buf b = {0};
	cr_assert_eq(rep_html_write(&b, data, &o, &e), 0);
	cr_assert(strstr(b.data, "default-src 'none'"));
	size_t ends = 0;
	for (const char *q = b.data; (q = strstr(q, "</script>")); q++)
		ends++;
	cr_assert_eq(ends, 2, "the data and the script, nothing ends a script early");
	ib_buf_free(&b);
	rep_rowset_free(&rs);
	ib_arena_free(a);
}

/* an agentic agg row (the shape of `agentic process`), reduced to what the
 * view reads */
#define AGROW(conc, tput, itl90, norm90, gpuhit, extra)                                            \
	"{\"hw\": \"h200\", \"conc\": " #conc ", \"infmax_model_prefix\": \"dsr1\", "              \
	"\"framework\": \"vllm\", \"precision\": \"fp8\", \"spec_decoding\": \"none\", "           \
	"\"disagg\": false, \"scenario_type\": \"agentic-coding\", \"is_multinode\": false, "      \
	"\"tp\": 8, \"ep\": 1, \"dp_attention\": \"false\", \"kv_offloading\": \"none\", "         \
	"\"num_requests_total\": 10, \"num_requests_successful\": 9, \"request_metrics\": "        \
	"{\"latency\": {\"ttft\": {\"mean\": 0.5, \"p50\": 0.4, \"p75\": 0.6, \"p90\": 0.8, "      \
	"\"p95\": 0.9, \"std\": 0.1}, \"itl\": {\"p50\": 0.01, \"p75\": 0.015, \"p90\": " #itl90   \
	", \"p95\": 0.03}, \"e2e_norm_intvty\": {\"p50\": 60, \"p75\": 50, \"p90\": " #norm90      \
	", \"p95\": 30}}, \"throughput\": {\"per_gpu\": {\"total_tput_tps\": " #tput "}}, "        \
	"\"cache\": {\"theoretical_cache_hit_rate\": 0.8}}, \"server_metrics\": {\"cache\": "      \
	"{\"gpu_cache_hit_rate\": " #gpuhit "}}" extra "}"

/* the rows of root/name and their page data */
static ib_val *load_page(ib_arena *a, const char *name, rep_rowset *rs)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", root, name);
	ib_diags d = {.a = a};
	ib_error e = {0};
	cr_assert_eq(rep_rows_load(a, p, -1, rs, &d, &e), 0, "%s", e.msg);
	ib_val *data = NULL;
	rep_page_opts po = {0};
	cr_assert_eq(rep_page_data(a, rs, &d, &po, &data, &e), 0, "%s", e.msg);
	return data;
}

Test(report_html, agentic_view, .init = setup, .fini = teardown)
{
	/* conc 4 is dominated on the normalised axis (lower throughput and
	 * normalised interactivity than conc 8) though not on interactivity */
	put("ag.json",
	    "[" AGROW(4, 500, 0.01, 20, 0.9, "") ", " AGROW(8, 900, 0.02, 40, 0.85, "") ", " AGROW(
	        16, 1500, 0.04, 30, 0.7, "") ", " AGROW(32, 1, 0.05, 1, 0.1,
	                                                ", \"num_requests_successful\": 0") "]");
	ib_arena *a = ib_arena_new();
	rep_rowset rs = {0};
	ib_error e = {0};
	rep_page_opts po = {0};
	ib_val *data = load_page(a, "ag.json", &rs);
	cr_assert_eq(rs.n, 0, "no fixed-length row");
	cr_assert_eq(rs.nag, 3, "the failed run (no successful request) is skipped");
	cr_assert_eq(rs.skipped, 1);
	cr_assert_str_eq(rs.ag[0].scenario, "agentic-coding");
	cr_assert_float_eq(rep_row_num(&rs.ag[1], "p90_intvty"), 50, 1e-9);
	const ib_val *ag = ib_map_get(data, "agentic");
	cr_assert(ag);
	const ib_val *g = ib_map_get(ag, "groups")->list.v[0];
	cr_assert_eq(ib_map_get(g, "rows")->list.n, 3);
	/* the normalised frontier (P90, tput per GPU): conc 8 and 16 */
	const ib_val *v = ib_map_get(ib_map_get(g, "views"), "1|2|0");
	const ib_val *roof = ib_map_get(v, "roof");
	cr_assert_eq(roof->list.n, 2);
	/* interactivity: conc 4 wins on its own axis (100 tok/s/user) but is not
	 * on the canonical frontier, so the frontier keeps conc 8 and 16 only */
	roof = ib_map_get(ib_map_get(ib_map_get(g, "views"), "0|2|0"), "roof");
	cr_assert_eq(roof->list.n, 2);
	for (size_t i = 0; i < roof->list.n; i++)
		cr_assert_neq(rs.ag[roof->list.v[i]->i].conc, 4);
	ib_buf b = {0};
	cr_assert_eq(rep_html_write(&b, data, &po, &e), 0);
	cr_assert_eq(ib_buf_putc(&b, 0), 0);
	cr_assert(strstr(b.data, "<button data-tab=\"agentic\" class=\"on\">Agentic</button>"),
	          "agentic only: its tab first and shown");
	cr_assert(strstr(b.data, "id=\"view-agentic\""));
	cr_assert(strstr(b.data, ", 3 agentic rows"));
	cr_assert(strstr(b.data, "<span class=\"v\">85.0%</span>"), "the GPU hit rate of conc 8");
	ib_buf_free(&b);
	cr_assert_eq(rep_text_summary(&b, data), 0);
	cr_assert_eq(ib_buf_putc(&b, 0), 0);
	cr_assert(strstr(b.data, "agentic: DeepSeek-R1-0528 · agentic-coding"), "%s", b.data);
	ib_buf_free(&b);
	rep_rowset_free(&rs);
	ib_arena_free(a);
}

Test(report_html, fixed_length_pages_have_no_agentic_part, .init = setup, .fini = teardown)
{
	put("f.json", "[" ROW("h200", 4, "") "]");
	ib_arena *a = ib_arena_new();
	rep_rowset rs = {0};
	ib_error e = {0};
	rep_page_opts po = {0};
	ib_val *data = load_page(a, "f.json", &rs);
	cr_assert_null(ib_map_get(data, "agentic"));
	ib_buf b = {0};
	cr_assert_eq(rep_html_write(&b, data, &po, &e), 0);
	cr_assert_eq(ib_buf_putc(&b, 0), 0);
	cr_assert_null(strstr(b.data, "agentic"), "no trace of the agentic view");
	ib_buf_free(&b);
	rep_rowset_free(&rs);
	ib_arena_free(a);
}
