#define _GNU_SOURCE /* memmem */
/* The results store: folders, the lock, the manifest (JSON lines appended
 * one write each), and reading the manifest back. */
#include "eval/eval.h"
#include "run/plan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

void run_rmtree(const char *path)
{
	DIR *d = opendir(path);
	if (!d) {
		unlink(path);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char sub[4096];
		snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
		struct stat st;
		if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
			run_rmtree(sub);
		else
			unlink(sub);
	}
	closedir(d);
	rmdir(path);
}

int run_store_row_lock(const char *store, const char *identity)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/locks/%s", store, identity);
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int er = errno;
		close(fd);
		errno = er;
		return -1;
	}
	return fd;
}

bool run_store_agg_ok(const char *store, const char *identity, const char *name)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/rows/%s/agg_%s.json", store, identity, name);
	if (access(p, F_OK) != 0)
		return false;
	ib_arena *a = ib_arena_new();
	ib_val *v = NULL;
	bool ok = a && ib_json_parse_file(a, p, &v, NULL) == 0 && v->type == IB_V_MAP;
	ib_arena_free(a);
	return ok;
}

int run_store_open(run_store *s, const char *dir, bool lock, ib_error *e)
{
	memset(s, 0, sizeof *s);
	s->fd = s->lock_fd = -1;
	char p[4096];
	int rc = ib_mkdirs_writable(dir, e);
	const char *subs[] = {"rows", "work", "failed", "locks"};
	for (size_t i = 0; i < 4 && !rc; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, subs[i]);
		rc = ib_mkdirs(p, 0755, e);
	}
	if (rc)
		return rc;
	s->dir = realpath(dir, NULL); /* children work in other folders */
	if (!s->dir)
		return ib_fail(e, IB_EIO, dir, 0, 0, "cannot resolve the store's path: %s",
		               strerror(errno));
	if (lock) {
		snprintf(p, sizeof p, "%s/lock", dir);
		s->lock_fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (s->lock_fd < 0 || flock(s->lock_fd, LOCK_EX | LOCK_NB) != 0) {
			int er = errno;
			run_store_close(s);
			return ib_fail(e, IB_EIO, p, 0, 0,
			               er == EWOULDBLOCK
			                   ? "another infbench run is using this store"
			                   : "cannot lock the store: %s",
			               strerror(er));
		}
	}
	snprintf(p, sizeof p, "%s/manifest.jsonl", dir);
	s->fd = open(p, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	char last = '\n';
	off_t end = s->fd >= 0 ? lseek(s->fd, 0, SEEK_END) : 0;
	if (end > 0 && pread(s->fd, &last, 1, end - 1) == 1 && last != '\n' &&
	    write(s->fd, "\n", 1) != 1) { /* a torn last line ends here */
	}
	if (s->fd < 0) {
		int er = errno;
		run_store_close(s);
		return ib_fail(e, IB_EIO, p, 0, 0, "cannot open the manifest: %s", strerror(er));
	}
	return 0;
}

void run_store_close(run_store *s)
{
	if (s->fd >= 0)
		close(s->fd);
	if (s->lock_fd >= 0)
		close(s->lock_fd); /* releases the flock */
	free(s->dir);
	s->fd = s->lock_fd = -1;
	s->dir = NULL;
}

int run_store_append(run_store *s, const ib_val *rec, ib_error *e)
{
	ib_buf b = {0};
	ib_json_opts o = IB_JSON_PYTHON;
	int rc = ib_json_write(&b, rec, &o, e);
	if (!rc && ib_buf_putc(&b, '\n'))
		rc = IB_ENOMEM;
	if (!rc) {
		/* one write: O_APPEND keeps concurrent writers' lines whole */
		off_t before = lseek(s->fd, 0, SEEK_END);
		ssize_t w = write(s->fd, b.data, b.len);
		int er = errno;
		if (w != (ssize_t)b.len) {
			/* a full disk (or a file-size limit) tore the line: cut it
			 * off again when nobody wrote after it, else end it, so the
			 * next record starts a line of its own */
			struct stat st;
			if (w > 0 && before >= 0 && fstat(s->fd, &st) == 0 &&
			    st.st_size == before + (off_t)w) {
				if (ftruncate(s->fd, before) != 0 && write(s->fd, "\n", 1) != 1) {
					/* run_store_latest skips the torn line */
				}
			} else if (w > 0 && write(s->fd, "\n", 1) != 1) {
			}
			rc = ib_fail(e, IB_EIO, s->dir, 0, 0, "cannot append to manifest.jsonl: %s",
			             w < 0 ? (er == ENOSPC ? "disk full" : strerror(er))
			                   : "short write (disk full?)");
		} else {
			fdatasync(s->fd);
		}
	}
	ib_buf_free(&b);
	return rc;
}

