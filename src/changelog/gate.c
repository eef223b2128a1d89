/* changelog/gate: the byte-level append-only contract of perf-changelog.yaml
 * (validate_perf_changelog.py's parse_changelog, compare_entries and
 * validate_raw_change; spec/matrix.md §4.4). */
#include "changelog/private.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int gfail(ib_error *e, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int gfail(ib_error *e, const char *file, int line, const char *fmt, ...)
{
	ib_buf m = {0};
	va_list ap;
	va_start(ap, fmt);
	ib_buf_vprintf(&m, fmt, ap);
	va_end(ap);
	int rc = ib_fail(e, IB_EINVAL, file ? file : "", line, 0, "%s", m.data ? m.data : fmt);
	ib_buf_free(&m);
	return rc;
}

static int line_of(const char *raw, size_t off)
{
	int l = 1;
	for (size_t i = 0; i < off; i++)
		l += raw[i] == '\n';
	return l;
}

int clog_parse(ib_arena *a, const char *raw, size_t n, const char *label, ib_val **entries,
               ib_error *e)
{
	if (n == 0 || raw[n - 1] != '\n')
		return gfail(e, NULL, 0, "%s does not end with a newline", label);
	const char *bad[][2] = {{"\r", "CR characters"}, {"\t", "tabs"}};
	for (int i = 0; i < 2; i++) {
		const char *p = memchr(raw, bad[i][0][0], n);
		if (p)
			return gfail(e, NULL, line_of(raw, (size_t)(p - raw)), "%s contains %s",
			             label, bad[i][1]);
	}
	const char *z = memchr(raw, '\0', n);
	if (z)
		return gfail(e, NULL, line_of(raw, (size_t)(z - raw)), "%s contains NUL bytes",
		             label);
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		int k = ib_utf8_decode(raw + i, n - i, &cp);
		if (k <= 0) {
			char m[64];
			snprintf(m, sizeof m, "invalid byte 0x%02x at offset %zu",
			         (unsigned char)raw[i], i);
			return gfail(e, NULL, line_of(raw, i), "%s is not UTF-8: %s", label, m);
		}
		i += (size_t)k;
	}
	ib_val *data;
	ib_error ye;
	int rc = ib_yaml_load_unique(a, label, raw, n, &data, &ye);
	if (rc == IB_ENOMEM)
		return ib_fail(e, rc, "", 0, 0, "out of memory");
	if (rc)
		return ib_fail(e, IB_EINVAL, "", ye.line, ye.col, "%s is not valid YAML: %s", label,
		               ye.msg);
	if (data->type != IB_V_LIST)
		return gfail(e, NULL, 0, "%s root must be a YAML list", label);
	size_t top = 0;
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(raw + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - raw - i) : n - i;
		if (len >= 14 && !memcmp(raw + i, "- config-keys:", 14))
			top++;
		i += len + 1;
	}
	if (top != data->list.n) {
		char m[160];
		snprintf(m, sizeof m,
		         "has %zu top-level config entries but YAML parsed %zu entries", top,
		         data->list.n);
		return gfail(e, NULL, 0, "%s %s", label, m);
	}
	clog_where w = {.file = label};
	for (size_t i = 0; i < data->list.n; i++) {
		ib_val *norm;
		ib_error ve;
		w.index = (int)i + 1;
		const ib_val *it = data->list.v[i];
		if (it->type != IB_V_MAP) {
			char m[64];
			snprintf(m, sizeof m, "entry %zu is not a mapping", i + 1);
			return gfail(e, NULL, it->line, "%s %s", label, m);
		}
		if ((rc = clog_entry_validate(a, it, &w, &norm, &ve))) {
			if (rc == IB_ENOMEM)
				return ib_fail(e, rc, "", 0, 0, "out of memory");
			return ib_fail(e, IB_EINVAL, "", ve.line, ve.col,
			               "%s entry %zu fails ChangelogEntry validation: %s", label,
			               i + 1, ve.msg);
		}
	}
	*entries = data;
	return 0;
}

