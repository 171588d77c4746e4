"""The run's leads, seen by one step: every title of every page of results it read, who each names,
and what the planner suspects. Leads decide where to spend; only a recognised photo makes a link.

Built once per step from run memory (RunLeads): a few dozen items at most, one per page read, so a
step reads them in one query and works in memory. Title parsing is cached per process.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from visual_degrees.domain.captions import (
    event_in_title,
    event_words,
    people_in_title,
    same_event,
    shows_unnamed,
)
from visual_degrees.domain.models import ImageHit
from visual_degrees.domain.paths import edge_id
from visual_degrees.domain.queries import pair_query
from visual_degrees.domain.strategy import Knobs
from visual_degrees.domain.titles import portrait
from visual_degrees.search.observe import page_size
from visual_degrees.search.scope import SearchScope

# Guest photos of one pair recognised, after its pair search if it has one (leads.guests_for).
GUEST_TRIES = 2


@dataclass
class Photo:
    """One result: its image, page and title, the people its title names, and the pages it came on."""

    url: str
    page_url: str
    title: str
    keys: tuple[str, ...]
    unnamed: bool  # the title says it shows more people than it names
    queries: list[str] = field(default_factory=list)

    @property
    def hit(self) -> ImageHit:
        return ImageHit(image_url=self.url, page_url=self.page_url, title=self.title)

    @cached_property
    def event(self) -> frozenset[str]:
        return event_words(self.title)

    @cached_property
    def portrait(self) -> bool:
        """Its title says it shows one person: it can prove no link, so it is never recognised."""
        return portrait(self.title)


@dataclass(frozen=True)
class Hunch:
    """The planner's belief that two people met (at `film`, if it said): a lead, never a link."""

    a: str
    b: str
    film: str = ""
    source: str = "planner"

    @cached_property
    def event(self) -> frozenset[str]:
        return event_words(self.film) if self.film else frozenset()


class Captions:
    """What the pages of one run say: photos, who titles name, who is named together. Pages never
    change once read, so this part is kept per run in the process and only new pages are added."""

    def __init__(self) -> None:
        self.photos: dict[str, Photo] = {}
        self.of: dict[str, list[str]] = defaultdict(list)  # person key -> photos whose title names them
        self.with_guests: dict[str, list[str]] = defaultdict(list)  # ... and shows people it does not name
        self.names: dict[str, str] = {}  # person key -> a display name read from a title
        self.adjacent: dict[str, dict[str, list[str]]] = defaultdict(dict)  # x -> y -> photos naming both
        # event -> who a title names there, and whom a title names alone "with guests" there: a
        # caption naming only its first person is a lead for everyone else seen at that event (one
        # naming several and "others" is not: a crowd's caption would tie everyone to everyone)
        self.named_at: dict[str, set[str]] = defaultdict(set)
        self.hosts_at: dict[str, set[str]] = defaultdict(set)
        self.events_of: dict[str, set[str]] = defaultdict(set)  # person key -> events named at
        self.subjects: dict[str, set[str]] = defaultdict(set)  # person key -> queries about them
        self.queries: set[str] = set()
        self.page_len: dict[str, int] = {}
        self.page_subjects: dict[str, list[str]] = {}

    def add(self, page: dict[str, Any], ends: tuple[str, ...] = ()) -> None:
        query = str(page["query"])
        hits = page.get("hits", [])
        subjects = [str(key) for key in page.get("subjects", [])]
        self.queries.add(query)
        self.page_len[query] = len(hits)
        self.page_subjects[query] = subjects
        for key in subjects:
            self.subjects[key].add(query)
        # Titles often give a surname alone ("Bacon and Sinise"): on a page about Kevin Bacon (or
        # in a run from or to him), "Bacon" is him.
        surnames: dict[str, str | None] = {}
        for key in (*ends, *subjects):
            last = key.rpartition(" ")[2]
            if last != key:
                surnames[last] = key if surnames.get(last, key) == key else None
        for url, page_url, title in hits:
            photo = self.photos.get(url)
            if photo is None:
                people = tuple((surnames.get(key) or key, written) for key, written in people_in_title(title))
                keys = tuple(dict.fromkeys(key for key, _ in people))
                photo = self.photos[url] = Photo(url, page_url, title, keys, shows_unnamed(title))
                for key, written in people:
                    self.names.setdefault(key, written)
                event = event_in_title(title)
                for i, x in enumerate(keys):
                    self.of[x].append(url)
                    if event:
                        self.named_at[event].add(x)
                        self.events_of[x].add(event)
                        if photo.unnamed and len(keys) == 1:
                            self.hosts_at[event].add(x)
                    if photo.unnamed:
                        self.with_guests[x].append(url)
                    for y in keys[i + 1 :]:
                        self.adjacent[x].setdefault(y, []).append(url)
                        self.adjacent[y].setdefault(x, []).append(url)
            photo.queries.append(query)


