#!/usr/bin/env bash
# End-to-end checks of `infbench compare`'s verdict mode (issue 31, item 5):
# a plain table of the metrics that matter, changes within noise uncoloured,
# one verdict line, exit 1 on a significant regression with
# --fail-on-regression; the default (not a terminal) stays the reference's
# markdown, byte for byte the same as --markdown; a terminal gets the verdict
# with ANSI colour on the significant changes only; an agg file and a run
# store are read as results.
# Usage: tests/e2e/compare_verdict.sh INFBENCH    Ends with "compare-verdict: N passed, N failed".
. "$(dirname "$0")/lib.sh" compare-verdict "$1"
e2e_tmp
tpl=$root/tests/golden/results/cases/pr-009-extra-result-keys-ignored/expected/agg_dsr1_1k1k_fp8_vllm_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc8_h200-cw_00.json
mkdir -p "$tmp/cur" "$tmp/ok"
python3 - "$tpl" "$tmp" <<'PY'
import json, sys, copy
t = json.load(open(sys.argv[1])); d = sys.argv[2]
t.pop("client_bound", None)
def row(conc, **scale):
    r = copy.deepcopy(t); r["conc"] = conc
    for k, f in scale.items():
        r[k.replace("p99_", "p99_")] = r[k] * f
    return r
base = [row(8), row(16), row(32)]
cur = [row(8, tput_per_gpu=0.98),                       # -2 %: noise
       row(16, median_ttft=3.5, p99_ttft=3.0),          # TTFT +250 %: a regression
       row(32, tput_per_gpu=1.2),                       # +20 %: an improvement
       row(64)]                                          # no baseline
json.dump(base, open(d + "/base.json", "w"))
json.dump(cur, open(d + "/cur/agg_bmk.json", "w"))
json.dump([cur[0], cur[2], cur[3]], open(d + "/ok/agg_bmk.json", "w"))
json.dump([row(8), row(16), row(32)], open(d + "/same.json", "w"))
PY
# the default off a terminal: the reference's markdown, = --markdown
"$bin" compare "$tmp/cur" --baseline "$tmp/base.json" >"$tmp/d.out" 2>"$tmp/d.err"
rc=$?
check '[ $rc = 0 ] && head -1 "$tmp/d.out" | grep -q "^## Single-Node Comparison vs. Most Recent" && grep -q "color{red}" "$tmp/d.out"' \
	"the default is the reference's markdown ($(head -c 200 "$tmp/d.err"))"
"$bin" compare "$tmp/cur" --baseline "$tmp/base.json" --markdown >"$tmp/m.out" 2>/dev/null
check 'cmp -s "$tmp/d.out" "$tmp/m.out"' "--markdown = the default, byte for byte"
# the verdict
"$bin" compare "$tmp/cur" --baseline "$tmp/base.json" --verdict >"$tmp/v.out" 2>"$tmp/v.err"
rc=$?
check '[ $rc = 0 ] && grep -q "^Verdict: REGRESSION: 2 significant regressions (beyond +-5%) in 1 of 3 configurations compared; worst: TTFT Median (ms) +250.0% on H200 VLLM FP8 TP8 EP1 1024/1024 conc 16; 1 improvement; 1 without a baseline$" "$tmp/v.out"' \
	"the verdict line (rc $rc): $(grep Verdict "$tmp/v.out")"
check '! grep -q "color{" "$tmp/v.out" && ! grep -qF "\$" "$tmp/v.out" && ! grep -q $'"'"'\033'"'"' "$tmp/v.out" && [ "$(awk "{ if (length > m) m = length } END { print m }" "$tmp/v.out")" -lt 400 ]' \
	"a plain table: no LaTeX, no escape codes off a terminal, lines under 400 characters"
check 'grep "conc 8 " "$tmp/v.out" | grep -q "(-2.0%)" && grep "conc 64" "$tmp/v.out" | grep -vq "%"' \
	"the -2 % change is shown; the row without a baseline has values only"
