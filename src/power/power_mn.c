/* aggregate_power_multinode.py: re-validate an srt-slurm dcgm-power v1
 * package (manifest.json, samples.csv, windows/) the way the reference does,
 * before any energy is published (docs/power.md). This file: the package
 * checks; power_mn_run.c: window selection, integration and the outputs. */
#include "power/power_mn.h"
#include <stdio.h>

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const samples_header[7] = {"schema_version", "timestamp_unix", "scrape_seq",
                                              "hostname",       "gpu_index",      "gpu_uuid",
                                              "power_w"};

void pw_mn_fail(mn_audit *au, const char *fmt, ...)
{
	ib_buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	int rc = ib_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (!rc && au->nfail < sizeof au->fail / sizeof au->fail[0])
		au->fail[au->nfail++] = ib_arena_strdup(au->a, b.data ? b.data : "");
	ib_buf_free(&b);
}

void pw_mn_reason(mn_audit *au, const char *r, const char *detail)
{
	pw_reason(&au->reasons, r);
	if (detail && *detail)
		pw_mn_fail(au, "%s", detail);
}

bool pw_mn_finite(const ib_val *v)
{
	return v && (v->type == IB_V_INT || (v->type == IB_V_FLOAT && isfinite(v->f)));
}

double pw_mn_num(const ib_val *v)
{
	return v->type == IB_V_INT ? (double)v->i : v->type == IB_V_BOOL ? v->b : v->f;
}

static bool whole(const ib_val *v, int64_t min, int64_t *out)
{
	if (!v || v->type != IB_V_INT || v->i < min)
		return false;
	*out = v->i;
	return true;
}

static const char *repr(ib_arena *a, const ib_val *v)
{
	char r[256];
	if (!v)
		return "None";
	ib_val_repr(v, r, sizeof r);
	return ib_arena_strdup(a, r);
}

/* ---- manifest ---- */

static bool eq_str(const ib_val *v, const char *s)
{
	return v && v->type == IB_V_STR && !strcmp(v->str.s, s);
}

