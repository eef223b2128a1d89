#define _GNU_SOURCE
/* A small HTTP/1.1 server on the event loop: keep-alive, pipelining (one
 * response at a time per connection), Content-Length and chunked request
 * bodies, whole and chunked (streamed) responses, batched writes. A peer
 * that shuts its writing side (half-close) still gets the answers to every
 * whole request it sent, in order; then the connection closes. A request
 * line without a version (HTTP/0.9 style) is a malformed request: 400. */
#include "net/private.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
	READ_CHUNK = 64 * 1024,
	MAX_BODY = 64 * 1024 * 1024,
	LOW_WATER = 64 * 1024,
};

struct net_conn {
	net_watch w;
	net_server *srv;
	ib_buf in, out, body;
	size_t out_off;
	net_defer work; /* flush output, then serve waiting requests */
	bool busy;      /* a response is being produced */
	bool streaming;
	bool close_after;
	bool closed;
	bool head;      /* the request being answered is a HEAD: no body */
	bool lingering; /* answered and shut for writing: reading what is left */
	bool peer_eof;  /* the peer shut its writing side: answer what came, then close */
	net_timer idle; /* the header timeout, armed while no request is being served */
	int64_t since;  /* when it last became idle (EMFILE: the longest idle goes) */
	void *data;
	SSL *ssl; /* NULL: plain TCP */
	net_conn *prev, *next;
	/* send threads: the index of c in the server's batch (-1: not in it),
	 * and a write error a send thread met (the loop closes c) */
	int batch_idx;
	bool send_err;
};

/* Send threads (net_server_set_send_threads): the connections marked for
 * writing in an iteration are written by the loop thread and the send
 * threads together, each a slice, before their deferred work runs; the
 * loop thread waits until every slice is written. Nothing else of a
 * connection is touched off the loop thread. */
typedef struct {
	int n; /* threads beside the loop thread */
	pthread_t *th;
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	uint64_t gen; /* batches started */
	int left;     /* slices not yet written in the current batch */
	bool stop;
	net_conn **conns; /* the batch being written */
	size_t nconns;
} send_pool;

struct net_server {
	net_loop *loop;
	net_watch listen;
	int port;
	net_server_cbs cbs;
	void *arg;
	net_conn *conns;
	size_t nconns;
	net_conn *zombies;
	net_defer reap;
	net_tls *tls;
	int64_t header_ns; /* 0: no header timeout */
	net_timer resume;  /* accepting paused (out of descriptors) */
	bool paused;
	const char *headers; /* net_server_set_headers: on every response, or NULL */
	/* send threads (NULL pool: none): the connections marked since the
	 * last batch, written by batch_send before their work runs */
	send_pool *pool;
	net_conn **batch;
	size_t nbatch, batch_cap;
	net_defer batch_work;
};

enum { DEFAULT_HEADER_MS = 60 * 1000, PAUSE_NS = 100 * 1000 * 1000 };

static void idle_expired(net_loop *l, net_timer *t);

/* the connection waits for a request: the header timeout runs */
static void arm_idle(net_conn *c)
{
	net_server *s = c->srv;
	c->since = net_now(s->loop);
	if (s->header_ns)
		net_timer_arm(s->loop, &c->idle, ib_now_ns() + s->header_ns);
}

static void conn_work(net_loop *l, net_defer *d);

static void reap(net_loop *l, net_defer *d)
{
	(void)l;
	net_server *s = d->arg;
	while (s->zombies) {
		net_conn *c = s->zombies;
		s->zombies = c->next;
		ib_buf_free(&c->in);
		ib_buf_free(&c->out);
		ib_buf_free(&c->body);
		free(c);
	}
}

