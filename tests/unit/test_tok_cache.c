/* Unit tests for tok/cache.c, the cache of loaded tokenizers: a tokenizer
 * loaded from its cache file is the one loaded from tokenizer.json (the
 * tables, every id, and the encodings and decodings of the golden corpora
 * of the five fixture tokenizers); damaged, truncated, foreign and crafted
 * files are refused and written anew; `off` and an unwritable folder mean
 * no cache; the folder's resolution.
 *
 * The tests never write ~/.cache: the report hook below points
 * INFBENCH_TOK_CACHE at a temporary folder for the whole run when it is not
 * set (tests/run.sh sets it too), and each test that looks at files uses a
 * folder of its own. */
#include <criterion/criterion.h>
#include <criterion/hooks.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmt/fmt.h"
#include "tok/private.h"

/* ---- helpers ---- */

/* Removes the files of dir (no subfolders), then dir. */
static void rm_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *x;
	char p[1024];
	while (d && (x = readdir(d))) {
		if (!strcmp(x->d_name, ".") || !strcmp(x->d_name, ".."))
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, x->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static char run_dir[64];

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
	(void)set;
	const char *v = getenv("INFBENCH_TOK_CACHE");
	if (v && *v)
		return;
	snprintf(run_dir, sizeof run_dir, "/tmp/ib_tokcache_XXXXXX");
	if (mkdtemp(run_dir))
		setenv("INFBENCH_TOK_CACHE", run_dir, 1);
	else
		run_dir[0] = '\0';
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
	(void)stats;
	if (run_dir[0])
		rm_dir(run_dir);
}

/* A fresh folder for one test's cache, set as INFBENCH_TOK_CACHE. */
static void own_cache(char dir[64])
{
	snprintf(dir, 64, "/tmp/ib_tokcache_t_XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	setenv("INFBENCH_TOK_CACHE", dir, 1);
}

static tok *load(const char *path, bool want_cached)
{
	tok *t = NULL;
	ib_error e = {0};
	cr_assert_eq(tok_load(path, &t, &e), 0, "%s: %s", path, e.msg);
	cr_expect_eq(tok_from_cache(t), want_cached, "%s: from the cache: %d, want %d", path,
	             tok_from_cache(t), want_cached);
	return t;
}

/* The only file of dir whose name ends with suffix (".tok", ".idx") into
 * out; how many there are. */
static int files_with(const char *dir, const char *suffix, char *out, size_t cap)
{
	DIR *d = opendir(dir);
	struct dirent *x;
	int n = 0;
	size_t sl = strlen(suffix);
	cr_assert_not_null(d, "%s", dir);
	while ((x = readdir(d))) {
		size_t l = strlen(x->d_name);
		if (l > sl && !strcmp(x->d_name + l - sl, suffix)) {
			snprintf(out, cap, "%s/%s", dir, x->d_name);
			n++;
		}
	}
	closedir(d);
	return n;
}

static int cache_file(const char *dir, char *out, size_t cap)
{
	return files_with(dir, ".tok", out, cap);
}

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fwrite(p, 1, n, f), n);
	fclose(f);
}

static char *read_all(const char *path, size_t *n)
{
	ib_buf b = {0};
	ib_error e = {0};
	cr_assert_eq(ib_read_file(path, &b, &e), 0, "%s", e.msg);
	*n = b.len;
	return b.data;
}

/* Two tokenizers are the same: sizes, tables, every id's text and flag. */
static void expect_same_tables(const tok *a, const tok *b, const char *name)
{
	cr_expect_eq(tok_vocab_size(a, false), tok_vocab_size(b, false), "%s", name);
	cr_expect_eq(tok_vocab_size(a, true), tok_vocab_size(b, true), "%s", name);
	cr_assert_eq(a->nids, b->nids, "%s", name);
	cr_expect_eq(a->bpe.split_meta, b->bpe.split_meta, "%s", name);
	cr_expect_eq(a->bpe.joins_meta, b->bpe.joins_meta, "%s", name);
	cr_expect_eq(a->nadded, b->nadded, "%s", name);
	cr_expect(!memcmp(a->bpe.byte_id, b->bpe.byte_id, sizeof a->bpe.byte_id), "%s", name);
	cr_expect(!memcmp(a->bpe.bmp_id, b->bpe.bmp_id, 0x10000 * sizeof *a->bpe.bmp_id), "%s",
	          name);
	size_t bad = 0;
	for (uint32_t id = 0; id < a->nids + 10; id++) {
		size_t la = 0, lb = 0;
		const char *sa = tok_id_to_token(a, id, &la), *sb = tok_id_to_token(b, id, &lb);
		if (!sa != !sb || la != lb || (sa && memcmp(sa, sb, la)) ||
		    tok_id_is_special(a, id) != tok_id_is_special(b, id) ||
		    (sa && tok_token_to_id(a, sa, la) != tok_token_to_id(b, sb, lb)))
			bad++;
	}
	cr_expect_eq(bad, 0, "%s: %zu ids differ", name, bad);
}

