/* Trees of files for the review (private.h): in-memory documents, a working
 * tree, or a git commit read through the git command line. */
#include "review/private.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int rv_git(const char *repo, const char *const *args, ib_buf *out, ib_error *e)
{
	const char *argv[16] = {"git", "-C", repo};
	size_t n = 3;
	for (size_t i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	ib_buf err = {0};
	int status = 0;
	int rc = ib_proc_run(argv, NULL, out, &err, &status, e);
	if (!rc && status != 0) {
		const char *m = err.data ? err.data : "";
		size_t k = strcspn(m, "\n");
		rc = ib_fail(e, IB_EINVAL, "", 0, 0, "git %s failed (exit %d)%s%.*s", args[0],
		             status, k ? ": " : "", (int)k, m);
	}
	ib_buf_free(&err);
	return rc;
}

int rv_tree_add(rv_tree *t, const char *path, const char *text, size_t len)
{
	if (t->n == t->cap) { /* five parallel arrays of one capacity */
		size_t c1 = t->cap, c2 = t->cap, c3 = t->cap, c4 = t->cap, c5 = t->cap;
		if (ib_grow(&t->paths, &c1, t->n + 1) || ib_grow(&t->texts, &c2, t->n + 1) ||
		    ib_grow(&t->lens, &c3, t->n + 1) || ib_grow(&t->scripts, &c4, t->n + 1) ||
		    ib_grow(&t->missing, &c5, t->n + 1))
			return IB_ENOMEM;
		t->cap = c1;
	}
	const char *p = ib_arena_strdup(t->a, path);
	if (!p)
		return IB_ENOMEM;
	t->paths[t->n] = p;
	t->texts[t->n] = text;
	t->lens[t->n] = len;
	t->scripts[t->n] = NULL;
	t->missing[t->n] = false;
	t->n++;
	return 0;
}

long rv_tree_find(const rv_tree *t, const char *path)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->paths[i], path))
			return (long)i;
	return -1;
}

static int walk(rv_tree *t, const char *rel, ib_error *e)
{
	char *full = ib_arena_printf(t->a, "%s/%s", t->root, rel);
	if (!full)
		return IB_ENOMEM;
	DIR *d = opendir(full);
	if (!d)
		return 0; /* a missing benchmarks/ or configs/ is just empty */
	struct dirent *de;
	int rc = 0;
	while (!rc && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *sub = ib_arena_printf(t->a, "%s/%s", rel, de->d_name);
		char *fs = ib_arena_printf(t->a, "%s/%s", t->root, sub ? sub : "");
		if (!sub || !fs) {
			rc = IB_ENOMEM;
			break;
		}
		struct stat st;
		if (stat(fs, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			rc = walk(t, sub, e);
		else if (S_ISREG(st.st_mode))
			rc = rv_tree_add(t, sub, NULL, 0);
	}
	closedir(d);
	return rc;
}

int rv_tree_list_dir(rv_tree *t, ib_error *e)
{
	int rc = walk(t, "benchmarks", e);
	if (!rc)
		rc = walk(t, "configs", e);
	if (!rc) {
		char *p = ib_arena_printf(t->a, "%s/perf-changelog.yaml", t->root);
		struct stat st;
		if (!p)
			rc = IB_ENOMEM;
		else if (!stat(p, &st) && S_ISREG(st.st_mode))
			rc = rv_tree_add(t, "perf-changelog.yaml", NULL, 0);
	}
	return rc;
}

int rv_tree_list_git(rv_tree *t, ib_error *e)
{
	ib_buf out = {0};
	const char *args[] = {"ls-tree",    "-r",      "--name-only",         t->ref, "--",
	                      "benchmarks", "configs", "perf-changelog.yaml", NULL};
	int rc = rv_git(t->root, args, &out, e);
	for (char *p = out.data; !rc && p && *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		if (*p)
			rc = rv_tree_add(t, p, NULL, 0);
		if (!nl)
			break;
		p = nl + 1;
	}
	ib_buf_free(&out);
	return rc;
}

const char *rv_tree_text(rv_tree *t, size_t i, size_t *len)
{
	if (i >= t->n || t->missing[i])
		return NULL;
	if (!t->texts[i]) {
		ib_buf b = {0};
		ib_error e = {0};
		int rc;
		if (t->kind == RV_TREE_DIR) {
			char *p = ib_arena_printf(t->a, "%s/%s", t->root, t->paths[i]);
			rc = p ? ib_read_file(p, &b, &e) : IB_ENOMEM;
		} else if (t->kind == RV_TREE_GIT) {
			char *spec = ib_arena_printf(t->a, "%s:%s", t->ref, t->paths[i]);
			const char *args[] = {"show", spec, NULL};
			rc = spec ? rv_git(t->root, args, &b, &e) : IB_ENOMEM;
		} else {
			rc = IB_ENOENT;
		}
		if (!rc) {
			t->texts[i] = ib_arena_strndup(t->a, b.data ? b.data : "", b.len);
			t->lens[i] = b.len;
		}
		ib_buf_free(&b);
		if (!t->texts[i]) {
			t->missing[i] = true;
			return NULL;
		}
	}
	if (len)
		*len = t->lens[i];
	return t->texts[i];
}

rv_script *rv_tree_script(rv_tree *t, size_t i)
{
	if (i >= t->n)
		return NULL;
	if (!t->scripts[i]) {
		size_t len;
		const char *tx = rv_tree_text(t, i, &len);
		if (!tx)
			return NULL;
		t->scripts[i] = rv_script_parse(t->a, t->paths[i], tx, len);
	}
	return t->scripts[i];
}

void rv_tree_free(rv_tree *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->scripts[i])
			free(t->scripts[i]->cmds);
	free(t->paths);
	free(t->texts);
	free(t->lens);
	free(t->scripts);
	free(t->missing);
	free(t->mapped);
	memset(t, 0, sizeof *t);
}
