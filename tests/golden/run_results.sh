#!/usr/bin/env bash
# Golden result-processing cases (tests/golden/results/) against infbench.
#   tests/golden/run_results.sh BIN [CASES_DIR...]
# (default: results/cases and results/pt-cases, the latter made by
# gen/make_pt_cases.py from the reference's own pytest cases)
# Runs results/run.sh with results-tool.sh and INFBENCH=BIN over the cases of
# the implemented tools; the last line is "results: N passed, N failed".
#
# Implemented: cr- (collect), sr- (success-rate), pr- (process), ap- (power),
# apm- (power --multinode), cmp- (compare), pt- (the reference's own pytest
# cases of process and power, re-expressed as golden cases).
# ce-/vs-/gs- belong to the eval stage and are run by its own driver.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 1 ] || { echo "usage: run_results.sh BIN [CASES_DIR...]" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
[ $# -ge 1 ] || set -- "$here/results/cases" "$here/results/pt-cases"
prefixes=(cr- sr- pr- ap- apm- cmp- pt-)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for dir in "$@"; do
	for c in "$dir"/*/; do
		c=${c%/}
		name=$(basename "$c")
		ok=0
		for p in "${prefixes[@]}"; do [[ $name == "$p"* ]] && ok=1; done
		[ $ok = 1 ] && ln -s "$(cd "$c" && pwd)" "$tmp/$name"
	done
done
out=$(INFBENCH=$bin RUN_ENV_PASS=INFBENCH "$here/results/run.sh" "$here/results-tool.sh" "$tmp")
rc=$?
printf '%s\n' "$out" | sed '$d'
last=$(printf '%s\n' "$out" | tail -1)
echo "results: $last"
exit $rc