_CACHED_RUNS = 256  # per store
# store -> run id -> its Captions. Keyed by the store object itself (weakly), never by id(): a
# store freed and another made at the same address under the same run id must not inherit its pages.
_captions: weakref.WeakKeyDictionary[object, OrderedDict[str, Captions]] = weakref.WeakKeyDictionary()
_captions_lock = threading.Lock()


def pair_searched(queries: Iterable[str], x: str, y: str) -> bool:
    """Is one of `queries` the pair's own query (names x and y as `pair_query` writes them, either
    order), or a chain's query naming them next to each other ("W X Y" or "X Y Z")?"""
    pairs = (pair_query(x, y), pair_query(y, x))
    return any(q == p or q.startswith(f"{p} ") or q.endswith(f" {p}") for p in pairs for q in queries)


def captions_of(
    store: object, run_id: str, pages: list[dict[str, Any]], ends: tuple[str, ...] = ()
) -> Captions:
    """The Captions of run `run_id` in `store`, reusing what this process already read of it: pages
    never change, so only pages it has not seen are added. Anything that does not match (a page it
    holds that the store lacks, or of another length) means the run was written anew: start again."""
    lengths = {str(page["query"]): len(page.get("hits", [])) for page in pages}
    with _captions_lock:
        runs = _captions.setdefault(store, OrderedDict())
        found = runs.pop(run_id, None)
    if found is None or any(lengths.get(q) != n for q, n in found.page_len.items()):
        found = Captions()
    for page in pages:
        if page["query"] not in found.queries:
            found.add(page, ends)
    with _captions_lock:
        runs[run_id] = found
        while len(runs) > _CACHED_RUNS:
            runs.popitem(last=False)
    return found


