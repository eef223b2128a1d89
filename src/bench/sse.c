/* Streaming response parsing, following the reference client's rules. */
#include "bench/bench.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_LINE = 128 * 1024 };

int bench_vec_push(bench_vec *v, double x)
{
	if (v->n == v->cap && ib_grow(&v->v, &v->cap, v->n + 1))
		return IB_ENOMEM;
	v->v[v->n++] = x;
	return 0;
}

void bench_vec_free(bench_vec *v)
{
	free(v->v);
	v->v = NULL;
	v->n = v->cap = 0;
}

/* ---- a validating JSON scanner that keeps only what it is asked for ---- */

typedef struct {
	const char *p, *end;
	int depth;
} scan;

/* byte classes: 1 ends a plain run inside a string ('"', '\\', control
 * bytes), 2 is JSON whitespace */
static const unsigned char cls[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 1, 1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};

/* (a statement macro: the scanner calls it some thirty times a chunk) */
#define ws(s)                                                                                      \
	do {                                                                                       \
		while ((s)->p < (s)->end && (cls[(unsigned char)*(s)->p] & 2))                     \
			(s)->p++;                                                                  \
	} while (0)

/* The high bit of each byte of w that is '"', '\\' or a control byte
 * (< 0x20), by the classic has-zero-byte tests, 8 bytes at a time: the
 * lowest bit set is exact (false hits only follow a true one). */
static inline uint64_t special8(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
	return (((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w)) & highs;
}

/* The end of the plain run at q: the first '"', '\\' or control byte, or
 * end. */
static inline const char *plain_run(const char *q, const char *end)
{
	for (uint64_t w, h; end - q >= 8; q += 8) {
		memcpy(&w, q, 8);
		if ((h = special8(w)) != 0) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			return q + (__builtin_ctzll(h) >> 3);
#else
			break;
#endif
		}
	}
	while (q < end && !(cls[(unsigned char)*q] & 1))
		q++;
	return q;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9'                     ? c - '0'
	       : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10
	                                                : -1;
}

static void put_utf8(ib_buf *b, uint32_t cp)
{
	char u[4];
	ib_buf_append(b, u, ib_utf8_encode(cp, u));
}

/* A string at s->p (on the quote); appends its value to out if non-NULL;
 * sets *start and *len to the raw contents. */
static bool str(scan *s, ib_buf *out, const char **start, size_t *len)
{
	if (s->p >= s->end || *s->p != '"')
		return false;
	const char *b = ++s->p;
	while (s->p < s->end) {
		/* the plain run up to the next quote, backslash or control byte */
		const char *q = plain_run(s->p, s->end);
		if (out && q > s->p)
			ib_buf_append(out, s->p, (size_t)(q - s->p));
		s->p = q;
		if (s->p >= s->end)
			break;
		char c = *s->p;
		if (c == '"') {
			if (start) {
				*start = b;
				*len = (size_t)(s->p - b);
			}
			s->p++;
			return true;
		}
		if ((unsigned char)c < 0x20)
			return false;
		if (++s->p >= s->end) /* a backslash */
			return false;
		char e = *s->p++;
		const char *esc = strchr("\"\\/bfnrt", e);
		if (esc) {
			static const char map[] = "\"\\/\b\f\n\r\t";
			if (out)
				ib_buf_putc(out, map[esc - "\"\\/bfnrt"]);
			continue;
		}
		if (e != 'u' || s->end - s->p < 4)
			return false;
		uint32_t cp = 0;
		for (int i = 0; i < 4; i++) {
			int h = hexval(s->p[i]);
			if (h < 0)
				return false;
			cp = cp * 16 + (uint32_t)h;
		}
		s->p += 4;
		if (cp >= 0xD800 && cp < 0xDC00 && s->end - s->p >= 6 && s->p[0] == '\\' &&
		    s->p[1] == 'u') {
			uint32_t lo = 0;
			bool ok = true;
			for (int i = 0; i < 4; i++) {
				int h = hexval(s->p[2 + i]);
				ok &= h >= 0;
				lo = lo * 16 + (uint32_t)(h < 0 ? 0 : h);
			}
			if (ok && lo >= 0xDC00 && lo < 0xE000) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				s->p += 6;
			}
		}
		if (out)
			put_utf8(out, cp >= 0xD800 && cp < 0xE000 ? 0xFFFD : cp);
	}
	return false;
}

