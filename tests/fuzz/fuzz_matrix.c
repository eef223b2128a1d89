/* The master-config schema and the matrix generator (config/: cfg_load_master,
 * cfg_load_runners; matrix/: mx_generate full-sweep and test-config,
 * mx_gha_families). The input is a master config, then optionally a form
 * feed and a runners.yaml (without one, a fixed runners file with the
 * runner types of configs/ and of the golden synthetic cases).
 * Checks: no crash; every problem is a diagnostic with a message, the file
 * and a line; a config that validates generates lists of map rows (or an
 * error with a message) in both modes, with every config key selected for
 * test-config, and the rows split into the workflow families without error. */
#include "fuzz.h"

#include "config/config.h"
#include "matrix/matrix.h"

static const char *const files[] = {"master.yaml", "runners.yaml", NULL};

static const char runners_default[] =
    "labels:\n"
    "  h100: [h100-cw_00, h100-cw_01]\n"
    "  h200: [h200-cw_00]\n"
    "  b200: [b200-nv_00, b200-nv_01]\n"
    "  b300: [b300-nv_00]\n"
    "  gb200: [gb200-nv_0, gb200-nv_1]\n"
    "  gb300: [gb300-nv_0]\n"
    "  mi300x: [mi300x-amd_0, mi300x-cr_0]\n"
    "  mi325x: [mi325x-amd_0]\n"
    "  mi355x: [mi355x-amd_0, mi355x-amd_1]\n"
    "  b200-multinode: [b200-nv_01]\n"
    "  cluster:edge-8: [edge8-a_0, edge8-b_0]\n"
    "  cluster:edge-4: [edge4-a_0]\n"
    "hardware:\n"
    "  cluster:edge-8:\n"
    "    available-cpu-dram-mib: 2_000_000\n"
    "    gpus-per-node: 8\n"
    "  cluster:edge-4:\n"
    "    available-cpu-dram-mib: 860_160\n"
    "    gpus-per-node: 4\n";

static void check_diags(const ib_diags *d)
{
	for (size_t i = 0; i < d->n; i++)
		FUZZ_CHECK(d->items[i].msg && d->items[i].msg[0] && d->items[i].file,
		           "diagnostic %zu without a message or a file", i);
}

static void generate(ib_arena *a, const mx_opts *o, const ib_val *master, const ib_val *runners)
{
	ib_val *rows = NULL;
	ib_error e = {0};
	int rc = mx_generate(a, o, master, runners, &rows, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc) {
		FUZZ_CHECK(e.msg[0], "error %d without a message", rc);
		return;
	}
	FUZZ_CHECK(rows && rows->type == IB_V_LIST, "rows are not a list");
	for (size_t i = 0; i < rows->list.n; i++)
		FUZZ_CHECK(rows->list.v[i]->type == IB_V_MAP, "row %zu is not a map", i);
	ib_val *fam = NULL;
	FUZZ_CHECK(mx_gha_families(a, rows, &fam) == 0 && fam && fam->type == IB_V_MAP,
	           "families");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_tmpdir(files);
	size_t off[2], len[2];
	size_t np = fuzz_parts(data, size, 2, off, len);
	char master_path[512], runners_path[512];
	snprintf(master_path, sizeof master_path, "%s/master.yaml", dir);
	snprintf(runners_path, sizeof runners_path, "%s/runners.yaml", dir);
	fuzz_write(master_path, data + off[0], len[0]);
	if (np == 2)
		fuzz_write(runners_path, data + off[1], len[1]);
	else
		fuzz_write(runners_path, runners_default, sizeof runners_default - 1);

	ib_arena *a = ib_arena_new();
	if (!a)
		return 0;
	ib_diags d = {.a = a};
	ib_val *runners = NULL, *master = NULL;
	int rc = cfg_load_runners(a, runners_path, &runners, &d);
	FUZZ_CHECK(rc <= 0, "runners rc %d", rc);
	if (rc == IB_EINVAL)
		FUZZ_CHECK(d.n > 0, "runners: IB_EINVAL without a diagnostic");
	check_diags(&d);
	if (rc)
		goto out;
	const char *paths[] = {master_path};
	rc = cfg_load_master(a, paths, 1, &master, &d);
	FUZZ_CHECK(rc <= 0, "master rc %d", rc);
	if (rc == IB_EINVAL)
		FUZZ_CHECK(d.n > 0, "master: IB_EINVAL without a diagnostic");
	check_diags(&d);
	if (rc)
		goto out;
	FUZZ_CHECK(master && master->type == IB_V_MAP, "merged master is not a mapping");

	mx_opts o;
	mx_opts_init(&o, true);
	generate(a, &o, master, runners);
	mx_opts_init(&o, false);
	const char **keys = ib_arena_alloc(a, (master->map.n + 1) * sizeof *keys);
	if (!keys)
		goto out;
	size_t nk = 0;
	for (size_t i = 0; i < master->map.n; i++)
		if (master->map.kv[i].key->type == IB_V_STR)
			keys[nk++] = master->map.kv[i].key->str.s;
	o.config_keys = (mx_strs){keys, nk};
	if (nk)
		generate(a, &o, master, runners);
out:
	ib_arena_free(a);
	return 0;
}
