"""The pages of a realistic photo web: where each photo is published, under which title, and which
names each page's text carries (a search engine finds a page only by what it says).

Every photo has its agency page (its id is the photo's id): a caption in one of four styles,
"(L-R) Actor X, actor Y and director Z attend the premiere of T", "X and Y at the premiere of T",
"X and guests attend …" (only the first named) or none ("Guests attend …"), naming only people the
agency could identify. Some photos are republished, the same image under another URL and title:
a news story about one of its people ("X news and photos", the agency caption copied below it, cut
to its first name, or left out), a page about one person ("X - Pictures and Photos", naming nobody
else), or an event gallery ("T - Photo Gallery", with or without the caption). docs/sandbox.md gives
every figure's reason; all of it is a pure function of the world, the seed and these parameters.
"""

from __future__ import annotations

import math
import random
import re
from array import array
from bisect import bisect_right
from dataclasses import dataclass, fields
from enum import IntEnum
from typing import TYPE_CHECKING

from visual_degrees_tools.sandbox.captions import CONTEXTS, EventKind, Kind, keyword_bits, role_of
from visual_degrees_tools.sandbox.hashing import combine

if TYPE_CHECKING:
    from visual_degrees_tools.sandbox.photoweb import PhotoWeb
    from visual_degrees_tools.sandbox.world import World

NOBODY = -1


class Site(IntEnum):
    AGENCY = 0  # the photo agency's page: the caption is the title
    NEWS = 1  # a story about one of the people in it
    PERSON = 2  # a page about one person: "X - Pictures and Photos"
    GALLERY = 3  # an event's photo gallery


class Style(IntEnum):
    """How an agency caption names the people of a photo of two or more."""

    LEFT_TO_RIGHT = 0  # "(L-R) Actor X, actor Y and director Z attend …"
    ALL = 1  # "X and Y attend …"
    FIRST = 2  # "X and guests attend …"
    NONE = 3  # "Guests attend …"


class Copy(IntEnum):
    """What a republishing page keeps of the agency caption."""

    AS_IS = 0
    FIRST = 1  # only its first name survives ("X and others at …")
    NONE = 2  # no caption: the page's own title and text only


@dataclass(frozen=True)
class PageParameters:
    # Agency caption styles (LEFT_TO_RIGHT, ALL, FIRST, NONE) for photos of 2-4 people, and crowds.
    group_styles: tuple[float, float, float, float] = (0.35, 0.30, 0.20, 0.15)
    crowd_styles: tuple[float, float, float, float] = (0.30, 0.0, 0.30, 0.40)
    portrait_unnamed: float = 0.10  # a solo portrait captioned with the event only
    # P(the agency can name someone it photographed) = base + per_star * log2(events), capped at 1.
    identified_base: float = 0.55
    identified_per_star: float = 0.15
    max_named: int = 7  # a caption names at most seven people, then "and others"
    # Republished copies per photo: geometric, mean base + per_star * log2(events of its best-known person).
    copies_base: float = 0.2
    copies_per_star: float = 0.35
    max_copies: int = 12
    copy_sites: tuple[float, float, float] = (0.45, 0.30, 0.25)  # news, person page, gallery
    news_caption: tuple[float, float, float] = (0.5, 0.25, 0.25)  # AS_IS, FIRST, NONE
    # A story about someone of the event who is not in the photo ("X's new film opens" over a
    # photo of X's co-stars): its title names X, whom the photo does not show.
    news_about_absent: float = 0.15
    gallery_caption: tuple[float, float, float] = (0.5, 0.0, 0.5)
    # What agencies write before a left-to-right list of names. Only a diagnostic changes it (see
    # scripts/bench_webs.py --no-lr-marker): what a strategy loses by misreading it.
    left_to_right: str = "(L-R) "
    # Captions as wire services write them (a benchmark variant only, bench/web_variants.py): the
    # agency's dateline first, where each of two stands ("X, left, and Y"), the credit last.
    wire: bool = False
    # Captions as news sites title them (a benchmark variant only): every word capitalised but a
    # name's particles ("Kevin Bacon And A Guest Attend The Premiere Of …").
    headline: bool = False

    def fingerprint(self) -> str:
        """What a web's identity reads of these parameters: their repr, less the fields added since
        webs were first made (_LATER_FIELDS) while they keep their defaults, so that the webs there
        were keep their identity, and with it every evidence graph and cache built on them."""
        shown = [
            f"{f.name}={getattr(self, f.name)!r}"
            for f in fields(self)
            if f.name not in _LATER_FIELDS or getattr(self, f.name) != f.default
        ]
        return f"{type(self).__name__}({', '.join(shown)})"


