#!/usr/bin/env bash
# End-to-end test of the simulator's roles and the frontend (docs/sim.md
# "Roles and the frontend"), the processes a multi-node row runs as srun
# steps, here on this host without Slurm:
#  1. a prefill role, a decode role and `sim frontend` in front of them give
#     one request the TTFT and the time per output token of the same
#     deployment in one process (model time, within 3 %), with the stamps
#     on the frontend's clock (arrival first, in order);
#  2. `infbench bench` against that frontend: every request done, on the
#     server's model clock, marked simulated;
#     its /metrics merges both roles' (each series labelled with its role,
#     one HELP/TYPE per family, counters and histograms equal to the roles');
#  3. an aggregated row's two whole workers behind a frontend: both serve,
#     and the frontend's /metrics sums them;
#  4. a role that is gone answers 502; bad flags exit 2;
#  5. X-Dynamo-Session-ID: each session's requests stick to one worker.
# Needs the llama3 tokenizer fixture. Usage: sim_roles.sh INFBENCH.
# Ends with "sim_roles: N passed, N failed".
. "$(dirname "$0")/lib.sh" sim_roles "$1"
e2e_need_tok fail
e2e_tmp
pids=()
stop_all() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	pids=()
}
trap 'stop_all; e2e_cleanup' EXIT
# start NAME ARGS...: `infbench ARGS --port 0 --port-file`, its port in ${ports[NAME]}
declare -A ports
start() {
	local name=$1
	shift
	rm -f "$tmp/$name.port"
	"$bin" "$@" --port 0 --port-file "$tmp/$name.port" --duration 300 2>"$tmp/$name.err" &
	pids+=($!)
	for _ in $(seq 1 400); do [ -s "$tmp/$name.port" ] && break; sleep 0.05; done
	ports[$name]=$(cat "$tmp/$name.port" 2>/dev/null)
	[ -n "${ports[$name]}" ] || no "$name did not start: $(cat "$tmp/$name.err")"
}
http() { # http PORT METHOD PATH [BODY]: the raw response
	local body=${4:-}
	exec 3<>"/dev/tcp/127.0.0.1/$1"
	printf '%s %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nX-Infbench-Model-Time: 1\r\nConnection: close\r\n\r\n%s' \
		"$2" "$3" "${#body}" "$body" >&3
	cat <&3
	exec 3<&-
}
# stamps PORT: the model stamps of a streamed completion (a 4,000-token
# prompt, 8 tokens) into $tmp/stamps.PORT; prints "TTFT TPOT"
stamps() {
	local p
	p=$(yes "lorem ipsum dolor sit amet" | head -c 16000 | tr '\n' ' ')
	http "$1" POST /v1/completions "{\"model\":\"llama3-8b\",\"stream\":true,\"max_tokens\":8,\"prompt\":\"$p\"}" |
		grep -o '"infbench_t[0]*":[0-9.]*' | sed 's/.*://' | tee "$tmp/stamps.$1" | awk '
			NR == 1 { t0 = $1 } NR == 2 { t1 = $1 } { last = $1; n = NR }
			END { printf "%.9f %.9f", t1 - t0, (last - t1) / (n - 2) }'
}
# msum PORT NAME [LABEL]: the sum of metric NAME's samples (whose labels hold LABEL)
msum() {
	http "$1" GET /metrics | awk -v n="$2" -v l="${3:-}" '
		index($0, n "{") == 1 && index($0, l) { s += $NF } END { printf "%.6g", s + 0 }'
}
within() { awk -v a="$1" -v b="$2" -v tol="$3" 'BEGIN { r = a / b; exit !(b > 0 && r >= 1 - tol && r <= 1 + tol) }'; }
shape=(--served-model-name llama3-8b --time-scale 10 --prefill-workers 1 --prefill-tp 4 --tp 1)

