/* cluster/fe_metrics: the frontend's /metrics, every process's Prometheus
 * text merged per role (docs/sim.md "Roles and the frontend"). */
#include "cluster/frontend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	char *name, *help, *type;
	bool mean; /* a gauge of a fraction: the role's mean */
} fm_family;

typedef struct {
	size_t family;
	char *key; /* name{labels,infbench_role="R"} */
	double sum;
	int n;
} fm_series;

typedef struct {
	fm_family *fam;
	size_t nfam, capfam;
	fm_series *ser;
	size_t nser, capser;
	int err;
} fm_ctx;

static char *dup_n(fm_ctx *c, const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (!d) {
		c->err = IB_ENOMEM;
		return NULL;
	}
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

/* The family named name[0..n), created (in order of appearance) when new;
 * SIZE_MAX when out of memory. */
static size_t family(fm_ctx *c, const char *name, size_t n)
{
	for (size_t i = 0; i < c->nfam; i++)
		if (strlen(c->fam[i].name) == n && !memcmp(c->fam[i].name, name, n))
			return i;
	char *d = dup_n(c, name, n);
	if (!d || ib_grow(&c->fam, &c->capfam, c->nfam + 1)) {
		free(d);
		c->err = IB_ENOMEM;
		return SIZE_MAX;
	}
	c->fam[c->nfam] = (fm_family){.name = d};
	return c->nfam++;
}

/* The family a sample named name[0..n) belongs to: a histogram's or
 * summary's for its _bucket, _sum, _count and _created series. */
static size_t family_of_sample(fm_ctx *c, const char *name, size_t n)
{
	static const char *const suffix[] = {"_bucket", "_sum", "_count", "_created"};
	for (size_t k = 0; k < 4; k++) {
		size_t sl = strlen(suffix[k]);
		if (n <= sl || memcmp(name + n - sl, suffix[k], sl))
			continue;
		for (size_t i = 0; i < c->nfam; i++)
			if (c->fam[i].type && strlen(c->fam[i].name) == n - sl &&
			    !memcmp(c->fam[i].name, name, n - sl) &&
			    (!strcmp(c->fam[i].type, "histogram") ||
			     !strcmp(c->fam[i].type, "summary")))
				return i;
	}
	return family(c, name, n);
}

/* "# HELP name text" / "# TYPE name type": kept from the first process
 * that states them. */
static void comment(fm_ctx *c, const char *p, const char *end)
{
	bool help = end - p > 7 && !memcmp(p, "# HELP ", 7),
	     type = end - p > 7 && !memcmp(p, "# TYPE ", 7);
	if (!help && !type)
		return;
	const char *name = p + 7, *sp = memchr(name, ' ', (size_t)(end - name));
	size_t nl = sp ? (size_t)(sp - name) : (size_t)(end - name);
	if (!nl)
		return;
	size_t f = family(c, name, nl);
	if (f == SIZE_MAX)
		return;
	char **slot = help ? &c->fam[f].help : &c->fam[f].type;
	if (*slot)
		return;
	/* the HELP line whole, the TYPE's type */
	const char *t = help ? p : sp ? sp + 1 : end;
	*slot = dup_n(c, t, (size_t)(end - t));
	const char *nm = c->fam[f].name;
	if (type && *slot)
		c->fam[f].mean = !strcmp(*slot, "gauge") &&
		                 (strstr(nm, "perc") || strstr(nm, "usage") || strstr(nm, "ratio"));
}

/* The end of a label set that starts at p ('{'), quotes and escapes
 * heeded: the '}' or NULL. */
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

static void sample(fm_ctx *c, const char *p, const char *end, const char *role)
{
	size_t nl = 0;
	while (p + nl < end && p[nl] != '{' && p[nl] != ' ' && p[nl] != '\t')
		nl++;
	const char *lb = p + nl, *le = lb;
	if (lb < end && *lb == '{' && !(le = labels_end(lb, end)))
		return; /* not a sample */
	const char *v = le < end && *le == '}' ? le + 1 : lb;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	char num[64];
	size_t vn = 0; /* the value ends at a blank (a timestamp may follow) or the line's end */
	while (v + vn < end && v[vn] != ' ' && v[vn] != '\t')
		vn++;
	if (!nl || vn == 0 || vn >= sizeof num)
		return;
	memcpy(num, v, vn);
	num[vn] = 0;
	char *e;
	double x = strtod(num, &e);
	if (*e)
		return;
	size_t f = family_of_sample(c, p, nl);
	if (f == SIZE_MAX)
		return;
	ib_buf k = {0};
	ib_buf_append(&k, p, nl);
	if (lb < end && *lb == '{' && le > lb + 1)
		ib_buf_printf(&k, "{%.*s,infbench_role=\"%s\"}", (int)(le - lb - 1), lb + 1, role);
	else
		ib_buf_printf(&k, "{infbench_role=\"%s\"}", role);
	if (k.err) {
		ib_buf_free(&k);
		c->err = IB_ENOMEM;
		return;
	}
	for (size_t i = 0; i < c->nser; i++)
		if (!strcmp(c->ser[i].key, k.data)) {
			c->ser[i].sum += x;
			c->ser[i].n++;
			ib_buf_free(&k);
			return;
		}
	if (ib_grow(&c->ser, &c->capser, c->nser + 1)) {
		ib_buf_free(&k);
		c->err = IB_ENOMEM;
		return;
	}
	c->ser[c->nser++] = (fm_series){.family = f, .key = k.data, .sum = x, .n = 1};
}

static void put_value(ib_buf *out, double v)
{
	if (isnan(v))
		ib_buf_puts(out, "NaN");
	else if (isinf(v))
		ib_buf_puts(out, v > 0 ? "+Inf" : "-Inf");
	else
		ib_buf_printf(out, "%.17g", v);
}

int cl_fe_merge_metrics(const char *const *bodies, const size_t *lens, const char *const *roles,
                        size_t n, ib_buf *out)
{
	fm_ctx c = {0};
	for (size_t i = 0; i < n && !c.err; i++) {
		const char *p = bodies[i], *end = bodies[i] + lens[i];
		while (p < end && !c.err) {
			const char *eol = memchr(p, '\n', (size_t)(end - p)), *le = eol ? eol : end;
			const char *q = le;
			if (q > p && q[-1] == '\r')
				q--;
			if (q > p && *p == '#')
				comment(&c, p, q);
			else if (q > p && memchr(p, 0, (size_t)(q - p)) == NULL)
				sample(&c, p, q, roles[i]);
			p = eol ? eol + 1 : end;
		}
	}
	for (size_t f = 0; f < c.nfam && !c.err; f++) {
		bool any = false;
		for (size_t i = 0; i < c.nser && !any; i++)
			any = c.ser[i].family == f;
		if (!any)
			continue;
		if (c.fam[f].help)
			ib_buf_printf(out, "%s\n", c.fam[f].help);
		if (c.fam[f].type)
			ib_buf_printf(out, "# TYPE %s %s\n", c.fam[f].name, c.fam[f].type);
		for (size_t i = 0; i < c.nser; i++) {
			if (c.ser[i].family != f)
				continue;
			ib_buf_printf(out, "%s ", c.ser[i].key);
			put_value(out, c.fam[f].mean ? c.ser[i].sum / c.ser[i].n : c.ser[i].sum);
			ib_buf_putc(out, '\n');
		}
	}
	for (size_t f = 0; f < c.nfam; f++) {
		free(c.fam[f].name);
		free(c.fam[f].help);
		free(c.fam[f].type);
	}
	for (size_t i = 0; i < c.nser; i++)
		free(c.ser[i].key);
	free(c.fam);
	free(c.ser);
	return c.err ? c.err : out->err ? IB_ENOMEM : 0;
}
