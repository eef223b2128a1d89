#!/usr/bin/env bash
# End-to-end: Hugging Face model ids resolved in a local (fake) Hugging Face
# cache, offline, by bench, sim, tokenize and chat-template. A recipe-shaped
# run with --model amd/MiniMax-M3-MXFP4 and no --tokenizer must work, and the
# simulator given the same id must count exactly the client's prompt tokens.
# Usage: hfcache.sh INFBENCH. Ends with "hfcache: N passed, N failed".
. "$(dirname "$0")/lib.sh" hfcache "$1"
fixture=$tok
e2e_need_tok fail
e2e_tmp
json_num() { grep -o "\"$2\": [-0-9.e+]*" "$1" | head -n 1 | sed 's/.*: //'; }

# the cache layout huggingface_hub writes: refs/main names the snapshot
id=amd/MiniMax-M3-MXFP4
repo=$tmp/hf/hub/models--amd--MiniMax-M3-MXFP4
rev=0123456789abcdef0123456789abcdef01234567
mkdir -p "$repo/refs" "$repo/snapshots/$rev" "$repo/blobs"
printf '%s' "$rev" >"$repo/refs/main"
for f in tokenizer.json tokenizer_config.json; do
	cp "$fixture/$f" "$repo/blobs/$f.blob"
	ln -s "../../blobs/$f.blob" "$repo/snapshots/$rev/$f" # snapshots hold links into blobs/
done
# nothing else may be found: a HOME without a cache
export HOME=$tmp/home
unset HF_HUB_CACHE HUGGINGFACE_HUB_CACHE HF_HOME XDG_CACHE_HOME
mkdir -p "$HOME"

# -- 1. not found: every place it looked, and how to pass a folder
"$bin" tokenize --tokenizer "$id" <<<'"x"' >/dev/null 2>"$tmp/e1"
rc=$?
[ "$rc" != 0 ] && grep -q "$HOME/.cache/huggingface/hub/models--amd--MiniMax-M3-MXFP4: no such folder" "$tmp/e1" &&
	grep -q -- "--tokenizer DIR" "$tmp/e1" && ok || no "not found: exit $rc: $(cat "$tmp/e1")"
HF_HOME=$tmp/elsewhere "$bin" tokenize --tokenizer "$id" <<<'"x"' >/dev/null 2>"$tmp/e1b"
grep -q "$tmp/elsewhere/hub/models--amd--MiniMax-M3-MXFP4: no such folder (\$HF_HOME/hub)" "$tmp/e1b" &&
	grep -q "(~/.cache/huggingface/hub)" "$tmp/e1b" && ok || no "HF_HOME listed: $(cat "$tmp/e1b")"

# -- 2. tokenize and chat-template by id, through HF_HUB_CACHE and through HF_HOME
want=$("$bin" tokenize --tokenizer "$fixture" <<<'"Hello world"')
got=$(HF_HUB_CACHE=$tmp/hf/hub "$bin" tokenize --tokenizer "$id" <<<'"Hello world"')
[ -n "$want" ] && [ "$got" = "$want" ] && ok || no "tokenize by id: '$got' != '$want'"
got=$(HF_HOME=$tmp/hf "$bin" tokenize --tokenizer "$id@$rev" <<<'"Hello world"')
[ "$got" = "$want" ] && ok || no "tokenize by id@commit via HF_HOME: '$got'"
msgs='[{"role": "user", "content": "hi"}]'
want=$("$bin" chat-template --tokenizer "$fixture" <<<"$msgs" 2>&1)
got=$(HF_HUB_CACHE=$tmp/hf/hub "$bin" chat-template --tokenizer "$id" <<<"$msgs" 2>&1)
[ "$got" = "$want" ] && ok || no "chat-template by id: '$got' != '$want'"

# -- 3. the recipe's bench invocation, no --tokenizer, against a simulator
#       that also finds its tokenizer by the id (exact prompt token counts)
export HF_HUB_CACHE=$tmp/hf/hub
sim_model=$id e2e_start_sim --tokenizer "$id" --time-scale 50
[ -n "$port" ] && ok || no "sim --tokenizer $id did not start: $(cat "$tmp/sim.err")"
C=2
"$bin" bench --model "$id" --backend vllm --base-url "http://0.0.0.0:$port" --dataset-name random \
	--random-input-len 128 --random-output-len 16 --random-range-ratio 0.8 --num-prompts $((10 * C)) \
	--max-concurrency $C --request-rate inf --ignore-eos --save-result --num-warmups $((2 * C)) \
	--percentile-metrics ttft,tpot,itl,e2el --result-dir "$tmp" --result-filename r.json >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] && [ "$(json_num "$tmp/r.json" completed)" = 20 ] && ok || no "recipe run: exit $rc: $(tail -3 "$tmp/err")"
grep -q "\"model_id\": \"$id\"" "$tmp/r.json" && grep -q "\"tokenizer_id\": \"$id\"" "$tmp/r.json" && ok ||
	no "model_id/tokenizer_id keep the id"
sha=$(sha256sum "$fixture/tokenizer.json" | cut -d' ' -f1)
grep -q "\"tokenizer_sha256\": \"$sha\"" "$tmp/r.json" && ok || no "workload names the cached tokenizer.json"
# the simulator's prompt tokens: the measured prompts plus 2C warmups of the first
in_total=$(json_num "$tmp/r.json" total_input_tokens)
first_in=$(grep -o '"input_lens": \[[0-9]*' "$tmp/r.json" | sed 's/.*\[//')
exec 3<>"/dev/tcp/127.0.0.1/$port"
printf 'GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' >&3
served=$(sed -n 's/^vllm:prompt_tokens_total{[^}]*} \([0-9.]*\).*/\1/p' <&3 | head -n 1)
exec 3<&-
[ -n "$in_total" ] && [ "${served%.*}" = $((in_total + 2 * C * first_in)) ] && ok ||
	no "sim counted ${served:-nothing} prompt tokens, client $in_total + $((2 * C)) x $first_in"

e2e_end
