"""Meeting in the middle (search/strategies/both_ends), decision by decision on hand-built graphs:
which side S2 searches, when it stops for an end no search can find, whom S3 offers, and whom S5
tries a new person against."""

from __future__ import annotations

from tests.support.fakes import FakeWeb, ScriptedPlanner, face
from tests.support.search_scopes import A, B, key, link, run_of
from visual_degrees.domain.planning import PlannerReply
from visual_degrees.domain.queries import GROUP_FIRST, discovery_query, pair_query
from visual_degrees.search.strategies.both_ends.strategy import BothEnds

MEET = {"caption_leads": False}  # the default's knobs without captions: meeting in the middle
X, Y, Z, W = "Gary Sinise", "Tom Hanks", "Meg Ryan", "Bill Paxton"


def test_the_default_without_caption_leads_meets_in_the_middle() -> None:
    assert type(run_of(knobs=MEET).strategy) is BothEnds


def test_s2_searches_about_the_end_of_the_smaller_side_and_moves_there() -> None:
    # Given A's side already holds X, and B's side only B
    web = FakeWeb()
    query = discovery_query(B, 0, GROUP_FIRST)
    assert query is not None
    web.answer(query, web.photo("https://p/by.jpg", face(B), face(Y)))
    run = run_of(web, knobs=MEET)
    link(run.scope, A, X)
    # When S2 decides
    result = run.strategy.discover(run.scope)
    # Then it searched B's group shots ("… cast"), found Y with B, and the frontier is B, on B's side
    assert query == f"{B} cast" and web.calls["search"] == 1
    assert result.found and not result.exhausted and not result.reached
    assert result.position is not None
    assert (result.position.side, result.position.frontier, result.position.hop) == ("B", key(B), 0)
    assert result.position.path == [key(B)] and result.position.round == 1


def test_s2_stops_for_an_end_its_own_search_could_not_show() -> None:
    # Given B was searched once and never recognised (no identity pinned for B)
    web = FakeWeb()
    run = run_of(web, knobs=MEET)
    run.scope.frontier.mark_expanded(key(B), 0, hits=0, complete=True)
    # When S2 decides
    result = run.strategy.discover(run.scope)
    # Then discovery is over, without a search, and the run's meta names the end
    assert result.exhausted and not result.found and web.calls["search"] == 0
    meta = run.scope.control.meta()
    assert meta is not None and meta.unseen_end == B


def test_s2_with_the_graph_already_connecting_a_and_b_is_reached_without_a_search() -> None:
    web = FakeWeb()
    run = run_of(web, knobs=MEET)
    link(run.scope, A, X)
    link(run.scope, X, B)
    result = run.strategy.discover(run.next_step())
    assert result.reached and web.calls["search"] == 0


def test_s3_offers_the_frontiers_neighbours_one_level_further_best_connected_first() -> None:
    # Given A — X and A — Y, with Y linked to two more people (better connected), X to none
    run = run_of(knobs=MEET)
    link(run.scope, A, X)
    link(run.scope, A, Y)
    link(run.scope, Y, Z)
    link(run.scope, Y, W)
    # When S3 decides without a planner
    result = run.strategy.select(run.next_step())
    # Then Y comes first: every proof is at the threshold or better, so connections decide
    assert result.position is not None and result.position.selected == key(Y)
    assert isinstance(run.strategy, BothEnds)
    assert [c.key for c in run.strategy.untried(run.scope, key(A))] == [key(X), key(Y)]


def test_s3_with_one_candidate_asks_no_planner() -> None:
    planner = ScriptedPlanner([PlannerReply(next_candidates=[X], search_queries=[], narration="")])
    run = run_of(knobs=MEET, planner=planner)
    link(run.scope, A, X)
    result = run.strategy.select(run.next_step())
    assert result.position is not None and result.position.selected == key(X)
    assert planner.seen == []  # one candidate leaves nothing to rank: no call to pay for


def test_s4_leaves_the_end_of_discovery_to_s2() -> None:
    run = run_of(knobs=MEET)
    assert not run.strategy.verify(run.next_step(round=6)).exhausted


def test_s5_tries_the_far_end_first() -> None:
    web = FakeWeb()
    run = run_of(web, knobs=MEET)
    for x, y in ((A, X), (B, Y)):
        link(run.scope, x, y)
    run.strategy.bridge(run.next_step(selected=key(X)))
    assert f"Bridging {X} — {B}" in run.statuses()


def test_s5_tries_the_best_connected_person_of_the_other_side_when_the_far_end_is_listed() -> None:
    # Given A — X just proven, B's side B — Y — Z and B — W (Y the best connected), and B's own
    # search listed every photo of B (a photo of X with B would have been in it)
    web = FakeWeb()
    web.answer(pair_query(X, Y), web.photo("https://p/xy.jpg", face(X), face(Y)))
    run = run_of(web, knobs=MEET)
    for x, y in ((A, X), (B, Y), (Y, Z), (B, W)):
        link(run.scope, x, y)
    run.scope.frontier.mark_expanded(key(B), 0, hits=3, complete=True)
    scope = run.next_step(selected=key(X))
    # When S5 decides
    result = run.strategy.bridge(scope)
    # Then it bridged X to Y (not to B), and the photo of X with Y closes the chain A — X — Y — B
    assert f"Bridging {X} — {Y}" in run.statuses()
    assert scope.frontier.bridged(key(X), key(Y))
    assert result.reached
