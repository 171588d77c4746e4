"""The default strategy's decisions (search/strategies/caption_leads) on hand-built runs: titles read
as leads, the cheapest chain of links, leads and hunches, the pair it works on, and when it gives up.
Knowledge proposes, photos prove: only a recognised photo ever makes a link."""

from __future__ import annotations

import gc
from dataclasses import dataclass

from tests.support.fakes import FakeWeb, face
from tests.support.search_scopes import A, B, Run, hunch, key, link, page, run_of
from visual_degrees.domain.models import Budgets
from visual_degrees.domain.planning import (
    ConnectContext,
    ConnectReply,
    PlannerContext,
    PlannerReply,
    ProposedLink,
)
from visual_degrees.domain.queries import pair_query
from visual_degrees.search.shortening.strategy import ThenShorten
from visual_degrees.search.strategies.caption_leads import chains, matching
from visual_degrees.search.strategies.caption_leads.leads import LeadBook
from visual_degrees.search.strategies.caption_leads.rescue import photos_at
from visual_degrees.search.strategies.caption_leads.strategy import CaptionLeads, blind_look

X, Y = "Gary Sinise", "Tom Hanks"


def book_of(run: Run) -> LeadBook:
    return LeadBook(run.scope, run.strategy.knobs)


def x_proven_and_x_named_with_b() -> Run:
    """A run holding a photo of A with X, and a page whose one title names X with B (its photo
    shows both, unrecognised yet)."""
    web = FakeWeb()
    run = run_of(web)
    link(run.scope, A, X)
    (url,) = page(run.scope, X, f"{X} and {B} at a gala", subjects=[X])
    web.photo(url, face(X), face(B))
    return run


def test_the_default_strategy_reads_captions_as_leads() -> None:
    strategy = run_of().strategy
    assert isinstance(strategy, ThenShorten) and type(strategy.inner) is CaptionLeads


def test_s1_reads_one_page_and_recognises_only_the_photo_whose_title_names_both() -> None:
    # Given the "A B" page: a photo titled with both, and portraits of each
    web = FakeWeb()
    both = web.titled("https://p/ab.jpg", f"{A} and {B} at the Oscars", face(A), face(B))
    alone_a = web.titled("https://p/a.jpg", A, face(A))
    alone_b = web.titled("https://p/b.jpg", B, face(B))
    web.answer(pair_query(A, B), alone_a, both, alone_b)
    run = run_of(web)
    # When S1 decides
    result = run.strategy.direct(run.scope)
    # Then one search, one recognition (the photo naming both), and the run may finish
    assert result.reached
    assert (web.calls["search"], web.calls["recognize"]) == (1, 1)
    assert [e["imageUrl"] for e in run.sink.of("evidence")] == [both]


def test_s2_with_a_chain_in_sight_reads_nothing_more() -> None:
    # Given titles already read that name A with X, and X with B
    web = FakeWeb()
    run = run_of(web)
    page(run.scope, A, f"{A} and {X} at the Oscars", f"{X} and {B} at a gala", subjects=[A])
    # When S2 decides
    result = run.strategy.discover(run.next_step())
    # Then there is a pair to prove, and no search was paid for
    assert result.found and not result.exhausted and web.calls["search"] == 0


def test_s2_gives_up_on_an_end_no_title_names_when_nobody_can_say_where_to_look() -> None:
    # Given B's own page was read and no title on it names anyone, and no planner to ask
    web = FakeWeb()
    run = run_of(web)
    page(run.scope, B, "IMG_0001.jpg", "IMG_0002.jpg", subjects=[B])
    # When S2 decides
    result = run.strategy.discover(run.next_step())
    # Then discovery is over without another search, and the run's meta names the end
    assert result.exhausted and not result.found and web.calls["search"] == 0
    meta = run.scope.control.meta()
    assert meta is not None and meta.unseen_end == B
    assert run.statuses()[-1] == f"No photo shows {B} with anyone, and nobody could say where else to look"


