"""Path assembly over verified edges, and the confidence math of a finished chain.

Edge confidence is the best image's weaker face: max over images of min(confA, confB) — `Edge`
keeps only its best image. A chain is as strong as its weakest edge (bottleneck); the cumulative
confidence treats edges as independent: product of confidence/100.
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from visual_degrees.domain.models import Edge


def edge_id(a: str, b: str) -> str:
    """Order-free id of the pair (person keys)."""
    x, y = sorted((a, b))
    return f"{x}|{y}"


def best_path(edges: Iterable[Edge], source: str, target: str, max_hops: int) -> list[Edge] | None:
    """The shortest chain source..target (at most max_hops edges); among equally short chains, the one
    with the strongest bottleneck. Edges are oriented along the path. None if there is none."""
    adjacency: dict[str, list[Edge]] = defaultdict(list)
    for edge in edges:
        adjacency[edge.a].append(edge)
        adjacency[edge.b].append(edge)
    # Lexicographic Dijkstra on (hops, -bottleneck): hops first, then the widest bottleneck.
    best: dict[str, tuple[int, float]] = {source: (0, -math.inf)}
    parent: dict[str, Edge] = {}
    heap: list[tuple[int, float, str]] = [(0, -math.inf, source)]
    while heap:
        hops, neg_width, node = heapq.heappop(heap)
        if best.get(node) != (hops, neg_width) or node == target:
            continue
        if hops >= max_hops:
            continue
        for edge in adjacency[node]:
            nxt = edge.b if edge.a == node else edge.a
            cand = (hops + 1, max(neg_width, -edge.confidence))
            if nxt not in best or cand < best[nxt]:
                best[nxt] = cand
                parent[nxt] = edge.oriented(node)
                heapq.heappush(heap, (cand[0], cand[1], nxt))
    if target not in parent:
        return None
    chain: list[Edge] = []
    node = target
    while node != source:
        edge = parent[node]
        chain.append(edge)
        node = edge.a
    return list(reversed(chain))


def bottleneck(chain: list[Edge]) -> float:
    return min((e.confidence for e in chain), default=0.0)


def cumulative(chain: list[Edge]) -> float:
    return math.prod(e.confidence / 100 for e in chain) if chain else 0.0


def graph_payload(edges: Iterable[Edge], names: dict[str, str]) -> dict[str, Any]:
    """Nodes and edges for drawing: every verified co-appearance of the run, not just the path."""
    nodes: dict[str, dict[str, Any]] = {}
    out = []
    for edge in edges:
        for key, name in ((edge.a, edge.name_a), (edge.b, edge.name_b)):
            nodes.setdefault(key, {"id": key, "name": names.get(key, name)})
        out.append({"source": edge.a, "target": edge.b, "confidence": round(edge.confidence, 2)})
    return {"nodes": list(nodes.values()), "edges": out}


def final_payload(chain: list[Edge], all_edges: list[Edge], names: dict[str, str]) -> dict[str, Any]:
    """The `final` event's data: path (display names A..B), edges with evidence, confidences, graph."""
    path = [chain[0].name_a] + [e.name_b for e in chain]
    edges = [
        {
            "from": e.name_a,
            "to": e.name_b,
            "confidence": round(e.confidence, 2),
            "evidence": e.evidence.dump(),
        }
        for e in chain
    ]
    return {
        "path": path,
        "hops": len(chain),
        "edges": edges,
        "confidenceMap": {f"{e.name_a} — {e.name_b}": round(e.confidence, 2) for e in chain},
        "bottleneckConfidence": round(bottleneck(chain), 2),
        "cumulativeConfidence": round(cumulative(chain), 4),
        "graph": graph_payload(all_edges, names),
    }
