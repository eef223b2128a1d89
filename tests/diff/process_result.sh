#!/usr/bin/env bash
# InferenceX's post-processing accepts infbench's result JSON unchanged: runs
# `infbench bench` with InferenceX's exact flag set against `infbench sim`,
# then the reference's own utils/process_result.py (with aggregate_power*.py
# beside it, and collect_results.py) on that JSON with /usr/bin/python3, as the
# workflows do (benchmark-tmpl.yml: single node; benchmark-multinode-tmpl.yml:
# multinode/disaggregated), and checks the agg row against our numbers:
# metadata, per-GPU throughputs (single node: total / (TP x PP x PCP);
# multinode: total / (P + D), output / D, input / P), every *_ms latency in
# seconds, interactivity = 1000 / TPOT, the exact set of agg keys, and the
# power aggregation over a synthetic GPU telemetry CSV (our benchmark window,
# duration and integer counts pass its contract).
# Needs IX_REF: a bare git mirror of SemiAnalysisAI/InferenceX (read with git
# show HEAD:...) or a checkout; skipped when unset. Needs the llama3 tokenizer
# fixture (make fixtures). The reference scripts are extracted at run time.
# Usage: IX_REF=path tests/diff/process_result.sh INFBENCH
# One line per check (ok - / not ok - ), ends with
# "process_result: N passed, N failed"; exit 1 on any failure.
set -u
if [ -z "${IX_REF:-}" ]; then
	echo "(IX_REF not set: skipping the process_result.py check against the Python reference)"
	echo "process_result: 0 passed, 0 failed"
	exit 0
fi
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
tokdir=$root/fixtures/tokenizers/llama3
py=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
pass=0
fail=0
simpid=
cleanup() {
	[ -n "$simpid" ] && kill "$simpid" 2>/dev/null && wait "$simpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
ok() {
	echo "ok - $1"
	pass=$((pass + 1))
}
no() {
	echo "not ok - $1"
	fail=$((fail + 1))
}
finish() {
	echo "process_result: $pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit
}
[ -x "$py" ] || { no "no python at $py (set PYTHON)"; finish; }
[ -f "$tokdir/tokenizer.json" ] || { no "fixtures missing: $tokdir (run make fixtures)"; finish; }

# the reference scripts, from a checkout or a bare mirror
ref=$tmp/ref
mkdir -p "$ref"
for f in process_result.py aggregate_power.py aggregate_power_multinode.py collect_results.py; do
	if [ -f "$IX_REF/utils/$f" ]; then
		cp "$IX_REF/utils/$f" "$ref/$f"
	elif git --git-dir="$IX_REF" rev-parse --verify -q HEAD >/dev/null 2>&1; then
		git --git-dir="$IX_REF" show "HEAD:utils/$f" >"$ref/$f" 2>/dev/null || rm -f "$ref/$f"
	fi
done
[ -s "$ref/process_result.py" ] || { no "no utils/process_result.py in $IX_REF"; finish; }
[ -s "$ref/aggregate_power.py" ] || echo "# (no aggregate_power.py in $IX_REF: power checks will fail)"

# -- 1. the benchmark, as benchmarks/benchmark_lib.sh runs it (CONC 4)
"$bin" sim --port 0 --port-file "$tmp/port" --duration 300 --time-scale 20 \
	--served-model-name meta-llama/Llama-3.1-8B-Instruct 2>"$tmp/sim.err" &
simpid=$!
for _ in $(seq 1 400); do [ -s "$tmp/port" ] && break; sleep 0.05; done
port=$(cat "$tmp/port" 2>/dev/null)
[ -n "$port" ] || { no "the simulator did not start: $(head -c 300 "$tmp/sim.err")"; finish; }
C=4
ISL=64
OSL=16
name=llama8b_fp8_vllm_tp4-pp2-dcp2-pcp1-ep2-dpafalse_disagg-false_spec-none_conc${C}_h200-nv_0
work=$tmp/work
mkdir -p "$work"
"$bin" bench --model meta-llama/Llama-3.1-8B-Instruct --tokenizer "$tokdir" --backend vllm \
	--base-url "http://0.0.0.0:$port" --dataset-name random --random-input-len $ISL \
	--random-output-len $OSL --random-range-ratio 0.8 --num-prompts $((10 * C)) --max-concurrency $C \
	--request-rate inf --ignore-eos --save-result --num-warmups $((2 * C)) \
	--percentile-metrics ttft,tpot,itl,e2el --result-dir "$work" --result-filename "$name.json" \
	--use-chat-template >"$tmp/bench.out" 2>"$tmp/bench.err"
rc=$?
if [ "$rc" = 0 ] && [ -s "$work/$name.json" ]; then
	ok "infbench bench with InferenceX's flags wrote $name.json"
else
	no "infbench bench: exit $rc: $(tail -n 3 "$tmp/bench.err")"
	finish
fi
kill "$simpid" 2>/dev/null && wait "$simpid" 2>/dev/null
simpid=

# the workflow's environment (benchmark-tmpl.yml); G = TP x PP x PCP = 8
base_env=(RUNNER_TYPE=h200 FRAMEWORK=vllm PRECISION=fp8 SPEC_DECODING=none DISAGG=false
	MODEL_PREFIX=llama8b IMAGE=vllm/vllm-openai:v0.11.0 "ISL=$ISL" "OSL=$OSL" "CONC=$C"
	RECIPE_FINGERPRINT=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
	ROUTER_METADATA= KV_P2P_TRANSFER= REQUIRE_POWER=0 PYTHONDONTWRITEBYTECODE=1)

# a synthetic telemetry CSV (nvidia-smi's columns) covering the benchmark
# window: 8 GPUs at a constant 300 W, a sample every 0.25 s from 2 s before
# to 2 s after
"$py" - "$work/$name.json" "$tmp/gpu_metrics.csv" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
t0, t1 = r["benchmark_start_time_unix"] - 2, r["benchmark_end_time_unix"] + 2
with open(sys.argv[2], "w") as f:
    f.write("timestamp, index, power.draw [W]\n")
    t = t0
    while t <= t1 + 0.25:
        for g in range(8):
            f.write("%.3f, %d, 300.00 W\n" % (t, g))
        t += 0.25
EOF

# check_agg MODE RAW AGG SIDECAR: one "ok - "/"not ok - " line per check
tally() { # tally LABEL < checker output: count its "ok - " and "not ok - " lines
	local line
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "${line#ok - }" ;;
		"not ok - "*) no "${line#not ok - }" ;;
		*) no "$1: checker: $line" ;;
		esac
	done
}

