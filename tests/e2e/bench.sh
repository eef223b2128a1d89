#!/usr/bin/env bash
# End-to-end tests of `infbench bench` against `infbench sim` on loopback:
# InferenceX's exact flag set, the result JSON's keys and counts against what
# the simulator served, chat, open-loop arrivals, and injected faults
# recorded as failures (exit 1 above 5% failed, after writing the JSON).
# Needs the llama3 tokenizer fixture (make fixtures).
# Usage: bench.sh INFBENCH. Ends with "bench: N passed, N failed".
. "$(dirname "$0")/lib.sh" bench "$1"
tokdir=$tok
e2e_need_tok fail
e2e_tmp

metric() { # metric NAME: the value of a simulator counter
	exec 3<>"/dev/tcp/127.0.0.1/$port"
	printf 'GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' >&3
	sed -n "s/^$1{[^}]*} \([0-9.]*\).*/\1/p" <&3 | head -n 1
	exec 3<&-
}

json_num() { # json_num FILE KEY: a top-level number of the result
	grep -o "\"$2\": [-0-9.e+]*" "$1" | head -n 1 | sed 's/.*: //'
}

sum_list() { # sum_list FILE KEY: the sum of a top-level list of ints
	grep -o "\"$2\": \[[0-9, ]*\]" "$1" | sed 's/.*\[//; s/\]//' | tr ',' '\n' | awk '{s += $1} END {print s + 0}'
}

# -- 1. InferenceX's exact invocation (C = 4)
e2e_start_sim --time-scale 50
C=4
"$bin" bench --model llama3-8b --tokenizer "$tokdir" --backend vllm --base-url "http://0.0.0.0:$port" \
	--dataset-name random --random-input-len 256 --random-output-len 64 --random-range-ratio 0.8 \
	--num-prompts $((10 * C)) --max-concurrency $C --request-rate inf --ignore-eos \
	--num-warmups $((2 * C)) --save-result --percentile-metrics ttft,tpot,itl,e2el \
	--result-dir "$tmp" --result-filename r1.json --use-chat-template >"$tmp/out1" 2>"$tmp/err1"
rc=$?
[ "$rc" = 0 ] && ok || no "exact flag set: exit $rc: $(tail -3 "$tmp/err1")"
r=$tmp/r1.json
keys="date backend model_id tokenizer_id best_of num_prompts request_rate burstiness max_concurrency duration
benchmark_start_time_unix benchmark_end_time_unix completed total_input_tokens total_output_tokens
request_throughput request_goodput: output_throughput total_token_throughput input_lens output_lens
mean_ttft_ms median_ttft_ms std_ttft_ms p90_ttft_ms p99_ttft_ms p99.9_ttft_ms mean_tpot_ms median_tpot_ms
std_tpot_ms p90_tpot_ms p99_tpot_ms p99.9_tpot_ms mean_itl_ms median_itl_ms std_itl_ms p90_itl_ms p99_itl_ms
p99.9_itl_ms mean_e2el_ms median_e2el_ms std_e2el_ms p90_e2el_ms p99_e2el_ms p99.9_e2el_ms"
missing=
for k in $keys; do grep -qF "\"$k\": " "$r" || missing="$missing $k"; done
[ -z "$missing" ] && ok || no "result keys missing:$missing"
# the keys come in the reference's order
order=$(grep -o '"[a-z0-9_.:]*": ' "$r" | tr -d '": ' | awk '!seen[$0]++' | tr '\n' ' ')
want=$(echo $keys | tr -d ':' | tr '\n' ' ')
got=$(for k in $order; do case " $want " in *" ${k%:} "*) printf '%s ' "${k%:}" ;; esac; done)
[ "$got" = "$want" ] && ok || no "key order: $got"
[ "$(json_num "$r" completed)" = 40 ] && ok || no "completed: $(json_num "$r" completed)"
out_total=$(json_num "$r" total_output_tokens)
[ "$out_total" = "$(sum_list "$r" output_lens)" ] && ok || no "total_output_tokens $out_total != sum(output_lens)"
in_total=$(json_num "$r" total_input_tokens)
[ "$in_total" = "$(sum_list "$r" input_lens)" ] && ok || no "total_input_tokens $in_total != sum(input_lens)"
# what the simulator generated: the measured tokens plus the warmups (8 x the first prompt's length)
first_out=$(grep -o '"output_lens": \[[0-9]*' "$r" | sed 's/.*\[//')
gen=$(metric 'vllm:generation_tokens_total')
[ "${gen%.*}" = $((out_total + 8 * first_out)) ] && ok || no "sim generated $gen, client counted $out_total + 8 x $first_out"
served=$(metric 'vllm:request_success_total')
[ "${served%.*}" = 48 ] && ok || no "sim served $served requests (want 48 = 40 + 8 warmups)"
grep -q '^============ Serving Benchmark Result ============$' "$tmp/out1" && ok || no "stdout table"
grep -q '^Successful requests:                     40        $' "$tmp/out1" && ok || no "table row format"
grep -q 'Input/Output Length Statistics' "$tmp/out1" && ok || no "statistics block"
grep -q '"client_health": {' "$r" && grep -q '"client_bound": ' "$r" && ok || no "client_health"
# the simulator announces its scale: TPOT is converted to model time (a step of
# llama3-8b on an H100 lasts ~6 ms; the wall time would be 50 times less)
tpot=$(json_num "$r" mean_tpot_ms)
awk -v t="$tpot" 'BEGIN { exit !(t > 3 && t < 60) }' && ok || no "mean TPOT $tpot ms (model time)"
[ "$(json_num "$r" time_scale)" = 50.0 ] && ok || no "time_scale $(json_num "$r" time_scale)"

