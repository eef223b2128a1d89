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