def test_s2_recognises_an_ends_page_about_them_before_buying_a_page_to_rescue_them() -> None:
    # Given B's own page was read: two titles name B alone, one as a portrait, one as a page about
    # B ("B - Pictures and Photos") whose photo shows B with Y, a face no title names
    web = FakeWeb()
    run = run_of(web)
    portrait, about = page(run.scope, B, f"{B} arrives at a gala", f"{B} - Pictures and Photos", subjects=[B])
    web.photo(portrait, face(B))
    web.photo(about, face(B), face(Y))
    # When S2 decides
    result = run.strategy.discover(run.next_step())
    # Then the page about B is recognised (not the portrait) with no search, and ties B to Y
    assert result.found and (web.calls["search"], web.calls["recognize"]) == (0, 1)
    assert run.scope.graph.confidence(key(B), key(Y)) is not None
    assert run.statuses()[0] == (
        f"No photo links {B} with anyone yet; recognising 1 photo of pages about them, whose titles "
        "say nothing of who else is in them"
    )


def test_s3_picks_the_first_unproven_pair_of_the_cheapest_chain() -> None:
    # Given A — X proven by a photo, and a title naming X with B
    run = run_of()
    link(run.scope, A, X)
    page(run.scope, X, f"{X} and {B} at a gala", subjects=[X])
    # When S3 decides
    result = run.strategy.select(run.next_step())
    # Then the pair to prove is X — B (A — X costs nothing: it is a link)
    assert result.found and result.position is not None
    assert (result.position.frontier, result.position.selected) == (key(X), key(B))
    assert run.statuses()[-1] == f"Next: can we prove {X} — {B}?"


def test_s3_with_no_chain_and_no_planner_picks_nothing() -> None:
    run = run_of()
    result = run.strategy.select(run.scope)
    assert not result.found and result.position is not None and result.position.selected is None


def test_s4_proves_the_pair_from_a_photo_in_hand_without_a_search() -> None:
    # Given A — X proven, and a page whose title names X with B (the photo shows both)
    run = x_proven_and_x_named_with_b()
    # When S4 proves X — B
    result = run.strategy.verify(run.next_step(frontier=key(X), selected=key(B)))
    # Then one recognition proved it, no search, and A — X — B is a chain: the run may finish
    assert result.verified and result.reached
    assert (run.web.calls["search"], run.web.calls["recognize"]) == (0, 1)


def test_s4_with_no_pair_picked_spends_nothing() -> None:
    run = run_of()
    result = run.strategy.verify(run.next_step(selected=None))
    assert not result.verified and not result.found and result.observed is None


def test_s5_shows_the_link_just_proven_then_works_on_the_next_pair() -> None:
    # Given A — X just proven (S4's pair), and a title naming X with B whose photo shows both
    run = x_proven_and_x_named_with_b()
    # When S5 decides
    result = run.strategy.bridge(run.next_step(frontier=key(A), selected=key(X)))
    # Then the chain so far was shown, X — B was proven next, and the run may finish
    assert run.sink.of("path_update")[0]["path"] == [A, X]
    assert f"Then {X} — {B}" in run.statuses()
    assert result.reached and result.position is not None and result.position.selected is None


# ---- the chain agenda's prices (chains.py) -------------------------------------------------------


def test_a_link_costs_nothing_a_lead_one_recognition_a_hunch_a_search_and_the_users_hint_least() -> None:
    # Given a link A — X, a title naming X with B, a planner's hunch X — Y, and the user's A — Y
    run = run_of()
    link(run.scope, A, X)
    page(run.scope, X, f"{X} and {B} at a gala", subjects=[X])
    hunch(run.scope, X, Y)
    hunch(run.scope, A, Y, user=True)
    book = book_of(run)
    # Then each pair is priced by what proving it would cost now
    assert chains.pair_cost(run.scope, book, key(A), key(X)) == chains.COST_LINK
    assert chains.pair_cost(run.scope, book, key(X), key(B)) == chains.COST_LEAD
    assert chains.pair_cost(run.scope, book, key(X), key(Y)) == chains.COST_HUNCH
    assert chains.pair_cost(run.scope, book, key(A), key(Y)) == chains.COST_USER_HUNCH
    assert chains.pair_cost(run.scope, book, key(A), key(B)) is None  # nothing known could prove it