void pw_mn_check_wire(mn_audit *au, const ib_val *m, size_t *nf)
{
	static const char *const keys[6][2] = {
	    {"schema_version", NULL},
	    {"producer", "srt-slurm.dcgm-power"},
	    {"source_metric", "DCGM_FI_DEV_POWER_USAGE"},
	    {"unit", "W"},
	    {"power_scope", "gpu_device_board_as_reported_by_dcgm"},
	    {"timestamp_source", "head_node_unix_clock"}};
	ib_arena *a = au->a;
	for (int i = 0; i < 6; i++) {
		const ib_val *v = ib_map_get(m, keys[i][0]);
		bool ok;
		if (!keys[i][1]) {
			ib_val one = {.type = IB_V_INT, .i = 1};
			ok = v && ib_val_equal(v, &one);
		} else {
			ok = eq_str(v, keys[i][1]);
		}
		if (!ok)
			pw_mn_fail(au, "%s is %s, expected %s%s%s", keys[i][0], repr(a, v),
			           keys[i][1] ? "'" : "", keys[i][1] ? keys[i][1] : "1",
			           keys[i][1] ? "'" : ""),
			    (*nf)++;
	}
	const ib_val *st = ib_map_get(m, "status");
	if (!eq_str(st, "complete"))
		pw_mn_fail(au, "status is %s, expected 'complete'", repr(a, st)), (*nf)++;
	if (!pw_mn_finite(ib_map_get(m, "started_at_unix")))
		pw_mn_fail(au, "started_at_unix is not a finite number"), (*nf)++;
	if (!pw_mn_finite(ib_map_get(m, "stopped_at_unix")))
		pw_mn_fail(au, "stopped_at_unix is not finite in a terminal manifest"), (*nf)++;
	static const char *const pos[2] = {"sample_interval_seconds", "request_timeout_seconds"};
	for (int i = 0; i < 2; i++) {
		const ib_val *v = ib_map_get(m, pos[i]);
		if (!pw_mn_finite(v) || !(pw_mn_num(v) > 0))
			pw_mn_fail(au, "%s is not finite and positive", pos[i]), (*nf)++;
	}
	static const char *const cnt[2] = {"scrape_count", "sample_row_count"};
	for (int i = 0; i < 2; i++) {
		int64_t x;
		if (!whole(ib_map_get(m, cnt[i]), 0, &x))
			pw_mn_fail(au, "%s is not a non-negative integer", cnt[i]), (*nf)++;
	}
	const ib_val *req = ib_map_get(m, "required");
	if (!req || req->type != IB_V_BOOL)
		pw_mn_fail(au, "required is %s, expected a boolean", repr(a, req)), (*nf)++;
	const ib_val *rc = ib_map_get(m, "reason_codes");
	bool strs = rc && rc->type == IB_V_LIST;
	for (size_t i = 0; strs && i < rc->list.n; i++)
		strs = rc->list.v[i]->type == IB_V_STR;
	if (!strs) {
		pw_mn_fail(au, "reason_codes is not a list of strings"), (*nf)++;
	} else {
		static const char *const fatal[] = {
		    "benchmark_child_reap_timeout", "collector_exception",
		    "collector_interrupted",        "collector_join_timeout",
		    "endpoint_resolution_failed",   "exporter_exited",
		    "exporter_launch_failed",       "exporter_startup_timeout"};
		ib_buf b = {0};
		for (size_t k = 0; k < 8; k++) {
			bool startup = !strcmp(fatal[k], "endpoint_resolution_failed") ||
			               !strcmp(fatal[k], "exporter_launch_failed") ||
			               !strcmp(fatal[k], "exporter_startup_timeout");
			if (startup && !(req && req->type == IB_V_BOOL && req->b))
				continue;
			for (size_t i = 0; i < rc->list.n; i++)
				if (!strcmp(rc->list.v[i]->str.s, fatal[k])) {
					ib_buf_printf(&b, "%s%s", b.len ? ", " : "", fatal[k]);
					break;
				}
		}
		if (b.len)
			pw_mn_fail(au, "complete manifest carries lifecycle-failure reasons: %s",
			           b.data),
			    (*nf)++;
		ib_buf_free(&b);
	}
	const ib_val *ex = ib_map_get(m, "dcgm_exporter");
	if (!ex || ex->type != IB_V_MAP)
		pw_mn_fail(au, "dcgm_exporter is not an object"), (*nf)++;
	else if (!ib_val_truthy(ib_map_get(ex, "container_image_resolved")) ||
	         !ib_map_get(ex, "container_image_resolved"))
		pw_mn_fail(au, "dcgm_exporter.container_image_resolved is empty"), (*nf)++;
}

/* `x or []` of a manifest list: NULL when falsy, else the value. */
static const ib_val *list_or_empty(const ib_val *v)
{
	return v && ib_val_truthy(v) ? v : NULL;
}

