/* gsm8k answer extraction and exact_match scoring (lm-eval semantics, see
 * eval.h and tests/golden/results/tools/gsm8k_ref.py). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "eval/eval.h"

#include <math.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#define MAXF 8

typedef struct {
	const char *name;
	pcre2_code *re; /* NULL: no regex step */
	long group_select;
	const char *fallback;
} ev_filter;

static int compile(const char *pat, pcre2_code **out, ib_error *e)
{
	int ec;
	PCRE2_SIZE eo;
	*out = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &ec,
	                     &eo, NULL);
	if (!*out) {
		PCRE2_UCHAR msg[160];
		pcre2_get_error_message(ec, msg, sizeof msg);
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "regex '%s': %s", pat, (char *)msg);
	}
	return 0;
}

/* The next match of re in s[0..n) at or after *pos, as Python's finditer
 * walks them (after an empty match, the next one may not be empty at the same
 * place; failing that, the walk moves on one code point). Returns pcre2_match's
 * count (> 0) with the ovector in md and *pos, *opt set for the next call,
 * PCRE2_ERROR_NOMATCH at the end, or another negative PCRE2 error. */
static int next_match(const pcre2_code *re, const char *s, size_t n, size_t *pos, uint32_t *opt,
                      pcre2_match_data *md)
{
	while (*pos <= n) {
		int m = pcre2_match(re, (PCRE2_SPTR)s, n, *pos, *opt, md, NULL);
		if (m == PCRE2_ERROR_NOMATCH && *opt) {
			*opt = 0;
			(*pos)++;
			while (*pos < n && ((unsigned char)s[*pos] & 0xC0) == 0x80)
				(*pos)++;
			continue;
		}
		if (m > 0) {
			PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
			*pos = ov[1];
			*opt = ov[0] == ov[1] ? PCRE2_NOTEMPTY_ATSTART | PCRE2_ANCHORED : 0;
		}
		return m;
	}
	return PCRE2_ERROR_NOMATCH;
}

/* A failed pcre2_match as an error: a resource limit (match, depth or heap
 * limit: the backtracking a pathological answer causes) is IB_ERANGE, the
 * caller scores the answer as wrong; anything else IB_EINVAL. */
static int match_failed(int m, ib_error *e)
{
	if (m == PCRE2_ERROR_MATCHLIMIT || m == PCRE2_ERROR_DEPTHLIMIT ||
	    m == PCRE2_ERROR_HEAPLIMIT || m == PCRE2_ERROR_JIT_STACKLIMIT ||
	    m == PCRE2_ERROR_NOMEMORY)
		return ib_fail(e, IB_ERANGE, NULL, 0, 0, "regex match limit reached (%d)", m);
	return ib_fail(e, IB_EINVAL, NULL, 0, 0, "regex match failed (%d)", m);
}

/* Python re.sub(re, "", s) into out. */
static int re_sub(pcre2_code *re, const char *s, size_t n, ib_buf *out, ib_error *e)
{
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	if (!md)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	out->len = 0;
	int rc = ib_buf_append(out, "", 0);
	size_t pos = 0, copied = 0;
	uint32_t opt = 0;
	while (!rc) {
		int m = next_match(re, s, n, &pos, &opt, md);
		if (m == PCRE2_ERROR_NOMATCH)
			break;
		if (m < 0) {
			rc = match_failed(m, e);
			break;
		}
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		rc = ib_buf_append(out, s + copied, ov[0] - copied);
		copied = ov[1];
	}
	if (!rc)
		rc = ib_buf_append(out, s + copied, n - copied);
	pcre2_match_data_free(md);
	return rc;
}

/* Python's findall(resp)[group_select] with the first non-empty group,
 * stripped, or the fallback; the result goes into out. */
