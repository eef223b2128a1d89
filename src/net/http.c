/* HTTP/1.1 message heads, chunked bodies and SSE framing. */
#include "net/net.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

enum { MAX_HEAD = 64 * 1024 };

/* RFC 9110 token characters, as picohttpparser's table: no NUL, no
 * controls, no separators, ASCII only */
static bool tchar(unsigned char c)
{
	static const char extra[] = "!#$%&'*+-.^_`|~";
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c && memchr(extra, c, sizeof extra - 1));
}

/* field values and targets: visible ASCII, obs-text, SP and HTAB; never
 * NUL or another control character */
static bool clean(const char *p, const char *e, bool space_ok)
{
	for (; p < e; p++) {
		unsigned char c = (unsigned char)*p;
		if ((c < 0x20 && !(space_ok && c == '\t')) || c == 0x7f || (c == ' ' && !space_ok))
			return false;
	}
	return true;
}

/* Parses headers starting at p (after the start line) up to the empty line.
 * Returns the head length, 0 if incomplete, < 0 on error. */
static int parse_headers(const char *buf, size_t len, const char *p, net_http_msg *m)
{
	const char *end = buf + len;
	m->nheaders = 0;
	m->content_length = -1;
	m->chunked = false;
	bool conn_close = false, conn_keep = false;
	for (;;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			return len > MAX_HEAD ? -431 : 0;
		const char *line_end = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
		if (line_end == p) { /* empty line: end of head */
			size_t head = (size_t)(eol + 1 - buf);
			if (m->minor_version == 0)
				m->keep_alive = conn_keep;
			else
				m->keep_alive = !conn_close;
			return head > MAX_HEAD ? -431 : (int)head;
		}
		if (m->nheaders == NET_MAX_HEADERS)
			return -431;
		const char *colon = p;
		while (colon < line_end && tchar((unsigned char)*colon))
			colon++;
		if (colon == p || colon >= line_end || *colon != ':')
			return -400;
		const char *v = colon + 1;
		while (v < line_end && (*v == ' ' || *v == '\t'))
			v++;
		const char *ve = line_end;
		while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
			ve--;
		if (!clean(v, ve, true))
			return -400;
		net_header *h = &m->headers[m->nheaders++];
		h->name = p;
		h->name_len = (size_t)(colon - p);
		h->value = v;
		h->value_len = (size_t)(ve - v);
		if (h->name_len == 14 && !strncasecmp(p, "content-length", 14)) {
			int64_t n = 0;
			if (v == ve)
				return -400;
			for (const char *q = v; q < ve; q++) {
				if (!isdigit((unsigned char)*q) || n > (INT64_MAX - 9) / 10)
					return -400;
				n = n * 10 + (*q - '0');
			}
			if (m->content_length >= 0 && m->content_length != n)
				return -400;
			m->content_length = n;
		} else if (h->name_len == 17 && !strncasecmp(p, "transfer-encoding", 17)) {
			if (h->value_len == 7 && !strncasecmp(v, "chunked", 7))
				m->chunked = true;
			else if (!(h->value_len == 8 && !strncasecmp(v, "identity", 8)))
				return -501;
		} else if (h->name_len == 10 && !strncasecmp(p, "connection", 10)) {
			for (const char *q = v; q < ve;) {
				const char *c = q;
				while (c < ve && *c != ',')
					c++;
				const char *a = q, *b = c;
				while (a < b && *a == ' ')
					a++;
				while (b > a && b[-1] == ' ')
					b--;
				if (b - a == 5 && !strncasecmp(a, "close", 5))
					conn_close = true;
				if (b - a == 10 && !strncasecmp(a, "keep-alive", 10))
					conn_keep = true;
				q = c < ve ? c + 1 : c;
			}
		}
		p = eol + 1;
	}
}

static int parse_version(const char *p, const char *e, int *minor)
{
	if (e - p != 8 || memcmp(p, "HTTP/1.", 7) != 0 || (p[7] != '0' && p[7] != '1'))
		return -1;
	*minor = p[7] - '0';
	return 0;
}

int net_http_parse_request(const char *buf, size_t len, net_http_msg *m)
{
	const char *end = buf + len;
	const char *p = buf;
	/* tolerate empty lines before a request (RFC 9112 §2.2) */
	while (p < end && (*p == '\r' || *p == '\n'))
		p++;
	const char *eol = memchr(p, '\n', (size_t)(end - p));
	if (!eol)
		return len > MAX_HEAD ? -431 : 0;
	const char *le = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
	const char *sp1 = memchr(p, ' ', (size_t)(le - p));
	if (!sp1 || sp1 == p)
		return -400;
	const char *sp2 = memchr(sp1 + 1, ' ', (size_t)(le - sp1 - 1));
	if (!sp2 || sp2 == sp1 + 1)
		return -400;
	for (const char *q = p; q < sp1; q++)
		if (!tchar((unsigned char)*q))
			return -400;
	m->method = p;
	m->method_len = (size_t)(sp1 - p);
	m->path = sp1 + 1;
	m->path_len = (size_t)(sp2 - sp1 - 1);
	if (!clean(m->path, sp2, false))
		return -400;
	m->status = 0;
	if (parse_version(sp2 + 1, le, &m->minor_version))
		return -400;
	return parse_headers(buf, len, eol + 1, m);
}

