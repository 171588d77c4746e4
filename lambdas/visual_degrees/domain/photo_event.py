"""Which event a photo comes from, as its caption or page title names it: the words a link shows
beside its photo ("the premiere of Balto (1995)", "the 1998 Awards Gala", "a still from Jaws (1975)").

A link is two people in one photo; the event says where that was, so a reader can judge it. The title
comes from any page on the web, so the event is read by a few narrow shapes, written for no
particular site, and shown under the rules of all text from outside (domain/shown_text.py): a title
hiding a link, markup or control characters names no event we show. Shapes read:
- names, then a place: "A and B at / during …", "A attends …", "(L-R) A, B and a guest pose on
  the red carpet at …", or the place first, "At the premiere of T (1995): A, B …" (the place without
  its preposition; "the red carpet at" and "stage at" go). A place starts with an article, a capital
  or a year, and "on" only as "on the set", "on the red carpet", "on stage": "A at home", "A on why
  he left" name none;
- a cast photo: "The cast of T (1995) at its premiere: …" is "the premiere of T (1995)";
- a film still: "A and B in T (1995)", "Still from T (1995)", "T (1995) film still";
- a gallery or news page about the event: "T (1995) - Photo Gallery", "Photos: the T red carpet",
  "X at T: see the photos" (only a dated title, or a dated occasion such as "1998 Awards Gala":
  "X - Pictures and Photos" and "X: 2019 interview" are pages about a person).
Anything else names no event (None), and the reader is told so in words.
"""

from __future__ import annotations

import re
from functools import lru_cache

from visual_degrees.domain.captions import sentence_cased, without_credit, without_dateline
from visual_degrees.domain.shown_text import normalised, shown_text

MAX_EVENT_CHARS = 120  # an event longer than this is cut at a word, with "..."
_READ_CHARS = 1000  # of a title (stored titles are cut shorter still: models.MAX_TITLE_CHARS)
# Site names and gallery words around the event: "… | Getty Images", "… - Photo Gallery".
_DECORATION = re.compile(
    r"\s*(?:(?:\s[-–—|]\s|:\s)\s*(?:see the |latest |premiere )?"
    r"(?:photo gallery|gallery|photos?|pictures?|images?|stock photos?(?: and pictures)?|getty images)"
    r"|\((?:gallery|photos?)\))\s*$",
    re.IGNORECASE,
)
_SITE = re.compile(r"\s(?:[|–—]|-)\s.*$")  # "… | Site name": whatever follows a spaced separator
_GALLERY_LEAD = re.compile(r"^(?:photos?|pictures?|gallery|in pictures)\s*:\s*", re.IGNORECASE)
_CAST = re.compile(r"\bcast of (?P<t>.+?\)) at its premiere\b", re.IGNORECASE)
_DATED = r"[^()]{1,100}?\((?:1[89]|20)\d\d[^()]{0,8}\)"  # "Apollo 13 (1995)", "Hamlet (1990 I)"
_STILL = re.compile(
    rf"\b(?:film |movie )?still (?:from|of) (?P<a>{_DATED})|^(?P<b>{_DATED})\s*(?:film |movie )?still\b",
    re.IGNORECASE,
)
_FILM_STILL = re.compile(r"\b(?:film|movie) still\b", re.IGNORECASE)
# The words that end a caption's names and start its place (lower-case: names are capitalised), or
# start the title ("At the premiere of T (1995): A and B"); then something an event starts with: an
# article, a capital, a year ("A at home", "A on why he left" name no event).
_NAMED_PLACE = r"(?=(?:the|a|an)\s|[A-Z]|(?:1[89]|20)\d\d\b)"
_PLACE = re.compile(
    rf"(?:(?<=\S)\s(?:at|during|attends?|attending)|^(?:At|During))\s{_NAMED_PLACE}(?P<rest>.+)$"
    r"|(?:(?<=\S)\s(?:on|arrives?(?: at| on)?)|^On)\s(?=the set\b|the red carpet\b|stage\b|(?:the|a|an)\s)"
    r"(?P<spot>.+)$"
)
_AFTER_TITLE = re.compile(r"(?<=\))\s*:\s.*$")  # "…(1995): A, B and others": the names after the event
_IN_FILM = re.compile(rf"(?<=\S)\sin (?P<t>{_DATED})")
# What may precede the event itself: a verb, a preposition, a spot at the event.
_LEAD_IN = re.compile(
    r"^(?:(?:attends?|arrives?|poses?|at|on|during"
    r"|the red carpet (?:at|of|for)|(?:the )?stage (?:at|of))\s+)+",
    re.IGNORECASE,
)
_YEAR = re.compile(r"\b(?:1[89]|20)\d\d\b")
_PAGE_EVENT = re.compile(rf"(?:the )?{_DATED}(?: [\w'’-]+){{0,3}}", re.IGNORECASE)
_OCCASION = re.compile(
    r"\b(?:gala|awards?|festival|premiere|ceremony|benefit|ball|party|dinner|concert|show|week|fair)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=65_536)
def photo_event(title: str) -> str | None:
    """The event `title` names, as shown beside a link; None when it names none we can show."""
    text = sentence_cased(" ".join(without_credit(without_dateline(normalised(title[:_READ_CHARS]))).split()))
    if not text:
        return None
    found = _event_in(text)
    return None if found is None else _shown(found)


def _event_in(text: str) -> str | None:
    if cast := _CAST.search(text):
        return f"the premiere of {cast['t'].strip()}"
    if still := _STILL.search(text):
        return f"a still from {(still['a'] or still['b']).strip()}"
    if _FILM_STILL.search(text):
        return "a film still"
    text = _GALLERY_LEAD.sub("", _DECORATION.sub("", text))
    site = _SITE.search(text)
    if site and not _YEAR.search(site.group()):  # "… - Fallout (2018)" is a film's title, not a site
        text = text[: site.start()]
    if place := _PLACE.search(text):
        rest, dated = _AFTER_TITLE.subn("", place["rest"] or place["spot"])
        if place.start() == 0 and not dated:  # "At the Oscars: A and B pose": names after the colon
            rest = rest.rpartition(": ")[0] or rest
        event = _LEAD_IN.sub("", rest).strip(" ,;:")
        return event or None
    if film := _IN_FILM.search(text):
        return film["t"].strip()
    # A page about the event itself: a dated title ("T (1995) - Photo Gallery", "Photos: the T (1995)
    # red carpet") or a dated occasion ("1998 Awards Gala"); "Kevin Bacon: 2019 interview" is not one.
    text = text.strip(" ,;:")
    return text if _PAGE_EVENT.fullmatch(text) or (_OCCASION.search(text) and _YEAR.search(text)) else None


def _shown(event: str) -> str | None:
    if len(event) > MAX_EVENT_CHARS:
        cut = event[: MAX_EVENT_CHARS - 3]
        event = (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" ,;:") + "..."  # NFKC of "…"
    return shown_text(event, MAX_EVENT_CHARS)