/* The BMP table as the loader built it before the cache (one lookup per
 * character). */
static void expect_bmp_by_lookup(const tok *t, const char *name)
{
	size_t bad = 0;
	for (uint32_t cp = 0; cp < 0x10000; cp++) {
		char k[4];
		uint32_t id;
		size_t n = tok_utf8_put(k, cp);
		int32_t want = tok_smap_get(&t->bpe.vocab, k, n, &id) ? (int32_t)id : -1;
		bad += t->bpe.bmp_id[cp] != want;
	}
	cr_expect_eq(bad, 0, "%s: %zu BMP characters differ from a lookup", name, bad);
}

static void ids_of(const ib_val *list, tok_ids *out)
{
	out->n = 0;
	for (size_t k = 0; list && k < list->list.n; k++)
		cr_assert_eq(tok_ids_push(out, (uint32_t)list->list.v[k]->i), 0);
}

/* Encodes every text of the golden corpus with both tokenizers (with and
 * without special tokens) and decodes the ids (skipping special tokens or
 * not): the same results, and HuggingFace's ids. */
static void expect_same_golden(tok *fresh, tok *cached, const char *name)
{
	char path[256];
	snprintf(path, sizeof path, "tests/golden/tokenizer/%s.encode.jsonl", name);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	char *line = NULL;
	size_t cap = 0, lines = 0, bad = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) > 0) {
		ib_arena *a = ib_arena_new();
		ib_val *v = NULL;
		ib_error e = {0};
		cr_assert_eq(ib_json_parse(a, path, line, (size_t)n, &v, &e), 0, "%s", e.msg);
		const ib_val *text = ib_map_get(v, "text");
		for (int special = 0; special < 2; special++) {
			tok_ids x = {0}, y = {0}, want = {0};
			cr_assert_eq(tok_encode(fresh, text->str.s, text->str.len, special, &x, &e),
			             0);
			cr_assert_eq(
			    tok_encode(cached, text->str.s, text->str.len, special, &y, &e), 0);
			ids_of(ib_map_get(v, special ? "ids_with_special" : "ids"), &want);
			bad += x.n != y.n || (x.n && memcmp(x.v, y.v, x.n * sizeof *x.v));
			bad += want.n != y.n || (y.n && memcmp(want.v, y.v, y.n * sizeof *y.v));
			for (int skip = 0; skip < 2; skip++) {
				ib_buf dx = {0}, dy = {0};
				cr_assert_eq(tok_decode(fresh, x.v, x.n, skip, &dx, &e), 0);
				cr_assert_eq(tok_decode(cached, y.v, y.n, skip, &dy, &e), 0);
				bad += dx.len != dy.len ||
				       (dx.len && memcmp(dx.data, dy.data, dx.len));
				ib_buf_free(&dx);
				ib_buf_free(&dy);
			}
			tok_ids_free(&x);
			tok_ids_free(&y);
			tok_ids_free(&want);
		}
		ib_arena_free(a);
		lines++;
	}
	free(line);
	fclose(f);
	cr_expect_gt(lines, 300, "%s: %zu lines", path, lines);
	cr_expect_eq(bad, 0, "%s: %zu of %zu texts differ", name, bad, lines);
}

/* A fixture loaded without the cache, then through it twice: the second
 * load comes from the file the first wrote, and is the same tokenizer. */
