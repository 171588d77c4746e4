"""The run's verified graph, seen by one step through an in-process view.

Each edge, with the photo that proves it, is one run-memory item (`edge#a|b`). Reading hundreds of
those per question ("does the graph connect A and B yet?") would cost most of a run's CPU, so the
graph also keeps a compact projection: `link#NNNNN` chunks of [a, b, confidence, photos, vouched,
reused] (photos: up to two distinct images that show the pair; vouched: one of them is beyond doubt,
see `add`; reused: the pair's evidence is a link an earlier run proved), at most CHUNK_LINKS per
item so no item grows with the run. A step reads the chunks once, answers depths, degrees and
connectivity in memory, and writes back only chunks it changed (`flush`).

Idempotent by construction: a re-run step reloads the chunks its first attempt wrote, so an edge or
a photo is never counted twice; an edge written before a crash but missing from the chunks is simply
added again (same item, same key).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from visual_degrees.domain.models import Edge
from visual_degrees.domain.paths import edge_id
from visual_degrees.lifecycle.run_memory import RunEvidence

CHUNK_LINKS = 400
PHOTOS_KEPT = 2  # enough to tell a corroborated pair from a single sighting
_PREFIX = "link#"


class RunGraph:
    def __init__(self, mem: RunEvidence) -> None:
        self._mem = mem
        self._adjacency: dict[str, dict[str, float]] = {}
        self._chunks: list[list[list[object]]] = []
        self._links: dict[str, list[object]] = {}  # edge id -> its [a, b, confidence, photos, …] entry
        self._where: dict[str, int] = {}  # edge id -> chunk
        self._dirty: set[int] = set()
        self._out: set[str] | None = None  # pairs kept out (see keep_out), read when first asked
        for links in mem.link_chunks(_PREFIX):
            chunk = len(self._chunks)
            self._chunks.append(links)
            for link in links:
                a, b = str(link[0]), str(link[1])
                self._link(a, b, float(link[2]))
                eid = edge_id(a, b)
                self._links[eid] = link
                self._where[eid] = chunk

    # ---- reading -------------------------------------------------------------------------------

    def confidence(self, a: str, b: str) -> float | None:
        return self._adjacency.get(a, {}).get(b)

    def photos(self, a: str, b: str) -> int:
        """Distinct photos seen showing the pair (counted up to PHOTOS_KEPT)."""
        link = self._links.get(edge_id(a, b))
        return len(link[3]) if link is not None else 0  # type: ignore[arg-type]

    def trusted(self, a: str, b: str, strong: float | None) -> bool:
        """A pair usable in a chain: any proven pair when `strong` is None; else one with a photo
        beyond doubt (`vouched` when added: both faces at >= `strong`, or named by its caption), or
        one that a second photo corroborates."""
        if strong is None:
            return self.confidence(a, b) is not None
        link = self._links.get(edge_id(a, b))
        if link is None:
            return False
        vouched = bool(link[4]) if len(link) > 4 else float(link[2]) >= strong  # type: ignore[arg-type]
        return vouched or self.photos(a, b) >= 2

    def kept_out(self, a: str, b: str) -> bool:
        """May no link reused from an earlier run for a–b be taken in this run? (see keep_out)"""
        return edge_id(a, b) in self._kept()

    def neighbors(self, key: str) -> dict[str, float]:
        return self._adjacency.get(key, {})

    def degree(self, key: str) -> int:
        return len(self._adjacency.get(key, ()))

    def __contains__(self, key: object) -> bool:
        return key in self._adjacency

    def __len__(self) -> int:
        return len(self._links)

    def depths(self, root: str, limit: int) -> dict[str, int]:
        """Edges from `root` to everyone within `limit` (breadth first)."""
        return {node: depth for node, (depth, _) in self._tree(root, limit).items()}

    def tree_path(self, root: str, node: str, limit: int) -> list[str]:
        """One shortest chain root..node (person keys), or [] if none within `limit`."""
        tree = self._tree(root, limit)
        if node not in tree:
            return []
        path = [node]
        while (parent := tree[path[-1]][1]) is not None:
            path.append(parent)
        return path[::-1]

    def chain(
        self, a: str, b: str, max_hops: int, allowed: Callable[[str, str], bool] | None = None
    ) -> list[str] | None:
        """One shortest chain a..b (person keys) of at most max_hops pairs `allowed` accepts, or None."""
        found: dict[str, str | None] = {a: None}
        frontier = [a]
        for _ in range(max_hops):
            nxt = []
            for node in frontier:
                for other in sorted(self._adjacency.get(node, ())):
                    if other in found or (allowed is not None and not allowed(node, other)):
                        continue
                    found[other] = node
                    if other == b:
                        path = [b]
                        while (parent := found[path[-1]]) is not None:
                            path.append(parent)
                        return path[::-1]
                    nxt.append(other)
            frontier = nxt
        return None

    def connects(self, a: str, b: str, max_hops: int, strong: float | None = None) -> bool:
        """Is there a chain a..b of at most max_hops trusted pairs (see `trusted`)?"""
        return b in self._tree(a, max_hops, strong)

    def _tree(self, root: str, limit: int, strong: float | None = None) -> dict[str, tuple[int, str | None]]:
        found: dict[str, tuple[int, str | None]] = {root: (0, None)}
        queue = deque([root])
        while queue:
            node = queue.popleft()
            depth = found[node][0]
            if depth >= limit:
                continue
            for other in sorted(self._adjacency.get(node, ())):
                if other not in found and (strong is None or self.trusted(node, other, strong)):
                    found[other] = (depth + 1, node)
                    queue.append(other)
        return found

    # ---- writing -------------------------------------------------------------------------------

    def add(self, edge: Edge, *, vouched: bool = True) -> bool:
        """Keep the strongest photo per pair and count the distinct photos of it; `vouched`: this photo
        leaves no doubt about either face (the caller's judgement). The run's own photo of a pair
        outranks a link reused from an earlier run, whatever the confidences: it needs no re-check,
        so a reused photo found gone later never takes a pair the run proved with it. True if the
        pair is new (an `evidence` card is due)."""
        eid = edge_id(edge.a, edge.b)
        photo = edge.evidence.sha256[:16] or edge.evidence.image_url
        reused = edge.evidence.earlier_run
        link = self._links.get(eid)
        if link is None:
            self._mem.put_edge(edge)
            self._link(edge.a, edge.b, edge.confidence)
            if not self._chunks or len(self._chunks[-1]) >= CHUNK_LINKS:
                self._chunks.append([])
            chunk = len(self._chunks) - 1
            link = [edge.a, edge.b, edge.confidence, [photo], vouched, reused]
            self._chunks[chunk].append(link)
            self._links[eid], self._where[eid] = link, chunk
            self._dirty.add(chunk)
            return True
        photos: list[str] = link[3]  # type: ignore[assignment]
        if photo not in photos and len(photos) < PHOTOS_KEPT:
            photos.append(photo)
            self._dirty.add(self._where[eid])
        if vouched and not (len(link) > 4 and link[4]):
            link[4:5] = [True]
            self._dirty.add(self._where[eid])
        held_reused = _reused(link)
        stronger = reused == held_reused and edge.confidence > float(link[2])  # type: ignore[arg-type]
        if stronger or (held_reused and not reused):
            self._mem.put_edge(edge)
            self._link(edge.a, edge.b, edge.confidence)
            link[2] = edge.confidence
            if len(link) > 4:  # an older step's entry of four is never reused, nor made so here
                link[5:] = [reused]
            self._dirty.add(self._where[eid])
        return False

    def withdraw(self, a: str, b: str) -> bool:
        """Take the pair out of the graph and the run (a reused link whose photo is gone): no chain
        may use it and no client is shown it. True if it was there."""
        eid = edge_id(a, b)
        link = self._links.pop(eid, None)
        if link is None:
            return False
        self._mem.drop_edge(a, b)
        chunk = self._where.pop(eid)
        self._chunks[chunk].remove(link)
        self._dirty.add(chunk)
        self._adjacency.get(a, {}).pop(b, None)
        self._adjacency.get(b, {}).pop(a, None)
        return True

    def keep_out(self, a: str, b: str) -> None:
        """Take no link an earlier run proved for a–b in this run (its photo did not resolve when
        re-checked), and withdraw the pair if such a link is its evidence: only a photo of the run's
        own brings it back."""
        link = self._links.get(edge_id(a, b))
        if link is not None and _reused(link):
            self.withdraw(a, b)
        self._kept().add(edge_id(a, b))
        self._mem.keep_out(a, b)

    def flush(self) -> None:
        for chunk in sorted(self._dirty):
            self._mem.put_links(f"{_PREFIX}{chunk:05d}", self._chunks[chunk])
        self._dirty.clear()

    def _kept(self) -> set[str]:
        if self._out is None:
            self._out = self._mem.kept_out()
        return self._out

    def _link(self, a: str, b: str, confidence: float) -> None:
        self._adjacency.setdefault(a, {})[b] = confidence
        self._adjacency.setdefault(b, {})[a] = confidence


def _reused(link: list[object]) -> bool:
    """Is the pair's evidence a link an earlier run proved?"""
    return len(link) > 5 and bool(link[5])
