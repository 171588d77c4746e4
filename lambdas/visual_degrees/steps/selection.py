"""Choosing whom to try next: the planner's order, validated, else the deterministic fallback."""

from __future__ import annotations

from visual_degrees.domain.errors import ConfigurationError, ProviderError, TransientProviderError
from visual_degrees.domain.names import name_key
from visual_degrees.domain.planning import (
    CandidateSummary,
    Plan,
    PlannerContext,
    fallback_order,
    fallback_plan,
    validate_reply,
)
from visual_degrees.services.run_memory import Candidate
from visual_degrees.services.scope import RunScope

MAX_PLANNER_ATTEMPTS = 2  # each attempt is one LLM call, reserved against the LLM budget
MAX_OFFERED = 20  # candidates shown to the planner (the best by the fallback order)


def untried_candidates(scope: RunScope, frontier: str) -> list[Candidate]:
    tried = scope.mem.tried(frontier)
    on_path = set(scope.state.path)
    return [c for c in scope.mem.candidates(frontier) if c.key not in tried and c.key not in on_path]


def summaries(candidates: list[Candidate]) -> list[CandidateSummary]:
    return [
        CandidateSummary(name=c.name, count=c.count, best_confidence=c.best_confidence) for c in candidates
    ]


def choose_plan(scope: RunScope, context: PlannerContext) -> Plan:
    """Ask the planner (bounded attempts, validation errors fed back), else fall back."""
    planner = scope.ctx.providers.planner
    feedback: list[str] = []
    for _ in range(MAX_PLANNER_ATTEMPTS if planner is not None else 0):
        if scope.refusal("llmCalls"):
            break
        try:
            reply = planner.plan(context.model_copy(update={"feedback": feedback}))  # type: ignore[union-attr]
        except (ProviderError, TransientProviderError, ConfigurationError) as exc:
            feedback = [f"the previous answer could not be used ({exc.code})"]
            continue
        scope.budget.record_llm_tokens(reply.tokens_in, reply.tokens_out)
        plan, feedback = validate_reply(reply, context)
        if plan is not None:
            return plan
    return fallback_plan(context)


def plan_order(scope: RunScope, plan: Plan, candidates: list[Candidate]) -> list[str]:
    """Everyone untried, in order: the target first if seen, then the plan, then the fallback order."""
    by_key = {c.key: c for c in candidates}
    order: list[str] = []
    target = scope.state.person_b.key
    chosen = [name_key(n) for n in plan.candidates]
    rest = [name_key(s.name) for s in fallback_order(summaries(candidates))]
    for key in [target, *chosen, *rest]:
        if key in by_key and key not in order:
            order.append(key)
    return order
