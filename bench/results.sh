#!/usr/bin/env bash
# bench/results.sh [INFBENCH]: infbench process + collect over a full sweep's
# worth of rows (ROWS, default 1,820), against the reference's process_result.py
# and collect_results.py in the same run when IX_REF names an InferenceX
# checkout. Each row is one raw result with an 8-GPU nvidia-smi telemetry CSV
# (187 s at 1 Hz), processed in its own folder as the workflow does (one process
# per row, power aggregation included; all rows as one shell script under GNU
# time). The reference processes the first REF_ROWS rows (default all; ~0.25 s
# of CPU each): the ratio is per row. Then both collect the same ROWS agg files
# (infbench's) into agg_bmk.json, CRUNS times each (default 5; bash's time, ms
# resolution; median). Prints wall and CPU (user + system) of each phase and
# the ratios; checks the collected rows (sorted) and the reference's processed
# rows against infbench's. The reference runs under the real interpreter
# (bench/lib.sh resolves a version-manager shim once; REF_PYTHON overrides),
# and the start-up of both programs is printed apart. A benchmark, not a
# test: exits 0.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$(readlink -f "${1:-build/infbench}")
rows=${ROWS:-1820}
[ -x "$bin" ] || { echo "results.sh: no binary $bin (make first)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp/in" "$rows" <<'PY'
import json, random, sys
from datetime import datetime, timezone
from pathlib import Path
out, n = Path(sys.argv[1]), int(sys.argv[2])
r = random.Random(1)
for i in range(n):
    d = out / f"r{i:04d}"
    d.mkdir(parents=True)
    start = 1785031207.412853 + i * 300
    res = {"model_id": "deepseek-ai/DeepSeek-R1-0528", "max_concurrency": r.choice([4, 8, 16, 32, 64, 128, 256]),
           "duration": 187.5, "benchmark_start_time_unix": start, "benchmark_end_time_unix": start + 187.5,
           "completed": 80, "total_input_tokens": 73777, "total_output_tokens": 18327,
           "output_throughput": r.uniform(100, 5000), "total_token_throughput": r.uniform(5000, 30000)}
    for s in ["mean", "median", "std", "p90", "p99", "p99.9"]:
        for m in ["ttft", "tpot", "itl", "e2el"]:
            res[f"{s}_{m}_ms"] = r.uniform(1, 500)
    (d / "res.json").write_text(json.dumps(res))
    lines = ["timestamp, index, power.draw [W], temperature.gpu"]
    for k in range(-5, 195):
        ts = datetime.fromtimestamp(start + k, timezone.utc).strftime("%Y/%m/%d %H:%M:%S.%f")[:23]
        lines += [f"{ts}, {g}, {r.uniform(100, 900):.2f} W, 60" for g in range(8)]
    (d / "gpu_metrics.csv").write_text("\n".join(lines) + "\n")
PY

envs=(TZ=UTC RUNNER_TYPE=h200 FRAMEWORK=vllm PRECISION=fp8 SPEC_DECODING=none RESULT_FILENAME=res
	ISL=1024 OSL=1024 DISAGG=false MODEL_PREFIX=dsr1 IMAGE=img TP=8 EP_SIZE=1 DP_ATTENTION=false)
# measure OUT SCRIPT: runs bash SCRIPT under GNU time; OUT gets "wall cpu" in s
measure() {
	/usr/bin/time -f '%e %U %S' -o "$tmp/tm" bash "$2" >/dev/null 2>&1
	awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$tmp/tm" >"$1"
}
# run_all NAME N: process the first N rows in a copy of the inputs with the
# command in $proc (one process per row, in the row's folder), timed as one
# shell script under GNU time; their agg rows are copied to c_NAME
run_all() {
	local name=$1 n=$2
	cp -r "$tmp/in" "$tmp/$name"
	{
		printf 'export %q\n' "${envs[@]}"
		echo "for d in \$(ls -d $tmp/$name/r* | head -n $n); do cd \"\$d\" && $proc; done"
	} >"$tmp/p_$name.sh"
	measure "$tmp/m_p_$name" "$tmp/p_$name.sh"
	mkdir -p "$tmp/c_$name"
	for d in $(ls -d "$tmp/$name"/r* | head -n "$n"); do
		cp "$d/agg_res.json" "$tmp/c_$name/agg_$(basename "$d").json"
	done
	read -r pw pc <"$tmp/m_p_$name"
	printf '%-10s process: %5d rows, wall %7.2f s, CPU %7.2f s (%6.2f ms/row)\n' "$name" "$n" "$pw" \
		"$pc" "$(echo "$pc * 1000 / $n" | bc -l)"
	echo "$(echo "$pw / $n" | bc -l) $(echo "$pc / $n" | bc -l)" >"$tmp/row_$name"
}
# collect_all NAME: collects infbench's agg rows (c_infbench: the same input
# files for both programs) with the command in $coll, CRUNS times (bash's
# time, ms resolution; median)
collect_all() {
	local name=$1
	pushd "$tmp" >/dev/null || return
	bench_time "${CRUNS:-5}" 1 $coll c_infbench "bmk_$name"
	$coll c_infbench "bmk_$name" >/dev/null 2>&1
	popd >/dev/null || return
	printf '%-10s collect: %5d files, wall %8.1f ms, CPU %8.1f ms (%.1f MB/s of agg JSON)\n' "$name" \
		"$(ls "$tmp/c_infbench" | wc -l)" "$BT_WALL_MS" "$BT_CPU_MS" \
		"$(echo "$(du -sb --apparent-size "$tmp/c_infbench" | cut -f1) / 1048.576 / ($BT_CPU_MS + 0.001)" | bc -l)"
	echo "$BT_WALL_MS $BT_CPU_MS" >"$tmp/coll_$name"
}
echo "rows: $rows (8-GPU telemetry, 200 samples per GPU); the reference processes REF_ROWS=${REF_ROWS:-$rows} of them"
ref=
if [ -n "${IX_REF:-}" ] && [ -f "$IX_REF/utils/process_result.py" ]; then
	if bench_ref_python; then ref=1; else echo "reference: skipped: $REF_PY_NOTE"; fi
fi
INFBENCH=$bin bench_startup
proc="$bin process" run_all infbench "$rows"
coll="$bin collect" collect_all infbench
if [ -n "$ref" ]; then
	echo "reference: $REF_PY_NOTE"
	export PYTHONDONTWRITEBYTECODE=1
	proc="$REF_PY $IX_REF/utils/process_result.py" run_all reference "${REF_ROWS:-$rows}"
	coll="$REF_PY $IX_REF/utils/collect_results.py" collect_all reference
	read -r apw apc <"$tmp/row_infbench"
	read -r bpw bpc <"$tmp/row_reference"
	read -r acw acc <"$tmp/coll_infbench"
	read -r bcw bcc <"$tmp/coll_reference"
	printf 'ratio, reference / infbench: process per row %s CPU (%s wall), collect %s CPU (%s wall)\n' \
		"$(bench_ratio "$bpc" "$apc")" "$(bench_ratio "$bpw" "$apw")" \
		"$(bench_ratio "$bcc" "$acc")" "$(bench_ratio "$bcw" "$acw")"
	python3 - "$tmp" <<'PY'
import json, sys
from pathlib import Path
t = Path(sys.argv[1])
def rows(p):
    return sorted(json.dumps(x, sort_keys=True) for x in json.load(open(p)))
a, b = rows(t / "agg_bmk_infbench.json"), rows(t / "agg_bmk_reference.json")
print("collected rows:", len(a), "identical" if a == b else "DIFFER")
same = all(json.load(open(f)) == json.load(open(t / "c_infbench" / f.name))
           for f in sorted((t / "c_reference").glob("*.json")))
print("processed rows (reference's %d):" % len(list((t / "c_reference").glob("*.json"))),
      "identical" if same else "DIFFER")
PY
else
	[ -n "${IX_REF:-}" ] || echo "reference: skipped (set IX_REF to an InferenceX checkout)"
fi
exit 0
