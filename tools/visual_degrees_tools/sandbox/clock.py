"""Simulated time: a clock that only moves when a simulated call charges it.

Latencies are typical figures for one call of each provider (docs/sandbox.md):
an image search API round trip, an image download, a RecognizeCelebrities call, an LLM reply of a
few hundred tokens, and the Step Functions overhead between two states.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from visual_degrees.domain.errors import InvalidInput

T = TypeVar("T")

# 2024-01-01T00:00:00Z: a fixed start so simulated timestamps are reproducible (the benchmarks').
EPOCH = 1_704_067_200.0
_START_GRID = 1024  # a dated start is a whole number of 1/1024 s


def dated_start(wall: float) -> float:
    """Where the clock of a run started at `wall` (epoch seconds) starts, so its events carry the
    run's real date plus simulated time: `wall` rounded down to 1/1024 s. Simulated durations stay
    bit for bit those of a clock started at EPOCH: floats in EPOCH's binade, [2**30, 2**31) s (until
    2038), are all multiples of 2**-22 s, so from any start that is an even multiple of that every
    latency added rounds the same way."""
    return math.floor(wall * _START_GRID) / _START_GRID


@dataclass(frozen=True)
class Latencies:
    """Seconds one call takes on the virtual clock."""

    search: float = 0.5
    fetch: float = 0.3
    recognize: float = 0.7
    llm: float = 1.5
    state_transition: float = 0.05
    # Decoding a WebP and re-encoding it, as the live fetcher does before recognition.
    transcode: float = 0.1
    # A fetch that times out costs the fetcher's whole timeout.
    fetch_timeout: float = 5.0
    # A throttled call (429) is refused at once.
    throttled: float = 0.1


LATENCIES = Latencies()


class VirtualClock:
    """The Clock port in simulated seconds. `gather` forks and joins: every call starts at the same
    instant, and the clock ends at the latest finish, so parallel calls overlap as they would live.
    """

    def __init__(self, start: float = EPOCH) -> None:
        self._now = float(start)

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> float:
        if not seconds >= 0:  # also rejects NaN
            raise InvalidInput(f"the clock cannot move by {seconds!r} seconds")
        self._now += seconds
        return self._now

    def sleep(self, seconds: float) -> None:
        """For retry helpers written against time.sleep: a back-off costs simulated time only."""
        self.advance(seconds)

    def gather(self, calls: Sequence[Callable[[], T]]) -> list[T | BaseException]:
        start = self._now
        finish = start
        results: list[T | BaseException] = []
        for call in calls:
            self._now = start
            try:
                results.append(call())
            except Exception as exc:  # returned in place, as the port promises
                results.append(exc)
            finish = max(finish, self._now)
        self._now = finish
        return results
