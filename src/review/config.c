/* Master-config rules (docs/review.md): config-key-name, model-prefix,
 * model-prefix-new, image-public, image-match, config-recipe-missing; and
 * the mapping of a config entry to its recipe file name, as the runners'
 * launch scripts build it:
 *   benchmarks/single_node/<scenario>/<model-prefix>_<precision>_<runner>
 *       (_<framework> | _trt | _atom | "") (_mtp | "") .sh
 * with <scenario> fixed_seq_len/ or agentic/ (or its deprecated/ folder), and
 * <runner> the runner type (the part of the runner label before any '-',
 * after any "cluster:"). */
#include "review/private.h"

#include <string.h>

static const char *str_of(const ib_val *m, const char *key)
{
	const ib_val *v = ib_map_get(m, key);
	return v && v->type == IB_V_STR ? v->str.s : NULL;
}

static const char *runner_type(ib_arena *a, const char *runner)
{
	const char *c = strrchr(runner, ':');
	if (c)
		runner = c + 1;
	return ib_arena_strndup(a, runner, strcspn(runner, "-"));
}

static void collect_specs(const ib_val *v, const char **specs, size_t *n, size_t cap)
{
	if (!v)
		return;
	if (v->type == IB_V_MAP) {
		for (size_t i = 0; i < v->map.n; i++) {
			const ib_val *k = v->map.kv[i].key, *x = v->map.kv[i].val;
			if (k->type == IB_V_STR && !strcmp(k->str.s, "spec-decoding") &&
			    x->type == IB_V_STR) {
				bool dup = false;
				for (size_t j = 0; j < *n && !dup; j++)
					dup = !strcmp(specs[j], x->str.s);
				if (!dup && *n < cap)
					specs[(*n)++] = x->str.s;
			} else {
				collect_specs(x, specs, n, cap);
			}
		}
	} else if (v->type == IB_V_LIST) {
		for (size_t i = 0; i < v->list.n; i++)
			collect_specs(v->list.v[i], specs, n, cap);
	}
}

size_t rv_entry_recipes(ib_arena *a, rv_tree *t, const ib_val *entry, const char **paths,
                        bool *found, size_t cap)
{
	const char *prefix = str_of(entry, "model-prefix"), *prec = str_of(entry, "precision");
	const char *runner = str_of(entry, "runner"), *fw = str_of(entry, "framework");
	const ib_val *sc = ib_map_get(entry, "scenarios");
	if (!prefix || !prec || !runner || !fw || !sc || sc->type != IB_V_MAP)
		return 0;
	const char *rt = runner_type(a, runner);
	size_t n = 0;
	for (size_t i = 0; i < sc->map.n && n < cap; i++) {
		const ib_val *k = sc->map.kv[i].key;
		if (k->type != IB_V_STR)
			continue;
		char dir[128];
		if (!strcmp(k->str.s, "fixed-seq-len"))
			snprintf(dir, sizeof dir, "fixed_seq_len");
		else if (!strcmp(k->str.s, "agentic-coding"))
			snprintf(dir, sizeof dir, "agentic");
		else {
			snprintf(dir, sizeof dir, "%s", k->str.s);
			for (char *p = dir; *p; p++)
				if (*p == '-')
					*p = '_';
		}
		const char *specs[8];
		size_t ns = 0;
		collect_specs(sc->map.kv[i].val, specs, &ns, 8);
		if (!ns)
			specs[ns++] = "none";
		for (size_t s = 0; s < ns && n < cap; s++) {
			const char *suf = !strcmp(specs[s], "mtp") ? "_mtp" : "";
			const char *fws = !strcmp(fw, "trt")    ? "_trt"
			                  : !strcmp(fw, "atom") ? "_atom"
			                                        : "";
			const char *cands[2] = {
			    ib_arena_printf(a, "%s_%s_%s_%s%s.sh", prefix, prec, rt, fw, suf),
			    ib_arena_printf(a, "%s_%s_%s%s%s.sh", prefix, prec, rt, fws, suf)};
			const char *hit = NULL;
			for (int d = 0; d < 2 && !hit; d++)
				for (int c = 0; c < 2 && !hit; c++) {
					char *p =
					    ib_arena_printf(a, "benchmarks/single_node/%s/%s%s",
					                    dir, d ? "deprecated/" : "", cands[c]);
					if (p && rv_tree_find(t, p) >= 0)
						hit = p;
				}
			found[n] = hit != NULL;
			paths[n] =
			    hit ? hit
			        : ib_arena_printf(a, "benchmarks/single_node/%s/%s", dir, cands[0]);
			n++;
		}
	}
	return n;
}

