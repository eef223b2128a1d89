#!/usr/bin/env bash
# The tokenizer cache from the command line (docs/tokenize.md "The tokenizer
# cache"): --tok-cache DIR writes one file per tokenizer.json and the next
# load comes from it with the same ids; off writes nothing; a damaged file is
# rebuilt; INFBENCH_TOK_CACHE is the default; a folder that cannot be made is
# an error; every command that loads a tokenizer takes the flag; the
# simulator and detokenize load through it. Counts and outputs only.
# Usage: tok_cache.sh INFBENCH
. "$(dirname "$0")/lib.sh" tok_cache "$1"
e2e_tmp
e2e_need_tok fail
printf 'Hello world, the cache. \xc3\xa9t\xc3\xa9 \xe4\xb8\xad 12345\n' >"$tmp/text"

# ntok DIR: the number of cache files in DIR
ntok() { find "$1" -maxdepth 1 -name '*.tok' 2>/dev/null | wc -l; }
# cached ARGS...: "true"/"false", whether tokenize --bench loaded from the cache
cached() {
	"$bin" tokenize --tokenizer "$tok" --bench "$tmp/text" --repeat 1 "$@" 2>"$tmp/err" |
		sed -n 's/.*"from_cache": \([a-z]*\).*/\1/p'
}
check() { # check WHAT GOT WANT
	if [ "$2" = "$3" ]; then ok; else no "$1: got '$2', want '$3' ($(head -c 300 "$tmp/err"))"; fi
}

c=$tmp/c
want=$(INFBENCH_TOK_CACHE=off "$bin" tokenize --tokenizer "$tok" --text "$(cat "$tmp/text")")
[ -n "$want" ] && ok || no "tokenize without a cache printed nothing"
check "cold load" "$(cached --tok-cache "$c")" false
check "one file written" "$(ntok "$c")" 1
check "warm load" "$(cached --tok-cache "$c")" true
got=$("$bin" tokenize --tokenizer "$tok" --tok-cache "$c" --text "$(cat "$tmp/text")")
check "same ids from the cache" "$got" "$want"
f=$(find "$c" -name '*.tok' | head -n 1)
case $(basename "$f") in
[0-9a-f]*-[0-9a-f]*.v[0-9]*.tok) ok ;;
*) no "cache file name: $(basename "$f")" ;;
esac

# detokenize through the cache
text=$("$bin" detokenize --tokenizer "$tok" --tok-cache "$c" --ids "$want")
check "detokenize from the cache" "$text" "$(INFBENCH_TOK_CACHE=off "$bin" detokenize --tokenizer "$tok" --ids "$want")"

# off: no file, not cached
check "off" "$(cached --tok-cache off)" false
check "off writes nothing" "$(ntok "$c")" 1

# the environment is the default; the flag wins over it
check "INFBENCH_TOK_CACHE" "$(INFBENCH_TOK_CACHE=$c cached)" true
check "the flag over the environment" "$(INFBENCH_TOK_CACHE=$c cached --tok-cache off)" false

# a damaged file is rebuilt, then used
size=$(stat -c %s "$f")
printf 'XXXXXXXX' | dd of="$f" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
check "damaged file not used" "$(cached --tok-cache "$c")" false
check "rebuilt file used" "$(cached --tok-cache "$c")" true
head -c 1000 "$f" >"$f.cut" && mv "$f.cut" "$f"
check "truncated file not used" "$(cached --tok-cache "$c")" false
got=$("$bin" tokenize --tokenizer "$tok" --tok-cache "$c" --text "$(cat "$tmp/text")")
check "same ids after the rebuild" "$got" "$want"
check "one file after the rebuilds" "$(ntok "$c")" 1
[ -z "$(find "$c" -name '*.tmp.*')" ] && ok || no "temporary files left in $c"

# a relative folder is made (absolute for the processes started)
(cd "$tmp" && "$bin" tokenize --tokenizer "$tok" --tok-cache rel/dir --text hi >/dev/null 2>"$tmp/err")
check "relative folder" "$(ntok "$tmp/rel/dir")" 1

# a folder that cannot be made is an error that names the flag
"$bin" tokenize --tokenizer "$tok" --tok-cache "$tmp/text/sub" --text hi >/dev/null 2>"$tmp/err"
rc=$?
check "unusable folder: exit status" "$rc" 1
grep -q -- '--tok-cache' "$tmp/err" && ok || no "unusable folder: message '$(cat "$tmp/err")'"
"$bin" bench --dataset-name random --tok-cache "$tmp/text/sub" --model m --tokenizer "$tok" \
	--num-prompts 1 >/dev/null 2>"$tmp/err"
rc=$?
check "bench: unusable folder: exit status" "$rc" 1
grep -q -- '--tok-cache' "$tmp/err" && ok || no "bench: message '$(cat "$tmp/err")'"

# every command that loads a tokenizer documents the flag
for cmd in "tokenize" "detokenize" "bench" "sim" "run" "agentx replay"; do
	# shellcheck disable=SC2086
	if "$bin" $cmd --help 2>&1 | grep -q -- '--tok-cache DIR|off'; then ok; else no "$cmd --help lacks --tok-cache"; fi
done

# the simulator loads its tokenizer through the cache
s=$tmp/s
e2e_start_sim --tokenizer "$tok" --tok-cache "$s"
if [ -n "$port" ]; then
	check "the simulator's cache file" "$(ntok "$s")" 1
	out=$(curl -s -m 10 "http://127.0.0.1:$port/tokenize" -d '{"prompt": "Hello world"}' 2>/dev/null)
	case $out in *9906*) ok ;; *) no "simulator /tokenize: $out" ;; esac
else
	no "the simulator did not start: $(head -c 300 "$tmp/sim.err")"
fi

e2e_end
