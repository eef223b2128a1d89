/* success rate: per-hardware job success counts of a workflow run
 * (docs/success-rate.md). */
#include "results/results.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define PFX "cluster:"

static int cmp_cstr(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

int res_hw_labels(const ib_val *runners, const char ***labels, size_t *n)
{
	const char **v = NULL;
	size_t cnt = 0, cap = 0;
	*labels = NULL;
	*n = 0;
	if (!runners || runners->type != IB_V_MAP)
		return 0;
	const ib_val *l = ib_map_get(runners, "labels");
	if (!l)
		l = runners;
	if (l->type == IB_V_MAP)
		for (size_t i = 0; i < l->map.n; i++) {
			const ib_val *k = l->map.kv[i].key;
			if (k->type != IB_V_STR || strncmp(k->str.s, PFX, strlen(PFX)))
				continue;
			if (ib_grow(&v, &cap, cnt + 1)) {
				free(v);
				return IB_ENOMEM;
			}
			v[cnt++] = k->str.s + strlen(PFX);
		}
	const ib_val *hw = ib_map_get(runners, "hardware");
	if (!cnt && hw && hw->type == IB_V_MAP)
		for (size_t i = 0; i < hw->map.n; i++) {
			const ib_val *k = hw->map.kv[i].key;
			if (k->type != IB_V_STR)
				continue;
			if (ib_grow(&v, &cap, cnt + 1)) {
				free(v);
				return IB_ENOMEM;
			}
			const char *s = k->str.s;
			v[cnt++] = strncmp(s, PFX, strlen(PFX)) ? s : s + strlen(PFX);
		}
	if (cnt)
		qsort(v, cnt, sizeof *v, cmp_cstr);
	size_t w = 0;
	for (size_t i = 0; i < cnt; i++)
		if (!w || strcmp(v[w - 1], v[i]))
			v[w++] = v[i];
	*labels = v;
	*n = w;
	return 0;
}

static bool alnum_lc(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool has_word(const char *hay, const char *needle)
{
	size_t m = strlen(needle);
	if (!m)
		return true;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) {
		bool left = p == hay || !alnum_lc(p[-1]);
		bool right = !alnum_lc(p[m]);
		if (left && right)
			return true;
	}
	return false;
}

int res_job_label(const char *name, const char *const *labels, size_t n)
{
	size_t len = strlen(name);
	char *lc = malloc(len + 1);
	if (!lc)
		return -1;
	/* str.lower() on ASCII; non-ASCII bytes never match [a-z0-9] either way */
	for (size_t i = 0; i <= len; i++)
		lc[i] = (char)tolower((unsigned char)name[i]);
	int found = -1;
	for (size_t i = 0; i < n && found < 0; i++) {
		size_t m = strlen(labels[i]);
		char *cl = malloc(m + sizeof PFX);
		if (!cl)
			break;
		memcpy(cl, PFX, strlen(PFX));
		memcpy(cl + strlen(PFX), labels[i], m + 1);
		if (has_word(lc, labels[i]) || has_word(lc, cl))
			found = (int)i;
		free(cl);
	}
	free(lc);
	return found;
}

int res_success_rates(ib_arena *a, const ib_val *jobs, const char *const *labels, size_t n,
                      ib_val **out, ib_error *e)
{
	if (!jobs || jobs->type != IB_V_LIST)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "field 'jobs': must be a list");
	int64_t *succ = calloc(n + 1, sizeof *succ), *tot = calloc(n + 1, sizeof *tot);
	int rc = 0;
	if (!succ || !tot)
		rc = ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	for (size_t i = 0; !rc && i < jobs->list.n; i++) {
		const ib_val *j = jobs->list.v[i];
		const ib_val *nm = j->type == IB_V_MAP ? ib_map_get(j, "name") : NULL;
		if (!nm || nm->type != IB_V_STR) {
			rc = ib_fail(e, IB_EINVAL, "", 0, 0,
			             "field 'jobs[%zu].name': must be a string", i);
			break;
		}
		const ib_val *c = ib_map_get(j, "conclusion");
		const char *cs = c && c->type == IB_V_STR ? c->str.s : NULL;
		int k = res_job_label(nm->str.s, labels, n);
		if (k < 0 || (cs && !strcmp(cs, "skipped")))
			continue;
		tot[k]++;
		if (cs && !strcmp(cs, "success"))
			succ[k]++;
	}
	ib_val *m = rc ? NULL : ib_v_map(a);
	if (!rc && !m)
		rc = ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	for (size_t i = 0; !rc && i < n; i++) {
		ib_val *s = ib_v_map(a);
		if (!s || ib_map_set(a, s, "n_success", ib_v_int(a, succ[i])) ||
		    ib_map_set(a, s, "total", ib_v_int(a, tot[i])) ||
		    ib_map_set(a, m, labels[i], s))
			rc = ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	}
	free(succ);
	free(tot);
	if (!rc)
		*out = m;
	return rc;
}

static int pad(ib_buf *b, const char *s, int w)
{
	int rc = ib_buf_puts(b, s);
	for (int k = (int)strlen(s); !rc && k < w; k++)
		rc = ib_buf_putc(b, ' ');
	return rc;
}

int res_success_table(ib_buf *b, const ib_val *rates)
{
	if (!rates || rates->type != IB_V_MAP)
		return ib_buf_puts(b, "No data to display\n");
	static const char eq[] = "============================================================";
	static const char da[] = "------------------------------------------------------------";
	int rc = ib_buf_printf(b, "\n%s\nHardware Success Rates\n%s\n", eq, eq);
	rc = rc ? rc
	        : ib_buf_printf(b, "%-20s %-10s %-10s %-10s\n%s\n", "Hardware", "Success", "Total",
	                        "Rate", da);
	/* keys are already sorted (res_hw_labels) */
	for (size_t i = 0; !rc && i < rates->map.n; i++) {
		const ib_val *s = rates->map.kv[i].val;
		int64_t ns = ib_map_get(s, "n_success")->i, t = ib_map_get(s, "total")->i;
		if (t <= 0)
			continue;
		char num[64];
		rc = pad(b, rates->map.kv[i].key->str.s, 20);
		rc = rc ? rc : ib_buf_printf(b, " %-10lld %-10lld ", (long long)ns, (long long)t);
		snprintf(num, sizeof num, "%.2f", (double)ns / (double)t * 100.0);
		rc = rc ? rc : pad(b, num, 10);
		rc = rc ? rc : ib_buf_puts(b, "%\n");
	}
	return rc ? rc : ib_buf_printf(b, "%s\n", eq);
}
