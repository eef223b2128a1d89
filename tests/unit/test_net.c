#include <criterion/criterion.h>
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
