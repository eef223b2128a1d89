/* eval: gsm8k extraction and scoring on a small task file. */
#include "eval/eval.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fputs(text, f);
	fclose(f);
}

Test(eval, score_strict_and_flexible)
{
	char dir[] = "/tmp/ev_unitXXXXXX";
	cr_assert(mkdtemp(dir));
	char y[300], r[300];
	snprintf(y, sizeof y, "%s/t.yaml", dir);
	snprintf(r, sizeof r, "%s/r.jsonl", dir);
	write(y,
	      "task: gsm8k\n"
	      "metric_list:\n  - metric: exact_match\n    ignore_case: true\n"
	      "    regexes_to_ignore: [\",\", \"\\\\$\", \"(?s).*#### \", \"\\\\.$\"]\n"
	      "filter_list:\n"
	      "  - name: strict-match\n    filter:\n      - function: regex\n"
	      "        group_select: -1\n        regex_pattern: \"#### (\\\\-?[0-9\\\\.\\\\,]+)\"\n"
	      "      - function: take_first\n"
	      "  - name: flexible-extract\n    filter:\n      - function: regex\n"
	      "        group_select: -1\n        regex_pattern: \"(-?[$0-9.,]{2,})|(-?[0-9]+)\"\n"
	      "      - function: take_first\n");
	write(r, "{\"response\": \"so $1,200.\\n#### 1,200\", \"target\": \"x\\n#### 1200\"}\n"
	         "{\"response\": \"The answer is 7.\", \"target\": \"#### 7\"}\n");
	ib_buf out = {0};
	ib_error e = {0};
	cr_assert_eq(ev_score_file(y, r, &out, &e), 0, "%s", e.msg);
	cr_assert_str_eq(
	    out.data,
	    "{\"strict-match\": \"1,200\", \"flexible-extract\": \"1,200\", "
	    "\"exact_match,strict-match\": 1.0, \"exact_match,flexible-extract\": 1.0}\n"
	    "{\"strict-match\": \"[invalid]\", \"flexible-extract\": \"7.\", "
	    "\"exact_match,strict-match\": 0.0, \"exact_match,flexible-extract\": 1.0}\n"
	    "{\"alias\": \"gsm8k\", \"exact_match,strict-match\": 0.5, "
	    "\"exact_match_stderr,strict-match\": 0.5, \"exact_match,flexible-extract\": 1.0, "
	    "\"exact_match_stderr,flexible-extract\": 0.0}\n");
	ib_buf_free(&out);
	remove(y);
	remove(r);
	remove(dir);
}

Test(eval, dataset_generate_is_deterministic_and_loads)
{
	char dir[] = "/tmp/ev_dsXXXXXX", sub[64], a[96], b[96];
	cr_assert(mkdtemp(dir));
	snprintf(sub, sizeof sub, "%s/x/y", dir);
	ib_error e = {0};
	cr_assert_eq(ev_dataset_generate(sub, 12, 7, 42, &e), 0, "%s", e.msg);
	ev_dataset d;
	cr_assert_eq(ev_dataset_load(sub, &d, &e), 0, "%s", e.msg);
	cr_assert_eq(d.train.n, 12);
	cr_assert_eq(d.test.n, 7);
	for (size_t i = 0; i < d.test.n; i++) {
		size_t off, len;
		cr_assert(ev_answer_number(d.test.v[i].answer, d.test.v[i].alen, &off, &len));
		cr_assert_gt(len, 0);
		cr_assert(strstr(d.test.v[i].answer, "<<"), "annotated: %s", d.test.v[i].answer);
	}
	ev_dataset_free(&d);
	/* the same seed gives the same bytes; another seed other bytes */
	snprintf(a, sizeof a, "%s/a", dir);
	snprintf(b, sizeof b, "%s/b", dir);
	cr_assert_eq(ev_dataset_generate(a, 12, 7, 42, &e), 0);
	cr_assert_eq(ev_dataset_generate(b, 12, 7, 43, &e), 0);
	ib_buf x = {0}, y = {0}, z = {0};
	char p[128];
	snprintf(p, sizeof p, "%s/test.jsonl", sub);
	cr_assert_eq(ib_read_file(p, &x, &e), 0);
	snprintf(p, sizeof p, "%s/test.jsonl", a);
	cr_assert_eq(ib_read_file(p, &y, &e), 0);
	snprintf(p, sizeof p, "%s/test.jsonl", b);
	cr_assert_eq(ib_read_file(p, &z, &e), 0);
	cr_assert(x.len == y.len && !memcmp(x.data, y.data, x.len));
	cr_assert(x.len != z.len || memcmp(x.data, z.data, x.len));
	ib_buf_free(&x);
	ib_buf_free(&y);
	ib_buf_free(&z);
	cr_assert_eq(ev_dataset_generate(a, 4, 7, 1, &e), IB_EINVAL);
}

