#!/usr/bin/env bash
# End-to-end test of containers inside a multi-node job: `infbench run
# --slurm --container podman` of a disaggregated row (1 prefill node, 1
# decode node, the frontend) on a three-node Slurm cluster on this host
# (tests/e2e/lib_slurm.bash) with an image built here (tests/e2e/
# lib_podman.bash: no registry). Checks that each role's srun step ran its
# simulator in the row's image (`podman run … IMAGE … infbench sim --role
# …`, the container named after the row and the step) on its node, that the
# row finished into the store with its power package made of the telemetry
# the containers wrote into the mounted workspace (power valid), and that
# no container is left. Prints one "skipped" line when Slurm or Podman
# cannot start (Podman inside the steps' namespaces included).
# Usage: run_multinode_container.sh INFBENCH.
# Ends with "run_multinode_container: N passed, N failed".
. "$(dirname "$0")/lib.sh" run_multinode_container "$1"
skip() { e2e_skip "$@"; }
e2e_need_tok skip
. "$root/tests/e2e/lib_slurm.bash"
. "$root/tests/e2e/lib_podman.bash"
tmp=$(mktemp -d /tmp/ib_mncont_e2e.XXXXXX)
cleanup() {
	slurm_stop "$tmp"
	podman_stop "$tmp"
	rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp" || exit 1
image=localhost/infbench-mn-e2e:1
podman_start "$tmp" "$image"
slurm_start "$tmp" 3
# podman inside a Slurm step (the step's namespaces and cgroup), or skip
srun --nodes=1 --nodelist=n2 podman run --rm --network host --pids-limit 0 "$image" \
	/bin/busybox true >step_probe.log 2>&1 ||
	skip "podman cannot start a container inside a Slurm step here: $(tail -n 1 step_probe.log)"

sed -n '/^row() {/,/^}/p' "$root/tests/e2e/run.sh" >row.sh
. ./row.sh
row 256 64 1 none | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
r["image"] = sys.argv[1]
r["disagg"] = True
r["prefill"] = {"num-worker": 1, "tp": 1, "ep": 1, "dp-attn": False,
                "additional-settings": ["PREFILL_NODES=1"]}
r["decode"] = {"num-worker": 1, "tp": 1, "ep": 1, "dp-attn": False,
               "additional-settings": ["DECODE_NODES=1"]}
print(json.dumps([r]))' "$image" >mn.json
# model time as wall time, so that the power package's window matches
timeout 300 "$bin" run mn.json --results store --slurm --wait --time 10 --tokenizer "$tok" \
	--time-scale 1 --quiet --container podman --container-opts '--pids-limit 0' >submit.out 2>submit.err
rc=$?
[ "$rc" = 0 ] && ok || { no "multi-node slurm row in containers: exit $rc"; tail -n 5 submit.err store/slurm/*/job.out; }
d=$(ls -d store/rows/*/ 2>/dev/null | head -n 1)
d=${d%/}
[ -n "$d" ] && [ -d "$d" ] && ok || no "no row in the store: $(ls -R store | head)"
# each role's step ran its simulator in the image, named after the row and the step
for role in prefill decode; do
	grep -q "^podman run --rm --name infbench-[0-9a-f]*-$role-0 --network host .* --entrypoint [^ ]*/infbench $image sim .*--role $role" "$d/commands.txt" && ok ||
		no "no $role container in commands.txt: $(cut -c 1-300 "$d/commands.txt")"
	grep -q 'infbench sim: listening on http://' "$d/logs/$role-0.log" && ok || no "$role-0.log: $(head -c 300 "$d/logs/$role-0.log" 2>&1)"
done
steps=$(grep -o 'infbench: step [a-z0-9-]* on n[0-9]' "$d/server.log" | sort | tr '\n' ' ')
[ "$steps" = 'infbench: step decode-0 on n2 infbench: step frontend on n1 infbench: step prefill-0 on n1 ' ] && ok || no "steps: $steps"
# the telemetry the containers wrote into the mounted workspace, packed and valid
[ -s "$d/LOGS/gpu_metrics/n1/prefill-0.csv" ] && [ -s "$d/LOGS/gpu_metrics/n2/decode-0.csv" ] && ok || no "telemetry: $(ls -R "$d/LOGS" 2>&1 | head)"
python3 -c '
import json, glob, sys
a = json.load(open(glob.glob(sys.argv[1] + "/agg_*.json")[0]))
assert a.get("power_valid") == 1 and a.get("prefill_gpu_energy_j", 0) > 0 and a.get("decode_gpu_energy_j", 0) > 0, a.get("power_valid")' "$d" && ok ||
	no "power of the row in containers: $(cat "$d"/power_package.log; grep -o '"failures": \[[^]]*' "$d"/power_validation_*.json)"
"$bin" run --status --results store >status.txt
grep -q '^1 rows: 1 done$' status.txt && ok || no "status: $(cat status.txt)"
[ "$(pm ps -a --format '{{.Names}}' | grep -c '^infbench-')" = 0 ] && ok || no "containers left: $(pm ps -a --format '{{.Names}}')"
e2e_end
