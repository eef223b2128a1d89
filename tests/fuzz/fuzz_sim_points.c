/* The published points file of `sim validate` and `sim calibrate`
 * (sim/points.c: slab_points_load, tests/data/sim/points.tsv's format), then
 * slab_point_config and the performance model's capacity of every runnable
 * measured row. Checks: no crash; a failure has a message; rows come in
 * file order with a line each; a runnable row names a model, GPU and
 * precision with positive ISL and OSL and gives a configuration (with
 * positive TP and EP for a measured row; a sweep picks them for the
 * others); an unrunnable one says why. */
#include "fuzz.h"

#include "simlab/simlab.h"

static const char *const files[] = {"points.tsv", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[512];
	snprintf(path, sizeof path, "%s/points.tsv", fuzz_tmpdir(files));
	fuzz_write(path, data, size);
	ib_arena *a = ib_arena_new();
	if (!a)
		return 0;
	ib_error e = {0};
	slab_point *pts = NULL;
	size_t n = 0;
	int rc = slab_points_load(path, a, &pts, &n, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc) {
		FUZZ_CHECK(e.msg[0], "error %d without a message", rc);
		goto out;
	}
	FUZZ_CHECK(n > 0 && pts, "no rows but no error");
	int line = 1;
	for (size_t i = 0; i < n; i++) {
		const slab_point *p = &pts[i];
		FUZZ_CHECK(p->line > line, "row %zu at line %d after %d", i, p->line, line);
		line = p->line;
		FUZZ_CHECK(p->kind >= SLAB_POINT_MEASURED && p->kind <= SLAB_POINT_OTHER, "kind %d",
		           (int)p->kind);
		sim_config c;
		sim_config_init(&c);
		ib_error pe = {0};
		int prc = slab_point_config(p, NULL, &c, &pe);
		if (p->why) {
			FUZZ_CHECK(prc == IB_EINVAL && pe.msg[0], "unrunnable row %zu: rc %d", i, prc);
			continue;
		}
		FUZZ_CHECK(p->model && p->gpu && p->precision && p->isl > 0 && p->osl > 0,
		           "runnable row %zu (line %d): isl %d osl %d", i, p->line, p->isl, p->osl);
		FUZZ_CHECK(prc == 0, "runnable row %zu: rc %d", i, prc);
		if (p->kind != SLAB_POINT_MEASURED) /* the sweep chooses TP and EP */
			continue;
		FUZZ_CHECK(c.tp >= 1 && c.ep >= 1, "row %zu: tp %d ep %d", i, c.tp, c.ep);
		sim_capacity cap;
		prc = sim_capacity_of(&c, &cap, &pe);
		FUZZ_CHECK(prc <= 0, "capacity rc %d", prc);
	}
out:
	ib_arena_free(a);
	return 0;
}