# -- 1. one request: the roles as the deployment in one process
start whole sim "${shape[@]}"
read -r ttft1 tpot1 <<<"$(stamps "${ports[whole]}")"
stop_all
start prefill sim "${shape[@]}" --role prefill
start decode sim "${shape[@]}" --role decode
start fe sim frontend --prefill "127.0.0.1:${ports[prefill]}" --workers "127.0.0.1:${ports[decode]}" --time-scale 10
fe=${ports[fe]}
read -r ttft2 tpot2 <<<"$(stamps "$fe")"
echo "model time: one process TTFT $ttft1 TPOT $tpot1; roles behind the frontend TTFT $ttft2 TPOT $tpot2"
within "$ttft2" "$ttft1" 0.03 && ok || no "TTFT through the roles $ttft2 vs $ttft1 in one process"
within "$tpot2" "$tpot1" 0.03 && ok || no "TPOT through the roles $tpot2 vs $tpot1 in one process"
[ "$(wc -l <"$tmp/stamps.$fe")" = 9 ] && ok || no "not t0 + 8 token stamps: $(tr '\n' ' ' <"$tmp/stamps.$fe")"
awk 'NR > 1 && $1 < p { bad = 1 } { p = $1 } END { exit bad }' "$tmp/stamps.$fe" && ok || no "stamps go back in time: $(tr '\n' ' ' <"$tmp/stamps.$fe")"
# the frontend announces the simulator and its scale, and passes /v1/models on
h=$(http "$fe" GET /v1/models)
grep -q 'X-Infbench-Engine: infbench-sim' <<<"$h" && grep -q 'X-Infbench-Time-Scale: 10' <<<"$h" && ok || no "frontend headers: $(head -n 6 <<<"$h")"
grep -q '"time_scale": *10' <<<"$h" && ok || no "/v1/models through the frontend: $(tail -n 1 <<<"$h")"
# a whole (non-streamed) answer is restamped too
w=$(http "$fe" POST /v1/completions '{"model":"llama3-8b","prompt":"hi","max_tokens":4}' | tail -n 1)
grep -q '"infbench_t0":[0-9.]*,"infbench_t":[0-9.]*}$' <<<"$w" && ok || no "whole answer: $w"

# -- 2. a benchmark through the frontend
"$bin" bench --model llama3-8b --tokenizer "$tok" --port "$fe" --dataset-name random \
	--random-input-len 256 --random-output-len 32 --random-range-ratio 1 --num-prompts 16 \
	--max-concurrency 4 --ignore-eos --keep-alive --save-result --result-dir "$tmp" \
	--result-filename roles.json >"$tmp/bench.out" 2>"$tmp/bench.err" && ok || no "bench through the frontend: $(tail -n 3 "$tmp/bench.err")"
python3 - "$tmp/roles.json" <<'PY' && ok || no "bench result through the frontend"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["completed"] == 16 and r.get("failed", 0) == 0, (r["completed"], r.get("failed"))
assert r["clock"] == "server-model", r["clock"]
assert r.get("simulated") is True, r.get("simulated")
assert 0 < r["mean_ttft_ms"] and 0 < r["mean_tpot_ms"] < 1000 and r["duration"] > 0, r
PY
# the frontend's /metrics: both roles' series, labelled, summed per role
m=$(http "$fe" GET /metrics)
[ "$(grep -c '^# TYPE vllm:request_success_total counter' <<<"$m")" = 1 ] && [ "$(grep -c '^# TYPE vllm:e2e_request_latency_seconds histogram' <<<"$m")" = 1 ] && ok || no "not one TYPE per family: $(grep '^# TYPE vllm:request_success' <<<"$m")"
for role in prefill decode; do
	for name in vllm:request_success_total vllm:e2e_request_latency_seconds_count vllm:generation_tokens_total; do
		own=$(msum "${ports[$role]}" "$name")
		got=$(msum "$fe" "$name" "infbench_role=\"$role\"")
		[ "$own" = "$got" ] && awk -v n="$own" 'BEGIN { exit !(n > 0) }' && ok || no "$name of the $role role through the frontend: $got, its own $own"
	done
done
# and its own: every completion through it, none in flight
n=$(grep '^dynamo_frontend_requests_total ' <<<"$m" | cut -d' ' -f2)
[ "$n" = "$(msum "${ports[decode]}" vllm:request_success_total)" ] && grep -qx 'dynamo_frontend_active_requests 0' <<<"$m" && ok || no "the frontend's counters: $(grep '^dynamo_frontend' <<<"$m")"
stop_all

# -- 3. an aggregated row: two whole workers behind one frontend
start w0 sim --served-model-name llama3-8b --time-scale 10
start w1 sim --served-model-name llama3-8b --time-scale 10
start fe2 sim frontend --workers "127.0.0.1:${ports[w0]}" "127.0.0.1:${ports[w1]}" --time-scale 10
"$bin" bench --model llama3-8b --tokenizer "$tok" --port "${ports[fe2]}" --dataset-name random \
	--random-input-len 128 --random-output-len 16 --random-range-ratio 1 --num-prompts 16 \
	--max-concurrency 4 --ignore-eos --save-result --result-dir "$tmp" \
	--result-filename agg.json >"$tmp/agg.out" 2>"$tmp/agg.err" && ok || no "bench through the aggregated frontend: $(tail -n 3 "$tmp/agg.err")"
