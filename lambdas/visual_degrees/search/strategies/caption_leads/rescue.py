"""Rescuing an end no photo links to anyone yet: pages about them already read, then the events
they were seen at.

Before any page is bought, the photos already read under titles naming the end alone that do not
say they show one person ("X - Pictures and Photos", "X: latest news") are recognised: such a title
is about the person, not the photo, which may show them beside someone nobody names (own_photos).
Then a caption that names the end says where they were ("… at the premiere of Apollo 13 (1995)"); the
planner may say which films they were in. Searching such an event brings up its other photos, and
its crowd shots show people no caption names: recognising those is how an end that only a bit part
put on camera gets a link. Pages are bought within the run's budget, at most EVENT_SEARCHES per end;
which photos to recognise comes from the page itself (the ones showing unnamed people: crowds such
as "Cast and crew attend …" first, then "… and guests", then "… and a guest")."""

from __future__ import annotations

from visual_degrees.domain.captions import dated_event, event_in_title, unnamed_faces
from visual_degrees.domain.queries import event_query
from visual_degrees.search.strategies.caption_leads.leads import LeadBook

EVENT_SEARCHES = 3  # event pages one person's rescue may read
OWN_PHOTOS = 10  # photos titled with an end's name alone that its rescue may recognise
SIDE_SEARCHES = 4  # event pages the sides nobody is left to search on may read, in all


def events_of(book: LeadBook, key: str) -> list[tuple[str, str]]:
    """Events `key` was seen at (a title naming them) or was said to be at (a planner's film),
    with where the run learnt it, seen first."""
    found: dict[str, str] = {}
    for url in book.of.get(key, ()):
        event = event_in_title(book.photos[url].title)
        if event:
            found.setdefault(event, "a caption names them there")
    for hunch in book.hunches.get(key, {}).values():
        event = dated_event(hunch.film) if hunch.film else None
        if event:
            found.setdefault(event, "the planner believes they were in it")
    return list(found.items())


def _enabled(book: LeadBook) -> bool:
    return book.knobs.event_search


def _unsearched(book: LeadBook, events: list[tuple[str, str]]) -> list[str] | None:
    """[event, why]: the first of `events` whose page was not read, unless EVENT_SEARCHES were."""
    if sum(event_query(event) in book.queries for event, _ in events) >= EVENT_SEARCHES:
        return None
    return next(([event, why] for event, why in events if event_query(event) not in book.queries), None)


def end_event(book: LeadBook, ends: list[str]) -> list[str] | None:
    """[end, event, why] to search for the first of `ends` with an event left, or None when each
    has nothing left or spent its share (EVENT_SEARCHES pages)."""
    if not _enabled(book):
        return None
    return _first(book, ends, {key: events_of(book, key) for key in ends})


def _first(book: LeadBook, people: list[str], events: dict[str, list[tuple[str, str]]]) -> list[str] | None:
    for key in people:
        found = _unsearched(book, events[key])
        if found:
            return [key, *found]
    return None


def photos_at(book: LeadBook, query: str) -> list[str]:
    """Photos of an event page that show people their titles do not name, but not one unnamed guest
    alone ("A guest attends …"): those whose titles promise the most faces they do not name first
    (captions.unnamed_faces: a crowd, then guests, then one guest), then the most named, then as
    ranked: the person sought is one of the unnamed."""
    page = [
        url
        for url, photo in book.photos.items()
        if query in photo.queries and photo.unnamed and not photo.portrait and book.available(url)
    ]
    # stable: the page's order among equals
    return sorted(page, key=lambda url: (-unnamed_faces(book.photos[url].title), -len(book.photos[url].keys)))


def side_event(book: LeadBook, people: list[str]) -> list[str] | None:
    """[person, event, why] to search for the sides nobody is left to search on: an event of their
    people (nearest an end first), within SIDE_SEARCHES pages in all."""
    if not _enabled(book):
        return None
    events = {key: events_of(book, key) for key in people}
    read = {event for seen in events.values() for event, _ in seen if event_query(event) in book.queries}
    if len(read) >= SIDE_SEARCHES:
        return None
    return _first(book, people, events)


def own_photos(book: LeadBook, ends: list[str], limit: int) -> list[str] | None:
    """[end, url, ...]: photos on pages already read whose titles name the first of `ends` with
    nobody else and do not say they show one person ("X - Pictures and Photos", "X: latest news"):
    such a page is about them, not about its photo, which may show them beside someone no title
    names. No search, a recognition each, at most OWN_PHOTOS an end, as the pages ranked them."""
    for key in ends:
        own = [
            url
            for url in book.of.get(key, ())
            if book.photos[url].keys == (key,) and not book.photos[url].portrait
        ]
        left = OWN_PHOTOS - sum(url in book.looked for url in own)
        urls = [url for url in own if book.available(url)][: min(limit, left)]
        if urls:
            return [key, *urls]
    return None
