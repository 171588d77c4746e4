"""The AWS adapters' answers to AWS's failures, through botocore Stubbers (no moto, no network)."""

from __future__ import annotations

import boto3
import pytest
from botocore.stub import ANY, Stubber

from visual_degrees.adapters.aws.event_sink import ConnectionPusher
from visual_degrees.adapters.aws.executions import StepFunctionsExecutions
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
