"""The seed strategy's decisions (search/strategies/seed), each taken on a hand-built run: one-sided
rounds from A, the planner's order or the fallback's, a photo in hand before a search, B tried from
every new frontier."""

from __future__ import annotations

from tests.support.fakes import FakeWeb, ScriptedPlanner, face
from tests.support.search_scopes import A, B, key, link, run_of
from visual_degrees.domain.models import Evidence, Person
from visual_degrees.domain.planning import PlannerReply
from visual_degrees.domain.queries import pair_query
from visual_degrees.search.scope import SearchScope
from visual_degrees.search.strategies.seed.strategy import Seed

X, Y = "Gary Sinise", "Tom Hanks"


def seen_with_a(scope: SearchScope, name: str, confidence: float, times: int = 1) -> None:
    """`name` seen `times` near A (the seed's candidates), at best `confidence`."""
    scope.evidence.remember_person(Person.of(name))
    for n in range(times):
        evidence = Evidence(image_url=f"u{n}", confidence_a=99.0, confidence_b=confidence)
        scope.frontier.add_candidate_sighting(key(A), Person.of(name), evidence, proven=True)


def test_the_seed_runs_on_its_own_strategy() -> None:
    assert type(run_of(strategy="seed").strategy) is Seed


def test_s1_one_photo_of_both_is_the_whole_answer() -> None:
    # Given a web whose "A B" page shows one photo of both
    web = FakeWeb()
    web.answer(pair_query(A, B), web.photo("https://p/1.jpg", face(A), face(B)))
    run = run_of(web, strategy="seed")
    # When S1 decides
    result = run.strategy.direct(run.scope)
    # Then the run may finish, for one search and one recognition, and the photo was shown
    assert result.reached
    assert (web.calls["search"], web.calls["recognize"]) == (1, 1)
    assert [e["imageUrl"] for e in run.sink.of("evidence")] == ["https://p/1.jpg"]


def test_s1_without_a_photo_of_both_goes_on_and_says_so() -> None:
    web = FakeWeb()
    web.answer(pair_query(A, B), web.photo("https://p/1.jpg", face(A)))
    run = run_of(web, strategy="seed")
    result = run.strategy.direct(run.scope)
    assert not result.reached
    assert run.statuses()[-1] == f"No photo of {A} with {B} among 1 images"


def test_s2_searches_about_the_frontier_until_someone_new_appears() -> None:
    # Given A's first discovery search shows A with X
    web = FakeWeb()
    web.answer(A, web.photo("https://p/1.jpg", face(A), face(X)))
    run = run_of(web, strategy="seed")
    # When S2 decides
    result = run.strategy.discover(run.scope)
    # Then X is someone to try, the frontier's next round is 1, and the templates are not used up
    assert result.found and not result.exhausted and not result.reached
    assert result.position is not None and result.position.round == 1
    assert isinstance(run.strategy, Seed)
    assert [c.name for c in run.strategy.untried(run.scope, key(A))] == [X]
    assert web.calls["search"] == 1


def test_s2_with_every_template_used_ends_discovery_without_a_search() -> None:
    web = FakeWeb()
    run = run_of(web, strategy="seed")
    scope = run.next_step(round=6)  # the six discovery templates were searched already
    result = run.strategy.discover(scope)
    assert result.exhausted and not result.found
    assert web.calls["search"] == 0


def test_s3_without_a_planner_takes_the_best_confidence_first() -> None:
    # Given X seen once at 99 and Y three times at 90 near A, and no planner
    run = run_of(strategy="seed")
    seen_with_a(run.scope, X, 99.0)
    seen_with_a(run.scope, Y, 90.0, times=3)
    # When S3 decides
    result = run.strategy.select(run.scope)
    # Then the fallback order picks X
    assert result.found and result.position is not None and result.position.selected == key(X)
    assert result.observed is None  # S3 spends nothing the budget flags would tell


