#!/usr/bin/env bash
# End-to-end: the third hardening round (issue 33) — faults and hostile input
# for eval, bench, run, db, report, success-rate, review, the simulator's
# calibration and the master configs. Each block is the regression test of
# one numbered defect of the issue. Bounds on time and memory are limits the
# test sets (timeout, ulimit) and an outcome it checks, never a speed.
# Usage: tests/e2e/hardening.sh INFBENCH. Ends with "hardening: N passed, N failed".
. "$(dirname "$0")/lib.sh" hardening "$1"
e2e_tmp
here=$(cd "$(dirname "$0")" && pwd)
hostile=
runner=
cleanup_all() {
	[ -n "$hostile" ] && kill "$hostile" 2>/dev/null && wait "$hostile" 2>/dev/null
	[ -n "$runner" ] && kill -KILL "$runner" 2>/dev/null
	mountpoint -q "$tmp/full" 2>/dev/null && umount "$tmp/full"
	# whatever still works in our folders (a killed runner's children)
	for p in /proc/[0-9]*; do
		case $(readlink "$p/cwd" 2>/dev/null) in "$tmp"/*) kill -KILL "${p#/proc/}" 2>/dev/null ;; esac
	done
	e2e_cleanup
}
trap cleanup_all EXIT

# start_hostile MODE: tests/e2e/hostile_server.py MODE on a free port; sets $hport
start_hostile() {
	[ -n "$hostile" ] && kill "$hostile" 2>/dev/null && wait "$hostile" 2>/dev/null
	rm -f "$tmp/hport"
	python3 "$here/hostile_server.py" "$1" "$tmp/hport" 2>/dev/null &
	hostile=$!
	for _ in $(seq 1 200); do [ -s "$tmp/hport" ] && break; sleep 0.05; done
	hport=$(cat "$tmp/hport" 2>/dev/null)
}

"$bin" eval make-dataset --output "$tmp/ds" --train 20 --test 20 --seed 7 >/dev/null 2>&1 || no "make-dataset"

# -- 1. a server that never stops sending: the eval's per-request timeout
#    fires while data keeps arriving, and the run ends with the request failed
start_hostile endless
if [ -z "$hport" ]; then
	no "1: the hostile server did not start"
else
	timeout 60 "$bin" eval run --base-url "http://127.0.0.1:$hport" --model m --dataset "$tmp/ds" \
		--output-path "$tmp/e1" --limit 1 --timeout 1 --max-retries 2 --retry-min 0.01 --retry-max 0.02 \
		>/dev/null 2>"$tmp/e1.log"
	rc=$?
	# the deadline or the size bound, whichever comes first, ends each attempt
	[ "$rc" = 1 ] && grep -q '"infbench_error": "\(timed out after 1 s\|request failed: response larger than\)' \
		"$tmp/e1"/samples_gsm8k_*.jsonl && ok ||
		no "1: eval against an endless body: exit $rc (124: it never ended): $(tail -c 300 "$tmp/e1.log")"
	# the same client in `bench`: it ends too (its own SSE line and event bounds,
	# --request-timeout, the response size bound: whichever comes first)
	if [ -f "$tok/tokenizer.json" ]; then
		timeout 60 "$bin" bench --model m --tokenizer "$tok" --port "$hport" --dataset-name random \
			--random-input-len 16 --random-output-len 8 --num-prompts 2 --max-concurrency 2 \
			--request-timeout 1 --num-warmups 0 >"$tmp/b1.out" 2>"$tmp/b1.log"
		rc=$?
		[ "$rc" = 1 ] && grep -q "TimeoutError\|response larger than\|Line is too long" "$tmp/b1.out" "$tmp/b1.log" && ok ||
			no "1: bench against an endless body: exit $rc: $(tail -c 300 "$tmp/b1.log")"
	else
		echo "skipped: 1 (bench): no tokenizer fixture in $tok"
	fi
fi

# -- 2. one 10 MB answer (a regex gives up on it): scored as wrong, the eval
#    writes its results and exits 0 (nothing failed to answer)
start_hostile big
if [ -z "$hport" ]; then
	no "2: the hostile server did not start"
else
	timeout 300 "$bin" eval run --base-url "http://127.0.0.1:$hport" --model m --dataset "$tmp/ds" \
		--output-path "$tmp/e2" --limit 1 --timeout 120 --max-retries 1 >/dev/null 2>"$tmp/e2.log"
	rc=$?
	res=$(ls "$tmp/e2"/results_*.json 2>/dev/null | head -n 1)
	[ "$rc" = 0 ] && [ -n "$res" ] && grep -q '"exact_match,strict-match": 0' "$res" && ok ||
		no "2: a 10 MB answer: exit $rc, results '$res': $(tail -c 300 "$tmp/e2.log")"
fi
[ -n "$hostile" ] && kill "$hostile" 2>/dev/null && wait "$hostile" 2>/dev/null
hostile=

# -- 3. no PostgreSQL password in an error, whatever the URL's shape
for url in 'postgresql://u:s3cr3tPW@[::1/db' 'postgresql://u:s3cr3tPW%zz@localhost/db' \
	'postgres://u:s3cr3t@PW@[bad/db' 'postgresql:///db?password=s3cr3tPW&port=%zz'; do
	"$bin" db query --db "$url" >/dev/null 2>"$tmp/pg.err"
	rc=$?
	[ "$rc" != 0 ] && ! grep -q 's3cr3t\|PW' "$tmp/pg.err" && ok ||
		no "3: '$url': exit $rc, the error shows the password: $(cat "$tmp/pg.err")"
done

# an agg row of the results pipeline (db, report)
aggrow() { # CONC [EXTRA]
	printf '{"hw": "mi355x", "model": "amd/MiniMax-M3-MXFP4", "infmax_model_prefix": "minimaxm3", "framework": "vllm", "precision": "fp4", "spec_decoding": "none", "tp": 8, "ep": 1, "dp_attention": false, "disagg": false, "isl": 1024, "osl": 1024, "conc": %d, "tput_per_gpu": %d.5, "median_intvty": 30.1, "median_e2el": 12.2%s}' \
		"$1" $((100 + $1)) "${2:-}"
}

# -- 10. success-rate: a missing or invalid jobs file, a runners file that is
#    not a mapping: exit 1 and no NAME.json
printf 'labels:\n  runner-mi355x: [a]\n' >"$tmp/runners.yaml"
printf '[{"name": "x", "conclusion": "success"}]' >"$tmp/jobs.json"
(cd "$tmp" && "$bin" success-rate --runner-config runners.yaml --jobs jobs.json sr_ok >/dev/null 2>&1) &&
	[ -f "$tmp/sr_ok.json" ] && ok || no "10: a good jobs file fails"
printf '{"jobs": 3}' >"$tmp/badjobs.json"
printf -- '- a\n- b\n' >"$tmp/listrunners.yaml"
for args in "--jobs missing.json" "--jobs badjobs.json" "--runner-config listrunners.yaml --jobs jobs.json"; do
	# shellcheck disable=SC2086
	(cd "$tmp" && "$bin" success-rate --runner-config runners.yaml $args sr_bad >/dev/null 2>"$tmp/sr.err")
	rc=$?
	[ "$rc" = 1 ] && [ ! -e "$tmp/sr_bad.json" ] && [ -s "$tmp/sr.err" ] && ok ||
		no "10: success-rate $args: exit $rc, sr_bad.json $(ls "$tmp/sr_bad.json" 2>/dev/null)"
	rm -f "$tmp/sr_bad.json"
done

# -- 11. review: a master config that is not valid YAML is a blocking finding
mkdir -p "$tmp/rv/configs"
printf 'key-a:\n  image: [unclosed\n  model: x\n' >"$tmp/rv/configs/bad-master.yaml"
"$bin" review --repo "$tmp/rv" configs/bad-master.yaml >"$tmp/rv.out" 2>&1
rc=$?
[ "$rc" != 0 ] && grep -q 'yaml-invalid' "$tmp/rv.out" && ! grep -q LGTM "$tmp/rv.out" && ok ||
	no "11: review of invalid YAML: exit $rc: $(head -c 400 "$tmp/rv.out")"

# -- 12. database: a string with \u0000 is refused (not cut); a damaged SQLite
#    file is reported on open (PRAGMA quick_check), not ingested into
aggrow 4 ', "image": "img\u0000:evil"' | sed 's/^/[/; s/$/]/' >"$tmp/nul.json"
"$bin" db ingest --db "$tmp/nul.db" "$tmp/nul.json" >/dev/null 2>"$tmp/nul.err"
rc=$?
[ "$rc" != 0 ] && grep -q 'u0000' "$tmp/nul.err" && ok || no "12: a NUL in a string: exit $rc: $(cat "$tmp/nul.err")"
{
	echo "["
	for c in $(seq 1 400); do aggrow "$c"; [ "$c" = 400 ] || echo ","; done
	echo "]"
} >"$tmp/rows.json"
"$bin" db ingest --db "$tmp/q.db" --run-id r1 "$tmp/rows.json" >/dev/null 2>"$tmp/q.err" || no "12: ingest: $(cat "$tmp/q.err")"
pages=$(($(stat -c %s "$tmp/q.db") / 4096))
if [ "$pages" -ge 4 ]; then
	# garbage over the middle of every page after the first (headers kept)
	for p in $(seq 1 $((pages - 1))); do
		printf '\377%.0s' $(seq 1 200) | dd of="$tmp/q.db" bs=1 seek=$((p * 4096 + 1000)) conv=notrunc 2>/dev/null
	done
	aggrow 999 | sed 's/^/[/; s/$/]/' >"$tmp/one.json"
	"$bin" db ingest --db "$tmp/q.db" --run-id r2 "$tmp/one.json" >/dev/null 2>"$tmp/q2.err"
	rc=$?
	[ "$rc" != 0 ] && grep -q 'damaged\|malformed' "$tmp/q2.err" && ok ||
		no "12: ingest into a damaged SQLite file: exit $rc: $(cat "$tmp/q2.err")"
else
	no "12: the database has only $pages pages"
fi

# -- 13. report: an empty --baseline file or folder is an error
aggrow 4 | sed 's/^/[/; s/$/]/' >"$tmp/agg.json"
: >"$tmp/empty.json"
mkdir -p "$tmp/emptydir"
for b in "$tmp/empty.json" "$tmp/emptydir"; do
	"$bin" report "$tmp/agg.json" --baseline "$b" -o "$tmp/r.html" >/dev/null 2>"$tmp/rep.err"
	rc=$?
	[ "$rc" = 1 ] && grep -q 'baseline' "$tmp/rep.err" && ok || no "13: empty --baseline $b: exit $rc: $(cat "$tmp/rep.err")"
done
"$bin" report "$tmp/agg.json" --baseline "$tmp/agg.json" -o "$tmp/r.html" >/dev/null 2>"$tmp/rep.err" && ok ||
	no "13: a good baseline fails: $(cat "$tmp/rep.err")"

# -- 14. a master config with isl near INT64_MAX: refused with file:line
# master ISL CONCS: a one-entry single-node master config
master() {
	printf 'qwen3.5-fp8-mi355x-sglang:\n  image: lmsysorg/sglang-rocm:v0.5.16\n  model: Qwen/Qwen3.5-397B-A17B-FP8\n  model-prefix: qwen3.5\n  runner: mi355x\n  precision: fp8\n  framework: sglang\n  multinode: false\n  scenarios:\n    fixed-seq-len:\n    - isl: %s\n      osl: 1024\n      search-space:\n      - { tp: 4, ep: 1, conc-list: [%s] }\n' "$1" "$2"
}
master 9223372036854775000 4 >"$tmp/isl-master.yaml"
"$bin" matrix full-sweep --config-files "$tmp/isl-master.yaml" --runner-config "$root/configs/runners.yaml" \
	>"$tmp/isl.out" 2>"$tmp/isl.err"
rc=$?
[ "$rc" != 0 ] && grep -q "isl-master.yaml:1[0-9]:.*64-bit" "$tmp/isl.err" && ! grep -q 'max-model-len": -' "$tmp/isl.out" && ok ||
	no "14: isl near INT64_MAX: exit $rc: $(head -c 300 "$tmp/isl.err")"

# -- 14. chat templates: a namespace that contains itself, a list nested
#    100,000 deep, brackets nested a million deep: a clear error, no crash
printf '%s' '{% set ns = namespace(a=1) %}{% set ns.self = ns %}{{ ns }}' >"$tmp/self.j"
printf '%s' '{% set ns = namespace(x=[]) %}{% for i in range(100000) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x }}' >"$tmp/deep.j"
printf '%s' '{% set ns = namespace(x=()) %}{% for i in range(100000) %}{% set ns.x = (ns.x,) %}{% endfor %}{{ {ns.x: 1} }}' >"$tmp/deepkey.j"
printf '%s' '{% set ns = namespace(x=[], y=[]) %}{% for i in range(100000) %}{% set ns.x = [ns.x] %}{% set ns.y = [ns.y] %}{% endfor %}{{ ns.x < ns.y }}' >"$tmp/deepcmp.j"
python3 -c "print('{{ ' + '[' * 1000000 + ']' * 1000000 + ' }}', end='')" >"$tmp/brackets.j"
for t in self deep deepkey deepcmp brackets; do
	echo '{"messages": []}' | timeout 120 "$bin" chat-template --template "$tmp/$t.j" >/dev/null 2>"$tmp/ct.err"
	rc=$?
	[ "$rc" = 1 ] && grep -q "$t.j:1:[0-9]*: .*\(recursion depth\|nested too deeply\)" "$tmp/ct.err" && ok ||
		no "14: chat template $t: exit $rc (not 1: a crash or a hang): $(head -c 300 "$tmp/ct.err")"
done

# -- 14. a conc-list of 40,000 values: memory linear in the output (the
#    release build under ulimit -v 1 GiB when there is one, else the
#    sanitizer build's peak RSS under 600 MB)
master 8192 "$(seq -s, 1 40000)" >"$tmp/conc-master.yaml"
rel=${IB_RELEASE:-}
[ -z "$rel" ] && [ -x "$root/build/infbench" ] && rel=$root/build/infbench
if [ -n "$rel" ]; then
	(ulimit -v 1048576 && timeout 300 "$rel" matrix full-sweep --config-files "$tmp/conc-master.yaml" \
		--runner-config "$root/configs/runners.yaml" >"$tmp/conc.out" 2>"$tmp/conc.err")
	rc=$?
	what="the release build under ulimit -v 1 GiB"
else
	/usr/bin/time -f '%M' -o "$tmp/conc.rss" timeout 300 "$bin" matrix full-sweep \
		--config-files "$tmp/conc-master.yaml" --runner-config "$root/configs/runners.yaml" \
		>"$tmp/conc.out" 2>"$tmp/conc.err"
	rc=$?
	rss=$(tail -n 1 "$tmp/conc.rss")
	[ "$rc" = 0 ] && [ "${rss:-9999999}" -gt 614400 ] && rc="peak RSS $rss KB"
	what="the sanitizer build, peak RSS under 600 MB"
fi
rows=$(grep -o '"conc": ' "$tmp/conc.out" | wc -l)
[ "$rc" = 0 ] && [ "$rows" = 40000 ] && ok || no "14: a 40,000-value conc-list ($what): exit $rc, $rows rows"
rm -f "$tmp/conc.out"

# -- 15. an input over its documented size limit is refused from its size,
#    before it is read (a sparse 1 GiB file: reading it would take 1 GiB)
truncate -s 1G "$tmp/huge-master.yaml"
truncate -s 1G "$tmp/huge.json"
timeout 60 "$bin" validate --config-files "$tmp/huge-master.yaml" --runner-config "$root/configs/runners.yaml" \
	>/dev/null 2>"$tmp/huge.err"
rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] && grep -q 'larger than the 64 MiB' "$tmp/huge.err" && ok ||
	no "15: a 1 GiB YAML file: exit $rc: $(head -c 300 "$tmp/huge.err")"
timeout 60 "$bin" db ingest --db "$tmp/huge.db" "$tmp/huge.json" >/dev/null 2>"$tmp/huge.err"
rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] && grep -q 'larger than the 512 MiB' "$tmp/huge.err" && ok ||
	no "15: a 1 GiB JSON file: exit $rc: $(head -c 300 "$tmp/huge.err")"
rm -f "$tmp/huge-master.yaml" "$tmp/huge.json"

# ---- the runner (needs the tokenizer fixture) ----
if [ ! -f "$tok/tokenizer.json" ]; then
	echo "skipped: 4-8 (the runner): no tokenizer fixture in $tok"
else
mrow() { # ISL OSL CONC [EXTRA]: a matrix row of run.sh's shape
	printf '{"image": "img:test", "model": "amd/MiniMax-M3-MXFP4", "model-prefix": "minimaxm3", "precision": "fp4", "framework": "vllm", "runner": "mi355x", "isl": %d, "osl": %d, "tp": 8, "pp": 1, "dcp-size": 1, "pcp-size": 1, "conc": %d, "max-model-len": %d, "ep": 1, "dp-attn": false, "spec-decoding": "none", "exp-name": "minimaxm3_%d_%d", "disagg": false, "run-eval": false%s}' \
		"$1" "$2" "$3" $(($1 + $2 + 256)) "$1" "$2" "${4:-}"
}
mstate() { grep "\"row\": $2," "$1/manifest.jsonl" | tail -n 1 | sed -n 's/.*"state": "\([a-z]*\)".*/\1/p'; }
await() { # FILE PATTERN SECONDS
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}
inside() { # processes working in folder $1
	local p n=0
	for p in /proc/[0-9]*; do
		case $(readlink "$p/cwd" 2>/dev/null) in "$1"/*) n=$((n + 1)) ;; esac
	done
	echo $n
}
runner=
echo "[$(mrow 256 512 2)]" >"$tmp/slow.json"
echo "[$(mrow 256 64 2)]" >"$tmp/quick.json"
rargs=(--tokenizer "$tok" --quiet)

# -- 4. `run --row-index` (a Slurm task) leaves a row another runner has in
#    flight alone: its server, workspace and outcome
"$bin" run "$tmp/slow.json" --results "$tmp/s4" --time-scale 2 "${rargs[@]}" 2>"$tmp/s4a.err" &
runner=$!
if await "$tmp/s4/manifest.jsonl" '"state": "running"' 60; then
	timeout 300 "$bin" run "$tmp/slow.json" --results "$tmp/s4" --row-index 0 --time-scale 2 --tokenizer "$tok" \
		>/dev/null 2>"$tmp/s4b.err"
	rc=$?
	grep -q 'in flight in another infbench run' "$tmp/s4b.err" && ok ||
		no "4: the task took a row in flight elsewhere (exit $rc): $(tail -c 300 "$tmp/s4b.err")"
	wait "$runner"
	rc=$?
	[ "$rc" = 0 ] && [ "$(mstate "$tmp/s4" 0)" = done ] && ok ||
		no "4: the first runner's row was killed: exit $rc, state $(mstate "$tmp/s4" 0): $(tail -c 300 "$tmp/s4a.err")"
else
	no "4: the row never ran"
	kill "$runner" 2>/dev/null
	wait "$runner" 2>/dev/null
fi
runner=

# -- 5. a done row whose agg does not parse is run again; a collect that
#    fails (agg_bmk.json cannot be written) exits 3
"$bin" run "$tmp/quick.json" --results "$tmp/s5" --time-scale 10 "${rargs[@]}" 2>"$tmp/s5.err" ||
	no "5: first run: $(tail -c 300 "$tmp/s5.err")"
for f in "$tmp"/s5/rows/*/agg_*.json; do echo '{"hw": "mi355x", torn' >"$f"; done
"$bin" run "$tmp/quick.json" --results "$tmp/s5" --time-scale 10 "${rargs[@]}" 2>"$tmp/s5b.err"
rc=$?
last=$(tail -n 1 "$tmp/s5/manifest.jsonl")
[ "$rc" = 0 ] && ! grep -q '"reused": true' <<<"$last" && grep -q '"state": "done"' <<<"$last" &&
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp"/s5/rows/*/agg_*.json 2>/dev/null && ok ||
	no "5: a damaged agg was reused: exit $rc: $last"
rm -f "$tmp/s5/agg_bmk.json"
mkdir -p "$tmp/s5/agg_bmk.json/x" # cannot be replaced by a file
"$bin" run "$tmp/quick.json" --results "$tmp/s5" --time-scale 10 "${rargs[@]}" 2>"$tmp/s5c.err"
rc=$?
[ "$rc" = 3 ] && ok || no "5: a failed collect: exit $rc, want 3: $(tail -c 300 "$tmp/s5c.err")"
rm -rf "$tmp/s5/agg_bmk.json"

# -- 7. kill -9 of the runner: the simulator it started dies with it, with no
#    resume needed
"$bin" run "$tmp/slow.json" --results "$tmp/s7" --time-scale 2 "${rargs[@]}" 2>/dev/null &
runner=$!
if await "$tmp/s7/manifest.jsonl" '"state": "running"' 60; then
	for _ in $(seq 1 100); do [ "$(inside "$tmp/s7")" -gt 0 ] && break; sleep 0.05; done
	before=$(inside "$tmp/s7")
	kill -KILL "$runner"
	wait "$runner" 2>/dev/null
	for _ in $(seq 1 100); do [ "$(inside "$tmp/s7")" = 0 ] && break; sleep 0.05; done
	left=$(inside "$tmp/s7")
	[ "$before" -gt 0 ] && [ "$left" = 0 ] && ok ||
		no "7: $left of $before processes still work in the store after kill -9 of the runner"
else
	no "7: the row never ran"
	kill -KILL "$runner" 2>/dev/null
	wait "$runner" 2>/dev/null
fi
runner=
# whatever is left there (main's behaviour) must not outlive the test
for p in /proc/[0-9]*; do
	case $(readlink "$p/cwd" 2>/dev/null) in "$tmp"/s7/*) kill -KILL "${p#/proc/}" 2>/dev/null ;; esac
done

# -- 8. a failure reason quoting a recipe log carries no terminal escapes
mkdir -p "$tmp/rc/single_node/fixed_seq_len"
printf '#!/usr/bin/env bash\nprintf "\\033[31mboom\\033[0m \\033]0;title\\007 \\033[2J done\\n"\nexit 1\n' \
	>"$tmp/rc/single_node/fixed_seq_len/minimaxm3_fp4_mi355x_vllm.sh"
chmod +x "$tmp/rc/single_node/fixed_seq_len/minimaxm3_fp4_mi355x_vllm.sh"
"$bin" run "$tmp/quick.json" --engine recipe --recipes "$tmp/rc" --results "$tmp/s8" --gpus 0-7 \
	--tokenizer "$tok" 2>"$tmp/s8.err"
rc=$?
esc=$(printf '\033')
[ "$rc" = 1 ] && grep -q 'boom' "$tmp/s8.err" && ! grep -q "$esc" "$tmp/s8.err" &&
	! grep -q "$esc" "$tmp/s8/manifest.jsonl" && ! grep -q 'u001b' "$tmp/s8/manifest.jsonl" && ok ||
	no "8: escapes in the failure reason (exit $rc): $(grep boom "$tmp/s8.err" | cat -v | head -c 300)"
"$bin" run --status --results "$tmp/s8" 2>&1 | grep -q "$esc" && no "8: --status prints escapes" || ok

# -- 6. a full disk: the manifest keeps every record it had, a row that
#    failed on it says "disk full" (a small tmpfs; needs root's mount)
if [ "$(id -u)" = 0 ] && mkdir -p "$tmp/full" && mount -t tmpfs -o size=24k tmpfs "$tmp/full" 2>/dev/null; then
	"$bin" run "$tmp/quick.json" --results "$tmp/full/s" --time-scale 10 --tokenizer "$tok" 2>"$tmp/s6.err"
	rc=$?
	[ "$rc" != 0 ] && grep -q 'disk full' "$tmp/s6.err" && ok ||
		no "6: a row on a full disk: exit $rc: $(tail -c 400 "$tmp/s6.err")"
	# every line of the manifest is a whole record
	bad=$(python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    try: json.loads(line)
    except ValueError: n += 1
print(n)' "$tmp/full/s/manifest.jsonl" 2>/dev/null)
	[ "$bad" = 0 ] && ok || no "6: $bad torn manifest lines"
	umount "$tmp/full"
else
	echo "skipped: 6 (disk full, e2e): cannot mount a tmpfs here (the unit test run/manifest_survives_a_full_disk still runs)"
fi
fi

e2e_end
