/* changelog/process: process_changelog.py (spec/matrix.md §4.1–4.5). */
#define _POSIX_C_SOURCE 200809L
#include "changelog/private.h"
#include "matrix/matrix.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIXED   1
#define AGENTIC 2
#define BOTH    (FIXED | AGENTIC)

static const char *const default_masters[] = {"configs/amd-master.yaml",
                                              "configs/nvidia-master.yaml"};
static const char default_runners[] = "configs/runners.yaml";

static int oom(ib_error *e)
{
	return ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
}

/* ---- §4.2: the added lines of `git diff B H -- PATH` ---- */

typedef clog_additions additions;

static int added_lines(const clog_opts *o, additions *ad, ib_error *e)
{
	const char *args[] = {"diff", o->base_ref, o->head_ref, "--", o->changelog_file, NULL};
	ib_buf diff = {0};
	ib_error ge;
	int rc = clog_git(o->repo, args, &diff, &ge);
	if (rc) {
		ib_buf_free(&diff);
		if (rc == IB_ENOENT)
			return ib_fail(e, IB_EINVAL, "", 0, 0, "git diff %s %s -- %s failed: %s",
			               o->base_ref, o->head_ref, o->changelog_file, ge.msg);
		if (e)
			*e = ge;
		return rc;
	}
	rc = clog_diff_additions(diff.data, diff.len, o, ad, e);
	ib_buf_free(&diff);
	return rc;
}

/* The start line of a hunk range ("12,3" of "@@ -12,3 +14,5 @@"): its digits
 * up to end, clamped to INT_MAX (line counts never wrap). */
static int hunk_start(const char *s, const char *end)
{
	int64_t v = 0;
	for (; s < end && *s >= '0' && *s <= '9'; s++)
		v = v < INT_MAX ? v * 10 + (*s - '0') : v;
	return v < INT_MAX ? (int)v : INT_MAX;
}

