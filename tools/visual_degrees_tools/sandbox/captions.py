"""How the simulated photo sites write captions: `Kevin Bacon and Tom Hanks at the premiere of
Apollo 13 (1995)`. Captions name at most three people, the most famous first, as agency captions do.

Each context phrase carries the search keywords it contains (DISCOVERY_TEMPLATES of
domain/queries.py use "premiere", "cast", "red carpet", "event", "with"), so a query's keywords
can nudge ranking towards photos that match them.
"""

from __future__ import annotations

import re
from enum import IntEnum

KEYWORDS: tuple[str, ...] = ("premiere", "red carpet", "cast", "event", "with", "together")
_BIT = {word: 1 << i for i, word in enumerate(KEYWORDS)}
MAX_NAMED = 3


class Kind(IntEnum):
    PORTRAIT = 0  # one person
    GROUP = 1  # two to four people
    CROWD = 2  # five or more: a cast photo, a stage at a gala


class EventKind(IntEnum):
    FILM = 0
    GALA = 1  # galas, awards, benefits
    FESTIVAL = 2


def keyword_bits(words: set[str] | frozenset[str]) -> int:
    bits = 0
    for word in words:
        bits |= _BIT.get(word, 0)
    return bits


def _context(template: str, *words: str) -> tuple[str, int]:
    return template, keyword_bits(set(words))


# (phrase with {t} for the title, keywords it contains). Order is part of the seeded photo web.
CONTEXTS: dict[EventKind, tuple[tuple[str, int], ...]] = {
    EventKind.FILM: (
        _context("at the premiere of {t}", "premiere"),
        _context("on the red carpet at the premiere of {t}", "premiere", "red carpet"),
        _context("on the set of {t}"),
        _context("at a press event for {t}", "event"),
        _context("at a photocall for {t}"),
    ),
    EventKind.GALA: (
        _context("at the {t}"),
        _context("on the red carpet at the {t}", "red carpet"),
        _context("at the {t} after-party", "event"),
        _context("at a charity event at the {t}", "event"),
    ),
    EventKind.FESTIVAL: (
        _context("at the {t}"),
        _context("on the red carpet at the {t}", "red carpet"),
        _context("at a premiere during the {t}", "premiere"),
        _context("at a press event at the {t}", "event"),
    ),
}

# Crowd shots: a cast photo for films, a group on stage otherwise.
CROWD_CONTEXTS: dict[EventKind, tuple[str, int]] = {
    EventKind.FILM: _context("The cast of {t} at its premiere: {names} and others", "cast", "premiere"),
    EventKind.GALA: _context("{names} and other guests on stage at the {t}", "event"),
    EventKind.FESTIVAL: _context("{names} and the festival jury at the {t}", "event"),
}

_ARTICLE = re.compile(r"^(?P<name>.+), (?P<article>The|A|An|Les|La|Le|Il|El|Die|Der|Das|L') (?P<rest>\(.*)$")
_MARKER = re.compile(r"\s*\{\{[^}]*\}\}")  # IMDb's {{SUSPENDED}} and the like
_GALA = re.compile(r"\b(gala|awards?|benefit|ball|honou?rs|ceremony|dinner)\b", re.IGNORECASE)
_FESTIVAL = re.compile(r"\b(festival|fest|biennale|showcase)\b", re.IGNORECASE)


def display_title(title: str) -> str:
    """`Matrix, The (1999)` -> `The Matrix (1999)`; drops IMDb markers such as {{SUSPENDED}}."""
    title = _MARKER.sub("", title).strip()
    match = _ARTICLE.match(title)
    if match:
        article = match["article"]
        sep = "" if article.endswith("'") else " "
        title = f"{article}{sep}{match['name']} {match['rest']}"
    return title


def event_kind(title: str) -> EventKind:
    if _GALA.search(title):
        return EventKind.GALA
    if _FESTIVAL.search(title):
        return EventKind.FESTIVAL
    return EventKind.FILM


def join_names(names: list[str], joiner: str = "and") -> str:
    if len(names) == 1:
        return names[0]
    return f"{', '.join(names[:-1])} {joiner} {names[-1]}"


def caption(kind: Kind, named: list[str], unnamed: int, title: str, event: EventKind, context: int) -> str:
    """The caption of a photo; `context` indexes CONTEXTS[event]; `unnamed` counts people not named."""
    if kind is Kind.CROWD:
        template, _ = CROWD_CONTEXTS[event]
        return template.format(t=title, names=", ".join(named))
    phrase = CONTEXTS[event][context][0].format(t=title)
    if kind is Kind.PORTRAIT:
        who = named[0]
    elif unnamed:
        who = f"{', '.join(named)} and {'a guest' if unnamed == 1 else 'guests'}"
    elif len(named) == 2 and context % 2 == 1:
        who = f"{named[0]} with {named[1]}"  # agencies write both forms
    else:
        who = join_names(named)
    return f"{who} {phrase}"


def caption_keywords(kind: Kind, named: int, event: EventKind, context: int) -> int:
    if kind is Kind.CROWD:
        return CROWD_CONTEXTS[event][1]
    bits = CONTEXTS[event][context][1]
    if kind is Kind.GROUP:
        bits |= _BIT["together"]
        if named == 2 and context % 2 == 1:
            bits |= _BIT["with"]
    return bits
