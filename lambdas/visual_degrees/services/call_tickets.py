"""Whose paid calls a step makes, as the shared rate limiter needs to know (ports.CallTicket): the
client that started the run, so each client gets its share of a provider's rate; the latest moment
a call may wait for a slot; and the run's allowance of throttled answers (services/budget.py)."""

from __future__ import annotations

from visual_degrees.domain.costs import CostTable
from visual_degrees.domain.models import RunState
from visual_degrees.ports import CallTicket, Memory
from visual_degrees.services.budget import Budget, Resource
from visual_degrees.services.run_access import client_of

# A run no client started (`visual-degrees run`) is its own process's only client.
LOCAL_CLIENT = "local"
# The limiter's providers and the budget each one's calls are reserved against.
RESOURCE_OF: dict[str, Resource] = {"search": "searches", "recognition": "recognitions", "llm": "llmCalls"}


def call_ticket(memory: Memory, state: RunState, costs: CostTable, *, deadline: float) -> CallTicket:
    """The ticket of `state`'s run; no call waits past `deadline` (epoch seconds)."""
    options = state.options
    budget = Budget(memory, state.run_id, options.budgets, costs, options.ttl_seconds)
    return CallTicket(
        client=client_of(memory, state.run_id) or LOCAL_CLIENT,
        deadline=deadline,
        throttled=lambda provider: budget.note_throttled(RESOURCE_OF[provider]),
    )


def runtime_deadline(state: RunState, now: float) -> float:
    """When the run's runtime budget ends: its segment's start plus the budget (from `now` for a
    segment that has not started yet)."""
    return (state.started_at or now) + state.options.budgets.runtime_seconds
