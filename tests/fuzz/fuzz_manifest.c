/* The run store's manifest (run/store.c: run_store_status reading
 * STORE/manifest.jsonl, one JSON record per line, appended by the runner).
 * Checks: no crash; the status is a list of objects, one per distinct
 * identity, each with its string identity, never more records than complete
 * lines; the manifest as a runner killed mid-write leaves it (the input cut
 * at a fuzzer-chosen point, fuzz_split) has no identity the whole file
 * lacks. */
#include "fuzz.h"

#include "run/run.h"

static const char *const files[] = {"manifest.jsonl", "lock", NULL};

static ib_val *status(ib_arena *a, const char *dir, const uint8_t *data, size_t n)
{
	char path[512];
	snprintf(path, sizeof path, "%s/manifest.jsonl", dir);
	fuzz_write(path, data, n);
	ib_val *out = NULL;
	ib_error e = {0};
	int rc = run_store_status(a, dir, &out, &e);
	FUZZ_CHECK(rc <= 0 && (!rc || e.msg[0]), "rc %d", rc);
	if (rc)
		return NULL;
	FUZZ_CHECK(out && out->type == IB_V_LIST, "not a list");
	size_t lines = 0;
	for (size_t i = 0; i < n; i++)
		lines += data[i] == '\n';
	FUZZ_CHECK(out->list.n <= lines, "%zu records from %zu lines", out->list.n, lines);
	for (size_t i = 0; i < out->list.n; i++) {
		const ib_val *r = out->list.v[i];
		const ib_val *id = r->type == IB_V_MAP ? ib_map_get(r, "identity") : NULL;
		FUZZ_CHECK(id && id->type == IB_V_STR, "record %zu without an identity", i);
		for (size_t k = 0; k < i; k++)
			FUZZ_CHECK(strcmp(id->str.s, ib_map_get(out->list.v[k], "identity")->str.s),
			           "identity %s twice", id->str.s);
	}
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cut[2];
	fuzz_split(&data, &size, cut);
	const char *dir = fuzz_tmpdir(files);
	ib_arena *a = ib_arena_new();
	if (!a)
		abort();
	ib_val *whole = status(a, dir, data, size);
	/* the file as a runner killed mid-write leaves it: cut, no newline at the end */
	size_t n = cut[1];
	while (n > 0 && data[n - 1] == '\n')
		n--;
	ib_val *torn = status(a, dir, data, n);
	if (whole && torn) /* a prefix's complete lines are lines of the whole file */
		for (size_t i = 0; i < torn->list.n; i++) {
			const char *id = ib_map_get(torn->list.v[i], "identity")->str.s;
			size_t k = 0;
			while (k < whole->list.n &&
			       strcmp(id, ib_map_get(whole->list.v[k], "identity")->str.s))
				k++;
			FUZZ_CHECK(k < whole->list.n, "identity %s only in the torn file", id);
		}
	ib_arena_free(a);
	return 0;
}
