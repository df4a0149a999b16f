"""A local HTTPS publisher on 127.0.0.1 for the fetch model, in this process (Python's standard library): per URL
path a body (with an ETag, and a 304 to a matching If-None-Match), a redirect (302) to another path, or nothing
(404). `cache_304` makes it answer 304 to every conditional request for a body, as a stale cache in front of the
publisher would, until what it serves changes.

The server certificate (localhost, 127.0.0.1) comes from a throwaway CA made with the `openssl` command line, as
Tests/TestSupport/HTTPSPublisher.swift makes it; `ca_file` is what `fetch --ca-file` takes.
"""

from __future__ import annotations

import hashlib
import http.server
import ssl
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path


def etag_of(body: bytes) -> str:
    """The ETag the publisher gives a body (the model computes the same)."""
    return '"' + hashlib.sha256(body).hexdigest()[:16] + '"'


@dataclass(frozen=True)
class Request:
    """One request the publisher answered: its path, status and If-None-Match."""

    path: str
    status: int
    if_none_match: str | None


def _make_certificates(folder: Path) -> tuple[Path, Path, Path]:
    """A CA and a server certificate for localhost and 127.0.0.1: (CA certificate, server certificate, key)."""
    ca, ca_key = folder / "ca.pem", folder / "ca.key"
    server, server_key, csr = folder / "server.pem", folder / "server.key", folder / "server.csr"
    extensions = folder / "server.ext"
    extensions.write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n")
    ca_ext = ["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"]
    signed = ["-days", "2", "-extfile", extensions]
    curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    for args in (
        ["req", "-x509", *curve, "-keyout", ca_key, "-out", ca, "-days", "2", "-subj", "/CN=tvmodel test CA", *ca_ext],
        ["req", *curve, "-keyout", server_key, "-out", csr, "-subj", "/CN=localhost"],
        ["x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", server, *signed],
    ):
        subprocess.run(["openssl", *map(str, args)], capture_output=True, check=True, timeout=60)
    return ca, server, server_key


class Publisher:
    """Serves `bodies` and `redirects` by path over HTTPS on 127.0.0.1 until `close`."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.ca_file, certificate, key = _make_certificates(folder)
        self.lock = threading.Lock()
        self.bodies: dict[str, bytes] = {}
        self.redirects: dict[str, str] = {}
        self.cache_304 = False
        self.requests: list[Request] = []
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.server.daemon_threads = True
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return f"https://127.0.0.1:{self.port}{path}"

    def serve(self, path: str, body: bytes) -> None:
        with self.lock:
            self.redirects.pop(path, None)
            self.bodies[path] = body

    def redirect(self, path: str, target: str) -> None:
        """`path` answers 302 to `target` (a path of this publisher)."""
        with self.lock:
            self.bodies.pop(path, None)
            self.redirects[path] = target

    def clear(self) -> None:
        with self.lock:
            self.bodies.clear()
            self.redirects.clear()
            self.cache_304 = False
            self.requests.clear()

    def answer(self, path: str, if_none_match: str | None) -> tuple[int, bytes, list[tuple[str, str]]]:
        """The status, body and headers for a GET of `path`."""
        with self.lock:
            if path in self.redirects:
                status, body, headers = 302, b"", [("Location", self.url(self.redirects[path]))]
            elif path not in self.bodies:
                status, body, headers = 404, b"no such path", []
            else:
                body = self.bodies[path]
                etag = etag_of(body)
                if if_none_match is not None and self.cache_304:
                    status, body, headers = 304, b"", []
                elif if_none_match == etag:
                    status, body, headers = 304, b"", [("ETag", etag)]
                else:
                    status, headers = 200, [("ETag", etag)]
            self.requests.append(Request(path, status, if_none_match))
        return status, body, headers

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _handler(publisher: Publisher) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            status, body, headers = publisher.answer(self.path, self.headers.get("If-None-Match"))
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()

    return Handler
