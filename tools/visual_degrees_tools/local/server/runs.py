"""The local server's Executions and Admission (services/runs_api.py): runs execute in a bounded
thread pool on the local engine; a connection may have `per_client` of them unfinished, the server
`max_concurrent` running and `max_waiting` queued behind them.

Every method may touch SQLite, so the server calls them from its I/O threads, never on its loop.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from visual_degrees.domain.errors import RunNotFound
from visual_degrees.domain.ids import run_of_execution
from visual_degrees.domain.models import DEFAULT_TTL_SECONDS, RunOptions, RunState
from visual_degrees.ports import EventSink
from visual_degrees.protocol import TOO_MANY_RUNS, ProtocolError
from visual_degrees.services.continuation import segment_ended
from visual_degrees.services.endings import end_run
from visual_degrees.services.run_memory import RunControl
from visual_degrees_tools.local.executions import ExecutionStore
from visual_degrees_tools.local.runner import LocalRunner
from visual_degrees_tools.local.server.pacing import Pacer
from visual_degrees_tools.local.server.recovery import InFlight

log = logging.getLogger(__name__)
SHUTTING_DOWN = "the server is shutting down; try again shortly"


@dataclass(frozen=True)
class RunLimits:
    max_concurrent: int = 8  # runs executing at once (worker threads)
    max_waiting: int = 64  # accepted runs queued behind them; beyond this the server says it is busy
    per_client: int = 4  # unfinished runs one connection may have started

    def __post_init__(self) -> None:
        if self.max_concurrent < 1 or self.max_waiting < 0 or self.per_client < 1:
            raise ValueError("run limits must be positive")


@dataclass(frozen=True)
class Stopped:
    """What stopping did to the runs it found unfinished: counted from how each one ended."""

    cancelled: int = 0  # stopped at their next state boundary
    finished: int = 0  # ended on their own first (a path, no path, an error: the last steps run on)
    refused: int = 0  # accepted but not yet started: refused, since the server was closing

    def __str__(self) -> str:
        said = f"unfinished runs: {self.cancelled} cancelled, {self.finished} finished first"
        return said + (f", {self.refused} refused as they were starting" if self.refused else "")


class LocalExecutions:
    """Executions named as Step Functions would name them (a run's first by its run id, a
    continuation's `<run id>--c<segment>`), and the places their runs hold while unfinished."""

    def __init__(
        self,
        runner: LocalRunner,
        sink: EventSink,
        *,
        limits: RunLimits = RunLimits(),
        pacer: Pacer | None = None,
        inflight: InFlight | None = None,
    ) -> None:
        """`inflight`: where the runs taken and not yet finished are kept, so that a server started
        after this one died can end them (recovery.py)."""
        self._runner = runner
        self._memory = runner.memory
        self._sink = sink
        self._limits = limits
        self._pacer = pacer
        self._inflight = inflight
        self._pool = ThreadPoolExecutor(max_workers=limits.max_concurrent, thread_name_prefix="vd-run")
        self._lock = threading.Lock()
        self._owners: dict[str, str] = {}  # unfinished run -> the client (connection) that started it
        self._current: dict[str, str] = {}  # unfinished run -> the name of its execution
        self._stopping = False

    # ---- Admission -----------------------------------------------------------------------------

    def admit(self, client_id: str, run_id: str, options: RunOptions) -> None:
        limits = self._limits
        # A run that has ended while its thread still wraps up (recording its history) may be
        # continued at once: the continuation takes its place (read outside the lock: SQLite).
        ended = self._ended(run_id)
        with self._lock:
            if self._stopping:
                raise ProtocolError(TOO_MANY_RUNS, SHUTTING_DOWN, "startRun")
            if run_id in self._owners and not ended:
                raise RunNotFound(f"run id {run_id!r} is in use")
            mine = sum(1 for r, o in self._owners.items() if o == client_id and r != run_id)
            if mine >= limits.per_client:
                raise ProtocolError(
                    TOO_MANY_RUNS,
                    f"this connection already has {mine} unfinished runs; the limit is {limits.per_client}",
                    "startRun",
                )
            if len(self._owners) >= limits.max_concurrent + limits.max_waiting:
                raise ProtocolError(TOO_MANY_RUNS, "the server is busy; try again shortly", "startRun")
            self._owners[run_id] = client_id
            self._current[run_id] = ""  # its execution is named when it starts
        if self._inflight is not None:
            try:
                self._inflight.add(run_id, options.ttl_seconds)
            except BaseException:
                self._release(run_id)
                raise

    def release(self, client_id: str, run_id: str) -> None:
        self._release(run_id)

    # ---- Executions ----------------------------------------------------------------------------

    def execution_arn(self, name: str) -> str:
        return name  # the local engine knows each execution by its name

    def start(self, name: str, payload: dict[str, Any]) -> str:
        """Start the run on a worker; ProtocolError(too_many_runs) once the server is closing (a run
        admitted just before may get here just after: its client is told, and no worker is asked)."""
        state = RunState.model_validate(payload)
        try:
            with self._lock:  # shutdown() sets _stopping under it: no submit can follow the pool's end
                if self._stopping:
                    action = "continueRun" if state.segment else "startRun"
                    raise ProtocolError(TOO_MANY_RUNS, SHUTTING_DOWN, action)
                self._current[state.run_id] = name
                self._pool.submit(self._execute, state, name)
        except BaseException:
            self._release(state.run_id)
            raise
        log.info("run accepted", extra={"runId": state.run_id, "segment": state.segment})
        return name

    def status(self, execution_arn: str) -> str | None:
        """RUNNING while the engine runs it (None while it waits for a worker), then its recorded end."""
        name = execution_arn
        run_id, _ = run_of_execution(name)
        with self._lock:
            going = run_id in self._owners and self._current.get(run_id, run_id) == name
        if going:
            started = RunControl(self._memory, run_id, DEFAULT_TTL_SECONDS).meta() is not None
            return "RUNNING" if started else None
        try:
            summary, _ = ExecutionStore(self._memory).history(name)
        except RunNotFound:
            return None
        return str(summary.get("status")) if summary.get("status") else None

    def stop(self, execution_arn: str, *, cause: str) -> None:
        """A local step cannot be interrupted: the run stops at its next boundary (the flag is set)."""
        self.cancel_requested(execution_arn)

    def cancel_requested(self, run_id: str) -> None:
        if self._pacer is not None:
            self._pacer.wake(run_id)

    # ---- lifecycle -----------------------------------------------------------------------------

    @property
    def active(self) -> int:
        with self._lock:
            return len(self._owners)

    @property
    def stopped(self) -> bool:
        with self._lock:
            return self._stopping

    def shutdown(self) -> Stopped:
        """Refuse new runs, cancel every started one, wait for the workers to reach a state boundary
        and stop; what became of the runs it found unfinished."""
        with self._lock:
            self._stopping = True
            started = [run for run, name in self._current.items() if name]
            waiting = len(self._current) - len(started)  # admitted; start() will refuse them
        for run_id in started:
            RunControl(self._memory, run_id, DEFAULT_TTL_SECONDS).request_cancel(time.time())
            self.cancel_requested(run_id)
        if self._pacer is not None:
            self._pacer.wake_all()
        self._pool.shutdown(wait=True)
        ended = [RunControl(self._memory, run, DEFAULT_TTL_SECONDS).meta() or {} for run in started]
        cancelled = sum(1 for meta in ended if meta.get("status") == "cancelled")
        return Stopped(cancelled=cancelled, finished=len(started) - cancelled, refused=waiting)

    # ---- internals -----------------------------------------------------------------------------

    def _ended(self, run_id: str) -> bool:
        return segment_ended(self._memory, run_id)

    def _release(self, run_id: str, name: str | None = None) -> None:
        """Free the run's place; with `name`, only if that execution still holds it (a continuation
        may have taken it over)."""
        with self._lock:
            if name is not None and self._current.get(run_id) != name:
                return
            self._owners.pop(run_id, None)
            self._current.pop(run_id, None)
        if self._pacer is not None:
            self._pacer.forget(run_id)
        if self._inflight is not None:
            self._inflight.remove(run_id)

    def _execute(self, state: RunState, name: str) -> None:
        run_id, ttl = state.run_id, state.options.ttl_seconds
        try:
            self._runner.execute(state, sink=self._sink)
        except Exception:
            # The state machine catches step failures itself; reaching here means the engine broke.
            # The client still gets a terminal event (the same logical key as every ending).
            log.exception("run crashed", extra={"runId": run_id})
            data = {"code": "internal_error", "message": "the run stopped unexpectedly"}
            end_run(
                self._memory,
                self._sink,
                run_id,
                ttl,
                "error",
                data,
                at=time.time(),
                segment=state.segment,
                code="internal_error",
            )
        finally:
            self._release(run_id, name)