Test(eval, dataset_load_errors_name_file_and_line)
{
	char dir[] = "/tmp/ev_dsXXXXXX", p[96];
	cr_assert(mkdtemp(dir));
	ev_dataset d;
	ib_error e = {0};
	cr_assert_eq(ev_dataset_load(dir, &d, &e), IB_ENOENT);
	ev_dataset_free(&d);
	snprintf(p, sizeof p, "%s/train.jsonl", dir);
	write(p, "{\"question\": \"q\", \"answer\": \"a\\n#### 1\"}\n\n{\"question\": 5, "
	         "\"answer\": \"x\"}\n");
	cr_assert_eq(ev_dataset_load(dir, &d, &e), IB_EINVAL);
	cr_assert_eq(e.line, 3);
	cr_assert(strstr(e.file, "train.jsonl"));
	ev_dataset_free(&d);
	write(p, "{\"question\": \"q\", \"answer\": \"a\\n#### 1\"}\n{not json\n");
	cr_assert_eq(ev_dataset_load(dir, &d, &e), IB_EPARSE);
	cr_assert_eq(e.line, 2);
	ev_dataset_free(&d);
	size_t off, len;
	const char ans[] = "x #### 3\nmore\n#### -1,234 \n";
	cr_assert(ev_answer_number(ans, strlen(ans), &off, &len));
	cr_assert_eq(len, 6);
	cr_assert(!memcmp(ans + off, "-1,234", 6));
	cr_assert(!ev_answer_number("no answer", 9, &off, &len));
}

/* ---- validate ---- */

typedef struct {
	char dir[64];
	char thr[128], meta[128], glob[128];
} vdir;

static void vsetup(vdir *d)
{
	snprintf(d->dir, sizeof d->dir, "/tmp/ev_valXXXXXX");
	cr_assert(mkdtemp(d->dir));
	snprintf(d->thr, sizeof d->thr, "%s/t.yaml", d->dir);
	snprintf(d->meta, sizeof d->meta, "%s/meta_env.json", d->dir);
	snprintf(d->glob, sizeof d->glob, "%s/results*.json", d->dir);
}

static void put(const vdir *d, const char *name, const char *text)
{
	char p[200];
	snprintf(p, sizeof p, "%s/%s", d->dir, name);
	write(p, text);
}

static void vclean(const vdir *d)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", d->dir);
	cr_assert_eq(system(cmd), 0);
}

static int run_validate(const vdir *d, const char *expected, ib_buf *out, ib_buf *err, int *st,
                        ib_error *e)
{
	ev_validate_opts o = {.min_score = 0.85,
	                      .thresholds = d->thr,
	                      .meta_env = d->meta,
	                      .results_glob = d->glob,
	                      .expected_concs = expected};
	return ev_validate(&o, out, err, st, e);
}

static const char thresholds[] = "default:\n  gsm8k: 0.90\nmodels:\n  dsr1:\n    gsm8k: 0.91\n";

