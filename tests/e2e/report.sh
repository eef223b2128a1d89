#!/usr/bin/env bash
# End-to-end tests of `infbench report`: inputs generated from the matrix of
# configs/ (the demo's 53 rows of minimaxm3-fp4-mi355x-vllm-mtp with evals and
# infbench's client-health / acceptance / workload fields, and 1,820 rows of
# every GPU, framework, precision and spec of the AMD and NVIDIA master
# configs), bad input, the comparison view, SVG and text output, then the
# HTML in headless Chromium (tests/e2e/report_cdp.js; "skipped" when Chromium
# cannot start). Screenshots: build/report-e2e/*.png.
# Usage: tests/e2e/report.sh BIN     (run from the repository root)
set -uo pipefail
bin=${1:?usage: report.sh BIN}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp
shots=build/report-e2e
mkdir -p "$shots"
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() { if eval "$1"; then ok "$2"; else bad "$2"; fi; }

masters=(configs/amd-master.yaml configs/nvidia-master.yaml configs/minimaxm3-mtp-master.yaml)
"$bin" matrix test-config --config-files "${masters[@]}" --runner-config configs/runners.yaml \
	--config-keys minimaxm3-fp4-mi355x-vllm-mtp --output "$tmp/seed-matrix.json" >/dev/null
"$bin" matrix full-sweep --config-files configs/amd-master.yaml configs/nvidia-master.yaml \
	--runner-config configs/runners.yaml --output "$tmp/sweep-matrix.json" >/dev/null
mkdir -p "$tmp/demo" "$tmp/run"
node "$here/report_gen.js" "$tmp/seed-matrix.json" "$tmp/demo/agg_bmk.json" --extras \
	--evals "$tmp/demo/agg_eval_all.json" >/dev/null
node "$here/report_gen.js" "$tmp/seed-matrix.json" "$tmp/run/agg_bmk.json" --extras --seed 7 \
	--scale 1.08 >/dev/null
node "$here/report_gen.js" "$tmp/sweep-matrix.json" "$tmp/sweep.json" >/dev/null
n=$(grep -c '"hw"' "$tmp/sweep.json")
expect '[ "$n" = 1820 ]' "generated 1,820 rows from the AMD and NVIDIA master configs ($n)"

# --- the page's script and style are the committed generated file
scripts/report-assets.sh "$tmp/assets.c"
expect 'cmp -s "$tmp/assets.c" src/report/html_assets.c' \
	"src/report/html_assets.c is up to date with src/report/assets/"

# --- demo: html, json, text, svg
expect '"$bin" report "$tmp/demo" -o "$tmp/demo.html" --svg "$tmp/svg" 2>"$tmp/demo.err"' \
	"report of the demo folder (agg_bmk.json + agg_eval_all.json)"
"$bin" report "$tmp/demo" --format json -o "$tmp/demo-data.json" 2>/dev/null
expect '! grep -Eq "(src|href)=\"?(https?:)?//|url\\(|@import" "$tmp/demo.html"' \
	"no external URL in the page (src/href/url()/@import)"
expect 'grep -q "Content-Security-Policy\" content=\"default-src '"'"'none'"'"'" "$tmp/demo.html"' \
	"the page forbids every fetch (CSP default-src 'none')"
nsvg=$(ls "$tmp/svg" 2>/dev/null | grep -c '\.svg$')
expect '[ "$nsvg" = 8 ]' "--svg wrote 8 charts (2 sequences x 4) ($nsvg)"
expect 'grep -q "<path d=\"M" "$tmp/svg/minimaxm3_1k_1k_interactivity_tpPerGpu.svg"' \
	"a standalone SVG holds a frontier path"
"$bin" report "$tmp/demo" --format text >"$tmp/demo.txt" 2>/dev/null
expect 'grep -q "best throughput per GPU per interactivity band" "$tmp/demo.txt" && grep -q "MI355X (vLLM, MTP) fp4" "$tmp/demo.txt"' \
	"--format text: frontier tables and the best config per band"

# --- bad input: reported per row and skipped, never a crash or an empty page
python_free_rows='[1, "x", {}, {"hw": "tpu-v5", "infmax_model_prefix": "m", "isl": 1024, "osl": 1024, "conc": 4},
 {"hw": "h200", "infmax_model_prefix": "m", "isl": 1024, "osl": 1024},
 {"hw": "h200", "isl": 1024, "osl": 1024, "conc": 4, "model": "who/knows"},
 {"hw": "h200_0", "infmax_model_prefix": "m", "framework": "vllm", "precision": "fp8", "isl": 1024, "osl": 1024, "conc": 4, "tp": 8, "tput_per_gpu": 1000, "median_intvty": 50, "median_e2el": 20},
 {"hw": "b200-nv_1", "infmax_model_prefix": "m", "framework": "sglang", "precision": "fp8", "isl": 1024, "osl": 1024, "conc": 8, "tp": 8, "median_intvty": 40}]'