int pw_mn_parse_expected(mn_audit *au, const ib_val *m, mn_pkg *p, char *why, size_t cap)
{
	ib_arena *a = au->a;
	const ib_val *ed = list_or_empty(ib_map_get(m, "expected_devices"));
	if (ed && ed->type != IB_V_LIST)
		return snprintf(why, cap, "TypeError('expected_devices is not a list')"), 1;
	size_t n = ed ? ed->list.n : 0;
	p->dev = ib_arena_alloc(a, (n + 1) * sizeof *p->dev);
	if (!p->dev)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const ib_val *en = ed->list.v[i];
		if (en->type != IB_V_MAP)
			return snprintf(why, cap, "AttributeError('.get of a %s')",
			                ib_vtype_pyname(en)),
			       1;
		const ib_val *as = list_or_empty(ib_map_get(en, "assignments"));
		if (!as || as->type != IB_V_LIST || !as->list.n)
			return snprintf(why, cap,
			                "ValueError('assignments is not a non-empty list')"),
			       1;
		mn_dev *d = &p->dev[i];
		d->role = NULL;
		d->role_conflict = d->group_conflict = false;
		for (size_t k = 0; k < as->list.n; k++) {
			const ib_val *x = as->list.v[k];
			if (x->type != IB_V_MAP)
				return snprintf(why, cap,
				                "TypeError('assignment is not an object')"),
				       1;
			const ib_val *role = ib_map_get(x, "worker_role");
			int64_t w;
			if (!role || !ib_map_get(x, "worker_index") ||
			    !ib_map_get(x, "worker_process"))
				return snprintf(why, cap, "KeyError('worker_*')"), 1;
			if (!(eq_str(role, "prefill") || eq_str(role, "decode") ||
			      eq_str(role, "agg")))
				return snprintf(why, cap,
				                "ValueError('worker_role is not one of ('prefill', "
				                "'decode', 'agg'): %s')",
				                repr(a, role)),
				       1;
			if (!whole(ib_map_get(x, "worker_index"), 0, &w) ||
			    !whole(ib_map_get(x, "worker_process"), 0, &w))
				return snprintf(why, cap,
				                "ValueError('worker_index/worker_process is not an "
				                "integer >= 0')"),
				       1;
			const ib_val *hg = ib_map_get(x, "het_group");
			bool hnull = !hg || hg->type == IB_V_NULL;
			int64_t g = -1;
			if (!hnull && !whole(hg, 0, &g))
				return snprintf(
				           why, cap,
				           "ValueError('het_group is not an integer >= 0: %s')",
				           repr(a, hg)),
				       1;
			if (k == 0) {
				d->role = role->str.s;
				d->group = hnull ? -1 : g;
			} else {
				if (strcmp(d->role, role->str.s))
					d->role_conflict = true;
				if (d->group != (hnull ? -1 : g))
					d->group_conflict = true;
			}
		}
		const ib_val *h = ib_map_get(en, "hostname"), *gi = ib_map_get(en, "gpu_index");
		if (!h || !gi)
			return snprintf(why, cap, "KeyError('hostname/gpu_index')"), 1;
		if (h->type != IB_V_STR || !h->str.len)
			return snprintf(why, cap,
			                "ValueError('hostname is not a non-empty string: %s')",
			                repr(a, h)),
			       1;
		if (!whole(gi, 0, &d->index))
			return snprintf(why, cap,
			                "ValueError('gpu_index is not an integer >= 0: %s')",
			                repr(a, gi)),
			       1;
		d->host = h->str.s;
	}
	p->ndev = n;
	const ib_val *ew = list_or_empty(ib_map_get(m, "expected_windows"));
	if (ew && ew->type != IB_V_LIST)
		return snprintf(why, cap, "TypeError('expected_windows is not a list')"), 1;
	n = ew ? ew->list.n : 0;
	p->ewin = ib_arena_alloc(a, (n + 1) * sizeof *p->ewin);
	if (!p->ewin)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const ib_val *en = ew->list.v[i];
		if (en->type != IB_V_MAP)
			return snprintf(why, cap, "TypeError('window entry is not an object')"), 1;
		const ib_val *bt = ib_map_get(en, "benchmark_type"),
		             *cc = ib_map_get(en, "concurrency");
		if (!bt || !cc)
			return snprintf(why, cap, "KeyError('benchmark_type/concurrency')"), 1;
		if (bt->type != IB_V_STR || !bt->str.len)
			return snprintf(why, cap,
			                "ValueError('benchmark_type is not a non-empty string')"),
			       1;
		if (!whole(cc, 1, &p->ewin[i].conc))
			return snprintf(why, cap,
			                "ValueError('concurrency is not an integer >= 1: %s')",
			                repr(a, cc)),
			       1;
		p->ewin[i].type = bt->str.s;
	}
	p->newin = n;
	return 0;
}

/* ---- samples.csv ---- */

static int row_cmp_dev(const mn_row *a, const mn_row *b)
{
	int c = strcmp(a->host, b->host);
	if (c)
		return c;
	return (a->index > b->index) - (a->index < b->index);
}