int clog_diff_additions(const char *diff, size_t n, const clog_opts *o, clog_additions *ad,
                        ib_error *e)
{
	int rc = 0;
	int newline = 0, oldline = 0;
	const char *p = diff ? diff : "", *end = p + n;
	while (p < end || (p == end && n == 0)) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (len >= 2 && p[0] == '@' && p[1] == '@') {
			const char *plus = memchr(p, '+', len);
			newline = plus ? hunk_start(plus + 1, p + len) : 0;
			const char *minus = memchr(p, '-', len);
			oldline = minus ? hunk_start(minus + 1, p + len) : 0;
		} else if (len >= 1 && p[0] == '-' && !(len >= 3 && !strncmp(p, "---", 3))) {
			bool blank = true;
			for (size_t i = 1; i < len; i++)
				if (!strchr(" \t\n\r\v\f", p[i]))
					blank = false;
			if (!blank) {
				rc = ib_fail(
				    e, IB_EINVAL, o->changelog_file, oldline, 0,
				    "Deletions are not allowed in %s. Only additions to the "
				    "changelog are permitted. Found deleted line: %.*s\n"
				    "(line %d of %s at %s; the changelog is append-only: "
				    "restore the line and add new entries at the end)",
				    o->changelog_file, (int)(len - 1), p + 1, oldline,
				    o->changelog_file, o->base_ref);
				break;
			}
			oldline += oldline < INT_MAX;
		} else if (len >= 1 && p[0] == '+' && !(len >= 3 && !strncmp(p, "+++", 3))) {
			if ((ad->n && ib_buf_putc(&ad->text, '\n')) ||
			    ib_buf_append(&ad->text, p + 1, len - 1) ||
			    ib_grow(&ad->lines, &ad->cap, ad->n + 1)) {
				rc = oom(e);
				break;
			}
			ad->lines[ad->n++] = newline;
			newline += newline < INT_MAX;
		} else if (len >= 1 && p[0] == ' ') {
			newline += newline < INT_MAX;
			oldline += oldline < INT_MAX;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (!rc && !ad->text.data && ib_buf_append(&ad->text, "", 0))
		rc = oom(e);
	return rc;
}

/* ---- §4.3 step 1: config keys and patterns ---- */

/* The reference's wildcard, where only '*' is special: base's one glob
 * (ib_glob_match) with '?' and '[' quoted as one-character classes. */
static bool star_match(const char *pat, const char *s)
{
	ib_buf q = {0};
	for (const char *p = pat; *p; p++) {
		if (*p == '?' || *p == '[')
			ib_buf_printf(&q, "[%c]", *p);
		else
			ib_buf_putc(&q, *p);
	}
	bool m = !ib_buf_error(&q) && ib_glob_match(q.data ? q.data : "", s);
	ib_buf_free(&q);
	return m;
}

static int resolve_keys(ib_arena *a, const ib_val *keys, const ib_val *master, ib_val **out,
                        const clog_where *w, ib_error *e)
{
	ib_val *r = ib_v_list(a);
	if (!r)
		return oom(e);
	for (size_t i = 0; i < keys->list.n; i++) {
		const ib_val *k = keys->list.v[i];
		size_t before = r->list.n;
		bool any = false;
		for (size_t j = 0; j < master->map.n; j++) {
			ib_val *mk = master->map.kv[j].key;
			bool m = strchr(k->str.s, '*') ? star_match(k->str.s, mk->str.s)
			                               : !strcmp(k->str.s, mk->str.s);
			if (!m)
				continue;
			any = true;
			bool dup = false;
			for (size_t x = 0; x < r->list.n && !dup; x++)
				dup = !strcmp(r->list.v[x]->str.s, mk->str.s);
			if (!dup && ib_list_push(a, r, mk))
				return oom(e);
			if (!strchr(k->str.s, '*'))
				break;
		}
		(void)before;
		if (!any) {
			int line = clog_line(w, k);
			if (strchr(k->str.s, '*'))
				return ib_fail(
				    e, IB_EINVAL, w->file, line, line ? k->col : 0,
				    "No config keys matched the wildcard pattern '%s' in "
				    "master configs.",
				    k->str.s);
			return ib_fail(e, IB_EINVAL, w->file, line, line ? k->col : 0,
			               "Config key '%s' not found in master configs.", k->str.s);
		}
	}
	*out = r;
	return 0;
}

/* ---- generation (the reference's test-config subprocesses) ---- */

typedef struct {
	ib_arena *a;
	const ib_val *master, *runners;
	const ib_val *base_master, *base_runners; /* append-only */
} inputs;

static int generate(ib_arena *a, const ib_val *master, const ib_val *runners, const ib_val *keys,
                    int scen, bool evals, bool all_evals, ib_val **rows, ib_error *e)
{
	mx_opts mo;
	mx_opts_init(&mo, false);
	const char **kv = ib_arena_alloc(a, (keys->list.n + 1) * sizeof *kv);
	if (!kv)
		return oom(e);
	for (size_t i = 0; i < keys->list.n; i++)
		kv[i] = keys->list.v[i]->str.s;
	mo.config_keys.v = kv;
	mo.config_keys.n = keys->list.n;
	mo.want_fixed = scen & FIXED;
	mo.want_agentic = scen & AGENTIC;
	if (evals) {
		mo.evals_only = true;
		mo.all_evals = all_evals;
	} else {
		mo.no_evals = true;
	}
	return mx_generate(a, &mo, master, runners, rows, e);
}

/* ---- keys of rows (curves, series) ---- */

static ib_val *without(ib_arena *a, const ib_val *row, const char *const *drop)
{
	ib_val *c = ib_map_copy(a, row);
	if (!c)
		return NULL;
	for (; *drop; drop++)
		ib_map_del(c, *drop);
	return c;
}

static const char *const point_keys[] = {"conc", "exp-name", "recipe-fingerprint", NULL};

typedef struct {
	ib_val *key;
	uint64_t h;
	int64_t *conc; /* a set, in insertion order */
	size_t n, cap;
} group;

typedef struct {
	group *g;
	size_t n, cap;
} groups;

static group *group_find(groups *gs, const ib_val *key, uint64_t h)
{
	for (size_t i = 0; i < gs->n; i++)
		if (gs->g[i].h == h && ib_val_equal(gs->g[i].key, key))
			return &gs->g[i];
	return NULL;
}

static group *group_get(groups *gs, ib_val *key)
{
	uint64_t h = ib_val_hash(key);
	group *g = group_find(gs, key, h);
	if (g)
		return g;
	if (ib_grow(&gs->g, &gs->cap, gs->n + 1))
		return NULL;
	g = &gs->g[gs->n++];
	*g = (group){.key = key, .h = h};
	return g;
}

static bool set_has(const group *g, int64_t c)
{
	for (size_t i = 0; g && i < g->n; i++)
		if (g->conc[i] == c)
			return true;
	return false;
}

static int set_add(group *g, int64_t c)
{
	if (set_has(g, c))
		return 0;
	if (ib_grow(&g->conc, &g->cap, g->n + 1))
		return IB_ENOMEM;
	g->conc[g->n++] = c;
	return 0;
}

static void groups_free(groups *gs)
{
	for (size_t i = 0; i < gs->n; i++)
		free(gs->g[i].conc);
	free(gs->g);
	*gs = (groups){0};
}

static int concs(const ib_val *row, int64_t **v, size_t *n, int64_t *one, ib_error *e)
{
	const ib_val *c = ib_map_get(row, "conc");
	if (c && c->type == IB_V_INT) {
		*one = c->i;
		*v = one;
		*n = 1;
		return 0;
	}
	bool ok = c && c->type == IB_V_LIST && c->list.n;
	for (size_t i = 0; ok && i < c->list.n; i++)
		ok = c->list.v[i]->type == IB_V_INT;
	if (!ok) {
		char r[128];
		if (c)
			ib_val_repr(c, r, sizeof r);
		else
			strcpy(r, "None");
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "append-only matrix entry has invalid concurrency value: %s", r);
	}
	*v = NULL;
	*n = c->list.n;
	return 0;
}

static int64_t conc_at(const ib_val *row, int64_t *v, size_t i)
{
	return v ? v[i] : ib_map_get(row, "conc")->list.v[i]->i;
}

/* The App's visual series of a row (process_changelog's _matrix_visual_series_key). */
static ib_val *series_key(ib_arena *a, const ib_val *row)
{
	const ib_val *st = ib_map_get(row, "scenario-type");
	bool agentic = st && st->type == IB_V_STR && !strcmp(st->str.s, "agentic-coding");
	const ib_val *kvo = ib_map_get(row, "kv-offloading");
	bool off = !kvo || kvo->type == IB_V_NULL ||
	           (kvo->type == IB_V_STR && (!kvo->str.len || !strcmp(kvo->str.s, "none")));
	const ib_val *pf = ib_map_get(row, "prefill"), *dc = ib_map_get(row, "decode");
	ib_val *l = ib_v_list(a), *nul = ib_v_null(a);
	if (!l || !nul)
		return NULL;
	const ib_val *disagg = ib_map_get(row, "disagg");
	const ib_val *spec = ib_map_get(row, "spec-decoding");
	ib_val *parts[13] = {
	    ib_map_get(row, "model"),
	    ib_map_get(row, "model-prefix"),
	    ib_map_get(row, "precision"),
	    ib_map_get(row, "framework"),
	    ib_map_get(row, "runner"),
	    ib_v_bool(a, disagg && ib_val_truthy(disagg)),
	    ib_v_str(a, agentic ? "agentic_traces" : "single_turn"),
	    agentic ? NULL : ib_map_get(row, "isl"),
	    agentic ? NULL : ib_map_get(row, "osl"),
	    ib_v_str(a, off ? "off" : "on"),
	    agentic ? ib_v_str(a, "") : (spec ? (ib_val *)spec : ib_v_str(a, "none")),
	    pf && ib_val_truthy(pf) ? ib_map_get(pf, "hardware") : NULL,
	    dc && ib_val_truthy(dc) ? ib_map_get(dc, "hardware") : NULL,
	};
	for (int i = 0; i < 13; i++)
		if (ib_list_push(a, l, parts[i] ? parts[i] : nul))
			return NULL;
	return l;
}