static int re_extract(const ev_filter *f, const char *s, size_t n, ib_buf *out, ib_error *e)
{
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(f->re, NULL);
	if (!md)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	uint32_t ngroups = 0;
	pcre2_pattern_info(f->re, PCRE2_INFO_CAPTURECOUNT, &ngroups);
	size_t(*hits)[2] = NULL, nh = 0, caph = 0;
	size_t pos = 0;
	uint32_t opt = 0;
	int rc = 0;
	for (;;) {
		int m = next_match(f->re, s, n, &pos, &opt, md);
		if (m == PCRE2_ERROR_NOMATCH)
			break;
		if (m < 0) {
			rc = match_failed(m, e);
			goto done;
		}
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		size_t a = ov[0], b = ov[1]; /* whole match when no groups */
		if (ngroups >= 1) {
			a = b = 0;
			bool found = false;
			for (uint32_t g = 1; g <= ngroups && g < (uint32_t)m; g++) {
				if (ov[2 * g] != PCRE2_UNSET && ov[2 * g + 1] > ov[2 * g]) {
					a = ov[2 * g], b = ov[2 * g + 1], found = true;
					break;
				}
			}
			if (!found && ngroups > 1)
				a = b = (size_t)-1; /* all groups empty: the fallback */
		}
		if ((rc = ib_grow(&hits, &caph, nh + 1)))
			goto done;
		hits[nh][0] = a, hits[nh][1] = b, nh++;
	}
	out->len = 0;
	rc = ib_buf_append(out, "", 0);
	if (!nh) {
		rc = rc ? rc : ib_buf_puts(out, f->fallback);
		goto done;
	}
	long k = f->group_select < 0 ? (long)nh + f->group_select : f->group_select;
	if (k < 0 || (size_t)k >= nh) {
		rc = ib_fail(e, IB_EINVAL, NULL, 0, 0, "filter '%s': group_select %ld out of range",
		             f->name, f->group_select);
		goto done;
	}
	if (hits[k][0] == (size_t)-1) {
		rc = rc ? rc : ib_buf_puts(out, f->fallback);
		goto done;
	}
	size_t a = hits[k][0], b = hits[k][1];
	while (a < b && strchr(" \t\n\r\v\f\x1c\x1d\x1e\x1f", s[a]) && s[a])
		a++;
	while (b > a && strchr(" \t\n\r\v\f\x1c\x1d\x1e\x1f", s[b - 1]) && s[b - 1])
		b--;
	rc = rc ? rc : ib_buf_append(out, s + a, b - a);
done:
	free(hits);
	pcre2_match_data_free(md);
	return rc;
}

typedef struct {
	pcre2_code *ignore[16];
	size_t nignore;
	bool icase, ipunct, inum;
} ev_metric;

static void strip_nuls(ib_buf *b)
{
	while (b->len && b->data[b->len - 1] == '\0')
		b->len--;
}

/* Normalises s in place as exact_match_hf_evaluate does (one-item arrays). */
static int normalise(const ev_metric *mt, ib_buf *s, ib_buf *tmp, ib_error *e)
{
	for (size_t i = 0; i < mt->nignore; i++) {
		int rc = re_sub(mt->ignore[i], s->data, s->len, tmp, e);
		if (rc)
			return rc;
		ib_buf t = *s;
		*s = *tmp;
		*tmp = t;
		strip_nuls(s);
	}
	strip_nuls(s);
	if (mt->icase || mt->ipunct || mt->inum) {
		tmp->len = 0;
		size_t i = 0;
		while (i < s->len) {
			utf8proc_int32_t c;
			utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s->data + i,
			                                      (utf8proc_ssize_t)(s->len - i), &c);
			if (k <= 0) {
				c = (unsigned char)s->data[i];
				k = 1;
			}
			i += (size_t)k;
			if (mt->icase)
				c = utf8proc_tolower(c);
			if (mt->ipunct && c < 128 &&
			    strchr("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) && c)
				continue;
			if (mt->inum && c >= '0' && c <= '9')
				continue;
			utf8proc_uint8_t enc[4];
			utf8proc_ssize_t w = utf8proc_encode_char(c, enc);
			int rc = ib_buf_append(tmp, enc, (size_t)w);
			if (rc)
				return rc;
		}
		ib_buf t = *s;
		*s = *tmp;
		*tmp = t;
		int rc = ib_buf_append(s, "", 0);
		if (rc)
			return rc;
		strip_nuls(s);
	}
	return 0;
}

static int load_task(ib_arena *a, const ib_val *task, ev_filter *fs, size_t *nf, ev_metric *mt,
                     ib_error *e)
{
	const ib_val *ml = ib_map_get(task, "metric_list"), *fl = ib_map_get(task, "filter_list");
	if (!ml || ml->type != IB_V_LIST || !ml->list.n || !fl || fl->type != IB_V_LIST)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
		               "task: metric_list and filter_list required");
	const ib_val *m0 = ml->list.v[0], *metric = ib_map_get(m0, "metric");
	if (!metric || metric->type != IB_V_STR || strcmp(metric->str.s, "exact_match"))
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "unsupported metric");
	const ib_val *ri = ib_map_get(m0, "regexes_to_ignore");
	if (ri && ri->type == IB_V_LIST)
		for (size_t i = 0; i < ri->list.n && mt->nignore < 16; i++) {
			if (ri->list.v[i]->type != IB_V_STR)
				return ib_fail(e, IB_EINVAL, NULL, 0, 0,
				               "regexes_to_ignore: not a string");
			int rc = compile(ri->list.v[i]->str.s, &mt->ignore[mt->nignore], e);
			if (rc)
				return rc;
			mt->nignore++;
		}
	mt->icase = ib_val_truthy(ib_map_get(m0, "ignore_case"));
	mt->ipunct = ib_val_truthy(ib_map_get(m0, "ignore_punctuation"));
	mt->inum = ib_val_truthy(ib_map_get(m0, "ignore_numbers"));
	for (size_t i = 0; i < fl->list.n && i < MAXF; i++) {
		const ib_val *f = fl->list.v[i], *name = ib_map_get(f, "name"),
		             *steps = ib_map_get(f, "filter");
		if (!name || name->type != IB_V_STR || !steps || steps->type != IB_V_LIST)
			return ib_fail(e, IB_EINVAL, NULL, 0, 0, "filter_list[%zu]: bad entry", i);
		ev_filter *o = &fs[(*nf)++];
		*o = (ev_filter){.name = name->str.s, .fallback = "[invalid]"};
		for (size_t k = 0; k < steps->list.n; k++) {
			const ib_val *st = steps->list.v[k], *fn = ib_map_get(st, "function");
			if (fn && fn->type == IB_V_STR && !strcmp(fn->str.s, "take_first"))
				continue;
			if (!fn || fn->type != IB_V_STR || strcmp(fn->str.s, "regex") || o->re)
				return ib_fail(e, IB_EINVAL, NULL, 0, 0,
				               "filter '%s': unsupported filter function", o->name);
			const ib_val *pat = ib_map_get(st, "regex_pattern"),
			             *gs = ib_map_get(st, "group_select"),
			             *fb = ib_map_get(st, "fallback");
			int rc = compile(pat && pat->type == IB_V_STR ? pat->str.s
			                                              : "#### (\\-?[0-9\\.\\,]+)",
			                 &o->re, e);
			if (rc)
				return rc;
			if (gs && gs->type == IB_V_INT)
				o->group_select = (long)gs->i;
			if (fb && fb->type == IB_V_STR)
				o->fallback = fb->str.s;
		}
	}
	(void)a;
	return 0;
}

