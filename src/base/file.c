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
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int code = errno == ENOENT ? IB_ENOENT : IB_EIO;
		return ib_fail(e, code, path, 0, 0, "cannot open: %s", strerror(errno));
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return ib_fail(e, IB_EIO, path, 0, 0, "is a directory, not a file");
	}
	if (fstat(fd, &st) == 0 && st.st_size > 0 && ib_buf_reserve(out, (size_t)st.st_size)) {
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
	}
	close(fd);
	return 0;
}

int ib_write_file_atomic(const char *path, const void *data, size_t len, ib_error *e)
{
	ib_buf tmp = {0};
	if (ib_buf_printf(&tmp, "%s.tmp.%ld", path, (long)getpid()))
		return ib_fail(e, IB_ENOMEM, path, 0, 0, "out of memory");
	int fd = open(tmp.data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		int err = errno;
		ib_buf_free(&tmp);
		return ib_fail(e, IB_EIO, path, 0, 0, "cannot create: %s", strerror(err));
	}
	const char *p = data;
	size_t left = len;
	while (left) {
		ssize_t n = write(fd, p, left);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int err = errno;
			close(fd);
			unlink(tmp.data);
			ib_buf_free(&tmp);
			return ib_fail(e, IB_EIO, path, 0, 0, "cannot write: %s", strerror(err));
		}
		p += n;
		left -= (size_t)n;
	}
	if (fsync(fd) != 0 || close(fd) != 0) {
		int err = errno;
		unlink(tmp.data);
		ib_buf_free(&tmp);
		return ib_fail(e, IB_EIO, path, 0, 0, "cannot write: %s", strerror(err));
	}
	if (rename(tmp.data, path) != 0) {
		int err = errno;
		unlink(tmp.data);
		ib_buf_free(&tmp);
		return ib_fail(e, IB_EIO, path, 0, 0, "cannot rename into place: %s", strerror(err));
	}
	ib_buf_free(&tmp);
	return 0;
}

int64_t ib_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
