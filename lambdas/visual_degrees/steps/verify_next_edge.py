"""S4: prove the pair S3 picked (search/port.SearchStrategy.verify), a photo in hand before paying."""

from __future__ import annotations

from visual_degrees.domain.models import RunState
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.search.strategies import begin


def run(state: RunState, ctx: StepContext) -> RunState:
    strategy, scope = begin(ctx, state)
    result = strategy.verify(scope)
    return state.advanced(
        verified=result.verified,
        reached=result.reached,
        candidates_left=result.found,
        discovery_exhausted=result.exhausted,
        **result.flags(scope),
    )
