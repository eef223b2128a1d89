/* pydantic v2 lax-mode coercions (matrix.md §1.2) and the problem list. */
#include "config/config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Parses an optionally signed decimal integer with surrounding whitespace;
 * a fraction of zeros is allowed ("8.0"). */
static bool parse_int_text(const char *s, int64_t *out)
{
	while (isspace((unsigned char)*s))
		s++;
	const char *p = s;
	if (*p == '+' || *p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return false;
	errno = 0;
	char *end;
	long long v = strtoll(s, &end, 10);
	if (errno)
		return false;
	if (*end == '.') {
		end++;
		while (*end == '0')
			end++;
	}
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return false;
	*out = v;
	return true;
}

bool cfg_lax_int(const ib_val *v, int64_t *out)
{
	if (!v)
		return false;
	switch (v->type) {
	case IB_V_INT:
		*out = v->i;
		return true;
	case IB_V_BOOL:
		*out = v->b;
		return true;
	case IB_V_FLOAT:
		if (!isfinite(v->f) || v->f != floor(v->f) || fabs(v->f) > 9.2e18)
			return false;
		*out = (int64_t)v->f;
		return true;
	case IB_V_STR:
		return strlen(v->str.s) == v->str.len && parse_int_text(v->str.s, out);
	default:
		return false;
	}
}

bool cfg_lax_bool(const ib_val *v, bool *out)
{
	if (!v)
		return false;
	static const char *const t[] = {"1", "on", "t", "true", "y", "yes"};
	static const char *const f[] = {"0", "off", "f", "false", "n", "no"};
	switch (v->type) {
	case IB_V_BOOL:
		*out = v->b;
		return true;
	case IB_V_INT:
		if (v->i != 0 && v->i != 1)
			return false;
		*out = v->i == 1;
		return true;
	case IB_V_FLOAT:
		if (v->f != 0.0 && v->f != 1.0)
			return false;
		*out = v->f == 1.0;
		return true;
	case IB_V_STR:
		for (size_t i = 0; i < 6; i++) {
			if (strcasecmp(v->str.s, t[i]) == 0) {
				*out = true;
				return true;
			}
			if (strcasecmp(v->str.s, f[i]) == 0) {
				*out = false;
				return true;
			}
		}
		return false;
	default:
		return false;
	}
}

bool cfg_lax_float(const ib_val *v, double *out)
{
	if (!v)
		return false;
	switch (v->type) {
	case IB_V_FLOAT:
		*out = v->f;
		return true;
	case IB_V_INT:
		*out = (double)v->i;
		return true;
	case IB_V_BOOL:
		*out = v->b;
		return true;
	case IB_V_STR: {
		char *end;
		errno = 0;
		double d = strtod(v->str.s, &end);
		if (end == v->str.s)
			return false;
		while (isspace((unsigned char)*end))
			end++;
		if (*end)
			return false;
		*out = d;
		return true;
	}
	default:
		return false;
	}
}