# -- 2. chat, keep-alive, save-detailed
"$bin" bench --model llama3-8b --tokenizer "$tokdir" --backend openai-chat --endpoint /v1/chat/completions \
	--port "$port" --dataset-name random --random-input-len 128 --random-output-len 16 --num-prompts 12 \
	--max-concurrency 3 --ignore-eos --keep-alive --save-result --save-detailed --result-dir "$tmp" \
	--result-filename r2.json >"$tmp/out2" 2>"$tmp/err2"
rc=$?
[ "$rc" = 0 ] && [ "$(json_num "$tmp/r2.json" completed)" = 12 ] && ok || no "chat run: exit $rc"
grep -q '"generated_texts": \["' "$tmp/r2.json" && grep -q '"errors": \["", ' "$tmp/r2.json" && ok ||
	no "save-detailed arrays"

# -- 3. open loop at 0.8 req/s of model time (40 a second of wall time at scale 50)
"$bin" bench --model llama3-8b --tokenizer "$tokdir" --port "$port" --dataset-name random \
	--random-input-len 64 --random-output-len 8 --num-prompts 60 --request-rate 0.8 --burstiness 1 \
	--ignore-eos --save-result --result-dir "$tmp" --result-filename r3.json >"$tmp/out3" 2>&1
rate=$(grep -o '"achieved_request_rate": [0-9.]*' "$tmp/r3.json" | sed 's/.*: //')
awk -v r="$rate" 'BEGIN { exit !(r > 0.4 && r < 1.6) }' && ok || no "open loop: achieved $rate req/s for 0.8"
grep -q 'Burstiness factor: 1 (Poisson process)' "$tmp/out3" && ok || no "burstiness line"

# -- 4. faults: failures are recorded, > 5% failed exits 1 after writing the JSON
for fault in "--fail-rate 0.3" "--drop-rate 0.3" "--malformed-rate 0.3"; do
	# shellcheck disable=SC2086
	e2e_start_sim --time-scale 50 --seed 3 $fault
	timeout 120 "$bin" bench --model llama3-8b --tokenizer "$tokdir" --port "$port" --dataset-name random \
		--random-input-len 64 --random-output-len 32 --num-prompts 40 --max-concurrency 4 --ignore-eos \
		--save-result --save-detailed --result-dir "$tmp" --result-filename f.json >"$tmp/outf" 2>"$tmp/errf"
	rc=$?
	c=$(json_num "$tmp/f.json" completed)
	[ "$rc" = 1 ] && [ -n "$c" ] && [ "$c" -lt 40 ] && [ "$c" -gt 0 ] && ok || no "$fault: exit $rc, completed $c"
	grep -q 'FAIL: request failure rate' "$tmp/errf" && ok || no "$fault: failure line"
	rm -f "$tmp/f.json"
done
e2e_start_sim --time-scale 100 --seed 4 --stall-rate 1 --stall-ms 200
timeout 120 "$bin" bench --model llama3-8b --tokenizer "$tokdir" --port "$port" --dataset-name random \
	--random-input-len 64 --random-output-len 32 --num-prompts 20 --max-concurrency 4 --ignore-eos \
	--save-result --result-dir "$tmp" --result-filename s.json >"$tmp/outs" 2>&1
