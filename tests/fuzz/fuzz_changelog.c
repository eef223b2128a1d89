/* The perf-changelog parsers (changelog/: clog_parse, the gate clog_gate,
 * the added lines of a git diff clog_diff_additions, and each added entry
 * through clog_entry_validate as clog_process reads them). The input is
 * three parts parted by form feeds: the changelog at base, at head, and a
 * `git diff base head -- perf-changelog.yaml` (a missing part is empty).
 * Checks: no crash; every failure has a message; parse gives a list; a gate
 * that passes counts head's entries as base's plus the added ones; each
 * validated entry is a map. */
#include "fuzz.h"

#include "changelog/private.h"

static void entries(ib_arena *a, const char *s, size_t n, const char *label)
{
	ib_val *list = NULL;
	ib_error e = {0};
	int rc = clog_parse(a, s, n, label, &list, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc)
		FUZZ_CHECK(e.msg[0], "%s: error %d without a message", label, rc);
	else
		FUZZ_CHECK(list && list->type == IB_V_LIST, "%s: not a list", label);
}

static void additions(ib_arena *a, const char *diff, size_t n)
{
	clog_opts o = {.base_ref = "base", .head_ref = "head",
	               .changelog_file = "perf-changelog.yaml"};
	clog_additions ad = {0};
	ib_error e = {0};
	int rc = clog_diff_additions(diff, n, &o, &ad, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc) {
		FUZZ_CHECK(e.msg[0], "diff: error %d without a message", rc);
		goto done;
	}
	FUZZ_CHECK(ad.text.data, "no text");
	size_t lines = 1;
	for (size_t i = 0; i < ad.text.len; i++)
		lines += ad.text.data[i] == '\n';
	FUZZ_CHECK(ad.n == 0 || lines == ad.n, "%zu added lines, %zu lines of text", ad.n, lines);
	if (!ad.n)
		goto done;
	clog_where w = {.file = o.changelog_file, .lines = ad.lines, .nlines = ad.n};
	ib_val *doc;
	if (ib_yaml_load(a, w.file, ad.text.data, ad.text.len, &doc, &e) || doc->type != IB_V_LIST)
		goto done;
	for (size_t i = 0; i < doc->list.n; i++) {
		ib_val *norm = NULL;
		w.index = (int)i + 1;
		rc = clog_entry_validate(a, doc->list.v[i], &w, &norm, &e);
		FUZZ_CHECK(rc <= 0, "entry rc %d", rc);
		if (rc)
			FUZZ_CHECK(e.msg[0], "entry %zu: error %d without a message", i, rc);
		else
			FUZZ_CHECK(norm && norm->type == IB_V_MAP, "entry %zu is not a map", i);
		(void)clog_line(&w, doc->list.v[i]);
	}
done:
	ib_buf_free(&ad.text);
	free(ad.lines);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off[3], len[3];
	size_t np = fuzz_parts(data, size, 3, off, len);
	/* the parsers take text with its length: each part in its own allocation */
	char *part[3];
	for (size_t i = 0; i < 3; i++)
		part[i] = i < np ? fuzz_strdup(data + off[i], len[i]) : fuzz_strdup(NULL, 0);
	size_t n[3] = {np > 0 ? len[0] : 0, np > 1 ? len[1] : 0, np > 2 ? len[2] : 0};
	ib_arena *a = ib_arena_new();
	if (!a)
		abort();
	entries(a, part[0], n[0], "base");
	if (np > 1)
		entries(a, part[1], n[1], "head");
	size_t added = 0, corr = 0;
	ib_error e = {0};
	int rc = clog_gate(a, part[0], n[0], part[1], n[1], "perf-changelog.yaml", -1, &added,
	                   &corr, &e);
	FUZZ_CHECK(rc <= 0, "gate rc %d", rc);
	if (rc) {
		FUZZ_CHECK(e.msg[0], "gate: error %d without a message", rc);
	} else {
		ib_val *b, *h;
		FUZZ_CHECK(!clog_parse(a, part[0], n[0], "b", &b, &e) &&
		               !clog_parse(a, part[1], n[1], "h", &h, &e) &&
		               h->list.n == b->list.n + added,
		           "gate passed, %zu added", added);
		FUZZ_CHECK(!(added && corr), "%zu added with %zu corrections", added, corr);
	}
	rc = clog_gate(a, part[0], n[0], part[1], n[1], "perf-changelog.yaml", 42, &added, &corr,
	               &e);
	FUZZ_CHECK(rc <= 0 && (!rc || e.msg[0]), "gate (PR 42) rc %d", rc);
	additions(a, part[2], n[2]);
	if (np == 1) /* one part: it is the diff too */
		additions(a, part[0], n[0]);
	ib_arena_free(a);
	for (size_t i = 0; i < 3; i++)
		free(part[i]);
	return 0;
}
