#!/usr/bin/env bash
# Golden eval cases: tests/golden/run_evals.sh BIN [CASES_DIR]
# Runs the gsm8k_score (gs-), validate_scores (vs-) and collect_eval_results
# (ce-) cases of tests/golden/results through results-tool.sh with
# INFBENCH=BIN (infbench eval score / validate / collect).
# Last line: "evals: N passed, N failed".
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=$(cd "$(dirname "${1:?usage: run_evals.sh BIN [CASES_DIR]}")" && pwd)/$(basename "$1")
cases=${2:-$here/results/cases}
pass=0
fail=0
for k in gs- vs- ce-; do
	line=$(INFBENCH=$bin "$here/results/run.sh" -k "$k" "$here/results-tool.sh" "$cases" | tail -n 1)
	set -- $line
	pass=$((pass + ${1:-0}))
	fail=$((fail + ${3:-1}))
done
echo "evals: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
