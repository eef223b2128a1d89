#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/sim.h"

static double step(const sim_config *c, int seqs, double ctx)
{
	sim_step s = {.decode_seqs = seqs, .decode_ctx_sum = seqs * ctx};
	return sim_step_time(c, &s);
}

Test(sim, profiles_exist)
{
	const char *hws[] = {"h100", "h200", "b200", "gb200", "mi300x", "mi325x", "mi355x"};
	for (size_t i = 0; i < 7; i++)
		cr_assert_not_null(sim_hw_find(hws[i]), "%s", hws[i]);
	const char *models[] = {"llama3-8b",         "llama3-70b", "deepseek-r1", "gpt-oss-120b",
	                        "qwen3.5-397b-a17b", "minimax-m3", "dsr1",        "qwen3.5"};
	for (size_t i = 0; i < 8; i++)
		cr_assert_not_null(sim_model_find(models[i]), "%s", models[i]);
	cr_assert_null(sim_model_find("nope"));
}

Test(sim, decode_is_memory_bound_and_batching_pays)
{
	sim_config c;
	sim_config_init(&c);
	double t1 = step(&c, 1, 1000), t64 = step(&c, 64, 1000), t256 = step(&c, 256, 1000);
	/* llama3-8b bf16 on one H100: ~16 GB of weights at ~2.7 TB/s */
	cr_assert(t1 > 0.005 && t1 < 0.008, "t1 %g", t1);
	/* per user slower, in total faster */
	cr_assert_gt(t64, t1);
	cr_assert_gt(t256, t64);
	cr_assert_gt(64 / t64, 1 / t1);
	cr_assert_gt(256 / t256, 64 / t64);
}

/* The per-sequence cost is paid per token a decode sequence carries: with
 * K draft tokens each sequence is verified on K + 1 tokens, so its share
 * of the step overhead is K + 1 times the plain one; the per-step cost and
 * a prefill (one sequence) are not multiplied. */
Test(sim, seq_overhead_per_verified_token)
{
	sim_config c;
	sim_config_init(&c);
	c.step_overhead_s = 1e-3;
	c.seq_overhead_s = 100e-6;
	sim_step s = {.decode_seqs = 10, .decode_ctx_sum = 10 * 1000.0};
	sim_step_parts p;
	sim_step_breakdown(&c, &s, &p);
	cr_assert_float_eq(p.overhead, 1e-3 + 10 * 100e-6, 1e-12);
	c.spec_method = "mtp";
	c.num_spec_tokens = 3;
	sim_step_breakdown(&c, &s, &p);
	cr_assert_float_eq(p.overhead, 1e-3 + 10 * 4 * 100e-6, 1e-12);
	/* a prefill chunk alongside counts once */
	s.prefill_tokens = 512;
	s.prefill_ctx_sum = 512 * 256.0;
	sim_step_breakdown(&c, &s, &p);
	cr_assert_float_eq(p.overhead, 1e-3 + (10 * 4 + 1) * 100e-6, 1e-12);
	/* so at a large batch, where the per-sequence cost dominates, drafting
	 * no longer pays: 64 sequences x (1 + accepted) tokens per step */
	c.seq_overhead_s = 400e-6;
	s = (sim_step){.decode_seqs = 64, .decode_ctx_sum = 64 * 1000.0};
	double t_spec = sim_step_time(&c, &s);
	c.spec_method = NULL;
	c.num_spec_tokens = 0;
	double t_plain = sim_step_time(&c, &s);
	cr_assert_gt(t_spec / 2.5, t_plain, "spec %g plain %g", t_spec, t_plain);
}

Test(sim, prefill_grows_with_length_and_tp_helps)
{
	sim_config c;
	sim_config_init(&c);
	sim_step a = {.prefill_tokens = 1024, .prefill_ctx_sum = 1024 * 512.0};
	sim_step b = {.prefill_tokens = 8192, .prefill_ctx_sum = 8192 * 4096.0};
	cr_assert_gt(sim_step_time(&c, &b), 4 * sim_step_time(&c, &a));
	double tp1 = step(&c, 8, 1000);
	c.tp = 8;
	cr_assert_lt(step(&c, 8, 1000), tp1 / 2);
}

Test(sim, moe_reads_touched_experts)
{
	sim_config c;
	sim_config_init(&c);
	c.model = *sim_model_find("deepseek-r1");
	c.hw = *sim_hw_find("b200");
	c.precision = "fp8";
	c.tp = 8;
	/* one token touches few experts, a big batch nearly all of them */
	double t1 = step(&c, 1, 100), t512 = step(&c, 512, 100);
	cr_assert_gt(t512, 3 * t1);
}