check_agg() {
	"$py" - "$@" <<'EOF'
import json, math, sys
mode, raw_path, agg_path, side_path = sys.argv[1:5]
raw = json.load(open(raw_path))
agg = json.load(open(agg_path))
def check(cond, what):
    print(("ok - " if cond else "not ok - ") + mode + ": " + what)
def close(a, b):
    return isinstance(a, (int, float)) and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)

check(agg.get("hw") == "h200" and agg.get("image") == "vllm/vllm-openai:v0.11.0"
      and agg.get("infmax_model_prefix") == "llama8b" and agg.get("framework") == "vllm"
      and agg.get("precision") == "fp8" and agg.get("spec_decoding") == "none"
      and agg.get("recipe_fingerprint", "").startswith("0123"),
      "metadata passed through from the environment")
check(agg.get("model") == raw["model_id"] == "meta-llama/Llama-3.1-8B-Instruct",
      "model = model_id (%r)" % agg.get("model"))
check(agg.get("conc") == raw["max_concurrency"] == 4 and isinstance(raw["max_concurrency"], int),
      "conc = max_concurrency = 4 (%r)" % agg.get("conc"))
check(agg.get("isl") == 64 and agg.get("osl") == 16, "isl/osl = 64/16")
check(raw["completed"] == 40 and all(isinstance(raw[k], int) for k in
      ("completed", "total_input_tokens", "total_output_tokens")),
      "completed = 40, token counts are integers")

tot, out = raw["total_token_throughput"], raw["output_throughput"]
if mode == "single-node":
    G = 4 * 2 * 1
    check(agg.get("is_multinode") is False and agg.get("disagg") is False
          and agg.get("tp") == 4 and agg.get("pp") == 2 and agg.get("dcp_size") == 2
          and agg.get("pcp_size") == 1 and agg.get("ep") == 2 and agg.get("dp_attention") == "false",
          "single-node parallelism fields")
    check(close(agg.get("tput_per_gpu"), tot / G), "tput_per_gpu = total_token_throughput / 8 (%r)" % agg.get("tput_per_gpu"))
    check(close(agg.get("output_tput_per_gpu"), out / G), "output_tput_per_gpu = output_throughput / 8")
    check(close(agg.get("input_tput_per_gpu"), (tot - out) / G), "input_tput_per_gpu = (total - output) / 8")
    check(close(raw["total_token_throughput"] * raw["duration"],
                raw["total_input_tokens"] + raw["total_output_tokens"]),
          "total_token_throughput x duration = input + output tokens")
