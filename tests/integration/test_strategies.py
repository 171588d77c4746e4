"""Each idea of issue 6's default strategy (discovery rounds that recognise the first images of each
query), shown on a hand-built photo web where its effect follows from the script: with the knob on
the run does what the idea claims, with it off it does not. Those ideas are still knobs of the
default strategy, under `caption_leads` and `planner_matching` (switched off here: ISSUE6); the
caption-leads strategy that replaced them is tested in test_lead_strategy.py.

The webs answer only the queries scripted; everything else finds nothing.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest

from tests.support.fakes import FakeWeb, ListSink, ManualClock, ScriptedPlanner, face
from tests.support.twice import Twice
from visual_degrees.domain.models import Face, FetchedImage, ImageHit, RunOptions
from visual_degrees.domain.planning import PlannerReply
from visual_degrees.ports import Providers
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.local.runner import LocalRunner, RunEnvironment, RunResult
from visual_degrees_tools.sandbox import VirtualClock

ANN, BOB, CAT, DAN, EVE = "Ann Lee", "Bob Ray", "Cat Wu", "Dan Oz", "Eve Fox"


@dataclass
class Web(FakeWeb):
    """FakeWeb that also keeps the queries asked, gives photos their own titles, and (with a
    VirtualClock) charges each call the sandbox's latency."""

    asked: list[str] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)
    clock: VirtualClock | None = None

    def titled(self, url: str, title: str, *faces: Face) -> str:
        self.titles[url] = title
        return self.photo(url, *faces)

    def search(self, query: str, count: int) -> list[ImageHit]:
        self.asked.append(query)
        self._charge(0.5)
        hits = super().search(query, count)
        return [h.model_copy(update={"title": self.titles.get(h.image_url, h.title)}) for h in hits]

    def fetch(self, url: str) -> FetchedImage:
        self._charge(0.3)
        return super().fetch(url)

    def recognize(self, image: FetchedImage) -> list[Face]:
        self._charge(0.7)
        return super().recognize(image)

    def _charge(self, seconds: float) -> None:
        if self.clock is not None:
            self.clock.advance(seconds)


def runner(web: Web, *, planner: Any = None, memory: SqliteMemory | None = None) -> LocalRunner:
    def environment(run_id: str) -> RunEnvironment:
        clock = web.clock or ManualClock()
        return RunEnvironment(
            providers=Providers.of(web, planner),
            clock=clock,
            sleep=clock.advance,
            on_transition=lambda _state: clock.advance(0.05),
        )

    return LocalRunner(memory or SqliteMemory(":memory:"), environment)


ISSUE6 = {"caption_leads": False, "planner_matching": False}


def switched(max_hops: int = 6, **knobs: bool) -> RunOptions:
    """The default strategy with some knobs switched, as a run's options carry them."""
    return RunOptions(max_hops=max_hops, knobs={**ISSUE6, **knobs})


def meet_in_the_middle_web() -> Web:
    """Ann—Cat—Dan—Bob. Ann's search shows Cat, Bob's shows Dan; only "Dan Oz Cat Wu" shows both."""
    web = Web()
    web.answer(f"{ANN} {BOB}")
    web.answer(f"{ANN} cast", web.photo("u/ann-cat", face(ANN), face(CAT)))
    web.answer(f"{BOB} cast", web.photo("u/bob-dan", face(BOB), face(DAN)))
    web.answer(f"{DAN} {CAT}", web.photo("u/dan-cat", face(DAN), face(CAT)))
    return web


W = TypeVar("W", bound=FakeWeb)


def still_up(web: W) -> W:
    """A later web on which meet_in_the_middle_web's photos still resolve (an earlier run's links
    through them are reused)."""
    for url, faces in meet_in_the_middle_web().photos.items():
        web.photo(url, *faces)
    return web


