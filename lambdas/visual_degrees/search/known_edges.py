"""Evidence from earlier runs: verified pairs kept with their photos (SharedMemory's evidence graph).

A reused edge is the very evidence an earlier run accepted (same photo, same confidences, same
celebrity ids), so the evidence rule holds unchanged; identities must agree with this run's pins.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from visual_degrees.domain.models import Edge
from visual_degrees.search.evidence import accept_edge
from visual_degrees.search.observe import Observed
from visual_degrees.search.port import StepResult
from visual_degrees.search.scope import SearchScope

# Evidence-graph reads one question may make while looking for a chain (each read is one query).
MAX_READS = 40
# Remembered edges adopted per person: a hub met by many runs must not make every step heavier.
MAX_ADOPTED = 60


def earlier_chain(scope: SearchScope) -> StepResult | None:
    """S1 of every strategy, with the evidence graph: a chain A..B that earlier runs proved answers
    first, for free (the look is journalled: a re-run of the step sees the same answer)."""
    if not (scope.rules.remember_edges and scope.decide("remembered", lambda: chain_in_memory(scope))):
        return None
    a, b = scope.state.person_a, scope.state.person_b
    scope.status(f"Earlier runs already proved a chain from {a.name} to {b.name}")
    return StepResult(reached=True, observed=(Observed(),))


def import_known(scope: SearchScope, key: str) -> int:
    """Add the remembered edges touching `key` to the run graph; how many pairs were new."""
    if not scope.rules.remember_edges:
        return 0
    added = sum(_adopt(scope, edge, card=False) for edge in scope.shared.known_edges(key, MAX_ADOPTED))
    scope.graph.flush()
    return added


def chain_in_memory(scope: SearchScope) -> bool:
    """Look for a chain A..B within max hops among remembered edges (breadth first from both ends,
    at most MAX_READS reads); adopt its edges if there is one."""
    if not scope.rules.remember_edges:
        return False
    a, b = scope.state.person_a.key, scope.state.person_b.key
    max_hops = scope.options.max_hops
    parents: list[dict[str, dict[str, Any] | None]] = [{a: None}, {b: None}]
    depth: list[dict[str, int]] = [{a: 0}, {b: 0}]
    queues = [deque([a]), deque([b])]
    reads = 0
    while reads < MAX_READS and (queues[0] or queues[1]):
        side = 0 if queues[0] and (len(queues[0]) <= len(queues[1]) or not queues[1]) else 1
        node = queues[side].popleft()
        reads += 1
        for link in scope.shared.known_links(node, MAX_ADOPTED):
            nxt = str(link["b"])
            if nxt in parents[side]:
                continue
            parents[side][nxt] = link
            depth[side][nxt] = depth[side][node] + 1
            if nxt in depth[1 - side] and depth[side][nxt] + depth[1 - side][nxt] <= max_hops:
                chain = [
                    Edge.model_validate(x) for x in _walk(parents[side], nxt) + _walk(parents[1 - side], nxt)
                ]
                if all(_adopt(scope, e, card=True, check_only=True) for e in chain):
                    for e in chain:
                        _adopt(scope, e, card=True)
                    scope.graph.flush()
                    return scope.graph.connects(a, b, max_hops, scope.rules.strong_confidence)
            if depth[side][nxt] < max_hops:
                queues[side].append(nxt)
    return False


def _walk(parents: dict[str, dict[str, Any] | None], node: str) -> list[dict[str, Any]]:
    links = []
    while (link := parents[node]) is not None:
        links.append(link)
        node = str(link["a"])
    return links


def _adopt(scope: SearchScope, edge: Edge, *, card: bool, check_only: bool = False) -> bool:
    ev = edge.evidence
    for key, cid, name in ((edge.a, ev.id_a, edge.name_a), (edge.b, ev.id_b, edge.name_b)):
        pinned = scope.pinned(key)
        if pinned is not None and pinned != cid:
            return False
        if not check_only and not scope.agrees(key, cid, name):
            return False
    if check_only:
        return True
    is_new = scope.graph.confidence(edge.a, edge.b) is None
    accept_edge(scope, edge.a, edge.b, ev, card=card)
    return is_new
