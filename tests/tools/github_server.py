#!/usr/bin/env python3
"""Loopback imitation of GitHub's Actions REST API, for tests/sh/runs_github.sh
(standard library only).

Usage: github_server.py WORLD.json
WORLD.json: {"token": "T" or null, "page_size": N,
             "runs": [{"id", "head_sha", "created_at", "head_branch", "workflow",
                       "artifacts": [{"id", "name", "file", "expired"}]}]}
Binds two servers on 127.0.0.1, prints "API_PORT BLOB_PORT" and serves until
killed.  The API (documented paths, JSON fields and headers of
docs.github.com/rest/actions):

  GET /api/repos/O/R/actions/runs                  workflow_runs, newest first;
  GET /api/repos/O/R/actions/workflows/W/runs      filters branch=, created=A..B
                                                   (A or B may be *); pages of
                                                   page_size with Link rel="next"
  GET /api/repos/O/R/actions/runs/ID/artifacts     artifacts, paged likewise
  GET /api/repos/O/R/actions/artifacts/ID/zip      302 to the blob server (another
                                                   origin: another port) with a
                                                   signed query; 410 when expired
With a token, every API request without "Authorization: Bearer TOKEN" gets
401 {"message": "Bad credentials"}.  The blob server answers 403 to any request
that carries an Authorization header, else the zip (the file's bytes).
  /_ratelimit?on=1|0   API requests answer 403 with x-ratelimit-remaining: 0
  /_count?path=P       requests P got (path without the query); on either port
  /_auth_seen          how many blob requests carried an Authorization header
"""

import json
import re
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

WORLD = json.load(open(sys.argv[1]))
LOCK = threading.Lock()
COUNTS = {}
STATE = {"ratelimit": False, "auth_seen": 0}
PORTS = {}


def count(path):
    with LOCK:
        COUNTS[path] = COUNTS.get(path, 0) + 1


