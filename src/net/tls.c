/* TLS through OpenSSL on the event loop's non-blocking sockets: contexts for
 * the client (system CA store or a given file, verification on unless
 * insecure) and the server (certificate and key files), and record I/O that
 * reports WANT_READ / WANT_WRITE as the epoll events to wait for. */
#include "net/private.h"

#include <arpa/inet.h>
#include <errno.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OpenSSL is loaded (dlopen) when the first TLS context is made, not at
 * start: linked, libssl and libcrypto cost every command, `infbench --help`
 * and `process` of one row included, about 6 ms of CPU in relocations.
 * Every OpenSSL function this file calls is listed here; the #defines below
 * send each call (and the header's macros over SSL_ctrl / SSL_CTX_ctrl)
 * through the pointer resolved from the loaded library. */
#define TLS_FUNCS(X)                                                                               \
	X(SSL_CTX_new)                                                                             \
	X(SSL_CTX_free)                                                                            \
	X(SSL_CTX_ctrl)                                                                            \
	X(SSL_CTX_set_options)                                                                     \
	X(SSL_CTX_set_verify)                                                                      \
	X(SSL_CTX_load_verify_locations)                                                           \
	X(SSL_CTX_set_default_verify_paths)                                                        \
	X(SSL_CTX_use_certificate_chain_file)                                                      \
	X(SSL_CTX_use_PrivateKey_file)                                                             \
	X(SSL_CTX_check_private_key)                                                               \
	X(TLS_client_method)                                                                       \
	X(TLS_server_method)                                                                       \
	X(SSL_new)                                                                                 \
	X(SSL_free)                                                                                \
	X(SSL_set_fd)                                                                              \
	X(SSL_set_accept_state)                                                                    \
	X(SSL_set_connect_state)                                                                   \
	X(SSL_ctrl)                                                                                \
	X(SSL_get0_param)                                                                          \
	X(SSL_set1_host)                                                                           \
	X(SSL_get_error)                                                                           \
	X(SSL_get_verify_result)                                                                   \
	X(SSL_read)                                                                                \
	X(SSL_write)                                                                               \
	X(SSL_is_init_finished)                                                                    \
	X(SSL_shutdown)                                                                            \
	X(ERR_get_error)                                                                           \
	X(ERR_error_string_n)                                                                      \
	X(ERR_clear_error)                                                                         \
	X(X509_VERIFY_PARAM_set1_ip_asc)                                                           \
	X(X509_verify_cert_error_string)

IB_DL_TABLE(TLS_FUNCS, "libssl.so.3")

/* a macro's own name is not expanded again inside it: __typeof__(f) is the
 * header's declaration */
#define TLS_FN(f)                          IB_DL_FN(f)
#define SSL_CTX_new                        TLS_FN(SSL_CTX_new)
#define SSL_CTX_free                       TLS_FN(SSL_CTX_free)
#define SSL_CTX_ctrl                       TLS_FN(SSL_CTX_ctrl)
#define SSL_CTX_set_options                TLS_FN(SSL_CTX_set_options)
#define SSL_CTX_set_verify                 TLS_FN(SSL_CTX_set_verify)
#define SSL_CTX_load_verify_locations      TLS_FN(SSL_CTX_load_verify_locations)
#define SSL_CTX_set_default_verify_paths   TLS_FN(SSL_CTX_set_default_verify_paths)
#define SSL_CTX_use_certificate_chain_file TLS_FN(SSL_CTX_use_certificate_chain_file)
#define SSL_CTX_use_PrivateKey_file        TLS_FN(SSL_CTX_use_PrivateKey_file)
#define SSL_CTX_check_private_key          TLS_FN(SSL_CTX_check_private_key)
#define TLS_client_method                  TLS_FN(TLS_client_method)
#define TLS_server_method                  TLS_FN(TLS_server_method)
#define SSL_new                            TLS_FN(SSL_new)
#define SSL_free                           TLS_FN(SSL_free)
#define SSL_set_fd                         TLS_FN(SSL_set_fd)
#define SSL_set_accept_state               TLS_FN(SSL_set_accept_state)
#define SSL_set_connect_state              TLS_FN(SSL_set_connect_state)
#define SSL_ctrl                           TLS_FN(SSL_ctrl)
#define SSL_get0_param                     TLS_FN(SSL_get0_param)
#define SSL_set1_host                      TLS_FN(SSL_set1_host)
#define SSL_get_error                      TLS_FN(SSL_get_error)
#define SSL_get_verify_result              TLS_FN(SSL_get_verify_result)
#define SSL_read                           TLS_FN(SSL_read)
#define SSL_write                          TLS_FN(SSL_write)
#define SSL_is_init_finished               TLS_FN(SSL_is_init_finished)
#define SSL_shutdown                       TLS_FN(SSL_shutdown)
#define ERR_get_error                      TLS_FN(ERR_get_error)
#define ERR_error_string_n                 TLS_FN(ERR_error_string_n)
#define ERR_clear_error                    TLS_FN(ERR_clear_error)
#define X509_VERIFY_PARAM_set1_ip_asc      TLS_FN(X509_VERIFY_PARAM_set1_ip_asc)
#define X509_verify_cert_error_string      TLS_FN(X509_verify_cert_error_string)

struct net_tls {
	SSL_CTX *ctx;
	bool server, insecure;
};

static int ssl_fail(ib_error *e, const char *what, const char *file)
{
	char buf[256] = "";
	unsigned long err = ERR_get_error();
	if (err)
		ERR_error_string_n(err, buf, sizeof buf);
	ERR_clear_error();
	return ib_fail(e, IB_EIO, NULL, 0, 0, "%s%s%s: %s", what, file ? " " : "", file ? file : "",
	               buf[0] ? buf : "TLS setup failed");
}

static net_tls *tls_new(bool server, ib_error *e)
{
	pthread_once(&ib_dl_once, ib_dl_init);
	if (ib_dl_why[0]) {
		ib_fail(e, IB_EIO, NULL, 0, 0, "cannot load OpenSSL (Debian package libssl3): %s",
		        ib_dl_why);
		return NULL;
	}
	net_tls *t = calloc(1, sizeof *t);
	if (!t) {
		ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		return NULL;
	}
	t->server = server;
	t->ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
	if (!t->ctx) {
		ssl_fail(e, "cannot create a TLS context", NULL);
		free(t);
		return NULL;
	}
	SSL_CTX_set_min_proto_version(t->ctx, TLS1_2_VERSION);
	/* the output buffer may move between a short write and its retry */
	SSL_CTX_set_mode(t->ctx,
	                 SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	/* HTTP frames its own bodies (Content-Length, chunked): a peer that
	 * closes without close_notify is a plain close, as in aiohttp */
	SSL_CTX_set_options(t->ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
	return t;
}

int net_tls_client_new(const char *ca_file, bool insecure, net_tls **out, ib_error *e)
{
	*out = NULL;
	net_tls *t = tls_new(false, e);
	if (!t)
		return e && e->code ? e->code : IB_ENOMEM;
	t->insecure = insecure;
	if (insecure) {
		SSL_CTX_set_verify(t->ctx, SSL_VERIFY_NONE, NULL);
	} else {
		SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
		if (ca_file ? SSL_CTX_load_verify_locations(t->ctx, ca_file, NULL) != 1
		            : SSL_CTX_set_default_verify_paths(t->ctx) != 1) {
			int rc = ssl_fail(e,
			                  ca_file ? "cannot read the CA certificates in"
			                          : "cannot load the system CA store",
			                  ca_file);
			net_tls_free(t);
			return rc;
		}
	}
	*out = t;
	return 0;
}

int net_tls_server_new(const char *cert_file, const char *key_file, net_tls **out, ib_error *e)
{
	*out = NULL;
	net_tls *t = tls_new(true, e);
	if (!t)
		return e && e->code ? e->code : IB_ENOMEM;
	int rc = 0;
	if (SSL_CTX_use_certificate_chain_file(t->ctx, cert_file) != 1)
		rc = ssl_fail(e, "cannot read the certificate", cert_file);
	else if (SSL_CTX_use_PrivateKey_file(t->ctx, key_file, SSL_FILETYPE_PEM) != 1)
		rc = ssl_fail(e, "cannot read the private key", key_file);
	else if (SSL_CTX_check_private_key(t->ctx) != 1)
		rc = ssl_fail(e, "the private key does not match the certificate", key_file);
	if (rc) {
		net_tls_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void net_tls_free(net_tls *t)
{
	if (!t)
		return;
	SSL_CTX_free(t->ctx);
	free(t);
}

SSL *net_tls_conn(net_tls *t, int fd, const char *server_name, bool server)
{
	SSL *s = SSL_new(t->ctx);
	if (!s)
		return NULL;
	if (SSL_set_fd(s, fd) != 1) {
		SSL_free(s);
		return NULL;
	}
	if (server) {
		SSL_set_accept_state(s);
		return s;
	}
	SSL_set_connect_state(s);
	if (server_name && *server_name) {
		unsigned char ip[16];
		bool literal = inet_pton(AF_INET, server_name, ip) == 1 ||
		               inet_pton(AF_INET6, server_name, ip) == 1;
		if (!literal) /* SNI carries host names only (RFC 6066) */
			SSL_set_tlsext_host_name(s, server_name);
		if (!t->insecure) {
			int ok = literal
			             ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(s), server_name)
			             : SSL_set1_host(s, server_name);
			if (ok != 1) {
				SSL_free(s);
				return NULL;
			}
		}
	}
	return s;
}

/* What an SSL_read / SSL_write result r means. */
static ssize_t outcome(SSL *s, int r, uint32_t *want, char *msg, size_t cap)
{
	int err = SSL_get_error(s, r);
	switch (err) {
	case SSL_ERROR_WANT_READ:
		*want = EPOLLIN;
		ERR_clear_error();
		return NET_IO_AGAIN;
	case SSL_ERROR_WANT_WRITE:
		*want = EPOLLOUT;
		ERR_clear_error();
		return NET_IO_AGAIN;
	case SSL_ERROR_ZERO_RETURN:
		ERR_clear_error();
		return 0;
	case SSL_ERROR_SYSCALL:
		if (errno == EINTR || errno == EAGAIN) {
			*want = EPOLLIN;
			return NET_IO_AGAIN;
		}
		snprintf(msg, cap, "TLS: %s",
		         errno ? strerror(errno) : "connection closed during the handshake");
		ERR_clear_error();
		return -1;
	default: {
		long v = SSL_get_verify_result(s);
		unsigned long e = ERR_get_error();
		char buf[200] = "";
		if (e)
			ERR_error_string_n(e, buf, sizeof buf);
		ERR_clear_error();
		if (v != X509_V_OK)
			snprintf(msg, cap,
			         "TLS: certificate verify failed: %s (pass --ca-cert FILE, or "
			         "--insecure)",
			         X509_verify_cert_error_string(v));
		else
			snprintf(msg, cap, "TLS: %s", buf[0] ? buf : "protocol error");
		return -1;
	}
	}
}

ssize_t net_tls_read(SSL *s, void *buf, size_t n, uint32_t *want, char *msg, size_t cap)
{
	errno = 0;
	int r = SSL_read(s, buf, n > INT32_MAX ? INT32_MAX : (int)n);
	return r > 0 ? r : outcome(s, r, want, msg, cap);
}

ssize_t net_tls_write(SSL *s, const void *buf, size_t n, uint32_t *want, char *msg, size_t cap)
{
	errno = 0;
	int r = SSL_write(s, buf, n > INT32_MAX ? INT32_MAX : (int)n);
	return r > 0 ? r : outcome(s, r, want, msg, cap);
}

void net_tls_close(SSL *s)
{
	if (!s)
		return;
	if (SSL_is_init_finished(s))
		SSL_shutdown(s); /* one non-blocking try at close_notify */
	ERR_clear_error();
	SSL_free(s);
}
