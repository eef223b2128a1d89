#!/usr/bin/env bash
# End-to-end test of `infbench sim validate` (docs/sim.md "Validation"): the
# simulator's engine model, in process, against the published InferenceX
# measured points in tests/data/sim/points.tsv, with the repository's
# calibration file. Checks the report's shape, that >= 90 % of the measured
# rows run, and that the median absolute errors stay at or below the
# figures docs/sim.md reports (a regression guard on the calibrated model);
# the frontier and peak path (a sweep per series, the frontier's throughput
# at the published interactivity) on a small subset of the points with a
# reduced sweep; a broken calibration file is refused with its file:line.
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
"$bin" sim validate --points tests/data/sim/points.tsv --kinds measured >"$tmp/out" 2>"$tmp/err"
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
grep -qE '^gpu MI355X measured +runnable' "$tmp/out" && ok || no "per-GPU lines"
grep -qE '^page blog-measured +runnable +96/96 ' "$tmp/out" && ok || no "per-page-kind lines"
# prose rows are listed with why they cannot run
"$bin" sim validate --points tests/data/sim/points.tsv --kinds other --summary >"$tmp/all" 2>&1
grep -q 'a prose claim without a configuration' "$tmp/all" && grep -qE '^other +runnable +0/' "$tmp/all" &&
	ok || no "--kinds other reasons"
# frontier and peak rows: the MiniMax M2.5 H100 blog series (frontier and
# peak), the GLM-5 MI355X MTP / non-MTP frontiers, the MiniMax M3 MI300X
# per-dollar rows (throughput from cost), the DeepSeek R1 MI300X compare rows
# (a series the master configs cover: swept from the matrix); sweeps up to
# concurrency 128, one prompt per unit of concurrency
awk -F'\t' 'NR == 1 || ($3 == "MiniMax M2.5" && $5 == "H100" &&
	($17 == "blog-interpolated" || $17 == "blog-peak")) ||
	($3 == "GLM-5" && $17 == "blog-interpolated") || $17 == "compare-per-dollar" ||
	($17 == "compare" && $5 == "MI300X")' \
	tests/data/sim/points.tsv >"$tmp/sub.tsv"
"$bin" sim validate --points "$tmp/sub.tsv" --sweep-max-conc 128 --sweep-prompts-per-conc 1 \
	>"$tmp/f" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] && ok || no "frontier subset: exit $rc: $(tail -3 "$tmp/err")"
grep -qE '^sweep matrix: [0-9]+ rows from configs/' "$tmp/f" && ok || no "sweep matrix line"
grep -qE '^frontier sweeps: 7 series \(1 from the sweep matrix, 0 of them at another ISL/OSL\), [0-9]+ configs, 1 prompts per concurrency, concurrency 4\.\.128, ' "$tmp/f" &&
	ok || no "sweeps line: $(grep 'frontier sweeps' "$tmp/f")"
line=$(grep -E '^frontier +runnable' "$tmp/f")
echo "$line"
grep -qE 'runnable +26/26 ' <<<"$line" && ok || no "frontier rows runnable: $line"
mt=$(sed -n 's/.*tok\/s\/GPU APE median *\([0-9.]*\)%.*/\1/p' <<<"$line")
awk -v m="$mt" 'BEGIN { exit !(m != "" && m <= 20) }' && ok || no "subset frontier median APE $mt% (5.8% when written, guard 20%)"
grep -qE '^peak +runnable +2/2 ' "$tmp/f" && ok || no "peak rows: $(grep -E '^peak' "$tmp/f")"
grep -qE '^page compare-per-dollar +runnable +3/3 ' "$tmp/f" && ok || no "per-dollar rows (cost -> throughput)"
# without the master configs every series sweeps the generic space
"$bin" sim validate --points "$tmp/sub.tsv" --sweep-max-conc 16 --sweep-prompts-per-conc 1 \
	--no-master-configs --summary >"$tmp/g" 2>&1
grep -qE '^frontier sweeps: 7 series \(0 from the sweep matrix, 0 of them at another ISL/OSL\)' "$tmp/g" && ! grep -q '^sweep matrix' "$tmp/g" &&
	ok || no "--no-master-configs: $(grep 'sweep' "$tmp/g")"
# a frontier row's line: the nearest frontier config, no interactivity error
grep -qE '^[0-9]+ +frontier +glm-5 +mi355x +fp8 +sglang .* nan +\+?nan$' "$tmp/f" && ok ||
	no "frontier row line: $(grep -m1 ' frontier ' "$tmp/f")"
