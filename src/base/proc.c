/* The one child-process helper: run a program, capture what it prints. */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np */
#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int drain(int fd, ib_buf *b, bool *open_)
{
	char tmp[16384];
	ssize_t n = read(fd, tmp, sizeof tmp);
	if (n > 0)
		return b ? ib_buf_append(b, tmp, (size_t)n) : 0;
	if (n == 0 || (errno != EINTR && errno != EAGAIN))
		*open_ = false;
	return 0;
}

int ib_proc_run(const char *const *argv, const char *cwd, ib_buf *out, ib_buf *err, int *status,
                ib_error *e)
{
	int po[2] = {-1, -1}, pe[2] = {-1, -1};
	if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0) {
		int er = errno;
		for (int i = 0; i < 2; i++) {
			if (po[i] >= 0)
				close(po[i]);
			if (pe[i] >= 0)
				close(pe[i]);
		}
		return ib_fail(e, IB_EIO, "", 0, 0, "cannot create a pipe for %s: %s", argv[0],
		               strerror(er));
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (cwd)
		posix_spawn_file_actions_addchdir_np(&fa, cwd);
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(po[1]);
	close(pe[1]);
	if (rc != 0) {
		close(po[0]);
		close(pe[0]);
		return ib_fail(e, IB_EIO, "", 0, 0, "cannot run %s: %s", argv[0], strerror(rc));
	}
	bool oo = true, eo = true;
	int mem = 0;
	while (oo || eo) {
		struct pollfd p[2] = {{.fd = oo ? po[0] : -1, .events = POLLIN},
		                      {.fd = eo ? pe[0] : -1, .events = POLLIN}};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (oo && (p[0].revents & (POLLIN | POLLHUP | POLLERR)) && mem == 0)
			mem = drain(po[0], out, &oo);
		else if (oo && (p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			drain(po[0], NULL, &oo);
		if (eo && (p[1].revents & (POLLIN | POLLHUP | POLLERR)) && mem == 0)
			mem = drain(pe[0], err, &eo);
		else if (eo && (p[1].revents & (POLLIN | POLLHUP | POLLERR)))
			drain(pe[0], NULL, &eo);
	}
	close(po[0]);
	close(pe[0]);
	int ws;
	while (waitpid(pid, &ws, 0) < 0) {
		if (errno != EINTR)
			return ib_fail(e, IB_EIO, "", 0, 0, "waiting for %s: %s", argv[0],
			               strerror(errno));
	}
	if (mem)
		return ib_fail(e, mem, "", 0, 0, "out of memory capturing the output of %s", argv[0]);
	if (WIFEXITED(ws))
		*status = WEXITSTATUS(ws);
	else if (WIFSIGNALED(ws))
		*status = 128 + WTERMSIG(ws);
	else
		*status = -1;
	return 0;
}
