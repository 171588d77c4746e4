"""The chain agenda: where to spend next, from everything the run knows.

Knowledge proposes, photos prove. The run keeps three kinds of pairs: *links* (a recognised photo of
both, the run graph), *leads* (a title names both, or names one with unnamed guests at an event the
other was at) and *hunches* (the planner believes they worked together). The agenda looks for the
cheapest chain A..B within max hops over all three, pricing each pair by what proving it would cost
(a link nothing, a lead one recognition, a hunch a pair search), and the run acts on its first
unproven pair. When no chain exists, a person is searched to read more titles (expansion.py).

Every choice is a pure function of run memory, so a re-run step that journals its choices replays them.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from visual_degrees.domain.models import ImageHit
from visual_degrees.domain.paths import edge_id
from visual_degrees.domain.queries import pair_query
from visual_degrees.search.evidence import record
from visual_degrees.search.named_in_graph import tie_named
from visual_degrees.search.observe import Observed, prefetch, read_page, recognise
from visual_degrees.search.scope import SearchScope
from visual_degrees.search.strategies.caption_leads import earlier_titles
from visual_degrees.search.strategies.caption_leads.leads import LeadBook

# Relative prices of proving a pair (a search costs five recognitions at list prices); a hunch costs
# a search plus the chance that the planner is wrong, a guest photo a recognition that often misses.
COST_LINK = 0.0
COST_LEAD = 1.0
COST_GUEST = 2.0
COST_RETRY = 6.0  # named together, but every photo in hand failed: a pair search may find more
COST_HUNCH = 8.0
COST_USER_HUNCH = 0.1  # the user's hint (search/hints.py): checked before any other lead
COST_WEAK = 5.0  # a link shown only by a photo that may be a lookalike: a second photo is needed
# Every pair of someone's that was searched for and failed makes their next hunch dearer: what the
# planner knows (who shared a film) is not who was photographed together, and a person whose hunches
# keep failing is one the web rarely names with anyone.
COST_FAILED_HUNCH = 8.0
# A chain dearer than this (two hunches no failure has made dearer) is not worth chasing while someone
# is still left to read a page about: a page of titles is one search, and names who met.
COST_WORTH_CHASING = 2 * COST_HUNCH
PHOTOS_PER_TRY = 2  # photos of one pair recognised at once (concurrently)
# Results a page must hold for one query to search two pairs of a chain at once (Brave's 200 do;
# Google's 10 would be crowded by one pair's photos).
CHAIN_QUERY_PAGE = 50
FREE = ""  # the page a photo is charged to when its image was recognised before (no query's)


@dataclass(frozen=True)
class Chain:
    keys: list[str]
    cost: float

    def pairs(self) -> list[tuple[str, str]]:
        return list(zip(self.keys, self.keys[1:], strict=False))


def pair_cost(scope: SearchScope, book: LeadBook, x: str, y: str) -> float | None:
    """What proving x–y would cost now, or None if nothing known could prove it (memoised on the
    book: a step that changes the run graph or the leads reads a new book)."""
    pair = (x, y) if x < y else (y, x)
    if pair not in book.costs:
        cost = _pair_cost(scope, book, x, y)
        hunch = book.hunches.get(x, {}).get(y)
        if cost is not None and cost > COST_LINK and hunch is not None and hunch.source == "user":
            cost = min(cost, COST_USER_HUNCH)
        book.costs[pair] = cost
    return book.costs[pair]


def _pair_cost(scope: SearchScope, book: LeadBook, x: str, y: str) -> float | None:
    graph = scope.graph
    if graph.confidence(x, y) is not None:
        if graph.trusted(x, y, scope.rules.strong_confidence):
            return COST_LINK
        if edge_id(x, y) in book.doubted or book.blocked(x, y):
            return None  # a second photo was looked for and not found: the pair stays doubtful
        if book.has_open_photo(x, y):
            return COST_LEAD
        return None if book.searched_pair(x, y) else COST_WEAK
    if book.blocked(x, y):
        return None
    named_together = y in book.adjacent.get(x, {})
    if named_together and book.has_open_photo(x, y):
        return COST_LEAD
    guests = book.knobs.guest_photos and book.guests_for(x, y)
    if guests:
        return COST_GUEST  # one of them may be the unnamed guest of a photo of the other
    if not named_together and y not in book.hunches.get(x, {}):
        return None
    if book.searched_pair(x, y):
        return None
    if named_together:
        return COST_RETRY
    return COST_HUNCH + COST_FAILED_HUNCH * (book.failed_pairs(x) + book.failed_pairs(y))


def neighbours(scope: SearchScope, book: LeadBook, key: str) -> set[str]:
    return scope.graph.neighbors(key).keys() | book.neighbours(key)


def best_chain(scope: SearchScope, book: LeadBook, max_hops: int | None = None) -> Chain | None:
    """The cheapest chain A..B of at most max_hops pairs (the run's unless given; ties: fewer
    pairs), or None.

    Dijkstra over (person, pairs so far): a person reached cheaply but late must not hide a dearer
    route that reaches them early enough to go on; a state is skipped only when the same person
    was settled before (so at no higher cost) in no more pairs."""
    state = scope.state
    a, b = state.person_a.key, state.person_b.key
    max_hops = scope.options.max_hops if max_hops is None else max_hops
    fewest: dict[str, int] = {}  # person -> fewest pairs of a settled state (costs only grow)
    dist: dict[tuple[str, int], float] = {(a, 0): 0.0}
    parent: dict[tuple[str, int], tuple[str, int]] = {}
    heap: list[tuple[float, int, str]] = [(0.0, 0, a)]
    while heap:
        cost, hops, node = heapq.heappop(heap)
        if fewest.get(node, max_hops + 1) <= hops or cost > dist[node, hops]:
            continue
        fewest[node] = hops
        if node == b:
            keys = [b]
            at = (b, hops)
            while at in parent:
                at = parent[at]
                keys.append(at[0])
            return Chain(keys=keys[::-1], cost=cost)
        if hops >= max_hops:
            continue
        for nxt in sorted(neighbours(scope, book, node)):
            if fewest.get(nxt, max_hops + 1) <= hops + 1:
                continue
            step = pair_cost(scope, book, node, nxt)
            if step is None:
                continue
            if cost + step < dist.get((nxt, hops + 1), float("inf")):
                dist[nxt, hops + 1] = cost + step
                parent[nxt, hops + 1] = (node, hops)
                heapq.heappush(heap, (cost + step, hops + 1, nxt))
    return None


def next_pair(
    scope: SearchScope, book: LeadBook, max_hops: int | None = None, *, dearest: float | None = None
) -> list[str] | None:
    """The first pair of the best chain (of at most max_hops pairs) that is not yet a trusted link
    (None: no chain to work on, or with `dearest`, none costing at most that)."""
    chain = best_chain(scope, book, max_hops)
    if chain is not None and dearest is not None and chain.cost > dearest:
        return None
    return unproven_pair(scope, book, chain)


def unproven_pair(scope: SearchScope, book: LeadBook, chain: Chain | None) -> list[str] | None:
    """The chain's first pair that is not yet a trusted link (None: no chain, or every pair is one)."""
    if chain is None:
        return None
    for x, y in chain.pairs():
        if pair_cost(scope, book, x, y) != COST_LINK:
            return [x, y]
    return None


