"""Workflow: the Standard state machine built from statemachine/visual_degrees.asl.json.

The definition is the one file the local engine runs too; CloudFormation substitutes each Task's
`${…FunctionArn}` with its function, and the execution timeout is the only addition.

Standard, not Express: a run must be readable state by state in the console, cancellable
(StopExecution) and describable (DescribeExecution) — Express supports neither API — and may
outlive Express's 5 minutes (runtime budgets go up to an hour). Standard bills per state
transition: well under a tenth of a cent for a typical run (docs/operators.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from aws_cdk import ArnFormat, Stack, Validations
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from infra.nag import acknowledge, acknowledge_wildcard
from infra.settings import DeploymentSettings
from visual_degrees.domain.errors import ConfigurationError

DEFINITION_FILE = Path(__file__).resolve().parents[2] / "statemachine" / "visual_degrees.asl.json"
PLACEHOLDER = re.compile(r"\$\{([A-Za-z0-9_]+)\}")


def definition_placeholders(path: Path = DEFINITION_FILE) -> set[str]:
    """Every `${Name}` the definition expects CloudFormation to substitute."""
    return set(PLACEHOLDER.findall(path.read_text(encoding="utf-8")))


def deployed_definition(timeout_seconds: int, path: Path = DEFINITION_FILE) -> str:
    """The definition file with the execution timeout at its top level, and nothing else changed.

    CDK drops StateMachine(timeout=…) for DefinitionBody.from_file (a file body is uploaded as is), and
    the file itself stays free of deployment choices, so the timeout is added here and the body goes
    inline with from_string.
    """
    definition = json.loads(path.read_text(encoding="utf-8"))
    if "TimeoutSeconds" in definition:
        raise ConfigurationError(
            f"{path.name} sets TimeoutSeconds itself; set executionTimeoutMinutes instead"
        )
    return json.dumps({**definition, "TimeoutSeconds": timeout_seconds}, indent=1)


class Workflow(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        task_functions: Mapping[str, lambda_.IFunction],
        settings: DeploymentSettings,
    ) -> None:
        """`task_functions`: substitution key (e.g. InitializeSessionFunctionArn) -> its function."""
        super().__init__(scope, construct_id)
        expected = definition_placeholders()
        if set(task_functions) != expected:
            missing = sorted(expected - set(task_functions))
            unknown = sorted(set(task_functions) - expected)
            raise ConfigurationError(f"definition substitutions differ: missing {missing}, unknown {unknown}")

        # The vendedlogs prefix keeps CloudWatch's log resource policy from growing per log group.
        self.log_group = logs.LogGroup(
            self,
            "ExecutionLogs",
            log_group_name=f"/aws/vendedlogs/states/{Stack.of(self).stack_name}-workflow",
            retention=settings.log_retention,
            removal_policy=settings.removal,
        )
        self.state_machine = sfn.StateMachine(
            self,
            "StateMachine",
            definition_body=sfn.DefinitionBody.from_string(
                deployed_definition(settings.execution_timeout_minutes * 60)
            ),
            definition_substitutions={key: fn.function_arn for key, fn in task_functions.items()},
            state_machine_type=sfn.StateMachineType.STANDARD,
            logs=sfn.LogOptions(
                destination=self.log_group, level=sfn.LogLevel.ALL, include_execution_data=True
            ),
            tracing_enabled=True,
            removal_policy=settings.removal,
        )
        Validations.of(self.state_machine.role).acknowledge(
            acknowledge(
                "AwsSolutions-IAM5[Resource::*]",
                "X-Ray tracing (PutTraceSegments, PutTelemetryRecords, GetSamplingRules/Targets) and "
                "CloudWatch Logs vended delivery (logs:*LogDelivery, PutResourcePolicy, "
                "DescribeResourcePolicies, DescribeLogGroups) support no resource-level permissions.",
            )
        )
        # The definition is opaque to CDK, so it cannot infer invoke permissions: grant exactly the
        # task functions, unqualified (the ASL names no version or alias).
        iam.Grant.add_to_principal(
            grantee=self.state_machine,
            actions=["lambda:InvokeFunction"],
            resource_arns=[fn.function_arn for fn in task_functions.values()],
        )

    def grant_start(self, grantee: iam.IGrantable) -> iam.Grant:
        return self.state_machine.grant_start_execution(grantee)

    @property
    def executions_arn(self) -> str:
        """Every execution of this state machine: executions are named by run id at runtime."""
        return Stack.of(self).format_arn(
            service="states",
            resource="execution",
            resource_name=f"{self.state_machine.state_machine_name}:*",
            arn_format=ArnFormat.COLON_RESOURCE_NAME,
        )

    def grant_stop(self, grantee: iam.IGrantable) -> iam.Grant:
        return self._grant_on_executions(grantee, "states:StopExecution")

    def grant_describe(self, grantee: iam.IGrantable) -> iam.Grant:
        return self._grant_on_executions(grantee, "states:DescribeExecution")

    def _grant_on_executions(self, grantee: iam.IGrantable, action: str) -> iam.Grant:
        grant = iam.Grant.add_to_principal(
            grantee=grantee, actions=[action], resource_arns=[self.executions_arn]
        )
        acknowledge_wildcard(
            grantee,
            self.executions_arn,
            "Executions are named by run id at runtime; the grant covers executions of this one state "
            "machine, as narrow as an execution ARN can be named in advance.",
        )
        return grant
