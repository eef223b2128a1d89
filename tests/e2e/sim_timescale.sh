#!/usr/bin/env bash
# End-to-end test of time scaling (docs/sim.md "Time", docs/bench.md): the
# simulator announces its scale (X-Infbench-Time-Scale on every response,
# "time_scale" in /v1/models), `infbench bench` converts what it measures to
# model time, and the same row at --time-scale 1, 20 and 200 gives the same
# model-time figures. Steps run on absolute deadlines, so the host's timer
# latency does not accumulate: the simulator's own model-time ITL (from the
# deadlines) must agree within 2 %; the client's figures (median TPOT, median
# TTFT, total throughput) within 2 % plus what the host's measured noise
# (its largest timer lateness N, wall) can move a run's end points: S x N is
# model time, so the allowance is 2 S N over a request's decode for TPOT,
# 2 S N for TTFT and 2 S N over the run for throughput. Accumulated lateness
# (every step late, the old behaviour) exceeds that.
# Needs the llama3 tokenizer fixture. Usage: sim_timescale.sh INFBENCH.
# Ends with "sim_timescale: N passed, N failed".
. "$(dirname "$0")/lib.sh" sim_timescale "$1"
e2e_need_tok fail
tokdir=$tok
e2e_tmp
# a slow GPU, so that a step (weights read: ~125 ms of model time) stays
# long in wall time even at scale 200 (0.6 ms)
cat >"$tmp/slow.yaml" <<'Y'
hardware:
  name: slow-gpu
  hbm-tbps: 0.16
Y

start_sim() { e2e_start_sim --profile "$tmp/slow.yaml" "$@"; } # sets $port

http() { # http METHOD PATH [BODY]: the raw response
	local body=${3:-}
	exec 3<>"/dev/tcp/127.0.0.1/$port"
	printf '%s %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' "$1" "$2" \
		"${#body}" "$body" >&3
	cat <&3
	exec 3<&-
}

metric() { # metric NAME: a value of the simulator's /metrics
	http GET /metrics | sed -n "s/^$1{[^}]*} \([-0-9.e+]*\).*/\1/p" | head -n 1
}

json_num() { grep -o "\"$2\": [-0-9.e+]*" "$1" | head -n 1 | sed 's/.*: //'; }

# -- 1. the announcement
start_sim --time-scale 20
h=$(http POST /v1/completions '{"prompt": "hi", "max_tokens": 3, "stream": true}')
grep -q $'^X-Infbench-Time-Scale: 20\r$' <<<"$h" && ok || no "streamed response: no scale header"
h=$(http POST /v1/completions '{"prompt": "hi", "max_tokens": 3}')
grep -q $'^X-Infbench-Time-Scale: 20\r$' <<<"$h" && ok || no "whole response: no scale header"
for p in /health /nope; do
	http GET $p | grep -q $'^X-Infbench-Time-Scale: 20\r$' && ok || no "GET $p: no scale header"
done
http GET /v1/models | grep -q '"time_scale": 20}' && ok || no "/v1/models: no time_scale"
start_sim --max-speed
http GET /health | grep -qi 'X-Infbench-Time-Scale' && no "--max-speed announces a scale" || ok

# -- 2. the same row at three scales
C=4
declare -A tpot ttft thr itl noise dur
for S in 1 20 200; do
	start_sim --time-scale $S
	"$bin" bench --model llama3-8b --tokenizer "$tokdir" --port "$port" --dataset-name random \
		--random-input-len 256 --random-output-len 24 --random-range-ratio 0.8 --num-prompts $((3 * C)) \
		--max-concurrency $C --ignore-eos --keep-alive --save-result --result-dir "$tmp" \
		--result-filename s$S.json >"$tmp/out$S" 2>"$tmp/err$S"
	rc=$?
	r=$tmp/s$S.json
	[ "$rc" = 0 ] && [ "$(json_num "$r" completed)" = $((3 * C)) ] && ok || no "S=$S: exit $rc $(tail -2 "$tmp/err$S")"
	[ "$(json_num "$r" time_scale)" = "$S.0" ] && ok || no "S=$S: result time_scale $(json_num "$r" time_scale)"
	d=$(json_num "$r" duration)
	w=$(json_num "$r" wall_duration)
	# the simulator stamps its model clock (docs/sim.md): the window runs
	# from the first arrival to the last chunk on it, which leaves out what
	# the host delayed, so it is at most wall x S
	grep -q '"clock": "server-model"' "$r" && ok || no "S=$S: the result's clock is not server-model"
	awk -v d="$d" -v w="$w" -v s="$S" 'BEGIN { exit !(w > 0 && d > 0 && d / (w * s) < 1.001) }' &&
		ok || no "S=$S: duration $d is over wall $w x $S"
	tpot[$S]=$(json_num "$r" median_tpot_ms)
	ttft[$S]=$(json_num "$r" median_ttft_ms)
	thr[$S]=$(json_num "$r" total_token_throughput)
	dur[$S]=$d
	itl[$S]=$(awk -v s="$(metric 'vllm:inter_token_latency_seconds_sum')" \
		-v c="$(metric 'vllm:inter_token_latency_seconds_count')" 'BEGIN { print (c > 0 ? s / c * 1000 : 0) }')
	lag=$(grep -o '"event_loop_lag_max_ms": [0-9.e+-]*' "$r" | sed 's/.*: //')
	noise[$S]=$(awk -v a="$(metric 'infbench:step_lateness_seconds_max')" -v b="${lag:-0}" \
		'BEGIN { b /= 1000; print (a > b ? a : b) }')
	printf 'S=%-3s median TPOT %8.2f ms  median TTFT %8.2f ms  throughput %8.2f tok/s  sim ITL %8.2f ms  host noise %.2f ms\n' \
		"$S" "${tpot[$S]}" "${ttft[$S]}" "${thr[$S]}" "${itl[$S]}" "$(awk -v n="${noise[$S]}" 'BEGIN { print n * 1000 }')"
done
within() { # within NAME S GOT WANT ALLOWANCE(relative)
	awk -v g="$3" -v w="$4" -v a="$5" 'BEGIN { e = (g - w) / w; if (e < 0) e = -e; exit !(w > 0 && e <= 0.02 + a) }' &&
		ok || no "S=$2: $1 $3 vs $4 at scale 1 (allowed 2 % + $(awk -v a="$5" 'BEGIN { printf "%.1f", a * 100 }') %)"
}
for S in 20 200; do
	within "simulator ITL (ms, model time)" $S "${itl[$S]}" "${itl[1]}" 0
	N=${noise[$S]}
	within "median TPOT (ms)" $S "${tpot[$S]}" "${tpot[1]}" \
		"$(awk -v s=$S -v n="$N" -v t="${tpot[1]}" 'BEGIN { print 2 * s * n * 1000 / (18 * t) }')"
	within "median TTFT (ms)" $S "${ttft[$S]}" "${ttft[1]}" \
		"$(awk -v s=$S -v n="$N" -v t="${ttft[1]}" 'BEGIN { print 2 * s * n * 1000 / t }')"
	within "throughput (tok/s)" $S "${thr[$S]}" "${thr[1]}" \
		"$(awk -v s=$S -v n="$N" -v d="${dur[1]}" 'BEGIN { print 2 * s * n / d }')"
done
e2e_end
