/* The matrix split into the job families of InferenceX's sweep workflows
 * (docs/matrix.md, "GitHub Actions"). */
#include "matrix/matrix.h"

#include <string.h>

static bool flag(const ib_val *row, const char *key)
{
	const ib_val *v = ib_map_get(row, key);
	return v && ib_val_truthy(v);
}

int mx_gha_families(ib_arena *a, const ib_val *rows, ib_val **out)
{
	/* family: agentic?, multi-node?, which rows (0: benchmark rows, i.e. not
	 * eval-only; 1: rows with run-eval; 2: eval-only rows) */
	static const struct {
		const char *name;
		bool agentic, multi;
		int sel;
	} fam[] = {
	    {"agentic-config", true, false, 3},
	    {"agentic-eval-config", true, false, 1},
	    {"multi-node-agentic-config", true, true, 3},
	    {"multi-node-agentic-eval-config", true, true, 1},
	    {"single-node-config", false, false, 0},
	    {"multi-node-config", false, true, 0},
	    {"eval-config", false, false, 2},
	    {"multi-node-eval-config", false, true, 1},
	};
	ib_val *m = ib_v_map(a);
	if (!m || !rows || rows->type != IB_V_LIST)
		return m ? IB_EINVAL : IB_ENOMEM;
	for (size_t f = 0; f < sizeof fam / sizeof fam[0]; f++) {
		ib_val *l = ib_v_list(a);
		if (!l || ib_map_set(a, m, fam[f].name, l))
			return IB_ENOMEM;
		for (size_t i = 0; i < rows->list.n; i++) {
			const ib_val *r = rows->list.v[i];
			const ib_val *sc = ib_map_get(r, "scenario-type");
			bool agentic =
			    sc && sc->type == IB_V_STR && !strcmp(sc->str.s, "agentic-coding");
			bool multi = ib_map_has(r, "prefill"), ev = flag(r, "run-eval"),
			     only = flag(r, "eval-only");
			bool take = agentic == fam[f].agentic && multi == fam[f].multi &&
			            (fam[f].sel == 0   ? !only
			             : fam[f].sel == 1 ? ev
			             : fam[f].sel == 2 ? only
			                               : !ev);
			if (take && ib_list_push(a, l, (ib_val *)r))
				return IB_ENOMEM;
		}
	}
	*out = m;
	return 0;
}
