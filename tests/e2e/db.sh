#!/usr/bin/env bash
# End-to-end checks of `infbench db` and `infbench compare` on both backends:
# a generated agg_bmk.json of 10,000 rows (plus five earlier runs) ingested
# into SQLite and into a real PostgreSQL server started here (Debian's
# postgresql 15, unix socket in a temp folder, no TCP); `latest` and `history`
# must be byte-identical between the backends and equal to an independent
# Python computation (tests/e2e/db_oracle.py); ingesting twice changes
# nothing; kill -9 in the middle of an ingest leaves the previous state; bad
# input names the file, row and field.
# Usage: tests/e2e/db.sh INFBENCH
# Ends with "db-e2e: N passed, N failed".
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
oracle=$here/db_oracle.py
tmp=$(mktemp -d)
. "$here/lib_pg.bash"
cleanup() {
	pg_stop "$tmp"
	rm -rf "$tmp"
}
trap cleanup EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
	echo "FAIL $1"
	fail=$((fail + 1))
}
# same NAME FILE1 FILE2: the files must be identical
same() {
	if cmp -s "$2" "$3"; then ok; else
		bad "$1"
		diff <(tr ',' '\n' <"$2") <(tr ',' '\n' <"$3") | head -5
	fi
}

# Debian's interpreter when there is one (a pyenv shim costs ~0.4 s a call)
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
if ! command -v "$py" >/dev/null; then
	echo "db-e2e: skipped: python3 is not installed"
	echo "db-e2e: 0 passed, 0 failed"
	exit 0