def test_s3_takes_the_planners_order_when_it_is_valid() -> None:
    planner = ScriptedPlanner([PlannerReply(next_candidates=[Y], search_queries=[], narration="")])
    run = run_of(strategy="seed", planner=planner)
    seen_with_a(run.scope, X, 99.0)
    seen_with_a(run.scope, Y, 90.0)
    result = run.strategy.select(run.scope)
    assert result.position is not None and result.position.selected == key(Y)
    (asked,) = planner.seen
    assert (asked.frontier, asked.target) == (A, B)  # towards the far end of A's side


def test_s3_with_planner_ranking_off_never_asks() -> None:
    planner = ScriptedPlanner([PlannerReply(next_candidates=[Y], search_queries=[], narration="")])
    run = run_of(strategy="seed", planner=planner, knobs={"planner_ranking": False})
    seen_with_a(run.scope, X, 99.0)
    seen_with_a(run.scope, Y, 90.0)
    result = run.strategy.select(run.scope)
    assert result.position is not None and result.position.selected == key(X)
    assert planner.seen == []


def test_s3_with_nobody_left_clears_the_selection() -> None:
    run = run_of(strategy="seed")
    result = run.strategy.select(run.scope)
    assert not result.found and result.position is not None and result.position.selected is None


def test_s4_proves_the_pair_with_its_own_pair_search() -> None:
    # Given X selected near A and a pair page showing both
    web = FakeWeb()
    web.answer(pair_query(A, X), web.photo("https://p/ax.jpg", face(A), face(X)))
    run = run_of(web, strategy="seed")
    seen_with_a(run.scope, X, 99.0)
    scope = run.next_step(selected=key(X))
    # When S4 decides
    result = run.strategy.verify(scope)
    # Then the pair is verified, X stays selected for S5, and B is not reached
    assert result.verified and not result.reached
    assert result.position is not None and result.position.selected == key(X)
    assert web.calls["search"] == 1


def test_s4_reuses_a_photo_in_hand_before_paying_with_reuse_evidence() -> None:
    # Given the run already holds a photo of A with X, and the knob that lets it use one
    web = FakeWeb()
    run = run_of(web, strategy="seed", knobs={"reuse_evidence": True})
    link(run.scope, A, X)
    seen_with_a(run.scope, X, 99.0)
    scope = run.next_step(selected=key(X))
    result = run.strategy.verify(scope)
    assert result.verified and web.calls["search"] == 0
    assert f"Already holding a photo of {A} with {X}" in run.statuses()


def test_s4_proving_the_far_end_reaches_it() -> None:
    web = FakeWeb()
    web.answer(pair_query(A, B), web.photo("https://p/ab.jpg", face(A), face(B)))
    run = run_of(web, strategy="seed")
    seen_with_a(run.scope, B, 99.0)
    result = run.strategy.verify(run.next_step(selected=key(B)))
    assert result.verified and result.reached


def test_s4_with_nothing_selected_spends_nothing_and_says_whether_discovery_is_over() -> None:
    run = run_of(strategy="seed")
    assert run.strategy.verify(run.next_step(round=6)).exhausted
    fresh = run.strategy.verify(run.next_step(round=0))
    assert not fresh.exhausted and not fresh.found and fresh.observed is None


def test_s5_moves_the_frontier_to_the_person_proven_and_tries_b() -> None:
    # Given X just proven from A, and a photo of X with B on the web
    web = FakeWeb()
    web.answer(pair_query(X, B), web.photo("https://p/xb.jpg", face(X), face(B)))
    run = run_of(web, strategy="seed")
    link(run.scope, A, X)
    scope = run.next_step(selected=key(X))
    # When S5 decides
    result = run.strategy.bridge(scope)
    # Then the chain A, X is announced, X is the frontier one hop out, and B is reached
    assert result.reached
    assert result.position is not None
    assert (result.position.frontier, result.position.hop, result.position.path) == (
        key(X),
        1,
        [key(A), key(X)],
    )
    assert result.position.selected is None and result.position.round == 0
    assert run.sink.of("path_update")[-1]["path"] == [A, X]
