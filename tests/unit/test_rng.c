/* numpy RandomState compatibility, checked against spec/bench.md A6 and the
 * draws recorded in every golden dataset case (tests/golden/dataset): the
 * drawn input/output lengths, the padding generator's key and the global
 * generator's next outputs after the dataset was built. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "fmt/fmt.h"

Test(rng, check_values_a6)
{
	ib_mt m;
	ib_mt_seed(&m, 0);
	int64_t want[] = {991, 866, 936, 1011, 886};
	for (int i = 0; i < 5; i++)
		cr_assert_eq(ib_mt_randint(&m, 819, 1025), want[i]);
	int64_t want2[] = {21243, 95939, 97639};
	for (int i = 0; i < 3; i++)
		cr_assert_eq(ib_mt_randint(&m, 0, 129280), want2[i]);
}

Test(rng, reference_mt19937_outputs)
{
	/* mt19937ar's published first outputs for init_by_array({0x123, 0x234,
	 * 0x345, 0x456}) */
	uint32_t key[] = {0x123, 0x234, 0x345, 0x456};
	ib_mt m;
	ib_mt_seed_array(&m, key, 4);
	uint32_t want[] = {1067595299u, 955945823u, 477289528u, 4107218783u, 4228976476u};
	for (int i = 0; i < 5; i++)
		cr_assert_eq(ib_mt_next(&m), want[i]);
	cr_assert_eq(ib_mt_randint(&m, 5, 6), 5); /* an empty range draws nothing */
}

static int64_t get_int(const ib_val *m, const char *k)
{
	const ib_val *v = ib_map_get(m, k);
	return v && v->type == IB_V_INT ? v->i : 0;
}

Test(rng, golden_dataset_draws)
{
	DIR *d = opendir("tests/golden/dataset");
	cr_assert_not_null(d, "run from the repository root");
	struct dirent *de;
	int cases = 0;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 5, ".json"))
			continue;
		char path[512];
		snprintf(path, sizeof path, "tests/golden/dataset/%s", de->d_name);
		ib_arena *a = ib_arena_new();
		ib_val *c;
		ib_error e = {0};
		cr_assert_eq(ib_json_parse_file(a, path, &c, &e), 0, "%s: %s", path, e.msg);
		const ib_val *args = ib_map_get(c, "args");
		int64_t V = get_int(c, "vocab_size"), N = get_int(args, "num_prompts");
		int64_t L_in = get_int(args, "input_len"), L_out = get_int(args, "output_len");
		int64_t prefix = get_int(args, "prefix_len");
		double r = ib_map_get(args, "range_ratio")->type == IB_V_FLOAT
		               ? ib_map_get(args, "range_ratio")->f
		               : (double)get_int(args, "range_ratio");
		const ib_val *T = ib_map_get(c, "chat_template_overhead");
		if (ib_val_truthy(ib_map_get(args, "use_chat_template")))
			L_in -= T->i;
		ib_mt m;
		ib_mt_seed(&m, (uint32_t)get_int(args, "seed"));
		for (int64_t i = 0; i < prefix; i++)
			ib_mt_randint(&m, 0, V);
		const ib_val *targets = ib_map_get(c, "target_lens");
		for (int64_t i = 0; i < N; i++)
			cr_assert_eq(prefix + ib_mt_randint(&m, (int64_t)(L_in * r), L_in + 1),
			             targets->list.v[i]->i, "%s: input length %lld", path,
			             (long long)i);
		const ib_val *outs = ib_map_get(c, "output_lens");
		for (int64_t i = 0; i < N; i++)
			cr_assert_eq(ib_mt_randint(&m, (int64_t)(L_out * r), L_out + 1),
			             outs->list.v[i]->i, "%s: output length %lld", path,
			             (long long)i);
		for (int64_t i = 0; i < N; i++)
			ib_mt_randint(&m, 0, V);
		/* the padding generator's key: the first words of the state array */
		const ib_val *key = ib_map_get(c, "padding_rng_key");
		if (key && key->type == IB_V_LIST)
			for (int i = 0; i < 4; i++)
				cr_assert_eq((int64_t)m.mt[i], key->list.v[i]->i, "%s: key %d",
				             path, i);
		/* the global generator afterwards */
		const ib_val *after = ib_map_get(c, "rng_after");
		ib_mt copy = m;
		double g = ib_mt_gamma(&copy, 1.0, 1.0);
		cr_assert_eq(g, ib_map_get(after, "next_gamma_1_1")->f, "%s: gamma %.17g", path, g);
		cr_assert_eq((int64_t)ib_mt_next(&m), get_int(after, "next_uint32"),
		             "%s: next uint32", path);
		ib_arena_free(a);
		cases++;
	}
	closedir(d);
	cr_assert_geq(cases, 14);
}

