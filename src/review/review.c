/* The review's two modes (review.h): files of a working tree, or the files
 * changed between two git refs, with the perf-changelog rules. */
#include "review/private.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);
	return n >= k && !strcmp(s + n - k, suf);
}

static bool is_master_config(const char *p)
{
	return !strncmp(p, "configs/", 8) && strstr(p, "master") && ends_with(p, ".yaml");
}

/* A recipe of the folders the runners take recipes from. */
static bool is_single_node_recipe(const rv_script *s)
{
	if (!s->is_recipe)
		return false;
	return !strcmp(s->scenario, "single_node/fixed_seq_len") ||
	       !strcmp(s->scenario, "single_node/agentic");
}

/* recipe-config-missing: does some entry of cfg map to this recipe? */
static int recipe_has_key(rv_report *r, rv_tree *t, const ib_val *cfg, const rv_script *s)
{
	if (!is_single_node_recipe(s) || !cfg)
		return 0;
	rv_checked(r, "recipe-config-missing");
	if (t->mapped_for != cfg) {
		free(t->mapped);
		t->mapped = NULL;
		t->nmapped = 0;
		size_t cap = 0;
		for (size_t i = 0; i < cfg->map.n; i++) {
			const char *paths[16];
			bool found[16];
			size_t n = rv_entry_recipes(r->a, t, cfg->map.kv[i].val, paths, found, 16);
			for (size_t k = 0; k < n; k++) {
				if (!found[k])
					continue;
				if (ib_grow(&t->mapped, &cap, t->nmapped + 1))
					return IB_ENOMEM;
				t->mapped[t->nmapped++] = paths[k];
			}
		}
		if (t->nmapped) /* qsort(NULL, 0) is undefined */
			qsort(t->mapped, t->nmapped, sizeof *t->mapped, ib_cmp_str);
		t->mapped_for = cfg;
	}
	if (t->nmapped && bsearch(&s->path, t->mapped, t->nmapped, sizeof *t->mapped, ib_cmp_str))
		return 0;
	const char *b = strrchr(s->path, '/');
	b = b ? b + 1 : s->path;
	return rv_add(r, "recipe-config-missing", s->path, 1,
	              "add a config entry whose fields name this recipe (model-prefix, precision, "
	              "runner, framework, spec-decoding), or rename the file",
	              "no config entry maps to %s: the runners build the recipe name "
	              "{model-prefix}_{precision}_{runner}[_{framework}][_mtp].sh from an entry",
	              b);
}

/* The rules of files mode over target i of tree t; cfg_all: the tree's configs. */
/* A reviewed YAML file that does not parse (or a master config that is not
 * a mapping) is a blocking finding: no other rule can look at it. */
static int check_yaml(rv_report *r, rv_tree *t, size_t i)
{
	const char *p = t->paths[i];
	size_t len;
	const char *tx = rv_tree_text(t, i, &len);
	if (!tx)
		return t->missing[i] ? 0 : IB_ENOMEM;
	rv_checked(r, "yaml-invalid");
	ib_val *doc = NULL;
	ib_error e = {0};
	int rc = ib_yaml_load(r->a, p, tx, len, &doc, &e);
	if (rc == IB_ENOMEM)
		return rc;
	if (rc)
		return rv_add(r, "yaml-invalid", p, e.line, NULL,
		              "not valid YAML: %s (line %d, column %d)", e.msg, e.line, e.col);
	if (is_master_config(p) && (!doc || doc->type != IB_V_MAP))
		return rv_add(r, "yaml-invalid", p, doc && doc->line ? doc->line : 1, NULL,
		              "a master config is a mapping of config keys to entries");
	return 0;
}

static int review_file(rv_report *r, rv_tree *t, size_t i, const ib_val *cfg_all, bool recipe_key)
{
	const char *p = t->paths[i];
	int rc = rv_file_add(r, p);
	if (rc)
		return rc;
	if (ends_with(p, ".sh")) {
		rv_script *s = rv_tree_script(t, i);
		if (!s)
			return t->missing[i] ? 0 : IB_ENOMEM;
		rc = rv_check_recipe(r, s);
		if (!rc)
			rc = rv_check_sisters(r, t, s);
		if (!rc && recipe_key)
			rc = recipe_has_key(r, t, cfg_all, s);
		return rc;
	}
	if (ends_with(p, ".yaml"))
		return check_yaml(r, t, i);
	return 0;
}

