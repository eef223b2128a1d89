#!/usr/bin/env bash
# The simulator's own ceiling: `infbench sim --max-speed` (no performance
# model) on one core, read by a trivial streaming reader (bench/sim_reader.c)
# on the other core, at 1, 64, 1024 and 4096 concurrent streams.
# Then real-time capacity: the performance model serving a 72-GPU NVL72
# deployment at full concurrency (DeepSeek-V4 Pro FP4 on GB300,
# Dynamo-SGLang, 15 prefill workers of TP4 + one TP12 decode worker,
# concurrency 12000, 8k/1k: the master configs' dsv4-fp4-gb300-dynamo-sglang
# row), read by the same reader with 12000 streams; prints the token events
# per second the model requires for real time, what the simulator achieved,
# their ratio, and the simulator's CPU per event.
# Usage: bench/sim.sh [INFBENCH]   (SECONDS_PER_LEVEL, default 3;
#   SIM_RT_SECONDS window of the real-time case, default 20; SIM_RT_WARM
#   seconds before it, default 15; SIM_RT=0 skips that case;
#   SIM_SEND_THREADS the simulator's --send-threads there, default 0 on
#   2 cores, else one per core left beside the reader's and the loop's, up
#   to 8: the simulator then runs on every core but the reader's)
# Prints SSE events (chunks) per second per level; target >= 400k at 64
# streams and 4096 streams held without errors; real time: ratio >= 1.
# A benchmark: always exits 0 unless it cannot run at all.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/infbench}
secs=${SECONDS_PER_LEVEL:-3}
[ -x "$bin" ] || { echo "no infbench binary at $bin (run make)"; exit 1; }
out=$root/build/bench
mkdir -p "$out"
cc -std=c11 -O2 -Wall -Wextra -Werror "$root/bench/sim_reader.c" -o "$out/sim_reader" || exit 1
pin_sim=() pin_reader=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	pin_sim=(taskset -c 0)
	pin_reader=(taskset -c 1)
fi
portfile=$(mktemp)
rm -f "$portfile"
"${pin_sim[@]}" "$bin" sim --max-speed --port 0 --port-file "$portfile" --duration 600 2>/dev/null &
pid=$!
trap 'kill ${rpid:-} $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$portfile"' EXIT
for _ in $(seq 1 200); do [ -s "$portfile" ] && break; sleep 0.05; done
port=$(cat "$portfile" 2>/dev/null)
[ -n "$port" ] || { echo "the simulator did not start"; exit 1; }
echo "infbench sim --max-speed, ${pin_sim[*]:-unpinned} (reader: ${pin_reader[*]:-unpinned}), ${secs}s per level"
printf '%-8s %14s %8s  %s\n' streams chunks/s errors target
for n in 1 64 1024 4096; do
	line=$("${pin_reader[@]}" "$out/sim_reader" "$port" "$n" "$secs")
	rate=$(sed -n 's/.*events_per_s=\([0-9]*\).*/\1/p' <<<"$line")
	errs=$(sed -n 's/.*errors=\([0-9]*\).*/\1/p' <<<"$line")
	target=""
	[ "$n" = 64 ] && { [ "${rate:-0}" -ge 400000 ] && target="ok (>= 400k)" || target="MISSED (>= 400k)"; }
	[ "$n" = 4096 ] && { [ "${errs:-1}" = 0 ] && target="ok (no errors)" || target="MISSED (errors)"; }
	printf '%-8s %14s %8s  %s\n' "$n" "${rate:-n/a}" "${errs:-n/a}" "$target"
done

