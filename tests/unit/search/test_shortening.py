"""Looking for a shorter chain once one is proven (search/shortening), on hand-built runs: which pair
it tries, what stops it, what it may spend, and what the answer may then claim about its degrees."""

from __future__ import annotations

from tests.support.fakes import FakeWeb, face
from tests.support.search_scopes import A, B, Run, hunch, key, link, page, run_of
from visual_degrees.domain.degrees import Degrees
from visual_degrees.domain.models import Budgets
from visual_degrees.domain.queries import pair_query
from visual_degrees.search.shortening.phase import shorten
from visual_degrees.search.shortening.strategy import ThenShorten
from visual_degrees.search.shortening.verdict import degrees

X, Y, Z = "Gary Sinise", "Tom Hanks", "Bill Paxton"


def spent(run: Run, searches: int = 0, recognitions: int = 0) -> None:
    """What the run spent before its chain was proven ($0.005 a search, $0.001 a recognition)."""
    for _ in range(searches):
        assert run.scope.budget.reserve("searches")
    for _ in range(recognitions):
        assert run.scope.budget.reserve("recognitions")


def three_degrees(web: FakeWeb | None = None, **options: object) -> Run:
    """A run that has just proven A — X — Y — B, having spent $0.02 (four searches)."""
    run = run_of(web or FakeWeb(), **options)
    for x, y in ((A, X), (X, Y), (Y, B)):
        link(run.scope, x, y)
    spent(run, searches=4)
    return run


def shortening(run: Run) -> ThenShorten:
    assert isinstance(run.strategy, ThenShorten)
    return run.strategy


def answer(run: Run) -> Degrees:
    """The degrees the answer would state for the shortest chain the run holds."""
    keys = run.scope.graph.chain(key(A), key(B), 6)
    assert keys is not None
    return degrees(run.scope, run.strategy, keys)


def test_a_title_naming_two_people_of_the_chain_apart_is_tried_and_proves_a_shorter_chain() -> None:
    # Given A — X — Y — B proven, and a title naming X with B whose photo shows both
    web = FakeWeb()
    run = three_degrees(web)
    (url,) = page(run.scope, X, f"{X} and {B} at a gala", subjects=[X])
    web.photo(url, face(X), face(B))
    # When the run looks for a shorter chain
    shorten(run.scope, shortening(run).inner)
    # Then one recognition proved X — B, the chain of two was shown as it was proven, and the answer
    # gives two degrees, shortened from three
    assert (web.calls["search"], web.calls["recognize"]) == (0, 1)
    update = run.sink.of("path_update")[-1]
    assert update["path"] == [A, X, B] and update["shorter"] is True
    meta = run.scope.control.meta()
    assert meta is not None and meta.shortening is not None
    assert (meta.shortening.stopped, meta.shortening.tried, meta.shortening.proven) == (
        "exhausted",
        [[X, B]],
        1,
    )
    told = answer(run)
    assert (told.degrees, told.shortened_from) == (2, 3)


def test_a_shorter_chain_found_is_shortened_again_while_the_allowance_lasts() -> None:
    # Given A — X — Y — Z — B proven after $0.04, a title naming X with Z (a photo of both: three
    # degrees for one recognition) and the planner's hunch that A worked with Z (two degrees, for a
    # pair search and a recognition)
    web = FakeWeb()
    run = run_of(web)
    for x, y in ((A, X), (X, Y), (Y, Z), (Z, B)):
        link(run.scope, x, y)
    spent(run, searches=8)
    (xz,) = page(run.scope, X, f"{X} and {Z} at a gala", subjects=[X])
    web.photo(xz, face(X), face(Z))
    hunch(run.scope, A, Z, "Apollo 13 (1995)")
    web.answer(pair_query(A, Z), web.titled("https://p/az.jpg", f"{A} and {Z}", face(A), face(Z)))
    # When the run looks for a shorter chain
    shorten(run.scope, shortening(run).inner)
    # Then the cheap lead made it three degrees, and it looked on: the hunch made it two, each
    # shown as it was proven
    assert [u["path"] for u in run.sink.of("path_update")[-2:]] == [[A, X, Z, B], [A, Z, B]]
    assert (web.calls["search"], web.calls["recognize"]) == (1, 2)
    told = answer(run)
    assert (told.degrees, told.shortened_from) == (2, 4)


