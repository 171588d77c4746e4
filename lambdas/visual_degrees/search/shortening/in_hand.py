"""Photos the run holds that may show a shortcut no title names.

On the realistic web most captions name one person or none ("X - Pictures and Photos"), so the
photo proving a shorter chain is often on a page the run already read, under a title naming only
one person of the chain, or one of them "and others". When no lead is left, recognising a few of
those (a recognition each, no search) is the cheapest way left to a shorter chain: every face in a
photo is named, so one recognition may show two people of the chain together, or someone with one
of them whom another photo shows with a person further along. Which photos: not yet recognised,
not a portrait, a title naming people of the chain only (or them with unnamed guests), those found
by a search about a person of the chain far from the one they name first (a page about Y that
shows a photo titled for X was matched to Y somehow), then those of people nearer an end (a
shortcut from them may skip more pairs), then those with unnamed guests, then the smaller groups.
"""

from __future__ import annotations

from visual_degrees.search.strategies.caption_leads.leads import LeadBook


def photos_in_hand(book: LeadBook, chain: list[str], limit: int) -> list[str]:
    """Up to `limit` photos to recognise for a chain shorter than `chain` (person keys, A..B)."""
    at = {key: i for i, key in enumerate(chain)}
    last = len(chain) - 1
    ranked: list[tuple[int, int, bool, int, str]] = []
    for url in book.open:
        photo = book.photos[url]
        members = [at[key] for key in photo.keys if key in at]
        if not members or photo.portrait:
            continue
        if len(members) < len(photo.keys):
            continue  # a title naming someone else is a lead already priced by the strategy
        if max(members) - min(members) > 1:
            continue  # it names two people of the chain apart: a lead the strategy tried first
        asked = [at[key] for query in photo.queries for key in book.page_subjects.get(query, ()) if key in at]
        spread = max((abs(s - m) for s in asked for m in members), default=0)
        reach = max(max(m, last - m) for m in members)  # how many pairs a shortcut from it may skip
        ranked.append((-spread, -reach, not photo.unnamed, len(photo.keys), url))
    return [url for *_, url in sorted(ranked)[:limit]]
