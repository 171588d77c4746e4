"""The stack: builds one construct per capability and wires them; no resource is defined here.

Wiring is table-driven: each function's row in `handler_table()` lists its needs, and each need is
one grant plus the environment variable that tells the handler where the granted resource is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from aws_cdk import CfnOutput, Stack, Validations
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra.bedrock_access import BedrockModel, any_region_model_arn, invoke_statements
from infra.constructs.evidence_graph_table import EvidenceGraphTable
from infra.constructs.execution_endings import ExecutionEndings
from infra.constructs.functions import Need, Role, RuntimeFunctions
from infra.constructs.observability import Observability
from infra.constructs.run_memory_table import RunMemoryTable
from infra.constructs.secrets import RuntimeSecrets
from infra.constructs.websocket_api import WebSocketGateway
from infra.constructs.workflow import Workflow
from infra.nag import acknowledge, acknowledge_wildcard
from infra.settings import DeploymentSettings
from visual_degrees.constants import (
    ENV_BEDROCK_MODEL_ID,
    ENV_CLIENT_RATE_SHARE,
    ENV_CLIENT_TOKENS_SECRET_ARN,
    ENV_GRAPH_RETENTION_DAYS,
    ENV_GRAPH_TABLE_NAME,
    ENV_LLM_RPS,
    ENV_MAX_ACTIVE_RUNS,
    ENV_PLANNER,
    ENV_PROVIDER_SECRET_ARN,
    ENV_RECOGNITION_RPS,
    ENV_RUN_CEILINGS,
    ENV_RUN_DEFAULTS,
    ENV_SEARCH_ENGINE,
    ENV_SEARCH_RPS,
    ENV_STATE_MACHINE_ARN,
    ENV_TABLE_NAME,
    ENV_WEBSOCKET_ENDPOINT,
    STATE_TASKS,
    WEBSOCKET_ROUTES,
)


class VisualDegreesStack(Stack):
    def __init__(
        self, scope: Construct, construct_id: str, *, settings: DeploymentSettings, **kwargs: Any
    ) -> None:
        super().__init__(
            scope,
            construct_id,
            description="Visual Degrees: chains of people, each link proven by a photo of both",
            **kwargs,
        )
        self.settings = settings
        self.memory = RunMemoryTable(self, "RunMemory", settings=settings)
        self.graph = EvidenceGraphTable(self, "EvidenceGraph", settings=settings)
        self.secrets = RuntimeSecrets(self, "Secrets", settings=settings)
        self.functions = RuntimeFunctions(self, "Functions", settings=settings)
        self.workflow = Workflow(
            self,
            "Workflow",
            task_functions={task.substitution: self.functions.for_step(task.step) for task in STATE_TASKS},
            settings=settings,
        )
        self.endings = ExecutionEndings(
            self,
            "ExecutionEndings",
            state_machine=self.workflow.state_machine,
            function=self.functions.execution_ended,
            removal=settings.removal,
        )
        self.gateway = WebSocketGateway(
            self,
            "WebSocket",
            routes={route_key: self.functions.for_route(route_key) for route_key in WEBSOCKET_ROUTES},
            authorizer=self.functions.authorizer,
            settings=settings,
        )

        wiring: Mapping[Need, Callable[[lambda_.Function], dict[str, str]]] = {
            Need.MEMORY: self._memory,
            Need.GRAPH: self._graph,
            Need.PUSH: self._push,
            Need.START_RUN: self._start_run,
            Need.STOP_RUN: self._stop_run,
            Need.DESCRIBE_RUN: self._describe_run,
            Need.PROVIDER_KEYS: self._provider_keys,
            Need.CLIENT_TOKENS: self._client_tokens,
            Need.READ_RUN_ACCESS: self._read_run_access,
            Need.RECOGNIZE: self._recognize,
            Need.PLAN: self._plan,
        }
        for spec, function in self.functions.items():
            for need in sorted(spec.needs, key=lambda n: n.value):
                for name, value in wiring[need](function).items():
                    function.add_environment(name, value)

        self.observability = Observability(
            self,
            "Observability",
            state_machine=self.workflow.state_machine,
            function_groups={
                "Workflow steps": [
                    fn for spec, fn in self.functions.items() if spec.role in (Role.STEP, Role.EVENTS)
                ],
                "WebSocket": [
                    fn for spec, fn in self.functions.items() if spec.role in (Role.ROUTE, Role.AUTHORIZER)
                ],
            },
            api=self.gateway.api,
            stage=self.gateway.stage,
            dead_letter_queues={"Execution endings": self.endings.dead_letters},
            settings=settings,
        )
        self._outputs()

    # ---- one method per need: the grant, and where the handler finds the resource --------------

    def _memory(self, function: lambda_.Function) -> dict[str, str]:
        self.memory.grant_items(function)
        return {ENV_TABLE_NAME: self.memory.table.table_name}

    def _read_run_access(self, function: lambda_.Function) -> dict[str, str]:
        self.memory.grant_read_item(function)
        return {ENV_TABLE_NAME: self.memory.table.table_name}

    def _graph(self, function: lambda_.Function) -> dict[str, str]:
        self.graph.grant_links(function)
        return {
            ENV_GRAPH_TABLE_NAME: self.graph.table.table_name,
            ENV_GRAPH_RETENTION_DAYS: str(self.graph.retention_days),
        }

    def _push(self, function: lambda_.Function) -> dict[str, str]:
        self.gateway.grant_push(function)
        return {ENV_WEBSOCKET_ENDPOINT: self.gateway.callback_url}

    def _start_run(self, function: lambda_.Function) -> dict[str, str]:
        self.workflow.grant_start(function)
        return {
            ENV_STATE_MACHINE_ARN: self.workflow.state_machine.state_machine_arn,
            ENV_RUN_DEFAULTS: self.settings.run_defaults.model_dump_json(by_alias=True),
            ENV_RUN_CEILINGS: self.settings.run_ceilings.model_dump_json(by_alias=True),
            ENV_MAX_ACTIVE_RUNS: str(self.settings.max_active_runs_per_client),
        }

    def _stop_run(self, function: lambda_.Function) -> dict[str, str]:
        self.workflow.grant_stop(function)
        return {ENV_STATE_MACHINE_ARN: self.workflow.state_machine.state_machine_arn}

    def _describe_run(self, function: lambda_.Function) -> dict[str, str]:
        self.workflow.grant_describe(function)
        return {ENV_STATE_MACHINE_ARN: self.workflow.state_machine.state_machine_arn}

    def _provider_keys(self, function: lambda_.Function) -> dict[str, str]:
        self.secrets.provider_keys.grant_read(function)
        pacing = {
            ENV_SEARCH_RPS: self.settings.search_rps,
            ENV_RECOGNITION_RPS: self.settings.recognition_rps,
            ENV_LLM_RPS: self.settings.llm_rps,
            ENV_CLIENT_RATE_SHARE: self.settings.client_rate_share,
        }
        return {
            ENV_PROVIDER_SECRET_ARN: self.secrets.provider_keys.secret_arn,
            ENV_SEARCH_ENGINE: self.settings.search_engine,
            # Unset: the runtime paces at each provider's documented default quota.
            **{name: f"{value:g}" for name, value in pacing.items() if value is not None},
        }

    def _client_tokens(self, function: lambda_.Function) -> dict[str, str]:
        self.secrets.client_tokens.grant_read(function)
        return {ENV_CLIENT_TOKENS_SECRET_ARN: self.secrets.client_tokens.secret_arn}

    def _recognize(self, function: lambda_.Function) -> dict[str, str]:
        # A policy of its own (a child of the role, not of the function, whose acknowledgment is about
        # X-Ray), so this one wildcard carries its own reason.
        policy = _own_policy(
            function,
            "RecognizeCelebrities",
            [iam.PolicyStatement(actions=["rekognition:RecognizeCelebrities"], resources=["*"])],
        )
        Validations.of(policy).acknowledge(
            acknowledge(
                "AwsSolutions-IAM5[Resource::*]",
                "rekognition:RecognizeCelebrities has no resource type: IAM accepts only Resource '*' "
                "for it.",
            )
        )
        return {}

    def _plan(self, function: lambda_.Function) -> dict[str, str]:
        environment: dict[str, str] = {ENV_PLANNER: self.settings.planner}
        if self.settings.planner == "bedrock":
            model = BedrockModel.parse(self.settings.bedrock_model_id)
            policy = _own_policy(function, "InvokeBedrockModel", invoke_statements(self, model))
            if model.geography is not None:
                acknowledge_wildcard(
                    policy,
                    any_region_model_arn(self, model),
                    "A cross-region inference profile runs the model in whichever region of its "
                    "geography Bedrock routes to, and IAM checks the model's ARN there; the statement "
                    "holds only for calls through this one profile (bedrock:InferenceProfileArn).",
                )
            environment[ENV_BEDROCK_MODEL_ID] = model.model_id
        return environment

    def _outputs(self) -> None:
        CfnOutput(
            self, "WebSocketUrl", value=self.gateway.url, description="wss:// endpoint clients connect to"
        )
        CfnOutput(self, "StateMachineArn", value=self.workflow.state_machine.state_machine_arn)
        CfnOutput(self, "RunMemoryTableName", value=self.memory.table.table_name)
        CfnOutput(self, "EvidenceGraphTableName", value=self.graph.table.table_name)
        CfnOutput(
            self,
            "ProviderKeysSecretArn",
            value=self.secrets.provider_keys.secret_arn,
            description="put the provider API keys here (JSON)",
        )
        CfnOutput(
            self,
            "ClientTokensSecretArn",
            value=self.secrets.client_tokens.secret_arn,
            description="client tokens (JSON {clientId: token}); clients pass one as ?token=",
        )
        CfnOutput(
            self,
            "ExecutionEndingsDeadLetterQueueUrl",
            value=self.endings.dead_letters.queue_url,
            description="execution endings EventBridge could not deliver (docs/operators.md)",
        )
        CfnOutput(self, "ExecutionEndedFunctionName", value=self.functions.execution_ended.function_name)
        CfnOutput(self, "DashboardName", value=self.observability.dashboard.dashboard_name)
        CfnOutput(self, "AlarmTopicArn", value=self.observability.topic.topic_arn)


def _own_policy(
    function: lambda_.Function, policy_id: str, statements: list[iam.PolicyStatement]
) -> iam.Policy:
    """A policy of the function's own role holding `statements`, so acknowledgments can name it alone."""
    role = function.role
    if not isinstance(role, iam.Role):
        raise TypeError(f"{function.node.path} has no role of its own to attach a policy to")
    policy = iam.Policy(role, policy_id, statements=statements)
    role.attach_inline_policy(policy)
    return policy
