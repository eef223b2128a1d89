#!/usr/bin/env bash
# End-to-end test of disaggregated prefill/decode and multi-node rows on the
# simulator (docs/sim.md "Disaggregated prefill/decode"), on model time:
#  1. one endpoint in front of a prefill pool and a decode pool: TTFT follows
#     the prefill pool (its TP), the time per output token the decode pool's;
#     the KV transfer time grows with the input length (/metrics);
#  2. a disaggregated fixed-length row and a multi-node aggregated row (no
#     decode workers) run through `infbench run` and leave their agg rows
#     with the prefill/decode fields, at each concurrency of their lists;
#  3. the families' flags and profile fields are range-checked.
# Needs the llama3 tokenizer fixture. Usage: sim_disagg.sh INFBENCH.
# Ends with "sim_disagg: N passed, N failed".
. "$(dirname "$0")/lib.sh" sim_disagg "$1"
e2e_need_tok fail
e2e_tmp

http() { # http METHOD PATH [BODY]: the raw response
	local body=${3:-}
	exec 3<>"/dev/tcp/127.0.0.1/$port"
	printf '%s %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nX-Infbench-Model-Time: 1\r\nConnection: close\r\n\r\n%s' \
		"$1" "$2" "${#body}" "$body" >&3
	cat <&3
	exec 3<&-
}
metric() { http GET /metrics | sed -n "s/^$1{[^}]*} \([-0-9.e+]*\).*/\1/p" | head -n 1; }
# stamps BYTES: the model stamps of a streamed completion of a prompt of
# BYTES bytes, 8 tokens: "TTFT TPOT" (TPOT over tokens 2..8)
stamps() {
	local p
	p=$(yes "lorem ipsum dolor sit amet" | head -c "$1" | tr '\n' ' ')
	http POST /v1/completions "{\"model\":\"llama3-8b\",\"stream\":true,\"max_tokens\":8,\"prompt\":\"$p\"}" |
		grep -o '"infbench_t[0]*":[0-9.]*' | sed 's/.*://' | tee "$tmp/stamps.$1" | awk '
			NR == 1 { t0 = $1 } NR == 2 { t1 = $1 } { last = $1; n = NR }
			END { printf "%.9f %.9f", t1 - t0, (last - t1) / (n - 2) }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; }
