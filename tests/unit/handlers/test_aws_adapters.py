"""The AWS adapters' answers to AWS's failures, through botocore Stubbers (no moto, no network)."""

from __future__ import annotations

import json

import boto3
import pytest
from botocore.stub import ANY, Stubber

from visual_degrees.adapters.aws.event_sink import FALLBACK_BYTES, ConnectionPusher
from visual_degrees.adapters.aws.executions import StepFunctionsExecutions
from visual_degrees.constants import MAX_EVENT_BYTES, MAX_MESSAGE_BYTES
from visual_degrees.domain.errors import ConditionFailed, ConfigurationError, TransientProviderError

MACHINE = "arn:aws:states:us-east-1:123456789012:stateMachine:VD-Workflow"
EXECUTION = "arn:aws:states:us-east-1:123456789012:execution:VD-Workflow:r1"


@pytest.fixture
def sfn():
    client = boto3.client(
        "stepfunctions", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x"
    )
    with Stubber(client) as stub:
        yield StepFunctionsExecutions(MACHINE, client=client), stub
        stub.assert_no_pending_responses()


@pytest.mark.parametrize(
    ("code", "raised"),
    [
        ("ExecutionAlreadyExists", ConditionFailed),
        ("ThrottlingException", TransientProviderError),
        ("AccessDeniedException", ConfigurationError),
        ("StateMachineDoesNotExist", ConfigurationError),
    ],
)
def test_start_failures_become_domain_errors_without_aws_wording(sfn, code, raised):
    executions, stub = sfn
    stub.add_client_error(
        "start_execution", service_error_code=code, service_message="arn:aws:iam::123:role/x"
    )
    with pytest.raises(raised) as failure:
        executions.start("r1", {"runId": "r1"})
    assert "role" not in str(failure.value)


def test_an_unknown_execution_has_no_status_and_stopping_it_is_a_no_op(sfn):
    executions, stub = sfn
    stub.add_client_error("describe_execution", service_error_code="ExecutionDoesNotExist")
    stub.add_client_error("stop_execution", service_error_code="ExecutionDoesNotExist")
    assert executions.status(EXECUTION) is None
    executions.stop(EXECUTION, cause="test")


def test_start_names_the_execution_by_run_id_with_the_state_as_input(sfn):
    executions, stub = sfn
    stub.add_response(
        "start_execution",
        {"executionArn": EXECUTION, "startDate": "2026-12-01T10:00:00Z"},
        {"stateMachineArn": MACHINE, "name": "r1", "input": '{"runId":"r1"}'},
    )
    assert executions.start("r1", {"runId": "r1"}) == EXECUTION


class Registry:
    def __init__(self) -> None:
        self.closed: list[str] = []

    def listeners(self, run_id: str) -> list[str]:
        return []

    def close(self, connection_id: str) -> int:
        self.closed.append(connection_id)
        return 1


@pytest.mark.parametrize(("code", "dropped"), [("GoneException", True), ("LimitExceededException", False)])
def test_only_gone_drops_a_connection_and_no_failure_escapes(code, dropped):
    client = boto3.client(
        "apigatewaymanagementapi",
        region_name="us-east-1",
        endpoint_url="https://abc123.execute-api.us-east-1.amazonaws.com/live",
        aws_access_key_id="x",
        aws_secret_access_key="x",
    )
    registry = Registry()
    pusher = ConnectionPusher("https://unused", registry, client=client)
    with Stubber(client) as stub:
        stub.add_client_error(
            "post_to_connection",
            service_error_code=code,
            http_status_code=410 if dropped else 429,
            expected_params={"ConnectionId": "c1", "Data": ANY},
        )
        assert pusher.send("c1", {"type": "status"}) is False
    assert registry.closed == (["c1"] if dropped else [])