static bool value(scan *s);

/* zero or more digits; whether there was one */
static bool digits(scan *s)
{
	const char *d = s->p;
	while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
		s->p++;
	return s->p > d;
}

static bool number(scan *s)
{
	const char *b = s->p;
	if (s->p < s->end && *s->p == '-')
		s->p++;
	if (s->p >= s->end)
		return false;
	if (*s->p == '0') {
		s->p++;
	} else if (*s->p >= '1' && *s->p <= '9') {
		digits(s);
	} else {
		return false;
	}
	if (s->p < s->end && *s->p == '.') {
		s->p++;
		if (!digits(s))
			return false;
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (!digits(s))
			return false;
	}
	return s->p > b;
}

static bool word(scan *s, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n))
		return false;
	s->p += n;
	return true;
}

static bool container(scan *s, char open)
{
	char close = open == '{' ? '}' : ']';
	if (++s->depth > 64)
		return false;
	s->p++;
	ws(s);
	if (s->p < s->end && *s->p == close) {
		s->p++;
		s->depth--;
		return true;
	}
	for (;;) {
		if (open == '{') {
			ws(s);
			if (!str(s, NULL, NULL, NULL))
				return false;
			ws(s);
			if (s->p >= s->end || *s->p++ != ':')
				return false;
		}
		if (!value(s))
			return false;
		ws(s);
		if (s->p >= s->end)
			return false;
		if (*s->p == ',') {
			s->p++;
			continue;
		}
		if (*s->p == close) {
			s->p++;
			s->depth--;
			return true;
		}
		return false;
	}
}

static bool value(scan *s)
{
	ws(s);
	if (s->p >= s->end)
		return false;
	switch (*s->p) {
	case '{':
	case '[':
		return container(s, *s->p);
	case '"':
		return str(s, NULL, NULL, NULL);
	case 't':
		return word(s, "true");
	case 'f':
		return word(s, "false");
	case 'n':
		return word(s, "null");
	case 'N':
		return word(s, "NaN"); /* Python's json accepts these */
	case 'I':
		return word(s, "Infinity");
	default:
		if (*s->p == '-' && s->end - s->p >= 9 && !memcmp(s->p, "-Infinity", 9)) {
			s->p += 9;
			return true;
		}
		return number(s);
	}
}

/* Is the value at s->p truthy in Python terms? Advances past it. */
static bool truthy_value(scan *s, bool *truthy)
{
	ws(s);
	const char *b = s->p;
	if (!value(s))
		return false;
	size_t n = (size_t)(s->p - b);
	*truthy =
	    !((n == 4 && !memcmp(b, "null", 4)) || (n == 5 && !memcmp(b, "false", 5)) ||
	      (n == 2 && (!memcmp(b, "{}", 2) || !memcmp(b, "[]", 2) || !memcmp(b, "\"\"", 2))) ||
	      (n == 1 && *b == '0'));
	if (*truthy && (*b == '{' || *b == '[')) { /* "{ }" with spaces is empty too */
		scan t = {b + 1, s->p - 1, 0};
		ws(&t);
		*truthy = t.p < t.end;
	}
	return true;
}

/* Finds key in the object at s->p (on '{'); leaves s->p on its value and
 * returns true, or returns false (with *ok telling a syntax error). */
static bool find_key(scan *s, const char *key, bool *ok)
{
	*ok = false;
	if (s->p >= s->end || *s->p != '{')
		return false;
	s->p++;
	ws(s);
	if (s->p < s->end && *s->p == '}') {
		*ok = true;
		return false;
	}
	size_t kl = strlen(key);
	for (;;) {
		const char *k;
		size_t klen;
		if (!str(s, NULL, &k, &klen))
			return false;
		ws(s);
		if (s->p >= s->end || *s->p++ != ':')
			return false;
		ws(s);
		if (klen == kl && !memcmp(k, key, kl)) {
			*ok = true;
			return true;
		}
		if (!value(s))
			return false;
		ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			ws(s);
			continue;
		}
		*ok = s->p < s->end && *s->p == '}';
		return false;
	}
}

