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
# is left open.
# Usage: sim_strict.sh INFBENCH. Ends with "sim-strict: N passed, N failed".
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
pass=0
fail=0
simpid=
cleanup() {
	[ -n "$simpid" ] && kill "$simpid" 2>/dev/null && wait "$simpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
ok() { pass=$((pass + 1)); }
no() {
	echo "FAIL: $1"
	fail=$((fail + 1))
}

start_sim() { # start_sim ARGS...: sets port
	[ -n "$simpid" ] && kill "$simpid" 2>/dev/null && wait "$simpid" 2>/dev/null
	rm -f "$tmp/port"
	"$bin" sim --port 0 --port-file "$tmp/port" --duration 300 --served-model-name m --time-scale 100 "$@" \
		2>"$tmp/sim.err" &
	simpid=$!
	for _ in $(seq 1 400); do [ -s "$tmp/port" ] && break; sleep 0.05; done
	port=$(cat "$tmp/port" 2>/dev/null)
}

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
	a=$(probe 0 'b"GET /\r\n"')
	[ "$a" = "HTTP/1.1 400 Bad Request 0 eof" ] && ok || no "HTTP/0.9 GET /: $a"
	a=$(probe 0 'b"GET /health\n"')
	[ "$a" = "HTTP/1.1 400 Bad Request 0 eof" ] && ok || no "HTTP/0.9 GET /health (LF): $a"
	a=$(probe 1 'b"GET /\r\n"')
	[ "$a" = "HTTP/1.1 400 Bad Request 0 eof" ] && ok || no "HTTP/0.9 GET / half-closed: $a"
	a=$(probe 1 'b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n"')
	[ "$a" = "HTTP/1.1 200 OK 0 eof" ] && ok || no "GET /health, then half-closed: $a"
	body='{"model": "m", "prompt": "hi", "max_tokens": 5, "stream": true}'
	a=$(probe 1 "b'POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: ${#body}\r\n\r\n$body'")
	[ "$a" = "HTTP/1.1 200 OK 1 eof" ] && ok || no "a streamed completion, then half-closed: $a"
	a=$(probe 1 "b'POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: ${#body}\r\n\r\n${body}GET /health HTTP/1.1\r\nHost: x\r\n\r\n'")
	[ "$a" = "HTTP/1.1 200 OK|HTTP/1.1 200 OK 1 eof" ] && ok || no "two pipelined requests, then half-closed: $a"
	a=$(probe 1 'b"GET /health HTTP/1.1\r\nHost: x\r\n"')
	[ "$a" = " 0 eof" ] && ok || no "a partial head, then half-closed: $a"
	a=$(probe 1 'b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"')
	[ "$a" = " 0 eof" ] && ok || no "a partial body, then half-closed: $a"
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

echo "sim-strict: $pass passed, $fail failed"
[ "$fail" = 0 ]
