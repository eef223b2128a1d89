#!/usr/bin/env bash
# End-to-end tests of `infbench run` on the simulator: a 6-row sweep with
# --jobs 2 (the §3.6 files under §3.5 names, agg files, agg_bmk.json), resume
# after SIGINT and after SIGKILL (done rows reused byte for byte, the manifest
# tells the story), identities (a changed recipe or simulator profile reruns
# only the affected rows), failures (never ready, dies mid-run, > 5% failed
# requests, unmodelable row, missing recipe), the recipe engine with
# infbench's benchmark_lib.sh and, with IX_REF set, the reference's unmodified
# benchmark_lib.sh driving infbench bench (and its process_result.py agreeing).
# Usage: run.sh INFBENCH. Ends with "run: N passed, N failed".
# Needs the llama3 tokenizer fixture (make fixtures).
. "$(dirname "$0")/lib.sh" run "$1"
e2e_need_tok skip
tmp=$(mktemp -d /tmp/ib_run_e2e.XXXXXX)
runner=
cleanup() {
	[ -n "$runner" ] && kill -KILL "$runner" 2>/dev/null
	# whatever still works in our folders (a killed runner's children)
	for p in /proc/[0-9]*; do
		case $(readlink "$p/cwd" 2>/dev/null) in "$tmp"/*) kill -KILL "${p#/proc/}" 2>/dev/null ;; esac
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp" || exit 1

# row FIELDS...: a matrix row of the seed key's shape with overrides
row() { # isl osl conc spec [extra json]
	local isl=$1 osl=$2 conc=$3 spec=$4 extra=${5:-}
	printf '{"image": "img:test", "model": "amd/MiniMax-M3-MXFP4", "model-prefix": "minimaxm3", "precision": "fp4", "framework": "vllm", "runner": "mi355x", "isl": %d, "osl": %d, "tp": 8, "pp": 1, "dcp-size": 1, "pcp-size": 1, "conc": %d, "max-model-len": %d, "ep": 1, "dp-attn": false, "spec-decoding": "%s", "exp-name": "minimaxm3_%d_%d", "disagg": false, "run-eval": false%s}' \
		"$isl" "$osl" "$conc" $((isl + osl + 256)) "$spec" "$isl" "$osl" "$extra"
}
{
	echo "["
	row 256 128 1 none; echo ","
	row 256 128 2 none; echo ","
	row 256 128 4 none; echo ","
	row 512 64 1 none; echo ","
	row 512 64 4 none; echo ","
	row 512 64 2 mtp
	echo "]"
} >m6.json
common=(--tokenizer "$tok" --time-scale 10 --quiet)
loud=(--tokenizer "$tok" --time-scale 10)
names() { sed -n 's/.*"name": "\([^"]*\)".*/\1/p' "$1/manifest.jsonl" | sort -u; }
state_of() { # STORE ROW -> the last state recorded for row index ROW
	grep "\"row\": $2," "$1/manifest.jsonl" | tail -n 1 | sed -n 's/.*"state": "\([a-z]*\)".*/\1/p'
}
wait_for() { # FILE PATTERN SECONDS: wait until FILE contains PATTERN
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}
tree_sums() { (cd "$1" && find rows -type f | sort | xargs sha256sum); }
leftovers() { # processes working in folder $1
	local p n=0
	for p in /proc/[0-9]*; do
		case $(readlink "$p/cwd" 2>/dev/null) in "$1"/*) n=$((n + 1)) ;; esac
	done
	echo $n
}

# -- 1. the sweep with --jobs 2, interrupted by SIGINT while a row runs, resumed
"$bin" run m6.json --results s1 --jobs 2 "${common[@]}" 2>s1.err &
runner=$!
wait_for s1/manifest.jsonl '"state": "done"' 120 || no "sweep: no row finished within 120 s"
wait_for s1/manifest.jsonl '"state": "running", "attempt": 1, "started"' 30
kill -INT "$runner"
wait "$runner"
rc=$?
runner=
[ "$rc" = 130 ] && ok || no "SIGINT: exit status $rc, want 130"
grep -q '"state": "interrupted"' s1/manifest.jsonl && ok || no "SIGINT: no interrupted record"
grep -q 'stopped by signal 2' s1.err && ok || no "SIGINT: no reason on stderr"
[ "$(leftovers "$tmp/s1")" = 0 ] && ok || no "SIGINT: processes left in the store"
[ -z "$(ls s1/work)" ] && ok || no "SIGINT: work/ not empty: $(ls s1/work)"
before=$(tree_sums s1)
ndone=$(ls s1/rows | wc -l)
[ "$ndone" -ge 1 ] && ok || no "SIGINT: no done row to reuse"
"$bin" run m6.json --results s1 --jobs 2 "${common[@]}" 2>s1b.err
rc=$?
[ "$rc" = 0 ] && ok || { no "resume: exit $rc"; cat s1b.err; }
[ "$(ls s1/rows | wc -l)" = 6 ] && ok || no "resume: $(ls s1/rows | wc -l) rows done, want 6"
# the rows done before the interruption are the same bytes
after=$(tree_sums s1)
while read -r sum file; do
	grep -qF "$sum  $file" <<<"$after" || no "resume: $file changed"
done <<<"$before"
reused=$(grep -c '"reused": true' s1/manifest.jsonl)
[ "$reused" = "$ndone" ] && ok || no "resume: $reused rows reused, want $ndone"
# §3.6 files under §3.5 names in every row folder
for d in s1/rows/*; do
	name=$(sed -n 's/^RESULT_FILENAME=//p' "$d/env")
	case $name in minimaxm3_*_fp4_vllm_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-*_conc[124]_mi355x_0) ok ;; *) no "name '$name'" ;; esac
	for f in "$name.json" server.log "agg_$name.json" "power_validation_$name.json"; do
		[ -s "$d/$f" ] && ok || no "$d: missing $f"
	done
	grep -q '"hw": "mi355x"' "$d/agg_$name.json" && grep -q '"tput_per_gpu"' "$d/agg_$name.json" && ok ||
		no "$d: agg file without hw/tput_per_gpu"
	grep -q -- '--num-prompts' "$d/commands.txt" && ok || no "$d: no client command"
done
spec=$(grep -l 'SPEC_DECODING=mtp' s1/rows/*/env | head -n 1)
grep -q -- '--use-chat-template' "$(dirname "$spec")/commands.txt" && ok || no "spec row without --use-chat-template"
grep -q -- '--num-prompts 20 --max-concurrency 2' "$(dirname "$spec")/commands.txt" && ok || no "spec row: not 10 x conc prompts"
grep -q -- '--num-warmups 4' "$(dirname "$spec")/commands.txt" && ok || no "spec row: not 2 x conc warmups"
grep -q -- '--random-range-ratio 0.8' "$(dirname "$spec")/commands.txt" && ok || no "ratio"
n=$(grep -c '"hw": "mi355x"' s1/agg_bmk.json)
[ "$n" = 6 ] && ok || no "agg_bmk.json: $n rows, want 6"
"$bin" run --status --results s1 >status.txt
grep -q '^6 rows: 6 done$' status.txt && ok || { no "status"; cat status.txt; }

# -- 2. a second run reuses everything, byte for byte; a dry run with a
#       changed simulator profile would rerun every row, without it none
"$bin" run m6.json --results s1 --jobs 2 "${common[@]}" 2>/dev/null && ok || no "rerun failed"
[ "$(tree_sums s1)" = "$after" ] && ok || no "rerun changed the stored rows"
printf 'hardware:\n  hbm-tbps: 7.5\n' >prof.yaml
"$bin" run m6.json --results s1 --dry-run --sim-profile prof.yaml "${loud[@]}" 2>dry.err
[ "$(grep -c ' reused ' dry.err)" = 0 ] && ok || no "changed profile: rows reused"
"$bin" run m6.json --results s1 --dry-run "${loud[@]}" 2>dry.err
[ "$(grep -c ' reused ' dry.err)" = 6 ] && ok || no "unchanged: $(grep -c ' reused ' dry.err) reused, want 6"

# -- 3. SIGKILL mid-row: the next run reaps what was left and finishes
"$bin" run m6.json --rows 3,4 --results s2 "${common[@]}" 2>/dev/null &
runner=$!
wait_for s2/manifest.jsonl '"state": "running"' 60 || no "SIGKILL: never running"
sleep 0.5
kill -KILL "$runner"
wait "$runner" 2>/dev/null
runner=
"$bin" run m6.json --rows 3,4 --results s2 "${common[@]}" 2>s2.err
rc=$?
[ "$rc" = 0 ] && ok || { no "after SIGKILL: exit $rc"; cat s2.err; }
grep -q 'the runner stopped without recording an end (killed)' s2/manifest.jsonl && ok ||
	no "after SIGKILL: no interrupted record"
[ "$(ls s2/rows | wc -l)" = 2 ] && ok || no "after SIGKILL: rows not done"
[ "$(leftovers "$tmp/s2")" = 0 ] && ok || no "after SIGKILL: processes left"

# -- 4. failures: each its own reason, the other rows still run, exit 1
{
	echo "["
	row 256 64 1 none ', "sim-args": "--host 127.0.0.2"'; echo ","
	row 256 1024 1 none ', "sim-args": "--time-scale 1 --duration 8"'; echo ","
	row 256 64 4 none ', "sim-args": "--fail-rate 0.5"'; echo ","
	row 256 64 1 none | sed 's/"runner": "mi355x"/"runner": "tpu7x"/'; echo ","
	row 256 64 2 none
	echo "]"
} >mf.json
# (a ready timeout long enough for the other rows to load the tokenizer under ASan)
"$bin" run mf.json --results s3 --jobs 2 --ready-timeout 20 --tokenizer "$tok" --time-scale 10 2>s3.err
rc=$?
[ "$rc" = 1 ] && ok || no "failures: exit $rc, want 1"
chk() { # ROW STATE PATTERN
	[ "$(state_of s3 "$1")" = "$2" ] && ok || no "row $1: state $(state_of s3 "$1"), want $2"
	grep "\"row\": $1," s3/manifest.jsonl | tail -n 1 | grep -q "$3" && ok || no "row $1: manifest reason lacks '$3'"
	grep -q "$3" s3.err && ok || no "row $1: stderr lacks '$3'"
}
chk 0 failed 'server not ready after 20 s (no answer on /health)'
grep -q 'listening on http://127.0.0.2' s3.err && ok || no "never ready: no server-log tail quoted"
chk 1 failed 'server exited with status [0-9]* during the benchmark'
chk 2 failed 'client: FAIL: request failure rate'
chk 3 skipped "no simulator GPU profile for runner 'tpu7x'"
[ "$(state_of s3 4)" = done ] && ok || no "the good row: $(state_of s3 4)"
# a rerun leaves failed rows alone unless asked
"$bin" run mf.json --results s3 --rows 2 --tokenizer "$tok" --time-scale 10 2>s3b.err
grep -q 'failed in attempt 1 (--retry-failed reruns it)' s3b.err && ok || no "failed row not reported as earlier failure"
[ "$(grep -c '"row": 2,' s3/manifest.jsonl)" = 3 ] && ok || no "failed row rerun without --retry-failed"

# -- 5. the recipe engine: infbench's benchmark_lib.sh, launcher names,
#       a missing recipe, and a changed recipe reruns only its rows
recipe_tree() { # DIR LIB
	mkdir -p "$1/single_node/fixed_seq_len"
	cp "$2" "$1/benchmark_lib.sh"
	cp "$root/tests/fixtures/run/sim_recipe.sh" "$1/single_node/fixed_seq_len/minimaxm3_fp4_mi355x_vllm_mtp.sh"
	cp "$root/tests/fixtures/run/sim_recipe.sh" "$1/single_node/fixed_seq_len/minimaxm3_fp4_mi355x_vllm.sh"
}
recipe_tree bm "$root/recipes/benchmark_lib.sh"
{
	echo "["
	row 256 64 2 mtp; echo ","
	row 256 64 1 none; echo ","
	row 256 64 1 none | sed 's/"framework": "vllm"/"framework": "sglang"/'
	echo "]"
} >mr.json
"$bin" run mr.json --engine recipe --recipes bm --results s4 --jobs 2 --gpus 0-15 "${common[@]}" 2>s4.err
rc=$?
[ "$rc" = 1 ] && ok || { no "recipe engine: exit $rc, want 1"; cat s4.err; }
[ "$(state_of s4 0)" = done ] && [ "$(state_of s4 1)" = done ] && ok || { no "recipe rows not done"; cat s4.err; }
grep -q 'no recipe script for this row (tried .*minimaxm3_fp4_mi355x_sglang.sh' s4.err && ok || no "missing recipe: reason"
# GPU packing: two TP8 rows side by side on 16 devices, disjoint ids (mi* → ROCR)
d0=$(sed -n 's/^ROCR_VISIBLE_DEVICES=//p' s4/rows/*/env | head -n 1)
d1=$(sed -n 's/^ROCR_VISIBLE_DEVICES=//p' s4/rows/*/env | tail -n 1)
[ "$(tr ',' '\n' <<<"$d0" | wc -l)" = 8 ] && [ "$(tr ',' '\n' <<<"$d1" | wc -l)" = 8 ] && ok ||
	no "GPU packing: devices '$d0' and '$d1'"
[ "$(printf '%s\n%s\n' "$d0" "$d1" | tr ',' '\n' | sort -u | wc -l)" = 16 ] && ok ||
	no "GPU packing: rows share devices ('$d0', '$d1')"
"$bin" run mr.json --rows 0 --engine recipe --recipes bm --results s4 --gpus 0-3 --dry-run --force \
	"${loud[@]}" 2>gpu.err
grep -q 'the row needs 8 GPUs, only 4 are available' gpu.err && ok || { no "a row wider than the pool"; cat gpu.err; }
[ "$(state_of s4 2)" = failed ] && ok || no "missing recipe: state $(state_of s4 2)"
echo "# changed" >>bm/single_node/fixed_seq_len/minimaxm3_fp4_mi355x_vllm_mtp.sh
"$bin" run mr.json --rows 0-1 --engine recipe --recipes bm --results s4 "${loud[@]}" 2>s4b.err
grep -q '\[2/2\] done .*spec-mtp_conc2' s4b.err && grep -q 'reused .*spec-none_conc1' s4b.err && ok ||
	{ no "changed recipe: not exactly its row rerun"; cat s4b.err; }

# -- 5b. evals: a run-eval row runs the benchmark and the gsm8k eval against
#        the simulator's grader, an eval-only row the eval alone; eval rows
#        are collected into agg_eval_bmk.json; the eval settings are part of
#        the identity of eval rows only (ISL 1024: the context ISL + OSL + 256
#        must hold a 5-shot prompt and the eval's max_tokens, as in InferenceX)
{
	echo "["
	row 1024 128 2 none ', "run-eval": true'; echo ","
	row 1024 128 4 none ', "run-eval": true, "eval-only": true'; echo ","
	row 256 128 1 none
	echo "]"
} | sed 's/"run-eval": false, "run-eval"/"run-eval"/' >me.json
"$bin" run me.json --results s6 --eval-limit 200 --eval-accuracy 0.8 "${loud[@]}" 2>s6.err
rc=$?
[ "$rc" = 0 ] && ok || { no "evals: exit $rc"; cat s6.err; }
e0=$(grep -l '"run-eval": true' s6/rows/*/identity.json | head -n 1)
ls s6/rows/*/results_*.json >/dev/null 2>&1 && [ "$(ls s6/rows/*/results_*.json | wc -l)" = 2 ] && ok ||
	no "evals: want 2 lm-eval results files, got $(ls s6/rows/*/results_*.json 2>/dev/null | wc -l)"
[ "$(ls s6/rows/*/agg_*.json | wc -l)" = 2 ] && ok || no "evals: the eval-only row must leave no agg row"
grep -q -- '--eval-dataset .*eval-dataset --eval-accuracy 0.8' s6/rows/*/commands.txt && ok ||
	no "evals: the simulator was not started as a grader"
python3 - s6/agg_eval_bmk.json <<'PY' && ok || no "evals: agg_eval_bmk.json"
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 2, rows
for r in rows:
    assert r["task"] == "gsm8k" and r["n_eff"] == 200, r
    # 200 graded questions at accuracy 0.8: strict-match inside the 99.9 % interval
    assert abs(r["em_strict"] - 0.8) < 3.3 * (0.8 * 0.2 / 200) ** 0.5, r["em_strict"]
assert sorted(r["conc"] for r in rows) == [2, 4], rows
PY
[ -f s6/eval-dataset/test.jsonl ] && [ "$(wc -l <s6/eval-dataset/test.jsonl)" = 1319 ] && ok ||
	no "evals: the stand-in dataset (1319 questions) was not made in the store"
"$bin" run me.json --results s6 --eval-limit 200 --eval-accuracy 0.9 "${loud[@]}" 2>s6b.err
[ "$(grep -c '\] reused' s6b.err)" = 1 ] && grep -q '\] reused .*_conc1_' s6b.err && ok ||
	{ no "evals: a changed accuracy must rerun the eval rows only"; cat s6b.err; }
"$bin" run me.json --results s7 --no-evals "${loud[@]}" 2>s7.err
grep -q 'skipped .*an eval-only row, and evals are off' s7.err && [ ! -e s7/agg_eval_bmk.json ] &&
	! ls s7/rows/*/results_*.json >/dev/null 2>&1 && ok || { no "evals: --no-evals"; cat s7.err; }
"$bin" run me.json --results s8 --eval-dataset nowhere "${loud[@]}" 2>s8.err
[ $? = 3 ] && grep -q 'nowhere: --eval-dataset: no such folder' s8.err && ok ||
	{ no "evals: a missing --eval-dataset"; cat s8.err; }

# -- 6. with IX_REF: the reference's own benchmark_lib.sh drives infbench
#       bench, and its process_result.py agrees with the agg file
if [ -n "${IX_REF:-}" ] && [ -f "$IX_REF/benchmarks/benchmark_lib.sh" ]; then
	recipe_tree ref "$IX_REF/benchmarks/benchmark_lib.sh"
	"$bin" run mr.json --rows 0-1 --engine recipe --recipes ref --results s5 "${common[@]}" 2>s5.err
	rc=$?
	[ "$rc" = 0 ] && ok || { no "reference benchmark_lib.sh: exit $rc"; cat s5.err; }
	grep -q 'benchmark_serving.py' s5/rows/*/recipe.log && ok || no "reference lib: client call not seen"
	if command -v python3 >/dev/null && [ -f "$IX_REF/utils/process_result.py" ]; then
		for d in s5/rows/*; do
			name=$(sed -n 's/^RESULT_FILENAME=//p' "$d/env")
			mkdir -p "ref_$name" && cp "$d/$name.json" "ref_$name/"
			(cd "ref_$name" && env $(grep -v '^PATH=' "../$d/env" | tr '\n' ' ') \
				python3 "$IX_REF/utils/process_result.py" >/dev/null 2>&1)
			python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(a != b)' \
				"$d/agg_$name.json" "ref_$name/agg_$name.json" && ok || no "$name: agg differs from process_result.py"
		done
	fi
else
	echo "(IX_REF not set: the reference's benchmark_lib.sh case is not run)"
fi

# -- 7. model time, not wall time: the same rows at --time-scale 4 and 40 give
#       the same model-time figures (the client converts what it measures
#       from the simulator's X-Infbench-Time-Scale) and the same counts; wall
#       time leaking into a row would make them differ 10 times
{
	echo "["
	row 256 128 1 none; echo ","
	row 256 128 4 none
	echo "]"
} >mt.json
for s in 4 40; do
	"$bin" run mt.json --results "t$s" --tokenizer "$tok" --time-scale "$s" --quiet 2>"t$s.err" ||
		{ no "time scale $s: exit $?"; cat "t$s.err"; }
done
num() { # FILE KEY: the number after "KEY": in a JSON file
	sed -n "s/.*\"$2\": \([-0-9.e+]*\).*/\1/p" "$1" | head -n 1
}
agree() { # A B TOLERANCE: |A - B| <= TOLERANCE x max(A, B), both > 0
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { m = a > b ? a : b; d = a - b; if (d < 0) d = -d
		exit !(a > 0 && b > 0 && d <= t * m) }'
}
for c in 1 4; do
	f4=$(ls t4/rows/*/agg_*_conc${c}_*.json 2>/dev/null | head -n 1)
	f40=$(ls t40/rows/*/agg_*_conc${c}_*.json 2>/dev/null | head -n 1)
	if [ -z "$f4" ] || [ -z "$f40" ]; then
		no "model time: conc $c row missing"
		continue
	fi
	for k in median_tpot median_intvty tput_per_gpu median_e2el; do
		a=$(num "$f4" "$k") b=$(num "$f40" "$k")
		agree "$a" "$b" 0.15 && ok || no "model time: conc $c $k at scale 4 ($a) and 40 ($b) differ by more than 15 %"
	done
	# interactivity of the simulated MI355X, not of the wall clock (x 40)
	u=$(num "$f40" median_intvty)
	awk -v u="$u" 'BEGIN { exit !(u >= 10 && u <= 1000) }' && ok ||
		no "model time: conc $c interactivity $u tok/s/user is not in [10, 1000]"
	r4=$(dirname "$f4")/$(basename "$f4" | sed 's/^agg_//') r40=$(dirname "$f40")/$(basename "$f40" | sed 's/^agg_//')
	for k in completed total_input_tokens total_output_tokens; do
		[ "$(num "$r4" "$k")" = "$(num "$r40" "$k")" ] && [ -n "$(num "$r4" "$k")" ] && ok ||
			no "model time: conc $c $k differs ($(num "$r4" "$k") vs $(num "$r40" "$k"))"
	done
	[ "$(num "$r40" time_scale)" = 40.0 ] && ok || no "model time: the result does not record time_scale 40"
done

e2e_end
