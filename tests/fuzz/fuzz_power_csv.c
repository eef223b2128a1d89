/* The telemetry CSV reader of `infbench power` (power/csv.c:
 * pw_csv_parse, and power/power.c: pw_integrate_csv, which reads a
 * gpu_metrics.csv or an srt-slurm samples.csv as aggregate_power does).
 * Checks: no crash; in both modes and with and without skipinitialspace,
 * every record has fields inside the arena (NUL-terminated at their length)
 * and lines that never go backwards; a csv.Error has a line; with
 * errors="replace" the fields are valid UTF-8 and bad_utf8 is never set;
 * text that is valid UTF-8 reads the same in both modes; integrating the
 * file over the window spanned by its parseable timestamps gives at most 64
 * distinct reasons, one entry per device, totals only when every device has
 * an energy. */
#include "fuzz.h"

#include <math.h>

#include "power/private.h"

static const char *const files[] = {"gpu_metrics.csv", NULL};

static bool valid_utf8(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		int k = ib_utf8_decode(s + i, n - i, &cp);
		if (k < 0)
			return false;
		i += (size_t)k;
	}
	return true;
}

static void check_rows(const pw_csv *c, bool replaced)
{
	int line = 0;
	for (size_t i = 0; i < c->n; i++) {
		const pw_csv_row *r = &c->rows[i];
		FUZZ_CHECK(r->line >= 1 && r->line >= line, "record %zu at line %d after %d", i,
		           r->line, line);
		line = r->line;
		for (size_t k = 0; k < r->n; k++) {
			FUZZ_CHECK(r->f[k] && r->f[k][r->len[k]] == '\0', "record %zu field %zu", i,
			           k);
			if (replaced)
				FUZZ_CHECK(valid_utf8(r->f[k], r->len[k]),
				           "record %zu field %zu is not UTF-8 after replace", i, k);
		}
	}
	if (c->error)
		FUZZ_CHECK(c->error_line >= 1, "csv.Error at line %d", c->error_line);
}

static bool same_rows(const pw_csv *a, const pw_csv *b)
{
	if (a->n != b->n || a->error != b->error)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		const pw_csv_row *x = &a->rows[i], *y = &b->rows[i];
		if (x->n != y->n || x->line != y->line)
			return false;
		for (size_t k = 0; k < x->n; k++)
			if (x->len[k] != y->len[k] || memcmp(x->f[k], y->f[k], x->len[k]))
				return false;
	}
	return true;
}

/* the span of the parseable timestamps in the first column that has one */
static bool window(const pw_csv *c, double *start, double *end)
{
	bool any = false;
	for (size_t i = 1; i < c->n && i < 4096; i++)
		for (size_t k = 0; k < c->rows[i].n && k < 64; k++) {
			double t;
			if (!pw_parse_timestamp(c->rows[i].f[k], c->rows[i].len[k], &t) ||
			    !isfinite(t))
				continue;
			if (!any || t < *start)
				*start = t;
			if (!any || t > *end)
				*end = t;
			any = true;
			break;
		}
	return any && *end > *start;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ib_arena *a = ib_arena_new();
	if (!a)
		return 0;
	const char *text = (const char *)data;
	pw_csv rep, strict;
	bool bad = true;
	for (int skip = 0; skip < 2; skip++) {
		bool rbad = false;
		if (pw_csv_parse(a, size ? text : "", size, skip, true, &rbad, &rep))
			goto out;
		FUZZ_CHECK(!rbad, "bad_utf8 set with errors=replace");
		check_rows(&rep, true);
		bad = false;
		if (pw_csv_parse(a, size ? text : "", size, skip, false, &bad, &strict)) {
			pw_csv_free(&rep);
			goto out;
		}
		check_rows(&strict, false);
		if (!bad && valid_utf8(text, size))
			FUZZ_CHECK(same_rows(&rep, &strict),
			           "valid UTF-8 reads differently with replace");
		pw_csv_free(&strict);
		if (skip)
			break;
		pw_csv_free(&rep);
	}
	double start = 0, end = 0;
	bool win = window(&rep, &start, &end);
	pw_csv_free(&rep);
	char path[512];
	snprintf(path, sizeof path, "%s/gpu_metrics.csv", fuzz_tmpdir(files));
	fuzz_write(path, data, size);
	if (!win)
		start = 0, end = 1;
	pw_integ in;
	pw_reasons r = {0};
	if (pw_integrate_csv(a, path, start, end, true, 8, &in, &r, NULL, NULL) == 0) {
		FUZZ_CHECK(r.n <= 64, "%zu reasons", r.n);
		for (size_t i = 0; i < r.n; i++)
			for (size_t k = 0; k < i; k++)
				FUZZ_CHECK(strcmp(r.v[i], r.v[k]), "reason %s twice", r.v[i]);
		bool all = in.n > 0;
		for (size_t d = 0; d < in.n; d++) {
			FUZZ_CHECK(in.ids[d] && in.dev[d].count >= 1, "device %zu", d);
			all &= in.dev[d].has_energy;
		}
		FUZZ_CHECK(in.has_totals == all, "totals %d, every device has energy %d",
		           in.has_totals, all);
	}
out:
	ib_arena_free(a);
	return 0;
}