def test_meeting_in_the_middle_finds_a_link_only_the_far_side_can_see():
    # Given Dan, whom only Bob's side of the web shows
    web = meet_in_the_middle_web()
    sink = ListSink()
    # When the default strategy runs
    result = runner(web).run(ANN, BOB, RunOptions(knobs=ISSUE6), sink=sink)
    # Then it expanded both ends and proved the chain through both sides
    assert result.outcome == "path"
    assert result.final.data["path"] == [ANN, CAT, DAN, BOB]
    assert {f"{ANN} cast", f"{BOB} cast"} <= set(web.asked)
    assert {e.data.get("side") for e in sink.events if e.type == "path_update"} == {"A", "B"}
    # And one-sided, the same web never shows Dan: no path
    one_sided = meet_in_the_middle_web()
    assert runner(one_sided).run(ANN, BOB, switched(both_ends=False)).outcome == "no_path"


def test_the_bridge_tries_the_other_sides_person_not_the_far_end():
    web = meet_in_the_middle_web()
    assert runner(web).run(ANN, BOB, RunOptions(knobs=ISSUE6)).outcome == "path"
    # the new person on Bob's side (Dan) was tried against Cat, Ann's side's person, and not Ann
    assert f"{DAN} {CAT}" in web.asked and f"{DAN} {ANN}" not in web.asked
    # Trying Dan against Ann instead is pointless here (Ann's search already listed every photo of
    # her), so without the idea the link Dan—Cat is never tried and the run finds nothing
    far_end = meet_in_the_middle_web()
    assert runner(far_end).run(ANN, BOB, switched(bridge_to_other_side=False)).outcome == "no_path"
    assert f"{DAN} {CAT}" not in far_end.asked


def test_a_photo_that_already_connects_the_graph_ends_the_run_without_another_search():
    # Given Ann's cast photo showing Cat, and a second one showing Cat with Bob
    web = Web()
    web.answer(f"{ANN} {BOB}")
    web.answer(
        f"{ANN} cast",
        web.photo("u/ann-cat", face(ANN), face(CAT)),
        web.photo("u/cat-bob", face(CAT), face(BOB)),
    )
    result = runner(web).run(ANN, BOB, RunOptions(knobs=ISSUE6))
    # Then the chain is proven from the photos in hand: two searches, no bridge
    assert result.outcome == "path" and result.final.data["path"] == [ANN, CAT, BOB]
    assert web.asked == [f"{ANN} {BOB}", f"{ANN} cast"]


def test_discovery_asks_for_group_photos_first():
    web = meet_in_the_middle_web()
    runner(web).run(ANN, BOB, RunOptions(knobs=ISSUE6))
    assert web.asked[1] == f"{ANN} cast"
    bare = meet_in_the_middle_web()
    runner(bare).run(ANN, BOB, switched(group_queries_first=False))
    assert bare.asked[1] == ANN


def test_an_end_no_photo_shows_stops_the_run_early_and_says_why():
    # Given a web where Ann appears in no photo at all, and Bob's side goes on and on
    web = Web()
    web.answer(f"{ANN} {BOB}", web.photo("u/bob", face(BOB)))
    web.answer(f"{BOB} cast", web.photo("u/bob-dan", face(BOB), face(DAN)))
    web.answer(f"{DAN} cast", web.photo("u/dan-eve", face(DAN), face(EVE)))
    result = runner(web).run(ANN, BOB, RunOptions(knobs=ISSUE6))
    # Then the run stops once Ann's own search found nothing, naming her
    assert result.outcome == "no_path"
    assert result.final.data["reason"] == "candidates_exhausted"
    assert ANN in result.final.data["message"]
    stopped_at = result.final.data["usage"]["searches"]
    assert stopped_at <= 3
    # And without the rule it keeps paying for searches that cannot succeed
    assert (
        runner(web).run(ANN, BOB, switched(stop_when_end_unseen=False)).final.data["usage"]["searches"]
        > stopped_at
    )


def test_the_planner_ranks_the_candidates_towards_the_far_end_of_their_side():
    # Given Ann's cast photo showing Cat and Eve, and a planner that prefers Eve
    web = Web()
    web.answer(f"{ANN} {BOB}")
    web.answer(f"{ANN} cast", web.photo("u/ann-all", face(ANN), face(CAT), face(EVE)))
    web.answer(f"{EVE} {BOB}", web.photo("u/eve-bob", face(EVE), face(BOB)))
    planner = ScriptedPlanner([PlannerReply(next_candidates=[EVE], narration="Eve knows Bob.")])
    result = runner(web, planner=planner).run(ANN, BOB, RunOptions(knobs=ISSUE6))
    # Then Eve is tried first, with Bob named as the target of Ann's side
    assert result.outcome == "path" and result.final.data["path"] == [ANN, EVE, BOB]
    assert planner.seen[0].target == BOB and planner.seen[0].frontier == ANN
    assert {c.name for c in planner.seen[0].candidates} == {CAT, EVE}
    assert f"{CAT} {BOB}" not in web.asked
    # And with the knob off the planner is not asked at all (the deterministic order decides)
    silent = ScriptedPlanner([PlannerReply(next_candidates=[EVE])])
    runner(web, planner=silent).run(ANN, BOB, switched(planner_ranking=False))
    assert silent.seen == []