/* §4.5 append_only_delta */
static int append_only_delta(ib_arena *a, const ib_val *base, const ib_val *head, ib_val **out,
                             ib_error *e)
{
	groups bg = {0}, hg = {0}, emitted = {0};
	ib_val **hkeys = NULL;
	int rc = 0;
	int64_t one, *cv;
	size_t n;
	for (size_t pass = 0; pass < 2 && !rc; pass++) {
		const ib_val *rows = pass ? head : base;
		groups *gs = pass ? &hg : &bg;
		if (pass && !(hkeys = calloc(head->list.n + 1, sizeof *hkeys))) {
			rc = oom(e);
			break;
		}
		for (size_t i = 0; i < rows->list.n && !rc; i++) {
			const ib_val *r = rows->list.v[i];
			ib_val *k = without(a, r, point_keys);
			group *g = k ? group_get(gs, k) : NULL;
			if (!g) {
				rc = oom(e);
				break;
			}
			if (pass)
				hkeys[i] = k;
			if ((rc = concs(r, &cv, &n, &one, e)))
				break;
			for (size_t j = 0; j < n && !rc; j++)
				if (set_add(g, conc_at(r, cv, j)))
					rc = oom(e);
		}
	}
	if (!rc && bg.n == 0)
		rc = ib_fail(e, IB_EINVAL, "", 0, 0,
		             "append-only requires an existing curve in the base revision");
	for (size_t i = 0; !rc && i < bg.n; i++)
		if (!group_find(&hg, bg.g[i].key, bg.g[i].h))
			rc = ib_fail(
			    e, IB_EINVAL, "", 0, 0,
			    "append-only may not remove or modify existing generated recipes");
	for (size_t i = 0; !rc && i < bg.n; i++) {
		group *h = group_find(&hg, bg.g[i].key, bg.g[i].h);
		int64_t *rm = NULL;
		size_t nrm = 0, caprm = 0;
		for (size_t j = 0; j < bg.g[i].n; j++)
			if (!set_has(h, bg.g[i].conc[j])) {
				if (ib_grow(&rm, &caprm, nrm + 1)) {
					rc = oom(e);
					break;
				}
				rm[nrm++] = bg.g[i].conc[j];
			}
		if (!rc && nrm) {
			for (size_t x = 1; x < nrm; x++) /* sorted() */
				for (size_t y = x; y > 0 && rm[y - 1] > rm[y]; y--) {
					int64_t t = rm[y];
					rm[y] = rm[y - 1];
					rm[y - 1] = t;
				}
			ib_buf m = {0};
			for (size_t x = 0; x < nrm; x++)
				ib_buf_printf(&m, "%s%lld", x ? ", " : "", (long long)rm[x]);
			rc = ib_fail(e, IB_EINVAL, "", 0, 0,
			             "append-only may not remove existing concurrency points: [%s]",
			             m.data ? m.data : "");
			ib_buf_free(&m);
		}
		free(rm);
	}
	ib_val *delta = rc ? NULL : ib_v_list(a);
	if (!rc && !delta)
		rc = oom(e);
	for (size_t i = 0; !rc && i < head->list.n; i++) {
		ib_val *r = head->list.v[i];
		group *g = group_find(&hg, hkeys[i], ib_val_hash(hkeys[i]));
		group *b = group_find(&bg, hkeys[i], g->h);
		group *em = group_get(&emitted, hkeys[i]);
		if (!em) {
			rc = oom(e);
			break;
		}
		if ((rc = concs(r, &cv, &n, &one, e)))
			break;
		const ib_val *c = ib_map_get(r, "conc");
		if (c->type == IB_V_INT) {
			if (!set_has(b, c->i) && !set_has(em, c->i)) {
				if (ib_list_push(a, delta, r) || set_add(em, c->i))
					rc = oom(e);
			}
			continue;
		}
		ib_val *nc = ib_v_list(a);
		if (!nc) {
			rc = oom(e);
			break;
		}
		for (size_t j = 0; j < n && !rc; j++) {
			ib_val *x = c->list.v[j];
			if (!set_has(b, x->i) && !set_has(em, x->i))
				if (ib_list_push(a, nc, x) || set_add(em, x->i))
					rc = oom(e);
		}
		if (!rc && nc->list.n) {
			ib_val *d = ib_map_copy(a, r);
			if (!d || ib_map_set(a, d, "conc", nc) || ib_list_push(a, delta, d))
				rc = oom(e);
		}
	}
	if (!rc && delta->list.n == 0)
		rc =
		    ib_fail(e, IB_EINVAL, "", 0, 0, "append-only did not add any generated points");
	/* every delta row joins an existing visual series with one unchanged image */
	for (size_t i = 0; !rc && i < delta->list.n; i++) {
		const ib_val *r = delta->list.v[i];
		ib_val *sk = series_key(a, r);
		if (!sk) {
			rc = oom(e);
			break;
		}
		const ib_val *img = ib_map_get(r, "image");
		bool ok = img && img->type != IB_V_NULL, found = false;
		for (size_t j = 0; ok && j < base->list.n; j++) {
			const ib_val *br = base->list.v[j];
			ib_val *bk = series_key(a, br);
			if (!bk) {
				rc = oom(e);
				break;
			}
			if (!ib_val_equal(bk, sk))
				continue;
			found = true;
			const ib_val *bi = ib_map_get(br, "image");
			if (!bi || !ib_val_equal(bi, img))
				ok = false;
		}
		if (!rc && (!ok || !found))
			rc =
			    ib_fail(e, IB_EINVAL, "", 0, 0,
			            "append-only additions must belong to an existing visual curve "
			            "with one unchanged non-null image");
	}
	groups_free(&bg);
	groups_free(&hg);
	groups_free(&emitted);
	free(hkeys);
	if (!rc)
		*out = delta;
	return rc;
}

