/* The one strict UTF-8 decoder (base.h). */
#include "base/base.h"

int ib_utf8_decode(const void *p, size_t n, uint32_t *cp)
{
	const unsigned char *s = p;
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