def test_a_weak_photo_is_a_link_a_chain_may_use_only_once_confirmed() -> None:
    # Given A — X shown only by a face at 85 that the photo's title does not name
    run = run_of()
    link(run.scope, A, X, confidence=85.0)
    book = book_of(run)
    # Then proving it again costs a pair search (it may be a lookalike), not nothing
    assert chains.pair_cost(run.scope, book, key(A), key(X)) == chains.COST_WEAK


def test_guest_photos_price_a_pair_through_a_photo_of_one_of_them_with_unnamed_guests() -> None:
    # Given a hunch that X met B at Apollo 13, a photo of X "with guests" at its premiere, a title
    # placing B at that premiere, and the pair's own page read ("X B": no photo naming both)
    titles = (
        f"{X} with guests at the premiere of Apollo 13 (1995)",
        f"{B} at the premiere of Apollo 13 (1995)",
    )
    for knob, price in ((True, chains.COST_GUEST), (False, None)):
        run = run_of(knobs={"guest_photos": knob})
        page(run.scope, X, *titles, subjects=[X])
        page(run.scope, pair_query(X, B), f"{X} at a gala", subjects=[])
        hunch(run.scope, X, B, "Apollo 13 (1995)")
        # Then with the knob, one recognition of the guest photo may prove it; without, nothing can
        assert chains.pair_cost(run.scope, book_of(run), key(X), key(B)) == price


def test_the_cheapest_chain_goes_through_the_users_hint_first() -> None:
    # Given a title naming A with X and X with B, and the user's hint that Y connects A and B
    run = run_of()
    page(run.scope, A, f"{A} and {X} at the Oscars", f"{X} and {B} at a gala", subjects=[A])
    hunch(run.scope, A, Y, user=True)
    hunch(run.scope, Y, B, user=True)
    # Then the first pair to prove is A — Y
    assert chains.next_pair(run.scope, book_of(run)) == [key(A), key(Y)]


# ---- a web that answers as real image search does (issue 19) -------------------------------------

APOLLO = "Apollo 13 (1995)"


def test_a_caption_naming_only_its_first_person_is_a_lead_for_everyone_else_seen_at_that_event() -> None:
    # Given "X and guests attend the premiere of Apollo 13" and a portrait placing B at that premiere,
    # no title naming them together and no hunch
    run = run_of()
    page(
        run.scope,
        X,
        f"{X} and guests attend the premiere of {APOLLO}",
        f"Actor {B} arrives at the premiere of {APOLLO}",
        subjects=[X],
    )
    book = book_of(run)
    # Then B may be one of X's guests: one recognition of that photo may prove X — B
    assert key(B) in book.neighbours(key(X)) and key(X) in book.neighbours(key(B))
    assert chains.pair_cost(run.scope, book, key(X), key(B)) == chains.COST_GUEST


def test_someone_at_another_event_is_no_lead_for_a_caption_naming_only_its_first_person() -> None:
    run = run_of()
    page(
        run.scope,
        X,
        f"{X} and guests attend the premiere of {APOLLO}",
        f"Actor {B} arrives at the premiere of Footloose (1984)",
        subjects=[X],
    )
    book = book_of(run)
    assert key(B) not in book.neighbours(key(X))
    assert chains.pair_cost(run.scope, book, key(X), key(B)) is None


