# The preamble the end-to-end suites share: sourced, never run (tests/run.sh
# passes over it). `. "$(dirname "$0")/lib.sh" NAME INFBENCH` sets
#   bin    INFBENCH as an absolute path
#   root   the checkout
#   tok    the llama3 tokenizer fixture (make fixtures)
#   suite  NAME, as the summary line spells it
#   pass, fail  the counters, with ok and no MESSAGE (prints "FAIL: MESSAGE")
#   check COND MESSAGE  ok when `eval COND` succeeds, else no MESSAGE (a suite
#                       may define its own check instead)
# and offers
#   e2e_tmp [TEMPLATE]  tmp: a new temporary folder, removed at exit with the
#                       simulator in $simpid stopped (a suite that has more to
#                       clean sets its own EXIT trap instead); the tokenizer
#                       cache goes to $tmp/tok-cache unless INFBENCH_TOK_CACHE
#                       is set (tests/run.sh sets it)
#   e2e_need_tok fail|skip  without the tokenizer fixture the suite ends: failed
#                       (0 passed, 1 failed) or skipped (0 passed, 0 failed)
#   e2e_skip WHY        ends the suite as skipped
#   e2e_end             prints "NAME: N passed, N failed"; status 0 when none failed
#   e2e_cdp_checks HTML CHECKS SHOT_PREFIX  opens HTML in headless Chromium
#                       (tests/e2e/report_cdp.js --checks CHECKS) and adds its
#                       counts to pass/fail; one "skipped" line without Chromium
#   e2e_start_sim ARGS...  stops the simulator in $simpid, if any, and starts
#                       `infbench sim` (served model $sim_model, default
#                       llama3-8b; 300 s) with ARGS on a free
#                       port: sets $simpid and $port (empty when it did not
#                       come up within 20 s); its stderr goes to $tmp/sim.err
# shellcheck shell=bash
set -u
suite=$1
bin=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tok=$root/fixtures/tokenizers/llama3
pass=0
fail=0
simpid=
ok() { pass=$((pass + 1)); }
no() {
	echo "FAIL: $*"
	fail=$((fail + 1))
}
check() { if eval "$1"; then ok; else no "$2"; fi; }
e2e_cleanup() {
	[ -n "$simpid" ] && kill "$simpid" 2>/dev/null && wait "$simpid" 2>/dev/null
	rm -rf "$tmp"
}
e2e_tmp() {
	tmp=$(mktemp -d ${1:+"$1"})
	trap e2e_cleanup EXIT
	# a suite run on its own keeps its tokenizer cache out of ~/.cache too
	[ -n "${INFBENCH_TOK_CACHE:-}" ] || export INFBENCH_TOK_CACHE=$tmp/tok-cache
}
e2e_skip() {
	echo "$suite: skipped ($*)"
	echo "$suite: 0 passed, 0 failed"
	exit 0
}
e2e_need_tok() {
	[ -f "$tok/tokenizer.json" ] && return 0
	[ "$1" = skip ] && e2e_skip "no tokenizer fixture in $tok; 'make fixtures' fetches it"
	echo "fixtures missing: $tok (run make fixtures)"
	echo "$suite: 0 passed, 1 failed"
	exit 1
}
e2e_end() {
	echo "$suite: $pass passed, $fail failed"
	[ "$fail" = 0 ]
}
e2e_start_sim() {
	[ -n "$simpid" ] && kill "$simpid" 2>/dev/null && wait "$simpid" 2>/dev/null
	rm -f "$tmp/port"
	"$bin" sim --port 0 --port-file "$tmp/port" --duration 300 --served-model-name "${sim_model:-llama3-8b}" "$@" \
		2>"$tmp/sim.err" &
	simpid=$!
	for _ in $(seq 1 400); do [ -s "$tmp/port" ] && break; sleep 0.05; done
	port=$(cat "$tmp/port" 2>/dev/null)
}
e2e_cdp_checks() {
	local chrome out rc p
	chrome=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
	if [ -z "$chrome" ] || ! command -v node >/dev/null; then
		echo "$suite: chromium skipped (no chromium or node)"
		return
	fi
	out=$(node "$root/tests/e2e/report_cdp.js" "$chrome" "$1" - "$3" --checks "$2" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -v '^ok: '
	if [ $rc = 3 ]; then
		echo "$suite: chromium skipped (cannot start)"
		return
	fi
	p=$(printf '%s\n' "$out" | sed -n 's/^cdp: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
	[ -n "$p" ] || { no "the browser check ended without a summary"; return; }
	pass=$((pass + ${p% *}))
	fail=$((fail + ${p#* }))
}
