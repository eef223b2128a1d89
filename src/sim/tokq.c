/* Exact prompt tokenization off the event loop. A long prompt (tens of MB)
 * takes seconds to encode; on the loop that would stop every other stream.
 * One worker thread encodes queued prompts in order and wakes the loop
 * through an eventfd; the loop then finishes the request (done). tok_encode
 * must not run twice at once on one tok (tok.h), so every call, on the loop
 * or on the worker, holds tok_mu; the loop only tries it (a short prompt is
 * encoded at once when the worker is not busy, else it is queued too). */
#include "sim/private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

enum { NOW_MAX = 256 * 1024 }; /* longer prompts always go to the worker */

static void job_free(sim_tokjob *j)
{
	ib_buf_free(&j->text);
	tok_ids_free(&j->ids);
	ib_arena_free(j->arena);
	free(j);
}

static void *worker(void *arg)
{
	sim_server *s = arg;
	pthread_mutex_lock(&s->tokq_mu);
	for (;;) {
		while (!s->tokq_todo && !s->tokq_stop)
			pthread_cond_wait(&s->tokq_cv, &s->tokq_mu);
		if (s->tokq_stop)
			break;
		sim_tokjob *j = s->tokq_todo;
		s->tokq_todo = j->next;
		if (!s->tokq_todo)
			s->tokq_todo_tail = NULL;
		pthread_mutex_unlock(&s->tokq_mu);
		ib_error e = {0};
		pthread_mutex_lock(&s->tok_mu);
		j->rc = tok_encode(s->cfg.tokenizer, j->text.data ? j->text.data : "", j->text.len,
		                   j->special, &j->ids, &e);
		pthread_mutex_unlock(&s->tok_mu);
		if (j->rc) { /* the message, cut to the room the job has */
			size_t n = strnlen(e.msg, sizeof j->err - 1);
			memcpy(j->err, e.msg, n);
			j->err[n] = '\0';
		}
		pthread_mutex_lock(&s->tokq_mu);
		j->next = s->tokq_done;
		s->tokq_done = j;
		uint64_t one = 1;
		ssize_t w = write(s->tokq_efd, &one, sizeof one);
		(void)w; /* a full counter still wakes the loop */
	}
	pthread_mutex_unlock(&s->tokq_mu);
	return NULL;
}

/* on the loop: take the finished jobs (oldest first) and finish them */
static void on_wake(net_loop *l, net_watch *w, uint32_t events)
{
	(void)l;
	(void)events;
	sim_server *s = w->arg;
	uint64_t n;
	ssize_t r = read(s->tokq_efd, &n, sizeof n);
	(void)r;
	pthread_mutex_lock(&s->tokq_mu);
	sim_tokjob *done = s->tokq_done, *rev = NULL;
	s->tokq_done = NULL;
	pthread_mutex_unlock(&s->tokq_mu);
	while (done) { /* the worker pushed them in reverse */
		sim_tokjob *nx = done->next;
		done->next = rev;
		rev = done;
		done = nx;
	}
	while (rev) {
		sim_tokjob *j = rev;
		rev = j->next;
		/* off the in-flight list */
		sim_tokjob **pp = &s->tokq_flight;
		while (*pp && *pp != j)
			pp = &(*pp)->prev;
		if (*pp)
			*pp = j->prev;
		if (j->conn)
			j->done(s, j);
		job_free(j);
	}
}

int sim_tokq_start(sim_server *s, ib_error *e)
{
	s->tokq_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->tokq_efd < 0)
		return ib_fail(e, IB_EIO, NULL, 0, 0, "eventfd: %s", strerror(errno));
	s->tokq_watch = (net_watch){.fd = s->tokq_efd, .fn = on_wake, .arg = s};
	pthread_mutex_init(&s->tokq_mu, NULL);
	pthread_mutex_init(&s->tok_mu, NULL);
	pthread_cond_init(&s->tokq_cv, NULL);
	if (net_add(s->loop, &s->tokq_watch, EPOLLIN)) {
		close(s->tokq_efd);
		return ib_fail(e, IB_EIO, NULL, 0, 0, "epoll_ctl failed");
	}
	int rc = pthread_create(&s->tokq_thread, NULL, worker, s);
	if (rc) {
		net_del(s->loop, &s->tokq_watch);
		close(s->tokq_efd);
		return ib_fail(e, IB_EIO, NULL, 0, 0, "cannot start the tokenizer thread: %s",
		               strerror(rc));
	}
	s->tokq_on = true;
	return 0;
}

void sim_tokq_stop(sim_server *s)
{
	if (!s->tokq_on)
		return;
	pthread_mutex_lock(&s->tokq_mu);
	s->tokq_stop = true;
	pthread_cond_signal(&s->tokq_cv);
	pthread_mutex_unlock(&s->tokq_mu);
	pthread_join(s->tokq_thread, NULL);
	net_del(s->loop, &s->tokq_watch);
	close(s->tokq_efd);
	/* every job not finished on the loop is in the in-flight list */
	while (s->tokq_flight) {
		sim_tokjob *j = s->tokq_flight;
		s->tokq_flight = j->prev;
		job_free(j);
	}
	pthread_cond_destroy(&s->tokq_cv);
	pthread_mutex_destroy(&s->tokq_mu);
	pthread_mutex_destroy(&s->tok_mu);
	s->tokq_on = false;
}

int sim_tok_encode_now(sim_server *s, const char *text, size_t len, bool special, tok_ids *ids,
                       ib_error *e)
{
	if (s->tokq_on && (len > NOW_MAX || pthread_mutex_trylock(&s->tok_mu)))
		return 1;
	int rc = tok_encode(s->cfg.tokenizer, text, len, special, ids, e);
	if (s->tokq_on)
		pthread_mutex_unlock(&s->tok_mu);
	return rc;
}

void sim_tokq_submit(sim_server *s, sim_tokjob *j)
{
	/* the loop's list of jobs in flight links through prev */
	j->prev = s->tokq_flight;
	s->tokq_flight = j;
	pthread_mutex_lock(&s->tokq_mu);
	j->next = NULL;
	if (s->tokq_todo_tail)
		s->tokq_todo_tail->next = j;
	else
		s->tokq_todo = j;
	s->tokq_todo_tail = j;
	pthread_cond_signal(&s->tokq_cv);
	pthread_mutex_unlock(&s->tokq_mu);
}

void sim_tokq_forget(sim_server *s, net_conn *c)
{
	for (sim_tokjob *j = s->tokq_flight; j; j = j->prev)
		if (j->conn == c)
			j->conn = NULL;
}