def test_every_pair_given_up_on_makes_that_persons_next_hunch_dearer() -> None:
    # Given hunches X — Y and X — B, and X — B given up on (no photo found of them together)
    run = run_of()
    hunch(run.scope, X, Y)
    hunch(run.scope, X, B)
    before = chains.pair_cost(run.scope, book_of(run), key(X), key(Y))
    run.scope.leads.mark_nolink(key(X), key(B))
    # Then X's other hunch costs one failure more than a hunch
    assert before == chains.COST_HUNCH
    after = chains.pair_cost(run.scope, book_of(run), key(X), key(Y))
    assert after == chains.COST_HUNCH + chains.COST_FAILED_HUNCH


def test_s2_reads_a_page_rather_than_chase_a_chain_of_hunches_that_keep_failing() -> None:
    # Given A — X proven, X's hunch with B the only chain, and three of X's pairs given up on, while
    # X's own page is still to be read and B's side has someone open (a title names B with Z)
    web = FakeWeb()
    run = run_of(web)
    link(run.scope, A, X)
    page(run.scope, B, f"{B} and Gene Kelly at a gala", subjects=[B])
    hunch(run.scope, X, B)
    for other in ("Meg Ryan", "Ed Harris", "Bill Paxton"):
        run.scope.leads.mark_nolink(key(X), key(other))
    assert chains.next_pair(run.scope, book_of(run)) == [key(X), key(B)]
    # When S2 decides
    result = run.strategy.discover(run.next_step())
    # Then it paid for one page about the open people instead of the hunch's pair search
    assert result.found and web.calls["search"] == 1
    assert pair_query(X, B) not in book_of(run).queries


def test_a_photo_titled_as_one_person_is_never_recognised_blind() -> None:
    # Given B's page names B in no title: a portrait of one unnamed guest, and a group of guests
    web = FakeWeb()
    run = run_of(web)
    portrait, group = page(
        run.scope,
        B,
        f"A guest attends the premiere of {APOLLO}",
        f"Guests attend the premiere of {APOLLO}",
        subjects=[B],
    )
    book = book_of(run)
    # Then only the group may be looked at for B
    assert blind_look(book, B, [key(B)]) == [group]
    assert photos_at(book, B) == [group]
    assert portrait in book.photos


def test_an_event_page_shows_its_crowds_first_to_find_someone_no_caption_names() -> None:
    # Given an event's page: a photo of A with a guest, one of A with guests, and a crowd no title
    # names, in that order
    web = FakeWeb()
    run = run_of(web)
    event = f"the premiere of {APOLLO}"
    one, some, crowd = page(
        run.scope,
        APOLLO,
        f"{A} and a guest attend {event}",
        f"{A} and guests attend {event}",
        f"Cast and crew attend {event}",
    )
    # Then a rescue recognises the crowd first, then the guests, then the one guest
    assert photos_at(book_of(run), APOLLO) == [crowd, some, one]


def test_the_same_image_at_another_url_is_recognised_once_and_takes_none_of_its_pages_recognitions() -> None:
    # Given a photo of X and B recognised already, and the very same image republished on a news
    # page whose title the run read
    web = FakeWeb()
    first = web.titled("https://agency.test/1.jpg", f"{X} and {B} at a gala", face(X), face(B))
    again = web.copy("https://news.test/9.jpg", first, f"{X} and {B} together again")
    web.answer("gala", first)
    web.answer("news", again)
    run = run_of(web)
    chains.read(run.scope, "gala", [])
    chains.look(run.scope, book_of(run), [first])
    chains.read(run.scope, "news", [])
    book = book_of(run)
    # When the run looks at the copy
    observed = chains.look(run.scope, book, [again])
    # Then no second recognition was paid for, the copy's page keeps all its recognitions, and the
    # faces are those of the photo, shown with the page the copy was found on
    assert (web.calls["recognize"], web.calls["fetch"]) == (1, 2)  # each copy downloaded once
    assert book_of(run).quota_left("news") == run.scope.options.images_per_search
    (seen,) = observed.observations
    assert sorted(f.name for f in seen.faces) == sorted([X, B])
    assert (seen.hit.image_url, seen.hit.page_url, seen.query) == (again, again + ".html", "news")


