"""The Clock port in real time, for live runs (the local CLI with live providers, and every Lambda)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class WallClock:
    """Real time; gather runs calls on threads (live providers do real I/O)."""

    def __init__(self, max_workers: int = 8) -> None:
        self._max_workers = max_workers

    def now(self) -> float:
        return time.time()

    def gather(self, calls: Sequence[Callable[[], T]]) -> list[T | BaseException]:
        def guarded(call: Callable[[], T]) -> T | BaseException:
            try:
                return call()
            except BaseException as exc:  # returned in place, as the port promises
                return exc

        with ThreadPoolExecutor(max_workers=min(self._max_workers, max(1, len(calls)))) as pool:
            return list(pool.map(guarded, calls))
