/* JSON reader (fmt/json_read.c) and writer (fmt/json.c). Checks: no crash;
 * an error carries a position; for text that parses, writing it back and
 * parsing that gives the same text again (a fixpoint after one round). */
#include "fuzz.h"

#include "fmt/fmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ib_arena *a = ib_arena_new();
	if (!a)
		return 0;
	ib_val *v = NULL;
	ib_error e = {0};
	int rc = ib_json_parse(a, "fuzz.json", (const char *)data, size, &v, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc == IB_EPARSE)
		FUZZ_CHECK(e.line > 0 && e.msg[0], "parse error without a position: %s", e.msg);
	if (!rc) {
		const ib_json_opts opts[2] = {IB_JSON_PYTHON, {.indent = 2, .sort_keys = true}};
		for (int k = 0; k < 2; k++) {
			ib_buf w1 = {0}, w2 = {0};
			FUZZ_CHECK(ib_json_write(&w1, v, &opts[k], &e) == 0, "write: %s", e.msg);
			ib_val *v2 = NULL;
			rc = ib_json_parse(a, "w1", w1.data, w1.len, &v2, &e);
			FUZZ_CHECK(rc == 0, "own output does not parse: %s\n%s", e.msg, w1.data);
			FUZZ_CHECK(ib_json_write(&w2, v2, &opts[k], &e) == 0, "write 2: %s", e.msg);
			ib_val *v3 = NULL;
			FUZZ_CHECK(ib_json_parse(a, "w2", w2.data, w2.len, &v3, &e) == 0, "%s",
			           e.msg);
			ib_buf w3 = {0};
			FUZZ_CHECK(ib_json_write(&w3, v3, &opts[k], &e) == 0, "write 3: %s", e.msg);
			FUZZ_CHECK(w2.len == w3.len && !memcmp(w2.data, w3.data, w2.len),
			           "not a fixpoint:\n%s\n%s", w2.data, w3.data);
			ib_buf_free(&w1);
			ib_buf_free(&w2);
			ib_buf_free(&w3);
		}
	}
	ib_arena_free(a);
	return 0;
}
