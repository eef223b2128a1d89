#!/usr/bin/env bash
# End-to-end: `infbench eval run` against `infbench sim --eval-dataset` on a
# generated gsm8k-format set: scores within the 99% binomial interval of the
# simulator's accuracy, retries on 500s, timeouts and dropped connections,
# failures counted and reported
# (never a crash), batched mode, meta_env.json, usage errors.
# Usage: tests/e2e/eval.sh INFBENCH. Ends with "eval-e2e: N passed, N failed".
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
	echo "FAIL $1"
	fail=$((fail + 1))
}

"$bin" eval make-dataset --output "$tmp/ds" --train 200 --test 1000 --seed 7 || bad "make-dataset"

# start_sim NAME ARGS...: a simulator on a free port (--max-speed unless
# $simmode says otherwise); sets $port
start_sim() {
	local name=$1
	shift
	rm -f "$tmp/$name.port"
	"$bin" sim ${simmode:---max-speed} --eval-dataset "$tmp/ds" --port 0 --port-file "$tmp/$name.port" \
		--duration 120 "$@" 2>"$tmp/$name.err" &
	pids+=($!)
	for _ in $(seq 100); do
		[ -s "$tmp/$name.port" ] && break
		sleep 0.1
	done
	port=$(cat "$tmp/$name.port" 2>/dev/null)
}

# score FILE FILTER: the exact_match value of a filter in a results file
score() { sed -n "s/.*\"exact_match,$2\": \([0-9.e-]*\),*/\1/p" "$1" | head -n 1; }

run_eval() { # DIR ARGS...
	local dir=$1
	shift
	"$bin" eval run --base-url "http://127.0.0.1:$port" --model llama3-8b --dataset "$tmp/ds" \
		--output-path "$dir" --retry-min 0.01 --retry-max 0.05 "$@"
}

# 1. accuracy P: strict-match within the 99% binomial interval around P (a
#    tenth of the simulator's right answers are in reasoning_content only, so
#    a client without the reference's fallback falls below it), flexible
#    within the interval around P + 0.3 (1 - P) (the "The answer is N." kind;
#    docs/sim.md) and above strict
for P in 0.5 0.9 0.97; do
	start_sim "p$P" --eval-accuracy "$P"
	out=$(run_eval "$tmp/p$P" --num-concurrent 64 2>"$tmp/p$P.log")
	rc=$?
	res=$(ls "$tmp/p$P"/results_*.json 2>/dev/null | head -n 1)
	if [ "$rc" != 0 ] || [ -z "$res" ] || [ "$out" != "$res" ]; then
		bad "P=$P: exit $rc, results '$res', stdout '$out': $(tail -c 300 "$tmp/p$P.log")"
		continue
	fi
	s=$(score "$res" strict-match)
	f=$(score "$res" flexible-extract)
	if awk -v p="$P" -v s="$s" -v f="$f" 'BEGIN {
		h = 2.576 * sqrt(p * (1 - p) / 1000);
		q = p + 0.3 * (1 - p); g = 2.576 * sqrt(q * (1 - q) / 1000);
		exit !(s >= p - h && s <= p + h && f >= q - g && f <= q + g && f > s) }'; then ok; else
		bad "P=$P: strict $s flexible $f outside the 99% interval"
	fi
	grep -q '"effective": 1000' "$res" && ok || bad "P=$P: n-samples effective"
	lines=$(wc -l <"$tmp/p$P"/samples_gsm8k_*.jsonl)
	[ "$lines" = 2000 ] && ok || bad "P=$P: $lines sample lines, want 2000 (2 filters x 1000)"
done

# 2. the score gate on those results: passes at 0.85 for P=0.97, fails for P=0.5
"$bin" eval validate --results-glob "$tmp/p0.97/results_*.json" --meta-env "$tmp/p0.97/meta_env.json" \
	--min-score 0.85 >/dev/null 2>&1 && ok || bad "gate: P=0.97 should pass at 0.85"
"$bin" eval validate --results-glob "$tmp/p0.5/results_*.json" --meta-env "$tmp/p0.5/meta_env.json" \
	--min-score 0.85 >/dev/null 2>&1 && bad "gate: P=0.5 should fail at 0.85" || ok

