#!/usr/bin/env python3
"""Independent expectations for tests/e2e/db.sh (stdlib only).

  db_oracle.py gen DIR        writes the runs: DIR/runs.tsv (run_id, date, file),
                              DIR/agg_bmk.json (10,000 rows, the main run) and the
                              earlier runs' files
  db_oracle.py latest DIR     the rows `infbench db latest` must print, as JSON
  db_oracle.py history DIR T  the values `infbench db history --target T` must print

The expectations are computed from the generated files alone, following
docs/db.md (latest_benchmarks: the newest error-free row per config, conc, isl,
osl; ties on the date go to the later ingested run) and the dashboard's trend
interpolation (spec/evals-report-agentx.md B.4 P1 and P5; tests/golden/report
README 3.6 and 3.9), written here again in Python on purpose.
"""
import json
import math
import os
import random
import sys

HW = ["h100", "h200", "b200", "mi300x", "mi355x"]
FW = ["vllm", "sglang"]
MODELS = [("dsr1", "deepseek-ai/DeepSeek-R1-0528"), ("gptoss", "openai/gpt-oss-120b"),
          ("llama70b", "meta-llama/Llama-3.3-70B-Instruct")]
PREC = ["fp8", "fp4"]
TP = [1, 2, 4, 8]
SEQ = [(1024, 1024), (1024, 8192), (8192, 1024)]
CONC = [4, 8, 16, 32, 64, 128, 256, 512]
DPA = ["false", "true"]


def identities():
    for hw in HW:
        for fw in FW:
            for prefix, model in MODELS:
                for prec in PREC:
                    for tp in TP:
                        for dpa in DPA:
                            for isl, osl in SEQ:
                                for conc in CONC:
                                    yield (hw, fw, prefix, model, prec, tp, dpa, isl, osl, conc)


def make_row(rng, ident):
    hw, fw, prefix, model, prec, tp, dpa, isl, osl, conc = ident
    intvty = rng.uniform(5, 300) * (1 + 64 / conc)
    row = {
        "hw": hw, "conc": conc, "image": f"{fw}/{fw}:v1", "model": model,
        "infmax_model_prefix": prefix, "framework": fw, "precision": prec,
        "spec_decoding": "none", "disagg": False, "isl": isl, "osl": osl,
        "is_multinode": False, "tp": tp, "pp": 1, "ep": tp if dpa == "true" else 1,
        "dp_attention": dpa,
        "tput_per_gpu": rng.uniform(50, 30000) / (1 + intvty / 100),
        "output_tput_per_gpu": rng.uniform(10, 5000),
        "input_tput_per_gpu": rng.uniform(10, 25000),
        "median_ttft": rng.uniform(0.01, 5), "p99_ttft": rng.uniform(0.05, 20),
        "median_intvty": intvty, "median_e2el": rng.uniform(0.5, 90),
        "power_metric_schema_version": 2, "power_valid": 0,
    }
    return row


def make_multinode(rng, i):
    return {
        "hw": "gb200-multinode", "conc": 64 * (1 + i % 4), "image": "dynamo:1",
        "model": "deepseek-ai/DeepSeek-R1-0528-FP4", "infmax_model_prefix": "dsr1",
        "framework": "dynamo-trt", "precision": "fp4", "spec_decoding": "mtp",
        "disagg": True, "isl": 8192, "osl": 1024, "is_multinode": True,
        "prefill_tp": 4, "prefill_ep": 4, "prefill_dp_attention": "true",
        "prefill_num_workers": 1 + i % 3, "decode_tp": 8, "decode_ep": 8,
        "decode_dp_attention": "true", "decode_num_workers": 1, "num_prefill_gpu": 4 * (1 + i % 3),
        "num_decode_gpu": 8, "tput_per_gpu": rng.uniform(1000, 9000),
        "median_intvty": rng.uniform(10, 200), "median_ttft": rng.uniform(0.1, 3),
    }


