#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "bench/bench.h"

static bool scan(const char *s, bool chat, bench_chunk *c, ib_buf *text)
{
	return bench_scan_chunk(s, strlen(s), chat, c, text);
}

Test(bench, scan_completion_chunks)
{
	bench_chunk c;
	ib_buf t = {0};
	cr_assert(scan(
	    "{\"id\":\"x\",\"choices\":[{\"index\":0,\"text\":\" caf\\u00e9 \\ud83d\\ude00\\n\","
	    "\"logprobs\":null}],\"usage\":null}",
	    false, &c, &t));
	cr_assert(c.has_choices);
	cr_assert_not(c.has_usage);
	cr_assert_str_eq(t.data, " caf\xc3\xa9 \xf0\x9f\x98\x80\n");
	cr_assert(
	    scan("{\"choices\": [], \"usage\": {\"prompt_tokens\": 5, \"completion_tokens\": 37}}",
	         false, &c, NULL));
	cr_assert_not(c.has_choices);
	cr_assert(c.has_usage);
	cr_assert_eq(c.completion_tokens, 37);
	cr_assert(scan("{\"usage\": {\"completion_tokens\": null}}", false, &c, NULL));
	cr_assert(c.has_usage);
	cr_assert_eq(c.completion_tokens, -1);
	cr_assert(scan("{\"usage\": {}}", false, &c, NULL));
	cr_assert_not(c.has_usage); /* an empty dict is falsy */
	cr_assert(scan("[1, 2]", false, &c, NULL));
	cr_assert_not(c.has_choices);
	/* malformed JSON of every kind */
	const char *bad[] = {"{\"id\": \"cmpl-broken\", \"choices\": [{\"text\": ",
	                     "{",
	                     "{\"a\" 1}",
	                     "{\"a\": tru}",
	                     "{\"a\": 01}",
	                     "{\"a\": \"x}",
	                     "{} x",
	                     "{\"a\": [1,]}",
	                     ""};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		cr_assert_not(scan(bad[i], false, &c, NULL), "%s", bad[i]);
	ib_buf_free(&t);
}

Test(bench, scan_chat_chunks)
{
	bench_chunk c;
	ib_buf t = {0};
	cr_assert(scan(
	    "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}",
	    true, &c, &t));
	cr_assert(c.has_choices);
	cr_assert_eq(t.len, 0);
	cr_assert(scan("{\"choices\":[{\"delta\":{\"reasoning_content\":\"x\"}}]}", true, &c, &t));
	cr_assert(c.has_choices);
	cr_assert(scan("{\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}", true, &c, &t));
	cr_assert_str_eq(t.data, "hi");
	ib_buf_free(&t);
}

/* A completions stream like the simulator's, fed in pieces of every size. */
Test(bench, completion_stream_any_split)
{
	const char *body =
	    "data: {\"choices\":[{\"text\":\" a\"}]}\n\n"
	    "data: {\"choices\":[{\"text\":\" b\"}]}\r\n\r\n"
	    "data: {\"choices\":[{\"text\":\" c\",\"finish_reason\":\"length\"}]}\n\n"
	    "data: {\"choices\":[],\"usage\":{\"completion_tokens\":3}}\n\n"
	    "data: [DONE]\n\n";
	size_t len = strlen(body);
	for (size_t piece = 1; piece <= len; piece++) {
		bench_sse s = {0};
		bench_sse_reset(&s, false, true, 1000);
		int64_t t = 2000;
		for (size_t off = 0; off < len; off += piece, t += 1000) {
			size_t n = len - off < piece ? len - off : piece;
			cr_assert(bench_sse_feed(&s, body + off, n, t));
		}
		bench_sse_end(&s);
		cr_assert(s.success, "piece %zu: %s", piece, s.error);
		cr_assert_eq(s.token_chunks, 3);
		cr_assert_eq(s.itl.n, 2);
		cr_assert_eq(s.output_tokens, 3);
		cr_assert_str_eq(s.text.data, " a b c");
		cr_assert_gt(s.ttft, 0);
		bench_sse_free(&s);
	}
}

