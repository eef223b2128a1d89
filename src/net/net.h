/* net — an epoll event loop with timers, HTTP/1.1 framing (requests,
 * responses, chunked bodies), a small HTTP server and SSE writing. Written to
 * be shared by the simulator (server side) and the benchmark client.
 *
 * Threading: a loop and everything registered on it belong to one thread.
 * Allocation: the loop allocates when connections come and go, never per
 * streamed chunk: output goes into each connection's reusable buffer.
 */
#ifndef IB_NET_H
#define IB_NET_H

#include "base/base.h"

#include <stdint.h>
#include <sys/epoll.h>

typedef struct net_loop net_loop;

/* ---- watches: caller-owned registrations of file descriptors ---- */
typedef struct net_watch net_watch;
typedef void (*net_io_fn)(net_loop *l, net_watch *w, uint32_t events);
struct net_watch {
	int fd;
	net_io_fn fn;
	void *arg;
	uint32_t events;
};

/* ---- timers: caller-owned, no allocation ---- */
typedef struct net_timer net_timer;
typedef void (*net_timer_fn)(net_loop *l, net_timer *t);
struct net_timer {
	int64_t when; /* monotonic ns */
	net_timer_fn fn;
	void *arg;
	size_t heap_idx; /* 0 = not armed, else position + 1 */
};

/* Creates a loop. Returns 0 or IB_EIO / IB_ENOMEM with e filled. */
int net_loop_new(net_loop **out, ib_error *e);
/* Frees the loop; watches and timers must have been removed. */
void net_loop_free(net_loop *l);
/* Registers w (fd, fn, arg set by the caller) for `events` (EPOLLIN, EPOLLOUT,
 * ...). The watch must stay valid until net_del. */
int net_add(net_loop *l, net_watch *w, uint32_t events);
int net_mod(net_loop *l, net_watch *w, uint32_t events);
void net_del(net_loop *l, net_watch *w);
/* Arms t to fire at t->when (absolute, ns) — re-arming moves it. */
int net_timer_arm(net_loop *l, net_timer *t, int64_t when);
void net_timer_cancel(net_loop *l, net_timer *t);
/* Functions run once at the end of the current loop iteration, after all
 * events and timers (used to batch writes). At most one pending per hook. */
typedef struct net_defer net_defer;
struct net_defer {
	void (*fn)(net_loop *l, net_defer *d);
	void *arg;
	net_defer *prev, *next;
	bool queued;
};
void net_defer_queue(net_loop *l, net_defer *d);
/* Removes d from the queue if it is there (before freeing its owner). */
void net_defer_cancel(net_loop *l, net_defer *d);
/* Runs until net_stop is called (or nothing is registered). Returns 0, or
 * IB_EIO when epoll fails. */
int net_run(net_loop *l);
void net_stop(net_loop *l);
/* The monotonic time of the current iteration, in ns (cheap). */
int64_t net_now(net_loop *l);
/* Wall ns the loop has spent blocked in its waits for events or timers
 * since it was made (waits that return at once count too, briefly); the
 * rest of its running time it was busy: running callbacks, or runnable but
 * preempted. */
int64_t net_loop_idle_ns(const net_loop *l);
/* Raises RLIMIT_NOFILE to its hard limit; returns the new soft limit. */
long net_raise_fd_limit(void);

/* ---- HTTP/1.1 framing ---- */
typedef struct {
	const char *name, *value;
	size_t name_len, value_len;
} net_header;

enum { NET_MAX_HEADERS = 64 };

typedef struct {
	const char *method, *path; /* point into the caller's buffer */
	size_t method_len, path_len;
	int status; /* responses */
	const char *reason;
	size_t reason_len;
	int minor_version;
	net_header headers[NET_MAX_HEADERS];
	size_t nheaders;
	int64_t content_length; /* -1 when absent */
	bool chunked;           /* Transfer-Encoding: chunked */
	bool keep_alive;        /* HTTP/1.1 unless "Connection: close"; 1.0 only with keep-alive */
} net_http_msg;

/* Parses a request head (request line + headers + empty line) at buf[0..len).
 * Returns the head length (> 0), 0 when more bytes are needed, or a negative
 * value for a malformed head (-400: bad syntax, -431: too many/long headers,
 * -501: unsupported transfer coding). Pointers in m point into buf. */
int net_http_parse_request(const char *buf, size_t len, net_http_msg *m);
/* The same for a response head ("HTTP/1.1 200 OK"). */
int net_http_parse_response(const char *buf, size_t len, net_http_msg *m);
/* The value of header `name` (case-insensitive), or NULL. */
const net_header *net_http_header(const net_http_msg *m, const char *name);

