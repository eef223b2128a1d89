/* Unit tests for tok/: the tokenizer.json reader, each normalizer,
 * pre-tokenizer, model option, added-token option, decoder and post-processor
 * on small inline tokenizer.json documents, error messages, and random input.
 * Expected values follow HuggingFace tokenizers 0.22 (its own unit tests
 * where they exist, e.g. the Split behaviors on "the-final--countdown"). */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tok/private.h"

/* ---- helpers ---- */

/* JSON written with ` for " (readability); returns a malloc'd copy. */
static char *J(const char *s)
{
	char *d = strdup(s);
	cr_assert_not_null(d);
	for (char *p = d; *p; p++)
		if (*p == '`')
			*p = '"';
	return d;
}

/* A tokenizer.json document; each part is JSON text in ` quotes. */
static char *doc(const char *norm, const char *pre, const char *post, const char *dec,
                 const char *added, const char *model)
{
	ib_buf b = {0};
	ib_buf_printf(
	    &b,
	    "{`version`: `1.0`, `truncation`: null, `padding`: null, `added_tokens`: [%s], "
	    "`normalizer`: %s, `pre_tokenizer`: %s, `post_processor`: %s, `decoder`: %s, "
	    "`model`: %s}",
	    added, norm, pre, post, dec, model);
	char *r = J(b.data);
	ib_buf_free(&b);
	return r;
}

/* A character-level BPE model: a vocabulary of the given tokens (ids in
 * order) and merges. */
static const char *char_model(void)
{
	return "{`type`: `BPE`, `vocab`: {`a`: 0, `b`: 1, `c`: 2}, `merges`: []}";
}

static tok *load_ok(const char *json)
{
	tok *t = NULL;
	ib_error e = {0};
	int rc = tok_load_json("test.json", json, strlen(json), &t, &e);
	cr_assert_eq(rc, 0, "load failed (%d): %s\n%s", rc, e.msg, json);
	return t;
}

/* Loads a document that must fail with `code`; returns the formatted error. */
static char *load_err(const char *json, int code)
{
	tok *t = NULL;
	ib_error e = {0};
	int rc = tok_load_json("test.json", json, strlen(json), &t, &e);
	cr_assert_eq(rc, code, "expected error %d, got %d (%s)", code, rc, e.msg);
	cr_assert_null(t);
	char *m = malloc(4096);
	ib_error_format(&e, m, 4096);
	return m;
}

/* The pieces the model would see, joined with '|' (added tokens as <id>). */
static char *pieces(tok *t, const char *text)
{
	const tok_pieces *ps = NULL;
	ib_error e = {0};
	cr_assert_eq(tok_pretokenize(t, text, strlen(text), &ps, &e), 0, "%s", e.msg);
	ib_buf b = {0};
	ib_buf_puts(&b, "");
	for (size_t k = 0; k < ps->n; k++) {
		if (k)
			ib_buf_putc(&b, '|');
		if (ps->v[k].id >= 0)
			ib_buf_printf(&b, "<%lld>", (long long)ps->v[k].id);
		else
			ib_buf_append(&b, t->pool.data + ps->v[k].off, ps->v[k].len);
	}
	return b.data;
}

static void expect_pieces(tok *t, const char *text, const char *want)
{
	char *got = pieces(t, text);
	cr_expect_str_eq(got, want, "pieces of \"%s\": got \"%s\", want \"%s\"", text, got, want);
	free(got);
}

/* Encodes text; the ids as "1 2 3". */
static char *enc(tok *t, const char *text, size_t len, bool special)
{
	tok_ids ids = {0};
	ib_error e = {0};
	cr_assert_eq(tok_encode(t, text, len, special, &ids, &e), 0, "%s", e.msg);
	ib_buf b = {0};
	ib_buf_puts(&b, "");
	for (size_t k = 0; k < ids.n; k++)
		ib_buf_printf(&b, k ? " %u" : "%u", ids.v[k]);
	tok_ids_free(&ids);
	return b.data;
}

static void expect_enc(tok *t, const char *text, bool special, const char *want)
{
	char *got = enc(t, text, strlen(text), special);
	cr_expect_str_eq(got, want, "encode \"%s\": got [%s], want [%s]", text, got, want);
	free(got);
}

static void expect_dec(tok *t, const uint32_t *ids, size_t n, bool skip, const char *want)
{
	ib_buf b = {0};
	ib_error e = {0};
	cr_assert_eq(tok_decode(t, ids, n, skip, &b, &e), 0, "%s", e.msg);
	cr_assert_not_null(b.data);
	cr_expect_str_eq(b.data, want, "decode: got \"%s\", want \"%s\"", b.data, want);
	ib_buf_free(&b);
}

/* A byte-level model: the 256 byte characters as ids 0-255, then `extra`
 * tokens (JSON object members) and `merges` (JSON list items). */
static char *byte_model(const char *extra, const char *merges, const char *opts)
{
	ib_buf b = {0};
	ib_buf_printf(&b, "{`type`: `BPE`, %s `vocab`: {", opts);
	for (int c = 0; c < 256; c++) {
		char u[8];
		size_t n = tok_utf8_put(u, tok_byte_to_cp((unsigned char)c));
		u[n] = '\0';
		const char *esc = c == '"' ? "\\`" : c == '\\' ? "\\\\" : c == '`' ? "\\u0060" : u;
		ib_buf_printf(&b, "%s`%s`: %d", c ? ", " : "", esc, c);
	}
	ib_buf_printf(&b, "%s%s}, `merges`: [%s]}", *extra ? ", " : "", extra, merges);
	return b.data;
}

static uint64_t rnd_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static size_t rnd_len(size_t n)
{
	return (size_t)(rnd() % n);
}

/* ---- the JSON reader ---- */

Test(tok_json, values_escapes_and_positions)
{
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	tj *v = NULL;
	char text[] = "{\"a\": [1, -2.5e1, true, false, null, \"x\\u00e9\\ud83d\\ude00\\n\"], "
	              "\"a\": {\"k\": \"plain\"}, \"big\": 123456789012345678901}";
	cr_assert_eq(tj_parse(a, "t", text, strlen(text), &v, &e), 0, "%s", e.msg);
	const tj *x = tj_get(v, "a"); /* the last duplicate wins */
	cr_assert_eq(x->type, TJ_OBJ);
	cr_expect_str_eq(tj_get(x, "k")->s, "plain");
	cr_expect_eq(tj_get(v, "big")->type, TJ_NUM);
	char t2[] = "[\"x\\u00e9\\ud83d\\ude00\\n\", -25, 0.5]";
	cr_assert_eq(tj_parse(a, "t", t2, strlen(t2), &v, &e), 0);
	cr_expect_str_eq(v->items[0].s, "x\xC3\xA9\xF0\x9F\x98\x80\n");
	cr_expect_eq(v->items[1].i, -25);
	cr_expect_eq(v->items[2].f, 0.5);
	struct {
		const char *text, *msg;
		int line, col;
	} bad[] = {
	    {"{\"a\": 1,\n  \"b\" 2}", "expected ':'", 2, 7},
	    {"[1, 2", "expected ',' or ']'", 1, 6},
	    {"\"\\ud800\"", "lone high surrogate", 1, 2},
	    {"\"\\udc00x\"", "lone low surrogate", 1, 2},
	    {"\"a\tb\"", "control character", 1, 3},
	    {"[01]", "expected ',' or ']'", 1, 3},
	    {"[1.]", "invalid number", 1, 4},
	    {"{} x", "extra data", 1, 4},
	    {"\"\xC3\x28\"", "invalid UTF-8", 1, 2},
	    {"", "unexpected end", 1, 1},
	};
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		char buf[64];
		snprintf(buf, sizeof buf, "%s", bad[k].text);
		e = (ib_error){0};
		cr_expect_eq(tj_parse(a, "t.json", buf, strlen(buf), &v, &e), IB_EPARSE, "%s",
		             bad[k].text);
		cr_expect(strstr(e.msg, bad[k].msg), "%s: message %s", bad[k].text, e.msg);
		cr_expect_eq(e.line, bad[k].line, "%s: line %d", bad[k].text, e.line);
		cr_expect_eq(e.col, bad[k].col, "%s: col %d", bad[k].text, e.col);
	}
	ib_arena_free(a);
}

