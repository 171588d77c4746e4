"""Photos the run holds that may show a shortcut no title names.

On the realistic web most captions name one person or none ("X - Pictures and Photos"), so the
photo proving a shorter chain is often on a page the run already read, under a title naming only
one of the two people it shows. The search engine returned it for its page's query: a photo titled
for X on the page of "X Y" (or of "Y" alone) may show Y. Worth a recognition (no search) when a
link X–Y would make the chain shorter, given the links the run graph holds: the photos whose link
would skip the most pairs first, then those with unnamed guests, then the smaller groups. A photo
whose title names both is a lead the strategy prices itself; a portrait shows one person.
"""

from __future__ import annotations

from visual_degrees.search.scope import SearchScope
from visual_degrees.search.strategies.caption_leads.leads import LeadBook


def photos_in_hand(scope: SearchScope, book: LeadBook, chain: list[str], limit: int) -> list[str]:
    """Up to `limit` photos to recognise for a chain shorter than `chain` (person keys, A..B)."""
    hops = len(chain) - 1
    graph = scope.graph
    from_a, from_b = graph.depths(chain[0], hops), graph.depths(chain[-1], hops)
    far = hops + 1

    def skipped(x: str, y: str) -> int:
        """Pairs of the chain a link x–y would save (0: none)."""
        through = min(
            from_a.get(x, far) + from_b.get(y, far),
            from_a.get(y, far) + from_b.get(x, far),
        )
        return max(0, hops - (through + 1))

    ranked: list[tuple[int, bool, int, str]] = []
    for url in book.open:
        photo = book.photos[url]
        if not photo.keys or photo.portrait:
            continue
        asked = {key for query in photo.queries for key in book.page_subjects.get(query, ())}
        saving = max((skipped(x, y) for x in photo.keys for y in asked if y not in photo.keys), default=0)
        if saving > 0:
            ranked.append((-saving, not photo.unnamed, len(photo.keys), url))
    return [url for *_, url in sorted(ranked)[:limit]]