/* Incremental decoder of a chunked body. */
typedef struct {
	int state;
	uint64_t left; /* bytes left in the current chunk */
	unsigned hex;  /* hex digits read of the current chunk size */
	bool done;
} net_chunked;
/* Consumes in[0..len): appends decoded data to out and returns the number of
 * bytes consumed (less than len only when the body ended), or -1 when the
 * framing is malformed. Sets c->done after the last chunk and its trailer.
 * Accepts exactly what picohttpparser's phr_decode_chunked (consume_trailer
 * set) accepts: a chunk size is 1 to 16 hex digits, followed by SP, HTAB,
 * ';' (an extension, skipped to the end of the line), CR or LF; a line ends
 * at LF (CRs before it are tolerated, so a bare LF ends a line too); chunk
 * data is followed by any number of CRs and one LF; a size line without a
 * digit (an empty line, a stray LF) is malformed, never the last chunk. */
long net_chunked_feed(net_chunked *c, const char *in, size_t len, ib_buf *out);

/* Appends one HTTP chunk holding data[0..len) to out. */
int net_chunk_append(ib_buf *out, const char *data, size_t len);
/* Appends one HTTP chunk holding one SSE event: "data: <payload>\n\n". */
int net_sse_append(ib_buf *out, const char *payload, size_t len);

/* ---- HTTP server ---- */
typedef struct net_server net_server;
typedef struct net_conn net_conn;

typedef struct {
	/* A complete request. The handler answers with net_conn_respond or
	 * streams (net_conn_stream_begin ... _end); until it has finished,
	 * later pipelined requests on the connection wait. req and body are
	 * valid only during the call. */
	void (*on_request)(net_conn *c, const net_http_msg *req, const char *body, size_t body_len,
	                   void *arg);
	/* The connection is closing (peer closed, error, abort): the handler
	 * must forget c. Called at most once, also for idle connections. */
	void (*on_close)(net_conn *c, void *arg);
	/* The connection's output buffer drained below the low-water mark while
	 * a stream is open (for producers that go as fast as the peer reads). */
	void (*on_drain)(net_conn *c, void *arg);
} net_server_cbs;

/* Listens on host:port (port 0: any free port) with a large backlog. */
int net_server_new(net_loop *l, const char *host, int port, const net_server_cbs *cbs, void *arg,
                   net_server **out, ib_error *e);
int net_server_port(const net_server *s);
/* Header lines (each ending in "\r\n") added to every response head, whole
 * or streamed; NULL: none. The caller owns lines and keeps them alive while
 * the server serves. */
void net_server_set_headers(net_server *s, const char *lines);
/* Closes the listener and every connection (on_close is called for each). */
void net_server_free(net_server *s);
/* A connection that has not sent a whole request within header_ms of
 * connecting or of its last response is closed (0: never; default 60 s).
 * Out of descriptors (EMFILE), the server closes the connection idle the
 * longest to accept a new one, or pauses accepting briefly when none is
 * idle: it never spins on the listener. */
void net_server_set_header_timeout(net_server *s, int64_t header_ms);
size_t net_server_nconns(const net_server *s);
/* Writes the output of the connections marked in an iteration (plain TCP;
 * TLS connections are written by the loop as before) with n threads beside
 * the loop's, each a slice of them, before their deferred work runs; the
 * loop waits for all the slices, so nothing else changes: the same bytes
 * leave in the same iteration, spread over cores (many streams each
 * getting a chunk per step spend their time in the kernel's send path).
 * A batch smaller than 16 connections per thread is written by the loop
 * alone. n <= 0, or a second call: nothing. Returns 0, IB_ENOMEM, or
 * IB_EIO when a thread cannot start (none is left running then). The
 * threads stop in net_server_free. */
int net_server_set_send_threads(net_server *s, int n, ib_error *e);

/* A whole response with Content-Length. extra_headers: NULL or lines ending
 * in "\r\n". */
void net_conn_respond(net_conn *c, int status, const char *content_type, const char *body,
                      size_t len, const char *extra_headers);
/* Starts a chunked response; the caller then appends framed chunks with
 * net_chunk_append / net_sse_append to net_conn_out(c) and calls
 * net_conn_mark (or uses net_conn_stream_chunk). */
void net_conn_stream_begin(net_conn *c, int status, const char *content_type);
ib_buf *net_conn_out(net_conn *c);
/* Schedules the output buffer for writing at the end of this iteration. */
void net_conn_mark(net_conn *c);
/* Writes the output buffer now, as far as the socket takes it; true when
 * all of it went (for producers that stamp the moment a chunk left). Never
 * closes c: a write error closes it at the end of the iteration. */
bool net_conn_flush(net_conn *c);
void net_conn_stream_end(net_conn *c);
/* Closes the connection now, without finishing the response. */
void net_conn_abort(net_conn *c);
size_t net_conn_pending(const net_conn *c); /* bytes not yet written */
void *net_conn_get_data(const net_conn *c);
void net_conn_set_data(net_conn *c, void *data);

/* ---- HTTP client: one connection, one request at a time ---- */
typedef struct net_client net_client;

