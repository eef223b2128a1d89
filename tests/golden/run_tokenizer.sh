#!/usr/bin/env bash
# Golden tokenizer tests: for each of the five tokenizers, `infbench tokenize
# --jsonl` on the whole encode corpus (each text with add_special_tokens false
# and true; a line passes when both id lists are identical), `infbench
# detokenize --jsonl` on the decode corpus, decode(encode(text)) == text on the
# encode corpus, and 1,000 random id sequences answered live by HuggingFace
# tokenizers (@anush008/tokenizers, installed by `make fixtures`): our decode
# must equal HF's, and our encode of it HF's encode. `tokenize --info` must
# give the vocabulary sizes and special tokens of <name>.meta.json.
# Usage: run_tokenizer.sh INFBENCH. Needs node (20) and the fixtures.
# Ends with "tokenizer: N passed, N failed".
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
golden=$root/tests/golden/tokenizer
fixtures=$root/fixtures/tokenizers
check=$root/tests/golden/tokcheck.js
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

if ! command -v node >/dev/null; then
	echo "node is missing (make deps installs it): cannot run the tokenizer checks"
	echo "tokenizer: 0 passed, 1 failed"
	exit 1
fi

for name in llama3 deepseek_v3 qwen3 gptoss mistral; do
	fx=$fixtures/$name
	if [ ! -f "$fx/tokenizer.json" ]; then
		echo "$name: fixtures missing: run make fixtures"
		fail=$((fail + 1))
		continue
	fi
	w=$tmp/$name
	mkdir -p "$w"
	if ! node "$check" prepare "$name" "$golden" "$fixtures" "$w"; then
		echo "$name: preparing the requests failed"
		fail=$((fail + 1))
		continue
	fi
	if [ ! -f "$w/rand.expect" ]; then
		echo "$name: HuggingFace reference missing (fixtures/node_modules/@anush008/tokenizers): run make fixtures"
		fail=$((fail + 1))
	fi
	# run MODE IN OUT: one infbench call over a whole request file
	run() {
		if ! "$bin" "$1" --tokenizer "$fx" --jsonl <"$w/$2" >"$w/$3" 2>"$w/err"; then
			echo "$name: infbench $1 --jsonl <$2 failed: $(head -c 500 "$w/err")"
			fail=$((fail + 1))
		fi
	}
	"$bin" tokenize --tokenizer "$fx" --info >"$w/info.json" 2>"$w/err" ||
		echo "$name: infbench tokenize --info failed: $(head -c 500 "$w/err")"
	run tokenize enc.req enc.resp
	run detokenize dec.req dec.resp
	[ -f "$w/rand.dec.req" ] && run detokenize rand.dec.req rand.dec.resp
	node "$check" stage2 "$name" "$golden" "$w" || fail=$((fail + 1))
	run detokenize rt.req rt.resp
	[ -f "$w/rand.enc.req" ] && run tokenize rand.enc.req rand.enc.resp
	out=$(node "$check" report "$name" "$golden" "$w")
	printf '%s\n' "$out" | grep -v '^COUNTS '
	counts=$(printf '%s\n' "$out" | sed -n 's/^COUNTS //p')
	if [ -z "$counts" ]; then
		echo "$name: the comparison did not finish"
		fail=$((fail + 1))
		continue
	fi
	pass=$((pass + ${counts% *}))
	fail=$((fail + ${counts#* }))
done
echo "tokenizer: $pass passed, $fail failed"
[ "$fail" = 0 ]
