"""The AWS composition root: what a handler runs against, built from the function's environment.

Everything is built on first use and kept for the warm container, never at import time: a function
builds only what it touches (an orchestration step never loads the live providers, a route never
the state machine it has no grant for). Tests build an `AwsRuntime` with moto-backed clients and
sandbox providers and install it with `using_runtime`; the handlers find it through `current_runtime`.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import cached_property
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from visual_degrees.adapters.aws.connections import DynamoDbConnections
from visual_degrees.adapters.aws.dynamodb_memory import DynamoDbMemory
from visual_degrees.adapters.aws.event_sink import ApiGatewayEventSink, ConnectionPusher
from visual_degrees.adapters.aws.executions import StepFunctionsExecutions
from visual_degrees.adapters.pacing import paced
from visual_degrees.adapters.wall_clock import WallClock
from visual_degrees.constants import (
    ENV_MAX_ACTIVE_RUNS,
    ENV_PREFIX,
    ENV_RUN_CEILINGS,
    ENV_RUN_DEFAULTS,
    ENV_SECRET_ARN,
    ENV_STATE_MACHINE_ARN,
    ENV_TABLE_NAME,
    ENV_WEBSOCKET_ENDPOINT,
)
from visual_degrees.domain.ceilings import RunCeilings
from visual_degrees.domain.costs import DEFAULT_COSTS, CostTable
from visual_degrees.domain.errors import ConfigurationError
from visual_degrees.domain.models import Face, FetchedImage, ImageHit, RunOptions, RunState
from visual_degrees.domain.planning import ConnectContext, ConnectReply, PlannerContext, PlannerReply
from visual_degrees.handlers.catalog import PLANNING_STEPS, PROVIDER_STEPS
from visual_degrees.handlers.observability import trace_http_clients
from visual_degrees.handlers.run_metrics import report_finished
from visual_degrees.ports import Clock, Memory, Providers, RateLimiter
from visual_degrees.services.call_tickets import call_ticket, runtime_deadline
from visual_degrees.services.client_tokens import identify
from visual_degrees.services.context import StepContext
from visual_degrees.services.runs_api import RunsApi, StartPolicy, StoredSubscriptions

if TYPE_CHECKING:
    from visual_degrees.config import SecretsManagerSecrets  # pydantic-settings: loaded only when used

RECHECK_SECONDS = 30.0


class LambdaEnvironment(BaseModel):
    """The deployment's wiring the CDK app sets (each function gets only those of its grants). The
    providers' settings (VD_SEARCH_ENGINE, VD_PLANNER, VD_BEDROCK_MODEL_ID, keys from the secret)
    are config.Settings', read from the same environment when a step first needs them."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, frozen=True)

    table_name: str | None = Field(default=None, alias=ENV_TABLE_NAME)
    websocket_endpoint: str | None = Field(default=None, alias=ENV_WEBSOCKET_ENDPOINT)
    state_machine_arn: str | None = Field(default=None, alias=ENV_STATE_MACHINE_ARN)
    secret_arn: str | None = Field(default=None, alias=ENV_SECRET_ARN)  # client tokens (authorizer)
    run_defaults: RunOptions = Field(default_factory=RunOptions, alias=ENV_RUN_DEFAULTS)
    run_ceilings: RunCeilings = Field(default_factory=RunCeilings, alias=ENV_RUN_CEILINGS)
    max_active_runs: int = Field(default=2, ge=1, le=1_000, alias=ENV_MAX_ACTIVE_RUNS)

    @field_validator("run_defaults", "run_ceilings", mode="before")
    @classmethod
    def _json(cls, value: Any) -> Any:
        return json.loads(value) if isinstance(value, str) else value

    @model_validator(mode="after")
    def _defaults_fit_the_ceilings(self) -> LambdaEnvironment:
        excess = self.run_ceilings.excess(self.run_defaults)
        if excess:
            raise ValueError(f"{ENV_RUN_DEFAULTS} exceed {ENV_RUN_CEILINGS}: {'; '.join(excess)}")
        return self

    @classmethod
    def of(cls, environ: Mapping[str, str]) -> LambdaEnvironment:
        try:
            return cls.model_validate({k: v for k, v in environ.items() if k.startswith(ENV_PREFIX)})
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            raise ConfigurationError(f"invalid function environment: {problems}") from None

    def require_table(self) -> str:
        if not self.table_name:
            raise ConfigurationError(f"this function has no run memory ({ENV_TABLE_NAME} is not set)")
        return self.table_name


class _NotProvided:
    """The providers of a step that calls none: using one is a wiring bug, reported as such."""

    def __init__(self, step: str) -> None:
        self._step = step

    def _refuse(self) -> ConfigurationError:
        return ConfigurationError(f"step {self._step} has no providers")

    def search(self, query: str, count: int) -> list[ImageHit]:
        raise self._refuse()

    def fetch(self, url: str) -> FetchedImage:
        raise self._refuse()

    def recognize(self, image: FetchedImage) -> list[Face]:
        raise self._refuse()


