#!/usr/bin/env bash
# End-to-end checks of the simulator's prediction intervals (issue 30, item
# 3; docs/sim.md "Prediction intervals"): `infbench sim --intervals` announces
# its configuration's interval (X-Infbench-Sim-Interval), `bench` keeps it in
# the raw result, `process` turns it into the agg row's sim_interval (bounds
# around tput_per_gpu and median_intvty), a malformed one is refused, the
# SQLite store (and PostgreSQL, when it can start) keeps it and gives it back,
# and the report draws a shaded band around the simulated series on the
# throughput/GPU vs interactivity chart in headless Chromium: present, with
# non-empty geometry, and none for the measured series.
# Usage: tests/e2e/sim_interval.sh INFBENCH   Ends with "sim_interval: N passed, N failed".
. "$(dirname "$0")/lib.sh" sim_interval "$1"
e2e_tmp
. "$root/tests/e2e/lib_pg.bash"
trap 'pg_stop "$tmp"; e2e_cleanup' EXIT
e2e_need_tok skip
py=${PYTHON:-python3}
shots=$root/build/sim-interval-e2e
mkdir -p "$shots"

cat >"$tmp/iv.yaml" <<'EOF'
level: 0.8
inflation: 1.5
min-residuals: 2
models: [llama3-8b]
gpus: [h100]
pools:
  - {pool: vllm/hopper, residuals: 5, tput-per-gpu: [-0.2, 0.3], interactivity: [-0.1, 0.25]}
  - {pool: nvidia, residuals: 5, tput-per-gpu: [-0.4, 0.4], interactivity: [-0.4, 0.4]}
  - {pool: all, residuals: 5, tput-per-gpu: [-0.5, 0.5], interactivity: [-0.5, 0.5]}
EOF
e2e_start_sim --time-scale 50 --framework vllm --hardware h100 --model llama3-8b --intervals "$tmp/iv.yaml"
[ -n "$port" ] || { no "the simulator did not start: $(tail -3 "$tmp/sim.err")"; e2e_end; exit; }
curl -s -D "$tmp/h" -o /dev/null "http://127.0.0.1:$port/v1/models"
check 'grep -qi "^X-Infbench-Sim-Interval: level=0.8; tput=0.818.*,1.349.*; inter=0.904.*,1.284.*; pool=vllm/hopper; widen=0" "$tmp/h"' \
	"the simulator announces its interval: $(grep -i interval "$tmp/h")"
check 'grep -q "80 % prediction interval (.*pool vllm/hopper, widened 0)" "$tmp/sim.err"' \
	"the simulator says which interval it announces: $(grep -i interval "$tmp/sim.err")"

# --- bench at three concurrencies, process each
out=$tmp/res
penv=(RUNNER_TYPE=h100 FRAMEWORK=vllm PRECISION=fp8 SPEC_DECODING=none ISL=128 OSL=32
	DISAGG=false MODEL_PREFIX=llama3 IMAGE=sim TP=1 EP_SIZE=1 DP_ATTENTION=false)
for c in 2 4 8; do
	"$bin" bench --model llama3-8b --tokenizer "$tok" --base-url "http://127.0.0.1:$port" \
		--dataset-name random --random-input-len 128 --random-output-len 32 --num-prompts $((4 * c)) \
		--max-concurrency $c --ignore-eos --save-result --result-dir "$out" --result-filename c$c.json \
		>/dev/null 2>"$tmp/b$c.err"
	(cd "$out" && env "${penv[@]}" RESULT_FILENAME=c$c "$bin" process >/dev/null 2>"$tmp/p$c.err")
done
check 'grep -q "\"sim_interval\": \"level=0.8; tput=" "$out/c4.json"' "the raw result keeps the header's value"
"$py" - "$out" >"$tmp/agg.check" 2>&1 <<'EOF'
import json, math, sys
bad = []
for c in (2, 4, 8):
    r = json.load(open(f"{sys.argv[1]}/agg_c{c}.json"))
    iv = r.get("sim_interval")
    if not isinstance(iv, dict):
        bad.append(f"c{c}: no sim_interval"); continue
    t, i = r["tput_per_gpu"], r["median_intvty"]
    lo, hi = iv["tput_per_gpu"]
    ilo, ihi = iv["median_intvty"]
    ok = (iv["level"] == 0.8 and iv["pool"] == "vllm/hopper" and iv["widen"] == 0
          and math.isclose(lo, t * math.exp(-0.2), rel_tol=1e-9) and math.isclose(hi, t * math.exp(0.3), rel_tol=1e-9)
          and math.isclose(ilo, i * math.exp(-0.1), rel_tol=1e-9) and math.isclose(ihi, i * math.exp(0.25), rel_tol=1e-9)
          and r.get("simulated") is True)
    if not ok:
        bad.append(f"c{c}: {iv} around {t}, {i}")
