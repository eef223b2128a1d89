#!/usr/bin/env bash
# Timing fidelity: 1,024 streams at 50 tokens/s each (51,200 chunks/s)
# from `infbench sim --pace 50` (no model: a step every 20 ms on a fixed
# grid), the simulator on core 0 and the client on core 1. The simulator
# writes each chunk at once and records when it left (--trace); the client's
# TTFT and ITL are compared with that record, gap by gap (bench/fidelity.py).
#   1. infbench bench (its default: the kernel's receive times, SO_TIMESTAMPNS);
#   2. infbench bench --user-timestamps (stamped when read, as the reference);
#   3. the unmodified reference client, when it can run (see bench/client.sh),
#      by distribution (it sends no request ids).
# Targets: client mean ITL within 1% of the true 20 ms; p99 of the per-gap
# error against the server's record < 1 ms.
# Usage: bench/fidelity.sh [INFBENCH]   (needs python3 and make fixtures)
# A benchmark: it prints figures and exits 0 unless it cannot run at all.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
bin=${1:-$root/build/infbench}
tok=$root/fixtures/tokenizers/llama3
ref=${REF_CLIENT:-$root/../shared/tools/reference-client}
[ -d "$ref" ] && ref=$ref/run-python-client.sh
mirror=${IX_MIRROR:-/work/.mirror/SemiAnalysisAI+InferenceX/repo}
streams=${STREAMS:-1024} pace=${PACE:-50} osl=${OSL:-250} prompts=${PROMPTS:-2048}
[ -x "$bin" ] || { echo "no infbench binary at $bin (run make)"; exit 1; }
[ -f "$tok/tokenizer.json" ] || { echo "no tokenizer fixture at $tok (run make fixtures)"; exit 1; }
command -v python3 >/dev/null || { echo "python3 is needed for bench/fidelity.py"; exit 1; }
out=$(mktemp -d)
pin_sim=() pin_client=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	pin_sim=(taskset -c 0)
	pin_client=(taskset -c 1)
fi
sim_pid=
trap '[ -n "$sim_pid" ] && kill $sim_pid 2>/dev/null; rm -rf "$out"' EXIT

start_sim() { # start_sim NAME: a paced simulator tracing into $out/NAME.trace
	rm -f "$out/port"
	"${pin_sim[@]}" "$bin" sim --pace "$pace" --max-num-seqs "$streams" --port 0 --port-file "$out/port" \
		--served-model-name m --trace "$out/$1.trace" --duration 600 2>"$out/$1.sim.err" &
	sim_pid=$!
	for _ in $(seq 1 200); do [ -s "$out/port" ] && break; sleep 0.05; done
	port=$(cat "$out/port" 2>/dev/null)
	[ -n "$port" ] || { echo "the simulator did not start"; exit 1; }
}

stop_sim() { # SIGTERM: the simulator commits its trace and exits
	kill -TERM $sim_pid 2>/dev/null
	wait $sim_pid 2>/dev/null
	sim_pid=
}

report() { # report LABEL NAME RESULT
	local f
	f=$(python3 "$root/bench/fidelity.py" "$out/$2.trace" "$3" --itl-ms "$(awk -v p="$pace" 'BEGIN { print 1000 / p }')") ||
		{ echo "$1: no figures"; return; }
	v() { echo "$f" | sed -n "s/^$1=//p"; }
	printf '%-34s %9.3f %9.3f %8.3f %9.3f %9.3f %9.3f %9.3f  %s\n' "$1" "$(v client_itl_mean)" "$(v server_itl_mean)" \
		"$(v itl_mean_error_pct)" "$(v client_itl_p99)" "$(v server_itl_p99)" "$(v itl_err_p99)" "$(v ttft_err_p99)" \
		"$(awk -v m="$(v itl_mean_error_pct)" -v p="$(v itl_err_p99)" 'BEGIN {
			if (p != p) print (m <= 1 ? "mean ok (unpaired)" : "mean MISSED (unpaired)");
			else print (m <= 1 && p < 1 ? "ok" : "MISSED") }')"
}

cpu_per_chunk() { # cpu_per_chunk RESULT: the client's CPU in its window / chunks, us
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1])); h = r.get("client_health") or {}
n = r.get("total_output_tokens") or 0
w = r.get("wall_duration", r["duration"])
print("%.3f" % (h["client_cpu_percent"] / 100 * w / n * 1e6) if n and "client_cpu_percent" in h else "n/a")' "$1" 2>/dev/null || echo n/a
}

ours() { # ours NAME [FLAGS]
	local name=$1
	shift
	start_sim "$name"
	"${pin_client[@]}" "$bin" bench --model m --tokenizer "$tok" --port "$port" --dataset-name random \
		--random-input-len 16 --random-output-len "$osl" --random-range-ratio 0.8 --num-prompts "$prompts" \
		--max-concurrency "$streams" --ignore-eos --disable-tqdm --save-result --save-detailed \
		--result-dir "$out" --result-filename "$name.json" "$@" >/dev/null 2>"$out/$name.err"
	stop_sim
}

echo "timing fidelity: $streams streams x $pace tok/s against infbench sim --pace $pace" \
	"(sim: ${pin_sim[*]:-unpinned}, client: ${pin_client[*]:-unpinned}); ms"
printf '%-34s %9s %9s %8s %9s %9s %9s %9s  %s\n' client "ITL mean" "true" "err %" "ITL p99" "true p99" \
	"gap err" "TTFT err" "target (mean 1%, p99 gap err < 1 ms)"
printf '%-34s %9s %9s %8s %9s %9s %9s %9s\n' "" "" "" "" "" "" p99 p99
ours kernel
report "infbench bench" kernel "$out/kernel.json"
ours user --user-timestamps
report "infbench bench --user-timestamps" user "$out/user.json"
echo "client CPU per chunk (paced, $streams x $pace tok/s): $(cpu_per_chunk "$out/kernel.json") us" \
	"(kernel timestamps), $(cpu_per_chunk "$out/user.json") us (--user-timestamps)"
if [ -x "$ref" ] && [ -d "$mirror" ] && bench_ref_python aiohttp numpy; then
	start_sim py
	rf=$(IX_MIRROR=$mirror PYTHON=$REF_PY "$ref" --port "$port" --isl 16 --osl "$osl" --num-prompts "$prompts" \
		--concurrency "$streams" --num-warmups 0 --model m --result-dir "$out" --result-filename py.json \
		--prefix "${pin_client[*]}" -- --save-detailed 2>"$out/py.err" | tail -n 1)
	stop_sim
	if [ -s "$rf" ]; then
		report "reference client (by distribution)" py "$rf"
	else
		echo "reference client: no result (see its stderr)"; tail -n 3 "$out/py.err"
	fi
else
	echo "(reference client not run: needs $ref, the mirror $mirror and Debian's python3-aiohttp/-numpy)"
fi
