#!/usr/bin/env bash
# Runs every test suite and ends with one total line "total: N passed, N failed".
# Usage: tests/run.sh INFBENCH UNIT_TESTS
# Suites: tests/golden/run_*.sh and tests/e2e/*.sh, each called with INFBENCH as
# its only argument and ending with a line "<name>: N passed, N failed".
set -u
bin=$1
unit=$2
here=$(cd "$(dirname "$0")" && pwd)
pass=0
fail=0
status=0

# every suite's tokenizer cache (tok.h) goes to a temporary folder: the
# tests never write ~/.cache, and each run starts cold
tok_cache=$(mktemp -d)
export INFBENCH_TOK_CACHE=$tok_cache
trap 'rm -rf "$tok_cache"' EXIT

add() { # add PASSED FAILED
	pass=$((pass + $1))
	fail=$((fail + $2))
}

echo "== unit tests (Criterion, ASan+UBSan)"
t0=$SECONDS
out=$("$unit" -j2 2>&1)
rc=$?
echo "(unit tests: $((SECONDS - t0)) s)"
printf '%s\n' "$out" | grep -vE '^\[----\] .*: Passed$' | tail -n 30
syn=$(printf '%s\n' "$out" | grep 'Synthesis:' | tail -n 1)
t=$(sed -n 's/.*Tested: \([0-9]*\).*/\1/p' <<<"$syn")
p=$(sed -n 's/.*Passing: \([0-9]*\).*/\1/p' <<<"$syn")
if [ -z "$t" ] || [ -z "$p" ]; then
	echo "unit tests did not report a synthesis (exit $rc)"
	add 0 1
	status=1
else
	add "$p" $((t - p))
	[ "$rc" = 0 ] || status=1
fi

suites=("$here"/golden/run_*.sh "$here"/e2e/*.sh)
# the differential test against the Python reference, when one is given
if [ -n "${IX_REF:-}" ]; then
	suites+=("$here/diff/reference.sh" "$here/diff/process_result.sh" "$here/diff/evals.sh")
	suites+=("$here/diff/results.sh")
else
	echo "(IX_REF not set: skipping the differential test against the Python reference)"
fi
for suite in "${suites[@]}"; do
	[ -e "$suite" ] || continue
	[ "$suite" = "$here/e2e/lib.sh" ] && continue # sourced by the suites
	echo "== $(basename "$suite")"
	t0=$SECONDS
	out=$("$suite" "$bin" 2>&1)
	rc=$?
	printf '%s\n' "$out" | tail -n 40
	echo "($(basename "$suite"): $((SECONDS - t0)) s)"
	line=$(printf '%s\n' "$out" | grep -E '[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	p=$(sed -n 's/.* \([0-9]*\) passed.*/\1/p' <<<"$line")
	f=$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' <<<"$line")
	if [ -z "$p" ]; then
		echo "$(basename "$suite") did not report its counts (exit $rc)"
		add 0 1
		status=1
		continue
	fi
	add "$p" "$f"
	[ "$rc" = 0 ] && [ "$f" = 0 ] || status=1
done
echo "total: $pass passed, $fail failed"
exit $status
