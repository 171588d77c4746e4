"""A 410 Gone from PostToConnection drops that connection's items; the run goes on.

moto's management API never answers Gone, so these tests put a botocore Stubber on the client."""

from __future__ import annotations

import json

import boto3
import pytest
from botocore.stub import ANY, Stubber

from tests.integration.handlers.helpers import ENDPOINT, REGION, message
from visual_degrees.domain.models import RunEvent
from visual_degrees.handlers import initialize_session, ws_start_run, ws_subscribe
from visual_degrees.handlers.wiring import using_runtime
from visual_degrees.lifecycle.event_log import EventLog

START = {"action": "startRun", "personA": "Vesna Hawthorne", "personB": "Niall Halloran"}


@pytest.fixture
def stubbed():
    client = boto3.client("apigatewaymanagementapi", region_name=REGION, endpoint_url=ENDPOINT)
    with Stubber(client) as stub:
        yield client, stub
        stub.assert_no_pending_responses()


def gone(stub: Stubber, connection_id: str) -> None:
    stub.add_client_error(
        "post_to_connection",
        service_error_code="GoneException",
        service_message="",
        http_status_code=410,
        expected_params={"ConnectionId": connection_id, "Data": ANY},
    )


def delivered(stub: Stubber, connection_id: str) -> None:
    stub.add_response("post_to_connection", {}, {"ConnectionId": connection_id, "Data": ANY})


def started_run(aws, context, connection_id: str) -> tuple[str, str]:
    ws_start_run.handler(message("startRun", START, connection_id=connection_id), context)
    accepted = aws.pushed(connection_id)[0]
    return accepted["runId"], accepted["runToken"]


def test_gone_drops_only_that_connection_and_the_others_keep_receiving(aws, runtime, context, stubbed):
    # Given a run followed by two connections
    run_id, token = started_run(aws, context, "conn-a")
    body = {"action": "subscribe", "runId": run_id, "runToken": token}
    ws_subscribe.handler(message("subscribe", body, connection_id="conn-b", client_id="other"), context)
    client, stub = stubbed
    sink = aws.runtime(management_api=client).sink
    # When an event is pushed and conn-a has gone away, then another event is pushed
    gone(stub, "conn-a")
    delivered(stub, "conn-b")
    delivered(stub, "conn-b")
    for seq in (1, 2):
        sink.deliver(RunEvent(run_id=run_id, seq=seq, type="status", ts="2026-12-01T10:00:00.000Z"))
    # Then conn-a's items are gone, conn-b's subscription is intact, and conn-b got both events
    assert aws.items("conn#conn-a") == []
    assert [i["sk"]["S"] for i in aws.items("conn#conn-b")] == [f"sub#{run_id}"]


def test_a_step_whose_only_listener_is_gone_completes_and_stores_its_events(
    aws, runtime, context, stubbed, logs
):
    # Given a run whose only connection has gone away
    run_id, _ = started_run(aws, context, "conn-a")
    state = aws.stepfunctions.describe_execution(
        executionArn=aws.stepfunctions.list_executions(stateMachineArn=aws.state_machine_arn)["executions"][
            0
        ]["executionArn"]
    )["input"]
    client, stub = stubbed
    gone(stub, "conn-a")  # the first push finds it gone; later events have no listener left
    # When the run's first step runs
    with using_runtime(aws.runtime(management_api=client)):
        result = initialize_session.handler(json.loads(state), context)
    # Then the step succeeded, the connection was dropped, and the events wait in the log for a resubscribe
    assert result["runId"] == run_id and result["step"] == 1
    assert aws.items("conn#conn-a") == []
    stored = EventLog(aws.runtime().memory).read(run_id)
    assert [e.type for e in stored][:1] == ["run_started"] and [e.seq for e in stored] == [1, 2]
    assert "push failed" not in logs.getvalue()


def test_a_replay_to_a_connection_that_left_stops_and_drops_it(aws, runtime, context, stubbed):
    # Given a run with three stored events, and a subscriber that leaves during its replay
    run_id, token = started_run(aws, context, "conn-a")
    log = EventLog(aws.runtime().memory)
    for n in range(3):
        log.append(run_id, f"k{n}", "status", {"n": n}, at=0.0)
    client, stub = stubbed
    delivered(stub, "conn-b")  # `subscribed`
    delivered(stub, "conn-b")  # seq 1
    gone(stub, "conn-b")  # seq 2: gone; seq 3 is never tried
    body = {"action": "subscribe", "runId": run_id, "runToken": token}
    with using_runtime(aws.runtime(management_api=client)):
        answer = ws_subscribe.handler(
            message("subscribe", body, connection_id="conn-b", client_id="other"), context
        )
    assert answer == {"statusCode": 200}
    assert aws.items("conn#conn-b") == []
