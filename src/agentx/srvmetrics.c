/* The server's Prometheus metrics over the replay's profiling window, as
 * aiperf's server_metrics_export.json summarises them: every counter and
 * gauge family of each scraped endpoint (vLLM, SGLang, ATOM, Dynamo names
 * alike), counters as their increase over the window, gauges as the
 * average, minimum and maximum of the samples taken in it
 * (docs/agentx.md "Artifacts"). */
#include "agentx/replay_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ax_smx_init(ax_smx *m, const char *url, net_tls *tls, ib_error *e)
{
	memset(m, 0, sizeof *m);
	const char *u = strstr(url, "://");
	const char *slash = u ? strchr(u + 3, '/') : NULL;
	m->url = strdup(url);
	m->path = strdup(slash ? slash : "/metrics");
	if (!m->url || !m->path) {
		ax_smx_free(m);
		return ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	}
	bool https = false;
	int rc = bench_target(url, NULL, 0, m->host, &m->port, m->name, &https, e);
	if (!rc && https && !tls)
		rc = ib_fail(e, IB_EINVAL, "", 0, 0,
		             "server metrics at %s: https needs an https server URL (its TLS "
		             "settings)",
		             url);
	if (rc) {
		ax_smx_free(m);
		return rc;
	}
	m->http = (bench_cfg){
	    .host = m->host, .port = m->port, .tls = https ? tls : NULL, .server_name = m->name};
	return 0;
}

void ax_smx_free(ax_smx *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->s[i].key);
	free(m->s);
	free(m->idx);
	free(m->url);
	free(m->path);
	memset(m, 0, sizeof *m);
}

static uint64_t key_hash(const char *k, size_t n)
{
	return ib_fnv1a(IB_FNV1A_BASIS, k, n);
}

/* The series of (name, labels): its index, a new one (type t), or -1 when
 * out of memory. */
static long series_of(ax_smx *m, const bench_prom_sample *x)
{
	size_t kl = x->name_len + 1 + x->labels_len;
	char tmp[512], *k = kl < sizeof tmp ? tmp : malloc(kl + 1);
	if (!k)
		return -1;
	memcpy(k, x->name, x->name_len);
	k[x->name_len] = 0;
	memcpy(k + x->name_len + 1, x->labels, x->labels_len);
	k[kl] = 0;
	uint64_t h = key_hash(k, kl);
	size_t i = m->icap ? (size_t)h & (m->icap - 1) : 0;
	for (; m->icap && m->idx[i]; i = (i + 1) & (m->icap - 1)) {
		ax_mseries *s = &m->s[m->idx[i] - 1];
		if (s->hash == h && s->key_len == kl && !memcmp(s->key, k, kl)) {
			if (k != tmp)
				free(k);
			return (long)(m->idx[i] - 1);
		}
	}
	long r = -1;
	if ((m->n + 1) * 2 > m->icap) { /* grow the index, rehash */
		size_t cap = m->icap ? m->icap * 2 : 256;
		size_t *idx = calloc(cap, sizeof *idx);
		if (!idx)
			goto out;
		for (size_t j = 0; j < m->n; j++) {
			size_t p = (size_t)m->s[j].hash & (cap - 1);
			while (idx[p])
				p = (p + 1) & (cap - 1);
			idx[p] = j + 1;
		}
		free(m->idx);
		m->idx = idx, m->icap = cap;
		for (i = (size_t)h & (cap - 1); m->idx[i]; i = (i + 1) & (cap - 1))
			;
	}
	if (ib_grow(&m->s, &m->cap, m->n + 1))
		goto out;
	ax_mseries *s = &m->s[m->n];
	memset(s, 0, sizeof *s);
	s->key = k == tmp ? malloc(kl + 1) : k;
	if (!s->key)
		goto out;
	if (k == tmp)
		memcpy(s->key, tmp, kl + 1);
	k = NULL;
	s->key_len = kl, s->name_len = x->name_len, s->hash = h, s->type = x->type;
	s->min = INFINITY, s->max = -INFINITY;
	m->idx[i] = m->n + 1;
	r = (long)m->n++;
out:
	if (k && k != tmp)
		free(k);
	return r;
}

typedef struct {
	ax_smx *m;
	int phase;
} feed_ctx;

static int feed_one(void *arg, const bench_prom_sample *x)
{
	feed_ctx *f = arg;
	if ((x->type != BENCH_PROM_COUNTER && x->type != BENCH_PROM_GAUGE) || !isfinite(x->value))
		return 0;
	long i = series_of(f->m, x);
	if (i < 0)
		return IB_ENOMEM;
	ax_mseries *s = &f->m->s[i];
	if (s->type != x->type)
		return 0; /* a name that changed its type: its first type stands */
	if (s->type == BENCH_PROM_COUNTER) {
		if (f->phase == 0)
			s->has_first = true, s->first = x->value;
		if (f->phase == 2)
			s->has_last = true, s->last = x->value;
		return 0;
	}
	s->nsamples++;
	s->sum += x->value;
	if (x->value < s->min)
		s->min = x->value;
	if (x->value > s->max)
		s->max = x->value;
	return 0;
}

