/* The HTTP/1.1 client side: a non-blocking connection that sends a request,
 * parses the response head and hands de-chunked body bytes to a callback as
 * they arrive, stamped with their receive time. No allocation per chunk:
 * body reads go through the loop's two shared scratch buffers, heads and
 * partial reads through the connection's own. */
#define _GNU_SOURCE
#include "net/private.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* A read: into the loop's shared buffer when it goes straight to a body
 * (the bytes of thousands of streams pass through one hot buffer), else
 * into the connection's own (a response head, a partial chunk). */
enum { READ_SIZE = 16 * 1024 };

typedef enum { C_IDLE, C_CONNECTING, C_SENDING, C_HEAD, C_BODY } cstate;

struct net_client {
	net_loop *loop;
	net_watch w;
	struct sockaddr_in addr;
	net_client_cbs cbs;
	void *arg;
	cstate st;
	bool open, kernel_ts;
	const char *req;
	size_t req_len, req_off;
	ib_buf in; /* bytes read, not yet consumed (heads; bodies read in pieces) */
	net_http_msg resp;
	net_chunked ck;
	int64_t left; /* Content-Length bytes left, -1: until close */
	bool keep_alive;
	char cmsg[256];
	net_tls *tls; /* NULL: plain TCP */
	char *sni;
	SSL *ssl;             /* the open connection's TLS state */
	size_t got, max_resp; /* bytes read of this response, and the bound */
	net_defer more;       /* reads again after a burst (TLS may hold decrypted bytes) */
};

static void finish(net_client *c, int err, const char *msg);

static void close_fd(net_client *c)
{
	if (!c->open)
		return;
	net_del(c->loop, &c->w);
	net_defer_cancel(c->loop, &c->more);
	net_tls_close(c->ssl);
	c->ssl = NULL;
	close(c->w.fd);
	c->open = false;
}

static int64_t read_time(net_client *c, struct msghdr *mh)
{
	if (c->kernel_ts)
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm))
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SO_TIMESTAMPNS) {
				struct timespec ts;
				memcpy(&ts, CMSG_DATA(cm), sizeof ts);
				/* CLOCK_REALTIME from the kernel: move it onto the
				 * monotonic clock */
				struct timespec rt, mono;
				clock_gettime(CLOCK_REALTIME, &rt);
				clock_gettime(CLOCK_MONOTONIC, &mono);
				int64_t off = (mono.tv_sec - rt.tv_sec) * 1000000000LL +
				              (mono.tv_nsec - rt.tv_nsec);
				return ts.tv_sec * 1000000000LL + ts.tv_nsec + off;
			}
	return ib_now_ns();
}

/* Hands the body bytes in data[0..len) on (de-chunked into the loop's
 * scratch): the bytes consumed, or -1 when the response ended (finished). */
static long body(net_client *c, const char *data, size_t len, int64_t t)
{
	if (c->resp.chunked) {
		ib_buf *out;
		net_loop_scratch(c->loop, NULL, &out);
		out->len = 0;
		long used = net_chunked_feed(&c->ck, data, len, out);
		if (used < 0) {
			finish(c, IB_EPARSE, "malformed chunked encoding");
			return -1;
		}
		if (out->len && c->cbs.on_data)
			c->cbs.on_data(c, out->data, out->len, t, c->arg);
		if (c->ck.done) {
			finish(c, 0, NULL);
			return -1;
		}
		return used;
	}
	size_t n = c->left >= 0 && (size_t)c->left < len ? (size_t)c->left : len;
	if (c->cbs.on_data)
		c->cbs.on_data(c, data, n, t, c->arg);
	if (c->left >= 0) {
		c->left -= (int64_t)n;
		if (c->left == 0) {
			finish(c, 0, NULL);
			return -1;
		}
	}
	return (long)n;
}

