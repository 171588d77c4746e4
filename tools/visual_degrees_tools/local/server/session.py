"""One WebSocket connection: its flood guard, its ordered outbox, and the runs it follows; and the
registry of connections that is the local server's Replies and Subscriptions.

Every frame gets exactly one answer or is refused with an error reply; the connection stays usable
after any error (only sustained flooding or a client too slow to read closes it). Replies and events
share one FIFO outbox, so `runAccepted`/`subscribed` always precede that run's events.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, Protocol, TypeVar

from visual_degrees.domain.errors import VisualDegreesError
from visual_degrees.lifecycle.runs_api import Caller, RunsApi
from visual_degrees.protocol import (
    RATE_LIMITED,
    TOO_MANY_RUNS,
    ProtocolError,
    encode,
    error_reply,
    parse_message,
    reply_for,
)
from visual_degrees_tools.local.server.broker import Broker, Subscription
from visual_degrees_tools.local.server.rate_limit import FloodGuard, RateLimits, Verdict

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_SUBSCRIPTIONS = 64  # runs one connection may follow at once
# Bytes queued for a connection before we drop it as a client that does not read: room for a long
# catch-up (MAX_REPLAY events) and dozens of the largest frames, never a gigabyte per connection.
OUTBOX_BYTES = 4 * 1024 * 1024
FLUSH_SECONDS = 2.0
CLOSE_POLICY = 1008  # flooding
CLOSE_TRY_AGAIN = 1013  # too slow to read: reconnect and subscribe with fromSeq to catch up

Offload = Callable[[Callable[[], T]], Awaitable[T]]  # runs blocking work (SQLite) off the loop


class Socket(Protocol):
    async def send(self, message: str) -> None: ...
    async def close(self, code: int = 1000, reason: str = "") -> None: ...


class Outbox:
    """The connection's outgoing frames, in order, sent by one writer task. A client that stops
    reading is cut off once `limit_bytes` wait unsent, rather than buffered without end; the event
    log still holds everything, so it can reconnect and catch up with `fromSeq`."""

    def __init__(self, socket: Socket, limit_bytes: int = OUTBOX_BYTES) -> None:
        self._socket = socket
        self._limit = limit_bytes
        self._queued = 0  # bytes waiting in the queue
        self._queue: asyncio.Queue[str] = asyncio.Queue()
        self._closed = False
        self._close_reason = (1000, "")
        self._writer = asyncio.get_running_loop().create_task(self._drain())

    def push(self, text: str) -> None:
        if self._closed:
            return
        size = _size(text)
        if self._queued + size > self._limit:
            self._cut_off(CLOSE_TRY_AGAIN, "too many unread messages; reconnect and subscribe with fromSeq")
            return
        self._queued += size
        self._queue.put_nowait(text)

    def push_json(self, reply: dict[str, Any]) -> None:
        self.push(encode(reply))

    @property
    def closing(self) -> bool:
        return self._closed

    def close(self, code: int, reason: str) -> None:
        """Stop queueing; close the socket once what is queued has been sent."""
        if not self._closed:
            self._closed = True
            self._close_reason = (code, reason)
            self._queue.put_nowait("")  # the writer stops at the first empty message

    async def flushed(self) -> None:
        """Wait until the writer has finished (sent everything and closed, or given up)."""
        await asyncio.wait([self._writer])

    def abandon(self) -> None:
        self._closed = True
        self._writer.cancel()

    def _cut_off(self, code: int, reason: str) -> None:
        # The writer may be stuck in a send to this very client: drop it and its backlog.
        self._closed = True
        self._writer.cancel()
        self._queue, self._queued = asyncio.Queue(), 0
        self._writer = asyncio.get_running_loop().create_task(self._socket.close(code, reason))

    async def _drain(self) -> None:
        try:
            while True:
                text = await self._queue.get()
                if not text:
                    break
                self._queued -= _size(text)
                await self._socket.send(text)
        except Exception:  # the peer went away: nothing left to deliver to
            return
        await self._socket.close(*self._close_reason)


def _size(text: str) -> int:
    """Bytes of `text` on the wire (UTF-8), without encoding the common, ASCII case."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))


