"""Helpers of the handler tests: the moto-backed AWS of a test, API Gateway events from
tests/fixtures/events, a Lambda context, and the metrics Powertools printed."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from moto.apigatewaymanagementapi.models import apigatewaymanagementapi_backends
from moto.core import DEFAULT_ACCOUNT_ID

from visual_degrees.constants import STATE_TASKS
from visual_degrees.handlers.wiring import AwsRuntime
from visual_degrees_tools.local.asl.definition import load_definition
from visual_degrees_tools.local.asl.engine import Execution, LocalEngine

REGION = "us-east-1"
TABLE = "VisualDegrees-RunMemory"
GRAPH_TABLE = "VisualDegrees-EvidenceGraph"
ENDPOINT = "https://abc123.execute-api.us-east-1.amazonaws.com/live"
CLIENT_TOKENS = {"default": "tok-default-3f9c1d2e8b7a6f5e4d3c2b1a", "other": "tok-other-9a8b7c6d5e4f3a2b1c0d"}


@dataclass
class LambdaContext:
    function_name: str = "VisualDegrees-Handler"
    memory_limit_in_mb: int = 256
    invoked_function_arn: str = f"arn:aws:lambda:{REGION}:{DEFAULT_ACCOUNT_ID}:function:VisualDegrees-Handler"
    aws_request_id: str = "c6af9ac6-7b61-11e6-9a41-93e8deadbeef"


@dataclass
class Aws:
    dynamodb: Any
    stepfunctions: Any
    secretsmanager: Any
    management_api: Any
    state_machine_arn: str
    tokens_secret_arn: str
    environ: dict[str, str]

    def runtime(self, **changes: Any) -> AwsRuntime:
        options: dict[str, Any] = {
            "dynamodb": self.dynamodb,
            "stepfunctions": self.stepfunctions,
            "management_api": self.management_api,
            "secretsmanager": self.secretsmanager,
            **changes,
        }
        return AwsRuntime(options.pop("environ", self.environ), **options)

    def pushed(self, connection_id: str) -> list[dict[str, Any]]:
        """Every message posted to `connection_id`, in order (moto concatenates the bodies)."""
        backend = apigatewaymanagementapi_backends[DEFAULT_ACCOUNT_ID][REGION]
        connection = backend.connections.get(connection_id)
        text = connection.data.decode("utf-8") if connection is not None else ""
        messages, decoder, at = [], json.JSONDecoder(), 0
        while at < len(text):
            message, at = decoder.raw_decode(text, at)
            messages.append(message)
        return messages

    def items(self, pk: str) -> list[dict[str, Any]]:
        reply = self.dynamodb.query(
            TableName=TABLE,
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": {"S": pk}},
        )
        return list(reply["Items"])


def event(name: str, **changes: Any) -> dict[str, Any]:
    """An API Gateway event from tests/fixtures/events; `changes` replace top-level or
    requestContext fields (`route_key=`, `connection_id=`, `authorizer=`, `body=`, …)."""
    path = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "events", f"{name}.json")
    with open(path, encoding="utf-8") as file:
        data: dict[str, Any] = json.load(file)
    context_fields = {"route_key": "routeKey", "connection_id": "connectionId", "authorizer": "authorizer"}
    for key, value in changes.items():
        if key in context_fields:
            data["requestContext"][context_fields[key]] = value
        else:
            data[
                {"body": "body", "query": "queryStringParameters", "base64": "isBase64Encoded"}.get(key, key)
            ] = value
    return data


def message(
    action: str, body: dict[str, Any] | str, *, connection_id: str = "conn-1", client_id: str = "default"
) -> dict[str, Any]:
    """A MESSAGE event for route `action` carrying `body` (a dict is sent as JSON)."""
    text = body if isinstance(body, str) else json.dumps(body)
    return event(
        "ws_message",
        route_key=action,
        connection_id=connection_id,
        authorizer={"principalId": client_id, "clientId": client_id},
        body=text,
    )


def emf_metrics(output: str) -> list[dict[str, Any]]:
    """The metrics Powertools printed as EMF: [{"name", "value" (summed), "dimensions"}]."""
    found = []
    for line in output.splitlines():
        if not line.startswith("{") or '"_aws"' not in line:
            continue
        document = json.loads(line)
        for directive in document["_aws"]["CloudWatchMetrics"]:
            dimensions = {name: document[name] for names in directive["Dimensions"] for name in names}
            for metric in directive["Metrics"]:
                value = document[metric["Name"]]
                total = sum(value) if isinstance(value, list) else value  # EMF may batch values
                found.append({"name": metric["Name"], "value": total, "dimensions": dimensions})
    return found


def drive_execution(stepfunctions: Any, execution_arn: str, context: Any) -> Execution:
    """Run the execution Step Functions holds (moto records it; it runs nothing) on the local engine:
    the same definition file, each Task invoking its step *handler* with the Task payload, as Step
    Functions would invoke the Lambda."""
    described = stepfunctions.describe_execution(executionArn=execution_arn)
    handlers = {
        f"${{{task.substitution}}}": import_module(f"visual_degrees.handlers.{task.step}").handler
        for task in STATE_TASKS
    }
    engine = LocalEngine(load_definition(), lambda resource, payload: handlers[resource](payload, context))
    return engine.execute(json.loads(described["input"]), name=described["name"])