int ax_smx_feed(ax_smx *m, const char *text, size_t n, int phase)
{
	feed_ctx f = {m, phase};
	if (phase == 0)
		m->ok_start = true;
	if (phase == 2)
		m->ok_end = true;
	return bench_prom_each(text, n, feed_one, &f);
}

int ax_smx_scrape(ax_smx *m, int phase)
{
	ib_buf b = {0};
	ib_error ig = {0};
	int rc = 0;
	if (bench_http(&m->http, "GET", m->path, NULL, 0, 1000, &b, &ig) == 0)
		rc = ax_smx_feed(m, b.data ? b.data : "", b.len, phase);
	ib_buf_free(&b);
	return rc;
}

/* "k=v;k=v" of a labels map, for the CSV */
static void csv_labels(ib_buf *b, const ib_val *l)
{
	ib_buf_putc(b, '"');
	for (size_t i = 0; l && i < l->map.n; i++) {
		ib_buf_printf(b, "%s%s=", i ? ";" : "", l->map.kv[i].key->str.s);
		for (const char *c = l->map.kv[i].val->str.s; *c; c++)
			ib_buf_puts(b, *c == '"' ? "\"\"" : (char[]){*c, 0});
	}
	ib_buf_putc(b, '"');
}

/* One exported series: its stats into the metric's entry (made on first
 * use) and its CSV lines. */
static int export_one(ib_arena *a, ib_val *ms, const ax_smx *m, const ax_mseries *s, double dur,
                      ib_buf *csv, ib_error *e)
{
	bool counter = s->type == BENCH_PROM_COUNTER;
	if (counter ? !(m->ok_start && m->ok_end && s->has_last) : !s->nsamples)
		return 0;
	size_t nl = s->name_len;
	if (counter && nl > 6 && !strcmp(s->key + nl - 6, "_total"))
		nl -= 6; /* aiperf's names: a counter without _total */
	char *name = ib_arena_strndup(a, s->key, nl);
	ib_val *lab = NULL;
	if (!name)
		return ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	int rc =
	    bench_prom_labels(a, s->key + s->name_len + 1, s->key_len - s->name_len - 1, &lab, e);
	if (rc == IB_EPARSE)
		return 0; /* a series whose labels do not parse is left out */
	if (rc)
		return rc;
	ib_val *x = ib_map_get(ms, name);
	if (!x) {
		x = ib_v_map(a);
		if (!x || ib_map_set(a, ms, name, x))
			return ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
		ib_map_set(a, x, "type", ib_v_str(a, counter ? "counter" : "gauge"));
		ib_map_set(a, x, "description", ib_v_str(a, ""));
		ib_map_set(a, x, "unit", ib_v_str(a, ""));
		ib_map_set(a, x, "series", ib_v_list(a));
	}
	ib_val *se = ib_v_map(a), *st = ib_v_map(a);
	ib_map_set(a, se, "endpoint_url", ib_v_str(a, m->url));
	ib_map_set(a, se, "labels", lab);
	const char *k[3];
	double v[3];
	size_t nk;
	if (counter) {
		double total = s->last - (s->has_first ? s->first : 0);
		k[0] = "total", v[0] = total, k[1] = "rate", v[1] = dur > 0 ? total / dur : 0,
		nk = 2;
	} else {
		k[0] = "avg", v[0] = s->sum / (double)s->nsamples;
		k[1] = "min", v[1] = s->min, k[2] = "max", v[2] = s->max, nk = 3;
	}
	for (size_t i = 0; i < nk; i++) {
		ib_map_set(a, st, k[i], ib_v_float(a, v[i]));
		ib_buf_printf(csv, "%s,%s,%s,", name, counter ? "counter" : "gauge", m->url);
		csv_labels(csv, lab);
		ib_buf_printf(csv, ",%s,%.17g\n", k[i], v[i]);
	}
	ib_map_set(a, se, "stats", st);
	return ib_list_push(a, ib_map_get(x, "series"), se)
	           ? ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory")
	           : 0;
}

int ax_smx_export(ib_arena *a, const ax_smx *m, size_t nm, double dur, ib_val **json, ib_buf *csv,
                  ib_error *e)
{
	*json = NULL;
	ib_val *ms = ib_v_map(a);
	if (!ms)
		return ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	ib_buf_puts(csv, "metric,type,endpoint_url,labels,stat,value\n");
	for (size_t j = 0; j < nm; j++)
		for (size_t i = 0; i < m[j].n; i++) {
			int rc = export_one(a, ms, &m[j], &m[j].s[i], dur, csv, e);
			if (rc)
				return rc;
		}
	if (!ms->map.n)
		return 0; /* nothing scraped: no file */
	ib_val *out = ib_v_map(a);
	ib_map_set(a, out, "schema_version", ib_v_str(a, "1.0"));
	ib_map_set(a, out, "metrics", ms);
	*json = out;
	return ib_buf_error(csv) ? ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory") : 0;
}
