#!/usr/bin/env bash
# The main job, as far as infbench goes today: validate the example master
# configs in configs/, then expand them into the sweep matrix.
# Usage: scripts/demo.sh [INFBENCH]   (run from the repository root)
set -euo pipefail
bin=${1:-build/infbench}
out=build/demo
mkdir -p "$out"
masters=(configs/amd-master.yaml configs/nvidia-master.yaml configs/minimaxm3-mtp-master.yaml)

rows() { grep -o '"exp-name"' "$1" | wc -l; }

echo "== 1. validate the master configs and runners.yaml"
"$bin" validate --config-files "${masters[@]}" --runner-config configs/runners.yaml

echo
echo "== 2. the seed key: minimaxm3-fp4-mi355x-vllm-mtp (MI355X, vLLM, EAGLE3, 3 spec tokens)"
"$bin" matrix test-config --config-files "${masters[@]}" --runner-config configs/runners.yaml \
	--config-keys minimaxm3-fp4-mi355x-vllm-mtp --output "$out/seed-matrix.json"
printf '%s rows (1k1k + 8k1k), %s marked for evals -> %s\n' "$(rows "$out/seed-matrix.json")" \
	"$(grep -o '"run-eval": true' "$out/seed-matrix.json" | wc -l)" "$out/seed-matrix.json"

echo
echo "== 3. the full sweep of every config"
start=$(date +%s%N)
"$bin" matrix full-sweep --config-files "${masters[@]}" --runner-config configs/runners.yaml \
	--output "$out/full-sweep.json"
end=$(date +%s%N)
printf '%s rows in %d ms -> %s\n' "$(rows "$out/full-sweep.json")" $(((end - start) / 1000000)) \
	"$out/full-sweep.json"
"$bin" matrix full-sweep --config-files "${masters[@]}" --runner-config configs/runners.yaml \
	--evals-only --output "$out/evals.json"
printf '%s eval rows -> %s\n' "$(rows "$out/evals.json")" "$out/evals.json"

echo
echo "== 4. a bad config is reported with file, line, column, entry and field"
bad=docs/examples/three-problems.yaml
"$bin" validate --config-files "$bad" --runner-config configs/runners.yaml || true
echo
echo "== 5. benchmark the seed recipe against the engine simulator"
# MI355X x8, MiniMax-M3 in MXFP4 with EAGLE3 and 3 draft tokens (the seed key's
# recipe), simulated 20x faster than real time; prompts from the llama3
# tokenizer fixture through its chat template, as the recipe's --use-chat-template.
tokdir=fixtures/tokenizers/llama3
if [ ! -f "$tokdir/tokenizer.json" ]; then
	echo "(skipped: no tokenizer fixtures; 'make fixtures' fetches them)"
else
	portfile=$out/sim.port
	rm -f "$portfile"
	"$bin" sim --model minimax-m3 --hardware mi355x --precision fp4 --tp 8 --spec-method eagle3 \
		--num-spec-tokens 3 --time-scale 20 --port 0 --port-file "$portfile" --duration 600 \
		--served-model-name amd/MiniMax-M3-MXFP4 2>"$out/sim.log" &
	simpid=$!
	trap 'kill $simpid 2>/dev/null' EXIT
	for _ in $(seq 1 200); do [ -s "$portfile" ] && break; sleep 0.05; done
	port=$(cat "$portfile")
	sed -n 's/^infbench sim: /  simulator: /p' "$out/sim.log"
	printf '  %-6s %14s %14s %16s\n' conc "TTFT ms" "tok/s/user" "tok/s/GPU"
	for conc in 1 4 16 64; do
		"$bin" bench --model amd/MiniMax-M3-MXFP4 --tokenizer "$tokdir" --backend vllm \
			--base-url "http://127.0.0.1:$port" --dataset-name random --random-input-len 1024 \
			--random-output-len 1024 --random-range-ratio 0.8 --num-prompts $((conc * 4)) \
			--max-concurrency $conc --request-rate inf --ignore-eos --num-warmups $conc \
			--use-chat-template --save-result --result-dir "$out" --result-filename "bench-c$conc.json" \
			--disable-tqdm >"$out/bench-c$conc.log" 2>&1
		r=$out/bench-c$conc.json
		num() { grep -o "\"$1\": [-0-9.e+]*" "$r" | head -n 1 | sed 's/.*: //'; }
		# model time = measured time x 20; interactivity = 1000 / TPOT; throughput per GPU
		awk -v t="$(num mean_ttft_ms)" -v p="$(num mean_tpot_ms)" -v o="$(num output_throughput)" -v c=$conc \
			'BEGIN { printf "  %-6d %14.1f %14.1f %16.1f\n", c, t * 20, 1000 / (p * 20), o / 20 / 8 }'
	done
	kill $simpid 2>/dev/null
	wait $simpid 2>/dev/null
	trap - EXIT
	echo "  (result JSON per point in $out/bench-c*.json)"
fi

echo
echo "== 6. the report (one self-contained HTML file)"
if [ -n "$(find "$out" -name 'agg_*.json' -print -quit 2>/dev/null)" ]; then
	"$bin" report "$out" -o "$out/report.html" --svg "$out/charts" && echo "report: $out/report.html"
else
	echo "(skipped: no agg_*.json rows in $out yet; 'infbench report DIR -o FILE.html' draws them)"
fi
echo
echo "Next: 'infbench matrix full-sweep --help'; docs/ has a page per command."
