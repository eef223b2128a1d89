#!/usr/bin/env bash
# End-to-end test of multi-node rows through `infbench run --slurm`: starts a
# three-node, GPU-less Slurm cluster on this host (munged, slurmctld and three
# slurmd, one per node name: `slurmd -N`, each on its own port; a generated
# slurm.conf in a temp folder), submits a disaggregated row (1 prefill node,
# 1 decode node) and an aggregated multi-node row (2 nodes) on the simulator
# engine (tests/e2e/lib_slurm.bash), and checks that each ran as ONE job over its nodes, with the
# role node lists exported, one srun step per role on its node (a simulator
# per role and node, the frontend) with its log in the row's logs/, and
# finished into the store; that each role process left its simulated GPU
# telemetry in its node's folder (LOGS/gpu_metrics/NODE/ROLE.csv), that the
# runner made the multinode power package of it (LOGS/power) and that
# processing validated it into the agg rows' power fields (prefill/decode
# fields for the disaggregated row, the whole-deployment ones of the "agg"
# role for the aggregated row); that the recipe engine runs a disaggregated
# row's per-node server.sh (a test recipe that starts simulator roles by
# NODE_RANK, rank 0 the frontend) as one step per node with NODE_RANK,
# NODE0_ADDR, IPADDRS, GPUS_PER_NODE, xP, yD, the runner's client against
# it, the rows (one per concurrency) done and no process left, and that a
# per-node script that ends fails its row with the step logs in the reason and
# the other steps stopped; then that a row whose roles cannot start fails
# with the step's log in its reason.
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
pn, dn, dw, pw = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
r["disagg"] = dw > 0
r["prefill"] = {"num-worker": pw, "tp": 1, "ep": 1, "dp-attn": False,
                "additional-settings": ["PREFILL_NODES=" + pn]}
r["decode"] = {"num-worker": dw, "tp": 1, "ep": 1, "dp-attn": False,
               "additional-settings": ["DECODE_NODES=" + dn]}
print(json.dumps(r))' "$@"; }
{
	echo "["
	row 256 64 1 none | pools 1 1 1 1; echo ","
	row 256 64 2 none | pools 2 1 0 2
	echo "]"
} >mn.json
# model time runs as wall time: the power package's window must match the
# clock the telemetry is stamped with (a time-scaled run's power is invalid)
opts=(--tokenizer "$tok" --time-scale 1 --quiet)
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
# one srun step per role on its node, each with its log in the row's folder
dis=$(grep -l -- '--role decode' store/rows/*/commands.txt | head -n 1)
dis=${dis%/commands.txt}
agg=$(dirname "$(ls store/rows/*/logs/worker-1.log 2>/dev/null | head -n 1)")
agg=${agg%/logs}
[ -n "$dis" ] && [ -d "$dis" ] && ok || no "no disaggregated row ran --role decode: $(cat store/rows/*/commands.txt | cut -c 1-200)"
[ -n "$agg" ] && [ -d "$agg" ] && ok || no "no aggregated row with a worker per node: $(ls store/rows/*/logs 2>&1)"
steps() { grep -o 'infbench: step [a-z0-9-]* on n[0-9]' "$1/server.log" | sort | tr '\n' ' '; }
[ "$(steps "$dis")" = 'infbench: step decode-0 on n2 infbench: step frontend on n1 infbench: step prefill-0 on n1 ' ] && ok || no "disagg steps: $(steps "$dis") ($(tail -n 5 "$dis/server.log"))"
[ "$(steps "$agg")" = 'infbench: step frontend on n1 infbench: step worker-0 on n1 infbench: step worker-1 on n2 ' ] && ok || no "agg steps: $(steps "$agg")"
for l in "$dis"/logs/prefill-0.log "$dis"/logs/decode-0.log "$agg"/logs/worker-0.log "$agg"/logs/worker-1.log; do
	grep -q 'infbench sim: listening on http://127.0.0.1:' "$l" && ok || no "$l: $(head -c 300 "$l" 2>&1)"
done
for d in "$dis" "$agg"; do
	grep -q 'infbench sim frontend: listening' "$d/logs/frontend.log" && ok || no "$d/logs/frontend.log: $(head -c 300 "$d/logs/frontend.log" 2>&1)"
