/* The event loop: epoll, a binary heap of timers, end-of-iteration hooks. */
#include "net/private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

struct net_loop {
	int ep;
	bool stop;
	int64_t now;
	net_timer **heap;
	size_t nheap, cap;
	net_defer *defers;
	size_t nwatch;
	int64_t idle_ns; /* wall time spent blocked in epoll waits */
	ib_buf rd, body; /* the clients' scratch (private.h) */
	bool no_pwait2;  /* epoll_pwait2 is missing: use epoll_wait */
};

int net_loop_new(net_loop **out, ib_error *e)
{
	net_loop *l = calloc(1, sizeof *l);
	if (!l)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	l->ep = epoll_create1(EPOLL_CLOEXEC);
	if (l->ep < 0) {
		int err = errno;
		free(l);
		return ib_fail(e, IB_EIO, NULL, 0, 0, "epoll_create1: %s", strerror(err));
	}
	l->now = ib_now_ns();
	*out = l;
	return 0;
}

void net_loop_free(net_loop *l)
{
	if (!l)
		return;
	close(l->ep);
	ib_buf_free(&l->rd);
	ib_buf_free(&l->body);
	free(l->heap);
	free(l);
}

int net_add(net_loop *l, net_watch *w, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.ptr = w};
	if (epoll_ctl(l->ep, EPOLL_CTL_ADD, w->fd, &ev) != 0)
		return IB_EIO;
	w->events = events;
	l->nwatch++;
	return 0;
}

int net_mod(net_loop *l, net_watch *w, uint32_t events)
{
	if (w->events == events)
		return 0;
	struct epoll_event ev = {.events = events, .data.ptr = w};
	if (epoll_ctl(l->ep, EPOLL_CTL_MOD, w->fd, &ev) != 0)
		return IB_EIO;
	w->events = events;
	return 0;
}

void net_del(net_loop *l, net_watch *w)
{
	epoll_ctl(l->ep, EPOLL_CTL_DEL, w->fd, NULL);
	l->nwatch--;
}

/* ---- timer heap (1-based indices stored in heap_idx) ---- */
static bool before(const net_timer *a, const net_timer *b)
{
	return a->when < b->when;
}

static void place(net_loop *l, size_t i, net_timer *t)
{
	l->heap[i] = t;
	t->heap_idx = i + 1;
}

static void sift_up(net_loop *l, size_t i)
{
	net_timer *t = l->heap[i];
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!before(t, l->heap[p]))
			break;
		place(l, i, l->heap[p]);
		i = p;
	}
	place(l, i, t);
}

static void sift_down(net_loop *l, size_t i)
{
	net_timer *t = l->heap[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= l->nheap)
			break;
		if (c + 1 < l->nheap && before(l->heap[c + 1], l->heap[c]))
			c++;
		if (!before(l->heap[c], t))
			break;
		place(l, i, l->heap[c]);
		i = c;
	}
	place(l, i, t);
}

void net_timer_cancel(net_loop *l, net_timer *t)
{
	if (!t->heap_idx)
		return;
	size_t i = t->heap_idx - 1;
	t->heap_idx = 0;
	net_timer *last = l->heap[--l->nheap];
	if (i == l->nheap)
		return;
	l->heap[i] = last;
	last->heap_idx = i + 1;
	sift_down(l, i);
	sift_up(l, last->heap_idx - 1);
}

int net_timer_arm(net_loop *l, net_timer *t, int64_t when)
{
	net_timer_cancel(l, t);
	if (l->nheap == l->cap && ib_grow(&l->heap, &l->cap, l->nheap + 1))
		return IB_ENOMEM;
	t->when = when;
	l->heap[l->nheap++] = t;
	sift_up(l, l->nheap - 1);
	return 0;
}

void net_defer_queue(net_loop *l, net_defer *d)
{
	if (d->queued)
		return;
	d->queued = true;
	d->prev = NULL;
	d->next = l->defers;
	if (l->defers)
		l->defers->prev = d;
	l->defers = d;
}

void net_defer_cancel(net_loop *l, net_defer *d)
{
	if (!d->queued)
		return;
	if (d->prev)
		d->prev->next = d->next;
	else
		l->defers = d->next;
	if (d->next)
		d->next->prev = d->prev;
	d->queued = false;
}

static void run_defers(net_loop *l)
{
	while (l->defers) {
		net_defer *d = l->defers;
		net_defer_cancel(l, d);
		d->fn(l, d);
	}
}

void net_stop(net_loop *l)
{
	l->stop = true;
}

int64_t net_now(net_loop *l)
{
	return l->now;
}

void net_loop_scratch(net_loop *l, ib_buf **rd, ib_buf **body)
{
	if (rd)
		*rd = &l->rd;
	if (body)
		*body = &l->body;
}

int64_t net_loop_idle_ns(const net_loop *l)
{
	return l->idle_ns;
}

int net_run(net_loop *l)
{
	struct epoll_event evs[256];
	l->stop = false;
	while (!l->stop && (l->nwatch || l->nheap || l->defers)) {
		/* epoll_pwait2 takes a nanosecond timeout, so timers fire on time
		 * rather than on the next millisecond */
		struct timespec ts, *tsp = NULL;
		if (l->defers) {
			ts = (struct timespec){0, 0};
			tsp = &ts;
		} else if (l->nheap) {
			int64_t d = l->heap[0]->when - ib_now_ns();
			if (d < 0)
				d = 0;
			ts = (struct timespec){(time_t)(d / 1000000000), (long)(d % 1000000000)};
			tsp = &ts;
		}
		/* a wait that may block is timed: the loop's idle time */
		int64_t w0 = tsp && tsp->tv_sec == 0 && tsp->tv_nsec == 0 ? 0 : ib_now_ns();
		int n;
		if (!l->no_pwait2) {
			n = epoll_pwait2(l->ep, evs, 256, tsp, NULL);
			if (n < 0 && errno == ENOSYS) { /* older kernels, valgrind */
				l->no_pwait2 = true;
				continue;
			}
		} else {
			/* millisecond timeouts: round up, timers may fire up to 1 ms late */
			int ms = !tsp ? -1
			              : (int)((tsp->tv_sec * 1000000000LL + tsp->tv_nsec + 999999) /
			                      1000000);
			n = epoll_wait(l->ep, evs, 256, ms);
		}
		int err = errno;
		l->now = ib_now_ns();
		if (w0)
			l->idle_ns += l->now - w0;
		if (n < 0) {
			if (err == EINTR)
				continue;
			return IB_EIO;
		}
		for (int i = 0; i < n; i++) {
			net_watch *w = evs[i].data.ptr;
			w->fn(l, w, evs[i].events);
		}
		while (l->nheap && l->heap[0]->when <= l->now) {
			net_timer *t = l->heap[0];
			net_timer_cancel(l, t);
			t->fn(l, t);
		}
		run_defers(l);
		l->now = ib_now_ns();
	}
	return 0;
}

long net_raise_fd_limit(void)
{
	struct rlimit r;
	if (getrlimit(RLIMIT_NOFILE, &r) != 0)
		return -1;
	if (r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
		getrlimit(RLIMIT_NOFILE, &r);
	}
	return (long)r.rlim_cur;
}