def test_an_invalid_planner_answer_is_fed_back_then_replaced_by_the_fallback():
    # Given two candidates and a planner that names someone it was never offered, twice
    web = Web()
    web.answer(f"{ANN} {BOB}")
    web.answer(f"{ANN} cast", web.photo("u/ann-all", face(ANN), face(CAT), face(EVE)))
    web.answer(f"{CAT} {BOB}", web.photo("u/cat-bob", face(CAT), face(BOB)))
    planner = ScriptedPlanner([PlannerReply(next_candidates=["Zed Unoffered"])])
    result = runner(web, planner=planner).run(ANN, BOB, RunOptions(knobs=ISSUE6))
    # Then the second attempt carried the validation error, both were paid for, and the
    # deterministic order (best connected, then name) chose: Cat before Eve
    assert len(planner.seen) == 2 and "Zed Unoffered" in planner.seen[1].feedback[0]
    assert result.final.data["usage"]["llmCalls"] == 2
    assert result.outcome == "path" and result.final.data["path"] == [ANN, CAT, BOB]


def test_a_portrait_title_is_not_paid_for():
    # Given Ann's search returning her portrait (by its title) and a photo of her with Cat
    web = Web()
    web.answer(f"{ANN} {BOB}")
    web.answer(
        f"{ANN} cast",
        web.titled("u/ann", f"{ANN} at the premiere of Film (2001)", face(ANN)),
        web.titled("u/ann-cat", f"{ANN} and {CAT} at the premiere of Film (2001)", face(ANN), face(CAT)),
    )
    result = runner(web).run(ANN, BOB, RunOptions(max_hops=2, knobs=ISSUE6))
    # Then only the group photo was recognised
    assert web.calls["recognize"] == 1
    assert result.final.data["usage"]["recognitions"] == 1
    paid = (
        runner(web)
        .run(ANN, BOB, switched(skip_portraits=False, max_hops=2))
        .final.data["usage"]["recognitions"]
    )
    assert paid == 2


def test_images_of_one_search_are_recognised_concurrently():
    # Given a direct hit among five images, on a clock that charges the sandbox's latencies
    def five_image_web() -> Web:
        web = Web(clock=VirtualClock())
        urls = [web.photo(f"u/{i}", face(ANN), face(CAT)) for i in range(4)]
        web.answer(f"{ANN} {BOB}", *urls, web.photo("u/both", face(ANN), face(BOB)))
        return web

    parallel = runner(five_image_web()).run(ANN, BOB, RunOptions(knobs=ISSUE6)).final.data["simSeconds"]
    serial = runner(five_image_web()).run(ANN, BOB, switched(parallel_images=False)).final.data["simSeconds"]
    # Then the search costs the slowest image (0.3 s fetch + 0.7 s recognition), not all five
    assert serial - parallel == pytest.approx(4 * (0.3 + 0.7))


def test_answers_from_earlier_runs_are_not_paid_for_twice():
    # Given one memory outliving two runs of the same question (evidence graph off: caches only)
    memory = SqliteMemory(":memory:")
    web = meet_in_the_middle_web()
    first = runner(web, memory=memory).run(ANN, BOB, switched(evidence_graph=False))
    calls = dict(web.calls)
    second = runner(web, memory=memory).run(ANN, BOB, switched(evidence_graph=False))
    # Then the second run reaches the same answer without one paid search or recognition
    assert first.outcome == second.outcome == "path"
    assert second.final.data["path"] == first.final.data["path"]
    assert dict(web.calls) == calls
    assert second.final.data["usage"]["searches"] == second.final.data["usage"]["recognitions"] == 0