# the sweep is shown on request; an unknown kind is a usage error
"$bin" sim validate --points "$tmp/sub.tsv" --kinds frontier --sweep-max-conc 8 --show-sweeps \
	--sweep-prompts-per-conc 1 --summary >"$tmp/s" 2>&1
grep -qE '^  sweep sglang +mtp +tp 4 ep 4 dpa conc +8 ' "$tmp/s" && grep -q '(the generic space)$' "$tmp/s" &&
	grep -qE "^sweep of row [0-9]+'s series \(deepseek-r1 mi300x fp8 8192/1024\): .*\(the sweep matrix\)$" "$tmp/s" &&
	ok || no "--show-sweeps: $(grep -m3 sweep "$tmp/s")"
# a series the master configs have at another ISL/OSL only (Qwen 3.5 FP4 on
# MI355X at 1k/1k: its recipes are 8k/1k) sweeps those recipes' configs:
# ATOM at TP 2 and 4 without MTP, SGLang with and without it; never ATOM
# with MTP or TP 1, which the generic space would add
awk -F'\t' 'NR == 1 || $1 == 50' tests/data/sim/points.tsv >"$tmp/ow.tsv"
"$bin" sim validate --points "$tmp/ow.tsv" --kinds frontier --sweep-max-conc 8 --show-sweeps \
	--sweep-prompts-per-conc 1 >"$tmp/ow" 2>&1
grep -qE "^sweep of row 50's series \(qwen3.5-397b-a17b mi355x fp4 1024/1024\): .*\(the sweep matrix at another ISL/OSL\)$" "$tmp/ow" &&
	grep -qE '^  sweep atom +- +tp 2 ' "$tmp/ow" && grep -qE '^  sweep sglang +mtp +tp [0-9]' "$tmp/ow" &&
	! grep -qE '^  sweep atom +mtp|^  sweep [a-z]+ +[-a-z0-9]+ +tp 1 ' "$tmp/ow" &&
	grep -qE '^frontier sweeps: 1 series \(1 from the sweep matrix, 1 of them at another ISL/OSL\)' "$tmp/ow" &&
	ok || no "another ISL/OSL: $(grep -m3 sweep "$tmp/ow")"
# disaggregated and multi-node published points (issue 28): a Dynamo peak
# row on GB300 (DeepSeek R1 FP4 8k/1k) runs the master configs' multi-node
# configs of its series (worker counts from their search spaces), a GB200
# DeepSeek R1 FP8 frontier row (no single tray fits it) their frontier; a
# 1k/1k Dynamo peak has no multi-node config there and says so
awk -F'\t' 'NR == 1 || $1 == 453 || $1 == 462 || $1 == 91' tests/data/sim/points.tsv >"$tmp/mn.tsv"
"$bin" sim validate --points "$tmp/mn.tsv" --sweep-prompts-per-conc 1 \
	--sweep-max-conc-multinode 4096 >"$tmp/mn" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] && ok || no "multi-node rows: exit $rc: $(tail -3 "$tmp/err")"
grep -qE '^453 +peak +deepseek-r1 +gb300 +fp4 +trt +[0-9]+ +[0-9]+ +[0-9]+ +8192/1024 +18131\.6 +[0-9.]+ +[-+][0-9.]+ .* [0-9]+P tp [0-9]+ ep [0-9]+( dpa)? \+ [0-9]+D$' "$tmp/mn" &&
	ok || no "disaggregated peak row: $(grep '^453 ' "$tmp/mn")"
grep -qE '^91 +frontier +deepseek-r1 +gb200 +fp8 .* [0-9]+P tp [0-9]+ ep [0-9]+( dpa)? \+ [0-9]+D$' "$tmp/mn" &&
	ok || no "multi-node frontier row: $(grep '^91 ' "$tmp/mn")"
grep -q 'row 462 (blog-peak, .*): the master configs have no multi-node config of this series' "$tmp/mn" &&
	ok || no "peak without multi-node configs: $(grep 'row 462' "$tmp/mn")"
grep -qE '^peak +runnable +1/2 ' "$tmp/mn" && ok || no "peak summary: $(grep -E '^peak' "$tmp/mn")"
# without multi-node configs (or without master configs) they cannot run
"$bin" sim validate --points "$tmp/mn.tsv" --sweep-prompts-per-conc 1 --sweep-max-conc 16 \
	--sweep-max-conc-multinode 0 --summary >"$tmp/mn0" 2>&1
