#!/usr/bin/env bash
# End-to-end test of the simulator's model clock (docs/sim.md "Time", "Model
# timestamps") and the client's use of it (docs/bench.md "Time scale"):
#  1. model timestamps are on the wire only when asked for
#     (X-Infbench-Model-Time: 1): every streamed chunk carries "infbench_t",
#     the first also "infbench_t0", a whole response both; without the header
#     the bytes carry neither; --max-speed (no model) never stamps;
#  2. a run whose simulator is stopped (SIGSTOP) for 300 ms in the middle of
#     its steps gives the same model-time figures as the same run unstalled
#     (mean TPOT, mean and median TTFT, mean ITL, std of ITL), while its wall
#     clock x S is off by about the stall x S, so the test can tell.
# Needs the llama3 tokenizer fixture. Usage: sim_stall.sh INFBENCH.
# Ends with "sim_stall: N passed, N failed".
. "$(dirname "$0")/lib.sh" sim_stall "$1"
e2e_need_tok fail
tokdir=$tok
tmp=$(mktemp -d)
benchpid=
cleanup() {
	[ -n "$simpid" ] && kill -CONT "$simpid" 2>/dev/null
	[ -n "$benchpid" ] && kill "$benchpid" 2>/dev/null && wait "$benchpid" 2>/dev/null
	[ -n "$simpid" ] && kill "$simpid" 2>/dev/null && wait "$simpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
# a slow GPU: a decode step is ~125 ms of model time, ~6 ms of wall at S = 20
cat >"$tmp/slow.yaml" <<'Y'
hardware:
  name: slow-gpu
  hbm-tbps: 0.16
Y
S=20

start_sim() { e2e_start_sim --profile "$tmp/slow.yaml" "$@"; } # sets $port

http() { # http METHOD PATH [BODY [HEADER]]: the raw response
	local body=${3:-} hdr=${4:-}
	exec 3<>"/dev/tcp/127.0.0.1/$port"
	printf '%s %s HTTP/1.1\r\nHost: x\r\n%sContent-Length: %d\r\nConnection: close\r\n\r\n%s' "$1" "$2" \
		"$hdr" "${#body}" "$body" >&3
	cat <&3
	exec 3<&-
}

metric() { # metric NAME: a value of the simulator's /metrics
	http GET /metrics | sed -n "s/^$1{[^}]*} \([-0-9.e+]*\).*/\1/p" | head -n 1
}

json_num() { grep -o "\"$2\": [-0-9.e+]*" "$1" | head -n 1 | sed 's/.*: //'; }

MT=$'X-Infbench-Model-Time: 1\r\n'
# -- 1. on the wire only when asked for
start_sim --time-scale $S
cbody='{"prompt": "hi", "max_tokens": 4, "stream": true, "stream_options": {"include_usage": true}}'
hbody='{"messages": [{"role": "user", "content": "hi"}], "max_tokens": 3, "stream": true}'
for ep in completions chat/completions; do
	b=$cbody
	[ $ep = completions ] || b=$hbody
	http POST /v1/$ep "$b" >"$tmp/plain"
	grep -q infbench_t "$tmp/plain" && no "$ep without the header: model timestamps in the body" || ok
	grep -q '^data: {' "$tmp/plain" && ok || no "$ep: no stream $(head -c 300 "$tmp/plain")"
	http POST /v1/$ep "$b" "$MT" >"$tmp/mt"
	n=$(grep -c '^data: {' "$tmp/mt")
	nt=$(grep '^data: {' "$tmp/mt" | grep -c '"infbench_t":[0-9.]*}$')
	[ "$n" -gt 1 ] && [ "$n" = "$nt" ] && ok || no "$ep: $nt of $n chunks carry infbench_t"
	grep '^data: {' "$tmp/mt" | head -n 1 | grep -q '"infbench_t0":[0-9.]*,' && ok ||
		no "$ep: the first chunk has no infbench_t0"
	# the stamps never go back, and the arrival is not after the first chunk
	grep -o '"infbench_t":[0-9.]*' "$tmp/mt" | sed 's/.*://' |
		awk 'NR > 1 && $1 < p { bad = 1 } { p = $1 } END { exit bad }' && ok || no "$ep: stamps go back in time"
	t0=$(grep -o '"infbench_t0":[0-9.]*' "$tmp/mt" | head -n 1 | sed 's/.*://')
	t1=$(grep -o '"infbench_t":[0-9.]*' "$tmp/mt" | head -n 1 | sed 's/.*://')
	awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(a != "" && a <= b) }' && ok || no "$ep: arrival $t0 after the first chunk $t1"