fi
data=$tmp/data
mkdir -p "$data"
"$py" "$oracle" gen "$data" || { echo "db-e2e: the generator failed"; exit 1; }
"$py" "$oracle" latest "$data" >"$tmp/latest.expected"
target=60
runrows=$(($("$py" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$data/run1.json")))
"$py" "$oracle" history "$data" "$target" >"$tmp/history.expected"

# ingest_all URL: every run, in order, as runs.tsv lists them
ingest_all() {
	local run date file
	while IFS=$'\t' read -r run date file; do
		"$bin" db ingest --db "$1" --run-id "$run" --date "$date" --branch main \
			"$data/$file" >"$tmp/ingest.out" 2>"$tmp/ingest.err" || {
			cat "$tmp/ingest.err"
			return 1
		}
	done <"$data/runs.tsv"
}

# history as "key|date value" lines, comparable with the oracle's JSON
history_flat() {
	"$bin" db history --db "$1" --target "$target" --metric tpPerGpu >"$tmp/h.json" &&
		"$py" - "$tmp/h.json" <<'EOF'
import json, sys
out = {}
for g in json.load(open(sys.argv[1])):
    key = "|".join(str(g[k]) for k in ("model", "isl", "osl", "hardware", "framework",
                                       "spec_method", "disagg", "precision"))
    for p in g["points"]:
        out[key + "|" + p["date"]] = p["value"]
print(json.dumps(out, sort_keys=True))
EOF
}

# close A B: the two history files agree within 1e-9 relative
close() {
	"$py" - "$1" "$2" <<'EOF'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bad = [k for k in set(a) | set(b) if (a.get(k) is None) != (b.get(k) is None) or
       (a.get(k) is not None and abs(a[k] - b[k]) > 1e-9 * max(abs(a[k]), abs(b[k]), 1e-12))]
for k in sorted(bad)[:5]:
    print("  ", k, a.get(k), b.get(k))
sys.exit(1 if bad or not a else 0)
EOF
}

# check_backend NAME URL
check_backend() {
	local name=$1 url=$2
	if ingest_all "$url"; then ok; else bad "$name: ingest"; return; fi
	grep -q "ingested 10000 benchmark rows (10000 new, 0 already stored)" "$tmp/ingest.out" &&
		ok || bad "$name: the main run's summary: $(cat "$tmp/ingest.out")"
	"$bin" db latest --db "$url" >"$tmp/latest.$name" && ok || bad "$name: latest"
	same "$name: latest = the Python computation" "$tmp/latest.expected" "$tmp/latest.$name"
	"$bin" db query --db "$url" >"$tmp/query.$name" && ok || bad "$name: query"
	[ "$("$py" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' \
		"$tmp/query.$name")" = $((10000 + 5 * runrows)) ] && ok || bad "$name: query returns every stored row"
	history_flat "$url" >"$tmp/history.$name" && ok || bad "$name: history"
	close "$tmp/history.expected" "$tmp/history.$name" && ok ||
		bad "$name: history = the Python computation"

	# ingesting a run again changes nothing
	"$bin" db ingest --db "$url" --run-id r1 --date 2026-01-01 --branch main \
		"$data/run1.json" >"$tmp/ingest.out" 2>&1 &&
		grep -q "(0 new, $runrows already stored)" "$tmp/ingest.out" && ok ||
		bad "$name: second ingest: $(cat "$tmp/ingest.out")"

	# kill -9 while the transaction is open: stderr goes to a FIFO that is
	# read up to the first progress line and then left unread, so the ingest
	# blocks inside its transaction until it is killed
	sed 's/"conc": \([0-9]*\)/"conc": 1\1/' "$data/run1.json" >"$tmp/next.json"
	rm -f "$tmp/fifo"
	mkfifo "$tmp/fifo"
	"$bin" db ingest --db "$url" --run-id killed --date 2026-02-01 --branch main \
		--progress 1 "$tmp/next.json" >/dev/null 2>"$tmp/fifo" &
	local pid=$! line=
	exec 3<"$tmp/fifo"
	read -r line <&3
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	exec 3<&-
	case $line in "ingest: "*" of "*" rows written") ok ;; *) bad "$name: progress: $line" ;; esac
	# one dump of every row checks both: the second ingest and the killed one
	# left the database as it was
	"$bin" db query --db "$url" >"$tmp/query3.$name"
	same "$name: ingesting twice changes nothing" "$tmp/query.$name" "$tmp/query3.$name"
	same "$name: kill -9 during ingest leaves the previous state" "$tmp/query.$name" \
		"$tmp/query3.$name"
	"$bin" db ingest --db "$url" --run-id killed --date 2026-02-01 "$tmp/next.json" \
		>"$tmp/ingest.out" 2>&1 && grep -q "ingested $runrows benchmark rows ($runrows new" "$tmp/ingest.out" && ok ||
		bad "$name: the killed run ingests afterwards: $(cat "$tmp/ingest.out")"
	"$bin" db version --db "$url" | grep -q "schema version 4" && ok || bad "$name: version"
}

check_backend sqlite "$tmp/results.db"
[ -f "$tmp/results.db-wal" ] || [ "$(sqlite3 "$tmp/results.db" 'PRAGMA journal_mode' 2>/dev/null)" = wal ] &&
	ok || bad "sqlite: WAL journal"

# ---- PostgreSQL: a private server on a unix socket (lib_pg.bash) ----
if pg_start "$tmp"; then
	check_backend postgresql "$pg_url"
	same "latest: SQLite = PostgreSQL" "$tmp/latest.sqlite" "$tmp/latest.postgresql"
	same "query: SQLite = PostgreSQL" "$tmp/query.sqlite" "$tmp/query.postgresql"
	same "history: SQLite = PostgreSQL" "$tmp/history.sqlite" "$tmp/history.postgresql"
	# compare against the PostgreSQL baselines, as the reference does
	mkdir -p "$tmp/cmp"
	"$py" -c 'import json, sys
rows = json.load(open(sys.argv[1]))[:40]
for r in rows:
    r["tput_per_gpu"] *= 1.1
json.dump(rows, open(sys.argv[2], "w"))' "$data/agg_bmk.json" "$tmp/cmp/rows.json"
	DATABASE_URL=$pg_url "$bin" compare "$tmp/cmp" >"$tmp/cmp.pg" 2>/dev/null && ok ||
		bad "compare against PostgreSQL"
	DATABASE_URL=$tmp/results.db "$bin" compare "$tmp/cmp" >"$tmp/cmp.sqlite" 2>/dev/null
	same "compare: SQLite = PostgreSQL" "$tmp/cmp.sqlite" "$tmp/cmp.pg"
	grep -q 'color{' "$tmp/cmp.pg" && ok || bad "compare: coloured deltas against the baselines"
	# the same rows against a baseline agg file instead of a database
	"$bin" compare "$tmp/cmp" --baseline "$data/agg_bmk.json" >"$tmp/cmp.file" 2>/dev/null &&
		ok || bad "compare --baseline"
	same "compare: --baseline agg file = the database" "$tmp/cmp.pg" "$tmp/cmp.file"
else
	echo "db-e2e: PostgreSQL skipped: the server could not start (the SQLite checks ran)"
fi

# ---- bad input: file, row and field named, exit 1, nothing stored ----
printf '[{"hw": "h100", "framework": "vllm"}]' >"$tmp/bad1.json"
"$bin" db ingest --db "$tmp/bad.db" "$tmp/bad1.json" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q "bad1.json: row 1: missing field 'infmax_model_prefix'\|bad1.json: row 1: missing field 'model'" "$tmp/err" &&
	ok || bad "missing field: $(cat "$tmp/err")"
printf '[{"hw": "h100", "model": "m", "framework": "vllm", "precision": "fp8", "tp": "x", "isl": 1, "osl": 1, "conc": 1}]' >"$tmp/bad2.json"
"$bin" db ingest --db "$tmp/bad.db" "$data/run1.json" "$tmp/bad2.json" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q "bad2.json: row 1: field 'tp'" "$tmp/err" && ok || bad "wrong type: $(cat "$tmp/err")"
printf '[{"hw": "h100",' >"$tmp/bad3.json"
"$bin" db ingest --db "$tmp/bad.db" "$tmp/bad3.json" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q "bad3.json:1:" "$tmp/err" && ok || bad "truncated JSON: $(cat "$tmp/err")"
[ "$("$bin" db query --db "$tmp/bad.db")" = "[]" ] && ok || bad "nothing stored after bad input"
"$bin" db latest --db "$tmp/absent.db" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q "absent.db: no such database file" "$tmp/err" && ok ||
	bad "reading a missing database: $(cat "$tmp/err")"
"$bin" db bogus >/dev/null 2>&1
[ $? = 2 ] && ok || bad "unknown command exits 2"
"$bin" db --help | grep -q "usage: infbench db" && ok || bad "db --help"
"$bin" compare --help | grep -q "usage: infbench compare" && ok || bad "compare --help"

echo "db-e2e: $pass passed, $fail failed"
[ "$fail" = 0 ]
