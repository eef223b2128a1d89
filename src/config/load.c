/* Loading master configs and runners.yaml (matrix.md §1.1, §1.5). */
#include "config/schema.h"

#include <string.h>

/* Reads and parses one YAML file, turning I/O and syntax errors into
 * problems. Returns 0, IB_EINVAL (problem recorded) or IB_ENOMEM. */
static int load_yaml(ib_arena *a, const char *path, const char *what, ib_val **doc, ib_diags *d)
{
	ib_error e = {0};
	int rc = ib_yaml_load_file(a, path, doc, &e);
	if (rc == IB_ENOMEM)
		return rc;
	if (rc == IB_ENOENT)
		rc = cfg_problem(d, path, 0, 0, NULL, NULL, NULL, "%s does not exist", what);
	else if (rc)
		rc = cfg_problem(d, e.file[0] ? e.file : path, e.line, e.col, NULL, NULL, NULL,
		                 "%s", e.msg);
	else
		return 0;
	return rc ? rc : IB_EINVAL;
}

int cfg_load_master(ib_arena *a, const char *const *paths, size_t npaths, ib_val **merged,
                    ib_diags *d)
{
	size_t before = d->n;
	ib_val *all = ib_v_map(a);
	/* the file each merged key came from, for duplicate messages */
	const char **origin = NULL;
	size_t origin_cap = 0;
	if (!all)
		return IB_ENOMEM;
	for (size_t f = 0; f < npaths; f++) {
		ib_val *doc;
		int rc = load_yaml(a, paths[f], "input file", &doc, d);
		if (rc == IB_ENOMEM)
			return rc;
		if (rc)
			continue;
		if (doc->type != IB_V_MAP) {
			if (cfg_problem(
			        d, paths[f], doc->line, doc->col, NULL, NULL, doc,
			        "config file must contain a mapping of config keys to entries"))
				return IB_ENOMEM;
			continue;
		}
		for (size_t i = 0; i < doc->map.n; i++) {
			ib_val *k = doc->map.kv[i].key;
			if (k->type != IB_V_STR) {
				if (cfg_problem(d, paths[f], k->line, k->col, NULL, NULL, k,
				                "config keys must be strings"))
					return IB_ENOMEM;
				continue;
			}
			if (strchr(k->str.s, '*')) {
				if (cfg_problem(d, paths[f], k->line, k->col, k->str.s, NULL, NULL,
				                "wildcard '*' is not allowed in master config keys "
				                "(it is reserved for patterns)"))
					return IB_ENOMEM;
				continue;
			}
			const ib_kv *prev = ib_map_find(all, k->str.s);
			if (prev) {
				const char *where = origin[prev - all->map.kv];
				if (cfg_problem(
				        d, paths[f], k->line, k->col, k->str.s, NULL, NULL,
				        "duplicate configuration key: already defined in '%s'",
				        where))
					return IB_ENOMEM;
				continue;
			}
			if (ib_map_set_key(a, all, k, doc->map.kv[i].val))
				return IB_ENOMEM;
			if (ib_arena_grow(a, &origin, &origin_cap, all->map.n))
				return IB_ENOMEM;
			origin[all->map.n - 1] = paths[f];
		}
	}
	for (size_t i = 0; i < all->map.n; i++)
		cfg_validate_entry(all->map.kv[i].key->str.s, all->map.kv[i].val, d);
	*merged = all;
	return d->n > before ? IB_EINVAL : 0;
}

int cfg_load_runners(ib_arena *a, const char *path, ib_val **runners, ib_diags *d)
{
	ib_val *doc;
	int rc = load_yaml(a, path, "runner config file", &doc, d);
	if (rc)
		return rc;
	if (!cfg_validate_runners(doc, d, path))
		return IB_EINVAL;
	*runners = doc;
	return 0;
}
