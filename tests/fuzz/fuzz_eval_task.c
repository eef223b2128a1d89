/* An eval task YAML and the scoring of responses with it (eval/score.c:
 * ev_score_file, the filter_list regexes, take_first and exact_match
 * settings of lm-eval's gsm8k task). The input is the task YAML, then
 * optionally a form feed and a responses JSONL ({"response", "target"}
 * lines). Checks: no crash; a failure has a message; a success writes one
 * JSON object per line (the items, then the summary), every score 0 or 1. */
#include "fuzz.h"

#include "eval/eval.h"

static const char *const files[] = {"task.yaml", "responses.jsonl", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_tmpdir(files);
	size_t off[2], len[2];
	size_t np = fuzz_parts(data, size, 2, off, len);
	char task[512], resp[512];
	snprintf(task, sizeof task, "%s/task.yaml", dir);
	snprintf(resp, sizeof resp, "%s/responses.jsonl", dir);
	fuzz_write(task, data + off[0], len[0]);
	static const char one[] = "{\"response\": \"The answer is 42.\", \"target\": \"#### 42\"}\n";
	if (np > 1)
		fuzz_write(resp, data + off[1], len[1]);
	else
		fuzz_write(resp, one, sizeof one - 1);
	ib_buf out = {0};
	ib_error e = {0};
	int rc = ev_score_file(task, resp, &out, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc) {
		FUZZ_CHECK(e.msg[0], "error %d without a message", rc);
		goto done;
	}
	ib_arena *a = ib_arena_new();
	if (!a)
		abort();
	size_t lines = 0;
	for (size_t at = 0; at < out.len;) {
		const char *nl = memchr(out.data + at, '\n', out.len - at);
		size_t n = nl ? (size_t)(nl - (out.data + at)) : out.len - at;
		ib_val *v;
		FUZZ_CHECK(!ib_json_parse(a, "out", out.data + at, n, &v, &e) && v->type == IB_V_MAP,
		           "output line %zu is not a JSON object", lines + 1);
		for (size_t i = 0; i < v->map.n; i++) {
			const ib_val *k = v->map.kv[i].key, *x = v->map.kv[i].val;
			if (k->type == IB_V_STR && !strncmp(k->str.s, "exact_match,", 12) &&
			    !ib_map_get(v, "alias"))
				/* a score, or the answer of a filter named "exact_match,..." */
				FUZZ_CHECK((x->type == IB_V_FLOAT && (x->f == 0 || x->f == 1)) ||
				               x->type == IB_V_STR,
				           "line %zu: %s is not 0 or 1", lines + 1, k->str.s);
		}
		lines++;
		at += n + 1;
	}
	FUZZ_CHECK(lines >= 1, "no summary line");
	ib_arena_free(a);
done:
	ib_buf_free(&out);
	return 0;
}
