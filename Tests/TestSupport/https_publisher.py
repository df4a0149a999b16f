#!/usr/bin/env python3
"""A local publisher for the `fetch` tests: serves the files of ROOT over HTTPS (and plain HTTP, as
the target of a refused redirect) on 127.0.0.1, with ETag and Last-Modified and conditional
requests. A file NAME is served at /NAME; its behaviour is switched by ROOT/.mode/NAME:

  (none)          200, ETag and Last-Modified; 304 when If-None-Match or If-Modified-Since match
  etag-only       the same with ETag only;  lm-only: with Last-Modified only
  status CODE     CODE, with the file's bytes as the body
  truncate        a Content-Length 16 bytes longer than the body, then the connection closes
  redirect N      N redirects (302) to /NAME?hop=K, then the file
  redirect-http   one redirect to the plain HTTP listener
  slow S          the file after S seconds
  etag-cr         as (none), with an ETag holding a bare CR and an "X-Injected: 1" after it

A request with ?final=1 gets the file whatever the mode. Every request is logged as a JSON line to
LOG. Prints {"https": PORT, "http": PORT} on stdout once both listen, and runs until its stdin
closes (or SIGTERM). Python's standard library only.
"""
import email.utils
import hashlib
import http.server
import json
import os
import signal
import ssl
import sys
import threading
import time
import urllib.parse

root, certificate, key, log_path = sys.argv[1:5]
# A test's thread may have left signals blocked: SIGTERM must end this process.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
log_lock = threading.Lock()
ports = {}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def record(self, status):
        entry = {
            "path": self.path,
            "status": status,
            "tls": isinstance(self.connection, ssl.SSLSocket),
            "if_none_match": self.headers.get("If-None-Match"),
            "if_modified_since": self.headers.get("If-Modified-Since"),
            "x_injected": self.headers.get("X-Injected"),
        }
        with log_lock, open(log_path, "a") as log:
            log.write(json.dumps(entry) + "\n")

    def send(self, status, body=b"", headers=(), length=None):
        self.record(status)
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def do_GET(self):
        parsed = urllib.parse.urlsplit(self.path)
        name = parsed.path.lstrip("/")
        query = urllib.parse.parse_qs(parsed.query)
        path = os.path.join(root, name)
        if "/" in name or name.startswith(".") or not os.path.isfile(path):
            return self.send(404, b"no such file")
        with open(path, "rb") as file:
            body = file.read()
        mtime = int(os.stat(path).st_mtime)
        mode = []
        mode_path = os.path.join(root, ".mode", name)
        if "final" not in query and os.path.isfile(mode_path):
            with open(mode_path) as file:
                mode = file.read().split()
        hop = int(query.get("hop", ["0"])[0])
        if mode[:1] == ["status"]:
            return self.send(int(mode[1]), body)
        if mode[:1] == ["truncate"]:
            return self.send(200, body, length=len(body) + 16)
        if mode[:1] == ["redirect"] and hop < int(mode[1]):
            return self.send(302, headers=[("Location", f"/{name}?hop={hop + 1}")])
        if mode[:1] == ["redirect-http"]:
            target = f"http://127.0.0.1:{ports['http']}/{name}?final=1"
            return self.send(302, headers=[("Location", target)])
        if mode[:1] == ["slow"]:
            time.sleep(float(mode[1]))
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        last_modified = email.utils.formatdate(mtime, usegmt=True)
        headers = []
        if mode[:1] == ["etag-cr"]:  # a hostile ETag: a bare CR and what a server would read as a header
            etag = '"x"\rX-Injected: 1'
        if mode[:1] != ["lm-only"]:
            headers.append(("ETag", etag))
        if mode[:1] != ["etag-only"]:
            headers.append(("Last-Modified", last_modified))
        match = self.headers.get("If-None-Match")
        since = self.headers.get("If-Modified-Since")
        if mode[:1] != ["lm-only"] and match is not None:
            if match == etag:
                return self.send(304, headers=headers, length=0)
        elif mode[:1] != ["etag-only"] and since is not None:
            try:
                if mtime <= email.utils.parsedate_to_datetime(since).timestamp():
                    return self.send(304, headers=headers, length=0)
            except (TypeError, ValueError):
                pass
        return self.send(200, body, headers=headers)


def serve(server):
    server.serve_forever()


context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(certificate, key)
secure = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
secure.daemon_threads = True
secure.socket = context.wrap_socket(secure.socket, server_side=True)
plain = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
plain.daemon_threads = True
ports["https"] = secure.server_address[1]
ports["http"] = plain.server_address[1]
threading.Thread(target=serve, args=(plain,), daemon=True).start()
threading.Thread(target=serve, args=(secure,), daemon=True).start()
print(json.dumps(ports), flush=True)
sys.stdin.read()  # the test closes stdin, or ends: then so does the publisher
