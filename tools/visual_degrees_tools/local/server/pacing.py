"""Sandbox runs at a watchable pace: each state boundary waits out the simulated time the previous
state took (divided by `speed`), so a run on the page unfolds like a deployed one instead of
finishing in a blink. Waits are interruptible: a cancel or a shutdown wakes the run at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace

from visual_degrees_tools.local.runner import RunEnvironment

MAX_PAUSE_SECONDS = 30.0  # one boundary never waits longer, whatever the simulated latency


class Pacer:
    """Wraps a run-environment factory; `speed` is simulated seconds per real second (> 0)."""

    def __init__(self, environment: Callable[[str], RunEnvironment], speed: float) -> None:
        if not speed > 0:
            raise ValueError("speed must be > 0 (leave the environment unwrapped to run flat out)")
        self._environment = environment
        self._speed = speed
        self._lock = threading.Lock()
        self._wakers: dict[str, threading.Event] = {}
        self._stopping = False

    def __call__(self, run_id: str) -> RunEnvironment:
        env = self._environment(run_id)
        clock, inner = env.clock, env.on_transition
        waker = threading.Event()
        with self._lock:
            self._wakers[run_id] = waker
            if self._stopping:
                waker.set()
        last: float | None = None

        def on_transition(state: str) -> None:
            # Wait out what the previous state took; the very first boundary starts at once (a
            # continuation's clock has just been moved on to where the run's last segment ended).
            nonlocal last
            pause = 0.0 if last is None else (clock.now() - last) / self._speed
            if pause > 0:
                waker.wait(min(pause, MAX_PAUSE_SECONDS))
            if inner is not None:
                inner(state)
            last = clock.now()

        return replace(env, on_transition=on_transition)

    def wake(self, run_id: str) -> None:
        """Stop pacing this run (it was cancelled: let it reach its next boundary now)."""
        with self._lock:
            waker = self._wakers.get(run_id)
        if waker is not None:
            waker.set()

    def forget(self, run_id: str) -> None:
        with self._lock:
            self._wakers.pop(run_id, None)

    def wake_all(self) -> None:
        with self._lock:
            self._stopping = True
            for waker in self._wakers.values():
                waker.set()
