#!/usr/bin/env bash
# End-to-end test of the simulator's send threads (`infbench sim
# --send-threads N`, docs/sim.md "Real-time capacity"): with the threads
# writing the streams, `infbench bench` gets every request whole (the same
# requests, output tokens and model-time TPOT as the loop alone writes), with
# the performance model and at --max-speed; a bad count is refused.
# Needs the llama3 tokenizer fixture. Usage: sim_threads.sh INFBENCH.
# Ends with "sim_threads: N passed, N failed".
. "$(dirname "$0")/lib.sh" sim_threads "$1"
e2e_need_tok fail
e2e_tmp

metric() { # metric NAME: a value of the simulator's /metrics
	exec 3<>"/dev/tcp/127.0.0.1/$port"
	printf 'GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' >&3
	sed -n "s/^$1{[^}]*} \([-0-9.e+]*\).*/\1/p" <&3 | head -n 1
	exec 3<&-
}

json_num() { grep -o "\"$2\": [-0-9.e+]*" "$1" | head -n 1 | sed 's/.*: //'; }

# run NAME CONC PROMPTS OUTLEN: infbench bench against $port
run() {
	"$bin" bench --model llama3-8b --tokenizer "$tok" --port "$port" --dataset-name random \
		--random-input-len 64 --random-output-len "$4" --random-range-ratio 0.5 \
		--num-prompts "$3" --max-concurrency "$2" --ignore-eos --save-result --result-dir "$tmp" \
		--result-filename "$1.json" >"$tmp/$1.out" 2>"$tmp/$1.err"
}

# -- 1. the performance model: 96 streams (batches of 96 connections engage
# 2 threads: 16 each at least), the loop alone, then 2 threads
for t in 0 2; do
	e2e_start_sim --send-threads $t --time-scale 20
	[ -n "$port" ] || { no "threads $t: the simulator did not start: $(cat "$tmp/sim.err")"; continue; }
	run model$t 96 288 48
	rc=$?
	r=$tmp/model$t.json
	[ "$rc" = 0 ] && [ "$(json_num "$r" completed)" = 288 ] && ok ||
		no "threads $t: exit $rc, completed $(json_num "$r" completed): $(tail -2 "$tmp/model$t.err")"
	# every token the engine made reached the client
	g=$(metric vllm:generation_tokens_total)
	o=$(json_num "$r" total_output_tokens)
	awk -v g="$g" -v o="$o" 'BEGIN { exit !(o > 0 && g == o) }' && ok ||
		no "threads $t: the server made $g tokens, the client got $o"
done
a=$(json_num "$tmp/model0.json" total_output_tokens)
b=$(json_num "$tmp/model2.json" total_output_tokens)
[ -n "$a" ] && [ "$a" = "$b" ] && ok || no "output tokens: $a (loop) vs $b (threads)"

# -- 2. --max-speed: every stream as fast as it is read, 3 threads
e2e_start_sim --send-threads 3 --max-speed
run fast 128 384 200
rc=$?
r=$tmp/fast.json
[ "$rc" = 0 ] && [ "$(json_num "$r" completed)" = 384 ] && ok ||
	no "max-speed: exit $rc, completed $(json_num "$r" completed): $(tail -2 "$tmp/fast.err")"
out_total=$(json_num "$r" total_output_tokens)
[ -n "$out_total" ] && [ "$out_total" -ge $((384 * 100)) ] && ok || no "max-speed: $out_total output tokens"
kill "$simpid" 2>/dev/null && wait "$simpid" 2>/dev/null
simpid=

# -- 3. a bad count is refused
for n in -1 257 x; do
	"$bin" sim --send-threads $n --port 0 --duration 1 >/dev/null 2>"$tmp/bad.err"
	rc=$?
	[ "$rc" = 2 ] && grep -q -- '--send-threads' "$tmp/bad.err" && ok ||
		no "--send-threads $n: exit $rc: $(cat "$tmp/bad.err")"
done
e2e_end