for w in w0 w1; do
	n=$(http "${ports[$w]}" GET /metrics | sed -n 's/^vllm:request_success_total{[^}]*} \([0-9.e+]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
	awk -v n="$n" 'BEGIN { exit !(n > 0) }' && ok || no "$w served no request"
done
for name in vllm:request_success_total vllm:e2e_request_latency_seconds_count vllm:prompt_tokens_total; do
	own=$(awk -v a="$(msum "${ports[w0]}" "$name")" -v b="$(msum "${ports[w1]}" "$name")" 'BEGIN { printf "%.6g", a + b }')
	got=$(msum "${ports[fe2]}" "$name" 'infbench_role="worker"')
	[ "$own" = "$got" ] && ok || no "$name through the aggregated frontend: $got, the workers' $own"
done

# -- 4. failures
kill "${pids[0]}" 2>/dev/null && wait "${pids[0]}" 2>/dev/null # w0 gone
for _ in 1 2; do # one of the two requests goes to the dead worker
	http "${ports[fe2]}" POST /v1/completions '{"model":"llama3-8b","prompt":"hi","max_tokens":2}' >>"$tmp/gone"
done
grep -q '^HTTP/1.1 502' "$tmp/gone" && grep -q '"BadGatewayError"' "$tmp/gone" && ok || no "no 502 from a gone worker: $(head -c 300 "$tmp/gone")"
stop_all

# -- 5. session affinity: requests with X-Dynamo-Session-ID go to the worker
#    their id names, every turn of a session to the same one (the header
#    passed on), the sessions spread over both workers; requests without
#    it still served
start s0 sim --served-model-name llama3-8b --time-scale 10 --log-requests "$tmp/s0.jsonl"
start s1 sim --served-model-name llama3-8b --time-scale 10 --log-requests "$tmp/s1.jsonl"
start fe3 sim frontend --workers "127.0.0.1:${ports[s0]}" "127.0.0.1:${ports[s1]}" --time-scale 10
session_req() { # PORT SESSION: one completion with the header ("" none); its status line
	local body='{"model":"llama3-8b","prompt":"hi there","max_tokens":2}' h=
	[ -n "$2" ] && h="X-Dynamo-Session-ID: $2"$'\r\n'
	exec 3<>"/dev/tcp/127.0.0.1/$1"
	printf 'POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n%sConnection: close\r\n\r\n%s' \
		"${#body}" "$h" "$body" >&3
	head -n 1 <&3
	exec 3<&-
}
for turn in 1 2 3; do
	for s in ax-0a1b2c3d4e5f ax-0a1b2c3d4e5f-sa2 ax-9f8e7d6c5b4a ax-111111111111 ax-222222222222 ax-333333333333 ""; do
		session_req "${ports[fe3]}" "$s"
	done
done >"$tmp/aff.status"
stop_all # the request logs are written at exit
[ "$(grep -c ' 200' "$tmp/aff.status")" = 21 ] && ok || no "session requests through the frontend: $(sort "$tmp/aff.status" | uniq -c)"
out=$(python3 - "$tmp/s0.jsonl" "$tmp/s1.jsonl" <<'PY' 2>&1
import json, sys
where, plain = {}, 0
for w, f in enumerate(sys.argv[1:]):
    for l in open(f):
        r = json.loads(l)
        if r["path"] != "/v1/completions":
            continue
        s = r.get("x_dynamo_session_id")
        if s is None:
            plain += 1
        else:
            where.setdefault(s, []).append(w)
assert len(where) == 6 and all(len(v) == 3 for v in where.values()), where
assert all(len(set(v)) == 1 for v in where.values()), f"a session on two workers: {where}"
assert {v[0] for v in where.values()} == {0, 1}, f"one worker served every session: {where}"
assert plain == 3, plain
print({k: v[0] for k, v in where.items()})
PY
) && ok || no "session affinity: $out"
echo "sessions -> worker: $out"
"$bin" sim frontend --port 0 >/dev/null 2>"$tmp/e1"; [ $? = 2 ] && grep -q -- '--workers' "$tmp/e1" && ok || no "frontend without --workers: $(cat "$tmp/e1")"
"$bin" sim frontend --workers nothost >/dev/null 2>"$tmp/e2"; [ $? = 1 ] && grep -q "not HOST:PORT" "$tmp/e2" && ok || no "bad worker address: $(cat "$tmp/e2")"
"$bin" sim --role decode --duration 1 >/dev/null 2>"$tmp/e3"; [ $? = 2 ] && grep -q -- '--prefill-workers' "$tmp/e3" && ok || no "--role without the deployment: $(cat "$tmp/e3")"
e2e_end