static void conn_close(net_conn *c)
{
	if (c->closed)
		return;
	net_server *s = c->srv;
	c->closed = true;
	if (c->batch_idx >= 0) { /* freed before the batch is written: out of it */
		s->batch[c->batch_idx] = NULL;
		c->batch_idx = -1;
	}
	net_defer_cancel(s->loop, &c->work);
	net_timer_cancel(s->loop, &c->idle);
	net_del(s->loop, &c->w);
	net_tls_close(c->ssl);
	c->ssl = NULL;
	close(c->w.fd);
	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->nconns--;
	if (s->cbs.on_close)
		s->cbs.on_close(c, s->arg);
	/* freed at the end of the iteration: callers up the stack may still
	 * hold c */
	c->next = s->zombies;
	s->zombies = c;
	net_defer_queue(s->loop, &s->reap);
}

void net_conn_abort(net_conn *c)
{
	conn_close(c);
}

static const char *reason(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 411:
		return "Length Required";
	case 413:
		return "Content Too Large";
	case 422:
		return "Unprocessable Entity";
	case 429:
		return "Too Many Requests";
	case 431:
		return "Request Header Fields Too Large";
	case 500:
		return "Internal Server Error";
	case 501:
		return "Not Implemented";
	case 502:
		return "Bad Gateway";
	case 503:
		return "Service Unavailable";
	default:
		return "Unknown";
	}
}

void net_conn_mark(net_conn *c)
{
	if (c->closed)
		return;
	net_server *s = c->srv;
	net_defer_queue(s->loop, &c->work);
	if (!s->pool || c->ssl || c->batch_idx >= 0)
		return;
	if (s->nbatch == s->batch_cap) {
		size_t cap = s->batch_cap ? s->batch_cap * 2 : 1024;
		net_conn **b = realloc(s->batch, cap * sizeof *b);
		if (!b) /* its own work writes it, on the loop thread */
			return;
		s->batch = b;
		s->batch_cap = cap;
	}
	c->batch_idx = (int)s->nbatch;
	s->batch[s->nbatch++] = c;
	/* deferred work runs newest first: the batch goes before the work of
	 * the connections in it */
	net_defer_cancel(s->loop, &s->batch_work);
	net_defer_queue(s->loop, &s->batch_work);
}

ib_buf *net_conn_out(net_conn *c)
{
	return &c->out;
}

size_t net_conn_pending(const net_conn *c)
{
	return c->out.len - c->out_off;
}

void *net_conn_get_data(const net_conn *c)
{
	return c->data;
}

void net_conn_set_data(net_conn *c, void *data)
{
	c->data = data;
}

void net_conn_respond(net_conn *c, int status, const char *content_type, const char *body,
                      size_t len, const char *extra_headers)
{
	if (c->closed)
		return;
	ib_buf_printf(
	    &c->out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s%s\r\n",
	    status, reason(status), content_type, len, extra_headers ? extra_headers : "",
	    c->srv->headers ? c->srv->headers : "", c->close_after ? "Connection: close\r\n" : "");
	if (!c->head) /* a HEAD answer has the headers of a GET, no body */
		ib_buf_append(&c->out, body, len);
	c->busy = false;
	arm_idle(c);
	c->streaming = false;
	net_conn_mark(c);
}

void net_conn_stream_begin(net_conn *c, int status, const char *content_type)
{
	if (c->closed)
		return;
	ib_buf_printf(&c->out,
	              "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nCache-Control: no-cache\r\n"
	              "Transfer-Encoding: chunked\r\n%s%s\r\n",
	              status, reason(status), content_type, c->srv->headers ? c->srv->headers : "",
	              c->close_after ? "Connection: close\r\n" : "");
	c->streaming = true;
	net_conn_mark(c);
}

void net_conn_stream_end(net_conn *c)
{
	if (c->closed)
		return;
	ib_buf_append(&c->out, "0\r\n\r\n", 5);
	c->streaming = false;
	c->busy = false;
	arm_idle(c);
	net_conn_mark(c);
}

/* Writes as much of the output as the socket takes; -1 on a write error
 * (not EAGAIN), which the caller deals with. */
static int send_out(net_conn *c)
{
	while (c->out_off < c->out.len) {
		if (c->ssl) {
			uint32_t want = 0;
			char msg[128];
			ssize_t n = net_tls_write(c->ssl, c->out.data + c->out_off,
			                          c->out.len - c->out_off, &want, msg, sizeof msg);
			if (n == NET_IO_AGAIN)
				return 0;
			if (n <= 0)
				return -1;
			c->out_off += (size_t)n;
			continue;
		}
		ssize_t n =
		    send(c->w.fd, c->out.data + c->out_off, c->out.len - c->out_off, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
		}
		c->out_off += (size_t)n;
	}
	return 0;
}

