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

from visual_degrees.domain.captions import names_in_title, sentence_cased
from visual_degrees.domain.models import ImageHit
from visual_degrees.domain.names import name_key

_SEVERAL = re.compile(r",|&|\band\b|\bwith\b", re.IGNORECASE)
_ALONE = ("at", "on", "attends", "arrives", "poses")
_ALONE_AFTER = re.compile(r"\s*(?:at|on|attends|arrives|poses)\b")
_ONE_GUEST = re.compile(r"\s*(?:a guest (?:at|on|attends|arrives|poses)|arrivals (?:at|on))\b", re.IGNORECASE)


def names_only(title: str, names: Collection[str]) -> bool:
    """True when `title` reads as a photo of one of `names` alone."""
    title = sentence_cased(title.strip())
    if not title or _SEVERAL.search(title):
        return False
    return any(title.startswith(f"{name} {word} ") for name in names if name for word in _ALONE)


def portrait(title: str) -> bool:
    """Does `title` say its photo shows one person, whoever they are? One name (a role before it
    allowed) followed by a place or a singular action ("Actor X arrives at …", "X on the red
    carpet …"), or one unnamed person ("A guest attends …", "Arrivals at …"); never with "and",
    "with", a comma, an ampersand or a colon ("X at T: see the photos" heads a story). A page
    about someone ("X - Pictures and Photos") says nothing of who is in its photo: not a portrait."""
    if not title or _SEVERAL.search(title) or ":" in title:
        return False
    if _ONE_GUEST.match(title):
        return True
    names = names_in_title(title)
    title = sentence_cased(title)  # "Kevin Bacon Attends The …" is "Kevin Bacon attends the …"
    if len(names) != 1:
        return False
    at = title.find(names[0])
    return at >= 0 and _ALONE_AFTER.match(title, at + len(names[0])) is not None


def mentions(title: str, name: str) -> bool:
    """Does `title` name `name` (compared as normalised words: case, accents, punctuation aside)?"""
    key = name_key(name)
    return bool(key) and f" {key} " in f" {name_key(title)} "


def not_a_portrait(names: Collection[str]) -> Callable[[ImageHit], bool]:
    """A `worth` filter for observe(): skip results whose title is a portrait of one of `names`."""
    return lambda hit: not names_only(hit.title, names)
