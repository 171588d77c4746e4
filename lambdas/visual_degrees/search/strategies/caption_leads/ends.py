"""Linking each end to the people it was photographed with, from the first page, before any hunch.

Every chain starts and ends with a link at an end. On the realistic web the first page ("A B") holds
the ends' own titles (all of them, for someone photographed rarely): their portraits, which prove
nothing, and a few group photos naming them with others ("(L-R) X, A, Y …", "A and a guest …").
Recognising those is a recognition each (a fifth of a search) and links the end to everyone in it
that the recogniser names, whoever the caption names: the run then works from people proven next to
the end, where a chain of leads may still fail at the end itself (a face in a crowd the recogniser
does not name) after searches were spent on its middle.
"""

from __future__ import annotations

from visual_degrees.search.strategies.caption_leads.leads import LeadBook

# Group photos of one end recognised on the first page: most of a known person's links are in one
# or two of them, and a page has images_per_search recognitions in all.
PER_END = 2


def group_photos(book: LeadBook, end: str) -> list[str]:
    """Photos whose title names `end` with somebody (named or not), still available, not portraits:
    the most people named first (each face the recogniser names is a link), then as ranked."""
    found = [
        url
        for url in book.of.get(end, ())
        if book.available(url)
        and not book.photos[url].portrait
        and (len(book.photos[url].keys) > 1 or book.photos[url].unnamed)
    ]
    return sorted(found, key=lambda url: -len(book.photos[url].keys))  # stable: the page's order


def first_look(book: LeadBook, ends: list[str], limit: int) -> list[str]:
    """Each end's group photos to recognise with the first page, PER_END each, at most `limit`:
    only for an end whose titles are all in hand (the page came back short). A famous end's page is
    full of their portraits and group photos of crowds; the planner and pair searches link them for
    less (cast.G's 20 famous pairs: 5.4 recognitions a run without this look, 9.9 with it)."""
    chosen: list[str] = []
    for end in (end for end in ends if book.all_titles_read(end)):
        chosen += [url for url in group_photos(book, end) if url not in chosen][:PER_END]
    return chosen[:limit]