Test(bench, timing_rules)
{
	bench_sse s = {0};
	/* Completions: TTFT at the first token chunk, ITL between token chunks,
	 * E2EL ends at the last token chunk (not the usage chunk) */
	bench_sse_reset(&s, false, false, 0);
	bench_sse_feed(&s, "data: {\"choices\":[{\"text\":\"x\"}]}\n", 33, 100000000);
	bench_sse_feed(&s, "data: {\"choices\":[{\"text\":\"y\"}]}\n", 33, 130000000);
	bench_sse_feed(&s, "data: {\"usage\":{\"completion_tokens\":2}}\n", 40, 500000000);
	bench_sse_end(&s);
	cr_assert(s.success);
	cr_assert_float_eq(s.ttft, 0.1, 1e-12);
	cr_assert_float_eq(s.itl.v[0], 0.03, 1e-12);
	cr_assert_eq(s.last_ns, 130000000);
	/* Chat: the usage line moves the end */
	bench_sse_reset(&s, true, false, 0);
	bench_sse_feed(&s, "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n", 46,
	               100000000);
	bench_sse_feed(&s, "data: {\"usage\":{\"completion_tokens\":1}}\n", 40, 500000000);
	bench_sse_end(&s);
	cr_assert(s.success);
	cr_assert_eq(s.last_ns, 500000000);
	bench_sse_free(&s);
}

/* The server's model clock (X-Infbench-Model-Time): the same rules on the
 * chunks' "infbench_t", from "infbench_t0"; a line without it, or a stream
 * without t0, leaves the request on the wall clock. */
static void feed(bench_sse *s, const char *line, int64_t t)
{
	bench_sse_feed(s, line, strlen(line), t);
}

Test(bench, model_clock_from_chunks)
{
	bench_chunk c;
	cr_assert(
	    scan("{\"choices\":[],\"infbench_t0\":1.5,\"infbench_t\":2.25e0}", false, &c, NULL));
	cr_assert(c.has_t && c.has_t0);
	cr_assert_float_eq(c.t, 2.25, 1e-12);
	cr_assert_float_eq(c.t0, 1.5, 1e-12);
	cr_assert(scan("{\"choices\":[],\"infbench_t\":\"x\"}", false, &c, NULL));
	cr_assert_not(c.has_t);                                      /* not a number: ignored */
	cr_assert_not(scan("{\"infbench_t\":1.}", false, &c, NULL)); /* still validated */
	cr_assert(scan("{\"choices\":[{\"text\":\"x\"}]}", false, &c, NULL));
	cr_assert_not(c.has_t || c.has_t0);

	bench_sse s = {0};
	bench_sse_reset(&s, false, false, 0);
	/* wall times far from the model ones: the model figures ignore them */
	feed(&s,
	     "data: {\"choices\":[{\"text\":\"x\"}],\"infbench_t0\":10.0,\"infbench_t\":10.25}\n",
	     900000000);
	feed(&s, "data: {\"choices\":[{\"text\":\"y\"}],\"infbench_t\":10.375}\n", 901000000);
	feed(&s, "data: {\"choices\":[{\"text\":\"z\"}],\"infbench_t\":10.5}\n", 901000001);
	feed(&s, "data: {\"usage\":{\"completion_tokens\":3},\"infbench_t\":10.5}\n", 990000000);
	feed(&s, "data: [DONE]\n", 990000000);
	bench_sse_end(&s);
	cr_assert(s.success && s.m_ok && s.m_t0_seen);
	cr_assert_float_eq(s.m_ttft, 0.25, 1e-12);
	cr_assert_eq(s.m_itl.n, 2);
	cr_assert_float_eq(s.m_itl.v[0], 0.125, 1e-12);
	cr_assert_float_eq(s.m_itl.v[1], 0.125, 1e-12);
	cr_assert_float_eq(s.m_last, 10.5, 1e-12);
	cr_assert_float_eq(s.ttft, 0.9, 1e-12); /* the wall figures as before */
	/* one line without a stamp: the request is not on the model clock */
	bench_sse_reset(&s, true, false, 0);
	cr_assert_eq(s.m_itl.n, 0);
	feed(&s,
	     "data: "
	     "{\"choices\":[{\"delta\":{\"content\":\"x\"}}],\"infbench_t0\":1,\"infbench_t\":2}\n",
	     1);
	cr_assert(s.m_ok);
	feed(&s, "data: {\"choices\":[{\"delta\":{\"content\":\"y\"}}]}\n", 2);
	bench_sse_end(&s);
	cr_assert(s.success);
	cr_assert_not(s.m_ok);
	bench_sse_free(&s);
}