else:
    P, D = 4, 8
    check(agg.get("is_multinode") is True and agg.get("disagg") is True
          and agg.get("prefill_tp") == 4 and agg.get("decode_tp") == 8 and agg.get("decode_ep") == 8
          and agg.get("prefill_dp_attention") == "false" and agg.get("decode_dp_attention") == "true"
          and agg.get("num_prefill_gpu") == P and agg.get("num_decode_gpu") == D
          and agg.get("prefill_num_workers") == 1 and agg.get("decode_num_workers") == 1,
          "multinode prefill/decode fields")
    check(close(agg.get("tput_per_gpu"), tot / (P + D)), "tput_per_gpu = total / (P + D)")
    check(close(agg.get("output_tput_per_gpu"), out / D), "output_tput_per_gpu = output / D")
    check(close(agg.get("input_tput_per_gpu"), (tot - out) / P), "input_tput_per_gpu = (total - output) / P")

lat = ["%s_%s" % (s, m) for m in ("ttft", "tpot", "itl", "e2el")
       for s in ("mean", "median", "std", "p90", "p99", "p99.9")]
check(all(close(agg.get(k), raw[k + "_ms"] / 1000) for k in lat),
      "24 latencies in seconds (mean_ttft %r s = %r ms)" % (agg.get("mean_ttft"), raw["mean_ttft_ms"]))
iv = [k.replace("tpot", "intvty") for k in lat if "tpot" in k]
check(all(close(agg.get(k), 1000 / raw[k.replace("intvty", "tpot") + "_ms"]) for k in iv),
      "6 interactivities = 1000 / TPOT ms (median_intvty %r)" % agg.get("median_intvty"))
# every raw key that feeds the agg row is one of ours on purpose: nothing else leaks
fed = [k for k in raw if k.endswith("ms") or "tpot" in k]
check(sorted(fed) == sorted(k + "_ms" for k in lat),
      "the only raw keys ending in 'ms' or holding 'tpot' are the 24 latencies (extra: %s)"
      % sorted(set(fed) - set(k + "_ms" for k in lat)))
meta = {"hw", "conc", "image", "model", "infmax_model_prefix", "framework", "precision",
        "spec_decoding", "disagg", "recipe_fingerprint", "isl", "osl", "is_multinode",
        "tput_per_gpu", "output_tput_per_gpu", "input_tput_per_gpu"}
if mode == "single-node":
    meta |= {"tp", "pp", "dcp_size", "pcp_size", "ep", "dp_attention"}
else:
    meta |= {r + "_" + f for r in ("prefill", "decode") for f in
             ("tp", "pp", "dcp_size", "pcp_size", "ep", "dp_attention", "num_workers")}
    meta |= {"num_prefill_gpu", "num_decode_gpu"}
power = {k for k in agg if "power" in k or k.startswith("joules") or k.endswith("energy_j")}
extra = set(agg) - meta - set(lat) - set(iv) - power
check(not extra and not (meta - set(agg)), "agg keys: extra %s, missing %s" % (sorted(extra), sorted(meta - set(agg))))

side = json.load(open(side_path))
bad = {"invalid_benchmark_result", "invalid_benchmark_window", "benchmark_duration_mismatch",
       "invalid_successful_query_count", "invalid_input_token_count", "invalid_output_token_count"}
