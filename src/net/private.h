/* net/ internals shared by the client and the server: TLS record I/O on a
 * non-blocking socket. */
#ifndef IB_NET_PRIVATE_H
#define IB_NET_PRIVATE_H

#include "net/net.h"

#include <openssl/ssl.h>
#include <sys/types.h>

enum { NET_IO_AGAIN = -2 };

/* A new SSL for fd (client side: SNI and verification against server_name,
 * which may be an IP literal or NULL; server side: accept state). NULL when
 * out of memory. */
SSL *net_tls_conn(net_tls *t, int fd, const char *server_name, bool server);
/* > 0: bytes; 0: the peer closed; NET_IO_AGAIN: try again when *want
 * (EPOLLIN or EPOLLOUT) is ready; -1: failed, msg (cap bytes) says why
 * (a certificate that does not verify names the reason). */
ssize_t net_tls_read(SSL *s, void *buf, size_t n, uint32_t *want, char *msg, size_t cap);
ssize_t net_tls_write(SSL *s, const void *buf, size_t n, uint32_t *want, char *msg, size_t cap);
/* Sends close_notify if it can without blocking, and frees s. */
void net_tls_close(SSL *s);

/* The loop's two scratch buffers, shared by its clients (one thread): rd
 * for a read that goes straight to a response body, body for de-chunked
 * bytes. Whatever a caller leaves in them is gone at the next read. */
void net_loop_scratch(net_loop *l, ib_buf **rd, ib_buf **body);

#endif
