"""Choosing whom to try next: the planner's order, validated, else the strategy's own order."""

from __future__ import annotations

from visual_degrees.domain.names import name_key
from visual_degrees.domain.planning import CandidateSummary, Plan, PlannerContext, validate_reply
from visual_degrees.lifecycle.run_memory import Candidate
from visual_degrees.ports import Planner
from visual_degrees.search.asking import ask_with_feedback
from visual_degrees.search.scope import SearchScope

MAX_PLANNER_ATTEMPTS = 2  # each attempt is one LLM call, reserved against the LLM budget


def summaries(candidates: list[Candidate]) -> list[CandidateSummary]:
    return [
        CandidateSummary(name=c.name, count=c.count, best_confidence=c.best_confidence) for c in candidates
    ]


def ask_planner(scope: SearchScope, planner: Planner, context: PlannerContext) -> Plan | None:
    """The planner's plan (bounded attempts, validation errors fed back), or None."""
    return ask_with_feedback(
        scope,
        MAX_PLANNER_ATTEMPTS,
        lambda feedback: planner.plan(context.model_copy(update={"feedback": feedback})),
        lambda reply: validate_reply(reply, context),
    )


def plan_order(plan: Plan, ranked: list[Candidate], target: str) -> list[str]:
    """Everyone untried, in order: `target` first if seen, then the plan, then `ranked` (everyone
    untried in the strategy's own order)."""
    by_key = {c.key: c for c in ranked}
    order: list[str] = []
    chosen = [name_key(n) for n in plan.candidates]
    rest = [c.key for c in ranked]
    for key in [target, *chosen, *rest]:
        if key in by_key and key not in order:
            order.append(key)
    return order
