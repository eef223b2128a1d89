/* infbench's multinode power package (power/power_mn_pack.c: pw_mn_pack)
 * from the GPU monitors' CSVs of two nodes (a prefill and a decode role),
 * then validated by pw_mn_run (aggregate_power_multinode.py). The input is
 * up to three parts parted by form feeds: the prefill node's CSV, the
 * decode node's CSV and the raw result (missing: a fixed window 1000..1010
 * at concurrency 4). Checks: no crash; the pack returns 0 or an error with
 * a message; a package it wrote is one whose stored evidence the validator
 * recomputes to the same verdict (never producer_verdict_mismatch), valid
 * exactly when the pack said so (the roles and pin being right). */
#include "fuzz.h"

#include "power/power.h"

#include <string.h>

static const char *const files[] = {NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_tmpdir(files);
	char logs[512], power[600], bench[600], agg[600], side[600], csv[2][600];
	snprintf(logs, sizeof logs, "%s/LOGS", dir);
	fuzz_rmtree(logs);
	mkdir(logs, 0755);
	size_t off[3], len[3];
	size_t np = fuzz_parts(data, size, 3, off, len);
	static const char *const rel[] = {"p.csv", "d.csv", "res.json"};
	for (size_t i = 0; i < np; i++)
		fuzz_write_at(dir, rel[i], data + off[i], len[i]);
	snprintf(power, sizeof power, "%s/power", logs);
	snprintf(bench, sizeof bench, "%s/res.json", dir);
	snprintf(agg, sizeof agg, "%s/agg.json", logs);
	snprintf(side, sizeof side, "%s/side.json", logs);
	for (int i = 0; i < 2; i++)
		snprintf(csv[i], sizeof csv[i], "%s/%s", dir, rel[i]);
	if (np < 3) {
		const char *r = "{\"max_concurrency\": 4, \"benchmark_start_time_unix\": 1000.0, "
		                "\"benchmark_end_time_unix\": 1010.0, \"duration\": 10.0, "
		                "\"completed\": 10, \"total_input_tokens\": 100, "
		                "\"total_output_tokens\": 50}";
		fuzz_write(bench, r, strlen(r));
	}
	for (size_t i = np; i < 2; i++)
		fuzz_write(csv[i], "", 0);
	fuzz_write(agg, "{\"hw\": \"gb200\"}", 15);
	pw_mn_source src[] = {{csv[0], "n1", "prefill", 0}, {csv[1], "n2", "decode", 0}};
	pw_mn_pack_opts o = {.power_dir = power,
	                     .logs_root = logs,
	                     .bench_path = bench,
	                     .src = src,
	                     .nsrc = 2,
	                     .producer_commit = "pin",
	                     .exporter = "fuzz",
	                     .simulated = size % 2,
	                     .interval = 1};
	ib_error e = {0};
	bool valid = false;
	int rc = pw_mn_pack(&o, &valid, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc) {
		FUZZ_CHECK(e.msg[0], "error %d without a message", rc);
	} else {
		pw_mn_opts v = {.power_dir = power,
		                .logs_root = logs,
		                .bench_path = bench,
		                .agg_path = agg,
		                .validation_path = side,
		                .prefill_gpus = 1,
		                .decode_gpus = 1,
		                .expected_producer_sha = "pin"};
		int status = -1;
		rc = pw_mn_run(&v, &status, &e);
		FUZZ_CHECK(rc == 0, "the validator failed: %s", e.msg);
		ib_arena *a = ib_arena_new();
		ib_val *sv;
		FUZZ_CHECK(a && !ib_json_parse_file(a, side, &sv, &e) && sv->type == IB_V_MAP,
		           "the sidecar is not a JSON object: %s", e.msg);
		const ib_val *r = ib_map_get(sv, "reasons");
		bool mismatch = false, recompute = false;
		for (size_t i = 0; r && r->type == IB_V_LIST && i < r->list.n; i++) {
			mismatch |= !strcmp(r->list.v[i]->str.s, "producer_verdict_mismatch");
			recompute |= !strcmp(r->list.v[i]->str.s, "package_recompute_invalid");
		}
		FUZZ_CHECK(!mismatch, "the stored verdict differs from the recomputed one");
		FUZZ_CHECK(recompute == !valid, "the pack said %s, the validator recomputed %s",
		           valid ? "valid" : "invalid", recompute ? "invalid" : "valid");
		ib_arena_free(a);
	}
	fuzz_rmtree(logs);
	return 0;
}