Test(bench, failures)
{
	bench_sse s = {0};
	bench_sse_reset(&s, false, false, 0);
	cr_assert_not(bench_sse_feed(&s, "event: ping\n", 12, 1));
	cr_assert(s.failed);
	bench_sse_reset(&s, false, false, 0);
	cr_assert_not(
	    bench_sse_feed(&s, "data: {\"id\": \"x\", \"choices\": [{\"text\": \n", 42, 1));
	bench_sse_reset(&s, false, false, 0);
	bench_sse_feed(&s, "data: [DONE]\n", 13, 1);
	bench_sse_end(&s);
	cr_assert_not(s.success);
	cr_assert(strstr(s.error, "Never received a valid chunk"));
	bench_sse_reset(&s, true, false, 0); /* chat succeeds without chunks */
	bench_sse_end(&s);
	cr_assert(s.success);
	/* a line over 128 KiB */
	bench_sse_reset(&s, false, false, 0);
	static char big[140 * 1024];
	memset(big, 'x', sizeof big);
	cr_assert_not(bench_sse_feed(&s, big, sizeof big, 1));
	cr_assert(strstr(s.error, "too long"));
	bench_sse_free(&s);
}

Test(bench, numpy_statistics)
{
	double a[] = {4, 1, 3, 2};
	cr_assert_float_eq(bench_percentile(a, 4, 50), 2.5, 1e-12);
	cr_assert_float_eq(bench_percentile(a, 4, 90), 3.7, 1e-12);
	cr_assert_float_eq(bench_percentile(a, 4, 99), 3.97, 1e-12);
	cr_assert_float_eq(bench_percentile(a, 4, 0), 1, 1e-12);
	cr_assert_float_eq(bench_percentile(a, 4, 100), 4, 1e-12);
	double b[] = {15, 20, 35, 40, 50};
	cr_assert_float_eq(bench_percentile(b, 5, 40), 29.0, 1e-12);
	cr_assert_float_eq(bench_percentile(b, 5, 99.9), 49.96, 1e-9);
	double c[] = {2, 4, 4, 4, 5, 5, 7, 9};
	cr_assert_float_eq(bench_mean(c, 8), 5, 1e-12);
	cr_assert_float_eq(bench_std(c, 8), 2, 1e-12);
	cr_assert_eq(bench_percentile(NULL, 0, 99), 0);
	cr_assert_eq(bench_mean(NULL, 0), 0);
}

#include <jansson.h>

/* The scanner accepts exactly what a JSON parser accepts, on random
 * mutations of a real chunk (Jansson as the referee). */
Test(bench, scanner_agrees_with_a_json_parser)
{
	const char *base =
	    "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,"
	    "\"text\":\" a\\\"b\\n\",\"logprobs\":null,\"finish_reason\":null}],"
	    "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":-1.5e3}}";
	static const char alphabet[] = "{}[]\",:0123456789-+.eEtrufalsn x\\";
	char buf[512];
	unsigned seed = 12345;
	int checked = 0;
	for (int iter = 0; iter < 20000; iter++) {
		size_t n = strlen(base);
		memcpy(buf, base, n + 1);
		int edits = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 3;
		for (int k = 0; k < edits; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t pos = (seed >> 16) % n;
			seed = seed * 1103515245u + 12345u;
			char c = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
			seed = seed * 1103515245u + 12345u;
			int op = (int)((seed >> 16) % 3);
			if (op == 0) {
				buf[pos] = c;
			} else if (op == 1 && n < sizeof buf - 2) {
				memmove(buf + pos + 1, buf + pos, n - pos + 1);
				buf[pos] = c;
				n++;
			} else if (n > 1) {
				memmove(buf + pos, buf + pos + 1, n - pos);
				n--;
			}
		}
		if (strstr(buf, "\\u"))
			continue; /* escapes of lone surrogates: Python accepts, Jansson not */
		json_error_t je;
		json_t *j = json_loadb(buf, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
		bench_chunk c;
		bool ours = bench_scan_chunk(buf, n, false, &c, NULL);
		cr_assert_eq(ours, j != NULL, "disagree on: %s", buf);
		json_decref(j);
		checked++;
	}
	cr_assert_gt(checked, 10000);
}

