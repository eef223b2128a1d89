#!/usr/bin/env bash
# End-to-end: https:// base URLs. The simulator serves TLS with a certificate
# the test makes (openssl req -x509); bench over https gives the same counts
# as over http; verification is on by default (a self-signed certificate
# fails with the reason shown, --ca-cert trusts it, --insecure skips it, a
# name mismatch fails); keep-alive over TLS; and the first distinct error
# reasons are printed when most requests fail (refused, 404 unknown model);
# the AgentX replay over https (verification, --ca-cert, --insecure);
# the result file never replaces a symlink or a FIFO.
# Usage: tls.sh INFBENCH. Ends with "tls: N passed, N failed".
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
tokdir=$root/fixtures/tokenizers/llama3
tmp=$(mktemp -d)
pass=0
fail=0
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
ok() { pass=$((pass + 1)); }
no() {
	echo "FAIL: $1"
	fail=$((fail + 1))
}
if ! command -v openssl >/dev/null; then
	echo "tls: skipped (no openssl command to make a certificate)"
	echo "tls: 0 passed, 0 failed"
	exit 0
fi
if [ ! -f "$tokdir/tokenizer.json" ]; then
	echo "fixtures missing: $tokdir (run make fixtures)"
	echo "tls: 0 passed, 1 failed"
	exit 1
fi
json_num() { grep -o "\"$2\": [-0-9.e+]*" "$1" | head -n 1 | sed 's/.*: //'; }
list() { grep -o "\"$2\": \[[0-9, ]*\]" "$1"; }

# certificates: one for localhost/127.0.0.1, one for another name
mkcert() { # mkcert NAME SAN
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$1" -addext "subjectAltName=$2" \
		-keyout "$tmp/$1.key" -out "$tmp/$1.crt" 2>/dev/null
}
mkcert localhost "DNS:localhost,IP:127.0.0.1" && mkcert other.example "DNS:other.example" && ok ||
	no "openssl req -x509 failed"

start_sim() { # start_sim NAME ARGS...: sets port_NAME
	local name=$1
	shift
	"$bin" sim --port 0 --port-file "$tmp/port.$name" --duration 300 --served-model-name llama3-8b \
		--time-scale 50 --seed 7 "$@" 2>"$tmp/sim.$name.err" &
	pids+=($!)
	for _ in $(seq 1 400); do [ -s "$tmp/port.$name" ] && break; sleep 0.05; done
	eval "port_$name=\$(cat \"\$tmp/port.$name\" 2>/dev/null)"
}
start_sim plain
start_sim tls --tls-cert "$tmp/localhost.crt" --tls-key "$tmp/localhost.key"
start_sim wrong --tls-cert "$tmp/other.example.crt" --tls-key "$tmp/other.example.key"
# shellcheck disable=SC2154
[ -n "$port_plain" ] && [ -n "$port_tls" ] && [ -n "$port_wrong" ] && ok || no "simulators did not start"
grep -q "listening on https://" "$tmp/sim.tls.err" && ok || no "sim announces https"

run() { # run NAME URL ARGS...: a recipe-shaped bench run, result in $tmp/NAME.json
	local name=$1 url=$2
	shift 2
	timeout 300 "$bin" bench --model llama3-8b --tokenizer "$tokdir" --backend vllm --base-url "$url" \
		--dataset-name random --random-input-len 96 --random-output-len 24 --random-range-ratio 0.8 \
		--num-prompts 24 --max-concurrency 3 --request-rate inf --ignore-eos --num-warmups 2 \
		--save-result --result-dir "$tmp" --result-filename "$name.json" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
}

# -- 1. the same counts over http and https
run http "http://127.0.0.1:$port_plain"
rc1=$?
run https "https://localhost:$port_tls" --ca-cert "$tmp/localhost.crt"
rc2=$?
[ "$rc1" = 0 ] && [ "$rc2" = 0 ] && ok || no "http exit $rc1, https exit $rc2: $(tail -2 "$tmp/https.err")"
for k in completed total_input_tokens total_output_tokens; do
	a=$(json_num "$tmp/http.json" $k)
	b=$(json_num "$tmp/https.json" $k)
	[ -n "$a" ] && [ "$a" = "$b" ] && ok || no "$k: http $a, https $b"
