"""IAM: every statement of every policy is scoped to named resources of this stack.

A `*` resource is allowed only for the actions below, each for the reason AWS gives; no action may
be a wildcard; a resource that ends in a wildcard must still name a resource of this template.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from infra.constructs.functions import Need, Role, handler_table
from infra.constructs.run_memory_table import INDEX_ACTIONS, READ_ITEM_ACTIONS, TABLE_ACTIONS
from tests.infrastructure.queries import (
    all_policy_statements,
    as_list,
    function_for,
    referenced_ids,
    render,
    resources,
    role_of_function,
    statements_of_role,
    statements_with_action,
)
from visual_degrees.constants import CONNECTIONS_BY_RUN_INDEX

pytestmark = pytest.mark.cdk

# Actions IAM only accepts with Resource "*" (they have no resource types), and why we use them.
STAR_RESOURCE_ALLOWED: dict[frozenset[str], str] = {
    frozenset(
        {
            "xray:PutTraceSegments",
            "xray:PutTelemetryRecords",
            "xray:GetSamplingRules",
            "xray:GetSamplingTargets",
        }
    ): "X-Ray active tracing of the functions and the state machine",
    frozenset(
        {
            "logs:CreateLogDelivery",
            "logs:GetLogDelivery",
            "logs:UpdateLogDelivery",
            "logs:DeleteLogDelivery",
            "logs:ListLogDeliveries",
            "logs:PutResourcePolicy",
            "logs:DescribeResourcePolicies",
            "logs:DescribeLogGroups",
        }
    ): "Step Functions' vended log delivery to CloudWatch Logs",
    frozenset({"rekognition:RecognizeCelebrities"}): "celebrity recognition in the searching steps",
}
# AWS managed policies allowed, and where.
MANAGED_POLICIES_ALLOWED = {
    "AmazonAPIGatewayPushToCloudWatchLogs": "the region's API Gateway logging role (AWS::ApiGateway::Account)"
}
TRUSTED_SERVICES = {"lambda.amazonaws.com", "states.amazonaws.com", "apigateway.amazonaws.com"}


def test_no_action_is_a_wildcard(raw: dict[str, Any]) -> None:
    offending = [
        (owner, action)
        for owner, statement in all_policy_statements(raw)
        for action in as_list(statement["Action"])
        if "*" in action
    ]
    assert offending == []


def test_star_resources_only_for_actions_that_have_no_resource_type(raw: dict[str, Any]) -> None:
    # CDK may merge statements (minimizePolicies), so every action is checked on its own.
    allowed = frozenset().union(*STAR_RESOURCE_ALLOWED)
    for owner, statement in all_policy_statements(raw):
        if "*" not in as_list(statement["Resource"]):
            continue
        actions = set(as_list(statement["Action"]))
        assert actions <= allowed, f"{owner}: {sorted(actions - allowed)}"


def test_other_wildcards_are_trailing_and_inside_a_named_resource_of_this_stack(raw: dict[str, Any]) -> None:
    # e.g. executions of our state machine (:execution:<machine>:*) or connections of our stage
    # (<api>/live/POST/@connections/*): the wildcard names instances created at runtime, nothing else.
    own = set(raw["Resources"])
    for owner, statement in all_policy_statements(raw):
        for resource in as_list(statement["Resource"]):
            text = render(resource)
            if text == "*" or "*" not in text:
                continue
            assert re.search(r"[:/]\*$", text) and text.count("*") == 1, f"{owner}: {text}"
            assert referenced_ids(resource) & own, f"{owner}: {text} names no resource of this stack"


def test_only_allowlisted_managed_policies_are_attached(raw: dict[str, Any]) -> None:
    for lid, role in resources(raw, "AWS::IAM::Role").items():
        for arn in role["Properties"].get("ManagedPolicyArns", []):
            name = render(arn).rsplit("/", 1)[-1]
            assert name in MANAGED_POLICIES_ALLOWED, f"{lid}: {name}"
            assert role["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {
                "Service": "apigateway.amazonaws.com"
            }


def test_roles_trust_only_their_own_service(raw: dict[str, Any]) -> None:
    for lid, role in resources(raw, "AWS::IAM::Role").items():
        (statement,) = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
        assert statement["Action"] == "sts:AssumeRole", lid
        assert set(statement["Principal"]) == {"Service"}, lid
        assert statement["Principal"]["Service"] in TRUSTED_SERVICES, lid


def test_no_statement_touches_iam_or_sts(raw: dict[str, Any]) -> None:
    actions = {a for _, s in all_policy_statements(raw) for a in as_list(s["Action"])}
    assert not {a for a in actions if a.startswith(("iam:", "sts:", "kms:"))}


def test_table_access_is_item_level_on_the_table_and_queries_on_its_named_index(raw: dict[str, Any]) -> None:
    tables = resources(raw, "AWS::DynamoDB::Table")
    (table_id,) = [lid for lid in tables if lid.startswith("RunMemory")]
    graph_ids = set(tables) - {table_id}  # the evidence graph's grants: test_evidence_graph_table.py
    table, index = f"<{table_id}.Arn>", f"/index/{CONNECTIONS_BY_RUN_INDEX}"
    granted: dict[str, set[str]] = {}
    for owner, statement in all_policy_statements(raw):
        if referenced_ids(statement["Resource"]) & graph_ids:
            continue
        actions = {a for a in as_list(statement["Action"]) if a.startswith("dynamodb:")}
        for resource in (render(r) for r in as_list(statement["Resource"])) if actions else ():
            if resource == table:
                assert actions <= set(TABLE_ACTIONS), f"{owner}: {sorted(actions - set(TABLE_ACTIONS))}"
            else:
                assert resource.endswith(index) and actions <= set(INDEX_ACTIONS), f"{owner}: {resource}"
            granted.setdefault(owner, set()).update(
                f"{a}@{'index' if resource != table else 'table'}" for a in actions
            )
    # Each function with run memory gets the whole item set: what the memory adapter may call; the
    # authorizer, which only checks a share token against its run's access record, GetItem alone.
    expected = {f"{a}@table" for a in TABLE_ACTIONS} | {f"{a}@index" for a in INDEX_ACTIONS}
    (authorizer,) = [s for s in handler_table() if s.role is Role.AUTHORIZER]
    reader = {"Ref": role_of_function(function_for(raw, authorizer.module)[1])}
    roles = {lid: p["Properties"]["Roles"] for lid, p in resources(raw, "AWS::IAM::Policy").items()}
    (readers_policy,) = [owner for owner in granted if reader in roles.get(owner, [])]
    assert granted.pop(readers_policy) == {f"{a}@table" for a in READ_ITEM_ACTIONS}
    assert granted and all(actions == expected for actions in granted.values()), granted


@pytest.mark.parametrize(
    ("action", "need"),
    [
        ("states:StartExecution", Need.START_RUN),
        ("states:StopExecution", Need.STOP_RUN),
        ("states:DescribeExecution", Need.DESCRIBE_RUN),
        ("rekognition:RecognizeCelebrities", Need.RECOGNIZE),
        ("dynamodb:PutItem", Need.MEMORY),
    ],
)
def test_each_capability_is_granted_to_exactly_the_functions_that_need_it(
    raw: dict[str, Any], action: str, need: Need
) -> None:
    (machine_id,) = resources(raw, "AWS::StepFunctions::StateMachine")
    for spec in handler_table():
        _, function = function_for(raw, spec.module)
        grants = statements_with_action(statements_of_role(raw, role_of_function(function)), action)
        assert bool(grants) == (need in spec.needs), spec.module
        if action.startswith("states:"):
            # on this state machine (start) or its executions (stop, describe), never another's
            assert all(machine_id in referenced_ids(s["Resource"]) for s in grants), spec.module


def test_continuing_a_run_may_start_executions_and_nothing_else_of_step_functions(
    raw: dict[str, Any],
) -> None:
    # continueRun starts the run's next execution (<run id>--c<n>) on this state machine only
    (spec,) = [s for s in handler_table() if s.label == "continueRun"]
    _, function = function_for(raw, spec.module)
    statements = statements_of_role(raw, role_of_function(function))
    actions = {a for s in statements for a in as_list(s["Action"]) if a.startswith("states:")}
    assert actions == {"states:StartExecution"}
