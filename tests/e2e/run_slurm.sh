#!/usr/bin/env bash
# End-to-end test of `infbench run --slurm`: starts a one-node, GPU-less Slurm
# cluster from Debian's packages (munged, slurmctld, slurmd; a generated
# slurm.conf in a temp folder, ports chosen at run time), sweeps 4 rows on the
# simulator as a job array (one task per row, --wait), and compares with a
# local run of the same rows: same identities, same agg fields except timings.
# Prints one "skipped" line when the cluster cannot start.
# Usage: run_slurm.sh INFBENCH. Ends with "run_slurm: N passed, N failed".
. "$(dirname "$0")/lib.sh" run_slurm "$1"
skip() { e2e_skip "$@"; }
e2e_need_tok skip
. "$root/tests/e2e/lib_slurm.bash"
tmp=$(mktemp -d /tmp/ib_slurm_e2e.XXXXXX)
cleanup() {
	slurm_stop "$tmp"
	rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp" || exit 1
slurm_start "$tmp" 1

sed -n '/^row() {/,/^}/p' "$root/tests/e2e/run.sh" >row.sh
. ./row.sh
{
	echo "["
	row 256 64 1 none; echo ","
	row 256 64 2 none; echo ","
	row 512 64 1 none; echo ","
	row 512 64 2 mtp
	echo "]"
} >m4.json
opts=(--tokenizer "$tok" --time-scale 10 --quiet)
timeout 600 "$bin" run m4.json --results slurm --slurm --wait --time 10 "${opts[@]}" >submit.out 2>submit.err
rc=$?
[ "$rc" = 0 ] && ok || { no "slurm sweep: exit $rc"; cat submit.err; tail -n 5 slurm/slurm/*/task-*.out; }
grep -q 'submitted 4 rows as Slurm job array [0-9]' submit.out && ok || no "no job id: $(cat submit.out)"
[ "$(ls slurm/slurm/*/task-*.out 2>/dev/null | wc -l)" = 4 ] && ok || no "not 4 array tasks"
[ "$(grep -c '"slurm_job"' slurm/manifest.jsonl)" -ge 8 ] && ok || no "manifest records without slurm_job"
"$bin" run --status --results slurm >status.txt
grep -q '^4 rows: 4 done$' status.txt && ok || { no "status"; cat status.txt; }

"$bin" run m4.json --results local --jobs 2 "${opts[@]}" 2>local.err && ok || { no "local run"; cat local.err; }
[ "$(ls slurm/rows)" = "$(ls local/rows)" ] && ok || no "identities differ: $(ls slurm/rows) vs $(ls local/rows)"
# the same agg fields except the timing-derived ones
fields() { python3 -c '
import json, sys
# client_bound is measured (host overhead against model time), so it is timing too
timed = ("tput", "ttft", "tpot", "itl", "e2el", "intvty", "power", "energy", "joules", "client_bound")
for r in sorted(json.load(open(sys.argv[1])), key=lambda r: (r["isl"], r["conc"], r["spec_decoding"])):
    # the bounds of the interval are factors of the measured values: timing too
    iv = r.get("sim_interval")
    if iv:
        r["sim_interval"] = {k: v for k, v in iv.items() if k in ("level", "pool", "widen")}
    print({k: v for k, v in r.items() if not any(t in k for t in timed)})' "$1"; }
fields slurm/agg_bmk.json >slurm.fields
fields local/agg_bmk.json >local.fields
cmp -s slurm.fields local.fields && ok || { no "agg fields differ"; diff slurm.fields local.fields | head -n 20; }
[ "$(fields slurm/agg_bmk.json | wc -l)" = 4 ] && ok || no "slurm agg_bmk.json: not 4 rows"

e2e_end
