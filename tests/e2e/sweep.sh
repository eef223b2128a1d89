#!/usr/bin/env bash
# End-to-end checks of `infbench sweep` (issue 31, item 4) against
# `infbench sim`: one command from the endpoint to DIR/report.html with the
# concurrencies' points, each marked simulated (checked in headless
# Chromium); a second run reuses every point; request rates; a dead endpoint
# and bad flags; and `infbench report` of raw `bench` results (a file, a
# folder of them).
# Usage: tests/e2e/sweep.sh INFBENCH    Ends with "sweep: N passed, N failed".
. "$(dirname "$0")/lib.sh" sweep "$1"
e2e_tmp
e2e_need_tok skip
shots=$root/build/sweep-e2e
mkdir -p "$shots"
rows() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["rows"]))' "$1" 2>/dev/null; }

e2e_start_sim --time-scale 50
[ -n "$port" ] || { no "the simulator did not start: $(tail -3 "$tmp/sim.err")"; e2e_end; exit; }
sweep() { "$bin" sweep --base-url "http://127.0.0.1:$port" --model llama3-8b --tokenizer "$tok" \
	--random-input-len 128 --random-output-len 32 --disable-tqdm "$@"; }
sweep --concurrencies 1,2,4 --results "$tmp/res" >"$tmp/s1.out" 2>"$tmp/s1.err"
rc=$?
check '[ $rc = 0 ] && [ -s "$tmp/res/report.html" ]' "sweep wrote DIR/report.html (rc $rc): $(tail -3 "$tmp/s1.err")"
check '[ "$(ls "$tmp/res"/agg_conc*.json | wc -l)" = 3 ] && [ "$(grep -l "\"simulated\": true" "$tmp/res"/agg_conc*.json | wc -l)" = 3 ]' \
	"three agg rows, each marked simulated"
check 'grep -q "3 points (3 run, 0 reused, 0 failed), 3 drawn (simulated" "$tmp/s1.err"' "the summary line: $(tail -1 "$tmp/s1.err")"
check '[ ! -s "$tmp/s1.out" ]' "nothing on stdout"
"$bin" report "$tmp/res" --format json -o "$tmp/res.json" 2>/dev/null
check '[ "$(rows "$tmp/res.json")" = 3 ]' "the report's data holds the 3 points"
sweep --concurrencies 1,2,4 --results "$tmp/res" >/dev/null 2>"$tmp/s2.err"
rc=$?
check '[ $rc = 0 ] && grep -q "3 points (0 run, 3 reused, 0 failed), 3 drawn (simulated" "$tmp/s2.err"' \
	"a second sweep reuses every point: $(tail -1 "$tmp/s2.err")"
sweep --concurrencies 2 --request-rates 2 --prompts-per-conc 4 --results "$tmp/rate" >/dev/null 2>"$tmp/s3.err"
rc=$?
check '[ $rc = 0 ] && [ -s "$tmp/rate/agg_rate2-conc2.json" ] && grep -q "\"num_prompts\": 8" "$tmp/rate/rate2-conc2.json"' \
	"--request-rates: rate2-conc2 with 4 x 2 prompts: $(tail -2 "$tmp/s3.err")"
# a dead endpoint: every request fails; no row, no report, exit 1
"$bin" sweep --base-url "http://127.0.0.1:1" --model llama3-8b --tokenizer "$tok" --concurrencies 1 \
	--random-input-len 64 --random-output-len 8 --results "$tmp/dead" --disable-tqdm >/dev/null 2>"$tmp/d.err"
rc=$?
check '[ $rc = 1 ] && grep -q "conc1: failed" "$tmp/d.err" && [ ! -e "$tmp/dead/report.html" ]' \
	"a dead endpoint: the point fails, no report, exit 1"
: >"$tmp/afile"
sweep --concurrencies 1 --results "$tmp/afile/x" >/dev/null 2>"$tmp/u.err"
rc=$?
check '[ $rc = 1 ] && grep -q afile "$tmp/u.err" && ! grep -q "prompts at" "$tmp/u.err"' "an unusable results folder fails before any point"
sweep --concurrencies 0 --results "$tmp/z" >/dev/null 2>"$tmp/z.err"
rc=$?
check '[ $rc = 2 ] && grep -q "concurrencies" "$tmp/z.err"' "a bad concurrency is a usage error"

# --- report of raw bench results
mkdir -p "$tmp/raw"
cp "$tmp/res"/conc*.json "$tmp/raw/"
"$bin" report "$tmp/raw" --format json -o "$tmp/raw.json" 2>"$tmp/raw.err"
rc=$?
check '[ $rc = 0 ] && [ "$(rows "$tmp/raw.json")" = 3 ]' "report of a folder of raw results: 3 rows: $(cat "$tmp/raw.err")"
"$bin" report "$tmp/raw/conc4.json" -o "$tmp/one.html" 2>"$tmp/one.err"
rc=$?
check '[ $rc = 0 ] && [ -s "$tmp/one.html" ]' "report of one raw result: $(cat "$tmp/one.err")"

cat >"$tmp/checks.json" <<'EOJ'
[{"what": "the three concurrencies' points are drawn", "js": "(() => { const t = [...document.querySelectorAll('#chartA .pt')].length; return t === 3 || t; })()"},
 {"what": "each is marked simulated (dashed ring)", "js": "document.querySelectorAll('#chartA .simring').length === 3"},
 {"what": "the notice says 3 of 3 simulated", "js": "/3 of 3 point\\(s\\) come from infbench sim/.test(document.getElementById('simnote').textContent)"},
 {"what": "the concurrencies 1, 2, 4 are the rows", "js": "(() => { const c = [...document.querySelectorAll('#chartA .pt')].map((p) => { const b = p.getBoundingClientRect(); p.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: b.x + 2, clientY: b.y + 2})); return +(/Concurrency: (\\d+)/.exec(document.getElementById('tip').textContent) || [0, 0])[1]; }).sort((a, b) => a - b).join(','); return c === '1,2,4' || c; })()"}]
EOJ
e2e_cdp_checks "$tmp/res/report.html" "$tmp/checks.json" "$shots/sweep-"
e2e_end
