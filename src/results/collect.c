/* collect: every *.json below a folder into one JSON list (docs/collect.md). */
#include "results/results.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
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
		/* the entry's type from the folder itself where the file system
		 * gives it (no stat per file); links and unknown types are stat'ed
		 * (a link to a folder is walked, as Path.rglob does) */
		struct stat st;
		bool isdir = de->d_type == DT_DIR ||
		             (de->d_type != DT_REG && stat(p, &st) == 0 && S_ISDIR(st.st_mode));
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

/* One file of the list, nested at depth 1: re-laid out in one pass where
 * ib_json_reindent can; otherwise (and for every error) parsed into a tree
 * and written from it. */
static int collect_one(ib_buf *out, const char *path, const ib_buf *text, ib_error *e)
{
	int rc = ib_json_reindent(out, text->data ? text->data : "", text->len, 2, 1);
	if (rc != 1) /* written, or out's own (sticky) error: reported naming the output */
		return 0;
	ib_arena *a = ib_arena_new();
	if (!a)
		return ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	ib_val *v;
	rc = ib_json_parse(a, path, text->data ? text->data : "", text->len, &v, e);
	if (!rc) {
		ib_json_opts o = {.indent = 2, .ensure_ascii = true};
		rc = ib_json_write_at(out, v, &o, 1, e);
	}
	ib_arena_free(a);
	return rc;
}

/* The output is built in one buffer and, once it holds FLUSH_AT bytes, sent
 * on to the temporary file of an atomic write (opened then, so that a small
 * output is written as before: all at once, after every input was read). */
#define FLUSH_AT ((size_t)1 << 18)

typedef struct {
	ib_buf b;
	ib_atomic w;
	bool open;
	const char *path;
} collect_out;

static int out_flush(collect_out *o, ib_error *e)
{
	if (ib_buf_error(&o->b))
		return ib_fail_unwritten(e, ib_buf_error(&o->b), o->path);
	if (!o->open) {
		int rc = ib_atomic_open(&o->w, o->path, e);
		if (rc)
			return rc;
		o->open = true;
	}
	if (o->b.len && fwrite(o->b.data, 1, o->b.len, o->w.f) != o->b.len)
		return ib_fail(e, IB_EIO, o->path, 0, 0, "cannot write: %s", strerror(errno));
	o->b.len = 0;
	return 0;
}

/* Finishes the output: commits it, or (rc != 0) removes what was begun. */
static int out_finish(collect_out *o, int rc, ib_error *e)
{
	if (!rc && !o->open) {
		rc = ib_buf_write_file(o->path, &o->b, e);
	} else if (!rc) {
		rc = out_flush(o, e);
		if (!rc)
			rc = ib_atomic_commit(&o->w, e);
		else
			ib_atomic_abort(&o->w);
	} else if (o->open) {
		ib_atomic_abort(&o->w);
	}
	if (rc == IB_ENOMEM && (!e || !e->file[0])) /* not an input's fault: name the output */
		rc = ib_fail_unwritten(e, rc, o->path);
	ib_buf_free(&o->b);
	return rc;
}

int res_collect_write(const char *dir, const char *out_path, ib_error *e)
{
	char **paths;
	size_t n;
	int rc = res_find_json(dir, &paths, &n, e);
	if (rc == IB_ENOMEM && (!e || !e->file[0])) /* not an input's fault: name the output */
		rc = ib_fail_unwritten(e, rc, out_path);
	if (rc)
		return rc;
	/* json.dump(indent=2) of the list; each file is read into `text`
	 * (reused) and appended to the output */
	collect_out o = {.path = out_path};
	ib_buf text = {0};
	ib_buf_putc(&o.b, '[');
	for (size_t i = 0; !rc && i < n; i++) {
		ib_buf_puts(&o.b, i ? ",\n  " : "\n  ");
		text.len = 0;
		rc = ib_read_file_max(paths[i], IB_JSON_MAX_FILE, &text, e);
		if (!rc)
			rc = collect_one(&o.b, paths[i], &text, e);
		if (!rc && (o.b.len >= FLUSH_AT || ib_buf_error(&o.b)))
			rc = out_flush(&o, e);
	}
	ib_buf_puts(&o.b, n ? "\n]" : "]");
	rc = out_finish(&o, rc, e);
	ib_buf_free(&text);
	res_paths_free(paths, n);
	return rc;
}
