/* eval/client: POSTs many JSON bodies to one endpoint with a fixed number in
 * flight, retrying failures with exponential backoff (lm-eval's tenacity
 * policy) and bounding each attempt with a timeout. One event loop, one
 * keep-alive connection per slot; buffers are reused between requests. */
#define _POSIX_C_SOURCE 200809L
#include "eval/eval.h"
#include "net/net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct run run;

typedef struct {
	run *r;
	net_client *c;
	size_t doc;  /* the request in flight, (size_t)-1 when idle */
	int attempt; /* attempts made for doc */
	int status;
	bool busy, waiting;
	int64_t started;
	ib_buf req;
	net_timer timeout, backoff;
} slot;

struct run {
	const ev_http_opts *o;
	const ib_buf *bodies;
	ev_http_result *res;
	size_t n, next, done, retried;
	net_loop *loop;
	slot *slots;
	size_t nslots;
	int64_t last_progress;
	bool tty;
};

static void start(run *r, slot *s);

static void progress(run *r, bool force)
{
	if (!r->o->log)
		return;
	int64_t now = net_now(r->loop);
	if (!force && now - r->last_progress < 200000000)
		return;
	r->last_progress = now;
	char line[512];
	snprintf(line, sizeof line, "%s: %zu/%zu answered, %zu retried%s",
	         r->o->name ? r->o->name : "eval", r->done, r->n, r->retried, force ? "\n" : "");
	r->o->log(r->o->log_arg, IB_LOG_PROGRESS, line);
}

static double backoff_s(const ev_http_opts *o, int attempt)
{
	/* tenacity wait_exponential(multiplier=0.5, min=1, max=10) after attempt k:
	 * 0.5 * 2^k clamped to [min, max] */
	double w = 0.5 * (double)(1 << (attempt < 20 ? attempt : 20));
	double lo = o->retry_min_s, hi = o->retry_max_s;
	if (w < lo)
		w = lo;
	if (w > hi)
		w = hi;
	return w;
}

static void finish(run *r, slot *s, bool ok, const char *why)
{
	ev_http_result *x = &r->res[s->doc];
	net_timer_cancel(r->loop, &s->timeout);
	x->attempts = s->attempt;
	x->status = s->status;
	x->seconds = (double)(net_now(r->loop) - s->started) / 1e9;
	if (!ok && s->attempt < r->o->max_attempts) {
		/* retry after the backoff; the body is dropped */
		r->retried++;
		snprintf(x->error, sizeof x->error, "%s", why);
		x->body.len = 0;
		s->waiting = true;
		net_timer_arm(r->loop, &s->backoff,
		              net_now(r->loop) + (int64_t)(backoff_s(r->o, s->attempt) * 1e9));
		return;
	}
	x->ok = ok;
	if (ok)
		x->error[0] = '\0';
	else
		snprintf(x->error, sizeof x->error, "%s", why);
	s->busy = false;
	r->done++;
	progress(r, false);
	if (r->next < r->n) {
		s->doc = r->next++;
		s->attempt = 0;
		start(r, s);
	} else if (r->done == r->n) {
		net_stop(r->loop);
	}
}

static void on_head(net_client *c, const net_http_msg *m, int64_t t, void *arg)
{
	(void)c, (void)t;
	slot *s = arg;
	s->status = m->status;
}

static void on_data(net_client *c, const char *d, size_t len, int64_t t, void *arg)
{
	(void)c, (void)t;
	slot *s = arg;
	if (ib_buf_append(&s->r->res[s->doc].body, d, len))
		s->status = -1; /* out of memory: counted as a failure */
}

static void on_done(net_client *c, int err, const char *msg, void *arg)
{
	(void)c;
	slot *s = arg;
	if (!s->busy || s->waiting)
		return;
	char why[200];
	if (err < 0) {
		snprintf(why, sizeof why, "request failed: %s", msg ? msg : "connection error");
		finish(s->r, s, false, why);
	} else if (s->status != 200) {
		ib_buf *b = &s->r->res[s->doc].body;
		snprintf(why, sizeof why, "HTTP %d: %.*s", s->status,
		         (int)(b->len < 120 ? b->len : 120), b->data ? b->data : "");
		finish(s->r, s, false, why);
	} else {
		finish(s->r, s, true, NULL);
	}
}