# 3. 30% of answers are HTTP 500: every request retried until it succeeds
start_sim flaky --eval-accuracy 0.9 --fail-rate 0.3
run_eval "$tmp/flaky" --limit 200 --num-concurrent 16 --max-retries 12 >/dev/null 2>"$tmp/flaky.log"
rc=$?
[ "$rc" = 0 ] && grep -q "needed more than one attempt" "$tmp/flaky.log" && ok ||
	bad "500s: exit $rc: $(tail -c 300 "$tmp/flaky.log")"

# 3b. timeouts (streams paused 3 s, --timeout 0.5) and dropped connections:
#     retried until they succeed; when every attempt times out, counted as wrong
simmode="--time-scale 50" start_sim stall --eval-accuracy 0.9 --stall-rate 0.3 --stall-ms 3000
run_eval "$tmp/stall" --limit 30 --num-concurrent 8 --timeout 0.5 --max-retries 12 >/dev/null 2>"$tmp/stall.log"
rc=$?
[ "$rc" = 0 ] && grep -q "needed more than one attempt" "$tmp/stall.log" && ok ||
	bad "timeouts: exit $rc: $(tail -c 300 "$tmp/stall.log")"
simmode="--time-scale 50" start_sim stallall --eval-accuracy 0.9 --stall-rate 1 --stall-ms 3000
run_eval "$tmp/stallall" --limit 3 --timeout 0.5 --max-retries 2 >/dev/null 2>"$tmp/stallall.log"
rc=$?
[ "$rc" = 1 ] && grep -q "3 requests failed after 2 attempts" "$tmp/stallall.log" &&
	grep -q '"infbench_error": "timed out after 0.5 s"' "$tmp/stallall"/samples_gsm8k_*.jsonl && ok ||
	bad "always timing out: exit $rc: $(tail -c 300 "$tmp/stallall.log")"
simmode="--time-scale 50" start_sim drop --eval-accuracy 0.9 --drop-rate 0.3
run_eval "$tmp/drop" --limit 40 --num-concurrent 8 --max-retries 12 >/dev/null 2>"$tmp/drop.log"
rc=$?
[ "$rc" = 0 ] && grep -q "needed more than one attempt" "$tmp/drop.log" && ok ||
	bad "dropped connections: exit $rc: $(tail -c 300 "$tmp/drop.log")"

# 4. a server that always fails: retried, then counted as wrong and reported
start_sim broken --eval-accuracy 0.9 --fail-rate 1
run_eval "$tmp/broken" --limit 5 --max-retries 2 >/dev/null 2>"$tmp/broken.log"
rc=$?
[ "$rc" = 1 ] && grep -q "5 requests failed after 2 attempts" "$tmp/broken.log" &&
	grep -q '"failed_requests": 5' "$tmp/broken"/results_*.json && ok ||
	bad "always 500: exit $rc: $(tail -c 300 "$tmp/broken.log")"

# 5. nobody listening: connection errors, no crash
port=1
run_eval "$tmp/refused" --limit 3 --max-retries 2 >/dev/null 2>"$tmp/refused.log"
[ "$?" = 1 ] && grep -q "failed after 2 attempts" "$tmp/refused.log" && ok || bad "refused"

# 6. batched mode and meta_env.json from the environment
start_sim batch --eval-accuracy 0.9
ISL=8192 OSL=1024 MODEL_PREFIX=dsr1 RUNNER_TYPE=h200 FRAMEWORK=sglang PRECISION=fp8 TP=8 \
	run_eval "$tmp/batch" --limit 50 --num-concurrent "4 8" >/dev/null 2>"$tmp/batch.log" || bad "batched run"
ls "$tmp/batch"/results_*_conc4.json "$tmp/batch"/results_*_conc8.json >/dev/null 2>&1 && ok ||
	bad "batched: no results_*_conc4/8.json"
m=$tmp/batch/meta_env.json
grep -q '"isl": "8192"' "$m" && grep -q '"eval_concs": \[4, 8\]' "$m" &&
	grep -q '"completed_eval_concs": \[4, 8\]' "$m" && grep -q '"conc": 4,' "$m" &&
	grep -q '"tp": 8,' "$m" && grep -q '"framework": "sglang"' "$m" && ok || bad "meta_env.json: $(cat "$m")"

