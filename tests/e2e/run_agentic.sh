#!/usr/bin/env bash
# End-to-end: agentic-coding rows through `infbench run --engine sim` from a
# small master config: one single-node row, one multi-node aggregated row
# and one disaggregated row, each replayed by the AgentX client (in process)
# for a few model seconds against its simulator, processed by the agentic
# drop-in and passed through the validity gate. Checks: each row leaves its
# agg file (with the agentic fields), aiperf_artifacts/ and env (RESULT_DIR=.
# and no "(null)": the processing re-runs on the folder and gives the same
# row); the corpus is the reference's for the model (the -256k cut for
# gptoss) from the Hugging Face cache; a second run reuses every row; the
# dry run plans them; a gate that fails (the simulator failing half the
# requests) fails the row with its reason; a broken --agentx-corpus names
# its file and line, exits 1 and writes nothing; without any corpus the
# stand-in is announced and made once into the store.
# Usage: tests/e2e/run_agentic.sh INFBENCH. Ends with "run-agentic: N passed, N failed".
. "$(dirname "$0")/lib.sh" run-agentic "$1"
e2e_tmp
e2e_need_tok skip
py=$(command -v /usr/bin/python3 || command -v python3) || e2e_skip "no python3 for the checks"
cd "$tmp" || exit 1

# a small corpus, as the reference's dataset for gptoss in the HF cache
snap=$tmp/hub/datasets--semianalysisai--cc-traces-weka-062126-256k/snapshots/r1
mkdir -p "$snap"
"$bin" agentx make-traces --traces 6 --turns 3:5 --first-in 1024:2048 --context 2048:4096 \
	--out 8:48 --think 0.5:3 --subagent-rate 0.4 --subagent-turns 2:3 --system-tokens 256 \
	--tool-tokens 256 --long-tail 0 --background-rate 0.3 -o "$snap/traces.jsonl" || no "make-traces"
export HF_HUB_CACHE=$tmp/hub

cat >m.yaml <<'Y'
gptoss-fp4-b200-sglang-agentic:
  image: lmsysorg/sglang:v0.5.12
  model: openai/gpt-oss-120b
  model-prefix: gptoss
  runner: cluster:b200-dgxc
  precision: fp4
  framework: sglang
  multinode: false
  scenarios:
    agentic-coding:
    - search-space:
      - { tp: 2, kv-offloading: none, conc-list: [2] }
gptoss-fp4-gb200-dynamo-vllm-agentic-agg:
  image: vllm/vllm-openai:v0.20.1
  model: openai/gpt-oss-120b
  model-prefix: gptoss
  runner: cluster:gb200-nv
  precision: fp4
  framework: dynamo-vllm
  router: { name: dynamo-router, version: "1.3.1" }
  multinode: true
  disagg: false
  scenarios:
    agentic-coding:
    - search-space:
      - conc-list: [2]
        prefill: { num-worker: 2, tp: 4, ep: 1, dp-attn: false }
        decode: { num-worker: 0, tp: 4, ep: 1, dp-attn: false }
gptoss-fp4-gb200-dynamo-vllm-agentic-disagg:
  image: vllm/vllm-openai:v0.20.1
  model: openai/gpt-oss-120b
  model-prefix: gptoss
  runner: cluster:gb200-nv
  precision: fp4
  framework: dynamo-vllm
  kv-p2p-transfer: nixl
  multinode: true
  disagg: true
  scenarios:
    agentic-coding:
    - search-space:
      - conc-list: [2]
        prefill: { num-worker: 1, tp: 4, ep: 1, dp-attn: false }
        decode: { num-worker: 1, tp: 4, ep: 1, dp-attn: false }
Y
keys='gptoss-*'
run() { # STORE ARGS... (the config keys in $keys)
	local st=$1
	shift
	"$bin" run --config-files m.yaml --config-keys "$keys" --runner-config "$root/configs/runners.yaml" \
		--results "$st" --tokenizer "$tok" --time-scale 20 --agentic-duration 12 --quiet "$@"
}

