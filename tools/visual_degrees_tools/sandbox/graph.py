"""An undirected graph over person indices, for ground truth: components and shortest distances."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence


class Graph:
    """Neighbours are kept as sorted tuples: a third of the memory of sets for 100k people."""

    def __init__(self, adjacency: Sequence[Iterable[int]]) -> None:
        self.adjacency: list[tuple[int, ...]] = [tuple(sorted(n)) for n in adjacency]

    def __len__(self) -> int:
        return len(self.adjacency)

    @property
    def edge_count(self) -> int:
        return sum(len(n) for n in self.adjacency) // 2

    def neighbors(self, node: int) -> tuple[int, ...]:
        return self.adjacency[node]

    def has_edge(self, a: int, b: int) -> bool:
        row = self.adjacency[a]
        i = bisect_left(row, b)
        return i < len(row) and row[i] == b

    def distance(self, a: int, b: int, limit: int | None = None) -> int | None:
        """Fewest edges from a to b (at most `limit`), or None. Bidirectional breadth-first search."""
        if a == b:
            return 0
        adjacency = self.adjacency
        seen = [{a}, {b}]
        frontiers = [{a}, {b}]
        depth = 0
        while frontiers[0] and frontiers[1] and (limit is None or depth < limit):
            side = 0 if len(frontiers[0]) <= len(frontiers[1]) else 1
            nxt: set[int] = set()
            mine, theirs = seen[side], seen[1 - side]
            for node in frontiers[side]:
                for other in adjacency[node]:
                    if other in theirs:
                        return depth + 1
                    if other not in mine:
                        mine.add(other)
                        nxt.add(other)
            frontiers[side] = nxt
            depth += 1
        return None

    def distances_from(self, source: int, limit: int | None = None) -> dict[int, int]:
        found = {source: 0}
        frontier = [source]
        depth = 0
        while frontier and (limit is None or depth < limit):
            depth += 1
            nxt = []
            for node in frontier:
                for other in self.adjacency[node]:
                    if other not in found:
                        found[other] = depth
                        nxt.append(other)
            frontier = nxt
        return found

    def components(self, *, include_isolated: bool = False) -> list[list[int]]:
        """Connected groups, largest first; people without any edge are left out unless asked for."""
        seen = [False] * len(self.adjacency)
        groups: list[list[int]] = []
        for start, neighbors in enumerate(self.adjacency):
            if seen[start] or (not neighbors and not include_isolated):
                continue
            seen[start] = True
            group = [start]
            stack = [start]
            while stack:
                for other in self.adjacency[stack.pop()]:
                    if not seen[other]:
                        seen[other] = True
                        group.append(other)
                        stack.append(other)
            groups.append(sorted(group))
        return sorted(groups, key=lambda g: (-len(g), g[0]))

    def largest_component(self) -> list[int]:
        groups = self.components()
        return groups[0] if groups else []
