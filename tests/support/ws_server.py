"""The local server on 127.0.0.1 in a background thread, and a gate that holds runs at state
boundaries so a test decides exactly when each run may take its next step."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from visual_degrees.domain.models import RunEvent
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.local.environments import SandboxEnvironment, require_known, sandbox_environment
from visual_degrees_tools.local.runner import RunEnvironment
from visual_degrees_tools.local.server.app import Address, LocalServer, ServeSettings
from visual_degrees_tools.local.server.runs import Stopped

GUARD_SECONDS = 30.0  # a deadlock guard for threads, never a timing assertion


@cache
def bundled_sandbox() -> SandboxEnvironment:
    """The bundled world's photo web, built once per test session (it takes a second)."""
    return sandbox_environment(None, seed=0)


class Gate:
    """Wraps a run environment: every state boundary waits for a credit (or for the gate to open)."""

    def __init__(self, environment: Callable[[str], RunEnvironment]) -> None:
        self._environment = environment
        self._cond = threading.Condition()
        self._credits = 0
        self._open = False
        self.waiting = 0  # runs currently held at a boundary

    def __call__(self, run_id: str) -> RunEnvironment:
        env = self._environment(run_id)
        inner = env.on_transition

        def on_transition(state: str) -> None:
            if inner is not None:
                inner(state)
            with self._cond:
                self.waiting += 1
                self._cond.notify_all()
                self._cond.wait_for(lambda: self._open or self._credits > 0, timeout=GUARD_SECONDS)
                if not self._open:
                    self._credits -= 1
                self.waiting -= 1
                self._cond.notify_all()

        return replace(env, on_transition=on_transition)

    def allow(self, steps: int) -> None:
        with self._cond:
            self._credits += steps
            self._cond.notify_all()

    def open(self) -> None:
        with self._cond:
            self._open = True
            self._cond.notify_all()

    def close(self) -> None:
        """Hold runs at their next boundary again (credits start from zero)."""
        with self._cond:
            self._open = False
            self._credits = 0

    def held(self, runs: int = 1, timeout: float = GUARD_SECONDS) -> bool:
        """Whether, within `timeout`, `runs` runs wait at a boundary with no credit left to move on
        (or the gate opens)."""
        with self._cond:
            return self._cond.wait_for(
                lambda: self._open or (self.waiting >= runs and self._credits == 0), timeout=timeout
            )

    def wait_until_held(self, runs: int = 1) -> None:
        if not self.held(runs):
            raise TimeoutError(f"{runs} runs never reached the gate")

    @property
    def is_open(self) -> bool:
        return self._open


@dataclass
class RunningServer:
    address: Address
    server: LocalServer
    memory: SqliteMemory
    stop: Callable[[], Stopped]

    @property
    def ws_url(self) -> str:
        return self.address.ws_url

    @property
    def http_url(self) -> str:
        return self.address.http_url


@contextmanager
def running_server(
    state_dir: Path,
    *,
    environment: Callable[[str], RunEnvironment] | None = None,
    sandbox: SandboxEnvironment | None = None,
    on_deliver: Callable[[RunEvent, float], None] | None = None,
    **settings: Any,
) -> Iterator[RunningServer]:
    """Serve on 127.0.0.1 (a free port) until the block ends; `settings` are ServeSettings fields.
    Runs go flat out (speed 0) unless a speed is given; `environment` replaces the sandbox's."""
    sandbox = sandbox or bundled_sandbox()
    memory = SqliteMemory(state_dir / "memory.sqlite3")
    config = ServeSettings(**{"host": "127.0.0.1", "port": 0, "speed": 0.0, **settings})
    server = LocalServer(
        memory,
        environment or sandbox,
        config,
        web=sandbox.web,
        require_known=lambda *names: require_known(sandbox, *names),
        on_deliver=on_deliver,
    )
    started = threading.Event()
    outcome: dict[str, Any] = {}
    loop_box: dict[str, Any] = {}

    def ready(_address: Address) -> None:
        started.set()

    async def main() -> None:
        loop_box["loop"] = asyncio.get_running_loop()
        loop_box["stop"] = stop_event = asyncio.Event()
        outcome["stopped"] = await server.serve(stop_event, ready)

    def target() -> None:
        try:
            asyncio.run(main())
        except BaseException as exc:
            outcome["error"] = exc
            started.set()

    thread = threading.Thread(target=target, name="vd-test-server", daemon=True)
    thread.start()
    if not started.wait(GUARD_SECONDS) or "error" in outcome:
        raise RuntimeError(f"server did not start: {outcome.get('error')!r}")

    def stop() -> Stopped:
        if thread.is_alive():
            loop_box["loop"].call_soon_threadsafe(loop_box["stop"].set)
            thread.join(GUARD_SECONDS)
        if "error" in outcome:
            raise outcome["error"]
        stopped: Stopped = outcome["stopped"]
        return stopped

    assert server.address is not None
    try:
        yield RunningServer(server.address, server, memory, stop)
    finally:
        if isinstance(environment, Gate):
            environment.open()  # a run still held at the gate would hold up the shutdown
        stop()
        memory.close()
