#!/usr/bin/env bash
# Golden cases of the report maths (tests/golden/report/README.md) against infbench.
#   tests/golden/run_report.sh BIN [CASES_DIR...]
# Every sub-folder of each CASES_DIR holding a 'function' file is one case
# (default: the public cases copied into tests/golden/report/). The binary
# evaluates and compares each case in C (infbench report-golden); the last
# line is "report: N passed, N failed".
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 1 ] || { echo "usage: run_report.sh BIN [CASES_DIR...]" >&2; exit 2; }
bin=$1
shift
[ $# -ge 1 ] || set -- "$here/report"
cases=()
for dir in "$@"; do
	if [ ! -d "$dir" ]; then
		echo "run_report.sh: no such folder: $dir" >&2
		echo "report: 0 passed, 1 failed"
		exit 1
	fi
	for c in "$dir"/*/; do
		c=${c%/}
		[ -f "$c/function" ] && cases+=("$c")
	done
done
if [ ${#cases[@]} -eq 0 ]; then
	echo "report: 0 passed, 0 failed"
	exit 1
fi
out=$("$bin" report-golden "${cases[@]}")
rc=$?
printf '%s\n' "$out" | grep -v '^ok ' | sed '$d'
last=$(printf '%s\n' "$out" | tail -1)
case $last in
report:*) echo "$last" ;;
*) echo "report: 0 passed, ${#cases[@]} failed"; rc=1 ;;
esac
exit $rc
