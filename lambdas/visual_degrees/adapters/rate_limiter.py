"""The RateLimiter port as slots: calls to a provider are spaced `1 / rate` seconds apart, and each
client's calls `1 / (rate * client_share)` apart, so one client never takes more than its share of a
provider's quota while others wait.

A call takes two slots in turn. First its client's (the client's own queue: a client with twenty
calls waiting holds twenty slots of its own queue, not of the provider's), then, when that slot has
come, the provider's (first come, first served among the clients whose turn it is). So the calls of
one heavy client reach the provider's queue at its share of the rate at most (even at a share of 1,
one client's many runs queue as one), and a light client's call waits behind no more than the rest
of the rate allows. This is a token bucket with a burst of
one (GCRA's virtual scheduling): strict spacing, which no per-second window of a provider refuses.

Where the slots live is a SlotStore: in process (`InProcessSlots`, shared by the runs of one
`visual-degrees` process) or in DynamoDB (adapters/aws/dynamodb_slots.py, shared by every Lambda).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

PROVIDERS = ("search", "recognition", "llm")
# Calls one client may make at once before its share of the rate spaces them (the images of one
# search are recognised together).
CLIENT_BURST = 5
STALE_SECONDS = 60.0  # an in-process queue idle this long is forgotten (it would grant at once anyway)


class SlotStore(Protocol):
    def take(self, key: str, interval: float, now: float, latest: float, ahead: float = 0.0) -> float | None:
        """Take the next free slot of queue `key`: slots are `interval` seconds apart and none is
        before `now`, but a caller may go up to `ahead` seconds before its slot (a burst: a queue
        idle a while lets that many calls go at once). Its time; None, and nothing taken, when it
        comes after `latest`."""
        ...


@dataclass(frozen=True)
class Rates:
    """Calls a second per provider (a provider not named is not paced) and the share of each rate
    one client may use (1: no per-client limit)."""

    per_second: Mapping[str, float] = field(default_factory=dict)
    client_share: float = 1.0

    def __post_init__(self) -> None:
        unknown = set(self.per_second) - set(PROVIDERS)
        if unknown:
            raise ValueError(f"no provider {sorted(unknown)}; pace one of {PROVIDERS}")
        if any(not rate > 0 for rate in self.per_second.values()):
            raise ValueError("rates must be > 0 calls a second")
        if not 0 < self.client_share <= 1:
            raise ValueError("client_share must be > 0 and <= 1")


class SlotLimiter:
    """The RateLimiter port over a SlotStore. `now` and `sleep` are wall-clock (epoch) seconds:
    slots in DynamoDB are compared across machines."""

    def __init__(
        self,
        store: SlotStore,
        rates: Rates,
        *,
        now: Callable[[], float] = time.time,
        sleep: Callable[[float], object] = time.sleep,
    ) -> None:
        self._store = store
        self.rates = rates
        self._now = now
        self._sleep = sleep

    def turn(self, provider: str, client: str, now: float, deadline: float) -> float | None:
        """When `client` may queue for `provider` (its own queue's next slot), or None by `deadline`."""
        interval = 1.0 / (self.rates.per_second[provider] * self.rates.client_share)
        ahead = (CLIENT_BURST - 1) * interval
        return self._store.take(f"{provider}#client#{client}", interval, now, deadline, ahead)

    def slot(self, provider: str, now: float, deadline: float) -> float | None:
        """When a call to `provider` may go (the provider's queue's next slot), or None by `deadline`."""
        return self._store.take(provider, 1.0 / self.rates.per_second[provider], now, deadline)

    def acquire(self, provider: str, client: str, deadline: float) -> bool:
        if provider not in self.rates.per_second:
            return True
        turn = self.turn(provider, client, self._now(), deadline)
        if turn is None:
            return False
        self._wait_until(turn)
        slot = self.slot(provider, self._now(), deadline)
        if slot is None:
            return False
        self._wait_until(slot)
        return True

    def _wait_until(self, at: float) -> None:
        pause = at - self._now()
        if pause > 0:
            self._sleep(pause)


class InProcessSlots:
    """Slots in this process: the next free slot of each queue, under one lock."""

    def __init__(self) -> None:
        self._next: dict[str, float] = {}
        self._lock = threading.Lock()

    def take(self, key: str, interval: float, now: float, latest: float, ahead: float = 0.0) -> float | None:
        with self._lock:
            due = max(self._next.get(key, now), now)
            at = max(due - ahead, now)
            if at > latest:
                return None
            self._next[key] = due + interval
            if len(self._next) > 1024:  # clients come and go: drop the queues long idle
                self._next = {k: v for k, v in self._next.items() if v > now - STALE_SECONDS}
            return at


def in_process_limiter(rates: Rates) -> SlotLimiter:
    """One limiter for the runs of this process (the CLI, `visual-degrees serve`)."""
    return SlotLimiter(InProcessSlots(), rates)
