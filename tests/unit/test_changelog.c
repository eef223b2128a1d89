/* Unit tests for changelog/: ChangelogEntry validation, the byte-level
 * append-only gate, and CI priority scores (spec/matrix.md §4.2, §4.4, §4.6).
 * process itself runs against a git fixture in tests/golden/run_changelog.sh
 * and tests/e2e/changelog.sh. */
#include <criterion/criterion.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "changelog/changelog.h"
#include "changelog/private.h"

static ib_arena *A;
static void setup(void)
{
	A = ib_arena_new();
	cr_assert_not_null(A);
}
static void teardown(void)
{
	ib_arena_free(A);
}
TestSuite(changelog, .init = setup, .fini = teardown);

#define ENTRY(keys, link)                                                                          \
	"- config-keys:\n    - " keys "\n  description:\n    - \"d\"\n  pr-link: " link "\n"
#define LINK "https://github.com/SemiAnalysisAI/InferenceX/pull/"

static int gate(const char *base, const char *head, int64_t pr, ib_error *e)
{
	size_t add, corr;
	return clog_gate(A, base, strlen(base), head, strlen(head), "perf-changelog.yaml", pr, &add,
	                 &corr, e);
}

static const char BASE[] = ENTRY("a", LINK "1") "\n" ENTRY("b", LINK "2");

Test(changelog, gate_accepts_an_entry_appended_after_one_empty_line)
{
	ib_error e = {0};
	size_t add = 9, corr = 9;
	const char head[] =
	    ENTRY("a", LINK "1") "\n" ENTRY("b", LINK "2") "\n" ENTRY("c", LINK "3");
	cr_assert_eq(
	    clog_gate(A, BASE, strlen(BASE), head, strlen(head), "p.yaml", -1, &add, &corr, &e), 0,
	    "%s", e.msg);
	cr_assert_eq(add, 1);
	cr_assert_eq(corr, 0);
}

Test(changelog, gate_rejects_an_entry_inserted_in_the_middle)
{
	ib_error e = {0};
	const char head[] =
	    ENTRY("a", LINK "1") "\n" ENTRY("c", LINK "3") "\n" ENTRY("b", LINK "2");
	cr_assert_eq(gate(BASE, head, -1, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "entry 2 changed"), "%s", e.msg);
	cr_assert_eq(e.line, 7, "line %d", e.line);
}

Test(changelog, gate_rejects_changed_history_bytes)
{
	ib_error e = {0};
	/* same entries, but the history was re-indented */
	const char head[] = "- config-keys:\n  - a\n  description:\n    - \"d\"\n  pr-link: " LINK
	                    "1\n\n" ENTRY("b", LINK "2") "\n" ENTRY("c", LINK "3");
	cr_assert_eq(gate(BASE, head, -1, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "changed historical perf-changelog.yaml bytes"), "%s", e.msg);
	cr_assert_eq(e.line, 2);
}

Test(changelog, gate_wants_one_empty_separator_line)
{
	ib_error e = {0};
	const char none[] = ENTRY("a", LINK "1") "\n" ENTRY("b", LINK "2") ENTRY("c", LINK "3");
	cr_assert_eq(gate(BASE, none, -1, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "separated from history by one empty line"), "%s", e.msg);
	const char two[] = ENTRY("a", LINK "1") "\n" ENTRY("b", LINK "2") "\n" ENTRY(
	    "c", LINK "3") "\n\n" ENTRY("d", LINK "4");
	cr_assert_eq(gate(BASE, two, -1, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "exactly one empty separator line"), "%s", e.msg);
	const char trailing[] =
	    ENTRY("a", LINK "1") "\n" ENTRY("b", LINK "2") "\n" ENTRY("c", LINK "3") "\n";
	cr_assert_eq(gate(BASE, trailing, -1, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "must end with one newline"), "%s", e.msg);
}

