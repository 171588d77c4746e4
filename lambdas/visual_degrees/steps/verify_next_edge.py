"""S4: prove frontier — candidate with one photo of both, re-using a photo in hand before paying."""

from __future__ import annotations

from visual_degrees.domain.models import RunState
from visual_degrees.domain.queries import discovery_query, pair_query
from visual_degrees.services.context import StepContext
from visual_degrees.services.observe import Observed, observe
from visual_degrees.services.scope import RunScope
from visual_degrees.steps.evidence import budget_flags, find_pair, graph_connects, record
from visual_degrees.steps.selection import untried_candidates
from visual_degrees.steps.strategy import knobs_for


def run(state: RunState, ctx: StepContext) -> RunState:
    scope = RunScope(ctx, state)
    knobs = knobs_for(state.options.strategy)
    frontier = scope.person(state.frontier or state.person_a.key)
    exhausted_discovery = discovery_query(frontier.name, state.round) is None
    if state.selected is None:
        return state.advanced(candidates_left=False, discovery_exhausted=exhausted_discovery)
    candidate = scope.person(state.selected)
    observed = Observed()
    in_hand = scope.decide(
        "in_hand", lambda: knobs.reuse_evidence and scope.mem.edge(frontier.key, candidate.key) is not None
    )
    edge = scope.mem.edge(frontier.key, candidate.key) if in_hand else None
    if edge is not None:
        scope.status(f"Already holding a photo of {frontier.name} with {candidate.name}")
    else:
        plan = scope.mem.plan(frontier.key, state.round) or {}
        query = plan.get("queries", {}).get(candidate.key) or pair_query(frontier.name, candidate.name)
        scope.status(f"Verifying {frontier.name} — {candidate.name}: searching {query!r}")
        observed = observe(scope, query, parallel=knobs.parallel_images)
        record(scope, observed, frontier=frontier.key)
        edge = find_pair(scope, observed, frontier.key, candidate.key)
    verified = edge is not None
    scope.mem.mark_tried(frontier.key, candidate.key, verified)
    if not verified:
        scope.status(f"No photo proves {frontier.name} — {candidate.name}")
    reached = (verified and candidate.key == state.person_b.key) or graph_connects(scope)
    return state.advanced(
        verified=verified,
        selected=candidate.key if verified else None,
        reached=reached,
        candidates_left=bool(untried_candidates(scope, frontier.key)),
        discovery_exhausted=exhausted_discovery,
        **budget_flags(scope, observed),
    )