int rv_review_docs(rv_report *r, const rv_doc *tree, size_t ntree, const char *const *targets,
                   size_t ntargets, ib_error *e)
{
	rv_tree t = {.kind = RV_TREE_MEM, .a = r->a};
	int rc = 0;
	r->mode = "files";
	r->findings.a = r->a;
	for (size_t i = 0; i < ntree && !rc; i++)
		rc = rv_tree_add(&t, tree[i].path, tree[i].text, tree[i].len);
	ib_val *cfg = rc ? NULL : rv_load_configs(&t, NULL);
	if (!rc && !cfg)
		rc = IB_ENOMEM;
	bool any_cfg = cfg && cfg->map.n;
	for (size_t k = 0; k < ntargets && !rc; k++) {
		long i = rv_tree_find(&t, targets[k]);
		if (i < 0) {
			rc = ib_fail(e, IB_ENOENT, "", 0, 0, "%s: not in the tree", targets[k]);
			break;
		}
		rc = review_file(r, &t, (size_t)i, cfg, any_cfg);
		if (!rc && is_master_config(targets[k])) {
			ib_val *mine = rv_load_configs(&t, targets[k]);
			rc = mine ? rv_check_configs(r, &t, cfg, mine, false) : IB_ENOMEM;
		}
	}
	rv_tree_free(&t);
	if (rc == IB_ENOMEM)
		ib_fail(e, rc, "", 0, 0, "out of memory");
	return rc;
}

/* ---- files mode over a working tree ---- */

static int files_mode(const rv_opts *o, rv_report *r, ib_error *e)
{
	rv_tree t = {.kind = RV_TREE_DIR, .a = r->a, .root = o->repo};
	r->mode = "files";
	char real[PATH_MAX];
	if (!realpath(o->repo, real))
		snprintf(real, sizeof real, "%s", o->repo);
	int rc = rv_tree_list_dir(&t, e);
	ib_val *cfg = NULL;
	if (!rc && !(cfg = rv_load_configs(&t, NULL)))
		rc = IB_ENOMEM;
	bool any_cfg = cfg && cfg->map.n;
	for (size_t k = 0; k < o->nfiles && !rc; k++) {
		const char *f = o->files[k];
		char rf[PATH_MAX];
		size_t rl = strlen(real);
		if (f[0] == '/' && realpath(f, rf) && !strncmp(rf, real, rl) && rf[rl] == '/')
			f = ib_arena_strdup(r->a, rf + rl + 1);
		while (f && f[0] == '.' && f[1] == '/')
			f += 2;
		if (!f) {
			rc = IB_ENOMEM;
			break;
		}
		char *full = ib_arena_printf(r->a, "%s/%s", o->repo, f);
		struct stat st;
		if (!full || stat(full, &st) || !S_ISREG(st.st_mode)) {
			rc = ib_fail(e, IB_ENOENT, "", 0, 0, "%s: no such file in repository %s",
			             o->files[k], o->repo);
			break;
		}
		long i = rv_tree_find(&t, f);
		if (i < 0) {
			if ((rc = rv_tree_add(&t, f, NULL, 0)))
				break;
			i = (long)t.n - 1;
		}
		size_t len;
		if (!rv_tree_text(&t, (size_t)i, &len)) {
			rc = ib_fail(e, IB_EIO, "", 0, 0, "%s: cannot read it", full);
			break;
		}
		rc = review_file(r, &t, (size_t)i, cfg, any_cfg);
		if (!rc && is_master_config(f)) {
			ib_val *mine = rv_load_configs(&t, f);
			rc = mine ? rv_check_configs(r, &t, cfg, mine, false) : IB_ENOMEM;
		}
	}
	rv_tree_free(&t);
	if (rc == IB_ENOMEM)
		ib_fail(e, rc, "", 0, 0, "out of memory");
	return rc;
}

/* ---- change mode ---- */

static int rev_parse(const char *repo, const char *ref, ib_arena *a, const char **out, ib_error *e)
{
	ib_buf b = {0};
	char *spec = ib_arena_printf(a, "%s^{commit}", ref);
	const char *args[] = {"rev-parse", "--verify", "--quiet", "--end-of-options", spec, NULL};
	int rc = spec ? rv_git(repo, args, &b, e) : IB_ENOMEM;
	if (rc == IB_EINVAL || (!rc && !b.len))
		rc = ib_fail(e, IB_EINVAL, "", 0, 0, "unknown git ref '%s' in %s", ref, repo);
	if (!rc) {
		*out = ib_arena_strndup(a, b.data, strcspn(b.data, "\n"));
		if (!*out)
			rc = IB_ENOMEM;
	}
	ib_buf_free(&b);
	return rc;
}

/* Splits text into lines (in place); returns the count. */
static size_t lines_of(char *text, char ***out)
{
	size_t n = 0, cap = 0;
	char **v = NULL;
	for (char *p = text; p && *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		if (ib_grow(&v, &cap, n + 1)) {
			free(v);
			*out = NULL;
			return 0;
		}
		v[n++] = p;
		p = nl ? nl + 1 : NULL;
	}
	*out = v;
	return n;
}

