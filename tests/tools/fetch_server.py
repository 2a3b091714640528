#!/usr/bin/env python3
"""Loopback HTTP server for tests/unit/test_fetch.c (stdlib only).

Usage: fetch_server.py DOCROOT
Binds 127.0.0.1 on an ephemeral port, prints the port on stdout, and serves
until killed.  Every request except /_* is counted by its path (query
included), so a test can tell how many requests a fetch made.

  /files/NAME            DOCROOT/NAME; ?encoded=1 sends it with
                         Content-Encoding: gzip (406 unless the client
                         accepts gzip)
  /status/CODE           that status with a short body
  /flaky/N/NAME          500 for the first N requests, then /files/NAME
  /redirect/NAME         302 to /files/NAME (relative Location)
  /same                  302 to /echo-headers on the same host
  /elsewhere/NAME        302 to http://localhost:PORT/files/NAME
  /hold/NAME             /files/NAME, held (up to a minute) while the file
                         DOCROOT/hold-NAME exists
  /cross                 302 to http://localhost:PORT/echo-headers
  /loop                  302 to itself
  /to-file               302 to file:///etc/passwd
  /echo-headers          the request headers as the body
  /stall                 200, Content-Length 1000, 10 bytes, then silence
  /reset                 200, Content-Length 100000, 1000 bytes, then a TCP RST
  /short                 200, Content-Length 5000, 100 bytes, then a clean close
  /chunked-cut           200, chunked, one chunk, then a clean close
  /slow/NAME             /files/NAME in pieces over ~0.4 s; concurrency tracked
  /errorpage             200 with an HTML error page as the body
  /endless/CODE          status CODE (a 302 goes to /files/a.html) with an
                         endless chunked body; /_sent?path=P tells how many
                         body bytes were written before the client hung up
  /random/N              N bytes of incompressible data
  /gate/NAME             /files/NAME, held until GATE requests are open at
                         once, or as many as are left of TOTAL (or 10 s
                         passed): a client that keeps GATE downloads in
                         flight meets exactly GATE, deterministically
  /_gate?n=N&total=T     sets GATE and TOTAL, resets the counts
  /_maxgate              the highest number of /gate requests open at once
  /_count?path=P         how many requests P got
  /_headers?host=H       the request headers of every request to Host H
  /_maxconc              the highest number of /slow requests served at once
"""

