#!/usr/bin/env bash
# End-to-end checks of the eval metadata and the evaluation chart (issue 31,
# item 3): `eval run` against `infbench sim` writes meta_env.json with the
# single-node EP_SIZE and DP_ATTENTION (the reference's bridge loses them),
# and the report's evaluation view in headless Chromium draws one bar per
# configuration (five for five), bars from 0, distinct tick labels, and the
# same rounding (0.925) in the table and on the bar.
# Usage: tests/e2e/eval_meta.sh INFBENCH    Ends with "eval-meta: N passed, N failed".
. "$(dirname "$0")/lib.sh" eval-meta "$1"
e2e_tmp
shots=$root/build/eval-meta-e2e
mkdir -p "$shots"

# --- meta_env.json of a single-node eval
"$bin" eval make-dataset --output "$tmp/ds" --train 40 --test 20 --seed 1 >/dev/null 2>"$tmp/ds.err" ||
	no "eval make-dataset: $(head -c 300 "$tmp/ds.err")"
e2e_start_sim --time-scale 50
[ -n "$port" ] || { no "the simulator did not start: $(tail -3 "$tmp/sim.err")"; e2e_end; exit; }
meta() { # OUT VAR=VALUE...: eval run with those variables; meta_env.json in OUT
	local out=$1
	shift
	env "$@" "$bin" eval run --base-url "http://127.0.0.1:$port" --model llama3-8b --dataset "$tmp/ds" \
		--limit 4 --num-concurrent 2 --output-path "$out" >/dev/null 2>"$out.err"
}
json_field() { python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))[sys.argv[2]]))' "$1" "$2" 2>/dev/null; }
meta "$tmp/e1" TP=8 EP_SIZE=8 DP_ATTENTION=true CONC=4
m=$tmp/e1/meta_env.json
check '[ "$(json_field "$m" ep)" = 8 ] && [ "$(json_field "$m" dp_attention)" = true ]' \
	"EP_SIZE and DP_ATTENTION read into meta_env.json (ep $(json_field "$m" ep), dp $(json_field "$m" dp_attention)): $(tail -2 "$tmp/e1.err")"
check '[ "$(json_field "$m" prefill_ep)" = 8 ] && [ "$(json_field "$m" decode_ep)" = 8 ] && [ "$(json_field "$m" decode_dp_attention)" = true ]' \
	"the prefill and decode sides fall back to them too"
meta "$tmp/e2" TP=8 EP_SIZE=8 DP_ATTENTION=true PREFILL_EP=2 PREFILL_DP_ATTN=false CONC=4
m=$tmp/e2/meta_env.json
check '[ "$(json_field "$m" ep)" = 2 ] && [ "$(json_field "$m" dp_attention)" = false ] && [ "$(json_field "$m" decode_ep)" = 8 ]' \
	"PREFILL_* still win over EP_SIZE/DP_ATTENTION (ep $(json_field "$m" ep))"
meta "$tmp/e3" TP=4 CONC=4
m=$tmp/e3/meta_env.json
check '[ "$(json_field "$m" ep)" = 1 ] && [ "$(json_field "$m" dp_attention)" = false ]' "defaults: ep 1, dp_attention false"

# --- the evaluation chart
python3 - "$tmp/rep/agg_eval_all.json" <<'EOF'
import json, os, sys
rows = []
for tp, ep, dp, sc in [(8, 1, "false", 0.925), (8, 8, "true", 0.93), (4, 4, "true", 0.92), (8, 8, "false", 0.9125), (2, 2, "true", 0.935)]:
    rows.append({"is_multinode": False, "model_prefix": "minimaxm3", "model": "amd/MiniMax-M3-MXFP4", "hw": "MI355X",
                 "framework": "vllm", "precision": "fp4", "spec_decoding": "mtp", "isl": 1024, "osl": 1024, "tp": tp, "ep": ep,
                 "conc": 64, "dp_attention": dp, "task": "gsm8k", "em_strict": sc, "em_strict_se": 0.004, "score": sc,
                 "score_name": "em_strict", "score_se": 0.004, "n_eff": 1319, "source": "eval_%d_%d.json" % (tp, ep)})
os.makedirs(os.path.dirname(sys.argv[1]), exist_ok=True)
json.dump(rows, open(sys.argv[1], "w"))
EOF
"$bin" report "$tmp/rep" -o "$tmp/rep.html" 2>"$tmp/r.err"
rc=$?
check '[ $rc = 0 ] && [ -s "$tmp/rep.html" ]' "report of five eval rows: $(cat "$tmp/r.err")"
cat >"$tmp/checks.json" <<'EOF'
[{"what": "the evaluation tab opens", "js": "(() => { window.infbenchReport.tab('evaluation'); return !!document.querySelector('#evalsvg'); })()"},
 {"what": "five configurations, five bars", "js": "document.querySelectorAll('#evalsvg .evalbar').length === 5 || document.querySelectorAll('#evalsvg .evalbar').length"},
 {"what": "the axis starts at 0", "js": "(() => { const t = [...document.querySelectorAll('#evalsvg .evaltick')].map((e) => e.textContent); return /^0(\\.0+)?$/.test(t[0]) || t; })()"},
 {"what": "tick labels are all different", "js": "(() => { const t = [...document.querySelectorAll('#evalsvg .evaltick')].map((e) => e.textContent); return (t.length > 2 && new Set(t).size === t.length) || t; })()"},
 {"what": "every bar starts at the 0 tick", "js": "(() => { const x0 = +document.querySelector('#evalsvg .evaltick').getAttribute('x'); const xs = [...document.querySelectorAll('#evalsvg .evalbar rect.bar')].map((r) => +r.getAttribute('x')); return xs.every((x) => Math.abs(x - x0) < 0.01) || [x0, xs]; })()"},
 {"what": "0.925 in the table and on its bar", "js": "(() => { const t = [...document.querySelectorAll('#eval-body td.evalscore')].map((e) => e.textContent); const b = [...document.querySelectorAll('#evalsvg .scorelabel')].map((e) => e.textContent); return (t.includes('0.925') && b.includes('0.925')) || [t, b]; })()"}]
EOF
e2e_cdp_checks "$tmp/rep.html" "$tmp/checks.json" "$shots/eval-"
e2e_end