/* ---- hardening: the gate, usage ranges, bounded streams, summaries ---- */

Test(bench, failure_gate_is_integer)
{
	cr_assert_not(bench_failure_gate(19, 20)); /* exactly 5.0 %: not more */
	cr_assert(bench_failure_gate(18, 20));
	cr_assert_not(bench_failure_gate(950, 1000));
	cr_assert(bench_failure_gate(949, 1000));
	cr_assert_not(bench_failure_gate(20, 21)); /* 4.8 % */
	cr_assert(bench_failure_gate(19, 21));
	cr_assert_not(bench_failure_gate(0, 0));
	cr_assert(bench_failure_gate(0, 1));
	cr_assert_not(bench_failure_gate(SIZE_MAX - SIZE_MAX / 20, SIZE_MAX)); /* no overflow */
}

Test(bench, usage_counts_out_of_range_fail_the_request)
{
	bench_chunk c;
	cr_assert(
	    scan("{\"choices\": [], \"usage\": {\"completion_tokens\": 99999999999999999999}}",
	         false, &c, NULL));
	cr_assert_eq(c.completion_tokens, -2);
	cr_assert(
	    scan("{\"choices\": [], \"usage\": {\"completion_tokens\": -5}}", false, &c, NULL));
	cr_assert_eq(c.completion_tokens, -2);
	cr_assert(scan("{\"choices\": [], \"usage\": {\"completion_tokens\": 2147483647}}", false,
	               &c, NULL));
	cr_assert_eq(c.completion_tokens, 2147483647);
	bench_sse s = {0};
	bench_sse_reset(&s, false, false, 0);
	const char *body =
	    "data: {\"choices\":[{\"text\":\"a\"}]}\n\n"
	    "data: {\"choices\":[],\"usage\":{\"completion_tokens\":9223372036854775808}}\n\n";
	cr_assert_not(bench_sse_feed(&s, body, strlen(body), 10));
	cr_assert(s.failed);
	cr_assert(strstr(s.error, "out of range"), "%s", s.error);
	bench_sse_free(&s);
}

Test(bench, endless_stream_is_bounded)
{
	bench_sse s = {0};
	bench_sse_reset(&s, false, false, 0);
	s.max_events = 100;
	s.max_tokens = 4;
	const char *ev = "data: {\"choices\":[{\"text\":\"a\"}]}\n\n";
	size_t i = 0;
	while (bench_sse_feed(&s, ev, strlen(ev), (int64_t)i) && i < 1000000)
		i++;
	cr_assert_eq(i, 100); /* the 101st event fails it; the arrays stop growing */
	cr_assert(s.failed);
	cr_assert(strstr(s.error, "more than 100 events"), "%s", s.error);
	cr_assert_leq(s.itl.n, 100);
	bench_sse_free(&s);
}