typedef struct {
	/* The response head arrived. */
	void (*on_head)(net_client *c, const net_http_msg *resp, int64_t t_ns, void *arg);
	/* Body bytes (de-chunked), with the time they were read (monotonic ns,
	 * or the kernel's receive time with net_client_kernel_timestamps). */
	void (*on_data)(net_client *c, const char *data, size_t len, int64_t t_ns, void *arg);
	/* The response ended (err 0) or the request failed (err < 0, msg says
	 * why). After this the connection is idle (keep-alive) or closed. */
	void (*on_done)(net_client *c, int err, const char *msg, void *arg);
} net_client_cbs;

/* Creates an idle client for 127.0.0.1-style IPv4 address:port. */
int net_client_new(net_loop *l, const char *host, int port, const net_client_cbs *cbs, void *arg,
                   net_client **out, ib_error *e);
/* Sends req[0..len) (a whole request: head and body), connecting first when
 * the connection is closed. Returns 0, or IB_EIO when the socket cannot be
 * created (on_done then reports failures that happen later). */
int net_client_send(net_client *c, const char *req, size_t len);
/* Asks for SO_TIMESTAMPNS: on_data then gets the kernel's receive time. */
void net_client_kernel_timestamps(net_client *c, bool on);
bool net_client_is_open(const net_client *c);
/* Closes the connection now (no on_done); the client can send again. */
void net_client_close(net_client *c);
void net_client_set_arg(net_client *c, void *arg);
/* Closes the connection (no on_done) and frees the client. */
void net_client_free(net_client *c);
/* The most bytes one response may take (head, framing and body, as read):
 * beyond it the request fails with IB_ERANGE ("response larger than N
 * bytes") and the connection is closed. Default NET_CLIENT_MAX_RESPONSE;
 * 0 means no bound. A response head alone may take at most
 * NET_CLIENT_MAX_HEAD bytes. The client also yields to the loop after
 * NET_CLIENT_READ_BURST bytes read in one wake-up, so timers (request
 * deadlines) fire while a server keeps sending. */
enum { NET_CLIENT_MAX_HEAD = 64 * 1024, NET_CLIENT_READ_BURST = 1024 * 1024 };
#define NET_CLIENT_MAX_RESPONSE ((size_t)256 * 1024 * 1024)
void net_client_set_max_response(net_client *c, size_t bytes);

/* ---- TLS (OpenSSL) ---- */
typedef struct net_tls net_tls;

/* A client context: TLS 1.2+, the peer's certificate verified against the
 * system CA store (OpenSSL's default paths, SSL_CERT_FILE / SSL_CERT_DIR),
 * or against ca_file (PEM) when non-NULL, unless insecure. Errors: IB_EIO
 * (the CA file cannot be read), IB_ENOMEM. Free with net_tls_free after
 * every client that uses it. */
int net_tls_client_new(const char *ca_file, bool insecure, net_tls **out, ib_error *e);
/* A server context from a PEM certificate (chain) and its private key.
 * Errors: IB_EIO naming the file that cannot be read or does not match. */
int net_tls_server_new(const char *cert_file, const char *key_file, net_tls **out, ib_error *e);
void net_tls_free(net_tls *t);

/* Every later connection of c speaks TLS with ctx: SNI with server_name (a
 * host name; none for an IP literal) and, unless the context is insecure,
 * the certificate checked against server_name. Kernel receive timestamps
 * do not apply to TLS (chunk times are taken when a record is decrypted).
 * server_name is copied. Returns 0 or IB_ENOMEM. */
int net_client_use_tls(net_client *c, net_tls *ctx, const char *server_name);
/* Every later connection accepted by s speaks TLS with ctx. */
void net_server_use_tls(net_server *s, net_tls *ctx);

/* ---- the one blocking HTTP call ---- */
typedef struct {
	const char *host; /* IPv4 address */
	int port;
	net_tls *tls;            /* NULL: http; else https with this client context */
	const char *server_name; /* https: SNI and the certificate's name */
} net_target;
/* Sends `method path` (with body[0..body_len) as JSON when body is
 * non-NULL; Connection: close) to t on a connection and loop of its own and
 * waits for the whole answer: 0 with its status in *status and the body,
 * de-chunked, appended to resp (NULL: discarded), whatever the status. Fails
 * (IB_EIO, "METHOD PATH: why") when the connection fails or the exchange,
 * connect included, takes over timeout_ms; IB_ENOMEM. */
int net_http_call(const net_target *t, const char *method, const char *path, const char *body,
                  size_t body_len, int timeout_ms, int *status, ib_buf *resp, ib_error *e);

/* The IPv4 address of host (a literal, "localhost", or a name through the
 * resolver; blocking), as text in ip. Errors: IB_ENOENT naming the host. */
int net_resolve(const char *host, char ip[64], ib_error *e);

#endif