ib_val *rv_load_configs(rv_tree *t, const char *only_path)
{
	ib_val *m = ib_v_map(t->a);
	if (!m)
		return NULL;
	for (size_t i = 0; i < t->n; i++) {
		const char *p = t->paths[i];
		size_t pl = strlen(p);
		if (only_path ? strcmp(p, only_path)
		              : (strncmp(p, "configs/", 8) || !strstr(p, "master") || pl < 5 ||
		                 strcmp(p + pl - 5, ".yaml")))
			continue;
		size_t len;
		const char *tx = rv_tree_text(t, i, &len);
		ib_val *doc = NULL;
		ib_error e = {0};
		if (!tx || ib_yaml_load(t->a, p, tx, len, &doc, &e) || !doc ||
		    doc->type != IB_V_MAP)
			continue; /* `infbench validate` reports unreadable configs */
		for (size_t k = 0; k < doc->map.n; k++)
			if (doc->map.kv[k].key->type == IB_V_STR &&
			    !ib_map_has(m, doc->map.kv[k].key->str.s) &&
			    ib_map_set_key(t->a, m, doc->map.kv[k].key, doc->map.kv[k].val))
				return NULL;
	}
	return m;
}

static int key_line(const ib_val *m, const char *key)
{
	const ib_kv *kv = ib_map_find(m, key);
	return kv ? kv->key->line : 0;
}

static const char *key_file(const ib_val *m, const char *key)
{
	const ib_kv *kv = ib_map_find(m, key);
	return kv && kv->key->file ? kv->key->file : "configs";
}