printf '%s\n' "$python_free_rows" >"$tmp/garbage.json"
"$bin" report "$tmp/garbage.json" -o "$tmp/garbage.html" 2>"$tmp/garbage.err"
rc=$?
nwarn=$(grep -c "row skipped" "$tmp/garbage.err")
expect '[ $rc = 0 ] && [ "$nwarn" = 6 ] && [ -s "$tmp/garbage.html" ]' \
	"garbage rows: 6 per-row warnings, the 2 good rows drawn (rc $rc, $nwarn warnings)"
expect 'grep -q "row 4.*unknown GPU '"'"'tpu-v5'"'"'" "$tmp/garbage.err" && grep -q "row 5.*conc" "$tmp/garbage.err"' \
	"warnings name the row and the field"
expect 'grep -q "row 8.*tput_per_gpu.*missing: the row is left out of the charts that need it" "$tmp/garbage.err"' \
	"a kept row missing a metric is reported too"
"$bin" report "$tmp/garbage.json" --format json -o "$tmp/garbage-data.json" 2>/dev/null
expect 'grep -q "\"no-metric\"" "$tmp/garbage-data.json"' "a row without the metric is dropped from that chart (no-metric)"
: >"$tmp/empty.json"
"$bin" report "$tmp/empty.json" -o "$tmp/empty.html" 2>"$tmp/empty.err"
rc=$?
expect '[ $rc = 1 ] && [ ! -e "$tmp/empty.html" ] && grep -q "empty file" "$tmp/empty.err"' \
	"empty file: exit 1, reason on stderr, no output file (rc $rc)"
printf '[{"hw": "h200", ' >"$tmp/trunc.json"
"$bin" report "$tmp/trunc.json" -o "$tmp/trunc.html" 2>"$tmp/trunc.err"
rc=$?
expect '[ $rc = 1 ] && [ ! -e "$tmp/trunc.html" ] && grep -q "trunc.json:1:" "$tmp/trunc.err"' \
	"truncated JSON: exit 1 naming file:line:col, no output file (rc $rc)"
"$bin" report "$tmp/nope.json" -o "$tmp/nope.html" 2>/dev/null
expect '[ $? = 1 ] && [ ! -e "$tmp/nope.html" ]' "missing input: exit 1"
"$bin" report "$tmp/demo" 2>/dev/null
expect '[ $? = 2 ]' "html without -o: usage error (exit 2)"
expect '"$bin" report --help | grep -q -- "--baseline"' "--help"

# --- rows in the results database's shape (hardware, model key, spec_method, metrics{}, date)
cat >"$tmp/dbrows.json" <<'EOF2'
[{"date": "2026-11-01", "hardware": "b200", "framework": "sglang", "model": "dsr1", "precision": "fp8", "spec_method": "none", "disagg": false, "is_multinode": false, "prefill_tp": 8, "prefill_ep": 1, "prefill_dp_attention": false, "prefill_num_workers": 0, "decode_tp": 8, "decode_ep": 1, "decode_dp_attention": false, "decode_num_workers": 0, "num_prefill_gpu": 8, "num_decode_gpu": 8, "isl": 1024, "osl": 1024, "conc": 4, "metrics": {"median_e2el": 10, "median_intvty": 100, "tput_per_gpu": 800}},
 {"date": "2026-11-02", "hardware": "b200", "framework": "sglang", "model": "dsr1", "precision": "fp8", "spec_method": "none", "disagg": false, "is_multinode": false, "prefill_tp": 8, "prefill_ep": 1, "prefill_dp_attention": false, "prefill_num_workers": 0, "decode_tp": 8, "decode_ep": 1, "decode_dp_attention": false, "decode_num_workers": 0, "num_prefill_gpu": 8, "num_decode_gpu": 8, "isl": 1024, "osl": 1024, "conc": 8, "metrics": {"median_e2el": 12, "median_intvty": 80, "tput_per_gpu": 1300}},
 {"date": "2026-11-02", "hardware": "b200", "framework": "sglang", "model": "dsr1", "precision": "fp8", "spec_method": "none", "disagg": false, "is_multinode": false, "prefill_tp": 8, "prefill_ep": 1, "prefill_dp_attention": false, "prefill_num_workers": 0, "decode_tp": 8, "decode_ep": 1, "decode_dp_attention": false, "decode_num_workers": 0, "num_prefill_gpu": 8, "num_decode_gpu": 8, "isl": 1024, "osl": 1024, "conc": 16, "metrics": {"median_e2el": 14, "median_intvty": 60, "tput_per_gpu": 2000}}]
