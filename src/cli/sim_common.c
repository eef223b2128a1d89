/* What the simulator's commands share: the calibration file, the master
 * configs of the frontier sweeps, the lab's output on the terminal. */
#include "cli/sim_common.h"
#include "cli/cli.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

void cli_sim_masters(arg_parser *p, glob_t *g, const char *const **masters, size_t *n,
                     const char **runners)
{
	arg_opt *x;
	*masters = NULL;
	*n = 0;
	*runners = (x = args_get(p, "--runner-config"))->seen ? x->vals[0] : "configs/runners.yaml";
	if ((x = args_get(p, "--master-configs"))->seen) {
		*masters = x->vals;
		*n = x->nvals;
	} else if (!args_get(p, "--no-master-configs")->seen &&
	           glob("configs/*-master.yaml", 0, NULL, g) == 0 && access(*runners, R_OK) == 0) {
		*masters = (const char *const *)g->gl_pathv;
		*n = g->gl_pathc;
	}
}

int cli_load_calibration(const char *prog, const char *path, ib_arena *a, sim_calib_file *f,
                         const char **used)
{
	char exe[4096], buf[4200];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = 0;
	const char *p = path ? path : sim_calib_find(n > 0 ? exe : NULL, buf, sizeof buf);
	memset(f, 0, sizeof *f);
	*used = p ? ib_arena_strdup(a, p) : "built-in defaults";
	if (!p)
		return 0;
	ib_diags d = {.a = a};
	ib_error e = {0};
	int rc = sim_calib_load(p, a, f, &d, &e);
	ib_buf line = {0};
	for (size_t i = 0; i < d.n; i++) {
		line.len = 0;
		ib_diag_format(&d.items[i], &line);
		fprintf(stderr, "%s: %s\n", prog, line.data ? line.data : "");
	}
	ib_buf_free(&line);
	if (rc)
		cli_error(prog, "--calibration", &e);
	return rc ? 1 : 0;
}

void cli_sim_log(void *ud, int stream, const char *line)
{
	(void)ud;
	if (stream == SLAB_LOG_OUT)
		printf("%s\n", line);
	else if (stream == SLAB_LOG_PROGRESS && isatty(2))
		fprintf(stderr, "\r%s\033[K", line ? line : "");
}

int cli_sim_lab_error(const char *prog, const char *context, const ib_diags *d, const ib_error *e)
{
	if (d->n) {
		cli_print_diags(d);
		fprintf(stderr, "%s: %s\n", prog, e->msg);
	} else {
		cli_error(prog, context, e);
	}
	return 1;
}

static void on_signal(net_loop *l, net_watch *w, uint32_t ev)
{
	(void)ev;
	struct signalfd_siginfo si;
	if (read(w->fd, &si, sizeof si) > 0)
		net_stop(l);
}

static void on_deadline(net_loop *l, net_timer *t)
{
	(void)t;
	net_stop(l);
}

static void stop_signals(sigset_t *mask)
{
	sigemptyset(mask);
	sigaddset(mask, SIGINT);
	sigaddset(mask, SIGTERM);
}

void cli_serve_block_signals(void)
{
	sigset_t mask;
	stop_signals(&mask);
	sigprocmask(SIG_BLOCK, &mask, NULL);
}

int cli_serve_loop(net_loop *l, double duration)
{
	sigset_t mask;
	stop_signals(&mask);
	net_watch sw = {.fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC), .fn = on_signal};
	if (sw.fd >= 0)
		net_add(l, &sw, EPOLLIN);
	net_timer deadline = {.fn = on_deadline};
	if (duration > 0)
		net_timer_arm(l, &deadline, ib_now_ns() + (int64_t)(duration * 1e9));
	int status = net_run(l);
	net_timer_cancel(l, &deadline);
	if (sw.fd >= 0) {
		net_del(l, &sw);
		close(sw.fd);
	}
	return status;
}