SURNAMES = [
    "Abbott",
    "Baxter",
    "Carver",
    "Dalton",
    "Ellery",
    "Fenwick",
    "Garner",
    "Hollis",
    "Irving",
    "Jarrett",
    "Kendall",
    "Lowry",
]


def test_a_new_store_under_a_run_id_already_read_never_inherits_its_titles() -> None:
    # Given run after run under one run id, each in a store of its own freed before the next is
    # made (the process may place the next at the freed one's address), each with a page for the
    # same query and of the same length, naming X with someone new
    for surname in SURNAMES:
        other = f"Dana {surname}"
        run = run_of()
        page(run.scope, X, f"{X} and {other} at a gala", "IMG_0001.jpg", subjects=[X])
        # Then each store's book reads its own titles only
        assert book_of(run).neighbours(key(X)) == {key(other)}
        del run
        gc.collect()


# ---- spending less on the realistic web (issue 19, round 3) ---------------------------------------


class ConnectingPlanner:
    """A planner that matches the sides with the links it is given (the same answer each time)."""

    def __init__(self, *links: tuple[str, str]) -> None:
        self.links = links
        self.asked: list[ConnectContext] = []

    def plan(self, context: PlannerContext) -> PlannerReply:
        raise AssertionError("the caption-lead strategy asks connect(), not plan()")

    def connect(self, context: ConnectContext) -> ConnectReply:
        self.asked.append(context)
        return ConnectReply(links=[ProposedLink(a=a, b=b) for a, b in self.links])


def test_s2_with_no_chain_in_sight_asks_the_planner_before_buying_a_page() -> None:
    # Given the "A B" page read (titles naming nobody else), no chain, a planner never asked
    planner = ConnectingPlanner((A, X), (X, B))
    run = run_of(planner=planner)
    portraits = [f"Actor {A} arrives at gala {n}" for n in range(3)]
    portraits += [f"{B} attends gala {n}" for n in range(2)]
    page(run.scope, pair_query(A, B), *portraits, subjects=[A, B])
    # When S2 decides
    result = run.strategy.discover(run.next_step())
    # Then it buys no page: S3 is to ask the planner first
    assert result.found and not result.exhausted and run.web.calls["search"] == 0
    run.strategy.select(run.next_step())
    assert len(planner.asked) == 1
    # And when the planner's chain failed (a new question), it is asked again before a page is bought
    run.scope.leads.mark_nolink(key(A), key(X))
    result = run.strategy.discover(run.next_step())
    assert result.found and run.web.calls["search"] == 0
    run.strategy.select(run.next_step())
    assert len(planner.asked) == 2
    # And with nothing new to ask, S2 reads a page as before
    run.strategy.discover(run.next_step())
    assert run.web.calls["search"] == 1
    assert run.statuses()[-1] == f"Who appears with {A}? Searching '{A} with'"


def test_the_planner_is_asked_as_often_as_the_llm_budget_allows() -> None:
    # Given a run that asked the planner eight times already, each about sides that changed since
    planner = ConnectingPlanner((A, X), (X, B))
    run = run_of(planner=planner)
    for n in range(8):
        run.scope.leads.record_ask(n, {"signature": f"earlier question {n}", "links": 0})
    # When it consults the planner with LLM calls left in its budget
    added = matching.consult(run.scope, book_of(run))
    # Then the planner is asked a ninth time, and its hunches are kept
    assert len(planner.asked) == 1 and added == 2
    # And a run whose LLM budget is spent asks nothing
    spent = run_of(planner=ConnectingPlanner((A, X)), budgets=Budgets(llm_calls=0))
    assert matching.consult(spent.scope, book_of(spent)) == 0
    assert spent.scope.ctx.providers.planner.asked == []  # type: ignore[union-attr]