# Fields of PageParameters added after webs were first made, left out of a web's identity at their
# defaults (PageParameters.fingerprint).
_LATER_FIELDS = frozenset({"wire", "headline"})
DEFAULT_PAGES = PageParameters()

# Title phrasings by site (index = the page's variant); {s} the page's subject, {t} the event.
NEWS_TITLES = (
    "{s} news and photos",
    "{s}: latest news, pictures and videos",
    "{s} at {t}: see the photos",
    "Everything we know about {s}'s next project",
)
PERSON_TITLES = (
    "{s} - Pictures and Photos",
    "{s} - Biography, Movies and Photos",
    "{s} Photos",
    "{s} - Fan Gallery",
)
GALLERY_TITLES = (
    "{t} - Photo Gallery",
    "{t}: premiere photos",
    "Photos: the {t} red carpet",
    "{t} (gallery)",
)
_NEWS_EVENT = 2  # the news title that names the event
_GALLERY_BITS = (0, keyword_bits({"premiere"}), keyword_bits({"red carpet"}), 0)
_VERBS = 4  # no verb, attend(s), arrive(s), pose(s)
SITE_POPULARITY = (3.0, 4.0, 5.0, 1.0)  # agency, news, person page, gallery: busier sites rank higher


@dataclass(frozen=True)
class PageTable:
    """The pages of a web: page i shows photo[i]; pages 0 .. photos-1 are the agency pages, each
    photo's copies follow in photo order (photo p's are copy_start[p] .. copy_start[p + 1] - 1)."""

    photo: array[int]
    site: bytearray
    copy: bytearray  # Copy, for news and gallery pages
    variant: bytearray  # which title phrasing (per site)
    subject: array[int]  # the person a news or person page is about, else NOBODY
    copy_start: array[int]
    style: bytearray  # per photo: the agency caption's Style
    verb: bytearray  # per photo: the caption's verb
    agency_named: list[tuple[int, ...]]  # per photo: who the agency caption names, in its order
    named_in: list[array[int]]  # per person: the pages whose text names them
    keywords: bytearray  # per page: the query keywords its text contains
    has_event: bytearray  # per page: 1 if its text names the photo's event
    params: PageParameters  # how its captions are written (left_to_right, wire, headline)

    @property
    def count(self) -> int:
        return len(self.photo)


