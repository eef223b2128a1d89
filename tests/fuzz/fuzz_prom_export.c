/* The Prometheus text walker (bench/prom.c: bench_prom_each,
 * bench_prom_labels) and the replay's server-metrics export over it
 * (agentx/srvmetrics.c: ax_smx_feed, ax_smx_export). The input is three
 * scrapes — the window's start, a sample within, its end — parted by form
 * feeds. Checks: no crash, no hang; every sample's name and labels lie
 * inside the input; the export is NULL or a map that serialises as JSON,
 * every exported series has a labels map, and the CSV starts with its
 * header. */
#include "fuzz.h"

#include "agentx/replay_priv.h"

typedef struct {
	const char *lo, *hi;
} bounds;

static int inside(void *arg, const bench_prom_sample *s)
{
	const bounds *b = arg;
	FUZZ_CHECK(s->name >= b->lo && s->name + s->name_len <= b->hi && s->name_len > 0,
	           "name out of the input");
	FUZZ_CHECK(!s->labels_len || (s->labels >= b->lo && s->labels + s->labels_len <= b->hi),
	           "labels out of the input");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	ax_smx m;
	ib_error e = {0};
	if (ax_smx_init(&m, "http://127.0.0.1:1/metrics", NULL, &e))
		abort();
	for (int phase = 0; phase < 3 && p <= end; phase++) {
		const char *ff = memchr(p, '\f', (size_t)(end - p));
		size_t n = (size_t)((ff ? ff : end) - p);
		bounds b = {p, p + n};
		bench_prom_each(p, n, inside, &b);
		if (ax_smx_feed(&m, p, n, phase))
			abort(); /* out of memory */
		p = ff ? ff + 1 : end + 1;
	}
	ib_arena *a = ib_arena_new();
	ib_val *j = NULL;
	ib_buf csv = {0};
	if (!a || ax_smx_export(a, &m, 1, 10, &j, &csv, &e))
		abort();
	FUZZ_CHECK(csv.data && !strncmp(csv.data, "metric,type,", 12), "no CSV header");
	if (j) {
		const ib_val *ms = ib_map_get(j, "metrics");
		FUZZ_CHECK(ms && ms->type == IB_V_MAP && ms->map.n, "metrics map");
		for (size_t i = 0; i < ms->map.n; i++) {
			const ib_val *se = ib_map_get(ms->map.kv[i].val, "series");
			for (size_t k = 0; se && k < se->list.n; k++) {
				const ib_val *l = ib_map_get(se->list.v[k], "labels");
				FUZZ_CHECK(l && l->type == IB_V_MAP, "series without labels");
			}
		}
		ib_buf out = {0};
		FUZZ_CHECK(ib_json_write(&out, j, &IB_JSON_PYTHON, &e) == 0, "%s", e.msg);
		ib_buf_free(&out);
	}
	ib_buf_free(&csv);
	ib_arena_free(a);
	ax_smx_free(&m);
	return 0;
}
