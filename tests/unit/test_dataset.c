/* The random dataset against every golden case of tests/golden/dataset:
 * lengths, per-prompt sha256, the statistics block and the global RNG
 * afterwards. Needs the tokenizer fixtures (make fixtures). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"

static int64_t get_int(const ib_val *m, const char *k)
{
	const ib_val *v = ib_map_get(m, k);
	return v && v->type == IB_V_INT ? v->i : 0;
}

static void check_case(const char *path, int threads)
{
	ib_arena *a = ib_arena_new();
	ib_val *c;
	ib_error e = {0};
	cr_assert_eq(ib_json_parse_file(a, path, &c, &e), 0, "%s: %s", path, e.msg);
	const ib_val *args = ib_map_get(c, "args");
	const char *name = ib_map_get(c, "tokenizer")->str.s;
	char dir[256];
	snprintf(dir, sizeof dir, "fixtures/tokenizers/%s", name);
	char tj[300];
	snprintf(tj, sizeof tj, "%s/tokenizer.json", dir);
	cr_assert_eq(access(tj, R_OK), 0, "fixtures missing: %s (run make fixtures)", tj);
	bool chat = ib_val_truthy(ib_map_get(args, "use_chat_template"));
	bool dsv4 = ib_val_truthy(ib_map_get(args, "dsv4"));
	bench_tokenizer t;
	cr_assert_eq(bench_tokenizer_open(&t, dir, chat, dsv4, &e), 0, "%s: %s", path, e.msg);
	const ib_val *rr = ib_map_get(args, "range_ratio");
	bench_random_opts o = {
	    .num_prompts = (size_t)get_int(args, "num_prompts"),
	    .input_len = get_int(args, "input_len"),
	    .output_len = get_int(args, "output_len"),
	    .prefix_len = get_int(args, "prefix_len"),
	    .range_ratio = rr->type == IB_V_FLOAT ? rr->f : (double)rr->i,
	    .use_chat_template = chat,
	    .num_workers = (int)get_int(args, "num_workers"),
	    .threads = threads,
	};
	ib_mt g;
	ib_mt_seed(&g, (uint32_t)get_int(args, "seed"));
	bench_prompt *ps;
	ib_buf stats = {0};
	cr_assert_eq(bench_random_dataset(a, &t, &g, &o, &ps, &stats, &e), 0, "%s: %s", path,
	             e.msg);
	const ib_val *in = ib_map_get(c, "input_lens"), *out = ib_map_get(c, "output_lens");
	const ib_val *sha = ib_map_get(c, "prompt_sha256");
	ib_sha256 all;
	ib_sha256_init(&all);
	for (size_t i = 0; i < o.num_prompts; i++) {
		cr_expect_eq(ps[i].prompt_len, in->list.v[i]->i, "%s: prompt %zu length", path, i);
		cr_expect_eq(ps[i].output_len, out->list.v[i]->i, "%s: prompt %zu output", path, i);
		char hex[65];
		ib_sha256_hex(ps[i].text, ps[i].len, hex);
		cr_expect_str_eq(hex, sha->list.v[i]->str.s, "%s: prompt %zu text", path, i);
		if (i)
			ib_sha256_update(&all, "\n", 1);
		ib_sha256_update(&all, ps[i].text, ps[i].len);
	}
	uint8_t d[32];
	char hex[65];
	ib_sha256_final(&all, d);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	cr_expect_str_eq(hex, ib_map_get(c, "prompts_sha256")->str.s, "%s: all prompts", path);
	cr_expect_str_eq(stats.data, ib_map_get(c, "stats_block")->str.s, "%s: statistics block",
	                 path);
	const ib_val *after = ib_map_get(c, "rng_after");
	cr_expect_eq((int64_t)ib_mt_next(&g), get_int(after, "next_uint32"), "%s: RNG afterwards",
	             path);
	ib_buf_free(&stats);
	bench_tokenizer_close(&t);
	ib_arena_free(a);
}

/* each case on one thread and on three: the same prompts either way */
#define CASE(name)                                                                                 \
	Test(dataset, name, .timeout = 120)                                                        \
	{                                                                                          \
		check_case("tests/golden/dataset/" #name ".json", 1);                              \
	}                                                                                          \
	Test(dataset, name##_3_threads, .timeout = 120)                                            \
	{                                                                                          \
		check_case("tests/golden/dataset/" #name ".json", 3);                              \
	}

CASE(llama3_isl1024_n40)
CASE(llama3_isl1024_n40_chat)
CASE(llama3_isl8192_n8_chat)
CASE(qwen3_isl1024_n40_chat)
CASE(deepseek_v3_isl1024_n20_chat)
CASE(deepseek_v3_isl1024_n20)
CASE(gptoss_isl1024_n20)
CASE(mistral_isl512_n20)
CASE(llama3_isl1024_n16_ratio1_chat)
CASE(qwen3_isl512_n16_prefix64)
CASE(llama3_isl1024_n20_seed1_chat)
CASE(deepseek_v3_isl1024_n20_dsv4)
CASE(llama3_isl1024_n40_w2)
CASE(qwen3_isl1024_n40_chat_w4)

Test(dataset, every_golden_case_is_listed)
{
	DIR *dir = opendir("tests/golden/dataset");
	cr_assert_not_null(dir);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(dir)))
		n +=
		    strlen(de->d_name) > 5 && !strcmp(de->d_name + strlen(de->d_name) - 5, ".json");
	closedir(dir);
	cr_assert_eq(n, 14);
}

/* bench_cleanup (one scan) against bench_cleanup_slow (the ten str.replace
 * passes) on random text dense in the patterns' bytes, including the cases
 * where one pass creates a match for a later one (" ' " then " 'm") and
 * more candidates than the scan's first array holds */
Test(dataset, cleanup_one_scan_equals_ten_replaces)
{
	static const char al[] = "   .?!,'nmtsvreax";
	uint32_t x = 12345;
	for (int it = 0; it < 200000; it++) {
		x = x * 1103515245u + 12345u;
		size_t from = (x >> 8) % 3, len = from + (x >> 12) % (it % 1000 ? 48 : 6000);
		ib_buf a = {0}, b = {0};
		for (size_t i = 0; i < len; i++) {
			x = x * 1103515245u + 12345u;
			char c = al[(x >> 16) % (sizeof al - 1)];
			ib_buf_append(&a, &c, 1);
		}
		ib_buf_append(&a, "", 0);
		ib_buf_append(&b, a.data, a.len);
		bench_cleanup_slow(&a, from);
		bench_cleanup(&b, from);
		cr_assert_eq(a.len, b.len, "case %d: lengths %zu and %zu", it, a.len, b.len);
		cr_assert(!memcmp(a.data, b.data, a.len + 1), "case %d: '%s' vs '%s'", it, a.data,
		          b.data);
		ib_buf_free(&a);
		ib_buf_free(&b);
	}
	ib_buf c = {0};
	ib_buf_puts(&c, "a  ' m x ' s don 't I 'm ,  . ok");
	bench_cleanup(&c, 0);
	cr_assert_str_eq(c.data, "a'm x's don 't I'm, . ok"); /* Python's result */
	ib_buf_free(&c);
}
