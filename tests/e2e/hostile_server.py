#!/usr/bin/env python3
"""A hostile HTTP server for tests/e2e/hardening.sh, on 127.0.0.1 and a free
port written to PORT_FILE.

Usage: hostile_server.py MODE PORT_FILE
  endless  answers every request with a 200 head and then sends body bytes
           forever (no Content-Length, no chunking, one line that never
           ends), as fast as the client reads them
  big      answers a chat completion whose content is 10 MB of digits
           ("111..."), a well-formed JSON body
Every connection has its own thread; the server stops when killed."""
import socket
import sys
import threading

mode, port_file = sys.argv[1], sys.argv[2]


def read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        got = conn.recv(65536)
        if not got:
            return None
        data += got
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        got = conn.recv(65536)
        if not got:
            return None
        body += got
    return head


def serve(conn):
    try:
        while True:
            head = read_request(conn)
            if head is None:
                return
            if mode == "endless":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
                # one endless line: no event ever ends (a client must bound
                # its line buffer, not only its event count)
                conn.sendall(b'data: {"choices": [{"text": "')
                chunk = b"x" * 65536
                while True:
                    conn.sendall(chunk)
            else:
                content = "1" * (10 * 1024 * 1024)
                body = ('{"id": "x", "object": "chat.completion", "choices": [{"index": 0, '
                        '"message": {"role": "assistant", "content": "%s"}, '
                        '"finish_reason": "stop"}]}' % content).encode()
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: %d\r\n\r\n" % len(body) + body)
    except OSError:
        pass
    finally:
        conn.close()


srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(64)
with open(port_file + ".tmp", "w") as f:
    f.write(str(srv.getsockname()[1]))
import os

os.rename(port_file + ".tmp", port_file)
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