done
# the slurmds launched the steps: the decode role's and the second worker's on n2
[ "$(grep -c 'launch task StepId=' log/slurmd-n2.log)" -ge 2 ] && ok || no "slurmd n2 launched no steps: $(grep -i step log/slurmd-n2.log | tail -n 3)"
# the jobs' allocations, as slurmctld logged them
alloc=$(grep -c 'sched: Allocate JobId=[0-9]* NodeList=n\[[1-3]-[1-3]\] #CPUs' log/slurmctld.log)
[ "$alloc" -ge 2 ] && ok || no "no 2-node allocations in slurmctld.log: $(grep 'Allocate' log/slurmctld.log | head -n 3)"
"$bin" run --status --results store >status.txt
grep -q '^2 rows: 2 done$' status.txt && ok || { no "status"; cat status.txt; }
[ "$(python3 -c 'import json,sys; print(sum(1 for r in json.load(open(sys.argv[1])) if r.get("is_multinode")))' store/agg_bmk.json)" = 2 ] && ok || no "agg_bmk.json: not 2 multi-node rows"
# the multinode power package, gathered from the nodes (docs/run.md "Power on
# multi-node rows"): each role's simulated telemetry in its node's folder
for f in "$dis"/LOGS/gpu_metrics/n1/prefill-0.csv "$dis"/LOGS/gpu_metrics/n2/decode-0.csv \
	"$agg"/LOGS/gpu_metrics/n1/worker-0.csv "$agg"/LOGS/gpu_metrics/n2/worker-1.csv; do
	[ "$(head -n 1 "$f" 2>/dev/null)" = 'timestamp, index, power.draw [W], utilization.gpu [%], simulated' ] &&
		[ "$(grep -c ', 0, [0-9.]* W, [0-9]* %, 1$' "$f")" -ge 3 ] && ok || no "$f: $(head -n 3 "$f" 2>&1)"
