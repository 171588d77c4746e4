"""ExecutionEndings (issue 9.6): an execution of this state machine that ends FAILED, TIMED_OUT or
ABORTED reaches the function that gives its run an ending, with nothing more than that function
needs (run memory and the push), invoked by EventBridge for this one rule only."""

from __future__ import annotations

from typing import Any

import pytest

from infra.constructs.functions import Need, handler_table
from tests.infrastructure.queries import (
    actions_of,
    function_for,
    referenced_ids,
    resources,
    role_of_function,
    statements_of_role,
)
from visual_degrees.constants import EXECUTION_ENDED_HANDLER
from visual_degrees.handlers.catalog import EXECUTION_ENDS

pytestmark = pytest.mark.cdk


def _rule(raw: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    (found,) = resources(raw, "AWS::Events::Rule").items()
    return found


def test_the_rule_matches_this_state_machines_executions_that_ended_without_success(raw) -> None:
    _, rule = _rule(raw)
    (machine_id,) = resources(raw, "AWS::StepFunctions::StateMachine")
    pattern = rule["Properties"]["EventPattern"]
    assert pattern["source"] == ["aws.states"]
    assert pattern["detail-type"] == ["Step Functions Execution Status Change"]
    assert pattern["detail"]["status"] == list(EXECUTION_ENDS) == ["FAILED", "TIMED_OUT", "ABORTED"]
    assert referenced_ids(pattern["detail"]["stateMachineArn"]) == {machine_id}
    assert rule["Properties"]["State"] == "ENABLED"
    assert "EventBusName" not in rule["Properties"]  # Step Functions publishes on the default bus


def test_its_one_target_is_the_execution_ended_function_with_retries(raw) -> None:
    _, rule = _rule(raw)
    function_id, _ = function_for(raw, EXECUTION_ENDED_HANDLER)
    (target,) = rule["Properties"]["Targets"]
    assert referenced_ids(target["Arn"]) == {function_id}
    assert target["RetryPolicy"]["MaximumRetryAttempts"] >= 3
    assert target["RetryPolicy"]["MaximumEventAgeInSeconds"] <= 24 * 3600


def test_an_ending_undelivered_after_its_retries_is_kept_in_an_encrypted_ssl_only_queue(raw) -> None:
    # Given the rule's target
    rule_id, rule = _rule(raw)
    (target,) = rule["Properties"]["Targets"]

    # Then what EventBridge cannot deliver goes to a queue, kept for SQS's longest, encrypted at rest
    (queue_id,) = referenced_ids(target["DeadLetterConfig"]["Arn"])
    queue = resources(raw, "AWS::SQS::Queue")[queue_id]["Properties"]
    assert queue["SqsManagedSseEnabled"] is True
    assert queue["MessageRetentionPeriod"] == 14 * 24 * 3600
    # and its policy refuses anything but TLS, and lets this rule alone send to it
    (policy,) = [
        p["Properties"]
        for p in resources(raw, "AWS::SQS::QueuePolicy").values()
        if p["Properties"]["Queues"] == [{"Ref": queue_id}]
    ]
    statements = policy["PolicyDocument"]["Statement"]
    assert any(
        s["Effect"] == "Deny" and s["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
        for s in statements
    )
    (allow,) = [s for s in statements if s["Effect"] == "Allow"]
    assert (allow["Principal"], allow["Action"]) == ({"Service": "events.amazonaws.com"}, "sqs:SendMessage")
    assert referenced_ids(allow["Condition"]["ArnEquals"]["aws:SourceArn"]) == {rule_id}


def test_only_this_rule_may_invoke_the_function(raw) -> None:
    rule_id, _ = _rule(raw)
    function_id, _ = function_for(raw, EXECUTION_ENDED_HANDLER)
    invokers = [
        p["Properties"]
        for p in resources(raw, "AWS::Lambda::Permission").values()
        if function_id in referenced_ids(p["Properties"]["FunctionName"])
    ]
    assert [(p["Principal"], p["Action"]) for p in invokers] == [
        ("events.amazonaws.com", "lambda:InvokeFunction")
    ]
    assert referenced_ids(invokers[0]["SourceArn"]) == {rule_id}


def test_the_function_may_use_run_memory_and_push_and_nothing_else(raw) -> None:
    (spec,) = [s for s in handler_table() if s.module == EXECUTION_ENDED_HANDLER]
    assert spec.needs == {Need.MEMORY, Need.PUSH}
    _, function = function_for(raw, EXECUTION_ENDED_HANDLER)
    actions = actions_of(statements_of_role(raw, role_of_function(function)))
    assert not {
        a for a in actions if a.startswith(("states:", "secretsmanager:", "rekognition:", "bedrock:"))
    }
    assert "execute-api:ManageConnections" in actions and "dynamodb:PutItem" in actions
