"""Each handler serves its main path with exactly the environment variables its deployed function has
(read from the synthesized template), so a grant missing from infra fails here, not in production."""

from __future__ import annotations

from tests.integration.handlers.helpers import CLIENT_TOKENS, event, message
from tests.support.cdk_template import function_environment_names
from visual_degrees.constants import STATE_TASKS
from visual_degrees.domain.models import Person, RunState
from visual_degrees.handlers import (
    initialize_session,
    ws_authorizer,
    ws_cancel_run,
    ws_connect,
    ws_default,
    ws_disconnect,
    ws_get_run,
    ws_start_run,
    ws_subscribe,
)
from visual_degrees.handlers.wiring import using_runtime

START = {"action": "startRun", "personA": "Vesna Hawthorne", "personB": "Niall Halloran"}


def deployed(aws, module: str):
    """A runtime with only the variables of `module`'s function (values from this test's AWS)."""
    names = function_environment_names()[f"visual_degrees.handlers.{module}.handler"]
    return aws.runtime(environ={name: value for name, value in aws.environ.items() if name in names})


def test_every_handler_module_is_deployed():
    deployed_handlers = set(function_environment_names())
    expected = {f"visual_degrees.handlers.{t.step}.handler" for t in STATE_TASKS}
    assert expected <= deployed_handlers
    assert "visual_degrees.handlers.ws_authorizer.handler" in deployed_handlers


def test_routes_work_with_their_own_grants_only(aws, runtime, context):
    # Given a run started with its own function's environment
    with using_runtime(deployed(aws, "ws_connect")):
        assert ws_connect.handler(event("ws_connect", connection_id="conn-1"), context) == {"statusCode": 200}
    with using_runtime(deployed(aws, "ws_start_run")):
        ws_start_run.handler(message("startRun", START), context)
    accepted = aws.pushed("conn-1")[0]
    assert accepted["type"] == "runAccepted"
    run_id = accepted["runId"]
    # When every other route is used with only its own variables
    calls = [
        ("ws_subscribe", ws_subscribe.handler, {"action": "subscribe", "runId": run_id}),
        ("ws_get_run", ws_get_run.handler, {"action": "getRun", "runId": run_id}),
        ("ws_cancel_run", ws_cancel_run.handler, {"action": "cancelRun", "runId": run_id}),
        ("ws_default", ws_default.handler, '{"action": "dance"}'),
    ]
    for module, handler, body in calls:
        with using_runtime(deployed(aws, module)):
            handler(message(body["action"] if isinstance(body, dict) else "$default", body), context)
    # Then each was served (nothing failed for want of configuration)
    replies = aws.pushed("conn-1")[1:]
    assert [r["type"] for r in replies] == ["subscribed", "run", "cancelRequested", "error"]
    assert replies[-1]["code"] == "unknown_action"
    with using_runtime(deployed(aws, "ws_disconnect")):
        ws_disconnect.handler(event("ws_disconnect", connection_id="conn-1"), context)
    assert aws.items("conn#conn-1") == []


def test_the_authorizer_works_with_its_own_grant_only(aws, context):
    with using_runtime(deployed(aws, "ws_authorizer")):
        answer = ws_authorizer.handler(
            event("ws_authorizer_request", query={"token": CLIENT_TOKENS["default"]}), context
        )
    assert answer["policyDocument"]["Statement"][0]["Effect"] == "Allow"


def test_an_orchestration_step_works_with_its_own_grants_only(aws, context):
    state = RunState(run_id="20261201T100000-abc123", person_a=Person.of("A B"), person_b=Person.of("C D"))
    with using_runtime(deployed(aws, "initialize_session")):
        assert initialize_session.handler(state.dump(), context)["step"] == 1
