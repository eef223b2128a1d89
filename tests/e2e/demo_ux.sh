#!/usr/bin/env bash
# End-to-end checks of the main job's ergonomics (issue 31, item 7): `make
# demo` installs only the demo's packages (not the tests' PostgreSQL, Slurm,
# Chromium, Valgrind) and builds in parallel (checked with `make -n`: nothing
# is installed or built); `run --dry-run` lists the rows it would run on
# stdout and starts nothing; `changelog process`'s output (a golden output of
# the reference) is accepted by `run`.
# Usage: tests/e2e/demo_ux.sh INFBENCH    Ends with "demo-ux: N passed, N failed".
. "$(dirname "$0")/lib.sh" demo-ux "$1"
e2e_tmp
cd "$root" || exit 1
make -n demo BUILD="$tmp/b" >"$tmp/demo.n" 2>&1
deps=$(sed -n '/^missing=/,/^fi$/p' "$tmp/demo.n")
check '[ -n "$deps" ] && ! printf "%s" "$deps" | grep -Eq "postgresql|slurm|munge|chromium|valgrind|criterion|clang"' \
	"make demo's package list holds none of the tests' packages: $(printf '%s' "$deps" | head -1)"
check 'printf "%s" "$deps" | grep -q "libfyaml-dev" && printf "%s" "$deps" | grep -q "dpkg -s"' \
	"it names the build's packages and installs only the missing ones"
check 'grep -q -- "-j\$(nproc) all" "$tmp/demo.n"' "the release build runs in parallel (-j\$(nproc))"
make -n deps >"$tmp/deps.n" 2>&1
check 'grep -q postgresql "$tmp/deps.n" && grep -q chromium "$tmp/deps.n"' "make deps keeps the test packages"

# run --dry-run lists the rows
"$bin" matrix test-config --config-files configs/amd-master.yaml configs/nvidia-master.yaml configs/minimaxm3-mtp-master.yaml \
	--runner-config configs/runners.yaml --config-keys minimaxm3-fp4-mi355x-vllm-mtp --output "$tmp/seed.json" >/dev/null
"$bin" run "$tmp/seed.json" --results "$tmp/store" --dry-run >"$tmp/dry.out" 2>"$tmp/dry.err"
rc=$?
n=$(grep -cE '^[0-9]+	[0-9a-f]{16}	minimaxm3' "$tmp/dry.out")
check '[ $rc = 0 ] && [ "$n" = 53 ] && [ -z "$(ls -A "$tmp/store/rows" 2>/dev/null)" ]' \
	"run --dry-run lists the 53 rows (index, identity, name) and runs none (rc $rc, $n lines)"
check '[ "$(head -1 "$tmp/dry.out" | cut -f1)" = 0 ] && [ "$(tail -1 "$tmp/dry.out" | cut -f1)" = 52 ]' "in order"

# on a terminal, a running row shows the tokens its simulator has generated
if command -v script >/dev/null 2>&1 && [ -f "$tok/tokenizer.json" ]; then
	script -qec "'$bin' run '$tmp/seed.json' --rows 2 --results '$tmp/tty' --tokenizer '$tok' --time-scale 20 --prompts-per-conc 2" \
		/dev/null >"$tmp/tty.out" 2>&1
	check 'tr "\r" "\n" <"$tmp/tty.out" | grep -aEq "running minimaxm3.*: [0-9]+ of ~14746 tokens \([0-9]+%\)"' \
		"a running row's progress line counts its tokens: $(tr '\r' '\n' <"$tmp/tty.out" | tail -n 3)"
	check '"$bin" run "$tmp/seed.json" --rows 2 --results "$tmp/tty" --status 2>&1 | grep -q "1 done"' \
		"and the row is done"
else
	echo "skipped: the progress-line check needs script(1) and the tokenizer fixture"
fi

# changelog process's output as run's matrix
cl=tests/golden/matrix/changelog/P02-trim-conc.out.json
"$bin" run "$cl" --results "$tmp/cl" --dry-run >"$tmp/cl.out" 2>"$tmp/cl.err"
rc=$?
check '[ $rc = 0 ] && [ "$(wc -l <"$tmp/cl.out")" = 3 ]' \
	"run takes changelog process's output: 1 benchmark row + 2 eval rows (rc $rc): $(head -2 "$tmp/cl.err")"
echo '{"single_node": {}}' >"$tmp/odd.json"
"$bin" run "$tmp/odd.json" --results "$tmp/odd" --dry-run >/dev/null 2>"$tmp/odd.err"
rc=$?
check '[ $rc = 1 ] && grep -q "changelog process" "$tmp/odd.err"' "another object is refused, saying what is accepted"
e2e_end
