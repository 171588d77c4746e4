"""A new end tied to the evidence graph for one search (issue 20).

Later in a deployment's life most questions have one end the graph already holds and one it does
not. The run's job is then to tie the new end to anyone of the known end's component (a chain on
from there is read from the graph), not to build a chain from nothing: before S1 buys its page,
the planner is asked once which people of that component the new end appeared with (the
candidates, read from the graph: the best linked first), and S1's one search asks for the pair and
the planner's best guess at once ("K N X": the engine ranks photos naming two of the names above
those naming one, so the page holds N with K and N with X). Its photos naming the new end with a
candidate are leads like any other, recognised as the strategy proves any lead; a guess is never a
link. Measured on 90-question streams: such a question costs about one search, one LLM call and a
recognition or two when the guess is right (docs/benchmarks/stream.md, round 4).

Both ends connected in the graph are answered from it (known_edges.earlier_chain). Both ends new
(or both in it, unconnected), no planner, no guess into the graph, or the question asked before
and left unsolved (what that run read is reused, known_edges.asked_before): S1 reads the pair's
own page.
"""

from __future__ import annotations

import hashlib

from visual_degrees.domain.names import name_key
from visual_degrees.domain.planning import (
    ConnectContext,
    ProposedLink,
    SidePerson,
)
from visual_degrees.domain.queries import pair_query
from visual_degrees.domain.wording import plural
from visual_degrees.search.known_edges import near, new_and_known
from visual_degrees.search.scope import SearchScope
from visual_degrees.search.strategies.caption_leads.matching import ask_planner, keep_hunches

# Adjacency reads spent choosing the candidates: the known end's and its nearest people's.
CANDIDATE_READS = 40
# People of the graph offered to the planner: a name is a few tokens (40 cost about $0.0005 at the
# default model's price), and the more of the component it is shown, the likelier it remembers the
# new end with one of them (20 and 40 measured alike on four streams; 40 a little cheaper).
CANDIDATES = 40
ATTEMPTS = 2  # LLM calls the question may take (a rejected answer is fed back once)


def first_query(scope: SearchScope, *, ask: bool = True) -> str | None:
    """S1's query when one end is new to the graph and the planner named people of the other's
    component the new end met: "K N X", journalled. None: the pair's own page."""
    if not (ask and scope.rules.remember_edges):
        return None
    return scope.decide("graph.link", lambda: _link_query(scope))


def _link_query(scope: SearchScope) -> str | None:
    a, b = scope.state.person_a, scope.state.person_b
    if scope.rules.shared_cache and scope.shared.unsolved(a.key, b.key) is not None:
        return None  # asked before and unsolved: that run's pages and hunches are reused, not bought again
    ends = new_and_known(scope)
    planner = scope.ctx.providers.planner
    if ends is None or planner is None or not hasattr(planner, "connect"):
        return None
    new, known = ends
    people = candidates(scope, known.key)
    if not people or scope.budget.remaining("llmCalls") <= 0:
        return None
    context = ConnectContext(
        person_a=new.name,
        person_b=known.name,
        side_a=[],
        side_b=people,
        max_hops=scope.options.max_hops,
        remaining_searches=scope.budget.remaining("searches"),
    )
    scope.status(
        f"{new.name} is new to the evidence graph and {known.name} is in it: asking the planner whom "
        f"{new.name} worked with among {plural(len(people), 'person', 'people')} it links to {known.name}",
        earlier=True,
    )
    links = ask_planner(scope, planner, context, ATTEMPTS, signature(context))
    scope.leads.record_ask(len(scope.leads.asks()), {"graphLink": True, "links": len(links or [])})
    distance = {name_key(p.name): p.distance for p in people}
    found = guesses(links or [], new.key, distance)
    keep_hunches(scope, links or [])
    if not found:
        return None
    # One guess: "K N X" names N next to both K and X, so the page counts as both pairs' own search
    # (a second guess, "K N X Y", measured no cheaper, and its pair would be searched again).
    return pair_query(pair_query(known.name, new.name), _name(links or [], found[0]))


def signature(context: ConnectContext) -> str:
    text = context.model_dump_json(by_alias=True, exclude={"remaining_searches", "feedback"})
    return "graph-link:" + hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def page_of_pair(pages: dict[str, int], *pair: str) -> tuple[str, int] | None:
    """The page read for a pair (its query, either order, and its length): its own, else S1's page
    for the pair and a guess, whose query starts with the pair's and which ranks its photos as high."""
    read = [(q, n) for q, n in pages.items() if q in pair or q.startswith(tuple(f"{p} " for p in pair))]
    return min(read, key=lambda page: len(page[0])) if read else None


def candidates(scope: SearchScope, end: str) -> list[SidePerson]:
    """People of `end`'s component to offer the planner, at most CANDIDATES (see `near`): those
    linked to the most of the people read first (a hub has met more people), then the nearest."""
    depth, seen, names = near(scope, end, CANDIDATE_READS)
    ranked = sorted((k for k in depth if k != end), key=lambda k: (-seen[k], depth[k], k))
    return [SidePerson(name=names[k], distance=depth[k]) for k in ranked[:CANDIDATES]]


def guesses(links: list[ProposedLink], new: str, distance: dict[str, int]) -> list[str]:
    """The candidates the planner says the new end met (keys), nearest the known end first, then
    the surest."""
    found: dict[str, float] = {}
    for link in links:
        x, y = name_key(link.a), name_key(link.b)
        other = y if x == new else x if y == new else None
        if other is not None and other in distance:
            found[other] = max(found.get(other, 0.0), link.confidence)
    return sorted(found, key=lambda k: (distance[k], -found[k], k))


def _name(links: list[ProposedLink], key: str) -> str:
    return next(name for link in links for name in (link.a, link.b) if name_key(name) == key)
