"""Per-connection flood control: a token bucket for messages, and a second one for refusals.

A client over its rate gets `rate_limited` replies and stays connected; one that keeps sending
regardless (refusals outrun their own, slower bucket) is disconnected. Each connection has its own
guard, so one client's flood never costs another client anything.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum


class Verdict(Enum):
    ALLOW = "allow"
    REFUSE = "refuse"  # answer `rate_limited`, keep the connection
    DISCONNECT = "disconnect"  # sustained abuse: close the connection


@dataclass(frozen=True)
class RateLimits:
    messages_per_second: float = 20.0
    burst: float = 40.0
    # Refusals tolerated in a row before we give up on the client, refilled at this rate.
    refusals_burst: float = 100.0
    refusals_per_second: float = 5.0


class TokenBucket:
    def __init__(self, rate: float, burst: float, *, now: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("a token bucket needs rate > 0 and burst >= 1")
        self._rate = rate
        self._burst = burst
        self._now = now
        self._tokens = burst
        self._at = now()

    def take(self) -> bool:
        now = self._now()
        self._tokens = min(self._burst, self._tokens + (now - self._at) * self._rate)
        self._at = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False


class FloodGuard:
    def __init__(self, limits: RateLimits = RateLimits(), *, now: Callable[[], float] = time.monotonic):
        self._messages = TokenBucket(limits.messages_per_second, limits.burst, now=now)
        self._refusals = TokenBucket(limits.refusals_per_second, limits.refusals_burst, now=now)

    def check(self) -> Verdict:
        if self._messages.take():
            return Verdict.ALLOW
        return Verdict.REFUSE if self._refusals.take() else Verdict.DISCONNECT