/* ---- §4.5: base inputs and the scope check ---- */

static int fail_list(ib_error *e, const char *prefix, const char **v, size_t n)
{
	qsort(v, n, sizeof *v, ib_cmp_str);
	ib_buf m = {0};
	clog_repr_strs(&m, v, n);
	int rc = ib_fail(e, IB_EINVAL, "", 0, 0, "%s%s", prefix, m.data ? m.data : "[]");
	ib_buf_free(&m);
	return rc;
}

static int rm_tree(const char *dir, const char *const *files, size_t n)
{
	char p[4096];
	for (size_t i = 0; i < n; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, files[i]);
		unlink(p);
	}
	snprintf(p, sizeof p, "%s/configs", dir);
	rmdir(p);
	return rmdir(dir);
}

/* Loads the master configs and runners of the base revision (the reference
 * materialises them from git into a temporary folder; so does this). */
static int load_base(ib_arena *a, const clog_opts *o, const char *const *masters, size_t nm,
                     const char *runners_path, inputs *in, ib_diags *d, ib_error *e)
{
	const char *want[8];
	size_t nw = 0;
	for (size_t i = 0; i < nm && nw < 7; i++)
		want[nw++] = masters[i];
	want[nw++] = runners_path;
	const char *args[14] = {"ls-tree", "-r", "--name-only", o->base_ref, "--"};
	for (size_t i = 0; i < nw; i++)
		args[5 + i] = want[i];
	args[5 + nw] = NULL;
	ib_buf ls = {0};
	int rc = clog_git(o->repo, args, &ls, e);
	if (rc) {
		ib_buf_free(&ls);
		return rc == IB_ENOENT ? IB_EINVAL : rc;
	}
	const char *missing[8];
	size_t nmiss = 0;
	for (size_t i = 0; i < nw; i++) {
		bool found = false;
		for (const char *p = ls.data ? ls.data : ""; *p && !found;) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			found = len == strlen(want[i]) && !strncmp(p, want[i], len);
			p += len + (nl ? 1 : 0);
		}
		if (!found)
			missing[nmiss++] = want[i];
	}
	ib_buf_free(&ls);
	if (nmiss)
		return fail_list(
		    e, "append-only base revision is missing generation inputs: ", missing, nmiss);
	const char *tmp = getenv("TMPDIR");
	char *dir =
	    ib_arena_printf(a, "%s/infbench-append-only-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!dir)
		return oom(e);
	if (!mkdtemp(dir))
		return ib_fail(e, IB_EIO, dir, 0, 0, "cannot create a temporary folder");
	const char *paths[8];
	size_t written = 0;
	for (size_t i = 0; i < nw && !rc; i++) {
		ib_buf body = {0};
		rc = clog_git_show(o->repo, o->base_ref, want[i], &body, e);
		const char *slash = strrchr(want[i], '/');
		char *p = ib_arena_printf(a, "%s/configs/%s", dir, slash ? slash + 1 : want[i]);
		if (!rc && !p)
			rc = oom(e);
		if (!rc) {
			char *sub = ib_arena_printf(a, "%s/configs", dir);
			rc = sub ? ib_mkdirs(sub, 0700, e) : oom(e);
			rc = rc ? rc : ib_buf_write_file(p, &body, e);
		}
		ib_buf_free(&body);
		if (!rc)
			paths[written++] = p;
	}
	if (!rc) {
		rc = cfg_load_master(a, paths, nw - 1, (ib_val **)&in->base_master, d);
		if (rc == 0)
			rc = cfg_load_runners(a, paths[nw - 1], (ib_val **)&in->base_runners, d);
		if (rc == IB_EINVAL)
			ib_fail(e, rc, "", 0, 0, "the master configs at %s have problems",
			        o->base_ref);
	}
	const char *rel[8];
	for (size_t i = 0; i < written; i++)
		rel[i] = paths[i] + strlen(dir) + 1;
	rm_tree(dir, rel, written);
	return rc;
}

typedef struct {
	const char *key;
	int scen;
} selected;

