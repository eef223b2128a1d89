#!/usr/bin/env bash
# Differential test against the Python reference generator (needs IX_REF: an
# InferenceX checkout at 843c6254f; python3 with pydantic and PyYAML).
# Usage: IX_REF=path tests/diff/reference.sh INFBENCH
#   1. every line of matrix-cases.txt (arguments, run in tests/golden/matrix)
#   2. FUZZ_SEEDS (default 50) random configs from gen_config.py, each with six
#      argument sets
# For each: same exit status and byte-identical stdout. Ends with
# "reference: N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ref=${IX_REF:?set IX_REF to an InferenceX checkout}/utils/matrix_logic/generate_sweep_configs.py
[ -f "$ref" ] || { echo "no reference generator at $ref"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

compare() { # compare DESCRIPTION ARGS...
	local what=$1
	shift
	python3 "$ref" "$@" >"$tmp/r.out" 2>"$tmp/r.err"
	local r1=$?
	"$bin" matrix "$@" >"$tmp/i.out" 2>"$tmp/i.err"
	local r2=$?
	if [ "$r1" = "$r2" ] && cmp -s "$tmp/r.out" "$tmp/i.out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $what: exit $r1 (reference) / $r2 (infbench)"
		tail -n 1 "$tmp/r.err" | cut -c1-200
		head -n 2 "$tmp/i.err" | cut -c1-200
	fi
}

cd "$here/../golden/matrix" || exit 2
while IFS= read -r line; do
	[ -z "$line" ] && continue
	eval "set -- $line"
	compare "$line" "$@"
done <"$here/matrix-cases.txt"

runners=$here/fuzz-runners.yaml
for seed in $(seq 1 "${FUZZ_SEEDS:-50}"); do
	python3 "$here/gen_config.py" "$seed" "$tmp/fz.yaml" || { fail=$((fail + 1)); continue; }
	for args in "full-sweep" "full-sweep --all-evals" "full-sweep --evals-only --min-conc 4 --max-conc 64" \
		"test-config --config-keys *" "test-config --config-keys * --all-evals --runner-node-filter edge" \
		"full-sweep --runner-node-filter 1 --step-size 3 --max-tp 4 --max-ep 2"; do
		# shellcheck disable=SC2086
		set -f
		compare "seed $seed: $args" $args --config-files "$tmp/fz.yaml" --runner-config "$runners"
		set +f
	done
done
echo "reference: $pass passed, $fail failed"
[ "$fail" = 0 ]