static int by_dev_seq(const void *x, const void *y)
{
	const mn_row *a = *(mn_row *const *)x, *b = *(mn_row *const *)y;
	int c = row_cmp_dev(a, b);
	if (c)
		return c;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

int pw_mn_read_samples(mn_audit *au, const char *path, mn_pkg *p)
{
	ib_arena *a = au->a;
	p->sample_reasons.n = 0;
	if (!pw_is_file(path)) {
		pw_reason(&p->sample_reasons, "samples_csv_missing");
		return 0;
	}
	ib_buf b = {0};
	ib_error e;
	if (ib_read_file(path, &b, &e)) {
		pw_reason(&p->sample_reasons, "samples_csv_malformed");
		return 0;
	}
	pw_csv c;
	bool bad = false;
	int rc = pw_csv_parse(a, b.data ? b.data : "", b.len, false, false, &bad, &c);
	ib_buf_free(&b);
	if (rc)
		return -1;
	bool hdr = c.n > 0 && c.rows[0].n == 7;
	for (size_t i = 0; hdr && i < 7; i++)
		hdr = c.rows[0].len[i] == strlen(samples_header[i]) &&
		      !strcmp(c.rows[0].f[i], samples_header[i]);
	if (!hdr) {
		pw_csv_free(&c);
		pw_reason(&p->sample_reasons, c.n || !(bad || c.error)
		                                  ? "samples_csv_header_mismatch"
		                                  : "samples_csv_malformed");
		return 0;
	}
	mn_row *rows = ib_arena_alloc(a, c.n * sizeof *rows);
	if (!rows) {
		pw_csv_free(&c);
		return -1;
	}
	size_t n = 0;
	for (size_t i = 1; i < c.n; i++) {
		const pw_csv_row *r = &c.rows[i];
		int64_t sv, seq, gi;
		double t, pw;
		if (r->n != 7 || !ib_py_int(r->f[0], r->len[0], &sv) ||
		    !ib_py_float(r->f[1], r->len[1], &t) || !ib_py_int(r->f[2], r->len[2], &seq) ||
		    !ib_py_int(r->f[4], r->len[4], &gi) || !ib_py_float(r->f[6], r->len[6], &pw) ||
		    sv != 1 || !r->len[3] || !r->len[5] || !isfinite(t) || !isfinite(pw) ||
		    pw < 0 || seq < 0 || gi < 0) {
			pw_reason(&p->sample_reasons, "samples_csv_malformed");
			continue;
		}
		rows[n] = (mn_row){.t = t,
		                   .seq = seq,
		                   .host = r->f[3],
		                   .index = gi,
		                   .uuid = r->f[5],
		                   .power = pw,
		                   .order = n};
		n++;
	}
	if (bad || c.error)
		pw_reason(&p->sample_reasons, "samples_csv_malformed");
	pw_csv_free(&c);
	p->rows = rows;
	/* devices: rows grouped by (hostname, gpu_index), each by scrape_seq; a
	 * repeated (scrape_seq, hostname, gpu_index) row after the first is dropped */
	mn_row **ord = ib_arena_alloc(a, (n + 1) * sizeof *ord);
	if (!ord)
		return -1;
	for (size_t i = 0; i < n; i++)
		ord[i] = &rows[i];
	qsort(ord, n, sizeof *ord, by_dev_seq);
	size_t u = 0;
	for (size_t i = 0; i < n; i++) {
		if (u && !row_cmp_dev(ord[i], ord[u - 1]) && ord[i]->seq == ord[u - 1]->seq) {
			p->dup_rows = true;
			continue;
		}
		ord[u++] = ord[i];
	}
	n = u;
	p->nrows = n;
	if (p->dup_rows)
		pw_reason(&p->sample_reasons, "duplicate_sample_row");
	bool nonmono = false;
	size_t nd = 0;
	for (size_t i = 0; i < n; i++)
		if (!i || row_cmp_dev(ord[i], ord[i - 1]))
			nd++;
	p->obs = ib_arena_alloc(a, (nd + 1) * sizeof *p->obs);
	if (!p->obs)
		return -1;
	size_t d = 0;
	for (size_t i = 0; i < n; d++) {
		size_t j = i;
		while (j < n && !row_cmp_dev(ord[j], ord[i]))
			j++;
		mn_obs *o = &p->obs[d];
		o->host = ord[i]->host;
		o->index = ord[i]->index;
		o->rows = ord + i;
		o->n = j - i;
		o->uuids = ib_arena_alloc(a, (j - i) * sizeof *o->uuids);
		o->times = ib_arena_alloc(a, (j - i) * sizeof *o->times);
		if (!o->uuids || !o->times)
			return -1;
		o->nuuid = 0;
		for (size_t k = i; k < j; k++) {
			if (k > i && !(ord[k]->t > ord[k - 1]->t))
				nonmono = true;
			size_t q = 0;
			while (q < o->nuuid && strcmp(o->uuids[q], ord[k]->uuid))
				q++;
			if (q == o->nuuid)
				o->uuids[o->nuuid++] = ord[k]->uuid;
			o->times[k - i] = ord[k]->t;
		}
		pw_mn_sort_doubles(o->times, o->n);
		o->first = o->times[0];
		o->last = o->times[o->n - 1];
		i = j;
	}
	p->nobs = nd;
	if (nonmono)
		pw_reason(&p->sample_reasons, "timestamp_non_monotonic");
	return 0;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

void pw_mn_sort_doubles(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
}

const mn_obs *pw_mn_find_obs(const mn_pkg *p, const char *host, int64_t index)
{
	for (size_t i = 0; i < p->nobs; i++)
		if (p->obs[i].index == index && !strcmp(p->obs[i].host, host))
			return &p->obs[i];
	return NULL;
}

/* _validate_devices: reasons into r; roles resolved unless conflicting. */
void pw_mn_validate_devices(mn_pkg *p, pw_reasons *r)
{
	bool missing = p->ndev == 0, unexpected = false, uuid = false;
	for (size_t i = 0; i < p->ndev; i++)
		if (!pw_mn_find_obs(p, p->dev[i].host, p->dev[i].index))
			missing = true;
	for (size_t i = 0; i < p->nobs; i++) {
		bool found = false;
		for (size_t k = 0; k < p->ndev && !found; k++)
			found = p->dev[k].index == p->obs[i].index &&
			        !strcmp(p->dev[k].host, p->obs[i].host);
		unexpected |= !found;
		uuid |= p->obs[i].nuuid != 1;
	}
	for (size_t i = 0; !uuid && i < p->nobs; i++)
		for (size_t k = i + 1; k < p->nobs; k++)
			if (!strcmp(p->obs[i].uuids[0], p->obs[k].uuids[0]))
				uuid = true;
	if (missing)
		pw_reason(r, "expected_device_missing");
	if (unexpected)
		pw_reason(r, "unexpected_device");
	if (uuid)
		pw_reason(r, "gpu_uuid_changed");
	p->roles_ok = true;
	for (size_t i = 0; i < p->ndev; i++)
		if (p->dev[i].role_conflict)
			p->roles_ok = false;
	if (!p->roles_ok)
		pw_reason(r, "conflicting_worker_roles");
	p->groups_ok = true;
	for (size_t i = 0; i < p->ndev && p->groups_ok; i++) {
		if (p->dev[i].group_conflict)
			p->groups_ok = false;
		for (size_t k = 0; k < i; k++)
			if (!strcmp(p->dev[k].host, p->dev[i].host) &&
			    p->dev[k].group != p->dev[i].group)
				p->groups_ok = false;
	}
	if (!p->groups_ok)
		pw_reason(r, "conflicting_het_groups");
}

/* The role of an expected device key, as the reference's roles dict (the
 * last entry of a repeated key wins); NULL when roles conflict. */
const char *pw_mn_role_of(const mn_pkg *p, const char *host, int64_t index)
{
	if (!p->roles_ok)
		return NULL;
	const char *r = NULL;
	for (size_t i = 0; i < p->ndev; i++)
		if (p->dev[i].index == index && !strcmp(p->dev[i].host, host))
			r = p->dev[i].role;
	return r;
}

/* _check_role_topology: failures as topology_env_mismatch reasons. */
void pw_mn_check_topology(mn_audit *au, const mn_pkg *p, int64_t pg, int64_t dg, int64_t ag)
{
	/* distinct keys with their role */
	int64_t cnt[3] = {0, 0, 0};
	static const char *const names[3] = {"agg", "decode", "prefill"};
	for (size_t i = 0; i < p->ndev; i++) {
		bool first = true;
		for (size_t k = 0; k < i && first; k++)
			first = !(p->dev[k].index == p->dev[i].index &&
			          !strcmp(p->dev[k].host, p->dev[i].host));
		if (!first)
			continue;
		const char *r = pw_mn_role_of(p, p->dev[i].host, p->dev[i].index);
		for (int k = 0; k < 3; k++)
			if (r && !strcmp(r, names[k]))
				cnt[k]++;
	}
	int64_t want[3] = {ag > 0 ? ag : 0, dg > 0 ? dg : 0, pg > 0 ? pg : 0};
	bool setdiff = false;
	for (int k = 0; k < 3; k++)
		setdiff |= (cnt[k] > 0) != (want[k] > 0);
	if (setdiff) {
		ib_buf e1 = {0}, f1 = {0};
		for (int k = 0; k < 3; k++) {
			if (want[k] > 0)
				ib_buf_printf(&e1, "%s'%s'", e1.len ? ", " : "", names[k]);
			if (cnt[k] > 0)
				ib_buf_printf(&f1, "%s'%s'", f1.len ? ", " : "", names[k]);
		}
		pw_mn_reason(au, "topology_env_mismatch", "");
		pw_mn_fail(au, "expected roles [%s], found [%s]", e1.data ? e1.data : "",
		           f1.data ? f1.data : "");
		ib_buf_free(&e1), ib_buf_free(&f1);
	}
	for (int k = 0; k < 3; k++)
		if (want[k] > 0 && cnt[k] != want[k]) {
			pw_mn_reason(au, "topology_env_mismatch", "");
			pw_mn_fail(au, "expected %lld %s GPUs, found %lld", (long long)want[k],
			           names[k], (long long)cnt[k]);
		}
	if (!p->groups_ok) {
		pw_mn_reason(au, "topology_env_mismatch", "conflicting_het_groups (topology)");
		return;
	}
	/* het group per role (the group of a host is that of its devices) */
	bool non_het = true;
	for (size_t i = 0; i < p->ndev; i++)
		non_het &= p->dev[i].group < 0;
	int64_t assigned[3];
	size_t na = 0;
	for (int k = 0; k < 3; k++) {
		bool any = false, multi = false;
		int64_t g = 0;
		for (size_t i = 0; i < p->ndev; i++) {
			const char *r = pw_mn_role_of(p, p->dev[i].host, p->dev[i].index);
			if (!r || strcmp(r, names[k]))
				continue;
			if (any && g != p->dev[i].group)
				multi = true;
			g = p->dev[i].group, any = true;
		}
		if (!any)
			continue;
		if (multi) {
			pw_mn_reason(au, "topology_env_mismatch", "");
			pw_mn_fail(au, "role %s spans het groups, expected exactly one", names[k]);
			continue;
		}
		if (g < 0) {
			if (!non_het) {
				pw_mn_reason(au, "topology_env_mismatch", "");
				pw_mn_fail(au,
				           "role %s has het group None while other devices report "
				           "real het groups",
				           names[k]);
			}
			continue;
		}
		assigned[na++] = g;
	}
	for (size_t i = 0; i < na; i++)
		for (size_t k = i + 1; k < na; k++)
			if (assigned[i] == assigned[k]) {
				pw_mn_reason(au, "topology_env_mismatch",
				             "roles share a het group");
				return;
			}
}
