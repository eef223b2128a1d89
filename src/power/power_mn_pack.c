/* power/power_mn_pack: infbench's producer of the multinode power package
 * (docs/power.md "Multinode: the package infbench writes"): the GPU
 * monitors' CSVs of a multi-node row's nodes become the srt-slurm
 * dcgm-power v1 layout that pw_mn_run (aggregate_power_multinode.py)
 * validates. */
#include "power/power_mn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OOM(e) ib_fail((e), IB_ENOMEM, "", 0, 0, "out of memory")

typedef struct { /* a device of the package */
	const char *host;
	int64_t index;
	size_t src;    /* the source whose rows it keeps */
	size_t other;  /* another source that reported it (nsrc: none) */
	int64_t nrows; /* its scrape_seq so far */
	double last_t;
} pk_dev;

typedef struct {
	const pw_mn_pack_opts *o;
	ib_arena *a;
	ib_buf samples;
	pk_dev *dev;
	size_t ndev, cap;
	int64_t rows, scrapes, skipped;
	double t0, t1;
	const char *wrote[3]; /* the files written so far, removed on failure */
	size_t nwrote;
} pk_ctx;

static pk_dev *device(pk_ctx *c, size_t src, const char *host, int64_t index)
{
	for (size_t i = 0; i < c->ndev; i++)
		if (c->dev[i].index == index && !strcmp(c->dev[i].host, host)) {
			if (c->dev[i].src != src)
				c->dev[i].other = src;
			return &c->dev[i];
		}
	if (c->ndev == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		pk_dev *d = ib_arena_alloc(c->a, cap * sizeof *d);
		if (!d)
			return NULL;
		if (c->ndev)
			memcpy(d, c->dev, c->ndev * sizeof *d);
		c->dev = d, c->cap = cap;
	}
	c->dev[c->ndev] = (pk_dev){
	    .host = host, .index = index, .src = src, .other = c->o->nsrc, .last_t = -INFINITY};
	return &c->dev[c->ndev++];
}

/* One source's rows into samples.csv. */
static int read_source(pk_ctx *c, size_t k, ib_error *e)
{
	const pw_mn_source *s = &c->o->src[k];
	if (!*s->host || strpbrk(s->host, ",\"\r\n"))
		return ib_fail(e, IB_EINVAL, s->csv, 0, 0, "host '%s' cannot be a CSV field",
		               s->host);
	pw_csv csv;
	pw_header h;
	bool unreadable;
	if (pw_load_telemetry(c->a, s->csv, &csv, &h, &unreadable))
		return OOM(e);
	int rc = 0;
	int uc = -1;
	for (size_t i = 0; i < h.n; i++)
		if (!strcasecmp(h.names[i], "uuid") || !strcasecmp(h.names[i], "gpu_uuid"))
			uc = (int)i;
	if (unreadable)
		rc = ib_fail(e, IB_EIO, s->csv, 0, 0, "cannot read the telemetry");
	else if (h.ts < 0 || h.pw < 0 || h.gpu < 0)
		rc = ib_fail(e, IB_EINVAL, s->csv, 1, 0,
		             "no %s column in the header (a GPU monitor's CSV: timestamp, index, "
		             "power.draw)",
		             h.ts < 0   ? "timestamp"
		             : h.pw < 0 ? "power"
		                        : "GPU index");
	for (size_t i = 1; !rc && i < csv.n; i++) {
		const pw_csv_row *r = &csv.rows[i];
		if (!r->n)
			continue;
		size_t tl, pl, gl, ul = 0;
		const char *ts = pw_cell(r, h.ts, &tl), *ps = pw_cell(r, h.pw, &pl),
		           *gs = pw_cell(r, h.gpu, &gl), *us = uc >= 0 ? pw_cell(r, uc, &ul) : "";
		char *end;
		char gbuf[32];
		snprintf(gbuf, sizeof gbuf, "%.*s", (int)(gl < 31 ? gl : 31), gs);
		long long g = strtoll(gbuf, &end, 10);
		if (!gl || *end || g < 0) {
			rc = ib_fail(e, IB_EINVAL, s->csv, r->line, 0,
			             "GPU index '%s' is not a whole number", gbuf);
			break;
		}
		double t, p;
		if (!pw_parse_timestamp(ts, tl, &t) || !pw_parse_power(ps, pl, &p) ||
		    !isfinite(t) || !isfinite(p) || p < 0) {
			c->skipped++; /* a tick without a reading ([N/A]) */
			continue;
		}
		pk_dev *d = device(c, k, s->host, g);
		if (!d)
			return OOM(e);
		if (d->src != k || !(t > d->last_t)) {
			c->skipped++;
			continue;
		}
		const char *uuid =
		    ul && !memchr(us, ',', ul) && !memchr(us, '"', ul)
		        ? ib_arena_strndup(c->a, us, ul)
		        : ib_arena_printf(c->a, "%s%s-gpu%lld", c->o->simulated ? "simulated-" : "",
		                          s->host, g);
		ib_buf_printf(&c->samples, "1,%.6f,%lld,%s,%lld,%s,%.3f\n", t, (long long)d->nrows,
		              s->host, g, uuid ? uuid : "", p);
		d->last_t = t;
		if (++d->nrows > c->scrapes)
			c->scrapes = d->nrows;
		c->rows++;
		c->t0 = c->rows == 1 || t < c->t0 ? t : c->t0;
		c->t1 = c->rows == 1 || t > c->t1 ? t : c->t1;
	}
	pw_csv_free(&csv);
	return rc;
}

