#!/usr/bin/env bash
# End-to-end checks of the simulated mark and the client-health verdict
# (issue 31, items 1 and 2): `infbench sim` announces itself, `bench` against
# it marks the raw result, `process` carries "simulated" and "client_bound"
# into the agg row, the SQLite store keeps the mark (a schema-1 store is
# migrated and marked on a second ingest), `db query --simulated yes|no`
# filters, `compare` refuses a simulated row against a measured baseline
# unless --allow-simulated, and the report shows the badge, the dashed rings
# and the hollow client-bound markers in headless Chromium. bench's result
# folder is created before the run, an unwritable one fails before any
# request, and the verdict is on stderr (stdout stays the reference's). Item
# 6 too: the report's run-context panel (engine, versions, workload, time
# scale, date) and the TTFT/TPOT/E2EL tooltips, rounded.
# Usage: tests/e2e/simulated.sh INFBENCH    Ends with "simulated: N passed, N failed".
. "$(dirname "$0")/lib.sh" simulated "$1"
e2e_tmp
e2e_need_tok skip
py=${PYTHON:-python3}
shots=$root/build/simulated-e2e
mkdir -p "$shots"

e2e_start_sim --time-scale 50
[ -n "$port" ] || { no "the simulator did not start: $(tail -3 "$tmp/sim.err")"; e2e_end; exit; }
check 'curl -s -D - -o /dev/null "http://127.0.0.1:$port/v1/models" | grep -qi "^X-Infbench-Engine: infbench-sim"' \
	"the simulator announces itself (X-Infbench-Engine) on /v1/models"

# --- bench: the folder is made before the run; the verdict on stderr
out=$tmp/new/deeper/results
"$bin" bench --model llama3-8b --tokenizer "$tok" --base-url "http://127.0.0.1:$port" --dataset-name random \
	--random-input-len 128 --random-output-len 32 --num-prompts 16 --max-concurrency 4 --ignore-eos \
	--num-warmups 2 --save-result --result-dir "$out" --result-filename c4.json >"$tmp/b.out" 2>"$tmp/b.err"
rc=$?
check '[ $rc = 0 ] && [ -s "$out/c4.json" ]' "bench created --result-dir and saved the result (rc $rc): $(tail -3 "$tmp/b.err")"
check 'grep -q "\"simulated\": true" "$out/c4.json"' "the result against the simulator is marked simulated"
check 'grep -Eq "^Client health: (ok|CLIENT-BOUND)" "$tmp/b.err"' "the client-health verdict is printed on stderr"
check '! grep -q "Client health" "$tmp/b.out" && grep -q "Serving Benchmark Result" "$tmp/b.out"' \
	"stdout keeps the reference's table and nothing more"
check 'grep -q "^Simulated: " "$tmp/b.err"' "stderr says the result is simulated"
: >"$tmp/afile"
"$bin" bench --model llama3-8b --tokenizer "$tok" --base-url "http://127.0.0.1:$port" --dataset-name random \
	--random-input-len 128 --random-output-len 32 --num-prompts 4 --max-concurrency 2 --ignore-eos \
	--save-result --result-dir "$tmp/afile/sub" --result-filename x.json >"$tmp/u.out" 2>"$tmp/u.err"
rc=$?
check '[ $rc != 0 ] && grep -q "afile" "$tmp/u.err" && ! grep -q "Serving Benchmark Result" "$tmp/u.out"' \
	"an unusable --result-dir fails before the run (rc $rc): $(head -2 "$tmp/u.err")"

# --- process: the marks travel into the agg row
penv=(RUNNER_TYPE=mi355x FRAMEWORK=vllm PRECISION=fp4 SPEC_DECODING=none RESULT_FILENAME=c4 ISL=128 OSL=32
	DISAGG=false MODEL_PREFIX=llama3 IMAGE=sim TP=1 EP_SIZE=1 DP_ATTENTION=false)
(cd "$out" && env "${penv[@]}" "$bin" process >/dev/null 2>"$tmp/p.err")
check '"$py" -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(not (r.get(\"simulated\") is True and isinstance(r.get(\"client_bound\"), bool)))" "$out/agg_c4.json"' \
	"the agg row carries simulated: true and client_bound: $(cat "$tmp/p.err")"
# a measured twin: the same result without the mark, at another concurrency, client-bound
"$py" - "$out/c4.json" "$tmp/m/c8.json" <<'EOF'
import json, sys, os
r = json.load(open(sys.argv[1]))
r.pop("simulated", None)
r["max_concurrency"] = 8
r["client_health"]["client_bound"] = True
r["client_health"]["reason"] = "test: made client-bound"
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
json.dump(r, open(sys.argv[2], "w"))
EOF
(cd "$tmp/m" && env "${penv[@]/RESULT_FILENAME=c4/RESULT_FILENAME=c8}" "$bin" process >/dev/null 2>&1)
check '[ -s "$tmp/m/agg_c8.json" ] && ! grep -q "\"simulated\"" "$tmp/m/agg_c8.json" && grep -q "\"client_bound\": true" "$tmp/m/agg_c8.json"' \
	"a measured row has no simulated key"

