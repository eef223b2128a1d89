#!/usr/bin/env bash
# End-to-end tests of `infbench sim --eval-dataset` (docs/sim.md "Grading
# evals"): the simulator answers gsm8k prompts (5-shot chat, the question in
# the last user turn) with graded worked answers. Checks the answer forms,
# stability across requests and restarts, streaming = non-streaming, prompts
# that are not questions, max_tokens and stop, accuracy 1 and 0, and flag
# errors. Needs curl (skipped without it).
# Usage: sim_eval.sh INFBENCH. Ends with "sim-eval: N passed, N failed".
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
simpid=
cleanup() {
	if [ -n "$simpid" ]; then
		kill "$simpid" 2>/dev/null
		wait "$simpid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
no() {
	echo "FAIL: $1"
	fail=$((fail + 1))
}
finish() {
	echo "sim-eval: $pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit
}

if ! command -v curl >/dev/null 2>&1; then
	echo "SKIP: curl not found (the eval-grading e2e test talks HTTP with curl)"
	finish
fi

ds=$tmp/ds
if ! "$bin" eval make-dataset --output "$ds" --train 200 --test 1000 --seed 1 >/dev/null 2>"$tmp/err"; then
	no "eval make-dataset: $(head -c 300 "$tmp/err")"
	finish
fi

# start_sim ARGS...: starts the simulator in the background on a free port
# (bounded wait for its port file); sets port, or port= when it did not start.
start_sim() {
	stop_sim
	rm -f "$tmp/pf"
	"$bin" sim --port 0 --port-file "$tmp/pf" --duration 120 --time-scale 20 "$@" 2>"$tmp/sim.err" &
	simpid=$!
	port=
	for _ in $(seq 1 400); do
		if [ -s "$tmp/pf" ]; then
			port=$(cat "$tmp/pf")
			return
		fi
		kill -0 "$simpid" 2>/dev/null || break
		sleep 0.05
	done
	no "the simulator did not start ($*): $(head -c 300 "$tmp/sim.err")"
	stop_sim
}
stop_sim() {
	if [ -n "$simpid" ]; then
		kill "$simpid" 2>/dev/null
		wait "$simpid" 2>/dev/null
	fi
	simpid=
}

# question N / gold N: the N-th test question (1-based) and its final number
question() { sed -n "${1}p" "$ds/test.jsonl" | sed 's/^{"question": "\(.*\)", "answer": .*/\1/'; }
gold() { sed -n "${1}p" "$ds/test.jsonl" | sed 's/.*#### \([^"]*\)"}$/\1/'; }

# body QUESTION [EXTRA_JSON]: a 5-shot gsm8k chat request, as the eval client sends it
body() {
	local shot='{"role": "user", "content": "Question: Ben has 2 apples and gets 3 more. How many?\nEnd your response with the answer on the last line, formatted as: #### [number]\nAnswer:"}, {"role": "assistant", "content": "Ben has 2 + 3 = 5 apples.\n#### 5"}'
	printf '{"model": "llama3-8b", "messages": [%s, %s, %s, %s, %s, {"role": "user", "content": "Question: %s\\nEnd your response with the answer on the last line, formatted as: #### [number]\\nAnswer:"}], "temperature": 0%s}' \
		"$shot" "$shot" "$shot" "$shot" "$shot" "$1" "${2:-}"
}
# post FILE_OUT BODY: POST /v1/chat/completions; status code in $code
post() {
	code=$(curl -sS --max-time 30 -o "$1" -w '%{http_code}' -H 'Content-Type: application/json' \
		--data-binary "$2" "http://127.0.0.1:$port/v1/chat/completions" 2>"$tmp/curl.err")
}
# content / reasoning of a non-streamed answer in FILE (JSON-escaped text)
content_of() { sed -n 's/.*"message":{"role":"assistant","content":"\([^"]*\)".*/\1/p' "$1"; }
reasoning_of() { sed -n 's/.*"reasoning_content":"\([^"]*\)"}.*/\1/p' "$1"; }
# the same of a streamed answer: the deltas joined
s_content_of() { sed -n 's/.*"delta":{"content":"\([^"]*\)"}.*/\1/p' "$1" | tr -d '\n'; }
s_reasoning_of() { sed -n 's/.*"delta":{"reasoning_content":"\([^"]*\)"}.*/\1/p' "$1" | tr -d '\n'; }
finish_of() { grep -o '"finish_reason":"[a-z]*"' "$1" | tail -n 1 | sed 's/.*:"\(.*\)"/\1/'; }

# form CONTENT REASONING GOLD: which documented answer form this is
form() {
	local c=$1 r=$2 g=$3
	if [ -n "$c" ] && [ -z "$r" ]; then
		case "$c" in
		*"\\n#### $g") echo right ;;
		*"\\n#### "*) [[ "$c" =~ \\n####\ -?[0-9]+$ ]] && echo wrong || echo bad ;;
		*"\\nThe answer is $g.") echo no-marker ;;
		*) echo bad ;;
		esac
	elif [ -z "$c" ] && [ -n "$r" ]; then
		case "$r" in
		*"\\n#### "*) echo reasoning ;;
		*) echo bad ;;
		esac
	else
		echo bad
	fi
}

