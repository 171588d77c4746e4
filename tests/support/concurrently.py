"""Run one piece of work in several threads at once, for the tests of races."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def concurrently(work: Callable[[], T], threads: int) -> list[T]:
    """What `work` returned in each of `threads` threads, started together (a barrier) so that
    they race; in no particular order."""
    results: list[T] = []
    lock = threading.Lock()
    start = threading.Barrier(threads)

    def run() -> None:
        start.wait()
        result = work()
        with lock:
            results.append(result)

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return results