done
[ "$(json_num "$tmp/https.json" completed)" = 24 ] && ok || no "https completed $(json_num "$tmp/https.json" completed)"
[ "$(list "$tmp/http.json" output_lens)" = "$(list "$tmp/https.json" output_lens)" ] && ok || no "output_lens differ"
[ "$(grep -o '"sha256": "[0-9a-f]*"' "$tmp/http.json")" = "$(grep -o '"sha256": "[0-9a-f]*"' "$tmp/https.json")" ] &&
	ok || no "workload fingerprints differ"
# /metrics is scraped over TLS too (the simulator exports prefix-cache counters)
grep -q '"server_metrics": {' "$tmp/https.json" && ok || no "server_metrics over https"

# -- 2. keep-alive and several client threads over TLS, by IP (certificate IP SAN)
run ka "https://127.0.0.1:$port_tls" --ca-cert "$tmp/localhost.crt" --keep-alive --threads 2
[ $? = 0 ] && [ "$(json_num "$tmp/ka.json" completed)" = 24 ] && ok || no "keep-alive over TLS: $(tail -2 "$tmp/ka.err")"

# -- 3. verification: on by default, --insecure skips it, names must match
run selfsigned "https://localhost:$port_tls"
rc=$?
[ "$rc" = 1 ] && [ "$(json_num "$tmp/selfsigned.json" completed)" = 0 ] && ok || no "self-signed accepted: exit $rc"
grep -q "certificate verify failed: self-signed certificate" "$tmp/selfsigned.err" && ok ||
	no "the reason is shown without --save-detailed: $(cat "$tmp/selfsigned.err")"
run insecure "https://localhost:$port_tls" --insecure
[ $? = 0 ] && [ "$(json_num "$tmp/insecure.json" completed)" = 24 ] && ok || no "--insecure"
run mismatch "https://localhost:$port_wrong" --ca-cert "$tmp/other.example.crt"
rc=$?
[ "$rc" = 1 ] && grep -q "certificate verify failed: [Hh]ostname mismatch" "$tmp/mismatch.err" && ok ||
	no "name mismatch: exit $rc: $(grep -m1 -i 'verify\|error' "$tmp/mismatch.err")"
"$bin" bench --model m --tokenizer "$tokdir" --dataset-name random --base-url "http://127.0.0.1:1" --insecure \
	>/dev/null 2>"$tmp/u.err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/u.err")" = 1 ] && grep -q "see 'infbench bench --help'" "$tmp/u.err" && ok ||
	no "--insecure on http: exit $rc, $(cat "$tmp/u.err")"

# -- 4. the first distinct reasons when requests fail, without --save-detailed
run refused "http://127.0.0.1:1"
[ $? = 1 ] && grep -q "Errors of the 24 failed requests" "$tmp/refused.err" &&
	grep -qi "^ *24  .*connection refused" "$tmp/refused.err" && ok || no "refused: $(cat "$tmp/refused.err")"
timeout 300 "$bin" bench --model no-such-model --tokenizer "$tokdir" --base-url "http://127.0.0.1:$port_plain" \
	--dataset-name random --random-input-len 32 --random-output-len 8 --num-prompts 6 >/dev/null 2>"$tmp/404.err"
[ $? = 1 ] && grep -q "^ *6  HTTP 404 Not Found: .*no-such-model" "$tmp/404.err" && ok ||
	no "unknown model: $(cat "$tmp/404.err")"

# -- 5. the result file is never written over something that is not a regular file
echo keep >"$tmp/target"
ln -s "$tmp/target" "$tmp/link.json"
mkfifo "$tmp/fifo.json"
for f in link.json fifo.json; do
	timeout 300 "$bin" bench --model llama3-8b --tokenizer "$tokdir" --base-url "http://127.0.0.1:$port_plain" \
		--dataset-name random --random-input-len 32 --random-output-len 8 --num-prompts 4 --save-result \
		--result-dir "$tmp" --result-filename "$f" >/dev/null 2>"$tmp/nr.err"
	rc=$?
	[ "$rc" = 1 ] && grep -q "not a regular file" "$tmp/nr.err" && ok || no "$f: exit $rc, $(cat "$tmp/nr.err")"
done
[ "$(cat "$tmp/target")" = keep ] && [ -L "$tmp/link.json" ] && [ -p "$tmp/fifo.json" ] && ok ||
	no "a non-regular result path was replaced"
"$bin" bench --model m --tokenizer "$tokdir" --dataset-name random --request-timeout 0 >/dev/null 2>"$tmp/t.err"
[ $? = 2 ] && grep -q "request-timeout" "$tmp/t.err" && ok || no "--request-timeout 0 accepted"

