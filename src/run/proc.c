/* Child processes of the runner: spawned into their own process groups,
 * polled, stopped as a group; the /health probe, free ports, log tails. */
#include "net/net.h"
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

int run_spawn(const char *const *argv, char *const *envp, const char *cwd, const char *log,
              pid_t *pid, ib_error *e)
{
	ib_spawn sp = {.argv = argv, .envp = envp, .cwd = cwd, .log = log, .group = true};
	return ib_proc_spawn(&sp, pid, e);
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
		if (ib_proc_reap(pid, &st, false)) {
			kill(-pid, SIGKILL); /* what the leader left behind */
			return st;
		}
		run_sleep_ms(20);
	}
	kill(-pid, SIGKILL);
	ib_proc_reap(pid, &st, true);
	return st;
}

bool run_health(int port, int timeout_ms)
{
	net_target t = {.host = "127.0.0.1", .port = port};
	int status = 0;
	return net_http_call(&t, "GET", "/health", NULL, 0, timeout_ms, &status, NULL, NULL) == 0 &&
	       status >= 100 && status < 400;
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
