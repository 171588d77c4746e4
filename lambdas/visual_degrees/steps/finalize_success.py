"""S6: assemble the chain from the verified graph (its shortest), with per-edge, bottleneck and
cumulative confidence, its degrees and what rules fewer out (search/shortening/verdict.py) and the
graph payload; emit `final`."""

from __future__ import annotations

from visual_degrees.domain.models import RunState
from visual_degrees.domain.paths import final_payload
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.search import hints
from visual_degrees.search.answer_chain import answer_chain, reused_photos_resolve
from visual_degrees.search.evidence import announce
from visual_degrees.search.shortening import verdict
from visual_degrees.search.strategies import begin


def run(state: RunState, ctx: StepContext) -> RunState:
    strategy, scope = begin(ctx, state)
    if scope.rules.remember_edges:
        reused_photos_resolve(scope, "s6")  # the shortening phase may have moved the answer's chain
    # Only links this run proved or re-checked are claimed or shown: past MAX_RECHECKS gone chains,
    # the answer is the shortest chain of those, which the step that reached S6 re-checked (confirm.py).
    edges = scope.evidence.shown_edges()
    chain = answer_chain(scope, edges)
    if chain is None:
        # Only a bug can route here without such a chain; fail loudly rather than claim a path.
        raise RuntimeError("S6 reached without a verified chain from A to B")
    remember = scope.rules.remember_edges
    for edge in chain:  # a link proven in passing (no card yet) is shown before the answer uses it
        announce(scope, edge)
        if remember:
            scope.known.remember(edge)
    keys = [e.a for e in chain] + [chain[-1].b]
    hint = hints.report(scope, keys)
    payload = final_payload(chain, edges, scope.evidence.names())  # the graph bounded around the chain
    if hint is not None:
        payload["hint"] = hint
    told = verdict.degrees(scope, strategy, keys)
    payload["degrees"] = {**told.dump(), "lines": told.lines()}  # the words every client shows
    payload["usage"] = scope.budget.usage().dump()
    payload["simSeconds"] = round(ctx.clock.now() - state.started_at, 3)
    scope.finish("final", payload, hops=len(chain))
    return state.advanced(reached=True, path=keys)
