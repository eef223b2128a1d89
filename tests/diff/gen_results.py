#!/usr/bin/env python3
"""Differential test of infbench process/power against the InferenceX reference scripts.

    IX_REF=/path/to/InferenceX python3 gen_results.py INFBENCH [N] [SEED]

Generates N random cases (raw results, environment sets, telemetry CSVs, energy snapshots),
runs each through the reference (tests/golden/results/tools/ref.sh) and through INFBENCH in
two fresh folders, and compares exit status, stdout and every file byte for byte (stderr is
free, as in the golden contract). Prints one line per mismatch and a summary
"diff-results: N cases, M mismatches"; exit status 1 when any case differs.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
REF = HERE.parent / "golden" / "results" / "tools" / "ref.sh"
TZS = ["UTC", "Asia/Kolkata", "America/New_York", "Europe/Berlin"]


def rfloat(r):
    k = r.random()
    if k < 0.05:
        return r.choice([0.0, -0.0, 1e-5, 1.23e-7, 1e16, 3e21, 2.5, 100000.0])
    if k < 0.1:
        return r.uniform(-10, 10) * 10 ** r.randint(-12, 20)
    return round(r.uniform(0.001, 5000.0), r.randint(0, 17))


def raw_result(r, start, dur):
    d = {"date": "20261202-152500", "backend": "vllm", "model_id": r.choice(["m/one", "deepseek-ai/DeepSeek-R1-0528", "x\u00e9"]),
         "max_concurrency": r.choice([1, 8, 64, 64.7, "128", 256]),
         "duration": dur if r.random() < 0.9 else dur + r.uniform(-5, 5),
         "benchmark_start_time_unix": start, "benchmark_end_time_unix": start + dur,
         "completed": r.choice([80, 80, 80, 0, 1, 7]),
         "total_input_tokens": r.choice([73777, 73777, 1000, 0]),
         "total_output_tokens": r.choice([18327, 18327, 500, 0]),
         "output_throughput": rfloat(r), "total_token_throughput": rfloat(r) + 5000}
    if r.random() < 0.05:
        del d["benchmark_start_time_unix"]
    if r.random() < 0.05:
        d["completed"] = r.choice([80.0, True, "80"])
    for stat in ["mean", "median", "std", "p90", "p99", "p99.9"]:
        for m in ["ttft", "tpot", "itl", "e2el"]:
            if r.random() < 0.9:
                v = rfloat(r)
                if m == "tpot" and v == 0:
                    v = 0.5
                d[f"{stat}_{m}_ms"] = v
    if r.random() < 0.1:
        d[r.choice(["items", "foo_ms_bar_ms", "tpot", "x_tpot_y", "conc_ms"])] = r.choice([1.5, "2.5", 7])
    if r.random() < 0.02:
        d["median_tpot_ms"] = 0
    return d


def env_single(r, name):
    e = {"TZ": r.choice(TZS), "RUNNER_TYPE": r.choice(["h200", "mi355x", "b200-nv"]), "FRAMEWORK": "vllm",
         "PRECISION": r.choice(["fp8", "fp4"]), "SPEC_DECODING": r.choice(["none", "mtp"]), "RESULT_FILENAME": name,
         "ISL": r.choice(["1024", " 8192\t", "1_024", "+8", "01"]), "OSL": "1024",
         "DISAGG": r.choice(["false", "False", "yes", "0", ""]), "MODEL_PREFIX": "dsr1", "IMAGE": r.choice(["img:1", ""]),
         "TP": r.choice(["1", "2", "4", "8"]), "EP_SIZE": r.choice(["1", "8"]), "DP_ATTENTION": r.choice(["false", "true", "True"])}
    for k in ["PP_SIZE", "DCP_SIZE", "PCP_SIZE"]:
        if r.random() < 0.2:
            e[k] = r.choice(["1", "2", "4"])
    if r.random() < 0.2:
        e["RECIPE_FINGERPRINT"] = "f" * 8
    if r.random() < 0.15:
        e["ROUTER_METADATA"] = r.choice(['{"version": "1", "name": "r"}', '{"name": "r\u00fc", "version": "0.2"}', "null", ""])
    if r.random() < 0.1:
        e["KV_P2P_TRANSFER"] = r.choice(["nixl", ""])
    if r.random() < 0.1:
        e["REQUIRE_POWER"] = r.choice(["1", "TRUE", "on", "yes"])
    if r.random() < 0.03:  # an invalid or missing variable
        k = r.choice(list(e))
        if k != "TZ":
            if r.random() < 0.5:
                del e[k]
            else:
                e[k] = r.choice(["1k", "0", "8.0", "-1"])
    return e


def env_multi(r, name):
    e = env_single(r, name)
    for k in ["TP", "EP_SIZE", "DP_ATTENTION"]:
        e.pop(k, None)
    P, D = r.choice([(8, 8), (20, 8), (8, 0), (4, 4)])
    e.update({"IS_MULTINODE": r.choice(["true", "True"]), "DISAGG": "true", "PREFILL_GPUS": str(P),
              "DECODE_GPUS": str(D), "PREFILL_NUM_WORKERS": "1", "PREFILL_TP": "4", "PREFILL_EP": "4",
              "PREFILL_DP_ATTN": "true", "DECODE_NUM_WORKERS": "1", "DECODE_TP": "8", "DECODE_EP": "8",
              "DECODE_DP_ATTN": "false"})
    if r.random() < 0.3:
        e["PREFILL_HARDWARE"], e["DECODE_HARDWARE"] = "gb200", "gb200"
    return e


def fmt_ts(r, t, tzname, style):
    tz = timezone.utc if tzname == "UTC" else None
    if style == "epoch":
        return repr(round(t, r.choice([0, 3, 6])))
    if style == "epoch_ms":
        return str(int(t * 1000))
    import zoneinfo
    local = datetime.fromtimestamp(t, tz or zoneinfo.ZoneInfo(tzname))
    if style == "nvidia":
        return local.strftime("%Y/%m/%d %H:%M:%S.%f")[: r.choice([19, 23, 26])]
    if style == "iso_naive":
        return local.replace(tzinfo=None).isoformat(sep=r.choice(["T", " "]), timespec="milliseconds")
    return datetime.fromtimestamp(t, timezone(timedelta(hours=-7))).isoformat(timespec="milliseconds")


def telemetry(r, start, dur, gpus, tzname):
    style = r.choice(["nvidia", "nvidia", "epoch", "epoch_ms", "iso_naive", "iso_offset"])
    amd = r.random() < 0.3
    head = "timestamp,gpu,socket_power,temperature" if amd else "timestamp, index, power.draw [W], temperature.gpu"
    if r.random() < 0.03:
        head = r.choice(["time,power", "ts,index,power.draw [W]", "timestamp,idx,power"])
    lines = [head]
    t = start - r.uniform(2, 30)
    end = start + dur + r.uniform(-2, 10)
    period = r.choice([0.5, 1.0, 1.0, 2.9, 3.2])
    ngpu = gpus if r.random() < 0.85 else r.randint(1, 9)
    ids = list(range(ngpu)) if r.random() < 0.9 else [0, 1, 10, 2, "a", "B"][:ngpu]
    while t < end:
        for g in ids:
            jitter = r.uniform(0, 0.004)
            p = r.uniform(80, 900)
            cell = f"{p}" if amd else f"{p:.2f} W"
            if r.random() < 0.005:
                cell = r.choice(["[N/A]", "-5 W", "", "612.34e1 W", "garbage"])
            ts = fmt_ts(r, t + jitter, tzname, style)
            if r.random() < 0.002:
                ts = r.choice(["garbage", "", "2026/13/01 00:00:00"])
            gid = "" if r.random() < 0.001 else str(g)
            lines.append(f"{ts},{gid},{cell},65" if amd else f"{ts}, {gid}, {cell}, 65")
            if r.random() < 0.01:
                lines.append(lines[-1])
        if r.random() < 0.01:
            t += r.uniform(3, 8)
        t += period
    text = "\n".join(lines) + "\n"
    if r.random() < 0.05:
        text = "\ufeff" + text.replace("\n", "\r\n")
    if r.random() < 0.02:
        text = ""
    return text


def snapshots(r, gpus):
    head = "gpu,power_usage,voltage,current,energy_accumulator,counter_resolution,throttle,total_energy_consumption"
    a = {str(g): r.uniform(1e6, 1e7) for g in range(gpus)}
    b = {k: v + r.uniform(-1e3, 2e5) for k, v in a.items()}
    mk = lambda d: "\n".join([head] + [f"{k},238,N/A,N/A,N/A,N/A,ENABLED,{v}" for k, v in d.items()]) + "\n"
    out = {"gpu_metrics_energy_start.csv": mk(a), "gpu_metrics_energy_end.csv": mk(b)}
    if r.random() < 0.2:
        out.pop(r.choice(list(out)))
    return out


APM = HERE.parent / "golden" / "results" / "cases" / "apm-001-valid" / "input"


def apm_case(r):
    """A valid srt-slurm dcgm-power package (golden case apm-001) with 0-2 random defects."""
    files = {str(p.relative_to(APM)): p.read_text() for p in APM.rglob("*") if p.is_file()}
    man = json.loads(files["LOGS/power/manifest.json"])
    argv = ["aggregate_power_multinode", "--bench-result", "renamed_by_launcher.json",
            "--agg-result", "agg_renamed_by_launcher.json", "--prefill-gpus", "2", "--decode-gpus", "2",
            "--validation-result", "power_validation.json", "--expected-producer-sha", "a" * 40]
    def samples(f):
        files["LOGS/power/samples.csv"] = f(files["LOGS/power/samples.csv"])
    def window(f):
        files["LOGS/power/windows/my_result.json"] = f(files["LOGS/power/windows/my_result.json"])
    muts = [
        lambda: man.update(status="running"), lambda: man.update(schema_version=1.0),
        lambda: man.update(expected_devices=[]), lambda: man.update(publication_valid=False),
        lambda: man["expected_devices"][0]["assignments"][0].update(worker_role="x"),
        lambda: [a.update(het_group=0) for e in man["expected_devices"] for a in e["assignments"]],
        lambda: [a.update(het_group=None) for e in man["expected_devices"] for a in e["assignments"]],
        lambda: man.update(reason_codes=[r.choice(["exporter_exited", "exporter_startup_timeout", "x"])]),
        lambda: man.update(sample_row_count=r.choice([5, 260.0, True])),
        lambda: man.update(scrape_count=r.choice([1, 65, 1000])),
        lambda: man.update(expected_windows=[]), lambda: man.update(producer_git_commit="b" * 40),
        lambda: man["expected_windows"].append({"benchmark_type": "sa-bench", "concurrency": 8}),
        lambda: samples(lambda t: t.replace("power_w", "watts", 1)),
        lambda: samples(lambda t: t + t.splitlines()[r.randint(1, 50)] + "\n"),
        lambda: samples(lambda t: t + "1,x,0,node-d,0,GPU-node-d-0,1\n"),
        lambda: samples(lambda t: t + "1,990.0,999,node-d,0,GPU-node-d-0,1\n"),
        lambda: samples(lambda t: t.replace("GPU-node-d-1", "GPU-node-d-0")),
        lambda: samples(lambda t: "\n".join(l for k, l in enumerate(t.splitlines()) if not (40 < k < 70)) + "\n"),
        lambda: samples(lambda t: t.replace(",400.0", ",1e308")),
        lambda: window(lambda t: t.replace('"completed"', '"failed"')),
        lambda: window(lambda t: t.replace('"my_result.json"', '"../x/my_result.json"')),
        lambda: window(lambda t: t.replace('"duration": 60.0', '"duration": 50.0')),
        lambda: files.update({"LOGS/power/windows/my_result2.json": files["LOGS/power/windows/my_result.json"]}),
        lambda: files.update({"LOGS/power/windows/zz.json": "{"}),
        lambda: files.pop("LOGS/my_result.json"),
        lambda: files.pop("LOGS/power/manifest.json"),
        lambda: files.update({"renamed_by_launcher.json": files["renamed_by_launcher.json"].replace('"max_concurrency": 4', '"max_concurrency": 8')}),
        lambda: argv.__setitem__(argv.index("--decode-gpus") + 1, r.choice(["0", "3"])),
        lambda: argv.__setitem__(argv.index("--prefill-gpus") + 1, r.choice(["0", "4"])),
    ]
    for _ in range(r.choice([0, 1, 1, 2])):
        r.choice(muts)()
    if "LOGS/power/manifest.json" in files:
        files["LOGS/power/manifest.json"] = json.dumps(man, indent=2)
    return argv, {"TZ": "UTC"}, files


def make_case(r, i):
    if r.random() < 0.1:
        return apm_case(r)
    name = f"run_{i}"
    start = 1785031207.412853 + r.uniform(-1e5, 1e5)
    dur = r.uniform(5, 200)
    res = raw_result(r, start, dur)
    files = {}
    if r.random() < 0.1:
        env = env_multi(r, name)
    else:
        env = env_single(r, name)
        gpus = int(env.get("TP", "8")) if env.get("TP", "8").isdigit() else 8
        if r.random() < 0.8:
            files["gpu_metrics.csv"] = telemetry(r, start, dur, gpus, env["TZ"])
            if r.random() < 0.2:
                files.update(snapshots(r, gpus))
    text = json.dumps(res, indent=r.choice([None, 2]))
    if r.random() < 0.02:
        text = text[: r.randint(0, len(text))]
    files[f"{name}.json"] = text
    if r.random() < 0.25 and "gpu_metrics.csv" in files:  # the standalone tool
        files["agg.json"] = json.dumps({"hw": "h200", "avg_power_w": 1.0, "power_invalid_reasons": ["x"]}, indent=2)
        argv = ["aggregate_power", "--csv", "gpu_metrics.csv", "--bench-result", f"{name}.json",
                "--agg-result", "agg.json", "--expected-num-gpus", str(r.choice([1, 2, 4, 8]))]
        return argv, {"TZ": env["TZ"]}, files
    return ["process_result"], env, files


def run_one(cmd, env, files, w):
    for rel, text in files.items():
        (w / rel).parent.mkdir(parents=True, exist_ok=True)
        (w / rel).write_text(text, encoding="utf-8")
    full = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root"), "LC_ALL": "C.UTF-8", **env}
    p = subprocess.run(cmd, cwd=w, env=full, capture_output=True, timeout=120)
    out = {}
    for f in sorted(w.rglob("*")):
        if f.is_file() and "__pycache__" not in f.parts:
            b = f.read_bytes()
            if f.name == "power_validation.json":  # free-text failures are not compared
                d = json.loads(b)
                d.pop("failures", None)
                b = json.dumps(d, indent=2).encode()
            out[str(f.relative_to(w))] = b
    return p.returncode, p.stdout, out


def main():
    if len(sys.argv) < 2 or not os.environ.get("IX_REF"):
        sys.exit("usage: IX_REF=DIR gen_results.py INFBENCH [N] [SEED]")
    infbench = os.path.abspath(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    r = random.Random(seed)
    bad = 0
    kinds = {}
    for i in range(n):
        argv, env, files = make_case(r, i)
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            ref = run_one([str(REF), "--ix", os.environ["IX_REF"], *argv], env, files, Path(a))
            tool = {"process_result": ["process"], "aggregate_power": ["power"],
                    "aggregate_power_multinode": ["power", "--multinode"]}[argv[0]]
            got = run_one([infbench, *tool, *argv[1:]], env, files, Path(b))
        k = f"{argv[0]} rc={ref[0]}"
        kinds[k] = kinds.get(k, 0) + 1
        if ref != got:
            bad += 1
            why = []
            if ref[0] != got[0]:
                why.append(f"rc {got[0]} != {ref[0]}")
            if ref[1] != got[1]:
                why.append("stdout")
            for f in sorted(set(ref[2]) | set(got[2])):
                if ref[2].get(f) != got[2].get(f):
                    why.append(f"file {f}")
            print(f"MISMATCH case {i} (seed {seed}) {argv[0]}: {', '.join(why)}")
            if os.environ.get("DIFF_KEEP"):
                keep = Path(os.environ["DIFF_KEEP"]) / f"case{i}"
                keep.mkdir(parents=True, exist_ok=True)
                for rel, text in files.items():
                    (keep / rel).parent.mkdir(parents=True, exist_ok=True)
                    (keep / rel).write_text(text, encoding="utf-8")
                (keep / "cmd").write_text("\n".join(argv) + "\n")
                (keep / "env").write_text("".join(f"{k}={v}\n" for k, v in env.items()))
    print("kinds: " + ", ".join(f"{k}: {v}" for k, v in sorted(kinds.items())))
    print(f"diff-results: {n - bad} passed, {bad} failed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