Test(rng, gamma_and_gauss_moments)
{
	ib_mt m;
	ib_mt_seed(&m, 7);
	double shapes[] = {0.5, 1.0, 2.0, 5.0};
	for (int s = 0; s < 4; s++) {
		double sum = 0, sq = 0;
		int n = 200000;
		for (int i = 0; i < n; i++) {
			double x = ib_mt_gamma(&m, shapes[s], 2.0);
			sum += x;
			sq += x * x;
		}
		double mean = sum / n, var = sq / n - mean * mean;
		/* Gamma(k, theta): mean k theta, variance k theta^2 */
		cr_assert(fabs(mean - 2 * shapes[s]) < 0.03 * 2 * shapes[s], "shape %g mean %g",
		          shapes[s], mean);
		cr_assert(fabs(var - 4 * shapes[s]) < 0.06 * 4 * shapes[s], "shape %g var %g",
		          shapes[s], var);
	}
}

Test(sha256, known_digests)
{
	char hex[65];
	ib_sha256_hex("", 0, hex);
	cr_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	ib_sha256_hex("abc", 3, hex);
	cr_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	ib_sha256_hex(m, strlen(m), hex);
	cr_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* a million 'a', fed in uneven pieces */
	ib_sha256 s;
	ib_sha256_init(&s);
	static char a[1000000];
	memset(a, 'a', sizeof a);
	for (size_t off = 0, k = 1; off < sizeof a; off += k, k = k * 7 % 1000 + 1)
		ib_sha256_update(&s, a + off, off + k > sizeof a ? sizeof a - off : k);
	uint8_t d[32];
	ib_sha256_final(&s, d);
	cr_assert_eq(d[0], 0xcd);
	cr_assert_eq(d[1], 0xc7);
	cr_assert_eq(d[31], 0xd0);
}

/* Python's random.seed(s); [random.choice(range(n)) for n in ns], as
 * CPython 3.11 printed them */
Test(rng, python_random_choice)
{
	static const uint64_t ns[] = {1, 2, 3, 5, 7, 1000, (1ULL << 40) + 3};
	static const struct {
		int64_t seed;
		uint64_t want[7];
	} cases[] = {
	    {0, {0, 1, 0, 2, 4, 497, 788025983492ULL}},
	    {1, {0, 0, 1, 0, 3, 779, 1037017667747ULL}},
	    {42, {0, 0, 2, 2, 1, 228, 191320892468ULL}},
	    {4294967301LL, {0, 1, 1, 4, 6, 14, 1090809881224ULL}},
	    {-3, {0, 0, 1, 4, 3, 640, 144228661501ULL}},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		ib_mt m;
		ib_mt_py_seed(&m, cases[c].seed);
		for (size_t i = 0; i < 7; i++)
			cr_expect_eq(ib_mt_py_randbelow(&m, ns[i]), cases[c].want[i],
			             "seed %lld, n %llu", (long long)cases[c].seed,
			             (unsigned long long)ns[i]);
	}
}
