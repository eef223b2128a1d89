/* Unit tests of src/results: collect's file discovery and collection; process
 * and power (their Python-compatible parsers, the library entry points). */
#include "power/private.h"
#include "results/agentic_priv.h"
#include "results/results.h"

#include <math.h>
#include <time.h>

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

static void mk(const char *rel)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	cr_assert_eq(mkdir(p, 0755), 0);
}

static void setup(void)
{
	snprintf(root, sizeof root, "/tmp/ib_test_results_XXXXXX");
	cr_assert(mkdtemp(root));
}

static void teardown(void)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

Test(results, find_json_sorted_and_selective, .init = setup, .fini = teardown)
{
	mk("b");
	mk("a");
	put("b/z.json", "1");
	put("a/y.json", "2");
	put("a/.hidden.json", "3");
	put("a/.json", "4");
	put("a/upper.JSON", "5");
	put("a/notes.txt", "6");
	char **paths;
	size_t n;
	ib_error e = {0};
	cr_assert_eq(res_find_json(root, &paths, &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 4);
	const char *want[] = {"/a/.hidden.json", "/a/.json", "/a/y.json", "/b/z.json"};
	for (size_t i = 0; i < n; i++) {
		char p[512];
		snprintf(p, sizeof p, "%s%s", root, want[i]);
		cr_assert_str_eq(paths[i], p);
	}
	res_paths_free(paths, n);
}

Test(results, missing_folder_is_empty)
{
	char **paths;
	size_t n = 7;
	ib_error e = {0};
	cr_assert_eq(res_find_json("/nonexistent/ib_results_dir", &paths, &n, &e), 0);
	cr_assert_eq(n, 0);
	res_paths_free(paths, n);
}

Test(results, directory_named_json_is_error, .init = setup, .fini = teardown)
{
	mk("x.json");
	char **paths;
	size_t n;
	ib_error e = {0};
	cr_assert_eq(res_find_json(root, &paths, &n, &e), IB_EIO);
	cr_assert(strstr(e.file, "x.json"));
}

Test(results, collect_values_in_order, .init = setup, .fini = teardown)
{
	put("b.json", "{\"k\": 1, \"k\": 2}");
	put("a.json", "[1.0E5]");
	ib_arena *a = ib_arena_new();
	ib_val *list = NULL;
	ib_error e = {0};
	cr_assert_eq(res_collect(a, root, &list, &e), 0, "%s", e.msg);
	ib_buf b = {0};
	ib_json_opts o = {.indent = -1, .ensure_ascii = true};
	cr_assert_eq(ib_json_write(&b, list, &o, &e), 0);
	cr_assert_str_eq(b.data, "[[100000.0], {\"k\": 2}]");
	ib_buf_free(&b);
	ib_arena_free(a);
}

Test(results, invalid_json_names_file_and_writes_nothing, .init = setup, .fini = teardown)
{
	put("ok.json", "{}");
	put("bad.json", "{\n  oops\n}");
	char out[512];
	snprintf(out, sizeof out, "%s/agg_x.json", root);
	ib_error e = {0};
	cr_assert_eq(res_collect_write(root, out, &e), IB_EPARSE);
	cr_assert(strstr(e.file, "bad.json"), "file: %s", e.file);
	cr_assert_eq(e.line, 2);
	cr_assert_neq(access(out, F_OK), 0, "no output file after an error");
}

Test(results, collect_write_indent2_no_newline, .init = setup, .fini = teardown)
{
	put("r.json", "{\"a\": [], \"b\": {}}");
	mk("out");
	char out[512];
	snprintf(out, sizeof out, "%s/out/agg.json", root);
	char dir[512];
	snprintf(dir, sizeof dir, "%s", root);
	ib_error e = {0};
	/* out/ holds no *.json yet, so the collection is just r.json */
	cr_assert_eq(res_collect_write(dir, out, &e), 0, "%s", e.msg);
	ib_buf b = {0};
	cr_assert_eq(ib_read_file(out, &b, &e), 0);
	cr_assert_str_eq(b.data, "[\n  {\n    \"a\": [],\n    \"b\": {}\n  }\n]");
	ib_buf_free(&b);
}

/* A library writer under failing allocations (base.h's buffer policy): for
 * every growth that can fail, `collect` either writes the whole file or
 * fails with an error naming a file, and leaves no output behind; at least
 * one failure lands in the output's own buffer and names the output. */
Test(results, collect_write_never_truncates, .init = setup, .fini = teardown)
{
	char big[4096];
	int n = snprintf(big, sizeof big, "{\"rows\": [");
	for (int i = 0; i < 200; i++)
		n += snprintf(big + n, sizeof big - (size_t)n, "%s%d", i ? ", " : "", i * 7);
	snprintf(big + n, sizeof big - (size_t)n, "]}");
	put("r1.json", big);
	put("r2.json", "{\"name\": \"second\"}");
	mk("out");
	char out[512], dir[512];
	snprintf(out, sizeof out, "%s/out/agg.json", root);
	snprintf(dir, sizeof dir, "%s", root);
	ib_error e = {0};
	cr_assert_eq(res_collect_write(dir, out, &e), 0, "%s", e.msg);
	ib_buf whole = {0};
	cr_assert_eq(ib_read_file(out, &whole, &e), 0);
	cr_assert_eq(unlink(out), 0);
	int named_out = 0;
	long k = 0;
	for (;; k++) {
		ib_error f = {0};
		ib_test_fail_growth(k);
		int rc = res_collect_write(dir, out, &f);
		ib_test_fail_growth(-1);
		if (!rc)
			break;
		cr_assert(f.file[0], "failure %ld: an error without a file: %s", k, f.msg);
		cr_assert_eq(access(out, F_OK), -1, "failure %ld left %s", k, out);
		named_out += !strcmp(f.file, out);
		cr_assert_lt(k, 10000);
	}
	cr_assert_gt(k, 0, "no growth was failed");
	cr_assert_gt(named_out, 0, "no failure named the output");
	ib_buf b = {0};
	cr_assert_eq(ib_read_file(out, &b, &e), 0);
	cr_assert_eq(b.len, whole.len);
	cr_assert_eq(memcmp(b.data, whole.data, b.len), 0);
	ib_buf_free(&b);
	ib_buf_free(&whole);
}

/* ---- success rate ---- */

Test(results, hw_labels_cluster_keys_sorted)
{
	ib_arena *a = ib_arena_new();
	ib_val *r;
	ib_error e = {0};
	const char *y = "labels:\n  cluster:mi355x: [a]\n  h200: [b]\n  cluster:b200: [c]\n";
	cr_assert_eq(ib_yaml_load(a, "r.yaml", y, strlen(y), &r, &e), 0, "%s", e.msg);
	const char **l;
	size_t n;
	cr_assert_eq(res_hw_labels(r, &l, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(l[0], "b200");
	cr_assert_str_eq(l[1], "mi355x");
	free(l);
	ib_arena_free(a);
}

Test(results, job_label_boundaries)
{
	const char *labels[] = {"b200", "b200-nv", "h200"};
	/* "-" is a boundary, so "b200" (first in order) wins over "b200-nv", as in the reference */
	cr_assert_eq(res_job_label("bench / B200-NV tp8", labels, 3), 0);
	const char *only[] = {"b200-nv"};
	cr_assert_eq(res_job_label("bench / B200-NV tp8", only, 1), 0);
	cr_assert_eq(res_job_label("bench b200 tp8", labels, 3), 0);
	cr_assert_eq(res_job_label("bench xb200 tp8", labels, 3), -1);
	cr_assert_eq(res_job_label("bench b2000", labels, 3), -1);
	cr_assert_eq(res_job_label("run cluster:h200", labels, 3), 2);
	cr_assert_eq(res_job_label("setup", labels, 3), -1);
}

Test(results, success_rates_and_table)
{
	ib_arena *a = ib_arena_new();
	ib_val *jobs, *rates;
	ib_error e = {0};
	const char *j = "[{\"name\": \"x h200\", \"conclusion\": \"success\"},"
	                "{\"name\": \"y h200\", \"conclusion\": null},"
	                "{\"name\": \"z h200\", \"conclusion\": \"skipped\"},"
	                "{\"name\": \"setup\", \"conclusion\": \"failure\"}]";
	cr_assert_eq(ib_json_parse(a, "j", j, strlen(j), &jobs, &e), 0);
	const char *labels[] = {"b200", "h200"};
	cr_assert_eq(res_success_rates(a, jobs, labels, 2, &rates, &e), 0, "%s", e.msg);
	ib_buf b = {0};
	ib_json_opts o = {.indent = -1, .ensure_ascii = true};
	cr_assert_eq(ib_json_write(&b, rates, &o, &e), 0);
	cr_assert_str_eq(b.data, "{\"b200\": {\"n_success\": 0, \"total\": 0}, "
	                         "\"h200\": {\"n_success\": 1, \"total\": 2}}");
	b.len = 0;
	cr_assert_eq(res_success_table(&b, rates), 0);
	cr_assert(strstr(b.data, "\nh200                 1          2          50.00     %\n"),
	          "%s", b.data);
	cr_assert_null(strstr(b.data, "b200 "));
	ib_buf_free(&b);
	ib_arena_free(a);
}

/* ---- process / power ---- */

static bool ts(const char *s, double *out)
{
	return pw_parse_timestamp(s, strlen(s), out);
}

Test(results, telemetry_timestamps)
{
	setenv("TZ", "UTC", 1);
	tzset();
	double t;
	cr_assert(ts("2025/01/15 12:34:56.789", &t));
	cr_assert_float_eq(t, 1736944496.789, 1e-6);
	cr_assert(ts("2025/01/15 12:34:56", &t));
	cr_assert_eq(t, 1736944496.0);
	cr_assert(ts("2025-01-15T12:34:56.789", &t)); /* naive ISO: local time */
	cr_assert_float_eq(t, 1736944496.789, 1e-6);
	cr_assert(ts("2025-01-15 12:34:56", &t)); /* space separator */
	cr_assert_eq(t, 1736944496.0);
	cr_assert(ts("2025-01-15T12:34:56-07:00", &t));
	cr_assert_eq(t, 1736944496.0 + 7 * 3600);
	cr_assert(ts("2025-01-15T12:34:56Z", &t));
	cr_assert_eq(t, 1736944496.0);
	cr_assert(ts("1736944496.5", &t));
	cr_assert_eq(t, 1736944496.5);
	cr_assert(ts("1736944496500", &t)); /* milliseconds above 1e12 */
	cr_assert_eq(t, 1736944496.5);
	cr_assert(ts("  1736944496 ", &t));
	cr_assert_not(ts("not a time", &t));
	cr_assert_not(ts("", &t));
	cr_assert_not(ts("2025/02/30 00:00:00", &t)); /* no such day */
	cr_assert_not(ts("2025-01-15T12:34:56.", &t));
	cr_assert_not(ts("1e9", &t)); /* not a plain number, not a date */
	setenv("TZ", "Asia/Kolkata", 1);
	tzset();
	cr_assert(ts("2025/01/15 18:04:56", &t)); /* 12:34:56 UTC */
	cr_assert_eq(t, 1736944496.0);
	setenv("TZ", "UTC", 1);
	tzset();
}

Test(results, telemetry_power_cells)
{
	double p;
	cr_assert(pw_parse_power("412.34 W", 8, &p));
	cr_assert_eq(p, 412.34);
	cr_assert(pw_parse_power("512", 3, &p));
	cr_assert_eq(p, 512.0);
	cr_assert(pw_parse_power("612.34e1 W", 10, &p)); /* the first number only */
	cr_assert_eq(p, 612.34);
	cr_assert(pw_parse_power("-5 W", 4, &p));
	cr_assert_eq(p, -5.0);
	cr_assert_not(pw_parse_power("[N/A]", 5, &p));
	cr_assert_not(pw_parse_power(" n/a ", 5, &p));
	cr_assert_not(pw_parse_power("NA", 2, &p));
	cr_assert_not(pw_parse_power("", 0, &p));
	cr_assert_not(pw_parse_power("W", 1, &p));
}

static pw_csv csv_of(ib_arena *a, const char *text, bool skipws)
{
	pw_csv c;
	cr_assert_eq(pw_csv_parse(a, text, strlen(text), skipws, true, NULL, &c), 0);
	return c;
}

Test(results, csv_like_python)
{
	ib_arena *a = ib_arena_new();
	pw_csv c = csv_of(a, "a, \"b,c\"\r\n\nx,\"q\"\"uote\"tail\r\"multi\nline\"", true);
	cr_assert_eq(c.n, 4);
	cr_assert_eq(c.rows[0].n, 2);
	cr_assert_str_eq(c.rows[0].f[1], "b,c");
	cr_assert_eq(c.rows[1].n, 0); /* an empty line is an empty record */
	cr_assert_str_eq(c.rows[2].f[1], "q\"uotetail");
	cr_assert_str_eq(c.rows[3].f[0], "multi\nline");
	cr_assert_eq(c.rows[3].line, 4);
	pw_csv_free(&c);
	c = csv_of(a, "a, b", false);
	cr_assert_str_eq(c.rows[0].f[1], " b");
	pw_csv_free(&c);
	c = csv_of(a, "\"open", false); /* end of data inside quotes: the field is kept */
	cr_assert_eq(c.n, 1);
	cr_assert_str_eq(c.rows[0].f[0], "open");
	pw_csv_free(&c);
	c = csv_of(a, "bad\xff", false); /* errors="replace" */
	cr_assert_str_eq(c.rows[0].f[0], "bad\xEF\xBF\xBD");
	pw_csv_free(&c);
	ib_arena_free(a);
}

Test(results, python_helpers)
{
	ib_arena *a = ib_arena_new();
	cr_assert_str_eq(pw_py_path(a, "./a//b/"), "a/b");
	cr_assert_str_eq(pw_py_path(a, ""), ".");
	cr_assert_str_eq(pw_py_path(a, "//x/./y"), "//x/y");
	cr_assert_str_eq(pw_path_stem(a, "d/x.tar.json"), "x.tar");
	cr_assert_str_eq(pw_path_stem(a, ".json"), ".json");
	cr_assert_str_eq(pw_path_with_name(a, "d/e/x.csv", "y.csv"), "d/e/y.csv");
	cr_assert_eq(pw_py_round(2.675, 2), 2.67); /* the binary value is below 2.675 */
	cr_assert_eq(pw_py_round(0.0005, 3), 0.001);
	cr_assert_eq(pw_py_round(1234.5675, 3), 1234.568); /* binary value just above */
	cr_assert(pw_gpu_cmp("2", "10") < 0);
	cr_assert(pw_gpu_cmp("10", "a") < 0);
	cr_assert(pw_gpu_cmp("b", "a") > 0);
	double v[3] = {0.1, 0.2, 0.3};
	cr_assert_eq(pw_mean(v, 3), 0.2); /* exact: (0.1+0.2)+0.3 would give 0.20000000000000004 */
	ib_arena_free(a);
}

static const char *raw_result =
    "{\"model_id\": \"m\", \"max_concurrency\": 8, \"total_token_throughput\": 1600.0,"
    " \"output_throughput\": 800.0, \"mean_ttft_ms\": 12.5, \"mean_tpot_ms\": 20.0,"
    " \"benchmark_start_time_unix\": 1000.0, \"benchmark_end_time_unix\": 1010.0,"
    " \"duration\": 10.0, \"completed\": 4, \"total_input_tokens\": 100,"
    " \"total_output_tokens\": 50}";

static const char *env_single[] = {"RUNNER_TYPE=h200",
                                   "FRAMEWORK=vllm",
                                   "PRECISION=fp8",
                                   "SPEC_DECODING=none",
                                   "RESULT_FILENAME=r",
                                   "ISL=1024",
                                   "OSL=1024",
                                   "DISAGG=false",
                                   "MODEL_PREFIX=dsr1",
                                   "IMAGE=img",
                                   "TP=8",
                                   "EP_SIZE=1",
                                   "DP_ATTENTION=false",
                                   "GPU_METRICS_CSV=/nonexistent/gpu_metrics.csv",
                                   NULL};

static bool exists(const char *rel)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	return access(p, F_OK) == 0;
}

static int count_files(void)
{
	char cmd[400];
	snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 1", root);
	return system(cmd) == 0 ? 1 : 0;
}

Test(results, process_writes_row_and_sidecar, .init = setup, .fini = teardown)
{
	put("r.json", raw_result);
	res_process_opts o = {.dir = root, .env = env_single};
	ib_buf out = {0};
	ib_error e = {0};
	int status = -1;
	cr_assert_eq(res_process(&o, &out, &status, &e), 0, "%s", e.msg);
	cr_assert_eq(status, 0);
	cr_assert(strstr(out.data, "\"tput_per_gpu\": 200.0,"));
	cr_assert(strstr(out.data, "\"mean_ttft\": 0.0125,"));
	cr_assert(strstr(out.data, "\"mean_intvty\": 50.0,"));
	cr_assert(strstr(out.data, "\"power_valid\": 0\n}"));
	cr_assert_null(strstr(out.data, "derived"));
	cr_assert(exists("agg_r.json"));
	cr_assert(exists("power_validation_r.json"));
	ib_buf_free(&out);
}

Test(results, process_derived_object, .init = setup, .fini = teardown)
{
	put("r.json", raw_result);
	res_process_opts o = {.dir = root, .env = env_single, .derived = true};
	ib_buf out = {0};
	ib_error e = {0};
	int status;
	cr_assert_eq(res_process(&o, &out, &status, &e), 0, "%s", e.msg);
	/* h200: 1.73 kW, $1.41/GPU-hr hyperscaler; 200 tok/s/GPU = 0.72 Mtok/h */
	cr_assert(strstr(out.data, "\"gpu\": \"h200\""));
	cr_assert(strstr(out.data, "\"hyperscaler\": 1.9583333333333333"), "%s", out.data);
	cr_assert(strstr(out.data, "\"joules_per_total_token\": 8.65"), "%s", out.data);
	ib_buf_free(&out);
}

Test(results, process_zero_tpot_is_error_and_writes_nothing, .init = setup, .fini = teardown)
{
	put("r.json",
	    "{\"model_id\": \"m\", \"max_concurrency\": 8, \"total_token_throughput\": 1.0,"
	    " \"output_throughput\": 0.0, \"median_tpot_ms\": 0}");
	res_process_opts o = {.dir = root, .env = env_single};
	ib_error e = {0};
	int status;
	cr_assert_eq(res_process(&o, NULL, &status, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "median_tpot_ms"), "%s", e.msg);
	cr_assert(strstr(e.file, "r.json"));
	cr_assert(count_files(), "no file besides the input");
}

Test(results, process_missing_env_listed_in_order, .init = setup, .fini = teardown)
{
	const char *env[] = {"ISL=1", "FRAMEWORK=x", NULL};
	res_process_opts o = {.dir = root, .env = env};
	ib_error e = {0};
	int status;
	cr_assert_eq(res_process(&o, NULL, &status, &e), IB_EINVAL);
	cr_assert_str_eq(e.msg, "Missing required environment variables: RUNNER_TYPE, PRECISION, "
	                        "SPEC_DECODING, RESULT_FILENAME, OSL, DISAGG, MODEL_PREFIX, IMAGE");
}

Test(results, process_truncated_json_names_file_and_line, .init = setup, .fini = teardown)
{
	put("r.json", "{\"model_id\": \"m\",\n \"max_concurrency\": ");
	res_process_opts o = {.dir = root, .env = env_single};
	ib_error e = {0};
	int status;
	cr_assert_eq(res_process(&o, NULL, &status, &e), IB_EPARSE);
	cr_assert(strstr(e.file, "r.json"));
	cr_assert_eq(e.line, 2);
	cr_assert(count_files());
}

Test(results, process_wrong_types, .init = setup, .fini = teardown)
{
	put("r.json", "{\"model_id\": \"m\", \"max_concurrency\": null}");
	res_process_opts o = {.dir = root, .env = env_single};
	ib_error e = {0};
	int status;
	cr_assert_eq(res_process(&o, NULL, &status, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "max_concurrency"), "%s", e.msg);
	const char *env[] = {"RUNNER_TYPE=h",     "FRAMEWORK=f", "PRECISION=p", "SPEC_DECODING=n",
	                     "RESULT_FILENAME=r", "ISL=1k",      "OSL=1",       "DISAGG=false",
	                     "MODEL_PREFIX=m",    "IMAGE=i",     NULL};
	put("r.json", raw_result);
	o.env = env;
	cr_assert_eq(res_process(&o, NULL, &status, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "ISL"), "%s", e.msg);
	cr_assert(count_files());
}

static char logged[4096];
static void keep_log(void *ud, int stream, const char *line)
{
	(void)ud;
	snprintf(logged + strlen(logged), sizeof logged - strlen(logged), "%d:%s\n", stream, line);
}

Test(results, power_garbage_rows_are_reasons_and_named, .init = setup, .fini = teardown)
{
	put("b.json", raw_result);
	put("agg.json", "{\"hw\": \"h200\"}");
	put("t.csv", "timestamp,gpu,power\n999,0,100\n1011,0,100\nyesterday,0,100\n");
	char csv[300], b[300], agg[300];
	snprintf(csv, sizeof csv, "%s/t.csv", root);
	snprintf(b, sizeof b, "%s/b.json", root);
	snprintf(agg, sizeof agg, "%s/agg.json", root);
	logged[0] = 0;
	pw_opts o = {.csv_path = csv,
	             .bench_path = b,
	             .agg_path = agg,
	             .has_expected = true,
	             .expected_num_gpus = 1,
	             .require_power = true,
	             .log = keep_log};
	int status = -1;
	ib_error e = {0};
	cr_assert_eq(pw_run(&o, &status, &e), 0);
	cr_assert_eq(status, 1);
	cr_assert(strstr(logged, "t.csv:4: unparseable timestamp 'yesterday'"), "%s", logged);
	cr_assert(strstr(logged, "invalid_timestamp_sample"), "%s", logged);
	cr_assert(exists("power_validation_b.json"));
}

Test(results, power_agg_not_object_writes_no_sidecar, .init = setup, .fini = teardown)
{
	put("b.json", raw_result);
	put("agg.json", "[1, 2]");
	char b[300], agg[300];
	snprintf(b, sizeof b, "%s/b.json", root);
	snprintf(agg, sizeof agg, "%s/agg.json", root);
	pw_opts o = {.csv_path = "/nonexistent.csv",
	             .bench_path = b,
	             .agg_path = agg,
	             .has_expected = true,
	             .expected_num_gpus = 1};
	int status;
	ib_error e = {0};
	cr_assert_eq(pw_run(&o, &status, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "list"), "%s", e.msg);
	cr_assert_not(exists("power_validation_b.json"));
}

/* ---- agentic (process_agentic_result, validate, the power adapter) ---- */

static char *slurp(const char *rel)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	ib_buf b = {0};
	ib_error e;
	cr_assert_eq(ib_read_file(p, &b, &e), 0, "%s", p);
	return b.data;
}

static char agentic_log[4096];
static void agentic_logger(void *ud, int stream, const char *line)
{
	(void)ud;
	size_t l = strlen(agentic_log);
	snprintf(agentic_log + l, sizeof agentic_log - l, "%d:%s\n", stream, line);
}

Test(agentic, percentile_and_pstdev)
{
	double s[] = {1, 2, 3, 4};
	cr_assert_eq(res_ag_percentile(s, 4, 50), 2.5);
	cr_assert_eq(res_ag_percentile(s, 4, 75), 3.25);
	cr_assert_eq(res_ag_percentile(s, 4, 95), 3.8499999999999996);
	cr_assert_eq(res_ag_percentile(s, 1, 90), 1);
	double v[] = {2, 4, 4, 4, 5, 5, 7, 9};
	cr_assert_eq(res_ag_pstdev(v, 8), 2.0);
	cr_assert_eq(res_ag_pstdev(v, 1), 0.0);
}

static const char *agentic_jsonl =
    "{\"metadata\":{\"benchmark_phase\":\"warmup\"},\"metrics\":{},\"error\":null}\n"
    "\n"
    "{\"metadata\":{\"benchmark_phase\":\"profiling\",\"request_start_ns\":1000000000,"
    "\"request_end_ns\":3000000000},\"metrics\":{\"request_latency\":{\"value\":2000,"
    "\"unit\":\"ms\"},\"input_sequence_length\":{\"value\":100},\"output_sequence_length\":"
    "50},\"error\":null}\n"
    "{\"metadata\":{\"benchmark_phase\":\"profiling\",\"request_start_ns\":2000000000,"
    "\"request_end_ns\":5000000000},\"metrics\":{\"request_latency\":\"1000\","
    "\"input_sequence_length\":{\"value\":300},\"output_sequence_length\":{\"value\":150.7}},"
    "\"error\":{}}\n"
    "{\"metadata\":{},\"metrics\":{},\"error\":{\"message\":\"  Read timed out: after 30s\"}}\n"
    "{\"metadata\":{\"benchmark_phase\":\"warmup\"},\"error\":{\"code\":503}}\n";

Test(agentic, records_accounting_and_categories, .init = setup, .fini = teardown)
{
	put("p.jsonl", agentic_jsonl);
	char p[300];
	snprintf(p, sizeof p, "%s/p.jsonl", root);
	ib_arena *a = ib_arena_new();
	res_ag_records r;
	ib_error e = {0};
	cr_assert_eq(res_ag_load_records(a, p, &r, &e), 0, "%s", e.msg);
	cr_assert_eq(r.total, 5);
	cr_assert_eq(r.n, 2); /* the {} error is not an error */
	cr_assert_eq(r.warmup, 2);
	cr_assert_eq(r.errors, 2);
	ib_buf b = {0};
	ib_json_opts jo = IB_JSON_PYTHON;
	ib_json_write(&b, r.categories, &jo, &e);
	cr_assert_str_eq(b.data, "{\"Read timed out\": 1, \"503\": 1}");
	size_t n;
	int64_t *osl = res_ag_record_ints(&r, "output_sequence_length", &n);
	cr_assert_eq(n, 2);
	cr_assert_eq(osl[0], 50);
	cr_assert_eq(osl[1], 150); /* int() truncates */
	free(osl);
	ib_buf_free(&b);
	ib_arena_free(a);
}

Test(agentic, bad_record_names_file_and_line, .init = setup, .fini = teardown)
{
	put("p.jsonl", "{\"metadata\":{}}\n\n{\"metadata\": {\"x\" 1}}\n");
	char p[300];
	snprintf(p, sizeof p, "%s/p.jsonl", root);
	ib_arena *a = ib_arena_new();
	res_ag_records r;
	ib_error e = {0};
	cr_assert_eq(res_ag_load_records(a, p, &r, &e), IB_EPARSE);
	cr_assert_eq(e.line, 3);
	cr_assert(strstr(e.file, "p.jsonl"));
	put("p.jsonl", "[1]\n");
	cr_assert_eq(res_ag_load_records(a, p, &r, &e), IB_EINVAL);
	ib_arena_free(a);
}

static void agentic_env(void)
{
	cr_assert_eq(chdir(root), 0);
	setenv("RESULT_FILENAME", "row", 1);
	setenv("RESULT_DIR", "results", 1);
	setenv("KV_OFFLOADING", "none", 1);
	setenv("HF_HUB_CACHE", "no-cache", 1);
	setenv("TP", "2", 1);
	setenv("FRAMEWORK", "vllm", 1);
	mk("results");
	mk("results/aiperf_artifacts");
	put("results/aiperf_artifacts/profile_export.jsonl", agentic_jsonl);
}

Test(agentic, process_writes_the_row, .init = setup, .fini = teardown)
{
	agentic_env();
	put("results/server.log", "(EngineCore_DP0 pid=1) GPU KV cache size: 1,000 tokens\n"
	                          "(EngineCore_DP1 pid=2) GPU KV cache size: 2,000 tokens\n"
	                          "(EngineCore_DP0 pid=1) GPU KV cache size: 1,500 tokens\n");
	res_agentic_opts o = {.log = agentic_logger};
	agentic_log[0] = 0;
	ib_error e = {0};
	char *out;
	cr_assert_eq(res_agentic_process(&o, &out, &e), 0, "%s", e.msg);
	cr_assert_str_eq(out, "row.json");
	free(out);
	char *row = slurp("row.json");
	/* 400 + 200 tokens over 4 s, 2 GPUs; a missing metrics file warns */
	cr_assert(strstr(row, "\"total_tput_tps\": 75,\n"), "%s", row);
	cr_assert(strstr(row, "\"output_tput_tps\": 25,\n"), "%s", row);
	cr_assert(strstr(row, "\"num_requests_successful\": 2"));
	cr_assert(strstr(row, "\"kv_cache_pool_tokens\": 3500"), "%s", row);
	cr_assert(strstr(row, "\"server_metrics_export.json missing or empty\""));
	cr_assert(strstr(agentic_log, "1:Saved aggregated agentic result to row.json\n"), "%s",
	          agentic_log);
	cr_assert(strstr(agentic_log, "1:  Throughput per GPU: 75 tok/s\n"), "%s", agentic_log);
	free(row);
}

Test(agentic, process_errors_write_nothing, .init = setup, .fini = teardown)
{
	agentic_env();
	put("results/aiperf_artifacts/server_metrics_export.json",
	    "{\"metrics\": {\"trtllm:x\": {\"series\": []}}}");
	res_agentic_opts o = {0};
	ib_error e = {0};
	cr_assert_eq(res_agentic_process(&o, NULL, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "Unsupported agentic server metrics backend"), "%s", e.msg);
	cr_assert(strstr(e.msg, "metric_names=[trtllm:x]"), "%s", e.msg);
	cr_assert_not(exists("row.json"));
	unlink("results/aiperf_artifacts/server_metrics_export.json");
	setenv("PP_SIZE", "0", 1);
	cr_assert_eq(res_agentic_process(&o, NULL, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "PP_SIZE, DCP_SIZE, and PCP_SIZE"), "%s", e.msg);
	unsetenv("PP_SIZE");
	unsetenv("RESULT_FILENAME");
	cr_assert_eq(res_agentic_process(&o, NULL, &e), IB_EINVAL);
	cr_assert_not(exists("row.json"));
}

static int validate_with(const char *agg, double th)
{
	put("a/profile_export_aiperf.json", agg);
	char d[300];
	snprintf(d, sizeof d, "%s/a", root);
	res_agentic_opts o = {.log = agentic_logger};
	agentic_log[0] = 0;
	int status = -1;
	ib_error e = {0};
	cr_assert_eq(res_agentic_validate(d, th, &o, &status, &e), 0);
	return status;
}

Test(agentic, validate_gate_is_inclusive, .init = setup, .fini = teardown)
{
	mk("a");
	cr_assert_eq(validate_with("{\"request_count\": {\"avg\": 90}, "
	                           "\"error_request_count\": {\"avg\": 10}}",
	                           0.1),
	             0);
	cr_assert(strstr(agentic_log, "1:Validated aiperf request error rate: 10/100 = 10.000% "
	                              "<= 10.000%"),
	          "%s", agentic_log);
	cr_assert_eq(validate_with("{\"request_count\": {\"avg\": 89}, "
	                           "\"error_request_count\": {\"avg\": 11}}",
	                           0.1),
	             1);
	cr_assert(strstr(agentic_log, "2:ERROR: aiperf request error rate exceeded"), "%s",
	          agentic_log);
	cr_assert_eq(validate_with("{\"request_count\": {\"avg\": 0}}", 0.1), 1);
	cr_assert(strstr(agentic_log, "aiperf completed zero requests"), "%s", agentic_log);
	cr_assert_eq(validate_with("{\"request_count\": {\"avg\": \"9\"}}", 0.1), 1);
	cr_assert(strstr(agentic_log, "request_count.avg must be numeric"), "%s", agentic_log);
}

Test(agentic, power_adapter_failure_marks_invalid, .init = setup, .fini = teardown)
{
	agentic_env();
	put("agg.json", "{\"hw\": \"h200\", \"avg_power_w\": 1.0}");
	res_agentic_power_opts o = {.result_dir = "results",
	                            .agg_path = "agg.json",
	                            .require_power = true,
	                            .log = agentic_logger};
	agentic_log[0] = 0;
	int status = 0;
	ib_error e = {0};
	cr_assert_eq(res_agentic_power(&o, &status, &e), 0, "%s", e.msg);
	cr_assert_eq(status, 1);
	char *agg = slurp("agg.json");
	cr_assert_str_eq(agg, "{\n  \"hw\": \"h200\",\n  \"power_metric_schema_version\": 2,\n"
	                      "  \"power_valid\": 0\n}");
	char *side = slurp("results/power_validation.json");
	cr_assert(strstr(side, "\"reasons\": [\n    \"profile_artifacts_missing\"\n  ]"), "%s",
	          side);
	cr_assert(strstr(side, "\"window_source\": \"aiperf_profile_lifecycle\""), "%s", side);
	cr_assert(strstr(agentic_log, "2:[agentx_power] Power-window adaptation failed: "
	                              "profile_artifacts_missing"),
	          "%s", agentic_log);
	free(agg);
	free(side);
}
