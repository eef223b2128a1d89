/* The result readers of `collect` and `success-rate` (results/collect.c,
 * results/success.c): the input is a result JSON file that res_collect
 * reads from a folder, and, parsed as JSON, a jobs list for
 * res_success_rates (with hardware labels from a runners tree). Checks: no
 * crash; errors carry a message; the outputs serialise. */
#include "fuzz.h"

#include "results/results.h"

static const char *const files[] = {"result.json", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_tmpdir(files);
	char path[512];
	snprintf(path, sizeof path, "%s/result.json", dir);
	fuzz_write(path, data, size);
	ib_arena *a = ib_arena_new();
	if (!a)
		return 0;
	ib_val *all = NULL;
	ib_error e = {0};
	int rc = res_collect(a, dir, &all, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc)
		FUZZ_CHECK(e.msg[0], "error %d without a message", rc);
	else
		FUZZ_CHECK(all && all->type == IB_V_LIST && all->list.n == 1, "not one row");

	ib_val *jobs = NULL;
	if (!rc && all->list.v[0]->type == IB_V_LIST)
		jobs = all->list.v[0];
	else if (!rc && all->list.v[0]->type == IB_V_MAP)
		jobs = ib_map_get(all->list.v[0], "jobs");
	if (jobs) {
		/* runners from the same document when it has them, else a fixed set */
		const char **labels = NULL;
		size_t nl = 0;
		if (all->list.v[0]->type == IB_V_MAP)
			FUZZ_CHECK(res_hw_labels(all->list.v[0], &labels, &nl) == 0, "labels");
		static const char *const fixed[] = {"b200", "h100", "mi355x", "gb200"};
		const char *const *use = nl ? labels : fixed;
		size_t n = nl ? nl : 4;
		for (size_t k = 0; jobs->type == IB_V_LIST && k < jobs->list.n; k++) {
			const ib_val *j = jobs->list.v[k];
			const ib_val *name = j->type == IB_V_MAP ? ib_map_get(j, "name") : NULL;
			if (name && name->type == IB_V_STR)
				res_job_label(name->str.s, use, n);
		}
		ib_val *rates = NULL;
		rc = res_success_rates(a, jobs, use, n, &rates, &e);
		FUZZ_CHECK(rc <= 0, "rc %d", rc);
		if (!rc) {
			ib_buf b = {0};
			FUZZ_CHECK(res_success_table(&b, rates) == 0, "table");
			ib_buf_free(&b);
		}
		free(labels);
	}
	ib_arena_free(a);
	return 0;
}
