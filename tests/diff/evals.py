#!/usr/bin/env python3
"""Differential test of `infbench eval validate` / `eval collect` against the
reference's utils/evals/validate_scores.py and utils/collect_eval_results.py.

Usage: evals.py INFBENCH REFDIR   (REFDIR: utils/collect_eval_results.py,
utils/evals/validate_scores.py and utils/evals/thresholds.yaml below it; the
reference needs PyYAML and, for collect, tabulate importable.)

Each case is a set of input files and an argv, run in a fresh folder by both.
Required: the same exit status, stdout, every file created (JSON arrays
compared as multisets, as the golden contract does for collect), and for
validate the same stderr unless the reference died with a traceback or argparse
printed its usage (exit 2: only the status counts). Ends with
"evals_diff: N passed, N failed".
"""
import json, os, shutil, subprocess, sys, tempfile

BIN, REFDIR = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
PY = os.environ.get("PYTHON", sys.executable)
TMP = tempfile.mkdtemp(prefix="evdiff")


def lay(files, d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for p, c in files.items():
        fp = os.path.join(d, p)
        if p.endswith("/"):
            os.makedirs(fp, exist_ok=True)
            continue
        os.makedirs(os.path.dirname(fp), exist_ok=True)
        with open(fp, "wb") as f:
            f.write(c.encode() if isinstance(c, str) else c)


def run(cmd, files, env, d):
    lay(files, d)
    e = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root"),
         "LC_ALL": "C.UTF-8", "TZ": "UTC"}
    if os.environ.get("PYTHONPATH"):
        e["PYTHONPATH"] = os.environ["PYTHONPATH"]
    e.update(env)
    r = subprocess.run(cmd, cwd=d, env=e, capture_output=True)
    made = {}
    for root, _, fs in os.walk(d):
        for f in fs:
            p = os.path.relpath(os.path.join(root, f), d)
            if p not in files and "__pycache__" not in p:
                made[p] = open(os.path.join(root, f), "rb").read()
    return r.returncode, r.stdout, r.stderr, made


def multiset(b):
    try:
        v = json.loads(b)
        if isinstance(v, list):
            return sorted(json.dumps(x, indent=2) for x in v)
    except ValueError:
        pass
    return b


def loaded_line(b):  # the default thresholds' path differs by design
    return b"\n".join(l if not l.startswith(b"Loaded thresholds from ") else b"Loaded thresholds"
                      for l in b.split(b"\n"))


REF = {"validate_scores": [PY, os.path.join(REFDIR, "utils/evals/validate_scores.py")],
       "collect_eval_results": [PY, os.path.join(REFDIR, "utils/collect_eval_results.py")]}
OURS = {"validate_scores": [BIN, "eval", "validate"], "collect_eval_results": [BIN, "eval", "collect"]}

# ---- validate_scores cases ----
T = "default:\n  gsm8k: 0.90\nmodels:\n  dsr1:\n    gsm8k: 0.91\n"
M = json.dumps({"infmax_model_prefix": "dsr1", "conc": 64})
R = json.dumps({"results": {"gsm8k": {"alias": "gsm8k", "exact_match,strict-match": 0.95, "exact_match_stderr,strict-match": 0.01, "exact_match,flexible-extract": 0.9}}})
def vs_case(name, args=None, files=None, env=None, base=True):
    f = {"t.yaml": T, "meta_env.json": M, "results_a.json": R} if base else {}
    f.update(files or {})
    f = {k: v for k, v in f.items() if v is not None}
    return {"name": name, "tool": "validate_scores", "args": ["--thresholds", "t.yaml"] + (args or []) if "--nothr" not in (args or []) else [x for x in args if x != "--nothr"], "files": f, "env": env or {}}
