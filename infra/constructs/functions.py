"""Functions: every Lambda of the system, generated in one loop from one table of handlers.

One row per Task state (constants.STATE_TASKS), per WebSocket route (constants.WEBSOCKET_ROUTES),
for the `$connect` authorizer and for the EventBridge handler that ends runs whose execution ended
first (constants.EXECUTION_ENDED_HANDLER). A row names the handler module, a sizing profile and the
capabilities (`Need`) the handler uses; the stack turns needs into grants and environment variables,
so a function gets exactly the permissions of its row. All functions share one code asset and one
dependency layer. The asset is the `lambdas/` folder, which holds the runtime package alone: the local
engine, server, page, sandbox, bench and CLI live in `tools/visual_degrees_tools` (`pip install -e .`
gives both).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from aws_cdk import Duration, Validations
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from infra.constructs.observability import METRICS_NAMESPACE
from infra.layer_bundling import dependency_layer
from infra.nag import acknowledge
from infra.settings import DeploymentSettings
from visual_degrees.constants import EXECUTION_ENDED_HANDLER, SERVICE_NAME, STATE_TASKS, WEBSOCKET_ROUTES
from visual_degrees.domain.errors import ConfigurationError
from visual_degrees.handlers.catalog import PLANNING_STEPS, SEARCHING_STEPS

REPO_ROOT = Path(__file__).resolve().parents[2]
CODE_ROOT = REPO_ROOT / "lambdas"
CODE_EXCLUDES = (
    "**/__pycache__",
    "**/*.pyc",
    "*.egg-info",
    "**/tests",
    "**/.pytest_cache",
    "**/.mypy_cache",
    "**/.ruff_cache",
)
HANDLER_PACKAGE = "visual_degrees.handlers"
AUTHORIZER_MODULE = "ws_authorizer"
RUNTIME = lambda_.Runtime.PYTHON_3_13
ARCHITECTURE = lambda_.Architecture.ARM_64


class Need(enum.Enum):
    """A capability a handler uses; each maps to one grant (and its environment variable)."""

    MEMORY = "memory"  # run memory items (VD_TABLE_NAME)
    GRAPH = "graph"  # the evidence graph's links (VD_GRAPH_TABLE_NAME, VD_GRAPH_RETENTION_DAYS)
    PUSH = "push"  # PostToConnection on the stage (VD_WEBSOCKET_ENDPOINT)
    START_RUN = "start_run"  # states:StartExecution (VD_STATE_MACHINE_ARN)
    STOP_RUN = "stop_run"  # states:StopExecution
    DESCRIBE_RUN = "describe_run"  # states:DescribeExecution
    PROVIDER_KEYS = "provider_keys"  # the provider API key secret (VD_PROVIDER_SECRET_ARN)
    CLIENT_TOKENS = "client_tokens"  # the client token secret (VD_CLIENT_TOKENS_SECRET_ARN)
    # GetItem on the run table (VD_TABLE_NAME): the authorizer checks a share token against its run
    READ_RUN_ACCESS = "read_run_access"
    RECOGNIZE = "recognize"  # rekognition:RecognizeCelebrities
    PLAN = "plan"  # the planner provider (bedrock:InvokeModel when planner=bedrock)


class Role(enum.Enum):
    STEP = "step"
    ROUTE = "route"
    AUTHORIZER = "authorizer"
    EVENTS = "events"  # invoked by an EventBridge rule


@dataclass(frozen=True)
class Sizing:
    memory_mb: int
    timeout_seconds: int
    reserved_concurrency: int


# Lambda keeps this much of an account's concurrency quota unreserved: reservations must leave it.
LAMBDA_UNRESERVED_MINIMUM = 100

# Task states allow 90 s (TimeoutSeconds in the ASL); a function must time out first, or Step Functions
# would retry a step whose first attempt is still running. Routes stay under API Gateway's 29 s.
# Memory buys CPU: recognition steps decode and transcode images in parallel.
ORCHESTRATION = Sizing(memory_mb=256, timeout_seconds=30, reserved_concurrency=5)
PROVIDER_STEP = Sizing(memory_mb=1024, timeout_seconds=80, reserved_concurrency=10)
PLANNER_STEP = Sizing(memory_mb=512, timeout_seconds=60, reserved_concurrency=5)
ROUTE = Sizing(memory_mb=256, timeout_seconds=25, reserved_concurrency=10)
AUTHORIZER = Sizing(memory_mb=256, timeout_seconds=10, reserved_concurrency=10)

# Which steps call which providers is the handlers' catalog: the same sets decide, at runtime, which
# steps may build live providers at all.
# The steps that prove links (and S1, which reads the graph first) read and write the evidence graph.
_SEARCHING = frozenset({Need.MEMORY, Need.GRAPH, Need.PUSH, Need.PROVIDER_KEYS, Need.RECOGNIZE})
_PLANNING = frozenset({Need.MEMORY, Need.GRAPH, Need.PUSH, Need.PROVIDER_KEYS, Need.PLAN})
STEP_PROFILES: Mapping[str, tuple[Sizing, frozenset[Need]]] = {
    **{step: (PROVIDER_STEP, _SEARCHING) for step in sorted(SEARCHING_STEPS)},
    **{step: (PLANNER_STEP, _PLANNING) for step in sorted(PLANNING_STEPS)},
    "finalize_success": (ORCHESTRATION, frozenset({Need.MEMORY, Need.GRAPH, Need.PUSH})),  # keeps its chain
}
# Every other step only reads and writes run memory and emits events.
DEFAULT_STEP_PROFILE = (ORCHESTRATION, frozenset({Need.MEMORY, Need.PUSH}))

ROUTE_NEEDS: Mapping[str, frozenset[Need]] = {
    "ws_connect": frozenset({Need.MEMORY}),
    "ws_disconnect": frozenset({Need.MEMORY}),
    "ws_start_run": frozenset({Need.MEMORY, Need.PUSH, Need.START_RUN}),
    "ws_subscribe": frozenset({Need.MEMORY, Need.PUSH}),
    "ws_cancel_run": frozenset({Need.MEMORY, Need.PUSH, Need.STOP_RUN, Need.DESCRIBE_RUN}),
    "ws_get_run": frozenset({Need.MEMORY, Need.PUSH, Need.DESCRIBE_RUN}),
    "ws_get_graph": frozenset({Need.MEMORY, Need.PUSH}),
    "ws_continue_run": frozenset({Need.MEMORY, Need.PUSH, Need.START_RUN}),
    "ws_default": frozenset({Need.PUSH}),  # replies with an error; touches nothing else
}


@dataclass(frozen=True)
class HandlerSpec:
    construct_id: str
    module: str  # under visual_degrees.handlers
    role: Role
    sizing: Sizing
    needs: frozenset[Need]
    label: str  # the Task state or route key it serves

    @property
    def handler(self) -> str:
        return f"{HANDLER_PACKAGE}.{self.module}.handler"


def _camel(snake: str) -> str:
    return "".join(part.capitalize() for part in snake.split("_"))


def handler_table() -> tuple[HandlerSpec, ...]:
    """The one table: every function the system deploys."""
    rows: list[HandlerSpec] = []
    for task in STATE_TASKS:
        sizing, needs = STEP_PROFILES.get(task.step, DEFAULT_STEP_PROFILE)
        construct_id = task.substitution.removesuffix("FunctionArn")
        rows.append(HandlerSpec(construct_id, task.step, Role.STEP, sizing, needs, task.state))
    for route_key, module in WEBSOCKET_ROUTES.items():
        if module not in ROUTE_NEEDS:
            raise ConfigurationError(f"route {route_key!r} (handler {module}) has no row in ROUTE_NEEDS")
        rows.append(HandlerSpec(_camel(module), module, Role.ROUTE, ROUTE, ROUTE_NEEDS[module], route_key))
    rows.append(
        HandlerSpec(
            _camel(AUTHORIZER_MODULE),
            AUTHORIZER_MODULE,
            Role.AUTHORIZER,
            AUTHORIZER,
            frozenset({Need.CLIENT_TOKENS, Need.READ_RUN_ACCESS}),
            "$connect authorizer",
        )
    )
    rows.append(
        HandlerSpec(
            _camel(EXECUTION_ENDED_HANDLER),
            EXECUTION_ENDED_HANDLER,
            Role.EVENTS,
            ORCHESTRATION,
            frozenset({Need.MEMORY, Need.PUSH}),
            "execution ended without its run's ending",
        )
    )
    ids = [row.construct_id for row in rows]
    if len(set(ids)) != len(ids):
        raise ConfigurationError(f"two handlers share a construct id: {sorted(ids)}")
    return tuple(rows)


def check_reservations(specs: Sequence[HandlerSpec], settings: DeploymentSettings) -> None:
    """With reservedConcurrency on, the reservations of every function plus the 100 Lambda keeps
    unreserved must fit the quota the operator stated; otherwise the first function fails to create."""
    if not settings.reserved_concurrency:
        return
    total = sum(spec.sizing.reserved_concurrency for spec in specs)
    needed = total + LAMBDA_UNRESERVED_MINIMUM
    if settings.account_concurrency_quota < needed:
        raise ConfigurationError(
            f"invalid CDK context: reservedConcurrency reserves {total:,} concurrent executions across "
            f"{len(specs)} functions and Lambda keeps {LAMBDA_UNRESERVED_MINIMUM} of the account's quota "
            f"unreserved, so the quota must be at least {needed:,}; accountConcurrencyQuota is "
            f"{settings.account_concurrency_quota:,}. Ask for a higher quota (Service Quotas: AWS Lambda, "
            "Concurrent executions) and state it, or deploy with -c reservedConcurrency=false"
        )


def powertools_environment(settings: DeploymentSettings) -> dict[str, str]:
    return {
        "POWERTOOLS_SERVICE_NAME": SERVICE_NAME,
        "POWERTOOLS_METRICS_NAMESPACE": METRICS_NAMESPACE,
        "POWERTOOLS_LOG_LEVEL": settings.log_level,
        "POWERTOOLS_LOGGER_LOG_EVENT": "false",  # events carry names and run tokens
        "POWERTOOLS_TRACER_CAPTURE_RESPONSE": "false",  # responses may carry run tokens
        # Powertools' secret cache (adapters/aws/secrets.py), for the provider keys and client tokens.
        "POWERTOOLS_PARAMETERS_MAX_AGE": "300",
    }


class RuntimeFunctions(Construct):
    """Builds every function of `handler_table()`; grants are the stack's business."""

    def __init__(self, scope: Construct, construct_id: str, *, settings: DeploymentSettings) -> None:
        super().__init__(scope, construct_id)
        self.specs = handler_table()
        check_reservations(self.specs, settings)
        code = lambda_.Code.from_asset(str(CODE_ROOT), exclude=list(CODE_EXCLUDES))
        layer = dependency_layer(
            self, "DependencyLayer", removal=settings.removal, bundle=settings.bundle_layer
        )
        environment = powertools_environment(settings)
        self._functions: dict[str, lambda_.Function] = {}
        for spec in self.specs:
            self._functions[spec.construct_id] = self._function(spec, code, layer, environment, settings)

    def _function(
        self,
        spec: HandlerSpec,
        code: lambda_.Code,
        layer: lambda_.ILayerVersion,
        environment: Mapping[str, str],
        settings: DeploymentSettings,
    ) -> lambda_.Function:
        log_group = logs.LogGroup(
            self,
            f"{spec.construct_id}Logs",
            retention=settings.log_retention,
            removal_policy=settings.removal,
        )
        # An own role per function: no AWSLambdaBasicExecutionRole (it may write to any log group).
        role = iam.Role(
            self,
            f"{spec.construct_id}Role",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"{SERVICE_NAME} {spec.label}",
        )
        log_group.grant_write(role)
        reserved = spec.sizing.reserved_concurrency if settings.reserved_concurrency else None
        function = lambda_.Function(
            self,
            spec.construct_id,
            description=f"{SERVICE_NAME} {spec.label}",
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler=spec.handler,
            code=code,
            layers=[layer],
            memory_size=spec.sizing.memory_mb,
            timeout=Duration.seconds(spec.sizing.timeout_seconds),
            reserved_concurrent_executions=reserved,
            environment=dict(environment),
            tracing=lambda_.Tracing.ACTIVE,
            role=role,
            log_group=log_group,
        )
        Validations.of(function).acknowledge(
            acknowledge(
                "AwsSolutions-L1",
                "Pinned to Python 3.13 on purpose: the project targets 3.13 and the dependency layer "
                "is built for cp313 wheels; moving to a newer runtime is a deliberate, tested upgrade.",
            ),
            # With @aws-cdk/aws-lambda:createNewPoliciesWithAddToRolePolicy the tracing grant is an
            # inline policy of the function itself, so this acknowledgment covers nothing else.
            acknowledge(
                "AwsSolutions-IAM5[Resource::*]",
                "Active tracing: X-Ray PutTraceSegments and PutTelemetryRecords support no resource-level "
                "permissions, so IAM requires Resource '*' for them.",
            ),
        )
        return function

    def function(self, construct_id: str) -> lambda_.Function:
        return self._functions[construct_id]

    def items(self) -> Iterator[tuple[HandlerSpec, lambda_.Function]]:
        for spec in self.specs:
            yield spec, self._functions[spec.construct_id]

    def for_step(self, step: str) -> lambda_.Function:
        return next(fn for spec, fn in self.items() if spec.role is Role.STEP and spec.module == step)

    def for_route(self, route_key: str) -> lambda_.Function:
        return next(fn for spec, fn in self.items() if spec.role is Role.ROUTE and spec.label == route_key)

    @property
    def authorizer(self) -> lambda_.Function:
        return next(fn for spec, fn in self.items() if spec.role is Role.AUTHORIZER)

    @property
    def execution_ended(self) -> lambda_.Function:
        return next(fn for spec, fn in self.items() if spec.module == EXECUTION_ENDED_HANDLER)
