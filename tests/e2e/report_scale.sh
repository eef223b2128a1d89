#!/usr/bin/env bash
# `infbench report` at scale: a 50,000-row report completes under limits the
# test sets (ulimit -v 560 MiB and timeout 120 s on the release build; before
# the report was made linear it needed ~660 MB at 50k rows), the page stays
# bounded (--max-points: at most 20,000 rows embedded), and a thinned page
# keeps every frontier exactly (the same roof rows and paths as the full
# data). Outcomes only, never a speed.
# Usage: tests/e2e/report_scale.sh INFBENCH   (release build from $IB_RELEASE)
. "$(dirname "$0")/lib.sh" report_scale "$1"
e2e_tmp
py=/usr/bin/python3
[ -x "$py" ] || py=python3

# gen N FILE: N agg rows, 8 model x sequence groups, 72 series each (deterministic)
gen() {
	"$py" - "$1" "$2" <<'PY'
import json, random, sys
n, path = int(sys.argv[1]), sys.argv[2]
r = random.Random(7)
gpus = ["h100", "h200", "b200", "mi300x", "mi325x", "mi355x"]
models = ["dsr1", "gptoss", "minimaxm3", "qwen3.5"]
rows = []
for i in range(n):
    t = r.uniform(100, 5000)
    rows.append({"hw": gpus[(i // 10) % 6], "infmax_model_prefix": models[i % 4],
                 "framework": ["vllm", "sglang", "trt"][(i // 60) % 3],
                 "precision": ["fp8", "fp4"][(i // 180) % 2], "spec_decoding": ["none", "mtp"][(i // 360) % 2],
                 "tp": 8, "ep": 1, "isl": [1024, 8192][(i // 997) % 2], "osl": 1024, "conc": 2 ** (i % 10),
                 "tput_per_gpu": t, "output_tput_per_gpu": t / 2, "input_tput_per_gpu": t / 2,
                 "median_intvty": r.uniform(5, 300), "median_e2el": r.uniform(1, 100),
                 "median_ttft": r.uniform(0.05, 5), "p90_ttft": r.uniform(0.1, 9), "p99_ttft": r.uniform(0.1, 9)})
json.dump(rows, open(path, "w"))
PY
}

# -- 1. 50,000 rows under ulimit -v and timeout (release build)
rel=${IB_RELEASE:-}
[ -z "$rel" ] && [ -x "$root/build/infbench" ] && rel=$root/build/infbench
if [ -n "$rel" ] && [ -x "$rel" ]; then
	gen 50000 "$tmp/big.json"
	(ulimit -v 573440 && timeout 120 "$rel" report "$tmp/big.json" -o "$tmp/big.html" \
		>/dev/null 2>"$tmp/big.err")
	rc=$?
	size=$(stat -c %s "$tmp/big.html" 2>/dev/null || echo 0)
	[ "$rc" = 0 ] && [ "$size" -gt 0 ] && [ "$size" -lt 40000000 ] && ok ||
		no "50,000 rows under ulimit -v 560 MiB, timeout 120 s: exit $rc, page $size bytes: $(tail -c 300 "$tmp/big.err")"
	grep -qs '(of 50000 loaded: thinned, every frontier point kept)' "$tmp/big.html" && ok ||
		no "the 50,000-row page does not say it was thinned"
	(ulimit -v 573440 && timeout 120 "$rel" report "$tmp/big.json" --format json -o "$tmp/big-data.json" \
		>/dev/null 2>&1)
	rows=$("$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["rows"]), d.get("maxPoints"), d.get("rowsTotal"))' \
		"$tmp/big-data.json" 2>/dev/null)
	[ "$rows" = "20000 20000 50000" ] && ok || no "50,000 rows: embedded/maxPoints/rowsTotal are '$rows', not '20000 20000 50000'"
	rm -f "$tmp/big.json" "$tmp/big.html" "$tmp/big-data.json"
else
	echo "skipped: no release build (IB_RELEASE or build/infbench) for the ulimit -v check"
fi

# -- 2. a thinned page keeps every frontier: same roof rows and paths (by
#    row identity) as the full data, at most max(--max-points, frontier rows)
gen 3000 "$tmp/mid.json"
"$bin" report "$tmp/mid.json" --format json --max-points 0 -o "$tmp/full.json" 2>/dev/null || no "--max-points 0 failed"
"$bin" report "$tmp/mid.json" --format json --max-points 300 -o "$tmp/thin.json" 2>/dev/null || no "--max-points 300 failed"
"$bin" report "$tmp/mid.json" --format json -o "$tmp/default.json" 2>/dev/null
cmp -s "$tmp/full.json" "$tmp/default.json" && ok || no "3,000 rows (under the default cap) are not the full data"
out=$("$py" - "$tmp/full.json" "$tmp/thin.json" <<'PY'
import json, sys
full, thin = (json.load(open(p)) for p in sys.argv[1:3])
def views(d):
    src = [r["src"] for r in d["rows"]]
    out = {}
    for g in d["groups"]:
        for k, v in g["views"].items():
            key = (g["model"], g["seq"], k)
            out[key] = (sorted(src[i] for i in v["roof"]), [[src[i] for i in p] for p in v["paths"]])
    return out
a, b = views(full), views(thin)
need = {s for roof, paths in b.values() for s in roof}
bad = [k for k in a if a[k] != b.get(k)]
ok = not bad and len(a) == len(b) and len(thin["rows"]) <= max(300, len(need)) and len(thin["rows"]) < len(full["rows"])
ok = ok and thin.get("rowsTotal") == 3000 and all(g.get("total") for g in thin["groups"])
print("ok" if ok else "bad: %d views differ (%s), %d rows kept, %d frontier rows" % (len(bad), bad[:2], len(thin["rows"]), len(need)))
PY
)
[ "$out" = ok ] && ok || no "thinned page: $out"
"$bin" report "$tmp/mid.json" --format text --max-points 300 2>/dev/null | grep -q "thinned from 3000 rows" && ok ||
	no "--format text does not say the data was thinned"

# -- 3. --max-points takes a number
for v in -5 abc "" 12x; do
	"$bin" report "$tmp/mid.json" --format json --max-points "$v" >/dev/null 2>"$tmp/mp.err"
	rc=$?
	[ "$rc" = 2 ] && grep -q -- "--max-points" "$tmp/mp.err" && ok || no "--max-points '$v': exit $rc"
done
e2e_end