grep -q 'row 453 (blog-peak, .*): a disaggregated recipe: multi-node configs are not swept' "$tmp/mn0" &&
	grep -q 'row 91 (compare, .*): no config of the sweep fits in memory' "$tmp/mn0" &&
	ok || no "--sweep-max-conc-multinode 0: $(grep 'row ' "$tmp/mn0")"
"$bin" sim validate --points "$tmp/mn.tsv" --kinds peak --no-master-configs --summary >"$tmp/mn1" 2>&1
grep -q 'row 453 (blog-peak, .*): a disaggregated recipe: its worker counts come from the master configs' "$tmp/mn1" &&
	ok || no "--no-master-configs: $(grep 'row 453' "$tmp/mn1")"
"$bin" sim validate --points "$tmp/mn.tsv" --sweep-max-conc-multinode 20000 >/dev/null 2>"$tmp/e"
[ $? = 2 ] && grep -q 'sweep-max-conc-multinode' "$tmp/e" && ok || no "--sweep-max-conc-multinode 20000: $(cat "$tmp/e")"
# sim calibrate, frontier level: six measured MiniMax M2.5 H100 rows (the
# measured levels) and the seven MiniMax M3 H100 blog frontier rows (no
# measured rule for that model there: one GPU x model x precision group);
# small sweeps, one prompt per unit of concurrency
awk -F'\t' 'NR == 1 || ($3 == "MiniMax M2.5" && $5 == "H100" && $17 == "blog-measured") ||
	($3 == "MiniMax M3" && $5 == "H100" && $17 == "blog-interpolated")' \
	tests/data/sim/points.tsv >"$tmp/csub.tsv"
copts=(--points "$tmp/csub.tsv" --prompts-per-conc 1 --sweep-max-conc 64 --no-master-configs)
"$bin" sim calibrate "${copts[@]}" --write "$tmp/cal.yaml" >"$tmp/c" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] && ok || no "calibrate: exit $rc: $(tail -3 "$tmp/err")"
grep -qE '^    match: \{framework: \[vllm\], hardware: h100, model: minimax-m3, precision: fp8\}$' \
	"$tmp/cal.yaml" && ok || no "frontier rule: $(grep -A1 'frontier points' "$tmp/cal.yaml")"
line=$(grep -E '^vllm +h100 +minimax-m3 +fp8 +7 +1 +yes ' "$tmp/c")
read -r before after <<<"$(awk '{print $8, $9}' <<<"$line")"
awk -v b="$before" -v a="$after" 'BEGIN { exit !(b != "" && a + 0 < b + 0) }' && ok ||
	no "frontier group line (error should fall): $line"
# the group without a fitted measured rule on its GPU is the only one; a
# rerun writes the same file; --no-frontier writes no frontier rule
"$bin" sim calibrate "${copts[@]}" --write "$tmp/cal2.yaml" >/dev/null 2>&1
cmp -s "$tmp/cal.yaml" "$tmp/cal2.yaml" && ok || no "calibrate is not reproducible"
"$bin" sim calibrate "${copts[@]}" --no-frontier --write "$tmp/cal0.yaml" >"$tmp/c0" 2>&1
! grep -q 'frontier points' "$tmp/cal0.yaml" && ! grep -q '^frontier groups' "$tmp/c0" && ok ||
	no "--no-frontier still fits frontier rules"
# the fitted file loads and brings the group's frontier error down
m() { sed -n 's/^frontier .*tok\/s\/GPU APE median *\([0-9.]*\)%.*/\1/p' "$1"; }
"$bin" sim validate --points "$tmp/csub.tsv" --kinds frontier --sweep-max-conc 64 \
	--sweep-prompts-per-conc 1 --no-master-configs --calibration "$tmp/cal.yaml" --summary >"$tmp/v1" 2>&1
"$bin" sim validate --points "$tmp/csub.tsv" --kinds frontier --sweep-max-conc 64 \
	--sweep-prompts-per-conc 1 --no-master-configs --calibration "$tmp/cal0.yaml" --summary >"$tmp/v0" 2>&1
awk -v a="$(m "$tmp/v1")" -v b="$(m "$tmp/v0")" 'BEGIN { exit !(a != "" && b != "" && a + 0 < b + 0) }' &&
	ok || no "frontier median with / without the frontier rule: $(m "$tmp/v1") / $(m "$tmp/v0")"
