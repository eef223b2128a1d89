/* YAML loader (fmt/yaml.c): ib_yaml_load and ib_yaml_load_unique on any
 * bytes. Checks: no crash, no hang; an error carries a message; a loaded
 * tree serialises as JSON (dates aside) and loading is deterministic. */
#include "fuzz.h"

#include "fmt/fmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	ib_arena *a = ib_arena_new();
	if (!a)
		return 0;
	ib_val *v = NULL, *u = NULL;
	ib_error e = {0}, eu = {0};
	int rc = ib_yaml_load(a, "fuzz.yaml", text, size, &v, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc)
		FUZZ_CHECK(e.msg[0], "error %d without a message", rc);
	int rcu = ib_yaml_load_unique(a, "fuzz.yaml", text, size, &u, &eu);
	/* the unique loader fails wherever the plain one does, and more */
	if (rc)
		FUZZ_CHECK(rcu, "load failed (%s) but load_unique succeeded", e.msg);
	if (!rc) {
		ib_buf j = {0};
		ib_error je = {0};
		int wr = ib_json_write(&j, v, &IB_JSON_PYTHON, &je);
		FUZZ_CHECK(wr == 0 || wr == IB_EINVAL, "json write %d", wr);
		if (!rcu && !wr) { /* same tree (as JSON text: NaN != NaN) */
			ib_buf ju = {0};
			FUZZ_CHECK(ib_json_write(&ju, u, &IB_JSON_PYTHON, &je) == 0, "%s", je.msg);
			FUZZ_CHECK(ju.len == j.len && !memcmp(ju.data, j.data, j.len),
			           "load and load_unique differ:\n%s\n%s", j.data, ju.data);
			ib_buf_free(&ju);
		}
		ib_buf_free(&j);
	}
	ib_arena_free(a);
	return 0;
}