/* the events to read: none once the peer has shut its side (a level-
 * triggered EPOLLIN at end of file would fire on every iteration) */
static uint32_t in_events(const net_conn *c)
{
	return c->peer_eof ? 0 : EPOLLIN | EPOLLRDHUP;
}

static bool flush(net_conn *c)
{
	bool err = c->send_err; /* a send thread's write failed */
	c->send_err = false;
	if (err || send_out(c)) {
		conn_close(c);
		return false;
	}
	if (c->out_off == c->out.len) {
		c->out.len = c->out_off = 0; /* keep the capacity: no reallocation */
		net_mod(c->srv->loop, &c->w, in_events(c));
	} else {
		if (c->out_off > (1u << 20)) { /* compact a long-lived buffer */
			memmove(c->out.data, c->out.data + c->out_off, c->out.len - c->out_off);
			c->out.len -= c->out_off;
			c->out_off = 0;
		}
		net_mod(c->srv->loop, &c->w, in_events(c) | EPOLLOUT);
	}
	return true;
}

bool net_conn_flush(net_conn *c)
{
	if (c->closed)
		return false;
	send_out(c); /* an error: the deferred work below meets it again and closes */
	bool all = c->out_off == c->out.len;
	net_conn_mark(c); /* the rest, and the bookkeeping, at the end of the iteration */
	return all;
}

static void bad_request(net_conn *c, int status, const char *msg)
{
	char body[256];
	int n = snprintf(
	    body, sizeof body,
	    "{\"error\": {\"message\": \"%s\", \"type\": \"BadRequestError\", \"param\": null, "
	    "\"code\": %d}}",
	    msg, status);
	c->close_after = true;
	c->busy = true;
	net_conn_respond(c, status, "application/json", body, (size_t)n, NULL);
}

/* Serves the requests waiting in c->in, one at a time. */
static void serve(net_conn *c)
{
	net_server *s = c->srv;
	while (!c->closed && !c->busy && !c->close_after && c->in.len) {
		net_http_msg m;
		int head = net_http_parse_request(c->in.data, c->in.len, &m);
		if (head == 0)
			return;
		if (head < 0) {
			bad_request(c, -head,
			            head == -431   ? "request head too large"
			            : head == -501 ? "unsupported transfer coding"
			                           : "malformed HTTP request");
			return;
		}
		size_t consumed;
		const char *body;
		size_t body_len;
		if (m.chunked) {
			net_chunked ck = {0};
			c->body.len = 0;
			long n = net_chunked_feed(&ck, c->in.data + head, c->in.len - (size_t)head,
			                          &c->body);
			if (n < 0) {
				bad_request(c, 400, "malformed chunked body");
				return;
			}
			if (!ck.done) { /* a chunk announced past the limit is refused at once */
				if (c->body.len > MAX_BODY || ck.left > MAX_BODY)
					bad_request(c, 413, "request body too large");
				return;
			}
			consumed = (size_t)head + (size_t)n;
			body = c->body.data ? c->body.data : "";
			body_len = c->body.len;
		} else {
			int64_t cl = m.content_length < 0 ? 0 : m.content_length;
			if (cl > MAX_BODY) {
				bad_request(c, 413, "request body too large");
				return;
			}
			if (c->in.len < (size_t)head + (size_t)cl)
				return;
			consumed = (size_t)head + (size_t)cl;
			body = c->in.data + head;
			body_len = (size_t)cl;
		}
		c->busy = true;
		c->close_after = !m.keep_alive;
		c->head = m.method_len == 4 && !memcmp(m.method, "HEAD", 4);
		net_timer_cancel(s->loop, &c->idle);
		s->cbs.on_request(c, &m, body, body_len, s->arg);
		if (c->closed)
			return;
		memmove(c->in.data, c->in.data + consumed, c->in.len - consumed);
		c->in.len -= consumed;
	}
}