class LeadBook:
    """The leads one step works with, read for the caption-lead strategy with its knobs."""

    def __init__(self, scope: SearchScope, knobs: Knobs) -> None:
        self.scope = scope
        self.knobs = knobs
        leads = scope.leads
        state = scope.state
        ends = (state.person_a.key, state.person_b.key)
        captions = captions_of(scope.ctx.memory, state.run_id, leads.pages(), ends)
        self.photos = captions.photos
        self.of = captions.of
        self.with_guests = captions.with_guests
        self._events_seen: dict[str, list[frozenset[str]]] = {}  # guest_photos' memo
        self.adjacent = captions.adjacent
        self.named_at = captions.named_at
        self.hosts_at = captions.hosts_at
        self.events_of = captions.events_of
        self.subjects = captions.subjects
        self.queries = captions.queries
        self.page_len = captions.page_len
        self.page_subjects = captions.page_subjects
        self.names: dict[str, str] = dict(captions.names)
        self.hunches: dict[str, dict[str, Hunch]] = defaultdict(dict)
        self.costs: dict[tuple[str, str], float | None] = {}  # chains.pair_cost's memo
        self.looked = leads.looked()
        self.quota_used: dict[str, int] = {}
        for page in self.looked.values():
            self.quota_used[page] = self.quota_used.get(page, 0) + 1
        self.nolink = leads.nolinks()
        for data in leads.hunches():
            hunch = Hunch(a=data["a"], b=data["b"], film=data.get("film", ""), source=data.get("source", ""))
            self.hunches[hunch.a][hunch.b] = hunch
            self.hunches[hunch.b][hunch.a] = hunch
            for key, name in ((hunch.a, data.get("nameA")), (hunch.b, data.get("nameB"))):
                if name:
                    self.names.setdefault(key, name)

    def reread(self) -> LeadBook:
        """The leads again, after this step read a page or recognised photos."""
        return LeadBook(self.scope, self.knobs)

    # ---- what may still be recognised ---------------------------------------------------------

    def quota_left(self, query: str) -> int:
        return self.scope.options.images_per_search - self.quota_used.get(query, 0)

    def available(self, url: str) -> bool:
        """Not looked at yet, and some page it came on still has recognitions to spend."""
        return url in self.open

    @cached_property
    def open(self) -> frozenset[str]:
        spent = {q for q in self.queries if self.quota_left(q) <= 0}
        return frozenset(
            url
            for url, photo in self.photos.items()
            if url not in self.looked and not spent.issuperset(photo.queries)
        )

    def page_for(self, url: str) -> str | None:
        """The page whose recognitions a photo is charged to: the latest with some left."""
        photo = self.photos.get(url)
        if photo is None:
            return None
        return next((q for q in reversed(photo.queries) if self.quota_left(q) > 0), None)

    def photos_of_pair(self, x: str, y: str) -> list[str]:
        """Photos whose title names both, still available, fewest people first (smaller groups
        are likelier to show both faces clearly)."""
        urls = [u for u in self.adjacent.get(x, {}).get(y, ()) if u in self.open]
        return sorted(urls, key=lambda u: (len(self.photos[u].keys), u))

    def has_open_photo(self, x: str, y: str) -> bool:
        return any(u in self.open for u in self.adjacent.get(x, {}).get(y, ()))

    def guest_photos(self, named: str, other: str, *, tried: bool = False) -> list[str]:
        """Photos naming `named` with people the title does not name, at an event `other` was seen
        at (another title names them there) or was said to be at (the planner's film): `other` may be
        one of the unnamed. With `tried`, those of them recognised already instead."""
        candidates = self.with_guests.get(named)
        if not candidates:
            return []
        events = self._events_seen.get(other)
        if events is None:
            # one entry per event (a hub is named at the same premiere in many photos)
            events = self._events_seen[other] = list(
                dict.fromkeys(self.photos[u].event for u in self.of.get(other, ()))
            )
        hunch = self.hunches.get(named, {}).get(other)
        if hunch is not None and hunch.event:
            events = [*events, hunch.event]
        if not events:
            return []
        found = []
        for url in candidates:
            photo = self.photos[url]
            usable = other not in photo.keys and (url in self.looked if tried else self.available(url))
            if usable and any(same_event(photo.event, event) for event in events):
                found.append(url)
        return found

    def photos_for(self, x: str, y: str) -> list[str]:
        """What to recognise to prove x–y: photos naming both, else photos where one of them may be
        an unnamed guest at an event the other was at."""
        both = self.photos_of_pair(x, y)
        if both:
            return both
        return self.guests_for(x, y)

    def guests_for(self, x: str, y: str) -> list[str]:
        """Guest photos still worth recognising for x–y: none while the pair's own search is still
        to come (a title or the planner pairs them), then GUEST_TRIES of them. Few show the one
        guest wanted (on cast.G's realistic web about one try in nine proved its pair, against a
        search at five recognitions' price that ranks photos naming both first), so they are what
        is left after the search, not what comes before it."""
        found = self.guest_photos(x, y) + self.guest_photos(y, x)
        if not found:
            return found
        if (y in self.adjacent.get(x, {}) or y in self.hunches.get(x, {})) and not self.searched_pair(x, y):
            return []
        tried = len(self.guest_photos(x, y, tried=True)) + len(self.guest_photos(y, x, tried=True))
        return found if tried < GUEST_TRIES else []

    # ---- people ---------------------------------------------------------------------------------

    def named_count(self, key: str) -> int:
        """How many titles read so far name this person: a sign of how photographed they are."""
        return len(self.of.get(key, ()))

    def neighbours(self, key: str) -> set[str]:
        return self.adjacent.get(key, {}).keys() | self.hunches.get(key, {}).keys() | self.met_at_events(key)

    def met_at_events(self, key: str) -> set[str]:
        """People seen at an event where a caption names `key` with unnamed guests, or where `key`
        was seen and a caption names someone else with unnamed guests: either may be a guest in the
        other's photo (a caption naming only its first person leads to everyone else there)."""
        found: set[str] = set()
        for event in self.events_of.get(key, ()):
            hosts = self.hosts_at.get(event, set())
            found |= self.named_at[event] if key in hosts else hosts
        found.discard(key)
        return found

    def searched(self, key: str) -> bool:
        """Has a page been read about them: one about them alone, or one about them and another
        that named them with somebody (a pair page that named them with nobody leaves them open)."""
        queries = self.subjects.get(key, ())
        return any(len(self.page_subjects[q]) == 1 for q in queries) or (
            bool(queries) and bool(self.adjacent.get(key))
        )

    def complete(self, key: str) -> bool:
        """Did a page about them come back short of a full page? An engine fills a page with what
        matches any of the query's names, so every photo it has for their name is in, and another
        page about them would only repeat it."""
        size = self.page_size
        return any(self.page_len.get(q, 0) < size for q in self.subjects.get(key, ()))

    @cached_property
    def page_size(self) -> int:
        return page_size(self.scope)

    def blocked(self, x: str, y: str) -> bool:
        return edge_id(x, y) in self.nolink

    def failed_pairs(self, key: str) -> int:
        """How many of this person's pairs were given up on (no photo found of them together)."""
        return self._failed.get(key, 0)

    @cached_property
    def _failed(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for pair in self.nolink:
            for key in pair.split("|"):
                counts[key] = counts.get(key, 0) + 1
        return counts

    def searched_pair(self, x: str, y: str) -> bool:
        """Was the pair's own query ("X Y", either order) read already, or a chain's query naming
        them next to each other ("W X Y" or "X Y Z": chains.chain_query)?"""
        return pair_searched(self.queries, self.name(x), self.name(y))

    def name(self, key: str) -> str:
        """A person's display name: A and B as asked, else as a title (or the planner) wrote it,
        else as the recogniser named them."""
        state = self.scope.state
        for person in (state.person_a, state.person_b):
            if person.key == key:
                return person.name
        found = self.names.get(key)
        if found is None:
            found = self.names[key] = self.scope.person(key).name
        return found

    @cached_property
    def doubted(self) -> set[str]:
        return self.scope.frontier.doubted()