check '[ "$(head -1 "$tmp/v.out" | tr -s " ")" = "configuration TPUT/GPU TTFT Median (ms) TTFT P99 (ms) Intvty Median E2EL Median (s)" ]' \
	"the metrics that matter: $(head -1 "$tmp/v.out")"
"$bin" compare "$tmp/cur" --baseline "$tmp/base.json" --verdict --fail-on-regression >/dev/null 2>&1
rc=$?
check '[ $rc = 1 ]' "--fail-on-regression: exit 1 on the regression"
"$bin" compare "$tmp/cur" --baseline "$tmp/base.json" --verdict --fail-on-regression --threshold 300 >"$tmp/t.out" 2>&1
rc=$?
check '[ $rc = 0 ] && grep -q "^Verdict: no significant change: 3 configurations compared, every change within noise (beyond +-300%)" "$tmp/t.out"' \
	"--threshold 300: nothing significant: $(grep Verdict "$tmp/t.out")"
"$bin" compare "$tmp/ok" --baseline "$tmp/base.json" --verdict --fail-on-regression >"$tmp/o.out" 2>&1
rc=$?
check '[ $rc = 0 ] && grep -q "^Verdict: IMPROVED: 1 significant improvement" "$tmp/o.out"' "an improvement alone: exit 0: $(grep Verdict "$tmp/o.out")"
# an agg file as RESULTS_DIR; identical values: +0.0 %, never -0.0
"$bin" compare "$tmp/same.json" --baseline "$tmp/base.json" --verdict >"$tmp/s.out" 2>&1
rc=$?
check '[ $rc = 0 ] && grep -q "(+0.0%)" "$tmp/s.out" && ! grep -q -- "-0\.0" "$tmp/s.out" && grep -q "^Verdict: no significant change: 3 configurations" "$tmp/s.out"' \
	"an agg file is read; equal values are +0.0%: $(grep Verdict "$tmp/s.out")"
# a run store: only its agg_*.json files
mkdir -p "$tmp/store/rows/abc"
: >"$tmp/store/manifest.jsonl"
python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))[1], open(sys.argv[2], "w"))' "$tmp/cur/agg_bmk.json" "$tmp/store/rows/abc/agg_x.json"
echo '{"identity": "abc"}' >"$tmp/store/rows/abc/identity.json"
echo '{"model_id": "m", "completed": 1}' >"$tmp/store/rows/abc/x.json"
"$bin" compare "$tmp/store" --baseline "$tmp/base.json" --verdict >"$tmp/st.out" 2>"$tmp/st.err"
rc=$?
check '[ $rc = 0 ] && grep -q "^Verdict: REGRESSION" "$tmp/st.out" && grep -q "1 matched, 0 unmatched out of 1" "$tmp/st.err"' \
	"a run store: its one agg row is compared: $(cat "$tmp/st.err")"
# a terminal: the verdict by default, ANSI colour only on significant changes
if command -v script >/dev/null; then
	script -qec "$bin compare $tmp/cur --baseline $tmp/base.json" /dev/null >"$tmp/tty.out" 2>&1
	check 'grep -q "Verdict: REGRESSION" "$tmp/tty.out" && grep "conc 16" "$tmp/tty.out" | grep -q $'"'"'\033\[31m'"'"' && ! grep "conc 8 " "$tmp/tty.out" | grep -q $'"'"'\033\['"'"'' \
		"on a terminal: the verdict, red on the regression, no colour on the -2 % change"
	NO_COLOR=1 script -qec "$bin compare $tmp/cur --baseline $tmp/base.json" /dev/null >"$tmp/nc.out" 2>&1
	check '! grep -q $'"'"'\033\['"'"' "$tmp/nc.out"' "NO_COLOR turns colour off"
else
	echo "compare-verdict: terminal checks skipped (no script command)"
fi
e2e_end