def generate_pages(web: PhotoWeb, params: PageParameters) -> PageTable:
    """Every page of `web`, from one random stream over the photos in order (random() only, whose
    sequence Python keeps stable): a pure function of the world, the seed and `params`."""
    world = web.world
    fame = world.fame
    star = [math.log2(f) if f > 1 else 0.0 for f in range(max(fame) + 1)]
    identified = [min(1.0, params.identified_base + params.identified_per_star * s) for s in star]
    # P(one more copy) of a photo whose best-known person has f events: a geometric count.
    more = [_more(params.copies_base + params.copies_per_star * s) for s in star]
    rand = random.Random(combine(web.base_hash, 0x9A6E5)).random
    photos = web.photo_count
    kinds, start, people, contexts = web.photo_kind, web.photo_start, web.photo_people, web.photo_context
    styles = bytearray(photos)
    verbs = bytearray(photos)
    agency: list[tuple[int, ...]] = [()] * photos
    page_photo = array("I", range(photos))
    site = bytearray(photos)  # every photo's own page is its agency's
    copy = bytearray(photos)
    variant = bytearray(photos)
    subject = array("i", [NOBODY]) * photos
    copy_start = array("I", [photos])
    keywords = bytearray(photos)
    has_event = bytearray(b"\x01") * photos
    named_in: list[array[int]] = [array("I") for _ in range(world.size)]
    group_cut = _cumulative(params.group_styles)
    crowd_cut = _cumulative(params.crowd_styles)
    site_cut = _cumulative(params.copy_sites)
    news_cut = _cumulative(params.news_caption)
    gallery_cut = _cumulative(params.gallery_caption)
    bits_of = _keyword_table()
    portrait, crowd, unnamed, first = int(Kind.PORTRAIT), int(Kind.CROWD), int(Style.NONE), int(Style.FIRST)
    everyone = int(Style.ALL)
    news, person_page, dropped = int(Site.NEWS), int(Site.PERSON), int(Copy.NONE)
    most, copies_at_most = params.max_named, params.max_copies
    about_absent, cast_of = params.news_about_absent, world.members
    event_kinds, event_start = web.event_kinds, web.event_start
    event, next_event = 0, event_start[1]
    append_photo, append_site, append_variant = page_photo.append, site.append, variant.append
    append_subject, append_copy = subject.append, copy.append
    append_keywords, append_event = keywords.append, has_event.append
    named_unless = params.portrait_unnamed
    for photo in range(photos):
        while photo >= next_event:
            event += 1
            next_event = event_start[event + 1]
        kind = kinds[photo]
        if kind == portrait:  # most photos: one person, one name or none
            best = people[start[photo]]
            who: array[int] | tuple[int, ...] = (best,)
            style = unnamed if rand() < named_unless else everyone
            verb = int(rand() * _VERBS)
            named: tuple[int, ...] = (best,) if rand() < identified[fame[best]] and style != unnamed else ()
        else:
            who = people[start[photo] : start[photo + 1]]
            best = who[0]
            style = bisect_right(crowd_cut if kind == crowd else group_cut, rand())
            verb = int(rand() * _VERBS)
            known = [p for p in who if rand() < identified[fame[p]]]  # whom the agency could name
            if style == unnamed:
                named = ()
            elif style == first:
                named = (best,) if known and known[0] == best else ()
            else:
                named = tuple(known[:most])
        styles[photo] = style
        verbs[photo] = verb
        agency[photo] = named
        bits = bits_of[kind, style, verb, event_kinds[event], contexts[photo]]
        keywords[photo] = bits
        for person in named:
            named_in[person].append(photo)

        q = more[fame[best]]
        copies = 0
        while copies < copies_at_most and rand() < q:
            copies += 1
            page = len(page_photo)
            where = 1 + bisect_right(site_cut, rand())
            shape = int(rand() * 4)
            append_photo(photo)
            append_site(where)
            append_variant(shape)
            if where == person_page:
                about = best if len(who) == 1 else _weighted(who, fame, star, rand())
                append_subject(about)
                append_copy(dropped)
                append_keywords(0)
                append_event(0)
                named_in[about].append(page)
                continue
            if where == news:
                kept = bisect_right(news_cut, rand())
                about = named[0] if named else best
                if rand() < about_absent:
                    about = _absent(cast_of[event], who, fame, star, rand()) or about
                append_subject(about)
                shown = _names_on(where, about, named, kept)
                append_keywords(bits if kept != dropped else 0)
                append_event(1 if kept != dropped or shape == _NEWS_EVENT else 0)
            else:
                kept = bisect_right(gallery_cut, rand())
                append_subject(NOBODY)
                shown = _names_on(where, NOBODY, named, kept)
                append_keywords((bits if kept != dropped else 0) | _GALLERY_BITS[shape])
                append_event(1)
            append_copy(kept)
            for person in shown:
                named_in[person].append(page)
        copy_start.append(len(page_photo))

    return PageTable(
        photo=page_photo,
        site=site,
        copy=copy,
        variant=variant,
        subject=subject,
        copy_start=copy_start,
        style=styles,
        verb=verbs,
        agency_named=agency,
        named_in=named_in,
        keywords=keywords,
        has_event=has_event,
        params=params,
    )


def _copied(named: tuple[int, ...], kept: int) -> tuple[int, ...]:
    """The names a republished caption keeps: all, the first, or none."""
    if kept == Copy.AS_IS:
        return named
    if kept == Copy.FIRST:
        return named[:1]
    return ()


def agency_keywords(kind: Kind, style: Style, verb: int, event: EventKind, context: int) -> int:
    """The query keywords an agency caption's text contains."""
    if kind is Kind.CROWD:
        return keyword_bits({"cast", "premiere"}) if event is EventKind.FILM else keyword_bits({"event"})
    bits = CONTEXTS[event][context][1]
    if kind is Kind.GROUP and style is Style.FIRST and verb == 3:
        bits |= keyword_bits({"with"})  # "X poses with guests …"
    return bits


def _keyword_table() -> dict[tuple[int, int, int, int, int], int]:
    """agency_keywords for every (kind, style, verb, event kind, context)."""
    return {
        (kind, style, verb, event, context): agency_keywords(kind, style, verb, event, context)
        for kind in Kind
        for style in Style
        for verb in range(_VERBS)
        for event in EventKind
        for context in range(len(CONTEXTS[event]))
    }


def _more(mean: float) -> float:
    """P(one more) of a geometric count (0, 1, 2, …) with the given mean."""
    return mean / (1 + mean) if mean > 0 else 0.0


