"""Ending a run through the handlers: a cancel that the run honours at its next state boundary, a
cancel that has to stop a stuck execution, and the once-per-run metrics the alarms read."""

from __future__ import annotations

import time

from tests.integration.handlers.helpers import drive_execution, emf_metrics, message
from visual_degrees.domain.models import Person, RunOptions, RunState
from visual_degrees.handlers import (
    finalize_failure,
    initialize_session,
    ws_cancel_run,
    ws_get_run,
    ws_start_run,
)
from visual_degrees.lifecycle.event_log import EventLog
from visual_degrees.lifecycle.run_memory import RunMemory

START = {"action": "startRun", "personA": "Vesna Hawthorne", "personB": "Niall Halloran"}


def start(aws, context) -> tuple[str, str]:
    ws_start_run.handler(message("startRun", START), context)
    run_id = aws.pushed("conn-1")[0]["runId"]
    listed = aws.stepfunctions.list_executions(stateMachineArn=aws.state_machine_arn)["executions"]
    return run_id, next(e["executionArn"] for e in listed if e["name"] == run_id)


def outcomes(output: str) -> list[tuple[str, float, str | None]]:
    return [
        (m["name"], m["value"], m["dimensions"].get("Outcome"))
        for m in emf_metrics(output)
        if m["name"] in {"RunsFinished", "BudgetExhausted"}
    ]


def test_a_cancelled_run_stops_at_its_next_state_boundary_with_one_cancelled_event(
    aws, runtime, context, capsys
):
    # Given a started run that the client cancels at once
    run_id, arn = start(aws, context)
    ws_cancel_run.handler(message("cancelRun", {"action": "cancelRun", "runId": run_id}), context)
    # When the execution runs
    execution = drive_execution(aws.stepfunctions, arn, context)
    # Then it went from S0 straight to RunCancelled, and the client saw one `cancelled`, last
    assert execution.status == "SUCCEEDED"
    assert execution.visited == ["S0_InitializeSession", "S1_DirectEdgeAttempt", "S1_Outcome", "RunCancelled"]
    pushed = aws.pushed("conn-1")
    assert [m["type"] for m in pushed[:2]] == ["runAccepted", "cancelRequested"]
    events = [m for m in pushed if "seq" in m]
    assert [e["type"] for e in events][-1] == "cancelled" and sum(
        e["type"] == "cancelled" for e in events
    ) == 1
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert outcomes(capsys.readouterr().out) == [("RunsFinished", 1, "cancelled")]
    # And nothing was paid for: S1 never searched
    assert events[-1]["data"]["usage"]["searches"] == 0


def test_a_cancel_repeated_past_the_grace_period_stops_the_execution(aws, runtime, context, capsys):
    # Given a run cancelled long ago whose execution is still running (no state boundary reached)
    run_id, arn = start(aws, context)
    RunMemory(runtime.memory, run_id, 1800).control.request_cancel(time.time() - 600)
    # When the client cancels again
    ws_cancel_run.handler(message("cancelRun", {"action": "cancelRun", "runId": run_id}), context)
    # Then the execution is stopped, the run ends with one `cancelled` event, counted once
    assert aws.stepfunctions.describe_execution(executionArn=arn)["status"] == "ABORTED"
    events = [m for m in aws.pushed("conn-1") if "seq" in m]
    assert [e["type"] for e in events] == ["cancelled"] and events[0]["data"]["stopped"] is True
    ws_cancel_run.handler(message("cancelRun", {"action": "cancelRun", "runId": run_id}), context)
    assert len([m for m in aws.pushed("conn-1") if "seq" in m]) == 1
    assert outcomes(capsys.readouterr().out) == [("RunsFinished", 1, "cancelled")]
    # And getRun says so
    ws_get_run.handler(message("getRun", {"action": "getRun", "runId": run_id}), context)
    described = aws.pushed("conn-1")[-1]
    assert (described["status"], described["executionStatus"]) == ("cancelled", "ABORTED")


def routed_to_s7(context, run_id: str, exhausted: str) -> dict:
    """A run initialised by S0, then routed to S7 because its `exhausted` budget ran out."""
    state = RunState(
        run_id=run_id,
        person_a=Person.of("Vesna Hawthorne"),
        person_b=Person.of("Niall Halloran"),
        options=RunOptions(),
    )
    after_s0 = initialize_session.handler(state.dump(), context)
    return {**after_s0, "budgetExhausted": True, "exhausted": exhausted, "stopReason": "budget"}


def test_a_retried_final_step_counts_the_run_once_and_a_budget_ending_once(aws, runtime, context, capsys):
    # Given a run initialised by S0 and routed to S7 because its search budget ran out
    at_s7 = routed_to_s7(context, "20261201T100000-abc123", "searches")
    # When Step Functions runs S7 twice (a retry after a timeout)
    first = finalize_failure.handler(at_s7, context)
    second = finalize_failure.handler(at_s7, context)
    # Then both answers agree, one no_path event was stored, and the run was counted once
    assert first == second
    stored = EventLog(runtime.memory).read("20261201T100000-abc123")
    assert [e.type for e in stored].count("no_path") == 1
    assert sorted(outcomes(capsys.readouterr().out)) == [
        ("BudgetExhausted", 1, None),
        ("RunsFinished", 1, "no_path"),
    ]


def test_a_run_whose_llm_calls_ran_out_says_so_in_words(aws, runtime, context):
    # Given a run at S7 because its LLM calls budget ran out
    at_s7 = routed_to_s7(context, "20261201T100000-def456", "llmCalls")
    # When S7 answers
    finalize_failure.handler(at_s7, context)
    # Then its no_path names the budget as a user says it, not by its field
    (ending,) = [e for e in EventLog(runtime.memory).read(at_s7["runId"]) if e.type == "no_path"]
    assert ending.data["message"] == "The LLM calls budget ran out before a chain was proven."
