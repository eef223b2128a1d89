#!/usr/bin/env bash
# The fuzz suite (docs/fuzzing.md): builds the libFuzzer targets of
# tests/fuzz/ with clang (`make fuzz`), replays every seed corpus
# (tests/fuzz/corpus/<target>/, which holds every input a finding came from),
# then runs each target for a few seconds from a copy of its corpus.
# Each replay and each run is one test; a crash, a failed check, a timeout
# or going over the memory limit fails it.
# Usage: fuzz.sh INFBENCH (the binary is not used: the targets link the
# library). Environment: FUZZ_SECONDS (per target run, default 3),
# FUZZ_TARGETS (space-separated names, default all), FUZZ_BUILD (the build
# folder, default build), FUZZ_KEEP=DIR to keep the grown corpora and logs.
# Ends with "fuzz: N passed, N failed"; prints "skipped" without clang.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${FUZZ_BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
secs=${FUZZ_SECONDS:-3}
pass=0
fail=0

if ! command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1; then
	echo "fuzz: skipped: ${FUZZ_CC:-clang} is not installed (apt-get install clang)"
	echo "fuzz: 0 passed, 0 failed"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! make -C "$root" --no-print-directory -j2 BUILD="$build" fuzz >"$tmp/build.log" 2>&1; then
	tail -n 30 "$tmp/build.log"
	echo "FAIL: make fuzz"
	echo "fuzz: 0 passed, 1 failed"
	exit 1
fi

export LSAN_OPTIONS="suppressions=$root/tests/fuzz/lsan.supp:${LSAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:${UBSAN_OPTIONS:-}"
# limits of every run: a timeout per input, memory, and no 100 MiB inputs
opts=(-timeout=20 -rss_limit_mb=2560 -malloc_limit_mb=2560 -max_len=65536)

ok() { pass=$((pass + 1)); }
no() {
	echo "FAIL: $1"
	tail -n 25 "$2" | sed 's/^/    /'
	fail=$((fail + 1))
}

if [ -n "${FUZZ_TARGETS:-}" ]; then
	read -r -a targets <<<"$FUZZ_TARGETS"
else
	targets=()
	for f in "$root"/tests/fuzz/fuzz_*.c; do
		t=$(basename "$f" .c)
		targets+=("${t#fuzz_}")
	done
fi

for t in "${targets[@]}"; do
	bin=$build/fuzz/fuzz_$t
	corpus=$root/tests/fuzz/corpus/$t
	log=$tmp/$t
	mkdir -p "$tmp/corpus/$t" "$tmp/art/$t"
	# 1. replay: every seed and every past finding, once
	if [ -d "$corpus" ] && [ -n "$(ls -A "$corpus")" ]; then
		if "$bin" "${opts[@]}" -artifact_prefix="$tmp/art/$t/" "$corpus"/* >"$log.replay" 2>&1; then
			ok
		else
			no "$t: replaying tests/fuzz/corpus/$t" "$log.replay"
		fi
		cp "$corpus"/* "$tmp/corpus/$t/"
	else
		no "$t: no seed corpus in tests/fuzz/corpus/$t" /dev/null
	fi
	# 2. a short run from the corpus (new inputs go to the temporary copy)
	if "$bin" "${opts[@]}" -max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="$tmp/art/$t/" "$tmp/corpus/$t" >"$log.run" 2>&1; then
		ok
		stats=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log.run" | tail -n 1)
		echo "$t: $(sed -E 's/.*(cov: [0-9]+).*(exec\/s: [0-9]+).*/\1 \2/' <<<"$stats")"
	else
		no "$t: ${secs}s run found a problem (input kept in the log)" "$log.run"
		for a in "$tmp/art/$t"/*; do
			[ -e "$a" ] && echo "    input: $(od -An -c "$a" | head -c 400)"
		done
	fi
done

if [ -n "${FUZZ_KEEP:-}" ]; then
	mkdir -p "$FUZZ_KEEP" && cp -r "$tmp"/. "$FUZZ_KEEP"/
fi
echo "fuzz: $pass passed, $fail failed"
[ "$fail" = 0 ]
