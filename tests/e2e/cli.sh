#!/usr/bin/env bash
# End-to-end tests of the infbench binary's command line: help, usage errors,
# validation reports, atomic output. Usage: cli.sh INFBENCH
# Ends with "cli: N passed, N failed".
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
cfg=$root/configs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
no() {
	echo "FAIL: $1"
	fail=$((fail + 1))
}
# run CMD...: sets rc, out (stdout file), err (stderr file)
run() {
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
expect_rc() { # expect_rc WANT NAME
	if [ "$rc" = "$1" ]; then ok; else no "$2: exit $rc, expected $1; stderr: $(head -c 300 "$tmp/err")"; fi
}
expect_grep() { # expect_grep FILE REGEX NAME
	if grep -qE -- "$2" "$1"; then ok; else no "$3: no /$2/ in $(basename "$1"): $(head -c 300 "$1")"; fi
}

# -- help on every command, exit 0, on stdout
for c in "--help" "matrix --help" "matrix full-sweep --help" "matrix test-config --help" \
	"validate --help" "eval --help" "eval validate --help" "eval collect --help"; do
	# shellcheck disable=SC2086
	run "$bin" $c
	expect_rc 0 "infbench $c"
	expect_grep "$tmp/out" '^usage: infbench' "infbench $c"
done

# -- usage errors: exit 2 with an error: line
run "$bin"
expect_rc 2 "no command"
run "$bin" frobnicate
expect_rc 2 "unknown command"
expect_grep "$tmp/err" "error: unknown command 'frobnicate'" "unknown command"
run "$bin" matrix full-sweep --config-files "$cfg/amd-master.yaml" --max 4
expect_rc 2 "ambiguous prefix"
expect_grep "$tmp/err" 'error: ambiguous option: --max could match --max-conc, --max-tp, --max-ep' "ambiguous prefix"
run "$bin" matrix full-sweep --config-files "$cfg/amd-master.yaml" --step-size
expect_rc 2 "missing value"
expect_grep "$tmp/err" 'argument --step-size: expected one argument' "missing value"
run "$bin" matrix test-config --config-files "$cfg/amd-master.yaml" --config-keys x --conc 4 nope
expect_rc 2 "bad int in list"
expect_grep "$tmp/err" "argument --conc: invalid int value: 'nope'" "bad int in list"
run "$bin" validate
expect_rc 2 "validate without files"
expect_grep "$tmp/err" 'required: --config-files' "validate without files"

# -- abbreviations, --opt=value, repeated options replace earlier values
run "$bin" matrix test-config --config-f "$cfg/minimaxm3-mtp-master.yaml" \
	--runner-config="$cfg/runners.yaml" --config-k minimaxm3-fp4-mi355x-vllm-mtp --conc 8 --conc 16 --no-evals
expect_rc 0 "abbreviated options"
n=$(grep -o '"conc": 16' "$tmp/out" | wc -l)
m=$(grep -o '"conc": 8,' "$tmp/out" | wc -l)
if [ "$n" -gt 0 ] && [ "$m" = 0 ]; then ok; else no "repeated --conc should keep only 16 (got $n x16, $m x8)"; fi

# -- the seed key: 53 rows, 5 marked for evals
run "$bin" matrix test-config --config-files "$cfg/minimaxm3-mtp-master.yaml" \
	--runner-config "$cfg/runners.yaml" --config-keys minimaxm3-fp4-mi355x-vllm-mtp
expect_rc 0 "seed key"
rows=$(grep -o '"exp-name"' "$tmp/out" | wc -l)
evals=$(grep -o '"run-eval": true' "$tmp/out" | wc -l)
if [ "$rows" = 53 ] && [ "$evals" = 5 ]; then ok; else no "seed key: $rows rows, $evals evals (want 53, 5)"; fi

# -- --output writes the same bytes atomically; a failure leaves the old file alone
cp "$tmp/out" "$tmp/stdout.json"
run "$bin" matrix test-config --config-files "$cfg/minimaxm3-mtp-master.yaml" \
	--runner-config "$cfg/runners.yaml" --config-keys 'minimaxm3-*' --output "$tmp/m.json"
expect_rc 0 "--output"
if cmp -s "$tmp/m.json" "$tmp/stdout.json" && [ ! -s "$tmp/out" ]; then ok; else no "--output content differs or stdout not empty"; fi
if [ -z "$(ls "$tmp" | grep 'm.json.tmp')" ]; then ok; else no "--output left a temporary file"; fi
echo 'previous' >"$tmp/keep.json"
printf 'bad: [\n' >"$tmp/broken.yaml"
run "$bin" matrix full-sweep --config-files "$tmp/broken.yaml" --runner-config "$cfg/runners.yaml" --output "$tmp/keep.json"
expect_rc 1 "malformed YAML"
if [ "$(cat "$tmp/keep.json")" = previous ]; then ok; else no "a failed run replaced the --output file"; fi
expect_grep "$tmp/err" "broken.yaml:[0-9]+:[0-9]+: YAML syntax error" "malformed YAML position"
if [ ! -s "$tmp/out" ]; then ok; else no "malformed YAML: stdout not empty"; fi

# -- a directory and a missing file are clear errors
run "$bin" validate --config-files "$tmp" --no-runner-config
expect_rc 1 "directory as config"
expect_grep "$tmp/err" "is a directory" "directory as config"
run "$bin" validate --config-files "$tmp/nope.yaml" --no-runner-config
expect_rc 1 "missing config"
expect_grep "$tmp/err" "nope.yaml: input file does not exist" "missing config"

# -- validate reports every problem: three in one entry, one in another file
cp "$root/docs/examples/three-problems.yaml" "$tmp/three.yaml"
cat >"$tmp/other.yaml" <<'YAML'
other-entry:
  image: img:1
  model: org/model
  model-prefix: demo
  precision: fp8
  framework: vllm
  runner: mi355x
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - { tp: 8, conc_start: 1, conc-end: 8 }
YAML
run "$bin" validate --config-files "$tmp/three.yaml" --runner-config "$cfg/runners.yaml"
expect_rc 1 "three problems"
n=$(grep -cE "three.yaml:[0-9]+:[0-9]+: entry 'demo-bad-key': field 'scenarios.fixed-seq-len\[0\].search-space\[[0-2]\]" "$tmp/err")
if [ "$n" = 3 ]; then ok; else no "three problems: $n reported: $(cat "$tmp/err")"; fi
expect_grep "$tmp/err" "three.yaml:16:.*search-space\[0\].tp': 'tp' \(6\) must be divisible by 'dcp-size' \(4\)" "problem 1"
expect_grep "$tmp/err" "three.yaml:17:.*search-space\[1\].conc-start': 'conc-start' \(64\) must be <= 'conc-end' \(8\)" "problem 2"
expect_grep "$tmp/err" "three.yaml:18:.*search-space\[2\].pp': should be greater than 0 \(got 0\)" "problem 3"
expect_grep "$tmp/err" "3 problems found" "problem count"
run "$bin" validate --config-files "$tmp/three.yaml" "$tmp/other.yaml" --runner-config "$cfg/runners.yaml"
expect_rc 1 "problems in two files"
expect_grep "$tmp/err" "other.yaml:14:[0-9]+: entry 'other-entry': field '.*conc_start': unknown field; write it with hyphens: 'conc-start'" "underscore alias hint"
expect_grep "$tmp/err" "4 problems found" "problems in two files"

# -- a valid set validates, and the runners file is checked too
run "$bin" validate --config-files "$cfg/amd-master.yaml" "$cfg/nvidia-master.yaml" --runner-config "$cfg/runners.yaml"
expect_rc 0 "shipped configs"
expect_grep "$tmp/out" '^ok: 208 config entries in 2 files; runner config .*: 37 labels' "shipped configs"
printf 'labels:\n  mi300x: []\n  h100: h100-node\nhardware:\n  x: {gpus-per-node: 8}\nextra: 1\n' >"$tmp/runners.yaml"
run "$bin" validate --config-files "$cfg/amd-master.yaml" --runner-config "$tmp/runners.yaml"
expect_rc 1 "bad runners file"
n=$(grep -c "runners.yaml:" "$tmp/err")
if [ "$n" = 4 ]; then ok; else no "bad runners file: $n problems reported, want 4: $(cat "$tmp/err")"; fi

# -- duplicate keys across files name both files
run "$bin" validate --config-files "$cfg/amd-master.yaml" "$cfg/amd-master.yaml" --no-runner-config
expect_rc 1 "duplicate keys"
expect_grep "$tmp/err" "amd-master.yaml:[0-9]+:[0-9]+: entry '[^']+': duplicate configuration key: already defined in '.*amd-master.yaml'" "duplicate keys"

echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
