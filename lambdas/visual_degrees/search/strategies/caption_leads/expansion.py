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
from dataclasses import dataclass
from typing import Literal

from visual_degrees.domain.queries import discovery_query, pair_query
from visual_degrees.lifecycle.scope import RunScope
from visual_degrees.search import hints
from visual_degrees.search.strategies.caption_leads.chains import name, neighbours, pair_cost
from visual_degrees.search.strategies.caption_leads.leads import LeadBook

Side = Literal["A", "B"]


@dataclass(frozen=True)
class Expansion:
    query: str
    subjects: list[str]
    side: Side
    depth: int


def sides(scope: RunScope, book: LeadBook) -> dict[Side, dict[str, int]]:
    """Distance of everyone tied to each end (links, titles, hunches), up to max_hops - 1."""
    state = scope.state
    roots: dict[Side, str] = {"A": state.person_a.key, "B": state.person_b.key}
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


def ranked(scope: RunScope, book: LeadBook, depth: dict[str, int]) -> list[str]:
    """A side's open people, best first."""
    deepest = scope.options.max_hops - 2
    open_ = [k for k, d in depth.items() if d <= deepest and not book.searched(k) and not book.complete(k)]
    return sorted(open_, key=lambda k: (depth[k], -book.named_count(k), k))


def next_expansion(scope: RunScope, book: LeadBook) -> Expansion | None:
    """The next page to read, or None when nobody is left to search on a side: every chain needs
    someone of each side, and the other side's pages cannot show this side's people (its titles
    are all read)."""
    hinted = hints.unsearched(scope, book)
    if hinted is not None:  # the user's hint failed as it stood: their own page first
        query = discovery_query(name(scope, book, hinted), 1) or name(scope, book, hinted)
        return Expansion(query=query, subjects=[hinted], side="A", depth=1)
    both = sides(scope, book)
    best = {side: ranked(scope, book, depth) for side, depth in both.items()}
    a = best["A"][0] if best["A"] else None
    b = best["B"][0] if best["B"] else None
    if a is None or b is None:
        return None
    if scope.knobs.pair_expansion and a != b:
        query = pair_query(name(scope, book, a), name(scope, book, b))
        if query not in book.queries:
            return Expansion(query=query, subjects=[a, b], side="A", depth=both["A"][a])
    side: Side = "A" if a is not None and (b is None or len(both["A"]) <= len(both["B"])) else "B"
    key = a if side == "A" else b
    assert key is not None
    query = discovery_query(name(scope, book, key), 1) or name(scope, book, key)  # "X with": groups first
    return Expansion(query=query, subjects=[key], side=side, depth=both[side][key])


def unseen_ends(scope: RunScope, book: LeadBook) -> list[str]:
    """Ends that a page about them was read for and no title names (and no link shows)."""
    return [key for key in unlinked_ends(scope, book) if not book.named_count(key)]


def unlinked_ends(scope: RunScope, book: LeadBook) -> list[str]:
    """Ends that a page about them was read for and no photo shows with anyone yet."""
    state = scope.state
    ends = (state.person_a.key, state.person_b.key)
    return [key for key in ends if (book.searched(key) or book.complete(key)) and not scope.graph.degree(key)]


def closed_sides(scope: RunScope, book: LeadBook) -> list[str]:
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
