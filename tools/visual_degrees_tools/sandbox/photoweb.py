"""The simulated photo web: the photos each event produced, their captions, URLs and ground truth.

Derived deterministically from a world and a seed (docs/sandbox.md gives every figure's reason):
- every credited person appears in at least one photo of each event they are in;
- the most famous people of an event (its leads) get solo portraits and are photographed together;
- everyone else is photographed in a small group with one lead, or in an occasional crowd shot;
- captions name at most three people, the most famous first; the rest go unnamed.

That is the clean web. A realistic web (pages.py) draws more solo portraits, writes agency captions
that name some of the people or none, and republishes photos on other pages (news, people's pages,
galleries) under other titles: there a page, not a photo, is what search finds and a URL names.

How the photos are drawn is photos.py; the ground truth (who is truly in a photo, what could be
proven: ground_truth.py) is for benchmarks and tests, never for steps: steps see only what the
ports return.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple, TypeVar, cast
from weakref import WeakKeyDictionary

from visual_degrees.domain.errors import ProviderError, UnknownPerson
from visual_degrees.domain.names import name_key
from visual_degrees_tools.sandbox.bulk import collector_paused
from visual_degrees_tools.sandbox.captions import (
    MAX_NAMED,
    EventKind,
    Kind,
    caption,
    display_title,
    event_kind,
)
from visual_degrees_tools.sandbox.hashing import combine, stable_hash
from visual_degrees_tools.sandbox.noise import DEFAULT_NOISE, NoiseModel, Outcome
from visual_degrees_tools.sandbox.pages import (
    PageParameters,
    PageTable,
    agency_caption,
    generate_pages,
    page_title,
)
from visual_degrees_tools.sandbox.photos import DEFAULT_PHOTOS, PhotoParameters, generate_photos
from visual_degrees_tools.sandbox.world import PersonRecord, World

SANDBOX_HOST = "sandbox.visual-degrees.invalid"  # .invalid (RFC 2606): can never resolve live
BASE_URL = f"https://{SANDBOX_HOST}"
_IMAGE_PREFIX = f"{BASE_URL}/photos/"
DEFAULT_PAGE = 5  # images per search, the workflow's default (RunOptions.images_per_search)
_ID_MASK = (1 << 40) - 1
_ID_ODD = 0x9E3779B97F  # odd, so multiplying by it permutes 40-bit numbers
_ID_ODD_INVERSE = pow(_ID_ODD, -1, 1 << 40)


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
        pages: PageParameters | None = None,
    ) -> None:
        self.world = world
        self.seed = seed
        self.params = photos
        self.noise = noise
        self.page_model = pages  # None: the clean web, one page per photo titled by its caption
        self.pages: PageTable | None = None
        self.base_hash = stable_hash("photo-web", seed)
        self._id_key = stable_hash("photo-id", seed) & _ID_MASK
        self.event_kinds = bytes(event_kind(t) for t in world.titles)
        self._titles: list[str | None] = [None] * len(world.titles)
        with collector_paused():
            self._build()

    @cached_property
    def identity(self) -> str:
        """Which photo web this is: evidence and provider answers from one web are never used in
        another (another world, seed or photo model has other photos behind the same URLs)."""
        parts: tuple[object, ...] = (self.world.fingerprint, self.seed, repr(self.params), repr(self.noise))
        if self.page_model is not None:
            parts += (self.page_model.fingerprint(),)
        return "sandbox-" + format(stable_hash("web", *parts), "016x")

    @property
    def mode(self) -> str:
        """ "clean" (every photo on one page, captioned by who is in it) or "realistic" (pages.py)."""
        return "clean" if self.page_model is None else "realistic"

    # ---- generation ------------------------------------------------------------------------------

    def _build(self) -> None:
        table = generate_photos(self.world, self.base_hash, self.event_kinds, self.params)
        self.photo_kind = table.kind
        self.photo_context = table.context
        self.photo_keywords = table.keywords
        self.photo_start = table.start
        self.photo_people = table.people
        self.event_start = table.event_start
        self._named_photos = table.named_in
        if self.page_model is not None:
            self.pages = generate_pages(self, self.page_model)

    @cached_property
    def named_in(self) -> list[list[int]]:
        """Per person: the photos some page names them on (a search for them can return these)."""
        if self.pages is None:
            return self._named_photos
        photo_of = self.pages.photo
        return [sorted({photo_of[page] for page in pages}) for pages in self.pages.named_in]

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
        """The photo an id names (the photo a page of that id shows), or None if there is none."""
        page = self.page_index(photo_id)
        return page if page is None or self.pages is None else self.pages.photo[page]

    def page_index(self, page_id: str) -> int | None:
        """The page an id names, or None. A photo's own page has the photo's id (in a clean web,
        the only page); its copies on other pages have ids of their own."""
        if len(page_id) != 10:
            return None
        try:
            number = int(page_id, 16)
        except ValueError:
            return None
        page = ((number ^ self._id_key) * _ID_ODD_INVERSE) & _ID_MASK
        if page >= self.page_count or self.photo_id(page) != page_id.lower():
            return None
        return page

    # ---- pages: what search finds (a clean web has one page per photo, numbered as the photo) -----

    @property
    def page_count(self) -> int:
        return self.photo_count if self.pages is None else self.pages.count

    def page_photo(self, page: int) -> int:
        return page if self.pages is None else self.pages.photo[page]

    def page_title(self, page: int) -> str:
        """The page's title, which a search result shows: a clean web's photo caption."""
        return self.caption(page) if self.pages is None else page_title(self, page)

    def pages_naming(self, person: int) -> list[int] | array[int]:
        """The pages whose text names `person`: what a search for their name can find."""
        return self._named_photos[person] if self.pages is None else self.pages.named_in[person]

    def image_url(self, page: int) -> str:
        return f"{_IMAGE_PREFIX}{self.photo_id(page)}.svg"

    def page_url(self, page: int) -> str:
        return f"{_IMAGE_PREFIX}{self.photo_id(page)}"

    def page_from_url(self, url: str) -> int:
        """The page of a sandbox image URL; ProviderError (as a 404 would be) for anything else."""
        if not isinstance(url, str) or not url.startswith(_IMAGE_PREFIX) or not url.endswith(".svg"):
            raise ProviderError(f"not a sandbox image URL: {str(url)[:120]!r}")
        page = self.page_index(url[len(_IMAGE_PREFIX) : -len(".svg")])
        if page is None:
            raise ProviderError(f"no such image (HTTP 404): {url[:120]!r}")
        return page

    def photo_from_url(self, url: str) -> int:
        """The photo at a sandbox image URL (every copy of a photo is the same image)."""
        return self.page_photo(self.page_from_url(url))

    def title(self, event: int) -> str:
        cached = self._titles[event]
        if cached is None:
            cached = self._titles[event] = display_title(self.world.titles[event])
        return cached

    def caption(self, photo: int) -> str:
        """The photo's caption as its agency wrote it (the title of its own page)."""
        if self.pages is not None:
            return agency_caption(self, photo)
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
            named=min(MAX_NAMED, len(people)) if self.pages is None else len(self.pages.agency_named[photo]),
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
        base = combine(self.base_hash ^ 0x5EED, photo)
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

    # ---- people --------------------------------------------------------------------------------

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
    def stats(self) -> dict[str, int]:
        kinds = [0, 0, 0]
        for kind in self.photo_kind:
            kinds[kind] += 1
        stats = {
            "photos": self.photo_count,
            "portraits": kinds[Kind.PORTRAIT],
            "groups": kinds[Kind.GROUP],
            "crowds": kinds[Kind.CROWD],
            "faces": len(self.photo_people),
        }
        if self.pages is not None:
            stats["pages"] = self.pages.count
        return stats


_DERIVED: WeakKeyDictionary[PhotoWeb, dict[object, object]] = WeakKeyDictionary()
D = TypeVar("D")


def derived(web: PhotoWeb, kind: Callable[[PhotoWeb], D]) -> D:
    """The one `kind(web)` of `web`, built on first use and kept as long as the web (a ranker, the
    ground truth: costly to build, shared by every run over the web)."""
    made = _DERIVED.setdefault(web, {})
    if kind not in made:
        made[kind] = kind(web)
    return cast(D, made[kind])