def test_a_pairs_guest_photos_wait_for_its_own_search_then_get_one_round() -> None:
    # Given a hunch that X met B at Apollo 13, and four photos of X "with guests" at its premiere
    run = run_of(knobs={"guest_photos": True})
    urls = page(
        run.scope,
        X,
        *(f"{X} with guests at the premiere of {APOLLO} {n}" for n in range(4)),
        f"{B} at the premiere of {APOLLO}",
        subjects=[X],
    )
    hunch(run.scope, X, B, APOLLO)
    # Then the pair's own search comes first ("X B" ranks photos naming both first)
    book = book_of(run)
    assert book.guests_for(key(X), key(B)) == []
    assert chains.pair_cost(run.scope, book, key(X), key(B)) == chains.COST_HUNCH
    assert chains.price(run.scope, book, key(X), key(B)) == (1, chains.PHOTOS_PER_TRY)
    # When "X B" was read and named them together nowhere
    page(run.scope, pair_query(X, B), f"{X} at the premiere of {APOLLO}", subjects=[])
    # Then the guest photos are worth a round
    book = book_of(run)
    assert book.guests_for(key(X), key(B)) == urls[:4]
    assert chains.pair_cost(run.scope, book, key(X), key(B)) == chains.COST_GUEST
    # And after one round (two photos) that did not prove X — B, no more
    for url in urls[:2]:
        run.scope.leads.mark_looked(url, X)
    book = book_of(run)
    assert book.guests_for(key(X), key(B)) == []
    assert chains.pair_cost(run.scope, book, key(X), key(B)) is None


@dataclass
class LongPages(FakeWeb):
    """An engine answering 200 results a request, as Brave does."""

    page_size: int = 200


def planner_chain_a_x_b(*on_page: tuple[str, str]) -> Run:
    """The planner's hunches A — X and X — B, nothing read but the page "A X B", whose photos name
    (and show) the given pairs."""
    web = LongPages()
    urls = [
        web.titled(f"https://p/{n}.jpg", f"{x} and {y} at a gala", face(x), face(y))
        for n, (x, y) in enumerate(on_page)
    ]
    web.answer(chains.chain_query(A, X, B), *urls)
    run = run_of(web)
    hunch(run.scope, A, X)
    hunch(run.scope, X, B)
    return run


def test_two_pairs_of_a_chain_that_both_need_a_search_share_one() -> None:
    # Given the planner's chain A — X — B and nothing in hand for either pair
    run = planner_chain_a_x_b((A, X), (X, B))
    # When S4 proves A — X
    result = run.strategy.verify(run.next_step(frontier=key(A), selected=key(X)))
    # Then one search ("A X B") brought both pairs' photos: S5 proves X — B without another
    assert result.verified and run.web.calls["search"] == 1
    assert f"searching {chains.chain_query(A, X, B)!r}" in run.statuses()[-1]
    result = run.strategy.bridge(run.next_step(frontier=key(A), selected=key(X)))
    assert result.reached and (run.web.calls["search"], run.web.calls["recognize"]) == (1, 2)


def test_a_chain_query_with_no_photo_of_the_second_pair_marks_it_failed() -> None:
    # Given the planner's chain A — X — B, and a page "A X B" naming A with X only
    run = planner_chain_a_x_b((A, X))
    # When S4 proves A — X
    run.strategy.verify(run.next_step(frontier=key(A), selected=key(X)))
    # Then X — B counts as searched and failed (the planner hears of it), and is not searched again
    book = book_of(run)
    assert book.searched_pair(key(X), key(B)) and book.blocked(key(X), key(B))
    assert chains.pair_cost(run.scope, book, key(X), key(B)) is None


def test_a_short_page_searches_one_pair_at_a_time() -> None:
    # Given the planner's chain A — X — B on an engine answering 5 results a request
    web = FakeWeb()
    run = run_of(web)
    hunch(run.scope, A, X)
    hunch(run.scope, X, B)
    # When S4 proves A — X
    run.strategy.verify(run.next_step(frontier=key(A), selected=key(X)))
    # Then it searched "A X" alone (two pairs' photos would crowd each other out of five results)
    assert run.statuses()[0] == f"Checking {A} — {X}: searching {pair_query(A, X)!r}"
