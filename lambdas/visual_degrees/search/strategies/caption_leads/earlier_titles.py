"""Titles earlier runs read, kept by whom they name: a new end tied to the graph with no search.

Every page a run buys holds some 200 titles, most naming people the run never asks about. Later in
a deployment's life, a question's new end (nobody the evidence graph links) has often been named
already, beside someone of the graph, in a title of a page an earlier run read. So each page's titles
naming two or more people are kept by each person they name (SharedMemory.note_titles), and before
S1 buys a page for a question with a new end, the titles naming that end with someone of the other
end's part of the graph are read back as a page of their own, at no paid call. Their photos are
recognised like any lead's: only faces matched at >= 80 on both make a link, and a title that was
wrong costs one recognition. When none closes a chain, S1 goes on as before.

With both ends new, S1's page for the pair comes first (a photo of the two is the shortest chain
there is). When it shows none, titles naming each end with someone the graph holds are read back:
the end whose meeting point is closest, in the graph, to one of the other end's is tied first, and
the other end is then a new end beside a known one, as above (page_about_both).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from visual_degrees.domain.captions import keys_in_title
from visual_degrees.domain.models import ImageHit, Person
from visual_degrees.search.known_edges import near, new_and_known, shortest_known
from visual_degrees.search.named_in_graph import CHAINS, LOOKUPS, Lookups, bring_in, in_graph
from visual_degrees.search.scope import SearchScope

# Titles read back per new end: one query of its items.
TITLES_READ = 60
# Adjacency reads spent finding who of the known end's part of the graph a chain may go through.
ADJACENCY_READS = 40
# Photos recognised for a new end before S1 buys its page (each the price of a fifth of a search).
PHOTOS_TRIED = 2
# With both ends new: meeting points of each end whose distance in the graph is looked up (pairs of
# them, each one look of known_edges.MAX_READS reads at most).
MEETING_POINTS = 3
# Both ends in the graph but apart: titles read before naming one end with the other or with someone
# at most this many links from them (a chain of three at most: S1's page for the pair, bought
# instead, most often shows the two together; 1 and 2 measured alike, 2 a little cheaper).
APART_LINKS = 2
# People of one title it is kept under: a crowd's caption is a poor lead for anyone in it.
MOST_NAMED = 6
# Entries (a person, a photo) kept of one page, the smallest groups first: each is a small item
# written in batches of 25 (Memory.put_all), so 600 are 24 requests and 600 write units, about
# $0.0004 on demand (7.5 % of the search that bought the page). The pages of the 400 most credited
# people hold up to 128 on the sandbox's realistic web, up to 553 on its clean web, whose captions
# name everyone (scripts/sandbox_web_shape.py); at 60 a page, the clean web's streams paid a search
# for new ends a title read before named (docs/benchmarks/stream.md, round 9).
KEPT_PER_PAGE = 600


def page_name(name: str) -> str:
    """The name the run's leads keep these titles under, as a page of their own."""
    return f"titles earlier runs read naming {name}"


def note_page(scope: SearchScope, hits: list[ImageHit]) -> None:
    """Keep a page's titles naming two to MOST_NAMED people under each person they name."""
    named = [(keys, hit) for hit in hits if 2 <= len(keys := keys_in_title(hit.title)) <= MOST_NAMED]
    named.sort(key=lambda entry: len(entry[0]))  # stable: the engine's order among equals
    by_person: dict[str, list[ImageHit]] = defaultdict(list)
    kept = 0
    for keys, hit in named:
        if kept + len(keys) > KEPT_PER_PAGE:
            break
        kept += len(keys)
        for key in keys:
            by_person[key].append(hit)
    if by_person:
        scope.shared.note_titles(by_person)


def pages_of(scope: SearchScope, people: list[str]) -> list[dict[str, Any]]:
    """The titles naming each of these people (keys), as pages to journal: {"name", "hits"}."""
    pages = []
    for key in people:
        hits = scope.shared.titles_naming(key, TITLES_READ)
        if hits:
            pages.append({"name": scope.person(key).name, "hits": [h.dump() for h in hits]})
    return pages