Test(sim, capacity_and_fit)
{
	sim_config c;
	sim_config_init(&c);
	sim_capacity cap;
	ib_error e = {0};
	cr_assert_eq(sim_capacity_of(&c, &cap, &e), 0);
	/* (80 GiB * 0.9 - 16 GB - 2 GB) / 128 KiB per token */
	cr_assert(cap.kv_blocks > 20000 && cap.kv_blocks < 30000, "%lld", (long long)cap.kv_blocks);
	c.model = *sim_model_find("llama3-70b");
	cr_assert_eq(sim_capacity_of(&c, &cap, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "needs"), "%s", e.msg);
}

Test(sim, acceptance_schedule_mean)
{
	sim_config c;
	sim_config_init(&c);
	c.spec_method = "mtp";
	c.num_spec_tokens = 3;
	c.acceptance_length = 2.49;
	sim_rng r;
	sim_rng_seed(&r, 42);
	long total = 0, steps = 100000;
	for (long i = 0; i < steps; i++) {
		int n = sim_tokens_per_step(&c, sim_rng_uniform(&r));
		cr_assert(n == 2 || n == 3, "minimum-variance schedule: %d", n);
		total += n;
	}
	cr_assert(fabs((double)total / steps - 2.49) < 0.01, "%g", (double)total / steps);
	c.acceptance_length = 9;
	cr_assert_eq(sim_tokens_per_step(&c, 0.5), 4); /* capped at k + 1 */
	c.spec_method = "none";
	cr_assert_eq(sim_tokens_per_step(&c, 0.5), 1);
}

Test(sim, profile_file_overrides_and_errors)
{
	char dir[] = "/tmp/ib-sim-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof path, "%s/p.yaml", dir);
	FILE *f = fopen(path, "w");
	fputs("hardware:\n  name: my-gpu\n  hbm-tbps: 10\nmodel:\n  layers: 40\n  params-b: 9\n",
	      f);
	fclose(f);
	sim_config c;
	sim_config_init(&c);
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	cr_assert_eq(sim_profile_load(path, &c.hw, &c.model, a, &e), 0, "%s", e.msg);
	cr_assert_str_eq(c.hw.name, "my-gpu");
	cr_assert_eq(c.hw.hbm_bw, 10e12);
	cr_assert_eq(c.model.layers, 40);
	cr_assert_eq(c.model.params, 9e9);
	f = fopen(path, "w");
	fputs("model:\n  layers: 40\n  wings: 2\n", f);
	fclose(f);
	cr_assert_eq(sim_profile_load(path, &c.hw, &c.model, a, &e), IB_EINVAL);
	cr_assert_eq(e.line, 3);
	cr_assert(strstr(e.msg, "model.wings"), "%s", e.msg);
	/* found by the sim_profile fuzz target: NaN, infinities and integers no
	 * int holds were converted (undefined behaviour), an empty section had
	 * no line */
	static const char *const bad[] = {"model:\n  layers: 1e10\n", "model:\n  hidden: .nan\n",
	                                  "hardware:\n  hbm-tbps: .inf\n",
	                                  "model:\n  layers: -.inf\n", "hardware:\nmodel: {}\n"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		f = fopen(path, "w");
		fputs(bad[i], f);
		fclose(f);
		cr_assert_eq(sim_profile_load(path, &c.hw, &c.model, a, &e), IB_EINVAL, "%s",
		             bad[i]);
		cr_assert_geq(e.line, 1, "%s: %s", bad[i], e.msg);
	}
	ib_arena_free(a);
	remove(path);
	remove(dir);
}

/* ---- grading evals (--eval-dataset) ---- */

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <unistd.h>

/* A generated gsm8k-style set of 1000 test questions, loaded into a grader. */
static sim_grader *eval_grader(char *dir, double acc, uint64_t seed)
{
	strcpy(dir, "/tmp/ib-simeval-XXXXXX");
	cr_assert(mkdtemp(dir));
	ib_error e = {0};
	cr_assert_eq(ev_dataset_generate(dir, 5, 1000, 1, &e), 0, "%s", e.msg);
	sim_grader *g = NULL;
	cr_assert_eq(sim_grader_load(dir, acc, seed, &g, &e), 0, "%s", e.msg);
	cr_assert_eq(sim_grader_count(g), 1000);
	return g;
}

