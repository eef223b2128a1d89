/* Tokenizer encode and decode (tok/encode.c, bpe.c, decode.c) on any text,
 * with small built-in tokenizers shaped like the real ones: a byte-level BPE
 * with Llama 3's split regex and added tokens, and a SentencePiece-style BPE
 * with byte fallback (Mistral's normalizer and decoder). IB_FUZZ_TOKENIZER
 * may name more tokenizer.json files or folders (':'-separated; e.g. the
 * fixtures) for longer local runs.
 *
 * Input: byte 0 picks the tokenizer and add_special; the rest is the text.
 * Checks: no crash; text that is not UTF-8 is IB_EINVAL and valid text
 * encodes; every id decodes; on the byte-level tokenizer decode(encode(x))
 * gives x back (byte-level BPE is lossless), and on valid text llama3's split
 * matched by hand (tok_split_llama3) gives the regex engine's spans. */
#include "fuzz.h"

#include "tok/private.h"
#include "tok/tok.h"

enum { MAX_TOK = 8 };
static tok *toks[MAX_TOK];
static size_t ntoks;

/* GPT-2's bytes_to_unicode: the code point that stands for byte b. */
static uint32_t byte_cp(int b)
{
	if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174)
		return (uint32_t)b;
	int n = 0;
	for (int k = 0; k < b; k++)
		if (!((k >= 33 && k <= 126) || (k >= 161 && k <= 172) || k >= 174))
			n++;
	return 256 + (uint32_t)n;
}

static const char *LLAMA3_SPLIT =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+|\\\\p{N}{1,3}| "
    "?[^\\\\s\\\\p{L}\\\\p{N}]+[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|\\\\s+(?!\\\\S)|\\\\s+";

static tok *load(const char *name, ib_buf *b)
{
	tok *t = NULL;
	ib_error e = {0};
	if (tok_load_json(name, b->data, b->len, &t, &e)) {
		fprintf(stderr, "%s: %s\n", name, e.msg);
		abort();
	}
	ib_buf_free(b);
	return t;
}

static tok *bytelevel(void)
{
	ib_buf b = {0};
	ib_buf_printf(
	    &b,
	    "{\"version\": \"1.0\", \"added_tokens\": ["
	    "{\"id\": 300, \"content\": \"<|begin_of_text|>\", \"single_word\": false, "
	    "\"lstrip\": false, \"rstrip\": false, \"normalized\": false, \"special\": true},"
	    "{\"id\": 301, \"content\": \"<tool>\", \"single_word\": false, "
	    "\"lstrip\": true, \"rstrip\": true, \"normalized\": true, \"special\": false}],"
	    "\"normalizer\": null, \"pre_tokenizer\": {\"type\": \"Sequence\", "
	    "\"pretokenizers\": [{\"type\": \"Split\", \"pattern\": {\"Regex\": \"%s\"}, "
	    "\"behavior\": \"Isolated\", \"invert\": false}, {\"type\": \"ByteLevel\", "
	    "\"add_prefix_space\": false, \"trim_offsets\": true, \"use_regex\": false}]}, "
	    "\"post_processor\": {\"type\": \"TemplateProcessing\", \"single\": "
	    "[{\"SpecialToken\": {\"id\": \"<|begin_of_text|>\", \"type_id\": 0}}, "
	    "{\"Sequence\": {\"id\": \"A\", \"type_id\": 0}}], \"pair\": [], "
	    "\"special_tokens\": {\"<|begin_of_text|>\": {\"id\": \"<|begin_of_text|>\", "
	    "\"ids\": [300], \"tokens\": [\"<|begin_of_text|>\"]}}}, "
	    "\"decoder\": {\"type\": \"ByteLevel\", \"add_prefix_space\": true, "
	    "\"trim_offsets\": true, \"use_regex\": true}, "
	    "\"model\": {\"type\": \"BPE\", \"dropout\": null, \"unk_token\": null, "
	    "\"fuse_unk\": false, \"byte_fallback\": false, \"ignore_merges\": true, "
	    "\"vocab\": {",
	    LLAMA3_SPLIT);
	for (int k = 0; k < 256; k++)
		ib_buf_printf(&b, "\"\\u%04x\": %d, ", byte_cp(k), k);
	static const char *const merged[] = {"\\u0120t", "he",         "in", "\\u0120a",
	                                     "er",       "\\u0120the", "on", "\\u0120\\u0120",
	                                     "re",       "\\u0120th"};
	for (int k = 0; k < 10; k++)
		ib_buf_printf(&b, "%s\"%s\": %d", k ? ", " : "", merged[k], 256 + k);
	ib_buf_puts(&b,
	            "}, \"merges\": [\"\\u0120 t\", \"h e\", \"i n\", \"\\u0120 a\", \"e r\", "
	            "\"\\u0120t he\", \"o n\", \"\\u0120 \\u0120\", \"r e\", \"\\u0120t h\"]}}");
	return load("bytelevel.json", &b);
}

