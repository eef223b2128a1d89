/* power — GPU power telemetry (aggregate_power.py,
 * aggregate_power_multinode.py): the telemetry CSV or the srt-slurm
 * dcgm-power package validated against the benchmark's window, energy
 * metrics patched into the agg row, the validation sidecar. docs/power.md
 * describes every input, output and rule. results/ (process) runs it after
 * writing the agg row. */
#ifndef IB_POWER_H
#define IB_POWER_H

#include "base/base.h"
#include "fmt/fmt.h"

/* Output lines: the reference prints a few lines (the power summary on
 * stdout, warnings on stderr). The library never prints: it hands each line
 * (without its newline) to `log` with stream 1 (stdout) or 2 (stderr); a
 * NULL log drops them. */
typedef ib_log_fn pw_log_fn; /* base's one shape: IB_LOG_OUT or IB_LOG_ERR */

/* Writes v as json.dumps(v, indent=2) (no newline) to path atomically. */
int pw_write_json(const char *path, const ib_val *v, ib_error *e);

/* True when p names a regular file (stat follows links). */
bool pw_is_file(const char *p);

/* aggregate_power.run: validates the telemetry CSV against the raw result's
 * window, patches agg_path in place (power_metric_schema_version,
 * power_valid, and the seven metrics when valid) and writes the validation
 * sidecar (validation_path, or power_validation_<bench stem>.json beside the
 * bench result). Every validity problem is a reason code in the sidecar, not
 * an error: returns 0 and sets *status (1 only when require_power and the
 * measurement is invalid). Returns IB_EINVAL only where the reference
 * crashes (an agg file holding something other than an object) with no
 * sidecar written, IB_ENOMEM. */
typedef struct {
	const char *csv_path, *bench_path, *agg_path;
	const char *validation_path; /* NULL: the default beside bench_path */
	bool has_expected;           /* expected_num_gpus given */
	int64_t expected_num_gpus;
	bool require_power;
	pw_log_fn log;
	void *log_ud;
} pw_opts;
int pw_run(const pw_opts *o, int *status, ib_error *e);

/* aggregate_power_multinode.run: re-validates an srt-slurm dcgm-power v1
 * package (power_dir/{manifest.json,samples.csv,windows/}), binds the result
 * to its window under logs_root, patches agg_path and writes the sidecar.
 * Same status/return contract as pw_run. */
typedef struct {
	const char *power_dir, *logs_root, *bench_path, *agg_path;
	const char *validation_path; /* NULL: the default beside bench_path */
	int64_t prefill_gpus, decode_gpus;
	/* GPUs of an aggregated multinode deployment (role "agg", the
	 * reference's open change #2684): only whole-deployment metrics; more
	 * than 0 together with prefill/decode GPUs is topology_env_mismatch */
	int64_t aggregate_gpus;
	const char *expected_producer_sha; /* NULL or "": none */
	bool require_power;
	pw_log_fn log;
	void *log_ud;
} pw_mn_opts;
int pw_mn_run(const pw_mn_opts *o, int *status, ib_error *e);

/* infbench's producer of the package that pw_mn_run validates (docs/power.md
 * "Multinode: the package infbench writes"): the telemetry CSVs of the GPU
 * monitors of a multi-node row's roles (nvidia-smi, amd-smi, infbench sim
 * --gpu-metrics: pw_load_telemetry's columns, an optional uuid column),
 * each from one node, become power_dir/samples.csv (every device's rows in
 * its file's order, scrape_seq its row count; a row without a reading or
 * not later than the device's previous one is left out), the raw result is
 * copied to logs_root/<stem>.json with its window in power_dir/windows/,
 * and manifest.json states the devices with their roles, the window and the
 * recomputed evidence and verdict (pw_mn_seal). A device without a uuid
 * column is "<host>-gpu<index>" (simulated: "simulated-<host>-gpu<index>");
 * a device two sources report keeps the first one's rows and both
 * assignments. */
typedef struct {
	const char *csv;  /* the monitor's CSV */
	const char *host; /* the node it ran on */
	const char *role; /* worker_role: "prefill", "decode" or "agg" */
	int64_t worker_index;
} pw_mn_source;

typedef struct {
	const char *power_dir, *logs_root;
	const char *bench_path; /* the raw result (its max_concurrency and window) */
	const pw_mn_source *src;
	size_t nsrc;
	const char *benchmark_type;  /* NULL: "sa-bench" */
	const char *producer_commit; /* the manifest's producer_git_commit */
	const char *exporter;        /* what measured: dcgm_exporter.container_image_resolved */
	bool simulated;              /* the telemetry is simulated: "simulated": true */
	double interval;             /* the monitors' sample interval, s (> 0) */
	pw_log_fn log;
	void *log_ud;
} pw_mn_pack_opts;
/* Returns 0 with *valid the package's verdict (a line logged either way),
 * IB_EINVAL naming the file and line of a CSV without the columns, a GPU
 * index that is not a whole number or a host unfit for a CSV field, or a
 * result without an integer max_concurrency; IB_EIO when a file cannot be
 * read or written; IB_ENOMEM. On an error the files it wrote are removed. */
int pw_mn_pack(const pw_mn_pack_opts *o, bool *valid, ib_error *e);

/* datetime.fromisoformat(s) of Python 3.11 (s[0..n), no NUL): false when
 * it raises. *aware tells whether it has an offset; *us is its Unix time in
 * microseconds, read as UTC when naive. */
bool pw_py_fromiso(const char *s, size_t n, bool *aware, long long *us);

#endif