/* ---- UTF-8 helpers ---- */

Test(tok_uni, check_and_lossy)
{
	cr_expect_eq(tok_utf8_check("ab\xC3\xA9", 4), 4);
	cr_expect_eq(tok_utf8_check("ab\xED\xA0\x80", 5), 2);   /* a surrogate */
	cr_expect_eq(tok_utf8_check("\xF4\x90\x80\x80", 4), 0); /* above U+10FFFF */
	cr_expect_eq(tok_utf8_check("\xC0\xAF", 2), 0);         /* overlong */
	ib_buf b = {0};
	/* one U+FFFD per maximal invalid subpart */
	cr_assert_eq(tok_utf8_lossy(&b,
	                            "a\xE4\xB8"
	                            "A\xFF\xF0\x9F\x98",
	                            8),
	             0);
	cr_expect_str_eq(b.data, "a\xEF\xBF\xBD"
	                         "A\xEF\xBF\xBD\xEF\xBF\xBD");
	ib_buf_free(&b);
	cr_expect_eq(tok_cp_to_byte(tok_byte_to_cp(0x20)), 0x20);
	for (int c = 0; c < 256; c++)
		cr_expect_eq(tok_cp_to_byte(tok_byte_to_cp((unsigned char)c)), c);
	cr_expect_eq(tok_byte_to_cp(' '), 0x120); /* Ġ */
	cr_expect_eq(tok_cp_to_byte('A'), 'A');
	cr_expect_eq(tok_cp_to_byte(0x20), -1);
}

/* ---- normalizers ---- */

static void expect_norm(const char *norm, const char *in, const char *want)
{
	char *d = doc(norm, "null", "null", "null", "", char_model());
	tok *t = load_ok(d);
	ib_buf out = {0};
	ib_error e = {0};
	cr_assert_eq(tok_normalize(t, t->norm, in, strlen(in), &out, &e), 0, "%s", e.msg);
	cr_expect_str_eq(out.data, want, "%s on \"%s\": got \"%s\"", norm, in, out.data);
	ib_buf_free(&out);
	tok_free(t);
	free(d);
}

Test(tok_norm, each_normalizer)
{
	expect_norm("{`type`: `NFC`}", "e\xCC\x81 \xE2\x84\xAB", "\xC3\xA9 \xC3\x85");
	/* runs of non-ASCII text are normalized together with the ASCII
	 * character before them */
	expect_norm("{`type`: `NFC`}", "Cafe\xCC\x81 o\xCC\x88k \xCC\x81",
	            "Caf\xC3\xA9 \xC3\xB6k \xCC\x81");
	expect_norm("{`type`: `NFD`}", "\xC3\xA9", "e\xCC\x81");
	expect_norm("{`type`: `NFD`}",
	            "A\xC3\x85"
	            "b",
	            "AA\xCC\x8A"
	            "b");
	expect_norm("{`type`: `NFKC`}", "\xEF\xAC\x81 \xE2\x91\xA0", "fi 1");
	expect_norm("{`type`: `NFKD`}", "\xEF\xAC\x81\xC3\xA9", "fie\xCC\x81");
	expect_norm("{`type`: `Lowercase`}", "HeLLo \xC3\x89 \xC4\xB0", "hello \xC3\xA9 i\xCC\x87");
	expect_norm("{`type`: `Replace`, `pattern`: {`String`: ` `}, `content`: `\xE2\x96\x81`}",
	            "a b  c",
	            "a\xE2\x96\x81"
	            "b\xE2\x96\x81\xE2\x96\x81"
	            "c");
	expect_norm("{`type`: `Replace`, `pattern`: {`Regex`: `\\\\d+`}, `content`: `#`}", "a12b3",
	            "a#b#");
	expect_norm("{`type`: `Prepend`, `prepend`: `_`}", "ab", "_ab");
	expect_norm("{`type`: `Prepend`, `prepend`: `_`}", "", "");
	expect_norm("{`type`: `Strip`, `strip_left`: true, `strip_right`: true}",
	            " \t\xE3\x80\x80 ab c \n", "ab c");
	expect_norm("{`type`: `Strip`, `strip_left`: false, `strip_right`: true}", "  ab  ",
	            "  ab");
	expect_norm("{`type`: `ByteLevel`}", "a b",
	            "a\xC4\xA0"
	            "b");
	expect_norm(
	    "{`type`: `Sequence`, `normalizers`: [{`type`: `Prepend`, `prepend`: `\xE2\x96\x81`},"
	    " {`type`: `Replace`, `pattern`: {`String`: ` `}, `content`: `\xE2\x96\x81`}]}",
	    "Hi you", "\xE2\x96\x81Hi\xE2\x96\x81you");
	expect_norm("{`type`: `Sequence`, `normalizers`: []}", "x y", "x y");
}

/* ---- pre-tokenizers ---- */

static tok *with_pre(const char *pre)
{
	char *d = doc("null", pre, "null", "null", "", char_model());
	tok *t = load_ok(d);
	free(d);
	return t;
}

static void expect_split(const char *pre, const char *text, const char *want)
{
	tok *t = with_pre(pre);
	expect_pieces(t, text, want);
	tok_free(t);
}

Test(tok_pre, split_behaviors)
{
	const char *in = "the-final--countdown";
	expect_split("{`type`: `Split`, `pattern`: {`String`: `-`}, `behavior`: `Removed`, "
	             "`invert`: false}",
	             in, "the|final|countdown");
	expect_split("{`type`: `Split`, `pattern`: {`String`: `-`}, `behavior`: `Isolated`, "
	             "`invert`: false}",
	             in, "the|-|final|-|-|countdown");
	expect_split("{`type`: `Split`, `pattern`: {`String`: `-`}, `behavior`: "
	             "`MergedWithPrevious`, `invert`: false}",
	             in, "the-|final-|-|countdown");
	expect_split("{`type`: `Split`, `pattern`: {`String`: `-`}, `behavior`: `MergedWithNext`, "
	             "`invert`: false}",
	             in, "the|-final|-|-countdown");
	expect_split("{`type`: `Split`, `pattern`: {`String`: `-`}, `behavior`: `Contiguous`, "
	             "`invert`: false}",
	             in, "the|-|final|--|countdown");
	expect_split("{`type`: `Split`, `pattern`: {`Regex`: `[a-z]+`}, `behavior`: `Removed`, "
	             "`invert`: true}",
	             in, "the|final|countdown");
	expect_split("{`type`: `Split`, `pattern`: {`Regex`: `-+`}, `behavior`: `Isolated`, "
	             "`invert`: false}",
	             in, "the|-|final|--|countdown");
	/* the regex sees one piece at a time: no lookahead across pieces */
	expect_split("{`type`: `Sequence`, `pretokenizers`: [{`type`: `Split`, `pattern`: "
	             "{`String`: `|`}, `behavior`: `Removed`, `invert`: false}, {`type`: `Split`, "
	             "`pattern`: {`Regex`: `\\\\s+(?!\\\\S)|\\\\s+`}, `behavior`: `Isolated`, "
	             "`invert`: false}]}",
	             "a  |b", "a|  |b");
}

