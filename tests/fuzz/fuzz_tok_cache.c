/* The tokenizer cache's reader (tok/cache.c: tok_cache_load_image) on any
 * bytes. Each input is loaded twice: as it is (almost always stopped by the
 * checksum), and resealed, its checksum recomputed, so that changed bytes
 * reach every check behind it (sections, entries, slots, the spot check, the
 * JSON of the rest). Checks: no crash, no hang, bounded memory; a refusal
 * carries a message; what loads as it is loads resealed; a loaded tokenizer
 * encodes and decodes a short text and out-of-range ids without crashing.
 * Seeds: cache files of small tokenizers (docs/fuzzing.md). */
#include "fuzz.h"

#include "tok/private.h"

static void use(tok *t)
{
	static const char text[] =
	    "Hello world! 123 <s> \xC3\xA9t\xC3\xA9 \xE4\xB8\xAD \xE2\x96\x81x \n\tthe end";
	tok_ids ids = {0};
	ib_error e = {0};
	ib_buf out = {0};
	if (tok_encode(t, text, sizeof text - 1, true, &ids, &e) == 0)
		tok_decode(t, ids.v, ids.n, false, &out, &e);
	uint32_t probe[] = {0, 1, 2, 3, 255, 256, 1000, 100000, 0xFFFFFFFFu};
	out.len = 0;
	tok_decode(t, probe, sizeof probe / sizeof *probe, true, &out, &e);
	ib_buf_free(&out);
	tok_ids_free(&ids);
	tok_vocab_size(t, true);
	tok_token_to_id(t, "the", 3);
}

/* Loads a malloc'd copy of data (the loader takes it over); whether it
 * loaded. */
static bool try_load(const uint8_t *data, size_t size, bool seal)
{
	char *img = malloc(size ? size : 1);
	FUZZ_CHECK(img, "out of memory");
	if (size)
		memcpy(img, data, size);
	if (seal)
		tok_cache_seal(img, size);
	tok *t = NULL;
	ib_error e = {0};
	int rc = tok_cache_load_image("fuzz.tok", img, size, 0, NULL, &t, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc) {
		FUZZ_CHECK(!t && e.msg[0], "failure %d without a message", rc);
		return false;
	}
	use(t);
	tok_free(t);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool as_is = try_load(data, size, false);
	bool sealed = try_load(data, size, true);
	FUZZ_CHECK(!as_is || sealed, "loads as it is but not resealed");
	return 0;
}
