"""The protocol's use cases over fakes of their ports: no API Gateway, no Step Functions."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.support.fakes import ListSink
from visual_degrees.domain.ceilings import AboveCeiling, RunCeilings
from visual_degrees.domain.errors import InvalidInput, ProviderError, RunNotFound
from visual_degrees.domain.models import RunOptions, RunState
from visual_degrees.protocol import TOO_MANY_RUNS, CancelRun, GetRun, ProtocolError, StartRun, Subscribe
from visual_degrees.services.event_log import EventLog
from visual_degrees.services.run_memory import RunMemory
from visual_degrees.services.runs_api import Caller, RunsApi, StartPolicy, StoredSubscriptions, merged_options
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory

ALICE = Caller("conn-alice", "alice")
BOB = Caller("conn-bob", "bob")


@dataclass
class FakeExecutions:
    started: dict[str, dict[str, Any]] = field(default_factory=dict)
    statuses: dict[str, str] = field(default_factory=dict)
    stopped: list[str] = field(default_factory=list)
    fail_start: Exception | None = None

    def execution_arn(self, run_id: str) -> str:
        return f"arn:aws:states:us-east-1:123456789012:execution:vd:{run_id}"

    def start(self, run_id: str, payload: dict[str, Any]) -> str:
        if self.fail_start is not None:
            raise self.fail_start
        self.started[run_id] = payload
        self.statuses[self.execution_arn(run_id)] = "RUNNING"
        return self.execution_arn(run_id)

    def status(self, execution_arn: str) -> str | None:
        return self.statuses.get(execution_arn)

    def stop(self, execution_arn: str, *, cause: str) -> None:
        self.stopped.append(execution_arn)
        self.statuses[execution_arn] = "ABORTED"

    def cancel_requested(self, run_id: str) -> None:
        pass


@dataclass
class FakeConnections:
    subscribed: list[tuple[str, str, int]] = field(default_factory=list)
    sent: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    gone: set[str] = field(default_factory=set)

    def subscribe(self, connection_id: str, run_id: str, ttl_seconds: int) -> None:
        self.subscribed.append((connection_id, run_id, ttl_seconds))

    def send(self, connection_id: str, message: dict[str, Any]) -> bool:
        if connection_id in self.gone:
            return False
        self.sent.setdefault(connection_id, []).append(message)
        return True

    def types(self, connection_id: str) -> list[str]:
        return [m["type"] for m in self.sent.get(connection_id, [])]


class Clock:
    def __init__(self) -> None:
        self.t = 1_800_000_000.0

    def __call__(self) -> float:
        return self.t


@dataclass
class World:
    memory: SqliteMemory
    executions: FakeExecutions
    connections: FakeConnections
    sink: ListSink
    clock: Clock
    finished: list[tuple[str, str]]
    api: RunsApi


def world_() -> World:
    memory = SqliteMemory(":memory:")
    executions, connections, sink, clock = FakeExecutions(), FakeConnections(), ListSink(), Clock()
    finished: list[tuple[str, str]] = []
    ids = (f"run-{n}" for n in itertools.count(1))
    api = RunsApi(
        memory,
        executions,
        StoredSubscriptions(memory, connections, connections),
        connections,
        sink=sink,
        policy=StartPolicy(RunOptions(max_hops=4), max_active_runs=2),
        on_finished=lambda run_id, outcome, ttl: finished.append((run_id, outcome)),
        clock=clock,
        run_ids=lambda: next(ids),
        cancel_grace_seconds=120,
    )
    return World(memory, executions, connections, sink, clock, finished, api)


def start(world: World, caller: Caller = ALICE, **options: Any) -> str:
    message = StartRun(
        action="startRun", person_a="Vesna Hawthorne", person_b="Niall Halloran", options=options or None
    )
    run_id = world.api.start(caller, message)
    assert run_id is not None
    return run_id


def finish(world: World, run_id: str, status: str = "succeeded") -> None:
    RunMemory(world.memory, run_id, 1800).control.create({"runId": run_id, "status": status})


# ---- startRun ------------------------------------------------------------------------------------


def test_start_replies_then_starts_an_execution_named_by_the_run_with_the_run_state():
    # Given a client
    world = world_()
    # When it starts a run
    run_id = start(world)
    # Then it was subscribed and told the run id and token before the execution started
    assert world.connections.subscribed == [(ALICE.connection_id, run_id, 1800)]
    (accepted,) = world.connections.sent[ALICE.connection_id]
    assert accepted["type"] == "runAccepted" and accepted["runId"] == run_id and accepted["runToken"]
    state = RunState.model_validate(world.executions.started[run_id])
    assert (state.run_id, state.person_a.name, state.person_b.name) == (
        run_id,
        "Vesna Hawthorne",
        "Niall Halloran",
    )
    assert state.options.max_hops == 4  # the deployment's default


def test_run_accepted_tells_the_operators_ceilings_that_bound_the_runs_total():
    # Given a deployment whose operator allows 30 searches a run
    world = world_()
    ceilings = RunCeilings.model_validate({"budgets": {"searches": 30}})
    world.api._policy = StartPolicy(RunOptions(), max_active_runs=2, ceilings=ceilings)
    # When a client starts a run
    start(world)
    # Then runAccepted says the ceilings, by the names startRun's options use
    (accepted,) = world.connections.sent[ALICE.connection_id]
    assert accepted["ceilings"] == {
        "maxHops": 10,
        "imagesPerSearch": 20,
        "budgets": {"searches": 30, "recognitions": 600, "llmCalls": 60, "runtimeSeconds": 600.0},
    }


def test_a_request_above_the_operators_ceilings_is_refused_before_anything_is_written():
    # Given a deployment at the default ceilings (five times the default budgets)
    world = world_()
    # When a client asks for 10,000 searches, 100,000 recognitions and an hour (issue 9.7)
    budgets = {"searches": 10_000, "recognitions": 100_000, "runtimeSeconds": 3_600}
    with pytest.raises(AboveCeiling) as refused:
        start(world, budgets=budgets)
    # Then it is refused naming the limits, and nothing was admitted, registered or started
    assert refused.value.code == "above_ceiling" and "options.budgets.searches" in refused.value.message
    assert world.executions.started == {} and world.connections.subscribed == []
    assert world.memory.query("client#alice") == []
    # While a request at the ceilings runs
    assert start(world, budgets={"searches": 100, "recognitions": 600, "runtimeSeconds": 600})


def test_client_options_are_strict_about_json_types():
    for options in ({"maxHops": True}, {"maxHops": "3"}, {"budgets": {"searches": 5.0}}):
        with pytest.raises(InvalidInput, match=r"^options\."):
            merged_options(RunOptions(), options)


def test_client_options_override_the_defaults_field_by_field():
    defaults = RunOptions(max_hops=4, budgets={"searches": 7, "recognitions": 9})
    merged = merged_options(defaults, {"threshold": 90, "budgets": {"searches": 3}})
    assert (merged.max_hops, merged.threshold) == (4, 90)
    assert (merged.budgets.searches, merged.budgets.recognitions) == (3, 9)


@pytest.mark.parametrize(
    ("person_a", "person_b", "options"),
    [
        ("", "Niall Halloran", None),
        ("Vesna Hawthorne", "vesna  hawthorne", None),
        ("Vesna Hawthorne", "Niall Halloran", {"maxHops": 99}),
        ("Vesna Hawthorne", "Niall Halloran", {"noSuchOption": 1}),
    ],
)
def test_bad_start_requests_are_refused_before_anything_is_written(person_a, person_b, options):
    world = world_()
    message = StartRun(action="startRun", person_a=person_a, person_b=person_b, options=options)
    with pytest.raises(InvalidInput):
        world.api.start(ALICE, message)
    assert world.executions.started == {} and world.connections.sent == {}


def test_a_start_beyond_the_clients_cap_is_refused_and_other_clients_are_not_counted():
    # Given alice with two runs going (the cap) and bob with none
    world = world_()
    start(world)
    start(world)
    # When alice starts a third
    with pytest.raises(ProtocolError) as refused:
        start(world)
    # Then it is refused with too_many_runs, nothing started; bob may still start
    assert refused.value.code == TOO_MANY_RUNS and refused.value.action == "startRun"
    assert len(world.executions.started) == 2
    start(world, BOB)
    assert len(world.executions.started) == 3


def test_a_finished_run_frees_its_place():
    world = world_()
    first = start(world)
    start(world)
    finish(world, first, "no_path")
    start(world)  # no refusal: only one run is going
    assert len(world.executions.started) == 3


def test_a_client_that_left_before_run_accepted_gets_no_execution():
    world = world_()
    world.connections.gone.add(ALICE.connection_id)
    assert world.api.start(ALICE, StartRun(action="startRun", person_a="A B", person_b="C D")) is None
    assert world.executions.started == {}
    start(world, Caller("conn-alice-2", "alice"))
    start(world, Caller("conn-alice-2", "alice"))  # the abandoned run holds no place


def test_a_run_that_cannot_start_ends_with_one_error_event_and_frees_its_place():
    # Given Step Functions refusing to start
    world = world_()
    world.executions.fail_start = ProviderError("Step Functions StartExecution failed: ValidationException")
    # When alice starts a run
    with pytest.raises(ProviderError):
        start(world)
    # Then her subscribed connection gets the run's final `error` event, and the run is counted once
    (event,) = world.sink.events
    assert event.type == "error" and event.seq == 1 and "ValidationException" not in str(event.data)
    assert world.finished == [(event.run_id, "error")]
    world.executions.fail_start = None
    start(world)
    start(world)  # both places are free again


# ---- subscribe -----------------------------------------------------------------------------------


def test_subscribe_registers_then_replays_from_the_asked_seq():
    world = world_()
    run_id = start(world)
    log = EventLog(world.memory)
    for i in range(1, 5):
        log.append(run_id, f"k{i}", "status", {"i": i}, at=0.0)
    other = Caller("conn-alice-2", "alice")
    world.api.subscribe(other, Subscribe(action="subscribe", run_id=run_id, from_seq=3))
    assert world.connections.subscribed[-1] == (other.connection_id, run_id, 1800)
    sent = world.connections.sent[other.connection_id]
    assert sent[0] == {"type": "subscribed", "runId": run_id, "fromSeq": 3}
    assert [m["seq"] for m in sent[1:]] == [3, 4]


def test_another_client_cannot_subscribe_without_the_token_but_can_with_it():
    world = world_()
    run_id = start(world)
    token = world.connections.sent[ALICE.connection_id][0]["runToken"]
    with pytest.raises(RunNotFound):
        world.api.subscribe(BOB, Subscribe(action="subscribe", run_id=run_id))
    with pytest.raises(RunNotFound):
        world.api.subscribe(BOB, Subscribe(action="subscribe", run_id=run_id, run_token="not-" + token))
    world.api.subscribe(BOB, Subscribe(action="subscribe", run_id=run_id, run_token=token))
    assert world.connections.types(BOB.connection_id) == ["subscribed"]


def test_an_unknown_run_and_someone_elses_run_look_the_same():
    world = world_()
    run_id = start(world)
    with pytest.raises(RunNotFound) as unknown:
        world.api.get(BOB, GetRun(action="getRun", run_id="no-such-run"))
    with pytest.raises(RunNotFound) as foreign:
        world.api.get(BOB, GetRun(action="getRun", run_id=run_id))
    assert unknown.value.code == foreign.value.code == "run_not_found"


# ---- cancelRun -----------------------------------------------------------------------------------


def test_cancel_sets_the_flag_and_leaves_the_execution_to_stop_at_its_next_boundary():
    world = world_()
    run_id = start(world)
    world.api.cancel(ALICE, CancelRun(action="cancelRun", run_id=run_id))
    assert RunMemory(world.memory, run_id, 1800).control.cancel_requested()
    assert world.connections.types(ALICE.connection_id)[-1] == "cancelRequested"
    assert world.executions.stopped == [] and world.sink.events == []


def test_a_repeated_cancel_after_the_grace_period_stops_a_stuck_execution_with_one_cancelled_event():
    # Given a run cancelled long ago whose execution never reached a state boundary
    world = world_()
    run_id = start(world)
    world.api.cancel(ALICE, CancelRun(action="cancelRun", run_id=run_id))
    world.clock.t += 121
    # When the client cancels again, twice
    world.api.cancel(ALICE, CancelRun(action="cancelRun", run_id=run_id))
    world.api.cancel(ALICE, CancelRun(action="cancelRun", run_id=run_id))
    # Then the execution is stopped once, the run ends with exactly one `cancelled`, counted once
    assert world.executions.stopped == [world.executions.execution_arn(run_id)]
    assert [e.type for e in world.sink.events] == ["cancelled"]
    assert world.finished == [(run_id, "cancelled")]
    assert RunMemory(world.memory, run_id, 1800).control.meta()["status"] == "cancelled"


def test_a_forced_stop_keeps_an_ending_the_run_reached_on_its_own():
    world = world_()
    run_id = start(world)
    world.api.cancel(ALICE, CancelRun(action="cancelRun", run_id=run_id))
    EventLog(world.memory).append(run_id, "final", "no_path", {"reason": "budget"}, at=0.0)
    world.clock.t += 121
    world.api.cancel(ALICE, CancelRun(action="cancelRun", run_id=run_id))
    assert world.sink.events == [] and world.finished == []
    assert EventLog(world.memory).read(run_id)[-1].type == "no_path"


def test_cancelling_a_finished_run_changes_nothing():
    world = world_()
    run_id = start(world)
    finish(world, run_id)
    world.api.cancel(ALICE, CancelRun(action="cancelRun", run_id=run_id))
    assert not RunMemory(world.memory, run_id, 1800).control.cancel_requested()
    assert world.connections.types(ALICE.connection_id)[-1] == "cancelRequested"


# ---- getRun --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("meta_status", "execution", "expected"),
    [
        (None, None, "queued"),
        (None, "RUNNING", "running"),
        ("running", "RUNNING", "running"),
        ("succeeded", "SUCCEEDED", "succeeded"),
        ("running", "FAILED", "failed"),
        ("running", "TIMED_OUT", "failed"),
        ("running", "ABORTED", "cancelled"),
        ("no_path", "SUCCEEDED", "no_path"),
    ],
)
def test_get_run_reports_status_from_meta_and_execution(meta_status, execution, expected):
    world = world_()
    run_id = start(world)
    arn = world.executions.execution_arn(run_id)
    if execution is None:
        del world.executions.statuses[arn]
    else:
        world.executions.statuses[arn] = execution
    if meta_status is not None:
        finish(world, run_id, meta_status)
    world.api.get(ALICE, GetRun(action="getRun", run_id=run_id))
    reply = world.connections.sent[ALICE.connection_id][-1]
    assert reply["type"] == "run" and reply["status"] == expected and reply["executionStatus"] == execution


def test_get_run_carries_the_last_seq_and_the_final_event():
    world = world_()
    run_id = start(world)
    log = EventLog(world.memory)
    log.append(run_id, "s1", "status", {}, at=0.0)
    log.append(run_id, "final", "final", {"path": ["A", "B"]}, at=0.0)
    world.api.get(ALICE, GetRun(action="getRun", run_id=run_id))
    reply = world.connections.sent[ALICE.connection_id][-1]
    assert reply["lastSeq"] == 2 and reply["final"]["type"] == "final"
    assert (reply["personA"], reply["personB"]) == ("Vesna Hawthorne", "Niall Halloran")
