"""Run events to subscribers: replay from the stored log, then live, with no gap and no duplicate.

Everything here runs on the server's event loop, so no locks: run threads hand their events over with
`loop.call_soon_threadsafe` (see `BrokerSink`). A subscription is registered *before* the log is
read; events published while the read is in flight wait in its `pending` buffer. Because an event is
stored before it is published, anything published before the registration is in the read, and
anything after is in the buffer: merged by `seq`, the two cover every event exactly once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from visual_degrees.domain.continuation import may_go_on
from visual_degrees.domain.models import RunEvent
from visual_degrees.domain.outcomes import TERMINAL_EVENTS
from visual_degrees.protocol import encode

_MAX_CATCH_UPS = 3  # re-reads when the buffer starts past what the log held (only expiry explains it)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Published:
    """An event as it goes on the wire: encoded once, shared by every subscriber. `last`: nothing
    can follow it (an ending no continuation may follow, domain/continuation.may_go_on)."""

    run_id: str
    seq: int
    type: str
    text: str
    last: bool = False

    @property
    def terminal(self) -> bool:
        return self.type in TERMINAL_EVENTS

    @classmethod
    def of(cls, event: RunEvent) -> Published:
        last = not may_go_on(event.type, event.data)
        return cls(event.run_id, event.seq, event.type, encode_event(event), last)


def encode_event(event: RunEvent) -> str:
    """The frame of a stored event, within one message's limit (protocol.encode)."""
    return encode(event.dump())


ReadLog = Callable[[str, int], Awaitable[list[Published]]]  # (run_id, from_seq) -> stored events


class Subscription:
    """One connection following one run. `send` must not block (it queues on the connection).

    It is `finished` once the run's last event went out (an ending nothing can follow); after an
    ending a continuation may follow (a budget ran out), it stays, `resting`, so a continuation's
    events reach it as they come."""

    def __init__(self, run_id: str, from_seq: int, send: Callable[[str], None]) -> None:
        self.run_id = run_id
        self.next_seq = from_seq
        self.finished = False
        self.resting = False
        self.delivered = 0
        self._send = send
        self._pending: dict[int, Published] | None = {}  # None once live

    @property
    def live(self) -> bool:
        return self._pending is None

    def offer(self, event: Published) -> bool:
        """Take a live event. False when it reveals a gap the caller must fill from the log."""
        if self.finished or event.seq < self.next_seq:
            return True  # already sent (replay and live overlap here)
        if self._pending is not None:
            self._pending[event.seq] = event
            return True
        if event.seq > self.next_seq:
            self._pending = {event.seq: event}
            return False
        self._emit(event)
        return True

    def merge(self, stored: list[Published]) -> bool:
        """Send what the log held, then the buffer in order; True once nothing is left missing."""
        for event in stored:
            if event.seq == self.next_seq and not self.finished:
                self._emit(event)
        pending = self._pending or {}
        while self.next_seq in pending and not self.finished:
            self._emit(pending.pop(self.next_seq))
        for seq in [s for s in pending if s < self.next_seq]:
            del pending[seq]
        if pending and not self.finished:
            return False
        self._pending = None
        return True

    def give_up_gap(self) -> None:
        """Events we cannot recover (expired): skip to what we have rather than stall forever."""
        pending = self._pending or {}
        for seq in sorted(pending):
            if seq >= self.next_seq and not self.finished:
                self.next_seq = seq
                self._emit(pending[seq])
        self._pending = None

    def _emit(self, event: Published) -> None:
        self._send(event.text)
        self.delivered += 1
        self.next_seq = event.seq + 1
        self.resting = event.terminal
        if event.last:
            self.finished = True


class Broker:
    def __init__(self, read_log: ReadLog) -> None:
        self._read_log = read_log
        self._subscribers: dict[str, set[Subscription]] = {}
        self._catching_up: set[asyncio.Task[None]] = set()  # held, or the loop may drop them

    def publish(self, event: Published) -> None:
        for sub in list(self._subscribers.get(event.run_id, ())):
            if not sub.offer(event):
                task = asyncio.get_running_loop().create_task(self._catch_up(sub))
                self._catching_up.add(task)
                task.add_done_callback(self._catching_up.discard)
            if sub.finished:
                self.unsubscribe(sub)

    async def subscribe(self, run_id: str, from_seq: int, send: Callable[[str], None]) -> Subscription:
        """Register, then replay the log from `from_seq`; live events follow as they come."""
        sub = Subscription(run_id, from_seq, send)
        self._subscribers.setdefault(run_id, set()).add(sub)
        try:
            await self._catch_up(sub)
        except BaseException:
            self.unsubscribe(sub)
            raise
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        subs = self._subscribers.get(sub.run_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._subscribers[sub.run_id]

    def subscriber_count(self) -> int:
        return sum(len(s) for s in self._subscribers.values())

    async def _catch_up(self, sub: Subscription) -> None:
        for _ in range(_MAX_CATCH_UPS):
            stored = await self._read_log(sub.run_id, sub.next_seq)
            if sub.merge(stored):
                break
        else:
            log.warning("events missing from the log", extra={"runId": sub.run_id, "seq": sub.next_seq})
            sub.give_up_gap()
        if sub.finished:
            self.unsubscribe(sub)


class BrokerSink:
    """EventSink for run threads: encode in the run's thread, publish on the loop.

    `on_deliver(event, wall_time)` (benchmarks) sees each event as it is stored, in the run's thread.
    """

    def __init__(
        self,
        broker: Broker,
        loop: asyncio.AbstractEventLoop,
        on_deliver: Callable[[RunEvent, float], None] | None = None,
    ) -> None:
        self._broker = broker
        self._loop = loop
        self._on_deliver = on_deliver

    def deliver(self, event: RunEvent) -> None:
        if self._on_deliver is not None:
            self._on_deliver(event, time.time())
        # A closed loop means the server is gone; the event is stored, a reconnect would replay it.
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._broker.publish, Published.of(event))