rc=$?
p99=$(json_num "$tmp/s.json" p99_itl_ms)
[ "$rc" = 0 ] && awk -v p="$p99" 'BEGIN { exit !(p > 150) }' && ok || no "stalls: exit $rc, p99 ITL $p99 ms"

# -- 5. the simulator with the same tokenizer counts exactly the client's prompt tokens
e2e_start_sim --time-scale 100 --tokenizer "$tokdir"
"$bin" bench --model llama3-8b --tokenizer "$tokdir" --port "$port" --dataset-name random \
	--random-input-len 200 --random-output-len 8 --num-prompts 10 --max-concurrency 2 --ignore-eos \
	--num-warmups 2 --use-chat-template --save-result --result-dir "$tmp" --result-filename t.json >/dev/null 2>&1
in_total=$(json_num "$tmp/t.json" total_input_tokens)
first_in=$(grep -o '"input_lens": \[[0-9]*' "$tmp/t.json" | sed 's/.*\[//')
ptok=$(metric 'vllm:prompt_tokens_total')
[ -n "$in_total" ] && [ "${ptok%.*}" = $((in_total + 2 * first_in)) ] && ok ||
	no "sim --tokenizer counted $ptok prompt tokens, client $in_total + 2 x $first_in"
# the prompt cache: a second run (and a third, with the chat template off) reuses
# or regenerates exactly the prompts generation gives
pc() { # pc NAME [more flags]: a small run with --prompt-cache $tmp/pc
	local name=$1
	shift
	"$bin" bench --model llama3-8b --tokenizer "$tokdir" --port "$port" --dataset-name random \
		--random-input-len 300 --random-output-len 4 --num-prompts 12 --max-concurrency 4 --ignore-eos \
		--num-warmups 0 --save-result --result-dir "$tmp" --result-filename "$name.json" "$@" >/dev/null 2>"$tmp/$name.err"
}
psha() { grep -o '"prompts_sha256": "[0-9a-f]*"' "$1"; }
pc nocache && pc pc1 --prompt-cache "$tmp/pc" && pc pc2 --prompt-cache "$tmp/pc" &&
	pc pc3 --prompt-cache "$tmp/pc" --use-chat-template && pc tmpl --use-chat-template
[ -n "$(psha "$tmp/nocache.json")" ] && [ "$(psha "$tmp/pc1.json")" = "$(psha "$tmp/nocache.json")" ] &&
	[ "$(psha "$tmp/pc2.json")" = "$(psha "$tmp/nocache.json")" ] && ok ||
	no "prompt cache: the cached prompts differ from generated ones"
! grep -q 'prompt cache' "$tmp/pc1.err" && grep -q 'came from the prompt cache' "$tmp/pc2.err" && ok ||
	no "prompt cache: the second run did not reuse the set"
[ "$(psha "$tmp/pc3.json")" = "$(psha "$tmp/tmpl.json")" ] && ! grep -q 'prompt cache' "$tmp/pc3.err" &&
	[ "$(ls "$tmp/pc" | wc -l)" = 2 ] && ok || no "prompt cache: another workload must miss and add a set"