Test(bench, error_summary_and_result_name)
{
	bench_result r[6] = {0};
	r[0].success = true;
	snprintf(r[1].error, sizeof r[1].error, "Not Found");
	snprintf(r[1].detail, sizeof r[1].detail, "HTTP 404 Not Found: model x does not exist");
	r[2] = r[1];
	snprintf(r[3].error, sizeof r[3].error, "Connection refused");
	snprintf(r[4].error, sizeof r[4].error, "a");
	snprintf(r[5].error, sizeof r[5].error, "b");
	ib_buf b = {0};
	cr_assert_eq(bench_error_summary(r, 6, 3, &b), 0);
	cr_assert(strstr(b.data, "Errors of the 5 failed requests (first 3 distinct reasons):"),
	          "%s", b.data);
	cr_assert(strstr(b.data, "     2  HTTP 404 Not Found: model x does not exist\n"), "%s",
	          b.data);
	cr_assert(strstr(b.data, "     1  Connection refused\n"), "%s", b.data);
	cr_assert(strstr(b.data, "     1  (other reasons)\n"), "%s",
	          b.data); /* "b" beyond the first 3 */
	ib_buf_free(&b);
	cr_assert_eq(bench_error_summary(r, 1, 3, &b), 0);
	cr_assert_eq(b.len, 0);
	cr_assert_eq(
	    bench_result_name("vllm", "inf", 4, "amd/MiniMax-M3-MXFP4", "20260101-000000", &b), 0);
	cr_assert_str_eq(b.data, "vllm-infqps-concurrency4-MiniMax-M3-MXFP4-20260101-000000.json");
	ib_buf_free(&b);
}

Test(bench, options_checked)
{
	bench_options o;
	ib_error e = {0};
	bench_options_init(&o);
	o.model = "m";
	cr_assert_eq(bench_options_check(&o, &e), 0, "%s", e.msg);
	cr_assert_eq(o.request_timeout, 21600);
	o.backend = "tgi";
	cr_assert_eq(bench_options_check(&o, &e), IB_EINVAL);
	o.backend = "vllm";
	o.base_url = "ftp://x";
	cr_assert_eq(bench_options_check(&o, &e), IB_EINVAL);
	o.base_url = "http://x";
	o.insecure = true;
	cr_assert_eq(bench_options_check(&o, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "https"), "%s", e.msg);
	o.base_url = "https://x";
	cr_assert_eq(bench_options_check(&o, &e), 0);
	o.request_timeout = 0;
	cr_assert_eq(bench_options_check(&o, &e), IB_EINVAL);
}

/* ---- the engine: no socket, no answer ---- */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

static bench_prompt prompt1 = {.text = "hi", .len = 2, .prompt_len = 1, .output_len = 4};

/* a closed-loop client of model "m" on 127.0.0.1:port, conc in flight */
static bench_cfg closed_loop(int port, size_t conc, ib_mt *mt)
{
	ib_mt_seed(mt, 0);
	return (bench_cfg){.host = "127.0.0.1",
	                   .port = port,
	                   .endpoint = "/v1/completions",
	                   .model = "m",
	                   .api_key = "None",
	                   .best_of = 1,
	                   .max_concurrency = conc,
	                   .request_rate = INFINITY,
	                   .burstiness = 1,
	                   .rng = mt,
	                   .threads = 1};
}

static void run_n(size_t n, size_t conc, int port, double timeout, bench_result *res)
{
	bench_prompt ps[64];
	for (size_t i = 0; i < n; i++)
		ps[i] = prompt1;
	ib_mt mt;
	bench_cfg cfg = closed_loop(port, conc, &mt);
	cfg.request_timeout = timeout;
	bench_run_stats st;
	ib_error e = {0};
	cr_assert_eq(bench_run(&cfg, ps, n, res, &st, &e), 0, "%s", e.msg);
}