"$bin" sim calibrate "${copts[@]}" --sweep-max-conc 2 >/dev/null 2>"$tmp/e"
[ $? = 2 ] && grep -q 'sweep-max-conc' "$tmp/e" && ok || no "--sweep-max-conc 2: $(cat "$tmp/e")"
# cross-validation (--cv): MiniMax M2.5 measured rows at concurrency 4..16 on
# H100 and 4..32 on B200; holding H100 out, the fold fits on the B200 rows
# only, so the H100 rows' figures differ from the in-sample ones (a
# calibration fitted on every row, as sim calibrate --no-frontier fits it)
awk -F'\t' 'NR == 1 || ($17 == "blog-measured" && $3 == "MiniMax M2.5" &&
	(($5 == "H100" && $1 <= 196) || ($5 == "B200" && $1 <= 203)))' \
	tests/data/sim/points.tsv >"$tmp/cv.tsv"
"$bin" sim validate --points "$tmp/cv.tsv" --cv gpu --cv-groups h100 --cv-prompts-per-conc 1 \
	>"$tmp/cv" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] && ok || no "--cv: exit $rc: $(tail -3 "$tmp/err")"
grep -q '^calibration: cross-validated by gpu ' "$tmp/cv" && ok || no "--cv calibration line"
grep -qE '^cv fold h100: held out 3 of 7 rows, fitted on 4 measured rows ' "$tmp/cv" && ok ||
	no "--cv fold line: $(grep 'cv fold' "$tmp/cv")"
! grep -qE '^[0-9]+ +measured +minimax-m2.5 +b200 ' "$tmp/cv" && ok || no "--cv-groups h100 ran B200 rows"
grep -qE '^cv h100 measured +runnable +3/3 .* p90 ' "$tmp/cv" && ok ||
	no "--cv group line: $(grep '^cv ' "$tmp/cv")"
"$bin" sim calibrate --points "$tmp/cv.tsv" --prompts-per-conc 1 --no-frontier --write "$tmp/cvall.yaml" \
	>/dev/null 2>&1
"$bin" sim validate --points "$tmp/cv.tsv" --kinds measured --calibration "$tmp/cvall.yaml" >"$tmp/cvin" 2>&1
sim194() { sed -n 's/^194 .*1024 \+[0-9.]* \+\([0-9.]*\) .*/\1/p' "$1"; }
a=$(sim194 "$tmp/cv")
b=$(sim194 "$tmp/cvin")
[ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ] && ok || no "row 194 out of / in sample: '$a' / '$b'"
# prediction intervals (docs/sim.md "Prediction intervals"): each held-out
# row's interval from the other group's residuals, the held-out coverage,
# the table (the same bytes twice), which the simulator then announces
ivcmd=("$bin" sim validate --points "$tmp/cv.tsv" --cv gpu --cv-prompts-per-conc 1 --kinds measured)
"${ivcmd[@]}" --write-intervals "$tmp/iv.yaml" >"$tmp/iv" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] && [ -s "$tmp/iv.yaml" ] && ok || no "--write-intervals: exit $rc: $(tail -3 "$tmp/err")"
[ "$(grep -cE '^[0-9]+ +(h100|b200) +(h100|b200) +[a-z0-9./]+ +\+[0-9] +tok/s/GPU .*\] pub +[0-9.]+ (in|OUT) +interactivity' "$tmp/iv")" = 7 ] &&
	ok || no "one interval line per held-out row: $(grep -c 'tok/s/GPU' "$tmp/iv")"
grep -qE '^held-out coverage of the 80 % intervals: tok/s/GPU +[0-9.]+% \([0-9]/7\), interactivity +[0-9.]+% \([0-9]/7\)' "$tmp/iv" &&
	ok || no "the held-out coverage line: $(grep -i coverage "$tmp/iv")"
grep -qE '^held-out coverage of the 80 % intervals: .*; p90 [0-9.e+]+x, [0-9.e+]+x$' "$tmp/iv" &&
	ok || no "the coverage line's p90 widths: $(grep -i 'held-out coverage' "$tmp/iv")"
# the candidate widening rules, each with coverage, median and p90 width
# (how SIM_IV_INFLATION, _ADD, _CAP and _MIN_RESIDUALS were chosen)
grep -q '^  widening rules (xF: ' "$tmp/iv" &&
	[ "$(grep -cE '^  (x[0-9.]+|\+[0-9.]+)[a-z0-9 ().*-]* +[0-9.]+% / +[0-9.]+% +[0-9.]+x / +[0-9.]+x +[0-9.e+]+x / [0-9.e+]+x$' "$tmp/iv")" = 13 ] &&
	grep -qE '^  x3 \(before\) ' "$tmp/iv" && grep -qE '^  \+0.75 cap 2 min 12 \* +[0-9]' "$tmp/iv" &&
	ok || no "the candidate rules: $(sed -n '/widening rules/,$p' "$tmp/iv" | head -16)"