class Base(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def reply(self, status, body, headers=()):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            headers = list(headers) + [("Content-Type", "application/json; charset=utf-8")]
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def control(self, url):
        q = urllib.parse.parse_qs(url.query)
        if url.path == "/_count":
            with LOCK:
                return self.reply(200, str(COUNTS.get(q["path"][0], 0)).encode())
        if url.path == "/_ratelimit":
            STATE["ratelimit"] = q["on"][0] == "1"
            return self.reply(200, b"ok")
        if url.path == "/_auth_seen":
            return self.reply(200, str(STATE["auth_seen"]).encode())
        return self.reply(404, b"no such control")


def page(items, query, base):
    """One page of items and its Link header (absolute URLs, as GitHub's)."""
    size = int(WORLD.get("page_size", 30))
    size = min(size, int(query.get("per_page", [size])[0]))
    n = int(query.get("page", ["1"])[0])
    chunk = items[(n - 1) * size:n * size]
    headers = []
    if n * size < len(items):
        q = {k: v[0] for k, v in query.items()}
        q["page"] = str(n + 1)
        headers.append(("Link", '<%s?%s>; rel="next", <%s?page=%d>; rel="last"' % (
            base, urllib.parse.urlencode(q), base, (len(items) + size - 1) // size)))
    return chunk, headers


class Api(Base):
    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path.startswith("/_"):
            return self.control(url)
        count(url.path)
        limit = [("x-ratelimit-limit", "5000"), ("x-ratelimit-reset", str(int(time.time()) + 1800))]
        if STATE["ratelimit"]:
            return self.reply(403, {"message": "API rate limit exceeded"},
                              limit + [("x-ratelimit-remaining", "0")])
        limit.append(("x-ratelimit-remaining", "4999"))
        token = WORLD.get("token")
        if token and self.headers.get("Authorization") != "Bearer " + token:
            return self.reply(401, {"message": "Bad credentials"}, limit)
        query = urllib.parse.parse_qs(url.query)
        base = "http://127.0.0.1:%d%s" % (PORTS["api"], url.path)
        m = re.fullmatch(r"/api/repos/([^/]+)/([^/]+)/actions/(?:workflows/([^/]+)/)?runs", url.path)
        if m:
            runs = [r for r in WORLD["runs"] if m.group(3) in (None, r["workflow"], str(r.get("workflow_id")))]
            if "branch" in query:
                runs = [r for r in runs if r["head_branch"] == query["branch"][0]]
            if "created" in query:
                a, _, b = query["created"][0].partition("..")
                runs = [r for r in runs if (a == "*" or r["created_at"][:10] >= a) and
                        (b == "*" or r["created_at"][:10] <= b)]
            runs = sorted(runs, key=lambda r: r["created_at"], reverse=True)
            chunk, headers = page(runs, query, base)
            out = [{"id": r["id"], "name": "Daily load tests", "head_branch": r["head_branch"],
                    "head_sha": r["head_sha"], "status": "completed", "conclusion": "success",
                    "created_at": r["created_at"], "run_started_at": r["created_at"],
                    "artifacts_url": "http://127.0.0.1:%d/api/repos/%s/%s/actions/runs/%d/artifacts" % (
                        PORTS["api"], m.group(1), m.group(2), r["id"])} for r in chunk]
            return self.reply(200, {"total_count": len(runs), "workflow_runs": out}, limit + headers)
        m = re.fullmatch(r"/api/repos/([^/]+)/([^/]+)/actions/runs/(\d+)/artifacts", url.path)
        if m:
            run = next((r for r in WORLD["runs"] if r["id"] == int(m.group(3))), None)
            if run is None:
                return self.reply(404, {"message": "Not Found"}, limit)
            chunk, headers = page(run["artifacts"], query, base)
            out = [{"id": a["id"], "name": a["name"], "size_in_bytes": 1000, "expired": a.get("expired", False),
                    "url": "http://127.0.0.1:%d/api/repos/%s/%s/actions/artifacts/%d" % (
                        PORTS["api"], m.group(1), m.group(2), a["id"]),
                    "archive_download_url": "http://127.0.0.1:%d/api/repos/%s/%s/actions/artifacts/%d/zip" % (
                        PORTS["api"], m.group(1), m.group(2), a["id"]),
                    "created_at": run["created_at"], "expires_at": "2099-01-01T00:00:00Z",
                    "workflow_run": {"id": run["id"], "head_sha": run["head_sha"],
                                     "head_branch": run["head_branch"]}} for a in chunk]
            return self.reply(200, {"total_count": len(run["artifacts"]), "artifacts": out}, limit + headers)
        m = re.fullmatch(r"/api/repos/[^/]+/[^/]+/actions/artifacts/(\d+)/zip", url.path)
        if m:
            art = next((a for r in WORLD["runs"] for a in r["artifacts"] if a["id"] == int(m.group(1))), None)
            if art is None:
                return self.reply(404, {"message": "Not Found"}, limit)
            if art.get("expired"):
                return self.reply(410, {"message": "Artifact has expired"}, limit)
            where = "http://localhost:%d/blob/%d?sig=%d" % (PORTS["blob"], art["id"], int(time.time()))
            return self.reply(302, b"", limit + [("Location", where)])
        return self.reply(404, {"message": "Not Found"}, limit)


class Blob(Base):
    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path.startswith("/_"):
            return self.control(url)
        count(url.path)
        if "Authorization" in self.headers:
            with LOCK:
                STATE["auth_seen"] += 1
            return self.reply(403, b"<Error><Code>AuthenticationFailed</Code></Error>")
        m = re.fullmatch(r"/blob/(\d+)", url.path)
        art = next((a for r in WORLD["runs"] for a in r["artifacts"] if m and a["id"] == int(m.group(1))), None)
        if art is None:
            return self.reply(404, b"<Error><Code>BlobNotFound</Code></Error>")
        with open(art["file"], "rb") as f:
            self.reply(200, f.read(), [("Content-Type", "application/zip")])


api = ThreadingHTTPServer(("127.0.0.1", 0), Api)
blob = ThreadingHTTPServer(("127.0.0.1", 0), Blob)
PORTS["api"], PORTS["blob"] = api.server_address[1], blob.server_address[1]
threading.Thread(target=blob.serve_forever, daemon=True).start()
print(PORTS["api"], PORTS["blob"], flush=True)
api.serve_forever()
