#!/usr/bin/env bash
# End-to-end test of the GitHub Actions fan-out (docs/examples/github-actions.yml):
# `infbench matrix --gha` splits the matrix into InferenceX's job families
# (checked against a Python oracle of the reference workflow's filters), then
# the workflow's jobs are played locally: two single-node rows of the seed key
# (both with run-eval) each run by scripts/gha-row.sh into its own store on the
# simulator, their agg and eval files merged as the artifacts would be, then
# collect, eval collect and report as the collect job does.
# Usage: gha.sh INFBENCH. Ends with "gha: N passed, N failed".
. "$(dirname "$0")/lib.sh" gha "$1"
e2e_tmp
cd "$root" || exit 1
masters=(configs/amd-master.yaml configs/nvidia-master.yaml configs/minimaxm3-mtp-master.yaml)

# -- 1. the job families: $GITHUB_OUTPUT, --output, and the oracle
"$bin" matrix full-sweep --config-files "${masters[@]:0:2}" --runner-config configs/runners.yaml \
	--output "$tmp/full.json" >/dev/null
: >"$tmp/gh_out"
GITHUB_OUTPUT=$tmp/gh_out "$bin" matrix full-sweep --config-files "${masters[@]:0:2}" \
	--runner-config configs/runners.yaml --gha >"$tmp/stdout" && ok || no "--gha: exit status"
[ ! -s "$tmp/stdout" ] && ok || no "--gha with \$GITHUB_OUTPUT printed on stdout"
"$bin" matrix full-sweep --config-files "${masters[@]:0:2}" --runner-config configs/runners.yaml \
	--gha --output "$tmp/gh_file" && cmp -s "$tmp/gh_out" "$tmp/gh_file" && ok ||
	no "--gha --output FILE differs from the \$GITHUB_OUTPUT lines"
python3 - "$tmp/full.json" "$tmp/gh_out" <<'PY' && ok || no "--gha families differ from the reference workflow's filters"
import json, sys
rows = json.load(open(sys.argv[1]))
out = {}
for line in open(sys.argv[2]):
    k, v = line.rstrip("\n").split("=", 1)
    out[k] = json.loads(v)
ag = lambda x: x.get("scenario-type") == "agentic-coding"
ev = lambda x: x.get("run-eval", False)
only = lambda x: x.get("eval-only", False)
want = {
    "agentic-config": [x for x in rows if ag(x) and "prefill" not in x and not ev(x)],
    "agentic-eval-config": [x for x in rows if ag(x) and "prefill" not in x and ev(x)],
    "multi-node-agentic-config": [x for x in rows if ag(x) and "prefill" in x and not ev(x)],
    "multi-node-agentic-eval-config": [x for x in rows if ag(x) and "prefill" in x and ev(x)],
    "single-node-config": [x for x in rows if "prefill" not in x and not ag(x) and not only(x)],
    "multi-node-config": [x for x in rows if "prefill" in x and not ag(x) and not only(x)],
    "eval-config": [x for x in rows if "prefill" not in x and not ag(x) and only(x)],
    "multi-node-eval-config": [x for x in rows if "prefill" in x and not ag(x) and ev(x)],
}
assert list(out) == list(want), list(out)
for k in want:
    assert out[k] == want[k], (k, len(out[k]), len(want[k]))
PY

# -- 2. the fan-out on the simulator: two jobs, the artifacts, the collect job
if [ ! -f "$tok/tokenizer.json" ]; then
	echo "gha: fan-out skipped (no tokenizer fixture; 'make fixtures' fetches it)"
else
	"$bin" matrix test-config --config-files "${masters[@]}" --runner-config configs/runners.yaml \
		--config-keys minimaxm3-fp4-mi355x-vllm-mtp --gha --output "$tmp/seed_out"
	python3 - "$tmp/seed_out" "$tmp" <<'PY'
import json, sys
fam = dict(l.rstrip("\n").split("=", 1) for l in open(sys.argv[1]))
rows = [r for r in json.loads(fam["single-node-config"]) if r.get("run-eval")][:2]
for i, r in enumerate(rows):
    open(f"{sys.argv[2]}/row{i}.json", "w").write(json.dumps(r))  # as toJson(matrix.config)
PY
	for i in 0 1; do
		INFBENCH=$bin scripts/gha-row.sh "$tmp/job$i/results" "$(cat "$tmp/row$i.json")" \
			--tokenizer "$tok" --time-scale 100 --prompts-per-conc 1 --warmups-per-conc 0 \
			--eval-limit 50 --quiet 2>"$tmp/job$i.err" && ok || { no "job $i: gha-row.sh failed"; cat "$tmp/job$i.err"; }
	done
	mkdir -p "$tmp/bmk" "$tmp/evals" "$tmp/out"
	for i in 0 1; do # upload-artifact + download-artifact (merge-multiple)
		(cd "$tmp/job$i/results/rows" && find . \( -name 'agg_*.json' \) -exec cp --parents {} "$tmp/bmk/" \; &&
			find . \( -name meta_env.json -o -name 'results_*.json' \) -exec cp --parents {} "$tmp/evals/" \;)
	done
	(cd "$tmp/out" && "$bin" collect ../bmk bmk >/dev/null && "$bin" eval collect ../evals all >/dev/null) &&
		ok || no "collect job: collect / eval collect failed"
	python3 - "$tmp/out" <<'PY' && ok || no "collect job: agg_bmk.json / agg_eval_all.json"
import json, sys
b = json.load(open(sys.argv[1] + "/agg_bmk.json"))
e = json.load(open(sys.argv[1] + "/agg_eval_all.json"))
assert len(b) == 2 and all(r["infmax_model_prefix"] == "minimaxm3" for r in b), b
assert len(e) == 2 and all(r["task"] == "gsm8k" and r["n_eff"] == 50 for r in e), e
PY
	"$bin" report "$tmp/out" -o "$tmp/out/report.html" 2>"$tmp/report.err" && grep -q 'gsm8k' "$tmp/out/report.html" &&
		ok || { no "collect job: report"; cat "$tmp/report.err"; }
	! ls "$tmp"/job0/results/.row.* >/dev/null 2>&1 && ok || no "gha-row.sh left its temporary matrix"
fi
e2e_end
