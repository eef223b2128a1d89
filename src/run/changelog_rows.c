/* The rows of `infbench changelog process`'s output (an object of buckets)
 * as the one list of matrix rows that the runner takes (docs/run.md). */
#include "run/run.h"

#include <string.h>

/* appends every row of list v (a JSON list of objects) to out */
static int append(ib_arena *a, const ib_val *v, ib_val *out)
{
	if (!v || v->type != IB_V_LIST)
		return 0;
	for (size_t i = 0; i < v->list.n; i++)
		if (ib_list_push(a, out, v->list.v[i]))
			return IB_ENOMEM;
	return 0;
}

int run_matrix_rows(ib_arena *a, const ib_val *doc, const ib_val **rows, ib_error *e)
{
	if (doc->type == IB_V_LIST) {
		*rows = doc;
		return 0;
	}
	if (doc->type != IB_V_MAP || !ib_map_get(doc, "changelog_metadata"))
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
		               "the matrix is not a JSON list of rows (nor the output of "
		               "'infbench changelog process')");
	static const char *const buckets[] = {"single_node", "multi_node"};
	static const char *const lists[] = {"evals", "agentic_evals", "multinode_evals",
	                                    "multinode_agentic_evals"};
	ib_val *out = ib_v_list(a);
	if (!out)
		return IB_ENOMEM;
	for (size_t b = 0; b < 2; b++) {
		const ib_val *m = ib_map_get(doc, buckets[b]);
		for (size_t i = 0; m && m->type == IB_V_MAP && i < m->map.n; i++)
			if (append(a, m->map.kv[i].val, out))
				return IB_ENOMEM;
	}
	for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++)
		if (append(a, ib_map_get(doc, lists[l]), out))
			return IB_ENOMEM;
	*rows = out;
	return 0;
}
