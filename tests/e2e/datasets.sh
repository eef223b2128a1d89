#!/usr/bin/env bash
# End-to-end checks of bench's prompt files (issue 31, item 8) against
# `infbench sim`: a ShareGPT-format file (--dataset-name sharegpt: the first
# usable conversations in file order, output lengths from the replies or
# --sharegpt-output-len) and a custom JSONL of prompts (--dataset-name
# custom, --custom-output-len); token counts checked against `infbench
# tokenize`; bad files named with file:line (JSONL) or entry (ShareGPT) and
# field, exit 1, before any request.
# Usage: tests/e2e/datasets.sh INFBENCH    Ends with "datasets: N passed, N failed".
. "$(dirname "$0")/lib.sh" datasets "$1"
e2e_tmp
e2e_need_tok skip
num() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2" 2>/dev/null; }
ntok() { "$bin" tokenize --tokenizer "$tok" --no-special-tokens --text "$1" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }

q1="Explain how a continuous batching scheduler decides which requests join the next step."
r1="It admits waiting requests while the KV cache has free blocks and the token budget allows."
q2="Write a haiku about GPUs running inference at night in a quiet data center."
r2="Fans hum in the dark, tensors flow like quiet streams, tokens bloom at dawn."
q3="What is the difference between time to first token and time per output token?"
r3="TTFT measures the wait for the first token; TPOT the mean gap between the following ones."
python3 - "$tmp/sg-data.json" "$q1" "$r1" "$q2" "$r2" "$q3" "$r3" <<'PY'
import json, sys
p, q1, r1, q2, r2, q3, r3 = sys.argv[1:]
conv = lambda q, r: {"id": q[:5], "conversations": [{"from": "human", "value": q}, {"from": "gpt", "value": r}]}
json.dump([conv(q1, r1),
           {"id": "one-turn", "conversations": [{"from": "human", "value": "alone"}]},
           conv("Hi", "Hello there, how can I help you today?"),
           conv(q2, r2), conv(q3, r3)], open(p, "w"))
PY
mkdir -p "$tmp/r"
e2e_start_sim --time-scale 50
[ -n "$port" ] || { no "the simulator did not start: $(tail -3 "$tmp/sim.err")"; e2e_end; exit; }
bench() { "$bin" bench --model llama3-8b --tokenizer "$tok" --base-url "http://127.0.0.1:$port" --max-concurrency 2 \
	--ignore-eos --save-result --result-dir "$tmp/r" "$@"; }
bench --dataset-name sharegpt --dataset-path "$tmp/sg-data.json" --num-prompts 3 --result-filename sg.json >"$tmp/sg.out" 2>"$tmp/sg.err"
rc=$?
in_exp=$(($(ntok "$q1") + $(ntok "$q2") + $(ntok "$q3")))
out_exp=$(($(ntok "$r1") + $(ntok "$r2") + $(ntok "$r3")))
check '[ $rc = 0 ] && [ "$(num "$tmp/r/sg.json" completed)" = 3 ]' "sharegpt: 3 prompts completed (rc $rc): $(tail -2 "$tmp/sg.err")"
check '[ "$(num "$tmp/r/sg.json" total_input_tokens)" = "$in_exp" ]' \
	"sharegpt: the usable conversations in file order, one-turn and too-short ones left out (input tokens $(num "$tmp/r/sg.json" total_input_tokens) = $in_exp)"
check '[ "$(num "$tmp/r/sg.json" total_output_tokens)" = "$out_exp" ]' \
	"sharegpt: output lengths are the replies' tokens ($(num "$tmp/r/sg.json" total_output_tokens) = $out_exp)"
check 'grep -q "\"dataset\": \"sharegpt\"" "$tmp/r/sg.json"' "the workload names the dataset"
bench --dataset-name sharegpt --dataset-path "$tmp/sg-data.json" --num-prompts 3 --sharegpt-output-len 7 --result-filename sg7.json >/dev/null 2>&1
check '[ "$(num "$tmp/r/sg7.json" total_output_tokens)" = 21 ]' "--sharegpt-output-len 7: 21 output tokens"
bench --dataset-name sharegpt --dataset-path "$tmp/sg-data.json" --num-prompts 4 --result-filename x.json >"$tmp/x.out" 2>"$tmp/x.err"
rc=$?
check '[ $rc = 1 ] && grep -q "sg-data.json: 3 usable prompts, --num-prompts 4 asked for" "$tmp/x.err" && [ ! -e "$tmp/r/x.json" ]' \
	"too few usable conversations: an error before any request: $(tail -1 "$tmp/x.err")"
