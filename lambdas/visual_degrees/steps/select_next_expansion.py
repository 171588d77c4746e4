"""S3: pick the pair to prove next (search/port.SearchStrategy.select): the frontier and the
candidate selected."""

from __future__ import annotations

from visual_degrees.domain.models import RunState
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.search.strategies import begin


def run(state: RunState, ctx: StepContext) -> RunState:
    strategy, scope = begin(ctx, state)
    result = strategy.select(scope)
    return state.advanced(candidates_left=result.found, **result.flags(scope))
