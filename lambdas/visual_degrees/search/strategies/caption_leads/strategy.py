"""The default strategy: captions read as leads (knob `caption_leads`), knowledge proposes, photos prove.

- S1 reads one page for "A B" (both people's titles at once) and recognises the photos naming both.
  With the evidence graph, titles earlier runs read may tie a new end first, at no search; with
  both ends new and no photo of the two, they may tie each end after the page (earlier_titles.py).
- S2 reads one more page when no chain is in sight (expansion.py), or none when one is; before
  buying a page it lets S3 ask the planner, whenever the question changed since it last did; it
  stops when an end is in no title and nobody can say where to look for them.
- S3 asks the planner to match the two sides when they changed (matching.py), then picks the first
  unproven pair of the cheapest chain (chains.py).
- S4 proves that pair: photos in hand, else a pair search (one for the next pair of the chain too,
  when it needs one: chains.chain_query).
- S5 moves along the chain: the next unproven pair, one action.

Budgets are reserved in observe.py before every paid call; every decision that changes memory is
journalled (RunScope.decide) so a re-run replays it. The run's position lives in run memory (its
leads and its verified graph): the payload only names the pair S3 picked for S4 and S5.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from visual_degrees.domain.journal import PageToRead
from visual_degrees.domain.models import ImageHit, Person
from visual_degrees.domain.queries import event_query, pair_query
from visual_degrees.domain.records import Position
from visual_degrees.domain.strategy import Knobs
from visual_degrees.domain.wording import plural
from visual_degrees.search.confirm import settle
from visual_degrees.search.known_edges import chain_in_memory, earlier_chain, join_the_graph
from visual_degrees.search.observe import Observed, cached_page
from visual_degrees.search.port import Price, StepResult
from visual_degrees.search.progress import show_progress
from visual_degrees.search.scope import Rules, SearchScope
from visual_degrees.search.strategies.caption_leads import chains, earlier_titles, expansion, matching, rescue
from visual_degrees.search.strategies.caption_leads.graph_link import first_query, page_of_pair
from visual_degrees.search.strategies.caption_leads.leads import LeadBook

# Searches an unseen end's rescue may spend (the planner's hunches about them, checked by pair
# searches whose pages show their co-stars with unnamed guests).
RESCUE_SEARCHES = 4
_ASK_FIRST = "\x00ask"
# Which titles earlier runs read to recognise, and for which end (earlier_titles.py).
TitlesFinder = Callable[[SearchScope], tuple[Person, list[ImageHit]] | None]


class CaptionLeads:
    def __init__(self, knobs: Knobs) -> None:
        self.knobs = knobs
        self.rules = Rules.of(knobs)

    def book(self, scope: SearchScope) -> LeadBook:
        return LeadBook(scope, self.knobs)

    # ---- the five decisions -------------------------------------------------------------------

    def direct(self, scope: SearchScope) -> StepResult:
        known = earlier_chain(scope)
        if known is not None:
            _pair_page_read_before(scope)
            return known
        tied = self._tie_from_titles(scope)
        if tied is None:  # not one end new: both in the graph, which holds no chain between them?
            tied = self._tie_from_titles(scope, earlier_titles.page_about_apart, ".apart")
        if tied is not None and tied.reached:
            return tied
        state = scope.state
        a, b = state.person_a, state.person_b
        both_new = scope.decide(
            "titles.both", lambda: not (scope.known.holds(a.key) or scope.known.holds(b.key))
        )
        query = first_query(scope, ask=self.knobs.planner_matching) or pair_query(a.name, b.name)
        got = chains.read(scope, query, [a.key, b.key])
        book = self.book(scope)
        limit = scope.options.images_per_search
        photos = scope.decide(
            "photos",
            lambda: (book.photos_of_pair(a.key, b.key) or blind_look(book, query, [a.key, b.key]))[:limit],
        )
        looked = chains.look(scope, book, photos)
        join_the_graph(scope)
        if scope.graph.confidence(a.key, b.key) is not None:
            scope.status(f"Found a photo of {a.name} with {b.name}")
        else:
            scope.status(
                f"No photo of {a.name} with {b.name} yet; {plural(len(book.photos), 'title')} read, "
                f"{plural(len(book.names), 'person', 'people')} named"
            )
        reached, confirming = settle(scope, "s1")
        before = (tied.observed or ()) if tied is not None else ()
        observed = (*before, got, looked, confirming)
        if not reached and both_new:
            # No photo of the two: tie each end to the graph by titles read before, the end whose
            # meeting point is nearest the other's first, then the other (earlier_titles.py).
            for n, find in enumerate((earlier_titles.page_about_both, earlier_titles.page_about)):
                again = self._tie_from_titles(scope, find, f".both{n}", tied_enough=n == 0)
                if again is None:
                    break
                observed = (*observed, *(again.observed or ()))
                if again.reached:
                    return StepResult(reached=True, observed=observed)
        return StepResult(reached=reached, observed=observed)

    def _tie_from_titles(
        self,
        scope: SearchScope,
        find: TitlesFinder = earlier_titles.page_about,
        step: str = "",
        *,
        tied_enough: bool = False,
    ) -> StepResult | None:
        """Titles earlier runs read that name a new end with someone of the graph (`find`: by
        default, of the other end's part of it, before S1 buys a page), read back at no paid call,
        and the likeliest of their photos recognised (earlier_titles.py). Reached when a link they
        prove closes a chain in the graph. None: no such titles. `step` tells the journal's
        decisions of a second look apart; `tied_enough`: stop once the end is tied to the graph (the
        other end, new too, is tied next)."""
        if not (scope.rules.remember_edges and scope.rules.shared_cache):
            return None
        found = scope.decide(f"titles{step}", lambda: _titles_page(scope, find))
        if found is None:
            return None
        hits = _read_back(scope, found)
        book = self.book(scope)
        photos = scope.decide(
            f"titles.photos{step}",
            lambda: [h.image_url for h in hits if book.available(h.image_url)][: earlier_titles.PHOTOS_TRIED],
        )
        key = found.get("key", "")  # a step journalled before the key was kept: no early stop
        where = "far from the other end in" if key and scope.known.holds(key) else "new to"
        trying = {0: "none left to recognise", 1: "recognising the likeliest photo"}.get(
            len(photos), f"recognising up to {len(photos)} photos, one at a time"
        )
        scope.status(
            f"{found['name']} is {where} the evidence graph; earlier runs read "
            f"{plural(len(hits), 'title')} naming them with people it links: {trying}",
            earlier=True,
        )
        # One at a time: the first photo most often ties the end, and the next costs as much again.
        looked, reached = [], False
        for n, url in enumerate(photos):
            looked.append(chains.look(scope, self.book(scope), [url]))
            reached = scope.decide(f"remembered.titles{step}.{n}", lambda: chain_in_memory(scope))
            if reached or (tied_enough and key and scope.known.holds(key)):
                break
        if reached:
            scope.status(f"A photo ties {found['name']} to the evidence graph", earlier=True)
        return StepResult(reached=reached, observed=tuple(looked))

    def discover(self, scope: SearchScope) -> StepResult:
        """Read another page if no chain is in sight; stop if an end cannot be found."""
        book = self.book(scope)
        if scope.decide("chain", partial(_chain_worth_chasing, scope, book)):
            return StepResult(found=True)
        unseen = scope.decide("unseen", partial(self._unseen_end, scope, book))
        if unseen == _ASK_FIRST:
            return StepResult(found=True)  # S3 asks the planner where to look for them
        if unseen is not None:
            end = book.name(unseen)
            return self._rescue(scope, book, partial(rescue.end_event, book, [unseen])) or _give_up(
                scope, end, f"No photo shows {end} with anyone, and nobody could say where else to look"
            )
        if scope.decide("ask.first", partial(_ask_before_reading, scope, book)):
            return StepResult(found=True)  # S3 asks the planner before a page is bought
        plan = scope.decide_as("expand", PageToRead, partial(expansion.next_expansion, scope, book))
        if plan is None:
            # The end no title ties to anyone is the likelier reason no chain shows: rescue it first.
            # Then the events of the people of a side nobody is left to search on (ends first).
            stuck = sorted(expansion.unlinked_ends(scope, book), key=lambda k: len(book.neighbours(k)) > 0)
            rescued = (
                self._own_photos(scope, book, stuck)
                or self._rescue(scope, book, partial(rescue.end_event, book, stuck))
                or self._rescue(
                    scope,
                    book,
                    lambda: rescue.side_event(book, expansion.closed_sides(scope, book)),
                    side=True,
                )
            )
            if rescued is not None:
                return rescued
            if stuck:
                end = book.name(stuck[0])
                return _give_up(
                    scope, end, f"No photo we could find shows {end} with anyone; every chain needs one"
                )
            return StepResult(exhausted=True)
        query, subjects = plan.query, plan.subjects
        who = " and ".join(book.name(k) for k in subjects)
        scope.status(f"Who appears with {who}? Searching {query!r}", side=plan.side)
        got = chains.read(scope, query, subjects)
        book = book.reread()
        limit = scope.options.images_per_search
        blind = scope.decide("blind", lambda: blind_look(book, query, subjects)[:limit])
        looked = chains.look(scope, book, blind) if blind else Observed()
        return _found(scope, got, looked)

    def select(self, scope: SearchScope) -> StepResult:
        """Let the planner match the sides if they changed, then pick the next pair to prove."""
        book = self.book(scope)
        position = Position.of(scope.state)
        pair = scope.decide("pair", partial(chains.next_pair, scope, book))
        # The planner is asked only when the run's own leads show no chain to work on.
        if pair is None and scope.decide("consulted", partial(matching.consult, scope, book)):
            book = book.reread()
            pair = scope.decide("pair.after", partial(chains.next_pair, scope, book))
        if pair is None:
            return StepResult(position=position.moved(selected=None), observed=None)
        x, y = (book.name(k) for k in pair)
        scope.status(f"Next: can we prove {x} — {y}?")
        return StepResult(
            found=True, position=position.moved(frontier=pair[0], selected=pair[1]), observed=None
        )

    def verify(self, scope: SearchScope) -> StepResult:
        """Spend on proving the picked pair."""
        state = scope.state
        if state.selected is None or state.frontier is None:
            return StepResult(observed=None)
        pair = [state.frontier, state.selected]
        book = self.book(scope)
        observed = chains.prove(scope, book, *pair)
        proven = scope.graph.confidence(*pair) is not None
        reached, confirming = settle(scope, "s4")
        # A chain too dear to chase while pages are left to read sends the run back to S2 to read one.
        left = scope.decide("left", lambda: _chain_worth_chasing(scope, self.book(scope)))
        return StepResult(reached=reached, verified=proven, found=left, observed=(observed, confirming))

    def bridge(self, scope: SearchScope) -> StepResult:
        """One more pair of the chain the run is on, after showing the link just proven."""
        state = scope.state
        if state.frontier and state.selected:
            show_progress(scope, state.frontier, state.selected)
        book = self.book(scope)
        pair = scope.decide("pair", partial(chains.next_pair, scope, book))
        observed = Observed()
        if pair is not None:
            x, y = (book.name(k) for k in pair)
            scope.status(f"Then {x} — {y}")
            observed = chains.prove(scope, book, *pair)
        reached, confirming = settle(scope, "s5")
        position = Position.of(state).moved(selected=None)
        return StepResult(reached=reached, position=position, observed=(observed, confirming))

    # ---- a shorter chain (search/shortening) ----------------------------------------------------

    def shorter(self, scope: SearchScope, hops: int) -> list[str] | None:
        book = self.book(scope)
        chain = chains.best_chain(scope, book, hops)
        return None if chain is None else chains.unproven_pair(scope, book, chain) or []

    def recall(self, scope: SearchScope, chain: list[str]) -> None:
        if not (scope.rules.remember_edges and scope.rules.shared_cache):
            return
        for page in scope.decide("shorten.titles", lambda: earlier_titles.pages_of(scope, chain)):
            _read_back(scope, page)

    def can_ask(self, scope: SearchScope, hops: int) -> bool:
        return matching.worth_asking(scope, self.book(scope), hops) is not None

    def ask(self, scope: SearchScope, hops: int) -> bool:
        return matching.consult(scope, self.book(scope), hops, attempts=1) > 0

    def price(self, scope: SearchScope, pair: list[str]) -> Price:
        searches, recognitions = chains.price(scope, self.book(scope), *pair)
        return Price(searches=searches, recognitions=recognitions)

    def prove(self, scope: SearchScope, pair: list[str], tag: str) -> Observed:
        x, y = pair
        return chains.prove(scope, self.book(scope), x, y, tag=tag)

    def pair_page(self, scope: SearchScope, pair: list[str]) -> tuple[str, int] | None:
        book = self.book(scope)
        x, y = (book.name(key) for key in pair)
        return page_of_pair(book.page_len, pair_query(x, y), pair_query(y, x))

    def names(self, scope: SearchScope, pair: list[str]) -> list[str]:
        book = self.book(scope)
        return [book.name(key) for key in pair]

    # ---- rescues -------------------------------------------------------------------------------

    def _rescue(
        self,
        scope: SearchScope,
        book: LeadBook,
        pick: Callable[[], list[str] | None],
        *,
        side: bool = False,
    ) -> StepResult | None:
        """Before giving up on the ends no photo links (or on a side nobody is left to search on):
        one page of an event one of them was seen at, and its photos of people no caption names
        (rescue.py). None when there is nothing left to try. The pick is journalled whole: a re-run
        step replays it even though its own first run changed what the sides look like."""
        picked = scope.decide("rescue.side" if side else "rescue", pick)
        if picked is None:
            return None
        key, event, why = picked
        query = event_query(event)
        end = book.name(key)
        if side:
            scope.status(f"Nobody new is left to search near {end}; searching photos of {event} ({why})")
        else:
            scope.status(f"No photo links {end} with anyone yet; searching photos of {event} ({why})")
        got = chains.read(scope, query, [])
        book = book.reread()
        limit = scope.options.images_per_search
        photos = scope.decide(f"rescue.photos.{side}", lambda: rescue.photos_at(book, query)[:limit])
        looked = chains.look(scope, book, photos) if photos else Observed()
        return _found(scope, got, looked)

    def _own_photos(self, scope: SearchScope, book: LeadBook, ends: list[str]) -> StepResult | None:
        """Before a page is bought to rescue an end no photo links: the photos already read that
        are titled with its name alone but not as a portrait (rescue.own_photos). None: none left."""
        limit = scope.options.images_per_search
        picked = scope.decide("rescue.own", lambda: rescue.own_photos(book, ends, limit))
        if picked is None:
            return None
        key, *urls = picked
        scope.status(
            f"No photo links {book.name(key)} with anyone yet; recognising {plural(len(urls), 'photo')} "
            "of pages about them, whose titles say nothing of who else is in them"
        )
        return _found(scope, chains.look(scope, book, urls))

    def _unseen_end(self, scope: SearchScope, book: LeadBook) -> str | None:
        """An end (its key) no title names after a page about them: every chain needs a photo of
        them, and titles give no hint where one is. The planner may know their co-stars and films (a
        rescue, capped at RESCUE_SEARCHES pair searches, then the films' pages); without that, stop
        rather than search blindly. _ASK_FIRST: the planner has not been asked yet."""
        if not self.knobs.stop_when_end_unseen:
            return None
        for key in expansion.unseen_ends(scope, book):
            end = book.name(key)
            if not scope.leads.asks() and matching.worth_asking(scope, book) is not None:
                return _ASK_FIRST
            tried = [k for k in book.hunches.get(key, {}) if pair_query(end, book.name(k)) in book.queries]
            if not book.hunches.get(key) or len(tried) >= RESCUE_SEARCHES:
                return key
        return None


def _titles_page(scope: SearchScope, find: TitlesFinder) -> dict[str, Any] | None:
    found = find(scope)
    if found is None:
        return None
    new, hits = found
    return {"name": new.name, "key": new.key, "hits": [h.dump() for h in hits]}


def _read_back(scope: SearchScope, page: dict[str, Any]) -> list[ImageHit]:
    """Titles earlier runs read, as journalled ({"name", "hits"}), saved as a page of the run's
    leads of their own (earlier_titles.page_name): the run reads them as any page's titles."""
    hits = [ImageHit.model_validate(h) for h in page["hits"]]
    scope.leads.save_page(earlier_titles.page_name(page["name"]), [], hits, scope.ctx.clock.now())
    return hits


def _pair_page_read_before(scope: SearchScope) -> None:
    """An answer read from the graph: the pair's own page, when an earlier run bought it, is read
    back at no paid call, so the answer can tell whether it showed the two together (verdict.py)."""
    a, b = scope.state.person_a, scope.state.person_b
    read: dict[str, list[ImageHit]] = {}

    def first_read() -> str | None:
        for query in (pair_query(a.name, b.name), pair_query(b.name, a.name)):
            if hits := cached_page(scope, query):
                read[query] = hits
                return query
        return None

    query = scope.decide("pair.before", first_read)
    if query is None:
        return
    hits = read.get(query) or cached_page(scope, query)  # a re-run step reads it again
    if hits is not None:
        scope.leads.save_page(query, [a.key, b.key], hits, scope.ctx.clock.now())


def _chain_worth_chasing(scope: SearchScope, book: LeadBook) -> bool:
    """Is there a chain to work on now? One within COST_WORTH_CHASING, or any chain when nobody is
    left to read a page about (then the dear chain is all there is)."""
    if chains.next_pair(scope, book, dearest=chains.COST_WORTH_CHASING) is not None:
        return True
    return chains.next_pair(scope, book) is not None and expansion.next_expansion(scope, book) is None


def _ask_before_reading(scope: SearchScope, book: LeadBook) -> bool:
    """No chain worth chasing, and a question for the planner it was not asked yet (the sides or
    the failed pairs changed): ask it before buying a page. A question costs a fifth of a search,
    and on a web whose captions name few of the faces its hunches are what chains are made of (a
    page read instead, such as "A with", is mostly A's portraits)."""
    return matching.worth_asking(scope, book) is not None


def _found(scope: SearchScope, *observed: Observed) -> StepResult:
    """S2 found something to work on: what it observed, and whether the run may finish now."""
    reached, confirming = settle(scope, "s2")
    return StepResult(reached=reached, found=True, observed=(*observed, confirming))


def _give_up(scope: SearchScope, end: str, why: str) -> StepResult:
    scope.control.update_meta(unseen_end=end)
    scope.status(why)
    return StepResult(exhausted=True)


def blind_look(book: LeadBook, query: str, subjects: list[str]) -> list[str]:
    """Photos of the page for `query` to recognise although their titles name nobody known: when a
    page about someone names them in no title at all (titles on the live web are often a file name
    or a place), its first results are the best guess there is, as a search engine ranks them. None
    when every subject is named in some title (the leads then say where to look)."""
    named = {key for key in subjects if book.named_count(key)}
    if len(named) == len(subjects):
        return []
    page = [url for url, photo in book.photos.items() if query in photo.queries]
    return [
        url
        for url in page
        if named.isdisjoint(book.photos[url].keys) and not book.photos[url].portrait and book.available(url)
    ]
