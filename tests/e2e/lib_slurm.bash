# Sourced by the Slurm end-to-end tests (not a suite itself: no .sh) (run_slurm.sh, run_multinode_slurm.sh):
# a GPU-less Slurm cluster of N nodes on this host from Debian's slurm-wlm and
# munge: munged, slurmctld and one `slurmd -N nI` per node name (n1..nN, each on
# its own port), a generated slurm.conf in the test's temp folder, ports chosen
# at run time. The caller defines skip() (one "skipped: <reason>" line).
#   slurm_start TMP N   starts it (exports SLURM_CONF), or calls skip
#   slurm_stop TMP      stops the daemons and kills what still runs in TMP
slurm_free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

slurm_stop() {
	local f p
	for f in "$1"/slurmd-*.pid "$1/slurmctld.pid" "$1/munged.pid"; do
		[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	for p in /proc/[0-9]*; do
		case $(readlink "$p/cwd" 2>/dev/null) in "$1"/*) kill -KILL "${p#/proc/}" 2>/dev/null ;; esac
	done
	sleep 0.5
}

slurm_start() {
	local tmp=$1 n=$2 i host nodes up
	local c
	for c in munged slurmctld slurmd sbatch squeue sinfo scontrol python3; do
		command -v "$c" >/dev/null 2>&1 || skip "$c is not installed (slurm-wlm, munge)"
	done
	[ "$(id -u)" = 0 ] || skip "starting slurmd needs root"
	mkdir -p "$tmp/state" "$tmp/log"
	head -c 1024 /dev/urandom >"$tmp/munge.key" && chmod 600 "$tmp/munge.key"
	munged -f --key-file="$tmp/munge.key" --socket="$tmp/munge.sock" --pid-file="$tmp/munged.pid" \
		--log-file="$tmp/log/munged.log" --seed-file="$tmp/munge.seed" 2>"$tmp/log/munged.err" ||
		skip "munged did not start: $(head -c 200 "$tmp/log/munged.err")"
	host=$(hostname -s)
	nodes=n1
	[ "$n" -gt 1 ] && nodes="n[1-$n]"
	{
		cat <<CONF
ClusterName=infbench
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(slurm_free_port)
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool-%n
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd-%n.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
CONF
		for ((i = 1; i <= n; i++)); do
			echo "NodeName=n$i NodeHostname=$host NodeAddr=127.0.0.1 Port=$(slurm_free_port) CPUs=$(nproc) RealMemory=1024 State=UNKNOWN"
		done
		echo "PartitionName=debug Nodes=$nodes Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES"
	} >"$tmp/slurm.conf"
	export SLURM_CONF=$tmp/slurm.conf
	slurmctld -i >"$tmp/log/ctld.err" 2>&1 ||
		skip "slurmctld did not start: $(tail -n 2 "$tmp/log/slurmctld.log" 2>/dev/null)"
	for ((i = 1; i <= n; i++)); do
		mkdir -p "$tmp/spool-n$i"
		slurmd -N "n$i" >"$tmp/log/d-n$i.err" 2>&1 ||
			skip "slurmd -N n$i did not start: $(tail -n 2 "$tmp/log/slurmd-n$i.log" 2>/dev/null)"
	done
	up=
	for _ in $(seq 1 150); do
		[ "$(sinfo -h -N -o '%t' 2>/dev/null | grep -cE '^(idle|mix|alloc)')" = "$n" ] && { up=1; break; }
		sleep 0.2
	done
	[ -n "$up" ] || skip "the $n Slurm node(s) did not come up: $(sinfo -N 2>&1 | tail -n 3 | tr '\n' ' ')"
}