# 1. the dry run plans the three rows (none skipped)
run st --dry-run >dry.out 2>dry.err
rc=$?
[ "$rc" = 0 ] && [ "$(wc -l <dry.out)" = 3 ] && ! grep -q skipped dry.err && ok ||
	no "dry run (exit $rc): $(cat dry.out dry.err)"

# 2. the three rows run
run st 2>run.err
rc=$?
[ "$rc" = 0 ] && ok || no "infbench run exited $rc: $(tail -5 run.err)"
n=0
for d in st/rows/*/; do
	[ -d "$d" ] || continue
	n=$((n + 1))
	name=$(sed -n 's/^RESULT_FILENAME=//p' "$d/env")
	[ -s "$d/agg_$name.json" ] && [ -s "$d/aiperf_artifacts/profile_export.jsonl" ] &&
		[ -s "$d/aiperf_artifacts/profile_export_aiperf.json" ] && ok ||
		no "$d: agg_$name.json or aiperf_artifacts/ missing: $(ls "$d")"
	grep -qx 'RESULT_DIR=\.' "$d/env" && grep -qx 'AGENTIC_OUTPUT_DIR=\.' "$d/env" &&
		grep -qx 'DURATION=12' "$d/env" && grep -qx 'KV_OFFLOADING=none' "$d/env" &&
		grep -q "^RUNNER_NAME=.*_0$" "$d/env" && ! grep -q '(null)' "$d/env" && ok ||
		no "$d/env: $(cat "$d/env")"
	grep -q 'agentx replay --corpus .*/snapshots/r1 ' "$d/commands.txt" && ok ||
		no "$d/commands.txt: $(cat "$d/commands.txt")"
	# the reference's processing re-runs on (a copy of) the folder from its env file
	rm -rf again && cp -r "$d" again
	# shellcheck disable=SC2046
	(cd again && env $(cat env) "$bin" agentic process >/dev/null 2>&1) && ok || no "re-processing $d"
	"$py" - "$d" "$name" again <<'P' && ok || no "$d: the agg row"
import json, sys, os
d, name = sys.argv[1], sys.argv[2]
agg = json.load(open(os.path.join(d, "agg_%s.json" % name)))
again = json.load(open(os.path.join(sys.argv[3], "%s.json" % name)))
assert agg["scenario_type"] == "agentic-coding", agg
assert agg["dataset"]["hf_dataset_name"] == "semianalysisai/cc-traces-weka-062126-256k", agg["dataset"]
assert agg["conc"] == 2 and agg["infmax_model_prefix"] == "gptoss", agg
rm = agg["request_metrics"]
assert rm["latency"]["ttft"]["mean"] > 0 and rm["throughput"]["per_gpu"]["total_tput_tps"] > 0, rm
assert agg["request_accounting"]["records_profiled"] > 0, agg["request_accounting"]
# the power adapter's fields aside, re-processing gives the same row
extra = set(agg) - set(again)
assert all("power" in k or "joules" in k or "energy" in k for k in extra), extra
assert [k for k in again if agg.get(k) != again[k]] == [], [k for k in again if agg.get(k) != again[k]]
if agg["is_multinode"] and agg["disagg"]:  # 1 prefill and 1 decode worker of TP 4
    assert agg["num_prefill_gpu"] == 4 and agg["num_decode_gpu"] == 4, agg
    assert agg["kv_p2p_transfer"] == "nixl", agg
elif agg["is_multinode"]:  # aggregated over 2 workers of TP 4
    assert agg["num_prefill_gpu"] == 8 and agg["num_decode_gpu"] == 0, agg
    assert agg["router"]["name"] == "dynamo-router", agg
else:
    assert agg["tp"] == 2, agg
