/* UTF-8 decoding and Python's character classes for the template engine. */
#include "chat/private.h"

#include <string.h>
#include <utf8proc.h>

uint32_t cu_next(const char *str, size_t n, size_t *i)
{
	/* a byte that does not start a valid sequence stands for itself */
	size_t k = *i;
	uint32_t cp;
	int len = ib_utf8_decode(str + k, n - k, &cp);
	if (len < 0) {
		*i = k + 1;
		return (unsigned char)str[k];
	}
	*i = k + (size_t)len;
	return cp;
}

bool cu_isspace(uint32_t c)
{
	if (c < 0x80)
		return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20);
	return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
	       c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

bool cu_isprintable(uint32_t c)
{
	if (c == ' ')
		return true;
	if (c < 0x20 || c == 0x7F)
		return false;
	switch (utf8proc_category((utf8proc_int32_t)c)) {
	case UTF8PROC_CATEGORY_CN:
	case UTF8PROC_CATEGORY_CC:
	case UTF8PROC_CATEGORY_CF:
	case UTF8PROC_CATEGORY_CS:
	case UTF8PROC_CATEGORY_CO:
	case UTF8PROC_CATEGORY_ZS:
	case UTF8PROC_CATEGORY_ZL:
	case UTF8PROC_CATEGORY_ZP:
		return false;
	default:
		return true;
	}
}

int cu_put(ib_buf *b, uint32_t c)
{
	char t[4];
	return ib_buf_append(b, t, ib_utf8_encode(c, t));
}

const char *cu_find(const char *hay, size_t n, const char *needle, size_t m)
{
	if (m == 0)
		return hay;
	if (m > n)
		return NULL;
	const char *end = hay + (n - m);
	for (const char *p = hay; p <= end; p++) {
		p = memchr(p, needle[0], (size_t)(end - p) + 1);
		if (!p)
			return NULL;
		if (!memcmp(p, needle, m))
			return p;
	}
	return NULL;
}

size_t cu_len(const char *s, size_t n)
{
	size_t i = 0, k = 0;
	while (i < n) {
		if ((unsigned char)s[i] < 0x80)
			i++;
		else
			cu_next(s, n, &i);
		k++;
	}
	return k;
}

uint32_t cu_upper(uint32_t c)
{
	if (c < 0x80)
		return c >= 'a' && c <= 'z' ? c - 32 : c;
	return (uint32_t)utf8proc_toupper((utf8proc_int32_t)c);
}

uint32_t cu_lower(uint32_t c)
{
	if (c < 0x80)
		return c >= 'A' && c <= 'Z' ? c + 32 : c;
	return (uint32_t)utf8proc_tolower((utf8proc_int32_t)c);
}

uint32_t cu_title(uint32_t c)
{
	if (c < 0x80)
		return cu_upper(c);
	return (uint32_t)utf8proc_totitle((utf8proc_int32_t)c);
}

static int cat(uint32_t c)
{
	return utf8proc_category((utf8proc_int32_t)c);
}

bool cu_isalpha(uint32_t c)
{
	if (c < 0x80)
		return (c | 32) >= 'a' && (c | 32) <= 'z';
	int k = cat(c);
	return k >= UTF8PROC_CATEGORY_LU && k <= UTF8PROC_CATEGORY_LO;
}

bool cu_isdigit(uint32_t c)
{
	if (c < 0x80)
		return c >= '0' && c <= '9';
	return cat(c) == UTF8PROC_CATEGORY_ND;
}

bool cu_isupper(uint32_t c)
{
	if (c < 0x80)
		return c >= 'A' && c <= 'Z';
	return cat(c) == UTF8PROC_CATEGORY_LU || cat(c) == UTF8PROC_CATEGORY_LT;
}

bool cu_islower(uint32_t c)
{
	if (c < 0x80)
		return c >= 'a' && c <= 'z';
	return cat(c) == UTF8PROC_CATEGORY_LL;
}

bool cu_ident_start(uint32_t c)
{
	if (c < 0x80)
		return c == '_' || ((c | 32) >= 'a' && (c | 32) <= 'z');
	if (c > 0x10FFFF)
		return false;
	int k = cat(c);
	return (k >= UTF8PROC_CATEGORY_LU && k <= UTF8PROC_CATEGORY_LO) ||
	       k == UTF8PROC_CATEGORY_NL;
}

bool cu_ident_cont(uint32_t c)
{
	if (c < 0x80)
		return c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
	if (cu_ident_start(c))
		return true;
	int k = cat(c);
	return k == UTF8PROC_CATEGORY_MN || k == UTF8PROC_CATEGORY_MC ||
	       k == UTF8PROC_CATEGORY_ND || k == UTF8PROC_CATEGORY_PC;
}

/* Python's full (SpecialCasing) upper / lower mappings of the characters
 * that map to more than one, then the simple mappings. */
int cu_put_upper(ib_buf *b, uint32_t c)
{
	static const struct {
		uint32_t c;
		const char *to;
	} special[] = {
	    {0xDF, "SS"},    {0x149, "\u02bcN"}, {0xFB00, "FF"}, {0xFB01, "FI"}, {0xFB02, "FL"},
	    {0xFB03, "FFI"}, {0xFB04, "FFL"},    {0xFB05, "ST"}, {0xFB06, "ST"},
	};
	for (size_t i = 0; c >= 0xDF && i < sizeof special / sizeof special[0]; i++)
		if (special[i].c == c)
			return ib_buf_puts(b, special[i].to);
	return cu_put(b, cu_upper(c));
}

int cu_put_title(ib_buf *b, uint32_t c)
{
	static const struct {
		uint32_t c;
		const char *to;
	} special[] = {
	    {0xDF, "Ss"},    {0x149, "\u02bcN"}, {0xFB00, "Ff"}, {0xFB01, "Fi"}, {0xFB02, "Fl"},
	    {0xFB03, "Ffi"}, {0xFB04, "Ffl"},    {0xFB05, "St"}, {0xFB06, "St"},
	};
	for (size_t i = 0; c >= 0xDF && i < sizeof special / sizeof special[0]; i++)
		if (special[i].c == c)
			return ib_buf_puts(b, special[i].to);
	return cu_put(b, cu_title(c));
}

int cu_put_lower(ib_buf *b, uint32_t c)
{
	if (c == 0x130)
		return ib_buf_puts(b, "i\u0307");
	return cu_put(b, cu_lower(c));
}