Test(bench, no_descriptors_fail_requests_and_the_run_ends, .timeout = 60)
{
	/* a port nobody listens on, and no descriptors left for sockets */
	int port;
	{
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a = {.sin_family = AF_INET,
		                        .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		bind(fd, (struct sockaddr *)&a, sizeof a);
		socklen_t len = sizeof a;
		getsockname(fd, (struct sockaddr *)&a, &len);
		port = ntohs(a.sin_port);
		close(fd);
	}
	struct rlimit rl = {.rlim_cur = 256, .rlim_max = 256};
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = 256;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	int hold[256], nh = 0;
	while (nh < 256 && (hold[nh] = dup(0)) >= 0)
		nh++;
	close(hold[--nh]); /* one for the event loop's epoll */
	bench_result res[20] = {0};
	run_n(20, 4, port, 0, res);
	size_t no_socket = 0;
	for (size_t i = 0; i < 20; i++) {
		cr_assert_not(res[i].success);
		no_socket += strstr(res[i].error, "cannot open a socket") != NULL;
		bench_result_free(&res[i]);
	}
	cr_assert_eq(no_socket, 20);
	while (nh)
		close(hold[--nh]);
}

Test(bench, request_timeout_bounds_a_silent_server, .timeout = 60)
{
	/* listens (the kernel completes the handshake) but never answers */
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	cr_assert_eq(listen(fd, 16), 0);
	socklen_t len = sizeof a;
	getsockname(fd, (struct sockaddr *)&a, &len);
	bench_result res[3] = {0};
	run_n(3, 3, ntohs(a.sin_port), 0.2, res);
	for (size_t i = 0; i < 3; i++) {
		cr_assert_not(res[i].success);
		cr_assert(strstr(res[i].error, "TimeoutError"), "%s", res[i].error);
		bench_result_free(&res[i]);
	}
	close(fd);
}

Test(bench, scrape_values_stay_on_their_line)
{
	bench_scrape s;
	/* a name without a value: the next line's number is not its value */
	bench_scrape_values("vllm:prefix_cache_hits_total \n7\n"
	                    "vllm:prefix_cache_queries_total{engine=\"0\"} 8 1700000000\n"
	                    "vllm:prefix_cache_queries_total{engine=\"1\"}\t2\n"
	                    "vllm:spec_decode_num_drafts_total{engine=\"0\"\n} 5\n"
	                    "vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"1\"} 4\n"
	                    "vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"10\"} 9",
	                    &s);
	cr_assert(s.ok);
	cr_assert(isnan(s.prefix_hits), "got %g", s.prefix_hits);
	cr_assert_eq(s.prefix_queries, 10);
	cr_assert(isnan(s.drafts), "an unclosed label set is no sample (got %g)", s.drafts);
	cr_assert_eq(s.per_pos[1], 4);
	cr_assert(isnan(s.per_pos[0]));
}

/* ---- the client_bound verdict against a simulator in a thread ----
 * Verdicts, not speeds: a client that burns CPU on every read against a
 * server that streams as fast as it reads is client-bound; a fast client
 * against a paced server (a step every 20 ms) is not, however busy the
 * machine. */

#include <pthread.h>
#include <stdatomic.h>

#include "sim/sim.h"

typedef struct {
	net_loop *loop;
	sim_server *srv;
	net_timer poll;
	atomic_bool quit;
	pthread_t tid;
} test_sim;

static void sim_poll(net_loop *l, net_timer *t)
{
	test_sim *s = t->arg;
	if (atomic_load(&s->quit))
		net_stop(l);
	else
		net_timer_arm(l, t, ib_now_ns() + 5 * 1000 * 1000);
}

static void *sim_thread(void *arg)
{
	test_sim *s = arg;
	net_run(s->loop);
	return NULL;
}

static int sim_start(test_sim *s, bool max_speed, double pace)
{
	sim_config c;
	sim_config_init(&c);
	c.host = "127.0.0.1";
	c.port = 0;
	c.served_model_name = "m";
	c.max_speed = max_speed;
	c.pace = pace;
	ib_error e = {0};
	memset(s, 0, sizeof *s);
	cr_assert_eq(net_loop_new(&s->loop, &e), 0, "%s", e.msg);
	cr_assert_eq(sim_server_new(s->loop, &c, &s->srv, &e), 0, "%s", e.msg);
	s->poll = (net_timer){.fn = sim_poll, .arg = s};
	net_timer_arm(s->loop, &s->poll, ib_now_ns());
	cr_assert_eq(pthread_create(&s->tid, NULL, sim_thread, s), 0);
	return sim_server_port(s->srv);
}

static void sim_stop(test_sim *s)
{
	atomic_store(&s->quit, true);
	pthread_join(s->tid, NULL);
	net_timer_cancel(s->loop, &s->poll);
	sim_server_free(s->srv);
	net_loop_free(s->loop);
}

/* n requests of out tokens each, all in flight (closed loop); the verdict
 * and its reason */
static bool verdict(int port, size_t n, int64_t out, int64_t burn_ns, char *why, size_t cap,
                    double *busy)
{
	bench_prompt ps[8];
	bench_result res[8] = {0};
	for (size_t i = 0; i < n; i++)
		ps[i] = (bench_prompt){.text = "hi", .len = 2, .prompt_len = 1, .output_len = out};
	ib_mt mt;
	bench_cfg cfg = closed_loop(port, n, &mt);
	cfg.ignore_eos = true;
	cfg.keep_alive = true;
	cfg.kernel_timestamps = true;
	cfg.request_timeout = 60; /* a stuck server fails, never hangs */
	cfg.test_burn_ns_per_read = burn_ns;
	bench_run_stats st;
	ib_error e = {0};
	cr_assert_eq(bench_run(&cfg, ps, n, res, &st, &e), 0, "%s", e.msg);
	double lag[8];
	for (size_t i = 0; i < n; i++) {
		cr_assert(res[i].success, "request %zu: %s", i, res[i].error);
		lag[i] = res[i].schedule_lag;
		bench_result_free(&res[i]);
	}
	bool bound = bench_client_bound(&st, bench_percentile(lag, n, 90) * 1000, cfg.request_rate,
	                                true, why, cap);
	cr_assert(st.loop_busy >= 0 && st.loop_busy <= 1, "busy %g", st.loop_busy);
	*busy = st.loop_busy;
	return bound;
}

Test(bench, client_bound_when_the_client_is_slow)
{
	test_sim s;
	int port = sim_start(&s, true, 0);
	char why[300] = "";
	/* 10 ms of CPU per read (16 KiB at most): the server, with the rest of
	 * the stream in the socket buffers, is far ahead of it */
	double busy;
	bool bound = verdict(port, 4, 1000, 10 * 1000 * 1000, why, sizeof why, &busy);
	sim_stop(&s);
	cr_assert(bound, "a client burning 10 ms per read was not found client-bound (busy %.3f)",
	          busy);
	cr_assert(strstr(why, "busy"), "%s", why);
}

Test(bench, not_client_bound_against_a_slow_server)
{
	test_sim s;
	int port = sim_start(&s, false, 50); /* a step every 20 ms */
	char why[300] = "";
	double busy;
	bool bound = verdict(port, 8, 15, 0, why, sizeof why, &busy);
	sim_stop(&s);
	cr_assert_not(bound, "a fast client against a paced server (busy %.3f): %s", busy, why);
}

Test(bench, client_bound_verdict_rules)
{
	bench_run_stats st = {.loop_busy = 0.95, .loop_cpu_share = 0.4};
	char why[300];
	/* busy, whatever the lag: preempted or saturated, it sets the pace */
	cr_assert(bench_client_bound(&st, 0, INFINITY, true, why, sizeof why));
	cr_assert(strstr(why, "busy 95%"), "%s", why);
	cr_assert(strstr(why, "waited for a CPU"), "%s", why); /* CPU 40 % of a busy 95 % */
	st.loop_cpu_share = 0.9;
	cr_assert(bench_client_bound(&st, 0, INFINITY, true, why, sizeof why));
	cr_assert_null(strstr(why, "waited for a CPU"), "%s", why);
	/* a late timer alone is no verdict (the issue: lag p99 4 ms at 30 % CPU) */
	st = (bench_run_stats){.loop_busy = 0.3, .loop_lag_p99 = 0.004, .loop_lag_max = 0.011};
	cr_assert_not(bench_client_bound(&st, 0, INFINITY, true, why, sizeof why));
	/* open loop: one request in ten late by over 1 ms */
	cr_assert(bench_client_bound(&st, 1.5, 200, true, why, sizeof why));
	cr_assert(strstr(why, "schedule lag p90 is 1.50 ms"), "%s", why);
	cr_assert_not(bench_client_bound(&st, 0.9, 200, true, why, sizeof why));
	/* closed loop: the schedule lag is not the client's */
	cr_assert_not(bench_client_bound(&st, 5, INFINITY, true, why, sizeof why));
}