echo '[{"conversations": [{"value": "a b c d e f"}, {"value": "g h i j"}]}, {"conversations": "oops"}]' >"$tmp/bad.json"
bench --dataset-name sharegpt --dataset-path "$tmp/bad.json" --num-prompts 2 --result-filename y.json >/dev/null 2>"$tmp/y.err"
rc=$?
check '[ $rc = 1 ] && grep -q "bad.json: entry 2: field '"'"'conversations'"'"'" "$tmp/y.err"' "a bad ShareGPT entry is named: $(tail -1 "$tmp/y.err")"
echo '{"conversations": []' >"$tmp/broken.json"
bench --dataset-name sharegpt --dataset-path "$tmp/broken.json" --num-prompts 1 --result-filename z.json >/dev/null 2>"$tmp/z.err"
rc=$?
check '[ $rc = 1 ] && grep -Eq "broken.json:[0-9]+: JSON syntax error" "$tmp/z.err"' "broken JSON: file:line: $(tail -1 "$tmp/z.err")"

# custom JSON lines
printf '{"prompt": "%s"}\n\n{"prompt": "%s"}\n{"prompt": "%s", "extra": 1}\n' "$q1" "$q2" "$q3" >"$tmp/c.jsonl"
bench --dataset-name custom --dataset-path "$tmp/c.jsonl" --num-prompts 3 --custom-output-len 5 --result-filename c.json >/dev/null 2>"$tmp/c.err"
rc=$?
check '[ $rc = 0 ] && [ "$(num "$tmp/r/c.json" total_input_tokens)" = "$in_exp" ] && [ "$(num "$tmp/r/c.json" total_output_tokens)" = 15 ]' \
	"custom: 3 prompts (a blank line skipped), 5 output tokens each: $(tail -1 "$tmp/c.err")"
bench --dataset-name custom --dataset-path "$tmp/c.jsonl" --num-prompts 2 --result-filename c256.json >/dev/null 2>&1
check '[ "$(num "$tmp/r/c256.json" total_output_tokens)" = 512 ]' "custom: 256 output tokens by default"
printf '{"prompt": "fine"}\n{"text": "no prompt"}\n' >"$tmp/c2.jsonl"
bench --dataset-name custom --dataset-path "$tmp/c2.jsonl" --num-prompts 2 --result-filename w.json >/dev/null 2>"$tmp/w.err"
rc=$?
check '[ $rc = 1 ] && grep -q "c2.jsonl:2: field '"'"'prompt'"'"'" "$tmp/w.err"' "custom: a line without a prompt is named file:line: $(tail -1 "$tmp/w.err")"
printf '{"prompt": "fine"}\n{"prompt": "a"}\n{"prompt": \n' >"$tmp/c3.jsonl"
bench --dataset-name custom --dataset-path "$tmp/c3.jsonl" --num-prompts 3 --result-filename v.json >/dev/null 2>"$tmp/v.err"
rc=$?
check '[ $rc = 1 ] && grep -q "c3.jsonl:3:" "$tmp/v.err" && grep -q "not a JSON object" "$tmp/v.err"' "custom: broken JSON on line 3 is named: $(tail -1 "$tmp/v.err")"
bench --dataset-name custom --num-prompts 1 --result-filename u.json >/dev/null 2>"$tmp/u.err"
rc=$?
check '[ $rc = 2 ] && grep -q "dataset-path" "$tmp/u.err"' "--dataset-path is required with a file dataset"
bench --dataset-name custom --dataset-path "$tmp/nope.jsonl" --num-prompts 1 --result-filename t.json >/dev/null 2>"$tmp/t.err"
rc=$?
check '[ $rc = 1 ] && grep -q "nope.jsonl" "$tmp/t.err"' "a missing file is named"
e2e_end