static tok *spm(void)
{
	ib_buf b = {0};
	ib_buf_puts(
	    &b,
	    "{\"version\": \"1.0\", \"added_tokens\": ["
	    "{\"id\": 0, \"content\": \"<unk>\", \"single_word\": false, \"lstrip\": false, "
	    "\"rstrip\": false, \"normalized\": false, \"special\": true},"
	    "{\"id\": 1, \"content\": \"<s>\", \"single_word\": false, \"lstrip\": false, "
	    "\"rstrip\": false, \"normalized\": false, \"special\": true}],"
	    "\"normalizer\": {\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"Prepend\", "
	    "\"prepend\": \"\\u2581\"}, {\"type\": \"Replace\", \"pattern\": {\"String\": \" \"}, "
	    "\"content\": \"\\u2581\"}]}, \"pre_tokenizer\": null, "
	    "\"post_processor\": {\"type\": \"TemplateProcessing\", \"single\": "
	    "[{\"SpecialToken\": {\"id\": \"<s>\", \"type_id\": 0}}, "
	    "{\"Sequence\": {\"id\": \"A\", \"type_id\": 0}}], \"pair\": [], "
	    "\"special_tokens\": {\"<s>\": {\"id\": \"<s>\", \"ids\": [1], \"tokens\": "
	    "[\"<s>\"]}}}, "
	    "\"decoder\": {\"type\": \"Sequence\", \"decoders\": [{\"type\": \"Replace\", "
	    "\"pattern\": {\"String\": \"\\u2581\"}, \"content\": \" \"}, {\"type\": "
	    "\"ByteFallback\"}, {\"type\": \"Fuse\"}, {\"type\": \"Strip\", \"content\": \" \", "
	    "\"start\": 1, \"stop\": 0}]}, "
	    "\"model\": {\"type\": \"BPE\", \"dropout\": null, \"unk_token\": \"<unk>\", "
	    "\"fuse_unk\": true, \"byte_fallback\": true, \"vocab\": {\"<unk>\": 0, \"<s>\": 1, ");
	for (int k = 0; k < 256; k++)
		ib_buf_printf(&b, "\"<0x%02X>\": %d, ", k, 2 + k);
	static const char *const v[] = {"\\u2581",  "a",  "b",          "t",       "h",      "e",
	                                "\\u2581t", "he", "\\u2581the", "\\u00e9", "\\u4e2d"};
	for (int k = 0; k < 11; k++)
		ib_buf_printf(&b, "%s\"%s\": %d", k ? ", " : "", v[k], 258 + k);
	ib_buf_puts(&b, "}, \"merges\": [\"\\u2581 t\", \"h e\", \"\\u2581t he\"]}}");
	return load("spm.json", &b);
}

static void init(void)
{
	toks[ntoks++] = bytelevel();
	toks[ntoks++] = spm();
	const char *more = getenv("IB_FUZZ_TOKENIZER");
	while (more && *more && ntoks < MAX_TOK) {
		const char *c = strchr(more, ':');
		size_t n = c ? (size_t)(c - more) : strlen(more);
		char path[4096];
		snprintf(path, sizeof path, "%.*s", (int)n, more);
		ib_error e = {0};
		if (tok_load(path, &toks[ntoks], &e)) {
			fprintf(stderr, "IB_FUZZ_TOKENIZER: %s: %s\n", path, e.msg);
			abort();
		}
		ntoks++;
		more = c ? c + 1 : NULL;
	}
}

/* The first pre-tokenizer of t is llama3's Split: its spans by hand and by
 * the regex engine must agree. */
static void check_split(tok *t, const char *text, size_t len)
{
	const tok_pre *p = t->pre;
	while (p && p->nsub)
		p = p->sub[0];
	FUZZ_CHECK(p && p->re.llama3, "the byte-level tokenizer's split is not llama3's");
	static tok_spans ref, hand;
	ib_error e = {0};
	FUZZ_CHECK(tok_re_find(&p->re, t->md, t->mctx, text, len, &ref, &e) == 0, "regex: %s",
	           e.msg);
	FUZZ_CHECK(tok_split_llama3(t, text, len, &hand) == 0, "split by hand failed");
	FUZZ_CHECK(ref.n == hand.n, "%zu spans, %zu by hand", ref.n, hand.n);
	for (size_t k = 0; k < ref.n; k++)
		FUZZ_CHECK(ref.v[k].start == hand.v[k].start && ref.v[k].end == hand.v[k].end &&
		               ref.v[k].match == hand.v[k].match,
		           "span %zu: [%zu, %zu) %d, by hand [%zu, %zu) %d", k, ref.v[k].start,
		           ref.v[k].end, ref.v[k].match, hand.v[k].start, hand.v[k].end,
		           hand.v[k].match);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!ntoks)
		init();
	if (!size)
		return 0;
	size_t which = (data[0] & 0x7F) % ntoks;
	bool special = data[0] & 0x80;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	tok *t = toks[which];
	tok_ids ids = {0};
	ib_error e = {0};
	int rc = tok_encode(t, text, len, special, &ids, &e);
	bool utf8 = true;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		int n = ib_utf8_decode(text + i, len - i, &cp);
		if (n < 0) {
			utf8 = false;
			break;
		}
		i += (size_t)n;
	}
	if (!utf8)
		FUZZ_CHECK(rc == IB_EINVAL, "invalid UTF-8 gave %d", rc);
	else
		FUZZ_CHECK(rc == 0 || rc == IB_ERANGE, "encode: %d %s", rc, e.msg);
	if (!rc) {
		ib_buf out = {0};
		FUZZ_CHECK(tok_decode(t, ids.v, ids.n, false, &out, &e) == 0, "decode: %s", e.msg);
		if (which == 0 && !special)
			FUZZ_CHECK(out.len == len && (!len || !memcmp(out.data, text, len)),
			           "byte-level round trip: %zu bytes in, %zu out", len, out.len);
		ib_buf_free(&out);
		ib_buf_puts(&out, "");
		FUZZ_CHECK(tok_decode(t, ids.v, ids.n, true, &out, &e) == 0, "decode: %s", e.msg);
		ib_buf_free(&out);
	}
	tok_ids_free(&ids);
	if (utf8 && which == 0)
		check_split(t, text, len);
	return 0;
}
