"""A loopback HTTP server in a background thread that records what it is sent and answers with
whatever its subclass decides: the base of every fake provider speaking a real wire format (the
tests' scripted fakes, the benchmarks' quota-enforcing photo web). Request loops are bounded in bytes
and time and stop by themselves; every server is a context manager.
"""

from __future__ import annotations

import io
import json
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-cased names
    body: bytes


BodyWriter = Callable[[io.BufferedIOBase], None]


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | BodyWriter = b""


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _serve(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        recorded = Recorded(
            method=self.command,
            path=parts.path,
            query=parse_qs(parts.query),
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
        )
        owner = self.server.owner
        if owner.keeps_requests:
            with owner.lock:
                owner.requests.append(recorded)
        reply = owner.handle(recorded)
        try:
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if isinstance(reply.body, bytes):
                if "content-length" not in {k.lower() for k in reply.headers}:
                    self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)
            else:
                self.end_headers()
                reply.body(self.wfile)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (that is what a byte cap does)

    do_GET = _serve
    do_POST = _serve


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    owner: WireServer


class WireServer:
    """An HTTP server on 127.0.0.1:<free port> in a background thread (HTTPS when given `tls`)."""

    keeps_requests = True  # False: a long benchmark would fill memory with what it was sent

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.tls = tls
        self.requests: list[Recorded] = []
        self.lock = threading.Lock()
        self._server: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    def handle(self, request: Recorded) -> Reply:
        raise NotImplementedError

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("server not started")
        host, port = self._server.server_address[:2]
        return f"{'https' if self.tls else 'http'}://{host!s}:{port}"

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("server not started")
        return int(self._server.server_address[1])

    def start(self) -> Self:
        server = _HTTPServer(("127.0.0.1", 0), _Handler)
        server.owner = self
        if self.tls is not None:
            server.socket = self.tls.wrap_socket(server.socket, server_side=True)
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def json_reply(status: int, document: Any, content_type: str = "application/json", **headers: str) -> Reply:
    return Reply(status, {"Content-Type": content_type, **headers}, json.dumps(document).encode())