static int scope_check(ib_arena *a, const ib_val *base, const ib_val *head, const selected *sel,
                       size_t nsel, ib_error *e)
{
	const char **bad = ib_arena_alloc(a, (base->map.n + head->map.n + 1) * sizeof *bad);
	if (!bad)
		return oom(e);
	size_t nbad = 0;
	for (int pass = 0; pass < 2; pass++) {
		const ib_val *m = pass ? head : base;
		for (size_t i = 0; i < m->map.n; i++) {
			const char *k = m->map.kv[i].key->str.s;
			bool is_sel = false;
			for (size_t j = 0; j < nsel && !is_sel; j++)
				is_sel = !strcmp(sel[j].key, k);
			if (is_sel || (pass && ib_map_has(base, k)))
				continue;
			const ib_val *bv = ib_map_get(base, k), *hv = ib_map_get(head, k);
			if (!bv || !hv || !ib_val_equal(bv, hv))
				bad[nbad++] = k;
		}
	}
	if (nbad)
		return fail_list(e,
		                 "append-only PR changed configs not selected by its changelog "
		                 "entry: ",
		                 bad, nbad);
	static const char *const names[] = {"fixed-seq-len", "agentic-coding"};
	for (size_t j = 0; j < nsel; j++) {
		const ib_val *bc = ib_map_get(base, sel[j].key), *hc = ib_map_get(head, sel[j].key);
		const ib_val *bs = ib_map_get(bc, "scenarios"), *hs = ib_map_get(hc, "scenarios");
		size_t bn = bs && bs->type == IB_V_MAP ? bs->map.n : 0;
		size_t hn = hs && hs->type == IB_V_MAP ? hs->map.n : 0;
		bool same = bn == hn;
		for (size_t i = 0; same && i < bn; i++)
			same = ib_map_find(hs, bs->map.kv[i].key->str.s) != NULL;
		if (!same)
			return ib_fail(e, IB_EINVAL, "", 0, 0,
			               "append-only added or removed a scenario in config '%s'",
			               sel[j].key);
		bool unselected = false;
		for (size_t i = 0; i < bn; i++) {
			const char *s = bs->map.kv[i].key->str.s;
			bool allowed = (!strcmp(s, names[0]) && (sel[j].scen & FIXED)) ||
			               (!strcmp(s, names[1]) && (sel[j].scen & AGENTIC));
			if (!allowed)
				unselected = true;
		}
		const char *const drop[] = {"scenarios", NULL};
		ib_val *bt = without(a, bc, drop), *ht = without(a, hc, drop);
		if (!bt || !ht)
			return oom(e);
		if (unselected && !ib_val_equal(bt, ht))
			return ib_fail(e, IB_EINVAL, "", 0, 0,
			               "append-only changed config-wide fields that can affect "
			               "scenarios outside its changelog scope: '%s'",
			               sel[j].key);
		for (size_t i = 0; i < bn; i++) {
			const char *s = bs->map.kv[i].key->str.s;
			bool allowed = (!strcmp(s, names[0]) && (sel[j].scen & FIXED)) ||
			               (!strcmp(s, names[1]) && (sel[j].scen & AGENTIC));
			if (!allowed && !ib_val_equal(bs->map.kv[i].val, ib_map_get(hs, s)))
				return ib_fail(
				    e, IB_EINVAL, "", 0, 0,
				    "append-only changed a scenario outside its changelog "
				    "scope: '%s' / '%s'",
				    sel[j].key, s);
		}
	}
	return 0;
}

/* ---- §4.3 step 5: --trim-conc ---- */

static int trim_conc(ib_arena *a, ib_val *rows, ib_error *e)
{
	static const char *const drop[] = {"conc", "exp-name", NULL};
	size_t n = rows->list.n;
	ib_val **keys = calloc(n + 1, sizeof *keys);
	bool *gone = calloc(n + 1, sizeof *gone);
	if (!keys || !gone) {
		free(keys);
		free(gone);
		return oom(e);
	}
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		ib_val *r = rows->list.v[i];
		const ib_val *pf = ib_map_get(r, "prefill");
		if (pf && pf->type != IB_V_NULL) {
			const ib_val *c = ib_map_get(r, "conc");
			if (c && c->type == IB_V_LIST && c->list.n > 1) {
				ib_val *mn = c->list.v[0];
				for (size_t j = 1; j < c->list.n; j++)
					if (ib_val_is_int(c->list.v[j]) && ib_val_is_int(mn) &&
					    c->list.v[j]->i < mn->i)
						mn = c->list.v[j];
				ib_val *l = ib_v_list(a), *cp = ib_map_copy(a, r);
				if (!l || !cp || ib_list_push(a, l, mn) ||
				    ib_map_set(a, cp, "conc", l))
					rc = oom(e);
				else
					rows->list.v[i] = cp;
			}
			continue;
		}
		if (!(keys[i] = without(a, r, drop)))
			rc = oom(e);
	}
	/* per group keep the row with the smallest conc (the first on ties) */
	for (size_t i = 0; i < n && !rc; i++) {
		if (!keys[i] || gone[i])
			continue;
		size_t keep = i;
		uint64_t h = ib_val_hash(keys[i]);
		for (size_t j = i + 1; j < n; j++) {
			if (!keys[j] || gone[j] || ib_val_hash(keys[j]) != h ||
			    !ib_val_equal(keys[i], keys[j]))
				continue;
			const ib_val *cj = ib_map_get(rows->list.v[j], "conc"),
			             *ck = ib_map_get(rows->list.v[keep], "conc");
			if (cj && ck && cj->type == IB_V_INT && ck->type == IB_V_INT &&
			    cj->i < ck->i) {
				gone[keep] = true;
				keep = j;
			} else {
				gone[j] = true;
			}
		}
	}
	size_t w = 0;
	for (size_t i = 0; i < n && !rc; i++)
		if (!gone[i])
			rows->list.v[w++] = rows->list.v[i];
	if (!rc)
		rows->list.n = w;
	free(keys);
	free(gone);
	return rc;
}

/* ---- §4.3 step 6: recipe-fingerprint ---- */

