#!/usr/bin/env bash
# The committed .clang-format holds over the sources: runs `make format-check`
# (clang-format --dry-run --Werror over src/*/*.[ch] and tests/unit/*.c), one
# check per file. Usage: format.sh [INFBENCH] (the binary is not used).
# Ends with "format: N passed, N failed"; skipped when clang-format is missing.
. "$(dirname "$0")/lib.sh" format "${1:-/bin/true}"
command -v clang-format >/dev/null 2>&1 || e2e_skip "clang-format is missing; make deps installs it"
command -v make >/dev/null 2>&1 || e2e_skip "make is missing"
out=$(make --no-print-directory -s -C "$root" format-check 2>&1)
summary=$(printf '%s\n' "$out" | sed -n 's/^format-check: \([0-9]*\) of \([0-9]*\) files differ$/\1 \2/p')
if [ -z "$summary" ]; then
	no "make format-check did not run: $(printf '%s\n' "$out" | tail -n 3)"
else
	read -r nbad ntotal <<<"$summary"
	printf '%s\n' "$out" | sed -n 's/^format-check: \(.*\) differs from .clang-format$/FAIL: \1 differs from .clang-format (make format)/p'
	pass=$((pass + ntotal - nbad))
	fail=$((fail + nbad))
fi
e2e_end
