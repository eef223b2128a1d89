#include "base/base.h"

#include <stdio.h>
#include <string.h>

int ib_fail(ib_error *e, int code, const char *file, int line, int col, const char *fmt, ...)
{
	if (!e)
		return code;
	e->code = code;
	snprintf(e->file, sizeof e->file, "%s", file ? file : "");
	e->line = line;
	e->col = col;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	return code;
}

void ib_error_format(const ib_error *e, char *out, size_t cap)
{
	if (e->file[0] && e->line > 0 && e->col > 0)
		snprintf(out, cap, "%s:%d:%d: %s", e->file, e->line, e->col, e->msg);
	else if (e->file[0] && e->line > 0)
		snprintf(out, cap, "%s:%d: %s", e->file, e->line, e->msg);
	else if (e->file[0])
		snprintf(out, cap, "%s: %s", e->file, e->msg);
	else
		snprintf(out, cap, "%s", e->msg);
}

const char *ib_err_name(int code)
{
	switch (code) {
	case IB_OK:
		return "ok";
	case IB_ENOMEM:
		return "out of memory";
	case IB_EIO:
		return "I/O error";
	case IB_EPARSE:
		return "parse error";
	case IB_EINVAL:
		return "invalid input";
	case IB_ENOENT:
		return "not found";
	case IB_ERANGE:
		return "out of range";
	default:
		return "unknown error";
	}
}

bool ib_str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

size_t ib_str_strip_ctl(char *s)
{
	size_t k = 0;
	for (size_t i = 0; s[i];) {
		unsigned char c = (unsigned char)s[i];
		if (c == 0x1b) {
			i++;
			if (s[i] == '[') { /* CSI: parameters and intermediates, one final byte */
				i++;
				while (s[i] &&
				       ((unsigned char)s[i] < 0x40 || (unsigned char)s[i] > 0x7e))
					i++;
				i += s[i] != 0;
			} else if (s[i] == ']' || s[i] == 'P' || s[i] == '_' || s[i] == '^') {
				/* OSC / DCS / APC / PM: up to BEL or ST (ESC \) */
				while (s[i] && s[i] != 0x07 && !(s[i] == 0x1b && s[i + 1] == '\\'))
					i++;
				i += s[i] == 0x07 ? 1 : s[i] ? 2 : 0;
			} else if (s[i]) {
				i++;
			}
			continue;
		}
		s[k++] = c == '\r'                                           ? ' '
		         : (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f ? '?'
		                                                             : (char)c;
		i++;
	}
	s[k] = 0;
	return k;
}

int ib_cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Matches one bracket class starting at p (just after '['); sets *end to the
 * character after ']' and returns whether c is in the class. Returns -1 when
 * the class is not closed (then '[' is a literal, as in Python). */
static int glob_class(const char *p, char c, const char **end)
{
	const char *q = p;
	bool neg = false;
	if (*q == '!') {
		neg = true;
		q++;
	}
	const char *first = q;
	if (*q == ']')
		q++; /* a leading ']' is a literal member */
	while (*q && *q != ']')
		q++;
	if (!*q)
		return -1;
	bool in = false;
	for (const char *r = first; r < q;) {
		if (r + 2 < q && r[1] == '-') {
			if (c >= r[0] && c <= r[2])
				in = true;
			r += 3;
		} else {
			if (c == *r)
				in = true;
			r++;
		}
	}
	*end = q + 1;
	return neg ? !in : in;
}

bool ib_glob_match(const char *p, const char *s)
{
	const char *star_p = NULL, *star_s = NULL;
	while (*s) {
		if (*p == '*') {
			while (*p == '*')
				p++;
			star_p = p;
			star_s = s;
			continue;
		}
		if (*p == '?') {
			p++;
			s++;
			continue;
		}
		if (*p == '[') {
			const char *end;
			int r = glob_class(p + 1, *s, &end);
			if (r == 1) {
				p = end;
				s++;
				continue;
			}
			if (r == -1 && *s == '[') {
				p++;
				s++;
				continue;
			}
		} else if (*p && *p == *s) {
			p++;
			s++;
			continue;
		}
		if (star_p) {
			p = star_p;
			s = ++star_s;
			continue;
		}
		return false;
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}