# --- the store: ingest, filter, migrate a schema-1 store
"$bin" db ingest --db "$tmp/s.db" --run-id r1 "$out/agg_c4.json" "$tmp/m/agg_c8.json" >/dev/null 2>"$tmp/i.err"
"$bin" db query --db "$tmp/s.db" --simulated yes >"$tmp/q.yes" 2>&1
"$bin" db query --db "$tmp/s.db" --simulated no >"$tmp/q.no" 2>&1
"$bin" db query --db "$tmp/s.db" >"$tmp/q.all" 2>&1
count() { "$py" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$1" 2>/dev/null; }
check '[ "$(count "$tmp/q.yes")" = 1 ] && grep -q "\"simulated\": true" "$tmp/q.yes" && grep -q "\"conc\": 4" "$tmp/q.yes"' \
	"db query --simulated yes: the simulated row ($(head -c 200 "$tmp/q.yes"))"
check '[ "$(count "$tmp/q.no")" = 1 ] && ! grep -q "simulated" "$tmp/q.no" && grep -q "\"conc\": 8" "$tmp/q.no"' \
	"db query --simulated no: the measured row"
check '[ "$(count "$tmp/q.all")" = 2 ]' "db query without the filter: both rows"
"$bin" db query --db "$tmp/s.db" --simulated maybe >/dev/null 2>"$tmp/q.err"
rc=$?
check '[ $rc = 2 ] && grep -q "yes or no" "$tmp/q.err"' "--simulated takes yes or no"
# a store as schema 1 left it: no column, no agentic table, version 1
sqlite3 "$tmp/s.db" "DROP VIEW latest_agentic; DROP TABLE agentic_results;
DROP VIEW latest_benchmarks; ALTER TABLE benchmark_results DROP COLUMN simulated;
ALTER TABLE benchmark_results DROP COLUMN sim_interval;
ALTER TABLE eval_results DROP COLUMN simulated;
CREATE VIEW latest_benchmarks AS SELECT * FROM (SELECT br.*, ROW_NUMBER() OVER (PARTITION BY br.config_id, br.conc, br.isl, br.osl ORDER BY br.date DESC, br.workflow_run_id DESC, br.id DESC) AS rn FROM benchmark_results br WHERE br.error IS NULL) t WHERE t.rn = 1;
UPDATE ib_schema SET version = 1;" 2>"$tmp/sq.err"
check '[ "$(sqlite3 "$tmp/s.db" "SELECT version FROM ib_schema")" = 1 ]' "made a schema-1 store: $(cat "$tmp/sq.err")"
"$bin" db version --db "$tmp/s.db" >"$tmp/v.out" 2>&1
check 'grep -q "schema version 4" "$tmp/v.out" && [ "$(sqlite3 "$tmp/s.db" "SELECT count(*) FROM benchmark_results WHERE simulated")" = 0 ]' \
	"the schema-1 store is migrated to 4, its rows unmarked ($(cat "$tmp/v.out"))"
"$bin" db ingest --db "$tmp/s.db" --run-id r1 "$out/agg_c4.json" "$tmp/m/agg_c8.json" >/dev/null 2>&1
"$bin" db latest --db "$tmp/s.db" --simulated yes >"$tmp/l.yes" 2>&1
check '[ "$(count "$tmp/l.yes")" = 1 ] && [ "$(sqlite3 "$tmp/s.db" "SELECT count(*) FROM benchmark_results")" = 2 ]' \
	"ingesting again marks the simulated row (latest --simulated yes: 1), adds nothing"

# --- compare refuses simulated against measured
mkdir -p "$tmp/cmp"
cp "$out/agg_c4.json" "$tmp/cmp/"
"$py" -c 'import json,sys; r=json.load(open(sys.argv[1])); r.pop("simulated"); json.dump([r], open(sys.argv[2],"w"))' \
	"$out/agg_c4.json" "$tmp/base.json"
"$bin" compare "$tmp/cmp" --baseline "$tmp/base.json" >"$tmp/c.out" 2>"$tmp/c.err"
rc=$?
check '[ $rc = 1 ] && grep -q "simulated result against a measured baseline" "$tmp/c.err" && grep -q -- "--allow-simulated" "$tmp/c.err"' \
	"compare refuses a simulated row against a measured baseline (rc $rc): $(cat "$tmp/c.err")"
"$bin" compare "$tmp/cmp" --baseline "$tmp/base.json" --allow-simulated >"$tmp/c2.out" 2>&1
rc=$?
check '[ $rc = 0 ] && grep -q "Single-Node Comparison" "$tmp/c2.out"' "compare --allow-simulated compares"
DATABASE_URL=$tmp/s.db "$bin" compare "$tmp/cmp" --branch "" >/dev/null 2>&1
rc=$?
check '[ $rc = 0 ]' "compare of a simulated row with no baseline is fine"

# --- the report: badge, rings, client-bound hollow marker
mkdir -p "$tmp/rep"
# (the simulated row not client-bound, whatever this machine's load made it)
"$py" -c 'import json,sys; r=[json.load(open(f)) for f in sys.argv[1:]]; r[0]["client_bound"]=False; print(json.dumps(r))' \
	"$out/agg_c4.json" "$tmp/m/agg_c8.json" >"$tmp/rep/agg_bmk.json"
"$bin" report "$tmp/rep" -o "$tmp/rep.html" 2>"$tmp/r.err"
rc=$?
check '[ $rc = 0 ] && [ -s "$tmp/rep.html" ]' "report of one simulated and one measured row: $(cat "$tmp/r.err")"
cat >"$tmp/checks.json" <<'EOF'
[{"what": "two points drawn in chart A", "js": "document.querySelectorAll('#chartA .pt').length === 2"},
 {"what": "one dashed ring (the simulated point) in each chart", "js": "document.querySelectorAll('#chartA .simring').length === 1 && document.querySelectorAll('#chartB .simring').length === 1"},
 {"what": "the legend's series carries the SIMULATED badge", "js": "/SIMULATED/.test(document.querySelector('#chartA .legend').textContent)"},
 {"what": "the notice above the charts counts 1 of 2 simulated points", "js": "/1 of 2 point\\(s\\) come from infbench sim/.test(document.getElementById('simnote').textContent)"},
 {"what": "the simulated point's tooltip says SIMULATED", "js": "(() => { const r = document.querySelector('#chartA .simring'); const p = document.querySelector('#chartA .pt[data-row=\"' + r.dataset.row + '\"]'); const b = p.getBoundingClientRect(); p.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: b.x + 2, clientY: b.y + 2})); const t = document.getElementById('tip').textContent; return /SIMULATED/.test(t) && /not a measurement/.test(t) || t; })()"},
 {"what": "the measured point's tooltip does not", "js": "(() => { const r = document.querySelector('#chartA .simring').dataset.row; const p = [...document.querySelectorAll('#chartA .pt')].find((e) => e.dataset.row !== r); const b = p.getBoundingClientRect(); p.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: b.x + 2, clientY: b.y + 2})); const t = document.getElementById('tip').textContent; return !/SIMULATED/.test(t) || t; })()"},
 {"what": "run context: the engine is mixed, 1 simulated and 1 measured", "js": "(() => { const t = document.querySelector('#context dd[data-k=Engine]').textContent; return /mixed: 1 simulated \\(infbench sim\\), 1 measured/.test(t) || t; })()"},
 {"what": "run context: versions (the image and framework)", "js": "(() => { const t = document.querySelector('#context dd[data-k=Versions]').textContent; return /sim/.test(t) && /vllm/.test(t) || t; })()"},
 {"what": "run context: the workload (sequence, concurrency range, points)", "js": "(() => { const t = document.querySelector('#context dd[data-k=Workload]').textContent; return /ISL 128, OSL 32/.test(t) && /concurrency 4–8/.test(t) && /2 point/.test(t) || t; })()"},
 {"what": "run context: the time scale (model time, 50x)", "js": "(() => { const t = document.querySelector('#context dd[data-k=\"Time scale\"]').textContent; return /model time .*50×/.test(t) || t; })()"},
 {"what": "run context: the date", "js": "/^\\d{4}-\\d{2}-\\d{2}/.test(document.querySelector('#context dd[data-k=Date]').textContent)"},
 {"what": "tooltips carry TTFT, TPOT and E2EL, sensibly rounded (no 7+ decimals)", "js": "(() => { const p = document.querySelector('#chartA .pt'); const b = p.getBoundingClientRect(); p.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: b.x + 2, clientY: b.y + 2})); const t = document.getElementById('tip').textContent; return /TTFT: median [0-9.,]+ ms, p99 [0-9.,]+ ms/.test(t) && /TPOT: median [0-9.,]+ ms/.test(t) && /E2EL: median [0-9.,]+ s, p99 [0-9.,]+ s/.test(t) && !/\\d\\.\\d{7,}/.test(t) || t; })()"},
 {"what": "the client-bound row is drawn hollow and listed", "js": "document.querySelectorAll('#chartA .pt[fill=\"#fff\"]').length === 1 && /1 point\\(s\\) are client-bound/.test(document.getElementById('clientbound').textContent)"}]
EOF
e2e_cdp_checks "$tmp/rep.html" "$tmp/checks.json" "$shots/sim-"
e2e_end