import gzip
import os
import socket
import struct
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DOCROOT = sys.argv[1]
COUNTS = {}
LOCK = threading.Lock()
SLOW = {"now": 0, "max": 0}
SENT = {}
GATE = {"n": 3, "total": 1 << 30, "done": 0, "now": 0, "max": 0}
GATE_COND = threading.Condition(LOCK)
HEADERS = {}
ERROR_PAGE = b"<html><body><h1>502 Bad Gateway</h1></body></html>\n"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def reply(self, status, body, headers=()):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def redirect(self, location):
        self.reply(302, b"moved\n", [("Location", location)])

    def read_file(self, name):
        path = os.path.join(DOCROOT, os.path.basename(name))
        try:
            with open(path, "rb") as f:
                return f.read()
        except OSError:
            return None

    def serve_file(self, name, encoded=False):
        data = self.read_file(name)
        if data is None:
            return self.reply(404, b"not found\n")
        if not encoded:
            return self.reply(200, data, [("Content-Type", "application/octet-stream")])
        if "gzip" not in self.headers.get("Accept-Encoding", ""):
            return self.reply(406, b"gzip only\n")
        self.reply(200, gzip.compress(data), [("Content-Encoding", "gzip")])

    def endless(self, code):
        self.close_connection = True
        self.send_response(code)
        if code == 302:
            self.send_header("Location", "/files/a.html")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chunk = b"%x\r\n" % 65536 + b"e" * 65536 + b"\r\n"
        sent = 0
        try:
            # At most 1 GiB, so that a client that never stops cannot keep
            # the test busy for ever.
            while sent < 1 << 30:
                self.wfile.write(chunk)
                sent += 65536
                with LOCK:
                    SENT[self.path] = sent
        except OSError:
            pass

    def gate(self, name):
        data = self.read_file(name)
        with GATE_COND:
            GATE["now"] += 1
            GATE["max"] = max(GATE["max"], GATE["now"])
            GATE_COND.notify_all()
            # Open once GATE requests are in, or all that are left of the
            # batch of GATE_TOTAL (the last round may be smaller).
            GATE_COND.wait_for(lambda: GATE["now"] >= min(GATE["n"], GATE["total"] - GATE["done"]),
                               timeout=10)
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        # The request leaves the count before its last byte: the client
        # cannot start the next download before this one is uncounted.
        self.wfile.write(data[:-1])
        self.wfile.flush()
        with GATE_COND:
            GATE["now"] -= 1
            GATE["done"] += 1
            GATE_COND.notify_all()
        self.wfile.write(data[-1:])

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        parts = url.path.split("/")[1:]
        if not url.path.startswith("/_"):
            with LOCK:
                COUNTS[self.path] = COUNTS.get(self.path, 0) + 1
                count = COUNTS[self.path]
                host = self.headers.get("Host", "").rsplit(":", 1)[0]
                HEADERS.setdefault(host, []).append(str(self.headers))

        if url.path == "/_count":
            with LOCK:
                n = COUNTS.get(query["path"][0], 0)
            return self.reply(200, b"%d" % n)
        if url.path == "/_headers":
            with LOCK:
                text = "".join(HEADERS.get(query["host"][0], []))
            return self.reply(200, text.encode())
        if url.path == "/_maxconc":
            return self.reply(200, b"%d" % SLOW["max"])
        if url.path == "/_sent":
            with LOCK:
                n = SENT.get(query["path"][0], 0)
            return self.reply(200, b"%d" % n)
        if url.path == "/_gate":
            with LOCK:
                GATE.update(n=int(query["n"][0]), total=int(query["total"][0]), done=0, max=0)
            return self.reply(200, b"ok")
        if url.path == "/_maxgate":
            return self.reply(200, b"%d" % GATE["max"])
        if parts[0] == "endless" and len(parts) == 2:
            return self.endless(int(parts[1]))
        if parts[0] == "random" and len(parts) == 2:
            return self.reply(200, os.urandom(int(parts[1])))
        if parts[0] == "gate" and len(parts) == 2:
            return self.gate(parts[1])
        if parts[0] == "files" and len(parts) == 2:
            return self.serve_file(parts[1], query.get("encoded") == ["1"])
        if parts[0] == "status" and len(parts) == 2:
            return self.reply(int(parts[1]), b"error %s\n" % parts[1].encode())
        if parts[0] == "flaky" and len(parts) == 3:
            if count <= int(parts[1]):
                return self.reply(500, b"try again\n")
            return self.serve_file(parts[2])
        if parts[0] == "redirect" and len(parts) == 2:
            return self.redirect("../files/" + parts[1])
        if parts[0] == "hold" and len(parts) == 2:
            # Held for a minute while DOCROOT/hold-NAME exists.
            for _ in range(600):
                if not os.path.exists(os.path.join(DOCROOT, "hold-" + parts[1])):
                    break
                time.sleep(0.1)
            return self.serve_file(parts[1])
        if parts[0] == "elsewhere" and len(parts) == 2:
            return self.redirect("http://localhost:%d/files/%s" % (self.server.server_port, parts[1]))
        if url.path == "/same":
            return self.redirect("/echo-headers")
        if url.path == "/cross":
            return self.redirect("http://localhost:%d/echo-headers" % self.server.server_port)
        if url.path == "/loop":
            return self.redirect("/loop")
        if url.path == "/to-file":
            return self.redirect("file:///etc/passwd")
        if url.path == "/echo-headers":
            return self.reply(200, str(self.headers).encode())
        if url.path == "/errorpage":
            return self.reply(200, ERROR_PAGE, [("Content-Type", "text/html")])
        if url.path == "/stall":
            self.close_connection = True
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"x" * 10)
            self.wfile.flush()
            time.sleep(10)
            return
        if url.path in ("/reset", "/short"):
            self.close_connection = True
            full, sent = (100000, 1000) if url.path == "/reset" else (5000, 100)
            self.send_response(200)
            self.send_header("Content-Length", str(full))
            self.end_headers()
            self.wfile.write(b"y" * sent)
            self.wfile.flush()
            if url.path == "/reset":
                # SO_LINGER 0: close() sends a RST instead of a FIN.
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                           struct.pack("ii", 1, 0))
                self.connection.close()
            return
        if url.path == "/chunked-cut":
            # A chunked body that stops before its last chunk.
            self.close_connection = True
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(b"400\r\n" + b"z" * 0x400 + b"\r\n")
            self.wfile.flush()
            return
        if parts[0] == "slow" and len(parts) == 2:
            data = self.read_file(parts[1])
            if data is None:
                return self.reply(404, b"not found\n")
            with LOCK:
                SLOW["now"] += 1
                SLOW["max"] = max(SLOW["max"], SLOW["now"])
            try:
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                step = max(1, len(data) // 4)
                for i in range(0, len(data), step):
                    # Sleep before a piece, not after the last one: once the
                    # client has the whole body this request no longer counts.
                    if i > 0:
                        time.sleep(0.1)
                    self.wfile.write(data[i:i + step])
                    self.wfile.flush()
            finally:
                with LOCK:
                    SLOW["now"] -= 1
            return
        self.reply(404, b"no such endpoint\n")


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # Clients that hang up (size limits, timeouts) are part of the tests.
        pass


def main():
    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
