/* The multinode power package (results/power_mn*.c: pw_mn_run,
 * aggregate_power_multinode.py): manifest.json, samples.csv and the
 * benchmark window windows/res.json of an srt-slurm dcgm-power v1 package,
 * and the benchmark result they are bound to. The input is up to four
 * parts parted by form feeds, in that order (a missing part is a missing
 * file; the result is also LOGS/res.json). Checks: no crash; the run
 * returns 0 with a status of 0 or 1 and a sidecar that is a JSON object
 * with power_valid a boolean, or fails with a message. */
#include "fuzz.h"

#include "power/power.h"

static const char *const files[] = {NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_tmpdir(files);
	char logs[512], power[600], bench[600], agg[600], side[600];
	snprintf(logs, sizeof logs, "%s/LOGS", dir);
	fuzz_rmtree(logs);
	size_t off[4], len[4];
	size_t np = fuzz_parts(data, size, 4, off, len);
	static const char *const rel[] = {"LOGS/power/manifest.json", "LOGS/power/samples.csv",
	                                  "LOGS/power/windows/res.json", "LOGS/res.json"};
	mkdir(logs, 0755);
	snprintf(power, sizeof power, "%s/power", logs);
	mkdir(power, 0755);
	for (size_t i = 0; i < np; i++)
		fuzz_write_at(dir, rel[i], data + off[i], len[i]);
	snprintf(bench, sizeof bench, "%s/res.json", logs);
	snprintf(agg, sizeof agg, "%s/agg_res.json", logs);
	snprintf(side, sizeof side, "%s/power_validation.json", logs);
	fuzz_write(agg, "{\"hw\": \"gb200\", \"tput_per_gpu\": 1000.0}", 39);
	if (np < 4)
		fuzz_write(bench, "{}", 2);

	pw_mn_opts o = {.power_dir = power,
	                       .logs_root = logs,
	                       .bench_path = bench,
	                       .agg_path = agg,
	                       .validation_path = side,
	                       .prefill_gpus = 2,
	                       .decode_gpus = 2,
	                       .expected_producer_sha = size % 2 ? "" : NULL,
	                       .require_power = size % 3 == 0};
	int status = -1;
	ib_error e = {0};
	int rc = pw_mn_run(&o, &status, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc) {
		FUZZ_CHECK(e.msg[0], "error %d without a message", rc);
	} else {
		FUZZ_CHECK(status == 0 || status == 1, "status %d", status);
		ib_arena *a = ib_arena_new();
		ib_val *v;
		FUZZ_CHECK(a && !ib_json_parse_file(a, side, &v, &e) && v->type == IB_V_MAP,
		           "the sidecar is not a JSON object: %s", e.msg);
		const ib_val *pv = ib_map_get(v, "power_valid");
		FUZZ_CHECK(pv && pv->type == IB_V_BOOL, "power_valid is not a boolean");
		FUZZ_CHECK(!(status == 1 && pv->b), "status 1 with a valid measurement");
		ib_arena_free(a);
	}
	fuzz_rmtree(logs);
	return 0;
}