done
http POST /v1/completions '{"prompt": "hi", "max_tokens": 4}' "$MT" | tail -n 1 >"$tmp/whole"
grep -q '"infbench_t0":[0-9.]*,"infbench_t":[0-9.]*}$' "$tmp/whole" && ok || no "whole response: $(cat "$tmp/whole")"
http POST /v1/completions '{"prompt": "hi", "max_tokens": 4}' | grep -q infbench_t && no "whole response stamped without the header" || ok
start_sim --max-speed
http POST /v1/completions "$cbody" "$MT" | grep -q infbench_t && no "--max-speed stamps chunks (no model clock)" || ok

# -- 2. a stall of the simulator is not model time
run_bench() { # run_bench NAME: the same row each time, into $tmp/NAME.json
	"$bin" bench --model llama3-8b --tokenizer "$tokdir" --port "$port" --dataset-name random \
		--random-input-len 256 --random-output-len 64 --random-range-ratio 1 --num-prompts 16 \
		--max-concurrency 4 --ignore-eos --keep-alive --save-result --result-dir "$tmp" \
		--result-filename "$1.json" >"$tmp/$1.out" 2>"$tmp/$1.err"
}
start_sim --time-scale $S
run_bench calm || no "unstalled run: exit $? $(tail -n 2 "$tmp/calm.err")"
grep -q '"clock": "server-model"' "$tmp/calm.json" && ok || no "unstalled run: clock is not server-model"
# the stalled run: SIGSTOP the simulator for 300 ms once it is decoding
# (tokens flowing); a stop that fell between steps (none was late) is tried
# again, three times at most
paused=0
for try in 1 2 3; do
	start_sim --time-scale $S
	run_bench stall &
	benchpid=$!
	for _ in $(seq 1 600); do
		g=$(metric 'vllm:generation_tokens_total')
		awk -v g="${g:-0}" 'BEGIN { exit !(g >= 300) }' && break
		sleep 0.01
	done
	kill -STOP "$simpid"
	sleep 0.3 # the fault itself: the host does not run the simulator for 300 ms
	kill -CONT "$simpid"
	wait "$benchpid"
	rc=$?
	benchpid=
	paused=$(metric 'infbench:model_clock_paused_seconds_total')
	awk -v p="${paused:-0}" 'BEGIN { exit !(p >= 0.25) }' && break
done
[ "$rc" = 0 ] && [ "$(json_num "$tmp/stall.json" completed)" = 16 ] && ok || no "stalled run: exit $rc $(tail -n 2 "$tmp/stall.err")"
awk -v p="${paused:-0}" 'BEGIN { exit !(p >= 0.25) }' && ok || no "the stall was not seen: paused $paused s"
grep -q '"clock": "server-model"' "$tmp/stall.json" && ok || no "stalled run: clock is not server-model"
# the wall clock saw the stall: wall x S is at least 0.25 x S model seconds over
d=$(json_num "$tmp/stall.json" duration)
w=$(json_num "$tmp/stall.json" wall_duration)
awk -v d="$d" -v w="$w" -v s=$S 'BEGIN { exit !(w * s - d >= 0.25 * s) }' && ok ||
	no "stalled run: wall $w s x $S is not 0.25 x $S s over the model duration $d s"
within() { # within KEY RELATIVE ABSOLUTE_MS
	local a b
	a=$(json_num "$tmp/calm.json" "$1")
	b=$(json_num "$tmp/stall.json" "$1")
	printf '%-16s unstalled %10.2f  stalled %10.2f\n' "$1" "$a" "$b"
	awk -v a="$a" -v b="$b" -v r="$2" -v m="$3" 'BEGIN { e = b - a; if (e < 0) e = -e; exit !(a > 0 && e <= r * a + m) }' &&
		ok || no "$1: stalled $b vs unstalled $a (allowed $2 relative + $3 ms)"
}
echo "simulator paused $paused s (wall); stalled run: wall $w s, model $d s"
within mean_tpot_ms 0.05 0
within median_tpot_ms 0.05 0
within mean_itl_ms 0.05 0
within std_itl_ms 0.25 5
within mean_ttft_ms 0.25 50
within median_ttft_ms 0.25 50
within mean_e2el_ms 0.05 50
e2e_end
