"""The sandbox's ground truth: who is truly in each photo, and which pairs an unlimited budget of
template searches could prove. Benchmarks and tests only: steps and strategies see what the ports
return, never this (docs/sandbox.md).
"""

from __future__ import annotations

from visual_degrees.domain.errors import UnknownPerson
from visual_degrees.domain.queries import DISCOVERY_TEMPLATES
from visual_degrees_tools.sandbox.bulk import collector_paused
from visual_degrees_tools.sandbox.captions import MAX_NAMED
from visual_degrees_tools.sandbox.graph import Graph
from visual_degrees_tools.sandbox.photoweb import DEFAULT_PAGE, PhotoWeb, derived
from visual_degrees_tools.sandbox.ranking import ranker_for


def ground_truth(web: PhotoWeb) -> GroundTruth:
    """The ground truth of `web`, built once per web (its graphs take a while on large worlds)."""
    return derived(web, GroundTruth)


class GroundTruth:
    def __init__(self, web: PhotoWeb) -> None:
        self.web = web
        self._ranker = ranker_for(web)
        self._provable: dict[tuple[float, bool, int], Graph] = {}
        self._findable: dict[int, bytearray] = {}

    def truth(self, image_url: str) -> frozenset[str]:
        """Celebrity ids of everyone truly in the photo at `image_url`."""
        photo = self.web.photo_from_url(image_url)
        return frozenset(self.web.world.celebrity_id(p) for p in self.web.people_in(photo))

    def findable(self, page: int = DEFAULT_PAGE) -> bytearray:
        """1 for every photo some discovery query returns within its first `page` results: a photo
        of a name with at most `page` photos, or one ranked that high for one of its names."""
        mask = self._findable.get(page)
        if mask is None:
            mask = bytearray(self.web.photo_count)
            world, named_in = self.web.world, self.web.named_in
            for people in world.by_key.values():
                photos = [photo for person in people for photo in named_in[person]]
                if len(photos) <= page:
                    for photo in photos:
                        mask[photo] = 1
                    continue
                name = world.name(people[0])
                for template in DISCOVERY_TEMPLATES:
                    for photo in self._ranker.rank(template.format(a=name), page):
                        mask[photo] = 1
            self._findable[page] = mask
        return mask

    def provable_graph(
        self, threshold: float = 80.0, *, searchable: bool = True, page: int = DEFAULT_PAGE
    ) -> Graph:
        """Two people are adjacent iff some photo shows both, the noise model recognises both as
        themselves at >= threshold, and search can reach that photo: its caption names both (their
        pair query ranks it first), or a discovery query returns it within `page` results. That is
        what an unlimited budget of template queries can prove. searchable=False drops the last
        condition (an upper bound: every photo counts, however deep it is buried)."""
        graph = self._provable.get((threshold, searchable, page))
        if graph is None:
            with collector_paused():
                graph = self._provable[threshold, searchable, page] = self._build_provable(
                    threshold, searchable, page
                )
        return graph

    def _build_provable(self, threshold: float, searchable: bool, page: int) -> Graph:
        adjacency: list[set[int]] = [set() for _ in range(self.web.world.size)]
        start = self.web.photo_start
        reachable = self.findable(page) if searchable else bytearray(b"\x01") * self.web.photo_count
        for photo in range(self.web.photo_count):
            if start[photo + 1] - start[photo] < 2:
                continue
            seen = [
                (s.person, s.position < MAX_NAMED)
                for s in self.web.sightings(photo)
                if s.shown_as == s.person and s.confidence >= threshold
            ]
            found = reachable[photo]
            for i, (a, a_named) in enumerate(seen):
                for b, b_named in seen[i + 1 :]:
                    if found or (a_named and b_named):
                        adjacency[a].add(b)
                        adjacency[b].add(a)
        return Graph(adjacency)

    def distance(self, a: str, b: str, *, threshold: float = 80.0, limit: int | None = None) -> int | None:
        """Shortest provable chain between two people (names or celebrity ids), or None.
        A name shared by namesakes means any of them."""
        graph = self.provable_graph(threshold)
        best: int | None = None
        bound = limit
        for x in self._all_meant(a):
            for y in self._all_meant(b):
                d = graph.distance(x, y, bound)
                if d is not None and (best is None or d < best):
                    best, bound = d, d - 1
        return best

    def solvable(self, a: str, b: str, *, max_hops: int = 6, threshold: float = 80.0) -> bool:
        return self.distance(a, b, threshold=threshold, limit=max_hops) is not None

    def _all_meant(self, name: str) -> list[int]:
        if name.startswith("vd-"):
            found = self.web.world.by_celebrity_id(name)
            if found is not None:
                return [found]
        people = self.web.world.find(name)
        if not people:
            raise UnknownPerson(f"{name[:200]!r} is not in this world")
        return people