grep -q '^inflation: 1$' "$tmp/iv.yaml" && grep -q '^widen-add: 0.75$' "$tmp/iv.yaml" &&
	grep -q '^widen-cap: 2$' "$tmp/iv.yaml" && grep -q '^widen-holds-sim: false$' "$tmp/iv.yaml" &&
	grep -q '^min-residuals: 12$' "$tmp/iv.yaml" &&
	ok || no "the table carries its rule: $(head -12 "$tmp/iv.yaml")"
grep -q '^  - {pool: all, residuals: 7, tput-per-gpu: \[' "$tmp/iv.yaml" && grep -q '^source: "infbench sim validate' "$tmp/iv.yaml" &&
	ok || no "the table: $(head -20 "$tmp/iv.yaml")"
"${ivcmd[@]}" --summary --write-intervals "$tmp/iv2.yaml" >/dev/null 2>&1
sed -i 's/iv2.yaml/iv.yaml/' "$tmp/iv2.yaml"
cmp -s "$tmp/iv.yaml" "$tmp/iv2.yaml" && ok || no "the table is not reproducible: $(diff "$tmp/iv.yaml" "$tmp/iv2.yaml" | head -5)"
"$bin" sim --port 0 --duration 1 --model minimax-m2.5 --hardware h200 --precision fp8 --intervals "$tmp/iv.yaml" \
	>/dev/null 2>"$tmp/e"
grep -q 'prediction interval (.*pool all, widened 3)' "$tmp/e" && ok ||
	no "the simulator reads the table (H200: no residual, pools under 12: all, +3): $(grep -i interval "$tmp/e")"
"$bin" sim validate --points "$tmp/cv.tsv" --write-intervals "$tmp/x.yaml" >/dev/null 2>"$tmp/e"
[ $? = 2 ] && grep -q 'needs --cv' "$tmp/e" && [ ! -e "$tmp/x.yaml" ] && ok || no "--write-intervals without --cv: $(cat "$tmp/e")"
"$bin" sim validate --points "$tmp/cv.tsv" --cv precision >/dev/null 2>"$tmp/e"
[ $? = 2 ] && grep -q "unknown grouping 'precision'" "$tmp/e" && ok || no "--cv precision: $(cat "$tmp/e")"
"$bin" sim validate --points "$tmp/cv.tsv" --cv-groups h100 >/dev/null 2>"$tmp/e"
[ $? = 2 ] && grep -q 'needs --cv' "$tmp/e" && ok || no "--cv-groups without --cv: $(cat "$tmp/e")"
"$bin" sim validate --points "$tmp/cv.tsv" --cv gpu --cv-groups nosuch >/dev/null 2>"$tmp/e"
[ $? = 1 ] && grep -q 'no rows of the groups nosuch' "$tmp/e" && ok || no "--cv-groups nosuch: $(cat "$tmp/e")"
# a broken master config: file:line, exit 1
printf 'x:\n  image: 1\n' >"$tmp/bad-master.yaml"
"$bin" sim validate --points "$tmp/sub.tsv" --master-configs "$tmp/bad-master.yaml" >/dev/null 2>"$tmp/e"
rc=$?
[ "$rc" = 1 ] && grep -q "bad-master.yaml:2:.*image" "$tmp/e" && ok || no "bad master config: exit $rc $(head -2 "$tmp/e")"
"$bin" sim validate --points "$tmp/sub.tsv" --kinds frontier,bogus >/dev/null 2>"$tmp/e"
[ $? = 2 ] && grep -q "unknown kind 'bogus'" "$tmp/e" && ok || no "--kinds bogus: $(cat "$tmp/e")"
# a broken calibration file: file:line, exit 1
printf 'rules:\n  - mem-eff: 2\n' >"$tmp/bad.yaml"
"$bin" sim validate --points tests/data/sim/points.tsv --calibration "$tmp/bad.yaml" >/dev/null 2>"$tmp/e"
rc=$?
[ "$rc" = 1 ] && grep -q "bad.yaml:2:.*mem-eff.*out of range" "$tmp/e" && ok || no "bad calibration: exit $rc $(cat "$tmp/e")"
"$bin" sim validate >/dev/null 2>&1
[ $? = 2 ] && ok || no "no --points: usage error"
echo "sim_validate: $pass passed, $fail failed"
[ "$fail" = 0 ]
