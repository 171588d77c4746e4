"""S1: is there one photo of A with B? The run's strategy looks (search/port.SearchStrategy.direct):
"A B" searched and recognised, or a chain earlier runs already proved."""

from __future__ import annotations

from visual_degrees.domain.models import RunState
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.search.strategies import begin


def run(state: RunState, ctx: StepContext) -> RunState:
    strategy, scope = begin(ctx, state)
    result = strategy.direct(scope)
    return state.advanced(reached=result.reached, **result.flags(scope))
