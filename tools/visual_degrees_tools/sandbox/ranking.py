"""How the sandbox search engine ranks captions for a query (pure: no clock, no faults).

The query's person names are found by longest match over its words (the queries come from
domain/queries.py templates: "A B", "A and B", "A premiere", ...), and so are event titles written
in full with their year ("Apollo 13 (1995) cast": every caption of the event carries its title, so a
real engine answers a film's name with its photos). Photos whose captions name all of them come
first, then photos naming some of them (a real engine still fills the page); within
a tier, the query's keywords ("premiere", "red carpet", "cast", "event", "with") pull matching
captions up, and a per-query jitter stands in for everything else an engine weighs, so different
phrasings of the same names surface different photos.
"""

from __future__ import annotations

import heapq
import math
import re
import unicodedata
from collections.abc import Callable
from functools import cached_property

from visual_degrees_tools.sandbox.captions import KEYWORDS, Kind, display_title, keyword_bits
from visual_degrees_tools.sandbox.hashing import stable_hash
from visual_degrees_tools.sandbox.photoweb import PhotoWeb, derived

MAX_NAME_WORDS = 8
MAX_TITLE_WORDS = 16
MAX_QUERY_LENGTH = 500
_NOT_WORD = re.compile(r"[^\w]+")
_YEAR = re.compile(r"(1[89]|20)\d\d")
# Template words never start a name match on their own (a mononym "Red" must not eat "red carpet").
_TEMPLATE_WORDS = frozenset({"and", "with", "premiere", "red", "carpet", "cast", "event", "together"})
_JITTER_SCALE = 6.0 / (1 << 24)
_GOLDEN = 0x9E3779B97F4A7C15
_MASK = (1 << 64) - 1


def query_words(text: str) -> list[str]:
    """The query as name_key would normalise it: accents stripped, case-folded, punctuation gone."""
    if not text.isascii():
        decomposed = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    text = text.casefold().replace("'", "").replace("\u2019", "")
    return _NOT_WORD.sub(" ", text).split()


class Ranker:
    def __init__(self, web: PhotoWeb) -> None:
        self.web = web
        # A photo whose best-known subject is famous sits on a busier page: up to +2 at 16 events.
        by_fame = [0.0] + [min(2.0, 0.5 * math.log2(f)) for f in range(1, 17)]
        self._popularity = [by_fame[min(16, f)] for f in web.world.fame]

    def names_in(self, query: str) -> list[str]:
        """The name keys found in `query`, longest match first, left to right, without repeats."""
        return self._found(query)[0]

    def events_in(self, query: str) -> list[int]:
        """The events whose full title (with its year) `query` contains."""
        return self._found(query)[1]

    def _found(self, query: str) -> tuple[list[str], list[int]]:
        """Names and event titles in `query`, left to right; a title is tried first at each word
        (a title ends in its year, so a query of names alone never matches one)."""
        words = query_words(query[:MAX_QUERY_LENGTH])
        by_key, by_title = self.web.world.by_key, self._by_title
        names: list[str] = []
        events: list[int] = []
        i = 0
        while i < len(words):
            width = self._match(words, i, MAX_TITLE_WORDS, lambda key, span: key in by_title)
            if width:
                events.extend(e for e in by_title[" ".join(words[i : i + width])] if e not in events)
                i += width
                continue
            width = self._match(
                words,
                i,
                MAX_NAME_WORDS,
                lambda key, span: key in by_key and not _TEMPLATE_WORDS.issuperset(span),
            )
            if width:
                key = " ".join(words[i : i + width])
                if key not in names:
                    names.append(key)
                i += width
                continue
            i += 1
        return names, events

    @staticmethod
    def _match(words: list[str], i: int, longest: int, known: Callable[[str, list[str]], bool]) -> int:
        for width in range(min(longest, len(words) - i), 0, -1):
            span = words[i : i + width]
            if known(" ".join(span), span):
                return width
        return 0

    @cached_property
    def _by_title(self) -> dict[str, list[int]]:
        """Events by the words of their display title; only titles that end in a year."""
        found: dict[str, list[int]] = {}
        for event, title in enumerate(self.web.world.titles):
            words = query_words(display_title(title))
            if words and (_YEAR.fullmatch(words[-1]) or (len(words) > 1 and _YEAR.fullmatch(words[-2]))):
                found.setdefault(" ".join(words[:MAX_TITLE_WORDS]), []).append(event)
        return found

    def rank(self, query: str, count: int) -> list[int]:
        """Indices of the best `count` photos for `query`."""
        keys, events = self._found(query)
        if not (keys or events) or count <= 0:
            return []
        web = self.web
        world = web.world
        named_in = web.named_in
        masks: dict[int, int] = {}
        for bit, key in enumerate(keys):
            flag = 1 << bit
            for person in world.by_key[key]:
                for photo in named_in[person]:
                    masks[photo] = masks.get(photo, 0) | flag
        if events:
            flag = 1 << len(keys)  # every photo of the event(s) the query names
            for event in events:
                for photo in web.photos_of_event(event):
                    masks[photo] = masks.get(photo, 0) | flag

        words = query_words(query[:MAX_QUERY_LENGTH])
        wanted = keyword_bits({w for w in words if w in KEYWORDS})
        if "red carpet" in " ".join(words):
            wanted |= keyword_bits({"red carpet"})
        prior = _kind_prior(len(keys), wanted)
        seed = stable_hash("search", web.seed, " ".join(words)) & _MASK
        kinds, keywords, start, people = web.photo_kind, web.photo_keywords, web.photo_start, web.photo_people
        popularity = self._popularity
        scored = []
        for photo, mask in masks.items():
            # Fibonacci hashing of (photo ^ seed): its top 24 bits are a well-spread jitter.
            jitter = ((((photo ^ seed) * _GOLDEN) & _MASK) >> 40) * _JITTER_SCALE
            score = (
                100.0 * mask.bit_count()
                + 10.0 * (keywords[photo] & wanted).bit_count()
                + prior[kinds[photo]]
                + popularity[people[start[photo]]]
                + jitter
            )
            scored.append((score, -photo))
        best = heapq.nlargest(count, scored)
        return [-negated for _, negated in best]


def _kind_prior(names: int, wanted: int) -> tuple[float, float, float]:
    """Score by photo kind: one name brings up portraits, two names or "with" group shots,
    "cast" crowd shots."""
    prior = [3.0, 2.0, 1.0] if names == 1 else [0.0, 3.0, 2.0]
    if wanted & keyword_bits({"with", "together"}):
        prior[Kind.GROUP] += 3.0
    if wanted & keyword_bits({"cast"}):
        prior[Kind.CROWD] += 3.0
    return (prior[Kind.PORTRAIT], prior[Kind.GROUP], prior[Kind.CROWD])


def ranker_for(web: PhotoWeb) -> Ranker:
    """The ranker of `web`, built once and shared by every run's search over it."""
    return derived(web, Ranker)