Test(eval, validate_pass_fail_and_sources)
{
	vdir d;
	vsetup(&d);
	put(&d, "t.yaml", thresholds);
	put(&d, "meta_env.json", "{\"infmax_model_prefix\": \"dsr1\"}");
	put(&d, "results_a.json",
	    "{\"results\": {\"gsm8k\": {\"exact_match,strict-match\": 0.95, "
	    "\"exact_match_stderr,strict-match\": 0.001, \"exact_match,flexible-extract\": 0.905},"
	    " \"mmlu\": {\"exact_match,none\": 0.86, \"exact_match,text\": \"n/a\"}}}");
	ib_buf out = {0}, err = {0};
	ib_error e = {0};
	int st = -1;
	cr_assert_eq(run_validate(&d, NULL, &out, &err, &st, &e), 0, "%s", e.msg);
	char want[600];
	snprintf(want, sizeof want,
	         "Loaded thresholds from %s\n"
	         "Model prefix: dsr1 (per-model thresholds apply)\n"
	         "PASS: gsm8k exact_match,strict-match = 0.9500 (>= 0.91 from models.dsr1)\n"
	         "PASS: mmlu exact_match,none = 0.8600 (>= 0.85 from min-score)\n",
	         d.thr);
	cr_assert_str_eq(out.data, want);
	cr_assert_str_eq(
	    err.data,
	    "FAIL: gsm8k exact_match,flexible-extract = 0.9050 (< 0.91 from models.dsr1)\n");
	cr_assert_eq(st, 1);
	ib_buf_free(&out);
	ib_buf_free(&err);
	vclean(&d);
}

Test(eval, validate_batched_manifest_errors)
{
	vdir d;
	vsetup(&d);
	put(&d, "t.yaml", thresholds);
	put(&d, "meta_env.json",
	    "{\"infmax_model_prefix\": \"dsr1\", \"eval_concs\": [4, 16], "
	    "\"completed_eval_concs\": [4], \"failed_eval_concs\": [16]}");
	put(&d, "results_x_conc4.json", "{\"results\": {\"gsm8k\": {\"exact_match,s\": 0.95}}}");
	ib_buf out = {0}, err = {0};
	ib_error e = {0};
	int st = -1;
	cr_assert_eq(run_validate(&d, "4 16", &out, &err, &st, &e), 0, "%s", e.msg);
	cr_assert_str_eq(err.data,
	                 "FAIL: batched eval failed for concurrency: 16\n"
	                 "FAIL: batched eval is missing completed concurrency: 16\n"
	                 "FAIL: batched eval is missing result files for concurrency: 16\n");
	cr_assert(strstr(out.data, "PASS: [conc=4] gsm8k exact_match,s = 0.9500 (>= 0.91 from "
	                           "models.dsr1)\n"));
	cr_assert_eq(st, 1);
	ib_buf_free(&out);
	ib_buf_free(&err);
	vclean(&d);
}

Test(eval, validate_expected_concs_must_be_unique_positive_ints)
{
	vdir d;
	vsetup(&d);
	static const char *const bad[] = {"4 4", "0", "4 x", "", "  "};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		ib_buf out = {0}, err = {0};
		ib_error e = {0};
		int st = -1;
		cr_assert_eq(run_validate(&d, bad[i], &out, &err, &st, &e), 0);
		cr_assert_eq(out.len, 0, "'%s'", bad[i]);
		cr_assert_str_eq(err.data,
		                 "FAIL: expected concurrencies must be unique positive integers\n");
		cr_assert_eq(st, 1);
		ib_buf_free(&out);
		ib_buf_free(&err);
	}
	vclean(&d);
}

