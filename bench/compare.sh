#!/usr/bin/env bash
# bench/compare.sh [INFBENCH]: `infbench compare RESULTS --db URL` against a
# real PostgreSQL server (Debian's postgresql 15 started here in a temporary
# folder, unix socket: tests/e2e/lib_pg.bash) holding two earlier runs of the
# same ROWS configurations (default 1,820: a full sweep; ANALYZEd, as
# autovacuum keeps a live database), against the
# reference's utils/compare_results.py on the same database and rows in the
# same run when IX_REF names an InferenceX checkout (its interpreter resolved
# by bench/lib.sh: one that imports psycopg2 and tabulate, e.g. Debian's
# /usr/bin/python3 with python3-psycopg2 and python3-tabulate). Prints the
# median wall and CPU (user + system of the client process; the server's
# work is in the wall) of RUNS runs (default 3) and the ratios; the number of
# matched baselines of both. A benchmark, not a test: exits 0.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(readlink -f "${1:-build/infbench}")
rows=${ROWS:-1820}
runs=${RUNS:-3}
[ -x "$bin" ] || { echo "compare.sh: no binary $bin (make first)" >&2; exit 1; }
. "$root/tests/e2e/lib_pg.bash"
tmp=$(mktemp -d)
trap 'pg_stop "$tmp"; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
if ! pg_start "$tmp" >"$tmp/pg_start.log" 2>&1; then
	echo "compare: skipped: PostgreSQL cannot start here: $(tr '\n' ' ' <"$tmp/pg_start.log")"
	exit 0
fi

# ROWS agg rows (one per configuration) for the results folder, and two
# earlier runs of the same configurations for the database
python3 - "$tmp" "$rows" <<'PY'
import json, random, sys
from pathlib import Path
tmp, n = Path(sys.argv[1]), int(sys.argv[2])
r = random.Random(7)
hws = ["h100", "h200", "b200", "mi300x", "mi325x", "mi355x", "gb200"]
fws = ["vllm", "sglang", "trt"]
def row(i, scale):
    hw, fw = hws[i % 7], fws[(i // 7) % 3]
    conc = [4, 8, 16, 32, 64, 128, 256][(i // 21) % 7]
    isl, osl = [(1024, 1024), (1024, 8192), (8192, 1024)][(i // 147) % 3]
    tp = [1, 2, 4, 8][(i // 441) % 4]
    d = {"hw": hw, "conc": conc, "image": "img", "model": "deepseek-ai/DeepSeek-R1-0528",
         "infmax_model_prefix": "dsr1", "framework": fw, "precision": ["fp8", "fp4"][(i // 1764) % 2],
         "spec_decoding": "none", "disagg": False, "isl": isl, "osl": osl, "is_multinode": False,
         "tp": tp, "ep": 1, "dp_attention": "false"}
    for k in ["tput_per_gpu", "output_tput_per_gpu", "input_tput_per_gpu"]:
        d[k] = r.uniform(100, 5000) * scale
    for s in ["mean", "median", "std", "p90", "p99", "p99.9"]:
        for m in ["ttft", "tpot", "intvty", "itl", "e2el"]:
            d[f"{s}_{m}"] = r.uniform(0.001, 2) / scale
    return d
(tmp / "results").mkdir()
(tmp / "results" / "agg_bmk.json").write_text(json.dumps([row(i, 1.05) for i in range(n)]))
for k in (1, 2):
    (tmp / f"base{k}.json").write_text(json.dumps([row(i, 1.0) for i in range(n)]))
PY
for k in 1 2; do
	"$bin" db ingest "$tmp/base$k.json" --db "$pg_url" --run-id "$k" --date "2026-11-0$k" \
		--branch main --sha "s$k" >/dev/null 2>&1 || { echo "compare: skipped: ingest failed"; exit 0; }
done
# the statistics autovacuum keeps on a live database (without them the
# planner guesses table sizes and both programs' queries slow down)
"$pgbin/psql" "$pg_url" -qc ANALYZE >/dev/null 2>&1 || echo "(ANALYZE failed: the planner has no statistics)"

ref=
if [ -n "${IX_REF:-}" ] && [ -f "$IX_REF/utils/compare_results.py" ]; then
	if bench_ref_python psycopg2 tabulate; then ref=1; else echo "reference: skipped: $REF_PY_NOTE"; fi
fi
INFBENCH=$bin bench_startup
echo "rows: $rows, against 2 earlier runs of each in PostgreSQL 15 (unix socket); RUNS=$runs"
bench_time "$runs" 1 "$bin" compare "$tmp/results" --db "$pg_url"
iw=$BT_WALL_MS ic=$BT_CPU_MS
"$bin" compare "$tmp/results" --db "$pg_url" >"$tmp/ib.md" 2>"$tmp/ib.err"
printf 'infbench   compare: wall %8.1f ms, CPU %8.1f ms   (%s)\n' "$iw" "$ic" \
	"$(grep -o 'Summary: [0-9]* matched' "$tmp/ib.err")"
if [ -n "$ref" ]; then
	echo "reference: $REF_PY_NOTE"
	export PYTHONDONTWRITEBYTECODE=1 DATABASE_URL=$pg_url
	bench_time "$runs" 1 "$REF_PY" "$IX_REF/utils/compare_results.py" "$tmp/results"
	rw=$BT_WALL_MS rc=$BT_CPU_MS
	"$REF_PY" "$IX_REF/utils/compare_results.py" "$tmp/results" >"$tmp/ref.md" 2>"$tmp/ref.err"
	printf 'reference  compare: wall %8.1f ms, CPU %8.1f ms   (%s)\n' "$rw" "$rc" \
		"$(grep -o 'Summary: [0-9]* matched' "$tmp/ref.err")"
	echo "markdown output: $(cmp -s "$tmp/ib.md" "$tmp/ref.md" && echo identical || echo DIFFERS)"
	printf 'ratio, reference / infbench: %s wall, %s CPU (target: >= 5x wall)\n' \
		"$(bench_ratio "$rw" "$iw")" "$(bench_ratio "$rc" "$ic")"
else
	[ -n "${IX_REF:-}" ] || echo "reference: skipped (set IX_REF to an InferenceX checkout)"
fi
exit 0