static ib_val *assignment(pk_ctx *c, const pw_mn_source *s)
{
	ib_arena *a = c->a;
	ib_val *m = ib_v_map(a);
	if (!m || ib_map_set(a, m, "worker_role", ib_v_str(a, s->role)) ||
	    ib_map_set(a, m, "worker_index", ib_v_int(a, s->worker_index)) ||
	    ib_map_set(a, m, "worker_process", ib_v_int(a, 0)) ||
	    ib_map_set(a, m, "het_group", ib_v_null(a)))
		return NULL;
	return m;
}

/* The raw result copied under logs_root and its window file: the window's
 * key, or NULL (e set). */
static ib_val *window(pk_ctx *c, ib_error *e)
{
	ib_arena *a = c->a;
	const pw_mn_pack_opts *o = c->o;
	ib_val *r;
	if (ib_json_parse_file(a, o->bench_path, &r, e))
		return NULL;
	const ib_val *conc = ib_map_get(r, "max_concurrency");
	if (r->type != IB_V_MAP || !conc || conc->type != IB_V_INT) {
		ib_fail(e, IB_EINVAL, o->bench_path, 0, 0, "no integer max_concurrency");
		return NULL;
	}
	const char *stem = pw_path_stem(a, o->bench_path), *type = o->benchmark_type;
	type = type ? type : "sa-bench";
	ib_buf b = {0};
	int rc = ib_read_file(o->bench_path, &b, e);
	char *copy = ib_arena_printf(a, "%s/%s.json", o->logs_root, stem);
	if (!rc)
		rc = !copy ? OOM(e) : ib_buf_write_file(copy, &b, e);
	if (!rc)
		c->wrote[c->nwrote++] = copy;
	ib_buf_free(&b);
	ib_val *w = ib_v_map(a), *key = ib_v_map(a);
	const char *keys[] = {"benchmark_start_time_unix", "benchmark_end_time_unix", "duration"};
	if (rc || !w || !key || ib_map_set(a, w, "schema_version", ib_v_int(a, 1)) ||
	    ib_map_set(a, w, "clock_source", ib_v_str(a, "head_node_unix_clock")) ||
	    ib_map_set(a, w, "status", ib_v_str(a, "completed")) ||
	    ib_map_set(a, w, "benchmark_type", ib_v_str(a, type)) ||
	    ib_map_set(a, w, "concurrency", (ib_val *)conc) ||
	    ib_map_set(a, w, "result_path", ib_v_str(a, ib_arena_printf(a, "%s.json", stem))) ||
	    ib_map_set(a, w, "reason", ib_v_null(a)) ||
	    ib_map_set(a, key, "benchmark_type", ib_v_str(a, type)) ||
	    ib_map_set(a, key, "concurrency", (ib_val *)conc)) {
		if (!rc)
			OOM(e);
		return NULL;
	}
	for (int i = 0; i < 3; i++) {
		const ib_val *v = ib_map_get(r, keys[i]);
		if (ib_map_set(a, w, keys[i], v ? (ib_val *)v : ib_v_null(a))) {
			OOM(e);
			return NULL;
		}
	}
	char *wp = ib_arena_printf(a, "%s/windows/%s.json", o->power_dir, stem);
	if (!wp || ib_mkdirs(ib_arena_printf(a, "%s/windows", o->power_dir), 0755, e) ||
	    pw_write_json(wp, w, e))
		return wp ? NULL : (OOM(e), NULL);
	c->wrote[c->nwrote++] = wp;
	return key;
}

