#!/usr/bin/env bash
# End-to-end tests of `infbench review` over synthetic recipes and configs
# (tests/fixtures/review/, written for these tests) in temporary git
# repositories; with IX_REF (a checkout of the reference), also the seed
# recipe of the reference tree. Usage: review.sh INFBENCH
# Ends with "review: N passed, N failed".
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
fx=$(cd "$(dirname "$0")/../fixtures/review" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
no() {
	echo "FAIL: $1"
	fail=$((fail + 1))
}
run() { # run ARGS...: rc, $tmp/out, $tmp/err
	"$bin" review "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
expect_rc() { if [ "$rc" = "$1" ]; then ok; else no "$2: exit $rc, expected $1: $(head -c 300 "$tmp/err")"; fi; }
# status MARK RULE NAME: the checklist line of RULE starts with MARK
status() {
	if grep -q "^$1 $2:" "$tmp/out"; then ok; else no "$3: expected $1 $2; got: $(grep " $2:" "$tmp/out")"; fi
}
has() { if grep -qF -- "$1" "$tmp/out"; then ok; else no "$2: no '$1' in the output"; fi; }

R=$tmp/repo
D=benchmarks/single_node/fixed_seq_len
mkdir -p "$R/$D" "$R/configs"
cp "$fx/sister_a.sh" "$R/$D/toy_fp8_mi300x_mtp.sh"
cp "$fx/sister_b.sh" "$R/$D/toy_fp8_mi325x_mtp.sh"
cp "$fx/master.yaml" "$R/configs/amd-master.yaml"
cp "$fx/changelog.yaml" "$R/perf-changelog.yaml"
G() { git -C "$R" -c user.name=t -c user.email=t@t -c commit.gpgsign=false "$@" >/dev/null 2>&1; }
G init -q -b main
G add -A
G commit -qm base
NEW=$D/toy_fp4_mi300x_vllm_mtp.sh

# ---- files mode: every recipe rule fails on new_bad, passes on new_good
cp "$fx/new_bad.sh" "$R/$NEW"
run --repo "$R" "$NEW"
expect_rc 1 "bad recipe"
for r in mtp-chat-template sister-guard; do status 🔴 $r "bad recipe"; done
for r in ep-hardcoded launch-args-per-line sister-export sister-flag recipe-config-missing; do
	status 🟡 $r "bad recipe"
done
has "$NEW:5" "sister-guard names the unguarded line"
has "toy_fp8_mi300x_mtp.sh:4: if [[ \"\$MODEL\" != /* ]]; then" "sister-guard quotes the guard"
has "toy_fp8_mi325x_mtp.sh:6: hf download \"\$DRAFT_MODEL\"" "sister-guard quotes the guarded line"
has "inside the \`if [[ \"\$MODEL\" != /* ]]\` block at line 4" "sister-guard fix"
has "FOO_TIMEOUT" "sister-export names the variable"
has "--block-size" "sister-flag names the option"
run --repo "$R" --format json "$NEW"
has '"rule": "sister-guard"' "json finding"
has '"status": "blocking"' "json status"
run --repo "$R" --format github "$NEW"
has "::error file=$NEW,line=5,title=sister-guard::" "github annotation"
has "::warning file=$NEW," "github warning"
cp "$fx/new_good.sh" "$R/$NEW"
run --repo "$R" "$NEW"
expect_rc 0 "good recipe"
for r in mtp-chat-template sister-guard ep-hardcoded launch-args-per-line sister-export sister-flag; do
	status ✅ $r "good recipe"
done
rm "$R/$NEW"

# ---- change mode
commit() { G add -A; G commit -qm "$1"; }
branch() { G checkout -q -B "$1" main; }
entry() { # entry KEY PREFIX MODEL RUNNER PRECISION IMAGE
	printf '%s:\n  image: %s\n  model: %s\n  model-prefix: %s\n  runner: %s\n  precision: %s\n  framework: vllm\n  multinode: false\n  scenarios:\n    fixed-seq-len:\n    - isl: 1024\n      osl: 1024\n      search-space:\n      - { tp: 8, conc-start: 1, conc-end: 4, spec-decoding: mtp }\n' \
		"$1" "$6" "$3" "$2" "$4" "$5" >>"$R/configs/amd-master.yaml"
}
log_entry() { printf '\n- config-keys:\n    - %s\n  description:\n    - "x"\n  pr-link: https://example.invalid/2\n%s' "$1" "${2:-}" >>"$R/perf-changelog.yaml"; }

# a good change: recipe + key + changelog at the end
branch good
cp "$fx/new_good.sh" "$R/$NEW"
entry toy-fp4-mi300x-vllm toy org/Toy mi300x fp4 vllm/vllm-openai-rocm:v1
log_entry toy-fp4-mi300x-vllm
commit good
run --repo "$R" --base main --head good
expect_rc 0 "good change"
for r in changelog-missing changelog-append-end config-key-name model-prefix model-prefix-new \
	config-recipe-missing recipe-config-missing image-public image-match; do
	status ✅ $r "good change"
done
run --repo "$R" --base main --head good --format json
has '"mode": "change"' "json change mode"

# configs changed, changelog not; a new recipe without a key
branch nolog
entry toy-fp8-mi355x-vllm toy org/Toy mi355x fp8 vllm/vllm-openai-rocm:v2
entry toy-fp8-mi300x-vllm-v2 toy org/Toy mi300x fp8 vllm/vllm-openai-rocm:v2
cp "$fx/new_good.sh" "$R/$D/toyx_fp8_mi355x_mtp.sh"
commit nolog
run --repo "$R" --base main --head nolog
expect_rc 1 "no changelog"
status 🔴 changelog-missing "no changelog"
status 🟡 recipe-config-missing "recipe without key"
status 🔴 config-recipe-missing "key without recipe"
status 🟡 image-match "image differs from on-main"
has "toy-fp8-mi300x-vllm: image: vllm/vllm-openai-rocm:v1" "image-match quotes the on-main image"

# a changelog entry inserted at the top
branch top
{ printf -- '- config-keys:\n    - toy-fp8-mi300x-vllm\n  description:\n    - "new"\n  pr-link: https://example.invalid/3\n\n'; cat "$fx/changelog.yaml"; } >"$R/perf-changelog.yaml"
commit top
run --repo "$R" --base main --head top
expect_rc 1 "changelog at top"
status 🔴 changelog-append-end "changelog at top"

# bad keys: name, model prefix, local image, new prefix
branch keys
cp "$fx/new_good.sh" "$R/$NEW"
entry toyx-fp4-mi300x-vllm toy org/Toy mi300x fp4 vllm/vllm-openai-rocm:v1
entry toy2-fp8-mi300x-vllm toy2 org/Toy mi300x fp8 /scratch/toy.sqsh
entry newm-fp8-mi300x-vllm newm org/New mi300x fp8 vllm/vllm-openai-rocm:v1
log_entry toyx-fp4-mi300x-vllm
commit keys
run --repo "$R" --base main --head keys
expect_rc 1 "bad keys"
for r in config-key-name model-prefix image-public config-recipe-missing; do status 🔴 $r "bad keys"; done
status 🟡 model-prefix-new "new model prefix"

# append-only entries
branch ao
cp "$fx/new_good.sh" "$R/$NEW"
log_entry toy-fp8-mi300x-vllm "  append-only: true
"
commit ao
run --repo "$R" --base main --head ao
status ✅ append-only-mixed "append-only alone"
status 🟡 append-only-review "append-only with a recipe change"
branch aomix
log_entry toy-fp8-mi300x-vllm "  append-only: true
"
log_entry toy-fp8-mi325x-vllm
commit aomix
run --repo "$R" --base main --head aomix
expect_rc 1 "append-only mixed"
status 🔴 append-only-mixed "append-only mixed"
branch aoonly
log_entry toy-fp8-mi300x-vllm "  append-only: true
"
commit aoonly
run --repo "$R" --base main --head aoonly
status ✅ append-only-review "append-only, nothing else changed"

# ---- errors and help
run --help
expect_rc 0 "--help"
has "usage: infbench review" "--help text"
run
expect_rc 2 "no arguments"
run --repo "$R" --format xml "$D/toy_fp8_mi300x_mtp.sh"
expect_rc 2 "bad format"
run --repo "$tmp/nope" --base main
expect_rc 2 "missing repository"
if grep -q "^infbench review: error: .*does not exist" "$tmp/err"; then ok; else no "missing repository message"; fi
run --repo "$R" --base no-such-ref
expect_rc 2 "bad ref"
if grep -q "^infbench review: error: unknown git ref 'no-such-ref'" "$tmp/err"; then ok; else no "bad ref message: $(cat "$tmp/err")"; fi
mkdir -p "$tmp/plain"
run --repo "$tmp/plain" --base main
expect_rc 2 "not a git repository"
run --repo "$R" no/such/file.sh
expect_rc 2 "missing file"

# ---- the reference tree (IX_REF): the seed recipe and its sisters
if [ -z "${IX_REF:-}" ]; then
	echo "review: reference-tree test skipped (IX_REF not set)"
else
	SEED=benchmarks/single_node/fixed_seq_len/deprecated/minimaxm3_fp4_mi355x_vllm_mtp.sh
	ref=$IX_REF
	if [ ! -f "$ref/$SEED" ]; then # a bare mirror: extract its HEAD
		mkdir -p "$tmp/ref"
		git --git-dir="$IX_REF" archive HEAD benchmarks configs | tar x -C "$tmp/ref"
		ref=$tmp/ref
	fi
	run --repo "$ref" "$SEED"
	status 🔴 sister-guard "seed recipe"
	has "$SEED:30" "seed: the unconditional draft download"
	for s in mi300x mi325x mi355x; do
		has "minimaxm3_fp8_${s}_mtp.sh" "seed: quotes the $s sister"
	done
	has 'hf download "$DRAFT_MODEL"' "seed: quotes the guarded download"
	# the same recipe with the download moved inside the guard
	mkdir -p "$tmp/ref2" && cp -r "$ref/benchmarks" "$tmp/ref2/"
	sed -i -e '30d' -e '29s|.*|if [[ "$MODEL" != /* ]]; then\n  hf download "$MODEL"\n  hf download "$DRAFT_MODEL"\nfi|' "$tmp/ref2/$SEED"
	run --repo "$tmp/ref2" "$SEED"
	status ✅ sister-guard "seed recipe, download inside the guard"
fi

echo "review: $pass passed, $fail failed"
[ "$fail" = 0 ]
