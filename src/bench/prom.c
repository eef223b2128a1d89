/* The Prometheus text exposition format, sample by sample: the families'
 * TYPE lines, each sample's name, labels and value, and the labels as a
 * map (bench.h "Prometheus text"). */
#include "bench/bench.h"

#include <stdlib.h>
#include <string.h>

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool has_suffix(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);
	return n >= k && !memcmp(s + n - k, suf, k);
}

/* "# TYPE <name> <type>" into the family */
static void type_line(const char *p, const char *end, const char **fam, size_t *fl,
                      bench_prom_type *ft)
{
	p += 6; /* "# TYPE" */
	while (p < end && blank(*p))
		p++;
	const char *n = p;
	while (p < end && !blank(*p))
		p++;
	*fam = n, *fl = (size_t)(p - n);
	while (p < end && blank(*p))
		p++;
	size_t tl = (size_t)(end - p);
	while (tl && (blank(p[tl - 1]) || p[tl - 1] == '\r'))
		tl--;
	*ft = tl == 7 && !memcmp(p, "counter", 7)   ? BENCH_PROM_COUNTER
	      : tl == 5 && !memcmp(p, "gauge", 5)   ? BENCH_PROM_GAUGE
	      : tl == 7 && !memcmp(p, "untyped", 7) ? BENCH_PROM_UNTYPED
	                                            : BENCH_PROM_OTHER;
}

/* The end of a {...} label set starting at p ('{'), quotes and escapes
 * respected; NULL when it does not close before end. */
static const char *labels_end(const char *p, const char *end)
{
	bool q = false;
	for (p++; p < end; p++) {
		if (q && *p == '\\')
			p++;
		else if (*p == '"')
			q = !q;
		else if (!q && *p == '}')
			return p;
	}
	return NULL;
}

/* One sample line into s: true when it is one (name, labels, a value). */
static bool sample_line(const char *p, const char *end, bench_prom_sample *s)
{
	const char *n = p;
	while (p < end && !blank(*p) && *p != '{')
		p++;
	if (p == n)
		return false;
	s->name = n, s->name_len = (size_t)(p - n);
	s->labels = "", s->labels_len = 0;
	if (p < end && *p == '{') {
		const char *c = labels_end(p, end);
		if (!c)
			return false;
		s->labels = p + 1, s->labels_len = (size_t)(c - p - 1);
		p = c + 1;
	}
	while (p < end && blank(*p))
		p++;
	char buf[64];
	size_t vl = 0;
	while (p + vl < end && !blank(p[vl]) && p[vl] != '\r')
		vl++;
	if (!vl || vl >= sizeof buf)
		return false;
	memcpy(buf, p, vl);
	buf[vl] = 0;
	char *e = NULL;
	s->value = strtod(buf, &e);
	return e == buf + vl;
}

int bench_prom_each(const char *text, size_t len, bench_prom_fn fn, void *arg)
{
	const char *p = text, *end = text + len, *fam = "";
	size_t fl = 0;
	bench_prom_type ft = BENCH_PROM_UNTYPED;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *le = eol ? eol : end;
		bench_prom_sample s;
		if (le - p > 6 && !memcmp(p, "# TYPE", 6) && blank(p[6])) {
			type_line(p, le, &fam, &fl, &ft);
		} else if (*p != '#' && sample_line(p, le, &s)) {
			/* a family's samples: its name, or a counter's name_total */
			bool own = s.name_len == fl && !memcmp(s.name, fam, fl);
			bool total = ft == BENCH_PROM_COUNTER && s.name_len == fl + 6 &&
			             !memcmp(s.name, fam, fl) && !memcmp(s.name + fl, "_total", 6);
			s.type = own || total ? ft : BENCH_PROM_UNTYPED;
			if (s.type == BENCH_PROM_COUNTER &&
			    has_suffix(s.name, s.name_len, "_created"))
				s.type = BENCH_PROM_OTHER;
			int rc = fn(arg, &s);
			if (rc)
				return rc;
		}
		p = eol ? eol + 1 : end;
	}
	return 0;
}

int bench_prom_labels(ib_arena *a, const char *s, size_t n, ib_val **out, ib_error *e)
{
	ib_val *m = ib_v_map(a);
	ib_buf v = {0};
	const char *p = s, *end = s + n;
	int rc = m ? 0 : IB_ENOMEM;
	while (!rc && p < end) {
		while (p < end && (blank(*p) || *p == ','))
			p++;
		if (p == end)
			break;
		const char *k = p;
		while (p < end && *p != '=' && !blank(*p))
			p++;
		size_t kl = (size_t)(p - k);
		while (p < end && blank(*p))
			p++;
		if (!kl || p + 1 >= end || *p != '=' || p[1] != '"') {
			rc = ib_fail(e, IB_EPARSE, "", 0, 0, "bad label set {%.*s}", (int)n, s);
			break;
		}
		v.len = 0;
		for (p += 2; p < end && *p != '"'; p++) {
			char c = *p;
			if (c == '\\' && p + 1 < end) {
				c = *++p;
				c = c == 'n' ? '\n' : c;
			}
			ib_buf_putc(&v, c);
		}
		if (p == end) {
			rc = ib_fail(e, IB_EPARSE, "", 0, 0, "unterminated label value in {%.*s}",
			             (int)n, s);
			break;
		}
		p++;
		char *key = ib_arena_strndup(a, k, kl);
		ib_val *val = ib_v_strn(a, v.data ? v.data : "", v.len);
		if (ib_buf_error(&v) || !key || !val || ib_map_set(a, m, key, val))
			rc = IB_ENOMEM;
	}
	ib_buf_free(&v);
	if (rc == IB_ENOMEM)
		ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	*out = rc ? NULL : m;
	return rc;
}
