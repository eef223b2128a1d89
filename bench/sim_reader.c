/* A trivial streaming reader for bench/sim.sh: keeps N streaming completion
 * requests open against a server (new request on the same connection when
 * one ends), counts SSE events, and prints events/s over a window.
 * Usage: sim_reader PORT STREAMS SECONDS [MAX_TOKENS [PROMPT_TOKENS]]
 * PROMPT_TOKENS: a prompt of 4 x that many bytes (the simulator counts one
 * token per 4 bytes without a tokenizer; default a 1-byte prompt).
 * SIGTERM ends the window early (the line is still printed).
 * Output: one line "streams=N events=E seconds=S events_per_s=R errors=X". */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct {
	int fd;
	char tail[8]; /* the last bytes of the previous read, to find split markers */
	size_t tail_len;
} conn;

static char *req;
static int req_len;

static volatile sig_atomic_t stop;
static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int open_stream(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
		close(fd);
		return -1;
	}
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (write(fd, req, (size_t)req_len) != req_len) {
		close(fd);
		return -1;
	}
	return fd;
}

/* occurrences of pat in buf, including one split across the previous read */
static long count(conn *c, const char *buf, size_t n, const char *pat, size_t plen, int *done)
{
	char joined[16];
	long k = 0;
	size_t t = c->tail_len;
	memcpy(joined, c->tail, t);
	size_t extra = n < plen - 1 ? n : plen - 1;
	memcpy(joined + t, buf, extra);
	for (size_t i = 0; i + plen <= t + extra; i++)
		if (i < t && !memcmp(joined + i, pat, plen))
			k++;
	for (const char *p = buf; (p = memmem(p, (size_t)(buf + n - p), pat, plen)); p += plen)
		k++;
	if (memmem(buf, n, "[DONE]", 6))
		*done = 1;
	size_t keep = n < plen - 1 ? n : plen - 1;
	memcpy(c->tail, buf + n - keep, keep);
	c->tail_len = keep;
	return k;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr,
		        "usage: sim_reader PORT STREAMS SECONDS [MAX_TOKENS [PROMPT_TOKENS]]\n");
		return 2;
	}
	int port = atoi(argv[1]), n = atoi(argv[2]);
	double secs = atof(argv[3]);
	long max_tokens = argc > 4 ? atol(argv[4]) : 1000000;
	long prompt_tokens = argc > 5 ? atol(argv[5]) : 0;
	signal(SIGTERM, on_term);
	struct rlimit r;
	getrlimit(RLIMIT_NOFILE, &r);
	r.rlim_cur = r.rlim_max;
	setrlimit(RLIMIT_NOFILE, &r);
	size_t plen = prompt_tokens > 0 ? (size_t)prompt_tokens * 4 : 1;
	char *prompt = malloc(plen + 1);
	size_t cap = plen + 512;
	char *body = malloc(cap);
	req = malloc(cap + 256);
	if (!prompt || !body || !req)
		return 2;
	memset(prompt, 'x', plen);
	prompt[plen] = '\0';
	int bl = snprintf(body, cap,
	                  "{\"prompt\": \"%s\", \"max_tokens\": %ld, \"stream\": true, "
	                  "\"ignore_eos\": true}",
	                  prompt, max_tokens);
	req_len = snprintf(req, cap + 256,
	                   "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: "
	                   "application/json\r\nContent-Length: %d\r\n\r\n%s",
	                   bl, body);
	int ep = epoll_create1(0);
	conn *cs = calloc((size_t)n, sizeof *cs);
	long errors = 0;
	for (int i = 0; i < n; i++) {
		cs[i].fd = open_stream(port);
		if (cs[i].fd < 0) {
			errors++;
			continue;
		}
		struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &cs[i]};
		epoll_ctl(ep, EPOLL_CTL_ADD, cs[i].fd, &ev);
	}
	static char buf[1 << 18];
	struct epoll_event evs[512];
	double start = now_s(), warm = start + secs * 0.2, end = warm + secs;
	long events = 0;
	bool counting = false;
	while (!stop && now_s() < end) {
		int k = epoll_wait(ep, evs, 512, 100);
		double t = now_s();
		if (!counting && t >= warm) {
			counting = true;
			events = 0;
		}
		for (int i = 0; i < k; i++) {
			conn *c = evs[i].data.ptr;
			ssize_t m = read(c->fd, buf, sizeof buf);
			if (m <= 0) {
				errors++;
				epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
				close(c->fd);
				continue;
			}
			int done = 0;
			events += count(c, buf, (size_t)m, "data: ", 6, &done);
			if (done && write(c->fd, req, (size_t)req_len) != req_len)
				errors++;
		}
	}
	double dt = now_s() - warm;
	printf("streams=%d events=%ld seconds=%.2f events_per_s=%.0f errors=%ld\n", n, events, dt,
	       events / dt, errors);
	return 0;
}