static int check_entry(rv_report *r, rv_tree *t, const ib_val *others, const ib_val *cfg,
                       const char *key, bool change_mode, bool image_changed)
{
	const ib_val *v = ib_map_get(cfg, key);
	if (!v || v->type != IB_V_MAP)
		return 0;
	const char *file = key_file(cfg, key);
	int line = key_line(cfg, key);
	const char *prefix = str_of(v, "model-prefix"), *prec = str_of(v, "precision");
	const char *runner = str_of(v, "runner"), *fw = str_of(v, "framework");
	const char *model = str_of(v, "model"), *image = str_of(v, "image");
	const ib_val *img = ib_map_get(v, "image");
	int img_line = img && img->line ? img->line : line;
	/* image-public */
	if (image) {
		rv_checked(r, "image-public");
		size_t il = strlen(image);
		if (image[0] == '/' || (il > 5 && !strcmp(image + il - 5, ".sqsh")))
			if (rv_add(r, "image-public", file, img_line,
			           "push the image to a public registry (Docker Hub, nvcr.io, "
			           "ghcr.io, quay.io) and use that reference",
			           "entry '%s': image '%s' is a local path or squashfs file, not a "
			           "public image",
			           key, image))
				return IB_ENOMEM;
	}
	/* config-key-name */
	if (prefix && prec && runner) {
		rv_checked(r, "config-key-name");
		const char *want =
		    ib_arena_printf(r->a, "%s-%s-%s-", prefix, prec, runner_type(r->a, runner));
		if (!want)
			return IB_ENOMEM;
		if (strncmp(key, want, strlen(want)))
			if (rv_add(
			        r, "config-key-name", file, line,
			        ib_arena_printf(r->a, "name the entry %s%s...", want,
			                        fw ? fw : "<framework>"),
			        "config key '%s' does not start with '%s' "
			        "({model-prefix}-{precision}-{runner}-), the name its fields give",
			        key, want))
				return IB_ENOMEM;
	}
	/* model-prefix / model-prefix-new: against the other entries */
	if (prefix && model && others) {
		rv_checked(r, "model-prefix");
		const char *other = NULL, *other_key = NULL;
		bool known = false, same_model_same_prefix = false;
		for (size_t i = 0; i < others->map.n; i++) {
			const ib_val *k = others->map.kv[i].key, *o = others->map.kv[i].val;
			if (k->type != IB_V_STR || !strcmp(k->str.s, key) || o->type != IB_V_MAP)
				continue;
			const char *op = str_of(o, "model-prefix"), *om = str_of(o, "model");
			if (op && !strcmp(op, prefix))
				known = true;
			if (om && op && !strcmp(om, model)) {
				if (!strcmp(op, prefix))
					same_model_same_prefix = true;
				else if (!other) {
					other = op;
					other_key = k->str.s;
				}
			}
		}
		if (other && !same_model_same_prefix) {
			if (rv_add(r, "model-prefix", file, line,
			           ib_arena_printf(
			               r->a, "use model-prefix '%s' (and a key starting '%s-')",
			               other, other),
			           "entry '%s': model-prefix '%s', but the other entries of model "
			           "%s use '%s' (e.g. '%s'); the frontend groups results by model "
			           "prefix",
			           key, prefix, model, other, other_key) ||
			    ib_diag_quote_add(&r->findings, key_file(others, other_key),
			                      key_line(others, other_key), other_key))
				return IB_ENOMEM;
		} else if (!known && change_mode) {
			rv_checked(r, "model-prefix-new");
			if (rv_add(r, "model-prefix-new", file, line,
			           "check that the frontend knows the new model prefix, or use an "
			           "existing one",
			           "entry '%s': model-prefix '%s' is used by no entry on main", key,
			           prefix))
				return IB_ENOMEM;
		} else if (change_mode) {
			rv_checked(r, "model-prefix-new");
		}
	}
	/* image-match: the same image as an on-main entry of the same model/GPU/framework */
	if (change_mode && image && image_changed && model && runner && fw && others) {
		rv_checked(r, "image-match");
		bool same = false;
		const char *seen[8];
		const char *seen_key[8];
		size_t nseen = 0;
		for (size_t i = 0; i < others->map.n && !same; i++) {
			const ib_val *k = others->map.kv[i].key, *o = others->map.kv[i].val;
			if (k->type != IB_V_STR || !strcmp(k->str.s, key) || o->type != IB_V_MAP)
				continue;
			const char *om = str_of(o, "model"), *orn = str_of(o, "runner"),
			           *ofw = str_of(o, "framework"), *oi = str_of(o, "image");
			if (!om || !orn || !ofw || !oi || strcmp(om, model) ||
			    strcmp(orn, runner) || strcmp(ofw, fw))
				continue;
			if (!strcmp(oi, image))
				same = true;
			else if (nseen < 8) {
				seen_key[nseen] = k->str.s;
				seen[nseen++] = oi;
			}
		}
		if (!same) {
			int rc;
			if (nseen)
				rc = rv_add(r, "image-match", file, img_line,
				            "check that the image exists and is the one intended "
				            "(no network here); or use the on-main image",
				            "entry '%s': image '%s' differs from the on-main "
				            "entries of %s on %s with %s",
				            key, image, model, runner, fw);
			else
				rc = rv_add(
				    r, "image-match", file, img_line,
				    "check that the image exists and is public (no network here)",
				    "entry '%s': no on-main entry of %s on %s with %s to compare "
				    "image '%s' with",
				    key, model, runner, fw, image);
			if (rc)
				return IB_ENOMEM;
			for (size_t i = 0; i < nseen; i++) {
				const ib_val *oimg =
				    ib_map_get(ib_map_get(others, seen_key[i]), "image");
				if (ib_diag_quote_add(&r->findings, key_file(others, seen_key[i]),
				                      oimg ? oimg->line
				                           : key_line(others, seen_key[i]),
				                      ib_arena_printf(r->a, "%s: image: %s",
				                                      seen_key[i], seen[i])))
					return IB_ENOMEM;
			}
		}
	}
	/* config-recipe-missing: single-node entries */
	const ib_val *mn = ib_map_get(v, "multinode");
	if (!(mn && ib_val_truthy(mn))) {
		const char *paths[16];
		bool found[16];
		size_t np = rv_entry_recipes(r->a, t, v, paths, found, 16);
		if (np)
			rv_checked(r, "config-recipe-missing");
		for (size_t i = 0; i < np; i++)
			if (!found[i] &&
			    rv_add(
			        r, "config-recipe-missing", file, line,
			        ib_arena_printf(r->a,
			                        "add the recipe %s (or fix the entry's fields)",
			                        paths[i]),
			        "entry '%s' has no recipe: the runner looks for %s (also with the "
			        "framework suffix left out, and in deprecated/)",
			        key, paths[i]))
				return IB_ENOMEM;
	}
	return 0;
}

int rv_check_configs(rv_report *r, rv_tree *t, const ib_val *base, const ib_val *head,
                     bool change_mode)
{
	for (size_t i = 0; i < head->map.n; i++) {
		const ib_val *k = head->map.kv[i].key;
		if (k->type != IB_V_STR)
			continue;
		bool image_changed = true;
		const ib_val *others = base;
		if (change_mode) {
			const ib_val *old = ib_map_get(base, k->str.s);
			if (old && ib_val_equal(old, head->map.kv[i].val))
				continue; /* unchanged */
			if (old) {
				const ib_val *oi = ib_map_get(old, "image");
				const ib_val *ni = ib_map_get(head->map.kv[i].val, "image");
				image_changed = !(oi && ni && ib_val_equal(oi, ni));
			}
		}
		int rc = check_entry(r, t, others, head, k->str.s, change_mode, image_changed);
		if (rc)
			return rc;
	}
	return 0;
}