VS = [
 vs_case("missing-thr", ["--thresholds", "nope.yaml"]),
 vs_case("thr-string", files={"t.yaml": "default:\n  gsm8k: '0.9'\n"}),
 vs_case("thr-bool", files={"t.yaml": "default:\n  gsm8k: true\n"}),
 vs_case("thr-empty", files={"t.yaml": ""}),
 vs_case("thr-only-models", files={"t.yaml": "models:\n  dsr1:\n    mmlu: 0.5\n"}),
 vs_case("models-null", files={"t.yaml": "default:\n  gsm8k: 0.9\nmodels:\n"}),
 vs_case("default-null", files={"t.yaml": "default:\nmodels: {}\n"}),
 vs_case("models-entry-list", files={"t.yaml": "models:\n  dsr1: [gsm8k]\n"}),
 vs_case("models-entry-list-miss", files={"t.yaml": "models:\n  dsr1: [mmlu]\n"}),
 vs_case("int-keys", files={"t.yaml": "default:\n  1: 0.5\n  gsm8k: 1e-5\n"}),
 vs_case("thr-nonutf8", files={"t.yaml": b"default:\n  gsm8k: 0.9 \xff\n"}),
 vs_case("meta-prefix-int", files={"meta_env.json": '{"infmax_model_prefix": 5}'}),
 vs_case("meta-list", files={"meta_env.json": '[1, 2]'}),
 vs_case("meta-list-concs", files={"meta_env.json": '["eval_concs"]'}),
 vs_case("meta-str", files={"meta_env.json": '"eval_concs here"'}),
 vs_case("meta-num", files={"meta_env.json": '5'}),
 vs_case("meta-missing-conc-files", files={"meta_env.json": None, "results_a.json": None, "results_x_conc4.json": R}),
 vs_case("meta-dir", files={"meta_env.json": None, "meta_env.json/": ""}),
 vs_case("min-score-tiny", ["--min-score", "1e-5"], files={"t.yaml": "{}\n"}),
 vs_case("min-score-inf", ["--min-score", "inf"], files={"t.yaml": "{}\n"}),
 vs_case("min-score-int", ["--min-score", " 1 "], files={"t.yaml": "{}\n"}),
 vs_case("min-score-bad", ["--min-score", "x"]),
 vs_case("metric-types", files={"results_a.json": json.dumps({"results": {"gsm8k": {"exact_match,a": 1, "exact_match,b": -0.5, "exact_match,c": False, "exact_match,d": None, "exact_match,e": 12345678901, "exact_match,f": 0.99995}}})}),
 vs_case("metric-prefix-empty", ["--metric-prefix", ""]),
 vs_case("no-results-key", files={"results_a.json": '{"x": 1}'}),
 vs_case("results-null", files={"results_a.json": '{"results": null}'}),
 vs_case("results-list", files={"results_a.json": '{"results": [1]}'}),
 vs_case("metrics-list", files={"results_a.json": '{"results": {"gsm8k": [1]}}'}),
 vs_case("results-not-json", files={"results_a.json": '{"results": '}),
 vs_case("results-dir", files={"results_a.json": None, "results_d.json/": ""}),
 vs_case("results-array", files={"results_a.json": '[1]'}),
 vs_case("expected-tabs", ["--expected-concs", " 4 \t16 "], files={"meta_env.json": json.dumps({"infmax_model_prefix": "dsr1", "eval_concs": [4, 16], "completed_eval_concs": [4, 16], "failed_eval_concs": []}), "results_a.json": None, "results_a_conc4.json": R, "results_a_conc16.json": R}),
 vs_case("expected-neg", ["--expected-concs", "-4"]),
 vs_case("expected-plus", ["--expected-concs", "+64"]),
 vs_case("expected-64-float-meta", ["--expected-concs", "64"], files={"meta_env.json": '{"conc": 64.0}'}),
 vs_case("expected-64-bool", ["--expected-concs", "1"], files={"meta_env.json": '{"conc": true}'}),
 vs_case("expected-str-meta", ["--expected-concs", "64"], files={"meta_env.json": '{"conc": "64"}'}),
 vs_case("batched-unexpected", ["--expected-concs", "4 8"], files={"meta_env.json": json.dumps({"eval_concs": [4, 16], "completed_eval_concs": [4, 16, 32], "failed_eval_concs": []}), "results_a.json": None, "results_a_conc007.json": R, "results_a_conc32_3.json": R}),
 vs_case("batched-true", files={"meta_env.json": json.dumps({"eval_concs": [True], "completed_eval_concs": [1], "failed_eval_concs": []}), "results_a.json": None, "results_a_conc1.json": R}),
 vs_case("batched-float", files={"meta_env.json": json.dumps({"eval_concs": [4.0], "completed_eval_concs": [4], "failed_eval_concs": []})}),
 vs_case("batched-zero", files={"meta_env.json": json.dumps({"eval_concs": [0], "completed_eval_concs": [], "failed_eval_concs": []})}),
 vs_case("batched-missing-failed", files={"meta_env.json": json.dumps({"eval_concs": [4], "completed_eval_concs": [4]})}),
 vs_case("env-unknown", env={"MODEL_PREFIX": "unknown"}, files={"meta_env.json": '{"infmax_model_prefix": "unknown"}'}),
 vs_case("env-prefix", env={"MODEL_PREFIX": "dsr1"}, files={"meta_env.json": '{}'}),
 vs_case("override-empty", ["--model-prefix", ""]),
 vs_case("glob-hidden", ["--results-glob", "*.json"], files={".results_h.json": R}),
 vs_case("glob-bracket", ["--results-glob", "results_[ab].json"], files={"results_b.json": R}),
 vs_case("glob-nomagic", ["--results-glob", "results_a.json"]),
 vs_case("default-thresholds", ["--nothr"]),
 vs_case("json-thresholds-dup", files={"t.yaml": '{"gsm8k": 0.5, "gsm8k": 0.96}'}),
 vs_case("yaml-anchors", files={"t.yaml": "default: &d\n  gsm8k: 0.93\nmodels:\n  dsr1: *d\n"}),
 vs_case("unknown-option", ["--bogus"]),
]

