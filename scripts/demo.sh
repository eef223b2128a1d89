#!/usr/bin/env bash
# The main job: validate the example master configs in configs/, expand them
# into the sweep matrix, then sweep the seed key's rows on the simulator with
# infbench run into a resumable results store (build/demo/results).
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
echo "== 5. sweep the seed key on the engine simulator: all its rows, resumable"
# Every row as an InferenceX job runs it (its environment, a server, the client
# with 10 x conc prompts and 2 x conc warmups, result processing), on the
# simulator of MI355X x TP with MiniMax-M3 in MXFP4 and EAGLE3 (3 draft tokens),
# 100x faster than real time, two rows at a time; prompts from the llama3
# tokenizer fixture. Rerunning reuses the rows already in the store
# ($out/results); Ctrl-C stops cleanly and the next run resumes.
tokdir=fixtures/tokenizers/llama3
if [ ! -f "$tokdir/tokenizer.json" ]; then
	echo "(skipped: no tokenizer fixtures; 'make fixtures' fetches them)"
else
	start=$(date +%s)
	rc=0
	"$bin" run "$out/seed-matrix.json" --results "$out/results" --tokenizer "$tokdir" \
		--time-scale "${DEMO_TIME_SCALE:-100}" --jobs "${DEMO_JOBS:-2}" || rc=$?
	end=$(date +%s)
	echo "  $(grep -o '"hw"' "$out/results/agg_bmk.json" | wc -l) agg rows -> $out/results/agg_bmk.json ($((end - start)) s)"
	"$bin" run --status --results "$out/results" | tail -n 1
	if [ -s "$out/results/agg_bmk.json" ]; then
		printf '  %-5s %-18s %12s %14s %14s\n' isl "tp/ep/dpa" conc "tok/s/GPU" "tok/s/user"
		# a few points of the curve (simulator time, see docs/run.md)
		awk '/"isl"/ { gsub(/[,]/, ""); isl = $2 } /"tp"/ { gsub(/[,]/, ""); tp = $2 } /"ep"/ { gsub(/[,]/, ""); ep = $2 }
			/"dp_attention"/ { gsub(/[",]/, ""); dpa = $2 } /"conc"/ { gsub(/[,]/, ""); conc = $2 }
			/"tput_per_gpu"/ { gsub(/[,]/, ""); t = $2 } /"median_intvty"/ { gsub(/[,]/, ""); u = $2;
			if (conc == 1 || conc == 64 || conc == 256) printf "  %-5s %-18s %12s %14.1f %14.1f\n", isl, tp "/" ep "/" dpa, conc, t, u }' \
			"$out/results/agg_bmk.json" | sort -n -k1,1 -k3,3 | head -n 16
	fi
	if [ -s "$out/results/agg_eval_bmk.json" ]; then
		echo "  gsm8k evals of the run-eval rows (the simulator grades at --eval-accuracy 0.93):"
		awk '/"conc"/ { gsub(/[,]/, ""); conc = $2 } /"tp"/ { gsub(/[,]/, ""); tp = $2 }
			/"em_strict":/ { gsub(/[,]/, ""); printf "    tp %s conc %-4s strict-match %.3f\n", tp, conc, $2 }' \
			"$out/results/agg_eval_bmk.json"
	fi
	[ "$rc" = 0 ] || exit "$rc"
fi

echo
echo "== 6. the report (one self-contained HTML file)"
if [ -s "$out/results/agg_bmk.json" ]; then
	# the store's folder: agg_bmk.json and the evals of the run-eval rows (agg_eval_bmk.json)
	"$bin" report "$out/results" -o "$out/report.html" --svg "$out/charts" --title "minimaxm3-fp4-mi355x-vllm-mtp on the simulator"
	echo "report: $(pwd)/$out/report.html"
else
	echo "(skipped: no agg_*.json rows in $out yet; 'infbench report DIR -o FILE.html' draws them)"
fi
echo
echo "Next: 'infbench matrix full-sweep --help'; docs/ has a page per command."
