"""What a search result's title says before anyone pays to look at the image.

Agency captions name who is in a photo: "Kevin Bacon at the premiere of Apollo 13 (1995)" is a
portrait, "Kevin Bacon and Tom Hanks at …" or "The cast of … : …, … and others" are not. A portrait
cannot prove a link between two people, so recognising it is money spent for nothing. The rule is
deliberately narrow: a title that starts with the searched person's name followed by a place or an
action ("at …", "on …", "attends …", "arrives …", "poses …") and has no "and", "with", comma or
ampersand anywhere; any other title (including every title we cannot read) is recognised.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from visual_degrees.domain.models import ImageHit
from visual_degrees.domain.names import name_key

_SEVERAL = re.compile(r",|&|\band\b|\bwith\b", re.IGNORECASE)
_ALONE = ("at", "on", "attends", "arrives", "poses")


def names_only(title: str, names: Collection[str]) -> bool:
    """True when `title` reads as a photo of one of `names` alone."""
    title = title.strip()
    if not title or _SEVERAL.search(title):
        return False
    return any(title.startswith(f"{name} {word} ") for name in names if name for word in _ALONE)


def mentions(title: str, name: str) -> bool:
    """Does `title` name `name` (compared as normalised words: case, accents, punctuation aside)?"""
    key = name_key(name)
    return bool(key) and f" {key} " in f" {name_key(title)} "


def not_a_portrait(names: Collection[str]) -> Callable[[ImageHit], bool]:
    """A `worth` filter for observe(): skip results whose title is a portrait of one of `names`."""
    return lambda hit: not names_only(hit.title, names)