def test_a_chain_verified_by_an_earlier_run_answers_at_once_with_its_photos():
    memory = SqliteMemory(":memory:")
    web = meet_in_the_middle_web()
    first = runner(web, memory=memory).run(ANN, BOB, switched(shared_cache=False))
    second = runner(web, memory=memory).run(ANN, BOB, switched(shared_cache=False))
    assert second.execution.visited == [
        "S0_InitializeSession",
        "S1_DirectEdgeAttempt",
        "S1_Outcome",
        "S6_FinalizeSuccess",
    ]
    assert second.final.data["usage"]["searches"] == 0
    # the very photos (and confidences) the first run accepted back every edge
    assert [e["evidence"]["imageUrl"] for e in second.final.data["edges"]] == [
        e["evidence"]["imageUrl"] for e in first.final.data["edges"]
    ]


def test_evidence_from_an_earlier_run_is_never_used_for_a_namesake():
    # Given an earlier run that proved Ann—Cat—Dan—Bob, with Bob Ray's celebrity id "id-bob ray"
    memory = SqliteMemory(":memory:")
    assert (
        runner(meet_in_the_middle_web(), memory=memory).run(ANN, BOB, RunOptions(knobs=ISSUE6)).outcome
        == "path"
    )

    def later_web(bob_seen_as: str | None) -> Web:
        """Eve's cast photo shows Dan; S1 shows Eve alone, and maybe a Bob Ray (the earlier run's
        photos are still up)."""
        web = still_up(Web())
        photos = [web.photo("u/eve", face(EVE))]
        if bob_seen_as:
            photos.append(web.photo("u/a-bob", face(BOB, 99.0, bob_seen_as)))
        web.answer(f"{EVE} {BOB}", *photos)
        web.answer(f"{EVE} cast", web.photo("u/eve-dan", face(EVE), face(DAN)))
        return web

    # When a later run (Eve — Bob) first sees another person named Bob Ray
    namesake = runner(later_web("id-other-bob"), memory=memory).run(EVE, BOB, switched(shared_cache=False))
    # (and, for contrast, when it has not seen any Bob Ray yet)
    unseen = runner(later_web(None), memory=memory).run(EVE, BOB, switched(shared_cache=False))
    # Then the remembered Dan—Bob photo is not used for the other Bob Ray ...
    assert namesake.outcome == "no_path"
    # ... while, with no Bob Ray pinned yet, it completes Eve—Dan—Bob from the earlier evidence
    assert unseen.outcome == "path" and unseen.final.data["path"] == [EVE, DAN, BOB]
    assert unseen.final.data["edges"][-1]["evidence"]["idB"] == "id-bob ray"


def weak_link_web(*, second_photo: bool, caption: str = "Cat Wu at a gala (2001)") -> Web:
    """Ann's cast photos show Ann with Cat (clearly) and Cat with someone matched as Bob Ray at 85 %
    whom the caption does not name (a lookalike, if no other photo shows them together)."""
    web = Web()
    web.answer(f"{ANN} {BOB}")
    web.answer(
        f"{ANN} cast",
        web.photo("u/ann-cat", face(ANN), face(CAT)),
        web.titled("u/cat-bob-weak", caption, face(CAT), face(BOB, 85.0)),
    )
    if second_photo:
        web.answer(f"{CAT} {BOB}", web.photo("u/cat-bob-clear", face(CAT), face(BOB, 98.0)))
    return web


def test_a_weak_link_is_confirmed_by_a_second_photo_before_the_chain_is_claimed():
    web = weak_link_web(second_photo=True)
    result = runner(web).run(ANN, BOB, RunOptions(knobs=ISSUE6))
    # Then the pair's own search was asked for a second photo, which settled it
    assert result.outcome == "path" and result.final.data["path"] == [ANN, CAT, BOB]
    assert web.asked == [f"{ANN} {BOB}", f"{ANN} cast", f"{CAT} {BOB}"]
    assert result.final.data["edges"][-1]["evidence"]["imageUrl"] == "u/cat-bob-clear"


