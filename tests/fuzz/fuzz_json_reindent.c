/* ib_json_reindent (fmt/json_reindent.c), the one-pass re-layout `collect`
 * uses, against the tree: whenever it writes, the tree parser must read the
 * same text and ib_json_write_at (indent 2) must write the same bytes; text
 * the tree parser refuses must be declined (1), with the buffer unchanged. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ib_arena *a = ib_arena_new();
	if (!a)
		return 0;
	const char *text = (const char *)data;
	ib_buf fast = {0}, tree = {0};
	ib_buf_puts(&fast, "[\n  ");
	int rc = ib_json_reindent(&fast, text, size, 2, 1);
	FUZZ_CHECK(rc == 0 || rc == 1, "rc %d", rc);
	if (rc == 1)
		FUZZ_CHECK(fast.len == 4, "declined but wrote %zu bytes", fast.len - 4);
	ib_val *v = NULL;
	ib_error e = {0};
	int prc = ib_json_parse(a, "fuzz.json", text, size, &v, &e);
	if (prc)
		FUZZ_CHECK(rc == 1, "wrote text the parser refuses (%s)", e.msg);
	if (rc == 0) {
		ib_json_opts o = {.indent = 2, .ensure_ascii = true};
		ib_buf_puts(&tree, "[\n  ");
		FUZZ_CHECK(ib_json_write_at(&tree, v, &o, 1, &e) == 0, "write: %s", e.msg);
		FUZZ_CHECK(fast.len == tree.len && !memcmp(fast.data, tree.data, fast.len),
		           "differs:\n%.*s\n--- tree:\n%.*s", (int)fast.len, fast.data,
		           (int)tree.len, tree.data);
	}
	ib_buf_free(&fast);
	ib_buf_free(&tree);
	ib_arena_free(a);
	return 0;
}