static void fixture_round_trip(const char *name)
{
	char dir[64], path[256], file[512];
	snprintf(path, sizeof path, "fixtures/tokenizers/%s", name);
	setenv("INFBENCH_TOK_CACHE", "off", 1);
	tok *fresh = load(path, false);
	own_cache(dir);
	tok *first = load(path, false);
	cr_expect_eq(cache_file(dir, file, sizeof file), 1, "one cache file");
	tok *cached = load(path, true);
	expect_same_tables(fresh, cached, name);
	expect_bmp_by_lookup(fresh, name);
	expect_same_golden(fresh, cached, name);
	/* the digest kept in the file is the file's (fresh: read from the file) */
	char h1[65], h2[65], h3[65], jpath[300];
	ib_error e = {0};
	size_t n;
	snprintf(jpath, sizeof jpath, "%s/tokenizer.json", path);
	char *all = read_all(jpath, &n);
	ib_sha256_hex(all, n, h3);
	free(all);
	cr_assert_eq(tok_source_sha256(fresh, h1, &e), 0, "%s", e.msg);
	cr_assert_eq(tok_source_sha256(cached, h2, &e), 0, "%s", e.msg);
	cr_expect_str_eq(h1, h3);
	cr_expect_str_eq(h2, h3);
	cr_expect_str_eq(
	    tok_config_token(cached, "eos_token") ? tok_config_token(cached, "eos_token")
	                                          : "(none)",
	    tok_config_token(fresh, "eos_token") ? tok_config_token(fresh, "eos_token") : "(none)");
	tok_free(fresh);
	tok_free(first);
	tok_free(cached);
	rm_dir(dir);
}

Test(tok_cache, llama3_same_as_fresh)
{
	fixture_round_trip("llama3");
}

Test(tok_cache, deepseek_v3_same_as_fresh)
{
	fixture_round_trip("deepseek_v3");
}

Test(tok_cache, qwen3_same_as_fresh)
{
	fixture_round_trip("qwen3");
}

Test(tok_cache, gptoss_same_as_fresh)
{
	fixture_round_trip("gptoss");
}

Test(tok_cache, mistral_same_as_fresh)
{
	fixture_round_trip("mistral");
}

/* ---- damaged files ---- */

/* A small byte-level tokenizer with a split regex, a normalizer, added
 * tokens, a template and numbers of both kinds, in dir/tokenizer.json. */
static void small_tokenizer(const char *dir, const char *extra_merge, char jpath[128])
{
	ib_buf b = {0};
	ib_buf_puts(&b,
	            "{\"version\": \"1.0\", \"truncation\": null, \"padding\": null, "
	            "\"added_tokens\": [{\"id\": 260, \"content\": \"<|x|>\", \"special\": "
	            "true, \"normalized\": false}, {\"id\": 261, \"content\": \"yo\"}], "
	            "\"normalizer\": {\"type\": \"NFC\"}, "
	            "\"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": "
	            "[{\"type\": \"Split\", \"pattern\": {\"Regex\": \" ?\\\\p{L}+|\\\\s+\"}, "
	            "\"behavior\": \"Isolated\", \"invert\": false}, {\"type\": "
	            "\"ByteLevel\", \"add_prefix_space\": false, \"use_regex\": false}]}, "
	            "\"post_processor\": {\"type\": \"TemplateProcessing\", \"single\": "
	            "[{\"SpecialToken\": {\"id\": \"<|x|>\", \"type_id\": 0}}, {\"Sequence\": "
	            "{\"id\": \"A\", \"type_id\": 0}}], \"pair\": [], \"special_tokens\": "
	            "{\"<|x|>\": {\"id\": \"<|x|>\", \"ids\": [260], \"tokens\": [\"<|x|>\"]}}}, "
	            "\"decoder\": {\"type\": \"ByteLevel\", \"weight\": 0.5, \"big\": "
	            "1e300, \"int\": 12345678901234567890, \"z\": -0.0, \"s\": \"a\\u0000b\"}, "
	            "\"model\": {\"type\": \"BPE\", \"dropout\": 0.0, \"unk_token\": null, "
	            "\"vocab\": {");
	for (int c = 0; c < 256; c++) {
		char u[8];
		size_t n = tok_utf8_put(u, tok_byte_to_cp((unsigned char)c));
		u[n] = '\0';
		const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : u;
		ib_buf_printf(&b, "%s\"%s\": %d", c ? ", " : "", esc, c);
	}
	ib_buf_puts(&b, ", \"\xC4\xA0t\": 256, \"he\": 257, \"\xC4\xA0the\": 258, \"ab\": 259}, "
	                "\"merges\": [\"\xC4\xA0 t\", \"h e\", \"\xC4\xA0t he\"");
	ib_buf_printf(&b, "%s]}}", extra_merge);
	snprintf(jpath, 128, "%s/tokenizer.json", dir);
	write_file(jpath, b.data, b.len);
	ib_buf_free(&b);
}

