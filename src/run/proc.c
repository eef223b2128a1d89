#define _GNU_SOURCE /* execvpe, pipe2 */
/* Child processes of the runner: spawned into their own process groups,
 * polled, stopped as a group; the /health probe, free ports, log tails. */
#include "run/private.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* In the child between fork and exec (async-signal-safe calls only): the
 * errno of a failed step goes to the parent through the pipe. */
static void child(const char *const *argv, char *const *envp, const char *cwd, const char *log,
                  pid_t parent, int errfd)
{
	int fd;
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
	if ((fd = open("/dev/null", O_RDONLY)) < 0 || dup2(fd, 0) < 0)
		goto fail;
	close(fd);
	if ((fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644)) < 0 || dup2(fd, 1) < 0 ||
	    dup2(fd, 2) < 0)
		goto fail;
	close(fd);
	if (cwd && chdir(cwd) != 0)
		goto fail;
	execvpe(argv[0], (char *const *)argv, envp ? envp : environ);
fail:;
	int er = errno;
	if (write(errfd, &er, sizeof er) < 0) {
		/* the parent sees the status only */
	}
	_exit(127);
}

int run_spawn(const char *const *argv, char *const *envp, const char *cwd, const char *log,
              pid_t *pid, ib_error *e)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return ib_fail(e, IB_EIO, "", 0, 0, "cannot start %s: %s", argv[0], strerror(errno));
	pid_t parent = getpid();
	pid_t c = fork();
	if (c == 0)
		child(argv, envp, cwd, log, parent, p[1]);
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
		return ib_fail(e, IB_EIO, "", 0, 0, "cannot start %s: %s", argv[0], strerror(er));
	*pid = c;
	return 0;
}

bool run_reap(pid_t pid, int *status, bool hang)
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

void run_sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

int run_stop_group(pid_t pid, int grace_ms)
{
	int st;
	kill(-pid, SIGTERM);
	for (int waited = 0; waited < grace_ms; waited += 20) {
		if (run_reap(pid, &st, false)) {
			kill(-pid, SIGKILL); /* what the leader left behind */
			return st;
		}
		run_sleep_ms(20);
	}
	kill(-pid, SIGKILL);
	run_reap(pid, &st, true);
	return st;
}

bool run_health(int port, int timeout_ms)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bool ok = false;
	int64_t end = ib_now_ns() + (int64_t)timeout_ms * 1000000;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 && errno != EINPROGRESS)
		goto done;
	struct pollfd p = {.fd = fd, .events = POLLOUT};
	if (poll(&p, 1, timeout_ms) != 1)
		goto done;
	int err = 0;
	socklen_t el = sizeof err;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0 || err)
		goto done;
	char req[128];
	int n = snprintf(req, sizeof req,
	                 "GET /health HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n",
	                 port);
	if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n)
		goto done;
	char buf[64];
	size_t got = 0;
	while (got < 12) {
		int left = (int)((end - ib_now_ns()) / 1000000);
		p.events = POLLIN;
		if (left <= 0 || poll(&p, 1, left) != 1)
			goto done;
		ssize_t r = recv(fd, buf + got, sizeof buf - 1 - got, 0);
		if (r <= 0)
			goto done;
		got += (size_t)r;
	}
	buf[got] = 0;
	int code = 0;
	ok = sscanf(buf, "HTTP/1.%*d %d", &code) == 1 && code >= 100 && code < 400;
done:
	close(fd);
	return ok;
}

int run_free_port(const int *avoid, size_t n)
{
	for (int tries = 0; tries < 50; tries++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return 0;
		struct sockaddr_in sa = {.sin_family = AF_INET};
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		socklen_t sl = sizeof sa;
		int port = 0;
		if (bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 &&
		    getsockname(fd, (struct sockaddr *)&sa, &sl) == 0)
			port = ntohs(sa.sin_port);
		close(fd);
		if (!port)
			return 0;
		bool clash = false;
		for (size_t i = 0; i < n; i++)
			clash |= avoid[i] == port;
		if (!clash)
			return port;
	}
	return 0;
}

void run_tail(ib_buf *b, const char *path, int nlines)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	char buf[8192];
	long sz = 0;
	if (fseek(f, 0, SEEK_END) == 0)
		sz = ftell(f);
	long from = sz > (long)sizeof buf - 1 ? sz - (long)sizeof buf + 1 : 0;
	fseek(f, from, SEEK_SET);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = 0;
	size_t start = n;
	int lines = 0;
	while (start > 0) {
		if (buf[start - 1] == '\n' && ++lines == nlines)
			break;
		start--;
	}
	if (from > 0 && start == 0) /* a partial first line */
		start = strcspn(buf, "\n") + (buf[strcspn(buf, "\n")] ? 1 : 0);
	const char *s = buf + start;
	while (*s) {
		size_t l = strcspn(s, "\n");
		ib_buf_printf(b, "\n  | %.*s", (int)l, s);
		s += l + (s[l] ? 1 : 0);
	}
}
