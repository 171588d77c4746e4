"""What a question of a stream must at least cost, given the evidence graph a deployment holds when
it is asked (issue 20's target: the last 30 questions at most 30 % of the first 30).

- Ends connected in the graph within the hop limit: nothing; the answer is read from it.
- Otherwise each end the graph holds no link of must be tied by a photo of them with someone, one
  recognition at least. That is all it needs only when a page some earlier run bought holds a photo
  the recogniser names them in, at >= 80 as themselves, beside someone the graph holds or the other
  end (a face in the photo scored lower proves nothing); without one, a search too.
- Both ends held but not connected within the hop limit: nothing (a lower bound).

Two such floors: `floor` counts any photo on a page read (a strategy that knows which faces every
photo shows), `titled` only a photo whose title there names both people (a strategy that reads titles
and knows which of them tell the truth). Planner calls, recognitions that fail and the chain's other
links are not counted, so each is a lower bound for any strategy on that graph. Benchmark-only: it
reads the photo web's ground truth.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from visual_degrees.domain.captions import keys_in_title
from visual_degrees.domain.costs import DEFAULT_COSTS
from visual_degrees.domain.errors import ProviderError
from visual_degrees.lifecycle.evidence_graph import KnownLinks
from visual_degrees_tools.bench.metrics import percentile
from visual_degrees_tools.sandbox import PhotoWeb
from visual_degrees_tools.sandbox.ground_truth import recognised_in

RECOGNITION = DEFAULT_COSTS.recognition_usd
SEARCH = DEFAULT_COSTS.search_usd


@dataclass(frozen=True)
class End:
    key: str  # the person key runs use
    ids: frozenset[str]  # the celebrity ids the name may mean (namesakes)


@dataclass(frozen=True)
class QuestionFloor:
    new: int  # ends the graph held no link of
    floor: float  # USD, any photo on a page read counts
    titled: float  # USD, only a photo whose title names both counts
    connected: bool = False  # the graph held a chain between the ends within the hop limit


@dataclass
class PagesRead:
    """Who the photos of the pages read so far prove together, kept up to date page by page:
    `shown` gives the celebrity ids the recogniser names at >= 80 as themselves in a photo (by image
    URL), `key_of` the person key of an id."""

    shown: Callable[[str], frozenset[str]]
    key_of: Callable[[str], str | None]
    partners: dict[str, set[str]] = field(default_factory=dict)  # id -> ids recognised in one photo with it
    titled: dict[str, set[str]] = field(default_factory=dict)  # ... whose title there names both
    _read: set[tuple[str, str]] = field(default_factory=set)

    def add(self, results: Iterable[tuple[str, str]]) -> None:
        """Results (image URL, title) of pages read; those read before are skipped."""
        for url, title in set(results) - self._read:
            self._read.add((url, title))
            ids = self.shown(url)
            named = set(keys_in_title(title))
            titled = {i for i in ids if self.key_of(i) in named}
            for who in ids:
                self.partners.setdefault(who, set()).update(ids - {who})
                if who in titled:
                    self.titled.setdefault(who, set()).update(titled - {who})


def recognised_on(web: PhotoWeb, threshold: float = 80.0) -> Callable[[str], frozenset[str]]:
    """`PagesRead.shown` for a sandbox web: the celebrity ids the recogniser names as themselves at
    >= `threshold` in the photo at an image URL. A face truly there but scored lower proves no link,
    so a strategy that knows the web pays a search for that end all the same."""

    def shown(image_url: str) -> frozenset[str]:
        try:
            photo = web.photo_from_url(image_url)
        except ProviderError:
            return frozenset()  # a URL the simulator never served
        return frozenset(web.world.celebrity_id(p) for p in recognised_in(web, photo, threshold))

    return shown


def question_floor(known: KnownLinks, pages: PagesRead, a: End, b: End, max_hops: int) -> QuestionFloor:
    """The floors of the question a–b on the graph `known` as it stands, after `pages` were read."""
    if connected(known, a.key, b.key, max_hops):
        return QuestionFloor(0, 0.0, 0.0, connected=True)
    new = [(end, b if end is a else a) for end in (a, b) if not known.holds(end.key)]
    floor = titled = 0.0
    for end, other in new:
        floor += _tie_price(known, pages, pages.partners, end, other)
        titled += _tie_price(known, pages, pages.titled, end, other)
    return QuestionFloor(len(new), floor, titled)


def _tie_price(known: KnownLinks, pages: PagesRead, seen: dict[str, set[str]], end: End, other: End) -> float:
    met = set().union(*(seen.get(i, set()) for i in end.ids))
    keys = {key for key in map(pages.key_of, met) if key is not None}
    tied = any(key == other.key or known.holds(key) for key in keys)
    return RECOGNITION if tied else SEARCH + RECOGNITION


def connected(known: KnownLinks, a: str, b: str, max_hops: int) -> bool:
    """Does the graph hold a chain a..b of at most max_hops links?"""
    seen, layer = {a}, [a]
    for _ in range(max_hops):
        nxt = []
        for node in layer:
            for neighbour in known.neighbours(node):
                if neighbour.key == b:
                    return True
                if neighbour.key not in seen:
                    seen.add(neighbour.key)
                    nxt.append(neighbour.key)
        layer = nxt
    return False


@dataclass(frozen=True)
class Asked:
    """One question of a stream as it was answered: its floors before it, and what the run spent."""

    floor: QuestionFloor
    cost: float
    searches: int
    excess: int | None = None  # hops over the shortest provable chain, when solved


@dataclass(frozen=True)
class KindFigures:
    questions: int
    spent: float  # USD, all of them
    median: float
    p90: float
    no_search: int  # answered without a search
    titled_tie: int  # every new end tied by a title on a page read (titles-only floor a recognition each)
    titled_tie_no_search: int  # ... and answered without a search
    excess: float | None = None  # mean hops over the shortest provable chain, of those solved


KINDS = ("read from the graph", "both held, paid", "one new", "both new")


def kind(floor: QuestionFloor, cost: float) -> str:
    """Which of KINDS a question is: by how many ends the graph held no link of; with both held,
    whether the graph held a chain between them (what a shorter one cost is counted there too) or the
    run paid anything (most often the graph held no chain within the hop limit)."""
    if floor.new:
        return KINDS[1 + floor.new]
    return KINDS[0] if floor.connected or cost == 0 else KINDS[1]


def by_kind(asked: Iterable[Asked]) -> dict[str, KindFigures]:
    """What questions of each kind cost, and how many were tied by titles already read."""
    groups: dict[str, list[Asked]] = {}
    for question in asked:
        groups.setdefault(kind(question.floor, question.cost), []).append(question)
    figures = {}
    for name in KINDS:
        group = groups.get(name)
        if not group:
            continue
        costs = sorted(q.cost for q in group)
        tied = [q for q in group if q.floor.new and q.floor.titled <= q.floor.new * RECOGNITION + 1e-9]
        excess = [q.excess for q in group if q.excess is not None]
        figures[name] = KindFigures(
            questions=len(group),
            spent=sum(costs),
            median=statistics.median(costs),
            p90=percentile(costs, 90),
            no_search=sum(1 for q in group if q.searches == 0),
            titled_tie=len(tied),
            titled_tie_no_search=sum(1 for q in tied if q.searches == 0),
            excess=sum(excess) / len(excess) if excess else None,
        )
    return figures
