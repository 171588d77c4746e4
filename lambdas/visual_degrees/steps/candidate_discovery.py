"""S2: expand the frontier with discovery queries; collect who appears with them.

Discovery rounds continue inside the step until someone new turns up, the templates run out, a
budget refuses, or the run's graph already connects A and B (search/strategies/seed/discovery.py).
Meeting in the middle (the default), each round searches the best open person of either side, so the frontier
moves, and the side switches, whenever another person is the better bet.
"""

from __future__ import annotations

from visual_degrees.domain.models import RunState
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.lifecycle.scope import RunScope
from visual_degrees.search.evidence import budget_flags
from visual_degrees.search.strategies.both_ends import trees as both_ends
from visual_degrees.search.strategies.caption_leads import strategy as lead_search
from visual_degrees.search.strategies.seed import discovery


def run(state: RunState, ctx: StepContext) -> RunState:
    scope = RunScope(ctx, state)
    if scope.knobs.caption_leads:
        done = lead_search.discover(scope)
        return state.advanced(
            reached=done.reached,
            candidates_found=done.found,
            candidates_left=done.found,
            discovery_exhausted=done.exhausted,
            **budget_flags(scope, *done.observed),
        )
    if not scope.knobs.both_ends:
        found = discovery.around_frontier(scope)
        return state.advanced(
            round=found.round,
            reached=found.reached,
            candidates_found=bool(found.found),
            candidates_left=bool(found.found),
            discovery_exhausted=found.exhausted,
            **budget_flags(scope, found.last),
        )
    found = discovery.from_both_ends(scope)
    moved = found.expansion
    if moved is None:
        return state.advanced(
            reached=found.reached,
            candidates_found=False,
            candidates_left=False,
            discovery_exhausted=True,
            **budget_flags(scope, found.last),
        )
    return state.advanced(
        side=moved.side,
        frontier=moved.key,
        hop=moved.depth,
        path=both_ends.tree_path(scope, moved.side, moved.key),
        round=found.round,
        reached=found.reached,
        candidates_found=bool(found.found),
        candidates_left=bool(found.found),
        discovery_exhausted=False,
        **budget_flags(scope, found.last),
    )