static void conn_work(net_loop *l, net_defer *d)
{
	(void)l;
	net_conn *c = d->arg;
	if (c->closed)
		return;
	bool was_streaming = c->streaming;
	if (!flush(c))
		return;
	if (c->peer_eof && !c->busy && c->out.len == 0) {
		/* half-closed: every whole request that came is answered in
		 * turn; then nothing more can come, so the connection closes */
		if (!c->close_after)
			serve(c);
		if (!c->closed && !c->busy && c->out.len == 0)
			conn_close(c);
		return;
	}
	if (!c->busy && c->close_after && c->out.len == 0) {
		if (c->ssl || c->lingering) {
			conn_close(c);
			return;
		}
		/* a lingering close: unread bytes at close() would reset the
		 * connection and could destroy the answer before the peer reads
		 * it; shut writing, discard what comes until the peer closes,
		 * for 2 s at most */
		c->lingering = true;
		shutdown(c->w.fd, SHUT_WR);
		net_mod(c->srv->loop, &c->w, EPOLLIN | EPOLLRDHUP);
		net_timer_arm(c->srv->loop, &c->idle, ib_now_ns() + 2000000000LL);
		return;
	}
	if (!c->busy)
		serve(c);
	if (!c->closed && was_streaming && c->streaming && net_conn_pending(c) < LOW_WATER &&
	    c->srv->cbs.on_drain)
		c->srv->cbs.on_drain(c, c->srv->arg);
}

static void conn_io(net_loop *l, net_watch *w, uint32_t events)
{
	net_conn *c = w->arg;
	(void)l;
	if (c->lingering) {
		char sink[4096];
		ssize_t n;
		while ((n = recv(c->w.fd, sink, sizeof sink, 0)) > 0)
			;
		if (n == 0 || (errno != EAGAIN && errno != EINTR) ||
		    (events & (EPOLLERR | EPOLLHUP)))
			conn_close(c);
		return;
	}
	if ((events & EPOLLIN) || (c->ssl && (events & EPOLLOUT))) {
		for (;;) {
			if (ib_buf_reserve(&c->in, READ_CHUNK)) {
				conn_close(c);
				return;
			}
			ssize_t n;
			if (c->ssl) {
				uint32_t want = 0;
				char msg[128];
				n = net_tls_read(c->ssl, c->in.data + c->in.len,
				                 c->in.cap - c->in.len - 1, &want, msg, sizeof msg);
				if (n == NET_IO_AGAIN) {
					if (want ==
					    EPOLLOUT) /* the handshake's reply waits for room */
						net_mod(l, &c->w, EPOLLIN | EPOLLOUT | EPOLLRDHUP);
					break;
				}
				if (n < 0) {
					conn_close(c);
					return;
				}
			} else {
				n = recv(c->w.fd, c->in.data + c->in.len, c->in.cap - c->in.len - 1,
				         0);
			}
			if (n > 0) {
				c->in.len += (size_t)n;
				if (c->in.len > MAX_BODY + 65536) {
					conn_close(c);
					return;
				}
				continue;
			}
			if (n == 0) { /* end of file: no more requests */
				c->peer_eof = true;
				break;
			}
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			conn_close(c);
			return;
		}
		serve(c);
		if (c->closed)
			return;
		if (c->peer_eof && !(events & (EPOLLERR | EPOLLHUP))) {
			/* stop reading; the answers (if any) go out, then it closes */
			net_mod(l, &c->w, in_events(c) | (net_conn_pending(c) ? EPOLLOUT : 0));
			net_defer_queue(l, &c->work);
			return;
		}
	}
	if (events & (EPOLLERR | EPOLLHUP)) {
		conn_close(c);
		return;
	}
	if (events & EPOLLOUT)
		conn_work(l, &c->work);
}

static void idle_expired(net_loop *l, net_timer *t)
{
	(void)l;
	net_conn *c = t->arg;
	if (!c->busy && !c->streaming)
		conn_close(c);
}

/* Out of descriptors: make room by closing the connection idle the
 * longest; true when one was closed. */