Test(eval, validate_missing_thresholds_and_nothing_checked)
{
	vdir d;
	vsetup(&d);
	ib_buf out = {0}, err = {0};
	ib_error e = {0};
	int st = -1;
	cr_assert_eq(run_validate(&d, NULL, &out, &err, &st, &e), 0, "%s", e.msg);
	char want[800];
	snprintf(
	    want, sizeof want,
	    "WARN: could not load thresholds from %s: [Errno 2] No such file or directory: '%s'\n"
	    "WARN: could not inspect eval metadata for batched concurrency status: [Errno 2] No "
	    "such file or directory: '%s'\n"
	    "WARN: no metrics matched prefix 'exact_match,'\n",
	    d.thr, d.thr, d.meta);
	cr_assert_str_eq(err.data, want);
	cr_assert_str_eq(out.data, "Model prefix: <unknown> (using global default thresholds)\n");
	cr_assert_eq(st, 1);
	ib_buf_free(&out);
	ib_buf_free(&err);
	vclean(&d);
}

Test(eval, validate_results_not_json_names_file_and_line)
{
	vdir d;
	vsetup(&d);
	put(&d, "t.yaml", thresholds);
	put(&d, "results_a.json", "{\n  \"results\": {,\n}");
	ib_buf out = {0}, err = {0};
	ib_error e = {0};
	int st = -1;
	cr_assert_eq(run_validate(&d, NULL, &out, &err, &st, &e), IB_EPARSE);
	cr_assert(strstr(e.file, "results_a.json"), "%s", e.file);
	cr_assert_eq(e.line, 2);
	cr_assert(strstr(out.data, "Model prefix: <unknown>")); /* printed before the error */
	ib_buf_free(&out);
	ib_buf_free(&err);
	vclean(&d);
}

Test(eval, validate_threshold_not_a_number_names_the_line)
{
	vdir d;
	vsetup(&d);
	put(&d, "t.yaml", "default:\n  gsm8k: high\n");
	put(&d, "results_a.json", "{\"results\": {\"gsm8k\": {\"exact_match,s\": 0.95}}}");
	ib_buf out = {0}, err = {0};
	ib_error e = {0};
	int st = -1;
	cr_assert_eq(run_validate(&d, NULL, &out, &err, &st, &e), IB_EINVAL);
	cr_assert_str_eq(e.file, d.thr);
	cr_assert_eq(e.line, 2);
	cr_assert(strstr(e.msg, "must be a number, not str 'high'"), "%s", e.msg);
	ib_buf_free(&out);
	ib_buf_free(&err);
	vclean(&d);
}

Test(eval, validate_results_of_the_wrong_shape)
{
	vdir d;
	vsetup(&d);
	put(&d, "t.yaml", thresholds);
	put(&d, "results_a.json", "{\"results\": [0.9]}");
	ib_buf out = {0}, err = {0};
	ib_error e = {0};
	int st = -1;
	cr_assert_eq(run_validate(&d, NULL, &out, &err, &st, &e), IB_EINVAL);
	cr_assert(strstr(e.file, "results_a.json"));
	cr_assert(strstr(e.msg, "'results'"), "%s", e.msg);
	ib_buf_free(&out);
	ib_buf_free(&err);
	vclean(&d);
}

Test(eval, validate_thresholds_list_warns_and_falls_back)
{
	vdir d;
	vsetup(&d);
	put(&d, "t.yaml", "- 0.9\n");
	put(&d, "results_a.json", "{\"results\": {\"gsm8k\": {\"exact_match,s\": true}}}");
	ib_buf out = {0}, err = {0};
	ib_error e = {0};
	int st = -1;
	cr_assert_eq(run_validate(&d, NULL, &out, &err, &st, &e), 0, "%s", e.msg);
	cr_assert(strstr(err.data, "thresholds config must be a mapping\n"), "%s", err.data);
	cr_assert(
	    strstr(out.data, "PASS: gsm8k exact_match,s = 1.0000 (>= 0.85 from min-score)\n"));
	cr_assert_eq(st, 0);
	ib_buf_free(&out);
	ib_buf_free(&err);
	vclean(&d);
}

