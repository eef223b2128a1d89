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
#   seconds before it, default 15; SIM_RT=0 skips that case)
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
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$portfile"' EXIT
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
command -v curl >/dev/null || { echo "real time: no curl to read /metrics; skipped"; exit 0; }
rm -f "$portfile"
# the row's serving shape, as `infbench run` configures the simulator for it
# (src/run/row.c row_sim_argv): configs/nvidia-master.yaml
# dsv4-fp4-gb300-dynamo-sglang, conc-list [12000] (18 nodes x 4 GPUs)
"${pin_sim[@]}" "$bin" sim --model dsv4 --hardware gb300 --precision fp4 --framework sglang \
	--framework-version v0.5.14 --tp 12 --ep 12 --dp-attention --prefill-workers 15 \
	--prefill-tp 4 --prefill-ep 4 --prefill-dp-attention --max-num-seqs $conc \
	--served-model-name deepseek-ai/DeepSeek-V4-Pro --port 0 --port-file "$portfile" \
	--duration $((rt_warm + rt_secs + 120)) 2>/dev/null &
pid=$!
for _ in $(seq 1 200); do [ -s "$portfile" ] && break; sleep 0.05; done
port=$(cat "$portfile" 2>/dev/null)
[ -n "$port" ] || { echo "the simulator (performance model) did not start"; exit 0; }
scrape() { # model clock, generation tokens, rebased steps
	curl -s "http://127.0.0.1:$port/metrics" | awk '
		/^infbench:model_clock_seconds/ {c=$2}
		/^vllm:generation_tokens_total/ {g=$2}
		/^infbench:step_rebase_count/ {r=$2}
		END {printf "%s %s %s\n", c, g, r}'
}
rtout=$(mktemp)
SIM_PID=$pid WARM_S=$rt_warm "${pin_reader[@]}" "$out/sim_reader" "$port" $conc "$rt_secs" 1024 8192 >"$rtout" &
rpid=$!
sleep "$rt_warm"
read -r c0 g0 r0 < <(scrape)
sleep "$rt_secs"
read -r c1 g1 r1 < <(scrape)
wait $rpid
line=$(cat "$rtout")
rm -f "$rtout"
echo
echo "real time: dsv4-fp4-gb300-dynamo-sglang (72 GPUs: 15 x TP4 prefill + TP12 decode), $conc streams of 8192/1024 tokens"
echo "  ${pin_sim[*]:-unpinned} (reader: ${pin_reader[*]:-unpinned}), ${rt_warm}s warm-up, ${rt_secs}s window"
awk -v c0="$c0" -v c1="$c1" -v g0="$g0" -v g1="$g1" -v r0="$r0" -v r1="$r1" -v secs="$rt_secs" -v line="$line" 'BEGIN {
	n = split(line, kv, /[ =]/)
	for (i = 1; i < n; i += 2) f[kv[i]] = kv[i + 1]
	model = c1 - c0; tok = g1 - g0
	if (model <= 0 || tok <= 0 || f["events"] <= 0) { print "  no measurement: " line; exit }
	req = tok / model; got = f["events_per_s"]; cpu = f["cpu_user"] + f["cpu_sys"]
	printf "  required (model: token events per model second)  %10.0f ev/s  (%.2f us/event)\n", req, 1e6 / req
	printf "  achieved (reader: events per wall second)        %10.0f ev/s  errors %d\n", got, f["errors"]
	printf "  ratio achieved / required                        %10.2f  %s\n", got / req, (got / req >= 0.97 ? "ok (real time)" : "MISSED (behind real time)")
	printf "  model seconds per wall second                    %10.2f  (steps rebased: %d)\n", model / secs, r1 - r0
	printf "  simulator CPU per event                          %10.2f us  (user %.1f s, system %.1f s: %.0f %% in the kernel)\n", cpu * 1e6 / f["events"], f["cpu_user"], f["cpu_sys"], (cpu > 0 ? 100 * f["cpu_sys"] / cpu : 0)
	printf "  one core at that cost                            %10.0f ev/s  (%.2f x required)\n", f["events"] / cpu, f["events"] / cpu / req
}'