def gen(d):
    rng = random.Random(20260805)
    ids = list(identities())
    runs = []
    # earlier runs: samples of every identity (some only there), two on one date
    for k, date in enumerate(["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04", "2026-01-04"]):
        rows = [make_row(rng, ident) for ident in rng.sample(ids, 400)]
        rows += [make_multinode(rng, i) for i in range(6)]
        name = f"run{k + 1}.json"
        with open(os.path.join(d, name), "w") as f:
            json.dump(rows, f, indent=2)
        runs.append((f"r{k + 1}", date, name))
    rows = [make_row(rng, ident) for ident in ids[:10000]]
    with open(os.path.join(d, "agg_bmk.json"), "w") as f:
        json.dump(rows, f, indent=2)
    runs.append(("main-10000", "2026-01-05", "agg_bmk.json"))
    with open(os.path.join(d, "runs.tsv"), "w") as f:
        for r in runs:
            f.write("\t".join(r) + "\n")


def load(d):
    out = []  # (order, run_id, date, row)
    with open(os.path.join(d, "runs.tsv")) as f:
        runs = [line.rstrip("\n").split("\t") for line in f]
    for order, (run_id, date, name) in enumerate(runs):
        with open(os.path.join(d, name)) as f:
            for row in json.load(f):
                out.append((order, run_id, date, row))
    return out


IDENTITY = {"isl", "osl", "conc", "tp", "ep", "prefill_tp", "prefill_ep", "prefill_num_workers",
            "decode_tp", "decode_ep", "decode_num_workers", "num_prefill_gpu", "num_decode_gpu"}


def hw_base(hw):
    for s in ("-multinode", "-trt", "-disagg"):
        if hw.endswith(s):
            return hw[: -len(s)]
    return hw


def db_row(run_id, date, r):
    multi = bool(r.get("is_multinode"))
    if multi or "prefill_tp" in r:
        par = [r["prefill_tp"], r.get("prefill_ep", 1), r.get("prefill_dp_attention") == "true",
               r.get("prefill_num_workers", 0), r["decode_tp"], r.get("decode_ep", 1),
               r.get("decode_dp_attention") == "true", r.get("decode_num_workers", 0),
               r.get("num_prefill_gpu", 0), r.get("num_decode_gpu", 0)]
    else:
        dp = r["dp_attention"] == "true"
        par = [r["tp"], r["ep"], dp, 0, r["tp"], r["ep"], dp, 0, r["tp"] * r["ep"],
               r["tp"] * r["ep"]]
    keys = ["prefill_tp", "prefill_ep", "prefill_dp_attention", "prefill_num_workers",
            "decode_tp", "decode_ep", "decode_dp_attention", "decode_num_workers",
            "num_prefill_gpu", "num_decode_gpu"]
    out = {"run_id": run_id, "date": date, "branch": "main", "sha": None, "runner": None,
           "hardware": hw_base(r["hw"]).lower(), "framework": r["framework"],
           "model": r["infmax_model_prefix"], "precision": r["precision"],
           "spec_method": r.get("spec_decoding") or "none", "disagg": r["disagg"] is True,
           "is_multinode": multi}
    out.update(zip(keys, par))
    out.update({"benchmark_type": "single_turn", "isl": r["isl"], "osl": r["osl"],
                "conc": r["conc"], "image": r["image"], "error": None})
    met = {k: v for k, v in r.items()
           if type(v) in (int, float) and k not in IDENTITY}
    out["metrics"] = dict(sorted(met.items()))
    return out


SORT = ["hardware", "framework", "model", "precision", "spec_method", "disagg", "is_multinode",
        "prefill_tp", "prefill_ep", "prefill_dp_attention", "prefill_num_workers", "decode_tp",
        "decode_ep", "decode_dp_attention", "decode_num_workers", "num_prefill_gpu",
        "num_decode_gpu", "benchmark_type", "isl", "osl", "conc", "date", "run_id"]
CONFIG = SORT[:17]