static void first_choice_text(const char *p, const char *end, bool chat, ib_buf *text)
{
	scan s = {p, end, 0}; /* on the '[' of choices */
	s.p++;
	ws(&s);
	bool ok;
	if (!find_key(&s, chat ? "delta" : "text", &ok))
		return;
	if (chat) {
		ws(&s);
		if (!find_key(&s, "content", &ok))
			return;
	}
	ws(&s);
	if (s.p < s.end && *s.p == '"')
		str(&s, text, NULL, NULL);
}

bool bench_scan_chunk(const char *p, size_t n, bool chat, bench_chunk *out, ib_buf *text)
{
	memset(out, 0, sizeof *out);
	out->completion_tokens = -1;
	out->prompt_tokens = -1;
	scan s = {p, p + n, 0};
	ws(&s);
	if (s.p >= s.end)
		return false;
	if (*s.p != '{') { /* valid JSON but not an object: no choices, no usage */
		if (!value(&s))
			return false;
		ws(&s);
		return s.p == s.end;
	}
	s.p++;
	ws(&s);
	if (s.p < s.end && *s.p == '}') {
		s.p++;
		ws(&s);
		return s.p == s.end;
	}
	for (;;) {
		const char *k;
		size_t kl;
		if (!str(&s, NULL, &k, &kl))
			return false;
		ws(&s);
		if (s.p >= s.end || *s.p++ != ':')
			return false;
		ws(&s);
		const char *vb = s.p;
		if (kl == 7 && !memcmp(k, "choices", 7)) {
			bool t;
			if (!truthy_value(&s, &t))
				return false;
			out->has_choices = t && *vb == '[';
			if (out->has_choices && text)
				first_choice_text(vb, s.p, chat, text);
		} else if (kl == 5 && !memcmp(k, "usage", 5)) {
			bool t;
			if (!truthy_value(&s, &t))
				return false;
			out->has_usage = t;
			if (t && *vb == '{') {
				scan u = {vb, s.p, 0};
				bool ok;
				scan q = u;
				if (find_key(&q, "prompt_tokens", &ok) && *q.p >= '0' &&
				    *q.p <= '9') {
					long long v = strtoll(q.p, NULL, 10);
					out->prompt_tokens = v > INT32_MAX ? -1 : v;
				}
				if (find_key(&u, "completion_tokens", &ok)) {
					char *e;
					errno = 0;
					long long v = strtoll(u.p, &e, 10);
					/* a count no engine can produce (negative, or past
					 * 2^31 - 1) is out of range: -2 */
					if (e > u.p && *u.p != 'n')
						out->completion_tokens =
						    errno == ERANGE || v < 0 || v > INT32_MAX ? -2
						                                              : v;
				}
			}
		} else if ((kl == 10 && !memcmp(k, "infbench_t", 10)) ||
		           (kl == 11 && !memcmp(k, "infbench_t0", 11))) {
			if (!value(&s))
				return false;
			/* a number (validated above): parsed from a copy, so that
			 * strtod never reads past the chunk */
			char num[64];
			size_t len = (size_t)(s.p - vb);
			if ((*vb == '-' || (*vb >= '0' && *vb <= '9')) && len < sizeof num) {
				memcpy(num, vb, len);
				num[len] = '\0';
				double x = strtod(num, NULL);
				if (!isfinite(x)) /* -Infinity, or past the double range */
					;
				else if (kl == 10) {
					out->has_t = true;
					out->t = x;
				} else {
					out->has_t0 = true;
					out->t0 = x;
				}
			}
		} else if (!value(&s)) {
			return false;
		}
		ws(&s);
		if (s.p < s.end && *s.p == ',') {
			s.p++;
			ws(&s);
			continue;
		}
		if (s.p < s.end && *s.p == '}') {
			s.p++;
			ws(&s);
			return s.p == s.end;
		}
		return false;
	}
}

/* ---- the per-request state machine ---- */

void bench_sse_reset(bench_sse *s, bool chat, bool keep_text, int64_t start_ns)
{
	bench_vec itl = s->itl, m_itl = s->m_itl;
	ib_buf text = s->text, line = s->line;
	memset(s, 0, sizeof *s);
	itl.n = 0;
	m_itl.n = 0;
	s->m_itl = m_itl;
	s->m_ok = true;
	text.len = 0;
	line.len = 0;
	s->itl = itl;
	s->text = text;
	s->line = line;
	s->chat = chat;
	s->keep_text = keep_text;
	s->start_ns = start_ns;
	s->output_tokens = 0;
	s->prompt_tokens = -1;
}

