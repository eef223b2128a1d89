/* The one spawner (ib_proc_spawn, ib_proc_reap) and the helper that runs a
 * program and captures what it prints (ib_proc_run). */
#define _GNU_SOURCE /* execvpe, pipe2 */
#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

bool ib_env_true(const char *v)
{
	return v && (!strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
	             !strcasecmp(v, "on"));
}

const char *ib_env_get(const char *const *env, const char *name)
{
	if (!env)
		env = (const char *const *)environ;
	size_t n = strlen(name);
	for (size_t i = 0; env[i]; i++)
		if (!strncmp(env[i], name, n) && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

/* In the child between fork and exec (async-signal-safe calls only): the
 * errno of a failed step goes to the parent through the pipe. */
static void child(const ib_spawn *s, char *const *envp, pid_t parent, int errfd)
{
	int fd;
	if (s->group) {
		/* dies with the runner, even by SIGKILL (the thread that forked it
		 * supervises it until it ends) */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
			goto fail;
		if (setpgid(0, 0) != 0)
			goto fail;
		const int sigs[] = {SIGINT, SIGTERM, SIGPIPE, SIGCHLD, SIGHUP};
		struct sigaction dfl = {.sa_handler = SIG_DFL};
		for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
			sigaction(sigs[i], &dfl, NULL);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
	}
	if ((fd = open("/dev/null", O_RDONLY)) < 0 || dup2(fd, 0) < 0)
		goto fail;
	close(fd);
	if (s->log) {
		if ((fd = open(s->log, O_WRONLY | O_CREAT | O_APPEND, 0644)) < 0 ||
		    dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			goto fail;
		close(fd);
	} else {
		if (s->out_fd > 0 && dup2(s->out_fd, 1) < 0)
			goto fail;
		if (s->err_fd > 0 && dup2(s->err_fd, 2) < 0)
			goto fail;
	}
	if (s->cwd && chdir(s->cwd) != 0)
		goto fail;
	execvpe(s->argv[0], (char *const *)s->argv, envp);
fail:;
	int er = errno;
	if (write(errfd, &er, sizeof er) < 0) {
		/* the parent sees the status only */
	}
	_exit(127);
}

int ib_proc_spawn(const ib_spawn *s, pid_t *pid, ib_error *e)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return ib_fail(e, IB_EIO, "", 0, 0, "cannot start %s: %s", s->argv[0],
		               strerror(errno));
	char *const *envp = s->envp ? s->envp : environ;
	pid_t parent = getpid();
	pid_t c = fork();
	if (c == 0)
		child(s, envp, parent, p[1]);
	int er = c < 0 ? errno : 0;
	close(p[1]);
	if (c > 0) {
		/* the exec closed the pipe (success), or the child wrote why not */
		ssize_t n;
		while ((n = read(p[0], &er, sizeof er)) < 0 && errno == EINTR)
			;
		if (n != (ssize_t)sizeof er)
			er = 0;
		else
			while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
				;
	}
	close(p[0]);
	if (er)
		return ib_fail(e, IB_EIO, "", 0, 0, "cannot start %s: %s", s->argv[0],
		               strerror(er));
	*pid = c;
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
		return ib_fail(e, IB_EIO, "", 0, 0, "waiting for %s: %s", argv[0],
		               strerror(ECHILD));
	if (mem)
		return ib_fail(e, mem, "", 0, 0, "out of memory capturing the output of %s",
		               argv[0]);
	*status = st;
	return 0;
}
