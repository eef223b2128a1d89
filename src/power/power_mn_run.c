/* aggregate_power_multinode.run: windows, the stored-evidence cross-check,
 * the window of this result, integration per role, the agg patch and the
 * sidecar (docs/power.md). The package checks are in power_mn.c. */
#include "power/power_mn.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OOM(e) ib_fail((e), IB_ENOMEM, "", 0, 0, "out of memory")
#define CHK(x)                                                                                     \
	do {                                                                                       \
		if (x)                                                                             \
			return -1;                                                                 \
	} while (0)

typedef struct {
	const char *rel, *type, *result_path, *status;
	const ib_val *conc_v;
	double conc;
	double start, end, duration;
	bool has_end;
} mn_win;

typedef struct {
	mn_audit *au;
	const pw_mn_opts *o;
	const char *power_dir, *logs_root, *bench;
	mn_pkg p;
	mn_win *win, *dups;
	size_t nwin, ndups;
	ib_val *artifact_errors, *validations;
} mn_ctx;

/* Path.resolve(strict=False): symlinks of the existing part, the rest lexical. */
static char *resolve(ib_arena *a, const char *p, int depth)
{
	char buf[PATH_MAX];
	if (realpath(p, buf))
		return ib_arena_strdup(a, buf);
	const char *s = strrchr(p, '/');
	if (!s || depth > 64)
		return realpath(".", buf) ? ib_arena_printf(a, "%s/%s", buf, p) : NULL;
	char *parent = s == p ? ib_arena_strdup(a, "/") : ib_arena_strndup(a, p, (size_t)(s - p));
	char *rp = parent ? resolve(a, parent, depth + 1) : NULL;
	const char *name = s + 1;
	if (!rp)
		return NULL;
	if (!*name || !strcmp(name, "."))
		return rp;
	if (!strcmp(name, "..")) {
		char *q = strrchr(rp, '/');
		if (q && q != rp)
			*q = 0;
		else if (q)
			q[1] = 0;
		return rp;
	}
	return ib_arena_printf(a, "%s%s%s", rp, rp[strlen(rp) - 1] == '/' ? "" : "/", name);
}

static bool stays_below(ib_arena *a, const char *root, const char *rel)
{
	char *r = resolve(a, root, 0), *t = resolve(a, ib_arena_printf(a, "%s/%s", root, rel), 0);
	if (!r || !t)
		return false;
	size_t n = strlen(r);
	if (!strcmp(r, "/"))
		return true;
	return !strncmp(t, r, n) && (t[n] == 0 || t[n] == '/');
}

static bool safe_rel(const char *v)
{
	if (!*v || v[0] == '/' || v[0] == '~')
		return false;
	bool any = false;
	for (const char *p = v; *p;) {
		const char *q = strchr(p, '/');
		size_t l = q ? (size_t)(q - p) : strlen(p);
		if (l == 2 && !strncmp(p, "..", 2))
			return false;
		if (l && !(l == 1 && *p == '.'))
			any = true;
		p += l;
		if (*p)
			p++;
	}
	return any;
}

static int add_error(mn_ctx *c, const char *path, const char *reason)
{
	ib_arena *a = c->au->a;
	ib_val *m = ib_v_map(a), *l = ib_v_list(a);
	if (!m || !l || ib_list_push(a, l, ib_v_str(a, reason)) ||
	    ib_map_set(a, m, "path", ib_v_str(a, path)) || ib_map_set(a, m, "reason_codes", l) ||
	    ib_list_push(a, c->artifact_errors, m))
		return -1;
	return 0;
}

static bool is_null(const ib_val *v)
{
	return !v || v->type == IB_V_NULL;
}

static bool invariants(const char *st, const ib_val *end, const ib_val *dur, const ib_val *why)
{
	bool why_ok = why && why->type == IB_V_STR && why->str.len;
	if (!strcmp(st, "running"))
		return is_null(end) && is_null(dur) && is_null(why);
	if (!strcmp(st, "interrupted"))
		return is_null(end) && is_null(dur) && why_ok;
	if (!pw_mn_finite(end) || !pw_mn_finite(dur) || pw_mn_num(dur) <= 0)
		return false;
	if (!strcmp(st, "completed"))
		return is_null(why);
	return why_ok;
}

/* _parse_window: NULL reason on success. */
static const char *parse_window(mn_ctx *c, const char *path, const char *rel, const char *name,
                                mn_win *w)
{
	ib_arena *a = c->au->a;
	ib_val *v;
	ib_error e;
	if (ib_json_parse_file(a, path, &v, &e) || v->type != IB_V_MAP)
		return "measurement_window_malformed";
	const ib_val *st = ib_map_get(v, "status"), *cc = ib_map_get(v, "concurrency"),
	             *bt = ib_map_get(v, "benchmark_type"),
	             *s = ib_map_get(v, "benchmark_start_time_unix"),
	             *sv = ib_map_get(v, "schema_version"), *cs = ib_map_get(v, "clock_source");
	ib_val one = {.type = IB_V_INT, .i = 1};
	bool st_ok = st && st->type == IB_V_STR &&
	             (!strcmp(st->str.s, "running") || !strcmp(st->str.s, "completed") ||
	              !strcmp(st->str.s, "failed") || !strcmp(st->str.s, "interrupted"));
	if (!sv || !ib_val_equal(sv, &one) || !cs || cs->type != IB_V_STR ||
	    strcmp(cs->str.s, "head_node_unix_clock") || !st_ok || !bt || bt->type != IB_V_STR ||
	    !cc || (cc->type != IB_V_INT && cc->type != IB_V_BOOL) || !pw_mn_finite(s))
		return "measurement_window_malformed";
	const ib_val *rp = ib_map_get(v, "result_path");
	if (!rp || rp->type != IB_V_STR || !safe_rel(rp->str.s))
		return "measurement_window_result_path_invalid";
	char *rstem = pw_path_stem(a, pw_py_path(a, rp->str.s)), *wstem = pw_path_stem(a, name);
	if (!stays_below(a, c->logs_root, rp->str.s) || !rstem || !wstem || strcmp(rstem, wstem))
		return "measurement_window_result_path_invalid";
	const ib_val *en = ib_map_get(v, "benchmark_end_time_unix"),
	             *du = ib_map_get(v, "duration");
	if (!invariants(st->str.s, en, du, ib_map_get(v, "reason")))
		return "measurement_window_malformed";
	*w = (mn_win){.rel = rel,
	              .type = bt->str.s,
	              .result_path = rp->str.s,
	              .status = st->str.s,
	              .conc_v = cc,
	              .conc = pw_mn_num(cc),
	              .start = pw_mn_num(s),
	              .has_end = !is_null(en),
	              .end = is_null(en) ? 0 : pw_mn_num(en),
	              .duration = is_null(du) ? 0 : pw_mn_num(du)};
	return NULL;
}

