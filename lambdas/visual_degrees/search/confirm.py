"""Confirming a chain before claiming it (the corroborate_weak_edges knob).

A face recognised at 80–94 % may be a lookalike: someone else, matched as this person. A pair proven
only by photos with such a face that their captions do not name is *weak*. When the run graph
connects A and B only through weak pairs, the run
looks for a second photo of each weak pair on the chain (one pair search each, the pair's own query,
which ranks photos of both first); a pair the search cannot confirm is doubted and never used, and
the search goes on. Every photo shown for a chain still proves its pair under the evidence rule; the
rule is only applied more strictly to which pairs may form the chain.
"""

from __future__ import annotations

from functools import partial
from itertools import pairwise

from visual_degrees.domain.paths import edge_id
from visual_degrees.domain.queries import pair_query
from visual_degrees.search.answer_chain import reused_photos_resolve
from visual_degrees.search.evidence import graph_connects, record, search
from visual_degrees.search.observe import Observed
from visual_degrees.search.scope import SearchScope

MAX_CONFIRMATIONS = 3  # pair searches one step may spend confirming weak pairs


def settle(scope: SearchScope, tag: str, *, claimed: bool = False) -> tuple[bool, Observed]:
    """May the run finish now? (reached, what the confirming searches observed, for budget flags).

    `claimed`: the step proved the final link itself (the seed's way to finish). Each confirmation
    is journalled under `tag`, so a re-run step replays the same searches and the same events.
    """
    state = scope.state
    a, b, hops = state.person_a.key, state.person_b.key, scope.options.max_hops
    if not scope.rules.record_all_edges:
        return claimed, Observed()
    strong = scope.rules.strong_confidence
    if strong is None:
        return _stands(scope, tag, claimed or scope.graph.connects(a, b, hops)), Observed()
    last = Observed()
    for attempt in range(MAX_CONFIRMATIONS):
        pick = scope.decide(f"confirm.{tag}.{attempt}", partial(_weak_pair, scope, strong))
        if pick is None:
            break
        x, y = (scope.person(k) for k in pick)
        scope.status(f"Confirming {x.name} — {y.name}: looking for a second photo of them together")
        last = search(scope, pair_query(x.name, y.name))
        record(scope, last, frontier=None, focus={x.key, y.key})
        if not scope.graph.trusted(x.key, y.key, strong):
            scope.frontier.doubt(x.key, y.key)
        if last.exhausted:
            break
    return _stands(scope, tag, scope.graph.connects(a, b, hops, strong)), last


def stands(scope: SearchScope, tag: str) -> bool:
    """Whether the run's graph holds a chain A..B the run may claim now (see _stands)."""
    return _stands(scope, tag, graph_connects(scope))


def _stands(scope: SearchScope, tag: str, connected: bool) -> bool:
    """Whether a chain is reached and stands: one through links reused from the evidence graph only
    if their photos still resolve (answer_chain.py); otherwise the run looks on. Once a gone link is
    withdrawn, only a chain the graph still holds may end the run, whatever the step proved itself
    (the link it proved may now lead nowhere)."""
    if not connected:
        return False
    if not scope.rules.remember_edges:
        return True
    return reused_photos_resolve(scope, tag) and graph_connects(scope)


def _weak_pair(scope: SearchScope, strong: float) -> list[str] | None:
    """The first unconfirmed weak pair on a chain A..B through pairs not doubted, or None when a
    trusted chain exists already or no chain does."""
    state = scope.state
    a, b, hops = state.person_a.key, state.person_b.key, scope.options.max_hops
    graph = scope.graph
    if graph.connects(a, b, hops, strong):
        return None
    doubted = scope.frontier.doubted()
    chain = graph.chain(a, b, hops, lambda x, y: edge_id(x, y) not in doubted)
    if chain is None:
        return None
    for x, y in pairwise(chain):
        if not graph.trusted(x, y, strong):
            return [x, y]
    return None