static int fingerprint(ib_arena *a, ib_val *row, ib_error *e)
{
	ib_val *c = without(a, row, point_keys);
	if (!c)
		return oom(e);
	ib_buf j = {0};
	ib_json_opts jo = {.indent = -1, .compact = true, .ensure_ascii = true, .sort_keys = true};
	int rc = ib_json_write(&j, c, &jo, e);
	if (rc) {
		ib_buf_free(&j);
		return rc;
	}
	char hex[65];
	ib_sha256_hex(j.data, j.len, hex);
	ib_buf_free(&j);
	ib_val *s = ib_v_str(a, hex);
	if (!s || ib_map_set(a, row, "recipe-fingerprint", s))
		return oom(e);
	return 0;
}

/* ---- the whole tool ---- */

/* Python int(v) for prefill.ep (missing: 1); false where int() raises. */
static bool python_int(const ib_val *v, int64_t *out)
{
	if (!v) {
		*out = 1;
		return true;
	}
	return ib_val_py_int(v, out, NULL);
}

static bool is_agentic(const ib_val *r)
{
	const ib_val *st = ib_map_get(r, "scenario-type");
	return st && st->type == IB_V_STR && !strcmp(st->str.s, "agentic-coding");
}

static bool has_prefill(const ib_val *r)
{
	const ib_val *p = ib_map_get(r, "prefill");
	return p && p->type != IB_V_NULL;
}

/* Appends row to bucket[name] (created at the end when new). */
static int bucket_push(ib_arena *a, ib_val *buckets, const char *name, ib_val *row)
{
	ib_val *l = ib_map_get(buckets, name);
	if (!l) {
		if (!(l = ib_v_list(a)) || ib_map_set(a, buckets, ib_arena_strdup(a, name), l))
			return IB_ENOMEM;
	}
	return ib_list_push(a, l, row);
}

/* Groups configs by their not-yet-seen scenarios (first-seen order). */
typedef struct {
	int scen[3];
	ib_val *configs[3];
	size_t n;
} scen_groups;

static int seen_get(const ib_val *seen, const char *key)
{
	const ib_val *v = ib_map_get(seen, key);
	return v ? (int)v->i : 0;
}

static int group_unseen(ib_arena *a, const ib_val *configs, int entry_scen, ib_val *seen,
                        scen_groups *sg)
{
	*sg = (scen_groups){0};
	for (size_t i = 0; i < configs->list.n; i++) {
		const char *k = configs->list.v[i]->str.s;
		int s = seen_get(seen, k);
		int unseen = entry_scen & ~s;
		if (!unseen)
			continue;
		ib_val *nv = ib_v_int(a, s | unseen);
		if (!nv || ib_map_set(a, seen, k, nv))
			return IB_ENOMEM;
		size_t g = 0;
		while (g < sg->n && sg->scen[g] != unseen)
			g++;
		if (g == sg->n) {
			sg->scen[g] = unseen;
			if (!(sg->configs[g] = ib_v_list(a)))
				return IB_ENOMEM;
			sg->n++;
		}
		if (ib_list_push(a, sg->configs[g], configs->list.v[i]))
			return IB_ENOMEM;
	}
	return 0;
}

static int list_extend(ib_arena *a, ib_val *dst, const ib_val *src)
{
	for (size_t i = 0; i < src->list.n; i++)
		if (ib_list_push(a, dst, src->list.v[i]))
			return IB_ENOMEM;
	return 0;
}

static int bool_of(const ib_val *norm, const char *k)
{
	const ib_val *v = ib_map_get(norm, k);
	return v && v->type == IB_V_BOOL && v->b;
}