Test(tok_pre, byte_level)
{
	expect_split("{`type`: `ByteLevel`, `add_prefix_space`: true, `trim_offsets`: true, "
	             "`use_regex`: true}",
	             "Hello world's  x", "\xC4\xA0Hello|\xC4\xA0world|'s|\xC4\xA0|\xC4\xA0x");
	expect_split("{`type`: `ByteLevel`, `add_prefix_space`: false, `trim_offsets`: true, "
	             "`use_regex`: false}",
	             "a b\xC3\xA9",
	             "a\xC4\xA0"
	             "b\xC3\x83\xC2\xA9");
	/* the GPT-2 regex splits digits from letters, and keeps a space before */
	expect_split("{`type`: `ByteLevel`, `add_prefix_space`: false, `use_regex`: true}",
	             "ab12 34",
	             "ab|12|\xC4\xA0"
	             "34");
}

Test(tok_pre, digits_metaspace_whitespace_punctuation)
{
	expect_split("{`type`: `Digits`, `individual_digits`: true}", "ab123c", "ab|1|2|3|c");
	expect_split("{`type`: `Digits`, `individual_digits`: false}", "ab123c4", "ab|123|c|4");
	const char *m = "\xE2\x96\x81";
	char want[128];
	snprintf(want, sizeof want, "%sHey|%sfriend|%s|%sx", m, m, m, m);
	expect_split("{`type`: `Metaspace`, `replacement`: `\xE2\x96\x81`, `prepend_scheme`: "
	             "`always`, `split`: true}",
	             "Hey friend  x", want);
	snprintf(want, sizeof want, "Hey%sfriend", m);
	expect_split("{`type`: `Metaspace`, `replacement`: `\xE2\x96\x81`, `prepend_scheme`: "
	             "`never`, `split`: false}",
	             "Hey friend", want);
	snprintf(want, sizeof want, "%sHey%sfriend", m, m);
	expect_split("{`type`: `Metaspace`, `replacement`: `\xE2\x96\x81`, `prepend_scheme`: "
	             "`first`, `split`: false}",
	             "Hey friend", want);
	expect_split("{`type`: `Whitespace`}", "Hey, friend!  \xC3\xA9t\xC3\xA9_1",
	             "Hey|,|friend|!|\xC3\xA9t\xC3\xA9_1");
	expect_split("{`type`: `WhitespaceSplit`}", " Hey  friend!\t", "Hey|friend!");
	expect_split("{`type`: `Punctuation`}", "Hey, friend!", "Hey|,| friend|!");
	expect_split("{`type`: `Punctuation`, `behavior`: `MergedWithPrevious`}", "Hey, friend!",
	             "Hey,| friend!");
}

Test(tok_pre, metaspace_first_only_at_the_start)
{
	/* with an added token in front, the piece after it is not "first" */
	char *d = doc("null",
	              "{`type`: `Metaspace`, `replacement`: `_`, `prepend_scheme`: `first`, "
	              "`split`: true}",
	              "null", "null",
	              "{`id`: 3, `content`: `<s>`, `special`: true, `normalized`: false, "
	              "`lstrip`: false, `rstrip`: false, `single_word`: false}",
	              char_model());
	tok *t = load_ok(d);
	expect_pieces(t, "a b<s>c d", "_a|_b|<3>|c|_d");
	tok_free(t);
	free(d);
}

/* ---- the BPE model ---- */

Test(tok_bpe, merges_in_rank_order)
{
	/* "a b" before "b c": abc -> ab c -> (no "ab c") */
	char *d =
	    doc("null", "null", "null", "null", "",
	        "{`type`: `BPE`, `vocab`: {`a`: 0, `b`: 1, `c`: 2, `ab`: 3, `bc`: 4, `abc`: 5},"
	        " `merges`: [`a b`, `b c`, `a bc`]}");
	tok *t = load_ok(d);
	expect_enc(t, "abc", false, "3 2");
	expect_enc(t, "bc", false, "4");
	expect_enc(t, "abab", false, "3 3");
	tok_free(t);
	free(d);
	/* pairs format; "b c" first gives a bc -> abc */
	d = doc("null", "null", "null", "null", "",
	        "{`type`: `BPE`, `vocab`: {`a`: 0, `b`: 1, `c`: 2, `ab`: 3, `bc`: 4, `abc`: 5},"
	        " `merges`: [[`b`, `c`], [`a`, `b`], [`a`, `bc`]]}");
	t = load_ok(d);
	expect_enc(t, "abc", false, "5");
	/* equal ranks: the leftmost pair merges first */
	expect_enc(t, "bcbc", false, "4 4");
	tok_free(t);
	free(d);
}

Test(tok_bpe, ignore_merges_takes_whole_words)
{
	const char *vocab = "`vocab`: {`a`: 0, `b`: 1, `c`: 2, `ab`: 3, `abc`: 4}, "
	                    "`merges`: [`a b`]";
	char m[256];
	snprintf(m, sizeof m, "{`type`: `BPE`, `ignore_merges`: true, %s}", vocab);
	char *d = doc("null", "null", "null", "null", "", m);
	tok *t = load_ok(d);
	expect_enc(t, "abc", false, "4");
	tok_free(t);
	free(d);
	snprintf(m, sizeof m, "{`type`: `BPE`, `ignore_merges`: false, %s}", vocab);
	d = doc("null", "null", "null", "null", "", m);
	t = load_ok(d);
	expect_enc(t, "abc", false, "3 2");
	tok_free(t);
	free(d);
}

Test(tok_bpe, long_word_is_not_quadratic)
{
	char *m = byte_model("`aa`: 256, `aaaa`: 257", "`a a`, `aa aa`", "");
	char *d = doc("null", "null", "null", "null", "", m);
	tok *t = load_ok(d);
	size_t n = 400000;
	char *s = malloc(n + 2);
	memset(s, 'a', n);
	s[n] = 'a'; /* odd length: one "a" left over */
	tok_ids ids = {0};
	ib_error e = {0};
	int64_t t0 = ib_now_ns();
	cr_assert_eq(tok_encode(t, s, n + 1, false, &ids, &e), 0);
	int64_t dt = ib_now_ns() - t0;
	cr_expect_eq(ids.n, n / 4 + 1);
	cr_expect_eq(ids.v[0], 257);
	cr_expect_eq(ids.v[ids.n - 1], 'a');
	cr_expect_lt(dt, 5000000000LL, "400k characters took %lld ns", (long long)dt);
	tok_ids_free(&ids);
	free(s);
	tok_free(t);
	free(d);
	free(m);
}

