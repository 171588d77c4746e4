"""S3: pick the next candidate to verify. The planner orders the frontier's candidates once per
discovery round (strictly validated, deterministic fallback); later visits take the next in line,
and only when everyone planned has been tried and newcomers remain is a new plan made.

The planner is asked which candidate leads towards the far end of the frontier's side: B for A's
side, A for B's side when the search meets in the middle.
"""

from __future__ import annotations

from visual_degrees.domain.models import RunState
from visual_degrees.domain.names import name_key
from visual_degrees.domain.planning import PlannerContext
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.lifecycle.scope import RunScope
from visual_degrees.search.strategies.caption_leads import strategy as lead_search
from visual_degrees.search.strategies.seed.selection import (
    choose_plan,
    offered,
    plan_order,
    untried_candidates,
)


def run(state: RunState, ctx: StepContext) -> RunState:
    scope = RunScope(ctx, state)
    if scope.knobs.caption_leads:
        done = lead_search.select(scope)
        if done.pair is None:
            return state.advanced(selected=None, candidates_left=False)
        return state.advanced(frontier=done.pair[0], selected=done.pair[1], candidates_left=True)
    frontier = scope.person(state.frontier or state.person_a.key)
    target = state.person_b if state.side == "A" else state.person_a
    untried = untried_candidates(scope, frontier.key)
    if not untried:
        return state.advanced(selected=None, candidates_left=False)
    untried_keys = {c.key for c in untried}
    saved = scope.frontier.plan(frontier.key, state.round)
    if saved is None or not untried_keys.intersection(saved["order"]):
        context = PlannerContext(
            target=target.name,
            frontier=frontier.name,
            path=[scope.person(k).name for k in state.path],
            candidates=offered(scope, untried),
            remaining_searches=scope.budget.remaining("searches"),
        )
        plan = choose_plan(scope, context)
        saved = {
            "order": plan_order(scope, plan, untried, target.key),
            "queries": {name_key(n): q for n, q in plan.queries.items()},
            "source": plan.source,
        }
        scope.frontier.save_plan(frontier.key, state.round, saved)
        if plan.narration:
            scope.status(plan.narration, source="planner")
    nxt = next(k for k in saved["order"] if k in untried_keys)
    scope.status(f"Next: can we prove {frontier.name} — {scope.person(nxt).name}?")
    return state.advanced(selected=nxt, candidates_left=True)
