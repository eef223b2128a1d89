#!/usr/bin/env bash
# End-to-end: the simulator against hostile clients. Numeric fields the
# engine cannot represent and lax JSON types are 400s in OpenAI's error
# shape (naming the field); HTTP strictness (control characters, NUL, token
# characters, bounded chunk sizes, no body on HEAD); connections that never
# send a whole request are closed (--header-timeout); out of descriptors,
# the server closes the longest-idle connection to serve a new client;
# HTTP/0.9-style request lines get a 400 and a close; a client that sends
# whole requests and then shuts its writing side gets every answer, then
# the close (python3 speaks those half-closed sockets), and no connection
# is left open; with --tokenizer, a long prompt is tokenized off the event
# loop: another stream keeps receiving chunks meanwhile, and the counts are
# the same as those of prompts tokenized on the loop.
# Usage: sim_strict.sh INFBENCH. Ends with "sim-strict: N passed, N failed".
. "$(dirname "$0")/lib.sh" sim-strict "$1"
e2e_tmp

start_sim() { sim_model=m e2e_start_sim --time-scale 100 "$@"; } # sets port

raw() { # raw BYTES (printf format): the whole answer, the connection closed by us after 10 s at most
	exec 3<>"/dev/tcp/127.0.0.1/$port"
	# shellcheck disable=SC2059
	printf "$1" >&3
	timeout 10 cat <&3
	exec 3<&-
}

post() { # post JSON: the answer to a POST /v1/completions
	raw "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${#1}\r\n\r\n$1"
}

start_sim
[ -n "$port" ] && ok || no "sim did not start: $(cat "$tmp/sim.err")"

# -- 1. fields the engine cannot represent, lax types: 400, OpenAI's shape, the field named
check400() { # check400 JSON FIELD
	local a
	a=$(post "$1")
	if grep -q '^HTTP/1.1 400' <<<"$a" && grep -q "\"type\": \"BadRequestError\", \"param\": \"$2\", \"code\": 400" <<<"$a"; then
		ok
	else
		no "$1: $(tail -1 <<<"$a")"
	fi
}
check400 '{"model": "m", "prompt": "hi", "max_tokens": 99999999999}' max_tokens
check400 '{"model": "m", "prompt": "hi", "max_tokens": 2147483647}' max_tokens
check400 '{"model": "m", "prompt": "hi", "max_tokens": 0}' max_tokens
check400 '{"model": "m", "prompt": "hi", "max_tokens": 1e300}' max_tokens
check400 '{"model": "m", "prompt": "hi", "max_tokens": 2000000000}' max_tokens # past the KV cache
check400 '{"model": "m", "prompt": "hi", "stream": "yes"}' stream
check400 '{"model": "m", "prompt": "hi", "ignore_eos": 1}' ignore_eos
check400 '{"model": "m", "prompt": "hi", "stream_options": {"include_usage": "true"}}' stream_options
check400 '{"model": "m", "prompt": "hi", "temperature": -1}' temperature
check400 '{"model": "m", "prompt": "hi", "top_p": 2}' top_p
check400 '{"model": "m", "prompt": "hi", "logprobs": 1000}' logprobs
check400 '{"model": "m", "prompt": "hi", "best_of": 0}' best_of
a=$(post '{"model": "m", "prompt": "hi", "max_tokens": 3, "stream": false, "temperature": 0.0, "logprobs": null}')
grep -q '^HTTP/1.1 200' <<<"$a" && grep -q '"completion_tokens":3' <<<"$a" && ok || no "a valid request: $(tail -1 <<<"$a")"