Test(tok_bpe, byte_fallback_unk_and_fuse)
{
	const char *vocab = "`vocab`: {`<unk>`: 0, `<0xC3>`: 1, `<0xA9>`: 2, `a`: 3, `b`: 4}, "
	                    "`merges`: []";
	char m[512];
	snprintf(m, sizeof m, "{`type`: `BPE`, `unk_token`: `<unk>`, `byte_fallback`: true, %s}",
	         vocab);
	char *d = doc("null", "null", "null", "null", "", m);
	tok *t = load_ok(d);
	/* é has its bytes; ü does not: unk */
	expect_enc(t,
	           "a\xC3\xA9"
	           "b\xC3\xBC",
	           false, "3 1 2 4 0");
	tok_free(t);
	free(d);
	snprintf(m, sizeof m, "{`type`: `BPE`, `unk_token`: `<unk>`, `fuse_unk`: true, %s}", vocab);
	d = doc("null", "null", "null", "null", "", m);
	t = load_ok(d);
	expect_enc(t,
	           "a\xC3\xBC\xC3\xBC"
	           "b\xC3\xBC",
	           false, "3 0 4 0");
	tok_free(t);
	free(d);
	snprintf(m, sizeof m, "{`type`: `BPE`, `unk_token`: `<unk>`, `fuse_unk`: false, %s}",
	         vocab);
	d = doc("null", "null", "null", "null", "", m);
	t = load_ok(d);
	expect_enc(t, "a\xC3\xBC\xC3\xBC", false, "3 0 0");
	tok_free(t);
	free(d);
	/* no unk token: unknown characters vanish */
	snprintf(m, sizeof m, "{`type`: `BPE`, %s}", vocab);
	d = doc("null", "null", "null", "null", "", m);
	t = load_ok(d);
	expect_enc(t,
	           "a\xC3\xBC"
	           "b",
	           false, "3 4");
	tok_free(t);
	free(d);
}

static char *encode_ids(tok *t, const char *s, size_t n)
{
	return enc(t, s, n, false);
}

Test(tok_bpe, cutting_sentencepiece_words_changes_nothing)
{
	const char *m = "\xE2\x96\x81";
	char model[1024];
	/* without an unk token, the unknown "x" vanishes and makes its
	 * neighbours adjacent: no cutting */
	const char *fmt =
	    "{`type`: `BPE`, %s `vocab`: {`%s`: 0, `a`: 1, `b`: 2, `c`: 3, `%sa`: 4, `ab`: 5, "
	    "`%sab`: 6, `%s%s`: 7, `bc`: 8, `%sbc`: 9, `<unk>`: 10}, `merges`: [`%s a`, `a b`, "
	    "`%sa b`, `%s %s`, `b c`, `%s bc`]}";
	snprintf(model, sizeof model, fmt, "", m, m, m, m, m, m, m, m, m, m, m);
	char *d = doc("null", "null", "null", "null", "", model);
	tok *t = load_ok(d);
	cr_expect(!t->bpe.split_meta);
	tok_free(t);
	free(d);
	snprintf(model, sizeof model, fmt, "`unk_token`: `<unk>`, `fuse_unk`: true,", m, m, m, m, m,
	         m, m, m, m, m, m);
	d = doc("null", "null", "null", "null", "", model);
	t = load_ok(d);
	cr_assert(t->bpe.split_meta, "no merge joins x + U+2581 here: words may be cut");
	char buf[2048];
	for (int round = 0; round < 500; round++) {
		size_t n = 0, want = rnd_len(600);
		while (n < want) {
			int k = (int)(rnd_len(5));
			if (k == 0) {
				memcpy(buf + n, m, 3);
				n += 3;
			} else {
				buf[n++] = "abcx"[k - 1];
			}
		}
		t->bpe.split_meta = true;
		char *cut = encode_ids(t, buf, n);
		t->bpe.split_meta = false;
		char *whole = encode_ids(t, buf, n);
		cr_expect_str_eq(cut, whole, "round %d: [%.*s]: cut [%s], whole [%s]", round,
		                 (int)n, buf, cut, whole);
		free(cut);
		free(whole);
	}
	tok_free(t);
	free(d);
	/* a merge that joins "a" + U+2581 forbids cutting */
	snprintf(model, sizeof model,
	         "{`type`: `BPE`, `vocab`: {`%s`: 0, `a`: 1, `a%s`: 2}, `merges`: [`a %s`]}", m, m,
	         m);
	d = doc("null", "null", "null", "null", "", model);
	t = load_ok(d);
	cr_expect(!t->bpe.split_meta);
	tok_free(t);
	free(d);
}

Test(tok_bpe, subword_prefix_and_suffix)
{
	char *d = doc("null", "null", "null", "null", "",
	              "{`type`: `BPE`, `continuing_subword_prefix`: `##`, `end_of_word_suffix`: "
	              "`</w>`, `vocab`: {`a`: 0, `##b`: 1, `##c</w>`: 2, `a##b`: 3, `ab`: 4}, "
	              "`merges`: [`a ##b`]}");
	tok *t = load_ok(d);
	/* the merged token is a + b without the prefix: "ab" */
	expect_enc(t, "abc", false, "4 2");
	tok_free(t);
	free(d);
}

/* ---- added tokens ---- */

static const char *added(const char *content, int id, const char *flags)
{
	static char buf[8][256];
	static int k;
	char *b = buf[k++ % 8];
	snprintf(b, 256, "{`id`: %d, `content`: `%s`, %s}", id, content, flags);
	return b;
}

Test(tok_added, strip_single_word_and_normalized)
{
	char list[2048];
	snprintf(list, sizeof list, "%s, %s, %s, %s",
	         added("<s>", 3,
	               "`special`: true, `normalized`: false, `lstrip`: true, "
	               "`rstrip`: true, `single_word`: false"),
	         added("ab", 4,
	               "`special`: false, `normalized`: false, `lstrip`: false, "
	               "`rstrip`: false, `single_word`: true"),
	         added("yes", 5,
	               "`special`: false, `normalized`: true, `lstrip`: false, "
	               "`rstrip`: false, `single_word`: false"),
	         added("a", 99,
	               "`special`: true, `normalized`: false, `lstrip`: false, "
	               "`rstrip`: false, `single_word`: false"));
	char *d = doc("{`type`: `Lowercase`}", "null", "null", "null", list, char_model());
	tok *t = load_ok(d);
	/* "a" is in the model vocabulary: it keeps id 0; the others are numbered
	 * from the vocabulary size on, as HuggingFace does (3, 4, 5) */
	cr_expect_eq(tok_token_to_id(t, "a", 1), 0);
	cr_expect_eq(tok_token_to_id(t, "<s>", 3), 3);
	cr_expect_eq(tok_token_to_id(t, "yes", 3), 5);
	cr_expect_eq(tok_vocab_size(t, false), 3);
	cr_expect_eq(tok_vocab_size(t, true), 6);
	expect_pieces(t, "c  <s>  c", "c|<3>|c");
	/* the "ab" inside "cab" is the leftmost-longest match at its position,
	 * discarded as not a single word; "a" there is not tried */
	expect_pieces(t, "ab cab ab", "<4>| cab |<4>");
	expect_pieces(t, "xYESx", "x|<5>|x");
	tok_free(t);
	free(d);
}