# ---- collect_eval_results cases ----
def lm(results, configs=None, ns=None, model_name=None, extra=None):
    d = {"results": results}
    if configs is not None: d["configs"] = configs
    if ns is not None: d["n-samples"] = ns
    if model_name is not None: d["model_name"] = model_name
    d["lm_eval_version"] = "0.4.9.2"
    d.update(extra or {})
    return json.dumps(d, indent=2)
G = {"gsm8k": {"exact_match,strict-match": 0.95, "exact_match_stderr,strict-match": 0.006, "exact_match,flexible-extract": 0.955, "exact_match_stderr,flexible-extract": 0.0057}}
GC = {"gsm8k": {"metric_list": [{"metric": "exact_match"}], "filter_list": [{"name": "strict-match"}, {"name": "flexible-extract"}], "metadata": {"model": "org/M"}}}
NS = {"gsm8k": {"effective": 1319}}
STD = lm(G, GC, NS)
def meta(**kw):
    d = {"is_multinode": False, "framework": "vllm", "precision": "fp8", "spec_decoding": "none", "tp": 8, "conc": 64, "ep": 1, "dp_attention": False, "model": "org/M", "infmax_model_prefix": "dsr1", "hw": "h200", "isl": "8192", "osl": "1024"}
    d.update(kw)
    return json.dumps({k: v for k, v in d.items() if v != "DEL"})
def ce_case(name, sets, args=None):
    files = {}
    for s, (m, res) in sets.items():
        pre = f"er/{s}/" if s else "er/"
        if m is not None: files[pre + "meta_env.json"] = m
        for fn, t in res.items(): files[pre + fn] = t
    return {"name": name, "tool": "collect_eval_results", "args": args or ["er", "all"], "files": files}
