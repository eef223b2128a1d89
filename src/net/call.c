/* The one blocking HTTP call (DESIGN.md convention 12): a request on a
 * connection and event loop of its own, with a deadline over the whole
 * exchange. The benchmark client's side requests (/metrics, the profiler,
 * /v1/models) and the runner's /health probe use it. */
#define _GNU_SOURCE
#include "net/net.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* one exchange on a private loop */
typedef struct {
	net_loop *loop;
	int status, err;
	bool done;
	char msg[256];
	ib_buf *resp;
} exchange;

static void x_head(net_client *c, const net_http_msg *m, int64_t t, void *arg)
{
	(void)c;
	(void)t;
	((exchange *)arg)->status = m->status;
}

static void x_data(net_client *c, const char *data, size_t len, int64_t t, void *arg)
{
	(void)c;
	(void)t;
	exchange *x = arg;
	if (x->resp && ib_buf_append(x->resp, data, len) && !x->err) {
		x->err = IB_ENOMEM;
		snprintf(x->msg, sizeof x->msg, "out of memory");
	}
}

static void x_done(net_client *c, int err, const char *msg, void *arg)
{
	(void)c;
	exchange *x = arg;
	x->done = true;
	if (err && !x->err) {
		x->err = err;
		snprintf(x->msg, sizeof x->msg, "%s", msg ? msg : "connection error");
	}
	net_stop(x->loop);
}

static void x_timeout(net_loop *l, net_timer *t)
{
	(void)t;
	net_stop(l);
}

int net_http_call(const net_target *t, const char *method, const char *path, const char *body,
                  size_t body_len, int timeout_ms, int *status, ib_buf *resp, ib_error *e)
{
	exchange x = {.resp = resp};
	net_client *c = NULL;
	net_timer deadline = {.fn = x_timeout};
	ib_buf req = {0};
	net_client_cbs cbs = {.on_head = x_head, .on_data = x_data, .on_done = x_done};
	int rc = net_loop_new(&x.loop, e);
	if (!rc)
		rc = net_client_new(x.loop, t->host, t->port, &cbs, &x, &c, e);
	if (!rc && t->tls && net_client_use_tls(c, t->tls, t->server_name))
		rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	if (rc)
		goto out;
	int w = ib_buf_printf(&req, "%s %s HTTP/1.1\r\nHost: %s:%d\r\nConnection: close\r\n",
	                      method, path, t->host, t->port);
	if (body)
		w |= ib_buf_printf(
		    &req, "Content-Type: application/json\r\nContent-Length: %zu\r\n", body_len);
	w |= ib_buf_puts(&req, "\r\n");
	if (body)
		w |= ib_buf_append(&req, body, body_len);
	if (w) {
		rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		goto out;
	}
	net_timer_arm(x.loop, &deadline, ib_now_ns() + (int64_t)timeout_ms * 1000000);
	if (net_client_send(c, req.data, req.len)) {
		rc = ib_fail(e, IB_EIO, NULL, 0, 0, "%s %s: cannot open a socket: %s", method, path,
		             strerror(errno));
		goto out;
	}
	if (!x.done)
		net_run(x.loop);
	if (!x.done)
		rc = ib_fail(e, IB_EIO, NULL, 0, 0, "%s %s: no answer within %d ms", method, path,
		             timeout_ms);
	else if (x.err)
		rc = ib_fail(e, x.err == IB_ENOMEM ? IB_ENOMEM : IB_EIO, NULL, 0, 0, "%s %s: %s",
		             method, path, x.msg);
	else
		*status = x.status;
out:
	if (x.loop)
		net_timer_cancel(x.loop, &deadline);
	net_client_free(c);
	net_loop_free(x.loop);
	ib_buf_free(&req);
	return rc;
}