static void eval_cleanup(const char *dir)
{
	char p[300];
	snprintf(p, sizeof p, "%s/train.jsonl", dir);
	unlink(p);
	snprintf(p, sizeof p, "%s/test.jsonl", dir);
	unlink(p);
	rmdir(dir);
}

static ev_docs eval_docs(ib_arena *a, const char *dir)
{
	char p[300];
	snprintf(p, sizeof p, "%s/test.jsonl", dir);
	ev_docs d = {0};
	ib_error e = {0};
	cr_assert_eq(ev_docs_load(a, p, &d, &e), 0, "%s", e.msg);
	return d;
}

/* The strict-match filter of gsm8k.yaml: the first group of the last match. */
static bool strict_match(const char *s, size_t n, char *out, size_t cap)
{
	int err;
	PCRE2_SIZE eo;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR) "#### (\\-?[0-9\\.\\,]+)",
	                               PCRE2_ZERO_TERMINATED, 0, &err, &eo, NULL);
	cr_assert_not_null(re);
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	bool found = false;
	size_t at = 0;
	while (at <= n && pcre2_match(re, (PCRE2_SPTR)s, n, at, 0, md, NULL) > 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		size_t l = ov[3] - ov[2];
		cr_assert_lt(l, cap);
		memcpy(out, s + ov[2], l);
		out[l] = '\0';
		found = true;
		at = ov[1] > ov[0] ? ov[1] : ov[0] + 1;
	}
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return found;
}

Test(sim, eval_verdict_is_deterministic_and_order_free)
{
	char dir[64];
	sim_grader *g = eval_grader(dir, 0.7, 42);
	ib_arena *a = ib_arena_new();
	ev_docs d = eval_docs(a, dir);
	static sim_eval_verdict fwd[1000], back[1000];
	for (size_t i = 0; i < d.n; i++)
		fwd[i] = sim_eval_judge(42, 0.7, d.v[i].question, d.v[i].qlen);
	for (size_t i = d.n; i-- > 0;)
		back[i] = sim_eval_judge(42, 0.7, d.v[i].question, d.v[i].qlen);
	int differ_seed = 0;
	for (size_t i = 0; i < d.n; i++) {
		cr_assert_eq(fwd[i].kind, back[i].kind, "question %zu", i);
		cr_assert_eq(fwd[i].delta, back[i].delta);
		cr_assert(fwd[i].delta != 0 && abs(fwd[i].delta) <= 9);
		/* the draw is what decides */
		double u = sim_eval_draw(42, d.v[i].question, d.v[i].qlen);
		cr_assert(u >= 0 && u < 1);
		cr_assert_eq(fwd[i].kind == SIM_EVAL_RIGHT ||
		                 fwd[i].kind == SIM_EVAL_REASONING_RIGHT,
		             u < 0.7);
		differ_seed +=
		    sim_eval_judge(43, 0.7, d.v[i].question, d.v[i].qlen).kind != fwd[i].kind;
	}
	cr_assert_gt(differ_seed, 100, "another seed gives other verdicts (%d differ)",
	             differ_seed);
	/* the table finds every question, trimmed, and nothing else */
	for (size_t i = 0; i < d.n; i++) {
		const ev_doc *f = sim_grader_find(g, d.v[i].question, d.v[i].qlen);
		cr_assert_not_null(f, "question %zu", i);
		cr_assert_str_eq(f->answer, d.v[i].answer);
	}
	cr_assert_null(sim_grader_find(g, "What is 2 + 2?", 14));
	cr_assert_null(sim_grader_find(g, d.v[0].question, d.v[0].qlen - 1));
	ib_arena_free(a);
	sim_grader_free(g);
	eval_cleanup(dir);
}