# -- 6. the eval client over https: the same scores as over http
"$bin" eval make-dataset --output "$tmp/ds" --train 50 --test 40 --seed 7 >/dev/null 2>&1 || no "make-dataset"
start_sim evplain --eval-dataset "$tmp/ds" --eval-accuracy 0.6
start_sim evtls --eval-dataset "$tmp/ds" --eval-accuracy 0.6 --tls-cert "$tmp/localhost.crt" --tls-key "$tmp/localhost.key"
# shellcheck disable=SC2154
for v in "plain http://127.0.0.1:$port_evplain" "tls https://localhost:$port_evtls --ca-cert $tmp/localhost.crt"; do
	# shellcheck disable=SC2086
	set -- $v
	name=$1
	shift
	url=$1
	shift
	timeout 300 "$bin" eval run --base-url "$url" "$@" --model llama3-8b --dataset "$tmp/ds" --limit 20 \
		--num-concurrent 4 --output-path "$tmp/ev_$name" --no-meta-env >/dev/null 2>"$tmp/ev_$name.err" ||
		no "eval over $name: $(tail -2 "$tmp/ev_$name.err")"
done
sc() { sed -n 's/.*"exact_match,\([a-z-]*\)": \([0-9.e-]*\).*/\1 \2/p' "$tmp"/ev_"$1"/results_*.json 2>/dev/null | sort; }
[ -n "$(sc plain)" ] && [ "$(sc plain)" = "$(sc tls)" ] && ok || no "eval scores differ: $(sc plain | tr '\n' ' ') vs $(sc tls | tr '\n' ' ')"

# -- the AgentX replay over https: every request answered, as over http,
#    the server metrics scraped over TLS too; verification as bench's (a
#    self-signed certificate fails every request, --insecure skips it)
"$bin" agentx make-traces --traces 4 --turns 3:4 --first-in 512:1024 --context 1024:2048 --out 8:24 \
	--think 0:1 --system-tokens 128 --tool-tokens 128 --long-tail 0 --subagent-rate 0 \
	--background-rate 0 -o "$tmp/ax.jsonl" >/dev/null 2>&1 || no "make-traces"
axr() { # NAME URL ARGS...
	local name=$1 url=$2
	shift 2
	timeout 300 "$bin" agentx replay --corpus "$tmp/ax.jsonl" --base-url "$url" --model llama3-8b \
		--tokenizer "$tokdir" --concurrency 2 --benchmark-duration 20 --warmup-requests-per-lane 1 \
		--output-dir "$tmp/ax_$name" "$@" >/dev/null 2>"$tmp/ax_$name.err"
}
axr http "http://127.0.0.1:$port_plain" && axr https "https://localhost:$port_tls" --ca-cert "$tmp/localhost.crt" &&
	ok || no "agentx replay over https: $(tail -2 "$tmp/ax_https.err")"
for n in http https; do
	python3 - "$tmp/ax_$n/aiperf_artifacts" <<'PY' && ok || no "agentx replay over $n: records or server metrics"
import json, sys, os
d = sys.argv[1]
rs = [json.loads(l) for l in open(os.path.join(d, "profile_export.jsonl"))]
assert rs and all(r["error"] is None for r in rs), [r["error"] for r in rs if r["error"]][:2]
m = json.load(open(os.path.join(d, "server_metrics_export.json")))["metrics"]
assert m["vllm:prefix_cache_queries"]["series"][0]["endpoint_url"].endswith("/metrics"), m
PY
done
# (failed requests are records: the replay runs, each request a ConnectionError)
axr selfsigned "https://localhost:$port_tls"
grep -q '"type":"ConnectionError","message":"TLS: certificate verify failed: self-signed certificate' \
	"$tmp/ax_selfsigned/aiperf_artifacts/profile_export.jsonl" &&
	! grep -q '"error":null' "$tmp/ax_selfsigned/aiperf_artifacts/profile_export.jsonl" && ok ||
	no "agentx replay trusted a self-signed certificate: $(tail -2 "$tmp/ax_selfsigned.err")"
axr insecure "https://localhost:$port_tls" --insecure && ok || no "agentx replay --insecure: $(tail -2 "$tmp/ax_insecure.err")"

echo "tls: $pass passed, $fail failed"
[ "$fail" = 0 ]
