#!/usr/bin/env bash
# The tokenizer cache (docs/tokenize.md "The tokenizer cache"): how long a
# tokenizer takes to load, and the memory of the process, without the cache
# (tokenizer.json parsed), cold (parsed, then the cache file written) and warm
# (from the cache file), for each fixture tokenizer, beside HuggingFace
# tokenizers' Tokenizer.fromFile (the Rust library behind transformers' fast
# tokenizers, through its node binding; bench/tok_hf.js) where node and
# `make fixtures` allow.
#
#   load CPU ms  in-process, `infbench tokenize --bench` ("load_cpu_s": the
#                --tokenizer lookup, the cache or tokenizer.json,
#                tokenizer_config.json), user + system, median of RUNS processes;
#                "warm wall" is the same load's wall time
#   proc CPU ms  the whole process (`tokenize --text x`: start-up, load, encode,
#                exit), user + system, median of RUNS (bench/lib.sh bench_time)
#   RSS MB       peak resident memory of that process (GNU time), the largest of RUNS
#   HF           one Tokenizer.fromFile in a node process: CPU (all threads)
#                and wall, median of RUNS processes, and the memory it added
#
# CPU is the figure to trust on a shared machine: the wall times move with the
# load. Usage: RUNS=5 bench/tok_cache.sh [INFBENCH]. Target: a warm load in
# <= 50 ms of CPU. A benchmark: prints figures and exits 0; 1 only when it
# cannot run at all.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/infbench}
runs=${RUNS:-5}
INFBENCH=$bin
. "$root/bench/lib.sh"
[ -x "$bin" ] || { echo "no infbench binary at $bin (run make)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'x' >"$tmp/one"
hf=
command -v node >/dev/null && [ -d "$root/fixtures/node_modules/@anush008/tokenizers" ] && hf=yes
gtime=
[ -x /usr/bin/time ] && gtime=/usr/bin/time

# load_ms FIELD FIXTURE CACHE [fresh]: the median of tokenize --bench's FIELD
# (load_s, load_cpu_s) over RUNS processes, ms ("fresh": the cache folder
# emptied before each)
load_ms() {
	local field=$1 fx=$2 c=$3 fresh=${4:-} r v=()
	for ((r = 0; r < runs; r++)); do
		[ -n "$fresh" ] && rm -rf "$c"
		v+=("$("$bin" tokenize --tokenizer "$fx" --bench "$tmp/one" --repeat 1 --tok-cache "$c" |
			sed -n "s/.*\"$field\": \([0-9.]*\).*/\1/p" | awk '{ printf "%.3f\n", $1 * 1000 }')")
	done
	printf '%s\n' "${v[@]}" | bench_median
}

# rss_mb CMD...: the largest peak RSS of RUNS runs, MB
rss_mb() {
	local r m best=0
	[ -n "$gtime" ] || { echo n/a; return; }
	for ((r = 0; r < runs; r++)); do
		m=$("$gtime" -f %M "$@" 2>&1 >/dev/null | tail -n 1)
		[ "$m" -gt "$best" ] 2>/dev/null && best=$m
	done
	awk -v k="$best" 'BEGIN { printf "%.1f\n", k / 1024 }'
}

echo "tokenizer cache: $runs runs per figure; $(nproc) CPUs; load average $(cut -d' ' -f1 /proc/loadavg)"
bench_startup
[ -n "$hf" ] || echo "(no HuggingFace reference: node or fixtures/node_modules missing; run make fixtures)"
printf '%-12s %7s | %8s %8s %8s %8s %9s | %8s %8s %7s %8s | %7s %7s %6s | %8s %8s  %s\n' \
	tokenizer "json MB" "off CPU" "cold CPU" "warm CPU" speedup "warm wall" "off proc" "warm proc" \
	"off RSS" "warm RSS" "HF CPU" "HF wall" "HF MB" "HF/warm" "file MB" target
ran=0
for name in $BENCH_FIXTURES; do
	bench_fixture "$name" || continue
	ran=1
	c=$tmp/cache-$name
	jmb=$(awk -v b="$(stat -c %s "$fx/tokenizer.json")" 'BEGIN { printf "%.1f", b / 1048576 }')
	off=$(load_ms load_cpu_s "$fx" off)
	cold=$(load_ms load_cpu_s "$fx" "$c" fresh)
	warm=$(load_ms load_cpu_s "$fx" "$c")
	warmw=$(load_ms load_s "$fx" "$c")
	fmb=$(find "$c" -name '*.tok' -printf '%s\n' | awk '{ s += $1 } END { printf "%.1f", s / 1048576 }')
	bench_time "$runs" 1 "$bin" tokenize --tokenizer "$fx" --text x --tok-cache off
	offcpu=$BT_CPU_MS
	bench_time "$runs" 1 "$bin" tokenize --tokenizer "$fx" --text x --tok-cache "$c"
	warmcpu=$BT_CPU_MS
	offrss=$(rss_mb "$bin" tokenize --tokenizer "$fx" --text x --tok-cache off)
	warmrss=$(rss_mb "$bin" tokenize --tokenizer "$fx" --text x --tok-cache "$c")
	hfc=n/a hfw=n/a hfmb=n/a vs=n/a
	if [ -n "$hf" ]; then
		hc=() hw=() hm=()
		for ((r = 0; r < runs; r++)); do
			line=$(node "$root/bench/tok_hf.js" load "$fx/tokenizer.json" 2>/dev/null)
			hw+=("$(sed -n 's/.*"load_s":\([0-9.e+-]*\).*/\1/p' <<<"$line" | awk '{ printf "%.3f\n", $1 * 1000 }')")
			hc+=("$(sed -n 's/.*"cpu_s":\([0-9.e+-]*\).*/\1/p' <<<"$line" | awk '{ printf "%.3f\n", $1 * 1000 }')")
			hm+=("$(sed -n 's/.*"rss_mb":\([0-9.e+-]*\).*/\1/p' <<<"$line")")
		done
		hfc=$(printf '%s\n' "${hc[@]}" | bench_median | awk '{ printf "%.1f", $1 }')
		hfw=$(printf '%s\n' "${hw[@]}" | bench_median | awk '{ printf "%.1f", $1 }')
		hfmb=$(printf '%s\n' "${hm[@]}" | bench_median | awk '{ printf "%.1f", $1 }')
		vs=$(bench_ratio "$hfc" "$warm")
	fi
	target=$(awk -v w="$warm" 'BEGIN { print (w <= 50) ? "<=50ms ok" : "<=50ms MISSED" }')
	printf '%-12s %7s | %8.1f %8.1f %8.1f %8s %9.1f | %8.1f %9.1f %7s %8s | %7s %7s %6s | %8s %8s  %s\n' \
		"$name" "$jmb" "$off" "$cold" "$warm" "$(bench_ratio "$off" "$warm")" "$warmw" "$offcpu" \
		"$warmcpu" "$offrss" "$warmrss" "$hfc" "$hfw" "$hfmb" "$vs" "$fmb" "$target"
done
echo "off: no cache (tokenizer.json parsed); cold: parsed, then the cache file written (fsync"
echo "included); warm: from the cache file. load CPU: in-process; proc and RSS: the whole"
echo "'tokenize --text x' process. HF: Tokenizer.fromFile in node (CPU of all its threads, wall),"
echo "the memory it added (node itself not counted)."
[ "$ran" = 1 ] || exit 1
exit 0
