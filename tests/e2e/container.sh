#!/usr/bin/env bash
# End-to-end test of `infbench run --container podman`: an image built here
# (no registry: busybox-static, the infbench binary and the shared libraries
# ldd lists, imported from a tarball) runs a simulator row end to end — the
# simulator and the client each in a container of the row's image, on the
# host network, the workspace mounted — into the store; the preflight fails a
# row whose image is absent before anything starts; and the row's containers
# are gone after success, a failing row, a --row-timeout, SIGINT to the
# runner and SIGKILL of the runner (its watcher removes them).
# Podman runs with an isolated storage (graph root and run root in the test's
# temp folder) and the settings docs/run.md gives for cgroup-v1 hosts
# (cgroupfs, runc, no default ulimits, --pids-limit 0).
# Usage: container.sh INFBENCH. Ends with "container: N passed, N failed".
. "$(dirname "$0")/lib.sh" container "$1"
e2e_need_tok skip
skip() { e2e_skip "$@"; }
. "$root/tests/e2e/lib_podman.bash"

tmp=$(mktemp -d /tmp/ib_container_e2e.XXXXXX)
runner=
cleanup() {
	[ -n "$runner" ] && kill -KILL "$runner" 2>/dev/null
	podman_stop "$tmp"
	rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp" || exit 1
image=localhost/infbench-e2e:1
podman_start "$tmp" "$image"

row() { # image isl osl conc [extra json]
	printf '[{"image": "%s", "model": "amd/MiniMax-M3-MXFP4", "model-prefix": "minimaxm3", "precision": "fp4", "framework": "vllm", "runner": "mi355x", "isl": %d, "osl": %d, "tp": 8, "pp": 1, "dcp-size": 1, "pcp-size": 1, "conc": %d, "max-model-len": %d, "ep": 1, "dp-attn": false, "spec-decoding": "none", "exp-name": "minimaxm3_%d_%d", "disagg": false, "run-eval": false%s}]\n' \
		"$1" "$2" "$3" "$4" $(($2 + $3 + 256)) "$2" "$3" "${5:-}"
}
containers() { pm ps -a --format '{{.Names}}' 2>/dev/null | grep -c '^infbench-'; }
wait_client_container() { # SECONDS: until the row's client container runs
	local i
	for ((i = 0; i < $1 * 5; i++)); do
		pm ps --format '{{.Names}}' 2>/dev/null | grep -q '^infbench-.*-client$' && return 0
		sleep 0.2
	done
	return 1
}
copts=(--container podman --container-opts '--pids-limit 0' --tokenizer "$tok" --quiet
	--prompts-per-conc 2 --warmups-per-conc 0)

# -- 1. one simulator row end to end inside the image
row "$image" 256 64 2 >ok.json
"$bin" run ok.json --results s1 "${copts[@]}" --time-scale 10 2>s1.err
rc=$?
[ "$rc" = 0 ] && ok || no "row in a container: exit $rc: $(tail -n 5 s1.err)"
agg=$(ls s1/rows/*/agg_*.json 2>/dev/null | head -n 1)
[ -n "$agg" ] && grep -q '"conc": 2' "$agg" && ok || no "no agg file with conc 2 in the store: $(ls -R s1 | head)"
grep -q '"conc": 2' s1/agg_bmk.json 2>/dev/null && ok || no "agg_bmk.json lacks the row"
cmds=$(cat s1/rows/*/commands.txt 2>/dev/null)
grep -q "^podman run --rm --name infbench-[0-9a-f]*-server --network host" <<<"$cmds" &&
	grep -q "^podman run --rm --name infbench-[0-9a-f]*-client .* $image .*bench" <<<"$cmds" &&
	grep -q -- "-e RESULT_FILENAME=minimaxm3_256_64" <<<"$cmds" && ok ||
	no "commands.txt does not show the two containers with the environment: $cmds"
[ "$(containers)" = 0 ] && ok || no "containers left after success: $(pm ps -a --format '{{.Names}}')"

# -- 2. preflight: an image that is not on the host fails the row before anything starts
row localhost/absent:1 256 64 1 >absent.json
"$bin" run absent.json --results s2 "${copts[@]}" 2>s2.err
rc=$?
[ "$rc" = 1 ] && grep -q "preflight: image localhost/absent:1 is not on this host for podman (get it first: podman pull" s2.err &&
	ok || no "absent image: exit $rc, want 1 with the preflight reason: $(tail -n 3 s2.err)"
[ ! -e s2/failed/*/server.log ] && ok || no "absent image: a server was started"

# -- 3. a failing row (the simulator fails half the requests: the client's gate)
row "$image" 256 32 4 ', "sim-args": "--fail-rate 0.5"' >bad.json
"$bin" run bad.json --results s3 "${copts[@]}" --time-scale 10 2>s3.err
rc=$?
[ "$rc" = 1 ] && grep -q "request failure rate" s3.err && ok || no "failing row: exit $rc: $(tail -n 3 s3.err)"
[ "$(containers)" = 0 ] && ok || no "containers left after a failing row"

# -- 4. --row-timeout ends a row whose client runs too long
row "$image" 256 4096 1 >long.json
"$bin" run long.json --results s4 "${copts[@]}" --time-scale 1 --row-timeout 3 2>s4.err
rc=$?
[ "$rc" = 1 ] && grep -q "took longer than --row-timeout" s4.err && ok || no "timeout: exit $rc: $(tail -n 3 s4.err)"
[ "$(containers)" = 0 ] && ok || no "containers left after a timeout"

# -- 5. SIGINT to the runner while the client container runs
"$bin" run long.json --results s5 "${copts[@]}" --time-scale 1 2>s5.err &
runner=$!
wait_client_container 60 || no "SIGINT: the client container never ran: $(tail -n 3 s5.err)"
kill -INT "$runner"
wait "$runner"
rc=$?
runner=
[ "$rc" = 130 ] && grep -q '"state": "interrupted"' s5/manifest.jsonl && ok || no "SIGINT: exit $rc, want 130"
[ "$(containers)" = 0 ] && ok || no "containers left after SIGINT: $(pm ps -a --format '{{.Names}}')"

# -- 6. SIGKILL of the runner: its watcher removes the containers
"$bin" run long.json --results s6 "${copts[@]}" --time-scale 1 2>s6.err &
runner=$!
wait_client_container 60 || no "SIGKILL: the client container never ran: $(tail -n 3 s6.err)"
kill -KILL "$runner"
wait "$runner" 2>/dev/null
runner=
gone=no
for _ in $(seq 1 100); do # the watcher's `podman rm` (bounded wait, not a timing)
	[ "$(containers)" = 0 ] && gone=yes && break
	sleep 0.2
done
[ "$gone" = yes ] && ok || no "containers left after SIGKILL of the runner: $(pm ps -a --format '{{.Names}}')"

e2e_end
