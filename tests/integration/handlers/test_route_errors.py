"""Bad input on every route: an error reply with a stable code, the connection stays usable,
nothing crashes (the handler answers 200), nothing leaks (no traceback, no token in replies or logs)."""

from __future__ import annotations

import base64
import json

import pytest

from tests.integration.handlers.helpers import message
from visual_degrees.constants import ENV_RUN_CEILINGS, MAX_MESSAGE_BYTES
from visual_degrees.domain.ceilings import ABOVE_CEILING
from visual_degrees.handlers import ws_cancel_run, ws_default, ws_get_run, ws_start_run, ws_subscribe
from visual_degrees.protocol import (
    INVALID_INPUT,
    INVALID_JSON,
    INVALID_MESSAGE,
    MESSAGE_TOO_LARGE,
    RUN_NOT_FOUND,
    TOO_MANY_RUNS,
    UNKNOWN_ACTION,
)

START = {"action": "startRun", "personA": "Vesna Hawthorne", "personB": "Niall Halloran"}
HANDLERS = {
    "startRun": ws_start_run.handler,
    "subscribe": ws_subscribe.handler,
    "cancelRun": ws_cancel_run.handler,
    "getRun": ws_get_run.handler,
    "$default": ws_default.handler,
}


def send(route: str, body, context, **identity) -> dict:
    answer = HANDLERS[route](message(route, body, **identity), context)
    assert answer == {"statusCode": 200}  # no route response: the reply went by PostToConnection
    return answer


def assert_clean(aws, logs, *, connection_id: str = "conn-1") -> None:
    replies = json.dumps(aws.pushed(connection_id))
    output = logs.getvalue()
    for text in (replies, output):
        assert "Traceback" not in text and 'File "' not in text and "RecursionError" not in text
    for reply in aws.pushed(connection_id):
        if "runToken" in reply:  # a run token is said once, to its owner, and never logged
            assert reply["runToken"] not in output


@pytest.mark.parametrize(
    ("route", "body", "code"),
    [
        ("$default", '{"action": "dance"}', UNKNOWN_ACTION),
        ("$default", '{"no": "action"}', UNKNOWN_ACTION),
        ("$default", "this is not json", INVALID_JSON),
        ("$default", "[1, 2, 3]", INVALID_MESSAGE),
        ("$default", "", INVALID_JSON),
        (
            "$default",
            '{"action": "startRun", "personA": "x" ' + " " * MAX_MESSAGE_BYTES + "}",
            MESSAGE_TOO_LARGE,
        ),
        ("startRun", {"action": "startRun", "personA": "Vesna Hawthorne"}, INVALID_MESSAGE),
        ("startRun", {**START, "personB": ""}, INVALID_INPUT),
        ("startRun", {**START, "personB": "Vesna Hawthorne"}, INVALID_INPUT),
        ("startRun", {**START, "options": {"maxHops": 1000}}, INVALID_INPUT),
        ("startRun", {**START, "options": {"secretOption": True}}, INVALID_INPUT),
        ("startRun", {**START, "extra": 1}, INVALID_MESSAGE),
        # Issue 9.8: nesting that would exhaust the parser, and values of the wrong JSON type.
        ("$default", "[" * 50_000, INVALID_JSON),
        ("$default", '{"action": "getRun", "runId": ' + "[" * 50_000, INVALID_JSON),
        # Issue 17: a string that never closes, full of escaped quotes (it took the route seconds)
        ("$default", "[" * 40 + '"' + '\\"' * 20_000, INVALID_JSON),
        ("startRun", {**START, "options": {"maxHops": True}}, INVALID_INPUT),
        ("startRun", {**START, "options": {"maxHops": "3"}}, INVALID_INPUT),
        ("startRun", {**START, "options": {"budgets": {"searches": "5"}}}, INVALID_INPUT),
        ("subscribe", {"action": "subscribe", "runId": "r1", "fromSeq": "3"}, INVALID_MESSAGE),
        # Issue 9.7: above the operator's ceilings (the defaults: five times the default budgets)
        (
            "startRun",
            {**START, "options": {"budgets": {"searches": 10_000, "recognitions": 100_000}}},
            ABOVE_CEILING,
        ),
        ("startRun", {**START, "options": {"budgets": {"runtimeSeconds": 3_600}}}, ABOVE_CEILING),
        # Issue 17: budgets a run cannot even start with (its first step searches and recognises)
        ("startRun", {**START, "options": {"budgets": {"searches": 0}}}, INVALID_INPUT),
        ("startRun", {**START, "options": {"budgets": {"recognitions": 0}}}, INVALID_INPUT),
        ("startRun", {**START, "options": {"budgets": {"runtimeSeconds": 1}}}, INVALID_INPUT),
        ("subscribe", {"action": "subscribe"}, INVALID_MESSAGE),
        ("subscribe", {"action": "subscribe", "runId": "r1", "fromSeq": 0}, INVALID_MESSAGE),
        ("subscribe", {"action": "subscribe", "runId": "../../etc"}, INVALID_MESSAGE),
        ("cancelRun", {"action": "cancelRun"}, INVALID_MESSAGE),
        ("getRun", {"action": "getRun", "runId": 42}, INVALID_MESSAGE),
        ("subscribe", {"action": "subscribe", "runId": "20260101T000000-abcdef"}, RUN_NOT_FOUND),
        ("cancelRun", {"action": "cancelRun", "runId": "20260101T000000-abcdef"}, RUN_NOT_FOUND),
        (
            "getRun",
            {"action": "getRun", "runId": "20260101T000000-abcdef", "runToken": "guess"},
            RUN_NOT_FOUND,
        ),
    ],
)
def test_bad_input_gets_one_error_reply_with_a_stable_code(aws, runtime, context, logs, route, body, code):
    send(route, body, context)
    (reply,) = aws.pushed("conn-1")
    assert reply["type"] == "error" and reply["code"] == code and reply["message"]
    assert aws.stepfunctions.list_executions(stateMachineArn=aws.state_machine_arn)["executions"] == []
    assert_clean(aws, logs)


