"""The local server closing while runs start and run (issue 17.7): a startRun accepted just before the
server closes is refused with a clear error (not `cannot schedule new futures after shutdown`), and
the closing counts what became of each unfinished run (cancelled, or finished on its own first)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from tests.support.fakes import ListSink
from tests.support.ws_client import WsClient
from tests.support.ws_server import GUARD_SECONDS, bundled_sandbox, running_server
from visual_degrees.domain.models import RunOptions
from visual_degrees.protocol import TOO_MANY_RUNS, ProtocolError, StartRun
from visual_degrees.services.event_log import EventLog
from visual_degrees.services.run_memory import RunControl
from visual_degrees.services.runs_api import Caller, RunsApi, StartPolicy
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.local.runner import LocalRunner, RunEnvironment
from visual_degrees_tools.local.server.runs import LocalExecutions, RunLimits, Stopped
from visual_degrees_tools.sandbox import EXAMPLE_PAIR

A, B = EXAMPLE_PAIR
CALLER = Caller("conn-1", "conn-1")


@dataclass
class ClosingOnAccept:
    """Replies and Subscriptions that close the server the moment a run is accepted: the window
    between the client's runAccepted and the execution's start, where the race was."""

    close: Callable[[], object]
    sent: list[dict[str, Any]] = field(default_factory=list)

    def subscribe(self, connection_id: str, run_id: str, ttl_seconds: int) -> None:
        pass

    def catch_up(self, connection_id: str, run_id: str, from_seq: int) -> None:
        pass

    def send(self, connection_id: str, message: dict[str, Any]) -> bool:
        self.sent.append(message)
        if message["type"] == "runAccepted":
            self.close()
        return True


def test_a_run_accepted_as_the_server_closes_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    # Given the local server's executions, closing between a run's acceptance and its start
    memory = SqliteMemory(tmp_path / "memory.sqlite3")
    sink = ListSink()
    runs = LocalExecutions(LocalRunner(memory, bundled_sandbox()), sink)
    stopped: list[Stopped] = []
    wire = ClosingOnAccept(close=lambda: stopped.append(runs.shutdown()))
    api = RunsApi(memory, runs, wire, wire, admission=runs, sink=sink, policy=StartPolicy(RunOptions(), 4))

    # When a client starts a run
    with pytest.raises(ProtocolError) as refused:
        api.start(CALLER, StartRun(action="startRun", person_a=A, person_b=B))

    # Then it is refused as the server shutting down, not with an internal error
    assert (refused.value.code, refused.value.action) == (TOO_MANY_RUNS, "startRun")
    assert "shutting down" in refused.value.message
    # And the run its client was told of has ended with that error, once
    run_id = wire.sent[0]["runId"]
    events = EventLog(memory).read(run_id, 1)
    assert [(e.type, e.data["code"]) for e in events] == [("error", TOO_MANY_RUNS)]
    # And the closing counted it as refused, not as cancelled
    assert stopped == [Stopped(refused=1)]
    memory.close()


class StateGate:
    """Holds each run before a state of its own (`hold_at(n)` for the n-th run to start) until
    the gate opens: the test decides where every run stands when the server closes."""

    def __init__(self, hold_at: Callable[[int], str]) -> None:
        self._hold_at = hold_at
        self._cond = threading.Condition()
        self._started = 0
        self._open = False
        self.held = 0

    def __call__(self, run_id: str) -> RunEnvironment:
        with self._cond:
            where = self._hold_at(self._started)
            self._started += 1

        def on_transition(state: str) -> None:
            if state != where:
                return
            with self._cond:
                self.held += 1
                self._cond.notify_all()
                self._cond.wait_for(lambda: self._open, timeout=GUARD_SECONDS)

        return replace(bundled_sandbox()(run_id), on_transition=on_transition)

    def wait_held(self, runs: int) -> None:
        with self._cond:
            assert self._cond.wait_for(lambda: self.held >= runs, timeout=GUARD_SECONDS)

    def open(self) -> None:
        with self._cond:
            self._open = True
            self._cond.notify_all()


def test_closing_counts_the_runs_it_cancelled_and_those_that_finished_first(tmp_path: Path) -> None:
    # Given 7 runs: 4 held before their last state (a path found: no boundary left to stop at) and
    # 3 held before their first search (where a run stops when asked)
    gate = StateGate(lambda n: "S6_FinalizeSuccess" if n < 4 else "S1_DirectEdgeAttempt")
    limits = RunLimits(max_concurrent=8, per_client=4)
    with running_server(tmp_path, environment=gate, limits=limits) as srv:
        clients = [WsClient(srv.ws_url), WsClient(srv.ws_url)]
        run_ids = [clients[n // 4].start(A, B)["runId"] for n in range(7)]
        gate.wait_held(7)

        # When the server closes (and once it has asked every run to stop, they may move on)
        outcome: dict[str, Stopped] = {}
        closing = threading.Thread(target=lambda: outcome.update(stopped=srv.stop()))
        closing.start()
        for run_id in run_ids:
            control = RunControl(srv.memory, run_id, RunOptions().ttl_seconds)
            while not control.cancel_requested():
                threading.Event().wait(0.01)
        gate.open()
        closing.join(GUARD_SECONDS)
        for client in clients:
            client.close()

    # Then it says what happened: 3 cancelled, 4 finished on their own first
    assert outcome["stopped"] == Stopped(cancelled=3, finished=4)
    assert str(outcome["stopped"]) == "unfinished runs: 3 cancelled, 4 finished first"