def latest(d):
    best = {}
    for order, run_id, date, r in load(d):
        row = db_row(run_id, date, r)
        key = tuple(row[k] for k in CONFIG) + (row["isl"], row["osl"], row["conc"])
        if key not in best or (date, order) >= (best[key][0], best[key][1]):
            best[key] = (date, order, row)
    rows = [v[2] for v in best.values()]
    rows.sort(key=lambda x: tuple(x[k] for k in SORT))
    return rows


def frontier_upper_left(pts):
    """P1: x ascending, ties y descending; pop while the new y >= the last."""
    pts = sorted(pts, key=lambda p: (p[0], -p[1]))
    front = []
    for p in pts:
        if front and front[-1][0] == p[0]:
            if p[1] > front[-1][1]:
                front[-1] = p
            continue
        while front and p[1] >= front[-1][1]:
            front.pop()
        front.append(p)
    return front


def steffen(xs, ys):
    n = len(xs)
    if n < 2:
        return [0.0] * n
    h = [xs[i + 1] - xs[i] for i in range(n - 1)]
    s = [0.0 if h[i] == 0 else (ys[i + 1] - ys[i]) / h[i] for i in range(n - 1)]
    m = [0.0] * n
    sgn = lambda v: -1.0 if v < 0 else 1.0
    for i in range(1, n - 1):
        p = (s[i - 1] * h[i] + s[i] * h[i - 1]) / (h[i - 1] + h[i]) if h[i - 1] + h[i] else math.nan
        v = (sgn(s[i - 1]) + sgn(s[i])) * min(abs(s[i - 1]), abs(s[i]), abs(p) / 2)
        m[i] = 0.0 if math.isnan(v) else v
    m[0] = (3 * s[0] - m[1]) / 2 if h[0] != 0 else m[1]
    m[n - 1] = (3 * s[n - 2] - m[n - 2]) / 2 if h[n - 2] != 0 else m[n - 2]
    return m


def spline_at(xs, ys, t):
    n = len(xs)
    m = steffen(xs, ys)
    if t <= xs[0]:
        return ys[0]
    if t >= xs[-1]:
        return ys[-1]
    lo = max(i for i in range(n) if xs[i] <= t)
    hi = lo + 1
    h = xs[hi] - xs[lo]
    if h == 0:
        return ys[lo]
    u = (t - xs[lo]) / h
    return (ys[lo] * (2 * u ** 3 - 3 * u ** 2 + 1) + h * m[lo] * (u ** 3 - 2 * u ** 2 + u)
            + ys[hi] * (-2 * u ** 3 + 3 * u ** 2) + h * m[hi] * (u ** 3 - u ** 2))


def trend_value(points, target):
    """tpPerGpu at the target: frontier upper_left on (median_intvty, tput_per_gpu)."""
    front = frontier_upper_left(points)
    if not front:
        return None
    xs = [p[0] for p in front]
    ys = [p[1] for p in front]
    if target < xs[0] or target > xs[-1]:
        return None
    if len(front) == 1:
        return ys[0] if abs(target - xs[0]) < 1e-6 else None
    return max(0.0, spline_at(xs, ys, target))


def history(d, target):
    groups = {}
    for order, run_id, date, r in load(d):
        row = db_row(run_id, date, r)
        key = (row["model"], row["isl"], row["osl"], row["hardware"], row["framework"],
               row["spec_method"], row["disagg"], row["precision"])
        groups.setdefault(key, {}).setdefault(date, []).append(
            (row["metrics"]["median_intvty"], row["metrics"]["tput_per_gpu"]))
    out = {}
    for key, dates in groups.items():
        for date, pts in dates.items():
            out["|".join(map(str, key)) + "|" + date] = trend_value(pts, target)
    return out


if __name__ == "__main__":
    cmd, d = sys.argv[1], sys.argv[2]
    if cmd == "gen":
        gen(d)
    elif cmd == "latest":
        print(json.dumps(latest(d)))
    elif cmd == "history":
        print(json.dumps(history(d, float(sys.argv[3])), sort_keys=True))
    else:
        sys.exit("usage: db_oracle.py gen|latest|history DIR [TARGET]")
