#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "net/net.h"

Test(net, parse_request_head)
{
	const char *r = "POST /v1/completions?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\n"
	                "Connection: keep-alive, Upgrade\r\nX-Empty:\r\n\r\nbody";
	net_http_msg m;
	int n = net_http_parse_request(r, strlen(r), &m);
	cr_assert_eq(n, (int)(strstr(r, "body") - r));
	cr_assert_eq(m.method_len, 4);
	cr_assert(!strncmp(m.path, "/v1/completions?x=1", m.path_len));
	cr_assert_eq(m.content_length, 12);
	cr_assert(m.keep_alive);
	cr_assert_eq(m.nheaders, 4);
	const net_header *h = net_http_header(&m, "x-empty");
	cr_assert_not_null(h);
	cr_assert_eq(h->value_len, 0);
}

Test(net, parse_request_incremental_and_errors)
{
	const char *r = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
	net_http_msg m;
	for (size_t i = 0; i < strlen(r); i++)
		cr_assert_eq(net_http_parse_request(r, i, &m), 0, "prefix %zu", i);
	cr_assert_eq(net_http_parse_request(r, strlen(r), &m), (int)strlen(r));
	cr_assert_eq(net_http_parse_request("GARBAGE\r\n\r\n", 11, &m), -400);
	cr_assert_eq(net_http_parse_request("GET / HTTP/2.0\r\n\r\n", 18, &m), -400);
	const char *te = "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n";
	cr_assert_eq(net_http_parse_request(te, strlen(te), &m), -501);
	const char *cl = "POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n";
	cr_assert_eq(net_http_parse_request(cl, strlen(cl), &m), -400);
	const char *close = "GET / HTTP/1.1\r\nConnection: close\r\n\r\n";
	cr_assert_gt(net_http_parse_request(close, strlen(close), &m), 0);
	cr_assert_not(m.keep_alive);
	const char *old = "GET / HTTP/1.0\r\n\r\n";
	cr_assert_gt(net_http_parse_request(old, strlen(old), &m), 0);
	cr_assert_not(m.keep_alive);
}

Test(net, parse_response_head)
{
	const char *r = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
	net_http_msg m;
	cr_assert_eq(net_http_parse_response(r, strlen(r), &m), (int)strlen(r));
	cr_assert_eq(m.status, 200);
	cr_assert(m.chunked);
	cr_assert_eq(m.reason_len, 2);
	cr_assert_eq(net_http_parse_response("HTTP/1.1 5x0 No\r\n\r\n", 19, &m), -400);
}

Test(net, chunked_decoder_any_split)
{
	const char *body = "5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nTrailer: x\r\n\r\nNEXT";
	size_t len = strlen(body);
	/* feeding in pieces of every size gives the same result */
	for (size_t piece = 1; piece <= len; piece++) {
		net_chunked c = {0};
		ib_buf out = {0};
		size_t used = 0;
		while (used < len && !c.done) {
			size_t n = len - used < piece ? len - used : piece;
			long k = net_chunked_feed(&c, body + used, n, &out);
			cr_assert_geq(k, 0);
			used += (size_t)k;
			if ((size_t)k < n)
				break;
		}
		cr_assert(c.done, "piece %zu", piece);
		cr_assert_eq(used, len - 4, "piece %zu: consumed %zu", piece, used);
		cr_assert_str_eq(out.data, "hello, world");
		ib_buf_free(&out);
	}
	net_chunked c = {0};
	ib_buf out = {0};
	cr_assert_eq(net_chunked_feed(&c, "zz\r\n", 4, &out), -1);
	ib_buf_free(&out);
}

/* issue 9: the status code is exactly three digits, then SP or the end of
 * the line (picohttpparser); "2000" is no 200 */
