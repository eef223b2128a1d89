/* The tokenizer.json loader (tok/load.c, tok/json.c, vocab.c) on any bytes.
 * Checks: no crash, no hang, bounded memory; a failure carries a message; a
 * loaded tokenizer encodes and decodes a short text without crashing. */
#include "fuzz.h"

#include "tok/tok.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tok *t = NULL;
	ib_error e = {0};
	int rc = tok_load_json("fuzz.json", (const char *)data, size, &t, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc) {
		FUZZ_CHECK(!t && e.msg[0], "failure %d without a message", rc);
		return 0;
	}
	static const char text[] =
	    "Hello world! 123 <s> \xC3\xA9t\xC3\xA9 \xE4\xB8\xAD  \n\tthe end";
	tok_ids ids = {0};
	if (tok_encode(t, text, sizeof text - 1, true, &ids, &e) == 0) {
		ib_buf out = {0};
		tok_decode(t, ids.v, ids.n, false, &out, &e);
		ib_buf_free(&out);
	}
	uint32_t probe[] = {0, 1, 2, 3, 255, 256, 1000, 100000, 0xFFFFFFFFu};
	ib_buf out = {0};
	tok_decode(t, probe, sizeof probe / sizeof *probe, true, &out, &e);
	ib_buf_free(&out);
	tok_ids_free(&ids);
	tok_vocab_size(t, true);
	tok_free(t);
	return 0;
}