[ "${SIM_RT:-1}" = 0 ] && exit 0
kill $pid 2>/dev/null
wait $pid 2>/dev/null
# ---- real-time capacity with the performance model ----
rt_secs=${SIM_RT_SECONDS:-20}
rt_warm=${SIM_RT_WARM:-15}
conc=12000
ncpu=$(nproc)
sthreads=${SIM_SEND_THREADS:-$((ncpu > 2 ? (ncpu - 2 > 8 ? 8 : ncpu - 2) : 0))}
pin_rt=("${pin_sim[@]}")
if [ "$sthreads" -gt 0 ] && [ ${#pin_sim[@]} -gt 0 ]; then
	pin_rt=(taskset -c "0,2-$((ncpu - 1))") # every core but the reader's (1)
	[ "$ncpu" -le 2 ] && pin_rt=()
fi
command -v curl >/dev/null || { echo "real time: no curl to read /metrics; skipped"; exit 0; }
rm -f "$portfile"
# the row's serving shape, as `infbench run` configures the simulator for it
# (src/run/row.c row_sim_argv): configs/nvidia-master.yaml
# dsv4-fp4-gb300-dynamo-sglang, conc-list [12000] (18 nodes x 4 GPUs)
"${pin_rt[@]}" "$bin" sim --send-threads "$sthreads" --model dsv4 --hardware gb300 --precision fp4 --framework sglang \
	--framework-version v0.5.14 --tp 12 --ep 12 --dp-attention --prefill-workers 15 \
	--prefill-tp 4 --prefill-ep 4 --prefill-dp-attention --max-num-seqs $conc \
	--served-model-name deepseek-ai/DeepSeek-V4-Pro --port 0 --port-file "$portfile" \
	--duration $((rt_warm + rt_secs + 120)) 2>/dev/null &
pid=$!
for _ in $(seq 1 200); do [ -s "$portfile" ] && break; sleep 0.05; done
port=$(cat "$portfile" 2>/dev/null)
[ -n "$port" ] || { echo "the simulator (performance model) did not start"; exit 0; }
# server-side figures: model clock, generation tokens, rebased steps,
# requests running + waiting; then the process's CPU (user, system ticks)
# and its run-queue wait (ns, /proc/PID/schedstat); then the wall clock
sample() {
	curl -s "http://127.0.0.1:$port/metrics" | awk '
		/^infbench:model_clock_seconds/ {c=$2}
		/^vllm:generation_tokens_total/ {g=$2}
		/^infbench:step_rebase_count/ {r=$2}
		/^vllm:num_requests_(running|waiting)/ {q+=$2}
		END {printf "%s %s %s %d ", c, g, r, q}'
	awk '{printf "%s %s ", $14, $15}' "/proc/$pid/stat"
	awk '{printf "%s ", $2}' "/proc/$pid/schedstat" 2>/dev/null || printf '0 '
	date +%s.%N
}
rtout=$(mktemp)
# the reader keeps the 12000 streams open (a new request when one ends)
# for longer than the measurement; the window opens once every request has
# been read and parsed (all 12000 running or waiting), plus $rt_warm s
"${pin_reader[@]}" "$out/sim_reader" "$port" $conc $((rt_warm + rt_secs + 60)) 1024 8192 >"$rtout" &
rpid=$!
t0=$(date +%s)
while :; do
	read -r _ _ _ q _ < <(sample)
	[ "${q:-0}" -ge $conc ] && break
	[ $(($(date +%s) - t0)) -ge 120 ] && break
	sleep 0.5
done
sleep "$rt_warm"
read -r c0 g0 r0 q0 u0 s0 w0 t0 < <(sample)
sleep "$rt_secs"
read -r c1 g1 r1 q1 u1 s1 w1 t1 < <(sample)
kill -TERM $rpid 2>/dev/null
wait $rpid 2>/dev/null
rerr=$(sed -n 's/.*errors=\([0-9]*\).*/\1/p' "$rtout")
rm -f "$rtout"
hz=$(getconf CLK_TCK)
echo
echo "real time: dsv4-fp4-gb300-dynamo-sglang (72 GPUs: 15 x TP4 prefill + TP12 decode), $conc streams of 8192/1024 tokens"
echo "  ${pin_rt[*]:-unpinned}, --send-threads $sthreads (reader: ${pin_reader[*]:-unpinned}), window of ${rt_secs}s from ${rt_warm}s after all $conc requests were read"
awk -v c0="$c0" -v c1="$c1" -v g0="$g0" -v g1="$g1" -v r0="$r0" -v r1="$r1" -v q1="$q1" \
	-v rerr="${rerr:-n/a}" -v u0="$u0" -v u1="$u1" -v s0="$s0" -v s1="$s1" -v w0="$w0" -v w1="$w1" -v t0="$t0" -v t1="$t1" -v hz="$hz" 'BEGIN {
	model = c1 - c0; tok = g1 - g0; wall = t1 - t0
	user = (u1 - u0) / hz; sys = (s1 - s0) / hz; cpu = user + sys; waitq = (w1 - w0) * 1e-9
	if (model <= 0 || tok <= 0 || wall <= 0) { print "  no measurement (model " model " s, " tok " tokens)"; exit }
	req = tok / model; got = tok / wall
	printf "  required (model: token events per model second)  %10.0f ev/s  (%.2f us/event)\n", req, 1e6 / req
	printf "  achieved (events per wall second)                %10.0f ev/s  (%d requests in the engine; reader errors: %s)\n", got, q1, rerr
	printf "  ratio achieved / required                        %10.2f  %s\n", got / req, (got / req >= 0.97 ? "ok (real time)" : "MISSED (behind real time)")
	printf "  model seconds per wall second                    %10.2f  (steps rebased: %d)\n", model / wall, r1 - r0
	printf "  simulator CPU per event                          %10.2f us  (user %.1f s, system %.1f s: %.0f %% in the kernel)\n", cpu * 1e6 / tok, user, sys, (cpu > 0 ? 100 * sys / cpu : 0)
	printf "  simulator CPU per wall second                    %10.0f %%  (running), %.0f %% runnable but waiting for a core\n", 100 * cpu / wall, 100 * waitq / wall
	printf "  one core at that cost                            %10.0f ev/s  (%.2f x required)\n", tok / cpu, tok / cpu / req
}'
