"""S1: search "A B" and recognise the first images; one photo of both is the whole answer."""

from __future__ import annotations

from visual_degrees.domain.models import RunState
from visual_degrees.domain.queries import pair_query
from visual_degrees.services.context import StepContext
from visual_degrees.services.observe import observe
from visual_degrees.services.scope import RunScope
from visual_degrees.steps.evidence import budget_flags, find_pair, graph_connects, record
from visual_degrees.steps.strategy import knobs_for


def run(state: RunState, ctx: StepContext) -> RunState:
    scope = RunScope(ctx, state)
    a, b = state.person_a, state.person_b
    observed = observe(
        scope, pair_query(a.name, b.name), parallel=knobs_for(state.options.strategy).parallel_images
    )
    record(scope, observed, frontier=a.key)
    direct = find_pair(scope, observed, a.key, b.key)
    if direct is not None:
        scope.status(f"Found a photo of {a.name} with {b.name}")
    else:
        scope.status(f"No photo of {a.name} with {b.name} among {len(observed.observations)} images")
    reached = direct is not None or graph_connects(scope)
    return state.advanced(reached=reached, **budget_flags(scope, observed))
