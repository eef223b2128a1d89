#!/usr/bin/env python3
"""Re-express the reference's own tests of process_result.py and aggregate_power.py
(utils/test_process_result.py, utils/test_aggregate_power.py) as golden cases in the
layout of tests/golden/results/ (case prefix pt-).

    IX_REF=/path/to/InferenceX python3 make_pt_cases.py OUT_DIR

Each case declares its argv, environment and input files (the values of the pytest
fixtures); the reference, run by tools/ref.sh exactly as run.sh runs an implementation,
supplies stdout, exit status and every new or changed file.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
REF = HERE.parent / "results" / "tools" / "ref.sh"

BENCH = {  # the sample_benchmark_result fixture
    "model_id": "deepseek-ai/DeepSeek-R1-0528",
    "max_concurrency": 64,
    "total_token_throughput": 15000.5,
    "output_throughput": 12000.0,
    "ttft_p50_ms": 150.5,
    "ttft_p99_ms": 250.3,
    "tpot_p50_ms": 25.0,
    "tpot_p99_ms": 45.0,
    "e2e_latency_p50_ms": 1500.0,
    "e2e_latency_p99_ms": 2500.0,
}
BASE = {
    "TZ": "UTC",
    "RUNNER_TYPE": "mi300x", "FRAMEWORK": "sglang", "PRECISION": "fp8",
    "SPEC_DECODING": "none", "RESULT_FILENAME": "benchmark_result", "ISL": "1024",
    "OSL": "1024", "DISAGG": "false", "MODEL_PREFIX": "dsr1", "IMAGE": "test-image",
    "RECIPE_FINGERPRINT": "a" * 64,
}
SINGLE = {**BASE, "TP": "8", "EP_SIZE": "1", "DP_ATTENTION": "false"}
MULTI = {
    **BASE, "RUNNER_TYPE": "gb200", "FRAMEWORK": "dynamo-trt", "PRECISION": "fp4",
    "DISAGG": "true", "IS_MULTINODE": "true", "PREFILL_GPUS": "20", "DECODE_GPUS": "8",
    "PREFILL_NUM_WORKERS": "5", "PREFILL_TP": "4", "PREFILL_EP": "4",
    "PREFILL_DP_ATTN": "true", "DECODE_NUM_WORKERS": "1", "DECODE_TP": "8",
    "DECODE_EP": "8", "DECODE_DP_ATTN": "true", "PREFILL_HARDWARE": "gb200",
    "DECODE_HARDWARE": "h100",
}
T0 = 1_700_000_000.0


def nv_ts(epoch):  # nvidia-smi local time (the cases run with TZ=UTC)
    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%Y/%m/%d %H:%M:%S.%f")


def nvidia_csv(samples):
    lines = ["timestamp, index, power.draw [W], temperature.gpu"]
    lines += [f"{nv_ts(t)}, {g}, {p:.2f} W, 65" for t, g, p in samples]
    return "\n".join(lines) + "\n"


def amd_csv(samples):
    lines = ["timestamp,gpu,socket_power,temperature"]
    lines += [f"{datetime.fromtimestamp(t, timezone.utc).replace(tzinfo=None).isoformat(timespec='milliseconds')},{g},{p},65"
              for t, g, p in samples]
    return "\n".join(lines) + "\n"


def window_samples(start, end, watts, gpus):
    ts = [start - 1.0] + [start + k for k in range(int(end - start) + 1)] + [end + 1.0]
    return [(t, g, watts) for t in ts for g in range(gpus)]


def bench(start, end, duration, out, inp=0, completed=1, **extra):
    d = {"benchmark_start_time_unix": start, "benchmark_end_time_unix": end,
         "duration": duration, "completed": completed, "total_output_tokens": out,
         "total_input_tokens": inp}
    d.update(extra)
    return d


def snapshot(energy):
    head = "gpu,power_usage,voltage,current,energy_accumulator,counter_resolution,throttle,total_energy_consumption"
    return "\n".join([head] + [f"{g},238,N/A,N/A,N/A,N/A,ENABLED,{j}" for g, j in energy.items()]) + "\n"


CASES = []


def case(name, about, argv, env, files):
    CASES.append((name, about, argv, env, files))


def pr(name, about, env, result=None, extra=None, filename="benchmark_result"):
    env = {**env, "RESULT_FILENAME": filename}
    files = {} if result is None else {f"{filename}.json": json.dumps(result)}
    files.update(extra or {})
    case(name, about, ["process_result"], env, files)


# ---- test_process_result.py ----
pr("pt-001-single-node-processing", "test_single_node_processing: metadata, per-GPU throughput, latencies", SINGLE, BENCH)
pr("pt-002-multinode-processing", "test_multinode_processing: prefill/decode fields and hardware", MULTI, BENCH)
pr("pt-003-component-metadata", "test_component_metadata_is_emitted_when_present",
   {**SINGLE, "ROUTER_METADATA": '{"name": "sglang-router", "version": "0.2.1"}', "KV_P2P_TRANSFER": "nixl"}, BENCH)
pr("pt-004-component-metadata-extra-field", "test_component_metadata_rejects_partial_or_extra_fields (extra key)",
   {**SINGLE, "ROUTER_METADATA": '{"name": "r", "version": "1", "commit": "x"}'}, BENCH)
pr("pt-005-component-metadata-partial", "test_component_metadata_rejects_partial_or_extra_fields (name only)",
   {**SINGLE, "ROUTER_METADATA": '{"name": "r"}'}, BENCH)
pr("pt-006-homogeneous-multinode", "test_homogeneous_multinode_omits_hardware_fields",
   {k: v for k, v in MULTI.items() if k not in ("PREFILL_HARDWARE", "DECODE_HARDWARE")}, BENCH)
pr("pt-007-partial-hardware", "test_partial_hardware_metadata_fails (decode only)",
   {k: v for k, v in MULTI.items() if k != "PREFILL_HARDWARE"}, BENCH)
pr("pt-008-missing-base-env", "test_missing_base_env_vars: only TZ set", {"TZ": "UTC"}, BENCH)
pr("pt-009-missing-single-node-env", "test_missing_single_node_env_vars", BASE, BENCH)
pr("pt-010-missing-multinode-env", "test_missing_multinode_env_vars",
   {**BASE, "IS_MULTINODE": "true", "DISAGG": "true"}, BENCH)
pr("pt-011-disagg-without-multinode", "test_disagg_without_multinode_fails", {**SINGLE, "DISAGG": "true"}, BENCH)
pr("pt-012-missing-result-file", "test_missing_result_file", SINGLE, None, filename="nonexistent")
pr("pt-013-latency-ms-to-seconds", "test_latency_ms_to_seconds_conversion", SINGLE,
   {"model_id": "test-model", "max_concurrency": 8, "total_token_throughput": 1000.0,
    "output_throughput": 800.0, "custom_metric_ms": 500.0})
pr("pt-014-tpot-to-interactivity", "test_tpot_to_interactivity_conversion", SINGLE,
   {"model_id": "test-model", "max_concurrency": 8, "total_token_throughput": 1000.0,
    "output_throughput": 800.0, "tpot_p50_ms": 20.0, "tpot_p99_ms": 50.0})
pr("pt-015-throughput-single-node", "test_throughput_per_gpu_single_node: TP4 PP2 DCP2 PCP2 = 16 GPUs",
   {**SINGLE, "TP": "4", "PP_SIZE": "2", "DCP_SIZE": "2", "PCP_SIZE": "2"},
   {"model_id": "test-model", "max_concurrency": 8, "total_token_throughput": 8000.0, "output_throughput": 6000.0})
pr("pt-016-throughput-multinode", "test_throughput_per_gpu_multinode", MULTI,
   {"model_id": "test-model", "max_concurrency": 64, "total_token_throughput": 28000.0, "output_throughput": 16000.0})
pr("pt-017-multinode-aggregate-decode-zero", "test_multinode_aggregate_decode_fields_zero",
   {**MULTI, "DISAGG": "false", "PREFILL_GPUS": "8", "DECODE_GPUS": "0", "PREFILL_NUM_WORKERS": "1",
    "PREFILL_TP": "8", "PREFILL_EP": "1", "PREFILL_DP_ATTN": "false", "DECODE_NUM_WORKERS": "0",
    "DECODE_TP": "8", "DECODE_EP": "1", "DECODE_DP_ATTN": "false"},
   {"model_id": "test-model", "max_concurrency": 64, "total_token_throughput": 8000.0, "output_throughput": 6000.0})
pr("pt-018-multinode-zero-gpus", "test_multinode_zero_total_gpus_fails",
   {**MULTI, "PREFILL_GPUS": "0", "DECODE_GPUS": "0"}, BENCH)
pr("pt-019-output-file-prefix", "test_output_file_has_correct_prefix", SINGLE, BENCH, filename="my_custom_result")
for i, v in enumerate(["false", "False", "FALSE", "no", "0"]):
    pr(f"pt-02{i}-disagg-{v.lower()}-{i}", f"test_boolean_disagg_parsing_false: DISAGG={v}", {**SINGLE, "DISAGG": v}, BENCH)
for i, v in enumerate(["true", "True", "TRUE"]):
    pr(f"pt-03{i}-disagg-true-{i}", f"test_boolean_disagg_parsing_true_requires_multinode: DISAGG={v}", {**SINGLE, "DISAGG": v}, BENCH)
pr("pt-035-integer-conversion", "test_integer_conversion: ISL 8192, OSL 1024", {**SINGLE, "ISL": "8192", "OSL": "1024"},
   {"model_id": "test-model", "max_concurrency": 8, "total_token_throughput": 1000.0, "output_throughput": 800.0})
pr("pt-036-conc-from-result", "test_conc_from_benchmark_result: conc 128", SINGLE,
   {"model_id": "test-model", "max_concurrency": 128, "total_token_throughput": 1000.0, "output_throughput": 800.0})
S, E = T0, T0 + 10.0
pw_bench = {"model_id": "test-model", "max_concurrency": 8, "total_token_throughput": 1000.0,
            "output_throughput": 800.0, "tpot_p50_ms": 20.0, **bench(S, E, 10.0, 500, 1000, 4)}
pr("pt-040-power-patched", "test_agg_json_gets_patched_with_power_and_joules: 8 GPUs at 500 W", SINGLE, pw_bench,
   {"gpu_metrics.csv": nvidia_csv(window_samples(S, E, 500.0, 8))})
pr("pt-041-power-missing-csv", "test_missing_csv_does_not_break_process_result", SINGLE, pw_bench)
pr("pt-042-power-missing-bench-timestamps", "test_missing_bench_timestamps_does_not_patch", SINGLE,
   {k: v for k, v in pw_bench.items() if not k.startswith("benchmark_")},
   {"gpu_metrics.csv": nvidia_csv(window_samples(S, E, 500.0, 8))})
pr("pt-043-power-gpu-count-mismatch", "test_expected_gpu_count_mismatch_is_invalid: 4 GPUs for TP8", SINGLE, pw_bench,
   {"gpu_metrics.csv": nvidia_csv(window_samples(S, E, 500.0, 4))})
pr("pt-044-require-power-invalid", "test_require_power_propagates_validation_failure",
   {**SINGLE, "REQUIRE_POWER": "1"}, pw_bench)
pr("pt-045-require-power-valid", "test_require_power_accepts_valid_single_node_measurement",
   {**SINGLE, "REQUIRE_POWER": "1"}, pw_bench, {"gpu_metrics.csv": nvidia_csv(window_samples(S, E, 500.0, 8))})


# ---- test_aggregate_power.py (through the CLI) ----
def ap(name, about, files, expected_gpus=1, extra=(), env=None):
    argv = ["aggregate_power", "--csv", "gpu_metrics.csv", "--bench-result", "bench.json",
            "--agg-result", "agg.json", "--expected-num-gpus", str(expected_gpus), *extra]
    files = {"agg.json": json.dumps({"hw": "h200", "conc": 8}, indent=2), **files}
    case(name, about, argv, {"TZ": "UTC", **(env or {})}, files)


trap = [(S - 1, 0, 100.0), (S + 2, 0, 300.0), (S + 4, 0, 500.0), (S + 6, 0, 300.0), (S + 8, 0, 100.0), (E + 1, 0, 100.0)]
ap("pt-050-trapezoid", "test_integrate_power_uses_per_device_trapezoidal_integration",
   {"gpu_metrics.csv": nvidia_csv(trap), "bench.json": json.dumps(bench(S + 0.5, E - 0.5, 9.0, 100, 100, 2))})
ap("pt-051-gpu-count-mismatch", "test_integrate_power_rejects_expected_gpu_count_mismatch",
   {"gpu_metrics.csv": nvidia_csv(window_samples(S, E, 400.0, 2)), "bench.json": json.dumps(bench(S, E, 10.0, 100))},
   expected_gpus=4)
late = [s for s in window_samples(S, E, 400.0, 2) if not (s[1] == 1 and s[0] < S + 2)]
ap("pt-052-not-bracketed", "test_integrate_power_requires_every_gpu_to_bracket_window",
   {"gpu_metrics.csv": nvidia_csv(late), "bench.json": json.dumps(bench(S, E, 10.0, 100))}, expected_gpus=2)
gap = [s for s in window_samples(S, E, 400.0, 1) if not (S + 3 < s[0] < S + 8)]
ap("pt-053-sampling-gap", "test_integrate_power_rejects_sampling_gap",
   {"gpu_metrics.csv": nvidia_csv(gap), "bench.json": json.dumps(bench(S, E, 10.0, 100))})
far = nvidia_csv(window_samples(S, E, 400.0, 1)).replace("timestamp, index, power.draw [W], temperature.gpu\n",
      "timestamp, index, power.draw [W], temperature.gpu\n" + f"{nv_ts(S - 60)}, 0, [N/A], 65\n")
ap("pt-054-invalid-far-outside", "test_integrate_power_ignores_invalid_samples_far_outside_window",
   {"gpu_metrics.csv": far, "bench.json": json.dumps(bench(S, E, 10.0, 100))})
bad = nvidia_csv(window_samples(S, E, 400.0, 1)) + f"{nv_ts(S + 5.5)}, 0, [N/A], 65\n"
ap("pt-055-malformed-inside", "test_run_rejects_malformed_telemetry_inside_window",
   {"gpu_metrics.csv": bad, "bench.json": json.dumps(bench(S, E, 10.0, 100))})
ap("pt-056-joules-total-token", "test_run_computes_j_per_total_token_with_input_tokens",
   {"gpu_metrics.csv": nvidia_csv(window_samples(S, E, 600.0, 2)), "bench.json": json.dumps(bench(S, E, 10.0, 250, 750, 5))},
   expected_gpus=2)
ap("pt-057-bench-window-missing", "test_run_skips_when_bench_window_missing",
   {"gpu_metrics.csv": nvidia_csv(window_samples(S, E, 400.0, 1)), "bench.json": json.dumps({"total_output_tokens": 10})})
ap("pt-058-csv-missing", "test_run_skips_when_csv_missing", {"bench.json": json.dumps(bench(S, E, 10.0, 100))})
ap("pt-059-output-tokens-zero", "test_run_skips_when_total_output_tokens_zero",
   {"gpu_metrics.csv": nvidia_csv(window_samples(S, E, 400.0, 1)), "bench.json": json.dumps(bench(S, E, 10.0, 0))})
ap("pt-060-strict-fails-after-writing", "test_run_strict_mode_fails_after_writing_validation",
   {"bench.json": json.dumps(bench(S, E, 10.0, 100))}, extra=["--require-power"])
ap("pt-061-denominator-auditable", "test_run_invalid_benchmark_denominator_is_auditable: completed 0",
   {"gpu_metrics.csv": nvidia_csv(window_samples(S, E, 400.0, 1)), "bench.json": json.dumps(bench(S, E, 10.0, 100, 100, 0))})
flat = amd_csv([(T0 + k, 0, 500.0) for k in range(11)])
ap("pt-062-accumulator-match", "test_cross_check_accumulator_matches_full_stream_integral",
   {"gpu_metrics.csv": flat, "gpu_metrics_energy_start.csv": snapshot({"0": 1000.0}),
    "gpu_metrics_energy_end.csv": snapshot({"0": 6000.0}), "bench.json": json.dumps(bench(T0 + 1, T0 + 9, 8.0, 100))})
ap("pt-063-accumulator-disagreement", "test_cross_check_accumulator_flags_disagreement_beyond_tolerance",
   {"gpu_metrics.csv": flat, "gpu_metrics_energy_start.csv": snapshot({"0": 1000.0}),
    "gpu_metrics_energy_end.csv": snapshot({"0": 9000.0}), "bench.json": json.dumps(bench(T0 + 1, T0 + 9, 8.0, 100))})
ap("pt-064-accumulator-zero-delta", "test_cross_check_accumulator_guards_zero_accumulator_delta",
   {"gpu_metrics.csv": flat, "gpu_metrics_energy_start.csv": snapshot({"0": 1000.0}),
    "gpu_metrics_energy_end.csv": snapshot({"0": 1000.0}), "bench.json": json.dumps(bench(T0 + 1, T0 + 9, 8.0, 100))})
case("pt-065-cli-requires-expected-gpus", "test_cli_requires_expected_gpu_count",
     ["aggregate_power", "--bench-result", "bench.json", "--agg-result", "agg.json"], {"TZ": "UTC"},
     {"bench.json": json.dumps(bench(S, E, 10.0, 100)), "agg.json": "{}"})


def run(out_dir, ix):
    out_dir.mkdir(parents=True, exist_ok=True)
    index = []
    for name, about, argv, env, files in CASES:
        c = out_dir / name
        shutil.rmtree(c, ignore_errors=True)
        (c / "input").mkdir(parents=True)
        for rel, text in files.items():
            (c / "input" / rel).parent.mkdir(parents=True, exist_ok=True)
            (c / "input" / rel).write_text(text, encoding="utf-8")
        (c / "cmd").write_text("\n".join(argv) + "\n")
        (c / "env").write_text("".join(f"{k}={v}\n" for k, v in env.items()))
        (c / "about").write_text(about + "\n")
        with tempfile.TemporaryDirectory() as w:
            shutil.copytree(c / "input", w, dirs_exist_ok=True)
            before = {p.relative_to(w): p.read_bytes() for p in Path(w).rglob("*") if p.is_file()}
            envl = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root"), "LC_ALL": "C.UTF-8", **env}
            r = subprocess.run([str(REF), "--ix", ix, *argv], cwd=w, env=envl, capture_output=True)
            (c / "stdout").write_bytes(r.stdout)
            (c / "rc").write_text(f"{r.returncode}\n")
            if r.returncode:
                last = [l for l in r.stderr.decode(errors="replace").splitlines() if l.strip()]
                (c / "errmsg").write_text((last[-1] if last else "") + "\n")
            for p in sorted(Path(w).rglob("*")):
                rel = p.relative_to(w)
                if not p.is_file() or "__pycache__" in rel.parts:
                    continue
                if before.get(rel) != p.read_bytes():
                    dst = c / "expected" / rel
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    dst.write_bytes(p.read_bytes())
        index.append(f"{name}\t{argv[0]}\t{r.returncode}\t{about}")
    print("\n".join(index))


if __name__ == "__main__":
    ix = os.environ.get("IX_REF")
    if not ix or len(sys.argv) != 2:
        sys.exit("usage: IX_REF=/path/to/InferenceX make_pt_cases.py OUT_DIR")
    run(Path(sys.argv[1]), ix)