int clog_process(ib_arena *a, const clog_opts *o, ib_val **out, ib_diags *d, ib_error *e)
{
	const char *const *masters = o->config_files ? o->config_files : default_masters;
	size_t nm = o->config_files ? o->nconfig_files : 2;
	const char *runners_path = o->runner_config ? o->runner_config : default_runners;
	additions ad = {0};
	int rc = added_lines(o, &ad, e);
	if (rc)
		goto done;
	bool blank = true;
	for (size_t i = 0; i < ad.text.len; i++)
		if (!strchr(" \t\n\r\v\f", ad.text.data[i]))
			blank = false;
	if (blank) {
		rc = ib_fail(e, IB_EINVAL, o->changelog_file, 0, 0,
		             "No additions found in the changelog file.");
		goto done;
	}
	clog_where w = {.file = o->changelog_file, .lines = ad.lines, .nlines = ad.n};
	ib_val *data;
	ib_error ye;
	rc = ib_yaml_load(a, o->changelog_file, ad.text.data, ad.text.len, &data, &ye);
	if (rc) {
		/* the line in the file (an error at the end: the last added line) */
		int line = ye.line <= 0              ? 0
		           : (size_t)ye.line <= ad.n ? ad.lines[ye.line - 1]
		                                     : ad.lines[ad.n - 1];
		rc = ib_fail(e, rc == IB_ENOMEM ? rc : IB_EINVAL, o->changelog_file, line, ye.col,
		             "the added changelog lines are not valid YAML: %s", ye.msg);
		goto done;
	}
	if (!ib_val_truthy(data)) {
		rc = ib_fail(e, IB_EINVAL, o->changelog_file, 0, 0,
		             "No valid YAML entries found in the changelog additions.");
		goto done;
	}
	if (data->type != IB_V_LIST) {
		int line = clog_line(&w, data);
		rc = ib_fail(e, IB_EINVAL, o->changelog_file, line, line ? data->col : 0,
		             "the added changelog lines must be a YAML list of entries "
		             "(\"- config-keys: ...\"), got a %s",
		             ib_vtype_pyname(data));
		goto done;
	}
	size_t ne = data->list.n;
	ib_val *norm = ib_v_list(a);
	if (!norm) {
		rc = oom(e);
		goto done;
	}
	bool any_ao = false, all_ao = true;
	for (size_t i = 0; i < ne; i++) {
		ib_val *n;
		w.index = (int)i + 1;
		if ((rc = clog_entry_validate(a, data->list.v[i], &w, &n, e)))
			goto done;
		if (ib_list_push(a, norm, n)) {
			rc = oom(e);
			goto done;
		}
		bool ao = bool_of(n, "append-only");
		any_ao = any_ao || ao;
		all_ao = all_ao && ao;
	}
	if (any_ao && !all_ao) {
		rc = ib_fail(e, IB_EINVAL, o->changelog_file, ad.lines[0], 0,
		             "append-only entries cannot share a sweep with regular changelog "
		             "entries");
		goto done;
	}
	if (any_ao && (o->all_evals || o->evals_only)) {
		rc = ib_fail(e, IB_EINVAL, "", 0, 0,
		             "append-only sweeps cannot use all-evals or evals-only modifiers");
		goto done;
	}
	inputs in = {.a = a};
	rc = cfg_load_master(a, masters, nm, (ib_val **)&in.master, d);
	if (rc == 0)
		rc = cfg_load_runners(a, runners_path, (ib_val **)&in.runners, d);
	if (rc) {
		if (rc == IB_EINVAL)
			ib_fail(e, rc, "", 0, 0, "the master configs have problems");
		goto done;
	}
	ib_val **configs = ib_arena_alloc(a, (ne + 1) * sizeof *configs);
	if (!configs) {
		rc = oom(e);
		goto done;
	}
	for (size_t i = 0; i < ne; i++) {
		w.index = (int)i + 1;
		const ib_val *keys = ib_map_get(norm->list.v[i], "config-keys");
		/* positions come from the raw entry's list */
		const ib_kv *raw = ib_map_find(data->list.v[i], "config-keys");
		if (!raw)
			raw = ib_map_find(data->list.v[i], "config_keys");
		if ((rc = resolve_keys(a, raw ? raw->val : keys, in.master, &configs[i], &w, e)))
			goto done;
	}
	int *scen = ib_arena_alloc(a, (ne + 1) * sizeof *scen);
	if (!scen) {
		rc = oom(e);
		goto done;
	}
	for (size_t i = 0; i < ne; i++) {
		const ib_val *st = ib_map_get(norm->list.v[i], "scenario-type");
		scen[i] = st ? 0 : BOTH;
		for (size_t j = 0; st && j < st->list.n; j++)
			scen[i] |= strcmp(st->list.v[j]->str.s, "fixed-seq-len") ? AGENTIC : FIXED;
	}
	if (any_ao) {
		if ((rc = load_base(a, o, masters, nm, runners_path, &in, d, e)))
			goto done;
		selected *sel = ib_arena_alloc(a, 64 * sizeof *sel);
		size_t nsel = 0, capsel = 64;
		for (size_t i = 0; i < ne; i++)
			for (size_t j = 0; j < configs[i]->list.n; j++) {
				const char *k = configs[i]->list.v[j]->str.s;
				size_t x = 0;
				while (x < nsel && strcmp(sel[x].key, k))
					x++;
				if (x == nsel) {
					if (ib_arena_grow(a, &sel, &capsel, nsel + 1)) {
						rc = oom(e);
						goto done;
					}
					sel[nsel++] = (selected){k, 0};
				}
				sel[x].scen |= scen[i];
			}
		const char **missing = ib_arena_alloc(a, (nsel + 1) * sizeof *missing);
		size_t nmiss = 0;
		for (size_t x = 0; x < nsel; x++)
			if (!ib_map_has(in.base_master, sel[x].key))
				missing[nmiss++] = sel[x].key;
		if (nmiss) {
			rc = fail_list(e,
			               "append-only requires every selected config to exist in the "
			               "base revision; missing: ",
			               missing, nmiss);
			goto done;
		}
		if ((rc = scope_check(a, in.base_master, in.master, sel, nsel, e)))
			goto done;
	}
	/* all-evals entries first (stable) */
	size_t *order = ib_arena_alloc(a, (ne + 1) * sizeof *order);
	size_t no = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < ne; i++)
			if (bool_of(norm->list.v[i], "all-evals") == !pass)
				order[no++] = i;
	ib_val *bench = ib_v_list(a), *evals = ib_v_list(a);
	ib_val *bseen = ib_v_map(a), *eseen = ib_v_map(a);
	if (!order || !bench || !evals || !bseen || !eseen) {
		rc = oom(e);
		goto done;
	}
	for (size_t oi = 0; oi < ne; oi++) {
		size_t i = order[oi];
		const ib_val *n = norm->list.v[i];
		bool ao = bool_of(n, "append-only");
		bool expand = o->all_evals || bool_of(n, "all-evals");
		bool suppress =
		    o->evals_only || bool_of(n, "evals-only") || bool_of(n, "all-evals");
		scen_groups sg;
		if (!suppress) {
			if (group_unseen(a, configs[i], scen[i], bseen, &sg)) {
				rc = oom(e);
				goto done;
			}
			for (size_t g = 0; g < sg.n; g++) {
				ib_val *rows;
				if ((rc = generate(a, in.master, in.runners, sg.configs[g],
				                   sg.scen[g], false, false, &rows, e)))
					goto done;
				if (ao) {
					ib_val *brows;
					if ((rc = generate(a, in.base_master, in.base_runners,
					                   sg.configs[g], sg.scen[g], false, false,
					                   &brows, e)))
						goto done;
					if ((rc = append_only_delta(a, brows, rows, &rows, e)))
						goto done;
				}
				if (list_extend(a, bench, rows)) {
					rc = oom(e);
					goto done;
				}
			}
		}
		if (ao)
			continue;
		if (group_unseen(a, configs[i], scen[i], eseen, &sg)) {
			rc = oom(e);
			goto done;
		}
		const ib_val *minep = ib_map_get(n, "eval-min-prefill-ep");
		for (size_t g = 0; g < sg.n; g++) {
			ib_val *rows;
			if ((rc = generate(a, in.master, in.runners, sg.configs[g], sg.scen[g],
			                   true, expand, &rows, e)))
				goto done;
			for (size_t r = 0; r < rows->list.n; r++) {
				ib_val *row = rows->list.v[r];
				const ib_val *pf = ib_map_get(row, "prefill");
				if (minep && pf && pf->type == IB_V_MAP) {
					int64_t epv;
					if (!python_int(ib_map_get(pf, "ep"), &epv) ||
					    epv < minep->i)
						continue;
				}
				if (ib_list_push(a, evals, row)) {
					rc = oom(e);
					goto done;
				}
			}
		}
	}
	if (o->trim_conc && (rc = trim_conc(a, bench, e)))
		goto done;
	ib_val *res = ib_v_map(a), *sn = ib_v_map(a), *mn = ib_v_map(a);
	ib_val *ev[4] = {ib_v_list(a), ib_v_list(a), ib_v_list(a), ib_v_list(a)};
	if (!res || !sn || !mn || !ev[0] || !ev[1] || !ev[2] || !ev[3]) {
		rc = oom(e);
		goto done;
	}
	for (size_t i = 0; i < bench->list.n; i++) {
		ib_val *r = bench->list.v[i], *m;
		if ((rc = fingerprint(a, r, e)))
			goto done;
		bool ag = is_agentic(r), pf = has_prefill(r);
		if ((rc = clog_model_row(a, r, ag ? (pf ? 'A' : 'a') : (pf ? 'F' : 'f'), &m, e)))
			goto done;
		ib_buf name = {0};
		if (ag)
			ib_buf_puts(&name, "agentic");
		else
			mx_seq_len_str(&name, ib_map_get(r, "isl"), ib_map_get(r, "osl"));
		rc = name.data ? bucket_push(a, pf ? mn : sn, name.data, m) : IB_ENOMEM;
		ib_buf_free(&name);
		if (rc) {
			rc = oom(e);
			goto done;
		}
	}
	for (size_t i = 0; i < evals->list.n; i++) {
		ib_val *r = evals->list.v[i], *m;
		bool ag = is_agentic(r), pf = has_prefill(r);
		if ((rc = clog_model_row(a, r, ag ? (pf ? 'A' : 'a') : (pf ? 'F' : 'f'), &m, e)))
			goto done;
		if (ib_list_push(a, ev[(pf ? 2 : 0) + (ag ? 1 : 0)], m)) {
			rc = oom(e);
			goto done;
		}
	}
	ib_val *meta = ib_v_map(a);
	ib_val *br = ib_v_str(a, o->base_ref), *hr = ib_v_str(a, o->head_ref);
	if (!meta || !br || !hr || ib_map_set(a, meta, "base_ref", br) ||
	    ib_map_set(a, meta, "head_ref", hr) || ib_map_set(a, meta, "entries", norm) ||
	    ib_map_set(a, res, "single_node", sn) || ib_map_set(a, res, "multi_node", mn) ||
	    ib_map_set(a, res, "evals", ev[0]) || ib_map_set(a, res, "agentic_evals", ev[1]) ||
	    ib_map_set(a, res, "multinode_evals", ev[2]) ||
	    ib_map_set(a, res, "multinode_agentic_evals", ev[3]) ||
	    ib_map_set(a, res, "changelog_metadata", meta)) {
		rc = oom(e);
		goto done;
	}
	*out = res;
