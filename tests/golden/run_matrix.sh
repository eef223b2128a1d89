#!/usr/bin/env bash
# Golden driver for the matrix generator (spec/matrix.md §7.5, G1–G9).
# Usage: run_matrix.sh INFBENCH [DATA_DIR]
#   DATA_DIR holds cases/ plus the configs the cases name (default: the
#   matrix/ folder beside this script).
# Runs every cases/*.cmd with DATA_DIR as the working directory and checks:
#   every case: exit status equals .rc (G2)
#   rc 0: stdout byte-identical to .out.json (G3)
#   rc 2: stderr has an argparse-style "error:" line (G4)
#   rc 1: stderr names what the reference names (entry key, file, label or
#         value) and the field or rule of the reference's report (G5);
#         stdout is empty (G6)
# Prints one line per failure and ends with "N passed, N failed".
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
data=${2:-$(cd "$(dirname "$0")" && pwd)/matrix}
cd "$data" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

fail_case() {
	echo "FAIL $1: $2"
	fail=$((fail + 1))
}

# Lower-cased, to compare plain words regardless of capitalisation.
lc() { tr '[:upper:]' '[:lower:]'; }

# G5: what the reference's message names must appear in ours.
check_names() {
	local name=$1 errmsg=$2 err=$3
	local first ours want field
	first=$(head -n 1 "$errmsg")
	ours=$(lc <"$err")
	# the entry key, file, runner label or value: the first quoted name
	want=$(printf '%s\n' "$first" | grep -o "'[^']*'" | head -n 1 | tr -d "'")
	if [ -z "$want" ]; then
		# "Config key(s) not found: KEY." names the value without quotes
		want=$(printf '%s\n' "$first" | sed -n 's/.*not found: \([^.]*\)\..*/\1/p')
	fi
	if [ -n "$want" ] && ! grep -qF -- "$(printf '%s' "$want" | lc)" <<<"$ours"; then
		fail_case "$name" "stderr does not name '$want'"
		return 1
	fi
	# the field: the last non-numeric part of each pydantic location line
	local locs
	locs=$(grep -E '^[A-Za-z_][A-Za-z0-9_.:-]*$' "$errmsg" | grep -v 'validation error' || true)
	for loc in $locs; do
		field=$(printf '%s\n' "$loc" | tr '.' '\n' | grep -vE '^[0-9]+$' | tail -n 1)
		if ! grep -qF -- "$(printf '%s' "$field" | lc)" <<<"$ours"; then
			fail_case "$name" "stderr does not name the field '$field'"
			return 1
		fi
	done
	# the rule of a model-level error: one of its hyphenated or quoted names
	local rule words ok=1
	rule=$(grep -o 'Value error, .*\[type=' "$errmsg" | head -n 1)
	if [ -n "$rule" ]; then
		words=$(printf '%s\n' "$rule" | grep -oE "[a-z]+(-[a-z0-9]+)+|'[a-z-]+'|[a-z]+_[a-z]+" | tr -d "'" | sort -u)
		[ -z "$words" ] && words=$(printf '%s\n' "$rule" | grep -oE '[a-z]{5,}' | head -n 3)
		ok=0
		for w in $words; do
			grep -qF -- "$w" <<<"$ours" && ok=1 && break
		done
		if [ "$ok" = 0 ]; then
			fail_case "$name" "stderr does not name the rule ($(echo $words | tr '\n' ' '))"
			return 1
		fi
	fi
	return 0
}

for cmd in cases/*.cmd; do
	name=$(basename "$cmd" .cmd)
	base=${cmd%.cmd}
	mapfile -t args <"$cmd"
	want_rc=$(tr -d '[:space:]' <"$base.rc")
	"$bin" matrix "${args[@]}" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" != "$want_rc" ]; then
		fail_case "$name" "exit status $rc, expected $want_rc; stderr: $(head -c 300 "$tmp/err")"
		continue
	fi
	case $want_rc in
	0)
		if ! cmp -s "$tmp/out" "$base.out.json"; then
			fail_case "$name" "stdout differs from $base.out.json"
			continue
		fi
		;;
	2)
		if ! grep -qE '^[^ ]+( [^ ]+)*: error: ' "$tmp/err"; then
			fail_case "$name" "no 'error:' line on stderr"
			continue
		fi
		;;
	*)
		if [ -s "$tmp/out" ]; then
			fail_case "$name" "stdout is not empty on failure"
			continue
		fi
		check_names "$name" "$base.errmsg" "$tmp/err" || continue
		;;
	esac
	pass=$((pass + 1))
done
echo "matrix golden: $pass passed, $fail failed"
[ "$fail" = 0 ]