def test_someone_named_with_both_ends_is_tried_pair_by_pair_until_the_chain_is_shorter() -> None:
    # Given A — X — Y — B proven, and titles naming Z with A and Z with B (photos of both)
    web = FakeWeb()
    run = three_degrees(web)
    spent(run, searches=4)  # $0.04 so far: $0.01 allowed, enough for both recognitions
    with_a, with_b = page(run.scope, Z, f"{Z} and {A} at Cannes", f"{Z} and {B} on set", subjects=[Z])
    web.photo(with_a, face(Z), face(A))
    web.photo(with_b, face(Z), face(B))
    # When the run looks for a shorter chain
    shorten(run.scope, shortening(run).inner)
    # Then both pairs were proven, one recognition each, and the chain A — Z — B shown
    assert web.calls["recognize"] == 2
    assert run.sink.of("path_update")[-1]["path"] == [A, Z, B]
    assert answer(run).degrees == 2


def cheap_run_with_a_lead(web: FakeWeb, **options: object) -> Run:
    """A — X — Y — B proven for $0.002 (two recognitions), and a title naming X with B whose photo
    shows both."""
    run = run_of(web, **options)
    for x, y in ((A, X), (X, Y), (Y, B)):
        link(run.scope, x, y)
    spent(run, recognitions=2)
    (url,) = page(run.scope, X, f"{X} and {B} at a gala", subjects=[X])
    web.photo(url, face(X), face(B))
    return run


def test_it_stops_before_a_check_that_would_pass_its_share_of_the_spend() -> None:
    # Given the same lead, but a run that spent only $0.002 so far (a quarter is $0.0005, less
    # than the one recognition the check needs)
    web = FakeWeb()
    run = cheap_run_with_a_lead(web)
    # When the run looks for a shorter chain
    shorten(run.scope, shortening(run).inner)
    # Then nothing was paid for, and the answer says why fewer degrees were not ruled out
    assert web.calls["recognize"] == 0
    told = answer(run)
    assert told.degrees == 3 and not told.shortest
    assert "would have passed the $0.0005 allowed" in told.lines()[-1]


def test_the_least_allowance_pays_for_a_check_the_share_of_a_cheap_run_could_not() -> None:
    # Given the same lead and a run that spent $0.002, with at least $0.001 to look for a shorter chain
    web = FakeWeb()
    run = cheap_run_with_a_lead(web, budgets=Budgets(shorten_min_usd=0.001))
    # When the run looks for a shorter chain
    shorten(run.scope, shortening(run).inner)
    # Then the one recognition the check needs was made, and no more than the least allowed
    assert web.calls["recognize"] == 1
    meta = run.scope.control.meta()
    assert meta is not None and meta.shortening is not None
    assert (meta.shortening.allowance_usd, meta.shortening.spent_usd) == (0.001, 0.001)
    assert answer(run).degrees == 2


def test_it_never_asks_for_more_than_a_budget_has_left() -> None:
    # Given a lead worth one recognition and plenty of allowance, but no recognition left
    web = FakeWeb()
    run = three_degrees(web, budgets=Budgets(recognitions=0))
    (url,) = page(run.scope, X, f"{X} and {B} at a gala", subjects=[X])
    web.photo(url, face(X), face(B))
    # When the run looks for a shorter chain
    result = shorten(run.scope, shortening(run).inner)
    # Then nothing was tried (so no reservation was refused and no budget flag raised)
    assert result == () and web.calls["recognize"] == 0
    meta = run.scope.control.meta()
    assert meta is not None and meta.shortening is not None and meta.shortening.stopped == "allowance"


def test_a_planners_hunch_is_checked_by_a_pair_search_when_the_allowance_covers_one() -> None:
    # Given A — X — Y — B proven after $0.04, and the planner's hunch that X worked with B
    web = FakeWeb()
    run = three_degrees(web)
    spent(run, searches=4)
    hunch(run.scope, X, B, "Apollo 13 (1995)")
    both = web.titled("https://p/xb.jpg", f"{X} and {B}", face(X), face(B))
    web.answer(pair_query(X, B), both)
    # When the run looks for a shorter chain
    shorten(run.scope, shortening(run).inner)
    # Then one pair search and one recognition proved it
    assert (web.calls["search"], web.calls["recognize"]) == (1, 1)
    assert answer(run).degrees == 2