static int cmp_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static bool win_key_eq(const mn_win *a, const mn_win *b)
{
	return !strcmp(a->type, b->type) && a->conc == b->conc;
}

/* _scan_windows: parsed windows (duplicates removed) into c->win. */
static int scan_windows(mn_ctx *c, bool *dupflags_any)
{
	ib_arena *a = c->au->a;
	char *dir = ib_arena_printf(a, "%s/windows", c->power_dir);
	struct stat st;
	*dupflags_any = false;
	if (!dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	if (!stays_below(a, c->power_dir, "windows"))
		return add_error(c, "windows", "measurement_window_artifact_path_invalid");
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (ib_grow(&names, &cap, n + 1)) {
			closedir(d);
			free(names);
			return -1;
		}
		names[n++] = ib_arena_strdup(a, de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, cmp_name);
	c->win = ib_arena_alloc(a, (n + 1) * sizeof *c->win);
	bool *dup = ib_arena_alloc(a, (n + 1) * sizeof *dup);
	if (!c->win || !dup) {
		free(names);
		return -1;
	}
	c->nwin = 0;
	for (size_t i = 0; i < n; i++) {
		char *path = ib_arena_printf(a, "%s/%s", dir, names[i]);
		char *rel = ib_arena_printf(a, "windows/%s", names[i]);
		struct stat ls;
		if (lstat(path, &ls) != 0 || S_ISLNK(ls.st_mode) || !S_ISREG(ls.st_mode)) {
			CHK(add_error(c, rel, "measurement_window_artifact_path_invalid"));
			continue;
		}
		mn_win w;
		const char *why = parse_window(c, path, rel, names[i], &w);
		if (why) {
			CHK(add_error(c, rel, why));
			continue;
		}
		size_t k = 0;
		while (k < c->nwin && !win_key_eq(&c->win[k], &w))
			k++;
		if (k < c->nwin) {
			dup[k] = true;
			*dupflags_any = true;
			CHK(add_error(c, c->win[k].rel, "measurement_window_duplicate"));
			CHK(add_error(c, rel, "measurement_window_duplicate"));
			continue;
		}
		dup[c->nwin] = false;
		c->win[c->nwin++] = w;
	}
	free(names);
	/* duplicated keys are dropped; c->dups keeps them for the audit rows */
	c->dups = ib_arena_alloc(a, (c->nwin + 1) * sizeof *c->dups);
	if (!c->dups)
		return -1;
	size_t m = 0;
	c->ndups = 0;
	for (size_t i = 0; i < c->nwin; i++) {
		if (dup[i])
			c->dups[c->ndups++] = c->win[i];
		else
			c->win[m++] = c->win[i];
	}
	c->nwin = m;
	return 0;
}

static bool val_eq_num(const ib_val *v, double x)
{
	return v && (v->type == IB_V_INT || v->type == IB_V_FLOAT || v->type == IB_V_BOOL) &&
	       pw_mn_num(v) == x;
}

static const char *check_window_result(mn_ctx *c, const mn_win *w)
{
	ib_arena *a = c->au->a;
	char *f = ib_arena_printf(a, "%s/%s", c->logs_root, w->result_path);
	ib_val *v;
	ib_error e;
	if (!f || !pw_is_file(f) || ib_json_parse_file(a, f, &v, &e))
		return "measurement_window_result_missing";
	if (v->type != IB_V_MAP)
		return "measurement_window_result_mismatch";
	if (!val_eq_num(ib_map_get(v, "benchmark_start_time_unix"), w->start) ||
	    !val_eq_num(ib_map_get(v, "benchmark_end_time_unix"), w->end) ||
	    !val_eq_num(ib_map_get(v, "duration"), w->duration))
		return "measurement_window_result_mismatch";
	double wall = w->end - w->start, tol = 0.01 * w->duration > 0.5 ? 0.01 * w->duration : 0.5;
	if (fabs(wall - w->duration) > tol)
		return "measurement_window_clock_mismatch";
	return NULL;
}

/* _bracketing_sequence's largest step; false when not bracketed. */
static bool bracket_gap(const double *t, size_t n, double start, double end, double *gap)
{
	size_t lo = n, hi = n;
	for (size_t i = 0; i < n; i++)
		if (t[i] <= start)
			lo = i;
	for (size_t i = 0; i < n && hi == n; i++)
		if (t[i] >= end)
			hi = i;
	if (lo == n || hi == n)
		return false;
	double prev = t[lo], g = 0.0;
	bool have = false;
	for (size_t i = 0; i <= n; i++) {
		double x;
		if (i < n && start < t[i] && t[i] < end)
			x = t[i];
		else if (i == n)
			x = t[hi];
		else
			continue;
		if (!have || x - prev > g)
			g = x - prev;
		have = true;
		prev = x;
	}
	*gap = g;
	return true;
}

static int cmp_dev_key(const void *x, const void *y)
{
	const mn_dev *a = *(const mn_dev *const *)x, *b = *(const mn_dev *const *)y;
	int r = strcmp(a->host, b->host);
	return r ? r : (a->index > b->index) - (a->index < b->index);
}

/* expected device keys, sorted, each once */
static const mn_dev **sorted_keys(mn_ctx *c, size_t *n)
{
	const mn_dev **k = ib_arena_alloc(c->au->a, (c->p.ndev + 1) * sizeof *k);
	if (!k)
		return NULL;
	for (size_t i = 0; i < c->p.ndev; i++)
		k[i] = &c->p.dev[i];
	qsort(k, c->p.ndev, sizeof *k, cmp_dev_key);
	size_t m = 0;
	for (size_t i = 0; i < c->p.ndev; i++)
		if (!m || cmp_dev_key(&k[i], &k[m - 1]))
			k[m++] = k[i];
	*n = m;
	return k;
}

static int coverage(mn_ctx *c, const mn_win *w, pw_reasons *r, ib_val *gaps)
{
	ib_arena *a = c->au->a;
	size_t nk;
	const mn_dev **keys = sorted_keys(c, &nk);
	if (!keys)
		return -1;
	for (size_t i = 0; i < nk; i++) {
		const mn_obs *o = pw_mn_find_obs(&c->p, keys[i]->host, keys[i]->index);
		double g;
		if (!o) {
			pw_reason(r, "measurement_window_not_bracketed");
			continue;
		}
		if (o->nuuid != 1) {
			pw_reason(r, "gpu_uuid_changed");
			continue;
		}
		if (!bracket_gap(o->times, o->n, w->start, w->end, &g)) {
			pw_reason(r, "measurement_window_not_bracketed");
			continue;
		}
		CHK(ib_map_set(a, gaps, ib_arena_printf(a, "%s/%s", o->host, o->uuids[0]),
		               ib_v_float(a, g)));
		if (g > 3.0)
			pw_reason(r, "sample_gap_exceeded");
	}
	return 0;
}

static int cmp_win(const void *x, const void *y)
{
	const mn_win *a = x, *b = y;
	int r = strcmp(a->type, b->type);
	return r ? r : (a->conc > b->conc) - (a->conc < b->conc);
}

static int validate_windows(mn_ctx *c)
{
	ib_arena *a = c->au->a;
	bool anydup;
	CHK(scan_windows(c, &anydup));
	mn_win *sorted = ib_arena_alloc(a, (c->nwin + 1) * sizeof *sorted);
	CHK(!sorted);
	if (c->nwin)
		memcpy(sorted, c->win, c->nwin * sizeof *sorted);
	qsort(sorted, c->nwin, sizeof *sorted, cmp_win);
	for (size_t i = 0; i < c->nwin; i++) {
		bool exp = false;
		for (size_t k = 0; k < c->p.newin && !exp; k++)
			exp = !strcmp(c->p.ewin[k].type, sorted[i].type) &&
			      (double)c->p.ewin[k].conc == sorted[i].conc;
		if (!exp)
			CHK(add_error(c, sorted[i].rel, "measurement_window_unexpected"));
	}
	for (size_t k = 0; k < c->p.newin; k++) {
		const mn_ewin *ew = &c->p.ewin[k];
		const mn_win *w = NULL;
		for (size_t i = 0; i < c->nwin && !w; i++)
			if (!strcmp(c->win[i].type, ew->type) && c->win[i].conc == (double)ew->conc)
				w = &c->win[i];
		pw_reasons r = {0};
		ib_val *gaps = ib_v_map(a), *row = ib_v_map(a), *rl = ib_v_list(a);
		CHK(!gaps || !row || !rl);
		if (!w) {
			bool dup = false;
			for (size_t i = 0; i < c->ndups && !dup; i++)
				dup = !strcmp(c->dups[i].type, ew->type) &&
				      c->dups[i].conc == (double)ew->conc;
			pw_reason(&r, dup ? "measurement_window_duplicate"
			                  : "measurement_window_missing");
		} else if (strcmp(w->status, "completed")) {
			pw_reason(&r, "measurement_window_incomplete");
		} else {
			const char *why = check_window_result(c, w);
			if (why)
				pw_reason(&r, why);
		}
		if (w && !r.n) {
			CHK(coverage(c, w, &r, gaps));
			if (r.n)
				gaps = ib_v_map(a);
		}
		for (size_t i = 0; i < r.n; i++) {
			CHK(ib_list_push(a, rl, ib_v_str(a, r.v[i])));
			pw_mn_fail(c->au, "%s (window %s/%lld)", r.v[i], ew->type,
			           (long long)ew->conc);
		}
		CHK(ib_map_set(a, row, "benchmark_type", ib_v_str(a, ew->type)) ||
		    ib_map_set(a, row, "concurrency", ib_v_int(a, ew->conc)) ||
		    ib_map_set(a, row, "window_file", w ? ib_v_str(a, w->rel) : ib_v_null(a)) ||
		    ib_map_set(a, row, "power_coverage_valid", ib_v_bool(a, r.n == 0)) ||
		    ib_map_set(a, row, "reason_codes", rl) ||
		    ib_map_set(a, row, "per_device_max_sample_gap_seconds", gaps) ||
		    ib_list_push(a, c->validations, row));
	}
	return 0;
}

/* observed_devices as derive_observed_devices gives them (NULL: no memory). */
static ib_val *observed_val(mn_ctx *c)
{
	ib_arena *a = c->au->a;
	ib_val *obs = ib_v_list(a);
	for (size_t i = 0; obs && i < c->p.nobs; i++) {
		const mn_obs *o = &c->p.obs[i];
		ib_val *d = ib_v_map(a), *u = ib_v_list(a);
		for (size_t k = 0; d && u && k < o->nuuid; k++)
			ib_list_push(a, u, ib_v_str(a, o->uuids[k]));
		if (!d || !u || ib_map_set(a, d, "hostname", ib_v_str(a, o->host)) ||
		    ib_map_set(a, d, "gpu_index", ib_v_int(a, o->index)) ||
		    ib_map_set(a, d, "gpu_uuids", u) ||
		    ib_map_set(a, d, "first_sample_time_unix", ib_v_float(a, o->first)) ||
		    ib_map_set(a, d, "last_sample_time_unix", ib_v_float(a, o->last)) ||
		    ib_list_push(a, obs, d))
			obs = NULL;
	}
	return obs;
}

static size_t stored_evidence(mn_ctx *c, const ib_val *m)
{
	mn_audit *au = c->au;
	size_t nf = 0;
	ib_val nrows = {.type = IB_V_INT, .i = (int64_t)c->p.nrows};
	const ib_val *sr = ib_map_get(m, "sample_row_count");
	if (!sr || !ib_val_equal(sr, &nrows))
		pw_mn_fail(au, "sample_row_count does not match the %zu rows on disk", c->p.nrows),
		    nf++;
	if (c->p.nrows) {
		int64_t least = 0;
		for (size_t i = 0; i < c->p.nobs; i++)
			for (size_t k = 0; k < c->p.obs[i].n; k++)
				if (c->p.obs[i].rows[k]->seq + 1 > least)
					least = c->p.obs[i].rows[k]->seq + 1;
		const ib_val *sc = ib_map_get(m, "scrape_count");
		if (!sc || sc->type != IB_V_INT || sc->i < least)
			pw_mn_fail(au, "scrape_count is too small, disk needs at least %lld",
			           (long long)least),
			    nf++;
	}
	if (!c->p.nobs)
		pw_mn_fail(au, "observed_devices is empty"), nf++;
	ib_val *obs = observed_val(c);
	const ib_val *so = ib_map_get(m, "observed_devices");
	if (!obs || !so || !ib_val_equal(so, obs))
		pw_mn_fail(au,
		           "observed_devices does not match the devices derived from samples.csv"),
		    nf++;
	const ib_val *wv = ib_map_get(m, "window_validations");
	if (!wv || !ib_val_equal(wv, c->validations))
		pw_mn_fail(au, "window_validations does not match the recomputed window audit"),
		    nf++;
	const ib_val *ae = ib_map_get(m, "artifact_errors");
	if (!ae || !ib_val_equal(ae, c->artifact_errors))
		pw_mn_fail(au, "artifact_errors does not match the recomputed artifact scan"), nf++;
	bool dd = false, dw = false;
	for (size_t i = 0; i < c->p.ndev; i++)
		for (size_t k = i + 1; k < c->p.ndev; k++)
			dd |= c->p.dev[i].index == c->p.dev[k].index &&
			      !strcmp(c->p.dev[i].host, c->p.dev[k].host);
	for (size_t i = 0; i < c->p.newin; i++)
		for (size_t k = i + 1; k < c->p.newin; k++)
			dw |= c->p.ewin[i].conc == c->p.ewin[k].conc &&
			      !strcmp(c->p.ewin[i].type, c->p.ewin[k].type);
	if (dd)
		pw_mn_fail(au, "expected_devices contains duplicate keys"), nf++;
	if (dw)
		pw_mn_fail(au, "expected_windows contains duplicate keys"), nf++;
	return nf;
}

static char *canonical_sha(ib_arena *a, const ib_val *v)
{
	ib_buf b = {0};
	ib_json_opts o = {.indent = -1, .compact = true, .ensure_ascii = true, .sort_keys = true};
	ib_error e;
	if (ib_json_write(&b, v, &o, &e)) {
		ib_buf_free(&b);
		return NULL;
	}
	char hex[65];
	ib_sha256_hex(b.data ? b.data : "", b.len, hex);
	ib_buf_free(&b);
	return ib_arena_strdup(a, hex);
}

/* _select_window_for_result */
static const mn_win *select_window(mn_ctx *c, const pw_bench *b, ib_val **selected)
{
	mn_audit *au = c->au;
	ib_arena *a = au->a;
	ib_val *proc;
	ib_error e;
	if (ib_json_parse_file(a, c->bench, &proc, &e)) {
		pw_mn_reason(au, "invalid_benchmark_result",
		             ib_arena_printf(a, "unreadable result: %s", c->bench));
		return NULL;
	}
	if (proc->type != IB_V_MAP) {
		pw_mn_reason(au, "invalid_benchmark_result", "processed result is not an object");
		return NULL;
	}
	const ib_val *cc = ib_map_get(proc, "max_concurrency");
	const mn_win *w = NULL;
	size_t nm = 0;
	for (size_t i = 0; i < c->nwin; i++)
		if (!strcmp(c->win[i].status, "completed") && val_eq_num(cc, c->win[i].conc))
			w = &c->win[i], nm++;
	if (nm != 1) {
		char r[128] = "None";
		if (cc)
			ib_val_repr(cc, r, sizeof r);
		pw_mn_reason(
		    au, "window_for_result_missing",
		    ib_arena_printf(a, "found %zu completed windows for concurrency %s", nm, r));
		return NULL;
	}
	char *orig = ib_arena_printf(a, "%s/%s", c->logs_root, w->result_path);
	ib_val *ov;
	if (!orig || ib_json_parse_file(a, orig, &ov, &e)) {
		pw_mn_reason(au, "measurement_window_result_missing",
		             ib_arena_printf(a, "original result unreadable: %s", orig));
		return NULL;
	}
	char *h1 = canonical_sha(a, ov), *h2 = canonical_sha(a, proc);
	if (!h1 || !h2 || strcmp(h1, h2)) {
		const char *base = strrchr(c->bench, '/');
		pw_mn_reason(au, "result_content_mismatch",
		             ib_arena_printf(a, "workspace copy %s differs from original %s",
		                             base ? base + 1 : c->bench, w->result_path));
		return NULL;
	}
	if (b->ok && (b->start != w->start || b->end != w->end)) {
		pw_mn_reason(au, "measurement_window_result_mismatch",
		             "benchmark window fields do not match the selected window file");
		return NULL;
	}
	ib_val *s = ib_v_map(a);
	if (!s || ib_map_set(a, s, "window_file", ib_v_str(a, w->rel)) ||
	    ib_map_set(a, s, "result_path", ib_v_str(a, w->result_path)) ||
	    ib_map_set(a, s, "benchmark_type", ib_v_str(a, w->type)) ||
	    ib_map_set(a, s, "concurrency", (ib_val *)w->conc_v) ||
	    ib_map_set(a, s, "start_time_unix", ib_v_float(a, w->start)) ||
	    ib_map_set(a, s, "end_time_unix", ib_v_float(a, w->end)) ||
	    ib_map_set(a, s, "duration", ib_v_float(a, w->duration)))
		return NULL;
	*selected = s;
	return w;
}

typedef struct {
	bool valid;
	const char *sha, *expected_sha, *exporter_sha;
	int stored, recomputed; /* -1 None, 0 false, 1 true */
	ib_val *window, *roles, *gaps, *energy;
	size_t expected_gpus, observed_gpus;
	const char *mnames[13];
	double mvals[13];
	size_t nm;
} mn_result;

static int cmp_tp2(const void *x, const void *y)
{
	const double *a = x, *b = y;
	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return (a[1] > b[1]) - (a[1] < b[1]);
}

static const char *uuid_label(mn_ctx *c, const char *host, int64_t index)
{
	const mn_obs *o = pw_mn_find_obs(&c->p, host, index);
	if (o && o->nuuid == 1)
		return ib_arena_printf(c->au->a, "%s/%s", host, o->uuids[0]);
	return ib_arena_printf(c->au->a, "%s/%lld", host, (long long)index);
}

static int integrate(mn_ctx *c, const mn_win *w, const pw_bench *b, mn_result *res)
{
	ib_arena *a = c->au->a;
	double role_e[2] = {0, 0}, total = 0;
	for (size_t i = 0; i < c->p.ndev; i++) {
		const mn_dev *d = &c->p.dev[i];
		const mn_obs *o = pw_mn_find_obs(&c->p, d->host, d->index);
		size_t n = o ? o->n : 0;
		double *tp = malloc((n + 1) * 2 * sizeof *tp), *t = malloc((n + 1) * sizeof *t),
		       *p = malloc((n + 1) * sizeof *p);
		if (!tp || !t || !p) {
			free(tp), free(t), free(p);
			return -1;
		}
		for (size_t k = 0; k < n; k++)
			tp[2 * k] = o->rows[k]->t, tp[2 * k + 1] = o->rows[k]->power;
		qsort(tp, n, 2 * sizeof *tp, cmp_tp2);
		for (size_t k = 0; k < n; k++)
			t[k] = tp[2 * k], p[k] = tp[2 * k + 1];
		double en = pw_integrate(t, p, n, w->start, w->end), gap = 0.0;
		bracket_gap(o->times, o->n, w->start, w->end, &gap);
		free(tp), free(t), free(p);
		const char *label = uuid_label(c, d->host, d->index);
		CHK(ib_map_set(a, res->energy, label,
		               isfinite(en) ? ib_v_float(a, en) : ib_v_null(a)));
		CHK(ib_map_set(a, res->gaps, label, ib_v_float(a, gap)));
		const char *r = pw_mn_role_of(&c->p, d->host, d->index);
		if (r && !strcmp(r, "prefill"))
			role_e[0] += en;
		if (r && !strcmp(r, "decode"))
			role_e[1] += en;
	}
	/* the sum in the dict's order (a repeated label keeps its first place) */
	for (size_t i = 0; i < res->energy->map.n; i++) {
		const ib_val *v = res->energy->map.kv[i].val;
		total += v->type == IB_V_FLOAT ? v->f : INFINITY;
	}
	double dur = w->end - w->start;
	int64_t tin = b->in, tout = b->out;
	size_t k = 0;
#define MET(name, val) (res->mnames[k] = (name), res->mvals[k++] = (val))
	MET("avg_power_w", total / dur / (double)c->p.ndev);
	MET("avg_total_gpu_power_w", total / dur);
	MET("total_gpu_energy_j", total);
	MET("joules_per_successful_query", total / (double)b->completed);
	MET("joules_per_input_token", total / (double)tin);
	MET("joules_per_output_token", total / (double)tout);
	MET("joules_per_total_token", total / (double)(tin + tout));
	if (c->o->prefill_gpus > 0) {
		MET("prefill_gpu_energy_j", role_e[0]);
		MET("prefill_avg_power_w", role_e[0] / dur / (double)c->o->prefill_gpus);
		MET("prefill_joules_per_input_token", role_e[0] / (double)tin);
	}
	if (c->o->decode_gpus > 0) {
		MET("decode_gpu_energy_j", role_e[1]);
		MET("decode_avg_power_w", role_e[1] / dur / (double)c->o->decode_gpus);
		MET("decode_joules_per_output_token", role_e[1] / (double)tout);
	}
#undef MET
	res->nm = k;
	ib_buf nf = {0};
	const char **sorted = ib_arena_alloc(a, k * sizeof *sorted);
	size_t ns = 0;
	for (size_t i = 0; sorted && i < k; i++)
		if (!isfinite(res->mvals[i]))
			sorted[ns++] = res->mnames[i];
	if (ns) {
		qsort(sorted, ns, sizeof *sorted, cmp_name);
		for (size_t i = 0; i < ns; i++)
			ib_buf_printf(&nf, "%s%s", i ? ", " : "", sorted[i]);
		pw_mn_reason(c->au, "non_finite_power_metric",
		             ib_arena_printf(a, "non-finite: %s", nf.data));
		ib_buf_free(&nf);
		res->nm = 0;
		return 0;
	}
	res->valid = true;
	return 0;
}

static int validate_and_integrate(mn_ctx *c, const pw_bench *eff, mn_result *res)
{
	mn_audit *au = c->au;
	ib_arena *a = au->a;
	const pw_mn_opts *o = c->o;
	struct stat st;
	res->expected_sha =
	    o->expected_producer_sha && *o->expected_producer_sha ? o->expected_producer_sha : NULL;
	if (stat(c->power_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		pw_mn_reason(au, "power_artifacts_missing",
		             ib_arena_printf(a, "power dir missing: %s", c->power_dir));
		return 0;
	}
	char *mp = ib_arena_printf(a, "%s/manifest.json", c->power_dir);
	if (!pw_is_file(mp)) {
		pw_mn_reason(au, "manifest_missing",
		             ib_arena_printf(a, "manifest missing: %s", mp));
		return 0;
	}
	ib_val *m;
	ib_error e = {0};
	if (ib_json_parse_file(a, mp, &m, &e)) {
		pw_mn_reason(au, "manifest_malformed",
		             ib_arena_printf(a, "manifest unreadable: %s", e.msg));
		return 0;
	}
	if (m->type != IB_V_MAP) {
		pw_mn_reason(au, "manifest_malformed", "manifest is not an object");
		return 0;
	}
	const ib_val *sv = ib_map_get(m, "publication_valid"),
	             *pc = ib_map_get(m, "producer_git_commit"),
	             *ex = ib_map_get(m, "dcgm_exporter");
	res->stored = sv && sv->type == IB_V_BOOL ? sv->b : -1;
	res->sha = pc && pc->type == IB_V_STR ? pc->str.s : NULL;
	if (ex && ex->type == IB_V_MAP) {
		const ib_val *s = ib_map_get(ex, "container_image_sha256");
		res->exporter_sha = s && s->type == IB_V_STR ? s->str.s : NULL;
	}
	if (!res->expected_sha)
		pw_mn_reason(au, "producer_pin_missing", "no expected producer SHA configured");
	else if (!res->sha || strcmp(res->sha, res->expected_sha))
		pw_mn_reason(au, "producer_commit_mismatch",
		             ib_arena_printf(a, "producer_git_commit %s%s%s != expected '%s'",
		                             res->sha ? "'" : "", res->sha ? res->sha : "None",
		                             res->sha ? "'" : "", res->expected_sha));
	size_t nfail = 0;
	size_t fail0 = au->nfail;
	pw_mn_check_wire(au, m, &nfail);
	char why[512];
	int pr = pw_mn_parse_expected(au, m, &c->p, why, sizeof why);
	if (pr < 0)
		return -1;
	if (pr > 0) {
		au->nfail = fail0; /* the reference records only the parse error here */
		pw_mn_reason(au, "manifest_malformed",
		             ib_arena_printf(a, "manifest malformed: %s", why));
		res->recomputed = 0;
		return 0;
	}
	CHK(pw_mn_read_samples(au, ib_arena_printf(a, "%s/samples.csv", c->power_dir), &c->p));
	for (size_t i = 0; i < c->p.sample_reasons.n; i++, nfail++)
		pw_mn_fail(au, "%s in samples.csv", c->p.sample_reasons.v[i]);
	pw_reasons dr = {0};
	pw_mn_validate_devices(&c->p, &dr);
	for (size_t i = 0; i < dr.n; i++, nfail++)
		pw_mn_fail(au, "%s (device identity/topology)", dr.v[i]);
	size_t before = au->nfail;
	CHK(validate_windows(c));
	if (!c->p.newin)
		pw_mn_fail(au, "no expected measurement window");
	nfail += au->nfail - before;
	for (size_t i = 0; i < c->artifact_errors->list.n; i++, nfail++) {
		const ib_val *ae = c->artifact_errors->list.v[i];
		pw_mn_fail(au, "%s (%s)", ib_map_get(ae, "reason_codes")->list.v[0]->str.s,
		           ib_map_get(ae, "path")->str.s);
	}
	nfail += stored_evidence(c, m);
	res->recomputed = nfail == 0;
	if (nfail)
		pw_reason(&au->reasons, "package_recompute_invalid");
	if (res->stored != 1 || res->stored != res->recomputed) {
		if (res->stored != res->recomputed)
			pw_mn_reason(au, "producer_verdict_mismatch",
			             ib_arena_printf(a,
			                             "stored publication_valid=%s, recomputed=%s",
			                             res->stored < 0 ? "None"
			                             : res->stored   ? "True"
			                                             : "False",
			                             res->recomputed ? "True" : "False"));
		else
			pw_mn_reason(au, "package_recompute_invalid",
			             "stored and recomputed both invalid");
	}
	bool any_roles = c->p.roles_ok && c->p.ndev > 0;
	/* aggregate workers exclude prefill/decode ones (no phase-local
	 * fields for shared GPUs) */
	if (o->aggregate_gpus > 0 && (o->prefill_gpus > 0 || o->decode_gpus > 0))
		pw_mn_reason(au, "topology_env_mismatch",
		             "aggregate GPUs cannot be combined with prefill/decode GPUs");
	if (o->prefill_gpus <= 0 && o->decode_gpus <= 0 && o->aggregate_gpus <= 0)
		pw_mn_reason(au, "topology_env_mismatch",
		             "prefill, decode, and aggregate GPU counts are all zero");
	else if (any_roles)
		pw_mn_check_topology(au, &c->p, o->prefill_gpus, o->decode_gpus, o->aggregate_gpus);
	res->expected_gpus = c->p.ndev;
	res->observed_gpus = c->p.nobs;
	size_t nk;
	const mn_dev **keys = sorted_keys(c, &nk);
	CHK(!keys);
	for (size_t i = 0; any_roles && i < nk; i++)
		CHK(ib_map_set(a, res->roles, uuid_label(c, keys[i]->host, keys[i]->index),
		               ib_v_str(a, pw_mn_role_of(&c->p, keys[i]->host, keys[i]->index))));
	ib_val *sel = NULL;
	pw_bench none = {0};
	const mn_win *w = select_window(c, eff ? eff : &none, &sel);
	if (sel)
		res->window = sel;
	if (au->reasons.n || !w || !eff)
		return 0;
	return integrate(c, w, eff, res);
}

static ib_val *tri(ib_arena *a, int x)
{
	return x < 0 ? ib_v_null(a) : ib_v_bool(a, x);
}

static ib_val *opt_str(ib_arena *a, const char *s)
{
	return s ? ib_v_str(a, s) : ib_v_null(a);
}

static ib_val *sidecar(mn_ctx *c, const pw_bench *b, const mn_result *r)
{
	ib_arena *a = c->au->a;
	ib_val *m = ib_v_map(a), *prod = ib_v_map(a), *met = ib_v_map(a);
	if (!m || !prod || !met)
		return NULL;
	for (size_t i = 0; r->valid && i < r->nm; i++)
		if (isfinite(r->mvals[i]) &&
		    ib_map_set(a, met, r->mnames[i], ib_v_float(a, pw_py_round(r->mvals[i], 6))))
			return NULL;
	if (ib_map_set(a, prod, "producer_git_commit", opt_str(a, r->sha)) ||
	    ib_map_set(a, prod, "expected_producer_git_commit", opt_str(a, r->expected_sha)) ||
	    ib_map_set(a, prod, "exporter_image_sha256", opt_str(a, r->exporter_sha)) ||
	    ib_map_set(a, prod, "stored_publication_valid", tri(a, r->stored)) ||
	    ib_map_set(a, prod, "recomputed_publication_valid", tri(a, r->recomputed)))
		return NULL;
	if (ib_map_set(a, m, "schema_version", ib_v_int(a, 1)) ||
	    ib_map_set(a, m, "power_valid", ib_v_bool(a, r->valid)) ||
	    ib_map_set(a, m, "reasons", pw_str_list(a, c->au->reasons.v, c->au->reasons.n)) ||
	    ib_map_set(a, m, "failures", pw_str_list(a, c->au->fail, c->au->nfail)) ||
	    ib_map_set(a, m, "telemetry_source", ib_v_str(a, c->power_dir)) ||
	    ib_map_set(a, m, "benchmark_result", ib_v_str(a, c->bench)) ||
	    ib_map_set(a, m, "benchmark_window", pw_window_val(a, b)) ||
	    ib_map_set(a, m, "selected_window", r->window ? r->window : ib_v_null(a)) ||
	    ib_map_set(a, m, "integration_method",
	               ib_v_str(a, "per_device_trapezoidal_with_linear_boundary_interpolation")) ||
	    ib_map_set(a, m, "producer", prod) ||
	    ib_map_set(a, m, "expected_gpu_count", ib_v_int(a, (int64_t)r->expected_gpus)) ||
	    ib_map_set(a, m, "observed_gpu_count", ib_v_int(a, (int64_t)r->observed_gpus)) ||
	    ib_map_set(a, m, "per_gpu_role", r->roles) ||
	    ib_map_set(a, m, "per_gpu_max_sample_gap_s", r->gaps) ||
	    ib_map_set(a, m, "per_gpu_energy_j", r->energy) || ib_map_set(a, m, "metrics", met))
		return NULL;
	return m;
}

static const char *const all_keys[13] = {"avg_power_w",
                                         "avg_total_gpu_power_w",
                                         "total_gpu_energy_j",
                                         "joules_per_successful_query",
                                         "joules_per_input_token",
                                         "joules_per_output_token",
                                         "joules_per_total_token",
                                         "prefill_gpu_energy_j",
                                         "decode_gpu_energy_j",
                                         "prefill_avg_power_w",
                                         "decode_avg_power_w",
                                         "prefill_joules_per_input_token",
                                         "decode_joules_per_output_token"};

static double metric(const mn_result *r, const char *k)
{
	for (size_t i = 0; i < r->nm; i++)
		if (!strcmp(r->mnames[i], k))
			return r->mvals[i];
	return 0.0;
}

int pw_mn_run(const pw_mn_opts *o, int *status, ib_error *e)
{
	*status = 0;
	mn_audit au = {.a = ib_arena_new()};
	if (!au.a)
		return OOM(e);
	ib_arena *a = au.a;
	int rc = 0;
	mn_ctx c = {.au = &au, .o = o};
	c.power_dir = pw_py_path(a, o->power_dir);
	c.logs_root = pw_py_path(a, o->logs_root);
	c.bench = pw_py_path(a, o->bench_path);
	const char *agg = pw_py_path(a, o->agg_path);
	const char *val = o->validation_path ? pw_py_path(a, o->validation_path) : NULL;
	c.artifact_errors = ib_v_list(a);
	c.validations = ib_v_list(a);
	mn_result r = {.stored = -1,
	               .recomputed = -1,
	               .roles = ib_v_map(a),
	               .gaps = ib_v_map(a),
	               .energy = ib_v_map(a)};
	if (!c.power_dir || !c.logs_root || !c.bench || !agg || !c.artifact_errors ||
	    !c.validations || !r.roles || !r.gaps || !r.energy)
		goto oom;
	if (!val) {
		char *stem = pw_path_stem(a, c.bench);
		val = stem ? pw_path_with_name(a, c.bench,
		                               ib_arena_printf(a, "power_validation_%s.json", stem))
		           : NULL;
		if (!val)
			goto oom;
	}
	pw_reasons br = {0};
	pw_bench b;
	if ((rc = pw_load_bench(a, c.bench, &b, &br, e)))
		goto done;
	const pw_bench *eff = b.ok && !br.n ? &b : NULL;
	if (validate_and_integrate(&c, eff, &r))
		goto oom;
	for (size_t i = 0; i < br.n; i++)
		pw_reason(&au.reasons, br.v[i]);
	if (!b.ok || au.reasons.n)
		r.valid = false, r.nm = 0;
	if (!pw_is_file(agg)) {
		pw_mn_reason(&au, "aggregate_result_missing",
		             ib_arena_printf(a, "aggregate missing: %s", agg));
		r.valid = false, r.nm = 0;
	} else {
		char msg[3000] = "";
		int pr = pw_patch_agg(agg, all_keys, 13, r.valid, r.mnames, r.mvals, r.nm, msg,
		                      sizeof msg, e);
		if (pr < 0) {
			rc = pr;
			goto done;
		}
		if (pr == 1) {
			pw_mn_reason(&au, "aggregate_result_unwritable", msg);
			r.valid = false, r.nm = 0;
			pw_logf(o->log, o->log_ud, 2,
			        "[aggregate_power_multinode] Failed to patch %s: %s", agg, msg);
		}
	}
	ib_val *side = sidecar(&c, &b, &r);
	if (!side)
		goto oom;
	ib_error we = {0};
	if (pw_write_json(val, side, &we)) {
		char m[2600];
		ib_error_format(&we, m, sizeof m);
		pw_logf(o->log, o->log_ud, 2,
		        "[aggregate_power_multinode] Failed to write validation artifact %s: %s",
		        val, m);
		*status = o->require_power ? 1 : 0;
		goto done;
	}
	if (!r.valid) {
		pw_log_invalid(o->log, o->log_ud, "[aggregate_power_multinode]", &au.reasons, val);
		*status = o->require_power ? 1 : 0;
		goto done;
	}
	pw_logf(o->log, o->log_ud, 1,
	        "[aggregate_power_multinode] avg_power_w=%.2f total_gpu_energy_j=%.2f "
	        "prefill_gpu_energy_j=%.2f decode_gpu_energy_j=%.2f (n=%zu) -> %s",
	        metric(&r, "avg_power_w"), metric(&r, "total_gpu_energy_j"),
	        metric(&r, "prefill_gpu_energy_j"), metric(&r, "decode_gpu_energy_j"),
	        r.expected_gpus, agg);
	goto done;
oom:
	rc = OOM(e);
done:
	ib_arena_free(a);
	return rc;
}

int pw_mn_seal(ib_arena *a, const char *power_dir, const char *logs_root, ib_val *m,
               const char **first_failure, ib_error *e)
{
	mn_audit au = {.a = a};
	pw_mn_opts o = {0};
	mn_ctx c = {.au = &au, .o = &o};
	*first_failure = NULL;
	c.power_dir = pw_py_path(a, power_dir);
	c.logs_root = pw_py_path(a, logs_root);
	c.artifact_errors = ib_v_list(a);
	c.validations = ib_v_list(a);
	if (!c.power_dir || !c.logs_root || !c.artifact_errors || !c.validations)
		return OOM(e);
	/* the recomputation of validate_and_integrate, whose results become the
	 * manifest's stored evidence */
	size_t nfail = 0;
	pw_mn_check_wire(&au, m, &nfail);
	char why[512];
	int pr = pw_mn_parse_expected(&au, m, &c.p, why, sizeof why);
	if (pr)
		return pr < 0 ? OOM(e)
		              : ib_fail(e, IB_EINVAL, power_dir, 0, 0, "the manifest: %s", why);
	if (pw_mn_read_samples(&au, ib_arena_printf(a, "%s/samples.csv", c.power_dir), &c.p))
		return OOM(e);
	for (size_t i = 0; i < c.p.sample_reasons.n; i++, nfail++)
		pw_mn_fail(&au, "%s in samples.csv", c.p.sample_reasons.v[i]);
	pw_reasons dr = {0};
	pw_mn_validate_devices(&c.p, &dr);
	for (size_t i = 0; i < dr.n; i++, nfail++)
		pw_mn_fail(&au, "%s (device identity/topology)", dr.v[i]);
	size_t before = au.nfail;
	if (validate_windows(&c))
		return OOM(e);
	nfail += au.nfail - before + c.artifact_errors->list.n;
	if (!c.p.newin)
		pw_mn_fail(&au, "no expected measurement window"), nfail++;
	if (!c.p.nobs)
		pw_mn_fail(&au, "observed_devices is empty"), nfail++;
	ib_val *obs = observed_val(&c);
	if (!obs || ib_map_set(a, m, "observed_devices", obs) ||
	    ib_map_set(a, m, "window_validations", c.validations) ||
	    ib_map_set(a, m, "artifact_errors", c.artifact_errors) ||
	    ib_map_set(a, m, "sample_row_count", ib_v_int(a, (int64_t)c.p.nrows)) ||
	    ib_map_set(a, m, "publication_valid", ib_v_bool(a, nfail == 0)))
		return OOM(e);
	if (au.nfail)
		*first_failure = au.fail[0];
	return 0;
}