def test_a_binary_frame_is_read_like_a_text_frame(aws, runtime, context):
    frame = message("getRun", "")
    frame["isBase64Encoded"] = True
    frame["body"] = base64.b64encode(b'{"action": "getRun", "runId": "nope"}').decode()
    ws_get_run.handler(frame, context)
    frame["body"] = "%%% not base64 %%%"
    ws_get_run.handler(frame, context)
    assert [r["code"] for r in aws.pushed("conn-1")] == [RUN_NOT_FOUND, INVALID_JSON]


def test_another_clients_run_is_not_found_for_every_action_and_the_connection_stays_usable(
    aws, runtime, context, logs
):
    # Given a run started by client "default"
    send("startRun", START, context)
    run_id = aws.pushed("conn-1")[0]["runId"]
    # When client "other" tries to use it
    for route in ("subscribe", "cancelRun", "getRun"):
        send(route, {"action": route, "runId": run_id}, context, connection_id="conn-2", client_id="other")
    # Then each gets the same run_not_found an unknown id gets
    replies = aws.pushed("conn-2")
    assert [(r["type"], r["code"], r["action"]) for r in replies] == [
        ("error", RUN_NOT_FOUND, "subscribe"),
        ("error", RUN_NOT_FOUND, "cancelRun"),
        ("error", RUN_NOT_FOUND, "getRun"),
    ]
    # And the connection still works: a good request is served
    send("getRun", {"action": "getRun", "runId": run_id}, context)
    assert aws.pushed("conn-1")[-1]["type"] == "run"
    assert_clean(aws, logs)
    assert_clean(aws, logs, connection_id="conn-2")


def test_a_start_at_the_concurrent_run_cap_is_refused(aws, runtime, context, logs):
    # Given client "default" with two runs going (VD_MAX_ACTIVE_RUNS_PER_CLIENT=2)
    send("startRun", START, context)
    send("startRun", START, context, connection_id="conn-2")
    # When it starts a third, from any of its connections
    send("startRun", START, context, connection_id="conn-3")
    # Then that one is refused with too_many_runs and no third execution exists
    (reply,) = aws.pushed("conn-3")
    assert (reply["type"], reply["code"], reply["action"]) == ("error", TOO_MANY_RUNS, "startRun")
    executions = aws.stepfunctions.list_executions(stateMachineArn=aws.state_machine_arn)["executions"]
    assert len(executions) == 2
    # While another client is not held back by it
    send("startRun", START, context, connection_id="conn-4", client_id="other")
    assert aws.pushed("conn-4")[0]["type"] == "runAccepted"
    assert_clean(aws, logs, connection_id="conn-1")


def test_an_internal_failure_says_nothing_to_the_client_and_logs_for_the_operator(aws, context, logs):
    # Given a route whose table does not exist (a broken deployment)
    from visual_degrees.handlers.wiring import using_runtime

    broken = aws.runtime(environ={**aws.environ, "VD_TABLE_NAME": "no-such-table"})
    with using_runtime(broken):
        send("startRun", START, context)
    # Then the client gets internal_error without AWS's words; the log has the reason, no traceback
    (reply,) = aws.pushed("conn-1")
    assert reply == {
        "type": "error",
        "code": "internal_error",
        "message": reply["message"],
        "action": "startRun",
    }
    assert "no-such-table" not in reply["message"] and "ResourceNotFound" not in reply["message"]
    assert "ResourceNotFoundException" in logs.getvalue()
    assert "Traceback" not in logs.getvalue()


def test_a_connection_without_a_client_is_told_to_sign_in(aws, runtime, context):
    frame = message("getRun", {"action": "getRun", "runId": "r1"})
    frame["requestContext"]["authorizer"] = None
    ws_get_run.handler(frame, context)
    assert aws.pushed("conn-1")[0]["code"] == "unauthorized"


def test_the_deployments_ceilings_name_the_limit_in_the_refusal_and_come_with_an_accepted_run(
    aws, context, logs
):
    # Given a deployment whose operator allows at most 6 hops and 30 searches a run
    from visual_degrees.handlers.wiring import using_runtime

    ceilings = '{"maxHops": 6, "budgets": {"searches": 30}}'
    with using_runtime(aws.runtime(environ={**aws.environ, ENV_RUN_CEILINGS: ceilings})):
        # When a client asks for 31 searches, then for 30
        send("startRun", {**START, "options": {"budgets": {"searches": 31}}}, context)
        send("startRun", {**START, "options": {"budgets": {"searches": 30}}}, context)
    # Then the first is refused naming the limit and its ceiling, the second accepted
    refused, accepted = aws.pushed("conn-1")[:2]
    assert (refused["code"], refused["action"]) == (ABOVE_CEILING, "startRun")
    assert refused["message"] == "options.budgets.searches: 31 is above the operator's ceiling of 30"
    assert accepted["type"] == "runAccepted"
    # And the accepted run is told the deployment's ceilings (a page offers a continuation within them)
    assert (accepted["ceilings"]["maxHops"], accepted["ceilings"]["budgets"]["searches"]) == (6, 30)
    assert "request refused" in logs.getvalue() and "Traceback" not in logs.getvalue()