static bool blank(const char *s)
{
	for (; *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\r')
			return false;
	return true;
}

static size_t entry_count(ib_arena *a, const char *name, const char *text, size_t len, ib_val **doc)
{
	ib_error e = {0};
	*doc = NULL;
	if (!text || ib_yaml_load(a, name, text, len, doc, &e) || !*doc ||
	    (*doc)->type != IB_V_LIST)
		return 0;
	return (*doc)->list.n;
}

static int changelog_rules(rv_report *r, rv_tree *bt, rv_tree *ht, const char **changed,
                           size_t nchanged)
{
	const char *cl = "perf-changelog.yaml";
	long bi = rv_tree_find(bt, cl), hi = rv_tree_find(ht, cl);
	size_t bl = 0, hl = 0;
	const char *btext = bi >= 0 ? rv_tree_text(bt, (size_t)bi, &bl) : "";
	const char *htext = hi >= 0 ? rv_tree_text(ht, (size_t)hi, &hl) : NULL;
	if (!htext)
		return 0;
	if (!btext)
		btext = "";
	/* changelog-append-end: the base text is a prefix of the head text,
	 * trailing blank lines of the base aside */
	rv_checked(r, "changelog-append-end");
	char *bc = ib_arena_strdup(r->a, btext), *hc = ib_arena_strdup(r->a, htext);
	if (!bc || !hc)
		return IB_ENOMEM;
	char **bv, **hv;
	size_t nb = lines_of(bc, &bv), nh = lines_of(hc, &hv);
	while (nb && blank(bv[nb - 1]))
		nb--;
	size_t bad = 0;
	for (size_t i = 0; i < nb && !bad; i++)
		if (i >= nh || strcmp(bv[i], hv[i]))
			bad = i + 1;
	free(bv);
	free(hv);
	if (bad &&
	    rv_add(r, "changelog-append-end", cl, (int)(bad <= nh ? bad : nh),
	           "restore the existing entries as they are on the base and add the new entries "
	           "after the last one",
	           "perf-changelog.yaml is changed above its end (first difference at line %zu): "
	           "the file is read oldest to newest, so new entries must be appended after the "
	           "last existing one and existing entries left as they are",
	           bad))
		return IB_ENOMEM;
	/* append-only entries */
	ib_val *bdoc, *hdoc;
	size_t bn = entry_count(r->a, cl, btext, bl, &bdoc);
	size_t hn = entry_count(r->a, cl, htext, hl, &hdoc);
	if (!hdoc || bad || hn <= bn)
		return 0;
	size_t nao = 0, nnew = hn - bn;
	int first_line = 0, mod_line = 0;
	const char *mod = NULL;
	for (size_t i = bn; i < hn; i++) {
		const ib_val *en = hdoc->list.v[i];
		const ib_val *ao = ib_map_get(en, "append-only");
		if (!first_line)
			first_line = en->line;
		if (ao && ib_val_truthy(ao))
			nao++;
		static const char *const mods[] = {"evals-only", "all-evals", "eval-min-prefill-ep",
		                                   NULL};
		for (int m = 0; mods[m] && !mod; m++) {
			const ib_kv *kv = ib_map_find(en, mods[m]);
			if (kv) {
				mod = mods[m];
				mod_line = kv->key->line;
			}
		}
	}
	if (!nao)
		return 0;
	rv_checked(r, "append-only-mixed");
	rv_checked(r, "append-only-review");
	if (nao != nnew &&
	    rv_add(r, "append-only-mixed", cl, first_line, NULL,
	           "%zu of the %zu new perf-changelog entries are append-only: append-only and "
	           "regular entries may not be mixed in one change",
	           nao, nnew))
		return IB_ENOMEM;
	if (mod && rv_add(r, "append-only-mixed", cl, mod_line, NULL,
	                  "an append-only change may not use the eval modifier '%s'", mod))
		return IB_ENOMEM;
	size_t others = 0;
	for (size_t i = 0; i < nchanged; i++)
		others += strcmp(changed[i], cl) != 0;
	if (others) {
		if (rv_add(
		        r, "append-only-review", cl, first_line,
		        "confirm from the diff that every changed behaviour is reachable only from "
		        "the appended points (no existing point, image or recipe changes)",
		        "append-only entry: %zu other file%s changed; a human must check that each "
		        "change is gated to the appended points",
		        others, others == 1 ? "" : "s"))
			return IB_ENOMEM;
		for (size_t i = 0; i < nchanged; i++)
			if (strcmp(changed[i], cl) &&
			    ib_diag_quote_add(&r->findings, changed[i], 0, "changed"))
				return IB_ENOMEM;
	}
	return 0;
}

static int change_mode(const rv_opts *o, rv_report *r, ib_error *e)
{
	r->mode = "change";
	ib_buf b = {0};
	const char *args0[] = {"rev-parse", "--is-inside-work-tree", NULL};
	int rc = rv_git(o->repo, args0, &b, e);
	ib_buf_free(&b);
	if (rc == IB_EINVAL)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "%s is not a git work tree", o->repo);
	if (rc)
		return rc;
	const char *base, *head, *mb;
	if ((rc = rev_parse(o->repo, o->head ? o->head : "HEAD", r->a, &head, e)) ||
	    (rc = rev_parse(o->repo, o->base, r->a, &base, e)))
		return rc;
	const char *args1[] = {"merge-base", base, head, NULL};
	if ((rc = rv_git(o->repo, args1, &b, e))) {
		ib_buf_free(&b);
		return ib_fail(e, IB_EINVAL, "", 0, 0, "%s and %s have no common ancestor", o->base,
		               o->head ? o->head : "HEAD");
	}
	mb = ib_arena_strndup(r->a, b.data, strcspn(b.data, "\n"));
	ib_buf_free(&b);
	if (!mb)
		return IB_ENOMEM;
	r->base = mb;
	r->head = head;
	const char *args2[] = {"diff", "--name-status", "--no-renames", "-z", mb, head, NULL};
	if ((rc = rv_git(o->repo, args2, &b, e))) {
		ib_buf_free(&b);
		return rc;
	}
	/* -z: STATUS NUL PATH NUL ... */
	const char **changed = NULL, **added_status = NULL;
	size_t nch = 0, cap = 0, cap2 = 0;
	for (size_t i = 0; i < b.len && !rc;) {
		const char *st = b.data + i;
		i += strlen(st) + 1;
		if (i >= b.len)
			break;
		const char *p = b.data + i;
		i += strlen(p) + 1;
		if (ib_grow(&changed, &cap, nch + 1) || ib_grow(&added_status, &cap2, nch + 1)) {
			rc = IB_ENOMEM;
			break;
		}
		changed[nch] = ib_arena_strdup(r->a, p);
		added_status[nch] = ib_arena_strdup(r->a, st);
		if (!changed[nch] || !added_status[nch])
			rc = IB_ENOMEM;
		nch++;
	}
	ib_buf_free(&b);
	rv_tree ht = {.kind = RV_TREE_GIT, .a = r->a, .root = o->repo, .ref = head};
	rv_tree bt = {.kind = RV_TREE_GIT, .a = r->a, .root = o->repo, .ref = mb};
	if (!rc)
		rc = rv_tree_list_git(&ht, e);
	if (!rc)
		rc = rv_tree_list_git(&bt, e);
	ib_val *hcfg = NULL, *bcfg = NULL;
	if (!rc && (!(hcfg = rv_load_configs(&ht, NULL)) || !(bcfg = rv_load_configs(&bt, NULL))))
		rc = IB_ENOMEM;
	bool cfg_changed = false, cl_changed = false;
	const char *first_cfg = NULL;
	for (size_t k = 0; k < nch && !rc; k++) {
		const char *p = changed[k];
		if (is_master_config(p)) {
			cfg_changed = true;
			if (!first_cfg)
				first_cfg = p;
		}
		if (!strcmp(p, "perf-changelog.yaml"))
			cl_changed = true;
		if (added_status[k][0] == 'D')
			continue;
		long i = rv_tree_find(&ht, p);
		if (i < 0)
			continue; /* outside benchmarks/ and configs/: no rule looks at it */
		rc = review_file(r, &ht, (size_t)i, hcfg, added_status[k][0] == 'A');
	}
	if (!rc && cfg_changed) {
		rv_checked(r, "changelog-missing");
		if (!cl_changed &&
		    rv_add(
		        r, "changelog-missing", first_cfg, 0,
		        "add an entry at the end of perf-changelog.yaml (config-keys, description, "
		        "pr-link) documenting the config change",
		        "master config files were modified but perf-changelog.yaml was not "
		        "updated"))
			rc = IB_ENOMEM;
	}
	if (!rc && cl_changed)
		rc = changelog_rules(r, &bt, &ht, changed, nch);
	if (!rc && cfg_changed)
		rc = rv_check_configs(r, &ht, bcfg, hcfg, true);
	free(changed);
	free(added_status);
	rv_tree_free(&ht);
	rv_tree_free(&bt);
	if (rc == IB_ENOMEM)
		ib_fail(e, rc, "", 0, 0, "out of memory");
	return rc;
}

int rv_review(const rv_opts *o, rv_report *r, ib_error *e)
{
	struct stat st;
	if (!o->repo || stat(o->repo, &st) || !S_ISDIR(st.st_mode))
		return ib_fail(e, IB_ENOENT, "", 0, 0, "repository folder '%s' does not exist",
		               o->repo ? o->repo : "");
	r->findings.a = r->a;
	if (o->base)
		return change_mode(o, r, e);
	return files_mode(o, r, e);
}
