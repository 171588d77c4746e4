"""One whole run through the handlers: startRun (Step Functions StartExecution) → the execution's
Task states, each invoking its step handler → events pushed to the client, gap-free.

Step Functions is moto (it records the execution; it runs nothing); the execution itself runs on the
local engine over the very definition file, with the handlers as its Lambdas. Run memory is
DynamoDbMemory on moto's table (built from the synthesized template), pushes go through moto's
management API, and the providers are the sandbox's, injected into the composition root.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tests.integration.handlers.helpers import (
    GRAPH_TABLE,
    TABLE,
    drive_execution,
    emf_metrics,
    event,
    message,
)
from visual_degrees.handlers import ws_connect, ws_get_run, ws_start_run
from visual_degrees.handlers.wiring import using_runtime
from visual_degrees_tools.sandbox import EXAMPLE_PAIR, PhotoWeb, build_sandbox, default_world_path, load_world

FINAL_TYPES = {"final", "no_path", "cancelled", "error"}


@pytest.fixture(scope="module")
def web() -> PhotoWeb:
    world = load_world(default_world_path())
    return PhotoWeb(world, 0)


@pytest.fixture
def sandboxed(aws, web):
    sandbox = build_sandbox(web, seed=0)
    with using_runtime(aws.runtime(providers=sandbox.providers, clock=sandbox.clock)) as runtime:
        yield runtime, sandbox


def test_a_run_started_on_the_socket_runs_through_every_handler_and_reaches_the_client(
    aws, sandboxed, context, capsys
):
    # Given a connected client
    ws_connect.handler(event("ws_connect", connection_id="conn-1"), context)
    person_a, person_b = EXAMPLE_PAIR
    # When it starts a run
    ws_start_run.handler(
        message("startRun", {"action": "startRun", "personA": person_a, "personB": person_b}), context
    )
    accepted = aws.pushed("conn-1")[0]
    assert accepted["type"] == "runAccepted"
    run_id = accepted["runId"]
    # Then Step Functions holds an execution named by the run id, with the run's state as input
    (listed,) = aws.stepfunctions.list_executions(stateMachineArn=aws.state_machine_arn)["executions"]
    assert listed["name"] == run_id and listed["status"] == "RUNNING"
    # When that execution runs, each Task invoking its handler
    execution = drive_execution(aws.stepfunctions, listed["executionArn"], context)
    # Then it ends in success, having passed through the searching states
    assert execution.status == "SUCCEEDED", (execution.error, execution.cause)
    assert execution.visited[0] == "S0_InitializeSession" and execution.visited[-1] == "S6_FinalizeSuccess"
    # And the client received every event, in order, gap-free, ending with exactly one final event
    events = [m for m in aws.pushed("conn-1") if "seq" in m]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert {e["runId"] for e in events} == {run_id}
    assert events[0]["type"] == "run_started" and events[-1]["type"] == "final"
    assert [e["type"] for e in events].count("final") == 1
    assert sum(e["type"] in FINAL_TYPES for e in events) == 1
    final = events[-1]["data"]
    assert final["path"][0] == person_a and final["path"][-1] == person_b
    assert all(edge["evidence"]["imageUrl"] for edge in final["edges"])
    # And every link of the answer is kept in the evidence graph's own table, not in run memory's
    kept = aws.dynamodb.scan(TableName=GRAPH_TABLE)["Items"]
    photos = {json.loads(i["data"]["S"])["imageUrl"] for i in kept if "#link#" in i["pk"]["S"]}
    assert {edge["evidence"]["imageUrl"] for edge in final["edges"]} <= photos
    assert not [i for i in aws.dynamodb.scan(TableName=TABLE)["Items"] if i["pk"]["S"].startswith("graph#")]
    # And the run was counted once as a success, and its spend reported by the steps that paid
    metrics = emf_metrics(capsys.readouterr().out)
    finished = [m for m in metrics if m["name"] == "RunsFinished"]
    assert [(m["value"], m["dimensions"]) for m in finished] == [
        (1, {"service": "visual-degrees", "Outcome": "success"})
    ]
    spend = sum(m["value"] for m in metrics if m["name"] == "SpendUsd")
    assert spend == pytest.approx(final["usage"]["costUsd"], abs=1e-6) and spend > 0
    # And getRun describes the finished run
    ws_get_run.handler(message("getRun", {"action": "getRun", "runId": run_id}), context)
    described = aws.pushed("conn-1")[-1]
    assert (described["type"], described["status"], described["lastSeq"]) == ("run", "succeeded", len(events))
    assert described["final"] == events[-1]


def test_a_second_connection_that_subscribes_midway_catches_up_and_follows(aws, sandboxed, context):
    # Given a run started on one connection whose first steps have run
    ws_start_run.handler(
        message("startRun", {"action": "startRun", "personA": EXAMPLE_PAIR[0], "personB": EXAMPLE_PAIR[1]}),
        context,
    )
    accepted = aws.pushed("conn-1")[0]
    run_id, token = accepted["runId"], accepted["runToken"]
    arn = aws.stepfunctions.list_executions(stateMachineArn=aws.state_machine_arn)["executions"][0][
        "executionArn"
    ]
    # When another client joins with the run token after everything has run, from seq 2
    drive_execution(aws.stepfunctions, arn, context)
    from visual_degrees.handlers import ws_subscribe

    ws_subscribe.handler(
        message(
            "subscribe",
            {"action": "subscribe", "runId": run_id, "fromSeq": 2, "runToken": token},
            connection_id="conn-2",
            client_id="other",
        ),
        context,
    )
    # Then it gets `subscribed` and the replay from seq 2, identical to what the first connection got
    first = [m for m in aws.pushed("conn-1") if "seq" in m]
    second = aws.pushed("conn-2")
    assert second[0] == {"type": "subscribed", "runId": run_id, "fromSeq": 2}
    assert second[1:] == first[1:]
    assert Counter(m["type"] for m in second[1:])["final"] == 1
