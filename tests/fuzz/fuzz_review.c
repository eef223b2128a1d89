/* review's shell scanner and rules (review/: rv_review_docs in files mode,
 * the recipe, sister and master-config rules, and the three report
 * formats). The input is up to three parts parted by form feeds: a recipe
 * (reviewed as an fp4 MI300X vLLM MTP recipe), a sister recipe beside it,
 * and a master config (configs/nvidia-master.yaml, also reviewed); a
 * missing part is not in the tree. Checks: no crash; the review runs (0);
 * every finding has a known rule, a message and a fix, and a line inside its
 * file when it names a line of a reviewed recipe; the JSON report parses. */
#include "fuzz.h"

#include "fmt/fmt.h"
#include "review/review.h"

static const char recipe[] = "benchmarks/single_node/fixed_seq_len/toy_fp4_mi300x_vllm_mtp.sh";
static const char sister[] = "benchmarks/single_node/fixed_seq_len/toy_fp8_mi300x_mtp.sh";
static const char master[] = "configs/nvidia-master.yaml";

static size_t lines_of(const char *s, size_t n)
{
	size_t k = 1;
	for (size_t i = 0; i < n; i++)
		k += s[i] == '\n';
	return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off[3], len[3];
	size_t np = fuzz_parts(data, size, 3, off, len);
	char *text[3];
	rv_doc docs[3];
	const char *const paths[] = {recipe, sister, master};
	for (size_t i = 0; i < np; i++) {
		text[i] = fuzz_strdup(data + off[i], len[i]);
		docs[i] = (rv_doc){paths[i], text[i], len[i]};
	}
	const char *targets[] = {recipe, master};
	rv_report r = {0};
	r.a = ib_arena_new();
	if (!r.a)
		abort();
	ib_error e = {0};
	int rc = rv_review_docs(&r, docs, np, targets, np == 3 ? 2 : 1, &e);
	FUZZ_CHECK(rc == 0, "review rc %d: %s", rc, e.msg);
	for (size_t i = 0; i < r.findings.n; i++) {
		const ib_diag *g = &r.findings.items[i];
		FUZZ_CHECK(g->rule && rv_rule_index(g->rule) >= 0, "finding %zu: rule %s", i,
		           g->rule ? g->rule : "(none)");
		FUZZ_CHECK(g->msg && g->msg[0] && g->fix, "finding %zu (%s) without a message or fix",
		           i, g->rule);
		if (g->file && !strcmp(g->file, recipe))
			FUZZ_CHECK(g->line >= 0 && (size_t)g->line <= lines_of(text[0], len[0]),
			           "finding %zu (%s) at line %d of %zu", i, g->rule, g->line,
			           lines_of(text[0], len[0]));
	}
	ib_buf out = {0};
	FUZZ_CHECK(rv_format_text(&r, &out) == 0, "text");
	ib_buf_free(&out);
	FUZZ_CHECK(rv_format_github(&r, &out) == 0, "github");
	ib_buf_free(&out);
	FUZZ_CHECK(rv_format_json(&r, &out) == 0, "json");
	ib_val *v;
	FUZZ_CHECK(ib_json_parse(r.a, "report", out.data, out.len, &v, &e) == 0,
	           "the JSON report does not parse: %s", e.msg);
	ib_buf_free(&out);
	rv_report_free(&r);
	ib_arena_free(r.a);
	for (size_t i = 0; i < np; i++)
		free(text[i]);
	return 0;
}
