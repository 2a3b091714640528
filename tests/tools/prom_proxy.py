#!/usr/bin/env python3
"""A tiny loopback HTTP front for the efficiency-lens tests: Grafana's
data-source proxy path in front of a Prometheus server, and the failures a
real front end produces.  Prints its port on stdout once listening.

  /api/datasources/proxy/uid/prom/...  forwarded to the Prometheus at
                                       UPSTREAM when the request carries
                                       "Authorization: Bearer TOKEN"; 401 otherwise
  /fail500/...                         HTTP 500 with a plain-text body
  /html/...                            HTTP 200 with an HTML login page
  /redirect/...                        HTTP 302 to /login

usage: prom_proxy.py UPSTREAM TOKEN
"""
import http.server
import sys
import urllib.request

UPSTREAM, TOKEN = sys.argv[1], sys.argv[2]
PREFIX = "/api/datasources/proxy/uid/prom"


class Handler(http.server.BaseHTTPRequestHandler):
    def reply(self, status, body, ctype="text/plain", extra=()):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.startswith(PREFIX + "/"):
            if self.headers.get("Authorization") != "Bearer " + TOKEN:
                return self.reply(401, '{"message":"Unauthorized"}', "application/json")
            try:
                with urllib.request.urlopen(UPSTREAM + self.path[len(PREFIX):]) as r:
                    return self.reply(r.status, r.read().decode(), "application/json")
            except urllib.error.HTTPError as e:
                return self.reply(e.code, e.read().decode(), "application/json")
        if self.path.startswith("/fail500/"):
            return self.reply(500, "internal error")
        if self.path.startswith("/html/"):
            return self.reply(200, "<!DOCTYPE html><html><body>Grafana login</body></html>", "text/html")
        if self.path.startswith("/redirect/"):
            return self.reply(302, "", extra=(("Location", "/login"),))
        return self.reply(404, "not found")

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
