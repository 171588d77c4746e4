"""Cost floors: the least a run that knows the photo web must pay to prove a chain (benchmark-only).

The oracle knows, for each link between two people u and w, which of the link's own queries — the
person queries "u" and "w", the pair queries "u w" and "w u" — returns, on its first result page as
the engine answers it, a photo recognisable as both at >= the threshold, and it recognises only that
photo. A chain costs one search per distinct query (a person query serves both links at that
person) and one recognition per distinct photo (one photo of three people serves two links).
`cheapest` finds the cheapest chain by A* over (person, the last link's query and photo): the
shortest chain first (`shortest=True`: fewest hops, then cheapest) or the cheapest of any length
within `max_hops`. Two links that are not adjacent never share a query (each query names a link's
people) and are not credited for sharing a photo (it would show four people recognised together,
a shortcut the chain would not need).

Reads ground truth: benchmark scripts only, never a run.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import count
from typing import Protocol

from visual_degrees.domain.captions import shows_unnamed
from visual_degrees.domain.costs import DEFAULT_COSTS, CostTable
from visual_degrees.domain.queries import pair_query
from visual_degrees.domain.titles import mentions
from visual_degrees_tools.sandbox import PhotoWeb
from visual_degrees_tools.sandbox.graph import Graph
from visual_degrees_tools.sandbox.ground_truth import ground_truth, recognised_in
from visual_degrees_tools.sandbox.ranking import ranker_for
from visual_degrees_tools.sandbox.search import SandboxImageSearch


class Pages(Protocol):
    """What the oracle reads of a photo web."""

    def name(self, person: int) -> str: ...

    def photos(self, query: str) -> Sequence[int]:
        """The photos on the query's first result page."""

    def recognised(self, photo: int) -> frozenset[int]:
        """Everyone recognised as themselves in the photo at >= the threshold."""

    @property
    def together(self) -> Graph:
        """People recognised together in some photo (a superset of the provable links)."""


class WebPages:
    """A sandbox photo web as the oracle reads it: the engine's first page (200 results, as one paid
    request returns) and the recogniser's noise model."""

    def __init__(self, web: PhotoWeb, *, threshold: float = 80.0, page: int = SandboxImageSearch.page_size):
        self.web = web
        self.threshold = threshold
        self.page = page
        self._ranker = ranker_for(web)
        self._recognised: dict[int, frozenset[int]] = {}

    def name(self, person: int) -> str:
        return self.web.world.name(person)

    def photos(self, query: str) -> Sequence[int]:
        return [self.web.page_photo(p) for p in self._ranker.rank(query, self.page)]

    def recognised(self, photo: int) -> frozenset[int]:
        found = self._recognised.get(photo)
        if found is None:
            found = self._recognised[photo] = frozenset(recognised_in(self.web, photo, self.threshold))
        return found

    @cached_property
    def together(self) -> Graph:
        return ground_truth(self.web).provable_graph(self.threshold, searchable=False)

    def result(self, query: str, photo: int) -> tuple[int, str]:
        """Where the photo first comes on the query's first page (0 = the top result) and the title
        it comes under there; (-1, "") if not on it."""
        for rank, page in enumerate(self._ranker.rank(query, self.page)):
            if self.web.page_photo(page) == photo:
                return rank, self.web.page_title(page)
        return -1, ""


def link_titles(pages: WebPages, floor: Floor) -> list[tuple[str, bool, int]]:
    """For each link of a floor's chain, what the title its photo comes under says of the link's two
    people ("both", "one", "none"), whether it says more people are in it ("X and guests …"), and
    the photo's place on the page: how far what a run reads could point at the oracle's photo."""
    found = []
    for u, link in zip(floor.people, floor.links, strict=False):
        rank, title = pages.result(link.query, link.photo)
        named = sum(mentions(title, pages.name(person)) for person in (u, link.to))
        found.append((("none", "one", "both")[named], shows_unnamed(title), rank))
    return found


@dataclass(frozen=True)
class Link:
    to: int
    query: str
    photo: int


@dataclass(frozen=True)
class Floor:
    cost: float
    people: tuple[int, ...]
    links: tuple[Link, ...]

    @property
    def hops(self) -> int:
        return len(self.links)

    @property
    def searches(self) -> int:
        return len({link.query for link in self.links})

    @property
    def recognitions(self) -> int:
        return len({link.photo for link in self.links})


@dataclass(frozen=True)
class _Trail:
    """How the search reached a state: the trail before, the person left and the link taken."""

    before: _Trail | None
    person: int
    link: Link

    def visits(self, person: int) -> bool:
        trail: _Trail | None = self
        while trail is not None:
            if trail.person == person:
                return True
            trail = trail.before
        return False