def page_about(scope: SearchScope) -> tuple[Person, list[ImageHit]] | None:
    """(the new end, the titles naming it with someone of the other end's part of the graph, the
    likeliest first), or None unless exactly one end is new to the graph and such titles exist."""
    ends = new_and_known(scope)
    return None if ends is None else _toward(scope, *ends)


def page_about_apart(scope: SearchScope) -> tuple[Person, list[ImageHit]] | None:
    """Both ends in the graph, which holds no chain between them within the hop limit (S1's look
    found none): titles naming one end with the other or with someone at most APART_LINKS links
    from them, before S1 buys the pair's page; else None."""
    a, b = scope.state.person_a, scope.state.person_b
    if not (scope.known.holds(a.key) and scope.known.holds(b.key)):
        return None
    for end, other in ((a, b), (b, a)):
        got = _toward(scope, end, other, APART_LINKS)
        if got is not None:
            return got
    return None


def _toward(
    scope: SearchScope, new: Person, known: Person, links: int | None = None
) -> tuple[Person, list[ImageHit]] | None:
    """The titles naming `new` with someone of `known`'s part of the graph (`links`: at most that
    many links from `known`, else any a chain fits through), the likeliest first."""
    hits = scope.shared.titles_naming(new.key, TITLES_READ)
    if not hits:
        return None
    # Those of the known end's part a chain fits through with one more link, to the new end; and,
    # further out, those the graph links to the known end (their chain brought into the run).
    depth, _, _ = near(scope, known.key, ADJACENCY_READS)
    if links is not None:
        depth = {key: d for key, d in depth.items() if d <= links}
    kept: list[tuple[int, int, ImageHit]] = []
    lookups, chains = Lookups(LOOKUPS), 0
    for hit in hits:
        others = [key for key in keys_in_title(hit.title) if key != new.key]
        nearest = min((depth[key] for key in others if key in depth), default=None)
        if nearest is None and chains < CHAINS and links is None:
            for person in in_graph(scope, others, lookups):
                chains += 1
                got = bring_in(scope, person, known.key, scope.options.max_hops - 1)
                if got is not None:
                    nearest = depth[person] = got[0]
                    break
        if nearest is not None:
            kept.append((nearest, len(others), hit))
    # The shortest chain first, then smaller groups (their faces show clearer).
    kept.sort(key=lambda entry: (entry[0], entry[1], entry[2].image_url))
    return (new, [hit for *_, hit in kept]) if kept else None


def page_about_both(scope: SearchScope) -> tuple[Person, list[ImageHit]] | None:
    """Both ends new to the graph, and titles naming each of them with someone it holds: (the end
    to tie first, its titles, those naming the meeting point closest in the graph to one of the
    other end's first), or None. A photo of the two ends together comes first of all."""
    a, b = scope.state.person_a, scope.state.person_b
    if scope.known.holds(a.key) or scope.known.holds(b.key):
        return None
    titled: dict[str, tuple[list[ImageHit], list[str]]] = {}
    for end, other in ((a, b), (b, a)):
        hits = scope.shared.titles_naming(end.key, TITLES_READ)
        both = [hit for hit in hits if other.key in keys_in_title(hit.title)]
        if both:
            return end, both
        named = list(dict.fromkeys(k for hit in hits for k in keys_in_title(hit.title) if k != end.key))
        met = in_graph(scope, named, Lookups(LOOKUPS))[:MEETING_POINTS]
        if not met:
            return None
        titled[end.key] = ([hit for hit in hits if set(met) & set(keys_in_title(hit.title))], met)
    # The chain end..x..y..other must fit: x..y at most max_hops - 2 links.
    hops = scope.options.max_hops - 2
    closest = None
    for x in titled[a.key][1]:
        for y in titled[b.key][1]:
            keys = [x] if x == y else shortest_known(scope, x, y, hops) if hops > 0 else None
            if keys is not None and (closest is None or len(keys) < closest[0]):
                closest = (len(keys), x)
    if closest is None:
        return None
    first = closest[1]
    hits = sorted(
        titled[a.key][0], key=lambda h: (first not in keys_in_title(h.title), len(keys_in_title(h.title)))
    )
    return a, hits
