"""S5: move on from the pair just proven towards the other end (search/port.SearchStrategy.bridge)."""

from __future__ import annotations

from visual_degrees.domain.models import RunState
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.search.strategies import begin


def run(state: RunState, ctx: StepContext) -> RunState:
    strategy, scope = begin(ctx, state)
    result = strategy.bridge(scope)
    return state.advanced(reached=result.reached, **result.flags(scope))
