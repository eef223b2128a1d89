#!/usr/bin/env bash
# Golden driver for chat templates: renders every case of
# tests/golden/tokenizer/chat.jsonl (messages rendered by Python jinja2 the way
# transformers' apply_chat_template does, README.md there) with
#   INFBENCH chat-template --tokenizer fixtures/tokenizers/<name> --jsonl
# and compares each "rendered" string exactly (after JSON parsing, with node).
# Usage: run_chat.sh INFBENCH
# Prints the first mismatches and ends with "chat: N passed, N failed". A
# tokenizer whose fixtures are missing counts all its cases as failed.
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
data=$root/tests/golden/tokenizer/chat.jsonl
fix=${IB_FIXTURES:-$root/fixtures/tokenizers}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

if ! command -v node >/dev/null; then
	echo "node is not installed (it compares the JSON answers)"
	echo "chat: 0 passed, 1 failed"
	exit 1
fi

# split the corpus by tokenizer: $tmp/<name>.jsonl holds the requests
node -e '
const fs = require("fs");
const [data, dir] = process.argv.slice(1);
const by = {};
for (const line of fs.readFileSync(data, "utf8").split("\n")) {
	if (!line) continue;
	const c = JSON.parse(line);
	(by[c.tokenizer] = by[c.tokenizer] || []).push(line);
}
for (const [name, lines] of Object.entries(by))
	fs.writeFileSync(`${dir}/${name}.jsonl`, lines.join("\n") + "\n");
' "$data" "$tmp" || {
	echo "cannot read $data"
	echo "chat: 0 passed, 1 failed"
	exit 1
}

for req in "$tmp"/*.jsonl; do
	name=$(basename "$req" .jsonl)
	n=$(wc -l <"$req")
	if [ ! -f "$fix/$name/tokenizer_config.json" ]; then
		echo "$name: fixtures missing: run make fixtures ($fix/$name/tokenizer_config.json)"
		fail=$((fail + n))
		continue
	fi
	"$bin" chat-template --tokenizer "$fix/$name" --jsonl <"$req" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	if [ "$rc" != 0 ]; then
		echo "$name: chat-template exited with $rc: $(head -c 300 "$tmp/$name.err")"
	fi
	# prints "P F" on the last line, mismatches before it
	res=$(node -e '
const fs = require("fs");
const [reqf, outf, name] = process.argv.slice(1);
const want = fs.readFileSync(reqf, "utf8").split("\n").filter(Boolean).map(JSON.parse);
const got = fs.readFileSync(outf, "utf8").split("\n").filter(Boolean);
let p = 0, f = 0, shown = 0;
want.forEach((w, i) => {
	let g;
	try { g = got[i] === undefined ? { error: "no answer line" } : JSON.parse(got[i]); }
	catch (e) { g = { error: "answer is not JSON: " + got[i].slice(0, 100) }; }
	if (g.rendered === w.rendered) { p++; return; }
	f++;
	if (shown++ >= 3) return;
	if (g.rendered === undefined) {
		console.log(`FAIL ${name} case ${i + 1}: ${JSON.stringify(g).slice(0, 300)}`);
		return;
	}
	let k = 0;
	while (k < w.rendered.length && w.rendered[k] === g.rendered[k]) k++;
	console.log(`FAIL ${name} case ${i + 1}: differs at character ${k}`);
	console.log(`  want ${JSON.stringify(w.rendered.slice(Math.max(0, k - 40), k + 40))}`);
	console.log(`  got  ${JSON.stringify(g.rendered.slice(Math.max(0, k - 40), k + 40))}`);
});
if (got.length !== want.length) console.log(`${name}: ${got.length} answer lines for ${want.length} requests`);
console.log(`${p} ${f}`);
' "$req" "$tmp/$name.out" "$name")
	printf '%s\n' "$res" | sed '$d'
	read -r p f <<<"$(printf '%s\n' "$res" | tail -n 1)"
	echo "$name: $p/$n identical"
	pass=$((pass + ${p:-0}))
	fail=$((fail + ${f:-$n}))
done
echo "chat: $pass passed, $fail failed"
[ "$fail" = 0 ]
