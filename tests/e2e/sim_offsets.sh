#!/usr/bin/env bash
# Checks of scripts/sim-offsets.py (docs/sim.md "Why the frontier target is out
# of reach of shared parameters"), the analysis of `sim validate --cv` rows
# that says whether a held-out group's offset can be predicted from the other
# groups: on made-up rows whose offsets are known, the oracle removes each
# curve's offset exactly, a predictor whose donors share the offset removes it,
# one whose donors do not leaves it, the age line is fitted on the other groups
# only; bad input is refused with the file, line and reason, exit status 1.
# Usage: tests/e2e/sim_offsets.sh INFBENCH   Ends with "sim_offsets: N passed, N failed".
. "$(dirname "$0")/lib.sh" sim_offsets "$1"
e2e_tmp
py=${PYTHON:-python3}
script=$root/scripts/sim-offsets.py

# Points: the columns the script reads. Curve A (minimax-m2.5 on H100, a blog
# of 2026-05-22) and curve B (minimax-m2.5 on B200, same blog) are both 2x too
# fast; curve C (glm-5 on MI355X, dashboard) is 2x too slow.
{
	printf 'row_id\tseries\tprecision\tframework_or_config_note\tpage_kind\n'
	for i in 1 2 3; do printf '%d\tblog|A\tFP8\tvLLM 2026-05-22\tblog-interpolated\n' "$i"; done
	for i in 4 5 6; do printf '%d\tblog|B\tFP8\tvLLM 2026-05-22\tblog-interpolated\n' "$i"; done
	for i in 7 8 9; do printf '%d\tdata|C\tFP8\tbest available\tcompare\n' "$i"; done
	printf '10\tblog|M\tFP8\tvLLM\tblog-measured\n'
} >"$tmp/points.tsv"
row() { # ID KIND MODEL GPU FW PUB SIM
	printf '%-5s %-9s %-16s %-7s fp8   %-8s 8   1   16  1024/1024 %9s %9s +0.0 nan nan +nan\n' "$@"
}
{
	echo "calibration: cross-validated by model-gpu"
	echo "row   kind      model            gpu     prec  fw       tp  ep conc   isl/osl     pub_tps   sim_tps    err% pub_int sim_int    err%"
	echo "cv fold minimax-m2.5/h100: held out 3 of 10 rows"
	row 1 frontier minimax-m2.5 h100 vllm 100 200
	row 2 frontier minimax-m2.5 h100 vllm 300 600
	row 3 frontier minimax-m2.5 h100 vllm 50 100
	row 4 frontier minimax-m2.5 b200 vllm 100 200
	row 5 frontier minimax-m2.5 b200 vllm 400 800
	row 6 frontier minimax-m2.5 b200 vllm 10 20
	row 7 frontier glm-5 mi355x sglang 100 50
	row 8 frontier glm-5 mi355x sglang 200 100
	row 9 frontier glm-5 mi355x sglang 40 20
	row 10 measured minimax-m2.5 h100 vllm 100 110
} >"$tmp/cv.txt"

"$py" "$script" "$tmp/cv.txt" --points "$tmp/points.tsv" --shifts 2 >"$tmp/out" 2>"$tmp/err"
rc=$?
check '[ $rc -eq 0 ] && [ ! -s "$tmp/err" ]' "the script runs on well-formed rows: $(cat "$tmp/err")"
get() { grep -F "$1" "$tmp/out" | head -1; }
check 'get "frontier rows 9 in 3 published curves, measured rows 1" | grep -q .' \
	"it counts rows and curves: $(head -1 "$tmp/out")"
check 'get "none (the run itself)" | grep -Eq " 100\.0% +10\.0%$"' \
	"the run's own medians (every frontier row 2x off, the measured row +10 %): $(get none)"
check 'get "own median offset" | grep -Eq "median factor 2\.00\) +0\.0%"' \
	"the oracle divides each curve's offset out: $(get 'own median')"
