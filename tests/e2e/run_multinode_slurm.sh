#!/usr/bin/env bash
# End-to-end test of multi-node rows through `infbench run --slurm`: starts a
# three-node, GPU-less Slurm cluster on this host (munged, slurmctld and three
# slurmd, one per node name: `slurmd -N`, each on its own port; a generated
# slurm.conf in a temp folder), submits a disaggregated row (1 prefill node,
# 1 decode node) and an aggregated multi-node row (2 nodes) on the simulator
# engine (tests/e2e/lib_slurm.bash), and checks that each ran as ONE job over its nodes, with the
# role node lists exported, and finished into the store.
# Prints one "skipped" line when the cluster cannot start.
# Usage: run_multinode_slurm.sh INFBENCH. Ends with "run_multinode_slurm: N passed, N failed".
. "$(dirname "$0")/lib.sh" run_multinode_slurm "$1"
skip() { e2e_skip "$@"; }
e2e_need_tok skip
. "$root/tests/e2e/lib_slurm.bash"
tmp=$(mktemp -d /tmp/ib_mnslurm_e2e.XXXXXX)
cleanup() {
	slurm_stop "$tmp"
	rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp" || exit 1
slurm_start "$tmp" 3

# a disaggregated row (1 prefill node, 1 decode node) and an aggregated one
# (2 prefill-pool nodes, no decode workers): run.sh's row with pools
sed -n '/^row() {/,/^}/p' "$root/tests/e2e/run.sh" >row.sh
. ./row.sh
pools() { python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
pn, dn, dw = sys.argv[1], sys.argv[2], int(sys.argv[3])
r["disagg"] = dw > 0
r["prefill"] = {"num-worker": 1, "tp": 1, "ep": 1, "dp-attn": False,
                "additional-settings": ["PREFILL_NODES=" + pn]}
r["decode"] = {"num-worker": dw, "tp": 1, "ep": 1, "dp-attn": False,
               "additional-settings": ["DECODE_NODES=" + dn]}
print(json.dumps(r))' "$@"; }
{
	echo "["
	row 256 64 1 none | pools 1 1 1; echo ","
	row 256 64 2 none | pools 2 1 0
	echo "]"
} >mn.json
opts=(--tokenizer "$tok" --time-scale 10 --quiet)
timeout 300 "$bin" run mn.json --results store --slurm --wait --time 10 "${opts[@]}" >submit.out 2>submit.err
rc=$?
[ "$rc" = 0 ] && ok || { no "multi-node slurm sweep: exit $rc"; cat submit.err; tail -n 5 store/slurm/*/job.out; }
njobs=$(ls -d store/slurm/*-mn* 2>/dev/null | wc -l)
[ "$njobs" = 2 ] && ok || no "not one job folder per multi-node row: $njobs"
# each job asked its nodes and split them by role
grep -q 'export NUM_NODES=2 PREFILL_NODES=1 DECODE_NODES=1' store/slurm/*-mn0/job.sh && ok || no "disagg job script: $(grep NUM_NODES store/slurm/*-mn0/job.sh)"
grep -q 'export NUM_NODES=2 PREFILL_NODES=2 DECODE_NODES=0' store/slurm/*-mn1/job.sh && ok || no "agg job script: $(grep NUM_NODES store/slurm/*-mn1/job.sh)"
# the role node lists the jobs exported, on distinct nodes for the roles
grep -qx 'infbench: prefill nodes n1, decode nodes n2, frontend n1' store/slurm/*-mn0/job.out && ok || no "disagg job nodes: $(head -n 3 store/slurm/*-mn0/job.out)"
grep -qx 'infbench: prefill nodes n1,n2, decode nodes none, frontend n1' store/slurm/*-mn1/job.out && ok || no "agg job nodes: $(head -n 3 store/slurm/*-mn1/job.out)"
# the disaggregated row's simulator served both pools, the aggregated one replicas
grep -q -- '--prefill-workers 1' store/rows/*/commands.txt && ok || no "no --prefill-workers in the disagg row's server command"
# the jobs' allocations, as slurmctld logged them
alloc=$(grep -c 'sched: Allocate JobId=[0-9]* NodeList=n\[[1-3]-[1-3]\] #CPUs' log/slurmctld.log)
[ "$alloc" -ge 2 ] && ok || no "no 2-node allocations in slurmctld.log: $(grep 'Allocate' log/slurmctld.log | head -n 3)"
"$bin" run --status --results store >status.txt
grep -q '^2 rows: 2 done$' status.txt && ok || { no "status"; cat status.txt; }
[ "$(python3 -c 'import json,sys; print(sum(1 for r in json.load(open(sys.argv[1])) if r.get("is_multinode")))' store/agg_bmk.json)" = 2 ] && ok || no "agg_bmk.json: not 2 multi-node rows"
e2e_end