class Session:
    """One connection: frames in, the protocol's use case (lifecycle/runs_api.py) in an I/O thread,
    its replies and the followed runs' events out through the outbox."""

    def __init__(
        self,
        socket: Socket,
        api: RunsApi,
        broker: Broker,
        offload: Offload[Any],
        *,
        limits: RateLimits | None = None,
        outbox_bytes: int = OUTBOX_BYTES,
        client_id: str | None = None,
    ) -> None:
        """`client_id`: whose connection this is; by default its own client (a share token's
        viewer is `viewer:<run id>`, lifecycle/run_sharing.py)."""
        self.id = f"local-{secrets.token_hex(8)}"
        self.outbox = Outbox(socket, outbox_bytes)
        self.caller = Caller(connection_id=self.id, client_id=client_id or self.id)
        self._api = api
        self._broker = broker
        self._offload = offload
        self._guard = FloodGuard(limits or RateLimits())
        self._subscriptions: dict[str, Subscription] = {}
        self._following: dict[str, asyncio.Task[None]] = {}  # run id -> its catch-up in flight

    async def handle(self, frame: str | bytes) -> None:
        verdict = self._guard.check()
        if verdict is Verdict.DISCONNECT:
            self.outbox.close(CLOSE_POLICY, "too many messages")
            return
        if verdict is Verdict.REFUSE:
            self.outbox.push_json(error_reply(RATE_LIMITED, "too many messages; slow down"))
            return
        action: str | None = None

        def answer() -> None:
            # Parsed in the I/O thread too: a frame up to the size limit is linear work, but the loop
            # serves every connection and never waits on one client's frame.
            nonlocal action
            message = parse_message(frame)
            action = message.action
            self._api.handle(self.caller, message)

        try:
            await self._offload(answer)
        except Exception as exc:
            if not isinstance(exc, VisualDegreesError):
                log.exception("message failed", extra={"connection": self.id, "action": action})
            self.outbox.push_json(reply_for(exc, action))

    async def close(self) -> None:
        """The connection ended: stop following runs (they go on; a token brings the client back)."""
        for task in list(self._following.values()):
            task.cancel()
        for sub in self._subscriptions.values():
            self._broker.unsubscribe(sub)
        self._subscriptions.clear()
        if self.outbox.closing:  # we closed it: let the close frame (and what precedes it) go out
            await asyncio.wait([asyncio.ensure_future(self.outbox.flushed())], timeout=FLUSH_SECONDS)
        self.outbox.abandon()

    # ---- on the loop, for Sessions --------------------------------------------------------------

    async def settle(self, run_id: str) -> None:
        """Before the reply to a subscribe: an earlier subscription to `run_id` still reading the log
        is not in _subscriptions yet, and its replay would follow this reply. Let it finish first (its
        events go out before the reply), or drop it if the log is that slow; then make room."""
        in_flight = self._following.get(run_id)
        if in_flight is not None:
            await asyncio.wait([in_flight], timeout=FLUSH_SECONDS)
            in_flight.cancel()  # no-op once done
        self.make_room(run_id)

    def make_room(self, run_id: str) -> None:
        """Before the reply: refuse a run beyond MAX_SUBSCRIPTIONS; stop following `run_id` (a
        resubscription replaces the old subscription, whose live events must not precede the reply).
        Runs that ended make room first: those that are over for good, then (only if room is still
        short) those that ended on a budget and might be continued."""
        for finished in [r for r, s in self._subscriptions.items() if s.finished]:
            del self._subscriptions[finished]
        if run_id not in self._subscriptions and len(self._subscriptions) >= MAX_SUBSCRIPTIONS:
            for resting in [r for r, s in self._subscriptions.items() if s.resting]:
                self._broker.unsubscribe(self._subscriptions.pop(resting))
                if len(self._subscriptions) < MAX_SUBSCRIPTIONS:
                    break
        if run_id not in self._subscriptions and len(self._subscriptions) >= MAX_SUBSCRIPTIONS:
            raise ProtocolError(TOO_MANY_RUNS, f"this connection follows {MAX_SUBSCRIPTIONS} runs already")
        old = self._subscriptions.pop(run_id, None)
        if old is not None:
            self._broker.unsubscribe(old)

    def follow(self, run_id: str, from_seq: int) -> None:
        """After the reply: subscribe to `run_id`; the stored events from `from_seq` come first."""
        task = asyncio.get_running_loop().create_task(self._follow(run_id, from_seq))
        self._following[run_id] = task

        def done(finished: asyncio.Task[None]) -> None:
            if self._following.get(run_id) is finished:
                del self._following[run_id]

        task.add_done_callback(done)

    async def _follow(self, run_id: str, from_seq: int) -> None:
        try:
            self._subscriptions[run_id] = await self._broker.subscribe(run_id, from_seq, self.outbox.push)
        except Exception as exc:
            log.exception("catch-up failed", extra={"connection": self.id, "runId": run_id})
            self.outbox.push_json(reply_for(exc, "subscribe"))


class Sessions:
    """The local server's Replies and Subscriptions (lifecycle/runs_api.py): connections by id. The
    use case runs in I/O threads; everything it asks of a connection is done on the loop, in order,
    so a reply always precedes the events of the subscription made after it."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def add(self, session: Session) -> None:
        with self._lock:
            self._sessions[session.id] = session

    def discard(self, session: Session) -> None:
        with self._lock:
            self._sessions.pop(session.id, None)

    def __iter__(self) -> Iterator[Session]:
        with self._lock:
            return iter(list(self._sessions.values()))

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)

    def _get(self, connection_id: str) -> Session | None:
        with self._lock:
            return self._sessions.get(connection_id)

    def send(self, connection_id: str, message: dict[str, Any]) -> bool:
        session = self._get(connection_id)
        if session is None or session.outbox.closing:
            return False
        self._loop.call_soon_threadsafe(session.outbox.push_json, message)
        return True

    def subscribe(self, connection_id: str, run_id: str, ttl_seconds: int) -> None:
        session = self._get(connection_id)
        if session is not None:
            asyncio.run_coroutine_threadsafe(session.settle(run_id), self._loop).result()

    def catch_up(self, connection_id: str, run_id: str, from_seq: int) -> None:
        session = self._get(connection_id)
        if session is not None:
            self._loop.call_soon_threadsafe(session.follow, run_id, from_seq)
