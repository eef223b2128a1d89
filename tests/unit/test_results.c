/* Unit tests of src/results: collect's file discovery and collection. */
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
