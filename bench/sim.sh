#!/usr/bin/env bash
# The simulator's own ceiling: `infbench sim --max-speed` (no performance
# model) on one core, read by a trivial streaming reader (bench/sim_reader.c)
# on the other core, at 1, 64, 1024 and 4096 concurrent streams.
# Usage: bench/sim.sh [INFBENCH]   (SECONDS per level, default 3)
# Prints SSE events (chunks) per second per level; target >= 400k at 64
# streams and 4096 streams held without errors. A benchmark: always exits 0
# unless it cannot run at all.
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