Test(eval, conc_suffix_as_the_reference_regex)
{
	const char *dg;
	size_t n;
	cr_assert(ev_conc_suffix("a/results_x_conc16_2.json", &dg, &n) && n == 2 &&
	          !strncmp(dg, "16", 2));
	cr_assert(ev_conc_suffix("x_conc4_conc8.json", &dg, &n) && n == 1 && *dg == '8');
	cr_assert(!ev_conc_suffix("results_conc4_x.json", &dg, &n));
	cr_assert(!ev_conc_suffix("results_conc.json", &dg, &n));
	cr_assert(!ev_conc_suffix("d_conc4.json/results.json", &dg, &n));
	cr_assert(!ev_conc_suffix("results_conc4.json.bak", &dg, &n));
}

/* ---- collect ---- */

static const char lm_result[] =
    "{\"results\": {\"gsm8k\": {\"exact_match,strict-match\": 0.95, "
    "\"exact_match_stderr,strict-match\": 0.006, \"exact_match,flexible-extract\": 0.955}},"
    " \"configs\": {\"gsm8k\": {\"metric_list\": [{\"metric\": \"exact_match\"}],"
    " \"filter_list\": [{\"name\": \"strict-match\"}, {\"name\": \"flexible-extract\"}],"
    " \"metadata\": {\"model\": \"org/M\"}}},"
    " \"n-samples\": {\"gsm8k\": {\"effective\": 1319}}, \"lm_eval_version\": \"0.4.9.2\"}";

static void mkset(const vdir *d, const char *set, const char *meta)
{
	char p[200];
	snprintf(p, sizeof p, "%s/%s", d->dir, set);
	cr_assert_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/%s/meta_env.json", d->dir, set);
	write(p, meta);
	snprintf(p, sizeof p, "%s/%s/results_1.json", d->dir, set);
	write(p, lm_result);
}

Test(eval, collect_rows_and_report)
{
	vdir d;
	vsetup(&d);
	mkset(&d, "b",
	      "{\"infmax_model_prefix\": \"dsr1\", \"hw\": \"h200\", \"framework\": "
	      "\"SGLang\", \"precision\": \"fp8\", \"isl\": \"8192\", \"osl\": \"1024\", "
	      "\"tp\": 8, \"conc\": 64.9, \"dp_attention\": false}");
	mkset(&d, "a", "{\"infmax_model_prefix\": \"dsr1\", \"hw\": \"b200\", \"tp\": \"eight\"}");
	ib_arena *a = ib_arena_new();
	ib_val *rows;
	ib_error e = {0};
	cr_assert_eq(ev_collect_rows(a, d.dir, &rows, &e), 0, "%s", e.msg);
	cr_assert_eq(rows->list.n, 2);
	const ib_val *r = rows->list.v[1]; /* sets in name order: a, then b */
	cr_assert_str_eq(ib_map_get(r, "hw")->str.s, "H200");
	cr_assert_str_eq(ib_map_get(r, "framework")->str.s, "sglang");
	cr_assert_eq(ib_map_get(r, "isl")->i, 8192);
	cr_assert_eq(ib_map_get(r, "conc")->i, 64);
	cr_assert_str_eq(ib_map_get(r, "dp_attention")->str.s, "false");
	cr_assert_str_eq(ib_map_get(r, "model")->str.s, "org/M");
	cr_assert_str_eq(ib_map_get(r, "score_name")->str.s, "em_strict");
	cr_assert_eq(ib_map_get(rows->list.v[0], "tp")->i, 1); /* 'eight' falls back */
	ib_buf out = {0};
	cr_assert_eq(ev_collect_report(rows, NULL, &out, &e), 0);
	cr_assert(!strncmp(out.data,
	                   "### Single-Node Eval Results\n\n| Model Prefix   | Hardware   |", 60));
	cr_assert(strstr(out.data, "| dsr1           | B200       | UNKNOWN     |"), "%s",
	          out.data);
	cr_assert(strstr(out.data, "| 95.00% \xc2\xb1"
	                           "0.60% | 95.00% \xc2\xb1"
	                           "0.60% | 95.50%        |"),
	          "%s", out.data);
	ib_buf_free(&out);
	ib_arena_free(a);
	vclean(&d);
}

