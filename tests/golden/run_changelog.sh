#!/usr/bin/env bash
# Golden driver for the changelog tools (spec/matrix.md §7.3, G2, G3, G5).
# Usage: run_changelog.sh INFBENCH [DATA_DIR]
#   DATA_DIR: the matrix/ golden folder (configs/ and changelog/ below it;
#   default: the one beside this script).
# Builds the git fixture of §7.3 in a temporary folder (configs copied, tag
# `base`, one tag per pNN.setup.sh snippet), then runs every changelog case
# with the working tree at its head ref:
#   every case: exit status equals .rc
#   rc 0: stdout byte-identical to .out.json
#   rc 1: stdout empty, stderr holds the reference's message (its text after
#         "ValueError: " / "ERROR: ")
# Prints one line per failure and ends with "changelog: N passed, N failed".
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
data=${2:-$(cd "$(dirname "$0")" && pwd)/matrix}
cases=$data/changelog
tmp=$(mktemp -d)
trap "rm -rf $tmp" EXIT
pass=0
fail=0
fail_case() {
	echo "FAIL $1: $2"
	fail=$((fail + 1))
}

if ! command -v git >/dev/null; then
	echo "changelog: SKIP: git is not installed"
	echo "changelog: 0 passed, 0 failed"
	exit 0
fi

repo=$tmp/repo
mkdir -p "$repo/configs"
cp "$data/configs/amd-master.yaml" "$data/configs/nvidia-master.yaml" \
	"$data/configs/runners.yaml" "$data/configs/ci-priority.yaml" "$repo/configs/"
cp "$data/configs/perf-changelog.yaml" "$repo/perf-changelog.yaml"
g() { git -C "$repo" -c user.name=golden -c user.email=golden@example.invalid \
	-c commit.gpgsign=false -c advice.detachedHead=false "$@"; }
g init -q
g add -A
g commit -q -m base
g tag base
for s in "$cases"/p*.setup.sh; do
	tag=$(basename "$s" .setup.sh)
	g checkout -q --detach base
	(cd "$repo" && bash "$s")
	g add -A
	g commit -q --allow-empty -m "$tag"
	g tag "$tag"
done

for cmd in "$cases"/P*.cmd; do
	name=$(basename "$cmd" .cmd)
	mapfile -t words <"$cmd"
	tool=${words[0]}
	args=("${words[@]:1}")
	head=base
	for ((i = 0; i < ${#args[@]}; i++)); do
		[ "${args[$i]}" = --head-ref ] && head=${args[$((i + 1))]}
		case ${args[$i]} in
		WORK/p01.json) args[$i]=$cases/P01-regular-single-node.out.json ;;
		WORK/p05.json) args[$i]=$cases/P05-wildcard-multinode.out.json ;;
		esac
	done
	case $tool in
	process_changelog.py) sub=process ;;
	validate_perf_changelog.py) sub=validate ;;
	ci_priority.py) sub=ci-priority ;;
	*)
		fail_case "$name" "unknown tool $tool"
		continue
		;;
	esac
	g checkout -q --detach "$head"
	(cd "$repo" && "$bin" changelog "$sub" "${args[@]}") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	want_rc=$(cat "$cases/$name.rc")
	if [ "$rc" != "$want_rc" ]; then
		fail_case "$name" "exit $rc, want $want_rc: $(head -c 300 "$tmp/err")"
		continue
	fi
	if [ "$rc" = 0 ]; then
		if ! cmp -s "$tmp/out" "$cases/$name.out.json"; then
			fail_case "$name" "stdout differs from $name.out.json"
			continue
		fi
	else
		if [ -s "$tmp/out" ]; then
			fail_case "$name" "stdout not empty on failure"
			continue
		fi
		want=$(head -n 1 "$cases/$name.errmsg" | sed -e 's/^[A-Za-z]*Error: //' -e 's/^ERROR: //')
		if ! grep -qF -- "$want" "$tmp/err"; then
			fail_case "$name" "stderr lacks '$want': $(head -c 300 "$tmp/err")"
			continue
		fi
	fi
	pass=$((pass + 1))
done
echo "changelog: $pass passed, $fail failed"
[ "$fail" = 0 ]
