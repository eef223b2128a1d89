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
	size_t len;
	unsigned lo = 0x80, hi = 0xBF;
	uint32_t v;
	if (c >= 0xC2 && c <= 0xDF) {
		len = 2;
		v = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		v = c & 0x0F;
		if (c == 0xE0)
			lo = 0xA0; /* overlong */
		else if (c == 0xED)
			hi = 0x9F; /* surrogates */
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		v = c & 0x07;
		if (c == 0xF0)
			lo = 0x90; /* overlong */
		else if (c == 0xF4)
			hi = 0x8F; /* beyond U+10FFFF */
	} else {
		return IB_UTF8_BAD_START;
	}
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