reasons = side.get("reasons") or side.get("power_invalid_reasons") or []
check(not bad & set(map(str, reasons)), "power sidecar: our JSON meets the benchmark contract (reasons %s)" % reasons)
if mode == "single-node":
    window = raw["benchmark_end_time_unix"] - raw["benchmark_start_time_unix"]
    e = 300.0 * 8 * window
    check(agg.get("power_valid") == 1 and side.get("power_valid") is True,
          "power_valid = 1 with a telemetry CSV over our window (reasons %s)" % reasons)
    check(close(agg.get("avg_power_w"), 300.0) or abs(agg.get("avg_power_w", 0) - 300) < 1e-3,
          "avg_power_w = 300 (%r)" % agg.get("avg_power_w"))
    check(abs(agg.get("total_gpu_energy_j", 0) - e) <= 1e-3 + 1e-6 * e,
          "total_gpu_energy_j = 300 W x 8 x (end - start) = %.3f (%r)" % (e, agg.get("total_gpu_energy_j")))
    check(abs(agg.get("joules_per_output_token", 0) - e / raw["total_output_tokens"]) <= 1e-5 + 1e-6 * e,
          "joules_per_output_token = energy / total_output_tokens")
else:
    check(agg.get("power_valid") == 0, "no multinode power artifacts: power_valid = 0")
EOF
}

# run_ref NAME ENV...: process_result.py in the work dir; sets rc
run_ref() {
	local what=$1
	shift
	(cd "$work" && env "$@" "$py" "$ref/process_result.py") >"$tmp/$what.out" 2>"$tmp/$what.err"
	rc=$?
}

# -- 2. single node
run_ref single "${base_env[@]}" RESULT_FILENAME="$name" TP=4 PP_SIZE=2 DCP_SIZE=2 PCP_SIZE=1 \
	EP_SIZE=2 DP_ATTENTION=false GPU_METRICS_CSV="$tmp/gpu_metrics.csv"
[ "$rc" = 0 ] && ok "single-node: process_result.py exits 0" ||
	no "single-node: process_result.py exit $rc: $(tail -n 3 "$tmp/single.err")"
agg=$work/agg_$name.json
if [ -s "$agg" ] && "$py" -c 'import json,sys; json.load(open(sys.argv[1]))' "$agg" 2>/dev/null; then
	ok "single-node: agg_$name.json written"
	tally single-node < <(check_agg single-node "$work/$name.json" "$agg" "$work/power_validation_$name.json" 2>&1)
else
	no "single-node: no agg_$name.json"
fi
grep -q '"tput_per_gpu"' "$tmp/single.out" && ok "single-node: the agg row printed on stdout" ||
	no "single-node: stdout: $(head -c 200 "$tmp/single.out")"

# collect_results.py (collect-results.yml) gathers the uploaded agg rows
if [ -s "$ref/collect_results.py" ] && [ -s "$agg" ]; then
	mkdir -p "$tmp/results/bmk_$name"
	cp "$agg" "$tmp/results/bmk_$name/"
	(cd "$tmp" && "$py" "$ref/collect_results.py" results/ bmk) >"$tmp/collect.err" 2>&1
	"$py" -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
sys.exit(not (a == [b]))' "$tmp/agg_bmk.json" "$agg" 2>/dev/null &&
		ok "collect_results.py gathers the agg row unchanged" ||
		no "collect_results.py: $(tail -n 2 "$tmp/collect.err")"
fi

# -- 3. multinode disaggregated (benchmark-multinode-tmpl.yml): 4 prefill + 8 decode GPUs
mname=${name}_ctx_4_gen_8_gpus_12
cp "$work/$name.json" "$work/$mname.json"
run_ref multi "${base_env[@]}" DISAGG=true RESULT_FILENAME="$mname" IS_MULTINODE=true PREFILL_GPUS=4 \
	DECODE_GPUS=8 PREFILL_NUM_WORKERS=1 PREFILL_TP=4 PREFILL_EP=1 PREFILL_DP_ATTN=false \
	DECODE_NUM_WORKERS=1 DECODE_TP=8 DECODE_EP=8 DECODE_DP_ATTN=true POWER_ARTIFACT_DIR="$tmp/nopower" \
	POWER_RESULT_ROOT="$tmp/nologs"
[ "$rc" = 0 ] && ok "multinode: process_result.py exits 0" ||
	no "multinode: process_result.py exit $rc: $(tail -n 3 "$tmp/multi.err")"
magg=$work/agg_$mname.json
if [ -s "$magg" ]; then
	ok "multinode: agg_$mname.json written"
	tally multinode < <(check_agg multinode "$work/$mname.json" "$magg" "$work/power_validation_$mname.json" 2>&1)
else
	no "multinode: no agg_$mname.json"
fi
finish
