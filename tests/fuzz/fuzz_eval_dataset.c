/* The gsm8k dataset reader (eval/dataset.c: ev_docs_load, JSON lines) on
 * any file content, and the final-answer finder on every answer it loads.
 * Checks: no crash; a failure names the file and, for a bad line, its line;
 * loaded documents point inside the arena with their lengths. */
#include "fuzz.h"

#include "eval/eval.h"

static const char *const files[] = {"test.jsonl", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[512];
	snprintf(path, sizeof path, "%s/test.jsonl", fuzz_tmpdir(files));
	fuzz_write(path, data, size);
	ib_arena *a = ib_arena_new();
	if (!a)
		return 0;
	ev_docs docs = {0};
	ib_error e = {0};
	int rc = ev_docs_load(a, path, &docs, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc) {
		FUZZ_CHECK(e.msg[0] && strstr(e.file, "test.jsonl"), "error %d: '%s' in '%s'", rc,
		           e.msg, e.file);
	} else {
		for (size_t i = 0; i < docs.n; i++) {
			const ev_doc *d = &docs.v[i];
			FUZZ_CHECK(d->question && d->answer, "doc %zu without text", i);
			FUZZ_CHECK(strlen(d->question) <= d->qlen && strlen(d->answer) <= d->alen,
			           "doc %zu lengths", i);
			size_t off, len;
			if (ev_answer_number(d->answer, d->alen, &off, &len))
				FUZZ_CHECK(off + len <= d->alen, "answer %zu+%zu of %zu", off, len,
				           d->alen);
		}
	}
	ib_arena_free(a);
	return 0;
}