# ---- accuracy 0.9: forms, stability, streaming = non-streaming ----
start_sim --eval-dataset "$ds" --eval-accuracy 0.9 --eval-seed 5
if [ -n "$port" ]; then
	grep -q 'grading 1000 questions, accuracy 0.9, seed 5' "$tmp/sim.err" && ok ||
		no "startup line: $(cat "$tmp/sim.err")"
	nright=0
	for i in $(seq 1 30); do
		q=$(question "$i")
		g=$(gold "$i")
		post "$tmp/a.json" "$(body "$q")"
		[ "$code" = 200 ] || no "question $i: HTTP $code $(head -c 200 "$tmp/a.json")"
		c=$(content_of "$tmp/a.json")
		r=$(reasoning_of "$tmp/a.json")
		f=$(form "$c" "$r" "$g")
		if [ "$f" = bad ]; then no "question $i: not a documented form: $(head -c 400 "$tmp/a.json")"; else ok; fi
		[ "$f" = right ] && nright=$((nright + 1))
		[ "$(finish_of "$tmp/a.json")" = stop ] && ok || no "question $i: finish_reason $(finish_of "$tmp/a.json")"
		printf '%s\t%s\n' "$c" "$r" >>"$tmp/run1.txt"
		if [ "$i" -le 10 ]; then
			post "$tmp/b.json" "$(body "$q")"
			[ "$(content_of "$tmp/b.json")" = "$c" ] && [ "$(reasoning_of "$tmp/b.json")" = "$r" ] && ok ||
				no "question $i: another request gave another answer"
			post "$tmp/s.txt" "$(body "$q" ', "stream": true, "stream_options": {"include_usage": true}')"
			sc=$(s_content_of "$tmp/s.txt")
			sr=$(s_reasoning_of "$tmp/s.txt")
			[ "$sc" = "$c" ] && [ "$sr" = "$r" ] && ok ||
				no "question $i: streamed '$sc' / '$sr', whole '$c' / '$r'"
			grep -q '^data: \[DONE\]' "$tmp/s.txt" && [ "$(finish_of "$tmp/s.txt")" = stop ] && ok ||
				no "question $i: the stream did not end with stop and [DONE]"
			# usage counts the answer's words as tokens, as streamed
			ntok=$(grep -c '"delta":{"\(reasoning_\)\{0,1\}content":"' "$tmp/s.txt")
			grep -q "\"completion_tokens\":$ntok}" "$tmp/s.txt" && ok ||
				no "question $i: $ntok token events but usage $(grep -o '"completion_tokens":[0-9]*' "$tmp/s.txt")"
		fi
	done
	[ "$nright" -ge 15 ] && ok || no "only $nright of 30 answers right at accuracy 0.9"

	# a prompt that is no question of the set: random words, as without --eval-dataset
	post "$tmp/u.json" '{"messages": [{"role": "user", "content": "Question: What is the capital of France?\nAnswer:"}], "max_tokens": 12}'
	c=$(content_of "$tmp/u.json")
	[[ "$code" = 200 && "$c" =~ ^(\ [A-Za-z]+){12}$ ]] && ! grep -q reasoning_content "$tmp/u.json" && ok ||
		no "unknown prompt: $(head -c 300 "$tmp/u.json")"
	code=$(curl -sS --max-time 30 -o "$tmp/c.json" -w '%{http_code}' -d "{\"prompt\": \"Question: $(question 1)\", \"max_tokens\": 5}" \
		"http://127.0.0.1:$port/v1/completions")
	[ "$code" = 200 ] && grep -qE '"text":"( [A-Za-z]+){5}"' "$tmp/c.json" && ok ||
		no "completions are not graded: $(head -c 300 "$tmp/c.json")"

	# max_tokens truncates (finish "length"); stop strings cut (finish "stop")
	post "$tmp/m.json" "$(body "$(question 1)" ', "max_tokens": 3')"
	[ "$(finish_of "$tmp/m.json")" = length ] && grep -q '"completion_tokens":3}' "$tmp/m.json" && ok ||
		no "max_tokens 3: $(head -c 400 "$tmp/m.json")"
	full=$(sed -n 1p "$tmp/run1.txt" | tr -d '\t') # content or reasoning_content
	c=$(content_of "$tmp/m.json")$(reasoning_of "$tmp/m.json")
	[ -n "$c" ] && [ "${full#"$c"}" != "$full" ] && ok || no "max_tokens 3 gave '$c', not a prefix of '$full'"
	post "$tmp/t.json" "$(body "$(question 1)" ', "stop": ["####", "</s>"]')"
	c=$(content_of "$tmp/t.json")$(reasoning_of "$tmp/t.json")
	[ "$(finish_of "$tmp/t.json")" = stop ] && [ -n "$c" ] && [[ "$c" != *"####"* ]] &&
		[ "${full#"$c"}" != "$full" ] && ok || no "stop ####: $(head -c 400 "$tmp/t.json")"
	post "$tmp/t2.json" "$(body "$(question 1)" ', "stop": "#### ", "stream": true')"
	[ "$(finish_of "$tmp/t2.json")" = stop ] && ! grep -q '####' "$tmp/t2.json" && ok ||
		no "streamed stop: $(tail -c 400 "$tmp/t2.json")"

	# concurrent requests (in the reverse order): the same answers
	for i in $(seq 10 -1 1); do
		curl -sS --max-time 30 -o "$tmp/par$i.json" -H 'Content-Type: application/json' \
			--data-binary "$(body "$(question "$i")" ', "stream": true')" \
			"http://127.0.0.1:$port/v1/chat/completions" 2>/dev/null &
		pids="${pids:-} $!"
	done
	for p in $pids; do wait "$p"; done
	same=0
	for i in $(seq 1 10); do
		[ "$(printf '%s\t%s' "$(s_content_of "$tmp/par$i.json")" "$(s_reasoning_of "$tmp/par$i.json")")" = \
			"$(sed -n "${i}p" "$tmp/run1.txt")" ] && same=$((same + 1))
	done
	[ "$same" = 10 ] && ok || no "concurrent streams: only $same of 10 answers as sequential ones"

	# the same flags after a restart: the same answers
	start_sim --eval-dataset "$ds" --eval-accuracy 0.9 --eval-seed 5
	for i in $(seq 1 30); do
		post "$tmp/a.json" "$(body "$(question "$i")")"
		printf '%s\t%s\n' "$(content_of "$tmp/a.json")" "$(reasoning_of "$tmp/a.json")" >>"$tmp/run2.txt"
	done
	cmp -s "$tmp/run1.txt" "$tmp/run2.txt" && ok || no "a restarted simulator answered otherwise"
