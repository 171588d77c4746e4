"""Choose the planner provider per run by name ("gemini", "bedrock", "openai" for any
OpenAI-compatible server), building each one lazily.

A provider that is never chosen is never built, so a deployment with only a Gemini key can still
name Bedrock or a self-hosted server in config without failing at start, and vice versa.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Protocol

from visual_degrees.domain.errors import ConfigurationError
from visual_degrees.domain.planning import ConnectContext, ConnectReply, PlannerContext, PlannerReply
from visual_degrees.ports import Planner


class LivePlanner(Planner, Protocol):
    """What every live planner answers: the plan request, and matching the two sides."""

    def connect(self, context: ConnectContext) -> ConnectReply: ...


PlannerFactory = Callable[[], LivePlanner]


class PlannerRouter:
    """A Planner that delegates both requests to the default provider; `for_run(name)` picks
    another one."""

    def __init__(self, factories: Mapping[str, PlannerFactory], default: str) -> None:
        if default not in factories:
            raise ConfigurationError(f"planner {default!r} is not one of {sorted(factories)}")
        self._factories = dict(factories)
        self._default = default
        self._built: dict[str, LivePlanner] = {}
        self._lock = threading.Lock()

    @property
    def default(self) -> str:
        return self._default

    @property
    def names(self) -> list[str]:
        return sorted(self._factories)

    def for_run(self, name: str | None = None) -> LivePlanner:
        """The planner called `name` (the default when None). Unknown names are a configuration error."""
        chosen = name or self._default
        factory = self._factories.get(chosen)
        if factory is None:
            raise ConfigurationError(f"unknown planner {chosen!r}; choose one of {self.names}")
        with self._lock:
            planner = self._built.get(chosen)
            if planner is None:
                planner = self._built[chosen] = factory()
        return planner

    def plan(self, context: PlannerContext) -> PlannerReply:
        return self.for_run().plan(context)

    def connect(self, context: ConnectContext) -> ConnectReply:
        return self.for_run().connect(context)