# -- 2. HTTP strictness
st() { head -n 1 <<<"$1" | tr -d '\r'; }
a=$(raw 'GET /health HTTP/1.1\r\nHost: x\001y\r\nConnection: close\r\n\r\n')
[ "$(st "$a")" = "HTTP/1.1 400 Bad Request" ] && ok || no "control character in a value: $(st "$a")"
a=$(raw 'GET /health HTTP/1.1\r\nHost: x\000y\r\nConnection: close\r\n\r\n')
[ "$(st "$a")" = "HTTP/1.1 400 Bad Request" ] && ok || no "NUL in a value: $(st "$a")"
a=$(raw 'GET /health HTTP/1.1\r\nHo\000st: x\r\nConnection: close\r\n\r\n')
[ "$(st "$a")" = "HTTP/1.1 400 Bad Request" ] && ok || no "NUL in a name: $(st "$a")"
a=$(raw 'G\000ET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
[ "$(st "$a")" = "HTTP/1.1 400 Bad Request" ] && ok || no "NUL in the method: $(st "$a")"
a=$(raw 'GET /hea\001lth HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
[ "$(st "$a")" = "HTTP/1.1 400 Bad Request" ] && ok || no "control character in the target: $(st "$a")"
a=$(raw 'POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFF\r\n')
[ "$(st "$a")" = "HTTP/1.1 413 Content Too Large" ] && ok || no "a huge chunk announced: $(st "$a")"
# HEAD: the headers, no body; the next response follows at once
a=$(raw 'HEAD /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
n=$(grep -c '^HTTP/1.1 ' <<<"$a")
second=$(awk '/^HTTP\/1.1 /{n++} n==1 && /^\r?$/ {getline; print; exit}' <<<"$a" | tr -d '\r')
[ "$n" = 2 ] && [ "${second%% *}" = HTTP/1.1 ] && ok || no "HEAD sent a body: $(tr '\r\n' '  ' <<<"$a")"

# -- 3. the header timeout: a connection that never finishes its request is closed
start_sim --header-timeout 0.3
exec 4<>"/dev/tcp/127.0.0.1/$port"
printf 'GET /health HTTP/1.1\r\nHost: x\r\n' >&4
if timeout 30 cat <&4 >/dev/null; then ok; else no "a half-sent request kept its connection past 30 s"; fi
exec 4<&-
a=$(raw 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
[ "$(st "$a")" = "HTTP/1.1 200 OK" ] && ok || no "served after a timeout: $(st "$a")"

# -- 4. out of descriptors: idle connections give way to a new client
( ulimit -n 64 && exec "$bin" sim --port 0 --port-file "$tmp/port2" --duration 300 --served-model-name m \
	--time-scale 100 2>"$tmp/sim2.err" ) &
pid2=$!
for _ in $(seq 1 400); do [ -s "$tmp/port2" ] && break; sleep 0.05; done
port2=$(cat "$tmp/port2" 2>/dev/null)
held=()
for _ in $(seq 1 100); do
	exec {fd}<>"/dev/tcp/127.0.0.1/$port2" && held+=("$fd")
done
exec 3<>"/dev/tcp/127.0.0.1/$port2"
printf 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' >&3
a=$(timeout 20 cat <&3)
exec 3<&-
[ "$(st "$a")" = "HTTP/1.1 200 OK" ] && ok || no "a client at the descriptor limit was not served: $(st "$a")"
for fd in "${held[@]}"; do exec {fd}<&-; done
kill "$pid2" 2>/dev/null
wait "$pid2" 2>/dev/null
[ "${#held[@]}" = 100 ] && ok || no "held ${#held[@]} sockets"

# -- 5. HTTP/0.9 request lines and half-closed connections: answered or closed, never kept
start_sim
cat >"$tmp/probe.py" <<'PY'
import socket, sys
# probe.py PORT SHUT BYTES: sends BYTES (a Python bytes literal), shuts the
# writing side when SHUT is 1, reads to the end (10 s at most); prints the
# status lines, the count of "data: [DONE]" and how it ended (eof/timeout)
port, shut, data = int(sys.argv[1]), sys.argv[2] == "1", eval(sys.argv[3])
s = socket.create_connection(("127.0.0.1", port))
s.settimeout(10)
s.sendall(data)
if shut:
    s.shutdown(socket.SHUT_WR)
out, end = b"", "eof"
try:
    while True:
        b = s.recv(65536)
        if not b:
            break
        out += b
except socket.timeout:
    end = "timeout"
except ConnectionResetError:
    end = "reset"
lines = [l.decode("latin-1") for l in out.split(b"\r\n") if l.startswith(b"HTTP/1.")]
print("|".join(lines), out.count(b"data: [DONE]"), end)
PY
probe() { python3 "$tmp/probe.py" "$port" "$@" 2>&1; }
sockets() { find "/proc/$simpid/fd" -lname 'socket:*' 2>/dev/null | wc -l; }
if ! command -v python3 >/dev/null; then
	no "python3 is needed for the half-closed connection tests"
else
	base=$(sockets)
	expect() { # expect WHAT WANT SHUT BYTES: the probe's line is WANT
		local a
		a=$(probe "$3" "$4")
		[ "$a" = "$2" ] && ok || no "$1: $a"
	}
	bad='HTTP/1.1 400 Bad Request 0 eof'
	expect "HTTP/0.9 GET /" "$bad" 0 'b"GET /\r\n"'
	expect "HTTP/0.9 GET /health (LF)" "$bad" 0 'b"GET /health\n"'
	expect "HTTP/0.9 GET / half-closed" "$bad" 1 'b"GET /\r\n"'
	expect "GET /health, then half-closed" "HTTP/1.1 200 OK 0 eof" 1 'b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n"'
	body='{"model": "m", "prompt": "hi", "max_tokens": 5, "stream": true}'
	post="POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: ${#body}\r\n\r\n$body"
	expect "a streamed completion, then half-closed" "HTTP/1.1 200 OK 1 eof" 1 "b'$post'"
	expect "two pipelined requests, then half-closed" "HTTP/1.1 200 OK|HTTP/1.1 200 OK 1 eof" 1 \
		"b'${post}GET /health HTTP/1.1\r\nHost: x\r\n\r\n'"
	expect "a partial head, then half-closed" " 0 eof" 1 'b"GET /health HTTP/1.1\r\nHost: x\r\n"'
	expect "a partial body, then half-closed" " 0 eof" 1 \
		'b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"'
	left=
	for _ in $(seq 1 100); do
		left=$(sockets)
		[ "$left" = "$base" ] && break
		sleep 0.1
	done
	[ "$left" = "$base" ] && ok || no "connections left open: $left sockets, $base before"
	a=$(raw 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
	[ "$(st "$a")" = "HTTP/1.1 200 OK" ] && ok || no "served after the half-closed ones: $(st "$a")"
fi

# -- 6. a long prompt is tokenized off the event loop (--tokenizer): a stream
# in flight keeps receiving chunks while it is encoded, and the counts agree
# with prompts short enough to be encoded on the loop
tokdir=$tok
if ! command -v python3 >/dev/null || [ ! -f "$tokdir/tokenizer.json" ]; then
	no "python3 and fixtures/tokenizers/llama3 are needed for the tokenization tests"
else
	start_sim --tokenizer "$tokdir" --pace 200 --max-model-len 100000
	cat >"$tmp/long.py" <<'PY'
import json, select, socket, sys
# long.py PORT: prints "<chunks of stream A while a 16 MiB request was only
# parsed> <its status> <chunks of A while one was parsed and tokenized> <its status>
# <count of /tokenize on the worker> <count predicted from two short prompts>
# <usage.prompt_tokens of a completion on the worker>"
port = int(sys.argv[1])
def send(sock, path, obj):
    b = json.dumps(obj).encode()
    sock.sendall(b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % (path.encode(), len(b)) + b)
def answer(path, obj):
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(120)
    send(s, path, obj)
    out = b""
    while b"\r\n\r\n" not in out:
        out += s.recv(65536)
    head, _, body = out.partition(b"\r\n\r\n")
    n = int([l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")][0])
    while len(body) < n:
        body += s.recv(65536)
    s.close()
    return json.loads(body)
def count(reps):
    return answer("/tokenize", {"prompt": "hello world " * reps})["count"]
# stream A: long enough to outlast the tokenization of B
a = socket.create_connection(("127.0.0.1", port))
send(a, "/v1/completions", {"model": "m", "prompt": "hi", "max_tokens": 50000, "ignore_eos": True, "stream": True})
buf = b""
while b"data: " not in buf:
    buf += a.recv(65536)
a.setblocking(False)
# chunks of stream A while the server takes a 16 MiB request: once one
# that is only parsed (an unknown model: 404 before any tokenization), once
# one that is tokenized too (past --max-model-len once counted: 400). The
# two take the same upload and parse; only tokenization tells them apart,
# and a loop that stands still while tokenizing gives A no more chunks then.
def window(model):
    b = socket.create_connection(("127.0.0.1", port))
    send(b, "/v1/completions", {"model": model, "prompt": "hello world " * ((16 << 20) // 12), "max_tokens": 1})
    during, out = 0, b""
    while b"\r\n\r\n" not in out:
        r, _, _ = select.select([a, b], [], [], 120)
        if not r:
            break
        if a in r:
            during += a.recv(65536).count(b"data: ")
        if b in r:
            out += b.recv(65536)
    b.close()
    return during, out.split(b"\r\n")[0].decode("latin-1").split(" ")[1] if out else "none"
parsed, s404 = window("unknown")
during, status = window("m")
a.close()
reps = 40000  # 480 KB: the worker's
c1, c2 = count(1000), count(2000)
predicted = c1 + (c2 - c1) * (reps - 1000) // 1000
worker = count(reps)
usage = answer("/v1/completions", {"model": "m", "prompt": "hello world " * reps, "max_tokens": 1})["usage"]["prompt_tokens"]
print(parsed, s404, during, status, worker, predicted, usage)
PY
	long=$(python3 "$tmp/long.py" "$port" 2>&1 | tail -n 1)
	echo "long prompt: $long (chunks while parsed, status, while tokenized, status, worker count, predicted, usage)"
	read -r parsed s404 during status worker predicted usage <<<"$long"
	[ "$s404" = 404 ] && [ "$status" = 400 ] && ok ||
		no "16 MiB prompts, an unknown model and one past --max-model-len: status '$s404' and '$status'"
	# tokenizing on the loop gives no more chunks than parsing alone
	[ "${during:-0}" -ge $((2 * ${parsed:-0} + 10)) ] 2>/dev/null && ok ||
		no "a stream in flight got ${during:-?} chunks while a 16 MiB prompt was parsed and tokenized, ${parsed:-?} while one was parsed (the loop stood still)"
	[ -n "$worker" ] && [ "$worker" = "$predicted" ] && ok ||
		no "/tokenize of a long prompt: count ${worker:-?}, ${predicted:-?} expected"
	[ -n "$usage" ] && [ "$usage" = "$worker" ] && ok ||
		no "prompt_tokens of a long prompt: ${usage:-?}, ${worker:-?} expected"
fi

e2e_end