fi

# ---- accuracy 1 always right, 0 never right ----
for acc in 1 0; do
	start_sim --eval-dataset "$ds" --eval-accuracy "$acc"
	[ -n "$port" ] || continue
	bad=0
	for i in $(seq 31 50); do
		post "$tmp/a.json" "$(body "$(question "$i")")"
		c=$(content_of "$tmp/a.json")
		r=$(reasoning_of "$tmp/a.json")
		g=$(gold "$i")
		# one of content and reasoning_content is empty: a tenth of the right
		# answers come in reasoning_content only (docs/sim.md)
		if [ "$acc" = 1 ]; then
			[[ "$c$r" == *"\\n#### $g" ]] || { bad=$((bad + 1)); echo "accuracy 1, question $i: $c$r"; }
		else
			[[ "$c$r" == *"#### $g" ]] && { bad=$((bad + 1)); echo "accuracy 0, question $i: $c$r"; }
			[ "$(form "$c" "$r" "$g")" != bad ] || { bad=$((bad + 1)); echo "accuracy 0, question $i: bad form"; }
		fi
	done
	[ "$bad" = 0 ] && ok || no "--eval-accuracy $acc: $bad of 20 answers wrong"
done
stop_sim

# ---- flag errors: a clear message and exit 2 (usage) or 1 (the dataset) ----
# expect WANT_RC REGEX ARGS...
expect() {
	local want=$1 re=$2
	shift 2
	timeout 30 "$bin" sim --port 0 --duration 5 "$@" >/dev/null 2>"$tmp/err"
	local rc=$?
	[ "$rc" = "$want" ] && grep -qE -- "$re" "$tmp/err" && ok ||
		no "sim $*: exit $rc (want $want), stderr: $(head -c 300 "$tmp/err")"
}
expect 2 'eval-accuracy.*\[0, 1\]' --eval-dataset "$ds" --eval-accuracy 1.5
expect 2 'eval-accuracy.*\[0, 1\]' --eval-dataset "$ds" --eval-accuracy -0.1
expect 2 'eval-accuracy.*\[0, 1\]' --eval-dataset "$ds" --eval-accuracy lots
expect 2 'need --eval-dataset' --eval-accuracy 0.5
expect 2 'need --eval-dataset' --eval-seed 3
expect 1 'error: .*/nonexistent.*dataset folder' --eval-dataset "$tmp/nonexistent" --eval-accuracy 0.5
mkdir -p "$tmp/empty"
expect 1 'error: .*test\.jsonl' --eval-dataset "$tmp/empty"
printf '{"question": "q"}\n' >"$tmp/empty/test.jsonl"
expect 1 'error: .*test\.jsonl:1' --eval-dataset "$tmp/empty"
finish
