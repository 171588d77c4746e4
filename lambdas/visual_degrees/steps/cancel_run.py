"""RunCancelled: the client asked to stop; the state machine stopped at a state boundary."""

from __future__ import annotations

from visual_degrees.domain.models import RunState
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.search.progress import partial_paths_payload
from visual_degrees.search.strategies import begin


def run(state: RunState, ctx: StepContext) -> RunState:
    _, scope = begin(ctx, state)
    scope.finish(
        "cancelled",
        {
            "hop": state.hop,
            **partial_paths_payload(scope),
            "usage": scope.budget.usage().dump(),
        },
    )
    return state.advanced(cancelled=True)
