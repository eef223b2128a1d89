/* UTF-8 and the Unicode properties HuggingFace tokenizers relies on (Rust's
 * char methods and regex classes), through utf8proc. */
#include "tok/private.h"

#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

/* Length of the valid UTF-8 sequence at s[i], or minus the length of the
 * maximal invalid subpart there (Unicode's "substitution of maximal subparts",
 * as Rust's Utf8Chunks reports it). */
static long seq_at(const unsigned char *s, size_t len, size_t i)
{
	uint32_t cp;
	int n = ib_utf8_decode(s + i, len - i, &cp);
	return n > 0 ? n : -(long)ib_utf8_bad_len(s + i, len - i);
}

size_t tok_utf8_check(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		if (i + 8 <= len) {
			uint64_t w;
			memcpy(&w, u + i, 8);
			if (!(w & 0x8080808080808080ull)) {
				i += 8;
				continue;
			}
		}
		/* one character, by the base decoder inlined: this runs over
		 * every text encoded or decoded */
		uint32_t cp;
		size_t valid;
		int n = ib_utf8_decode_at(u + i, len - i, &cp, &valid);
		if (n < 0)
			return i;
		i += (size_t)n;
	}
	return len;
}

uint32_t tok_utf8_next(const char *s, size_t *i)
{
	/* the text is valid UTF-8: the decoder reads no further than the
	 * sequence at *i, whatever bound it is given */
	uint32_t cp;
	int n = ib_utf8_decode(s + *i, 4, &cp);
	if (n < 0) {
		*i += 1;
		return 0xFFFD;
	}
	*i += (size_t)n;
	return cp;
}

size_t tok_utf8_put(char *out, uint32_t cp)
{
	return ib_utf8_encode(cp, out);
}