EOF2
"$bin" report "$tmp/dbrows.json" --format text >"$tmp/dbrows.txt" 2>&1
expect 'grep -q "DeepSeek-R1-0528 1k/1k: 2 points" "$tmp/dbrows.txt" && grep -q "B200 (SGLang) fp8, TP8, conc 16: 2,000 tok/s/gpu" "$tmp/dbrows.txt"' \
	"database-shaped rows: only the latest date drawn, TP8 from the decode side"

# --- comparison: the run over the demo rows as baseline
expect '"$bin" report "$tmp/run" --baseline "$tmp/demo" --run-label pr-123 -o "$tmp/compare.html" 2>/dev/null' \
	"comparison view (--baseline)"
"$bin" report "$tmp/run" --baseline "$tmp/demo" --run-label pr-123 --format json \
	-o "$tmp/compare-data.json" 2>/dev/null
expect 'grep -q "_run0\"" "$tmp/compare-data.json" && grep -q "\"compare\": \[{" "$tmp/compare-data.json"' \
	"the run is an overlay series with 25/50/75 % compare tables"

# --- history: the demo on three dates (a Historical trends tab)
mkdir -p "$tmp/hist"
for d in 1:2026-10-01:0.9 2:2026-11-01:1.0 3:2026-12-01:1.1; do
	IFS=: read -r s day f <<<"$d"
	node "$here/report_gen.js" "$tmp/seed-matrix.json" "$tmp/hist/agg_$s.json" --seed "$s" \
		--scale "$f" --date "$day" >/dev/null
done
expect '"$bin" report "$tmp/hist" -o "$tmp/hist.html" 2>/dev/null' "report of three dates"
"$bin" report "$tmp/hist" --format json -o "$tmp/hist-data.json" 2>/dev/null
expect 'grep -q "\"trend\": {\"dates\": \[\"2026-10-01\", \"2026-11-01\", \"2026-12-01\"\]" "$tmp/hist-data.json"' \
	"history: trend values per date"

# --- history from the results database (--db): the same three dates ingested as
# three runs give the same trend as the files; filters narrow the rows
for s in 1 2 3; do
	day=$(sed -n 's/.*"date": "\([0-9-]*\)".*/\1/p' "$tmp/hist/agg_$s.json" | head -1)
	"$bin" db ingest --db "sqlite:$tmp/hist.db" --run-id "run$s" --date "$day" --branch main \
		"$tmp/hist/agg_$s.json" >/dev/null 2>&1
done
expect '"$bin" report --db "sqlite:$tmp/hist.db" -o "$tmp/histdb.html" 2>/dev/null' \
	"report --db: the page from the results database"
"$bin" report --db "sqlite:$tmp/hist.db" --format json -o "$tmp/histdb-data.json" 2>/dev/null
trend() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(sorted((json.dumps(v.get("trend"),sort_keys=True) for v in d.get("groups",[]) if isinstance(v,dict)))))' "$1" 2>/dev/null; }
expect '[ -n "$(trend "$tmp/hist-data.json")" ] && [ "$(trend "$tmp/histdb-data.json")" = "$(trend "$tmp/hist-data.json")" ]' \
	"report --db: history trends equal those of the same rows read from files"
expect 'grep -q "\"trend\": {\"dates\": \[\"2026-10-01\", \"2026-11-01\", \"2026-12-01\"\]" "$tmp/histdb-data.json"' \
	"report --db: trend values per date"
