"""Choosing whom to try next: the planner's order, validated, else the deterministic fallback."""

from __future__ import annotations

from visual_degrees.domain.names import name_key
from visual_degrees.domain.planning import (
    CandidateSummary,
    Plan,
    PlannerContext,
    fallback_plan,
    validate_reply,
)
from visual_degrees.lifecycle.run_memory import Candidate
from visual_degrees.lifecycle.scope import RunScope
from visual_degrees.search.asking import ask_with_feedback

MAX_PLANNER_ATTEMPTS = 2  # each attempt is one LLM call, reserved against the LLM budget
MAX_OFFERED = 20  # candidates shown to the planner (the best by the fallback order)
# Meeting in the middle, a plan is made after every discovery round: a shorter list keeps each
# prompt (and its price) small, and the best connected ten are where a useful link usually is.
MAX_OFFERED_BOTH_ENDS = 10


def untried_candidates(scope: RunScope, frontier: str, side: str | None = None) -> list[Candidate]:
    """Whom the frontier could lead to next. Meeting in the middle, that is the frontier's proven
    neighbours one level further from its end (a shallower one is already someone else's candidate);
    `count` is then how many people the run has seen with them, a sign of how well connected they are.
    """
    tried = scope.frontier.tried(frontier)
    on_path = set(scope.state.path)
    if not scope.knobs.both_ends:
        return [c for c in scope.frontier.candidates(frontier) if c.key not in tried and c.key not in on_path]
    state = scope.state
    ends = {state.person_a.key, state.person_b.key}
    root = state.person_a.key if (side or state.side) == "A" else state.person_b.key
    graph = scope.graph
    depth = graph.depths(root, scope.options.max_hops)
    level = depth.get(frontier, 0) + 1
    return [
        Candidate(
            key=key,
            name=scope.person(key).name,
            count=graph.degree(key),
            best_confidence=confidence,
            proven=True,
            evidence=[],
        )
        for key, confidence in sorted(graph.neighbors(frontier).items())
        if key not in tried and key not in on_path and key not in ends and depth.get(key) == level
    ]


def summaries(candidates: list[Candidate]) -> list[CandidateSummary]:
    return [
        CandidateSummary(name=c.name, count=c.count, best_confidence=c.best_confidence) for c in candidates
    ]


def ranked(scope: RunScope, candidates: list[Candidate]) -> list[Candidate]:
    """The deterministic order: best confidence, then co-appearance count, then name (the fallback
    order); meeting in the middle, the best connected first (every proof is >= the threshold, so
    confidence says little about where a person leads)."""
    if scope.knobs.both_ends:
        return sorted(candidates, key=lambda c: (-c.count, -c.best_confidence, c.key))
    return sorted(candidates, key=lambda c: (-c.best_confidence, -c.count, name_key(c.name), c.name))


def offered(scope: RunScope, candidates: list[Candidate]) -> list[CandidateSummary]:
    """Who the planner is shown: the first MAX_OFFERED in the deterministic order."""
    limit = MAX_OFFERED_BOTH_ENDS if scope.knobs.both_ends else MAX_OFFERED
    return summaries(ranked(scope, candidates)[:limit])


def choose_plan(scope: RunScope, context: PlannerContext) -> Plan:
    """Ask the planner (bounded attempts, validation errors fed back), else fall back."""
    knobs = scope.knobs
    planner = scope.ctx.providers.planner if knobs.planner_ranking else None
    if knobs.both_ends and len(context.candidates) < 2:
        planner = None  # one candidate leaves nothing to rank: no call to pay for
    if planner is not None:
        plan = ask_with_feedback(
            scope,
            MAX_PLANNER_ATTEMPTS,
            lambda feedback: planner.plan(context.model_copy(update={"feedback": feedback})),
            lambda reply: validate_reply(reply, context),
        )
        if plan is not None:
            return plan
    if knobs.both_ends:
        return Plan(candidates=[c.name for c in context.candidates[:5]], source="fallback")
    return fallback_plan(context)


def plan_order(scope: RunScope, plan: Plan, candidates: list[Candidate], target: str) -> list[str]:
    """Everyone untried, in order: `target` first if seen, then the plan, then the fallback order."""
    by_key = {c.key: c for c in candidates}
    order: list[str] = []
    chosen = [name_key(n) for n in plan.candidates]
    rest = [c.key for c in ranked(scope, candidates)]
    for key in [target, *chosen, *rest]:
        if key in by_key and key not in order:
            order.append(key)
    return order
