"""continueRun on the deployed API (issue 13), through the route handler over moto: the continuation
is a new Step Functions execution of the same state machine, named `<run id>--c1`, whose steps count
on from the run's last; the run's log goes on for every connection following it; the one use case
answers as the local server does; and an execution of a continuation that ends without its ending
gets one, for that segment."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.integration.handlers.helpers import drive_execution, emf_metrics, message
from tests.integration.handlers.test_execution_ended import status_change
from tests.support.ws_client import WsClient
from tests.support.ws_server import bundled_sandbox, running_server
from visual_degrees.handlers import execution_ended, ws_continue_run, ws_start_run, ws_subscribe
from visual_degrees.handlers.wiring import using_runtime
from visual_degrees.services.event_log import EventLog
from visual_degrees.services.run_memory import RunControl
from visual_degrees_tools.sandbox import EXAMPLE_PAIR, build_sandbox

A, B = EXAMPLE_PAIR
SHORT = {"action": "startRun", "personA": A, "personB": B, "options": {"budgets": {"searches": 1}}}


def last_reply(aws, connection_id: str = "conn-1") -> dict[str, Any]:
    return [m for m in aws.pushed(connection_id) if "seq" not in m][-1]


def executions(aws) -> dict[str, dict[str, Any]]:
    listed = aws.stepfunctions.list_executions(stateMachineArn=aws.state_machine_arn)["executions"]
    return {e["name"]: e for e in listed}


def ended_on_budget(aws, context) -> tuple[str, str]:
    ws_start_run.handler(message("startRun", SHORT), context)
    accepted = aws.pushed("conn-1")[0]
    drive_execution(aws.stepfunctions, executions(aws)[accepted["runId"]]["executionArn"], context)
    assert aws.pushed("conn-1")[-1]["type"] == "no_path"
    return accepted["runId"], accepted["runToken"]


def test_a_continuation_is_the_runs_next_execution(aws, context, capsys) -> None:
    sandbox = build_sandbox(bundled_sandbox().web, seed=0)
    with using_runtime(aws.runtime(providers=sandbox.providers, clock=sandbox.clock)) as runtime:
        # Given a run that ran out of searches, followed by a second connection with its token
        run_id, token = ended_on_budget(aws, context)
        follow = {"action": "subscribe", "runId": run_id, "fromSeq": 1, "runToken": token}
        ws_subscribe.handler(
            message("subscribe", follow, connection_id="watcher", client_id="other"), context
        )
        last_step = RunControl(runtime.memory, run_id, 1800).meta()["lastStep"]
        before = len(aws.pushed("conn-1"))
        # When its owner continues it
        ask = {"action": "continueRun", "runId": run_id, "budgets": {"searches": 20}}
        ws_continue_run.handler(message("continueRun", ask), context)
        accepted = aws.pushed("conn-1")[before]
        # Then a second execution of the same state machine holds the continuation
        started = executions(aws)
        name = f"{run_id}--c1"
        assert set(started) == {run_id, name}
        payload = json.loads(
            aws.stepfunctions.describe_execution(executionArn=started[name]["executionArn"])["input"]
        )
        assert payload["segment"] == 1 and payload["step"] == last_step + 1
        assert payload["options"]["budgets"]["searches"] == 1 + 20  # spent + this segment's
        # And it runs to the chain
        execution = drive_execution(aws.stepfunctions, started[name]["executionArn"], context)
        stored = [e.dump() for e in EventLog(runtime.memory).read(run_id)]

    assert execution.status == "SUCCEEDED"
    assert accepted["type"] == "continueAccepted" and accepted["segment"] == 1
    assert accepted["budgets"]["searches"] == 20
    # And both connections got the continuation's events, in the same log, seq going on
    owner = [m for m in aws.pushed("conn-1") if "seq" in m]
    watcher = [m for m in aws.pushed("watcher") if "seq" in m]
    continued = next(e for e in stored if e["type"] == "run_continued")
    assert stored[-1]["type"] == "final"
    assert [e["seq"] for e in stored] == list(range(1, len(stored) + 1))
    for seen in (owner, watcher):
        later = [m for m in seen if m["seq"] >= continued["seq"]]
        assert later[0]["seq"] == continued["seq"] and later[-1] == stored[-1]
    # And the run's finish was counted for each segment, once
    counted = [m for m in emf_metrics(capsys.readouterr().out) if m["name"] == "RunsFinished"]
    assert [m["dimensions"]["Outcome"] for m in counted] == ["no_path", "success"]


def test_both_servers_answer_continue_run_alike(aws, context, tmp_path: Path) -> None:
    sandbox = build_sandbox(bundled_sandbox().web, seed=0)
    with using_runtime(aws.runtime(providers=sandbox.providers, clock=sandbox.clock)):
        run_id, _ = ended_on_budget(aws, context)
        deployed: dict[str, Any] = {}
        ask = {"action": "continueRun", "runId": run_id}
        ws_continue_run.handler(message("continueRun", ask, connection_id="c9", client_id="other"), context)
        deployed["stranger"] = last_reply(aws, "c9")
        ws_continue_run.handler(message("continueRun", ask), context)
        deployed["accepted"] = last_reply(aws)
        ws_continue_run.handler(message("continueRun", ask), context)
        deployed["again"] = last_reply(aws)
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as client, WsClient(srv.ws_url) as other:
        accepted = client.start(A, B, budgets={"searches": 1})
        client.events_until_terminal(accepted["runId"])
        local: dict[str, Any] = {}
        other.send("continueRun", runId=accepted["runId"])
        local["stranger"] = other.reply()
        client.send("continueRun", runId=accepted["runId"])
        local["accepted"] = client.reply()

    same = ("type", "code", "action")
    assert [deployed["stranger"][k] for k in same] == [local["stranger"][k] for k in same]
    assert deployed["stranger"]["code"] == "run_not_found"
    assert local["accepted"].get("type") == "continueAccepted", local["accepted"]
    assert deployed["accepted"].keys() == local["accepted"].keys()
    assert {k: v for k, v in deployed["accepted"].items() if k != "runId"} == {
        k: v for k, v in local["accepted"].items() if k != "runId"
    }
    # A continuation not yet run is still going: asked again, the run is in progress
    assert (deployed["again"]["code"], deployed["again"]["action"]) == ("run_in_progress", "continueRun")


def test_a_continuation_whose_execution_ended_first_gets_its_own_ending(aws, context) -> None:
    sandbox = build_sandbox(bundled_sandbox().web, seed=0)
    with using_runtime(aws.runtime(providers=sandbox.providers, clock=sandbox.clock)) as runtime:
        # Given a continuation whose execution was stopped from the console before any step ran
        run_id, _ = ended_on_budget(aws, context)
        ws_continue_run.handler(message("continueRun", {"action": "continueRun", "runId": run_id}), context)
        name = f"{run_id}--c1"
        arn = executions(aws)[name]["executionArn"]
        change = status_change(name, arn, aws.state_machine_arn, "ABORTED")
        # When EventBridge hands the handler its end
        handled = execution_ended.handler(change, context)
        endings = [e for e in EventLog(runtime.memory).read(run_id) if e.type in ("no_path", "cancelled")]
        meta = RunControl(runtime.memory, run_id, 1800).meta()

    # Then the segment ended (the first segment's ending stays as it was), and the run says so
    assert handled["ended"] == "cancelled"
    assert [e.type for e in endings] == ["no_path", "cancelled"]
    assert endings[-1].data["code"] == "execution_stopped"
    assert meta["status"] == "cancelled" and meta["segment"] == 1
