/* review: the recipe and sister rules over in-memory synthetic recipes
 * (written for these tests), through rv_review_docs. */
#include "review/review.h"

#include <criterion/criterion.h>
#include <string.h>

#define SIS_A                                                                                      \
	"DRAFT_MODEL=org/d\n"                                                                      \
	"if [[ \"$MODEL\" != /* ]]; then\n  hf download \"$MODEL\"\n  hf download "                \
	"\"$DRAFT_MODEL\"\nfi\n"                                                                   \
	"vllm serve \"$MODEL\" --port \"$PORT\" \\\n    --block-size 128 \\\n"                     \
	"    --speculative-config \"{}\" > log 2>&1 &\n"                                           \
	"run_benchmark_serving \\\n    --model \"$MODEL\" \\\n    --use-chat-template\n"

static size_t count_rule(const rv_report *r, const char *rule)
{
	size_t n = 0;
	for (size_t i = 0; i < r->findings.n; i++)
		n += !strcmp(r->findings.items[i].rule, rule);
	return n;
}

static const ib_diag *first(const rv_report *r, const char *rule)
{
	for (size_t i = 0; i < r->findings.n; i++)
		if (!strcmp(r->findings.items[i].rule, rule))
			return &r->findings.items[i];
	return NULL;
}

/* reviews `target` (as the fp4 mi300x recipe) beside two sisters */
static void review(rv_report *r, const char *target)
{
	rv_doc docs[] = {
	    {"benchmarks/single_node/fixed_seq_len/toy_fp8_mi300x_mtp.sh", SIS_A, strlen(SIS_A)},
	    {"benchmarks/single_node/fixed_seq_len/deprecated/toy_fp8_mi325x_mtp.sh", SIS_A,
	     strlen(SIS_A)},
	    {"benchmarks/single_node/fixed_seq_len/toy_fp4_mi300x_vllm_mtp.sh", target,
	     strlen(target)},
	};
	const char *t[] = {docs[2].path};
	r->a = ib_arena_new();
	ib_error e = {0};
	cr_assert_eq(rv_review_docs(r, docs, 3, t, 1, &e), 0, "%s", e.msg);
}

static void done(rv_report *r)
{
	rv_report_free(r);
	ib_arena_free(r->a);
}

Test(review, sister_guard_flags_the_unguarded_download)
{
	const char *bad =
	    "DRAFT_MODEL=org/d\n"
	    "if [[ \"$MODEL\" != /* ]]; then hf download \"$MODEL\"; fi\n"
	    "hf download \"$DRAFT_MODEL\"\n"
	    "vllm serve \"$MODEL\" --port \"$PORT\" \\\n    --block-size 64 \\\n"
	    "    --speculative-config \"{}\" > log 2>&1 &\n"
	    "run_benchmark_serving \\\n    --model \"$MODEL\" \\\n    --use-chat-template\n";
	rv_report r = {0};
	review(&r, bad);
	const ib_diag *f = first(&r, "sister-guard");
	cr_assert(f);
	cr_assert_eq(f->line, 3);
	cr_assert_eq(f->severity, RV_BLOCKING);
	cr_assert_eq(f->nquotes, 4); /* each sister's guard and guarded line */
	cr_assert(strstr(f->fix, "block at line 2"), "%s", f->fix);
	cr_assert_eq(count_rule(&r, "sister-flag"), 0);
	done(&r);
}

Test(review, sister_guard_passes_when_guarded_and_ignores_case_arms)
{
	rv_report r = {0};
	review(&r, SIS_A);
	cr_assert_eq(count_rule(&r, "sister-guard"), 0);
	cr_assert_eq(ib_diags_count(&r.findings, RV_BLOCKING), 0);
	cr_assert_eq(r.checked[rv_rule_index("sister-guard")], 1);
	done(&r);
}

Test(review, recipe_rules_fail_and_pass)
{
	const char *bad =
	    "if [[ \"$MODEL\" != /* ]]; then\n  hf download \"$MODEL\"\n  hf download "
	    "\"$DRAFT_MODEL\"\nfi\n"
	    "vllm serve \"$MODEL\" --port \"$PORT\" --block-size 128 --enable-expert-parallel "
	    "--speculative-config \"{}\" &\n"
	    "run_benchmark_serving --model \"$MODEL\"\n";
	rv_report r = {0};
	review(&r, bad);
	cr_assert_eq(count_rule(&r, "mtp-chat-template"), 1);
	cr_assert_eq(count_rule(&r, "ep-hardcoded"), 1);
	cr_assert_eq(count_rule(&r, "launch-args-per-line"), 1);
	cr_assert_eq(first(&r, "launch-args-per-line")->line, 5);
	done(&r);
	/* the EP flag under an EP_SIZE condition, one option per line, chat template */
	const char *good =
	    "if [ \"$EP_SIZE\" -gt 1 ]; then EP=--enable-expert-parallel; fi\n" SIS_A;
	r = (rv_report){0};
	review(&r, good);
	cr_assert_eq(count_rule(&r, "mtp-chat-template"), 0);
	cr_assert_eq(count_rule(&r, "ep-hardcoded"), 0);
	cr_assert_eq(count_rule(&r, "launch-args-per-line"), 0);
	cr_assert_eq(r.checked[rv_rule_index("ep-hardcoded")], 1);
	done(&r);
}

Test(review, heredoc_bodies_and_comments_are_not_commands)
{
	const char *t = "# hf download \"$DRAFT_MODEL\"\n"
	                "python3 - <<'EOF'\nhf download \"$DRAFT_MODEL\"\nEOF\n" SIS_A;
	rv_report r = {0};
	review(&r, t);
	cr_assert_eq(count_rule(&r, "sister-guard"), 0);
	done(&r);
}

Test(review, formats)
{
	rv_report r = {0};
	review(&r, "hf download \"$DRAFT_MODEL\"\n" SIS_A);
	ib_buf o = {0};
	cr_assert_eq(rv_format_github(&r, &o), 0);
	cr_assert(strstr(o.data, "::error file=benchmarks/single_node/fixed_seq_len/"
	                         "toy_fp4_mi300x_vllm_mtp.sh,line=1,title=sister-guard::"),
	          "%s", o.data);
	o.len = 0;
	cr_assert_eq(rv_format_json(&r, &o), 0);
	cr_assert(strstr(o.data, "\"rule\": \"sister-guard\""));
	o.len = 0;
	cr_assert_eq(rv_format_text(&r, &o), 0);
	cr_assert(strstr(o.data, "🔴 sister-guard:"));
	ib_buf_free(&o);
	done(&r);
}
