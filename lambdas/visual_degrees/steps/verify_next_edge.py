"""S4: prove frontier — candidate with one photo of both, re-using a photo in hand before paying."""

from __future__ import annotations

from visual_degrees.domain.models import Edge, RunState
from visual_degrees.domain.queries import discovery_query, pair_query
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.lifecycle.scope import RunScope
from visual_degrees.search.confirm import settle
from visual_degrees.search.evidence import budget_flags, find_pair, record, search
from visual_degrees.search.observe import Observed
from visual_degrees.search.strategies.caption_leads import strategy as lead_search
from visual_degrees.search.strategies.seed.selection import untried_candidates


def run(state: RunState, ctx: StepContext) -> RunState:
    scope = RunScope(ctx, state)
    knobs = scope.knobs
    if knobs.caption_leads:
        if state.selected is None or state.frontier is None:
            return state.advanced(candidates_left=False, discovery_exhausted=False)
        done = lead_search.verify(scope, [state.frontier, state.selected])
        return state.advanced(
            verified=done.pair is not None,
            reached=done.reached,
            candidates_left=done.found,
            discovery_exhausted=False,
            **budget_flags(scope, *done.observed),
        )
    frontier = scope.person(state.frontier or state.person_a.key)
    # Meeting in the middle, S2 decides when discovery is over (nobody open on either side).
    exhausted_discovery = not knobs.both_ends and discovery_query(frontier.name, state.round) is None
    if state.selected is None:
        return state.advanced(candidates_left=False, discovery_exhausted=exhausted_discovery)
    candidate = scope.person(state.selected)
    observed = Observed()
    in_hand = scope.decide(
        "in_hand",
        lambda: knobs.reuse_evidence and scope.graph.confidence(frontier.key, candidate.key) is not None,
    )
    edge: Edge | None = scope.evidence.edge(frontier.key, candidate.key) if in_hand else None
    if edge is not None:
        scope.status(f"Already holding a photo of {frontier.name} with {candidate.name}")
    else:
        plan = scope.frontier.plan(frontier.key, state.round) or {}
        query = plan.get("queries", {}).get(candidate.key) or pair_query(frontier.name, candidate.name)
        scope.status(f"Verifying {frontier.name} — {candidate.name}: searching {query!r}")
        observed = search(scope, query)
        record(scope, observed, frontier=frontier.key, focus={frontier.key, candidate.key})
        edge = find_pair(scope, observed, frontier.key, candidate.key)
    verified = edge is not None
    scope.frontier.mark_tried(frontier.key, candidate.key, verified)
    if not verified:
        scope.status(f"No photo proves {frontier.name} — {candidate.name}")
    far = state.person_b.key if state.side == "A" else state.person_a.key
    reached, confirming = settle(scope, "s4", claimed=verified and candidate.key == far)
    return state.advanced(
        verified=verified,
        selected=candidate.key if verified else None,
        reached=reached,
        candidates_left=bool(untried_candidates(scope, frontier.key)),
        discovery_exhausted=exhausted_discovery,
        **budget_flags(scope, observed, confirming),
    )
