/* The checks shared by the HTTP head parser targets: a head parser must
 * give the same answer however much of the input has arrived. For the whole
 * input and two fuzzer-chosen prefixes of it:
 *  - a complete head (length h > 0) of the whole input: every prefix shorter
 *    than h is "need more" (0), every longer one gives h and the same fields;
 *  - a prefix that is malformed (< 0) stays malformed with more bytes;
 *  - the fields point inside the buffer. */
#include "fuzz.h"

#include "net/net.h"

typedef int (*http_parse_fn)(const char *buf, size_t len, net_http_msg *m);

static void http_check_fields(const char *buf, size_t len, const net_http_msg *m, int h)
{
	const char *end = buf + h;
	FUZZ_CHECK((size_t)h <= len, "head %d beyond %zu", h, len);
	FUZZ_CHECK(m->nheaders <= NET_MAX_HEADERS, "%zu headers", m->nheaders);
	for (size_t i = 0; i < m->nheaders; i++) {
		const net_header *x = &m->headers[i];
		FUZZ_CHECK(x->name >= buf && x->name + x->name_len <= end, "header name outside");
		FUZZ_CHECK(x->value >= buf && x->value + x->value_len <= end,
		           "header value outside");
		FUZZ_CHECK(x->name_len > 0, "empty header name");
	}
	if (m->method)
		FUZZ_CHECK(m->method >= buf && m->method + m->method_len <= end, "method outside");
	if (m->path)
		FUZZ_CHECK(m->path >= buf && m->path + m->path_len <= end, "path outside");
	FUZZ_CHECK(m->content_length >= -1, "content-length %lld", (long long)m->content_length);
}

static void http_same(const net_http_msg *a, const net_http_msg *b)
{
	FUZZ_CHECK(a->nheaders == b->nheaders, "%zu vs %zu headers", a->nheaders, b->nheaders);
	FUZZ_CHECK(a->status == b->status && a->minor_version == b->minor_version, "start line");
	FUZZ_CHECK(a->method_len == b->method_len && a->path_len == b->path_len, "start line");
	FUZZ_CHECK(a->content_length == b->content_length && a->chunked == b->chunked &&
	               a->keep_alive == b->keep_alive,
	           "framing differs");
}

static int http_fuzz(http_parse_fn parse, const uint8_t *data, size_t size)
{
	size_t cut[2];
	fuzz_split(&data, &size, cut);
	/* a private copy, so ASan sees any read past the end */
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	net_http_msg full, part;
	int h = parse(buf, size, &full);
	if (h > 0)
		http_check_fields(buf, size, &full, h);
	for (int k = 0; k < 2; k++) {
		size_t n = cut[k];
		int r = parse(buf, n, &part);
		if (h > 0) {
			if (n < (size_t)h) {
				FUZZ_CHECK(r == 0, "prefix %zu of a %d-byte head gave %d", n, h, r);
			} else {
				FUZZ_CHECK(r == h, "prefix %zu gave %d, the whole %d", n, r, h);
				http_same(&full, &part);
			}
		} else if (r < 0) {
			FUZZ_CHECK(h < 0, "prefix %zu malformed (%d) but the whole gives %d", n, r,
			           h);
		}
	}
	free(buf);
	return 0;
}