Test(sim, eval_rate_follows_accuracy)
{
	char dir[64];
	sim_grader *g = eval_grader(dir, 0.9, 1);
	ib_arena *a = ib_arena_new();
	ev_docs d = eval_docs(a, dir);
	/* 99% binomial intervals over 1000 questions: +-2.576 sd */
	const double ps[] = {0, 0.25, 0.5, 0.9, 1};
	for (size_t k = 0; k < 5; k++) {
		int right = 0, kinds[5] = {0};
		for (size_t i = 0; i < d.n; i++) {
			sim_eval_verdict v = sim_eval_judge(1, ps[k], d.v[i].question, d.v[i].qlen);
			right += v.kind == SIM_EVAL_RIGHT || v.kind == SIM_EVAL_REASONING_RIGHT;
			kinds[v.kind]++;
		}
		double mean = 1000 * ps[k], sd = sqrt(1000 * ps[k] * (1 - ps[k]));
		cr_assert(fabs(right - mean) <= 2.576 * sd + 1e-9, "P %g: %d right", ps[k], right);
		if (ps[k] == 1) { /* a tenth of the right ones in reasoning_content only */
			double sdr = sqrt(1000 * 0.1 * 0.9);
			cr_assert(fabs(kinds[SIM_EVAL_REASONING_RIGHT] - 100.0) <= 2.576 * sdr,
			          "%d", kinds[SIM_EVAL_REASONING_RIGHT]);
		}
		if (ps[k] == 0) { /* the mixture of failures: 50/20/30 %, none right */
			int want[5] = {0, 500, 0, 200, 300};
			for (int j = 1; j < 5; j++) {
				double sdj = sqrt(1000 * want[j] / 1000.0 * (1 - want[j] / 1000.0));
				cr_assert(fabs((double)kinds[j] - want[j]) <= 2.576 * sdj,
				          "kind %d: %d", j, kinds[j]);
			}
		}
	}
	ib_arena_free(a);
	sim_grader_free(g);
	eval_cleanup(dir);
}

Test(sim, eval_answers_by_kind)
{
	char dir[64];
	sim_grader *g = eval_grader(dir, 1, 1);
	ib_arena *a = ib_arena_new();
	ev_docs d = eval_docs(a, dir);
	for (size_t i = 0; i < 200; i++) {
		size_t off, len;
		cr_assert(ev_answer_number(d.v[i].answer, d.v[i].alen, &off, &len));
		char gold[64];
		snprintf(gold, sizeof gold, "%.*s", (int)len, d.v[i].answer + off);
		for (int k = SIM_EVAL_RIGHT; k <= SIM_EVAL_NO_MARKER; k++) {
			sim_eval_verdict v = {(sim_eval_kind)k, (int)(i % 9) + 1};
			ib_buf b = {0};
			cr_assert_eq(sim_eval_answer(&d.v[i], &v, &b), 0);
			cr_assert_null(strstr(b.data, "<<"), "no calculator annotations: %s",
			               b.data);
			cr_assert_not_null(strstr(b.data, "\n"), "worked lines come first: %s",
			                   b.data);
			char got[64];
			bool m = strict_match(b.data, b.len, got, sizeof got);
			switch (k) {
			case SIM_EVAL_RIGHT:
			case SIM_EVAL_REASONING_RIGHT:
				cr_assert(m, "%s", b.data);
				cr_assert_str_eq(got, gold);
				break;
			case SIM_EVAL_WRONG_NUMBER:
			case SIM_EVAL_REASONING_WRONG:
				cr_assert(m, "%s", b.data);
				cr_assert_eq(atol(got), atol(gold) + v.delta);
				cr_assert_str_neq(got, gold);
				break;
			default: {
				cr_assert(!m, "no #### in %s", b.data);
				char tail[80];
				snprintf(tail, sizeof tail, "The answer is %s.", gold);
				cr_assert(b.len > strlen(tail) &&
				              !strcmp(b.data + b.len - strlen(tail), tail),
				          "%s", b.data);
			}
			}
			cr_assert_eq(sim_eval_in_reasoning((sim_eval_kind)k),
			             k == SIM_EVAL_REASONING_RIGHT ||
			                 k == SIM_EVAL_REASONING_WRONG);
			ib_buf_free(&b);
		}
	}
	/* non-integer answers get a digit appended; commas are dropped before adding */
	ev_doc dec = {"q", "It is 7 / 2 = <<7/2=3.5>>3.5.\n#### 3.5", 1, 38};
	ev_doc big = {"q", "#### 1,234", 1, 10};
	ev_doc none = {"q", "no final line", 1, 13};
	sim_eval_verdict w = {SIM_EVAL_WRONG_NUMBER, -3};
	ib_buf b = {0};
	cr_assert_eq(sim_eval_answer(&dec, &w, &b), 0);
	cr_assert_str_eq(b.data, "It is 7 / 2 = 3.5.\n#### 3.51");
	b.len = 0;
	cr_assert_eq(sim_eval_answer(&big, &w, &b), 0);
	cr_assert_str_eq(b.data, "#### 1231");
	cr_assert_eq(sim_eval_answer(&none, &w, &b), IB_EINVAL);
	ib_buf_free(&b);
	ib_arena_free(a);
	sim_grader_free(g);
	eval_cleanup(dir);
}

/* The answers scored by the gsm8k task itself (ev_score_file): strict-match
 * counts the right kinds, flexible-extract also the "The answer is N." one,
 * so the two scores differ as on real servers. */