"$bin" db ingest --db "$tmp/demo.db" --run-id demo "$tmp/demo/agg_bmk.json" "$tmp/demo/agg_eval_all.json" >/dev/null 2>&1
"$bin" report --db "$tmp/demo.db" --format json -o "$tmp/demodb-data.json" 2>/dev/null
evals() { python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["evals"]
for x in e: x["bars"]=sorted((dict(b,date=None) for b in x["bars"]),key=lambda b:json.dumps(b,sort_keys=True))
print(json.dumps(e,sort_keys=True))' "$1" 2>/dev/null; }
expect '[ -n "$(evals "$tmp/demo-data.json")" ] && [ "$(evals "$tmp/demodb-data.json")" = "$(evals "$tmp/demo-data.json")" ]' \
	"report --db: the evaluation view from stored eval rows equals the one from agg_eval files"
"$bin" report --db "sqlite:$tmp/hist.db" --since 2026-11-15 --format json -o "$tmp/histdb-late.json" 2>/dev/null
expect '! grep -q "\"trend\": {\"dates\"" "$tmp/histdb-late.json" && grep -q "2026-12-01" "$tmp/histdb-late.json"' \
	"report --db --since: one date left, no trend"
"$bin" report --db "sqlite:$tmp/hist.db" --hw h100 -o "$tmp/none.html" 2>"$tmp/none.err"
expect '[ $? = 1 ] && grep -q "no usable rows in the database" "$tmp/none.err" && [ ! -e "$tmp/none.html" ]' \
	"report --db with a filter matching nothing: exit 1, nothing written"
"$bin" report --db "$tmp/missing.db" -o "$tmp/none.html" 2>"$tmp/none.err"
expect '[ $? = 1 ] && grep -q "missing.db" "$tmp/none.err" && [ ! -e "$tmp/missing.db" ]' \
	"report --db of a missing database: exit 1, naming it, nothing created"
"$bin" report "$tmp/hist" --db "sqlite:$tmp/hist.db" -o "$tmp/none.html" 2>"$tmp/none.err"
expect '[ $? = 2 ] && grep -q "not both" "$tmp/none.err"' "report: a file and --db at once is a usage error"
"$bin" report "$tmp/hist" --hw h100 -o "$tmp/none.html" 2>"$tmp/none.err"
expect '[ $? = 2 ] && grep -q "need --db" "$tmp/none.err"' "report: filters without --db are a usage error"

# --- 1,820 rows: time (printed, not asserted) and size (< 5 MB asserted)
start=$(date +%s%N)
TIMEFORMAT='%U %S'
cpu=$( { time "$bin" report "$tmp/sweep.json" -o "$tmp/sweep.html" 2>"$tmp/sweep.err"; echo "rc=$?" >"$tmp/sweep.rc"; } 2>&1)
rc=$(sed 's/rc=//' "$tmp/sweep.rc")
ms=$((($(date +%s%N) - start) / 1000000))
size=$(stat -c %s "$tmp/sweep.html" 2>/dev/null || echo 0)
echo "time: 1,820 rows -> $size bytes of HTML in $ms ms wall, CPU user+sys ${cpu% *}+${cpu#* } s ($bin; not asserted)"
expect '[ $rc = 0 ] && [ "$size" -gt 0 ] && [ "$size" -lt 5000000 ]' "1,820-row report under 5 MB ($size bytes)"
expect 'grep -q "16 rows skipped, 1804 drawn" "$tmp/sweep.err"' \
	"the 16 rows of an unknown GPU (rtx6000pro) are skipped, 1,804 drawn"
"$bin" report "$tmp/sweep.json" --format json -o "$tmp/sweep-data.json" 2>/dev/null

# --- the browser
chrome=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$chrome" ] || ! command -v node >/dev/null; then
	echo "report: chromium skipped (no chromium or node)"
else
	for c in "demo:$tmp/demo.html:$tmp/demo-data.json:" "compare:$tmp/compare.html:$tmp/compare-data.json:" \
		"history:$tmp/hist.html:$tmp/hist-data.json:" "historydb:$tmp/histdb.html:$tmp/histdb-data.json:" \
		"sweep:$tmp/sweep.html:$tmp/sweep-data.json:--all-groups"; do
		IFS=: read -r name html data flag <<<"$c"
		out=$(node "$here/report_cdp.js" "$chrome" "$html" "$data" "$shots/$name-" $flag 2>&1)
		rc=$?
		printf '%s\n' "$out" | grep -v '^ok: ' | sed "s/^/  [$name] /"
		if [ $rc = 3 ]; then
			echo "report: chromium skipped ($name: cannot start)"
			continue
		fi
		p=$(printf '%s\n' "$out" | sed -n 's/^cdp: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
		pass=$((pass + ${p% *}))
		fail=$((fail + ${p#* }))
		[ -n "$p" ] || bad "$name: the browser check ended without a summary"
	done
fi
echo "report: $pass passed, $fail failed"
[ $fail = 0 ]
