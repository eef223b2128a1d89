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
for c in munged slurmctld slurmd sbatch squeue sinfo python3; do
	command -v "$c" >/dev/null 2>&1 || skip "$c is not installed (slurm-wlm, munge)"
done
[ "$(id -u)" = 0 ] || skip "starting slurmd needs root"
tmp=$(mktemp -d /tmp/ib_slurm_e2e.XXXXXX)
cleanup() {
	local f
	for f in "$tmp/slurmd.pid" "$tmp/slurmctld.pid" "$tmp/munged.pid"; do
		[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	for p in /proc/[0-9]*; do
		case $(readlink "$p/cwd" 2>/dev/null) in "$tmp"/*) kill -KILL "${p#/proc/}" 2>/dev/null ;; esac
	done
	sleep 0.5
	rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp" || exit 1
mkdir -p state spool log
head -c 1024 /dev/urandom >munge.key && chmod 600 munge.key
munged -f --key-file="$tmp/munge.key" --socket="$tmp/munge.sock" --pid-file="$tmp/munged.pid" \
	--log-file="$tmp/log/munged.log" --seed-file="$tmp/munge.seed" 2>log/munged.err ||
	skip "munged did not start: $(head -c 200 log/munged.err)"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
host=$(hostname -s)
cat >slurm.conf <<CONF
ClusterName=infbench
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1024 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF=$tmp/slurm.conf
slurmctld -i >log/ctld.err 2>&1 || skip "slurmctld did not start: $(tail -n 2 log/slurmctld.log 2>/dev/null)"
slurmd >log/d.err 2>&1 || skip "slurmd did not start: $(tail -n 2 log/slurmd.log 2>/dev/null)"
up=
for _ in $(seq 1 100); do
	sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)' && { up=1; break; }
	sleep 0.2
done
[ -n "$up" ] || skip "the Slurm node did not come up: $(sinfo 2>&1 | tail -n 1)"

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
    print({k: v for k, v in r.items() if not any(t in k for t in timed)})' "$1"; }
fields slurm/agg_bmk.json >slurm.fields
fields local/agg_bmk.json >local.fields
cmp -s slurm.fields local.fields && ok || { no "agg fields differ"; diff slurm.fields local.fields | head -n 20; }
[ "$(fields slurm/agg_bmk.json | wc -l)" = 4 ] && ok || no "slurm agg_bmk.json: not 4 rows"

e2e_end
