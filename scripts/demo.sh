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
echo "Next: 'infbench matrix full-sweep --help'; docs/ has a page per command."