int net_http_parse_response(const char *buf, size_t len, net_http_msg *m)
{
	const char *eol = memchr(buf, '\n', len);
	if (!eol)
		return len > MAX_HEAD ? -431 : 0;
	const char *le = eol > buf && eol[-1] == '\r' ? eol - 1 : eol;
	/* "HTTP/1.x SP 3DIGIT", then the end of the line or SP and a reason;
	 * a fourth digit (or anything else) after the code is malformed */
	if (le - buf < 12 || parse_version(buf, buf + 8, &m->minor_version) || buf[8] != ' ' ||
	    !isdigit((unsigned char)buf[9]) || !isdigit((unsigned char)buf[10]) ||
	    !isdigit((unsigned char)buf[11]) || (le > buf + 12 && buf[12] != ' '))
		return -400;
	m->status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
	const char *r = buf + 12;
	while (r < le && *r == ' ')
		r++;
	if (!clean(r, le, true))
		return -400;
	m->reason = r;
	m->reason_len = (size_t)(le - r);
	m->method = m->path = NULL;
	m->method_len = m->path_len = 0;
	return parse_headers(buf, len, eol + 1, m);
}

const net_header *net_http_header(const net_http_msg *m, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < m->nheaders; i++)
		if (m->headers[i].name_len == n && !strncasecmp(m->headers[i].name, name, n))
			return &m->headers[i];
	return NULL;
}

enum { CK_SIZE, CK_EXT, CK_DATA, CK_DATA_END, CK_TRAILER, CK_TRAILER_LINE };

long net_chunked_feed(net_chunked *c, const char *in, size_t len, ib_buf *out)
{
	size_t i = 0;
	while (i < len && !c->done) {
		char ch = in[i];
		switch (c->state) {
		case CK_SIZE:
			if (isxdigit((unsigned char)ch)) {
				if (c->hex == 16)
					return -1;
				c->hex++;
				c->left = c->left * 16 + (uint64_t)(isdigit((unsigned char)ch)
				                                        ? ch - '0'
				                                        : (ch | 0x20) - 'a' + 10);
				i++;
				break;
			}
			/* a size needs a digit: an empty line is no last chunk */
			if (!c->hex ||
			    !(ch == ' ' || ch == '\t' || ch == ';' || ch == '\r' || ch == '\n'))
				return -1;
			c->hex = 0;
			c->state = CK_EXT;
			/* the rest of the line, LF included */
			/* fall through */
		case CK_EXT:
			i++;
			if (ch == '\n')
				c->state = c->left ? CK_DATA : CK_TRAILER;
			break;
		case CK_DATA: {
			size_t n = len - i < c->left ? len - i : (size_t)c->left;
			if (ib_buf_append(out, in + i, n))
				return -1;
			i += n;
			c->left -= n;
			if (!c->left)
				c->state = CK_DATA_END;
			break;
		}
		case CK_DATA_END: /* CRs, then the LF that ends the chunk */
			if (ch == '\n')
				c->state = CK_SIZE;
			else if (ch != '\r')
				return -1;
			i++;
			break;
		case CK_TRAILER: /* at the start of a trailer line */
			if (ch == '\r') {
				i++;
			} else if (ch == '\n') {
				c->done = true;
				i++;
			} else {
				c->state = CK_TRAILER_LINE;
			}
			break;
		case CK_TRAILER_LINE:
			if (ch == '\n')
				c->state = CK_TRAILER;
			i++;
			break;
		}
	}
	return (long)i;
}

int net_chunk_append(ib_buf *out, const char *data, size_t len)
{
	char head[24];
	int n = snprintf(head, sizeof head, "%zx\r\n", len);
	if (ib_buf_reserve(out, (size_t)n + len + 2))
		return IB_ENOMEM;
	ib_buf_append(out, head, (size_t)n);
	ib_buf_append(out, data, len);
	return ib_buf_append(out, "\r\n", 2);
}

int net_sse_append(ib_buf *out, const char *payload, size_t len)
{
	char head[24];
	int n = snprintf(head, sizeof head, "%zx\r\n", len + 8);
	if (ib_buf_reserve(out, (size_t)n + len + 10))
		return IB_ENOMEM;
	ib_buf_append(out, head, (size_t)n);
	ib_buf_append(out, "data: ", 6);
	ib_buf_append(out, payload, len);
	return ib_buf_append(out, "\n\n\r\n", 4);
}