def prove(scope: SearchScope, book: LeadBook, x: str, y: str, tag: str = "") -> Observed:
    """Spend on proving x–y: recognise photos that may show both; if none is in hand, search the
    pair ("X Y" ranks photos naming both first) and recognise from that page. A pair nothing more
    can be tried for is marked, so no chain is priced through it again. Which photos, and whether to
    search, are journalled (under `tag` too, for a second attempt in one step): a re-run step repeats
    them rather than seeing its own side effects."""
    nx, ny = book.name(x), book.name(y)
    urls = scope.decide(f"{tag}photos.{x}|{y}", lambda: _photos_for(scope, book, x, y)[:PHOTOS_PER_TRY])
    if not urls:
        then = scope.decide(f"{tag}then.{x}|{y}", lambda: _searched_next(scope, book, x, y))
        query = pair_query(nx, ny) if then is None else chain_query(nx, ny, book.name(then))
        if then is None:
            scope.status(f"Checking {nx} — {ny}: searching {query!r}")
        else:
            scope.status(f"Checking {nx} — {ny}, then {ny} — {book.name(then)}: searching {query!r}")
        page = read(scope, query, [])
        if page.exhausted or page.failed:
            return page
        book = book.reread()
        if then is not None and not _photos_for(scope, book, y, then):
            scope.leads.mark_nolink(y, then)  # its pair search was this page: the planner hears of it
        urls = scope.decide(f"{tag}found.{x}|{y}", lambda: _photos_for(scope, book, x, y)[:PHOTOS_PER_TRY])
        if not urls:
            scope.leads.mark_nolink(x, y)
            scope.status(f"No photo found of {nx} with {ny}")
            return page
    observed = look(scope, book, urls)
    settled = scope.graph.trusted(x, y, scope.rules.strong_confidence)
    if not settled and book.searched_pair(x, y) and not _photos_for(scope, book.reread(), x, y):
        scope.leads.mark_nolink(x, y)  # nothing more to try for this pair: never priced again
        scope.status(f"No photo found of {nx} with {ny}")
    return observed