def _cumulative(weights: tuple[float, ...]) -> list[float]:
    """Cut points for bisect_right: a draw u in [0, 1) picks index i with probability weights[i] /
    sum(weights). The last cut is left out, so rounding can never pick past the end."""
    total = sum(weights)
    running, cuts = 0.0, []
    for weight in weights[:-1]:
        running += weight / total
        cuts.append(running)
    return cuts


def _absent(
    cast: tuple[int, ...], who: array[int] | tuple[int, ...], fame: list[int], star: list[float], u: float
) -> int | None:
    """Someone of the event's cast the photo does not show (weighted as _weighted), or None."""
    away = [p for p in cast if p not in who]
    return _weighted(away, fame, star, u) if away else None


def _weighted(
    who: array[int] | tuple[int, ...] | list[int], fame: list[int], star: list[float], u: float
) -> int:
    """One of the photo's people, in proportion to 1 + log2(events): pages are about the known."""
    weights = [1.0 + star[fame[p]] for p in who]
    target = u * sum(weights)
    for person, weight in zip(who, weights, strict=True):
        target -= weight
        if target < 0:
            return person
    return who[-1]


# ---- what a page says -------------------------------------------------------------------------


def page_title(web: PhotoWeb, page: int) -> str:
    """The page's title: what an image search shows as the result's title."""
    table = web.pages
    assert table is not None
    photo = table.photo[page]
    kind_of_site = Site(table.site[page])
    if kind_of_site is Site.AGENCY:
        return agency_caption(web, photo)
    event = web.title(web.event_of(photo))
    shape = table.variant[page]
    if kind_of_site is Site.GALLERY:
        return GALLERY_TITLES[shape].format(t=event)
    name = web.world.name(table.subject[page])
    templates = NEWS_TITLES if kind_of_site is Site.NEWS else PERSON_TITLES
    return templates[shape].format(s=name, t=event)


def page_names(web: PhotoWeb, page: int) -> tuple[int, ...]:
    """The people a page's text names (its title first): what a search can find it by."""
    table = web.pages
    assert table is not None
    return _names_on(
        table.site[page], table.subject[page], table.agency_named[table.photo[page]], table.copy[page]
    )


def _names_on(where: int, about: int, named: tuple[int, ...], kept: int) -> tuple[int, ...]:
    """Who a page names: its agency caption's names, its subject, and what it kept of the caption."""
    if where == Site.AGENCY:
        return named
    if where == Site.PERSON:
        return (about,)
    copied = _copied(named, kept)
    if where == Site.NEWS:
        return (about, *(p for p in copied if p != about))
    return copied


def page_text(web: PhotoWeb, page: int) -> str:
    """Everything the page says about its photo: its title, then the caption it carries (if any)."""
    table = web.pages
    assert table is not None
    title = page_title(web, page)
    kept = Copy(table.copy[page])
    if table.site[page] == Site.AGENCY or kept is Copy.NONE:
        return title
    photo = table.photo[page]
    caption = agency_caption(web, photo, first_only=kept is Copy.FIRST)
    return f"{title}\n{caption}"


def agency_caption(web: PhotoWeb, photo: int, *, first_only: bool = False) -> str:
    """The agency's caption of a photo, in its style; `first_only`: as a page that kept only its
    first name copied it."""
    text = _agency_text(web, photo, first_only=first_only)
    assert web.pages is not None
    if web.pages.params.headline:
        text = _HEADLINE_WORD.sub(_capitalised, text)
    return _wire(web, photo, text) if web.pages.params.wire else text


# A headline's words: every one capitalised but a name's particles ("Rossy de Palma").
_HEADLINE_WORD = re.compile(r"(?<![\w'’])[a-z][\w'’]*")
_PARTICLES = frozenset({"de", "van", "von", "der", "den", "da", "del", "della", "di", "du", "la", "le"})


def _capitalised(word: re.Match[str]) -> str:
    text = word.group()
    return text if text in _PARTICLES else text[0].upper() + text[1:]


# A wire caption's dateline and credit (Getty Images' editorial style: "LOS ANGELES, CA - JUNE 22:
# … (Photo by A B/Getty Images)"), the same for every photo of one event, the photographer by photo.
# The photographers are made up; their names may be anyone's, as a real credit's may.
_CITIES = ("LOS ANGELES, CA", "NEW YORK, NY", "HOLLYWOOD, CA", "LONDON, ENGLAND", "CANNES, FRANCE")
_MONTHS = ("JANUARY", "FEBRUARY", "MARCH", "APRIL", "MAY", "JUNE", "JULY", "AUGUST", "SEPTEMBER")
_PHOTOGRAPHERS = ("Dana Whitcombe", "Marco Ellery", "Priya Sandoval", "Jonah Kettering", "Ruth Aldana")


