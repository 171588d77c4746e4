"""Workflow: the Standard state machine from the ASL file, every Task wired to its step's function."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from annotated_types import Le

from infra.constructs.workflow import DEFINITION_FILE, definition_placeholders
from tests.infrastructure.queries import (
    as_list,
    functions_by_handler,
    handler_of,
    resources,
    statements_of_role,
    statements_with_action,
)
from visual_degrees.constants import STATE_TASKS
from visual_degrees.domain.models import Budgets

pytestmark = pytest.mark.cdk

PLACEHOLDER = re.compile(r"\$\{([A-Za-z0-9_]+)\}")


def _state_machine(raw: dict[str, Any]) -> dict[str, Any]:
    (machine,) = resources(raw, "AWS::StepFunctions::StateMachine").values()
    return machine["Properties"]


def _deployed_definition(raw: dict[str, Any]) -> dict[str, Any]:
    """The definition as Step Functions will hold it: each ${Key} replaced by its function's logical id."""
    machine = _state_machine(raw)
    substitutions = {key: value["Fn::GetAtt"][0] for key, value in machine["DefinitionSubstitutions"].items()}
    text = PLACEHOLDER.sub(lambda m: substitutions[m.group(1)], machine["DefinitionString"])
    return json.loads(text)


def test_state_machine_is_standard_traced_and_logs_everything(template: Any, raw: dict[str, Any]) -> None:
    template.has_resource_properties(
        "AWS::StepFunctions::StateMachine",
        {
            "StateMachineType": "STANDARD",
            "TracingConfiguration": {"Enabled": True},
            "LoggingConfiguration": {"Level": "ALL", "IncludeExecutionData": True},
        },
    )
    destination = _state_machine(raw)["LoggingConfiguration"]["Destinations"][0]
    group = raw["Resources"][destination["CloudWatchLogsLogGroup"]["LogGroupArn"]["Fn::GetAtt"][0]]
    assert group["Properties"]["LogGroupName"].startswith("/aws/vendedlogs/states/")
    assert group["Properties"]["RetentionInDays"] > 0


def test_every_placeholder_of_the_file_is_substituted_and_none_is_left(raw: dict[str, Any]) -> None:
    # Given the placeholders the ASL file declares
    declared = definition_placeholders()
    machine = _state_machine(raw)

    # Then the deployed definition declares the same ones, each has a substitution, and none other
    assert set(PLACEHOLDER.findall(machine["DefinitionString"])) == declared
    assert set(machine["DefinitionSubstitutions"]) == declared == {t.substitution for t in STATE_TASKS}
    # And once substituted, nothing is left to substitute
    assert "${" not in json.dumps(_deployed_definition(raw))


def test_each_task_state_invokes_the_function_of_its_step(raw: dict[str, Any]) -> None:
    definition = _deployed_definition(raw)
    by_handler = functions_by_handler(raw)
    for task in STATE_TASKS:
        function_id, _ = by_handler[handler_of(task.step)]
        assert definition["States"][task.state]["Resource"] == function_id, task.state


def test_definition_is_the_file_plus_an_execution_timeout_longer_than_any_budget(
    raw: dict[str, Any], context: dict[str, Any]
) -> None:
    deployed = json.loads(_state_machine(raw)["DefinitionString"])
    source = json.loads(DEFINITION_FILE.read_text(encoding="utf-8"))

    timeout = deployed.pop("TimeoutSeconds")
    assert deployed == source
    assert timeout == context["executionTimeoutMinutes"] * 60
    longest_budget = next(m.le for m in Budgets.model_fields["runtime_seconds"].metadata if isinstance(m, Le))
    assert timeout > longest_budget


def test_state_machine_may_invoke_exactly_its_task_functions(raw: dict[str, Any]) -> None:
    role = _state_machine(raw)["RoleArn"]["Fn::GetAtt"][0]
    statements = statements_of_role(raw, role)
    invoke = statements_with_action(statements, "lambda:InvokeFunction")

    targets = [resource for s in invoke for resource in as_list(s["Resource"])]
    by_handler = functions_by_handler(raw)
    expected = [{"Fn::GetAtt": [by_handler[handler_of(t.step)][0], "Arn"]} for t in STATE_TASKS]
    assert sorted(map(json.dumps, targets)) == sorted(map(json.dumps, expected))
    assert not [
        a
        for s in statements
        for a in as_list(s["Action"])
        if a.startswith("lambda:") and a != "lambda:InvokeFunction"
    ]