bool tok_uc_space(uint32_t c)
{
	if (c < 0x80)
		return c == ' ' || (c >= 0x09 && c <= 0x0D);
	return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
	       c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

bool tok_uc_word(uint32_t c)
{
	if (c < 0x80)
		return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		       c == '_';
	switch (utf8proc_category((utf8proc_int32_t)c)) {
	case UTF8PROC_CATEGORY_LU:
	case UTF8PROC_CATEGORY_LL:
	case UTF8PROC_CATEGORY_LT:
	case UTF8PROC_CATEGORY_LM:
	case UTF8PROC_CATEGORY_LO:
	case UTF8PROC_CATEGORY_MN:
	case UTF8PROC_CATEGORY_MC:
	case UTF8PROC_CATEGORY_ME:
	case UTF8PROC_CATEGORY_ND:
	case UTF8PROC_CATEGORY_NL:
	case UTF8PROC_CATEGORY_PC:
		return true;
	default:
		/* Join_Control, and the symbols that are Other_Alphabetic */
		return c == 0x200C || c == 0x200D || (c >= 0x24B6 && c <= 0x24E9) ||
		       (c >= 0x1F130 && c <= 0x1F149) || (c >= 0x1F150 && c <= 0x1F169) ||
		       (c >= 0x1F170 && c <= 0x1F189);
	}
}

bool tok_uc_numeric(uint32_t c)
{
	if (c < 0x80)
		return c >= '0' && c <= '9';
	utf8proc_category_t k = utf8proc_category((utf8proc_int32_t)c);
	return k == UTF8PROC_CATEGORY_ND || k == UTF8PROC_CATEGORY_NL || k == UTF8PROC_CATEGORY_NO;
}

bool tok_uc_punct(uint32_t c)
{
	if (c < 0x80)
		return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) ||
		       (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
	switch (utf8proc_category((utf8proc_int32_t)c)) {
	case UTF8PROC_CATEGORY_PC:
	case UTF8PROC_CATEGORY_PD:
	case UTF8PROC_CATEGORY_PS:
	case UTF8PROC_CATEGORY_PE:
	case UTF8PROC_CATEGORY_PI:
	case UTF8PROC_CATEGORY_PF:
	case UTF8PROC_CATEGORY_PO:
		return true;
	default:
		return false;
	}
}

static int normalize_run(ib_buf *out, const char *s, size_t len, int opt)
{
	utf8proc_uint8_t *dst = NULL;
	utf8proc_ssize_t n = utf8proc_map((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)len, &dst,
	                                  (utf8proc_option_t)opt);
	if (n < 0) {
		free(dst);
		/* the input was validated, so only memory can run out */
		return IB_ENOMEM;
	}
	int rc = ib_buf_append(out, dst, (size_t)n);
	free(dst);
	return rc;
}

int tok_uc_normalize(ib_buf *out, const char *s, size_t len, int form)
{
	int opt = UTF8PROC_STABLE;
	switch (form) {
	case TOK_NFC:
		opt |= UTF8PROC_COMPOSE;
		break;
	case TOK_NFD:
		opt |= UTF8PROC_DECOMPOSE;
		break;
	case TOK_NFKC:
		opt |= UTF8PROC_COMPOSE | UTF8PROC_COMPAT;
		break;
	default:
		opt |= UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT;
		break;
	}
	/* ASCII characters are starters that nothing composes with from the
	 * left, so the text can be normalized in runs that start at one: ASCII
	 * is copied, and each non-ASCII run goes through utf8proc together with
	 * the ASCII character before it (which may compose with it, e + U+0301) */
	size_t i = 0;
	while (i < len) {
		size_t a = i;
		while (i < len && (unsigned char)s[i] < 0x80)
			i++;
		if (i == len)
			return ib_buf_append(out, s + a, len - a);
		size_t start = i > a ? i - 1 : i; /* the ASCII character before the run */
		while (i < len && (unsigned char)s[i] >= 0x80)
			i++;
		int rc = ib_buf_append(out, s + a, start - a);
		if (!rc)
			rc = normalize_run(out, s + start, i - start, opt);
		if (rc)
			return rc;
	}
	return 0;
}

int tok_uc_lower(ib_buf *out, const char *s, size_t len)
{
	if (ib_buf_reserve(out, len + 8))
		return IB_ENOMEM;
	size_t i = 0;
	while (i < len) {
		unsigned char b = (unsigned char)s[i];
		if (b < 0x80) {
			char c = (char)(b >= 'A' && b <= 'Z' ? b + 32 : b);
			if (ib_buf_putc(out, c))
				return IB_ENOMEM;
			i++;
			continue;
		}
		uint32_t c = tok_utf8_next(s, &i);
		char tmp[8];
		size_t n;
		if (c == 0x130) { /* the one unconditional multi-character lowercase */
			n = tok_utf8_put(tmp, 'i');
			n += tok_utf8_put(tmp + n, 0x307);
		} else {
			n = tok_utf8_put(tmp, (uint32_t)utf8proc_tolower((utf8proc_int32_t)c));
		}
		if (ib_buf_append(out, tmp, n))
			return IB_ENOMEM;
	}
	return 0;
}

int tok_utf8_lossy(ib_buf *out, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0; /* run: start of the valid bytes not yet copied */
	if (ib_buf_reserve(out, len))
		return IB_ENOMEM;
	while (i < len) {
		if (u[i] < 0x80) {
			i++;
			continue;
		}
		long n = seq_at(u, len, i);
		if (n > 0) {
			i += (size_t)n;
			continue;
		}
		if (ib_buf_append(out, s + run, i - run) || ib_buf_append(out, "\xEF\xBF\xBD", 3))
			return IB_ENOMEM;
		i += (size_t)-n;
		run = i;
	}
	return ib_buf_append(out, s + run, len - run);
}

int tok_cp_to_byte(uint32_t cp)
{
	if (cp < 0x100)
		return (cp >= 0x21 && cp <= 0x7E) || (cp >= 0xA1 && cp != 0xAD) ? (int)cp : -1;
	if (cp > 0x143)
		return -1;
	uint32_t n = cp - 0x100;
	if (n <= 0x20)
		return (int)n;
	if (n < 33 + 34)
		return (int)(0x7F + (n - 33));
	return 0xAD;
}