def test_with_nothing_suggesting_a_shorter_chain_nothing_is_spent() -> None:
    web = FakeWeb()
    run = three_degrees(web)
    shorten(run.scope, shortening(run).inner)
    assert (web.calls["search"], web.calls["recognize"]) == (0, 0)
    meta = run.scope.control.meta()
    assert meta is not None and meta.shortening is not None and meta.shortening.stopped == "exhausted"


def test_a_share_of_zero_answers_with_the_first_chain() -> None:
    web = FakeWeb()
    run = three_degrees(web, budgets=Budgets(shorten_share=0))
    (url,) = page(run.scope, X, f"{X} and {B} at a gala", subjects=[X])
    web.photo(url, face(X), face(B))
    shorten(run.scope, shortening(run).inner)
    assert web.calls["recognize"] == 0
    assert answer(run).not_ruled_out[0].evidence == "not looked for (the run's shortenShare is 0)"


def test_the_step_that_proves_the_first_chain_looks_for_a_shorter_one_before_it_reports_reached() -> None:
    # Given A — X — Y proven, a title naming Y with B and one naming X with B (photos of both)
    web = FakeWeb()
    run = run_of(web)
    link(run.scope, A, X)
    link(run.scope, X, Y)
    spent(run, searches=4)
    yb, xb = page(run.scope, Y, f"{Y} and {B} on set", f"{X} and {B} at a gala", subjects=[Y])
    web.photo(yb, face(Y), face(B))
    web.photo(xb, face(X), face(B))
    # When S4 proves Y — B (the chain A — X — Y — B)
    result = run.strategy.verify(run.next_step(frontier=key(Y), selected=key(B)))
    # Then in that step X — B was checked too, and the run may finish with two degrees
    assert result.reached
    assert answer(run).degrees == 2


# ---- what the answer may claim -------------------------------------------------------------------


def test_one_degree_is_ruled_out_by_the_pairs_own_search_with_no_photo_of_both() -> None:
    # Given the "A B" page read (three results, none of both) and A — X — B proven
    run = run_of()
    page(run.scope, pair_query(A, B), A, B, f"{A} at a gala", subjects=[A, B])
    link(run.scope, A, X)
    link(run.scope, X, B)
    # Then two degrees are the fewest, and the answer says what rules one out
    told = answer(run)
    assert told.shortest and told.degrees == 2
    assert told.lines() == [
        "Degrees: 2 — the fewest: every shorter chain is ruled out",
        f"1 degree ruled out: 3 results for {pair_query(A, B)!r}, no photo of both",
    ]


def test_one_degree_is_not_ruled_out_while_a_photo_titled_with_both_is_unrecognised() -> None:
    run = run_of()
    page(run.scope, pair_query(A, B), f"{A} and {B} at the Oscars", subjects=[A, B])
    link(run.scope, A, X)
    link(run.scope, X, B)
    told = answer(run)
    assert not told.shortest and told.ruled_out == []
    assert told.lines()[0] == "Degrees: 2 — fewer not ruled out"


def test_two_degrees_or_more_are_never_claimed_ruled_out() -> None:
    # Given the "A B" page read with no photo of both, and a three-degree chain nothing shortens
    run = three_degrees()
    page(run.scope, pair_query(A, B), A, B, subjects=[A, B])
    shorten(run.scope, shortening(run).inner)
    told = answer(run)
    assert not told.shortest
    assert [c.degrees for c in told.ruled_out] == [1]
    assert told.lines()[-1] == (
        "2 degrees not ruled out: nothing checked; no other lead the run holds suggests a shorter chain"
    )


def test_one_degree_is_the_fewest_without_anything_to_rule_out() -> None:
    run = run_of()
    link(run.scope, A, B)
    told = answer(run)
    assert told.shortest and told.lines() == ["Degrees: 1 — the fewest: every shorter chain is ruled out"]
