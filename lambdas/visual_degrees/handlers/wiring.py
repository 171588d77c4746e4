"""The AWS composition root: what a handler runs against, built from the function's environment.

Everything is built on first use and kept for the warm container, never at import time: a function
builds only what it touches (an orchestration step never loads the live providers, a route never
the state machine it has no grant for). Tests build an `AwsRuntime` with moto-backed clients and
sandbox providers and install it with `using_runtime`; the handlers find it through `current_runtime`.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import cached_property
from typing import Any

from visual_degrees.adapters.aws.connections import DynamoDbConnections
from visual_degrees.adapters.aws.dynamodb_memory import DynamoDbMemory
from visual_degrees.adapters.aws.event_sink import ApiGatewayEventSink, ConnectionPusher
from visual_degrees.adapters.aws.executions import StepFunctionsExecutions
from visual_degrees.adapters.aws.secrets import SecretsManagerSecrets
from visual_degrees.adapters.pacing import paced
from visual_degrees.adapters.wall_clock import WallClock
from visual_degrees.domain.costs import DEFAULT_COSTS, CostTable
from visual_degrees.domain.errors import ConfigurationError
from visual_degrees.domain.models import Face, FetchedImage, ImageHit, RunState
from visual_degrees.domain.planning import ConnectContext, ConnectReply, PlannerContext, PlannerReply
from visual_degrees.handlers.catalog import PLANNING_STEPS, PROVIDER_STEPS
from visual_degrees.handlers.observability import trace_http_clients
from visual_degrees.handlers.run_metrics import report_finished
from visual_degrees.lifecycle.call_tickets import call_ticket, runtime_deadline
from visual_degrees.lifecycle.client_tokens import identify
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.lifecycle.evidence_graph import MemoryGraphStore
from visual_degrees.lifecycle.runs_api import RunsApi, StartPolicy, StoredSubscriptions
from visual_degrees.ports import Clock, GraphStore, Memory, Providers, RateLimiter
from visual_degrees.settings import Settings, load_settings


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
        """Results one paid request of the search engine returns (search/observe.page_size)."""
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
        self._live: tuple[Settings, Providers, RateLimiter] | None = None  # and the settings they are of
        self._lock = threading.Lock()

    @property
    def environ(self) -> Mapping[str, str]:
        return os.environ if self._environ is None else self._environ

    @cached_property
    def settings(self) -> Settings:
        """The function's settings (settings.py), read from its environment as given."""
        return load_settings(environ=self.environ)

    @cached_property
    def memory(self) -> Memory:
        return DynamoDbMemory(self.settings.require_table(), client=self._dynamodb)

    @cached_property
    def connections(self) -> DynamoDbConnections:
        return DynamoDbConnections(self.settings.require_table(), client=self._dynamodb)

    @cached_property
    def pusher(self) -> ConnectionPusher:
        connections = self.connections if self.settings.table_name else None
        return ConnectionPusher(self.settings.websocket_endpoint, connections, client=self._management_api)

    @cached_property
    def sink(self) -> ApiGatewayEventSink:
        return ApiGatewayEventSink(self.connections, self.pusher)

    @cached_property
    def executions(self) -> StepFunctionsExecutions:
        return StepFunctionsExecutions(self.settings.state_machine_arn, client=self._stepfunctions)

    @cached_property
    def secrets(self) -> SecretsManagerSecrets:
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
                self.settings.run_defaults,
                self.settings.max_active_runs_per_client,
                ceilings=self.settings.run_ceilings,
            ),
            on_finished=lambda run_id, outcome, ttl: report_finished(memory, run_id, outcome, ttl),
            costs=self._costs,
        )

    # ---- steps --------------------------------------------------------------------------------

    @cached_property
    def graph(self) -> GraphStore:
        """The evidence graph: its own table when the function has one, else run memory's."""
        settings = self.settings
        memory = (
            DynamoDbMemory(settings.graph_table_name, client=self._dynamodb)
            if settings.graph_table_name
            else self.memory
        )
        return MemoryGraphStore(memory, retention_days=settings.graph_retention_days)

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
            graph=self.graph,
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
        """The live providers of the function's settings with the provider keys (the secret, which
        Powertools keeps `secret_cache_seconds`), built again only when those settings differ from
        what they were built from: keys or plain settings put into the secret after a deploy reach
        warm containers. Read once per step invocation (a step calls its providers dozens of times)."""
        return self._live_parts()[1]

    def live_limiter(self) -> RateLimiter:
        """The deployment's limiter (slots in the run-memory table) at the settings' rates."""
        return self._live_parts()[2]

    def _live_parts(self) -> tuple[Settings, Providers, RateLimiter]:
        from visual_degrees.adapters.aws.dynamodb_slots import DynamoDbSlots
        from visual_degrees.adapters.live.providers import build_live_providers, pacing_rates
        from visual_degrees.adapters.rate_limiter import SlotLimiter

        settings = self.settings.with_provider_keys(self.secrets)
        with self._lock:
            if self._live is None or self._live[0] != settings:
                trace_http_clients()
                slots = DynamoDbSlots(self.settings.require_table(), client=self._dynamodb)
                rates = pacing_rates(settings, self.environ.get("AWS_REGION"))
                self._live = (settings, build_live_providers(settings, paced=True), SlotLimiter(slots, rates))
            return self._live

    # ---- the $connect authorizer --------------------------------------------------------------

    def identify_client(self, token: str | None) -> str | None:
        """The client id `token` belongs to (the client-token secret, cached 5 minutes), or None."""
        return identify(token, self.secrets.get(self.settings.require_client_tokens()))


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
