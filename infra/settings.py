"""Deployment settings: the CDK context (cdk.json defaults, `-c key=value` overrides), validated once.

Every knob an operator may turn lives here with its default; constructs receive a validated
`DeploymentSettings`, never raw context. `cdk ... -c key=value` passes strings, so numbers, booleans
and JSON objects are parsed from strings too.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from aws_cdk import RemovalPolicy
from aws_cdk.aws_logs import RetentionDays
from constructs import Node
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from infra.bedrock_access import BedrockModel
from visual_degrees.domain.ceilings import RunCeilings
from visual_degrees.domain.errors import ConfigurationError
from visual_degrees.domain.models import RunOptions

SearchEngine = Literal["brave", "google"]
PlannerName = Literal["gemini", "bedrock", "openai"]
RemovalName = Literal["destroy", "retain"]
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]

# CloudWatch Logs accepts only some retention periods; these are the ones worth offering.
LOG_RETENTION: dict[int, RetentionDays] = {
    1: RetentionDays.ONE_DAY,
    3: RetentionDays.THREE_DAYS,
    7: RetentionDays.ONE_WEEK,
    14: RetentionDays.TWO_WEEKS,
    30: RetentionDays.ONE_MONTH,
    90: RetentionDays.THREE_MONTHS,
    180: RetentionDays.SIX_MONTHS,
    365: RetentionDays.ONE_YEAR,
    731: RetentionDays.TWO_YEARS,
}


EXECUTION_MARGIN_SECONDS = 300  # beyond the runtime budget: the step in flight (<= 90 s), retries, S6/S7


class DeploymentSettings(BaseModel):
    """One field per context key (same camelCase spelling as in cdk.json)."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    stack_name: str = Field(
        default="VisualDegrees", alias="stackName", pattern=r"^[A-Za-z][A-Za-z0-9-]{0,127}$"
    )
    # Empty: environment-agnostic (the CLI's profile decides at deploy time).
    region: str = Field(default="", pattern=r"^([a-z]{2}(-[a-z]+)+-\d)?$")
    removal_policy: RemovalName = Field(default="destroy", alias="removalPolicy")
    log_retention_days: int = Field(default=30, alias="logRetentionDays")
    log_level: LogLevel = Field(default="INFO", alias="logLevel")
    # False: the layer is a stub (its requirements file), for offline synth; never deploy that.
    bundle_layer: bool = Field(default=True, alias="bundleLayer")

    # Providers (read by visual_degrees.settings.Settings through VD_SEARCH_ENGINE / VD_PLANNER / ...).
    search_engine: SearchEngine = Field(default="brave", alias="searchEngine")
    planner: PlannerName = "gemini"
    bedrock_model_id: str = Field(
        default="amazon.nova-lite-v1:0", alias="bedrockModelId", pattern=r"^[a-z0-9.:-]{3,100}$"
    )

    # Pacing: calls a second to each provider, shared by every run (unset: the provider's documented
    # default quota, docs/operators.md), and the most of each rate one client's runs may take.
    search_rps: float | None = Field(default=None, gt=0, le=10_000, alias="searchRps")
    recognition_rps: float | None = Field(default=None, gt=0, le=10_000, alias="recognitionRps")
    llm_rps: float | None = Field(default=None, gt=0, le=10_000, alias="llmRps")
    client_rate_share: float | None = Field(default=None, gt=0, le=1, alias="clientRateShare")

    # Runs.
    run_defaults: RunOptions = Field(default_factory=RunOptions, alias="runDefaults")
    # The most one startRun may ask for; above it the request is refused (above_ceiling).
    run_ceilings: RunCeilings = Field(default_factory=RunCeilings, alias="runCeilings")
    max_active_runs_per_client: int = Field(default=2, ge=1, le=100, alias="maxActiveRunsPerClient")
    execution_timeout_minutes: int = Field(default=65, ge=5, le=1440, alias="executionTimeoutMinutes")
    # How long the evidence graph keeps a link after a run proved it (the table's item TTL).
    graph_retention_days: int = Field(default=180, ge=1, le=3650, alias="graphRetentionDays")

    # Capacity bounds. A reservation comes out of the account's concurrency quota, of which Lambda keeps
    # 100 unreserved, so reservations are off unless the operator turns them on and states the quota
    # (a new account's may be 10); functions.check_reservations compares the two at synth.
    reserved_concurrency: bool = Field(default=False, alias="reservedConcurrency")
    account_concurrency_quota: int = Field(
        default=0, ge=0, le=10_000_000, alias="accountConcurrencyQuota"
    )  # 0: not stated
    throttle_rate_limit: float = Field(default=20.0, gt=0, le=10_000, alias="throttleRateLimit")
    throttle_burst_limit: int = Field(default=40, ge=1, le=5_000, alias="throttleBurstLimit")

    # Observability.
    alarm_email: str = Field(default="", alias="alarmEmail", pattern=r"^([^@\s]+@[^@\s]+\.[^@\s]+)?$")
    spend_alarm_usd_per_hour: float = Field(default=5.0, gt=0, alias="spendAlarmUsdPerHour")
    budget_exhausted_alarm_percent: float = Field(
        default=50.0, gt=0, le=100, alias="budgetExhaustedAlarmPercent"
    )
    lambda_errors_alarm_threshold: int = Field(default=3, ge=1, alias="lambdaErrorsAlarmThreshold")
    # API Gateway needs an account-wide CloudWatch role for WebSocket access logs; turn this off when
    # the account already has one (the setting is per region, shared by every API).
    api_gateway_cloudwatch_role: bool = Field(default=True, alias="apiGatewayCloudWatchRole")

    @model_validator(mode="before")
    @classmethod
    def _decode_json_strings(cls, values: Any) -> Any:
        """`-c runDefaults='{"maxHops": 4}'` arrives as a string (runCeilings too)."""
        for key in ("runDefaults", "runCeilings"):
            if isinstance(values, dict) and isinstance(values.get(key), str):
                try:
                    values = {**values, key: json.loads(values[key])}
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{key} is not JSON: {exc.msg}") from None
        return values

    @model_validator(mode="after")
    def _runs_fit_their_limits(self) -> DeploymentSettings:
        """The defaults every run starts from must be allowed; an execution must outlast the longest
        runtime a client may ask for (plus the step in flight and the finalisation)."""
        excess = self.run_ceilings.excess(self.run_defaults)
        if excess:
            raise ValueError(f"runDefaults exceed runCeilings: {'; '.join(excess)}")
        runtime = self.run_ceilings.budgets.runtime_seconds
        if self.execution_timeout_minutes * 60 < runtime + EXECUTION_MARGIN_SECONDS:
            raise ValueError(
                f"executionTimeoutMinutes ({self.execution_timeout_minutes}) must be at least "
                f"{-(-int(runtime + EXECUTION_MARGIN_SECONDS) // 60)}: runCeilings allow {runtime:g} s "
                f"of runtime, plus {EXECUTION_MARGIN_SECONDS // 60} minutes for the last step and the ending"
            )
        return self

    @model_validator(mode="after")
    def _reservations_need_the_quota(self) -> DeploymentSettings:
        if self.reserved_concurrency and not self.account_concurrency_quota:
            raise ValueError(
                "reservedConcurrency=true needs accountConcurrencyQuota: the account's Lambda "
                "concurrent-executions quota in this region (Service Quotas, or "
                "`aws lambda get-account-settings`: AccountLimit.ConcurrentExecutions)"
            )
        return self

    @field_validator("bedrock_model_id")
    @classmethod
    def _model_id_has_a_known_shape(cls, value: str) -> str:
        BedrockModel.parse(value)
        return value

    @field_validator("log_retention_days")
    @classmethod
    def _retention_is_supported(cls, value: int) -> int:
        if value not in LOG_RETENTION:
            raise ValueError(f"must be one of {', '.join(map(str, LOG_RETENTION))}")
        return value

    @property
    def log_retention(self) -> RetentionDays:
        return LOG_RETENTION[self.log_retention_days]

    @property
    def removal(self) -> RemovalPolicy:
        return RemovalPolicy.RETAIN if self.removal_policy == "retain" else RemovalPolicy.DESTROY

    @classmethod
    def from_mapping(cls, context: dict[str, Any]) -> DeploymentSettings:
        try:
            return cls.model_validate(context)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'context'}: {err['msg']}"
                for err in exc.errors(include_url=False, include_input=False)
            )
            raise ConfigurationError(f"invalid CDK context: {problems}") from None

    @classmethod
    def from_node(cls, node: Node) -> DeploymentSettings:
        """Read every known key from the construct tree's context (cdk.json, then `-c` overrides)."""
        keys = {field.alias or name for name, field in cls.model_fields.items()}
        found = {key: node.try_get_context(key) for key in keys}
        return cls.from_mapping({key: value for key, value in found.items() if value is not None})
