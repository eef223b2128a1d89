#!/usr/bin/env bash
# Served versus in process (issue 30, docs/sim.md "Served and in process"):
# the same rows run through `infbench run` on a served `infbench sim` and
# through `infbench sim validate` (the engine in process, as the calibration
# is fitted) give the same tok/s/GPU and interactivity within 2 %. Four rows
# of different families: vLLM on MI355X (whose calibration falls back to
# another framework's rules on that GPU), the same with MTP, SGLang with EP 8
# on B200, vLLM at TP 2 on H100. A served simulator that resolved its
# calibration rules differently from the lab would be 50 % off here.
# ISL/OSL 1024/256, 20 prompts per unit of concurrency, time scale 10.
# Usage: sim_consistency.sh INFBENCH (IB_RELEASE: the release build, used
# when set). Ends with "sim_consistency: N passed, N failed".
. "$(dirname "$0")/lib.sh" sim_consistency "$1"
e2e_need_tok skip
py=$(command -v /usr/bin/python3 || command -v python3) || e2e_skip "no python3 for the checks"
e2e_tmp
cd "$tmp" || exit 1

# the published figures (100) are placeholders: only the simulated ones count
head -n 1 "$root/tests/data/sim/points.tsv" >points.tsv
point() { # id model gpu precision framework-note tp ep spec-note conc
	printf '%s\tc\t%s\tx\t%s\t%s\t%s, single-node aggregated, TP=%s EP=%s, %s; MEASURED point\t1024\t256\t100\t100\t\tTPOT_ms;concurrency\t10;%s\thttp://x\tq\tblog-measured\t\t\t\t\t\t\t\n' "$@" >>points.tsv
}
row() { # image model prefix precision framework runner tp conc ep spec
	printf '{"image": "%s", "model": "%s", "model-prefix": "%s", "precision": "%s", "framework": "%s", "runner": "%s", "isl": 1024, "osl": 256, "tp": %s, "pp": 1, "dcp-size": 1, "pcp-size": 1, "conc": %s, "max-model-len": 1536, "ep": %s, "dp-attn": false, "spec-decoding": "%s", "exp-name": "%s_1k256", "disagg": false, "run-eval": false}' \
		"$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" "$3"
}
point 1 "MiniMax M3" MI355X FP4 "vLLM (vllm/vllm-openai-rocm:nightly)" 8 1 non-MTP 32
point 2 "MiniMax M3" MI355X FP4 "vLLM (vllm/vllm-openai-rocm:nightly)" 8 1 MTP 16
point 3 "DeepSeek R1" B200 FP8 "SGLang (lmsysorg/sglang:v0.5.5)" 8 8 non-MTP 64
point 4 "GPT-OSS 120B" H100 FP4 "vLLM (vllm/vllm-openai:v0.11.0)" 2 1 non-MTP 16
{
	echo "["
	row vllm/vllm-openai-rocm:nightly amd/MiniMax-M3-MXFP4 minimaxm3 fp4 vllm mi355x 8 32 1 none
	echo ","
	row vllm/vllm-openai-rocm:nightly amd/MiniMax-M3-MXFP4 minimaxm3 fp4 vllm mi355x 8 16 1 mtp
	echo ","
	row lmsysorg/sglang:v0.5.5 deepseek-ai/DeepSeek-R1-0528 dsr1 fp8 sglang b200 8 64 8 none
	echo ","
	row vllm/vllm-openai:v0.11.0 openai/gpt-oss-120b gptoss fp4 vllm h100 2 16 1 none
	echo "]"
} >rows.json

# the release build where there is one: a served run's figures are in model
# time, and a client slowed by the sanitizers (or a loaded machine) stretches
# model time by the time scale; the lab runs in process either way
if [ -n "${IB_RELEASE:-}" ]; then
	case $IB_RELEASE in /*) bin=$IB_RELEASE ;; *) bin=$root/$IB_RELEASE ;; esac
fi
"$bin" sim validate --points points.tsv --kinds measured --prompts-per-conc 20 >lab.txt 2>lab.err
rc=$?
[ "$rc" = 0 ] && ok || no "sim validate: exit $rc: $(tail -n 3 lab.err)"
"$bin" run rows.json --results store --tokenizer "$tok" --time-scale 10 --prompts-per-conc 20 \
	--jobs 2 --quiet >run.out 2>run.err
rc=$?
[ "$rc" = 0 ] && ok || no "run: exit $rc: $(tail -n 3 run.err)"
grep -q "by the rules of sglang on mi355x" store/rows/*/server.log && ok ||
	no "the MI355X vLLM server does not say which rules it took: $(head -n 1 store/rows/*/server.log)"

# one line per row: label, lab tok/s/GPU and interactivity, served ones, verdict
"$py" - lab.txt store/agg_bmk.json >cmp.txt <<'PY'
import json, sys
lab = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 14 and f[1] == "measured":
        # model gpu prec fw tp ep conc -> sim_tps, sim_int
        lab[(f[2], f[3], f[5], int(f[8]))] = (float(f[11]), float(f[14]))
keys = {"minimaxm3": "minimax-m3", "dsr1": "deepseek-r1", "gptoss": "gpt-oss-120b"}
rows = json.load(open(sys.argv[2]))
print(len(rows), "rows")
for r in rows:
    k = (keys[r["infmax_model_prefix"]], r["hw"].split("-")[0], r["framework"], int(r["conc"]))
    tps, itv = r["tput_per_gpu"], r["median_intvty"]
    if k not in lab:
        print("MISSING", k)
        continue
    lt, li = lab[k]
    et, ei = abs(tps - lt) / lt * 100, abs(itv - li) / li * 100
    ok = et <= 2 and ei <= 2
    print("OK" if ok else "FAR", k, "lab %.1f %.2f served %.1f %.2f (%.2f%%, %.2f%%)" % (lt, li, tps, itv, et, ei))
PY
sed 's/^/  /' cmp.txt
grep -q '^4 rows$' cmp.txt && ok || no "served rows: $(head -n 1 cmp.txt) ($(tail -n 3 run.err))"
n=$(grep -c '^OK' cmp.txt)
[ "$n" = 4 ] && ok || no "served and in-process figures differ by more than 2 %: $(grep -v '^OK' cmp.txt | tr '\n' ';')"
e2e_end