class Floors:
    def __init__(self, pages: Pages, costs: CostTable = DEFAULT_COSTS) -> None:
        self.pages = pages
        self.search = costs.search_usd
        self.recognition = costs.recognition_usd
        self._photos: dict[str, Sequence[int]] = {}
        self._links: dict[tuple[int, int], list[Link]] = {}

    def _page(self, query: str) -> Sequence[int]:
        found = self._photos.get(query)
        if found is None:
            found = self._photos[query] = self.pages.photos(query)
        return found

    def _proving(self, query: str, u: int, w: int) -> list[int]:
        """The photos on the query's first page recognisable as both u and w."""
        return [p for p in self._page(query) if {u, w} <= self.pages.recognised(p)]

    def links(self, u: int, w: int) -> list[Link]:
        """Every way to prove the link u-w: per query, one photo of the two alone (any will do) and
        every photo of more (each may serve the next link too)."""
        found = self._links.get((u, w))
        if found is None:
            name, other = self.pages.name(u), self.pages.name(w)
            queries = (name, other, pair_query(name, other), pair_query(other, name))
            found = self._links[u, w] = [
                Link(w, q, p) for q in dict.fromkeys(queries) for p in self._keep(self._proving(q, u, w))
            ]
        return found

    def _keep(self, photos: list[int]) -> list[int]:
        pair = next((p for p in photos if len(self.pages.recognised(p)) == 2), None)
        return [p for p in photos if len(self.pages.recognised(p)) > 2] + ([] if pair is None else [pair])

    def cheapest(
        self,
        sources: Sequence[int],
        targets: Sequence[int],
        max_hops: int,
        *,
        shortest: bool,
    ) -> Floor | None:
        """The cheapest chain from a source to a target within `max_hops` (`shortest`: among those
        of the fewest hops), or None."""
        targets_set = set(targets)
        hops_to = self._hops_to(targets_set, max_hops)
        tie = count()
        # A state: (person, the last link's query and photo when the next link could reuse them).
        # An entry with a person to try (`to` >= 0) is a link not yet priced: its key is a bound
        # (the link free but for what it must pay), so the many links of a busy person are priced
        # only if the search comes to them (pricing a pair query ranks a page).
        Entry = tuple[
            tuple[float, ...], int, float, int, tuple[int, str | None, int | None], _Trail | None, int
        ]
        queue: list[Entry] = []
        for s in dict.fromkeys(sources):
            if s in hops_to:
                key = self._key(0, 0.0, s, None, hops_to, shortest)
                queue.append((key, next(tie), 0.0, 0, (s, None, None), None, -1))
        heapq.heapify(queue)
        settled: set[tuple[int, tuple[int, str | None, int | None]]] = set()
        while queue:
            _, _, cost, hops, state, trail, to = heapq.heappop(queue)
            u, last_query, last_photo = state
            if to >= 0:
                for link in self.links(u, to):
                    spent = cost
                    spent += 0.0 if link.query == last_query else self.search
                    spent += 0.0 if link.photo == last_photo else self.recognition
                    reuse_query = link.query if link.query == self.pages.name(to) else None
                    reuse_photo = link.photo if len(self.pages.recognised(link.photo)) > 2 else None
                    nxt = (to, reuse_query, reuse_photo)
                    if (hops + 1, nxt) not in settled:
                        key = self._key(hops + 1, spent, to, reuse_query, hops_to, shortest)
                        heapq.heappush(
                            queue, (key, next(tie), spent, hops + 1, nxt, _Trail(trail, u, link), -1)
                        )
                continue
            if (hops, state) in settled:
                continue
            settled.add((hops, state))
            if u in targets_set:
                return self._floor(cost, trail)
            if hops == max_hops:
                continue
            least = (0.0 if last_query else self.search) + (
                0.0 if last_photo is not None else self.recognition
            )
            for w in self.pages.together.neighbors(u):
                left = hops_to.get(w)
                if left is None or hops + 1 + left > max_hops or (trail is not None and trail.visits(w)):
                    continue
                key = self._key(hops + 1, cost + least, w, self.pages.name(w), hops_to, shortest)
                heapq.heappush(queue, (key, next(tie), cost, hops, state, trail, w))
        return None

    def _hops_to(self, targets: set[int], limit: int) -> dict[int, int]:
        """Each person's fewest hops to a target among people recognised together: the A* bound
        (a person missing is out of reach)."""
        found: dict[int, int] = {}
        for t in targets:
            for person, hops in self.pages.together.distances_from(t, limit).items():
                found[person] = min(hops, found.get(person, hops))
        return found

    def _key(
        self, hops: int, cost: float, u: int, paid: str | None, hops_to: dict[int, int], shortest: bool
    ) -> tuple[float, ...]:
        """A* priority: the hops and cost so far plus admissible bounds on the rest (each search
        proves at most two links, the first of them free when the last query was u's own)."""
        left = hops_to[u]
        rest = self.search * math.ceil(max(0, left - (1 if paid else 0)) / 2)
        return (hops + left, cost + rest) if shortest else (cost + rest, hops + left)

    @staticmethod
    def _floor(cost: float, trail: _Trail | None) -> Floor:
        steps: list[_Trail] = []
        while trail is not None:
            steps.append(trail)
            trail = trail.before
        steps.reverse()
        people = (*(t.person for t in steps), steps[-1].link.to) if steps else ()
        return Floor(round(cost, 6), people, tuple(t.link for t in steps))
