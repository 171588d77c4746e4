"""Ground truth for benchmarks: is a pair solvable, and is a reported path true?

Solvable: the pair's people are at most max hops apart in the simulator's provable graph (two people
adjacent iff some photo the search can reach shows both, recognised as themselves at >= threshold:
what an unlimited budget could prove). For a display name meaning several namesakes, the nearest
combination counts.

A reported path is *true* when every edge's photo really shows both people (their celebrity ids are
in the simulator's truth for that image), consecutive edges meet in the same person (same id), and
each edge's two confidences are at or above the threshold. A true path whose first or last person is
a namesake of the one meant is not a false path (every photo is real) but it is not a solution
either: it is counted apart (`namesake`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from visual_degrees.domain.errors import ProviderError
from visual_degrees_tools.bench.pairs import BenchPair
from visual_degrees_tools.sandbox import PhotoWeb
from visual_degrees_tools.sandbox.graph import Graph
from visual_degrees_tools.sandbox.ground_truth import ground_truth


@dataclass
class Verdict:
    hops: int
    true: bool  # every edge is shown in its photo and the chain is continuous
    meant: bool  # it starts and ends at the people the pair meant
    problems: list[str] = field(default_factory=list)

    @property
    def solved(self) -> bool:
        return self.true and self.meant


def fewest_hops(graph: Graph, pair: BenchPair, limit: int | None = None) -> int | None:
    """Fewest edges of `graph` between the pair's people (any of a display name's namesakes; at most
    `limit`), or None."""
    best: int | None = None
    bound = limit
    for x in pair.a.indices:
        for y in pair.b.indices:
            d = graph.distance(x, y, bound)
            if d is not None and (best is None or d < best):
                best, bound = d, d
    return best


class Truth:
    def __init__(self, web: PhotoWeb, *, threshold: float = 80.0) -> None:
        self.web = web
        self.threshold = threshold
        self.ground = ground_truth(web)
        self.graph = self.ground.provable_graph(threshold)

    def shortest(self, pair: BenchPair, limit: int | None = None) -> int | None:
        """Fewest provable edges between the pair's people (at most `limit`), or None."""
        return fewest_hops(self.graph, pair, limit)

    def shown(self, image_url: str) -> frozenset[str]:
        """Celebrity ids truly in the photo; empty for a URL the simulator never served."""
        try:
            return self.ground.truth(image_url)
        except ProviderError:
            return frozenset()

    def check(self, final: dict[str, Any], pair: BenchPair) -> Verdict:
        """Judge a `final` event's data against the truth."""
        edges = final.get("edges") or []
        problems: list[str] = []
        if not edges:
            problems.append("a path without edges")
        previous: str | None = None
        for n, edge in enumerate(edges, 1):
            ev = edge.get("evidence") or {}
            id_a, id_b = str(ev.get("idA", "")), str(ev.get("idB", ""))
            url = str(ev.get("imageUrl", ""))
            shown = self.shown(url)
            label = f"edge {n} ({edge.get('from')} — {edge.get('to')})"
            if not id_a or not id_b or id_a == id_b:
                problems.append(f"{label}: evidence does not name two people")
            elif id_a not in shown or id_b not in shown:
                problems.append(f"{label}: {url} does not show both")
            if min(float(ev.get("confidenceA", 0)), float(ev.get("confidenceB", 0))) < self.threshold:
                problems.append(f"{label}: a confidence below {self.threshold:g}")
            if previous is not None and previous != id_a:
                problems.append(f"{label}: does not start where edge {n - 1} ended")
            previous = id_b
        true = not problems
        meant = bool(edges) and (
            str((edges[0].get("evidence") or {}).get("idA", "")) in pair.a.ids
            and str((edges[-1].get("evidence") or {}).get("idB", "")) in pair.b.ids
        )
        return Verdict(hops=len(edges), true=true, meant=meant, problems=problems)
