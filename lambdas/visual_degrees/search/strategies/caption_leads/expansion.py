"""Whom to search next when no chain is in sight: one open person of A's side and one of B's, in one
query ("X Y"). The engine ranks photos naming both first (a link, if they ever met), then fills the
page with photos naming either: one paid request reads both people's titles.

A side is everyone a link, a title or a hunch ties to its end, by distance; the best open person of
a side is the nearest, then the most photographed (named in the most titles read so far: hubs know
more people). A person is open until a page about them was read, and only while a chain through them
could still fit within max hops.
"""

from __future__ import annotations

from collections import deque

from visual_degrees.domain.journal import PageToRead
from visual_degrees.domain.models import Side
from visual_degrees.domain.names import name_key
from visual_degrees.domain.queries import discovery_query, pair_query
from visual_degrees.search.scope import SearchScope
from visual_degrees.search.strategies.caption_leads.chains import neighbours, pair_cost
from visual_degrees.search.strategies.caption_leads.leads import LeadBook


def sides(scope: SearchScope, book: LeadBook) -> dict[Side, dict[str, int]]:
    """Distance of everyone tied to each end (links, titles, hunches), up to max_hops - 1."""
    roots: dict[Side, str] = {side: scope.state.end(side).key for side in ("A", "B")}
    limit = scope.options.max_hops - 1
    found: dict[Side, dict[str, int]] = {}
    for side, root in roots.items():
        depth = {root: 0}
        queue = deque([root])
        while queue:
            node = queue.popleft()
            if depth[node] >= limit:
                continue
            for nxt in sorted(neighbours(scope, book, node)):
                # Only pairs a chain could still use: a lead whose photos all failed and whose pair
                # page was read ties nobody to a side any more.
                if nxt not in depth and pair_cost(scope, book, node, nxt) is not None:
                    depth[nxt] = depth[node] + 1
                    queue.append(nxt)
        found[side] = depth
    return found


def ranked(scope: SearchScope, book: LeadBook, depth: dict[str, int]) -> list[str]:
    """A side's open people, best first."""
    deepest = scope.options.max_hops - 2
    open_ = [k for k, d in depth.items() if d <= deepest and not book.searched(k) and not book.complete(k)]
    return sorted(open_, key=lambda k: (depth[k], -book.named_count(k), k))


def next_expansion(scope: SearchScope, book: LeadBook) -> PageToRead | None:
    """The next page to read, or None when nobody is left to search on a side: every chain needs
    someone of each side, and the other side's pages cannot show this side's people (its titles
    are all read)."""
    hinted = unsearched_hint(scope, book)
    if hinted is not None:  # the user's hint failed as it stood: their own page first
        query = discovery_query(book.name(hinted), 1) or book.name(hinted)
        return PageToRead(query=query, subjects=[hinted], side="A", depth=1)
    both = sides(scope, book)
    best = {side: ranked(scope, book, depth) for side, depth in both.items()}
    a = best["A"][0] if best["A"] else None
    b = best["B"][0] if best["B"] else None
    if a is None or b is None:
        return None
    if book.knobs.pair_expansion and a != b:
        query = pair_query(book.name(a), book.name(b))
        if not book.searched_pair(a, b):  # nor a chain's query naming them side by side
            return PageToRead(query=query, subjects=[a, b], side="A", depth=both["A"][a])
    side: Side = "A" if a is not None and (b is None or len(both["A"]) <= len(both["B"])) else "B"
    key = a if side == "A" else b
    assert key is not None
    query = discovery_query(book.name(key), 1) or book.name(key)  # "X with": groups first
    return PageToRead(query=query, subjects=[key], side=side, depth=both[side][key])


def unsearched_hint(scope: SearchScope, book: LeadBook) -> str | None:
    """The hint's person (search/hints.py), when their own page is still to be read and the hint is
    not confirmed yet: the expansion reads it before anyone else's."""
    via = scope.options.via
    if not via:
        return None
    key = name_key(via)
    if book.searched(key) or book.complete(key):
        return None
    a, b = scope.state.person_a.key, scope.state.person_b.key
    graph = scope.graph
    if graph.confidence(a, key) is not None and graph.confidence(key, b) is not None:
        return None
    return key


def unseen_ends(scope: SearchScope, book: LeadBook) -> list[str]:
    """Ends that a page about them was read for and no title names (and no link shows)."""
    return [key for key in unlinked_ends(scope, book) if not book.named_count(key)]


def unlinked_ends(scope: SearchScope, book: LeadBook) -> list[str]:
    """Ends that a page about them was read for and no photo shows with anyone yet."""
    state = scope.state
    ends = (state.person_a.key, state.person_b.key)
    return [key for key in ends if (book.searched(key) or book.complete(key)) and not scope.graph.degree(key)]


def closed_sides(scope: SearchScope, book: LeadBook) -> list[str]:
    """The people of the sides nobody is left to search on (the ends first, then by distance), or
    [] when both sides still have someone open: every chain needs a new person on such a side, and
    only pages about its people's events can show one."""
    both = sides(scope, book)
    people: dict[str, int] = {}
    for depth in both.values():
        if not ranked(scope, book, depth):
            for key, d in depth.items():
                people[key] = min(d, people.get(key, d))
    return sorted(people, key=lambda k: (people[k], -book.named_count(k), k))
