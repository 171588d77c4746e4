"""The simulated photo web: the photos each event produced, their captions, URLs and ground truth.

Derived deterministically from a world and a seed (docs/sandbox.md gives every figure's reason):
- every credited person appears in at least one photo of each event they are in;
- the most famous people of an event (its leads) get solo portraits and are photographed together;
- everyone else is photographed in a small group with one lead, or in an occasional crowd shot;
- captions name at most three people, the most famous first; the rest go unnamed.

Ground truth (`truth`, `provable_graph`, distances) is for benchmarks and tests, never for steps:
steps see only what the ports return.
"""

from __future__ import annotations

import math
import random
from array import array
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate, chain, islice
from typing import NamedTuple

from visual_degrees.domain.errors import ProviderError, UnknownPerson
from visual_degrees.domain.names import name_key
from visual_degrees.domain.queries import DISCOVERY_TEMPLATES
from visual_degrees.sandbox.bulk import collector_paused
from visual_degrees.sandbox.captions import (
    CONTEXTS,
    MAX_NAMED,
    EventKind,
    Kind,
    caption,
    caption_keywords,
    display_title,
    event_kind,
)
from visual_degrees.sandbox.graph import Graph
from visual_degrees.sandbox.hashing import combine, stable_hash
from visual_degrees.sandbox.noise import DEFAULT_NOISE, NoiseModel, Outcome
from visual_degrees.sandbox.ranking import Ranker
from visual_degrees.sandbox.world import PersonRecord, World

SANDBOX_HOST = "sandbox.visual-degrees.invalid"  # .invalid (RFC 2606): can never resolve live
BASE_URL = f"https://{SANDBOX_HOST}"
_IMAGE_PREFIX = f"{BASE_URL}/photos/"
DEFAULT_PAGE = 5  # images per search, the workflow's default (RunOptions.images_per_search)
_ID_MASK = (1 << 40) - 1
_ID_ODD = 0x9E3779B97F  # odd, so multiplying by it permutes 40-bit numbers
_ID_ODD_INVERSE = pow(_ID_ODD, -1, 1 << 40)


@dataclass(frozen=True)
class PhotoParameters:
    """How many photos an event produces and of whom. `star` below is log2(events a person is in)."""

    leads_base: int = 2  # an event's leads: its most famous people, at least two ...
    leads_per_cast: int = 10  # ... plus one per ten credited people ...
    leads_max: int = 8  # ... up to eight
    portrait_base: float = 0.1  # solo portraits per person per event: base + per_star * star
    portrait_per_star: float = 0.3
    lead_slots_base: float = 1.0  # appearances in photos among leads: base + per_star * star
    lead_slots_per_star: float = 0.7
    cover_slots_base: float = 2.0  # appearances of everyone else: base + per_star * star
    cover_slots_per_star: float = 1.0
    group_sizes: tuple[tuple[int, float], ...] = ((2, 0.5), (3, 0.3), (4, 0.2))
    crowd_min_cast: int = 8  # crowd shots only at events with at least this many people
    crowd_chance: float = 0.2  # share of coverage photos that are crowd shots
    crowd_min: int = 5
    crowd_max: int = 12

    def __post_init__(self) -> None:
        if self.lead_slots_base < 1 or self.cover_slots_base < 1:
            raise ValueError("slot bases must be >= 1: everyone credited is photographed at least once")
        if max(len(contexts) for contexts in CONTEXTS.values()) > 8:
            raise ValueError("the keyword table assumes at most eight caption contexts per event kind")


DEFAULT_PHOTOS = PhotoParameters()


@dataclass(frozen=True, slots=True)
class Photo:
    index: int
    photo_id: str
    event: int
    kind: Kind
    people: tuple[int, ...]  # caption order: the most famous first
    named: int  # how many of them the caption names
    caption: str
    image_url: str
    page_url: str


