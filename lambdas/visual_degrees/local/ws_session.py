"""One WebSocket connection: its flood guard, its ordered outbox, and the runs it follows.

Every frame gets exactly one answer or is refused with an error reply; the connection stays usable
after any error (only sustained flooding or a client too slow to read closes it). Replies and events
share one FIFO outbox, so `runAccepted`/`subscribed` always precede that run's events.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from visual_degrees.domain.errors import VisualDegreesError
from visual_degrees.local.ws_broker import Broker, Subscription
from visual_degrees.local.ws_rate_limit import FloodGuard, RateLimits, Verdict
from visual_degrees.local.ws_runs import RunService
from visual_degrees.protocol import (
    RATE_LIMITED,
    TOO_MANY_RUNS,
    CancelRun,
    GetRun,
    ProtocolError,
    StartRun,
    Subscribe,
    error_reply,
    parse_message,
    reply_for,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_SUBSCRIPTIONS = 64  # runs one connection may follow at once
OUTBOX_LIMIT = 10_000  # unsent messages before we drop a client that does not read
FLUSH_SECONDS = 2.0
CLOSE_POLICY = 1008  # flooding
CLOSE_TRY_AGAIN = 1013  # too slow to read: reconnect and subscribe with fromSeq to catch up

Offload = Callable[[Callable[[], T]], Awaitable[T]]  # runs blocking work (SQLite) off the loop


class Socket(Protocol):
    async def send(self, message: str) -> None: ...
    async def close(self, code: int = 1000, reason: str = "") -> None: ...


class Outbox:
    """The connection's outgoing frames, in order, sent by one writer task. A client that stops
    reading is cut off at `limit` queued frames rather than buffered without end; the event log
    still holds everything, so it can reconnect and catch up with `fromSeq`."""

    def __init__(self, socket: Socket, limit: int = OUTBOX_LIMIT) -> None:
        self._socket = socket
        self._limit = limit
        self._queue: asyncio.Queue[str] = asyncio.Queue()
        self._closed = False
        self._close_reason = (1000, "")
        self._writer = asyncio.get_running_loop().create_task(self._drain())

    def push(self, text: str) -> None:
        if self._closed:
            return
        if self._queue.qsize() >= self._limit:
            self._cut_off(CLOSE_TRY_AGAIN, "too many unread messages; reconnect and subscribe with fromSeq")
            return
        self._queue.put_nowait(text)

    def push_json(self, reply: dict[str, Any]) -> None:
        self.push(json.dumps(reply, ensure_ascii=False, separators=(",", ":")))

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
        self._writer = asyncio.get_running_loop().create_task(self._socket.close(code, reason))

    async def _drain(self) -> None:
        try:
            while True:
                text = await self._queue.get()
                if not text:
                    break
                await self._socket.send(text)
        except Exception:  # the peer went away: nothing left to deliver to
            return
        await self._socket.close(*self._close_reason)


class Session:
    def __init__(
        self,
        socket: Socket,
        runs: RunService,
        broker: Broker,
        offload: Offload[Any],
        *,
        limits: RateLimits | None = None,
    ) -> None:
        self.id = f"local-{secrets.token_hex(8)}"
        self.outbox = Outbox(socket)
        self._runs = runs
        self._broker = broker
        self._offload = offload
        self._guard = FloodGuard(limits or RateLimits())
        self._subscriptions: dict[str, Subscription] = {}

    async def handle(self, frame: str | bytes) -> None:
        verdict = self._guard.check()
        if verdict is Verdict.DISCONNECT:
            self.outbox.close(CLOSE_POLICY, "too many messages")
            return
        if verdict is Verdict.REFUSE:
            self.outbox.push_json(error_reply(RATE_LIMITED, "too many messages; slow down"))
            return
        action: str | None = None
        try:
            message = parse_message(frame)
            action = message.action
            await self._dispatch(message)
        except Exception as exc:
            if not isinstance(exc, VisualDegreesError):
                log.exception("message failed", extra={"connection": self.id, "action": action})
            self.outbox.push_json(reply_for(exc, action))

    async def close(self) -> None:
        """The connection ended: stop following runs (they go on; a token brings the client back)."""
        for sub in self._subscriptions.values():
            self._broker.unsubscribe(sub)
        self._subscriptions.clear()
        if self.outbox.closing:  # we closed it: let the close frame (and what precedes it) go out
            await asyncio.wait([asyncio.ensure_future(self.outbox.flushed())], timeout=FLUSH_SECONDS)
        self.outbox.abandon()

    async def _dispatch(self, message: StartRun | Subscribe | CancelRun | GetRun) -> None:
        match message:
            case StartRun():
                await self._start(message)
            case Subscribe():
                await self._offload(lambda: self._runs.authorize(self.id, message.run_id, message.run_token))
                reply = {"type": "subscribed", "runId": message.run_id, "fromSeq": message.from_seq}
                await self._follow(message.run_id, message.from_seq, reply)
            case CancelRun():
                await self._offload(lambda: self._runs.cancel(self.id, message.run_id, message.run_token))
                self.outbox.push_json({"type": "cancelRequested", "runId": message.run_id})
            case GetRun():
                run = await self._offload(
                    lambda: self._runs.describe(self.id, message.run_id, message.run_token)
                )
                self.outbox.push_json(run)

    async def _start(self, message: StartRun) -> None:
        self._check_room(None)
        started = await self._offload(
            lambda: self._runs.start(self.id, message.person_a, message.person_b, message.options)
        )
        reply = {"type": "runAccepted", "runId": started.run_id, "runToken": started.token}
        await self._follow(started.run_id, 1, reply)

    async def _follow(self, run_id: str, from_seq: int, reply: dict[str, Any]) -> None:
        """Send `reply`, then subscribe this connection to `run_id` (replacing any earlier
        subscription to it): the stored events from `from_seq` follow, then live ones."""
        self._check_room(run_id)
        old = self._subscriptions.pop(run_id, None)
        if old is not None:
            self._broker.unsubscribe(old)
        self.outbox.push_json(reply)
        self._subscriptions[run_id] = await self._broker.subscribe(run_id, from_seq, self.outbox.push)

    def _check_room(self, run_id: str | None) -> None:
        for finished in [r for r, s in self._subscriptions.items() if s.finished]:
            del self._subscriptions[finished]
        if run_id not in self._subscriptions and len(self._subscriptions) >= MAX_SUBSCRIPTIONS:
            raise ProtocolError(TOO_MANY_RUNS, f"this connection follows {MAX_SUBSCRIPTIONS} runs already")
