#!/usr/bin/env bash
# End-to-end test of `infbench sim validate` (docs/sim.md "Validation"): the
# simulator's engine model, in process, against the published InferenceX
# measured points in tests/data/sim/points.tsv, with the repository's
# calibration file. Checks the report's shape, that >= 90 % of the measured
# rows run, and that the median absolute errors stay at or below the
# figures docs/sim.md reports (a regression guard on the calibrated model);
# a broken calibration file is refused with its file:line.
# Usage: sim_validate.sh INFBENCH. Ends with "sim_validate: N passed, N failed".
set -u
bin=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
no() {
	echo "FAIL: $1"
	fail=$((fail + 1))
}
cd "$root" || exit 1
"$bin" sim validate --points tests/data/sim/points.tsv >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] && ok || no "validate: exit $rc: $(tail -3 "$tmp/err")"
grep -q '^calibration: configs/sim/calibration.yaml$' "$tmp/out" && ok || no "calibration line"
grep -qE '^147 +measured +minimax-m3 +h200 +fp8 +vllm +8 +1 +4 +1024/1024 +113\.0 ' "$tmp/out" && ok ||
	no "row 147 line: $(grep '^147 ' "$tmp/out")"
line=$(grep -E '^measured +runnable' "$tmp/out")
echo "$line"
run=$(sed -n 's/.*runnable *\([0-9]*\)\/\([0-9]*\).*/\1 \2/p' <<<"$line")
read -r r t <<<"$run"
[ -n "$r" ] && [ $((r * 10)) -ge $((t * 9)) ] && ok || no "runnable measured rows: $run"
mt=$(sed -n 's/.*tok\/s\/GPU APE median *\([0-9.]*\)%.*/\1/p' <<<"$line")
mi=$(sed -n 's/.*interactivity APE median *\([0-9.]*\)%.*/\1/p' <<<"$line")
awk -v m="$mt" 'BEGIN { exit !(m != "" && m <= 8) }' && ok || no "median APE tok/s/GPU $mt% (documented 4.0%, guard 8%)"
awk -v m="$mi" 'BEGIN { exit !(m != "" && m <= 8) }' && ok || no "median APE interactivity $mi% (documented 5.0%, guard 8%)"
grep -qE '^gpu MI355X +runnable' "$tmp/out" && ok || no "per-GPU lines"
# the other kinds are listed with why they cannot run
"$bin" sim validate --points tests/data/sim/points.tsv --all-kinds --summary >"$tmp/all" 2>&1
grep -q 'frontier point' "$tmp/all" && grep -qE '^frontier +runnable +0/' "$tmp/all" && ok || no "--all-kinds reasons"
# a broken calibration file: file:line, exit 1
printf 'rules:\n  - mem-eff: 2\n' >"$tmp/bad.yaml"
"$bin" sim validate --points tests/data/sim/points.tsv --calibration "$tmp/bad.yaml" >/dev/null 2>"$tmp/e"
rc=$?
[ "$rc" = 1 ] && grep -q "bad.yaml:2:.*mem-eff.*out of range" "$tmp/e" && ok || no "bad calibration: exit $rc $(cat "$tmp/e")"
"$bin" sim validate >/dev/null 2>&1
[ $? = 2 ] && ok || no "no --points: usage error"
echo "sim_validate: $pass passed, $fail failed"
[ "$fail" = 0 ]