void bench_sse_free(bench_sse *s)
{
	bench_vec_free(&s->itl);
	bench_vec_free(&s->m_itl);
	ib_buf_free(&s->text);
	ib_buf_free(&s->line);
}

static void fail(bench_sse *s, const char *msg)
{
	if (s->failed)
		return;
	s->failed = true;
	snprintf(s->error, sizeof s->error, "%s", msg);
}

static void on_line(bench_sse *s, const char *p, size_t n, int64_t t)
{
	/* strip surrounding whitespace (Python str.strip of ASCII space, \r...) */
	while (n && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v')) {
		p++;
		n--;
	}
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r' || p[n - 1] == '\f' ||
	             p[n - 1] == '\v'))
		n--;
	if (!n)
		return;
	if (n >= 6 && !memcmp(p, "data: ", 6)) {
		p += 6;
		n -= 6;
	}
	if (n == 6 && !memcmp(p, "[DONE]", 6))
		return;
	if (s->max_events && ++s->events > s->max_events) {
		char msg[160];
		snprintf(msg, sizeof msg,
		         "the stream sent more than %zu events (max_tokens %lld): stopped",
		         s->max_events, (long long)s->max_tokens);
		fail(s, msg);
		return;
	}
	bench_chunk c;
	if (!bench_scan_chunk(p, n, s->chat, &c, s->keep_text ? &s->text : NULL)) {
		fail(s, "JSONDecodeError: a streamed line is not valid JSON");
		return;
	}
	/* the server's model clock, by the same rules as the wall clock */
	if (!c.has_t)
		s->m_ok = false;
	if (c.has_t0) {
		s->m_t0 = c.t0;
		s->m_t0_seen = true;
	}
	if (c.has_choices) {
		s->token_chunks++;
		/* first token chunk: TTFT; later ones: the gap since the previous
		 * timestamp (Chat: any line; Completions: the previous token chunk) */
		if (s->token_chunks == 1)
			s->ttft = (double)(t - s->start_ns) * 1e-9;
		else if (bench_vec_push(&s->itl, (double)(t - s->last_ns) * 1e-9))
			fail(s, "out of memory");
		s->last_ns = t;
		if (s->m_ok) {
			if (s->token_chunks == 1)
				s->m_ttft = c.t - s->m_t0;
			else if (bench_vec_push(&s->m_itl, c.t - s->m_last))
				fail(s, "out of memory");
			s->m_last = c.t;
		}
	} else if (c.has_usage) {
		s->usage_seen = true;
		s->output_tokens = c.completion_tokens; /* -1: null, counted later */
		s->prompt_tokens = c.prompt_tokens;
		if (c.completion_tokens == -2)
			fail(s, "usage.completion_tokens out of range");
	}
	if (s->chat) {
		s->last_ns = t; /* S9: every line moves the end of the request */
		if (c.has_t)
			s->m_last = c.t;
	}
}

bool bench_sse_feed(bench_sse *s, const char *data, size_t len, int64_t t)
{
	if (s->failed)
		return false;
	while (len) {
		const char *nl = memchr(data, '\n', len);
		size_t take = nl ? (size_t)(nl - data) : len;
		if (s->line.len + take > MAX_LINE) {
			fail(s, "ValueError: Line is too long (over 128 KiB)");
			return false;
		}
		if (!nl) {
			ib_buf_append(&s->line, data, take);
			return true;
		}
		if (s->line.len) {
			ib_buf_append(&s->line, data, take);
			on_line(s, s->line.data, s->line.len, t);
			s->line.len = 0;
		} else {
			on_line(s, data, take, t);
		}
		if (s->failed)
			return false;
		data += take + 1;
		len -= take + 1;
	}
	return true;
}

void bench_sse_end(bench_sse *s)
{
	if (s->failed)
		return;
	if (s->line.len) { /* a last line without its newline */
		on_line(s, s->line.data, s->line.len, s->last_ns ? s->last_ns : s->start_ns);
		s->line.len = 0;
		if (s->failed)
			return;
	}
	if (s->chat) {
		s->success = true;
		return;
	}
	if (s->token_chunks == 0) {
		fail(s, "Never received a valid chunk to calculate TTFT.This response will be "
		        "marked as "
		        "failed!");
		return;
	}
	s->success = true;
}