def chain_query(x: str, y: str, z: str) -> str:
    """One query for the pairs x–y and y–z: the engine ranks photos naming two of the three names
    above those naming one, so a page holds both pairs' photos (two pair templates, composed)."""
    return pair_query(pair_query(x, y), z)


def _searched_next(scope: SearchScope, book: LeadBook, x: str, y: str) -> str | None:
    """z, when the cheapest chain goes on from x–y to y–z and y–z would cost a pair search too: one
    page for both (chain_query) is one search where two pair pages are two. Only on an engine whose
    page is long enough (CHAIN_QUERY_PAGE) that two pairs' photos do not crowd each other out."""
    if book.page_size < CHAIN_QUERY_PAGE:
        return None
    chain = best_chain(scope, book)
    if chain is None:
        return None
    pairs = chain.pairs()
    at = next((i for i, pair in enumerate(pairs) if pair == (x, y)), None)
    if at is None or at + 1 >= len(pairs):
        return None
    z = pairs[at + 1][1]
    needs_search = z not in (x, y) and not book.photos_of_pair(y, z) and not book.searched_pair(y, z)
    return z if needs_search and pair_cost(scope, book, y, z) is not None else None


def price(scope: SearchScope, book: LeadBook, x: str, y: str) -> tuple[int, int]:
    """The most `prove` may spend on x–y: (searches, recognitions)."""
    in_hand = len(_photos_for(scope, book, x, y)[:PHOTOS_PER_TRY])
    return (0, in_hand) if in_hand else (1, PHOTOS_PER_TRY)


def _photos_for(scope: SearchScope, book: LeadBook, x: str, y: str) -> list[str]:
    return book.photos_for(x, y) if book.knobs.guest_photos else book.photos_of_pair(x, y)


def read(scope: SearchScope, query: str, subjects: list[str]) -> Observed:
    """Read one page of results into the run's leads (one paid search, or a cache)."""
    observed = Observed()
    hits = read_page(scope, query, shared=scope.rules.shared_cache, result=observed)
    if hits is not None and not observed.failed:
        scope.leads.save_page(query, subjects, hits, scope.ctx.clock.now())
        if scope.rules.shared_cache and scope.rules.remember_edges and observed.searched:
            earlier_titles.note_page(scope, hits)  # bought now: earlier runs' pages are kept already
        scope.decide(f"named.{query}", lambda: tie_named(scope, hits))
    return observed


def look(scope: SearchScope, book: LeadBook, urls: list[str]) -> Observed:
    """Recognise these photos (each charged to a page it came on, at most images_per_search per
    page), then add what they prove to the run graph, one `evidence` card per photo."""
    rules = scope.rules
    fresh = [book.photos[url].hit for url in urls if url not in book.looked]
    fetched = prefetch(scope, fresh, parallel=rules.parallel_images, shared=rules.shared_cache)
    chosen = []
    for url in urls:
        photo = book.photos[url]
        if url in book.looked:  # a re-run step: charged already
            chosen.append((book.looked[url] or photo.queries[-1], photo.hit))
            continue
        page = book.page_for(url)
        if url in fetched.known:
            # The same image recognised under another URL costs nothing and takes none of the
            # page's recognitions; it is shown with this page, where the run found it now.
            scope.leads.mark_looked(url, FREE)
            chosen.append((page or photo.queries[-1], photo.hit))
        elif page is not None:
            book.quota_used[page] = book.quota_used.get(page, 0) + 1  # the next photo sees it
            chosen.append((scope.leads.mark_looked(url, page), photo.hit))
    observed = Observed()
    by_page: dict[str, list[ImageHit]] = {}
    for page, hit in chosen:
        by_page.setdefault(page, []).append(hit)
    for page, hits in by_page.items():
        got = recognise(
            scope, hits, page, parallel=rules.parallel_images, shared=rules.shared_cache, prefetched=fetched
        )
        observed.observations += got.observations
        observed.skipped += got.skipped
        observed.exhausted = observed.exhausted or got.exhausted
    record(scope, observed, frontier=None, focus=None)
    return observed