def _wire(web: PhotoWeb, photo: int, text: str) -> str:
    event = web.event_of(photo)
    dateline = f"{_CITIES[event % len(_CITIES)]} - {_MONTHS[event % len(_MONTHS)]} {1 + event % 28:02d}"
    return f"{dateline}: {text} (Photo by {_PHOTOGRAPHERS[photo % len(_PHOTOGRAPHERS)]}/Getty Images)"


def _agency_text(web: PhotoWeb, photo: int, *, first_only: bool) -> str:
    table = web.pages
    assert table is not None
    world = web.world
    who = web.people_in(photo)
    named = table.agency_named[photo]
    if first_only:
        named = named[:1]
    kind = Kind(web.photo_kind[photo])
    style = Style(table.style[photo])
    event = web.event_of(photo)
    ek = EventKind(web.event_kinds[event])
    title = web.title(event)
    verb = table.verb[photo]
    if kind is Kind.CROWD:
        return _crowd_caption(world, named, len(who), style, ek, title, table.params.left_to_right)
    phrase = CONTEXTS[ek][web.photo_context[photo]][0].format(t=title)
    if kind is Kind.PORTRAIT:
        if not named:
            return f"Arrivals {phrase}" if phrase.startswith("at ") else f"A guest {phrase}"
        role = role_of(world.raws[named[0]]) if verb % 2 else ""
        subject = f"{role.capitalize()} {world.name(named[0])}" if role else world.name(named[0])
        return f"{subject} {_verb_phrase(verb, phrase, plural=False)}"
    if not named:
        return f"Guests {_verb_phrase(verb or 1, phrase, plural=True)}"
    if first_only or style is Style.FIRST:
        first = world.name(named[0])
        if verb == 3:
            return f"{first} poses with guests {phrase}"
        return f"{first} and guests {_verb_phrase(verb, phrase, plural=True)}"
    names = _names_in_order(world, who, named, with_roles=style is Style.LEFT_TO_RIGHT or verb % 2 == 1)
    if table.params.wire and style is Style.ALL and len(who) == 2 and len(named) == 2:
        names = f"{world.name(who[0])}, left, and {world.name(who[1])}"  # AP: where each stands
    lead = table.params.left_to_right if style is Style.LEFT_TO_RIGHT else ""
    return f"{lead}{names} {_verb_phrase(verb, phrase, plural=True)}"


def _crowd_caption(
    world: World, named: tuple[int, ...], size: int, style: Style, event: EventKind, title: str, lead: str
) -> str:
    where = f"the premiere of {title}" if event is EventKind.FILM else f"the {title}"
    if not named:
        who = "Cast and crew" if event is EventKind.FILM else "Guests"
        return f"{who} attend {where}"
    if style is Style.FIRST or len(named) == 1:
        return f"{world.name(named[0])} and the cast attend {where}"
    names = ", ".join(world.name(p) for p in named)
    rest = " and others" if len(named) < size else ""
    return f"{lead}{names}{rest} attend {where}"


def _names_in_order(world: World, who: tuple[int, ...], named: tuple[int, ...], *, with_roles: bool) -> str:
    """The photo's people left to right: named ones by name (with their role if asked), others as
    "a guest"; trailing unnamed people are "guests"."""
    shown = set(named)
    parts: list[str] = []
    for i, person in enumerate(who):
        if person in shown:
            name = world.name(person)
            role = role_of(world.raws[person]) if with_roles else ""
            parts.append(f"{role} {name}" if role else name)
        elif all(p not in shown for p in who[i:]):
            parts.append("guests" if len(who) - i > 1 else "a guest")
            break
        else:
            parts.append("a guest")
    if len(parts) == 1:
        return parts[0]
    text = f"{', '.join(parts[:-1])} and {parts[-1]}"
    return text[0].upper() + text[1:]


def _verb_phrase(verb: int, phrase: str, *, plural: bool) -> str:
    """The caption's verb before its place: "attends the premiere of T", "arrive at …"."""
    if verb == 0:
        return phrase
    if verb == 1 and phrase.startswith("at "):
        return ("attend " if plural else "attends ") + phrase[3:]
    if verb == 3:
        return ("pose " if plural else "poses ") + phrase
    return ("arrive " if plural else "arrives ") + phrase


def fame_popularity(events: int) -> float:
    """What a page's subject adds to its popularity: 0.5·log2(events), at most 3."""
    return min(3.0, 0.5 * math.log2(max(1, events)))