int run_store_latest(ib_arena *a, const char *dir, ib_val **latest, ib_error *e)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/manifest.jsonl", dir);
	*latest = ib_v_map(a);
	if (!*latest)
		return IB_ENOMEM;
	ib_buf b = {0};
	int rc = ib_read_file(p, &b, e);
	if (rc == IB_ENOENT) {
		ib_buf_free(&b);
		return 0;
	}
	if (rc)
		return rc;
	size_t off = 0;
	while (b.data && off < b.len) {
		char *nl = memchr(b.data + off, '\n', b.len - off);
		if (!nl) /* a torn last line (the writer was killed): ignored */
			break;
		size_t len = (size_t)(nl - (b.data + off));
		ib_val *rec;
		if (len) {
			ib_error pe = {0};
			/* a line torn by a crash (then terminated by the next writer) is
			 * skipped: the records around it still tell the story */
			if (ib_json_parse(a, p, b.data + off, len, &rec, &pe) ||
			    rec->type != IB_V_MAP) {
				/* a torn record ended by the next one's start (an older
				 * writer did not cut it): the last record start on the
				 * line may still be whole */
				static const char start[] = "{\"time\": ";
				const char *line = b.data + off, *st = NULL;
				for (const char *q = line + 1;
				     (q = memmem(q, len - (size_t)(q - line), start,
				                 sizeof start - 1));
				     q++)
					st = q;
				if (!st ||
				    ib_json_parse(a, p, st, len - (size_t)(st - line), &rec, &pe) ||
				    rec->type != IB_V_MAP) {
					off += len + 1;
					continue;
				}
			}
			const ib_val *id = ib_map_get(rec, "identity");
			if (id && id->type == IB_V_STR && ib_map_set(a, *latest, id->str.s, rec)) {
				rc = IB_ENOMEM;
				break;
			}
		}
		off += len + 1;
	}
	ib_buf_free(&b);
	return rc;
}

int run_store_status(ib_arena *a, const char *store, ib_val **out, ib_error *e)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/manifest.jsonl", store);
	if (access(p, F_OK) != 0)
		return ib_fail(e, IB_ENOENT, p, 0, 0,
		               "no manifest: nothing was run into this store");
	ib_val *latest;
	int rc = run_store_latest(a, store, &latest, e);
	if (rc)
		return rc;
	*out = ib_v_list(a);
	if (!*out)
		return IB_ENOMEM;
	/* a "running" record is live only while a runner holds the lock (local
	 * runs) — without it, the runner that wrote it is gone */
	snprintf(p, sizeof p, "%s/lock", store);
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	bool free_lock = fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0;
	if (fd >= 0)
		close(fd);
	for (size_t i = 0; i < latest->map.n; i++) {
		ib_val *rec = latest->map.kv[i].val;
		const ib_val *st = ib_map_get(rec, "state");
		const ib_val *slurm = ib_map_get(rec, "slurm_job");
		const ib_val *id = ib_map_get(rec, "identity");
		int lk = -1;
		if (free_lock && !slurm && st && st->type == IB_V_STR &&
		    !strcmp(st->str.s, "running") && id && id->type == IB_V_STR &&
		    ((lk = run_store_row_lock(store, id->str.s)) >= 0 || errno != EWOULDBLOCK)) {
			if (lk >= 0)
				close(lk); /* no runner has the row in flight */
			rec = ib_map_copy(a, rec);
			if (!rec || ib_map_set(a, rec, "state", ib_v_str(a, "interrupted")) ||
			    ib_map_set(
			        a, rec, "reason",
			        ib_v_str(a,
			                 "the runner stopped without recording an end (killed)")))
				return IB_ENOMEM;
		}
		if (ib_list_push(a, *out, rec))
			return IB_ENOMEM;
	}
	return 0;
}

/* A list written as `infbench collect` writes it (indent 2), atomically. */
static int write_list(const char *path, const ib_val *list, ib_error *e)
{
	ib_json_opts o = IB_JSON_PYTHON;
	o.indent = 2;
	return ib_json_write_path(path, list, &o, e);
}

/* The eval rows of the plan's done eval rows into agg_eval_<X> beside
 * out_path (agg_<X>); nothing when there are none. */
static int collect_evals(const run_plan *p, const char *store, const char *out_path, ib_arena *a,
                         ib_error *e)
{
	ib_val *all = ib_v_list(a);
	int rc = all ? 0 : IB_ENOMEM;
	char path[4096];
	for (size_t i = 0; i < p->n && !rc; i++) {
		snprintf(path, sizeof path, "%s/rows/%s", store, p->items[i].identity);
		ib_val *rows = NULL;
		if (!p->items[i].eval || access(path, F_OK) != 0)
			continue;
		rc = ev_collect_rows(a, path, &rows, e);
		for (size_t k = 0; !rc && k < rows->list.n; k++)
			if (ib_list_push(a, all, rows->list.v[k]))
				rc = IB_ENOMEM;
	}
	if (rc || !all->list.n)
		return rc;
	const char *base = strrchr(out_path, '/');
	size_t dl = base ? (size_t)(base - out_path) + 1 : 0;
	base = base ? base + 1 : out_path;
	if (!strncmp(base, "agg_", 4))
		base += 4;
	snprintf(path, sizeof path, "%.*sagg_eval_%s", (int)dl, out_path, base);
	return write_list(path, all, e);
}

int run_collect(const run_plan *p, const char *store, const char *out_path, ib_error *e)
{
	ib_arena *a = ib_arena_new();
	if (!a)
		return IB_ENOMEM;
	ib_val *list = ib_v_list(a);
	int rc = list ? 0 : IB_ENOMEM;
	char path[4096];
	for (size_t i = 0; i < run_plan_count(p) && !rc; i++) {
		snprintf(path, sizeof path, "%s/rows/%s/agg_%s.json", store,
		         run_plan_identity(p, i), run_plan_name(p, i));
		if (access(path, F_OK) != 0)
			continue;
		ib_val *v;
		rc = ib_json_parse_file(a, path, &v, e);
		if (!rc && ib_list_push(a, list, v))
			rc = IB_ENOMEM;
	}
	if (!rc)
		rc = write_list(out_path, list, e);
	if (!rc)
		rc = collect_evals(p, store, out_path, a, e);
	ib_arena_free(a);
	return rc;
}