# 7. the wire: the bodies the simulator received (sim --log-requests) have
#    the reference's shape (spec/evals-report-agentx.md A.2): key order, 5
#    few-shot turns from train.jsonl, the test question last, Python
#    json.dumps bytes
if command -v node >/dev/null; then
	start_sim wire --eval-accuracy 0.9 --log-requests "$tmp/wire.jsonl"
	wirepid=${pids[-1]}
	run_eval "$tmp/wire" --limit 5 --num-concurrent 2 >/dev/null 2>"$tmp/wire.log" || bad "wire: eval run"
	kill -TERM "$wirepid" 2>/dev/null
	wait "$wirepid" 2>/dev/null
	if out=$(node - "$tmp/wire.jsonl" "$tmp/ds" <<'JS' 2>&1
const fs = require('fs');
const [log, ds] = process.argv.slice(2);
const lines = f => fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l));
const train = new Set(lines(ds + '/train.jsonl').map(d => d.answer));
const test = new Map(lines(ds + '/test.jsonl').map(d => [d.question, d.answer]));
const py = v => Array.isArray(v) ? '[' + v.map(py).join(', ') + ']'
	: v === null ? 'null'
	: typeof v === 'object' ? '{' + Object.keys(v).map(k => py(k) + ': ' + py(v[k])).join(', ') + '}'
	: typeof v === 'string' ? JSON.stringify(v).replace(/[\u0080-\uffff]/g,
		c => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
	: String(v);
const re = /^Question: ([\s\S]*)\nEnd your response with the answer on the last line, formatted as: #### \[number\]\nAnswer:$/;
const fail = m => { console.log(m); process.exit(1); };
const reqs = lines(log).filter(r => r.path === '/v1/chat/completions');
if (reqs.length !== 5) fail(`${reqs.length} chat requests, want 5`);
const seen = new Set();
for (const r of reqs) {
	if (r.method !== 'POST') fail('method ' + r.method);
	const b = JSON.parse(r.body);
	if (py(b) !== r.body) fail('not json.dumps bytes: ' + r.body.slice(0, 200));
	const keys = Object.keys(b).join(',');
	if (keys !== 'messages,model,max_tokens,temperature,stop,seed,top_p') fail('keys ' + keys);
	if (b.model !== 'llama3-8b' || b.temperature !== 0 || b.top_p !== 1 || b.seed !== 1234 ||
	    !Number.isInteger(b.max_tokens) || b.max_tokens <= 0 ||
	    JSON.stringify(b.stop) !== '["</s>","<|im_end|>"]') fail('fields ' + r.body.slice(-160));
	const m = b.messages;
	if (m.length !== 11) fail(`${m.length} messages, want 11`);
	m.forEach((t, i) => {
		if (t.role !== (i % 2 ? 'assistant' : 'user') || Object.keys(t).join() !== 'role,content') fail('turn ' + i);
		if (i % 2 ? !train.has(t.content) : !re.test(t.content)) fail('turn ' + i + ': ' + t.content.slice(0, 80));
	});
	const q = re.exec(m[10].content)[1];
	if (!test.has(q)) fail('the last turn is not a test question');
	seen.add(q);
}
if (seen.size !== 5) fail(`${seen.size} distinct questions`);
JS
	); then ok; else bad "wire: $out"; fi
else
	echo "skipped: node not found (the wire-body check needs it)"
fi

# 8. usage errors
"$bin" eval run --help | grep -q usage && ok || bad "--help"
"$bin" eval run --base-url http://127.0.0.1:1 --insecure --model m --dataset "$tmp/ds" --output-path "$tmp/u" \
	>/dev/null 2>"$tmp/u.err"
[ "$?" = 2 ] && grep -q "apply to https:// base URLs" "$tmp/u.err" && ok || bad "--insecure on http refused"
"$bin" eval run --base-url http://127.0.0.1:1 --model m --dataset "$tmp/nope" --output-path "$tmp/u" \
	>/dev/null 2>"$tmp/u.err"
[ "$?" = 1 ] && grep -q "nope/train.jsonl" "$tmp/u.err" && ok || bad "missing dataset"

echo "eval-e2e: $pass passed, $fail failed"
[ "$fail" = 0 ]
