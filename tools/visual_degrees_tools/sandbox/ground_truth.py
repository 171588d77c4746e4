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
from visual_degrees_tools.sandbox.pages import page_names
from visual_degrees_tools.sandbox.photoweb import DEFAULT_PAGE, PhotoWeb, derived
from visual_degrees_tools.sandbox.ranking import ranker_for


def recognised_in(web: PhotoWeb, photo: int, threshold: float = 80.0) -> list[int]:
    """Who the recogniser names as themselves at >= `threshold` in `photo` (a face taken for
    someone else proves nothing about either)."""
    return [s.person for s in web.sightings(photo) if s.shown_as == s.person and s.confidence >= threshold]


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
        """Celebrity ids of everyone truly in the photo at `image_url` (any page's copy of it)."""
        photo = self.web.photo_from_url(image_url)
        return frozenset(self.web.world.celebrity_id(p) for p in self.web.people_in(photo))

    def findable(self, page: int = DEFAULT_PAGE) -> bytearray:
        """1 for every photo some discovery query returns within its first `page` results: a photo
        on one of at most `page` pages naming a name, or on one ranked that high for one of its names
        (a clean web has one page per photo)."""
        mask = self._findable.get(page)
        if mask is None:
            web = self.web
            mask = bytearray(web.photo_count)
            world, photo_of = web.world, web.page_photo
            for people in world.by_key.values():
                pages = [found for person in people for found in web.pages_naming(person)]
                if len(pages) > page:
                    name = world.name(people[0])
                    pages = [
                        found
                        for template in DISCOVERY_TEMPLATES
                        for found in self._ranker.rank(template.format(a=name), page)
                    ]
                for found in pages:
                    mask[photo_of(found)] = 1
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
        web = self.web
        adjacency: list[set[int]] = [set() for _ in range(web.world.size)]
        start = web.photo_start
        reachable = self.findable(page) if searchable else bytearray(b"\x01") * web.photo_count
        for photo in range(web.photo_count):
            if start[photo + 1] - start[photo] < 2:
                continue
            seen = recognised_in(web, photo, threshold)
            found = reachable[photo]
            named = None if found else self._named_together(photo)
            for i, a in enumerate(seen):
                for b in seen[i + 1 :]:
                    if found or any(a in names and b in names for names in named or ()):
                        adjacency[a].add(b)
                        adjacency[b].add(a)
        return Graph(adjacency)

    def _named_together(self, photo: int) -> list[frozenset[int]]:
        """Who each page of `photo` names (its people named on one page can find it with a pair
        query): a clean web's caption names its first three people."""
        web = self.web
        table = web.pages
        if table is None:
            return [frozenset(web.people_in(photo)[:MAX_NAMED])]
        people = set(web.people_in(photo))
        pages = (photo, *range(table.copy_start[photo], table.copy_start[photo + 1]))
        return [frozenset(people.intersection(page_names(web, page))) for page in pages]

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
