/* The one spawner (ib_proc_spawn, ib_proc_reap) and the helper that runs a
 * program and captures what it prints (ib_proc_run). */
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

int ib_proc_spawn(const ib_spawn *s, pid_t *pid, ib_error *e)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (s->log) {
		posix_spawn_file_actions_addopen(&fa, 1, s->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		posix_spawn_file_actions_adddup2(&fa, 1, 2);
	} else {
		if (s->out_fd > 0)
			posix_spawn_file_actions_adddup2(&fa, s->out_fd, 1);
		if (s->err_fd > 0)
			posix_spawn_file_actions_adddup2(&fa, s->err_fd, 2);
	}
	if (s->cwd)
		posix_spawn_file_actions_addchdir_np(&fa, s->cwd);
	if (s->group) {
		sigset_t none, def;
		sigemptyset(&none);
		sigemptyset(&def);
		sigaddset(&def, SIGINT);
		sigaddset(&def, SIGTERM);
		sigaddset(&def, SIGPIPE);
		sigaddset(&def, SIGCHLD);
		sigaddset(&def, SIGHUP);
		posix_spawnattr_setsigmask(&at, &none);
		posix_spawnattr_setsigdefault(&at, &def);
		posix_spawnattr_setpgroup(&at, 0);
		posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
		                                  POSIX_SPAWN_SETSIGDEF);
	}
	int rc = posix_spawnp(pid, s->argv[0], &fa, &at, (char *const *)s->argv,
	                      s->envp ? s->envp : environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (rc)
		return ib_fail(e, IB_EIO, "", 0, 0, "cannot start %s: %s", s->argv[0], strerror(rc));
	return 0;
}

bool ib_proc_reap(pid_t pid, int *status, bool hang)
{
	int ws;
	for (;;) {
		pid_t r = waitpid(pid, &ws, hang ? 0 : WNOHANG);
		if (r == 0)
			return false;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			*status = -1; /* not our child (any more) */
			return true;
		}
		break;
	}
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : -1;
	return true;
}

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
	pid_t pid;
	ib_spawn sp = {.argv = argv, .cwd = cwd, .out_fd = po[1], .err_fd = pe[1]};
	int rc = ib_proc_spawn(&sp, &pid, e);
	close(po[1]);
	close(pe[1]);
	if (rc != 0) {
		close(po[0]);
		close(pe[0]);
		return rc;
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
	int st;
	ib_proc_reap(pid, &st, true);
	if (st == -1) /* waitpid failed: not our child any more */
		return ib_fail(e, IB_EIO, "", 0, 0, "waiting for %s: %s", argv[0], strerror(ECHILD));
	if (mem)
		return ib_fail(e, mem, "", 0, 0, "out of memory capturing the output of %s", argv[0]);
	*status = st;
	return 0;
}
