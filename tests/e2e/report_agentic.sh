#!/usr/bin/env bash
# End-to-end: agentic rows made for real, into the results database and the
# report. `infbench sim` (prefix cache on, llama3 tokenizer, time scale 50) +
# `agentx make-traces` + `agentx replay` at three concurrencies (a minute of
# model time each) + `agentic process` give three agentic agg rows; `db
# ingest` stores them in SQLite (and in a private PostgreSQL server when
# tests/e2e/lib_pg.bash can start one): idempotent, queried back with
# --agentic / --scenario, never in the fixed-length views; `report` of the
# agg folder and of the database draws the agentic view, checked in headless
# Chromium: one plotted point per row in each frontier chart, the cache hit
# rates of the rows, the latency percentile lines; a fixed-length row beside
# them keeps the Inference tab first. Then `infbench run` of the agentic
# rows of one config key of configs/amd-master.yaml (10 rows) on the
# simulator, `db ingest` of its agg_bmk.json and `report --db`, checked in
# Chromium: every row a point of both frontier charts.
# Usage: tests/e2e/report_agentic.sh INFBENCH. Ends with "report-agentic: N passed, N failed".
. "$(dirname "$0")/lib.sh" report-agentic "$1"
. "$(dirname "$0")/lib_pg.bash"
tmp=$(mktemp -d)
trap 'pg_stop "$tmp"; e2e_cleanup' EXIT
e2e_need_tok skip
py=$(command -v /usr/bin/python3 || command -v python3) || e2e_skip "no python3 for the checks"

"$bin" agentx make-traces --traces 8 --turns 3:5 --first-in 1024:2048 --context 2048:6144 \
	--out 8:48 --think 0.5:2 --subagent-rate 0.3 --subagent-turns 2:3 --system-tokens 256 \
	--tool-tokens 256 --long-tail 0 -o "$tmp/tr.jsonl" && ok || no "make-traces"
e2e_start_sim --tokenizer "$tok" --time-scale 50
[ -n "$port" ] || {
	no "the simulator did not start: $(cat "$tmp/sim.err")"
	e2e_end
	exit
}
mkdir -p "$tmp/agg"
concs="2 4 8"
for c in $concs; do
	"$bin" agentx replay --corpus "$tmp/tr.jsonl" --base-url "http://127.0.0.1:$port" \
		--model llama3-8b --tokenizer "$tok" --concurrency "$c" --benchmark-duration 60 \
		--warmup-requests-per-lane 1 --output-dir "$tmp/c$c" \
		--env RESULT_FILENAME="agentic_c$c" KV_OFFLOADING=none TP=1 FRAMEWORK=vllm \
		RUNNER_TYPE=h100 MODEL_PREFIX=llama3 PRECISION=bf16 2>"$tmp/c$c.log" ||
		no "replay at concurrency $c: $(tail -3 "$tmp/c$c.log")"
	# shellcheck disable=SC2046
	(cd "$tmp/c$c" && env -i PATH="$PATH" HF_HUB_CACHE=none AGENTIC_OUTPUT_DIR="$tmp/agg" \
		$(cat env) "$bin" agentic process >"$tmp/proc$c.out" 2>&1) ||
		no "agentic process at concurrency $c: $(tail -3 "$tmp/proc$c.out")"
