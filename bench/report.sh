#!/usr/bin/env bash
# bench/report.sh [INFBENCH]: the cost of `infbench report` as rows grow —
# 1,000, 10,000 and 100,000 agg rows (SIZES to change them) of varied
# configurations (GPU, model, framework, precision, TP/EP, spec decoding,
# concurrency, sequence lengths), each drawn into one HTML page. Prints a table
# of wall time, CPU time (user + system), peak memory (GNU time's max RSS) and
# the page's size, with the growth ratio per 10x rows (target: <= 12x time and
# memory). Above 20,000 rows the page is thinned (--max-points, docs/report.md),
# so its size stops growing. SIZES="1000 10000 100000 200000" adds 200k rows.
# Wired into `make bench`. A benchmark, not a test: exits 0.
set -u
bin=$(readlink -f "${1:-build/infbench}")
sizes=${SIZES:-1000 10000 100000}
[ -x "$bin" ] || { echo "report.sh: no binary $bin (make first)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

gen() { # N FILE
	python3 - "$1" "$2" <<'PY'
import json, random, sys
n, path = int(sys.argv[1]), sys.argv[2]
r = random.Random(7)
gpus = ["h100", "h200", "b200", "mi300x", "mi325x", "mi355x"]
models = [("deepseek-ai/DeepSeek-R1-0528", "dsr1"), ("openai/gpt-oss-120b", "gptoss"),
          ("amd/MiniMax-M3-MXFP4", "minimaxm3"), ("Qwen/Qwen3.5-397B-A17B-FP8", "qwen3.5")]
fws = ["vllm", "sglang", "trt"]
rows = []
for i in range(n):
    model, prefix = models[i % len(models)]
    conc = 2 ** (i % 10)
    tput = r.uniform(100, 5000)
    rows.append({"hw": gpus[(i // 10) % len(gpus)], "model": model, "infmax_model_prefix": prefix,
                 "framework": fws[(i // 60) % len(fws)], "precision": ["fp8", "fp4"][(i // 180) % 2],
                 "spec_decoding": ["none", "mtp"][(i // 360) % 2], "tp": [1, 2, 4, 8][(i // 720) % 4],
                 "ep": [1, 8][(i // 2880) % 2], "dp_attention": (i // 5760) % 2 == 1, "disagg": False,
                 "isl": [1024, 8192][(i // 11520) % 2], "osl": 1024, "conc": conc,
                 "image": f"img:{i // 23040}", "tput_per_gpu": tput, "output_tput_per_gpu": tput / 2,
                 "input_tput_per_gpu": tput / 2, "median_intvty": r.uniform(5, 300),
                 "median_e2el": r.uniform(1, 100), "median_ttft": r.uniform(0.05, 5),
                 "median_tpot": r.uniform(0.003, 0.2), "p99_ttft": r.uniform(0.1, 9)})
json.dump(rows, open(path, "w"))
PY
}

printf '%8s %10s %10s %10s %12s %8s %8s\n' rows wall_s cpu_s peak_MB html_MB "x time" "x mem"
prev_t= prev_m=
for n in $sizes; do
	gen "$n" "$tmp/agg_$n.json"
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$bin" report "$tmp/agg_$n.json" -o "$tmp/r.html" \
		>/dev/null 2>"$tmp/err" || { echo "report failed for $n rows: $(tail -c 300 "$tmp/err")"; continue; }
	read -r wall user sys rss <"$tmp/time"
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
	mb=$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')
	html=$(awk -v b="$(stat -c %s "$tmp/r.html")" 'BEGIN { printf "%.1f", b / 1048576 }')
	rt=- rm=-
	if [ -n "$prev_t" ]; then
		rt=$(awk -v a="$cpu" -v b="$prev_t" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')
		rm=$(awk -v a="$mb" -v b="$prev_m" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')
	fi
	printf '%8s %10s %10s %10s %12s %8s %8s\n' "$n" "$wall" "$cpu" "$mb" "$html" "$rt" "$rm"
	prev_t=$cpu prev_m=$mb
	rm -f "$tmp/agg_$n.json" "$tmp/r.html"
done
echo "(growth per 10x rows: CPU time and peak memory; target <= 12x)"
