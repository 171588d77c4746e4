"""Executions that end without their run's ending (issue 9.6), through the EventBridge handler over
moto: a timed-out, stopped or failed execution gives its run one ending (pushed, in the meta, counted
once), a run that has its ending keeps it, retries change nothing, and a cancelRun past the grace
period finds such a run ended too."""

from __future__ import annotations

import json
import os
import time

import pytest

from tests.integration.handlers.helpers import drive_execution, emf_metrics, message
from tests.integration.handlers.test_cancel_and_metrics import start
from visual_degrees.handlers import execution_ended, ws_cancel_run, ws_get_run
from visual_degrees.lifecycle.event_log import EventLog
from visual_degrees.lifecycle.run_memory import RunMemory

FIXTURE = os.path.join(
    os.path.dirname(__file__), "..", "..", "fixtures", "events", "execution_status_change.json"
)


def status_change(run_id: str, arn: str, machine: str, status: str) -> dict:
    with open(FIXTURE, encoding="utf-8") as file:
        change = json.load(file)
    change["resources"] = [arn]
    change["detail"].update(executionArn=arn, stateMachineArn=machine, name=run_id, status=status)
    return change


def finished(output: str) -> list[tuple[float, str | None]]:
    return [
        (m["value"], m["dimensions"].get("Outcome"))
        for m in emf_metrics(output)
        if m["name"] == "RunsFinished"
    ]


@pytest.mark.parametrize(
    ("status", "event", "code", "run_status"),
    [
        ("TIMED_OUT", "error", "execution_timed_out", "failed"),
        ("FAILED", "error", "execution_failed", "failed"),
        ("ABORTED", "cancelled", "execution_stopped", "cancelled"),
    ],
)
def test_an_execution_that_ended_first_gives_its_run_one_ending(
    aws, runtime, context, capsys, status, event, code, run_status
):
    # Given a run whose execution ended (timed out between states, stopped, died) with no ending
    run_id, arn = start(aws, context)
    change = status_change(run_id, arn, aws.state_machine_arn, status)
    # When EventBridge hands the handler the execution's end, twice (a retry)
    first = execution_ended.handler(change, context)
    second = execution_ended.handler(change, context)

    # Then the run has one ending saying how its execution ended, with what it had spent
    stored = [e for e in EventLog(runtime.memory).read(run_id) if e.type in {"error", "cancelled"}]
    assert [(e.type, e.data["code"]) for e in stored] == [(event, code)]
    assert set(stored[0].data["usage"]) >= {"searches", "recognitions", "costUsd"}
    assert first == second == {"ended": event, "seq": stored[0].seq}
    # And it was pushed once to the client following it, and counted once
    pushed = [m for m in aws.pushed("conn-1") if "seq" in m]
    assert [m["type"] for m in pushed] == [event]
    expected = {"error": "error", "cancelled": "cancelled"}[event]
    assert finished(capsys.readouterr().out) == [(1, expected)]
    # And getRun tells the same ending
    ws_get_run.handler(message("getRun", {"action": "getRun", "runId": run_id}), context)
    described = aws.pushed("conn-1")[-1]
    assert described["status"] == run_status and described["final"]["data"]["code"] == code


def test_a_run_that_has_its_ending_keeps_it(aws, runtime, context, capsys):
    # Given a run that ended through the state machine (here: cancelled at S1, execution SUCCEEDED),
    # and one whose execution FAILED after HandleError wrote its `error`
    run_id, arn = start(aws, context)
    ws_cancel_run.handler(message("cancelRun", {"action": "cancelRun", "runId": run_id}), context)
    drive_execution(aws.stepfunctions, arn, context)
    before = EventLog(runtime.memory).read(run_id)
    capsys.readouterr()
    # When the handler is told that execution FAILED (as every HandleError run's execution does)
    answer = execution_ended.handler(status_change(run_id, arn, aws.state_machine_arn, "FAILED"), context)
    # Then nothing changes: no event, no push, no second count
    assert answer == {"ended": "cancelled", "seq": before[-1].seq}
    assert EventLog(runtime.memory).read(run_id) == before
    assert finished(capsys.readouterr().out) == []


@pytest.mark.parametrize(
    "change",
    [
        {"detail-type": "Scheduled Event", "source": "aws.events", "detail": {}},
        {"hello": "world"},
    ],
)
def test_anything_else_is_ignored(aws, runtime, context, change):
    assert execution_ended.handler(change, context) == {"ended": None}


def test_an_unknown_run_or_a_status_that_is_no_end_is_left_alone(aws, runtime, context):
    machine = aws.state_machine_arn
    unknown = status_change("20260101T000000-000000", "arn:x", machine, "TIMED_OUT")
    assert execution_ended.handler(unknown, context) == {"ended": None}
    run_id, arn = start(aws, context)
    assert execution_ended.handler(status_change(run_id, arn, machine, "RUNNING"), context) == {"ended": None}
    assert EventLog(runtime.memory).read(run_id) == []


def test_a_cancel_past_the_grace_period_ends_a_run_whose_execution_is_over(aws, runtime, context):
    # Given a run whose execution stopped without its ending reaching the run (the rule missed it),
    # cancelled long ago
    run_id, arn = start(aws, context)
    aws.stepfunctions.stop_execution(executionArn=arn, error="Manual", cause="console")
    RunMemory(runtime.memory, run_id, 1800).control.request_cancel(time.time() - 600)
    # When the client cancels again
    ws_cancel_run.handler(message("cancelRun", {"action": "cancelRun", "runId": run_id}), context)
    # Then the run ends as its execution did, once
    events = [m for m in aws.pushed("conn-1") if "seq" in m]
    assert [(e["type"], e["data"]["code"]) for e in events] == [("cancelled", "execution_stopped")]
    ws_get_run.handler(message("getRun", {"action": "getRun", "runId": run_id}), context)
    assert aws.pushed("conn-1")[-1]["status"] == "cancelled"