class _Deferred:
    """Live providers resolved at the first call, not when the step's context is built: a step that
    is memoised or cancelled never reads the secret or builds a client. Both planner requests
    (plan, connect) are forwarded; a planner that is not configured answers ConfigurationError,
    which the services treat as 'fall back' (plan) or 'no hunches' (connect)."""

    def __init__(self, resolve: Callable[[], Providers]) -> None:
        self._resolve = resolve

    def search(self, query: str, count: int) -> list[ImageHit]:
        return self._resolve().search.search(query, count)

    @property
    def page_size(self) -> int | None:
        """Results one paid request of the search engine returns (services/observe.page_size)."""
        size = getattr(self._resolve().search, "page_size", None)
        return size if isinstance(size, int) else None

    def fetch(self, url: str) -> FetchedImage:
        return self._resolve().fetcher.fetch(url)

    def recognize(self, image: FetchedImage) -> list[Face]:
        return self._resolve().recognizer.recognize(image)

    def plan(self, context: PlannerContext) -> PlannerReply:
        planner = self._resolve().planner
        if planner is None:
            raise ConfigurationError("no planner is configured")
        return planner.plan(context)

    def connect(self, context: ConnectContext) -> ConnectReply:
        connect = getattr(self._resolve().planner, "connect", None)
        if connect is None:
            raise ConfigurationError("no planner that matches the two sides is configured")
        reply: ConnectReply = connect(context)
        return reply


class _DeferredLimiter:
    """The deployment's limiter, built with the live providers' settings at the first call."""

    def __init__(self, resolve: Callable[[], RateLimiter]) -> None:
        self._resolve = resolve

    def acquire(self, provider: str, client: str, deadline: float) -> bool:
        return self._resolve().acquire(provider, client, deadline)


