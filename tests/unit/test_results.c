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