/* A folder of its own as the cache, the small tokenizer in it (jpath),
 * loaded once: the one cache file it wrote (file). */
static void small_cached(char dir[64], char jpath[128], char file[512])
{
	own_cache(dir);
	small_tokenizer(dir, "", jpath);
	tok_free(load(jpath, false));
	cr_assert_eq(cache_file(dir, file, 512), 1);
}

static void expect_small_works(tok *t)
{
	static const char text[] = "yo the theme <|x|> ab \xC3\xA9t\xC3\xA9";
	tok_ids ids = {0};
	ib_error e = {0};
	ib_buf out = {0};
	cr_assert_eq(tok_encode(t, text, sizeof text - 1, true, &ids, &e), 0, "%s", e.msg);
	cr_assert_gt(ids.n, 3);
	cr_expect_eq(ids.v[0], 260, "the template's special token first");
	cr_expect_eq(ids.v[1], 261, "the added token");
	cr_assert_eq(tok_decode(t, ids.v, ids.n, false, &out, &e), 0);
	cr_expect_str_eq(out.data, "<|x|>yo the theme <|x|> ab \xC3\xA9t\xC3\xA9");
	ib_buf_free(&out);
	tok_ids_free(&ids);
}

typedef void damage_fn(char *img, size_t *len);

static void flip_middle(char *img, size_t *len)
{
	img[*len / 2] ^= 0x40;
}

static void truncate_half(char *img, size_t *len)
{
	(void)img;
	*len /= 2;
}

static void empty(char *img, size_t *len)
{
	(void)img;
	*len = 0;
}

static void random_bytes(char *img, size_t *len)
{
	uint64_t s = 0x243F6A8885A308D3ull;
	for (size_t k = 0; k < *len; k++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		img[k] = (char)(s >> 56);
	}
}

static void header_only(char *img, size_t *len)
{
	(void)img;
	*len = 192; /* sizeof (hdr) */
}

/* Writes a cache file, damages it, loads again: not from the cache, the
 * same tokenizer, and the file written anew (the next load comes from it). */
static void damaged(damage_fn *fn)
{
	char dir[64], file[512], jpath[128];
	small_cached(dir, jpath, file);
	size_t len;
	char *img = read_all(file, &len);
	fn(img, &len);
	write_file(file, img, len);
	free(img);
	tok *t = load(jpath, false);
	expect_small_works(t);
	tok_free(t);
	t = load(jpath, true);
	expect_small_works(t);
	tok_free(t);
	cr_expect_eq(cache_file(dir, file, sizeof file), 1);
	rm_dir(dir);
}

Test(tok_cache, flipped_byte_is_rebuilt)
{
	damaged(flip_middle);
}

Test(tok_cache, truncated_file_is_rebuilt)
{
	damaged(truncate_half);
}

Test(tok_cache, empty_file_is_rebuilt)
{
	damaged(empty);
}

Test(tok_cache, random_bytes_are_rebuilt)
{
	damaged(random_bytes);
}

Test(tok_cache, header_alone_is_rebuilt)
{
	damaged(header_only);
}

/* Another tokenizer's cache file under this one's name is foreign. */
Test(tok_cache, foreign_file_is_rebuilt)
{
	char dir[64], other[64], file[512], ofile[512], jpath[128], ojpath[128];
	own_cache(other);
	small_tokenizer(other, ", \"a b\"", ojpath);
	tok_free(load(ojpath, false));
	cr_assert_eq(cache_file(other, ofile, sizeof ofile), 1);
	small_cached(dir, jpath, file);
	cr_expect_str_neq(strrchr(file, '/'), strrchr(ofile, '/'), "a key per content");
	size_t len;
	char *img = read_all(ofile, &len);
	write_file(file, img, len);
	free(img);
	tok *t = load(jpath, false);
	expect_small_works(t);
	uint32_t ab = (uint32_t)tok_token_to_id(t, "ab", 2);
	tok_ids ids = {0};
	ib_error e = {0};
	/* "ab" has no merge here (the other file has one) */
	cr_assert_eq(tok_encode(t, "ab", 2, false, &ids, &e), 0);
	cr_expect_eq(ids.n, 2);
	cr_expect_neq(ids.v[0], ab);
	tok_ids_free(&ids);
	tok_free(t);
	tok_free(load(jpath, true));
	rm_dir(dir);
	rm_dir(other);
}