Test(changelog, gate_pr_links_of_new_entries)
{
	ib_error e = {0};
	const char xxx[] =
	    ENTRY("a", LINK "1") "\n" ENTRY("b", LINK "2") "\n" ENTRY("c", LINK "XXX");
	cr_assert_eq(gate(BASE, xxx, 7, &e), 0, "%s", e.msg);
	cr_assert_eq(gate(BASE, xxx, -1, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "new main-branch entry has invalid pr-link"), "%s", e.msg);
	const char other[] =
	    ENTRY("a", LINK "1") "\n" ENTRY("b", LINK "2") "\n" ENTRY("c", LINK "8");
	cr_assert_eq(gate(BASE, other, 8, &e), 0, "%s", e.msg);
	cr_assert_eq(gate(BASE, other, 7, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "new PR entry must use '" LINK "7' or an XXX placeholder"), "%s",
	          e.msg);
}

Test(changelog, gate_pr_link_corrections)
{
	ib_error e = {0};
	const char base[] = ENTRY("a", "XXX") "\n" ENTRY("b", LINK "2");
	const char fixed[] = ENTRY("a", LINK "11") "\n" ENTRY("b", LINK "2");
	size_t add, corr;
	cr_assert_eq(
	    clog_gate(A, base, strlen(base), fixed, strlen(fixed), "p", -1, &add, &corr, &e), 0,
	    "%s", e.msg);
	cr_assert_eq(corr, 1);
	const char bad[] = ENTRY("a", "https://example.com/1") "\n" ENTRY("b", LINK "2");
	cr_assert_eq(gate(base, bad, -1, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "pr-link correction is not canonical"), "%s", e.msg);
	const char mixed[] =
	    ENTRY("a", LINK "11") "\n" ENTRY("b", LINK "2") "\n" ENTRY("c", LINK "3");
	cr_assert_eq(gate(base, mixed, -1, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "do not mix"), "%s", e.msg);
}

Test(changelog, gate_rejects_deleted_entries_and_no_change_passes)
{
	ib_error e = {0};
	cr_assert_eq(gate(BASE, ENTRY("a", LINK "1"), -1, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "entries were deleted"), "%s", e.msg);
	cr_assert_eq(gate(BASE, BASE, -1, &e), 0, "%s", e.msg);
}