check 'get "the same model on other GPUs, whole" | grep -Eq " 0\.0% "' \
	"the same model on another GPU carries minimax-m2.5's 2x (glm-5 has no donor): $(get 'other GPUs, whole')"
check 'get "the same model on other GPUs, half" | grep -Eq " 41\.4% "' \
	"half of a 2x offset leaves sqrt(2): $(get 'other GPUs, half')"
check 'get "other models on the same framework, any GPU, whole" | grep -Eq " 100\.0% "' \
	"no other model shares a framework here: nothing is corrected: $(get 'same framework, any GPU, whole')"
# The age line: fitted on the other groups' rows only. Held out, each H100 or
# B200 row takes the line through the other GPU's +ln 2 and glm-5's -ln 2 at
# their ages (minimax-m2.5 99 days, glm-5 at the dashboard's date 277 days):
# the line through them gives +ln 2 there, so whole leaves 0 %; glm-5 held out
# finds only one age (the line is flat at +ln 2) and ends 4x off (75 %).
check 'get "age at the build'"'"'s date, whole" | grep -Eq " 0\.0% +\(same\)$"' \
	"the age line, whole: $(get 'date, whole')"
check 'get "age at the build'"'"'s date, half" | grep -Eq " 41\.4% +\(same\)$"' \
	"the age line, half: $(get 'date, half')"
check 'get "rank correlation (Spearman)" | grep -q "age: -1.00 (9 rows)"' \
	"the older rows are the slower ones here, rank for rank: $(get Spearman)"
check 'get "re-dated 2 times" | grep -Eq "[0-9.]+\.\.[0-9.]+%"' "the age check re-dated: $(get 're-dated')"

# Bad input: exit 1, the file (and line) named on stderr, nothing on stdout.
"$py" "$script" "$tmp/missing.txt" --points "$tmp/points.tsv" >"$tmp/out" 2>"$tmp/err"
rc=$?
check '[ $rc -eq 1 ] && grep -q "missing.txt" "$tmp/err" && [ ! -s "$tmp/out" ]' \
	"a missing CV output is named: $(cat "$tmp/err")"
grep -v '^1 ' "$tmp/cv.txt" | grep -v frontier >"$tmp/nofr.txt"
"$py" "$script" "$tmp/nofr.txt" --points "$tmp/points.tsv" >"$tmp/out" 2>"$tmp/err"
rc=$?
check '[ $rc -eq 1 ] && grep -q "no frontier rows (run sim validate without --summary)" "$tmp/err"' \
	"a --summary output is refused with the reason: $(cat "$tmp/err")"
{ cat "$tmp/cv.txt"; row 99 frontier glm-5 mi355x sglang 10 20; } >"$tmp/extra.txt"
"$py" "$script" "$tmp/extra.txt" --points "$tmp/points.tsv" >"$tmp/out" 2>"$tmp/err"
rc=$?
check '[ $rc -eq 1 ] && grep -q "extra.txt:14: row 99 is not in the points file" "$tmp/err"' \
	"a row the points lack is named with its line: $(cat "$tmp/err")"
sed 's/ 800 / eight /' "$tmp/cv.txt" >"$tmp/nan.txt"
"$py" "$script" "$tmp/nan.txt" --points "$tmp/points.tsv" >"$tmp/out" 2>"$tmp/err"
rc=$?
check '[ $rc -eq 1 ] && grep -q "nan.txt:8: pub_tps/sim_tps are not numbers" "$tmp/err"' \
	"a figure that is not a number is named with its line: $(cat "$tmp/err")"
cut -f1,2,3 "$tmp/points.tsv" >"$tmp/short.tsv"
"$py" "$script" "$tmp/cv.txt" --points "$tmp/short.tsv" >"$tmp/out" 2>"$tmp/err"
rc=$?
check '[ $rc -eq 1 ] && grep -q "short.tsv:1: no column framework_or_config_note" "$tmp/err"' \
	"a points file without a needed column is named: $(cat "$tmp/err")"
e2e_end
