#!/usr/bin/env bash
# The sweep runner's own cost per row: `infbench run` on the simulator over a
# few rows of the seed key, then, per row from the manifest, the row's wall
# time split into the server start (spawn to /health), the client process
# (prompt generation, warmup, the timed window from the result's "duration"),
# processing, and what is left — the runner's overhead (planning, workspace,
# environment, spawning, polling, manifest records, renames). Prints the
# overhead per row and as a share of the row; target < 1 s and < 1 %.
# Usage: bench/run.sh [INFBENCH]  (run from the repository root; needs the
# llama3 tokenizer fixture). A benchmark: it always exits 0 once it ran.
set -u
bin=${1:-build/infbench}
tok=fixtures/tokenizers/llama3
[ -x "$bin" ] || { echo "bench/run.sh: no $bin (make first)"; exit 1; }
[ -f "$tok/tokenizer.json" ] || { echo "bench/run.sh: no tokenizer fixture (make fixtures)"; exit 1; }
tmp=$(mktemp -d /tmp/ib_bench_run.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$bin" matrix test-config --config-files configs/minimaxm3-mtp-master.yaml \
	--runner-config configs/runners.yaml --config-keys minimaxm3-fp4-mi355x-vllm-mtp >"$tmp/m.json"
rows=${ROWS:-0-5}
scale=${TIME_SCALE:-20}
echo "infbench run: rows $rows of minimaxm3-fp4-mi355x-vllm-mtp, --time-scale $scale, one row at a time"
start=$(date +%s%N)
"$bin" run "$tmp/m.json" --rows "$rows" --results "$tmp/store" --tokenizer "$tok" --time-scale "$scale" \
	--quiet || echo "(some rows did not finish; figures cover the done ones)"
end=$(date +%s%N)
python3 - "$tmp/store" "$(((end - start) / 1000000))" <<'PY'
import json, os, sys
store, total_ms = sys.argv[1], int(sys.argv[2])
rows = []
for line in open(os.path.join(store, "manifest.jsonl")):
    r = json.loads(line)
    if r.get("state") != "done" or r.get("reused"):
        continue
    raw = json.load(open(os.path.join(store, "rows", r["identity"], r["name"] + ".json")))
    # the timed window in wall seconds: against a time-scaled simulator
    # "duration" is model time, "wall_duration" what the client waited
    timed = raw.get("wall_duration", raw["duration"])
    over = r["seconds"] - r["server_start_s"] - r["client_s"] - r["process_s"]
    rows.append((r["row"], r["seconds"], r["server_start_s"], r["client_s"] - timed, timed, r["process_s"], over))
print("%4s %9s %12s %16s %12s %11s %14s %8s" % ("row", "row s", "server start", "client untimed", "timed window",
      "processing", "runner overhead", "share"))
for row, sec, srv, untimed, timed, proc, over in sorted(rows):
    print("%4d %9.2f %12.2f %16.2f %12.2f %11.3f %14.3f %7.2f%%" % (row, sec, srv, untimed, timed, proc, over, 100 * over / sec))
if rows:
    n = len(rows)
    over = sum(r[6] for r in rows) / n
    sec = sum(r[1] for r in rows) / n
    print("mean runner overhead per row: %.3f s (%.2f%% of a row's %.2f s); plan + start + exit of the run: %.2f s" %
          (over, 100 * over / sec, sec, total_ms / 1000 - sum(r[1] for r in rows)))
PY
exit 0
