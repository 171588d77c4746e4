"""The client protocol's actions (startRun, subscribe, cancelRun, getRun, getGraph, continueRun) as
one use case over ports, serving both servers: the deployed WebSocket API (handlers/routes.py with the AWS
adapters) and the local server (local/server/ with its in-process adapters). Nothing here knows API
Gateway, Step Functions, a socket or a thread.

Ports: `Executions` (start, describe, stop a run's execution), `Admission` (a place under the
client's cap), `Subscriptions` (register a connection for a run's events, then catch it up from the
log) and `Replies` (send one message to one connection).

Who may use a run is lifecycle/run_access.py's rule (the client that started it, or a holder of its
run token); a holder of its share token, or a connection one opened, may only watch and read it
(lifecycle/run_sharing.py). An unknown run and another client's run get the same `run_not_found`.

Ordering promises to a client: `runAccepted` / `subscribed` precede that run's events, because the
connection is registered and the reply sent before the execution starts or the catch-up is read. A
live event landing between the registration and the catch-up can reach the client twice; events
carry `seq`, so a client keeps the first of each.

Cancelling is cooperative: the flag stops the run at its next state boundary (at most one step, under
a minute and a half), where RunCancelled emits `cancelled`. Only an execution still running
`cancel_grace_seconds` after the first request (a stuck step, a retry loop) is stopped outright on a
repeated cancelRun; the `cancelled` event then comes from here, under the same logical key as the
step's, so a run ends with exactly one final event whoever gets there first (lifecycle/endings.py).
An execution found over by then whose run never got its ending is given the one its end calls for
(lifecycle/endings.end_after_execution), so a cancelRun never leaves a run `running` for ever.

Continuing (issue 13) is starting again over the same run: the run must have stopped on a budget
(lifecycle/continuation.py says why others cannot), its total spend stays under the operator's
ceilings, it takes a place under the client's cap like a start, and its execution is the run's next
(`<run id>--c<segment>`); the run's log goes on, so everyone following the run keeps following it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from visual_degrees.constants import MAX_EVENT_BYTES
from visual_degrees.domain.ceilings import RunCeilings
from visual_degrees.domain.costs import DEFAULT_COSTS, CostTable
from visual_degrees.domain.errors import ConditionFailed, RunInProgress, RunNotFound
from visual_degrees.domain.ids import execution_name, new_run_id
from visual_degrees.domain.models import Budgets, Edge, RunOptions, RunState
from visual_degrees.domain.outcomes import BY_EVENT, FINISHED_STATUSES, TERMINAL_EVENTS, run_status
from visual_degrees.domain.records import RunMeta
from visual_degrees.domain.requests import parse_options, require_startable, validate_hint, validate_pair
from visual_degrees.lifecycle import continuation, run_sharing
from visual_degrees.lifecycle.active_runs import ActiveRuns
from visual_degrees.lifecycle.budget import Budget
from visual_degrees.lifecycle.endings import AFTER_EXECUTION, end_after_execution, end_run
from visual_degrees.lifecycle.event_log import EventLog
from visual_degrees.lifecycle.run_access import RunAccess, ttl_of
from visual_degrees.lifecycle.run_memory import RunControl, RunEvidence
from visual_degrees.ports import EventSink, Memory
from visual_degrees.protocol import (
    AnyMessage,
    CancelRun,
    ContinueRun,
    GetGraph,
    GetRun,
    StartRun,
    Subscribe,
    reply_for,
    wire_size,
)

Message = AnyMessage
GRAPH_PAGE_EDGES = 200  # links one getGraph reply carries at most (fewer if their JSON would not fit)
MAX_REPLAY = 500  # events one catch-up replays (a route has 25 s); a client seeing a gap resubscribes
CANCEL_GRACE_SECONDS = 120.0  # a step's Lambda times out at 80 s; past this, the execution is stuck
ID_ATTEMPTS = 5  # run ids are second + 24 random bits: a clash is rare, two in a row rarer still


class Executions(Protocol):
    """Executions are named by domain/ids.execution_name: a run's first by its run id, a
    continuation's `<run id>--c<segment>`."""

    def execution_arn(self, name: str) -> str: ...
    def start(self, name: str, payload: dict[str, Any]) -> str: ...
    def status(self, execution_arn: str) -> str | None:
        """As Step Functions names it (RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED), or None."""
        ...

    def stop(self, execution_arn: str, *, cause: str) -> None: ...
    def cancel_requested(self, run_id: str) -> None:
        """The run was asked to stop: an engine that can reach its next state boundary sooner (the
        local pacer) does; Step Functions cannot."""
        ...


