#!/usr/bin/env bash
# End-to-end tests of `infbench chat-template`: usage errors, the JSON-lines
# contract (one answer line per request line, errors answered in place),
# single requests, --template / --template-name / --kwargs / --dsv4, and the
# release build under valgrind. Usage: chat.sh INFBENCH
# Ends with "chat-cli: N passed, N failed".
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
rel=${IB_RELEASE:-$root/build/infbench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
no() {
	echo "FAIL: $1"
	fail=$((fail + 1))
}
# run CMD...: sets rc; stdout in $tmp/out, stderr in $tmp/err
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
expect_out() { # expect_out WANT NAME: stdout byte for byte
	if [ "$(cat "$tmp/out"; printf x)" = "$1x" ]; then ok; else no "$2: stdout $(head -c 300 "$tmp/out" | od -c | head -n 5), want '$1'"; fi
}

# a tokenizer folder: a chat template with two named variants and special tokens
tok=$tmp/tok
mkdir -p "$tok"
cat >"$tok/tokenizer_config.json" <<'EOF'
{"bos_token": {"__type": "AddedToken", "content": "<s>"}, "eos_token": "</s>", "unk_token": null,
 "model_max_length": 1000000000000000019884624838656,
 "chat_template": [
  {"name": "default", "template": "{{ bos_token }}{% for m in messages %}[{{ m.role }}]{{ m.content | trim }}{{ eos_token }}\n{% endfor %}{% if add_generation_prompt %}[assistant]{% endif %}{% if greeting is defined %}{{ greeting }}{% endif %}"},
  {"name": "tool_use", "template": "tools={{ tools | tojson }}"}]}
EOF

# -- help, usage errors (exit 2), load errors (exit 1)
run "$bin" chat-template --help
expect_rc 0 "--help"
expect_grep "$tmp/out" '^usage: infbench chat-template' "--help"
run "$bin" chat-template --jsonl
expect_rc 2 "no template source"
expect_grep "$tmp/err" 'error: one of the arguments --tokenizer --template --dsv4 is required' "no template source"
run "$bin" chat-template --dsv4 --template x.jinja
expect_rc 2 "--dsv4 with --template"
expect_grep "$tmp/err" 'not allowed with' "--dsv4 with --template"
run "$bin" chat-template --tokenizer "$tok" --kwargs '[1]'
expect_rc 2 "--kwargs not an object"
run "$bin" chat-template --tokenizer "$tmp/nope" </dev/null
expect_rc 1 "missing tokenizer"
expect_grep "$tmp/err" "^infbench chat-template: error: .*/nope: no such tokenizer folder" "missing tokenizer"
printf 'ok\n{%% if x %%}\n' >"$tmp/bad.jinja"
run "$bin" chat-template --template "$tmp/bad.jinja" </dev/null
expect_rc 1 "template syntax error"
expect_grep "$tmp/err" "bad.jinja:2:11: Unexpected end of template" "template syntax error"

# -- JSON lines: one answer per line, in order; failures answered in place
{
	echo '{"messages": [{"role": "user", "content": "  hi  "}], "add_generation_prompt": true}'
	echo '{"messages": [{"role": "user"'
	echo '{"add_generation_prompt": true}'
	echo '{"messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "q\u0000\ud83d\ude00 x\u2028"}]}'
	echo ''
	echo '{"messages": [], "chat_template_kwargs": {"greeting": "hello"}}'
} >"$tmp/req.jsonl"
run "$bin" chat-template --tokenizer "$tok" --jsonl <"$tmp/req.jsonl"
expect_rc 0 "jsonl exit status"
if [ "$(wc -l <"$tmp/out")" = 6 ]; then ok; else no "jsonl: $(wc -l <"$tmp/out") answer lines for 6 requests"; fi
want=$(printf '%s\n' \
	'{"rendered": "<s>[user]hi</s>\n[assistant]"}' \
	'ERROR' 'ERROR' \
	'{"rendered": "<s>[system]S</s>\n[user]q\u0000😀 x</s>\n"}' \
	'ERROR' \
	'{"rendered": "<s>hello"}')
got=$(sed 's/^{"error": ".*"}$/ERROR/' "$tmp/out")
if [ "$got" = "$want" ]; then ok; else no "jsonl answers: got $got"; fi
expect_grep "$tmp/out" '^\{"error": "request:1:.*"\}$' "jsonl: JSON error names the position"
expect_grep "$tmp/out" "^\\{\"error\": \"'messages' must be a list of messages\"\\}$" "jsonl: missing messages"
run "$bin" chat-template --tokenizer "$tok" --jsonl </dev/null
expect_rc 0 "jsonl empty input"
expect_out "" "jsonl empty input"

# -- one request: a bare list of messages or a request object; text as it is
echo '[{"role": "user", "content": "x"}]' >"$tmp/one.json"
run "$bin" chat-template --tokenizer "$tok" --add-generation-prompt <"$tmp/one.json"
expect_rc 0 "single request"
expect_out $'<s>[user]x</s>\n[assistant]' "single request"
run "$bin" chat-template --tokenizer "$tok" --add-generation-prompt --kwargs '{"greeting": "!"}' <<<'{"messages": [{"role": "user", "content": "x"}], "add_generation_prompt": false}'
expect_out $'<s>[user]x</s>\n!' "request object and --kwargs"
run "$bin" chat-template --tokenizer "$tok" <<<'{"messages": 3}'
expect_rc 1 "single request error"
expect_grep "$tmp/err" "^infbench chat-template: error: 'messages' must be a list" "single request error"

# -- named templates, template files with the tokenizer's special tokens
run "$bin" chat-template --tokenizer "$tok/tokenizer_config.json" --template-name tool_use <<<'{"messages": [], "tools": [{"type": "function"}]}'
expect_out 'tools=[{"type": "function"}]' "--template-name"
printf '{{ bos_token }}-{{ eos_token }}-{{ unk_token is defined }}\n' >"$tmp/t.jinja"
run "$bin" chat-template --template "$tmp/t.jinja" --tokenizer "$tok" <<<'[]'
expect_out '<s>-</s>-False' "--template with --tokenizer"
run "$bin" chat-template --template "$tmp/t.jinja" <<<'[]'
expect_out '--False' "--template alone"
run "$bin" chat-template --tokenizer "$tok" --template-name nope <<<'[]'
expect_rc 1 "unknown template name"
expect_grep "$tmp/err" "no chat template named 'nope'" "unknown template name"

# -- the built-in DeepSeek-V4 framing
run "$bin" chat-template --dsv4 --jsonl <<<'{"messages": [{"role": "user", "content": "P"}], "add_generation_prompt": true}'
expect_out '{"rendered": "<｜begin▁of▁sentence｜><｜User｜>P<｜Assistant｜><think>"}
' "--dsv4"
run "$bin" chat-template --dsv4 <<<'[{"role": "tool", "content": "r"}]'
expect_rc 1 "--dsv4 refuses tool messages"

# -- the release build under valgrind: no invalid access, no leak
if command -v valgrind >/dev/null && [ -x "$rel" ]; then
	for args in "--tokenizer $tok --jsonl" "--dsv4 --jsonl" "--template $tmp/bad.jinja"; do
		# shellcheck disable=SC2086
		valgrind -q --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all \
			--error-exitcode=99 "$rel" chat-template $args <"$tmp/req.jsonl" >/dev/null 2>"$tmp/vg"
		if [ $? = 99 ] || grep -q '==[0-9]*==' "$tmp/vg"; then
			no "valgrind chat-template $args: $(grep '==[0-9]*==' "$tmp/vg" | head -n 10)"
		else
			ok
		fi
	done
else
	no "valgrind or the release build ($rel) is missing"
fi

echo "chat-cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
