/* collect: every *.json below a folder into one JSON list (docs/collect.md). */
#include "results/results.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
	char **v;
	size_t n, cap;
} pathlist;

static int push(pathlist *l, const char *s, ib_error *e)
{
	if (ib_grow(&l->v, &l->cap, l->n + 1))
		return ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	char *d = strdup(s);
	if (!d)
		return ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	l->v[l->n++] = d;
	return 0;
}

static bool ends_json(const char *name)
{
	size_t n = strlen(name);
	return n >= 5 && !strcmp(name + n - 5, ".json");
}

static char *join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	bool slash = a > 0 && dir[a - 1] == '/';
	char *s = malloc(a + b + 2);
	if (s) {
		memcpy(s, dir, a);
		if (!slash)
			s[a++] = '/';
		memcpy(s + a, name, b + 1);
	}
	return s;
}

static int walk(const char *dir, pathlist *l, int depth, ib_error *e)
{
	if (depth > 64)
		return ib_fail(e, IB_EIO, dir, 0, 0, "folder nesting too deep");
	DIR *d = opendir(dir);
	if (!d)
		return ib_fail(e, IB_EIO, dir, 0, 0, "cannot read folder: %s", strerror(errno));
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *p = join(dir, de->d_name);
		if (!p) {
			rc = ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
			break;
		}
		struct stat st;
		bool isdir = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
		if (ends_json(de->d_name)) {
			if (isdir)
				rc = ib_fail(e, IB_EIO, p, 0, 0, "is a directory, not a JSON file");
			else
				rc = push(l, p, e);
		}
		if (!rc && isdir)
			rc = walk(p, l, depth + 1, e);
		free(p);
		if (rc)
			break;
	}
	closedir(d);
	return rc;
}

void res_paths_free(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

int res_find_json(const char *dir, char ***paths, size_t *n, ib_error *e)
{
	pathlist l = {0};
	struct stat st;
	*paths = NULL;
	*n = 0;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0; /* Path.rglob of a missing folder yields nothing */
	int rc = walk(dir, &l, 0, e);
	if (rc) {
		res_paths_free(l.v, l.n);
		return rc;
	}
	if (l.n)
		qsort(l.v, l.n, sizeof *l.v, ib_cmp_str);
	*paths = l.v;
	*n = l.n;
	return 0;
}

int res_collect(ib_arena *a, const char *dir, ib_val **out, ib_error *e)
{
	char **paths;
	size_t n;
	int rc = res_find_json(dir, &paths, &n, e);
	if (rc)
		return rc;
	ib_val *list = ib_v_list(a);
	if (!list)
		rc = ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	for (size_t i = 0; !rc && i < n; i++) {
		ib_val *v;
		rc = ib_json_parse_file(a, paths[i], &v, e);
		if (!rc && ib_list_push(a, list, v))
			rc = ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	}
	res_paths_free(paths, n);
	if (!rc)
		*out = list;
	return rc;
}

int res_collect_write(const char *dir, const char *out_path, ib_error *e)
{
	ib_arena *a = ib_arena_new();
	if (!a)
		return ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	ib_val *list = NULL;
	int rc = res_collect(a, dir, &list, e);
	if (!rc) {
		ib_json_opts o = {.indent = 2, .ensure_ascii = true};
		rc = ib_json_write_path(out_path, list, &o, e);
	}
	if (rc == IB_ENOMEM && (!e || !e->file[0])) /* not an input's fault: name the output */
		rc = ib_fail_unwritten(e, rc, out_path);
	ib_arena_free(a);
	return rc;
}
