/* llama3's Split regex matched by hand (the same spans as PCRE2's), with
 * the character classes \p{L}, \p{N} and \s asked of PCRE2 itself, once per
 * code point met, so that they agree with the regex engine's Unicode
 * tables. tests/unit/test_tok.c compares it with tok_re_find. */
#include "tok/private.h"

#include <stdlib.h>
#include <string.h>

const char TOK_LLAMA3_RE[] = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,"
                             "3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

enum { CL_KNOWN = 1, CL_L = 2, CL_N = 4, CL_S = 8, NCP = 0x110000 };

bool tok_split_prepare(tok *t)
{
	static const char *const pats[3] = {"\\p{L}", "\\p{N}", "\\s"};
	for (int k = 0; k < 3; k++) {
		if (t->cls_re[k])
			continue;
		int err;
		PCRE2_SIZE off;
		t->cls_re[k] =
		    pcre2_compile((PCRE2_SPTR)pats[k], PCRE2_ZERO_TERMINATED,
		                  PCRE2_UTF | PCRE2_UCP | PCRE2_ANCHORED, &err, &off, NULL);
		if (!t->cls_re[k])
			return false;
	}
	return true;
}

/* The classes of code point cp (CL_ bits). */
static unsigned classify(tok *t, uint32_t cp)
{
	char u[4];
	size_t n = tok_utf8_put(u, cp);
	unsigned c = CL_KNOWN;
	for (int k = 0; k < 3; k++)
		if (pcre2_match(t->cls_re[k], (PCRE2_SPTR)u, n, 0, PCRE2_NO_UTF_CHECK, t->md,
		                NULL) > 0)
			c |= (unsigned)CL_L << k;
	t->cls[cp] = (unsigned char)c;
	return c;
}

typedef struct {
	tok *t;
	const unsigned char *s;
	size_t len;
} subj;

/* The character at byte i < len: its code point, byte length and classes. */
static inline __attribute__((always_inline)) unsigned at(const subj *x, size_t i, uint32_t *cp,
                                                         size_t *n)
{
	uint32_t c = ib_utf8_decode_valid(x->s + i, n);
	*cp = c;
	unsigned k = x->t->cls[c];
	return k ? k : classify(x->t, c);
}

static inline unsigned cls_at(const subj *x, size_t i, size_t *n)
{
	uint32_t cp;
	return at(x, i, &cp, n);
}

/* PCRE2's caseless ASCII letter for cp (the letters of the contractions:
 * s also matches U+017F, long s), else 0. */
static inline uint32_t fold(uint32_t cp)
{
	if (cp >= 'A' && cp <= 'Z')
		return cp + 32;
	if (cp >= 'a' && cp <= 'z')
		return cp;
	return cp == 0x17F ? 's' : 0;
}

static inline bool is_x(unsigned c) /* [^\s\p{L}\p{N}] */
{
	return !(c & (CL_L | CL_N | CL_S));
}

/* The end of the match that starts at i < len (every character starts one). */
static size_t match_at(const subj *x, size_t i)
{
	uint32_t cp, c1 = 0, c2 = 0;
	size_t n, n1 = 0, n2 = 0, len = x->len;
	unsigned c = at(x, i, &cp, &n);
	/* (?i:'s|'t|'re|'ve|'m|'ll|'d) */
	if (cp == '\'' && i + 1 < len) {
		at(x, i + 1, &c1, &n1);
		c1 = fold(c1);
		if (i + 1 + n1 < len) {
			at(x, i + 1 + n1, &c2, &n2);
			c2 = fold(c2);
		}
		if (c1 == 's' || c1 == 't' || c1 == 'm' || c1 == 'd')
			return i + 1 + n1;
		if ((c1 == 'r' && c2 == 'e') || (c1 == 'v' && c2 == 'e') ||
		    (c1 == 'l' && c2 == 'l'))
			return i + 1 + n1 + n2;
	}
	/* [^\r\n\p{L}\p{N}]?\p{L}+ */
	size_t j = i, m;
	if (!(c & CL_L) && !(c & CL_N) && cp != '\r' && cp != '\n' && i + n < len &&
	    (cls_at(x, i + n, &m) & CL_L))
		j = i + n;
	if (cls_at(x, j, &m) & CL_L) {
		j += m;
		while (j < len && (cls_at(x, j, &m) & CL_L))
			j += m;
		return j;
	}
	/* \p{N}{1,3} */
	if (c & CL_N) {
		j = i + n;
		for (int k = 1; k < 3 && j < len && (cls_at(x, j, &m) & CL_N); k++)
			j += m;
		return j;
	}
	/*  ?[^\s\p{L}\p{N}]+[\r\n]* */
	j = i;
	if (cp == ' ' && i + 1 < len && is_x(cls_at(x, i + 1, &m)))
		j = i + 1;
	if (is_x(cls_at(x, j, &m))) {
		j += m;
		while (j < len && is_x(cls_at(x, j, &m)))
			j += m;
		while (j < len && (x->s[j] == '\r' || x->s[j] == '\n'))
			j++;
		return j;
	}
	/* c is \s: the run of \s from i is [i, j) */
	size_t last_nl = len, last_start = i, chars = 0;
	for (j = i; j < len;) {
		uint32_t q;
		if (!(at(x, j, &q, &m) & CL_S))
			break;
		if (q == '\r' || q == '\n')
			last_nl = j;
		last_start = j;
		chars++;
		j += m;
	}
	if (last_nl < len) /* \s*[\r\n]+ */
		return last_nl + 1;
	if (j == len) /* \s+(?!\S) */
		return j;
	if (chars >= 2)
		return last_start;
	return j; /* \s+ */
}

int tok_split_llama3(tok *t, const char *s, size_t len, tok_spans *out)
{
	out->n = 0;
	if (!t->cls && !(t->cls = calloc(NCP, 1)))
		return IB_ENOMEM;
	if (!len)
		return tok_span_push(out, 0, 0, false);
	subj x = {.t = t, .s = (const unsigned char *)s, .len = len};
	for (size_t i = 0; i < len;) {
		size_t e = match_at(&x, i);
		if (tok_span_push(out, i, e, true))
			return IB_ENOMEM;
		i = e;
	}
	return 0;
}