Test(tok_added, longest_leftmost_and_special_skip)
{
	char list[2048];
	snprintf(list, sizeof list, "%s, %s, %s",
	         added("<a>", 3, "`special`: true, `normalized`: false"),
	         added("<a><b>", 4, "`special`: true, `normalized`: false"),
	         added("<b>", 5, "`special`: false, `normalized`: false"));
	char *d = doc("null", "null", "null", "null", list, char_model());
	tok *t = load_ok(d);
	expect_enc(t, "a<a><b>b<b><a>", false, "0 4 1 5 3");
	uint32_t ids[] = {0, 4, 1, 5, 3, 77};
	expect_dec(t, ids, 6, false, "a <a><b> b <b> <a>"); /* no decoder: joined by spaces */
	expect_dec(t, ids, 6, true, "a b <b>");
	cr_expect(tok_id_is_special(t, 3));
	cr_expect(!tok_id_is_special(t, 5));
	size_t len = 0;
	cr_expect_str_eq(tok_id_to_token(t, 4, &len), "<a><b>");
	cr_expect_eq(len, 6);
	cr_expect_null(tok_id_to_token(t, 77, NULL));
	cr_expect_eq(tok_token_to_id(t, "zz", 2), -1);
	tok_free(t);
	free(d);
}

/* ---- decoders ---- */

Test(tok_dec, byte_level_and_invalid_utf8)
{
	char *m =
	    byte_model("`\xC4\xA0hi`: 256, `\xC4\xA0h`: 257", "`\xC4\xA0 h`, `\xC4\xA0h i`", "");
	char *d = doc("null", "{`type`: `ByteLevel`, `add_prefix_space`: false, `use_regex`: true}",
	              "{`type`: `ByteLevel`, `add_prefix_space`: true, `trim_offsets`: false}",
	              "{`type`: `ByteLevel`}", "", m);
	tok *t = load_ok(d);
	expect_enc(t, "a hi", false, "97 256");
	expect_enc(t, "a hi", true, "97 256");
	uint32_t ids[] = {97, 256, 0xE4, 0xB8, 'A', 0xFF};
	expect_dec(t, ids, 6, false,
	           "a hi\xEF\xBF\xBD"
	           "A\xEF\xBF\xBD");
	uint32_t ok[] = {0xC3, 0xA9};
	expect_dec(t, ok, 2, false, "\xC3\xA9");
	expect_dec(t, NULL, 0, false, "");
	tok_free(t);
	free(d);
	free(m);
}

/* Found by fuzz_tok_cache: a vocabulary entry at a huge id made the decode
 * table (one entry per id up to the largest) ask for gigabytes. Sparse ids
 * decode without the table, to the same text as dense ones. */
Test(tok_dec, sparse_ids_decode_without_the_table)
{
	/* an id at TOK_MAX_ID (2^24) or above is a broken file, said so */
	char *bad = byte_model("`<far>`: 16777216", "", "");
	char *bd = doc("null", "null", "null", "null", "", bad);
	char *msg = load_err(bd, IB_EINVAL);
	cr_expect(strstr(msg, "model.vocab: the id of '<far>' must be an integer in [0, 16777216)"),
	          "%s", msg);
	free(msg);
	free(bd);
	free(bad);
	const uint32_t far[] = {300, 16777215};
	for (int k = 0; k < 2; k++) {
		char extra[128];
		snprintf(extra, sizeof extra, "`\xC4\xA0hi`: 256, `<far>`: %u", far[k]);
		char *m = byte_model(extra, "", "");
		char *d = doc(
		    "null", "{`type`: `ByteLevel`, `add_prefix_space`: false, `use_regex`: true}",
		    "{`type`: `ByteLevel`, `add_prefix_space`: true, `trim_offsets`: false}",
		    "{`type`: `ByteLevel`}", "", m);
		tok *t = load_ok(d);
		uint32_t ids[] = {97, 256, far[k], 0xC3, 0xA9, 299};
		expect_dec(t, ids, 6, false, "a hi<far>\xC3\xA9");
		/* the dense vocabulary has its table; the sparse one none */
		cr_expect_eq(atomic_load(&t->dectab) != NULL, k == 0);
		tok_free(t);
		free(d);
		free(m);
	}
}

