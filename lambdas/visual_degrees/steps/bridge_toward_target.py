"""S5: the newly proven person becomes the frontier; try them against the target directly."""

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
    target = state.person_b
    node = scope.person(state.selected or state.frontier or state.person_a.key)
    path = [*state.path, node.key]
    state = scope.state = state.model_copy(update={"path": path, "hop": state.hop + 1, "frontier": node.key})
    scope.emit("path_update", {"path": [scope.person(k).name for k in path], "hop": state.hop})
    scope.status(f"Bridging {node.name} — {target.name}")
    observed = observe(
        scope, pair_query(node.name, target.name), parallel=knobs_for(state.options.strategy).parallel_images
    )
    record(scope, observed, frontier=node.key)
    bridged = find_pair(scope, observed, node.key, target.key)
    reached = bridged is not None or graph_connects(scope)
    return state.advanced(selected=None, round=0, reached=reached, **budget_flags(scope, observed))
