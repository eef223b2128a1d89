#!/usr/bin/env bash
# The benchmark client's own cost, against `infbench sim --max-speed` (no
# model: tokens as fast as the client reads), the simulator pinned to core 0
# and the client to core 1:
#   1. client CPU per streamed chunk at 1, 64 and 1024 concurrent streams;
#   2. requests/s for 1-token responses, keep-alive and one connection per
#      request (the reference's way).
# Usage: bench/client.sh [INFBENCH]   (needs the llama3 tokenizer: make fixtures)
#   3. client_health under CPU starvation (busy loops on the client's core).
# Targets: <= 1.5 us of client CPU per chunk at 1,024 streams; >= 20k req/s
# with keep-alive; client_bound true when the client is starved. A benchmark:
# it prints figures and always exits 0 unless it cannot run at all.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/infbench}
tok=$root/fixtures/tokenizers/llama3
[ -x "$bin" ] || { echo "no infbench binary at $bin (run make)"; exit 1; }
[ -f "$tok/tokenizer.json" ] || { echo "no tokenizer fixture at $tok (run make fixtures)"; exit 1; }
out=$(mktemp -d)
pin_sim=() pin_client=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	pin_sim=(taskset -c 0)
	pin_client=(taskset -c 1)
fi
"${pin_sim[@]}" "$bin" sim --max-speed --port 0 --port-file "$out/port" --duration 900 \
	--served-model-name m 2>/dev/null &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$out"' EXIT
for _ in $(seq 1 200); do [ -s "$out/port" ] && break; sleep 0.05; done
port=$(cat "$out/port" 2>/dev/null)
[ -n "$port" ] || { echo "the simulator did not start"; exit 1; }

num() { grep -o "\"$2\": [-0-9.e+]*" "$1" | head -n 1 | sed 's/.*: //'; }

run() { # run NAME ARGS...: one client run, its result in $out/NAME.json
	local name=$1
	shift
	"${pin_client[@]}" "$bin" bench --model m --tokenizer "$tok" --port "$port" --dataset-name random \
		--random-input-len 16 --ignore-eos --disable-tqdm --save-result --result-dir "$out" \
		--result-filename "$name.json" "$@" >/dev/null 2>"$out/$name.err"
}

echo "infbench bench against infbench sim --max-speed (sim: ${pin_sim[*]:-unpinned}, client: ${pin_client[*]:-unpinned})"
echo
printf '%-10s %12s %12s %14s %10s  %s\n' streams chunks seconds "client CPU %" "us/chunk" target
for streams in 1 64 1024; do
	tokens=$((streams == 1 ? 200000 : streams == 64 ? 4000 : 400))
	run "cpu$streams" --random-output-len $tokens --random-range-ratio 1 --num-prompts "$streams" \
		--max-concurrency "$streams" --keep-alive
	r=$out/cpu$streams.json
	chunks=$(num "$r" total_output_tokens)
	dur=$(num "$r" duration)
	cpu=$(grep -o '"client_cpu_percent": [0-9.e+-]*' "$r" | sed 's/.*: //')
	us=$(awk -v c="$cpu" -v d="$dur" -v n="$chunks" 'BEGIN { if (n > 0) printf "%.3f", c / 100 * d / n * 1e6; else print "n/a" }')
	target=""
	[ "$streams" = 1024 ] && target=$(awk -v u="$us" 'BEGIN { print (u <= 1.5 ? "ok (<= 1.5 us)" : "MISSED (<= 1.5 us)") }')
	printf '%-10s %12s %12.3f %14.1f %10s  %s\n' "$streams" "$chunks" "$dur" "$cpu" "$us" "$target"
done
echo
printf '%-32s %12s %12s  %s\n' "1-token requests" requests "req/s" target
run ka --random-output-len 1 --num-prompts 20000 --max-concurrency 64 --keep-alive
run cpr --random-output-len 1 --num-prompts 5000 --max-concurrency 64
ka=$(num "$out/ka.json" request_throughput)
cpr=$(num "$out/cpr.json" request_throughput)
printf '%-32s %12s %12.0f  %s\n' "keep-alive, 64 in flight" "$(num "$out/ka.json" completed)" "$ka" \
	"$(awk -v r="$ka" 'BEGIN { print (r >= 20000 ? "ok (>= 20k)" : "MISSED (>= 20k)") }')"
printf '%-32s %12s %12.0f\n' "connection per request, 64" "$(num "$out/cpr.json" completed)" "$cpr"

# 3. a client starved of CPU on purpose must say so: two busy loops share its
#    core and it runs at nice 19
echo
if [ ${#pin_client[@]} -gt 0 ]; then
	run fair --random-output-len 64 --num-prompts 400 --max-concurrency 32 --request-rate 200
	"${pin_client[@]}" sh -c 'while :; do :; done' &
	hog1=$!
	"${pin_client[@]}" sh -c 'while :; do :; done' &
	hog2=$!
	pin_client=(taskset -c 1 nice -n 19)
	run starved --random-output-len 64 --num-prompts 400 --max-concurrency 32 --request-rate 200
	pin_client=(taskset -c 1)
	kill $hog1 $hog2 2>/dev/null
	wait $hog1 $hog2 2>/dev/null
	printf '%-28s %18s %14s  %s\n' "client (open loop, 200/s)" "sched. lag p99 ms" "client_bound" reason
	for name in fair starved; do
		r=$out/$name.json
		lag=$(grep -o '"schedule_lag_p99_ms": [0-9.e+-]*' "$r" | sed 's/.*: //')
		cb=$(grep -o '"client_bound": [a-z]*' "$r" | sed 's/.*: //')
		why=$(grep -o '"reason": [^}]*' "$r" | sed 's/"reason": //')
		printf '%-28s %18.3f %14s  %s\n' "$name" "$lag" "$cb" "$why"
	done
else
	echo "(no taskset or a single core: the CPU-starvation check is skipped)"
fi