/* Consumes c->in as far as the response framing allows. */
static void process(net_client *c, int64_t t)
{
	while (c->st == C_HEAD) {
		int n = net_http_parse_response(c->in.data, c->in.len, &c->resp);
		if (n == 0 && c->in.len > NET_CLIENT_MAX_HEAD) {
			finish(c, IB_ERANGE, "HTTP response head larger than 64 KiB");
			return;
		}
		if (n == 0)
			return;
		if (n < 0) {
			finish(c, IB_EPARSE, "malformed HTTP response head");
			return;
		}
		if (c->resp.status >= 100 && c->resp.status < 200) {
			/* an interim response (100 Continue, 103 Early Hints): the
			 * final one follows; 101 would switch protocols, refused */
			if (c->resp.status == 101) {
				finish(c, IB_EPARSE, "unexpected 101 Switching Protocols");
				return;
			}
			memmove(c->in.data, c->in.data + n, c->in.len - (size_t)n);
			c->in.len -= (size_t)n;
			continue;
		}
		c->keep_alive = c->resp.keep_alive;
		c->ck = (net_chunked){0};
		c->left = c->resp.chunked ? -1 : c->resp.content_length;
		if (c->cbs.on_head)
			c->cbs.on_head(c, &c->resp, t, c->arg);
		memmove(c->in.data, c->in.data + n, c->in.len - (size_t)n);
		c->in.len -= (size_t)n;
		c->st = C_BODY;
		if (!c->resp.chunked && c->left == 0) {
			finish(c, 0, NULL);
			return;
		}
		if (!c->resp.chunked && c->left < 0)
			c->keep_alive = false; /* body ends when the server closes */
	}
	if (c->st != C_BODY || !c->in.len)
		return;
	long used = body(c, c->in.data, c->in.len, t);
	if (used < 0 || (size_t)used > c->in.len) /* ended, or closed by a callback */
		return;
	memmove(c->in.data, c->in.data + used, c->in.len - (size_t)used);
	c->in.len -= (size_t)used;
}

static void finish(net_client *c, int err, const char *msg)
{
	cstate was = c->st;
	c->st = C_IDLE;
	c->in.len = 0;
	if (err || !c->keep_alive)
		close_fd(c);
	else
		net_mod(c->loop, &c->w, EPOLLIN | EPOLLRDHUP);
	if (was != C_IDLE && c->cbs.on_done)
		c->cbs.on_done(c, err, msg, c->arg);
}

