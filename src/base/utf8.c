/* The one UTF-8 codec (base.h): a strict decoder and the encoder. */
#include "base/base.h"

/* Decodes at s[0..n): the length (1-4) with *cp, or a negative reason with
 * *valid = how many bytes before the failing one belong to the sequence. */
static int decode(const unsigned char *s, size_t n, uint32_t *cp, size_t *valid)
{
	*valid = 0;
	if (n == 0)
		return IB_UTF8_TRUNCATED;
	unsigned c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c < 0xC2 || c > 0xF4)
		return IB_UTF8_BAD_START;
	size_t len = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
	uint32_t v = c & (0x7Fu >> len);
	/* the second byte's range excludes overlongs (E0, F0), surrogates (ED)
	 * and code points beyond U+10FFFF (F4) */
	unsigned lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
	unsigned hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
	for (size_t i = 1; i < len; i++) {
		*valid = i;
		if (i >= n)
			return IB_UTF8_TRUNCATED;
		unsigned b = s[i];
		if (b < lo || b > hi)
			return IB_UTF8_BAD_CONTINUATION;
		lo = 0x80;
		hi = 0xBF;
		v = (v << 6) | (b & 0x3F);
	}
	*cp = v;
	return (int)len;
}

int ib_utf8_decode(const void *p, size_t n, uint32_t *cp)
{
	size_t valid;
	return decode(p, n, cp, &valid);
}

size_t ib_utf8_bad_len(const void *p, size_t n)
{
	size_t valid;
	uint32_t cp;
	int rc = decode(p, n, &cp, &valid);
	return rc > 0 ? (size_t)rc : valid ? valid : 1;
}

size_t ib_utf8_encode(uint32_t cp, char out[4])
{
	unsigned char *o = (unsigned char *)out;
	if (cp > 0x10FFFF)
		cp = 0xFFFD;
	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (unsigned char)(0xC0 | cp >> 6);
		o[1] = (unsigned char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (unsigned char)(0xE0 | cp >> 12);
		o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
		o[2] = (unsigned char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (unsigned char)(0xF0 | cp >> 18);
	o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
	o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
	o[3] = (unsigned char)(0x80 | (cp & 0x3F));
	return 4;
}

const char *ib_utf8_reason(int rc)
{
	switch (rc) {
	case IB_UTF8_BAD_START:
		return "invalid start byte";
	case IB_UTF8_BAD_CONTINUATION:
		return "invalid continuation byte";
	case IB_UTF8_TRUNCATED:
		return "unexpected end of data";
	default:
		return "valid";
	}
}
