#!/usr/bin/env bash
# End-to-end tests of `infbench tokenize` and `infbench detokenize`: help,
# usage errors, load errors, the one-shot modes, JSON-lines answers (errors
# answered in place), --bench, and the release build under valgrind.
# Usage: tokenize.sh INFBENCH (the release build comes from $IB_RELEASE).
# Needs the fixtures (make fixtures). Ends with "tokenize: N passed, N failed".
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
rel=${IB_RELEASE:-$root/build/infbench}
fx=$root/fixtures/tokenizers
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
no() {
	echo "FAIL: $1"
	fail=$((fail + 1))
}
run() { # run CMD...: sets rc; stdout in $tmp/out, stderr in $tmp/err
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
expect_rc() { # expect_rc WANT NAME
	if [ "$rc" = "$1" ]; then ok; else no "$2: exit $rc, expected $1; stderr: $(head -c 300 "$tmp/err")"; fi
}
expect_out() { # expect_out WANT NAME: stdout is exactly WANT
	local got
	got=$(cat "$tmp/out")
	if [ "$got" = "$1" ]; then ok; else no "$2: stdout '$got', expected '$1'"; fi
}
expect_grep() { # expect_grep FILE REGEX NAME
	if grep -qE -- "$2" "$1"; then ok; else no "$3: no /$2/ in $(basename "$1"): $(head -c 300 "$1")"; fi
}

# -- help and usage errors (no fixtures needed)
for c in tokenize detokenize; do
	run "$bin" "$c" --help
	expect_rc 0 "$c --help"
	expect_grep "$tmp/out" "^usage: infbench $c" "$c --help"
	run "$bin" "$c"
	expect_rc 2 "$c without --tokenizer"
	expect_grep "$tmp/err" 'error: the following arguments are required: --tokenizer' "$c without --tokenizer"
done
run "$bin" tokenize --tokenizer x --jsonl --text hi
expect_rc 2 "tokenize --jsonl with --text"
run "$bin" tokenize --tokenizer x --bench f --repeat 0
expect_rc 2 "tokenize --repeat 0"
run "$bin" tokenize --tokenizer "$tmp/nope" --text hi
expect_rc 1 "missing tokenizer"
expect_grep "$tmp/err" "infbench tokenize: error: $tmp/nope" "missing tokenizer"

# -- a component that is not supported: the error names the file and the type
mkdir -p "$tmp/bad"
cat >"$tmp/bad/tokenizer.json" <<'EOF'
{"version": "1.0", "added_tokens": [], "normalizer": null,
 "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "UnicodeScripts"}]},
 "post_processor": null, "decoder": null,
 "model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}
EOF
run "$bin" detokenize --tokenizer "$tmp/bad" --ids '[0]'
expect_rc 1 "unsupported pre-tokenizer"
expect_grep "$tmp/err" "error: $tmp/bad/tokenizer.json: pre_tokenizer.pretokenizers\[0\]: unsupported pre-tokenizer type 'UnicodeScripts'" "unsupported pre-tokenizer"

if [ ! -f "$fx/mistral/tokenizer.json" ] || [ ! -f "$fx/llama3/tokenizer.json" ]; then
	echo "fixtures missing: run make fixtures"
	echo "tokenize: $pass passed, $((fail + 1)) failed"
	exit 1
fi
m=$fx/mistral

# -- one-shot modes
run "$bin" tokenize --tokenizer "$m" --text "Hello world"
expect_rc 0 "tokenize --text"
expect_out "[1, 22557, 1526]" "tokenize --text"
run "$bin" tokenize --tokenizer "$m" --no-special-tokens --text "Hello world"
expect_out "[22557, 1526]" "tokenize --no-special-tokens"
printf 'Hello world' | "$bin" tokenize --tokenizer "$m/tokenizer.json" >"$tmp/out" 2>"$tmp/err"
expect_out "[1, 22557, 1526]" "tokenize from stdin, tokenizer.json path"
printf 'a\xff' | "$bin" tokenize --tokenizer "$m" >"$tmp/out" 2>"$tmp/err"
rc=$?
expect_rc 1 "tokenize invalid UTF-8"
expect_grep "$tmp/err" 'not valid UTF-8 \(invalid byte 0xFF at byte offset 1\)' "tokenize invalid UTF-8"
run "$bin" detokenize --tokenizer "$m" --ids "[1, 22557, 1526]"
expect_rc 0 "detokenize --ids"
expect_out "<s> Hello world" "detokenize --ids"
run "$bin" detokenize --tokenizer "$m" --skip-special-tokens --ids "[1, 22557, 1526]"
expect_out "Hello world" "detokenize --skip-special-tokens"
echo '[22557, 1526]' | "$bin" detokenize --tokenizer "$m" >"$tmp/out" 2>"$tmp/err"
expect_out "Hello world" "detokenize from stdin"
run "$bin" detokenize --tokenizer "$m" --ids "[1, -2]"
expect_rc 1 "detokenize bad id"
expect_grep "$tmp/err" 'ids\[1\]: a token id must be an integer' "detokenize bad id"

run "$bin" tokenize --tokenizer "$m" --info
expect_out '{"vocab_size": 32000, "vocab_size_with_added_tokens": 32000, "bos_token": "<s>", "bos_token_id": 1, "eos_token": "</s>", "eos_token_id": 2, "pad_token": null, "pad_token_id": null, "unk_token": "<unk>", "unk_token_id": 0}' "tokenize --info"
run "$bin" tokenize --tokenizer "$m" --info --text x
expect_rc 2 "tokenize --info with --text"

# -- JSON lines: one answer per line, errors answered in place
cat >"$tmp/enc.req" <<'EOF'
{"text": "Hello world", "add_special_tokens": true}
not json
{"text": "\ud800"}
{"text": 5}

{"text": "a\u0000b", "add_special_tokens": false}
EOF
printf '{"text": "no newline at the end"}' >>"$tmp/enc.req"
run "$bin" tokenize --tokenizer "$m" --jsonl <"$tmp/enc.req"
expect_rc 0 "tokenize --jsonl"
if [ "$(wc -l <"$tmp/out")" = 7 ]; then ok; else no "tokenize --jsonl: $(wc -l <"$tmp/out") answers for 7 lines"; fi
want='{"ids": [1, 22557, 1526]}'
if [ "$(sed -n 1p "$tmp/out")" = "$want" ]; then ok; else no "jsonl line 1: $(sed -n 1p "$tmp/out")"; fi
for k in 2 3 4 5; do
	if sed -n "${k}p" "$tmp/out" | grep -q '^{"error": "'; then ok; else no "jsonl line $k: $(sed -n "${k}p" "$tmp/out")"; fi
done
expect_grep "$tmp/out" '"error": "request:1:[0-9]+: JSON syntax error' "jsonl syntax error message"
if sed -n 6p "$tmp/out" | grep -q '^{"ids": \[[0-9]'; then ok; else no "jsonl NUL text: $(sed -n 6p "$tmp/out")"; fi
printf '{"ids": [1, 22557, 1526], "skip_special_tokens": true}\n{"ids": "x"}\n{"ids": [28705, 29]}\n' >"$tmp/dec.req"
run "$bin" detokenize --tokenizer "$m" --jsonl <"$tmp/dec.req"
expect_out '{"text": "Hello world"}
{"error": "'"'"'ids'"'"' must be a list of token ids"}
{"text": "\u001a"}' "detokenize --jsonl"

# -- --bench
printf 'The quick brown fox jumps over the lazy dog. %.0s' $(seq 1 200) >"$tmp/text"
run "$bin" tokenize --tokenizer "$m" --bench "$tmp/text" --repeat 2
expect_rc 0 "tokenize --bench"
expect_grep "$tmp/out" '^\{"bytes": 9000, "tokens": [0-9]+, "repeat": 2, "best_s": [0-9.]+, "mean_s": [0-9.]+, "mb_per_s": [0-9.]+, "load_s": [0-9.]+, "load_cpu_s": [0-9.]+, "from_cache": (true|false)\}$' "tokenize --bench"

# -- the release build under valgrind
vg() { # vg NAME WANT_RC CMD...: stdin from $tmp/vg.in
	local name=$1 want=$2
	shift 2
	valgrind -q --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all \
		--error-exitcode=99 "$@" <"$tmp/vg.in" >/dev/null 2>"$tmp/vg.err"
	local r=$?
	if [ "$r" != "$want" ] || grep -q '==[0-9]*==' "$tmp/vg.err"; then
		no "valgrind $name: exit $r (expected $want): $(head -n 10 "$tmp/vg.err")"
	else
		ok
	fi
}
if command -v valgrind >/dev/null && [ -x "$rel" ]; then
	cp "$tmp/enc.req" "$tmp/vg.in"
	vg "tokenize mistral" 0 "$rel" tokenize --tokenizer "$m" --jsonl
	cp "$tmp/dec.req" "$tmp/vg.in"
	vg "detokenize mistral" 0 "$rel" detokenize --tokenizer "$m" --jsonl
	head -n 40 "$root/tests/golden/tokenizer/llama3.encode.jsonl" >"$tmp/vg.in"
	vg "tokenize llama3" 0 "$rel" tokenize --tokenizer "$fx/llama3" --jsonl
	head -n 40 "$root/tests/golden/tokenizer/llama3.decode.jsonl" >"$tmp/vg.in"
	vg "detokenize llama3" 0 "$rel" detokenize --tokenizer "$fx/llama3" --jsonl
	: >"$tmp/vg.in"
	vg "load error" 1 "$rel" detokenize --tokenizer "$tmp/bad" --ids '[0]'
else
	no "valgrind or the release build ($rel) is missing"
fi

echo "tokenize: $pass passed, $fail failed"
[ "$fail" = 0 ]