class Sighting(NamedTuple):
    """What the recogniser makes of one true face: `shown_as` is who it names (a lookalike if not
    `person`); `position` is the face's place in the photo (its box)."""

    person: int
    shown_as: int
    confidence: float
    position: int


class PhotoWeb:
    def __init__(
        self,
        world: World,
        seed: int = 0,
        *,
        photos: PhotoParameters = DEFAULT_PHOTOS,
        noise: NoiseModel = DEFAULT_NOISE,
    ) -> None:
        self.world = world
        self.seed = seed
        self.params = photos
        self.noise = noise
        self._base = stable_hash("photo-web", seed)
        self._id_key = stable_hash("photo-id", seed) & _ID_MASK
        self.event_kinds = bytes(event_kind(t) for t in world.titles)
        self._titles: list[str | None] = [None] * len(world.titles)
        self._provable: dict[tuple[float, bool, int], Graph] = {}
        self._findable: dict[int, bytearray] = {}
        with collector_paused():
            self._build()

    @cached_property
    def identity(self) -> str:
        """Which photo web this is: evidence and provider answers from one web are never used in
        another (another world, seed or photo model has other photos behind the same URLs)."""
        return "sandbox-" + format(
            stable_hash("web", self.world.fingerprint, self.seed, repr(self.params), repr(self.noise)), "016x"
        )

    # ---- generation ------------------------------------------------------------------------------

    def _build(self) -> None:
        world, params = self.world, self.params
        fame = world.fame
        neg_fame = [-f for f in fame]
        star = [math.log2(f) if f > 1 else 0.0 for f in range(max(fame) + 1)]
        photo_kind = bytearray()
        photo_context = bytearray()
        photo_keywords = bytearray()
        photo_start = array("I", [0])
        photo_people = array("I")
        event_start = array("I", [0])
        named: list[list[int]] = [[] for _ in range(world.size)]
        sizes = [size for size, _ in params.group_sizes]
        cumulative = []
        total = 0.0
        for _, weight in params.group_sizes:
            total += weight
            cumulative.append(total)
        # keyword bits by event kind, then by code = kind * 32 + context * 4 + people named
        keywords = {
            ek: [
                caption_keywords(Kind(code // 32), code % 4, ek, code // 4 % 8)
                if code % 4 and code // 4 % 8 < len(CONTEXTS[ek])
                else 0
                for code in range(3 * 32)
            ]
            for ek in EventKind
        }

        for event, cast in enumerate(world.members):
            ek = EventKind(self.event_kinds[event])
            table = keywords[ek]
            kinds, groups, contexts = _event_photos(
                combine(self._base, event),
                cast,
                fame,
                neg_fame,
                star,
                params,
                sizes,
                cumulative,
                len(CONTEXTS[ek]),
            )
            index = len(photo_kind)
            photo_kind.extend(kinds)
            photo_context.extend(contexts)
            photo_keywords.extend(
                [
                    table[kind * 32 + context * 4 + (len(people) if len(people) < MAX_NAMED else MAX_NAMED)]
                    for kind, people, context in zip(kinds, groups, contexts, strict=True)
                ]
            )
            photo_people.extend(chain.from_iterable(groups))
            photo_start.extend(islice(accumulate(map(len, groups), initial=photo_start[-1]), 1, None))
            for people in groups:
                for person in people[:MAX_NAMED]:
                    named[person].append(index)
                index += 1
            event_start.append(index)

        self.photo_kind = photo_kind
        self.photo_context = photo_context
        self.photo_keywords = photo_keywords
        self.photo_start = photo_start
        self.photo_people = photo_people
        self.event_start = event_start
        self.named_in = named

    def event_of(self, photo: int) -> int:
        return bisect_right(self.event_start, photo) - 1

    # ---- photos ---------------------------------------------------------------------------------

    @property
    def photo_count(self) -> int:
        return len(self.photo_kind)

    def people_in(self, photo: int) -> tuple[int, ...]:
        return tuple(self.photo_people[self.photo_start[photo] : self.photo_start[photo + 1]])

    def photo_id(self, photo: int) -> str:
        return format(((photo * _ID_ODD) & _ID_MASK) ^ self._id_key, "010x")

    def photo_index(self, photo_id: str) -> int | None:
        """The photo an id names, or None if no photo of this web has it."""
        if len(photo_id) != 10:
            return None
        try:
            number = int(photo_id, 16)
        except ValueError:
            return None
        photo = ((number ^ self._id_key) * _ID_ODD_INVERSE) & _ID_MASK
        if photo >= self.photo_count or self.photo_id(photo) != photo_id.lower():
            return None
        return photo

    def image_url(self, photo: int) -> str:
        return f"{_IMAGE_PREFIX}{self.photo_id(photo)}.svg"

    def page_url(self, photo: int) -> str:
        return f"{_IMAGE_PREFIX}{self.photo_id(photo)}"

    def photo_from_url(self, url: str) -> int:
        """The photo at a sandbox image URL; ProviderError (as a 404 would be) for anything else."""
        if not isinstance(url, str) or not url.startswith(_IMAGE_PREFIX) or not url.endswith(".svg"):
            raise ProviderError(f"not a sandbox image URL: {str(url)[:120]!r}")
        photo = self.photo_index(url[len(_IMAGE_PREFIX) : -len(".svg")])
        if photo is None:
            raise ProviderError(f"no such image (HTTP 404): {url[:120]!r}")
        return photo

    def title(self, event: int) -> str:
        cached = self._titles[event]
        if cached is None:
            cached = self._titles[event] = display_title(self.world.titles[event])
        return cached

    def caption(self, photo: int) -> str:
        people = self.people_in(photo)
        n_named = min(MAX_NAMED, len(people))
        event = self.event_of(photo)
        return caption(
            Kind(self.photo_kind[photo]),
            [self.world.name(p) for p in people[:n_named]],
            len(people) - n_named,
            self.title(event),
            EventKind(self.event_kinds[event]),
            self.photo_context[photo],
        )

    def photo(self, photo: int) -> Photo:
        people = self.people_in(photo)
        return Photo(
            index=photo,
            photo_id=self.photo_id(photo),
            event=self.event_of(photo),
            kind=Kind(self.photo_kind[photo]),
            people=people,
            named=min(MAX_NAMED, len(people)),
            caption=self.caption(photo),
            image_url=self.image_url(photo),
            page_url=self.page_url(photo),
        )

    def photos_of_event(self, event: int) -> range:
        return range(self.event_start[event], self.event_start[event + 1])

    # ---- the recogniser's view -------------------------------------------------------------------

    def sightings(self, photo: int) -> list[Sighting]:
        """What the noise model makes of each true face in `photo` (missed faces left out)."""
        people = self.people_in(photo)
        kind = Kind(self.photo_kind[photo])
        base = combine(self._base ^ 0x5EED, photo)
        found: list[Sighting] = []
        for position, person in enumerate(people):
            outcome, confidence, u = self.noise.judge(combine(base, person), kind, self.world.fame[person])
            if outcome is Outcome.RECOGNISED:
                found.append(Sighting(person, person, confidence, position))
            elif outcome is Outcome.LOOKALIKE:
                found.append(Sighting(person, self._lookalike(photo, people, u), confidence, position))
        return found

    def _lookalike(self, photo: int, people: tuple[int, ...], u: float) -> int:
        """Someone who is not in the photo: half the time a co-star from the same event."""
        cast = self.world.members[self.event_of(photo)]
        same_event = self.noise.lookalike_same_event
        if u < same_event and len(cast) > len(people):
            i = int(u / same_event * len(cast))
            while cast[i] in people:
                i = (i + 1) % len(cast)
            return cast[i]
        size = self.world.size
        pick = int(u * size) % size
        while pick in people and size > len(people):
            pick = (pick + 1) % size
        return pick

    # ---- ground truth (benchmarks and tests only) --------------------------------------------

    def truth(self, image_url: str) -> frozenset[str]:
        """Celebrity ids of everyone truly in the photo at `image_url`."""
        photo = self.photo_from_url(image_url)
        return frozenset(self.world.celebrity_id(p) for p in self.people_in(photo))

    def people_named(self, key: str) -> list[PersonRecord]:
        """Everyone whose name normalises to `key` (namesakes included), most appearances first."""
        people = self.world.by_key.get(name_key(key), [])
        return [self.world.person(p) for p in sorted(people, key=lambda p: (-self.world.fame[p], p))]

    def knows(self, name: str) -> bool:
        return bool(self.world.find(name))

    def person_index(self, name_or_id: str) -> int:
        """A person by celebrity id, world spelling or display name (namesakes: the most famous)."""
        if name_or_id.startswith("vd-"):
            found = self.world.by_celebrity_id(name_or_id)
            if found is not None:
                return found
        people = self.world.find(name_or_id)
        if not people:
            raise UnknownPerson(f"{name_or_id[:200]!r} is not in this world")
        return people[0]

    def celebrity_id(self, name: str) -> str:
        return self.world.celebrity_id(self.person_index(name))

    @cached_property
    def ranker(self) -> Ranker:
        return Ranker(self)

    def findable(self, page: int = DEFAULT_PAGE) -> bytearray:
        """1 for every photo some discovery query returns within its first `page` results: a photo
        of a name with at most `page` photos, or one ranked that high for one of its names."""
        mask = self._findable.get(page)
        if mask is None:
            mask = bytearray(self.photo_count)
            world, named_in = self.world, self.named_in
            for people in world.by_key.values():
                photos = [photo for person in people for photo in named_in[person]]
                if len(photos) <= page:
                    for photo in photos:
                        mask[photo] = 1
                    continue
                name = world.name(people[0])
                for template in DISCOVERY_TEMPLATES:
                    for photo in self.ranker.rank(template.format(a=name), page):
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
        adjacency: list[set[int]] = [set() for _ in range(self.world.size)]
        start = self.photo_start
        reachable = self.findable(page) if searchable else bytearray(b"\x01") * self.photo_count
        for photo in range(self.photo_count):
            if start[photo + 1] - start[photo] < 2:
                continue
            seen = [
                (s.person, s.position < MAX_NAMED)
                for s in self.sightings(photo)
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
            found = self.world.by_celebrity_id(name)
            if found is not None:
                return [found]
        people = self.world.find(name)
        if not people:
            raise UnknownPerson(f"{name[:200]!r} is not in this world")
        return people

    @cached_property
    def stats(self) -> dict[str, int]:
        kinds = [0, 0, 0]
        for kind in self.photo_kind:
            kinds[kind] += 1
        return {
            "photos": self.photo_count,
            "portraits": kinds[Kind.PORTRAIT],
            "groups": kinds[Kind.GROUP],
            "crowds": kinds[Kind.CROWD],
            "faces": len(self.photo_people),
        }


def _event_photos(
    rng_seed: int,
    cast: tuple[int, ...],
    fame: list[int],
    neg_fame: list[int],
    star: list[float],
    params: PhotoParameters,
    sizes: list[int],
    cumulative: list[float],
    contexts: int,
) -> tuple[list[Kind], list[tuple[int, ...]], list[int]]:
    """The photos of one event: their kinds, people (caption order) and caption contexts."""
    rand = random.Random(rng_seed).random
    # Caption order and leads: most appearances first, ties in credit order.
    ranked = sorted(cast, key=neg_fame.__getitem__)  # stable: ties keep credit order
    rank = {person: r for r, person in enumerate(ranked)}.__getitem__
    n = len(ranked)
    n_leads = min(n, params.leads_max, params.leads_base + n // params.leads_per_cast)
    leads = ranked[:n_leads]
    kinds: list[Kind] = []
    groups: list[tuple[int, ...]] = []
    size_total = cumulative[-1]

    base, per_star = params.portrait_base, params.portrait_per_star
    portraits = [int(base + per_star * star[fame[p]] + rand()) for p in ranked]
    for person, count in zip(ranked, portraits, strict=True):
        if count:
            kinds += [Kind.PORTRAIT] * count
            groups += [(person,)] * count

    def shuffled(slots: list[int]) -> list[int]:
        keys = [rand() for _ in slots]  # random() only: its sequence is stable across Pythons
        return [slots[i] for i in sorted(range(len(slots)), key=keys.__getitem__)]

    def close(people: list[int]) -> None:
        size = len(people)
        kinds.append(Kind.PORTRAIT if size == 1 else Kind.GROUP if size <= 4 else Kind.CROWD)
        groups.append(tuple(sorted(people, key=rank)))

    if n_leads >= 2:  # the leads photographed together
        base, per_star = params.lead_slots_base, params.lead_slots_per_star
        slots = [p for p in leads for _ in range(int(base + per_star * star[fame[p]] + rand()))]
        pending = shuffled(slots)
        while pending:
            people = _take(pending, [], sizes[bisect_right(cumulative, rand() * size_total)])
            if len(people) == 1:  # a lead left over with nobody else: photograph them with the top lead
                people.append(leads[0] if people[0] != leads[0] else leads[1])
            close(people)
    elif not groups:  # a one-person event still has its photo
        kinds.append(Kind.PORTRAIT)
        groups.append((ranked[0],))

    rest = ranked[n_leads:]
    if rest:  # everyone else: with one lead in a small group, now and then in a crowd shot
        base, per_star = params.cover_slots_base, params.cover_slots_per_star
        slots = [p for p in rest for _ in range(int(base + per_star * star[fame[p]] + rand()))]
        lead_edges: list[float] = []
        total = 0.0
        for person in leads:  # leads are picked in proportion to 1 + star
            total += 1.0 + star[fame[person]]
            lead_edges.append(total)
        pending = shuffled(slots)
        crowd_chance = params.crowd_chance if n >= params.crowd_min_cast else -1.0
        span = params.crowd_max - params.crowd_min + 1
        while pending:
            lead = leads[bisect_right(lead_edges, rand() * total)]
            if rand() < crowd_chance:
                people = [lead]
                if n_leads > 1 and rand() < 0.5:
                    second = leads[bisect_right(lead_edges, rand() * total)]
                    if second != lead:
                        people.append(second)
                close(_take(pending, people, params.crowd_min + int(rand() * span)))
                continue
            # the common case, inlined: one lead and one to three others (leads outrank the rest)
            want = sizes[bisect_right(cumulative, rand() * size_total)] - 1
            drawn = pending[-want:]
            del pending[-want:]
            if len(drawn) > 1:
                unique = list(dict.fromkeys(drawn))
                if len(unique) < len(drawn):  # someone drawn twice: the spare slot waits
                    for person in unique:
                        drawn.remove(person)
                    pending += drawn
                    drawn = unique
                drawn.sort(key=rank)
            kinds.append(Kind.GROUP)
            groups.append((lead, *drawn))
    return kinds, groups, [int(rand() * contexts) for _ in kinds]


def _take(pending: list[int], people: list[int], size: int) -> list[int]:
    """Fill `people` up to `size` from the end of `pending` (already shuffled). Anyone drawn twice
    (a person with several slots) goes back to wait for a later photo."""
    want = size - len(people)
    if want <= 0 or not pending:
        return people
    drawn = pending[-want:]
    del pending[-want:]
    merged = list(dict.fromkeys(people + drawn))
    if len(merged) < len(people) + len(drawn):
        seen = set(people)
        for person in drawn:
            if person in seen:
                pending.append(person)
            else:
                seen.add(person)
    return merged