within() { awk -v r="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(r >= lo && r <= hi) }'; }

# -- 1. the pools
declare -A ttft tpot
for shape in "p1:--prefill-tp 1 --tp 1" "p4:--prefill-tp 4 --tp 1" "d4:--prefill-tp 1 --tp 4"; do
	name=${shape%%:*}
	# shellcheck disable=SC2086
	e2e_start_sim --time-scale 10 --prefill-workers 1 ${shape#*:}
	[ -n "$port" ] || { no "$name: the simulator did not start: $(cat "$tmp/sim.err")"; continue; }
	read -r ttft[$name] tpot[$name] <<<"$(stamps 16000)"
	if [ "$name" = p1 ]; then # the transfer grows with the input length
		n1=$(metric infbench:kv_transfers_total)
		s1=$(metric infbench:kv_transfer_seconds_total)
		stamps 2000 >/dev/null
		s2=$(metric infbench:kv_transfer_seconds_total)
		[ "$n1" = 1 ] && [ "$(metric infbench:kv_transfers_total)" = 2 ] && ok || no "kv_transfers_total $n1"
		# 4,000 tokens moved the first time, 500 the second (plus one latency each)
		within "$(ratio "$s1" "$(awk -v a="$s2" -v b="$s1" 'BEGIN { print a - b }')")" 6 8.1 && ok ||
			no "KV transfer 4k tokens $s1 s vs 500 tokens (total $s2 s)"
	fi
done
echo "model time: prefill TP1 TTFT ${ttft[p1]} TPOT ${tpot[p1]}; prefill TP4 ${ttft[p4]} ${tpot[p4]}; decode TP4 ${ttft[d4]} ${tpot[d4]}"
# a 4x faster prefill pool: TTFT well down, TPOT the same
within "$(ratio "${ttft[p4]}" "${ttft[p1]}")" 0 0.5 && ok || no "prefill TP4 TTFT ${ttft[p4]} vs TP1 ${ttft[p1]}"
within "$(ratio "${tpot[p4]}" "${tpot[p1]}")" 0.97 1.03 && ok || no "prefill TP moved TPOT: ${tpot[p4]} vs ${tpot[p1]} ($(tr "\n" " " <"$tmp/stamps.16000"))"
# a 4x decode pool: TPOT down (by at least a fifth: the calibrated step overhead does not shrink
# with TP, and with mem-eff 1 the weights are a small part of a step; 0.72 on 2026-12-07), TTFT
# the same
within "$(ratio "${tpot[d4]}" "${tpot[p1]}")" 0 0.8 && ok || no "decode TP4 TPOT ${tpot[d4]} vs TP1 ${tpot[p1]}"
within "$(ratio "${ttft[d4]}" "${ttft[p1]}")" 0.97 1.03 && ok || no "decode TP moved TTFT: ${ttft[d4]} vs ${ttft[p1]}"

# -- 2. through infbench run: a disaggregated row, a multi-node aggregated row
pool() { printf '{"num-worker": %d, "tp": %d, "ep": 1, "dp-attn": false, "pp": 1, "dcp-size": 1, "pcp-size": 1}' "$@"; }
row() { # EXP PREFILL DECODE
	printf '{"image": "vllm/vllm-openai:v0.20.1", "model": "openai/gpt-oss-120b", "model-prefix": "gptoss",
 "precision": "fp8", "framework": "dynamo-vllm", "runner": "gb200", "isl": 512, "osl": 32, "spec-decoding": "none",
 "prefill": %s, "decode": %s, "conc": [4, 8], "max-model-len": 1024, "exp-name": "%s", "disagg": %s,
 "run-eval": false, "kv-p2p-transfer": "nixl"}' "$2" "$3" "$1" "$4"
}
{
	echo "["
	row gptoss_dis "$(pool 2 4)" "$(pool 1 8)" true
	echo ","
	row gptoss_mnagg "$(pool 2 8)" "$(pool 0 8)" true
	echo "]"
} >"$tmp/m.json"
(cd "$tmp" && "$bin" run m.json --results st --tokenizer "$tok" --time-scale 20 --prompts-per-conc 2 \
	--quiet 2>run.err)
rc=$?
[ "$rc" = 0 ] && ok || no "infbench run exited $rc: $(tail -3 "$tmp/run.err")"
agg=$tmp/st/agg_bmk.json
# each concurrency of a row's list runs (one agg row each)
n=$(grep -c '"is_multinode": true' "$agg" 2>/dev/null)
[ "$n" = 4 ] && ok || no "agg_bmk.json: $n multi-node rows, want 4 (2 rows x conc [4, 8])"
python3 - "$agg" <<'P' && ok || no "agg rows: $(cat "$agg" | head -c 600)"
import json, sys
rows = {r["infmax_model_prefix"] + str(r.get("num_decode_gpu")) + "c" + str(r["conc"]): r
        for r in json.load(open(sys.argv[1]))}
assert sorted(rows) == ["gptoss0c4", "gptoss0c8", "gptoss8c4", "gptoss8c8"], sorted(rows)
for c in (4, 8):
    d = rows["gptoss8c%d" % c]  # 2 prefill workers of TP 4, 1 decode worker of TP 8
    assert d["num_prefill_gpu"] == 8 and d["prefill_num_workers"] == 2 and d["prefill_tp"] == 4, d
    assert d["decode_tp"] == 8 and d["decode_num_workers"] == 1, d
    assert d["tput_per_gpu"] > 0 and d["median_ttft"] > 0 and d["median_tpot"] > 0, d
    m = rows["gptoss0c%d" % c]  # aggregated over 2 workers of TP 8, no decode pool
    assert m["num_prefill_gpu"] == 16 and m["num_decode_gpu"] == 0 and m["tput_per_gpu"] > 0, m
# more concurrent users: more throughput per GPU
assert rows["gptoss8c8"]["tput_per_gpu"] > rows["gptoss8c4"]["tput_per_gpu"]
P
# the dry run lists one row per concurrency, named after it
(cd "$tmp" && "$bin" run m.json --results st2 --dry-run >dry.out 2>dry.err)
[ "$(grep -c '_conc4_' "$tmp/dry.out")" = 2 ] && [ "$(grep -c '_conc8_' "$tmp/dry.out")" = 2 ] &&
	[ "$(wc -l <"$tmp/dry.out")" = 4 ] && ok || no "dry run: $(cat "$tmp/dry.out" "$tmp/dry.err")"

grep -rq -- '--prefill-workers' "$tmp/st/rows" && ok || no "the simulator's command line has no --prefill-workers"
# -- 3. the families' inputs are range-checked: flags (usage error, exit 2),
# profile fields (file:line and field, exit 1); nothing starts
for f in "--replicas 1025" "--prefill-workers 0" "--prefill-tp 2000 --prefill-workers 2" "--pp 65" \
	"--tp 1025" "--kv-offload-gb -1"; do
	# shellcheck disable=SC2086
	"$bin" sim --port 0 $f >/dev/null 2>"$tmp/e"
	rc=$?
	[ "$rc" = 2 ] && grep -q -- "${f%% *}" "$tmp/e" && ok || no "sim $f: exit $rc $(cat "$tmp/e")"
done
printf 'hardware:\n  name: x\n  net-gbps: 0\n' >"$tmp/p.yaml"
"$bin" sim --port 0 --profile "$tmp/p.yaml" >/dev/null 2>"$tmp/e"
rc=$?
[ "$rc" = 1 ] && grep -q "p.yaml:3:.*hardware.net-gbps.*greater than 0" "$tmp/e" && ok ||
	no "profile net-gbps 0: exit $rc $(cat "$tmp/e")"
e2e_end