Test(tok_dec, sentencepiece_chain)
{
	/* Mistral's decoder: Replace(▁ -> ' '), ByteFallback, Fuse, Strip(' ', 1, 0) */
	char *d = doc(
	    "null", "null", "null",
	    "{`type`: `Sequence`, `decoders`: [{`type`: `Replace`, `pattern`: {`String`: "
	    "`\xE2\x96\x81`}, `content`: ` `}, {`type`: `ByteFallback`}, {`type`: `Fuse`}, "
	    "{`type`: `Strip`, `content`: ` `, `start`: 1, `stop`: 0}]}",
	    "",
	    "{`type`: `BPE`, `vocab`: {`<s>`: 0, `\xE2\x96\x81Hello`: 1, `<0xE4>`: 2, `<0xB8>`: 3, "
	    "`<0x41>`: 4, `<0xAD>`: 5, `\xE2\x96\x81`: 6}, `merges`: []}");
	tok *t = load_ok(d);
	uint32_t a[] = {1, 6, 1};
	expect_dec(t, a, 3, false, "Hello  Hello");
	uint32_t b[] = {0, 1};
	expect_dec(t, b, 2, false, "<s> Hello"); /* Strip cuts the first token only */
	uint32_t c[] = {2, 3, 4, 1};             /* an invalid run: one U+FFFD per byte */
	expect_dec(t, c, 4, false, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD Hello");
	uint32_t v[] = {2, 3, 5};
	expect_dec(t, v, 3, false, "\xE4\xB8\xAD");
	tok_free(t);
	free(d);
}

Test(tok_dec, metaspace_and_strip)
{
	char *d =
	    doc("null", "null", "null",
	        "{`type`: `Sequence`, `decoders`: [{`type`: `Metaspace`, `replacement`: `_`, "
	        "`prepend_scheme`: `always`, `split`: true}, {`type`: `Strip`, `content`: `x`,"
	        " `start`: 0, `stop`: 2}]}",
	        "", "{`type`: `BPE`, `vocab`: {`_a_b`: 0, `_cxxx`: 1}, `merges`: []}");
	tok *t = load_ok(d);
	uint32_t a[] = {0, 1};
	/* the first token loses its replacement characters, the others get spaces */
	expect_dec(t, a, 2, false, "ab cx");
	tok_free(t);
	free(d);
}

/* ---- post-processors ---- */

Test(tok_post, template_adds_special_tokens_only_when_asked)
{
	const char *tp =
	    "{`type`: `TemplateProcessing`, `single`: [{`SpecialToken`: {`id`: `<s>`, `type_id`: "
	    "0}},"
	    " {`Sequence`: {`id`: `A`, `type_id`: 0}}, {`SpecialToken`: {`id`: `</s>`, `type_id`: "
	    "0}}], `pair`: [], `special_tokens`: {`<s>`: {`id`: `<s>`, `ids`: [1], `tokens`: "
	    "[`<s>`]}, `</s>`: {`id`: `</s>`, `ids`: [2, 2], `tokens`: [`</s>`, `</s>`]}}}";
	char seq[1024];
	snprintf(seq, sizeof seq, "{`type`: `Sequence`, `processors`: [{`type`: `ByteLevel`}, %s]}",
	         tp);
	const char *pp[] = {tp, seq};
	for (int k = 0; k < 2; k++) {
		char *d = doc("null", "null", pp[k], "null", "", char_model());
		tok *t = load_ok(d);
		expect_enc(t, "ab", true, "1 0 1 2 2");
		expect_enc(t, "ab", false, "0 1");
		expect_enc(t, "", true, "1 2 2");
		tok_free(t);
		free(d);
	}
}

/* ---- errors ---- */

Test(tok_errors, unknown_types_name_the_type_and_the_path)
{
	struct {
		const char *norm, *pre, *post, *dec, *model, *want;
	} c[] = {
	    {"{`type`: `BertNormalizer`}", "null", "null", "null", NULL,
	     "test.json: normalizer: unsupported normalizer type 'BertNormalizer'"},
	    {"null", "{`type`: `Sequence`, `pretokenizers`: [{`type`: `Digits`}, {`type`: `Foo`}]}",
	     "null", "null", NULL,
	     "test.json: pre_tokenizer.pretokenizers[1]: unsupported pre-tokenizer type 'Foo'"},
	    {"null", "null", "{`type`: `RobertaProcessing`}", "null", NULL,
	     "post_processor: unsupported post-processor type 'RobertaProcessing'"},
	    {"null", "null", "null", "{`type`: `Sequence`, `decoders`: [{`type`: `CTC`}]}", NULL,
	     "decoder.decoders[0]: unsupported decoder type 'CTC'"},
	    {"null", "null", "null", "null", "{`type`: `WordPiece`, `vocab`: {}}",
	     "model: unsupported model type 'WordPiece' (supported: BPE)"},
	    {"null", "null", "null", "null",
	     "{`type`: `BPE`, `vocab`: {`a`: 0}, `merges`: [`a b`]}",
	     "model.merges[0]: token 'b' is not in the vocabulary"},
	    {"null", "null", "null", "null",
	     "{`type`: `BPE`, `vocab`: {`a`: 0, `b`: 1}, `merges`: [`a b`]}",
	     "model.merges[0]: merged token 'ab' is not in the vocabulary"},
	    {"null", "null", "null", "null",
	     "{`type`: `BPE`, `vocab`: {`a`: 0}, `merges`: [`a a a`]}",
	     "a merge must be two tokens separated by one space"},
	    {"null", "null", "null", "null",
	     "{`type`: `BPE`, `dropout`: 0.1, `vocab`: {}, "
	     "`merges`: []}",
	     "model.dropout: BPE dropout is not supported"},
	    {"null",
	     "{`type`: `Split`, `pattern`: {`Regex`: `(`}, `behavior`: `Isolated`, "
	     "`invert`: false}",
	     "null", "null", NULL, "pre_tokenizer: cannot compile the regex /(/"},
	    {"null",
	     "{`type`: `Split`, `pattern`: {`Regex`: `a`}, `behavior`: `Sideways`, "
	     "`invert`: false}",
	     "null", "null", NULL, "'behavior' must be one of"},
	    {"null", "{`type`: `Metaspace`, `replacement`: `ab`}", "null", "null", NULL,
	     "'replacement' must be one character"},
	    {"null", "null",
	     "{`type`: `TemplateProcessing`, `single`: [{`SpecialToken`: {`id`: `<x>`, "
	     "`type_id`: 0}}], `special_tokens`: {}}",
	     "null", NULL, "special token '<x>' is not in special_tokens"},
	};
	for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
		char *d = doc(c[k].norm, c[k].pre, c[k].post, c[k].dec, "",
		              c[k].model ? c[k].model : char_model());
		char *m = load_err(d, IB_EINVAL);
		char *want = J(c[k].want);
		cr_expect(strstr(m, want), "case %zu: message \"%s\" lacks \"%s\"", k, m, want);
		free(want);
		free(m);
		free(d);
	}
}

Test(tok_errors, malformed_json_and_files)
{
	char *m = load_err("{\"model\": {\"type\": \"BPE\",\n \"vocab\": {\"a\" 0}}}", IB_EPARSE);
	cr_expect_str_eq(m, "test.json:2:16: JSON syntax error: expected ':'");
	free(m);
	m = load_err("[1, 2]", IB_EINVAL);
	cr_expect(strstr(m, "must hold an object"), "%s", m);
	free(m);
	tok *t = NULL;
	ib_error e = {0};
	cr_expect_eq(tok_load("/nonexistent/tokenizer.json", &t, &e), IB_ENOENT);
	cr_expect(strstr(e.file, "/nonexistent/tokenizer.json"));
	cr_expect_null(t);
}

Test(tok_errors, invalid_utf8_input_is_an_error)
{
	char *d = doc("null", "null", "null", "null", "", char_model());
	tok *t = load_ok(d);
	tok_ids ids = {0};
	ib_error e = {0};
	cr_expect_eq(tok_encode(t, "ab\xC3(", 4, false, &ids, &e), IB_EINVAL);
	cr_expect(strstr(e.msg, "not valid UTF-8") && strstr(e.msg, "byte offset 2"), "%s", e.msg);
	cr_expect_eq(ids.n, 0);
	tok_free(t);
	free(d);
}

/* ---- folders and tokenizer_config.json ---- */

Test(tok_load, folder_with_config)
{
	char dir[] = "/tmp/tok_test_XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char p[512];
	char *d = doc("null", "null", "null", "null", "", char_model());
	snprintf(p, sizeof p, "%s/tokenizer.json", dir);
	FILE *f = fopen(p, "w");
	fputs(d, f);
	fclose(f);
	snprintf(p, sizeof p, "%s/tokenizer_config.json", dir);
	f = fopen(p, "w");
	fputs("{\"bos_token\": \"<s>\", \"eos_token\": {\"__type\": \"AddedToken\", "
	      "\"content\": \"</s>\"}, \"pad_token\": null}",
	      f);
	fclose(f);
	tok *t = NULL;
	ib_error e = {0};
	cr_assert_eq(tok_load(dir, &t, &e), 0, "%s", e.msg);
	cr_expect_str_eq(tok_config_token(t, "bos_token"), "<s>");
	cr_expect_str_eq(tok_config_token(t, "eos_token"), "</s>");
	cr_expect_null(tok_config_token(t, "pad_token"));
	expect_enc(t, "cab", false, "2 0 1");
	tok_free(t);
	/* a broken config is an error that names it */
	f = fopen(p, "w");
	fputs("{\"bos_token\": ", f);
	fclose(f);
	e = (ib_error){0};
	cr_expect_eq(tok_load(dir, &t, &e), IB_EPARSE);
	cr_expect(strstr(e.file, "tokenizer_config.json"), "%s", e.file);
	unlink(p);
	snprintf(p, sizeof p, "%s/tokenizer.json", dir);
	unlink(p);
	rmdir(dir);
	free(d);
}

/* ---- random input ---- */

/* Random UTF-8: code points from ASCII, Latin, combining marks, CJK, emoji. */
static size_t random_text(char *buf, size_t cap)
{
	static const uint32_t lo[] = {0x20, 0x09, 0xA0, 0x300, 0x400, 0x4E00, 0x1F600, 0xAC00};
	static const uint32_t span[] = {0x5F, 5, 0x180, 0x70, 0x100, 0x200, 0x50, 0x100};
	size_t n = 0, want = rnd() % (cap / 4);
	while (n < want) {
		int k = (int)(rnd() % 8);
		uint32_t cp = lo[k] + (uint32_t)(rnd() % span[k]);
		n += tok_utf8_put(buf + n, cp);
	}
	return n;
}