class Admission(Protocol):
    def admit(self, client_id: str, run_id: str, options: RunOptions) -> None:
        """Take a place for the run, or raise ProtocolError(too_many_runs) leaving nothing behind;
        RunNotFound if the id is already in use here (the caller draws another)."""
        ...

    def release(self, client_id: str, run_id: str) -> None: ...


class Subscriptions(Protocol):
    def subscribe(self, connection_id: str, run_id: str, ttl_seconds: int) -> None:
        """Register the connection for the run's live events (before the reply; may refuse)."""
        ...

    def catch_up(self, connection_id: str, run_id: str, from_seq: int) -> None:
        """After the reply: the stored events from `from_seq`; live ones follow."""
        ...


class Replies(Protocol):
    def send(self, connection_id: str, message: dict[str, Any]) -> bool:
        """True if delivered (or queued for delivery); False if the connection is gone."""
        ...


class SubscriptionStore(Protocol):
    def subscribe(self, connection_id: str, run_id: str, ttl_seconds: int) -> None: ...


FinishReporter = Callable[[str, str, int], object]  # (run id, metric outcome, ttl seconds)


class StoredSubscriptions:
    """Subscriptions kept in a store that pushes live events itself (the deployed API: connection
    items the event sink reads); the catch-up is read from the event log and sent as replies."""

    def __init__(
        self, memory: Memory, store: SubscriptionStore, replies: Replies, *, max_replay: int = MAX_REPLAY
    ) -> None:
        self._memory = memory
        self._store = store
        self._replies = replies
        self._max_replay = max_replay

    def subscribe(self, connection_id: str, run_id: str, ttl_seconds: int) -> None:
        self._store.subscribe(connection_id, run_id, ttl_seconds)

    def catch_up(self, connection_id: str, run_id: str, from_seq: int) -> None:
        for event in EventLog(self._memory).read(run_id, from_seq, limit=self._max_replay):
            if not self._replies.send(connection_id, event.dump()):
                return


@dataclass(frozen=True)
class Caller:
    connection_id: str
    client_id: str


@dataclass(frozen=True)
class StartPolicy:
    defaults: RunOptions
    max_active_runs: int
    # The sandbox can tell a name that is nobody in its world (InvalidInput); live, nobody can.
    # Called with personA, personB and, when the request names one, the hint (via).
    require_known: Callable[..., None] | None = None
    # The most one request may ask for (domain/ceilings.py); above it: above_ceiling.
    ceilings: RunCeilings = field(default_factory=RunCeilings)


def merged_options(defaults: RunOptions, given: dict[str, Any] | None) -> RunOptions:
    """The deployment's defaults overridden by the client's options (budgets field by field), as
    sent: strictly typed."""
    base = defaults.dump()
    for key, value in (given or {}).items():
        if key == "budgets" and isinstance(value, dict) and isinstance(base.get("budgets"), dict):
            base["budgets"] = {**base["budgets"], **value}
        else:
            base[key] = value
    return parse_options(base, strict=True)