/* The manifest's wire fields and the devices and window it expects. */
static ib_val *manifest(pk_ctx *c, ib_val *win)
{
	ib_arena *a = c->a;
	const pw_mn_pack_opts *o = c->o;
	ib_val *m = ib_v_map(a), *ex = ib_v_map(a), *devs = ib_v_list(a), *wins = ib_v_list(a);
	if (!m || !ex || !devs || !wins || ib_list_push(a, wins, win))
		return NULL;
	for (size_t i = 0; i < c->ndev; i++) {
		const pk_dev *d = &c->dev[i];
		ib_val *dv = ib_v_map(a), *as = ib_v_list(a), *x = assignment(c, &o->src[d->src]);
		if (!dv || !as || !x || ib_list_push(a, as, x) ||
		    (d->other < o->nsrc && ib_list_push(a, as, assignment(c, &o->src[d->other]))) ||
		    ib_map_set(a, dv, "hostname", ib_v_str(a, d->host)) ||
		    ib_map_set(a, dv, "gpu_index", ib_v_int(a, d->index)) ||
		    ib_map_set(a, dv, "assignments", as) || ib_list_push(a, devs, dv))
			return NULL;
	}
	if (ib_map_set(a, ex, "container_image_resolved", ib_v_str(a, o->exporter)) ||
	    ib_map_set(a, ex, "container_image_sha256", ib_v_null(a)))
		return NULL;
	struct {
		const char *k;
		ib_val *v;
	} f[] = {
	    {"schema_version", ib_v_int(a, 1)},
	    {"producer", ib_v_str(a, "srt-slurm.dcgm-power")},
	    {"producer_git_commit", ib_v_str(a, o->producer_commit)},
	    {"simulated", ib_v_bool(a, o->simulated)},
	    {"source_metric", ib_v_str(a, "DCGM_FI_DEV_POWER_USAGE")},
	    {"unit", ib_v_str(a, "W")},
	    {"power_scope", ib_v_str(a, "gpu_device_board_as_reported_by_dcgm")},
	    {"timestamp_source", ib_v_str(a, "head_node_unix_clock")},
	    {"status", ib_v_str(a, "complete")},
	    {"started_at_unix", ib_v_float(a, c->t0)},
	    {"stopped_at_unix", ib_v_float(a, c->t1)},
	    {"sample_interval_seconds", ib_v_float(a, o->interval)},
	    {"request_timeout_seconds", ib_v_float(a, o->interval)},
	    {"scrape_count", ib_v_int(a, c->scrapes)},
	    {"sample_row_count", ib_v_int(a, c->rows)},
	    {"required", ib_v_bool(a, false)},
	    {"reason_codes", ib_v_list(a)},
	    {"dcgm_exporter", ex},
	    {"expected_devices", devs},
	    {"expected_windows", wins},
	};
	for (size_t i = 0; i < sizeof f / sizeof *f; i++)
		if (!f[i].v || ib_map_set(a, m, f[i].k, f[i].v))
			return NULL;
	return m;
}

int pw_mn_pack(const pw_mn_pack_opts *o, bool *valid, ib_error *e)
{
	*valid = false;
	if (!(o->interval > 0) || !o->producer_commit || !o->exporter)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
		               "the package needs a sample interval, a producer and an exporter");
	pk_ctx c = {.o = o, .a = ib_arena_new()};
	if (!c.a)
		return OOM(e);
	ib_buf_puts(
	    &c.samples,
	    "schema_version,timestamp_unix,scrape_seq,hostname,gpu_index,gpu_uuid,power_w\n");
	int rc = ib_mkdirs(o->power_dir, 0755, e);
	for (size_t k = 0; !rc && k < o->nsrc; k++)
		rc = read_source(&c, k, e);
	char *sp = ib_arena_printf(c.a, "%s/samples.csv", o->power_dir);
	if (!rc)
		rc = !sp ? OOM(e) : ib_buf_write_file(sp, &c.samples, e);
	if (!rc)
		c.wrote[c.nwrote++] = sp;
	ib_val *win = rc ? NULL : window(&c, e), *m = win ? manifest(&c, win) : NULL;
	if (win && !m)
		rc = OOM(e);
	else if (!win && !rc)
		rc = e->code ? e->code : OOM(e);
	const char *why = NULL;
	char *mp = ib_arena_printf(c.a, "%s/manifest.json", o->power_dir);
	if (!rc)
		rc = pw_mn_seal(c.a, o->power_dir, o->logs_root, m, &why, e);
	if (!rc)
		rc = !mp ? OOM(e) : pw_write_json(mp, m, e);
	if (!rc) {
		*valid = !why;
		pw_logf(
		    o->log, o->log_ud, 1,
		    "[power package] %lld%s samples of %zu GPUs from %zu monitors (%lld left out) "
		    "-> %s: %s%s",
		    (long long)c.rows, o->simulated ? " SIMULATED" : "", c.ndev, o->nsrc,
		    (long long)c.skipped, o->power_dir, why ? "not publishable: " : "publishable",
		    why ? why : "");
	}
	for (size_t i = 0; rc && i < c.nwrote; i++) /* no half-written package */
		unlink(c.wrote[i]);
	ib_buf_free(&c.samples);
	ib_arena_free(c.a);
	return rc;
}