Test(net, parse_response_status_three_digits)
{
	net_http_msg m;
	const char *bad[] = {"HTTP/1.1 2000 OK\r\n\r\n", "HTTP/1.1 2000\r\n\r\n",
	                     "HTTP/1.1 200x OK\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n",
	                     "HTTP/1.1 200\tOK\r\n\r\n", "HTTP/1.1 200 O\x01K\r\n\r\n"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		cr_assert_eq(net_http_parse_response(bad[i], strlen(bad[i]), &m), -400, "%zu", i);
	const char *none = "HTTP/1.1 204\r\n\r\n";
	cr_assert_eq(net_http_parse_response(none, strlen(none), &m), (int)strlen(none));
	cr_assert_eq(m.status, 204);
	cr_assert_eq(m.reason_len, 0);
	const char *spaces = "HTTP/1.0 404   Not Found\r\n\r\n";
	cr_assert_eq(net_http_parse_response(spaces, strlen(spaces), &m), (int)strlen(spaces));
	cr_assert_eq(m.status, 404);
	cr_assert_eq(m.reason_len, 9);
	cr_assert(!strncmp(m.reason, "Not Found", 9));
}

/* feeds body whole, then byte by byte; both give the same verdict: -1 for
 * malformed, else the bytes consumed (with *done and the decoded text) */
static long chunked_all(const char *body, size_t len, bool *done, char *text, size_t cap)
{
	long verdict[2];
	for (int split = 0; split < 2; split++) {
		net_chunked c = {0};
		ib_buf out = {0};
		size_t used = 0;
		long v = 0;
		while (used < len && !c.done) {
			size_t n = split ? 1 : len - used;
			long k = net_chunked_feed(&c, body + used, n, &out);
			if (k < 0) {
				v = -1;
				break;
			}
			used += (size_t)k;
			if ((size_t)k < n)
				break;
		}
		verdict[split] = v < 0 ? -1 : (long)used;
		*done = c.done;
		snprintf(text, cap, "%.*s", (int)out.len, out.len ? out.data : "");
		ib_buf_free(&out);
	}
	cr_assert_eq(verdict[0], verdict[1], "whole %ld, byte by byte %ld", verdict[0], verdict[1]);
	return verdict[0];
}

/* issue 9: a bare LF (or an empty size line) after a chunk never ends the
 * body; the tolerance is picohttpparser's, no more */
Test(net, chunked_decoder_strict_lines)
{
	bool done;
	char text[64];
	/* empty size lines: malformed, not the last chunk */
	const char *bad[] = {"5\r\nhello\n\nmore",
	                     "5\r\nhello\r\n\r\n0\r\n\r\n",
	                     "\r\n",
	                     "\n",
	                     ";ext\r\n",
	                     "5\r\nhelloX\r\n",
	                     "5\r\nhello\r\r\nG\r\n",
	                     "00000000000000001\r\nx\r\n0\r\n\r\n",
	                     "5 x\r\nhello\r\n0\r\n\r\n"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		long v = chunked_all(bad[i], strlen(bad[i]), &done, text, sizeof text);
		if (i == 8) { /* "5 x": an extension is skipped, as picohttpparser */
			cr_assert_eq(v, (long)strlen(bad[i]));
			continue;
		}
		cr_assert_eq(v, -1, "case %zu: %ld, done %d, text '%s'", i, v, done, text);
	}
	/* what picohttpparser tolerates: bare LFs and CRs before an LF */
	const char *lf = "5\nhello\n3;a=b\n, w\r\r\n0\nT: x\n\nNEXT";
	cr_assert_eq(chunked_all(lf, strlen(lf), &done, text, sizeof text), (long)strlen(lf) - 4);
	cr_assert(done);
	cr_assert_str_eq(text, "hello, w");
	/* 16 hex digits are read, 17 are not */
	const char *z16 = "0000000000000005\r\nhello\r\n0\r\n\r\n";
	cr_assert_eq(chunked_all(z16, strlen(z16), &done, text, sizeof text), (long)strlen(z16));
	cr_assert_str_eq(text, "hello");
	/* a body that stops after a chunk's LF is unfinished, not done */
	const char *cut = "5\r\nhello\n";
	cr_assert_eq(chunked_all(cut, strlen(cut), &done, text, sizeof text), (long)strlen(cut));
	cr_assert_not(done);
}

Test(net, sse_and_chunk_framing)
{
	ib_buf b = {0};
	net_sse_append(&b, "{\"a\":1}", 7);
	cr_assert_str_eq(b.data, "f\r\ndata: {\"a\":1}\n\n\r\n");
	b.len = 0;
	net_chunk_append(&b, "xyz", 3);
	cr_assert_str_eq(b.data, "3\r\nxyz\r\n");
	ib_buf_free(&b);
}

static int fired[8];
static int order;

static void on_timer(net_loop *l, net_timer *t)
{
	(void)l;
	fired[(intptr_t)t->arg] = ++order;
}

Test(net, timers_fire_in_order_and_cancel)
{
	net_loop *l;
	ib_error e = {0};
	cr_assert_eq(net_loop_new(&l, &e), 0);
	net_timer t[5];
	int64_t now = ib_now_ns();
	int64_t when[5] = {3, 1, 4, 2, 5};
	for (int i = 0; i < 5; i++) {
		t[i] = (net_timer){.fn = on_timer, .arg = (void *)(intptr_t)i};
		net_timer_arm(l, &t[i], now + when[i] * 1000000);
	}
	net_timer_cancel(l, &t[2]);
	net_timer_arm(l, &t[4], now + 500000); /* re-arm moves it first */
	cr_assert_eq(net_run(l), 0);
	cr_assert_eq(fired[4], 1);
	cr_assert_eq(fired[1], 2);
	cr_assert_eq(fired[3], 3);
	cr_assert_eq(fired[0], 4);
	cr_assert_eq(fired[2], 0);
	cr_assert_geq(ib_now_ns() - now, 3000000);
	net_loop_free(l);
}

/* ---- the client: interim responses ---- */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

/* a listening socket on 127.0.0.1 (any port) */
static int listener(int *port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	cr_assert_eq(listen(fd, 16), 0);
	socklen_t len = sizeof a;
	getsockname(fd, (struct sockaddr *)&a, &len);
	*port = ntohs(a.sin_port);
	return fd;
}

typedef struct {
	net_watch w;
	const char *answer; /* written whole on accept */
} canned;

static void canned_accept(net_loop *l, net_watch *w, uint32_t ev)
{
	(void)l;
	(void)ev;
	canned *c = w->arg;
	int fd = accept(w->fd, NULL, NULL);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, c->answer, strlen(c->answer)), (ssize_t)strlen(c->answer));
	close(fd);
}

