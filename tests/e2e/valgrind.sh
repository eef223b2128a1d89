#!/usr/bin/env bash
# The release build (no sanitizers) under valgrind memcheck: no invalid access,
# no use of uninitialised memory, no leak, on a full sweep with every eval mode,
# on test-config with a node filter and on a validation run full of problems.
# Usage: valgrind.sh ANY   (uses $IB_RELEASE, default build/infbench)
# Ends with "valgrind: N passed, N failed".
set -u
set -f # arguments below contain glob patterns meant for infbench
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${IB_RELEASE:-$root/build/infbench}
pass=0
fail=0
if ! command -v valgrind >/dev/null; then
	echo "valgrind is not installed (make deps installs it)"
	echo "valgrind: 0 passed, 1 failed"
	exit 1
fi
cd "$root" || exit 2
inv=tests/golden/matrix/synthetic/invalid
masters="configs/amd-master.yaml configs/nvidia-master.yaml"
while IFS='|' read -r name args; do
	# shellcheck disable=SC2086
	valgrind -q --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all \
		--error-exitcode=99 "$bin" $args >/dev/null 2>"${TMPDIR:-/tmp}/vg.$$"
	rc=$?
	if [ "$rc" = 99 ] || grep -q '==[0-9]*==' "${TMPDIR:-/tmp}/vg.$$"; then
		echo "FAIL $name:"
		grep '==[0-9]*==' "${TMPDIR:-/tmp}/vg.$$" | head -n 20
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
	rm -f "${TMPDIR:-/tmp}/vg.$$"
done <<EOF2
full-sweep all-evals|matrix full-sweep --config-files $masters --runner-config configs/runners.yaml --all-evals
full-sweep evals-only|matrix full-sweep --config-files $masters --runner-config configs/runners.yaml --evals-only --runner-node-filter amd
test-config node filter|matrix test-config --config-files $masters --runner-config configs/runners.yaml --config-keys * --runner-node-filter mi
validate with problems|validate --config-files $inv/i01-conc-list-and-range.yaml $inv/i22-mn-agentic-explicit-pp.yaml $inv/i30-not-a-mapping.yaml configs/nope.yaml --runner-config $inv/r05-hardware-gpus-zero.yaml
generation error|matrix full-sweep --config-files $inv/g02-mn-agentic-prefill-misaligned.yaml --runner-config tests/golden/matrix/synthetic/runners.yaml
usage error|matrix full-sweep --config-files configs/amd-master.yaml --max-conc abc
EOF2
# the simulator under valgrind, driven through bash's /dev/tcp
log=${TMPDIR:-/tmp}/vg-sim.$$
portfile=${TMPDIR:-/tmp}/vg-sim-port.$$
rm -f "$portfile"
valgrind -q --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all \
	"$bin" sim --port 0 --port-file "$portfile" --time-scale 20 --duration 60 \
	--spec-method mtp --num-spec-tokens 2 --drop-rate 0.3 --malformed-rate 0.3 --seed 9 \
	>/dev/null 2>"$log" &
vgpid=$!
for _ in $(seq 1 400); do [ -s "$portfile" ] && break; sleep 0.05; done
port=$(cat "$portfile" 2>/dev/null)
send() { # send BODY PATH: one request on a new connection, the answer on stdout
	exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
	printf 'POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
		"$2" "${#1}" "$1" >&3
	cat <&3
	exec 3<&-
}
answers=0
if [ -n "$port" ]; then
	for i in 1 2 3 4 5 6; do
		send '{"prompt": "hello", "max_tokens": 20, "stream": true, "stream_options": {"include_usage": true}, "ignore_eos": true}' /v1/completions | grep -q 'HTTP/1.1 200' && answers=$((answers + 1))
	done
	send '{"messages": [{"role": "user", "content": "hi"}], "max_tokens": 5}' /v1/chat/completions | grep -q 'HTTP/1.1 200' && answers=$((answers + 1))
	send '{"prompt": ' /v1/completions | grep -q 'HTTP/1.1 400' && answers=$((answers + 1))
	send '' /metrics | grep -q 'HTTP/1.1 405' && answers=$((answers + 1))
fi
kill -TERM "$vgpid" 2>/dev/null
wait "$vgpid"
if [ "$answers" = 9 ] && ! grep -q '==[0-9]*==' "$log"; then
	pass=$((pass + 1))
else
	echo "FAIL simulator under valgrind: $answers of 9 answers"
	grep '==[0-9]*==' "$log" | head -n 20
	fail=$((fail + 1))
fi
rm -f "$log" "$portfile"

# the client under valgrind against a paced, tracing simulator under valgrind:
# prompt threads, the profiler calls, LoRA names, the trace
tok=$root/fixtures/tokenizers/llama3
if [ -f "$tok/tokenizer.json" ]; then
	slog=${TMPDIR:-/tmp}/vg-psim.$$ blog=${TMPDIR:-/tmp}/vg-bench.$$ trace=${TMPDIR:-/tmp}/vg-trace.$$
	rm -f "$portfile"
	valgrind -q --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all \
		"$bin" sim --port 0 --port-file "$portfile" --pace 100 --trace "$trace" --lora-modules ada \
		--served-model-name m --duration 300 >/dev/null 2>"$slog" &
	vgpid=$!
	for _ in $(seq 1 400); do [ -s "$portfile" ] && break; sleep 0.05; done
	valgrind -q --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all --error-exitcode=99 \
		"$bin" bench --model m --tokenizer "$tok" --port "$(cat "$portfile" 2>/dev/null)" \
		--dataset-name random --random-input-len 48 --random-output-len 4 --num-prompts 6 \
		--max-concurrency 3 --num-warmups 1 --use-chat-template --prompt-threads 2 --random-num-workers 2 \
		--profile --lora-modules ada m --ignore-eos >/dev/null 2>"$blog"
	rc=$?
	kill -TERM "$vgpid" 2>/dev/null
	wait "$vgpid"
	lines=$(wc -l <"$trace" 2>/dev/null)
	if [ "$rc" = 0 ] && [ "${lines:-0}" -ge 6 ] && ! grep -q '==[0-9]*==' "$slog" "$blog"; then
		pass=$((pass + 1))
	else
		echo "FAIL client and paced simulator under valgrind: exit $rc, ${lines:-0} trace lines"
		grep -h '==[0-9]*==' "$slog" "$blog" | head -n 20
		fail=$((fail + 1))
	fi
	rm -f "$slog" "$blog" "$trace" "$portfile"
else
	echo "FAIL client under valgrind: fixtures missing (make fixtures)"
	fail=$((fail + 1))
fi

echo "valgrind: $pass passed, $fail failed"
[ "$fail" = 0 ]
