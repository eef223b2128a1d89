/* The simulator API's request bodies (sim/api.c: the completions, chat,
 * tokenize and detokenize handlers behind `infbench sim`). Two servers run
 * in-process on one event loop on 127.0.0.1 (ports chosen by the kernel):
 * one with the performance model (time scale 1000, --max-model-len 4096),
 * one with --max-speed. The first input byte picks the server and the path;
 * the rest is the JSON body of a POST, sent over a kept-alive connection.
 * Checks: no crash, no hang (a 20 s guard timer); every request gets an
 * answer on its connection; no 5xx; an error is an OpenAI error object
 * ({"error": {"message": ...}}); a 200 that is not a stream is a JSON
 * object; a stream ends with "data: [DONE]". */
#include "fuzz.h"

#include "sim/sim.h"

typedef struct {
	net_loop *loop;
	int status;
	bool sse, done;
	int err;
	ib_buf body;
} exchange;

static void on_head(net_client *c, const net_http_msg *r, int64_t t, void *arg)
{
	(void)c, (void)t;
	exchange *x = arg;
	x->status = r->status;
	const net_header *h = net_http_header(r, "content-type");
	x->sse = h && h->value_len >= 17 && !memcmp(h->value, "text/event-stream", 17);
}

static void on_data(net_client *c, const char *d, size_t n, int64_t t, void *arg)
{
	(void)c, (void)t;
	exchange *x = arg;
	if (ib_buf_append(&x->body, d, n))
		abort();
}

static void on_done(net_client *c, int err, const char *msg, void *arg)
{
	(void)c, (void)msg;
	exchange *x = arg;
	x->err = err;
	x->done = true;
	net_stop(x->loop);
}

static void on_guard(net_loop *l, net_timer *t)
{
	(void)l, (void)t;
	FUZZ_CHECK(0, "no answer within 20 s");
}

static net_loop *loop;
static net_client *client[2];
static exchange ex;

static void start(void)
{
	ib_error e = {0};
	if (net_loop_new(&loop, &e))
		abort();
	ex.loop = loop;
	static const net_client_cbs cbs = {on_head, on_data, on_done};
	for (int i = 0; i < 2; i++) {
		sim_config c;
		sim_config_init(&c);
		c.port = 0;
		c.served_model_name = c.model.name;
		c.max_model_len = 4096;
		c.time_scale = 1000;
		c.max_speed = i == 1;
		sim_server *s;
		if (sim_server_new(loop, &c, &s, &e) ||
		    net_client_new(loop, "127.0.0.1", sim_server_port(s), &cbs, &ex, &client[i], &e)) {
			fprintf(stderr, "sim server: %s\n", e.msg);
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[] = {"/v1/completions", "/v1/chat/completions",
	                                    "/tokenize", "/detokenize"};
	if (!loop)
		start();
	unsigned pick = size ? data[0] : 0;
	const char *path = paths[pick % 4];
	net_client *cl = client[(pick >> 2) & 1];
	if (size)
		data++, size--;
	ib_buf req = {0};
	if (ib_buf_printf(&req,
	                  "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
	                  "Content-Length: %zu\r\n\r\n",
	                  path, size) ||
	    ib_buf_append(&req, (const char *)data, size))
		abort();
	ib_buf_free(&ex.body);
	ex.status = 0, ex.sse = false, ex.done = false, ex.err = 0;
	net_timer guard = {.fn = on_guard};
	FUZZ_CHECK(net_client_send(cl, req.data, req.len) == 0, "send");
	net_timer_arm(loop, &guard, net_now(loop) + 20 * (int64_t)1000000000);
	while (!ex.done)
		net_run(loop);
	net_timer_cancel(loop, &guard);
	ib_buf_free(&req);

	FUZZ_CHECK(ex.err == 0, "%s: request failed (%d)", path, ex.err);
	FUZZ_CHECK(ex.status >= 200 && ex.status < 500, "%s: status %d", path, ex.status);
	ib_arena *a = ib_arena_new();
	if (!a)
		abort();
	ib_val *v = NULL;
	ib_error e = {0};
	if (ex.status >= 400) {
		FUZZ_CHECK(!ib_json_parse(a, "answer", ex.body.data ? ex.body.data : "", ex.body.len,
		                          &v, &e) &&
		               v->type == IB_V_MAP,
		           "%s: error %d is not a JSON object", path, ex.status);
		const ib_val *err = ib_map_get(v, "error");
		const ib_val *msg = err && err->type == IB_V_MAP ? ib_map_get(err, "message") : NULL;
		FUZZ_CHECK(msg && msg->type == IB_V_STR, "%s: error %d without a message", path,
		           ex.status);
	} else if (ex.sse) {
		static const char tail[] = "data: [DONE]\n\n";
		FUZZ_CHECK(ex.body.len >= sizeof tail - 1 &&
		               !memcmp(ex.body.data + ex.body.len - (sizeof tail - 1), tail,
		                       sizeof tail - 1),
		           "%s: a stream that does not end with [DONE]", path);
	} else {
		FUZZ_CHECK(!ib_json_parse(a, "answer", ex.body.data ? ex.body.data : "", ex.body.len,
		                          &v, &e) &&
		               v->type == IB_V_MAP,
		           "%s: a 200 that is not a JSON object", path);
	}
	ib_arena_free(a);
	return 0;
}
