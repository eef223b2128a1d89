#!/usr/bin/env bash
# The eval client's cost: 1,319 gsm8k-format questions (the size of gsm8k's
# test split) at concurrency 64 against `infbench sim --max-speed`, which
# answers as fast as it is asked. Prints wall time and the client's CPU
# (user + system); the target is < 2 s of client CPU for the whole set.
# Usage: bench/eval.sh [INFBENCH] (default build/infbench)
set -eu
bin=${1:-build/infbench}
tmp=$(mktemp -d)
trap 'kill $sim 2>/dev/null; rm -rf "$tmp"' EXIT
"$bin" eval make-dataset --output "$tmp/ds" --train 7473 --test 1319 --seed 3
"$bin" sim --max-speed --eval-dataset "$tmp/ds" --eval-accuracy 0.9 --port 0 \
	--port-file "$tmp/port" --duration 300 2>/dev/null &
sim=$!
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
/usr/bin/time -f "%e %U %S" -o "$tmp/time" "$bin" eval run --base-url "http://127.0.0.1:$(cat "$tmp/port")" \
	--model llama3-8b --dataset "$tmp/ds" --output-path "$tmp/out" --num-concurrent 64 \
	--no-meta-env >/dev/null 2>"$tmp/log"
read -r wall user sys <"$tmp/time"
cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
echo "eval client: 1319 questions, concurrency 64: wall ${wall} s, client CPU ${cpu} s (user ${user}, sys ${sys}); target < 2 s CPU"
grep -o 'strict-match [0-9.]*' "$tmp/log" | head -n 1