static bool evict_idle(net_server *s)
{
	net_conn *old = NULL;
	for (net_conn *c = s->conns; c; c = c->next)
		if (!c->busy && !c->streaming && c->out.len == 0 &&
		    (!old || c->since <= old->since))
			old = c;
	if (old)
		conn_close(old);
	return old != NULL;
}

static void resume_accept(net_loop *l, net_timer *t)
{
	net_server *s = t->arg;
	s->paused = false;
	net_mod(l, &s->listen, EPOLLIN);
}

static void on_accept(net_loop *l, net_watch *w, uint32_t events)
{
	net_server *s = w->arg;
	(void)events;
	for (;;) {
		int fd = accept4(s->listen.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0 &&
		    (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)) {
			if (evict_idle(s))
				continue;
			/* nothing to give up: stop listening for a moment instead of
			 * spinning on a listener that stays readable */
			s->paused = true;
			net_mod(l, &s->listen, 0);
			net_timer_arm(l, &s->resume, ib_now_ns() + PAUSE_NS);
			return;
		}
		if (fd < 0)
			return; /* EAGAIN, ECONNABORTED: the next event */
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		net_conn *c = calloc(1, sizeof *c);
		if (!c) {
			close(fd);
			continue;
		}
		c->srv = s;
		if (s->tls && !(c->ssl = net_tls_conn(s->tls, fd, NULL, true))) {
			close(fd);
			free(c);
			continue;
		}
		c->w = (net_watch){.fd = fd, .fn = conn_io, .arg = c};
		c->work = (net_defer){.fn = conn_work, .arg = c};
		c->batch_idx = -1;
		c->idle = (net_timer){.fn = idle_expired, .arg = c};
		if (net_add(l, &c->w, EPOLLIN | EPOLLRDHUP)) {
			net_tls_close(c->ssl);
			close(fd);
			free(c);
			continue;
		}
		c->next = s->conns;
		if (s->conns)
			s->conns->prev = c;
		s->conns = c;
		s->nconns++;
		arm_idle(c);
	}
}

/* writes slice i of n of the pool's batch */
static void send_slice(send_pool *p, int i, int n)
{
	size_t from = p->nconns * (size_t)i / (size_t)n,
	       to = p->nconns * (size_t)(i + 1) / (size_t)n;
	for (size_t k = from; k < to; k++) {
		net_conn *c = p->conns[k];
		if (c && send_out(c))
			c->send_err = true;
	}
}

static void *send_thread(void *arg)
{
	send_pool *p = ((void **)arg)[0];
	int i = (int)(intptr_t)((void **)arg)[1];
	free(arg);
	uint64_t seen = 0;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (p->gen == seen && !p->stop)
			pthread_cond_wait(&p->go, &p->mu);
		if (p->stop)
			break;
		seen = p->gen;
		pthread_mutex_unlock(&p->mu);
		send_slice(p, i + 1, p->n + 1);
		pthread_mutex_lock(&p->mu);
		if (--p->left == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Below this many connections per thread a batch is written on the loop
 * thread alone: waking the threads would cost more than it saves. */
enum { BATCH_MIN_PER_THREAD = 16 };

static void batch_send(net_loop *l, net_defer *d)
{
	(void)l;
	net_server *s = d->arg;
	send_pool *p = s->pool;
	size_t n = s->nbatch;
	if (n >= (size_t)(p->n + 1) * BATCH_MIN_PER_THREAD) {
		pthread_mutex_lock(&p->mu);
		p->conns = s->batch;
		p->nconns = n;
		p->left = p->n;
		p->gen++;
		pthread_cond_broadcast(&p->go);
		pthread_mutex_unlock(&p->mu);
		send_slice(p, 0, p->n + 1);
		pthread_mutex_lock(&p->mu);
		while (p->left > 0)
			pthread_cond_wait(&p->done, &p->mu);
		pthread_mutex_unlock(&p->mu);
	} else {
		for (size_t k = 0; k < n; k++)
			if (s->batch[k] && send_out(s->batch[k]))
				s->batch[k]->send_err = true;
	}
	for (size_t k = 0; k < n; k++)
		if (s->batch[k])
			s->batch[k]->batch_idx = -1;
	s->nbatch = 0;
}

static void pool_stop(send_pool *p, int started)
{
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < started; i++)
		pthread_join(p->th[i], NULL);
	pthread_cond_destroy(&p->go);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
	free(p->th);
	free(p);
}

int net_server_set_send_threads(net_server *s, int n, ib_error *e)
{
	if (s->pool || n <= 0)
		return 0;
	send_pool *p = calloc(1, sizeof *p);
	if (!p || !(p->th = calloc((size_t)n, sizeof *p->th))) {
		free(p);
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	}
	p->n = n;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->go, NULL);
	pthread_cond_init(&p->done, NULL);
	for (int i = 0; i < n; i++) {
		void **arg = malloc(2 * sizeof *arg);
		int rc = arg ? 0 : ENOMEM;
		if (arg) {
			arg[0] = p;
			arg[1] = (void *)(intptr_t)i;
			rc = pthread_create(&p->th[i], NULL, send_thread, arg);
			if (rc)
				free(arg);
		}
		if (rc) {
			pool_stop(p, i);
			return ib_fail(e, IB_EIO, NULL, 0, 0, "cannot start a send thread: %s",
			               strerror(rc));
		}
	}
	s->batch_work = (net_defer){.fn = batch_send, .arg = s};
	s->pool = p;
	return 0;
}