def test_a_weak_link_nothing_confirms_is_never_claimed():
    # Given no second photo of Cat with Bob: the 85 % face was a lookalike
    web = weak_link_web(second_photo=False)
    result = runner(web).run(ANN, BOB, RunOptions(knobs=ISSUE6))
    assert result.outcome == "no_path"
    assert f"{CAT} {BOB}" in web.asked
    # And without the idea, the lookalike's photo would have been claimed as proof
    claimed = runner(weak_link_web(second_photo=False)).run(ANN, BOB, switched(corroborate_weak_edges=False))
    assert (
        claimed.outcome == "path"
        and claimed.final.data["edges"][-1]["evidence"]["imageUrl"] == "u/cat-bob-weak"
    )


def test_a_caption_naming_the_weakly_matched_person_vouches_for_the_photo():
    web = weak_link_web(second_photo=False, caption="Cat Wu and Bob Ray at a gala (2001)")
    result = runner(web).run(ANN, BOB, RunOptions(knobs=ISSUE6))
    assert result.outcome == "path" and web.asked == [f"{ANN} {BOB}", f"{ANN} cast"]


@pytest.mark.parametrize("forget", [False, True])
def test_meeting_in_the_middle_is_idempotent_step_by_step(monkeypatch, forget):
    # Given a run whose discovery step makes several rounds (Ann finds nobody new, then Bob's side)
    def web() -> Web:
        w = meet_in_the_middle_web()
        w.answer(f"{ANN} with")
        return w

    normal_sink, twice_sink = ListSink(), ListSink()
    normal = runner(web()).run(ANN, BOB, RunOptions(knobs=ISSUE6), run_id="r-normal", sink=normal_sink)
    memory = SqliteMemory(":memory:")
    monkeypatch.setattr("visual_degrees_tools.local.runner.execute", Twice(memory, forget))
    doubled = runner(web(), memory=memory).run(
        ANN, BOB, RunOptions(knobs=ISSUE6), run_id="r-twice", sink=twice_sink
    )
    # Then the events, their seqs, the usage and the answer are those of a single execution
    assert normal.outcome == "path"
    assert [(e.seq, e.type, e.data) for e in twice_sink.events] == [
        (e.seq, e.type, e.data) for e in normal_sink.events
    ]
    assert doubled.final.data["usage"] == normal.final.data["usage"]


def test_runs_sharing_a_process_keep_their_own_knobs_and_cache_tallies():
    # Given a memory that has answered Ann—Bob once already (a run asking again is served from it)
    warm = SqliteMemory(":memory:")
    runner(meet_in_the_middle_web(), memory=warm).run(ANN, BOB, switched(evidence_graph=False))
    # And a default run that, in the middle of its first search, lets a one-sided run on the warm
    # memory go from start to end in the same process (the steps of two runs alternated)
    during: dict[str, RunResult] = {}
    web = meet_in_the_middle_web()
    search = web.search

    def interleaved(query: str, count: int) -> list[ImageHit]:
        if not during:
            one_sided = switched(both_ends=False, evidence_graph=False)
            during["run"] = runner(meet_in_the_middle_web(), memory=warm).run(ANN, BOB, one_sided)
        return search(query, count)

    web.search = interleaved  # type: ignore[method-assign]
    outer = runner(web).run(ANN, BOB, RunOptions(knobs=ISSUE6))
    inner = during["run"]
    # Then each run followed its own strategy, whatever the other one did meanwhile
    assert outer.outcome == "path" and outer.final.data["path"] == [ANN, CAT, DAN, BOB]
    assert inner.outcome == "no_path"
    # And each counted only its own cache hits: the inner run was served by the warm memory, the
    # outer one (fresh memory) never was
    assert inner.cache_tally.searches_shared >= 1
    assert outer.cache_tally.searches_shared == outer.cache_tally.recognitions_shared == 0


def test_concurrent_runs_with_different_knobs_do_not_change_each_other():
    # Given runs of both kinds going at once on worker threads
    options = [RunOptions(knobs=ISSUE6), switched(both_ends=False)] * 3
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(
            pool.map(lambda o: runner(meet_in_the_middle_web()).run(ANN, BOB, o).outcome, options)
        )
    # Then each ended as its own knobs say (meeting in the middle finds Dan; one-sided cannot)
    assert outcomes == ["path", "no_path"] * 3
