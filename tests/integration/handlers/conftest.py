"""AWS in-process for the handler tests: moto's DynamoDB (the run table built from the synthesized
template), Step Functions (the state machine from the definition file), Secrets Manager and the
API Gateway management API, and an `AwsRuntime` over them installed for the handlers."""

from __future__ import annotations

import io
import json
import logging
import warnings
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws
from moto.core import DEFAULT_ACCOUNT_ID

from tests.integration.handlers.helpers import (
    CLIENT_TOKENS,
    ENDPOINT,
    GRAPH_TABLE,
    REGION,
    TABLE,
    Aws,
    LambdaContext,
)
from tests.support.cdk_template import run_table_definition, run_table_ttl
from tests.support.dynamodb_table import create_run_table
from visual_degrees.constants import (
    ENV_CLIENT_TOKENS_SECRET_ARN,
    ENV_GRAPH_TABLE_NAME,
    ENV_MAX_ACTIVE_RUNS,
    ENV_RUN_DEFAULTS,
    ENV_STATE_MACHINE_ARN,
    ENV_TABLE_NAME,
    ENV_WEBSOCKET_ENDPOINT,
    STATE_TASKS,
)
from visual_degrees.handlers.observability import logger as handler_logger
from visual_degrees.handlers.wiring import AwsRuntime, using_runtime
from visual_degrees.lifecycle.runs_api import Caller, RunsApi
from visual_degrees_tools.local.asl.definition import render_definition

# Every test's clients come from this one session, which keeps the service models it has read: boto3's
# default session is new in each mock_aws, and read them again for every test (a second a test).
SESSION = boto3.session.Session(region_name=REGION)


@pytest.fixture
def aws() -> Iterator[Aws]:
    with mock_aws():
        dynamodb = SESSION.client("dynamodb")
        dynamodb.create_table(TableName=TABLE, **run_table_definition())
        dynamodb.update_time_to_live(TableName=TABLE, TimeToLiveSpecification=run_table_ttl())
        create_run_table(dynamodb, GRAPH_TABLE)  # the evidence graph: the same pk/sk/TTL layout
        stepfunctions = SESSION.client("stepfunctions")
        arns = {
            task.substitution: f"arn:aws:lambda:{REGION}:{DEFAULT_ACCOUNT_ID}:function:{task.step}"
            for task in STATE_TASKS
        }
        machine = stepfunctions.create_state_machine(
            name="VisualDegrees-Workflow",
            definition=render_definition(arns),
            roleArn=f"arn:aws:iam::{DEFAULT_ACCOUNT_ID}:role/VisualDegrees-Workflow",
        )["stateMachineArn"]
        secretsmanager = SESSION.client("secretsmanager")
        tokens = secretsmanager.create_secret(
            Name="VisualDegrees-ClientTokens", SecretString=json.dumps(CLIENT_TOKENS)
        )
        management_api = SESSION.client("apigatewaymanagementapi", endpoint_url=ENDPOINT)
        environ = {
            ENV_TABLE_NAME: TABLE,
            ENV_GRAPH_TABLE_NAME: GRAPH_TABLE,
            ENV_WEBSOCKET_ENDPOINT: ENDPOINT,
            ENV_STATE_MACHINE_ARN: machine,
            ENV_CLIENT_TOKENS_SECRET_ARN: tokens["ARN"],
            ENV_RUN_DEFAULTS: json.dumps({"maxHops": 6}),
            ENV_MAX_ACTIVE_RUNS: "2",
        }
        yield Aws(dynamodb, stepfunctions, secretsmanager, management_api, machine, tokens["ARN"], environ)


@pytest.fixture
def runtime(aws: Aws) -> Iterator[AwsRuntime]:
    """The runtime every handler module finds through current_runtime()."""
    with using_runtime(aws.runtime()) as installed:
        yield installed


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every action the protocol's one use case handles, on either server, as (client id, action)."""
    seen: list[tuple[str, str]] = []
    handle = RunsApi.handle

    def spy(self: RunsApi, caller: Caller, message: Any) -> None:
        seen.append((caller.client_id, message.action))
        handle(self, caller, message)

    monkeypatch.setattr(RunsApi, "handle", spy)
    return seen


@pytest.fixture
def context() -> LambdaContext:
    return LambdaContext()


@pytest.fixture
def logs() -> Iterator[io.StringIO]:
    """Everything the handlers and the package log, as the JSON lines Lambda would record."""
    buffer = io.StringIO()
    capture = logging.StreamHandler(buffer)
    capture.setFormatter(handler_logger.registered_formatter)
    loggers = [logging.getLogger(handler_logger.service), logging.getLogger("visual_degrees")]
    for each in loggers:
        each.addHandler(capture)
    yield buffer
    for each in loggers:
        each.removeHandler(capture)


@pytest.fixture(autouse=True)
def _quiet_empty_metrics() -> Iterator[None]:
    # The handlers filter this at import; pytest resets warning filters around each test.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="No application metrics to publish")
        yield
