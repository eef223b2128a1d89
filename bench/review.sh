#!/usr/bin/env bash
# Times `infbench review` over every recipe of the reference's benchmarks/
# tree (files mode) and prints the wall time and the findings per rule.
# Not a test: it never fails on a timing.
# Usage: IX_REF=<checkout or bare mirror of InferenceX> bench/review.sh [INFBENCH]
set -u
bin=${1:-build/infbench}
if [ -z "${IX_REF:-}" ]; then
	echo "bench/review.sh: IX_REF not set (a checkout or bare git mirror of InferenceX); skipped"
	exit 0
fi
ref=$IX_REF
tmp=""
if [ ! -d "$ref/benchmarks" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	git --git-dir="$IX_REF" archive HEAD benchmarks configs | tar x -C "$tmp"
	ref=$tmp
fi
cd "$ref" || exit 1
mapfile -t files < <(find benchmarks -name '*.sh' | sort)
out=$(mktemp)
start=$(date +%s.%N)
"$bin" review --repo . --format json "${files[@]}" >"$out"
rc=$?
end=$(date +%s.%N)
echo "review of ${#files[@]} recipes: $(echo "$end - $start" | bc) s (exit $rc)"
grep -o '"rule": "[a-z-]*"' "$out" | sort | uniq -c | sed 's/"rule": //'
rm -f "$out"
