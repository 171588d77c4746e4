"""Runs behind the local WebSocket server: started in a bounded thread pool, owned per protocol.py
(the starting connection, or whoever holds the run token), cancelled at the next state boundary.

Every method may touch SQLite, so the server calls them from its I/O threads, never on its loop.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from visual_degrees.domain.errors import ConditionFailed, RunNotFound
from visual_degrees.domain.ids import new_run_id
from visual_degrees.domain.models import Person, RunOptions
from visual_degrees.domain.requests import parse_options, validate_pair
from visual_degrees.local.executions import ExecutionStore
from visual_degrees.local.runner import LocalRunner
from visual_degrees.local.ws_pacing import Pacer
from visual_degrees.ports import EventSink, Memory
from visual_degrees.protocol import TOO_MANY_RUNS, ProtocolError
from visual_degrees.services.event_log import EventLog
from visual_degrees.services.run_access import RunAccess
from visual_degrees.services.run_memory import RunMemory

log = logging.getLogger(__name__)

_STATUS_OF_TERMINAL = {
    "final": "succeeded",
    "no_path": "no_path",
    "cancelled": "cancelled",
    "error": "failed",
}
_ID_ATTEMPTS = 5  # run ids are second + 24 random bits: a clash is rare, two in a row rarer still


@dataclass(frozen=True)
class RunLimits:
    max_concurrent: int = 8  # runs executing at once (worker threads)
    max_waiting: int = 64  # accepted runs queued behind them; beyond this the server says it is busy
    per_client: int = 4  # unfinished runs one connection may have started

    def __post_init__(self) -> None:
        if self.max_concurrent < 1 or self.max_waiting < 0 or self.per_client < 1:
            raise ValueError("run limits must be positive")


@dataclass(frozen=True)
class Started:
    run_id: str
    token: str


class RunService:
    def __init__(
        self,
        runner: LocalRunner,
        sink: EventSink,
        *,
        limits: RunLimits = RunLimits(),
        require_known: Callable[[str, str], None] | None = None,
        pacer: Pacer | None = None,
    ) -> None:
        self._runner = runner
        self._memory: Memory = runner.memory
        self._sink = sink
        self._limits = limits
        self._require_known = require_known
        self._pacer = pacer
        self._access = RunAccess(self._memory)
        self._pool = ThreadPoolExecutor(max_workers=limits.max_concurrent, thread_name_prefix="vd-run")
        self._lock = threading.Lock()
        self._owners: dict[str, str] = {}  # unfinished run -> the connection that started it
        self._stopping = False

    # ---- the protocol's actions ----------------------------------------------------------------

    def start(self, owner: str, person_a: str, person_b: str, options: dict[str, Any] | None) -> Started:
        """Validate, reserve a slot, record ownership, queue the run. Raises before anything runs."""
        a, b = validate_pair(person_a, person_b)
        opts = parse_options(options)
        if self._require_known is not None:
            self._require_known(a.name, b.name)
        run_id, token = self._admit(owner, a, b, opts)
        try:
            self._pool.submit(self._execute, run_id, a, b, opts)
        except BaseException:
            self._release(run_id)
            raise
        log.info("run accepted", extra={"runId": run_id})
        return Started(run_id, token)

    def authorize(self, owner: str, run_id: str, token: str | None) -> dict[str, Any]:
        """The run's access record if `owner` may use it; RunNotFound otherwise."""
        return self._access.record(run_id, owner, token)

    def cancel(self, owner: str, run_id: str, token: str | None) -> None:
        record = self.authorize(owner, run_id, token)
        self._request_cancel(run_id, int(record.get("ttlSeconds", RunOptions().ttl_seconds)))

    def describe(self, owner: str, run_id: str, token: str | None) -> dict[str, Any]:
        """The `run` reply to getRun, with the fields the deployed API's reply has.

        Status (queued, running, succeeded, no_path, cancelled, failed) follows the terminal event
        when there is one: it is stored before the run's meta catches up, and a client asking right
        after receiving it must not be told the run is still going."""
        record = self.authorize(owner, run_id, token)
        memory = RunMemory(self._memory, run_id, int(record.get("ttlSeconds", RunOptions().ttl_seconds)))
        events = EventLog(self._memory)
        last_seq = events.last_seq(run_id)
        last = events.read(run_id, last_seq) if last_seq else []
        final = last[-1] if last and last[-1].type in _STATUS_OF_TERMINAL else None
        meta = memory.meta()
        if final is not None:
            status = _STATUS_OF_TERMINAL[final.type]
        else:
            status = str(meta.get("status", "running")) if meta else "queued"
        return {
            "type": "run",
            "runId": run_id,
            "status": status,
            "personA": record.get("personA"),
            "personB": record.get("personB"),
            "lastSeq": last_seq,
            "executionStatus": self._execution_status(run_id, started=meta is not None),
            "cancelRequested": memory.cancel_requested(),
            "final": final.dump() if final else None,
        }

    # ---- lifecycle -----------------------------------------------------------------------------

    @property
    def active(self) -> int:
        with self._lock:
            return len(self._owners)

    @property
    def stopped(self) -> bool:
        with self._lock:
            return self._stopping

    def shutdown(self) -> int:
        """Cancel every unfinished run, wait for the workers to reach a state boundary and stop.
        Returns how many runs were cancelled."""
        with self._lock:
            self._stopping = True
            unfinished = list(self._owners)
        for run_id in unfinished:
            self._request_cancel(run_id, RunOptions().ttl_seconds)
        if self._pacer is not None:
            self._pacer.wake_all()
        self._pool.shutdown(wait=True)
        return len(unfinished)

    # ---- internals -----------------------------------------------------------------------------

    def _reserve(self, owner: str) -> str:
        limits = self._limits
        with self._lock:
            if self._stopping:
                raise ProtocolError(TOO_MANY_RUNS, "the server is shutting down", "startRun")
            mine = sum(1 for o in self._owners.values() if o == owner)
            if mine >= limits.per_client:
                raise ProtocolError(
                    TOO_MANY_RUNS,
                    f"this connection already has {mine} unfinished runs; the limit is {limits.per_client}",
                    "startRun",
                )
            if len(self._owners) >= limits.max_concurrent + limits.max_waiting:
                raise ProtocolError(TOO_MANY_RUNS, "the server is busy; try again shortly", "startRun")
            run_id = new_run_id()
            while run_id in self._owners:
                run_id = new_run_id()
            self._owners[run_id] = owner
            return run_id

    def _release(self, run_id: str) -> None:
        with self._lock:
            self._owners.pop(run_id, None)
        if self._pacer is not None:
            self._pacer.forget(run_id)

    def _admit(self, owner: str, a: Person, b: Person, opts: RunOptions) -> tuple[str, str]:
        """A slot and an id that no run in the memory file holds yet; the run token."""
        extra = {"personA": a.name, "personB": b.name, "ttlSeconds": opts.ttl_seconds}
        for _ in range(_ID_ATTEMPTS):
            run_id = self._reserve(owner)
            try:
                return run_id, self._access.register(run_id, owner, opts.ttl_seconds, **extra)
            except RunNotFound:  # an older run in the same file has this id: draw another
                self._release(run_id)
            except BaseException:
                self._release(run_id)
                raise
        raise ConditionFailed("could not draw an unused run id")

    def _execution_status(self, run_id: str, *, started: bool) -> str | None:
        """As Step Functions names it: RUNNING while the engine runs it, then its recorded end."""
        with self._lock:
            going = run_id in self._owners
        if going:
            return "RUNNING" if started else None
        try:
            summary, _ = ExecutionStore(self._memory).history(run_id)
        except RunNotFound:
            return None
        return str(summary.get("status")) if summary.get("status") else None

    def _request_cancel(self, run_id: str, ttl_seconds: int) -> None:
        RunMemory(self._memory, run_id, ttl_seconds).request_cancel(time.time())
        if self._pacer is not None:
            self._pacer.wake(run_id)

    def _execute(self, run_id: str, a: Person, b: Person, opts: RunOptions) -> None:
        try:
            self._runner.run(a.name, b.name, opts, run_id=run_id, sink=self._sink)
        except Exception:
            # The state machine catches step failures itself; reaching here means the engine broke.
            # The client still gets a terminal event (same logical key as every terminal event).
            log.exception("run crashed", extra={"runId": run_id})
            message = {"code": "internal_error", "message": "the run stopped unexpectedly"}
            EventLog(self._memory, self._sink, ttl_seconds=opts.ttl_seconds).append(
                run_id, "final", "error", message, at=time.time()
            )
        finally:
            self._release(run_id)