Test(eval, collect_empty_root_and_missing_root)
{
	vdir d;
	vsetup(&d);
	ib_arena *a = ib_arena_new();
	ib_val *rows;
	ib_error e = {0};
	cr_assert_eq(ev_collect_rows(a, d.dir, &rows, &e), 0);
	cr_assert_eq(rows->list.n, 0);
	cr_assert_eq(ev_collect_rows(a, "/nonexistent/ev_collect", &rows, &e), 0);
	cr_assert_eq(rows->list.n, 0);
	ib_buf out = {0};
	cr_assert_eq(ev_collect_report(rows, "hw", &out, &e), 0);
	cr_assert_str_eq(out.data, "> No eval results found to summarize.\n");
	ib_buf_free(&out);
	ib_arena_free(a);
	vclean(&d);
}

Test(eval, collect_meta_of_the_wrong_shape_names_the_file)
{
	vdir d;
	vsetup(&d);
	mkset(&d, "s", "{\"hw\": 200}");
	ib_arena *a = ib_arena_new();
	ib_val *rows;
	ib_error e = {0};
	cr_assert_eq(ev_collect_rows(a, d.dir, &rows, &e), IB_EINVAL);
	cr_assert(strstr(e.file, "s/meta_env.json"), "%s", e.file);
	cr_assert(strstr(e.msg, "'hw'"), "%s", e.msg);
	ib_arena_free(a);
	vclean(&d);
	vsetup(&d);
	mkset(&d, "s", "[1, 2]");
	a = ib_arena_new();
	cr_assert_eq(ev_collect_rows(a, d.dir, &rows, &e), IB_EINVAL);
	cr_assert(strstr(e.file, "s/meta_env.json"), "%s", e.file);
	ib_arena_free(a);
	vclean(&d);
}

Test(eval, collect_sort_keys_that_do_not_compare)
{
	vdir d;
	vsetup(&d);
	mkset(&d, "a", "{\"infmax_model_prefix\": \"dsr1\"}");
	mkset(&d, "b", "{\"infmax_model_prefix\": 5}");
	ib_arena *a = ib_arena_new();
	ib_val *rows;
	ib_error e = {0};
	cr_assert_eq(ev_collect_rows(a, d.dir, &rows, &e), 0);
	ib_buf out = {0};
	cr_assert_eq(ev_collect_report(rows, NULL, &out, &e), IB_EINVAL);
	/* sorted by hw first, the rows tie on every key: the prefixes are never compared */
	out.len = 0;
	cr_assert_eq(ev_collect_report(rows, "hw", &out, &e), 0, "%s", e.msg);
	ib_buf_free(&out);
	ib_arena_free(a);
	vclean(&d);
}

/* Few-shot selection: CPython's random.Random(1234).sample, per eval doc in
 * order, for several train sizes (tests/data/fewshot-cpython.tsv was written
 * by CPython 3.11). */
Test(eval, fewshot_sample_matches_cpython)
{
	FILE *f = fopen("tests/data/fewshot-cpython.tsv", "r");
	cr_assert_not_null(f, "run the unit tests from the repository root");
	char line[512], last_key[32] = "";
	ib_mt m;
	size_t checked = 0;
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#')
			continue;
		char key[32];
		size_t doc, n, k = 5;
		int off;
		cr_assert(sscanf(line, "%31s %zu %n", key, &doc, &off) == 2, "%s", line);
		n = strtoul(key, NULL, 10);
		if (strchr(key, '/'))
			k = strtoul(strchr(key, '/') + 1, NULL, 10);
		if (strcmp(key, last_key)) {
			ib_mt_py_seed(&m, 1234);
			snprintf(last_key, sizeof last_key, "%s", key);
		}
		size_t got[16];
		ev_py_sample(&m, n, k, got);
		char *p = line + off;
		for (size_t i = 0; i < k; i++) {
			size_t want = strtoul(p, &p, 10);
			cr_assert_eq(got[i], want, "n=%s doc %zu item %zu: %zu, CPython %zu", key,
			             doc, i, got[i], want);
			if (*p == ',')
				p++;
		}
		checked++;
	}
	fclose(f);
	cr_assert_eq(checked, 160);
}