P
done
[ "$n" = 3 ] && ok || no "$n row folders, want 3"
"$py" - st/agg_bmk.json <<'P' && ok || no "agg_bmk.json: $(head -c 400 st/agg_bmk.json)"
import json, sys
rows = json.load(open(sys.argv[1]))
kinds = sorted((r["is_multinode"], r["disagg"]) for r in rows)
assert kinds == [(False, False), (True, False), (True, True)], kinds
P

# 3. a second run reuses every row and touches none
touch marker
run st 2>re.err
rc=$?
[ "$rc" = 0 ] && [ "$(grep -c '"reused": true' st/manifest.jsonl)" = 3 ] &&
	[ -z "$(find st/rows -newer marker)" ] && ok ||
	no "resume (exit $rc): $(tail -3 re.err) $(find st/rows -newer marker)"

# 4. the validity gate: a simulator failing half the requests fails the row
#    (its replay stopped early by the live failed-request threshold)
keys=gptoss-fp4-b200-sglang-agentic
run st2 --sim-args '--fail-rate 0.5' 2>gate.err
rc=$?
[ "$rc" = 1 ] && grep -q 'validate_agentic_result: ERROR' gate.err && [ -z "$(ls st2/rows 2>/dev/null)" ] &&
	ok || no "gate (exit $rc): $(cat gate.err)"
# the live threshold (AIPERF_FAILED_REQUEST_THRESHOLD 0.10) stopped the replay first
grep -q 'profiling requests failed, over the --failed-request-threshold 0.1: stopping' st2/failed/*/benchmark.log &&
	ok || no "live threshold: $(tail -3 st2/failed/*/benchmark.log)"

# 5. a broken --agentx-corpus: file and line, exit 1, nothing written
head -2 "$snap/traces.jsonl" >bad.jsonl
echo '{"id": "broken", "requests": [' >>bad.jsonl
run st3 --agentx-corpus bad.jsonl 2>bad.err
rc=$?
[ "$rc" = 1 ] && grep -q 'bad.jsonl:3' bad.err && [ ! -e st3 ] && ok ||
	no "broken corpus (exit $rc, st3 $(ls st3 2>&1)): $(cat bad.err)"

# 6. no corpus anywhere: the stand-in, announced (a dry run makes nothing)
HF_HUB_CACHE=$tmp/empty run st4 --dry-run >/dev/null 2>si.err
grep -q 'stand-in AgentX corpus' si.err && [ "$(grep -c 'stand-in' si.err)" = 1 ] && [ ! -e st4/agentx-corpus.jsonl ] && ok ||
	no "stand-in notice: $(cat si.err)"
