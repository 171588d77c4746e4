"""A peer on 127.0.0.1 (HTTP or HTTPS) that drips its answer a byte at a time, counting what it
sent before the client left: shows where a client cut the connection without timing it."""

from __future__ import annotations

import socket
import ssl
import threading
import time


def reply(body: bytes, content_type: str = "image/jpeg", padding: int = 0) -> tuple[bytes, bytes]:
    """(head, body) of a 200 answer; `padding` lengthens the head with a filler header."""
    head = f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
    if padding:
        head += f"X-Padding: {'p' * padding}\r\n"
    return (head + "\r\n").encode(), body


def redirect_head(location: str) -> bytes:
    return f"HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n".encode()


class DripServer:
    """Answers every connection with `head` then `body`, one byte every `interval` seconds from
    the start (drip="headers") or after the head (drip="body"), after `delay` seconds of silence.
    An interval of 0 sends all at once."""

    def __init__(
        self,
        head: bytes,
        body: bytes,
        drip: str,
        interval: float = 0.01,
        tls: ssl.SSLContext | None = None,
        delay: float = 0.0,
    ) -> None:
        self.head, self.body, self.drip, self.interval, self.tls = head, body, drip, interval, tls
        self.delay = delay
        self.sent = 0
        self.client_left = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}/a.jpg"

    @property
    def port(self) -> int:
        return int(self._listener.getsockname()[1])

    @property
    def total(self) -> int:
        return len(self.head) + len(self.body)

    def __enter__(self) -> DripServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._listener.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            connection.settimeout(5)  # a client that never sends its request cannot hang us
            try:
                if self.tls is not None:
                    connection = self.tls.wrap_socket(connection, server_side=True)
                with connection:
                    self._answer(connection)
            except OSError:  # reset, broken pipe, TLS EOF: the client gave up
                self.client_left.set()

    def _answer(self, connection: socket.socket) -> None:
        request = b""
        while b"\r\n\r\n" not in request:
            part = connection.recv(4096)
            if not part:
                return
            request += part
        time.sleep(self.delay)
        if self.drip == "body":
            connection.sendall(self.head)
            self.sent = len(self.head)
        if self.interval == 0:
            connection.sendall((self.head + self.body)[self.sent :])
            self.sent = self.total
        for i in range(self.sent, self.total):
            if self._stop.is_set():
                return
            connection.sendall((self.head + self.body)[i : i + 1])
            self.sent = i + 1
            time.sleep(self.interval)
