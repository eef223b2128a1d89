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
keys=gptoss-fp4-b200-sglang-agentic
run st2 --sim-args '--fail-rate 0.5' 2>gate.err
rc=$?
[ "$rc" = 1 ] && grep -q 'validate_agentic_result: ERROR' gate.err && [ -z "$(ls st2/rows 2>/dev/null)" ] &&
	ok || no "gate (exit $rc): $(cat gate.err)"

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
e2e_end