Test(changelog, parse_file_level_rules)
{
	ib_error e = {0};
	ib_val *v;
	const char *bad[][2] = {
	    {ENTRY("a", "x") "\t\n", "contains tabs"},
	    {ENTRY("a", "x") "\r\n", "contains CR characters"},
	    {"- config-keys: [a]\n  description: [d]\n  pr-link: x\n  pr-link: y\n",
	     "found duplicate key"},
	    {"- {config-keys: [a], description: [d], pr-link: x}\n", "top-level config entries"},
	    {"config-keys: [a]\n", "root must be a YAML list"},
	    {"- config-keys: [a]\n  description: [d]\n", "field 'pr-link': field required"},
	    {"- config-keys: [a]\n  description: [d]\n  pr-link: x\n  colour: red\n",
	     "unknown field 'colour'"},
	    {"- config-keys: []\n  description: [d]\n  pr-link: x\n", "at least 1 item"},
	    {"- config-keys: [a]\n  description: [d]\n  pr-link: x\n  append-only: true\n"
	     "  evals-only: true\n",
	     "append-only cannot be combined with eval selection fields"},
	    {"- config-keys: [a]\n  description: [d]\n  pr-link: x\n  scenario-type: [nope]\n",
	     "'fixed-seq-len' or 'agentic-coding'"},
	    {"- config-keys: [a]\n  description: [d]\n  pr-link: x\n  eval-min-prefill-ep: 0\n",
	     "greater than or equal to 1"},
	    {"- config-keys: [a]\n  description: [d]\n  pr-link: x", "does not end with a newline"},
	    {"- config-keys: [a]\n  description: [\xff]\n  pr-link: x\n", "is not UTF-8"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cr_expect_eq(clog_parse(A, bad[i][0], strlen(bad[i][0]), "f", &v, &e), IB_EINVAL,
		             "case %zu", i);
		cr_expect(strstr(e.msg, bad[i][1]), "case %zu: %s", i, e.msg);
	}
	const char ok[] =
	    "- config-keys: [a]\n  description: [d]\n  pr-link: x\n  evals-only: yes\n";
	cr_assert_eq(clog_parse(A, ok, strlen(ok), "f", &v, &e), 0, "%s", e.msg);
	cr_assert_eq(v->list.n, 1);
}

Test(changelog, parse_error_positions)
{
	ib_error e = {0};
	ib_val *v;
	const char t[] =
	    ENTRY("a", "x") "\n- config-keys:\n    - b\n  description: 5\n  pr-link: y\n";
	cr_assert_eq(clog_parse(A, t, strlen(t), "f", &v, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "entry 2"), "%s", e.msg);
	cr_assert_eq(e.line, 9, "line %d: %s", e.line, e.msg);
}

/* ---- CI priority ---- */

static const char POLICY[] = "version: 1\nbase-score: 1.0\nadjustments:\n  event: {push: 2.0}\n"
                             "  multi-node: 1.25\n  agentic: 1.0\n  eval-only: 0.0\n"
                             "  precision: {fp4: 0.75}\n  spec-decoding: {mtp: 0.75}\n"
                             "  framework-prefix: {sglang: 0.5, vllm: 0.5}\n"
                             "  model-prefix: {kimik3: 1.5, dsr1: 0.0005}\n"
                             "labels:\n  skip-queue: {name: skip_queue}\n"
                             "  checklist-complete: {names: [ok], adjustment: 0.25}\n"
                             "  patchwork: {names: [patch], score: 0.0, waived-by: [waive]}\n";

static const char *annotate(const char *job, const clog_prio_ctx *c, ib_error *e)
{
	ib_val *pol, *in, *out;
	cr_assert_eq(ib_yaml_load(A, "p", POLICY, strlen(POLICY), &pol, e), 0);
	cr_assert_eq(clog_policy_check(pol, "p", e), 0);
	cr_assert_eq(ib_json_parse(A, "j", job, strlen(job), &in, e), 0);
	if (clog_annotate(A, in, pol, c, &out, e))
		return NULL;
	ib_buf b = {0};
	ib_json_opts jo = {.indent = -1, .compact = true, .ensure_ascii = true};
	cr_assert_eq(ib_json_write(&b, out, &jo, e), 0);
	char *s = ib_arena_strdup(A, b.data);
	ib_buf_free(&b);
	return s;
}

Test(changelog, priority_sums_adjustments_and_rounds_half_up)
{
	ib_error e = {0};
	clog_prio_ctx c = {.event_name = "push", .queue_namespace = "local"};
	/* 1.0 + 2.0 + 0.75 (fp4) + 0.5 (sglang-disagg prefix) + 0.0005 (dsr1) = 4.2505 -> 4.251 */
	const char *s = annotate("[{\"runner\":\"r\",\"framework\":\"sglang-disagg\","
	                         "\"precision\":\"fp4\",\"model-prefix\":\"dsr1\"}]",
	                         &c, &e);
	cr_assert_not_null(s, "%s", e.msg);
	cr_assert(strstr(s, "\"priority\":\"4.251\""), "%s", s);
	cr_assert(strstr(s, "\"queue-token\":\""), "%s", s);
	cr_assert_null(strstr(s, "skip-queue-pr"), "%s", s);
}

Test(changelog, priority_labels_patchwork_skip_queue_and_tokens)
{
	ib_error e = {0};
	const char *labels[] = {"patch", "skip_queue"};
	clog_prio_ctx c = {.event_name = "",
	                   .queue_namespace = "ns",
	                   .labels = labels,
	                   .nlabels = 2,
	                   .has_pr = true,
	                   .pr_number = 42};
	const char job[] = "{\"a\":[{\"runner\":\"r\",\"framework\":\"vllm\"}]}";
	const char *s = annotate(job, &c, &e);
	cr_assert(strstr(s, "\"priority\":\"0.000\""), "%s", s);
	cr_assert(strstr(s, "\"skip-queue-pr\":42"), "%s", s);
	clog_prio_ctx c2 = c;
	c2.queue_namespace = "other";
	const char *s2 = annotate(job, &c2, &e);
	cr_assert_str_neq(s, s2, "the namespace must change the queue token");
	const char *w[] = {"patch", "waive"};
	c.labels = w;
	s = annotate(job, &c, &e);
	cr_assert(strstr(s, "\"priority\":\"1.500\""), "%s", s);
}

Test(changelog, priority_criteria)
{
	ib_error e = {0};
	const char *crit[] = {"fp4", "nope"};
	clog_prio_ctx c = {.event_name = "",
	                   .queue_namespace = "l",
	                   .has_criteria = true,
	                   .criteria = crit,
	                   .ncriteria = 2};
	cr_assert_null(annotate("[{\"runner\":\"r\",\"framework\":\"vllm\"}]", &c, &e));
	cr_assert(strstr(e.msg, "Unknown CI priority criteria: ['nope']"), "%s", e.msg);
	c.ncriteria = 1;
	/* only fp4 counts: vllm is not a named criterion */
	const char *s =
	    annotate("[{\"runner\":\"r\",\"framework\":\"vllm\",\"precision\":\"fp4\"}]", &c, &e);
	cr_assert(strstr(s, "\"priority\":\"1.750\""), "%s", s);
}

Test(changelog, policy_version_is_checked)
{
	ib_val *pol;
	ib_error e = {0};
	const char t[] = "version: 2\n";
	cr_assert_eq(ib_yaml_load(A, "p", t, strlen(t), &pol, &e), 0);
	cr_assert_eq(clog_policy_check(pol, "p", &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "Unsupported CI priority policy version: 2"), "%s", e.msg);
}

/* The added lines of a git diff (clog_process's reader, clog_diff_additions):
 * lines numbered from the hunk heads; a hunk at INT_MAX does not wrap (found
 * by the changelog fuzz target: signed overflow); a deleted line is refused
 * with its line at base. */
Test(changelog, diff_additions_number_lines_from_hunk_heads)
{
	clog_opts o = {.base_ref = "b", .head_ref = "h", .changelog_file = "perf-changelog.yaml"};
	ib_error e = {0};
	clog_additions ad = {0};
	static const char d1[] =
	    "--- a/x\n+++ b/x\n@@ -3,2 +5,4 @@\n a\n+one\n+two\n-\n b\n+three\n";
	cr_assert_eq(clog_diff_additions(d1, sizeof d1 - 1, &o, &ad, &e), 0, "%s", e.msg);
	cr_assert_eq(ad.n, 3);
	cr_assert_eq(ad.lines[0], 6);
	cr_assert_eq(ad.lines[1], 7);
	cr_assert_eq(ad.lines[2], 9);
	cr_assert_str_eq(ad.text.data, "one\ntwo\nthree");
	ib_buf_free(&ad.text);
	free(ad.lines);
	ad = (clog_additions){0};
	static const char d2[] = "@@ -99999999999 +2147483647,3 @@\n+a\n+b\n x\n-\n+c\n";
	cr_assert_eq(clog_diff_additions(d2, sizeof d2 - 1, &o, &ad, &e), 0, "%s", e.msg);
	cr_assert_eq(ad.n, 3);
	cr_assert_eq(ad.lines[0], INT_MAX);
	cr_assert_eq(ad.lines[2], INT_MAX);
	ib_buf_free(&ad.text);
	free(ad.lines);
	ad = (clog_additions){0};
	static const char d3[] = "@@ -7 +7,2 @@\n x\n-gone\n+new\n";
	cr_assert_eq(clog_diff_additions(d3, sizeof d3 - 1, &o, &ad, &e), IB_EINVAL);
	cr_assert_eq(e.line, 8);
	cr_assert(strstr(e.msg, "Deletions are not allowed"), "%s", e.msg);
	ib_buf_free(&ad.text);
	free(ad.lines);
}
