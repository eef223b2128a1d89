#!/usr/bin/env bash
# The AgentX replay client's own cost: `infbench agentx replay` against
# `infbench sim --max-speed` (no model: every request is answered at once and
# streamed as fast as the client reads, one token per SSE event), at 16, 64
# and 256 lanes on stand-in corpora (`infbench agentx make-traces`) whose
# traces grow to 32k and 100k tokens of context, no think time, the default
# subagents. The simulator is pinned to core 0 and the client to core 1,
# both under nice.
#
# Per point it prints the requests sent (warmup included), the client's
# CPU (user + system) from the moment the replay starts sending (after the
# tokenizer and the corpus are loaded) to its exit, that CPU per request;
# the same for the profiling phase alone (from the moment warmup drained:
# every lane's first trace and its block table are ready, so this is the
# steady state); the client's peak RSS (GNU time; the whole process), the
# simulator's CPU over the whole window, and the margin: the client's CPU
# share of its core over the window's wall time (the client is the
# bottleneck only near 100 %), i.e. how many times the load it could take
# before its core is full, and the client's CPU against the server's.
#
# Usage: bench/agentx.sh [INFBENCH]   (needs the llama3 tokenizer: make fixtures)
# Env: LANES ("16 64 256"), CONTEXTS ("32768 102400"), SECONDS_PER_POINT
# (profiling seconds per point, default 8), WARMUP (warmup requests per lane,
# default 1), TRACES (traces per corpus, default 300).
# A benchmark: it prints figures and exits 0 unless it cannot run at all.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
bin=${1:-$root/build/infbench}
tok=$root/fixtures/tokenizers/llama3
lanes_list=${LANES:-16 64 256}
ctx_list=${CONTEXTS:-32768 102400}
secs=${SECONDS_PER_POINT:-8}
warmup=${WARMUP:-1}
ntraces=${TRACES:-300}
[ -x "$bin" ] || { echo "no infbench binary at $bin (run make)"; exit 1; }
[ -f "$tok/tokenizer.json" ] || { echo "no tokenizer fixture at $tok (run make fixtures)"; exit 1; }
[ -x /usr/bin/time ] || { echo "GNU time (/usr/bin/time) is needed for the peak RSS"; exit 1; }
out=$(mktemp -d)
pin_sim=() pin_client=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	pin_sim=(taskset -c 0)
	pin_client=(taskset -c 1)
fi
nice -n 10 "${pin_sim[@]}" "$bin" sim --max-speed --port 0 --port-file "$out/port" --duration 3600 \
	--served-model-name m 2>"$out/sim.err" &
sim=$!
trap 'kill $sim 2>/dev/null; wait $sim 2>/dev/null; rm -rf "$out"' EXIT
for _ in $(seq 1 200); do [ -s "$out/port" ] && break; sleep 0.05; done
port=$(cat "$out/port" 2>/dev/null)
[ -n "$port" ] || { echo "the simulator did not start: $(cat "$out/sim.err")"; exit 1; }

ticks=$(getconf CLK_TCK)
cpu_s() { # user + system seconds of PID (0 when it is gone)
	awk -v t="$ticks" '{ sub(/^.*\) /, ""); printf "%.3f\n", ($12 + $13) / t }' "/proc/$1/stat" 2>/dev/null || echo 0
}
now() { echo "${EPOCHREALTIME:-$(date +%s.%N)}"; }

echo "infbench agentx replay against infbench sim --max-speed (sim: ${pin_sim[*]:-unpinned}, client: ${pin_client[*]:-unpinned}, nice 10)"
echo "${secs} s of profiling per point, $warmup warmup request(s) per lane, $ntraces traces per corpus, think time 0"
echo
printf '%-6s %-7s %8s %6s %8s %8s %9s %9s %8s %8s %8s %8s  %s\n' lanes context requests failed \
	"CPU s" "ms/req" "prof req" "prof ms" "RSS MB" "srv CPU" "busy" "srv busy" "margin"