Test(sim, eval_answers_score_as_documented)
{
	char dir[64];
	sim_grader *g = eval_grader(dir, 0.6, 7);
	ib_arena *a = ib_arena_new();
	ev_docs d = eval_docs(a, dir);
	ib_buf lines = {0};
	int strict = 0, flexible = 0;
	for (size_t i = 0; i < d.n; i++) {
		sim_eval_verdict v = sim_eval_judge(7, 0.6, d.v[i].question, d.v[i].qlen);
		ib_buf b = {0};
		cr_assert_eq(sim_eval_answer(&d.v[i], &v, &b), 0);
		/* a client that falls back to reasoning_content when content is empty */
		ib_buf_puts(&lines, "{\"response\": ");
		ib_json_write_str(&lines, b.data, b.len, true);
		ib_buf_puts(&lines, ", \"target\": ");
		ib_json_write_str(&lines, d.v[i].answer, d.v[i].alen, true);
		ib_buf_puts(&lines, "}\n");
		bool right = v.kind == SIM_EVAL_RIGHT || v.kind == SIM_EVAL_REASONING_RIGHT;
		strict += right;
		flexible += right || v.kind == SIM_EVAL_NO_MARKER;
		ib_buf_free(&b);
	}
	char rpath[128];
	snprintf(rpath, sizeof rpath, "%s/responses.jsonl", dir);
	FILE *f = fopen(rpath, "w");
	cr_assert_not_null(f);
	fwrite(lines.data, 1, lines.len, f);
	fclose(f);
	ib_buf out = {0};
	ib_error e = {0};
	cr_assert_eq(
	    ev_score_file("tests/golden/results/cases/gs-001-strict-basics/input/gsm8k.yaml", rpath,
	                  &out, &e),
	    0, "%s", e.msg);
	const char *sum = strstr(out.data, "{\"alias\"");
	cr_assert_not_null(sum);
	double s = -1, fl = -1;
	const char *p = strstr(sum, "\"exact_match,strict-match\": ");
	cr_assert_not_null(p);
	s = atof(p + strlen("\"exact_match,strict-match\": "));
	p = strstr(sum, "\"exact_match,flexible-extract\": ");
	cr_assert_not_null(p);
	fl = atof(p + strlen("\"exact_match,flexible-extract\": "));
	cr_assert(fabs(s - strict / 1000.0) < 1e-9, "strict %g, expected %d/1000", s, strict);
	cr_assert(fabs(fl - flexible / 1000.0) < 1e-9, "flexible %g, expected %d/1000", fl,
	          flexible);
	cr_assert_gt(flexible, strict);
	unlink(rpath);
	ib_buf_free(&out);
	ib_buf_free(&lines);
	ib_arena_free(a);
	sim_grader_free(g);
	eval_cleanup(dir);
}

Test(sim, eval_question_extraction_and_load_errors)
{
	static const char p[] =
	    "Question: Ava has 3 apples. How many?\nEnd your response with the answer on "
	    "the last line, formatted as: #### [number]\nAnswer:";
	size_t off, len;
	cr_assert(sim_eval_question(p, sizeof p - 1, &off, &len));
	cr_assert_eq(len, strlen("Ava has 3 apples. How many?"));
	cr_assert_eq(memcmp(p + off, "Ava has 3 apples. How many?", len), 0);
	static const char p2[] = "Question:  Two? \nAnswer:";
	cr_assert(sim_eval_question(p2, sizeof p2 - 1, &off, &len));
	cr_assert_eq(len, 4);
	cr_assert(sim_eval_question("  plain text ", 13, &off, &len));
	cr_assert_eq(off, 2);
	cr_assert_eq(len, 10);
	cr_assert(!sim_eval_question(" \n ", 3, &off, &len));
	sim_grader *g = NULL;
	ib_error e = {0};
	cr_assert_eq(sim_grader_load("/nonexistent/ib-sim-eval", 0.5, 1, &g, &e), IB_ENOENT);
	cr_assert_null(g);
	cr_assert_eq(sim_grader_load("/tmp", 1.5, 1, &g, &e), IB_EINVAL);
	char dir[] = "/tmp/ib-simeval-XXXXXX";
	cr_assert(mkdtemp(dir));
	cr_assert_eq(sim_grader_load(dir, 0.5, 1, &g, &e), IB_ENOENT, "no test.jsonl");
	cr_assert_not_null(strstr(e.file, "test.jsonl"));
	rmdir(dir);
}