done:
	ib_buf_free(&ad.text);
	free(ad.lines);
	return rc;
}

int clog_write_matrix(ib_buf *out, const ib_val *matrix, ib_error *e)
{
	ib_json_opts jo = {.indent = -1, .compact = true};
	int rc = ib_json_write(out, matrix, &jo, e);
	if (!rc && ib_buf_putc(out, '\n'))
		rc = oom(e);
	return rc;
}

int clog_validate(ib_arena *a, const clog_opts *o, ib_diags *d, ib_error *e)
{
	ib_buf head = {0};
	int rc = clog_git_show(o->repo, o->head_ref, o->changelog_file, &head, e);
	if (rc == 0 && (head.len == 0 || head.data[head.len - 1] != '\n')) {
		int lines = 1;
		for (size_t i = 0; i < head.len; i++)
			lines += head.data[i] == '\n';
		rc = ib_fail(e, IB_EINVAL, "", 0, 0, "%s at %s does not end with a newline",
		             o->changelog_file, o->head_ref);
		(void)lines;
	}
	ib_buf_free(&head);
	if (rc)
		return rc == IB_ENOENT ? IB_EINVAL : rc;
	ib_val *m;
	ib_error pe;
	rc = clog_process(a, o, &m, d, &pe);
	if (rc) {
		char where[2600];
		ib_error_format(&pe, where, sizeof where);
		return ib_fail(e, rc == IB_ENOMEM ? rc : IB_EINVAL, "", 0, 0,
		               "process_changelog.py rejected the diff:\n%s", where);
	}
	return 0;
}
