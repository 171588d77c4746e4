"""S1: search "A B" and recognise the first images; one photo of both is the whole answer.

With the evidence graph, a chain already proven by earlier runs answers first, for free.
"""

from __future__ import annotations

from visual_degrees.domain.models import RunState
from visual_degrees.domain.queries import pair_query
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.lifecycle.scope import RunScope
from visual_degrees.search.confirm import settle
from visual_degrees.search.evidence import budget_flags, find_pair, record, search
from visual_degrees.search.known_edges import chain_in_memory
from visual_degrees.search.observe import Observed
from visual_degrees.search.strategies.caption_leads import strategy as lead_search


def run(state: RunState, ctx: StepContext) -> RunState:
    scope = RunScope(ctx, state)
    knobs = scope.knobs
    a, b = state.person_a, state.person_b
    if knobs.evidence_graph and scope.decide("remembered", lambda: chain_in_memory(scope)):
        scope.status(f"Earlier runs already proved a chain from {a.name} to {b.name}")
        return state.advanced(reached=True, **budget_flags(scope, Observed()))
    if knobs.caption_leads:
        done = lead_search.direct(scope)
        return state.advanced(reached=done.reached, **budget_flags(scope, *done.observed))
    observed = search(scope, pair_query(a.name, b.name), skip_portraits_of=[a.name, b.name])
    record(scope, observed, frontier=a.key, focus={a.key, b.key})
    direct = find_pair(scope, observed, a.key, b.key)
    if direct is not None:
        scope.status(f"Found a photo of {a.name} with {b.name}")
    else:
        scope.status(f"No photo of {a.name} with {b.name} among {len(observed.observations)} images")
    reached, confirming = settle(scope, "s1", claimed=direct is not None)
    return state.advanced(reached=reached, **budget_flags(scope, observed, confirming))