done
n=$(ls "$tmp/agg"/*.json 2>/dev/null | wc -l)
[ "$n" = 3 ] && ok || no "three agentic agg rows ($n)"
# what the rows say, for the checks below: per concurrency the GPU hit rate (%)
"$py" - "$tmp/agg" >"$tmp/expect.txt" <<'PY' || no "the agg rows: $(cat "$tmp/expect.txt")"
import glob, json, sys
rows = [json.load(open(f)) for f in sorted(glob.glob(sys.argv[1] + "/*.json"))]
bad = [r["conc"] for r in rows if r["scenario_type"] != "agentic-coding"
       or not r["server_metrics"]["cache"]["gpu_cache_hit_rate"]
       or not r["request_metrics"]["throughput"]["per_gpu"]["total_tput_tps"]]
if bad:
    print("rows without the scenario, a GPU cache hit rate or throughput:", bad)
    sys.exit(1)
for r in sorted(rows, key=lambda r: r["conc"]):
    print(r["conc"], "%.1f%%" % (r["server_metrics"]["cache"]["gpu_cache_hit_rate"] * 100))
PY
echo "GPU prefix-cache hit rate per concurrency: $(tr '\n' ' ' <"$tmp/expect.txt")"
kill -TERM "$simpid" 2>/dev/null
wait "$simpid" 2>/dev/null
simpid=

# ---- the database: SQLite, then PostgreSQL ----
backend() { # NAME URL
	local name=$1 url=$2 out
	out=$("$bin" db ingest --db "$url" --run-id r1 --date 2026-12-06 --branch main "$tmp"/agg/*.json 2>&1)
	[ "$out" = "ingested 0 benchmark rows (0 new, 0 already stored) and 3 agentic rows (3 new) and 0 eval rows (0 new) into $name" ] &&
		ok || no "$name: ingest: $out"
	out=$("$bin" db ingest --db "$url" --run-id r1 --date 2026-12-06 --branch main "$tmp"/agg/*.json 2>&1)
	[[ "$out" == *"3 agentic rows (0 new)"* ]] && ok || no "$name: a second ingest adds nothing: $out"
	"$bin" db query --db "$url" --agentic >"$tmp/q.$name" && ok || no "$name: query --agentic"
	"$bin" db latest --db "$url" --scenario agentic-coding >"$tmp/l.$name" && ok || no "$name: latest --scenario"
	"$bin" db query --db "$url" --scenario agentic-coding --conc 4 >"$tmp/q4.$name" || no "$name: --conc 4"
	"$py" - "$tmp/q.$name" "$tmp/l.$name" "$tmp/q4.$name" <<'PY' && ok || no "$name: the stored rows"
import json, sys
q, l, q4 = (json.load(open(f)) for f in sys.argv[1:4])
assert len(q) == 3 and len(l) == 3 and len(q4) == 1, (len(q), len(l), len(q4))
for r in q:
    assert r["benchmark_type"] == "agentic-coding" and r["isl"] is None and r["osl"] is None, r
    assert r["kv_offloading"] == "none" and r["hardware"] == "h100" and r["model"] == "llama3", r
    m = r["metrics"]
    for k in ("tput_per_gpu", "p90_intvty", "p90_e2e_norm_intvty", "server_gpu_cache_hit_rate",
              "theoretical_cache_hit_rate", "p95_ttft", "median_e2el"):
        assert isinstance(m.get(k), (int, float)), (k, m.get(k))
assert [r["conc"] for r in q] == [2, 4, 8]
PY
	[ "$("$bin" db query --db "$url")" = "[]" ] && [ "$("$bin" db latest --db "$url")" = "[]" ] && ok ||
		no "$name: the fixed-length views hold no agentic row"
	"$bin" db query --db "$url" --agentic --format table | grep -q "agentic-coding" && ok ||
		no "$name: --format table"
	"$bin" db query --db "$url" --agentic --isl 1024 >/dev/null 2>"$tmp/err"
	[ $? = 2 ] && grep -q "no ISL/OSL" "$tmp/err" && ok || no "$name: --isl with agentic rows is a usage error"
}
backend sqlite "sqlite:$tmp/r.db"
if pg_start "$tmp"; then
	backend postgresql "$pg_url"
	cmp -s "$tmp/q.sqlite" "$tmp/q.postgresql" && cmp -s "$tmp/l.sqlite" "$tmp/l.postgresql" && ok ||
		no "query and latest: SQLite = PostgreSQL"
else
	echo "report-agentic: PostgreSQL skipped (the server could not start here)"
fi

# ---- the report: from the agg folder and from the database ----
"$bin" report "$tmp/agg" -o "$tmp/files.html" 2>"$tmp/rep.err" && ok || no "report of the agg folder: $(cat "$tmp/rep.err")"
"$bin" report --db "sqlite:$tmp/r.db" -o "$tmp/db.html" 2>"$tmp/rep.err" && ok || no "report --db: $(cat "$tmp/rep.err")"
"$bin" report "$tmp/agg" --format json -o "$tmp/data.json" 2>/dev/null
"$bin" report "$tmp/agg" --format text >"$tmp/text.txt" 2>/dev/null
grep -q "agentic: llama3 · agentic-coding" "$tmp/text.txt" && ok || no "--format text: the agentic rows"
"$py" - "$tmp/data.json" <<'PY' && ok || no "--format json: the agentic data"
import json, sys
d = json.load(open(sys.argv[1]))["agentic"]
g = d["groups"][0]
assert len(d["rows"]) == 3 and len(g["rows"]) == 3
v = g["views"]["1|2|0"]  # P90 normalised interactivity, throughput per GPU
assert v["roof"] and all(r in g["rows"] for r in v["roof"]), v
assert set(g["views"]["0|2|0"]["roof"]) <= set(v["roof"]), "canonical frontier"
PY
# a fixed-length row beside them: Inference first, Agentic second
cp -r "$tmp/agg" "$tmp/mixed"
printf '[{"hw": "h100", "infmax_model_prefix": "llama3", "framework": "vllm", "precision": "bf16", "isl": 1024, "osl": 1024, "conc": 4, "tp": 1, "tput_per_gpu": 1000, "median_intvty": 50, "median_e2el": 20}]' >"$tmp/mixed/agg_bmk.json"
"$bin" report "$tmp/mixed" -o "$tmp/mixed.html" 2>/dev/null && grep -q '<button data-tab="inference" class="on">Inference</button><button data-tab="agentic">Agentic</button>' "$tmp/mixed.html" &&
	ok || no "mixed input: the Inference tab first, then Agentic"

# ---- in headless Chromium ----
rates=$(cut -d' ' -f2 "$tmp/expect.txt" | tr '\n' ' ' | sed 's/ $//')
cat >"$tmp/checks.json" <<EOF
[{"what": "the agentic tab is shown first", "js": "document.querySelector('nav.tabs button.on').dataset.tab === 'agentic' && document.getElementById('view-agentic').offsetParent !== null"},
 {"what": "two frontier charts shown (interactivity, normalised interactivity), each with one point per row",
  "js": "(() => { const v = [...document.querySelectorAll('#view-agentic .agg.on .agv.on')]; return v.length === 2 && v.every((c) => c.querySelectorAll('circle.apt').length === 3); })()"},
 {"what": "a frontier path in the normalised chart", "js": "document.querySelectorAll('#view-agentic .agg.on .agv.on[data-x=\"1\"] path.frontier').length >= 1 || document.querySelectorAll('#view-agentic .agg.on .agv.on[data-x=\"1\"] circle.roof').length === 1"},
 {"what": "the cache table: one row per point, the GPU hit rates of the rows", "js": "(() => { const t = [...document.querySelectorAll('#view-agentic .agg.on table.cache tbody tr')]; const got = t.map((r) => r.children[4].textContent).join(' '); return t.length === 3 && got === '$rates' || got; })()"},
 {"what": "the cache chart: GPU and theoretical points of every row", "js": "document.querySelectorAll('#view-agentic .agg.on .agc circle.acp').length === 6"},
 {"what": "latency percentiles: one line per row", "js": "document.querySelectorAll('#view-agentic .agg.on .agm.on path.frontier').length === 3"},
 {"what": "switching the percentile shows that percentile's charts", "js": "(() => { const s = document.getElementById('ag-pct'); s.value = '0'; s.dispatchEvent(new Event('change')); const v = [...document.querySelectorAll('#view-agentic .agg.on .agv.on')]; return v.length === 2 && v.every((c) => c.dataset.p === '0' && c.querySelectorAll('circle.apt').length === 3); })()"},
 {"what": "switching the latency metric", "js": "(() => { const s = document.getElementById('ag-lat'); s.value = '1'; s.dispatchEvent(new Event('change')); const v = document.querySelectorAll('#view-agentic .agm.on'); return v.length === 1 && v[0].dataset.m === '1'; })()"}]
EOF
e2e_cdp_checks "$tmp/files.html" "$tmp/checks.json" "$tmp/shot-files-"
e2e_cdp_checks "$tmp/db.html" "$tmp/checks.json" "$tmp/shot-db-"
# ---- infbench run of a reference config key, then db ingest, then report ----
# the agentic rows of one config key of the repository's master configs (10
# rows: TP 4 and 8, concurrency 4..32) on the simulator, 10 model seconds
# each, from the small corpus above; stored, then drawn from the database
"$bin" run --config-files "$root/configs/amd-master.yaml" --runner-config "$root/configs/runners.yaml" \
	--config-keys qwen3.5-fp8-mi300x-sglang-agentic-mtp --engine sim --results "$tmp/store" \
	--agentx-corpus "$tmp/tr.jsonl" --agentic-duration 10 --tokenizer "$tok" --time-scale 50 \
	--jobs 2 --quiet 2>"$tmp/run.err" && ok || no "run of the config key: $(tail -n 3 "$tmp/run.err")"
nrun=$("$py" -c 'import json,sys; print(sum(r.get("scenario_type") == "agentic-coding" for r in json.load(open(sys.argv[1]))))' "$tmp/store/agg_bmk.json" 2>/dev/null)
[ "$nrun" = 10 ] && ok || no "ten agentic rows from run ($nrun)"
out=$("$bin" db ingest --db "sqlite:$tmp/run.db" "$tmp/store/agg_bmk.json" 2>&1)
[[ "$out" == *"and 10 agentic rows (10 new)"* ]] && ok || no "ingest of the run's rows: $out"
"$bin" report --db "sqlite:$tmp/run.db" -o "$tmp/run.html" 2>"$tmp/rep.err" && ok ||
	no "report --db of the run's rows: $(cat "$tmp/rep.err")"
cat >"$tmp/checks-run.json" <<'EOF'
[{"what": "the run's rows: the agentic tab is shown", "js": "document.querySelector('nav.tabs button.on').dataset.tab === 'agentic' && document.getElementById('view-agentic').offsetParent !== null"},
 {"what": "the run's rows: both frontier charts hold the ten rows (all concurrencies, TP 4 and 8)",
  "js": "(() => { const v = [...document.querySelectorAll('#view-agentic .agg.on .agv.on')]; const n = v.map((c) => c.querySelectorAll('circle.apt').length); return v.length === 2 && n.every((k) => k === 10) || JSON.stringify(n); })()"},
 {"what": "the run's rows: ten rows in the cache table", "js": "document.querySelectorAll('#view-agentic .agg.on table.cache tbody tr').length === 10"}]
EOF
e2e_cdp_checks "$tmp/run.html" "$tmp/checks-run.json" "$tmp/shot-run-"
e2e_end