static void on_io(net_loop *l, net_watch *w, uint32_t ev)
{
	(void)l;
	net_client *c = w->arg;
	if (c->st == C_CONNECTING && (ev & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
		int err = 0;
		socklen_t len = sizeof err;
		getsockopt(c->w.fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err) {
			finish(c, IB_EIO, strerror(err));
			return;
		}
		c->st = C_SENDING;
	}
	if (c->st == C_SENDING) {
		while (c->req_off < c->req_len) {
			if (c->ssl) {
				uint32_t want = 0;
				ssize_t n = net_tls_write(c->ssl, c->req + c->req_off,
				                          c->req_len - c->req_off, &want, c->cmsg,
				                          sizeof c->cmsg);
				if (n == NET_IO_AGAIN) { /* the handshake waits on the peer, or a
					                    full socket */
					net_mod(c->loop, &c->w, want | EPOLLRDHUP);
					return;
				}
				if (n <= 0) {
					finish(c, IB_EIO,
					       n == 0 ? "connection closed by the server"
					              : c->cmsg);
					return;
				}
				c->req_off += (size_t)n;
				continue;
			}
			ssize_t n = send(c->w.fd, c->req + c->req_off, c->req_len - c->req_off,
			                 MSG_NOSIGNAL);
			if (n < 0) {
				if (errno == EINTR)
					continue;
				if (errno == EAGAIN)
					break;
				finish(c, IB_EIO, strerror(errno));
				return;
			}
			c->req_off += (size_t)n;
		}
		if (c->req_off < c->req_len) {
			net_mod(c->loop, &c->w, EPOLLIN | EPOLLOUT | EPOLLRDHUP);
			return;
		}
		c->st = C_HEAD;
		net_mod(c->loop, &c->w, EPOLLIN | EPOLLRDHUP);
	}
	if (!(ev & (EPOLLIN | EPOLLHUP | EPOLLRDHUP | EPOLLERR)))
		return;
	size_t burst = 0;
	for (;;) {
		if (burst >= NET_CLIENT_READ_BURST) {
			/* back to the loop so timers fire; plain sockets wake it
			 * again (level-triggered), TLS may hold decrypted bytes */
			if (c->ssl)
				net_defer_queue(c->loop, &c->more);
			return;
		}
		/* straight to the body: nothing of this response left over */
		bool direct = c->st == C_BODY && !c->in.len;
		ib_buf *rd;
		net_loop_scratch(c->loop, &rd, NULL);
		if (ib_buf_reserve(direct ? rd : &c->in, READ_SIZE)) {
			finish(c, IB_ENOMEM, "out of memory");
			return;
		}
		struct iovec iov = {direct ? rd->data : c->in.data + c->in.len,
		                    direct ? rd->cap - 1 : c->in.cap - c->in.len - 1};
		union {
			char buf[CMSG_SPACE(sizeof(struct timespec))];
			struct cmsghdr align;
		} ctl;
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
		if (c->kernel_ts && !c->ssl) {
			mh.msg_control = ctl.buf;
			mh.msg_controllen = sizeof ctl.buf;
		}
		ssize_t n;
		if (c->ssl) {
			uint32_t want = 0;
			n = net_tls_read(c->ssl, iov.iov_base, iov.iov_len, &want, c->cmsg,
			                 sizeof c->cmsg);
			if (n == NET_IO_AGAIN) {
				if (want == EPOLLOUT)
					net_mod(c->loop, &c->w, EPOLLIN | EPOLLOUT | EPOLLRDHUP);
				return;
			}
			if (n < 0) {
				finish(c, IB_EIO, c->cmsg);
				return;
			}
		} else {
			n = recvmsg(c->w.fd, &mh, 0);
		}
		if (n > 0) {
			if (!direct)
				c->in.len += (size_t)n;
			burst += (size_t)n;
			c->got += (size_t)n;
			if (c->st != C_IDLE && c->max_resp && c->got > c->max_resp) {
				snprintf(c->cmsg, sizeof c->cmsg, "response larger than %zu bytes",
				         c->max_resp);
				finish(c, IB_ERANGE, c->cmsg);
				return;
			}
			int64_t t = c->ssl ? ib_now_ns() : read_time(c, &mh);
			if (c->st == C_IDLE) { /* bytes nobody asked for */
				finish(c, IB_EPARSE, "unexpected data from the server");
				return;
			}
			if (!direct) {
				process(c, t);
			} else {
				long used = body(c, iov.iov_base, (size_t)n, t);
				/* a body consumes all it is given until it ends */
				if (used >= 0 && c->st == C_BODY && (size_t)used < (size_t)n &&
				    ib_buf_append(&c->in, (char *)iov.iov_base + used,
				                  (size_t)n - (size_t)used))
					finish(c, IB_ENOMEM, "out of memory");
			}
			if (!c->open)
				return;
			/* a short read emptied the socket: no second read just to
			 * meet EAGAIN (level-triggered: more data wakes us again);
			 * TLS may hold decrypted bytes the socket no longer shows */
			if (!c->ssl && (size_t)n < iov.iov_len)
				return;
			continue;
		}
		if (n == 0) {
			if (c->st == C_BODY && c->left < 0 && !c->resp.chunked) {
				finish(c, 0, NULL); /* body delimited by close */
			} else if (c->st != C_IDLE) {
				finish(c, IB_EIO,
				       "connection closed by the server before the response ended");
			} else {
				close_fd(c);
			}
			return;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			finish(c, IB_EIO, strerror(errno));
		return;
	}
}

static void read_more(net_loop *l, net_defer *d)
{
	net_client *c = d->arg;
	if (c->open)
		on_io(l, &c->w, EPOLLIN);
}

int net_client_new(net_loop *l, const char *host, int port, const net_client_cbs *cbs, void *arg,
                   net_client **out, ib_error *e)
{
	net_client *c = calloc(1, sizeof *c);
	if (!c)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	c->loop = l;
	c->cbs = *cbs;
	c->arg = arg;
	c->addr = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	if (inet_pton(AF_INET, host, &c->addr.sin_addr) != 1) {
		free(c);
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "not an IPv4 address: '%s'", host);
	}
	c->w = (net_watch){.fd = -1, .fn = on_io, .arg = c};
	c->max_resp = NET_CLIENT_MAX_RESPONSE;
	c->more = (net_defer){.fn = read_more, .arg = c};
	*out = c;
	return 0;
}

int net_client_send(net_client *c, const char *req, size_t len)
{
	c->req = req;
	c->req_len = len;
	c->req_off = 0;
	c->in.len = 0;
	c->got = 0;
	if (c->open) {
		c->st = C_SENDING;
		on_io(c->loop, &c->w, EPOLLOUT);
		return 0;
	}
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return IB_EIO;
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (c->kernel_ts)
		setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
	c->w.fd = fd;
	c->open = true;
	c->st = C_CONNECTING;
	if (c->tls && !(c->ssl = net_tls_conn(c->tls, fd, c->sni, false))) {
		close(fd);
		c->open = false;
		c->st = C_IDLE;
		return IB_ENOMEM;
	}
	if (net_add(c->loop, &c->w, EPOLLOUT | EPOLLIN | EPOLLRDHUP)) {
		net_tls_close(c->ssl);
		c->ssl = NULL;
		close(fd);
		c->open = false;
		c->st = C_IDLE;
		return IB_EIO;
	}
	if (connect(fd, (struct sockaddr *)&c->addr, sizeof c->addr) != 0 && errno != EINPROGRESS) {
		snprintf(c->cmsg, sizeof c->cmsg, "connect: %s", strerror(errno));
		finish(c, IB_EIO, c->cmsg);
	}
	return 0;
}

void net_client_close(net_client *c)
{
	close_fd(c);
	c->st = C_IDLE;
	c->in.len = 0;
}

void net_client_set_max_response(net_client *c, size_t bytes)
{
	c->max_resp = bytes;
}

void net_client_kernel_timestamps(net_client *c, bool on)
{
	c->kernel_ts = on;
}

bool net_client_is_open(const net_client *c)
{
	return c->open;
}

void net_client_set_arg(net_client *c, void *arg)
{
	c->arg = arg;
}

void net_client_free(net_client *c)
{
	if (!c)
		return;
	close_fd(c);
	net_defer_cancel(c->loop, &c->more);
	ib_buf_free(&c->in);
	free(c->sni);
	free(c);
}

int net_client_use_tls(net_client *c, net_tls *ctx, const char *server_name)
{
	char *sni = server_name ? strdup(server_name) : NULL;
	if (server_name && !sni)
		return IB_ENOMEM;
	free(c->sni);
	c->sni = sni;
	c->tls = ctx;
	return 0;
}

int net_resolve(const char *host, char ip[64], ib_error *e)
{
	struct in_addr a;
	if (!strcmp(host, "localhost") || !strcmp(host, "0.0.0.0")) {
		snprintf(ip, 64, "127.0.0.1");
		return 0;
	}
	if (inet_pton(AF_INET, host, &a) == 1) {
		snprintf(ip, 64, "%s", host);
		return 0;
	}
	struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res = NULL;
	int rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc || !res)
		return ib_fail(e, IB_ENOENT, NULL, 0, 0, "cannot resolve host '%s': %s", host,
		               rc ? gai_strerror(rc) : "no IPv4 address");
	inet_ntop(AF_INET, &((struct sockaddr_in *)res->ai_addr)->sin_addr, ip, 64);
	freeaddrinfo(res);
	return 0;
}