/* Files with a valid checksum but broken insides (as a crafted file could
 * be) are refused with a reason, never used. */
Test(tok_cache, crafted_files_are_refused)
{
	char dir[64], file[512], jpath[128];
	small_cached(dir, jpath, file);
	size_t len;
	char *img = read_all(file, &len);
	uint64_t sec[5][2];
	memcpy(sec, img + 112, sizeof sec); /* hdr.sec (cache.c) */
	/* the header as written loads */
	char *copy = malloc(len);
	memcpy(copy, img, len);
	tok *t = NULL;
	ib_error e = {0};
	cr_assert_eq(tok_cache_load_image("x", copy, len, 0, NULL, &t, &e), 0, "%s", e.msg);
	expect_small_works(t);
	tok_free(t);
	struct {
		size_t at;  /* byte offset */
		uint64_t v; /* value written there (8 bytes) */
		const char *why;
	} cases[] = {
	    {sec[3][0], 0xFFFFFFFF00000000ull | 100000, "vocabulary slot"}, /* entry index */
	    {sec[2][0], 0xFFFFFFF0ull, "vocabulary entry"},                 /* text offset */
	    {sec[2][0] + 4, 0x7FFFFFFF, "vocabulary entry"},                /* text length */
	    {sec[4][0], (uint64_t)(1u << 28) << 32 | 5, "merge slot"},      /* left id */
	    {112 + 2 * 16, 0, "text section"},                              /* entries at 0 */
	    {112 + 4 * 16 + 8, 8, "merge slots"},                           /* 0 slots */
	    {112 + 16 + 8, sec[1][1] + 1000000, "out of bounds"},           /* strings' size */
	    {8, 2, "another format"},                                       /* format 2 */
	    {80, 3, "bytes, the header says"},                              /* size */
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		copy = malloc(len);
		memcpy(copy, img, len);
		memcpy(copy + cases[k].at, &cases[k].v, 8);
		tok_cache_seal(copy, len);
		t = NULL;
		e = (ib_error){0};
		int rc = tok_cache_load_image("x", copy, len, 0, NULL, &t, &e);
		cr_expect_eq(rc, IB_EINVAL, "case %zu: rc %d", k, rc);
		cr_expect_null(t);
		cr_expect(strstr(e.msg, "not a valid tokenizer cache file"), "case %zu (%s): %s", k,
		          cases[k].why, e.msg);
		tok_free(t);
	}
	/* a wrong key */
	uint64_t key[2] = {1, 2};
	copy = malloc(len);
	memcpy(copy, img, len);
	cr_expect_eq(tok_cache_load_image("x", copy, len, 0, key, &t, &e), IB_EINVAL);
	cr_expect(strstr(e.msg, "another tokenizer.json"), "%s", e.msg);
	free(img);
	rm_dir(dir);
}

/* ---- off, unwritable, resolution ---- */

Test(tok_cache, off_writes_nothing)
{
	char dir[64], file[512], jpath[128];
	own_cache(dir);
	small_tokenizer(dir, "", jpath);
	setenv("INFBENCH_TOK_CACHE", "off", 1);
	char got[256];
	cr_expect_eq(tok_cache_folder(got, sizeof got), 0);
	cr_expect_str_eq(got, "");
	tok *t = load(jpath, false);
	expect_small_works(t);
	tok_free(t);
	tok_free(load(jpath, false));
	cr_expect_eq(cache_file(dir, file, sizeof file), 0);
	rm_dir(dir);
}

Test(tok_cache, unwritable_folder_is_no_cache)
{
	char dir[64], jpath[128], bad[192];
	own_cache(dir);
	small_tokenizer(dir, "", jpath);
	/* a folder under a regular file cannot be made */
	snprintf(bad, sizeof bad, "%s/sub", jpath);
	setenv("INFBENCH_TOK_CACHE", bad, 1);
	tok *t = load(jpath, false);
	expect_small_works(t);
	tok_free(t);
	tok_free(load(jpath, false));
	rm_dir(dir);
}

