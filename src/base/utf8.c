/* The one UTF-8 codec (base.h): a strict decoder and the encoder. */
#include "base/base.h"

int ib_utf8_decode(const void *p, size_t n, uint32_t *cp)
{
	size_t valid;
	return ib_utf8_decode_at(p, n, cp, &valid);
}

size_t ib_utf8_bad_len(const void *p, size_t n)
{
	size_t valid;
	uint32_t cp;
	int rc = ib_utf8_decode_at(p, n, &cp, &valid);
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