Test(tok_fuzz, random_bytes_never_crash)
{
	char *m = byte_model("`\xC4\xA0t`: 256, `he`: 257, `\xC4\xA0the`: 258",
	                     "`\xC4\xA0 t`, `h e`, `\xC4\xA0t he`", "");
	char list[512];
	snprintf(list, sizeof list, "%s",
	         added("<|x|>", 259, "`special`: true, `normalized`: false, `lstrip`: true"));
	char *d = doc("{`type`: `Sequence`, `normalizers`: [{`type`: `NFKC`}, {`type`: "
	              "`Lowercase`}]}",
	              "{`type`: `Sequence`, `pretokenizers`: [{`type`: `Split`, `pattern`: "
	              "{`Regex`: `\\\\p{N}{1,3}| ?\\\\p{L}+|\\\\s+(?!\\\\S)|\\\\s+`}, `behavior`: "
	              "`Isolated`, `invert`: false}, {`type`: `Metaspace`, `replacement`: `_`}, "
	              "{`type`: `ByteLevel`, `add_prefix_space`: true, `use_regex`: true}]}",
	              "null", "{`type`: `ByteLevel`}", list, m);
	tok *t = load_ok(d);
	char buf[256];
	for (int round = 0; round < 3000; round++) {
		size_t n;
		if (round % 2) {
			n = random_text(buf, sizeof buf);
		} else {
			n = rnd() % sizeof buf;
			for (size_t k = 0; k < n; k++)
				buf[k] = (char)rnd();
		}
		if (round % 5 == 0 && n > 8)
			memcpy(buf + n / 2, "<|x|>", 5);
		tok_ids ids = {0};
		ib_error e = {0};
		int rc = tok_encode(t, buf, n, round & 2, &ids, &e);
		bool valid = tok_utf8_check(buf, n) == n;
		cr_expect_eq(rc, valid ? 0 : IB_EINVAL, "round %d: %s", round, e.msg);
		/* decoding random ids never fails and gives valid UTF-8 */
		ib_buf out = {0};
		for (size_t k = 0; k < ids.n; k++)
			ids.v[k] = (uint32_t)(rnd() % 300);
		cr_expect_eq(tok_decode(t, ids.v, ids.n, round & 4, &out, &e), 0);
		cr_expect_eq(tok_utf8_check(out.data, out.len), out.len);
		ib_buf_free(&out);
		tok_ids_free(&ids);
	}
	tok_free(t);
	free(d);
	free(m);
}

Test(tok_fuzz, byte_level_round_trip)
{
	char *m = byte_model("`\xC4\xA0t`: 256, `he`: 257, `\xC4\xA0the`: 258",
	                     "`\xC4\xA0 t`, `h e`, `\xC4\xA0t he`", "");
	char list[512];
	snprintf(list, sizeof list, "%s",
	         added("<|x|>", 259, "`special`: true, `normalized`: false"));
	char *d = doc("null", "{`type`: `ByteLevel`, `add_prefix_space`: false, `use_regex`: true}",
	              "null", "{`type`: `ByteLevel`}", list, m);
	tok *t = load_ok(d);
	expect_enc(t, "the the", false, "116 257 258");
	char buf[512];
	for (int round = 0; round < 2000; round++) {
		size_t n = random_text(buf, 200);
		if (round % 7 == 0) { /* merges and an added token in the middle */
			memcpy(buf + n, " the <|x|>", 10);
			n += 10;
			n += random_text(buf + n, 200);
		}
		tok_ids ids = {0};
		ib_error e = {0};
		cr_assert_eq(tok_encode(t, buf, n, true, &ids, &e), 0, "%s", e.msg);
		ib_buf out = {0};
		cr_assert_eq(tok_decode(t, ids.v, ids.n, false, &out, &e), 0);
		cr_expect(out.len == n && !memcmp(out.data ? out.data : "", buf, n),
		          "round %d: decode(encode(text)) differs", round);
		ib_buf_free(&out);
		tok_ids_free(&ids);
	}
	tok_free(t);
	free(d);
	free(m);
}

/* ---- tok_resolve: Hugging Face model ids in the local cache ---- */

static void mkfile(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

/* A fake cache under a temp folder: models--org--m with refs/main → c0ffee,
 * snapshots/c0ffee/tokenizer.json, and snapshots/beef (no tokenizer). */
static void fake_cache(char *root, size_t cap)
{
	snprintf(root, cap, "/tmp/ib_hf_XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	char p[512];
	const char *dirs[] = {"hub",
	                      "hub/models--org--m",
	                      "hub/models--org--m/refs",
	                      "hub/models--org--m/snapshots",
	                      "hub/models--org--m/snapshots/c0ffee",
	                      "hub/models--org--m/snapshots/beef"};
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", root, dirs[i]);
		cr_assert_eq(mkdir(p, 0700), 0, "%s", p);
	}
	snprintf(p, sizeof p, "%s/hub/models--org--m/refs/main", root);
	mkfile(p, "c0ffee\n");
	snprintf(p, sizeof p, "%s/hub/models--org--m/snapshots/c0ffee/tokenizer.json", root);
	mkfile(p, "{}");
	unsetenv("HF_HUB_CACHE");
	unsetenv("HUGGINGFACE_HUB_CACHE");
	unsetenv("HF_HOME");
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "/nonexistent-home", 1);
}

Test(tok_resolve, id_through_refs_main_in_hf_hub_cache)
{
	char root[64], want[512], hub[512];
	fake_cache(root, sizeof root);
	snprintf(hub, sizeof hub, "%s/hub", root);
	setenv("HF_HUB_CACHE", hub, 1);
	char *out = NULL;
	ib_error e = {0};
	cr_assert_eq(tok_resolve("org/m", &out, &e), 0, "%s", e.msg);
	snprintf(want, sizeof want, "%s/hub/models--org--m/snapshots/c0ffee", root);
	cr_assert_str_eq(out, want);
	free(out);
}

Test(tok_resolve, hf_home_hub_and_commit_revision)
{
	char root[64], want[512];
	fake_cache(root, sizeof root);
	setenv("HF_HOME", root, 1);
	char *out = NULL;
	ib_error e = {0};
	cr_assert_eq(tok_resolve("org/m@c0ffee", &out, &e), 0, "%s", e.msg);
	snprintf(want, sizeof want, "%s/hub/models--org--m/snapshots/c0ffee", root);
	cr_assert_str_eq(out, want);
	free(out);
	/* a snapshot without tokenizer.json is not a match, and says so */
	cr_assert_eq(tok_resolve("org/m@beef", &out, &e), IB_ENOENT);
	cr_assert_null(out);
	cr_assert(strstr(e.msg, "snapshots/beef: has no tokenizer.json"), "%s", e.msg);
}

Test(tok_resolve, home_cache_and_existing_path)
{
	char root[64], p[512], want[512];
	fake_cache(root, sizeof root);
	snprintf(p, sizeof p, "%s/.cache", root);
	cr_assert_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof p, "%s/.cache/huggingface", root);
	cr_assert_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof p, "%s/.cache/huggingface/hub", root);
	char old[512];
	snprintf(old, sizeof old, "%s/hub", root);
	cr_assert_eq(rename(old, p), 0);
	setenv("HOME", root, 1);
	char *out = NULL;
	ib_error e = {0};
	cr_assert_eq(tok_resolve("org/m", &out, &e), 0, "%s", e.msg);
	snprintf(want, sizeof want, "%s/.cache/huggingface/hub/models--org--m/snapshots/c0ffee",
	         root);
	cr_assert_str_eq(out, want);
	free(out);
	/* an existing path is taken as is, even when it looks like an id */
	cr_assert_eq(tok_resolve(root, &out, &e), 0);
	cr_assert_str_eq(out, root);
	free(out);
}