int net_server_new(net_loop *l, const char *host, int port, const net_server_cbs *cbs, void *arg,
                   net_server **out, ib_error *e)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "invalid IPv4 address '%s'", host);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return ib_fail(e, IB_EIO, NULL, 0, 0, "socket: %s", strerror(errno));
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 65535) != 0) {
		int err = errno;
		close(fd);
		return ib_fail(e, IB_EIO, NULL, 0, 0, "cannot listen on %s:%d: %s", host, port,
		               strerror(err));
	}
	socklen_t alen = sizeof a;
	getsockname(fd, (struct sockaddr *)&a, &alen);
	net_server *s = calloc(1, sizeof *s);
	if (!s) {
		close(fd);
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	}
	s->loop = l;
	s->cbs = *cbs;
	s->arg = arg;
	s->port = ntohs(a.sin_port);
	s->listen = (net_watch){.fd = fd, .fn = on_accept, .arg = s};
	s->reap = (net_defer){.fn = reap, .arg = s};
	s->resume = (net_timer){.fn = resume_accept, .arg = s};
	s->header_ns = (int64_t)DEFAULT_HEADER_MS * 1000000;
	if (net_add(l, &s->listen, EPOLLIN)) {
		close(fd);
		free(s);
		return ib_fail(e, IB_EIO, NULL, 0, 0, "epoll_ctl failed");
	}
	*out = s;
	return 0;
}

void net_server_set_header_timeout(net_server *s, int64_t header_ms)
{
	s->header_ns = header_ms > 0 ? header_ms * 1000000 : 0;
	for (net_conn *c = s->conns; c; c = c->next)
		if (!c->busy && !c->streaming) {
			net_timer_cancel(s->loop, &c->idle);
			arm_idle(c);
		}
}

void net_server_use_tls(net_server *s, net_tls *ctx)
{
	s->tls = ctx;
}

void net_server_set_headers(net_server *s, const char *lines)
{
	s->headers = lines;
}

int net_server_port(const net_server *s)
{
	return s->port;
}

size_t net_server_nconns(const net_server *s)
{
	return s->nconns;
}

void net_server_free(net_server *s)
{
	if (!s)
		return;
	while (s->conns)
		conn_close(s->conns);
	net_timer_cancel(s->loop, &s->resume);
	net_del(s->loop, &s->listen);
	close(s->listen.fd);
	net_defer_cancel(s->loop, &s->reap);
	reap(s->loop, &s->reap);
	if (s->pool) {
		net_defer_cancel(s->loop, &s->batch_work);
		pool_stop(s->pool, s->pool->n);
	}
	free(s->batch);
	free(s);
}
