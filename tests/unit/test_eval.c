/* eval: gsm8k extraction and scoring on a small task file. */
#include "eval/eval.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	write(y, "task: gsm8k\n"
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
	write(p, "{\"question\": \"q\", \"answer\": \"a\\n#### 1\"}\n\n{\"question\": 5, \"answer\": \"x\"}\n");
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