/* The request body is lm-eval's local-chat-completions payload (A.2). */
Test(eval, request_body_has_the_reference_shape)
{
	ib_arena *a = ib_arena_new();
	ib_val *task;
	ib_error e = {0};
	cr_assert_eq(
	    ib_yaml_load(a, "t", ev_gsm8k_task_yaml, strlen(ev_gsm8k_task_yaml), &task, &e), 0,
	    "%s", e.msg);
	ev_doc train[1] = {{"T?", "t\n#### 1", 2, 8}}, test[1] = {{"Q?", "a\n#### 2", 2, 8}};
	ev_dataset d = {.train = {train, 1}, .test = {test, 1}};
	ev_run_opts o = {.model = "M", .data = &d, .task = task, .max_tokens = 5376, .seed = 1234};
	size_t shots[1] = {0};
	ib_buf b = {0};
	cr_assert_eq(ev_request_body(&o, 0, shots, 1, &b, &e), 0, "%s", e.msg);
	const char *want =
	    "{\"messages\": [{\"role\": \"user\", \"content\": \"Question: T?\\nEnd your response "
	    "with "
	    "the answer on the last line, formatted as: #### [number]\\nAnswer:\"}, {\"role\": "
	    "\"assistant\", \"content\": \"t\\n#### 1\"}, {\"role\": \"user\", \"content\": "
	    "\"Question: Q?\\nEnd your response with the answer on the last line, formatted as: "
	    "#### [number]\\nAnswer:\"}], \"model\": \"M\", \"max_tokens\": 5376, \"temperature\": "
	    "0, "
	    "\"stop\": [\"</s>\", \"<|im_end|>\"], \"seed\": 1234, \"top_p\": 1}";
	cr_assert_str_eq(b.data, want);
	ib_buf_free(&b);
	ib_arena_free(a);
}

/* issue 33, defect 2: a 10 MB answer that makes a regex give up (PCRE2's
 * match limit, from the backtracking of "(?s).*#### " over it) is scored as
 * wrong, not an error that ends the eval. */
Test(eval, pathological_answer_is_scored_wrong)
{
	ib_arena *a = ib_arena_new();
	ib_val *task;
	ib_error e = {0};
	cr_assert_eq(
	    ib_yaml_load(a, "t", ev_gsm8k_task_yaml, strlen(ev_gsm8k_task_yaml), &task, &e), 0,
	    "%s", e.msg);
	ev_task *t;
	cr_assert_eq(ev_task_new(task, &t, &e), 0, "%s", e.msg);
	size_t n = 10u << 20;
	char *resp = malloc(n + 1);
	cr_assert(resp);
	memset(resp, '1', n);
	resp[n] = 0;
	size_t nf = ev_task_nfilters(t);
	ib_buf ans[8] = {{0}};
	double sc[8];
	for (size_t i = 0; i < nf; i++)
		sc[i] = -1;
	cr_assert_eq(ev_task_score(t, resp, n, "a\n#### 2", 8, ans, sc, &e), 0, "%s", e.msg);
	for (size_t i = 0; i < nf; i++) {
		cr_expect_eq(sc[i], 0.0, "filter %zu", i);
		ib_buf_free(&ans[i]);
	}
	/* the next answer is scored as usual */
	cr_assert_eq(ev_task_score(t, "so #### 2", 9, "a\n#### 2", 8, ans, sc, &e), 0, "%s", e.msg);
	cr_expect_eq(sc[0], 1.0);
	for (size_t i = 0; i < nf; i++)
		ib_buf_free(&ans[i]);
	free(resp);
	ev_task_free(t);
	ib_arena_free(a);
}