for ctx in $ctx_list; do
	corpus=$out/traces-$ctx.jsonl
	if ! "$bin" agentx make-traces --traces "$ntraces" --turns 4:8 --first-in $((ctx / 2)):$((ctx * 3 / 4)) \
		--context "$ctx:$ctx" --long-tail 0 --max-context $((ctx + 4096)) --out 64:1024 --think 0:0 \
		-o "$corpus" 2>"$out/gen.err"; then
		echo "make-traces failed for context $ctx: $(cat "$out/gen.err")"
		continue
	fi
	for lanes in $lanes_list; do
		n=$ctx-$lanes
		log=$out/log.$n
		/usr/bin/time -f '%M %U %S' -o "$out/time.$n" nice -n 10 "${pin_client[@]}" "$bin" agentx replay \
			--corpus "$corpus" --base-url "http://127.0.0.1:$port" --model m --tokenizer "$tok" \
			--concurrency "$lanes" --benchmark-duration "$secs" --grace-period 2 \
			--warmup-requests-per-lane "$warmup" --output-dir "$out/r.$n" >/dev/null 2>"$log" &
		tp=$!
		# the window opens when the replay announces its lanes (loading done)
		c0='' s0='' t0='' cp='' cw=''
		while kill -0 "$tp" 2>/dev/null; do
			[ -n "$cp" ] || cp=$(pgrep -P "$tp" | head -n 1)
			if [ -n "$cp" ] && [ -z "$t0" ] && grep -q ' lanes, ' "$log" 2>/dev/null; then
				c0=$(cpu_s "$cp") s0=$(cpu_s "$sim") t0=$(now)
			fi
			# profiling starts when warmup has drained
			if [ -n "$t0" ] && grep -q 'warmup drained' "$log" 2>/dev/null; then
				cw=$(cpu_s "$cp")
				break
			fi
			sleep 0.02
		done
		wait "$tp"
		rc=$?
		t1=$(now) s1=$(cpu_s "$sim")
		sent=$(sed -n 's/.*: \([0-9]*\) requests sent: .*, \([0-9]*\) failed.*/\1/p' "$log")
		failed=$(sed -n 's/.*: \([0-9]*\) requests sent: .*, \([0-9]*\) failed.*/\2/p' "$log")
		wsent=$(sed -n 's/.*warmup drained after \([0-9]*\) requests.*/\1/p' "$log")
		if [ "$rc" != 0 ] || [ -z "$sent" ] || [ -z "$t0" ] || [ -z "$cw" ] || [ -z "$wsent" ]; then
			printf '%-6s %-8s  the replay failed (exit %s): %s\n' "$lanes" "$((ctx / 1024))k" "$rc" \
				"$(grep -v '^infbench agentx replay: ' "$log" | head -n 3 | tr '\n' ' ')"
			continue
		fi
		read -r rss user sys <"$out/time.$n"
		awk -v lanes="$lanes" -v ctx="$((ctx / 1024))k" -v sent="$sent" -v failed="$failed" \
			-v cpu="$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" -v c0="$c0" \
			-v rss="$rss" -v s0="$s0" -v s1="$s1" -v t0="$t0" -v t1="$t1" -v cw="$cw" -v ws="$wsent" 'BEGIN {
			w = cpu - c0; sv = s1 - s0; wall = t1 - t0; pr = sent - ws; pc = cpu - cw
			cb = wall > 0 ? 100 * w / wall : 0; sb = wall > 0 ? 100 * sv / wall : 0
			m = cb > 0 ? sprintf("x%.1f; client/server CPU %.2f", 100 / cb, sv > 0 ? w / sv : 0) : "n/a"
			printf "%-6s %-7s %8d %6d %8.2f %8.3f %9d %9.3f %8.1f %8.2f %7.1f%% %7.1f%%  %s\n",
				lanes, ctx, sent, failed, w, (sent ? 1000 * w / sent : 0), pr, (pr > 0 ? 1000 * pc / pr : 0),
				rss / 1024, sv, cb, sb, m }'
		rm -rf "$out/r.$n"
	done
	rm -f "$corpus"
done
echo
echo "CPU s, ms/req: the client from its first request to its exit (warmup, grace and writing the artifacts"
echo "included; loading the tokenizer and the corpus not); prof req, prof ms: the requests sent after warmup"
echo "drained and the client's CPU per request from then on; RSS: the client's peak; srv CPU, srv busy: the"
echo "simulator over the whole window; busy: the client's CPU over the window's wall time; margin: x(100 % / busy)"
echo "= how many times the load before the client's core is full, then its CPU against the server's."