class RunsApi:
    def __init__(
        self,
        memory: Memory,
        executions: Executions,
        subscriptions: Subscriptions,
        replies: Replies,
        *,
        admission: Admission | None = None,
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
        self._admission = admission or ActiveRuns(memory, self._policy.max_active_runs)
        self._on_finished = on_finished
        self._clock = clock
        self._costs = costs
        self._run_ids = run_ids
        self._grace = cancel_grace_seconds
        self._access = RunAccess(memory)

    def handle(self, caller: Caller, message: Message) -> None:
        run_sharing.check_viewer(caller.client_id, message)
        match message:
            case StartRun():
                self.start(caller, message)
            case Subscribe():
                self.subscribe(caller, message)
            case CancelRun():
                self.cancel(caller, message)
            case GetRun():
                self.get(caller, message)
            case GetGraph():
                self.graph(caller, message)
            case ContinueRun():
                self.continue_run(caller, message)

    # ---- startRun ------------------------------------------------------------------------------

    def start(self, caller: Caller, message: StartRun) -> str | None:
        """Validate (against the operator's ceilings too), take a place under the client's cap, record
        ownership, subscribe the caller, reply runAccepted, then start the execution. The run id, or
        None if the caller left first."""
        a, b = validate_pair(message.person_a, message.person_b)
        options = merged_options(self._policy.defaults, message.options)
        require_startable(options.budgets)
        names = [a.name, b.name]
        if options.via is not None:
            hint = validate_hint(options.via, a, b)
            options = options.model_copy(update={"via": hint.name})
            names.append(hint.name)
        self._policy.ceilings.check(options)
        if self._policy.require_known is not None:
            self._policy.require_known(*names)
        run_id, token, share = self._admit(caller.client_id, a.name, b.name, options)
        try:
            self._subscriptions.subscribe(caller.connection_id, run_id, options.ttl_seconds)
        except BaseException:
            self._admission.release(caller.client_id, run_id)
            raise
        # The ceilings bound the run's total: a client offers a continuation only what fits under them.
        ceilings = self._policy.ceilings.dump()
        accepted = {
            "type": "runAccepted",
            "runId": run_id,
            "runToken": token,
            "shareToken": share,
            "ceilings": ceilings,
        }
        if not self._replies.send(caller.connection_id, accepted):
            self._admission.release(
                caller.client_id, run_id
            )  # nobody will ever know this run: don't start it
            return None
        self._subscriptions.catch_up(caller.connection_id, run_id, 1)
        state = RunState(run_id=run_id, person_a=a, person_b=b, options=options)
        try:
            self._executions.start(run_id, state.dump())
        except Exception as exc:
            self._failed_to_start(caller.client_id, state, exc)
            raise
        return run_id

    def _admit(self, client_id: str, name_a: str, name_b: str, options: RunOptions) -> tuple[str, str, str]:
        """A place under the cap and a run id nobody holds yet (in this store); the run token and
        the share token."""
        share = run_sharing.new_share_token()
        extra = {
            "personA": name_a,
            "personB": name_b,
            "ttlSeconds": options.ttl_seconds,
            run_sharing.RECORD_FIELD: run_sharing.digest(share),
        }
        for _ in range(ID_ATTEMPTS):
            run_id = self._run_ids()
            try:
                self._admission.admit(client_id, run_id, options)
            except RunNotFound:  # the id is in use by a run going here: draw another
                continue
            try:
                arn = self._executions.execution_arn(run_id)
                token = self._access.register(
                    run_id, client_id, options.ttl_seconds, executionArn=arn, **extra
                )
                return run_id, token, share
            except RunNotFound:  # the id is taken: draw another
                self._admission.release(client_id, run_id)
            except BaseException:
                self._admission.release(client_id, run_id)
                raise
        raise ConditionFailed("could not draw an unused run id")

    def _failed_to_start(self, client_id: str, state: RunState, exc: Exception) -> None:
        """The client holds a run id already: end that run with a sanitised `error` event."""
        code = reply_for(exc)["code"]
        self._end_with_error(
            state.run_id,
            state.options.ttl_seconds,
            {"code": code, "message": "the run could not be started"},
            meta={
                "run_id": state.run_id,
                "person_a": state.person_a.name,
                "person_b": state.person_b.name,
            },
        )
        self._admission.release(client_id, state.run_id)

    def _end_with_error(
        self,
        run_id: str,
        ttl: int,
        data: dict[str, Any],
        *,
        segment: int | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        """End a run its engine could not carry to an ending of its own (one `error` event)."""
        meta = {"code": data["code"], **(meta or {})}
        event = end_run(
            self._memory, self._sink, run_id, ttl, "error", data, at=self._clock(), segment=segment, meta=meta
        )
        if event.type == "error" and self._on_finished is not None:
            self._on_finished(run_id, "error", ttl)

    # ---- subscribe -----------------------------------------------------------------------------

    def subscribe(self, caller: Caller, message: Subscribe) -> None:
        """Register the caller for live pushes, reply `subscribed`, then catch up from fromSeq."""
        record = self._access.readable(
            message.run_id, caller.client_id, message.run_token, message.share_token
        )
        self._subscriptions.subscribe(caller.connection_id, message.run_id, ttl_of(record))
        reply = {"type": "subscribed", "runId": message.run_id, "fromSeq": message.from_seq}
        if self._replies.send(caller.connection_id, reply):
            self._subscriptions.catch_up(caller.connection_id, message.run_id, message.from_seq)

    # ---- cancelRun -----------------------------------------------------------------------------

    def cancel(self, caller: Caller, message: CancelRun) -> None:
        record = self._access.record(message.run_id, caller.client_id, message.run_token)
        run_id, ttl = message.run_id, ttl_of(record)
        memory = RunControl(self._memory, run_id, ttl)
        finished = (memory.meta() or RunMeta()).status in FINISHED_STATUSES
        if not finished:
            memory.request_cancel(self._clock())
            self._executions.cancel_requested(run_id)
        self._replies.send(caller.connection_id, {"type": "cancelRequested", "runId": run_id})
        if finished:
            return
        first_asked = memory.cancel_requested_at() or self._clock()
        if self._clock() - first_asked < self._grace:
            return
        arn = str(record.get("executionArn") or self._executions.execution_arn(run_id))
        status = self._executions.status(arn)
        if status == "RUNNING":
            self._executions.stop(arn, cause="cancelled by the client; no state boundary reached in time")
            self._end_cancelled(run_id, ttl)
        elif status in AFTER_EXECUTION:  # over, yet the run never got its ending: give it one now
            event = end_after_execution(
                self._memory, self._sink, run_id, status, at=self._clock(), ttl_seconds=ttl
            )
            if event is not None and self._on_finished is not None:
                self._on_finished(run_id, BY_EVENT[event.type].metric, ttl)

    def _end_cancelled(self, run_id: str, ttl: int) -> None:
        usage = Budget(self._memory, run_id, Budgets(), self._costs, ttl).usage().dump()
        data = {"stopped": True, "usage": usage}
        event = end_run(self._memory, self._sink, run_id, ttl, "cancelled", data, at=self._clock())
        # Another ending first (the run ended on its own just before): that one holds.
        if event.type == "cancelled" and self._on_finished is not None:
            self._on_finished(run_id, "cancelled", ttl)

    # ---- continueRun ---------------------------------------------------------------------------

    def continue_run(self, caller: Caller, message: ContinueRun) -> int:
        """Check the run may be continued (its access, its ending, the total against the operator's
        ceilings, a place under the client's cap), take its next segment, subscribe the caller, reply
        continueAccepted, announce the continuation in the run's log (everyone following the run
        sees it), then start the segment's execution. The segment number."""
        run_id = message.run_id
        record = self._access.record(run_id, caller.client_id, message.run_token)
        ttl = ttl_of(record)
        cont = continuation.prepare(
            self._memory, run_id, budgets=message.budgets, via=message.via, now=self._clock()
        )
        self._policy.ceilings.check_continuation(cont.budgets, cont.spent)
        if cont.via is not None and self._policy.require_known is not None:
            self._policy.require_known(cont.state.person_a.name, cont.state.person_b.name, cont.via)
        options = cont.state.options
        try:
            self._admission.admit(caller.client_id, run_id, options)
        except RunNotFound:  # the id is in use here: the run is going
            raise RunInProgress(f"run {run_id} is still going") from None
        name = execution_name(run_id, cont.segment)
        try:
            self._access.update(run_id, executionArn=self._executions.execution_arn(name))
            continuation.claim(self._memory, cont, at=self._clock())
        except BaseException:
            self._admission.release(caller.client_id, run_id)
            raise
        self._subscriptions.subscribe(caller.connection_id, run_id, ttl)
        accepted = {
            "type": "continueAccepted",
            "runId": run_id,
            "segment": cont.segment,
            "budgets": cont.budgets.dump(),
            "via": cont.via,
        }
        # A client that left still has its continuation: the run goes on for whoever follows it.
        if self._replies.send(caller.connection_id, accepted):
            event = continuation.announce(self._memory, self._sink, cont, at=self._clock())
            self._subscriptions.catch_up(caller.connection_id, run_id, event.seq)
        else:
            continuation.announce(self._memory, self._sink, cont, at=self._clock())
        try:
            self._executions.start(name, cont.state.dump())
        except Exception:
            self._failed_to_continue(caller.client_id, cont)
            raise
        return cont.segment

    def _failed_to_continue(self, client_id: str, cont: continuation.Continuation) -> None:
        """The segment could not start: it ends at once, and may be asked for again."""
        data = {
            "code": "continuation_not_started",
            "message": "the continuation could not be started",
            "continuable": True,
            "why": "The continuation could not be started; ask again.",
        }
        self._end_with_error(cont.run_id, cont.ttl, data, segment=cont.segment)
        self._admission.release(client_id, cont.run_id)

    # ---- getRun --------------------------------------------------------------------------------

    def get(self, caller: Caller, message: GetRun) -> None:
        record = self._access.readable(
            message.run_id, caller.client_id, message.run_token, message.share_token
        )
        self._replies.send(caller.connection_id, self.describe(message.run_id, record))

    def describe(self, run_id: str, record: dict[str, Any]) -> dict[str, Any]:
        """The `run` reply: the last seq, the terminal event if any, and the status (one rule,
        domain/outcomes.run_status: the terminal event, else meta, else the execution)."""
        memory = RunControl(self._memory, run_id, ttl_of(record))
        meta = memory.meta()
        arn = str(record.get("executionArn") or self._executions.execution_arn(run_id))
        execution = self._executions.status(arn)
        log = EventLog(self._memory)
        last_seq = log.last_seq(run_id)
        last = log.read(run_id, last_seq, limit=1) if last_seq else []
        final = last[0] if last and last[0].type in TERMINAL_EVENTS else None
        return {
            "type": "run",
            "runId": run_id,
            "status": run_status(final.type if final else None, meta.status if meta else None, execution),
            "personA": record.get("personA"),
            "personB": record.get("personB"),
            "lastSeq": last_seq,
            "executionStatus": execution,
            "cancelRequested": memory.cancel_requested(),
            "final": final.dump() if final else None,
        }

    # ---- getGraph ------------------------------------------------------------------------------

    def graph(self, caller: Caller, message: GetGraph) -> None:
        record = self._access.readable(
            message.run_id, caller.client_id, message.run_token, message.share_token
        )
        page = self.graph_page(message.run_id, ttl_of(record), message.cursor)
        self._replies.send(caller.connection_id, page)

    def graph_page(self, run_id: str, ttl: int, cursor: str | None) -> dict[str, Any]:
        """The `graph` reply: the run's verified links after `cursor` in a stable order, each with
        the photo that proves it, and the people they join; `cursor` for the next page (None: that
        was the last). A page holds GRAPH_PAGE_EDGES links at most and always fits one message.
        A link reused from an earlier run is left out until the run has re-checked its photo
        (Evidence.shown): the run holds it to look for chains, but it is no link to show yet; once
        re-checked, it says so and when it was proven (`earlierRun`, `provenAt`); the page fills
        up from the links after it, and the cursor is the last link it examined."""
        nodes: dict[str, dict[str, str]] = {}
        links: list[dict[str, Any]] = []
        page: dict[str, Any] = {"type": "graph", "runId": run_id, "nodes": [], "edges": [], "cursor": cursor}
        room = MAX_EVENT_BYTES - wire_size(page)
        last, more = cursor, False
        for edge_id, edge in _edges_from(RunEvidence(self._memory, run_id, ttl), cursor):
            ev = edge.evidence
            if not ev.shown:
                last = edge_id
                continue
            if len(links) == GRAPH_PAGE_EDGES:
                more = True
                break
            link = {
                "source": edge.a,
                "target": edge.b,
                "confidence": round(edge.confidence, 2),
                "imageUrl": ev.image_url,
                "pageUrl": ev.page_url,
                "event": ev.event,
            }
            if ev.earlier_run:  # re-checked by this run: shown as evidence cards show it, with its date
                link.update(earlierRun=True, provenAt=ev.proven_at)
            new = {k: {"id": k, "name": n} for k, n in ((edge.a, edge.name_a), (edge.b, edge.name_b))}
            new = {k: node for k, node in new.items() if k not in nodes}
            cost = wire_size(link) + sum(wire_size(node) + 1 for node in new.values()) + 1 + len(edge_id)
            if cost > room and links:
                more = True
                break
            if cost > room:  # one link alone too large (absurd URLs): it goes without them
                del link["imageUrl"], link["pageUrl"], link["event"]
            nodes.update(new)
            links.append(link)
            room -= cost
            last = edge_id
        return {**page, "nodes": list(nodes.values()), "edges": links, "cursor": last if more else None}


def _edges_from(evidence: RunEvidence, cursor: str | None) -> Iterator[tuple[str, Edge]]:
    """The run's links after `cursor` in id order, read a page's worth at a time (one read when no
    link is left out of the page)."""
    while True:
        found = evidence.edges_after(cursor, GRAPH_PAGE_EDGES + 1)
        yield from found
        if len(found) <= GRAPH_PAGE_EDGES:
            return
        cursor = found[-1][0]