struct ev_task {
	ev_filter fs[MAXF];
	size_t nf;
	ev_metric mt;
	ib_buf pred, ref, tmp;
};

int ev_task_new(const ib_val *task, ev_task **out, ib_error *e)
{
	ev_task *t = calloc(1, sizeof *t);
	if (!t)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	int rc = load_task(NULL, task, t->fs, &t->nf, &t->mt, e);
	if (rc) {
		ev_task_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void ev_task_free(ev_task *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nf; i++)
		pcre2_code_free(t->fs[i].re);
	for (size_t i = 0; i < t->mt.nignore; i++)
		pcre2_code_free(t->mt.ignore[i]);
	ib_buf_free(&t->pred);
	ib_buf_free(&t->ref);
	ib_buf_free(&t->tmp);
	free(t);
}

size_t ev_task_nfilters(const ev_task *t)
{
	return t->nf;
}

const char *ev_task_filter(const ev_task *t, size_t i)
{
	return t->fs[i].name;
}

int ev_task_score(ev_task *t, const char *resp, size_t rn, const char *target, size_t tn,
                  ib_buf *answers, double *scores, ib_error *e)
{
	for (size_t i = 0; i < t->nf; i++) {
		ib_buf *ans = &answers[i];
		int rc;
		if (t->fs[i].re) {
			rc = re_extract(&t->fs[i], resp, rn, ans, e);
		} else {
			ans->len = 0;
			rc = ib_buf_append(ans, resp, rn);
		}
		if (rc == IB_ERANGE) {
			/* a pathological answer the regex gives up on: the
			 * filter's fallback, scored as wrong; the eval goes on */
			ans->len = 0;
			rc = ib_buf_puts(ans, t->fs[i].fallback);
		}
		t->pred.len = 0, t->ref.len = 0;
		rc = rc ? rc : ib_buf_append(&t->pred, ans->data, ans->len);
		rc = rc ? rc : ib_buf_append(&t->ref, target, tn);
		rc = rc ? rc : normalise(&t->mt, &t->pred, &t->tmp, e);
		if (rc == IB_ERANGE) { /* the same in the normalisation of the answer */
			scores[i] = 0.0;
			continue;
		}
		rc = rc ? rc : normalise(&t->mt, &t->ref, &t->tmp, e);
		if (rc)
			return rc == IB_ENOMEM ? ib_fail(e, rc, NULL, 0, 0, "out of memory") : rc;
		scores[i] =
		    t->pred.len == t->ref.len && !memcmp(t->pred.data, t->ref.data, t->pred.len)
		        ? 1.0
		        : 0.0;
	}
	return 0;
}

void ev_mean_stderr(const double *x, size_t n, double *mean, double *se)
{
	double sum = 0;
	for (size_t k = 0; k < n; k++)
		sum += x[k];
	double mu = n ? sum / (double)n : 0, ss = 0;
	for (size_t k = 0; k < n; k++)
		ss += (x[k] - mu) * (x[k] - mu);
	*mean = mu;
	*se = n > 1 ? sqrt(ss / (double)(n - 1)) / sqrt((double)n) : 0;
}

int ev_score_file(const char *yaml_path, const char *responses_path, ib_buf *out, ib_error *e)
{
	ib_arena *a = ib_arena_new();
	if (!a)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	ev_task *t = NULL;
	ib_buf text = {0}, ans[MAXF] = {{0}};
	double *scores[MAXF] = {0};
	size_t cap[MAXF] = {0}, n = 0;
	ib_val *task = NULL;
	int rc = ib_yaml_load_file(a, yaml_path, &task, e);
	if (!rc)
		rc = ev_task_new(task, &t, e);
	if (!rc)
		rc = ib_read_file(responses_path, &text, e);
	size_t lineno = 0;
	for (char *p = text.data; !rc && p && p < text.data + text.len;) {
		char *nl = memchr(p, '\n', (size_t)(text.data + text.len - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(text.data + text.len - p);
		char *line = p;
		p = nl ? nl + 1 : text.data + text.len;
		lineno++;
		if (!len)
			continue;
		ib_val *item = NULL;
		if ((rc = ib_json_parse(a, responses_path, line, len, &item, e)))
			break;
		const ib_val *resp = ib_map_get(item, "response"),
		             *tgt = ib_map_get(item, "target");
		if (!tgt || tgt->type != IB_V_STR) {
			rc = ib_fail(e, IB_EINVAL, responses_path, (int)lineno, 0,
			             "'target' must be a string");
			break;
		}
		const char *rs = resp && resp->type == IB_V_STR ? resp->str.s : "";
		size_t rn = resp && resp->type == IB_V_STR ? resp->str.len : 0;
		double sc[MAXF];
		if ((rc = ev_task_score(t, rs, rn, tgt->str.s, tgt->str.len, ans, sc, e)))
			break;
		ib_val *o = ib_v_map(a);
		rc = o ? 0 : IB_ENOMEM;
		for (size_t i = 0; !rc && i < t->nf; i++)
			rc = ib_map_set(a, o, t->fs[i].name, ib_v_strn(a, ans[i].data, ans[i].len));
		for (size_t i = 0; !rc && i < t->nf; i++) {
			char key[200];
			snprintf(key, sizeof key, "exact_match,%s", t->fs[i].name);
			rc = ib_map_set(a, o, key, ib_v_float(a, sc[i]));
			if (!rc && (rc = ib_grow(&scores[i], &cap[i], n + 1)) == 0)
				scores[i][n] = sc[i];
		}
		n++;
		rc = rc ? rc : ib_json_write(out, o, &IB_JSON_PYTHON, e);
		rc = rc ? rc : ib_buf_putc(out, '\n');
	}
	if (!rc) {
		ib_val *s = ib_v_map(a);
		const ib_val *alias = ib_map_get(task, "task");
		rc = ib_map_set(a, s, "alias", alias ? (ib_val *)alias : ib_v_null(a));
		for (size_t i = 0; !rc && i < t->nf; i++) {
			char key[200];
			double mu, se;
			ev_mean_stderr(scores[i], n, &mu, &se);
			snprintf(key, sizeof key, "exact_match,%s", t->fs[i].name);
			rc = ib_map_set(a, s, key, n ? ib_v_float(a, mu) : ib_v_str(a, "N/A"));
			snprintf(key, sizeof key, "exact_match_stderr,%s", t->fs[i].name);
			rc = rc ? rc
			        : ib_map_set(a, s, key,
			                     n > 1 ? ib_v_float(a, se) : ib_v_str(a, "N/A"));
		}
		rc = rc ? rc : ib_json_write(out, s, &IB_JSON_PYTHON, e);
		rc = rc ? rc : ib_buf_putc(out, '\n');
	}
	for (size_t i = 0; i < MAXF; i++) {
		free(scores[i]);
		ib_buf_free(&ans[i]);
	}
	ev_task_free(t);
	ib_buf_free(&text);
	ib_arena_free(a);
	return rc;
}
