# bench/lib.sh — shared by the bench/*.sh scripts (source it; bash only).
#
# The reference's interpreter: `python3` on PATH may be a version-manager
# shim (pyenv's costs ~0.4 s of CPU per start), which a benchmark must not
# charge to the reference. bench_ref_python resolves the real interpreter once:
#   1. $REF_PYTHON, when set (used as given);
#   2. the interpreter `python3` on PATH runs (its sys.executable), so a pyenv
#      or similar shim is started once here and never inside a measurement;
#   3. /usr/bin/python3.
# The first that imports every module named wins. Sets REF_PY (absolute path)
# and REF_PY_NOTE ("/path (Python 3.x.y)"); on failure returns 1 with
# REF_PY empty and REF_PY_NOTE saying why.
#
# bench_time REPS BATCH CMD...: runs CMD (stdout and stderr discarded)
# REPS × BATCH times and sets BT_WALL_MS and BT_CPU_MS to the median over
# REPS of the per-run mean of a batch of BATCH runs (bash's `time`, which
# reads getrusage of the children: user + system CPU, ms resolution; batches
# give sub-ms figures for short commands). BT_RC is the exit status of the
# first failed run (0: none failed; a failed run still counts).
#
# bench_startup: prints the start-up costs, measured in the same run: infbench
# ($INFBENCH --help) and, when REF_PY is set, a do-nothing start of the
# reference's interpreter ($REF_PY -c pass), with their ratios.
#
# bench_ratio A B: prints A / B as "12.3x", or "n/a" when either is unknown.
#
# BENCH_FIXTURES: the fixture tokenizers, in the order the scripts print them.
# bench_fixture NAME: sets fx to fixtures/tokenizers/NAME below $root; when it
# has no tokenizer.json, prints "NAME  fixtures missing: ..." and returns 1.

bench_ref_python() {
	REF_PY='' REF_PY_NOTE=''
	local imports='import sys' m cand tried=''
	for m in "$@"; do imports="$imports; import $m"; done
	local cands=()
	[ -n "${REF_PYTHON:-}" ] && cands+=("$REF_PYTHON")
	if command -v python3 >/dev/null 2>&1; then
		cand=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
		[ -n "$cand" ] && cands+=("$cand")
	fi
	cands+=(/usr/bin/python3)
	for cand in "${cands[@]}"; do
		[ -x "$cand" ] || { tried="$tried $cand (missing)"; continue; }
		if "$cand" -c "$imports" >/dev/null 2>&1; then
			REF_PY=$cand
			REF_PY_NOTE="$cand (Python $("$cand" -c 'import platform; print(platform.python_version())'))"
			return 0
		fi
		tried="$tried $cand"
	done
	REF_PY_NOTE="no python3 that imports ${*:-sys} (tried:$tried; set REF_PYTHON)"
	return 1
}

bench_time() {
	local reps=$1 batch=$2 r b t rc
	shift 2
	local TIMEFORMAT='%3R %3U %3S' walls=() cpus=()
	BT_RC=0
	for ((r = 0; r < reps; r++)); do
		t=$({ time for ((b = 0; b < batch; b++)); do
			"$@" >/dev/null 2>&1 || echo "rc $?" >&3
		done; } 3>&1 2>&1)
		rc=$(printf '%s\n' "$t" | awk '$1 == "rc" { print $2; exit }')
		[ -n "$rc" ] && [ "$BT_RC" = 0 ] && BT_RC=$rc
		t=$(printf '%s\n' "$t" | awk '$1 != "rc"' | tail -n 1)
		walls+=("$(awk -v t="$t" -v n="$batch" 'BEGIN { split(t, a, " "); printf "%.4f", a[1] * 1000 / n }')")
		cpus+=("$(awk -v t="$t" -v n="$batch" 'BEGIN { split(t, a, " "); printf "%.4f", (a[2] + a[3]) * 1000 / n }')")
	done
	BT_WALL_MS=$(printf '%s\n' "${walls[@]}" | bench_median)
	BT_CPU_MS=$(printf '%s\n' "${cpus[@]}" | bench_median)
}

# median of numbers on stdin (mean of the two middle ones when even)
bench_median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit 1;
		if (NR % 2) printf "%.4f\n", v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

bench_ratio() {
	awk -v a="${1:-}" -v b="${2:-}" 'BEGIN { if (a == "" || b == "" || b + 0 <= 0) print "n/a";
		else printf "%.1fx\n", a / b }'
}

bench_startup() {
	local ib_w ib_c
	bench_time 5 20 "$INFBENCH" --help
	ib_w=$BT_WALL_MS ib_c=$BT_CPU_MS
	printf 'start-up (median of 5 batches of 20): infbench --help  wall %.2f ms  CPU %.2f ms\n' "$ib_w" "$ib_c"
	[ -n "${REF_PY:-}" ] || return 0
	bench_time 5 5 "$REF_PY" -c pass
	printf '                                      %s -c pass  wall %.2f ms  CPU %.2f ms  (CPU ratio %s, wall %s)\n' \
		"$REF_PY" "$BT_WALL_MS" "$BT_CPU_MS" "$(bench_ratio "$BT_CPU_MS" "$ib_c")" "$(bench_ratio "$BT_WALL_MS" "$ib_w")"
}

BENCH_FIXTURES="llama3 deepseek_v3 qwen3 gptoss mistral"

bench_fixture() {
	fx=$root/fixtures/tokenizers/$1
	[ -f "$fx/tokenizer.json" ] && return 0
	printf '%-12s fixtures missing: run make fixtures\n' "$1"
	return 1
}