class AwsRuntime:
    def __init__(
        self,
        environ: Mapping[str, str] | None = None,
        *,
        dynamodb: Any | None = None,
        stepfunctions: Any | None = None,
        management_api: Any | None = None,
        secretsmanager: Any | None = None,
        providers: Providers | None = None,
        limiter: RateLimiter | None = None,
        clock: Clock | None = None,
        costs: CostTable = DEFAULT_COSTS,
        recheck_seconds: float = RECHECK_SECONDS,
    ) -> None:
        """`environ` defaults to os.environ; clients default to boto3's (built on first use);
        `providers` (tests: the sandbox) replace the live providers for every step, unpaced unless
        a `limiter` is given too (the live ones are paced by the deployment's, in DynamoDB)."""
        self._environ = environ
        self._dynamodb = dynamodb
        self._stepfunctions = stepfunctions
        self._management_api = management_api
        self._secretsmanager = secretsmanager
        self._providers = providers
        self._limiter = limiter
        self._clock = clock
        self._costs = costs
        self._recheck = recheck_seconds
        self._live: tuple[str, Providers, RateLimiter] | None = None  # settings' fingerprint, and theirs
        self._checked_at = 0.0
        self._lock = threading.Lock()

    @property
    def environ(self) -> Mapping[str, str]:
        return os.environ if self._environ is None else self._environ

    @cached_property
    def env(self) -> LambdaEnvironment:
        return LambdaEnvironment.of(self.environ)

    @cached_property
    def memory(self) -> Memory:
        return DynamoDbMemory(self.env.require_table(), client=self._dynamodb)

    @cached_property
    def connections(self) -> DynamoDbConnections:
        return DynamoDbConnections(self.env.require_table(), client=self._dynamodb)

    @cached_property
    def pusher(self) -> ConnectionPusher:
        connections = self.connections if self.env.table_name else None
        return ConnectionPusher(self.env.websocket_endpoint, connections, client=self._management_api)

    @cached_property
    def sink(self) -> ApiGatewayEventSink:
        return ApiGatewayEventSink(self.connections, self.pusher)

    @cached_property
    def executions(self) -> StepFunctionsExecutions:
        return StepFunctionsExecutions(self.env.state_machine_arn, client=self._stepfunctions)

    @cached_property
    def secrets(self) -> SecretsManagerSecrets:
        from visual_degrees.config import SecretsManagerSecrets

        return SecretsManagerSecrets(self._secretsmanager)

    @cached_property
    def clock(self) -> Clock:
        return self._clock or WallClock()

    @cached_property
    def runs_api(self) -> RunsApi:
        memory = self.memory
        return RunsApi(
            memory,
            self.executions,
            StoredSubscriptions(memory, self.connections, self.pusher),
            self.pusher,
            sink=self.sink,
            policy=StartPolicy(
                self.env.run_defaults, self.env.max_active_runs, ceilings=self.env.run_ceilings
            ),
            on_finished=lambda run_id, outcome, ttl: report_finished(memory, run_id, outcome, ttl),
            costs=self._costs,
        )

    # ---- steps --------------------------------------------------------------------------------

    def step_context(
        self, step: str, state: RunState | None = None, *, until: float | None = None
    ) -> StepContext:
        """The context step `step` runs in; for `state`'s run, its paid calls paced by the
        deployment's limiter, none waiting past the run's runtime budget or `until` (when the
        function must be done)."""
        providers = self.providers_for(step)
        limiter = self.limiter_for(step)
        if state is not None and limiter is not None:
            deadline = runtime_deadline(state, time.time())
            deadline = deadline if until is None else min(deadline, until)
            ticket = call_ticket(self.memory, state, self._costs, deadline=deadline)
            providers = paced(providers, limiter, ticket)
        return StepContext(
            providers=providers,
            memory=self.memory,
            clock=self.clock,
            sink=self.sink,
            costs=self._costs,
        )

    def limiter_for(self, step: str) -> RateLimiter | None:
        """What paces the step's paid calls: the given limiter, else the deployment's for the live
        providers (none for a step that calls none, or for given providers)."""
        if step not in PROVIDER_STEPS:
            return None
        if self._limiter is not None or self._providers is not None:
            return self._limiter
        return _DeferredLimiter(self.live_limiter)

    def providers_for(self, step: str) -> Providers:
        if self._providers is not None:
            return self._providers
        if step not in PROVIDER_STEPS:
            absent = _NotProvided(step)
            return Providers.of(absent)
        live = _Deferred(self.live_providers)
        planner = live if step in PLANNING_STEPS else None
        return Providers.of(live, planner)

    def live_providers(self) -> Providers:
        """Built from settings (keys from the secret, cached 5 minutes) and rebuilt when the keys
        or the secret's plain settings change, so what is put into the secret after a deploy
        reaches warm containers. Settings are looked
        at again at most every `recheck_seconds`: a step calls its providers dozens of times."""
        return self._live_parts()[1]

    def live_limiter(self) -> RateLimiter:
        """The deployment's limiter (slots in the run-memory table) at the settings' rates."""
        return self._live_parts()[2]

    def _live_parts(self) -> tuple[str, Providers, RateLimiter]:
        with self._lock:
            if self._live is not None and time.monotonic() - self._checked_at < self._recheck:
                return self._live
        from visual_degrees.adapters.aws.dynamodb_slots import DynamoDbSlots
        from visual_degrees.adapters.live.providers import build_live_providers, pacing_rates
        from visual_degrees.adapters.rate_limiter import SlotLimiter
        from visual_degrees.config import load_settings

        settings = load_settings(secrets=self.secrets, environ=self.environ)
        basis = [
            settings.search_engine,
            settings.planner,
            settings.bedrock_model_id,
            # what the secret may change besides keys: the search engine id, the self-hosted
            # planner's address and model (config.PLAIN_SECRET_FIELDS)
            settings.google_cx or "",
            settings.openai_base_url or "",
            settings.openai_model or "",
            *settings.secret_values(),
            repr(pacing_rates(settings, self.environ.get("AWS_REGION"))),
        ]
        fingerprint = hashlib.sha256("\0".join(basis).encode("utf-8")).hexdigest()
        with self._lock:
            self._checked_at = time.monotonic()
            if self._live is None or self._live[0] != fingerprint:
                trace_http_clients()
                slots = DynamoDbSlots(self.env.require_table(), client=self._dynamodb)
                rates = pacing_rates(settings, self.environ.get("AWS_REGION"))
                self._live = (
                    fingerprint,
                    build_live_providers(settings, paced=True),
                    SlotLimiter(slots, rates),
                )
            return self._live

    # ---- the $connect authorizer --------------------------------------------------------------

    def identify_client(self, token: str | None) -> str | None:
        """The client id `token` belongs to (the client-token secret, cached 5 minutes), or None."""
        if not self.env.secret_arn:
            raise ConfigurationError(f"the authorizer has no client tokens ({ENV_SECRET_ARN} is not set)")
        return identify(token, self.secrets.get(self.env.secret_arn))


_current: AwsRuntime | None = None
_current_lock = threading.Lock()


def current_runtime() -> AwsRuntime:
    """The runtime of this container: the installed one, else one built from the environment."""
    global _current
    with _current_lock:
        if _current is None:
            _current = AwsRuntime()
        return _current


@contextmanager
def using_runtime(runtime: AwsRuntime) -> Iterator[AwsRuntime]:
    """Run handlers against `runtime` (tests); the previous one comes back afterwards."""
    global _current
    with _current_lock:
        previous, _current = _current, runtime
    try:
        yield runtime
    finally:
        with _current_lock:
            _current = previous