/* https://github.com/SemiAnalysisAI/InferenceX/pull/<digits>, whole string */
static bool canonical_link(const char *s)
{
	static const char pre[] = "https://github.com/SemiAnalysisAI/InferenceX/pull/";
	if (strncmp(s, pre, sizeof pre - 1))
		return false;
	s += sizeof pre - 1;
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static const char *link_of(ib_arena *a, const ib_val *entry)
{
	const ib_val *v = ib_map_get(entry, "pr-link");
	if (!v || !ib_val_truthy(v))
		return "";
	ib_buf b = {0};
	ib_val_pystr(&b, v);
	const char *s = ib_arena_strdup(a, b.data ? b.data : "");
	ib_buf_free(&b);
	return s ? s : "";
}

static void repr(ib_buf *b, const char *s)
{
	clog_repr_strs(b, &s, 1);
	/* strip the brackets */
	memmove(b->data, b->data + 1, b->len - 2);
	b->len -= 2;
	b->data[b->len] = '\0';
}

int clog_gate(ib_arena *a, const char *base_raw, size_t base_n, const char *head_raw, size_t head_n,
              const char *path, int64_t pr_number, size_t *added, size_t *corrections, ib_error *e)
{
	ib_val *base, *head;
	char lb[512], lh[512];
	snprintf(lb, sizeof lb, "%s at base", path);
	snprintf(lh, sizeof lh, "%s at head", path);
	int rc = clog_parse(a, base_raw, base_n, lb, &base, e);
	if (!rc)
		rc = clog_parse(a, head_raw, head_n, lh, &head, e);
	if (rc)
		return rc;
	if (head->list.n < base->list.n)
		return gfail(e, path, 0, "perf-changelog.yaml entries were deleted");
	size_t corr = 0;
	const char *const drop_link[] = {"pr-link"};
	for (size_t i = 0; i < base->list.n; i++) {
		const ib_val *b = base->list.v[i], *h = head->list.v[i];
		if (ib_val_equal(b, h))
			continue;
		ib_val *bc = ib_map_copy(a, b), *hc = ib_map_copy(a, h);
		if (!bc || !hc)
			return ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
		ib_map_del(bc, drop_link[0]);
		ib_map_del(hc, drop_link[0]);
		char n[32];
		snprintf(n, sizeof n, "%zu", i + 1);
		if (!ib_val_equal(bc, hc))
			return gfail(e, path, h->line,
			             "entry %s changed; existing entries are immutable except for "
			             "pr-link-only corrections",
			             n);
		const char *ol = link_of(a, b), *nl = link_of(a, h);
		if (!strcmp(ol, nl))
			return gfail(e, path, h->line,
			             "entry %s was reformatted without a semantic change", n);
		if (!canonical_link(nl)) {
			ib_buf r = {0};
			repr(&r, nl);
			rc = gfail(e, path, h->line,
			           "entry %s pr-link correction is not canonical: %s", n, r.data);
			ib_buf_free(&r);
			return rc;
		}
		corr++;
	}
	size_t add = head->list.n - base->list.n;
	if (corr && add)
		return gfail(
		    e, path, 0,
		    "do not mix historical pr-link corrections with new changelog entries");
	for (size_t i = base->list.n; i < head->list.n; i++) {
		const ib_val *h = head->list.v[i];
		const char *l = link_of(a, h);
		const ib_val *lv = ib_map_get(h, "pr-link");
		int line = lv ? lv->line : h->line;
		ib_buf r = {0};
		repr(&r, l);
		if (pr_number < 0) {
			if (!canonical_link(l)) {
				rc = gfail(e, path, line,
				           "new main-branch entry has invalid pr-link: %s", r.data);
				ib_buf_free(&r);
				return rc;
			}
		} else {
			char expected[128];
			snprintf(expected, sizeof expected,
			         "https://github.com/SemiAnalysisAI/InferenceX/pull/%lld",
			         (long long)pr_number);
			if (strcmp(l, "XXX") &&
			    strcmp(l, "https://github.com/SemiAnalysisAI/InferenceX/pull/XXX") &&
			    strcmp(l, expected)) {
				ib_buf x = {0};
				repr(&x, expected);
				char m[600];
				snprintf(m, sizeof m,
				         "new PR entry must use %s or an XXX placeholder; ",
				         x.data);
				rc = gfail(e, path, line, "%sfound %s", m, r.data);
				ib_buf_free(&x);
				ib_buf_free(&r);
				return rc;
			}
		}
		ib_buf_free(&r);
	}
	*added = add;
	*corrections = corr;
	/* validate_raw_change */
	if (add) {
		if (head_n < base_n || memcmp(head_raw, base_raw, base_n)) {
			size_t i = 0;
			while (i < base_n && i < head_n && head_raw[i] == base_raw[i])
				i++;
			return gfail(
			    e, path, line_of(head_raw, i),
			    "appended entries changed historical perf-changelog.yaml bytes; "
			    "restore the base file byte-for-byte and append at the end");
		}
		bool dbl =
		    base_n >= 2 && base_raw[base_n - 1] == '\n' && base_raw[base_n - 2] == '\n';
		const char *want = dbl ? "- config-keys:" : "\n- config-keys:";
		size_t wl = strlen(want);
		if (head_n - base_n < wl || memcmp(head_raw + base_n, want, wl))
			return gfail(e, path, line_of(head_raw, base_n),
			             "new changelog entries must be separated from history by one "
			             "empty line and appended at the end");
		/* the starts of the last `add` entries */
		size_t starts[4096], ns = 0, total = 0;
		for (size_t i = 0; i < head_n;) {
			const char *nl = memchr(head_raw + i, '\n', head_n - i);
			size_t len = nl ? (size_t)(nl - head_raw - i) : head_n - i;
			if (nl && len >= 14 && !memcmp(head_raw + i, "- config-keys:", 14) &&
			    !memchr(head_raw + i, '\r', len)) {
				starts[ns % 4096] = i;
				ns++;
				total++;
			}
			i += len + 1;
		}
		size_t first = total >= add ? total - add : 0;
		for (size_t k = first + 1; k < total; k++) {
			if (total - k > 4096)
				continue;
			size_t s = starts[k % 4096];
			bool two = s >= 2 && head_raw[s - 1] == '\n' && head_raw[s - 2] == '\n';
			bool three = two && s >= 3 && head_raw[s - 3] == '\n';
			if (!two || three)
				return gfail(
				    e, path, line_of(head_raw, s),
				    "appended changelog entries must have exactly one empty "
				    "separator line");
		}
		if (head_n >= 2 && head_raw[head_n - 1] == '\n' && head_raw[head_n - 2] == '\n')
			return gfail(
			    e, path, line_of(head_raw, head_n - 1),
			    "the final appended changelog entry must end with one newline");
		return 0;
	}
	if (corr) {
		size_t bi = 0, hi = 0, changed = 0;
		int line = 0;
		while (bi < base_n && hi < head_n) {
			const char *bn = memchr(base_raw + bi, '\n', base_n - bi);
			const char *hn = memchr(head_raw + hi, '\n', head_n - hi);
			size_t bl = bn ? (size_t)(bn - base_raw - bi) + 1 : base_n - bi;
			size_t hl = hn ? (size_t)(hn - head_raw - hi) + 1 : head_n - hi;
			line++;
			if (bl != hl || memcmp(base_raw + bi, head_raw + hi, bl)) {
				changed++;
				bool ok = bl >= 10 && hl >= 10 &&
				          !memcmp(base_raw + bi, "  pr-link:", 10) &&
				          !memcmp(head_raw + hi, "  pr-link:", 10) && bn && hn;
				if (!ok) {
					char m[32];
					snprintf(m, sizeof m, "%d", line);
					return gfail(
					    e, path, line,
					    "historical bytes changed outside a pr-link line at "
					    "line %s",
					    m);
				}
			}
			bi += bl;
			hi += hl;
		}
		if (bi < base_n || hi < head_n)
			return gfail(e, path, 0, "pr-link corrections may not add or delete lines");
		if (changed != corr) {
			char m[96];
			snprintf(m, sizeof m, "expected %zu changed pr-link line(s), found %zu",
			         corr, changed);
			return gfail(e, path, 0, "%s", m);
		}
		return 0;
	}
	if (base_n != head_n || memcmp(base_raw, head_raw, base_n))
		return gfail(e, path, 0,
		             "changelog diff has no appended entry or pr-link correction; "
		             "historical whitespace and formatting are immutable");
	return 0;
}
