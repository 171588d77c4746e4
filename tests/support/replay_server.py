"""A stand-in for `visual-degrees serve` that replays one given run, event by event, as the test
releases them: the page exactly as the local server serves it (its files and Content-Security-Policy,
through `StaticSite`), a picture for every sandbox photo id, and the protocol's replies (`startRun` →
`runAccepted`, `subscribe` → `subscribed` then replay from `fromSeq`, `cancelRun` →
`cancelRequested`; every client message goes through `protocol.parse_message`, so the page cannot
send anything the real server would refuse). It lets a browser test drive the page through a run of
any size and shape, including event shapes servers do not send yet, and decide what it has seen.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from html import escape
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from visual_degrees.protocol import CancelRun, ProtocolError, StartRun, Subscribe, error_reply, parse_message
from visual_degrees_tools.local.server.http_static import StaticSite

GUARD_SECONDS = 30.0  # a deadlock guard for threads, never a timing assertion
RUN_ID = "replay-run-1"
RUN_TOKEN = "replay-token-1"
_PHOTO = re.compile(r"^/photos/([0-9a-f]{10})\.svg$")


class ReplayServer:
    """Serves on 127.0.0.1 (a free port); events reach clients only once `release`d."""

    def __init__(self, events: list[dict[str, Any]], photos: Mapping[str, list[str]] | None = None) -> None:
        self.events = [
            {
                "runId": RUN_ID,
                "seq": seq,
                "type": event["type"],
                "ts": f"2024-01-01T00:{seq // 60 % 60:02d}:{seq % 60:02d}.000Z",
                "data": event["data"],
            }
            for seq, event in enumerate(events, start=1)
        ]
        self._photo_names = {
            urlsplit(url).path.rsplit("/", 1)[-1]: names for url, names in (photos or {}).items()
        }
        self.received: list[dict[str, Any]] = []  # every client message, as sent
        self.refusing = False  # while True, WebSocket handshakes get 503 (the page stays offline)
        self._released = 0
        self._next: dict[ServerConnection, int] = {}  # per subscribed connection, the next seq to send
        self._lock: asyncio.Lock | None = None
        self._pumps: set[asyncio.Future[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._site = StaticSite(None)
        self.port = 0

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def release(self, upto: int) -> None:
        """Let events up to seq `upto` go to every subscribed client."""
        assert self._loop is not None
        self._loop.call_soon_threadsafe(self._release, min(upto, len(self.events)))

    def release_all(self) -> None:
        self.release(len(self.events))

    def seq_of(self, predicate: Any, start: int = 1) -> int:
        """The seq of the first event from `start` on that `predicate(event)` accepts."""
        return next(e["seq"] for e in self.events[start - 1 :] if predicate(e))

    def _release(self, upto: int) -> None:
        self._released = max(self._released, upto)
        pump = asyncio.ensure_future(self._pump())
        self._pumps.add(pump)  # held until done (the loop keeps only weak references to tasks)
        pump.add_done_callback(self._pumps.discard)

    async def _pump(self) -> None:
        assert self._lock is not None
        async with self._lock:
            for connection, seq in list(self._next.items()):
                try:
                    while seq <= self._released:
                        await connection.send(json.dumps(self.events[seq - 1]))
                        seq += 1
                except ConnectionClosed:
                    self._next.pop(connection, None)
                    continue
                self._next[connection] = seq

    async def _handle(self, connection: ServerConnection) -> None:
        try:
            async for frame in connection:
                await self._message(connection, frame)
        except ConnectionClosed:
            pass
        finally:
            self._next.pop(connection, None)

    async def _message(self, connection: ServerConnection, frame: str | bytes) -> None:
        try:
            message = parse_message(frame)
        except ProtocolError as exc:
            await connection.send(json.dumps(exc.reply()))
            return
        self.received.append(json.loads(frame))
        if isinstance(message, StartRun):
            await connection.send(json.dumps({"type": "runAccepted", "runId": RUN_ID, "runToken": RUN_TOKEN}))
            self._next[connection] = 1
        elif isinstance(message, Subscribe):
            if message.run_id != RUN_ID or message.run_token != RUN_TOKEN:
                reply = error_reply("run_not_found", "no such run", "subscribe")
                await connection.send(json.dumps(reply))
                return
            reply = {"type": "subscribed", "runId": RUN_ID, "fromSeq": message.from_seq}
            await connection.send(json.dumps(reply))
            self._next[connection] = message.from_seq
        elif isinstance(message, CancelRun):
            await connection.send(json.dumps({"type": "cancelRequested", "runId": RUN_ID}))
        else:
            await connection.send(json.dumps(error_reply("run_not_found", "no such run", "getRun")))
        await self._pump()

    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        path = urlsplit(request.path).path
        if path == "/ws":
            return connection.respond(HTTPStatus.SERVICE_UNAVAILABLE, "not now\n") if self.refusing else None
        if match := _PHOTO.match(path):
            body = _picture(match.group(1), self._photo_names.get(match.group(1) + ".svg", [])).encode()
            headers = Headers([("Content-Type", "image/svg+xml"), ("Content-Length", str(len(body)))])
            return Response(200, "OK", headers, body)
        return self._site.respond(path)

    async def serve(self, ready: threading.Event) -> None:
        self._loop = asyncio.get_running_loop()
        self._lock = asyncio.Lock()
        self._stop = asyncio.Event()
        async with serve(self._handle, "127.0.0.1", 0, process_request=self._http) as server:
            self.port = int(next(iter(server.sockets)).getsockname()[1])
            ready.set()
            await self._stop.wait()

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)


def _picture(photo_id: str, names: list[str]) -> str:
    """A stand-in photo: a tinted frame with a face and a name for everyone in it (text escaped)."""
    hue = int(photo_id[:2], 16) * 360 // 256
    width = 120 + 110 * max(2, len(names))
    faces = []
    for i, name in enumerate(names):
        x = 115 + 110 * i
        faces.append(
            f'<circle cx="{x}" cy="95" r="36" fill="#f3e3d3"/>'
            f'<rect x="{x - 48}" y="52" width="96" height="96" fill="none" stroke="#1d2430"/>'
            f'<text x="{x}" y="172" text-anchor="middle" font-size="15">{escape(name[:14])}</text>'
        )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="200" viewBox="0 0 {width} 200" '
        f'font-family="sans-serif"><rect width="{width}" height="200" fill="hsl({hue},30%,70%)"/>'
        f"{''.join(faces)}</svg>"
    )


@contextmanager
def replaying(
    events: list[dict[str, Any]], photos: Mapping[str, list[str]] | None = None
) -> Iterator[ReplayServer]:
    server = ReplayServer(events, photos)
    ready = threading.Event()
    failure: dict[str, BaseException] = {}

    def target() -> None:
        try:
            asyncio.run(server.serve(ready))
        except BaseException as exc:  # reported to the test below
            failure["error"] = exc
            ready.set()

    thread = threading.Thread(target=target, name="vd-replay-server", daemon=True)
    thread.start()
    if not ready.wait(GUARD_SECONDS) or failure:
        raise RuntimeError(f"replay server did not start: {failure.get('error')!r}")
    try:
        yield server
    finally:
        server.stop()
        thread.join(GUARD_SECONDS)