print("\n".join(bad) or "ok")
EOF
check 'grep -qx ok "$tmp/agg.check"' "each agg row carries its bounds: $(cat "$tmp/agg.check" "$tmp/p4.err")"

# a malformed interval in a raw result: refused, naming the field
"$py" -c 'import json,sys; r=json.load(open(sys.argv[1])); r["sim_interval"]="level=2; tput=1,0"; json.dump(r, open(sys.argv[2],"w"))' \
	"$out/c4.json" "$tmp/bad.json"
(cd "$tmp" && env "${penv[@]}" RESULT_FILENAME=bad "$bin" process >/dev/null 2>"$tmp/pb.err")
rc=$?
check '[ $rc != 0 ] && grep -q "sim_interval" "$tmp/pb.err" && [ ! -e "$tmp/agg_bad.json" ]' \
	"a malformed sim_interval is refused, nothing written (rc $rc): $(cat "$tmp/pb.err")"

# a simulator without a table announces none
mkdir -p "$tmp/cal"
printf 'rules: []\n' >"$tmp/cal/calibration.yaml"
e2e_start_sim --time-scale 50 --calibration "$tmp/cal/calibration.yaml"
curl -s -D "$tmp/h2" -o /dev/null "http://127.0.0.1:$port/v1/models"
check '! grep -qi "^X-Infbench-Sim-Interval" "$tmp/h2" && grep -qi "^X-Infbench-Engine" "$tmp/h2"' \
	"no table beside the calibration: no interval announced"
# ... and one beside it is found
cp "$tmp/iv.yaml" "$tmp/cal/intervals.yaml"
e2e_start_sim --time-scale 50 --calibration "$tmp/cal/calibration.yaml" --hardware mi355x
curl -s -D "$tmp/h3" -o /dev/null "http://127.0.0.1:$port/v1/models"
check 'grep -qi "^X-Infbench-Sim-Interval: .*pool=all; widen=3" "$tmp/h3"' \
	"the table beside the calibration is used; an unseen GPU falls to all, widened: $(grep -i interval "$tmp/h3")"
# a table without widen-add (written before the additive rule) widens as it
# did: half-width 0.5 x 1.5^3 = 1.6875
check 'grep -qi "^X-Infbench-Sim-Interval: level=0.8; tput=0.18498.*,5.4059.*; .*pool=all; widen=3" "$tmp/h3"' \
	"a table of before widens multiplicatively: $(grep -i interval "$tmp/h3")"
kill "$simpid" 2>/dev/null && wait "$simpid" 2>/dev/null
# the additive rule: 0.5 + 3 x 0.5, capped at 2 x 0.5 = 1
sed 's/^inflation: 1.5$/inflation: 1\nwiden-add: 1\nwiden-cap: 2/' "$tmp/iv.yaml" >"$tmp/cal/intervals.yaml"
e2e_start_sim --time-scale 50 --calibration "$tmp/cal/calibration.yaml" --hardware mi355x
curl -s -D "$tmp/h4" -o /dev/null "http://127.0.0.1:$port/v1/models"
check 'grep -qi "^X-Infbench-Sim-Interval: level=0.8; tput=0.36787.*,2.71828.*; .*pool=all; widen=3" "$tmp/h4"' \
	"the additive rule with its cap: $(grep -i interval "$tmp/h4") $(tail -2 "$tmp/sim.err")"
kill "$simpid" 2>/dev/null && wait "$simpid" 2>/dev/null
simpid=

# --- a measured series beside the simulated one (another framework, no marks)
mkdir -p "$tmp/rep"
"$py" - "$out" "$tmp/rep/agg_bmk.json" <<'EOF'
import json, sys
rows = []
for c in (2, 4, 8):
    r = json.load(open(f"{sys.argv[1]}/agg_c{c}.json"))
    r["client_bound"] = False
    rows.append(r)
    m = {k: v for k, v in r.items() if k not in ("simulated", "sim_interval", "time_scale")}
    m["framework"] = "sglang"
    m["tput_per_gpu"] *= 0.9
    rows.append(m)
json.dump(rows, open(sys.argv[2], "w"))
EOF

# --- the stores keep it
"$bin" db ingest --db "$tmp/s.db" --run-id r1 "$tmp/rep/agg_bmk.json" >/dev/null 2>"$tmp/i.err"
"$bin" db query --db "$tmp/s.db" >"$tmp/q.json" 2>&1
store_check() { # FILE: 3 rows with sim_interval, all simulated; 3 without
	"$py" -c '
import json, sys
q = json.load(open(sys.argv[1]))
a = json.load(open(sys.argv[2]))
src = {(r["framework"], r["conc"]): r for r in a}
w = [r for r in q if "sim_interval" in r]
ok = len(q) == 6 and len(w) == 3 and all(r.get("simulated") is True for r in w)
ok = ok and all(r["sim_interval"] == src[(r["framework"].lower(), r["conc"])]["sim_interval"] for r in w)
sys.exit(0 if ok else 1)' "$1" "$tmp/rep/agg_bmk.json"
}
check 'store_check "$tmp/q.json"' "SQLite: the simulated rows give their sim_interval back, the measured none: $(head -c 300 "$tmp/q.json") $(cat "$tmp/i.err")"
check '[ "$(sqlite3 "$tmp/s.db" "SELECT count(*) FROM benchmark_results WHERE sim_interval IS NOT NULL")" = 3 ]' \
	"SQLite: the column holds the three intervals"
