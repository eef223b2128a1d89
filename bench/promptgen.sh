#!/usr/bin/env bash
# Prompt generation: 5,120 prompts x 8,192 tokens, llama3 tokenizer, chat
# template, the reference's 8-chunk algorithm (--random-num-workers 8), by
# infbench on all cores (its --prompt-threads default) and by the unmodified
# reference function with its 8 worker processes (bench/refgen.sh) on the same
# machine. The prompts' sha256 must agree: both build the same prompts.
# Each side is charged its own generation call: wall time and user + system CPU
# (infbench: the workload's generation_seconds and generation_cpu_seconds, all
# threads; the reference: refgen.sh's seconds and cpu_seconds, its driver, its
# worker processes and their tokenizer servers); ratios are CPU/CPU and
# wall/wall of the same run. Target: infbench >= 30x faster (CPU).
# Usage: bench/promptgen.sh [INFBENCH]
# Env: PROMPTS (5120), ISL (8192); REF_PROMPTS (default PROMPTS, about 5
# minutes here): fewer prompts for the reference, and then the ratio is taken
# at that count, both programs doing the same work (their fixed costs weigh
# more there); REF=0 skips the reference.
# A benchmark: it prints figures and exits 0 unless it cannot run at all.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/infbench}
tok=$root/fixtures/tokenizers/llama3
n=${PROMPTS:-5120} isl=${ISL:-8192}
ref_n=${REF_PROMPTS:-$n}
[ -x "$bin" ] || { echo "no infbench binary at $bin (run make)"; exit 1; }
[ -f "$tok/tokenizer.json" ] || { echo "no tokenizer fixture at $tok (run make fixtures)"; exit 1; }
out=$(mktemp -d)
sim_pid=
trap '[ -n "$sim_pid" ] && kill $sim_pid 2>/dev/null; rm -rf "$out"' EXIT
"$bin" sim --max-speed --port 0 --port-file "$out/port" --served-model-name m --duration 3600 2>/dev/null &
sim_pid=$!
for _ in $(seq 1 200); do [ -s "$out/port" ] && break; sleep 0.05; done
port=$(cat "$out/port" 2>/dev/null)
[ -n "$port" ] || { echo "the simulator did not start"; exit 1; }

field() { # field FILE KEY: a number or string of the result's workload object
	sed -n "s/.*\"workload\": {[^}]*\"$2\": \"\{0,1\}\([^\",}]*\).*/\1/p" "$1" | head -n 1
}

ours() { # ours COUNT NAME: generate COUNT prompts (and send them, 1-2 tokens each)
	"$bin" bench --model m --tokenizer "$tok" --port "$port" --dataset-name random --random-input-len "$isl" \
		--random-output-len 2 --random-range-ratio 0.8 --num-prompts "$1" --max-concurrency 64 --keep-alive \
		--use-chat-template --random-num-workers 8 --disable-tqdm --save-result --result-dir "$out" \
		--result-filename "$2.json" >/dev/null 2>"$out/$2.err"
}

echo "prompt generation: $n prompts x $isl tokens, llama3, chat template, the reference's 8 chunks"
ours "$n" ours
w_ours=$(field "$out/ours.json" generation_seconds)
c_ours=$(field "$out/ours.json" generation_cpu_seconds)
[ -n "$w_ours" ] || { echo "infbench failed: $(tail -n 2 "$out/ours.err")"; exit 1; }
printf '%-44s wall %8.2f s  CPU %8.2f s  (%d CPUs, %s)\n' "infbench" "$w_ours" "${c_ours:-0}" "$(nproc)" \
	"$(field "$out/ours.json" prompts_sha256 | cut -c1-16)"

if [ "${REF:-1}" = 0 ]; then
	echo "(reference not run: REF=0)"
	exit 0
fi
refrun() { # refrun COUNT: "wall_seconds cpu_seconds prompts_sha256" of the reference
	"$root/bench/refgen.sh" --tokenizer llama3 --num-prompts "$1" --input-len "$isl" --output-len 2 \
		--range-ratio 0.8 --workers 8 --chat 2>"$out/ref.err" | tail -n 1 |
		sed -n 's/^seconds=\([0-9.]*\) cpu_seconds=\([0-9.]*\) prompts_sha256=\([0-9a-f]*\).*/\1 \2 \3/p'
}
read -r w_ref c_ref h_ref < <(refrun "$ref_n")
if [ -z "${c_ref:-}" ]; then
	echo "reference not run: $(tail -n 2 "$out/ref.err")"
	exit 0
fi
h_ours=$(field "$out/ours.json" prompts_sha256)
w_cmp=$w_ours c_cmp=$c_ours
label="reference, 8 worker processes"
if [ "$ref_n" != "$n" ]; then
	ours "$ref_n" same
	h_ours=$(field "$out/same.json" prompts_sha256)
	w_cmp=$(field "$out/same.json" generation_seconds)
	c_cmp=$(field "$out/same.json" generation_cpu_seconds)
	label="at $ref_n prompts: reference"
	printf '%-44s wall %8.2f s  CPU %8.2f s\n' "at $ref_n prompts: infbench" "$w_cmp" "$c_cmp"
fi
printf '%-44s wall %8.2f s  CPU %8.2f s  %s\n' "$label" "$w_ref" "$c_ref" "$(printf '%s' "$h_ref" | cut -c1-16)"
printf '%-44s %10s\n' "same prompts (sha256 of all prompts)" "$([ "$h_ref" = "$h_ours" ] && echo yes || echo NO)"
awk -v rc="$c_ref" -v oc="$c_cmp" -v rw="$w_ref" -v ow="$w_cmp" 'BEGIN {
	xc = rc / oc; xw = rw / ow
	printf "%-44s CPU %6.1fx  wall %6.1fx  %s\n", "infbench faster (reference / infbench)", xc, xw,
		(xc >= 30 ? "ok (CPU >= 30x)" : "MISSED (CPU >= 30x)") }'
