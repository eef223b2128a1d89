#define _POSIX_C_SOURCE 200809L
#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int ib_read_file(const char *path, ib_buf *out, ib_error *e)
{
	return ib_read_file_max(path, 0, out, e);
}

static int too_big(const char *path, unsigned long long size, size_t max, ib_error *e)
{
	return ib_fail(e, IB_ERANGE, path, 0, 0,
	               "the file is %llu bytes, larger than the %zu MiB this input may take", size,
	               max >> 20);
}

int ib_read_file_max(const char *path, size_t max, ib_buf *out, ib_error *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO must not block */
	if (fd < 0) {
		int code = errno == ENOENT ? IB_ENOENT : IB_EIO;
		return ib_fail(e, code, path, 0, 0, "cannot open: %s", strerror(errno));
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int err = errno;
		close(fd);
		return ib_fail(e, IB_EIO, path, 0, 0, "cannot stat: %s", strerror(err));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return ib_fail(e, IB_EIO, path, 0, 0, "%s",
		               S_ISDIR(st.st_mode) ? "is a directory, not a file"
		                                   : "is not a regular file");
	}
	if (max && (unsigned long long)st.st_size > max) {
		close(fd);
		return too_big(path, (unsigned long long)st.st_size, max, e);
	}
	size_t start = out->len;
	if (st.st_size > 0 && ib_buf_reserve(out, (size_t)st.st_size)) {
		close(fd);
		return ib_fail(e, IB_ENOMEM, path, 0, 0, "out of memory reading file");
	}
	for (;;) {
		if (ib_buf_reserve(out, 65536)) {
			close(fd);
			return ib_fail(e, IB_ENOMEM, path, 0, 0, "out of memory reading file");
		}
		ssize_t n = read(fd, out->data + out->len, out->cap - out->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int err = errno;
			close(fd);
			return ib_fail(e, IB_EIO, path, 0, 0, "cannot read: %s", strerror(err));
		}
		if (n == 0)
			break;
		out->len += (size_t)n;
		out->data[out->len] = '\0';
		if (max && out->len - start > max) { /* it grew while read */
			close(fd);
			return too_big(path, (unsigned long long)(out->len - start), max, e);
		}
	}
	close(fd);
	return 0;
}

int ib_mkdirs(const char *path, mode_t mode, ib_error *e)
{
	char p[4096];
	size_t n = strlen(path);
	if (n >= sizeof p)
		return ib_fail(e, IB_EINVAL, path, 0, 0, "path too long");
	memcpy(p, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		char c = p[i];
		p[i] = '\0';
		if (mkdir(p, mode) != 0 && errno != EEXIST)
			return ib_fail(e, IB_EIO, p, 0, 0, "cannot create the folder: %s",
			               strerror(errno));
		p[i] = c;
	}
	return 0;
}

int ib_atomic_open(ib_atomic *w, const char *path, ib_error *e)
{
	ib_buf tmp = {0};
	w->f = NULL;
	w->tmp = NULL;
	w->path = path;
	if (ib_buf_printf(&tmp, "%s.tmp.%ld", path, (long)getpid()))
		return ib_fail(e, IB_ENOMEM, path, 0, 0, "out of memory");
	int fd = open(tmp.data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || !(w->f = fdopen(fd, "w"))) {
		int err = errno;
		if (fd >= 0) {
			close(fd);
			unlink(tmp.data);
		}
		ib_buf_free(&tmp);
		return ib_fail(e, IB_EIO, path, 0, 0, "cannot create: %s", strerror(err));
	}
	w->tmp = tmp.data;
	return 0;
}

void ib_atomic_abort(ib_atomic *w)
{
	if (w->f)
		fclose(w->f);
	if (w->tmp)
		unlink(w->tmp);
	free(w->tmp);
	w->f = NULL;
	w->tmp = NULL;
}

int ib_atomic_commit(ib_atomic *w, ib_error *e)
{
	int err = 0;
	if (fflush(w->f) != 0 || ferror(w->f) || fsync(fileno(w->f)) != 0)
		err = errno ? errno : EIO;
	if (fclose(w->f) != 0 && !err)
		err = errno;
	w->f = NULL;
	if (!err && rename(w->tmp, w->path) != 0)
		err = errno;
	if (err) {
		ib_atomic_abort(w);
		return ib_fail(e, IB_EIO, w->path, 0, 0, "cannot write: %s", strerror(err));
	}
	free(w->tmp);
	w->tmp = NULL;
	return 0;
}

int ib_write_file_atomic(const char *path, const void *data, size_t len, ib_error *e)
{
	ib_atomic w;
	int rc = ib_atomic_open(&w, path, e);
	if (rc)
		return rc;
	if (len && fwrite(data, 1, len, w.f) != len) {
		int err = errno;
		ib_atomic_abort(&w);
		return ib_fail(e, IB_EIO, path, 0, 0, "cannot write: %s", strerror(err));
	}
	return ib_atomic_commit(&w, e);
}

int64_t ib_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

double ib_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int ib_mkdirs_writable(const char *path, ib_error *e)
{
	int rc = ib_mkdirs(path, 0755, e);
	if (rc)
		return rc;
	const char *tmp = path;
	struct stat st;
	if (stat(tmp, &st) != 0 || !S_ISDIR(st.st_mode))
		return ib_fail(e, IB_EIO, tmp, 0, 0, "not a folder");
	if (access(tmp, W_OK | X_OK) != 0)
		return ib_fail(e, IB_EIO, tmp, 0, 0, "folder is not writable: %s", strerror(errno));
	return 0;
}