# 7. the recipe engine: an agentic recipe (the simulator as its SGLang
#    server) with infbench's benchmark_lib.sh replays through the aiperf
#    shim (`aiperf profile ...` = infbench aiperf), processes, gates and
#    leaves the agg row; the corpus comes from the loader's dataset in the
#    HF cache (--public-dataset), the replay's server metrics are SGLang's
agentic_tree() { # DIR LIB
	mkdir -p "$1/single_node/agentic"
	cp "$2" "$1/benchmark_lib.sh"
	cp "$root/tests/fixtures/run/sim_agentic_recipe.sh" "$1/single_node/agentic/gptoss_fp4_b200_sglang.sh"
}
recipe_check() { # STORE LABEL
	local d name
	d=$(ls -d "$1"/rows/*/ 2>/dev/null | head -n 1)
	[ -n "$d" ] || { no "$2: no row folder: $(ls -R "$1" | head)"; return; }
	name=$(sed -n 's/^RESULT_FILENAME=//p' "$d/env")
	[ -s "$d/agg_$name.json" ] && [ -s "$d/results/aiperf_artifacts/profile_export.jsonl" ] &&
		[ -s "$d/results/aiperf_artifacts/profile_export_aiperf.json" ] && ok ||
		no "$2: agg row or artifacts missing: $(ls "$d" "$d/results" 2>&1)"
	grep -q 'aiperf profile --scenario inferencex-agentx-mvp --url http://localhost:' \
		"$d/results/benchmark_command.txt" && ok || no "$2: benchmark_command.txt: $(cat "$d/results/benchmark_command.txt")"
	grep -q 'warmup drained after' "$d/results/benchmark.log" && ok ||
		no "$2: the replay's log: $(tail -5 "$d/results/benchmark.log")"
	[ ! -e "$d/.aiperf" ] && grep -qx 'RESULT_DIR=results' "$d/env" && grep -qx 'AGENTIC_OUTPUT_DIR=\.' "$d/env" &&
		ok || no "$2: env / .aiperf left: $(grep -E 'RESULT_DIR|OUTPUT_DIR' "$d/env")"
	# the processing re-runs in (a copy of) the published folder from its env
	rm -rf again && cp -r "$d" again && rm -f "again/$name.json"
	# shellcheck disable=SC2046
	(cd again && env $(grep -v '^PATH=' env) "$bin" agentic process >/dev/null 2>&1) && ok ||
		no "$2: re-processing from env"
	"$py" - "$d" "$name" again <<'P' && ok || no "$2: the agg row"
import json, sys, os
d, name = sys.argv[1], sys.argv[2]
agg = json.load(open(os.path.join(d, "agg_%s.json" % name)))
again = json.load(open(os.path.join(sys.argv[3], "%s.json" % name)))
extra = set(agg) - set(again)
assert all("power" in k or "joules" in k or "energy" in k for k in extra), extra
assert [k for k in again if agg.get(k) != again[k]] == [], [k for k in again if agg.get(k) != again[k]]
assert agg["scenario_type"] == "agentic-coding" and agg["conc"] == 2 and agg["tp"] == 2, agg
assert agg["dataset"]["hf_dataset_name"] == "semianalysisai/cc-traces-weka-062126-256k", agg["dataset"]
rm = agg["request_metrics"]
assert rm["latency"]["ttft"]["mean"] > 0 and rm["throughput"]["per_gpu"]["total_tput_tps"] > 0, rm
assert agg["request_accounting"]["records_profiled"] > 0, agg["request_accounting"]
# the SGLang server's metrics, exported by the replay and read by the SGLang adapter
sm = json.load(open(os.path.join(d, "results/aiperf_artifacts/server_metrics_export.json")))["metrics"]
assert sm["sglang:prompt_tokens"]["type"] == "counter" and sm["sglang:token_usage"]["type"] == "gauge", list(sm)
srv = agg["server_metrics"]
assert srv["cache"]["cached_tokens_by_source"]["device"] > 0, srv["cache"]
assert srv["kv_cache"]["gpu_total_tokens"] > 0, srv["kv_cache"]
P
	grep -q "server metrics with prefix 'sglang:' present\|Validated required AIPerf server metrics prefix 'sglang:'" \
		"$d/recipe.log" && ok || no "$2: the required server metrics prefix was not checked"
}
agentic_tree rt "$root/recipes/benchmark_lib.sh"
keys=gptoss-fp4-b200-sglang-agentic
run st5 --engine recipe --recipes rt 2>rec.err
rc=$?
[ "$rc" = 0 ] && ok || no "recipe engine (exit $rc): $(tail -5 rec.err; tail -20 st5/failed/*/recipe.log 2>/dev/null)"
recipe_check st5 "infbench's lib"
"$py" - st5/agg_bmk.json <<'P' && ok || no "recipe engine: agg_bmk.json"
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 1 and rows[0]["scenario_type"] == "agentic-coding", rows
P

# 7b. the aiperf shim's flags: an unknown flag is named, a short duration
#     needs --unsafe-override, an unknown loader lists the allowed ones
"$bin" aiperf profile --scenario inferencex-agentx-mvp --url http://127.0.0.1:9 --model m \
	--output-artifact-dir x --benchmark-duration 900 --bogus-flag 1 >flag.out 2>&1
[ $? = 2 ] && grep -q 'unrecognized arguments: --bogus-flag' flag.out && ok || no "unknown flag: $(cat flag.out)"
"$bin" aiperf profile --scenario inferencex-agentx-mvp --url http://127.0.0.1:9 --model m \
	--output-artifact-dir x --benchmark-duration 60 --public-dataset semianalysis_cc_traces_weka_062126 >flag.out 2>&1
[ $? = 2 ] && grep -q 'needs --benchmark-duration >= 900' flag.out && [ ! -e x ] && ok || no "short duration: $(cat flag.out)"
"$bin" aiperf profile --scenario inferencex-agentx-mvp --url http://127.0.0.1:9 --model m \
	--output-artifact-dir x --benchmark-duration 900 --public-dataset nope >flag.out 2>&1
[ $? = 1 ] && grep -q "unknown WEKA_LOADER_OVERRIDE='nope'" flag.out && [ ! -e x ] && ok || no "bad loader: $(cat flag.out)"

# 7c. with IX_REF: the reference's own benchmark_lib.sh (build_replay_cmd,
#     install_agentic_deps through the uv shim, run_agentic_replay_and_write_outputs
#     through the python3 shim) drives the same recipe
ixlib=
if [ -n "${IX_REF:-}" ]; then
	if [ -f "$IX_REF/benchmarks/benchmark_lib.sh" ]; then
		ixlib=$IX_REF/benchmarks/benchmark_lib.sh
	elif git --git-dir="$IX_REF" show HEAD:benchmarks/benchmark_lib.sh >ixlib.sh 2>/dev/null ||
		git -C "$IX_REF" show HEAD:benchmarks/benchmark_lib.sh >ixlib.sh 2>/dev/null; then
		ixlib=$tmp/ixlib.sh
	fi
fi
if [ -n "$ixlib" ]; then
	agentic_tree ix "$ixlib"
	run st6 --engine recipe --recipes ix 2>ix.err
	rc=$?
	[ "$rc" = 0 ] && ok || no "reference lib (exit $rc): $(tail -5 ix.err; tail -30 st6/failed/*/recipe.log 2>/dev/null)"
	recipe_check st6 "the reference's lib"
	grep -q 'skipped: uv pip install' st6/rows/*/recipe.log && ok || no "reference lib: the uv shim was not used"
else
	echo "run-agentic: the reference's benchmark_lib.sh case skipped (IX_REF not set)"
fi
# 8. the progress line of a running agentic row: on a terminal (script(1)'s
#    pty) the replay's profiling seconds and requests; none when stderr is
#    a file. 60 model seconds at scale 20 are 3 s of wall time: the line,
#    refreshed every second, shows at least twice
# the run goes in a script file: script(1) runs its command with $SHELL,
# which is sh for root (CI), and sh drops bash's exported functions
cat >prog.sh <<EOF
exec "$bin" run --config-files m.yaml --config-keys gptoss-fp4-b200-sglang-agentic \\
	--runner-config "$root/configs/runners.yaml" --results "\$1" --tokenizer "$tok" \\
	--time-scale 20 --agentic-duration 60
EOF
if command -v script >/dev/null 2>&1; then
	script -qec "bash prog.sh st7" /dev/null >tty.out 2>&1
	tr '\r' '\n' <tty.out | grep -qE 'gptoss_tp2_conc2.*: [0-9]+ of 60 s \([0-9]+%\), [0-9]+ requests, 0 failed' &&
		ok || no "no agentic progress line on a terminal: $(tr '\r' '\n' <tty.out | tail -5)"
else
	echo "run-agentic: skipped: the terminal progress line (no script(1))"
fi
bash prog.sh st8 2>notty.err
! grep -q ' of 60 s (' notty.err && grep -q '\[1/1\] done' notty.err && ok ||
	no "progress lines without a terminal: $(head -c 600 notty.err)"
e2e_end
