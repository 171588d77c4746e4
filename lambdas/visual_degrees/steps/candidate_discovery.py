"""S2: find someone to try next (search/port.SearchStrategy.discover), or say nobody is left."""

from __future__ import annotations

from visual_degrees.domain.models import RunState
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.search.strategies import begin


def run(state: RunState, ctx: StepContext) -> RunState:
    strategy, scope = begin(ctx, state)
    result = strategy.discover(scope)
    return state.advanced(
        reached=result.reached,
        candidates_found=result.found,
        candidates_left=result.found,
        discovery_exhausted=result.exhausted,
        **result.flags(scope),
    )
