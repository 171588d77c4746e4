"""Name suggestions for a world: whom a half-typed or mistyped name may mean.

Both ways in compare names by their key (domain/names.name_key: display form, no accents, case or
punctuation), and name each person by display name; namesakes share a key and appear once.
- Completion, for typing: keys that start with the text, or have a word that does ("hank" finds
  Tom Hanks), the most appearances first. Text that begins nobody's name gets corrections instead.
- Correction, for a name nobody in the world has: the closest keys by rapidfuzz's normalised edit
  similarity, also with the words in either order ("bacon kevin"), best first, then most appearances.
  While typing, anything from CORRECTION_CUTOFF is listed; a "did you mean" after a refused name
  offers only names from DID_YOU_MEAN_FLOOR, so a far name ("Mary Treen" for "Meryl Streep", 72.7)
  is never put forward as the one meant (calibration: tests/unit/sandbox/test_suggest.py).

The index is built on first use, once per world (World.names); on movies.txt (115k people) that takes
about half a second, and a query then a few milliseconds (figures in README.md).
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property

from visual_degrees.domain.names import name_key

MAX_SUGGESTIONS = 10
CORRECTION_CUTOFF = 70.0  # rapidfuzz ratio (0-100) below which a name is not worth listing
# Real typos score 87-96 ("merly strep", "Kevn Bcon", "Ann Hathway", "Kevin Bacn"); other people
# with a similar name 72-85 ("Mary Treen" for Meryl Streep, "Frank Morgan" for Morgan Freeman).
DID_YOU_MEAN_FLOOR = 85.0
CORRECTION_MARGIN = 8.0  # "did you mean" offers the names within this of the closest one
_END = "\U0010ffff"


class NameIndex:
    """Keys of everyone in a world, sorted for prefix search, with who each key names."""

    def __init__(self, keys: Sequence[str], fame: Sequence[int], name_of: Callable[[int], str]) -> None:
        best: dict[str, int] = {}  # key -> its most famous person
        for person, key in enumerate(keys):
            known = best.get(key)
            if known is None or fame[person] > fame[known]:
                best[key] = person
        self.keys = list(best)
        self._person = array("I", best.values())
        self._fame = array("I", (fame[person] for person in self._person))
        self._name_of = name_of
        # Every key from each of its word starts ("tom hanks", "hanks"), sorted, with its key's index.
        texts: list[str] = []
        owners = array("I")
        for index, key in enumerate(self.keys):
            start = 0
            while start >= 0:
                texts.append(key[start:] if start else key)
                owners.append(index)
                start = key.find(" ", start) + 1 or -1
        order = sorted(range(len(texts)), key=texts.__getitem__)
        self._texts = [texts[i] for i in order]
        self._owners = array("I", (owners[i] for i in order))

    def __len__(self) -> int:
        return len(self.keys)

    def prepare(self) -> None:
        """Build now what the first correction would build (a server warms up before it is asked)."""
        _ = self._sorted_words

    def complete(self, text: str, limit: int = MAX_SUGGESTIONS) -> list[str]:
        """Display names whose key, or one of its words, starts with the text; most appearances first."""
        query = name_key(text)
        if not query:
            return []
        lo = bisect_left(self._texts, query)
        hi = bisect_left(self._texts, query + _END, lo)
        return self._by_fame(set(self._owners[lo:hi]), limit)

    def correct(
        self, text: str, limit: int = MAX_SUGGESTIONS, cutoff: float = CORRECTION_CUTOFF
    ) -> list[str]:
        """Display names closest to the text (a typo, a letter missing, the words swapped)."""
        return [name for name, _ in self.scored(text, limit, cutoff)]

    def suggest(self, text: str, limit: int = MAX_SUGGESTIONS) -> list[str]:
        """As the text is typed: the names it begins; if it begins none, the names it may misspell."""
        return self.complete(text, limit) or self.correct(text, limit)

    def did_you_mean(self, text: str, limit: int = 3, margin: float = CORRECTION_MARGIN) -> list[str]:
        """For a name nobody has: the names it begins, else the closest ones from DID_YOU_MEAN_FLOOR,
        only those about as close as the best (a clear winner is offered alone); none if nobody's
        name is that close."""
        if found := self.complete(text, limit):
            return found
        closest = self.scored(text, limit, DID_YOU_MEAN_FLOOR)
        return [name for name, score in closest if score >= closest[0][1] - margin]

    def scored(self, text: str, limit: int = MAX_SUGGESTIONS, cutoff: float = 0.0) -> list[tuple[str, float]]:
        """(display name, similarity 0-100) of the closest names from `cutoff`, best first."""
        return [(self._name(i), score) for i, score in self._closest(text, limit, cutoff)]

    def _closest(self, text: str, limit: int, cutoff: float) -> list[tuple[int, float]]:
        """(key index, similarity 0-100) of the closest keys, best first, then most appearances."""
        from rapidfuzz import fuzz, process

        query = name_key(text)
        if not query:
            return []
        scores: dict[int, float] = {}
        swapped = " ".join(sorted(query.split()))
        for needle, haystack in ((query, self.keys), (swapped, self._sorted_words)):
            for _, score, index in process.extract(
                needle, haystack, scorer=fuzz.ratio, processor=None, limit=limit * 3, score_cutoff=cutoff
            ):
                scores[index] = max(score, scores.get(index, 0.0))
        ranked = sorted(scores, key=lambda i: (-round(scores[i]), -self._fame[i], self.keys[i]))
        return [(i, scores[i]) for i in ranked[:limit]]

    @cached_property
    def _sorted_words(self) -> list[str]:
        """Each key with its words in alphabetical order: "kevin bacon" -> "bacon kevin"."""
        return [" ".join(sorted(key.split())) for key in self.keys]

    def _name(self, index: int) -> str:
        return self._name_of(self._person[index])

    def _by_fame(self, indices: Iterable[int], limit: int) -> list[str]:
        best = heapq.nsmallest(limit, indices, key=lambda i: (-self._fame[i], self.keys[i]))
        return [self._name(i) for i in best]