Test(tok_resolve, not_found_lists_every_place)
{
	char root[64], hub[512], home[512];
	fake_cache(root, sizeof root);
	snprintf(hub, sizeof hub, "%s/hub", root);
	snprintf(home, sizeof home, "%s/h", root);
	setenv("HF_HUB_CACHE", hub, 1);
	setenv("HF_HOME", home, 1);
	char *out = NULL;
	ib_error e = {0};
	cr_assert_eq(tok_resolve("amd/MiniMax-M3-MXFP4", &out, &e), IB_ENOENT);
	cr_assert_null(out);
	cr_assert(
	    strstr(e.msg, "hub/models--amd--MiniMax-M3-MXFP4: no such folder ($HF_HUB_CACHE)"),
	    "%s", e.msg);
	cr_assert(
	    strstr(e.msg, "h/hub/models--amd--MiniMax-M3-MXFP4: no such folder ($HF_HOME/hub)"),
	    "%s", e.msg);
	cr_assert(strstr(e.msg, "/nonexistent-home/.cache/huggingface/hub"), "%s", e.msg);
	cr_assert(strstr(e.msg, "--tokenizer DIR"), "%s", e.msg);
	/* not an id at all: the path as given, for the loader to report */
	const char *paths[] = {"/no/such/dir", "./m", "a/b/c", "org/m@../../etc", "org/--m"};
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		cr_assert_eq(tok_resolve(paths[i], &out, &e), 0, "%s", paths[i]);
		cr_assert_str_eq(out, paths[i]);
		free(out);
	}
}

/* tok_hash reads a short tail without a variable-length copy; the value is
 * that of the plain form, which the cache files' slot tables depend on */
static uint64_t hash_plain(const char *s, size_t len)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ (len * 0xFF51AFD7ED558CCDull);
	for (; len >= 8; s += 8, len -= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
		h ^= h >> 31;
	}
	uint64_t w = 0;
	memcpy(&w, s, len);
	h = (h ^ w) * 0x94D049BB133111EBull;
	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 32;
	return h;
}

Test(tok, hash_tail_equals_plain_form)
{
	char b[48];
	uint32_t x = 7;
	for (int it = 0; it < 100000; it++) {
		size_t n = (size_t)it % 41;
		for (size_t i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			b[i] = (char)(x >> 16);
		}
		cr_assert_eq(tok_hash(b, n), hash_plain(b, n), "length %zu", n);
	}
}

/* tok_utf8_check's inline decoder against ib_utf8_decode, the base's
 * (overlong forms, surrogates, > U+10FFFF, truncation), on random bytes
 * biased toward lead and continuation bytes */
static size_t utf8_check_plain(const char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		uint32_t cp;
		int n = ib_utf8_decode(s + i, len - i, &cp);
		if (n <= 0)
			return i;
		i += (size_t)n;
	}
	return len;
}

Test(tok, utf8_check_equals_base_decoder)
{
	static const unsigned char picks[] = {0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF,
	                                      0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xED,
	                                      0xEF, 0xF0, 0xF4, 0xF5, 0xFF, 0x00};
	char b[24];
	uint32_t x = 11;
	for (int it = 0; it < 300000; it++) {
		size_t n = (size_t)it % 20;
		for (size_t i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			b[i] = (char)((x >> 20) & 1 ? picks[(x >> 8) % sizeof picks] : (x >> 12));
		}
		cr_assert_eq(tok_utf8_check(b, n), utf8_check_plain(b, n), "case %d", it);
	}
}

/* tok_split_llama3 gives tok_re_find's spans of llama3's regex on random
 * text of characters chosen for its alternatives: the contractions (with
 * upper case and U+017F, which PCRE2 folds to s), letters, marks, digits of
 * several kinds, spaces, line ends and other spaces, punctuation, emoji. */
Test(tok, split_llama3_equals_regex)
{
	ib_buf pat = {0};
	for (const char *p = TOK_LLAMA3_RE; *p; p++)
		ib_buf_printf(&pat, *p == '\\' ? "\\\\" : "%c", *p);
	ib_buf pre = {0};
	ib_buf_printf(&pre,
	              "{`type`: `Split`, `pattern`: {`Regex`: `%s`}, `behavior`: `Isolated`, "
	              "`invert`: false}",
	              pat.data);
	char *d = doc("null", pre.data, "null", "null", "", char_model());
	tok *t = load_ok(d);
	cr_assert_eq(t->pre->kind, TP_SPLIT);
	cr_assert(t->pre->re.llama3);
	static const uint32_t alpha[] = {
	    '\'',  's',    'S',  0x17F,  't',     'T',    'r',    'R',     'e',     'E',
	    'v',   'V',    'm',  'M',    'l',     'L',    'd',    'D',     'k',     0x212A,
	    'a',   'x',    0xE9, 0x4E2D, 0x3042,  0x5D0,  0x301,  0x300,   '0',     '7',
	    0x663, 0x216B, 0xBD, 0xFF11, ' ',     ' ',    ' ',    '\t',    '\n',    '\r',
	    0xB,   0xC,    0x85, 0xA0,   0x2028,  0x3000, 0x180E, 0x200B,  '.',     ',',
	    '!',   '-',    '"',  '_',    0x1F600, 0xAD,   0x2019, 0x10400, 0x1D7CE, 0xE000};
	uint32_t x = 777;
	tok_spans ref = {0};
	for (int it = 0; it < 20000; it++) {
		char s[256];
		size_t n = 0;
		x = x * 1103515245u + 12345u;
		size_t chars = (x >> 16) % 24;
		for (size_t k = 0; k < chars; k++) {
			x = x * 1103515245u + 12345u;
			n += tok_utf8_put(s + n, alpha[(x >> 12) % (sizeof alpha / sizeof *alpha)]);
		}
		s[n] = '\0';
		ib_error e = {0};
		cr_assert_eq(tok_re_find(&t->pre->re, t->md, t->mctx, s, n, &ref, &e), 0);
		cr_assert_eq(tok_split_llama3(t, s, n, &t->spans), 0);
		cr_assert_eq(ref.n, t->spans.n, "case %d: %zu spans, %zu by hand ('%s')", it, ref.n,
		             t->spans.n, s);
		for (size_t k = 0; k < ref.n; k++)
			cr_assert(
			    ref.v[k].start == t->spans.v[k].start &&
			        ref.v[k].end == t->spans.v[k].end &&
			        ref.v[k].match == t->spans.v[k].match,
			    "case %d ('%s'): span %zu is [%zu, %zu) %d, by hand [%zu, %zu) %d", it,
			    s, k, ref.v[k].start, ref.v[k].end, ref.v[k].match, t->spans.v[k].start,
			    t->spans.v[k].end, t->spans.v[k].match);
	}
	free(ref.v);
	tok_free(t);
	free(d);
	ib_buf_free(&pre);
	ib_buf_free(&pat);
}
