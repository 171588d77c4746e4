"""Path assembly over verified edges, the confidence math of a finished chain, and the bounded graph
summary a terminal event carries.

Edge confidence is the best image's weaker face: max over images of min(confA, confB) — `Edge`
keeps only its best image. A chain is as strong as its weakest edge (bottleneck); the cumulative
confidence treats edges as independent: product of confidence/100.

A run may verify thousands of pairs (120 recognitions of 12 faces each are 7,920), but an event must
fit one WebSocket message (API Gateway refuses more than 128 KB). `graph_summary` keeps the chain's
links and the most relevant others, at most GRAPH_EDGES of them and GRAPH_BYTES of JSON, and says how
many people and links it left out; the whole graph is read in pages (`getGraph`).
"""

from __future__ import annotations

import heapq
import json
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from visual_degrees.domain.models import Edge
from visual_degrees.domain.wording import PHOTO_CAVEAT


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


GRAPH_EDGES = 300  # links a summary draws at most (the page stays legible at a full budget's ~265)
GRAPH_BYTES = 48 * 1024  # and the JSON they take at most, whatever the length of names
_MISSES = 100  # links in a row that no longer fit: the summary is full


def graph_payload(edges: Iterable[Edge], names: dict[str, str]) -> dict[str, Any]:
    """Nodes and edges for drawing, every one given (unbounded: see graph_summary)."""
    nodes: dict[str, dict[str, Any]] = {}
    out = []
    for edge in edges:
        for key, name in ((edge.a, edge.name_a), (edge.b, edge.name_b)):
            nodes.setdefault(key, _node(key, names.get(key, name)))
        out.append(_link(edge))
    return {"nodes": list(nodes.values()), "edges": out}


def graph_summary(
    edges: Sequence[Edge],
    names: dict[str, str],
    focus: Sequence[str] = (),
    *,
    max_edges: int = GRAPH_EDGES,
    max_bytes: int = GRAPH_BYTES,
) -> dict[str, Any]:
    """The run's verified graph, bounded: `{nodes, edges, truncated: {nodes, edges}}`.

    `focus` are person keys in order of importance (the chain, or A, B and how far each side got):
    they are always among the nodes, and their links come first: links between two of them (the
    chain's), then links touching one of them, strongest first, then the strongest of the rest, until
    `max_edges` links or `max_bytes` of JSON. `truncated` counts the people and links left out."""
    rank = {key: i for i, key in reversed(list(enumerate(focus)))}

    def relevance(edge: Edge) -> tuple[int, float, str, str]:
        touching = (edge.a in rank) + (edge.b in rank)
        return (2 - touching, -edge.confidence, edge.a, edge.b)

    every = {key for edge in edges for key in (edge.a, edge.b)} | set(rank)
    nodes: dict[str, dict[str, Any]] = {}
    used = _size({"nodes": [], "edges": [], "truncated": {"nodes": len(every), "edges": len(edges)}})
    for key in rank:
        used += _grow(nodes, key, names.get(key, key))
    kept: list[dict[str, Any]] = []
    misses = 0
    for edge in sorted(edges, key=relevance):
        if len(kept) >= max_edges or misses >= _MISSES:
            break
        link = _link(edge)
        new = [(k, n) for k, n in ((edge.a, edge.name_a), (edge.b, edge.name_b)) if k not in nodes]
        cost = _size(link) + 1 + sum(_size(_node(k, names.get(k, n))) + 1 for k, n in new)
        if used + cost > max_bytes:
            misses += 1  # a shorter link further down may still fit, but not for ever
            continue
        misses = 0
        for key, name in new:
            _grow(nodes, key, names.get(key, name))
        kept.append(link)
        used += cost
    return {
        "nodes": list(nodes.values()),
        "edges": kept,
        "truncated": {"nodes": len(every) - len(nodes), "edges": len(edges) - len(kept)},
    }


def _node(key: str, name: str) -> dict[str, Any]:
    return {"id": key, "name": name}


def _link(edge: Edge) -> dict[str, Any]:
    return {"source": edge.a, "target": edge.b, "confidence": round(edge.confidence, 2)}


def _grow(nodes: dict[str, dict[str, Any]], key: str, name: str) -> int:
    nodes[key] = _node(key, name)
    return _size(nodes[key]) + 1


def _size(value: Any) -> int:
    """Bytes of `value` as the wire carries it (compact JSON, UTF-8)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def final_payload(chain: list[Edge], all_edges: Sequence[Edge], names: dict[str, str]) -> dict[str, Any]:
    """The `final` event's data: path (display names A..B), edges with evidence (each naming its
    photo's event), confidences, what a link is not (`caveat`), and the verified graph bounded around
    the chain (graph_summary)."""
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
        "caveat": PHOTO_CAVEAT,
        "graph": graph_summary(all_edges, names, [e.a for e in chain] + [chain[-1].b]),
    }
