"""The client protocol's actions (startRun, subscribe, cancelRun, getRun) as use cases over ports, so
they run and are tested without API Gateway, Step Functions or a socket.

Who may use a run is services/run_access.py's rule (the client that started it, or a holder of its
run token); an unknown run and another client's run get the same `run_not_found`.

Ordering promises to a client: `runAccepted` / `subscribed` precede that run's events, because the
connection is registered and the reply sent before the execution starts or the replay is read. A live
event landing between the registration and the replay can reach the client twice; events carry
`seq`, so a client keeps the first of each.

Cancelling is cooperative: the flag stops the run at its next state boundary (at most one step, under
a minute and a half), where RunCancelled emits `cancelled`. Only an execution still running
`cancel_grace_seconds` after the first request (a stuck step, a retry loop) is stopped outright on a
repeated cancelRun; the `cancelled` event then comes from here, under the same logical key as the
step's, so a run ends with exactly one final event whoever gets there first.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from visual_degrees.domain.costs import DEFAULT_COSTS, CostTable
from visual_degrees.domain.errors import ConditionFailed, RunNotFound
from visual_degrees.domain.ids import new_run_id
from visual_degrees.domain.models import Budgets, RunEvent, RunOptions, RunState
from visual_degrees.domain.requests import parse_options, validate_pair
from visual_degrees.ports import EventSink, Memory
from visual_degrees.protocol import CancelRun, GetRun, StartRun, Subscribe, reply_for
from visual_degrees.services.active_runs import FINISHED_STATUSES, ActiveRuns
from visual_degrees.services.budget import Budget
from visual_degrees.services.event_log import EventLog, run_pk
from visual_degrees.services.run_access import RunAccess
from visual_degrees.services.run_memory import RunMemory

Message = StartRun | Subscribe | CancelRun | GetRun
FINAL_EVENTS = frozenset({"final", "no_path", "cancelled", "error"})
FINAL_KEY = "final"  # the logical event key every ending uses (steps/*: final, no_path, cancelled, error)
MAX_REPLAY = 500  # events one subscribe replays (a route has 25 s); a client seeing a gap resubscribes
CANCEL_GRACE_SECONDS = 120.0  # a step's Lambda times out at 80 s; past this, the execution is stuck
_ID_ATTEMPTS = 5
_EXECUTION_ENDED = {"FAILED": "failed", "TIMED_OUT": "failed", "ABORTED": "cancelled"}


class Executions(Protocol):
    def execution_arn(self, run_id: str) -> str: ...
    def start(self, run_id: str, payload: dict[str, Any]) -> str: ...
    def status(self, execution_arn: str) -> str | None: ...
    def stop(self, execution_arn: str, *, cause: str) -> None: ...


class Subscriptions(Protocol):
    def subscribe(self, connection_id: str, run_id: str, ttl_seconds: int) -> None: ...


class Replies(Protocol):
    def send(self, connection_id: str, message: dict[str, Any]) -> bool:
        """True if delivered; False if the connection is gone."""
        ...


FinishReporter = Callable[[str, str, int], object]  # (run id, outcome, ttl seconds)


@dataclass(frozen=True)
class Caller:
    connection_id: str
    client_id: str


@dataclass(frozen=True)
class StartPolicy:
    defaults: RunOptions
    max_active_runs: int


def merged_options(defaults: RunOptions, given: dict[str, Any] | None) -> RunOptions:
    """The deployment's defaults overridden by the client's options (budgets field by field)."""
    base = defaults.dump()
    for key, value in (given or {}).items():
        if key == "budgets" and isinstance(value, dict) and isinstance(base.get("budgets"), dict):
            base["budgets"] = {**base["budgets"], **value}
        else:
            base[key] = value
    return parse_options(base)


class RunsApi:
    def __init__(
        self,
        memory: Memory,
        executions: Executions,
        subscriptions: Subscriptions,
        replies: Replies,
        *,
        sink: EventSink | None = None,
        policy: StartPolicy | None = None,
        on_finished: FinishReporter | None = None,
        clock: Callable[[], float] = time.time,
        costs: CostTable = DEFAULT_COSTS,
        run_ids: Callable[[], str] = new_run_id,
        cancel_grace_seconds: float = CANCEL_GRACE_SECONDS,
    ) -> None:
        self._memory = memory
        self._executions = executions
        self._subscriptions = subscriptions
        self._replies = replies
        self._sink = sink
        self._policy = policy or StartPolicy(RunOptions(), 2)
        self._on_finished = on_finished
        self._clock = clock
        self._costs = costs
        self._run_ids = run_ids
        self._grace = cancel_grace_seconds
        self._access = RunAccess(memory)
        self._active = ActiveRuns(memory)

    def handle(self, caller: Caller, message: Message) -> None:
        match message:
            case StartRun():
                self.start(caller, message)
            case Subscribe():
                self.subscribe(caller, message)
            case CancelRun():
                self.cancel(caller, message)
            case GetRun():
                self.get(caller, message)

    # ---- startRun ------------------------------------------------------------------------------

    def start(self, caller: Caller, message: StartRun) -> str | None:
        """Validate, take a place under the client's cap, record ownership, subscribe the caller,
        reply runAccepted, then start the execution. The run id, or None if the caller left first."""
        a, b = validate_pair(message.person_a, message.person_b)
        options = merged_options(self._policy.defaults, message.options)
        run_id, token = self._admit(caller.client_id, a.name, b.name, options)
        self._subscriptions.subscribe(caller.connection_id, run_id, options.ttl_seconds)
        accepted = {"type": "runAccepted", "runId": run_id, "runToken": token}
        if not self._replies.send(caller.connection_id, accepted):
            self._active.release(caller.client_id, run_id)  # nobody will ever know this run: don't start it
            return None
        state = RunState(run_id=run_id, person_a=a, person_b=b, options=options)
        try:
            self._executions.start(run_id, state.dump())
        except Exception as exc:
            self._failed_to_start(caller.client_id, state, exc)
            raise
        return run_id

    def _admit(self, client_id: str, name_a: str, name_b: str, options: RunOptions) -> tuple[str, str]:
        extra = {"personA": name_a, "personB": name_b, "ttlSeconds": options.ttl_seconds}
        for _ in range(_ID_ATTEMPTS):
            run_id = self._run_ids()
            self._active.admit(client_id, run_id, options, self._policy.max_active_runs)
            try:
                arn = self._executions.execution_arn(run_id)
                return run_id, self._access.register(
                    run_id, client_id, options.ttl_seconds, executionArn=arn, **extra
                )
            except RunNotFound:  # the id is taken: draw another
                self._active.release(client_id, run_id)
            except BaseException:
                self._active.release(client_id, run_id)
                raise
        raise ConditionFailed("could not draw an unused run id")

    def _failed_to_start(self, client_id: str, state: RunState, exc: Exception) -> None:
        """The client holds a run id already: end that run with a sanitised `error` event."""
        reply = reply_for(exc)
        ttl = state.options.ttl_seconds
        RunMemory(self._memory, state.run_id, ttl).create(
            {
                "runId": state.run_id,
                "personA": state.person_a.name,
                "personB": state.person_b.name,
                "status": "failed",
                "code": reply["code"],
            }
        )
        data = {"code": reply["code"], "message": "the run could not be started"}
        EventLog(self._memory, self._sink, ttl_seconds=ttl).append(
            state.run_id, FINAL_KEY, "error", data, at=self._clock()
        )
        self._active.release(client_id, state.run_id)
        if self._on_finished is not None:
            self._on_finished(state.run_id, "error", ttl)

    # ---- subscribe -----------------------------------------------------------------------------

    def subscribe(self, caller: Caller, message: Subscribe) -> None:
        """Register the caller for live pushes, reply `subscribed`, then replay from fromSeq."""
        record = self._access.record(message.run_id, caller.client_id, message.run_token)
        ttl = int(record.get("ttlSeconds", RunOptions().ttl_seconds))
        self._subscriptions.subscribe(caller.connection_id, message.run_id, ttl)
        reply = {"type": "subscribed", "runId": message.run_id, "fromSeq": message.from_seq}
        if not self._replies.send(caller.connection_id, reply):
            return
        for event in EventLog(self._memory).read(message.run_id, message.from_seq, limit=MAX_REPLAY):
            if not self._replies.send(caller.connection_id, event.dump()):
                return

    # ---- cancelRun -----------------------------------------------------------------------------

    def cancel(self, caller: Caller, message: CancelRun) -> None:
        record = self._access.record(message.run_id, caller.client_id, message.run_token)
        run_id = message.run_id
        ttl = int(record.get("ttlSeconds", RunOptions().ttl_seconds))
        memory = RunMemory(self._memory, run_id, ttl)
        meta = memory.meta() or {}
        finished = meta.get("status") in FINISHED_STATUSES
        if not finished:
            memory.request_cancel(self._clock())
        self._replies.send(caller.connection_id, {"type": "cancelRequested", "runId": run_id})
        if finished:
            return
        requested = self._memory.get(run_pk(run_id), "cancel")
        first_asked = float(requested.data.get("requestedAt", self._clock())) if requested else self._clock()
        if self._clock() - first_asked < self._grace:
            return
        arn = str(record.get("executionArn") or self._executions.execution_arn(run_id))
        if self._executions.status(arn) == "RUNNING":
            self._executions.stop(arn, cause="cancelled by the client; no state boundary reached in time")
            self._end_cancelled(run_id, ttl)

    def _end_cancelled(self, run_id: str, ttl: int) -> None:
        usage = Budget(self._memory, run_id, Budgets(), self._costs, ttl).summary()
        event = EventLog(self._memory, self._sink, ttl_seconds=ttl).append(
            run_id, FINAL_KEY, "cancelled", {"stopped": True, "usage": usage}, at=self._clock()
        )
        if event.type == "cancelled":  # else the run ended on its own just before: keep that ending
            RunMemory(self._memory, run_id, ttl).update_meta(status="cancelled")
            if self._on_finished is not None:
                self._on_finished(run_id, "cancelled", ttl)

    # ---- getRun --------------------------------------------------------------------------------

    def get(self, caller: Caller, message: GetRun) -> None:
        record = self._access.record(message.run_id, caller.client_id, message.run_token)
        self._replies.send(caller.connection_id, self.describe(message.run_id, record))

    def describe(self, run_id: str, record: dict[str, Any]) -> dict[str, Any]:
        """The `run` reply: status from run meta and the execution, the last seq and the final event."""
        ttl = int(record.get("ttlSeconds", RunOptions().ttl_seconds))
        memory = RunMemory(self._memory, run_id, ttl)
        meta = memory.meta()
        arn = str(record.get("executionArn") or self._executions.execution_arn(run_id))
        execution = self._executions.status(arn)
        log = EventLog(self._memory)
        last_seq = log.last_seq(run_id)
        final = _final_event(log.read(run_id, last_seq, limit=1)) if last_seq else None
        return {
            "type": "run",
            "runId": run_id,
            "status": _status(meta, execution),
            "personA": record.get("personA"),
            "personB": record.get("personB"),
            "lastSeq": last_seq,
            "executionStatus": execution,
            "cancelRequested": memory.cancel_requested(),
            "final": final.dump() if final else None,
        }


def _final_event(events: list[RunEvent]) -> RunEvent | None:
    return events[0] if events and events[0].type in FINAL_EVENTS else None


def _status(meta: dict[str, Any] | None, execution: str | None) -> str:
    """queued → running → succeeded | no_path | cancelled | failed."""
    status = (meta or {}).get("status")
    if status in FINISHED_STATUSES:
        return str(status)
    if execution in _EXECUTION_ENDED:
        return _EXECUTION_ENDED[execution]
    return "running" if meta is not None or execution == "RUNNING" else "queued"