if pg_start "$tmp" >"$tmp/pg.why" 2>&1; then
	"$bin" db ingest --db "$pg_url" --run-id r1 "$tmp/rep/agg_bmk.json" >/dev/null 2>"$tmp/pi.err"
	"$bin" db query --db "$pg_url" >"$tmp/pq.json" 2>&1
	check 'store_check "$tmp/pq.json" && cmp -s "$tmp/q.json" "$tmp/pq.json"' \
		"PostgreSQL: the same rows, byte for byte: $(cat "$tmp/pi.err") $(head -c 300 "$tmp/pq.json")"
	pg_stop "$tmp"
else
	echo "sim_interval: postgresql skipped ($(tail -1 "$tmp/pg.why"))"
fi

# --- the report's band
bandchecks='[{"what": "one band in chart A (throughput/GPU vs interactivity)", "js": "document.querySelectorAll(\"#chartA .simband\").length === 1 || document.querySelectorAll(\"#chartA .simband\").length"},
 {"what": "the band has a non-empty geometry", "js": "(() => { const b = document.querySelector(\"#chartA .simband\").getBBox(); return b.width > 1 && b.height > 1 || JSON.stringify([b.width, b.height]); })()"},
 {"what": "the band covers the simulated points and only them", "js": "(() => { const b = document.querySelector(\"#chartA .simband\"); const rows = b.dataset.rows.split(\",\"); const sims = [...document.querySelectorAll(\"#chartA .simring\")].map((e) => e.dataset.row); return rows.length === 3 && rows.every((r) => sims.includes(r)) && sims.length === 3 || b.dataset.rows + \" vs \" + sims; })()"},
 {"what": "the band is of the simulated series: its colour, none for the measured series", "js": "(() => { const b = document.querySelector(\"#chartA .simband\"); const s = b.dataset.s; const measured = [...document.querySelectorAll(\"#chartA .pt\")].filter((p) => !document.querySelector(\"#chartA .simring[data-row=\\\"\" + p.dataset.row + \"\\\"]\")).map((p) => p.dataset.s); return measured.length === 3 && measured.every((m) => m !== s) || s + \" vs \" + measured; })()"},
 {"what": "each simulated point lies inside the band vertically", "js": "(() => { const b = document.querySelector(\"#chartA .simband\").getBBox(); return [...document.querySelectorAll(\"#chartA .simring\")].every((r) => { const y = +r.getAttribute(\"cy\"); return y >= b.y - 0.5 && y <= b.y + b.height + 0.5; }) || JSON.stringify(b); })()"},
 {"what": "no band on chart B (another x axis)", "js": "document.querySelectorAll(\"#chartB .simband\").length === 0"}]'
"$bin" report "$tmp/rep" -o "$tmp/rep.html" 2>"$tmp/r.err"
rc=$?
check '[ $rc = 0 ] && [ -s "$tmp/rep.html" ]' "report of three simulated and three measured rows: $(cat "$tmp/r.err")"
printf '%s\n' "$bandchecks" >"$tmp/checks.json"
e2e_cdp_checks "$tmp/rep.html" "$tmp/checks.json" "$shots/agg-"
"$bin" report --db "$tmp/s.db" -o "$tmp/repdb.html" 2>"$tmp/rd.err"
rc=$?
check '[ $rc = 0 ] && [ -s "$tmp/repdb.html" ]' "report --db of the store: $(cat "$tmp/rd.err")"
e2e_cdp_checks "$tmp/repdb.html" "$tmp/checks.json" "$shots/db-"
# measured rows only: no band, and the page carries no interval
"$py" -c 'import json,sys; a=json.load(open(sys.argv[1])); json.dump([r for r in a if not r.get("simulated")], open(sys.argv[2],"w"))' \
	"$tmp/rep/agg_bmk.json" "$tmp/m.json"
mkdir -p "$tmp/repm" && mv "$tmp/m.json" "$tmp/repm/agg_bmk.json"
"$bin" report "$tmp/repm" -o "$tmp/repm.html" 2>/dev/null
check '[ -s "$tmp/repm.html" ] && ! grep -q "\"iv\":" "$tmp/repm.html"' "a measured-only report carries no interval"
printf '[{"what": "no band for measured rows", "js": "document.querySelectorAll(\\".simband\\").length === 0 && document.querySelectorAll(\\"#chartA .pt\\").length === 3"}]\n' >"$tmp/mchecks.json"
e2e_cdp_checks "$tmp/repm.html" "$tmp/mchecks.json" "$shots/measured-"
e2e_end
