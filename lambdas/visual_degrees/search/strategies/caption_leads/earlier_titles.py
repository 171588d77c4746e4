"""Titles earlier runs read, kept by whom they name: a new end tied to the graph with no search.

Every page a run buys holds some 200 titles, most naming people the run never asks about. Later in
a deployment's life, a question's new end (nobody the evidence graph links) has often been named
already, beside someone of the graph, in a title of a page an earlier run read. So each page's titles
naming two or more people are kept by each person they name (SharedMemory.note_titles), and before
S1 buys a page for a question with a new end, the titles naming that end with someone of the other
end's part of the graph are read back as a page of their own, at no paid call. Their photos are
recognised like any lead's: only faces matched at >= 80 on both make a link, and a title that was
wrong costs one recognition. When none closes a chain, S1 goes on as before.
"""

from __future__ import annotations

from collections import defaultdict

from visual_degrees.domain.captions import keys_in_title
from visual_degrees.domain.models import ImageHit, Person
from visual_degrees.search.known_edges import near, new_and_known
from visual_degrees.search.named_in_graph import CHAINS, LOOKUPS, Lookups, bring_in, in_graph
from visual_degrees.search.scope import SearchScope

# Titles read back per new end: one query of its items.
TITLES_READ = 60
# Adjacency reads spent finding who of the known end's part of the graph a chain may go through.
ADJACENCY_READS = 40
# Photos recognised for a new end before S1 buys its page (each the price of a fifth of a search).
PHOTOS_TRIED = 2
# People of one title it is kept under: a crowd's caption is a poor lead for anyone in it.
MOST_NAMED = 6
# Entries (a person, a photo) kept of one page, the smallest groups first: each is a write, and a
# page bought must not cost a second's worth of them (the sandbox's realistic web averages 6).
KEPT_PER_PAGE = 60


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
    for key, photos in by_person.items():
        scope.shared.note_titles(key, photos)


def page_about(scope: SearchScope) -> tuple[Person, list[ImageHit]] | None:
    """(the new end, the titles naming it with someone of the other end's part of the graph, the
    likeliest first), or None unless exactly one end is new to the graph and such titles exist."""
    ends = new_and_known(scope)
    if ends is None:
        return None
    new, known = ends
    hits = scope.shared.titles_naming(new.key, TITLES_READ)
    if not hits:
        return None
    # Those of the known end's part a chain fits through with one more link, to the new end; and,
    # further out, those the graph links to the known end (their chain brought into the run).
    depth, _, _ = near(scope, known.key, ADJACENCY_READS)
    kept: list[tuple[int, int, ImageHit]] = []
    lookups, chains = Lookups(LOOKUPS), 0
    for hit in hits:
        others = [key for key in keys_in_title(hit.title) if key != new.key]
        nearest = min((depth[key] for key in others if key in depth), default=None)
        if nearest is None and chains < CHAINS:
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