done
pkg() { python3 -c '
import json, sys
d, roles, fields, absent = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
m = json.load(open(d + "/LOGS/power/manifest.json"))
assert m["simulated"] is True and m["publication_valid"] is True, "manifest: not a valid simulated package"
got = sorted(a["worker_role"] for x in m["expected_devices"] for a in x["assignments"])
assert got == roles.split(","), "roles %s" % got
import glob
agg = json.load(open(glob.glob(d + "/agg_*.json")[0]))
assert agg.get("power_valid") == 1, "power_valid %r (%s)" % (agg.get("power_valid"),
    json.load(open(glob.glob(d + "/power_validation_*.json")[0]))["failures"])
for f in fields:
    assert agg.get(f, 0) > 0, "no %s in the agg row" % f
for f in absent:
    assert f not in agg, "%s in the agg row" % f
# the roles share the energy of the whole deployment
if "prefill_gpu_energy_j" in agg:
    assert abs(agg["prefill_gpu_energy_j"] + agg["decode_gpu_energy_j"] - agg["total_gpu_energy_j"]) < 0.01, "role energies"
print("ok")' "$@" 2>&1 | tail -n 1; }
r=$(pkg "$dis" decode,prefill "avg_power_w total_gpu_energy_j joules_per_output_token prefill_gpu_energy_j decode_gpu_energy_j prefill_avg_power_w decode_avg_power_w" "")
[ "$r" = ok ] && ok || no "disagg power: $r; $(cat "$dis"/power_package.log)"
r=$(pkg "$agg" agg,agg "avg_power_w avg_total_gpu_power_w total_gpu_energy_j joules_per_total_token" "prefill_gpu_energy_j decode_gpu_energy_j")
[ "$r" = ok ] && ok || no "agg power: $r; $(cat "$agg"/power_package.log)"
grep -q '^\[power package\] [0-9]* SIMULATED samples of 2 GPUs from 2 monitors' "$dis"/power_package.log && ok || no "power_package.log: $(cat "$dis"/power_package.log)"
# the recipe engine (docs/run.md "Per-node recipes"): the disaggregated row's
# per-node server.sh, one srun step per node with NODE_RANK, the nodes'
# addresses and the row's environment; rank 0 also starts the frontend on
# PORT, and the runner's client runs against it. The cluster has no GPUs:
# --gpus-per-node 0 submits without --gres.
rd=recipes/multi_node/fixed_seq_len/minimaxm3_fp4_mi355x_vllm
mkdir -p "$rd"
cat >"$rd/server.sh" <<'SH'
#!/usr/bin/env bash
# test recipe: rank < PREFILL_NODES serves prefill, the others decode; rank 0
# also the frontend on PORT, once every rank's simulator listens
trap 'kill $(jobs -p) 2>/dev/null' EXIT
n=$((PREFILL_NODES + DECODE_NODES))
addr() { cut -d, -f$(($1 + 1)) <<<"$IPADDRS"; }
role=decode
[ "$NODE_RANK" -lt "$PREFILL_NODES" ] && role=prefill
echo "server.sh: rank $NODE_RANK of $n role $role node $SLURMD_NODENAME addr $(addr "$NODE_RANK") node0 $NODE0_ADDR ips $IPADDRS gpus $GPUS_PER_NODE xP $xP yD $yD"
pf() { echo "$INFBENCH_WORKSPACE/rank$1.port"; }
"$INFBENCH" sim --served-model-name "$MODEL" --tokenizer "$INFBENCH_TOKENIZER" \
	--prefill-workers "$PREFILL_NUM_WORKERS" --prefill-tp "$PREFILL_TP" --tp "$DECODE_TP" \
	--time-scale "$INFBENCH_TIME_SCALE" --duration 600 --role "$role" \
	--host "$(addr "$NODE_RANK")" --port 0 --port-file "$(pf "$NODE_RANK")" &
if [ "$NODE_RANK" = 0 ]; then
	pre=() dec=()
	for ((r = 0; r < n; r++)); do
		until [ -s "$(pf $r)" ]; do sleep 0.1; done
		if [ $r -lt "$PREFILL_NODES" ]; then pre+=("$(addr $r):$(cat "$(pf $r)")"); else dec+=("$(addr $r):$(cat "$(pf $r)")"); fi
	done
	"$INFBENCH" sim frontend --host "$NODE0_ADDR" --port "$PORT" --time-scale "$INFBENCH_TIME_SCALE" \
		--duration 600 --prefill "${pre[@]}" --workers "${dec[@]}" &
fi
wait -n
echo "server.sh: rank $NODE_RANK: a process ended" >&2
exit 1
SH
# its concurrency list: one row (and job) per concurrency, as on the simulator engine
row 256 64 1 none | pools 1 1 1 1 | python3 -c '
import json, sys
r = json.load(sys.stdin)
r["conc"] = [1, 2]
print(json.dumps([r]))' >rmn.json
timeout 300 "$bin" run rmn.json --results store3 --slurm --wait --time 10 --engine recipe --recipes recipes \
	--gpus-per-node 0 --tokenizer "$tok" --time-scale 10 --quiet >rmn.out 2>rmn.err
rc=$?
[ "$rc" = 0 ] && ok || { no "recipe-engine multi-node row: exit $rc $(tail -n 3 rmn.err)"; "$bin" run --status --results store3; tail -n 20 store3/slurm/*/job.out; }
rr=$(ls -d store3/rows/*/ 2>/dev/null | head -n 1)
rr=${rr%/}
# one step per node, named after its pool, on the node of its rank
steps3=$(grep -o 'infbench: step [a-z0-9-]* on n[0-9]' "$rr/server.log" 2>/dev/null | sort | tr '\n' ' ')
[ "$steps3" = 'infbench: step decode-0 on n2 infbench: step prefill-0 on n1 ' ] && ok || no "recipe steps: $steps3 ($(tail -n 5 "$rr/server.log" 2>&1))"
# each step's script saw its rank, the nodes' addresses and the row's variables
grep -qx 'server.sh: rank 0 of 2 role prefill node n1 addr 127.0.0.1 node0 127.0.0.1 ips 127.0.0.1,127.0.0.1 gpus 0 xP 1 yD 1' "$rr/logs/prefill-0.log" && ok || no "rank 0: $(head -n 3 "$rr/logs/prefill-0.log" 2>&1)"
grep -qx 'server.sh: rank 1 of 2 role decode node n2 addr 127.0.0.1 node0 127.0.0.1 ips 127.0.0.1,127.0.0.1 gpus 0 xP 1 yD 1' "$rr/logs/decode-0.log" && ok || no "rank 1: $(head -n 3 "$rr/logs/decode-0.log" 2>&1)"
grep -q 'infbench sim frontend: listening' "$rr/logs/prefill-0.log" && ok || no "rank 0 started no frontend: $(tail -n 3 "$rr/logs/prefill-0.log" 2>&1)"
"$bin" run --status --results store3 >status3.txt
grep -q '^2 rows: 2 done$' status3.txt && ok || { no "recipe row status"; cat status3.txt; }
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert sorted(x["conc"] for x in r) == [1, 2], r
assert all(x.get("is_multinode") and x.get("disagg") for x in r), r
' store3/agg_bmk.json 2>/dev/null && ok || no "recipe row agg_bmk.json: $(head -c 300 store3/agg_bmk.json 2>&1)"
# the steps ended with the row: no process of its workspace is left.
# left_after CMD: $left is what CMD lists once it lists nothing, or after 10 s
# (slurmd ends a cancelled step's processes asynchronously)
left_after() {
	for _ in $(seq 50); do
		left=$("$@")
		[ -z "$left" ] && return
		sleep 0.2
	done
}
workspace_procs() { pgrep -f -- "$PWD/$1/" | tr '\n' ' '; }
sleeps_in() { pgrep -x sleep | while read -r p; do case $(readlink "/proc/$p/cwd") in "$PWD"/$1/*) echo "$p" ;; esac; done; }
left_after workspace_procs store3
[ -z "$left" ] && ok || { no "processes left after the recipe row: $left"; kill $left; }
# a per-node script that ends (rank 1 exits 3) fails the row before it is
# ready, the reason quoting the step logs, and the other node's step is stopped
bd=badrecipes/multi_node/fixed_seq_len/minimaxm3_fp4_mi355x_vllm
mkdir -p "$bd"
printf '#!/usr/bin/env bash\n[ "$NODE_RANK" = 1 ] && { echo "rank 1 gives up"; exit 3; }\nexec sleep 300\n' >"$bd/server.sh"
timeout 300 "$bin" run rmn.json --results store5 --slurm --wait --time 10 --engine recipe \
	--recipes badrecipes --gpus-per-node 0 --tokenizer "$tok" --quiet >/dev/null 2>rmn5.err
rc=$?
"$bin" run --status --results store5 >status5.txt
[ "$rc" = 1 ] && grep -q "a node's step ended" status5.txt && grep -q 'rank 1 gives up' status5.txt && ok || no "a failing per-node script: exit $rc $(cat status5.txt)"
left_after sleeps_in store5
[ -z "$left" ] && ok || { no "a failed row's steps left: $left"; kill $left; }
# outside its job a per-node recipe does not run (it needs the job's steps)
timeout 60 "$bin" run rmn.json --results store4 --engine recipe --recipes recipes --tokenizer "$tok" --quiet >/dev/null 2>rmn4.err
rc=$?
[ "$rc" = 1 ] && grep -q 'per-node recipe: it runs inside the row.s Slurm job only' rmn4.err && ok || no "a per-node recipe outside Slurm: exit $rc $(tail -n 2 rmn4.err)"
# a row whose roles cannot start fails, its reason quoting the step that ended and its log
row 256 64 1 none | pools 1 1 1 1 | python3 -c '
import json, sys
r = json.load(sys.stdin)
r["sim-args"] = "--no-such-flag"
print(json.dumps([r]))' >bad.json
timeout 300 "$bin" run bad.json --results store2 --slurm --wait --time 10 "${opts[@]}" >bad.out 2>bad.err
rc=$?
[ "$rc" = 1 ] && ok || no "a row whose roles cannot start: exit $rc $(tail -n 3 bad.err)"
"$bin" run --status --results store2 >status2.txt
grep -q 'a step ended before prefill-0 listened' status2.txt && grep -q 'unrecognized arguments: --no-such-flag' status2.txt && ok || no "the failed row's reason: $(cat status2.txt)"
ls store2/failed/*/logs/prefill-0.log >/dev/null 2>&1 && ok || no "no prefill-0.log in the failed row's folder"
e2e_end
