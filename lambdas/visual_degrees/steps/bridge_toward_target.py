"""S5: the newly proven person becomes the frontier; try them against the target directly.

Meeting in the middle, the "target" is the other side: its best connected person whose depth keeps
the chain within max hops (else its end), tried once per pair.
"""

from __future__ import annotations

from visual_degrees.domain.models import RunState
from visual_degrees.domain.queries import pair_query
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.lifecycle.scope import RunScope
from visual_degrees.search.confirm import settle
from visual_degrees.search.evidence import budget_flags, find_pair, record, search
from visual_degrees.search.observe import Observed
from visual_degrees.search.progress import show_progress
from visual_degrees.search.strategies.both_ends import trees as both_ends
from visual_degrees.search.strategies.caption_leads import strategy as lead_search


def run(state: RunState, ctx: StepContext) -> RunState:
    scope = RunScope(ctx, state)
    knobs = scope.knobs
    if knobs.caption_leads:
        if state.frontier and state.selected:
            show_progress(scope, state.frontier, state.selected)
        done = lead_search.advance(scope)
        return state.advanced(selected=None, reached=done.reached, **budget_flags(scope, *done.observed))
    node = scope.person(state.selected or state.frontier or state.person_a.key)
    path = [*state.path, node.key]
    state = scope.state = state.model_copy(update={"path": path, "hop": state.hop + 1, "frontier": node.key})
    scope.emit(
        "path_update", {"path": [scope.person(k).name for k in path], "hop": state.hop, "side": state.side}
    )
    if knobs.both_ends:
        target_key = scope.decide(
            "target", lambda: both_ends.bridge_target(scope, state.side, node.key, state.hop)
        )
    else:
        target_key = state.person_b.key
    observed = Observed()
    if target_key is not None:
        target = scope.person(target_key)
        scope.status(f"Bridging {node.name} — {target.name}")
        observed = search(
            scope, pair_query(node.name, target.name), skip_portraits_of=[node.name, target.name]
        )
        record(scope, observed, frontier=node.key, focus={node.key, target.key})
        if knobs.both_ends:
            scope.frontier.mark_bridged(node.key, target.key)
        find_pair(scope, observed, node.key, target.key)
    claimed = target_key == state.person_b.key and scope.graph.confidence(node.key, target_key) is not None
    reached, confirming = settle(scope, "s5", claimed=claimed)
    return state.advanced(
        selected=None, round=0, reached=reached, **budget_flags(scope, observed, confirming)
    )