Test(tok_cache, changed_content_is_another_file)
{
	char dir[64], file[512], jpath[128];
	small_cached(dir, jpath, file);
	tok_free(load(jpath, true));
	small_tokenizer(dir, ", \"a b\"", jpath);
	tok *t = load(jpath, false);
	tok_ids ids = {0};
	ib_error e = {0};
	cr_assert_eq(tok_encode(t, "ab", 2, false, &ids, &e), 0);
	cr_expect_eq(ids.n, 1, "the new merge is used");
	tok_ids_free(&ids);
	tok_free(t);
	tok_free(load(jpath, true));
	cr_expect_eq(cache_file(dir, file, sizeof file), 2);
	rm_dir(dir);
}

Test(tok_cache, source_sha256_needs_a_file)
{
	static const char json[] = "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, "
	                           "\"merges\": []}}";
	tok *t = NULL;
	ib_error e = {0};
	char hex[65];
	cr_assert_eq(tok_load_json("mem.json", json, sizeof json - 1, &t, &e), 0, "%s", e.msg);
	cr_expect_eq(tok_source_sha256(t, hex, &e), IB_EINVAL);
	cr_expect(strstr(e.msg, "memory"), "%s", e.msg);
	tok_free(t);
}

/* The index remembers the key of a file changed long enough ago (the
 * fixtures), not of one changed just now; an entry that names another
 * content is dropped and made again. */
Test(tok_cache, index_of_unchanged_files)
{
	char dir[64], small[64], idx[512], file[512], jpath[128];
	own_cache(small);
	small_tokenizer(small, "", jpath);
	tok_free(load(jpath, false));
	tok_free(load(jpath, true));
	cr_expect_eq(files_with(small, ".idx", idx, sizeof idx), 0, "a file changed just now");
	own_cache(dir);
	tok_free(load("fixtures/tokenizers/mistral", false));
	cr_assert_eq(files_with(dir, ".idx", idx, sizeof idx), 1);
	tok_free(load("fixtures/tokenizers/mistral", true));
	size_t len;
	char *x = read_all(idx, &len);
	cr_assert_gt(len, 16);
	x[len - 1] ^= 1; /* the key's last byte */
	write_file(idx, x, len);
	free(x);
	tok_free(load("fixtures/tokenizers/mistral", false));
	cr_expect_eq(files_with(dir, ".idx", idx, sizeof idx), 0, "the wrong entry dropped");
	tok_free(load("fixtures/tokenizers/mistral", true));
	cr_expect_eq(files_with(dir, ".idx", idx, sizeof idx), 1, "made again");
	cr_expect_eq(cache_file(dir, file, sizeof file), 1);
	rm_dir(dir);
	rm_dir(small);
}

Test(tok_cache, folder_resolution)
{
	char got[256];
	setenv("INFBENCH_TOK_CACHE", "/x/y", 1);
	cr_expect_eq(tok_cache_folder(got, sizeof got), 1);
	cr_expect_str_eq(got, "/x/y");
	setenv("INFBENCH_TOK_CACHE", "", 1);
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	setenv("HOME", "/home/u", 1);
	cr_expect_eq(tok_cache_folder(got, sizeof got), 1);
	cr_expect_str_eq(got, "/xdg/infbench/tok");
	setenv("XDG_CACHE_HOME", "relative", 1);
	cr_expect_eq(tok_cache_folder(got, sizeof got), 1);
	cr_expect_str_eq(got, "/home/u/.cache/infbench/tok");
	unsetenv("XDG_CACHE_HOME");
	unsetenv("INFBENCH_TOK_CACHE");
	cr_expect_eq(tok_cache_folder(got, sizeof got), 1);
	cr_expect_str_eq(got, "/home/u/.cache/infbench/tok");
	unsetenv("HOME");
	cr_expect_eq(tok_cache_folder(got, sizeof got), 0);
	cr_expect_eq(tok_cache_folder(got, 4), 0);
	setenv("INFBENCH_TOK_CACHE", "/a/long/folder", 1);
	cr_expect_eq(tok_cache_folder(got, 4), 0, "a path that does not fit");
	cr_expect_str_eq(got, "");
}