def test_a_pusher_without_run_memory_survives_a_gone_connection():
    client = boto3.client(
        "apigatewaymanagementapi",
        region_name="us-east-1",
        endpoint_url="https://abc123.execute-api.us-east-1.amazonaws.com/live",
        aws_access_key_id="x",
        aws_secret_access_key="x",
    )
    pusher = ConnectionPusher("https://unused", None, client=client)
    with Stubber(client) as stub:
        stub.add_client_error("post_to_connection", service_error_code="GoneException", http_status_code=410)
        assert pusher.send("c1", {"type": "error"}) is False


def _management_client():
    return boto3.client(
        "apigatewaymanagementapi",
        region_name="us-east-1",
        endpoint_url="https://abc123.execute-api.us-east-1.amazonaws.com/live",
        aws_access_key_id="x",
        aws_secret_access_key="x",
    )


def _frames(client) -> list[bytes]:
    """Every Data the client is asked to post, in order."""
    frames: list[bytes] = []
    client.meta.events.register(
        "before-parameter-build.apigatewaymanagementapi.PostToConnection",
        lambda params, **_: frames.append(params["Data"]),
    )
    return frames


def test_a_message_over_the_frame_limit_is_sent_shortened_never_lost():
    # Given an ending far over API Gateway's 128 KB (as a run stored before issue 9.4 may hold)
    nodes = [{"id": f"p{i:06d}" + "x" * 90, "name": f"Person {i} " + "y" * 90} for i in range(2_000)]
    edges = [{"source": n["id"], "target": nodes[0]["id"], "confidence": 99.0} for n in nodes[1:]]
    data = {
        "reason": "budget",
        "message": "The search budget ran out.",
        "graph": {"nodes": nodes, "edges": edges},
    }
    ending = {"runId": "r1", "seq": 42, "type": "no_path", "ts": "2026-12-01T10:00:00.000Z", "data": data}
    assert len(json.dumps(ending)) > MAX_MESSAGE_BYTES
    client = _management_client()
    frames = _frames(client)
    pusher = ConnectionPusher("https://unused", Registry(), client=client)
    with Stubber(client) as stub:
        stub.add_response("post_to_connection", {}, {"ConnectionId": "c1", "Data": ANY})
        # When it is pushed
        assert pusher.send("c1", ending) is True
    # Then what went out fits one message and is still that ending, saying what it left out
    (frame,) = frames
    out = json.loads(frame)
    assert len(frame) <= MAX_EVENT_BYTES
    assert {k: out[k] for k in ("runId", "seq", "type", "ts")} == {
        k: ending[k] for k in ("runId", "seq", "type", "ts")
    }
    assert out["data"]["reason"] == "budget" and out["data"]["truncated"] == ["graph"]
    assert out["data"]["graph"] == {"nodes": [], "edges": [], "truncated": {"nodes": 2_000, "edges": 1_999}}


def test_a_push_refused_for_its_size_is_sent_again_small():
    # Given API Gateway refusing a push for its size (its own accounting of the frame)
    client = _management_client()
    frames = _frames(client)
    pusher = ConnectionPusher("https://unused", Registry(), client=client)
    event = {
        "runId": "r1",
        "seq": 7,
        "type": "final",
        "ts": "t",
        "data": {"path": ["A", "B"], "note": "n" * 20_000},
    }
    with Stubber(client) as stub:
        stub.add_client_error(
            "post_to_connection", service_error_code="PayloadTooLargeException", http_status_code=413
        )
        stub.add_response("post_to_connection", {}, {"ConnectionId": "c1", "Data": ANY})
        # When it is pushed
        delivered = pusher.send("c1", event)
        stub.assert_no_pending_responses()
    # Then it went out again, small, still event 7 and still the ending: the client learns the run ended
    assert delivered is True
    assert len(frames) == 2 and len(frames[1]) <= FALLBACK_BYTES
    again = json.loads(frames[1])
    assert (again["seq"], again["type"], again["data"]["path"]) == (7, "final", ["A", "B"])
    assert again["data"]["truncated"] == ["note"]