for f in "$tmp"/pc/*.prompts; do head -c 100 "$f" >"$f.cut" && mv "$f.cut" "$f"; done # damaged entries
pc pc4 --prompt-cache "$tmp/pc" && [ "$(psha "$tmp/pc4.json")" = "$(psha "$tmp/nocache.json")" ] &&
	! grep -q 'prompt cache' "$tmp/pc4.err" && ok || no "prompt cache: a damaged entry must be regenerated"
exec 3<>"/dev/tcp/127.0.0.1/$port"
printf 'POST /tokenize HTTP/1.1\r\nHost: x\r\nContent-Length: 25\r\nConnection: close\r\n\r\n{"prompt": "Hello world"}' >&3
grep -q '"tokens": \[9906, 1917\], "count": 2' <&3 && ok || no "/tokenize"
exec 3<&-

# -- 6. the server's /metrics: acceptance of speculative decoding, and the workload fingerprint
e2e_start_sim --time-scale 100 --spec-method mtp --num-spec-tokens 3 --acceptance-length 2.6
"$bin" bench --model llama3-8b --tokenizer "$tokdir" --port "$port" --dataset-name random \
	--random-input-len 64 --random-output-len 128 --num-prompts 24 --max-concurrency 6 --ignore-eos \
	--num-warmups 2 --save-result --result-dir "$tmp" --result-filename m.json >/dev/null 2>&1
al=$(grep -o '"mean_acceptance_length": [0-9.]*' "$tmp/m.json" | sed 's/.*: //')
awk -v a="$al" 'BEGIN { exit !(a > 2.47 && a < 2.73) }' && ok || no "server_metrics acceptance length $al (2.6)"
grep -q '"per_position_acceptance": \[1.0, ' "$tmp/m.json" && ok || no "per-position acceptance"
grep -q '"tokenizer_sha256": "c05a3c2174e9edd5' "$tmp/m.json" && ok || no "workload: tokenizer hash"
w1=$(grep -o '"workload": {"sha256": "[0-9a-f]*"' "$tmp/m.json")
"$bin" bench --model llama3-8b --tokenizer "$tokdir" --port "$port" --dataset-name random \
	--random-input-len 64 --random-output-len 128 --num-prompts 24 --max-concurrency 3 --ignore-eos \
	--save-result --result-dir "$tmp" --result-filename m2.json >/dev/null 2>&1
w2=$(grep -o '"workload": {"sha256": "[0-9a-f]*"' "$tmp/m2.json")
[ -n "$w1" ] && [ "$w1" = "$w2" ] && ok || no "the same workload has the same fingerprint"

# -- 7. several event loops: the same counts, merged
e2e_start_sim --time-scale 100
"$bin" bench --model llama3-8b --tokenizer "$tokdir" --port "$port" --dataset-name random \
	--random-input-len 64 --random-output-len 32 --num-prompts 60 --max-concurrency 12 --ignore-eos \
	--threads 3 --keep-alive --save-result --result-dir "$tmp" --result-filename th.json >/dev/null 2>&1
rc=$?
c=$(json_num "$tmp/th.json" completed)
out_total=$(json_num "$tmp/th.json" total_output_tokens)
gen=$(metric 'vllm:generation_tokens_total')
[ "$rc" = 0 ] && [ "$c" = 60 ] && [ "${gen%.*}" = "$out_total" ] && ok ||
	no "--threads 3: exit $rc, completed $c, client $out_total tokens, sim $gen"

# -- 7b. the reference's user-space stamps give the same picture as the
#        kernel's receive times (the default)
"$bin" bench --model llama3-8b --tokenizer "$tokdir" --port "$port" --dataset-name random \
	--random-input-len 64 --random-output-len 32 --num-prompts 20 --max-concurrency 4 --ignore-eos \
	--user-timestamps --save-result --result-dir "$tmp" --result-filename kt.json >/dev/null 2>&1
rc=$?
itl=$(json_num "$tmp/kt.json" mean_itl_ms)
[ "$rc" = 0 ] && [ "$(json_num "$tmp/kt.json" completed)" = 20 ] && grep -q '"timestamps": "user"' "$tmp/kt.json" &&
	awk -v i="$itl" 'BEGIN { exit !(i > 1 && i < 60) }' && ok || no "--user-timestamps: exit $rc, mean ITL $itl ms"
grep -q '"timestamps": "kernel"' "$tmp/r1.json" && ok || no "kernel receive times are not the default"
"$bin" bench --model m --dataset-name random --kernel-timestamps --user-timestamps >/dev/null 2>"$tmp/e"
[ $? = 2 ] && grep -q 'exclude each other' "$tmp/e" && ok || no "both timestamp flags accepted"

# -- 7c. --profile: /start_profile after the warmup, /stop_profile at the end;
#        --lora-modules: every request names an adapter the server has
e2e_start_sim --time-scale 50 --lora-modules ada=/x bob
"$bin" bench --model llama3-8b --tokenizer "$tokdir" --port "$port" --dataset-name random \
	--random-input-len 32 --random-output-len 8 --num-prompts 12 --max-concurrency 3 --num-warmups 2 \
	--profile --lora-modules ada bob --save-result --result-dir "$tmp" --result-filename lora.json \
	>"$tmp/lora.out" 2>"$tmp/lora.err"
rc=$?
seq_lines=$(grep -E '^(Warmup completed|Starting profiler|Profiler started|Starting main|Stopping profiler|Profiler stopped)' \
	"$tmp/lora.out" | tr '\n' '|')
[ "$rc" = 0 ] && [ "$(json_num "$tmp/lora.json" completed)" = 12 ] &&
	[ "$seq_lines" = "Warmup completed.|Starting profiler...|Profiler started|Starting main benchmark run...|Stopping profiler...|Profiler stopped|" ] &&
	grep -q 'profiler started' "$tmp/sim.err" && grep -q 'profiler stopped' "$tmp/sim.err" && ok ||
	no "--profile --lora-modules: exit $rc, lines '$seq_lines', $(tail -2 "$tmp/lora.err")"
# an adapter the server lacks: every request fails (404), exit 1
"$bin" bench --model llama3-8b --tokenizer "$tokdir" --port "$port" --dataset-name random \
	--random-input-len 32 --random-output-len 8 --num-prompts 4 --lora-modules nope \
	--save-result --result-dir "$tmp" --result-filename nolora.json >/dev/null 2>&1
rc=$?
[ "$rc" = 1 ] && [ "$(json_num "$tmp/nolora.json" completed)" = 0 ] && ok || no "unknown adapter: exit $rc"

# -- 7d. paced simulator and its trace: a chunk every 10 ms per stream; the
#        trace names each request (X-Request-Id) and stamps each chunk
e2e_start_sim --pace 100 --trace "$tmp/trace.jsonl"
"$bin" bench --model llama3-8b --tokenizer "$tokdir" --port "$port" --dataset-name random \
	--random-input-len 16 --random-output-len 20 --random-range-ratio 1 --num-prompts 8 --max-concurrency 8 \
	--ignore-eos --save-result --result-dir "$tmp" --result-filename paced.json >/dev/null 2>&1
rc=$?
kill -TERM "$simpid" && wait "$simpid" 2>/dev/null
simpid=
itl=$(json_num "$tmp/paced.json" mean_itl_ms)
ids=$(grep -o '"id": "infbench-[0-9]*"' "$tmp/trace.jsonl" 2>/dev/null | sort -u | wc -l)
stamps=$(grep -o '"sent_ns": \[[0-9, ]*\]' "$tmp/trace.jsonl" 2>/dev/null | awk -F, '{ n += NF } END { print n + 0 }')
[ "$rc" = 0 ] && [ "$ids" = 8 ] && [ "$stamps" = 160 ] && awk -v i="$itl" 'BEGIN { exit !(i > 8 && i < 14) }' && ok ||
	no "--pace 100 --trace: exit $rc, mean ITL $itl ms, $ids ids, $stamps stamps"

# -- 8. no server: every request fails with the connection error, exit 1 after the JSON
"$bin" bench --model m --tokenizer "$tokdir" --port 1 --dataset-name random --random-input-len 16 \
	--random-output-len 4 --num-prompts 3 --save-result --save-detailed --result-dir "$tmp" \
	--result-filename refused.json >/dev/null 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q '"errors": \["Connection refused", ' "$tmp/refused.json" && ok ||
	no "no server: exit $rc, $(grep -o '"errors": [^]]*' "$tmp/refused.json" 2>/dev/null)"

# -- 9. usage errors
"$bin" bench --model x --dataset-name random --dsv4 >/dev/null 2>"$tmp/e" && no "--dsv4 alone accepted" || ok
"$bin" bench --model x >/dev/null 2>"$tmp/e"
[ $? = 1 ] && grep -q 'Unknown dataset: sharegpt' "$tmp/e" && ok || no "the reference's dataset default"
"$bin" bench --dataset-name random >/dev/null 2>"$tmp/e"
[ $? = 2 ] && grep -q 'required: --model' "$tmp/e" && ok || no "--model required"

"$bin" sim --pace 50 --max-speed >/dev/null 2>"$tmp/e"
[ $? = 2 ] && grep -q 'exclude each other' "$tmp/e" && ok || no "sim --pace with --max-speed accepted"
for f in "--drop-rate 0.1" "--stall-rate 0.1" "--malformed-rate 0.1" "--time-scale 10"; do
	"$bin" sim --max-speed $f >/dev/null 2>"$tmp/e"
	[ $? = 2 ] && grep -q 'act on engine steps' "$tmp/e" && ok || no "sim --max-speed $f accepted"
done
"$bin" sim --lora-modules 'a"b' >/dev/null 2>"$tmp/e"
[ $? = 2 ] && grep -q 'bad adapter name' "$tmp/e" && ok || no "sim --lora-modules with a quote accepted"

e2e_end