typedef struct {
	net_loop *l;
	int status, err;
	ib_buf body;
} got;

static void g_head(net_client *c, const net_http_msg *m, int64_t t, void *arg)
{
	(void)c;
	(void)t;
	((got *)arg)->status = m->status;
}
static void g_data(net_client *c, const char *d, size_t n, int64_t t, void *arg)
{
	(void)c;
	(void)t;
	ib_buf_append(&((got *)arg)->body, d, n);
}
static void g_done(net_client *c, int err, const char *msg, void *arg)
{
	(void)c;
	(void)msg;
	got *g = arg;
	g->err = err;
	net_stop(g->l);
}

static void exchange_with(const char *answer, got *g)
{
	int port;
	canned cs = {.answer = answer};
	cs.w = (net_watch){.fd = listener(&port), .fn = canned_accept, .arg = &cs};
	ib_error e = {0};
	*g = (got){0};
	cr_assert_eq(net_loop_new(&g->l, &e), 0);
	cr_assert_eq(net_add(g->l, &cs.w, EPOLLIN), 0);
	net_client *c;
	net_client_cbs cbs = {.on_head = g_head, .on_data = g_data, .on_done = g_done};
	cr_assert_eq(net_client_new(g->l, "127.0.0.1", port, &cbs, g, &c, &e), 0);
	static const char req[] =
	    "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}";
	cr_assert_eq(net_client_send(c, req, sizeof req - 1), 0);
	cr_assert_eq(net_run(g->l), 0);
	net_client_free(c);
	net_del(g->l, &cs.w);
	close(cs.w.fd);
	net_loop_free(g->l);
}

Test(net, client_skips_100_continue_and_103, .timeout = 20)
{
	got g;
	exchange_with("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n"
	              "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
	              &g);
	cr_assert_eq(g.err, 0);
	cr_assert_eq(g.status, 200);
	cr_assert_eq(g.body.len, 2);
	cr_assert_eq(memcmp(g.body.data, "ok", 2), 0);
	ib_buf_free(&g.body);
	/* 101 would switch protocols: refused */
	exchange_with("HTTP/1.1 101 Switching Protocols\r\n\r\n", &g);
	cr_assert_neq(g.err, 0);
	ib_buf_free(&g.body);
}

Test(net, resolve_names)
{
	char ip[64];
	ib_error e = {0};
	cr_assert_eq(net_resolve("localhost", ip, &e), 0);
	cr_assert_str_eq(ip, "127.0.0.1");
	cr_assert_eq(net_resolve("10.1.2.3", ip, &e), 0);
	cr_assert_str_eq(ip, "10.1.2.3");
	cr_assert_eq(net_resolve("no-such-host.invalid", ip, &e), IB_ENOENT);
	cr_assert(strstr(e.msg, "no-such-host.invalid"), "%s", e.msg);
}

Test(net, tls_contexts_name_the_bad_file)
{
	net_tls *t = NULL;
	ib_error e = {0};
	cr_assert_eq(net_tls_client_new(NULL, false, &t, &e), 0, "%s", e.msg);
	net_tls_free(t);
	cr_assert_eq(net_tls_client_new(NULL, true, &t, &e), 0);
	net_tls_free(t);
	cr_assert_eq(net_tls_client_new("/no/such/ca.pem", false, &t, &e), IB_EIO);
	cr_assert(strstr(e.msg, "/no/such/ca.pem"), "%s", e.msg);
	cr_assert_eq(net_tls_server_new("/no/cert.pem", "/no/key.pem", &t, &e), IB_EIO);
	cr_assert(strstr(e.msg, "/no/cert.pem"), "%s", e.msg);
}