CE = [
 ce_case("basic-two", {"a": (meta(), {"results_1.json": STD}), "b": (meta(hw="b200", tp=4), {"results_1.json": STD})}),
 ce_case("hw-null", {"a": (meta(hw=None), {"results_1.json": STD})}),
 ce_case("neff-float", {"a": (meta(), {"results_1.json": lm(G, GC, {"gsm8k": {"effective": 1319.0}})})}),
 ce_case("neff-zero", {"a": (meta(), {"results_1.json": lm(G, GC, {"gsm8k": {"effective": 0}})})}),
 ce_case("prefix-num-one", {"a": (meta(infmax_model_prefix=5), {"results_1.json": STD})}),
 ce_case("prefix-mixed", {"a": (meta(infmax_model_prefix=5), {"results_1.json": STD}), "b": (meta(), {"results_1.json": STD})}),
 ce_case("prefix-num-str", {"a": (meta(infmax_model_prefix="12"), {"results_1.json": STD}), "b": (meta(infmax_model_prefix="3"), {"results_1.json": STD})}),
 ce_case("prefix-thousands", {"a": (meta(infmax_model_prefix="1,000"), {"results_1.json": STD}), "b": (meta(infmax_model_prefix="2.5"), {"results_1.json": STD})}),
 ce_case("score-strings", {"a": (meta(), {"results_1.json": lm({"gsm8k": {"exact_match,strict-match": "0.5", "exact_match_stderr,strict-match": "N/A"}}, GC, NS)})}),
 ce_case("spec-list", {"a": (meta(spec_decoding=["mtp", 2]), {"results_1.json": STD})}),
 ce_case("conc-str", {"a": (meta(conc="64", tp=" 8 ", isl="8k", osl=None), {"results_1.json": STD})}),
 ce_case("multi-str-true", {"a": (meta(is_multinode="True", prefill_tp=4, decode_tp=8, prefill_dp_attention="TRUE", decode_dp_attention=None, dp_attention=True), {"results_1.json": STD})}),
 ce_case("multi-both", {"a": (meta(is_multinode=True, prefill_num_workers="2", decode_num_workers=3.7), {"results_1.json": STD}), "b": (meta(), {"results_1.json": STD})}, ["er", "all", "hw"]),
 ce_case("root-dot-slash", {"a": (meta(), {"results_1.json": STD})}, ["./er//", "x"]),
 ce_case("root-missing", {}, ["nope", "x"]),
 ce_case("batched-no-completed", {"a": (meta(eval_concs=[4, 8]), {"results_1_conc4.json": STD, "results_1_conc8.json": STD, "results_2.json": STD})}),
 ce_case("batched-completed-str", {"a": (meta(eval_concs=[4, 8], completed_eval_concs=["4", 8.0]), {"results_1_conc4.json": STD, "results_1_conc8.json": STD})}),
 ce_case("batched-completed-null", {"a": (meta(eval_concs=[4, 8], completed_eval_concs=None), {"results_1_conc4.json": STD, "results_1_conc8.json": STD})}),
 ce_case("acc-task", {"a": (meta(), {"results_1.json": lm({"arc": {"acc": 0.8, "acc_stderr": 0.01, "acc_norm": 0.7}}, {"arc": {"metric_list": [{"metric": "acc"}]}}, {"arc": {"effective": 100}})})}),
 ce_case("bare-metric", {"a": (meta(), {"results_1.json": lm({"t": {"acc_norm": 0.7, "acc_norm_stderr": 0.02}}, {"t": {"metric_list": [{"metric": "acc_norm"}]}}, {})})}),
 ce_case("dup-filters", {"a": (meta(), {"results_1.json": lm({"t": {"em,strict-a": 0.1, "em,strict-b": 0.2, "em,extract": 0.3}}, {"t": {"metric_list": [{"metric": "em"}], "filter_list": [{"name": "strict-a"}, {"name": "strict-b"}, {"name": "extract"}, {"name": "other"}]}}, {})})}),
 ce_case("unicode", {"a": (meta(model="org/Modèl-ü", hw="h200ß", infmax_model_prefix="dé"), {"results_1.json": lm(G, {"gsm8k": {}}, NS)})}),
 ce_case("results-empty-null", {"a": (meta(), {"results_1.json": lm(None, GC, NS)})}),
 ce_case("results-list", {"a": (meta(), {"results_1.json": lm([1], GC, NS)})}),
 ce_case("configs-null", {"a": (meta(), {"results_1.json": lm(G, None, NS, extra={"configs": None})})}),
 ce_case("model-name", {"a": (meta(model=None), {"results_1.json": lm(G, {"gsm8k": {}}, NS, model_name="")})}),
 ce_case("meta-invalid", {"a": ("{bad", {"results_1.json": STD})}),
 ce_case("meta-list", {"a": ("[1]", {"results_1.json": STD})}),
 ce_case("meta-empty-list", {"a": ("[]", {"results_1.json": STD})}),
 ce_case("hidden-json", {"a": (meta(), {".hidden.json": STD})}),
 ce_case("not-lm", {"a": (meta(), {"results_1.json": json.dumps({"results": G})})}),
 ce_case("three-args-extra", {"a": (meta(), {"results_1.json": STD})}, ["er", "all", "model_prefix", "extra"]),
 ce_case("strict-none", {"a": (meta(), {"results_1.json": lm({"gsm8k": {"exact_match,strict-match": None, "exact_match,flexible-extract": 0.5}}, GC, NS)})}),
 ce_case("bool-score", {"a": (meta(), {"results_1.json": lm({"gsm8k": {"exact_match,strict-match": True}}, GC, NS)})}),
 ce_case("tp-key-null", {"a": (meta(tp=None, ep=None, prefill_tp=2), {"results_1.json": STD})}),
 ce_case("framework-upper-sort", {"a": (meta(framework="SGLang"), {"results_1.json": STD}), "b": (meta(framework="atom"), {"results_1.json": STD})}),
]


def main():
    passed = failed = 0
    for c in VS + CE:
        tool = c["tool"]
        a = run(REF[tool] + c["args"], c["files"], c.get("env", {}), os.path.join(TMP, "ref"))
        b = run(OURS[tool] + c["args"], c["files"], c.get("env", {}), os.path.join(TMP, "ours"))
        why = []
        if a[0] != b[0]:
            why.append(f"exit {b[0]}, reference {a[0]}")
        if a[0] != 2 and loaded_line(a[1]) != loaded_line(b[1]):
            why.append("stdout differs:\n" + a[1].decode(errors="replace") + "-- ours:\n"
                       + b[1].decode(errors="replace"))
        if (tool == "validate_scores" and a[0] != 2 and b"Traceback" not in a[2]
                and a[2] != b[2]):
            why.append("stderr differs:\n" + a[2].decode(errors="replace") + "-- ours:\n"
                       + b[2].decode(errors="replace"))
        if set(a[3]) != set(b[3]):
            why.append(f"files {sorted(b[3])}, reference {sorted(a[3])}")
        for k in set(a[3]) & set(b[3]):
            if multiset(a[3][k]) != multiset(b[3][k]):
                why.append(f"{k} differs")
        if why:
            failed += 1
            print(f"not ok - {tool} {c['name']}: " + "\n    ".join("\n".join(why).split("\n")))
        else:
            passed += 1
            print(f"ok - {tool} {c['name']}")
    shutil.rmtree(TMP, ignore_errors=True)
    print(f"evals_diff: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