static void on_timeout(net_loop *l, net_timer *t)
{
	(void)l;
	slot *s = t->arg;
	net_client_close(s->c);
	char why[64];
	snprintf(why, sizeof why, "timed out after %g s", s->r->o->timeout_s);
	finish(s->r, s, false, why);
}

static void on_backoff(net_loop *l, net_timer *t)
{
	(void)l;
	slot *s = t->arg;
	s->waiting = false;
	start(s->r, s);
}

static void start(run *r, slot *s)
{
	const ev_http_opts *o = r->o;
	const ib_buf *body = &r->bodies[s->doc];
	s->busy = true;
	s->status = 0;
	s->attempt++;
	s->started = net_now(r->loop);
	r->res[s->doc].body.len = 0;
	s->req.len = 0;
	int rc =
	    ib_buf_printf(&s->req,
	                  "POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
	                  "Accept: application/json\r\nAuthorization: Bearer %s\r\n"
	                  "Content-Length: %zu\r\n\r\n",
	                  o->path, o->host, o->port, o->api_key ? o->api_key : "EMPTY", body->len);
	rc = rc ? rc : ib_buf_append(&s->req, body->data, body->len);
	if (rc) {
		finish(r, s, false, "out of memory");
		return;
	}
	net_timer_arm(r->loop, &s->timeout, s->started + (int64_t)(o->timeout_s * 1e9));
	if (net_client_send(s->c, s->req.data, s->req.len))
		finish(r, s, false, "cannot create a socket");
}

int ev_http_run(const ev_http_opts *o, const ib_buf *bodies, size_t n, ev_http_result *res,
                ib_error *e)
{
	for (size_t i = 0; i < n; i++)
		res[i] = (ev_http_result){0};
	if (n == 0)
		return 0;
	run r = {.o = o, .bodies = bodies, .res = res, .n = n};
	r.nslots = o->concurrency < 1 ? 1 : o->concurrency;
	if (r.nslots > n)
		r.nslots = n;
	net_raise_fd_limit();
	int rc = net_loop_new(&r.loop, e);
	if (rc)
		return rc;
	r.slots = calloc(r.nslots, sizeof *r.slots);
	if (!r.slots) {
		net_loop_free(r.loop);
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	}
	net_client_cbs cbs = {.on_head = on_head, .on_data = on_data, .on_done = on_done};
	size_t made = 0;
	for (; made < r.nslots && !rc; made++) {
		slot *s = &r.slots[made];
		*s = (slot){.r = &r};
		s->timeout = (net_timer){.fn = on_timeout, .arg = s};
		s->backoff = (net_timer){.fn = on_backoff, .arg = s};
		rc = net_client_new(r.loop, o->host, o->port, &cbs, s, &s->c, e);
		if (!rc)
			net_client_set_max_response(s->c, EV_MAX_RESPONSE);
		if (!rc && o->tls && net_client_use_tls(s->c, o->tls, o->server_name))
			rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	}
	if (!rc) {
		for (size_t i = 0; i < r.nslots; i++) {
			r.slots[i].doc = r.next++;
			start(&r, &r.slots[i]);
		}
		/* every request may already have failed to start (no sockets) */
		if (r.done < r.n)
			rc = net_run(r.loop);
		progress(&r, true);
	}
	for (size_t i = 0; i < made; i++) {
		slot *s = &r.slots[i];
		net_timer_cancel(r.loop, &s->timeout);
		net_timer_cancel(r.loop, &s->backoff);
		if (s->c)
			net_client_free(s->c);
		ib_buf_free(&s->req);
	}
	free(r.slots);
	net_loop_free(r.loop);
	return rc;
}
