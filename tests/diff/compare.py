#!/usr/bin/env python3
"""Differential test of `infbench compare` against the reference compare_results.py.

  tests/diff/compare.py INFBENCH IX_REF TABULATE_DIR [N]

Runs N (default 300) random cases — agg rows with odd but valid values (numeric
strings, floats for counts, None, NaN-free extremes, bools, unicode, suffixes,
missing metrics, zero baselines) and baselines.json rows — through the reference
(IX_REF/utils/compare_results.py, the golden psycopg2 stand-in, tabulate from
TABULATE_DIR, e.g. a checkout of python-tabulate 0.10's tabulate/ package) and
through tests/golden/results-tool.sh, and compares exit status and stdout.
Prints one line per mismatch and "compare-diff: N passed, N failed".
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
stubs = os.path.join(root, "tests/golden/results/tools/stubs")
wrapper = os.path.join(root, "tests/golden/results-tool.sh")

METRICS = ["tput_per_gpu", "median_ttft", "p90_ttft", "p99_ttft", "p99.9_ttft", "median_intvty",
           "p90_intvty", "p99_intvty", "p99.9_intvty", "median_e2el", "p90_e2el", "p99_e2el",
           "p99.9_e2el"]


def num(rng):
    k = rng.random()
    if k < 0.05:
        return 0
    if k < 0.1:
        return rng.choice([1e-7, 123456789.123, 1e20, -3.5, 2])
    if k < 0.15:
        return str(round(rng.uniform(0, 100), 3))
    if k < 0.2:
        return None
    return rng.uniform(0.001, 5000)


def row(rng, i):
    multi = rng.random() < 0.3
    r = {
        "hw": rng.choice(["h100", "H200", "b200-trt", "mi355x-multinode", "gb200-disagg",
                          "mi300x-Trt", "h100-nv", "b300"]),
        "conc": rng.choice([4, 8, 64, "16", 32.0, 512]),
        "model": rng.choice(["m/a", "deepseek-ai/DeepSeek-R1", "Qwen/Q\u00e9", "123", "True"]),
        "infmax_model_prefix": rng.choice(["dsr1", "gptoss", "GptOss", "q_n", "1e5", "x"]),
        "framework": rng.choice(["vllm", "SGLang", "dynamo-trt", "atom"]),
        "precision": rng.choice(["fp8", "FP4", "bf16"]),
        "isl": rng.choice([1024, 8192, "1024"]),
        "osl": rng.choice([1024, 128]),
        "is_multinode": multi if rng.random() < 0.9 else rng.choice([0, 1, "false", ""]),
    }
    if rng.random() < 0.8:
        r["spec_decoding"] = rng.choice(["none", "mtp", "NONE"])
    if rng.random() < 0.7:
        r["disagg"] = rng.choice([True, False, "true", "False", 1])
    if multi:
        for side in ("prefill", "decode"):
            r[side + "_tp"] = rng.choice([1, 2, 4, 8, "8", 4.0])
            r[side + "_ep"] = rng.choice([1, 4, 8, True])
            r[side + "_dp_attention"] = rng.choice(["true", "false", True, False])
    r["tp"] = rng.choice([1, 2, 4, 8, "8", 2.0, " 4"])
    r["ep"] = rng.choice([1, 4, 8])
    if rng.random() < 0.97:
        r["dp_attention"] = rng.choice(["true", "false", True, False, None, 1, "True"])
    for m in METRICS:
        if rng.random() < 0.93:
            r[m] = num(rng)
    if rng.random() < 0.05:
        r["scenario_type"] = "agentic-coding"
    return r


def baseline(rng, r, date):
    def pb(v):
        return v if isinstance(v, bool) else str(v).lower() == "true"
    multi = r["is_multinode"]
    try:
        tp = int(r["prefill_tp"] if multi else r["tp"])
        ep = int(r["prefill_ep"] if multi else r["ep"])
        dtp = int(r["decode_tp"] if multi else r["tp"])
        dep = int(r["decode_ep"] if multi else r["ep"])
    except (KeyError, ValueError):
        return None
    dp = pb(r.get("prefill_dp_attention" if multi else "dp_attention"))
    hw = r["hw"]
    for s in ("-multinode", "-trt", "-disagg"):
        if hw.endswith(s):
            hw = hw[: -len(s)]
    try:
        isl, osl, conc = int(r["isl"]), int(r["osl"]), int(r["conc"])
    except ValueError:
        return None
    return {
        "hardware": hw.lower(), "framework": r["framework"].lower(),
        "model": r["infmax_model_prefix"].lower() + rng.choice(["", "120b", "x"]),
        "precision": r["precision"].lower(),
        "spec_method": r.get("spec_decoding", "none").lower(),
        "disagg": pb(r.get("disagg", False)), "is_multinode": bool(multi),
        "prefill_tp": tp, "prefill_ep": ep, "prefill_dp_attention": dp,
        "decode_tp": dtp, "decode_ep": dep,
        "decode_dp_attention": pb(r.get("decode_dp_attention" if multi else "dp_attention")),
        "isl": isl, "osl": osl, "conc": conc,
        "head_branch": rng.choice(["main", "main", "main", "dev"]),
        "error": rng.choice([None, None, None, "boom"]), "date": date,
        "metrics": {m: rng.choice([num(rng), 0, rng.uniform(1, 100)]) for m in METRICS
                    if rng.random() < 0.9},
    }


def run(cmd, cwd, env, err=None):
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=120)
    if err is not None:
        err.append(p.stderr.decode(errors="replace"))
    return p.returncode, p.stdout


def main():
    infbench, ix, tab = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 300
    rng = random.Random(4242)
    passed = failed = 0
    for case in range(n):
        rows = [row(rng, i) for i in range(rng.randint(1, 6))]
        base = []
        for k, r in enumerate(rows * 2):
            try:
                b = baseline(rng, r, f"2026-01-{1 + (k * 7 + case) % 28:02d}T{k:02d}:00:00Z")
            except Exception:
                b = None
            if b:
                base.append(b)
        w = tempfile.mkdtemp()
        try:
            os.makedirs(os.path.join(w, "results"))
            with open(os.path.join(w, "results", "agg_bmk.json"), "w") as f:
                json.dump(rows, f)
            with open(os.path.join(w, "baselines.json"), "w") as f:
                json.dump(base, f)
            env = {"PATH": os.environ["PATH"], "LC_ALL": "C.UTF-8", "TZ": "UTC", "PYTHONDONTWRITEBYTECODE": "1",
                   "DATABASE_URL": "golden-json:baselines.json"}
            ref = run([sys.executable, os.path.join(ix, "utils/compare_results.py"), "results/"],
                      w, dict(env, PYTHONPATH=tab + ":" + stubs))
            errs = []
            ours = run([wrapper, "compare_results", "results/"], w, dict(env, INFBENCH=infbench),
                       errs)
        finally:
            shutil.rmtree(w)
        if ref == ours:
            passed += 1
        else:
            failed += 1
            print(f"case {case}: rc ref={ref[0]} ours={ours[0]}: {errs[0].strip()[-300:]}")
            if failed <= 3:
                rl, ol = ref[1].decode().splitlines(), ours[1].decode().splitlines()
                for a, b in zip(rl, ol):
                    if a != b:
                        j = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]),
                                 min(len(a), len(b)))
                        print("  ref: ", repr(a[max(0, j - 120):j + 60]))
                        print("  ours:", repr(b[max(0, j - 120):j + 60]))
                        break
                print("  rows:", json.dumps(rows)[:600])
    print(f"compare-diff: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


main()
