#!/usr/bin/env bash
# bench/report.sh [INFBENCH]: the cost of `infbench report` as rows grow —
# 1,000, 10,000, 50,000, 100,000 and 200,000 agg rows (SIZES to change them)
# of varied configurations (GPU, model, framework, precision, TP/EP, spec
# decoding, concurrency, sequence lengths), each drawn into one HTML page.
# Prints per size: wall time, CPU time (user + system), CPU µs per row, peak
# memory (GNU time's max RSS) in MB and KB per row, the page's size, and the
# linearity ratio: µs per row against the 10,000-row figure of the same run
# (target: within 1.2x up to 200,000 rows). Above 20,000 rows the page is
# thinned (--max-points, docs/report.md), so its size stops growing.
# Wired into `make bench`. A benchmark, not a test: exits 0.
set -u
bin=$(readlink -f "${1:-build/infbench}")
sizes=${SIZES:-1000 10000 50000 100000 200000}
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

# measure every size, then print (the ratio column needs the 10k figure)
fmt='%8s %8s %8s %8s %9s %8s %8s %7s\n'
lines=() ref=
for n in $sizes; do
	echo "report.sh: $n rows..." >&2
	gen "$n" "$tmp/agg_$n.json"
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$bin" report "$tmp/agg_$n.json" -o "$tmp/r.html" \
		>/dev/null 2>"$tmp/err" || {
		lines+=("report failed for $n rows: $(tail -c 300 "$tmp/err")")
		continue
	}
	read -r wall user sys rss <"$tmp/time"
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
	us=$(awk -v c="$cpu" -v n="$n" 'BEGIN { printf "%.1f", c * 1e6 / n }')
	mb=$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')
	kb=$(awk -v k="$rss" -v n="$n" 'BEGIN { printf "%.2f", k / n }')
	html=$(awk -v b="$(stat -c %s "$tmp/r.html")" 'BEGIN { printf "%.1f", b / 1048576 }')
	[ "$n" = 10000 ] && ref=$us
	lines+=("$n $wall $cpu $us $mb $kb $html")
	rm -f "$tmp/agg_$n.json" "$tmp/r.html"
done
# shellcheck disable=SC2059
printf "$fmt" rows wall_s cpu_s us/row peak_MB KB/row html_MB "x 10k"
for l in "${lines[@]}"; do
	case $l in report*) echo "$l"; continue ;; esac
	set -- $l
	x=$(awk -v u="$4" -v r="$ref" 'BEGIN { if (r > 0) printf "%.2fx", u / r; else printf "-" }')
	# shellcheck disable=SC2059
	printf "$fmt" "$@" "$x"
done
echo "(us/row: CPU time (user + system) per row; x 10k: us/row against the 10,000-row run of"
echo " this invocation, target <= 1.2x up to 200,000 rows; KB/row: peak RSS per row)"
