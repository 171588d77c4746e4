"""A new end joins the evidence graph for one search (caption_leads/graph_link.py): when one end of
the question is in the graph and the other is not, the planner is asked once whom of the graph the new
end worked with, S1's one search asks for the pair and that guess together, and a photo of the new
end with the guess closes a chain the rest of which the graph holds. A guess is never a link."""

from __future__ import annotations

from typing import Any

from tests.integration.test_evidence_graph_runs import FROM_S1, proven_chain
from tests.integration.test_lead_strategy import PAGE, Hunches, TitledWeb
from tests.integration.test_strategies import still_up
from tests.support.fakes import ListSink, ManualClock, face
from visual_degrees.domain.models import RunOptions
from visual_degrees.domain.names import name_key
from visual_degrees.lifecycle.evidence_graph import MemoryGraphStore
from visual_degrees.ports import Providers
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.local.runner import LocalRunner, RunEnvironment, RunResult

ANN, BOB, CAT, DAN, EVE, GUS = "Ann Lee", "Bob Ray", "Cat Wu", "Dan Oz", "Eve Fox", "Gus Orr"


def ask(
    web: TitledWeb, memory: SqliteMemory, a: str, b: str, planner: Any, sink: ListSink | None = None
) -> RunResult:
    def environment(run_id: str) -> RunEnvironment:
        clock = ManualClock()
        return RunEnvironment(providers=Providers.of(web, planner), clock=clock, sleep=clock.advance)

    return LocalRunner(memory, environment).run(a, b, RunOptions(), sink=sink)


def graph_of_ann_cat_dan_bob() -> SqliteMemory:
    memory = SqliteMemory(":memory:")
    proven_chain(memory)  # an earlier run proved Ann—Cat—Dan—Bob
    return memory


def test_a_new_end_joins_the_graph_for_one_search_one_planner_call_and_one_recognition() -> None:
    # Given the graph Ann—Cat—Dan—Bob, and a planner that remembers Eve with Dan
    memory = graph_of_ann_cat_dan_bob()
    planner = Hunches([(EVE, DAN, "Film (2001)")])
    web = still_up(TitledWeb())
    web.answer(f"{EVE} {DAN}", web.titled("u/eve-dan", f"{EVE} and {DAN} at a gala", face(EVE), face(DAN)))
    sink = ListSink()
    # When Bob — Eve is asked (Eve is new to the graph)
    result = ask(web, memory, BOB, EVE, planner, sink)
    # Then the planner was offered the graph's people, and one page asked for the pair and the guess
    assert result.outcome == "path" and result.final.data["path"] == [BOB, DAN, EVE]
    offered = {p.name for p in planner.seen[0].side_b}
    assert offered == {ANN, CAT, DAN} and planner.seen[0].person_a == EVE
    assert web.asked == [(f"{BOB} {EVE} {DAN}", PAGE)]
    usage = result.final.data["usage"]
    assert (usage["searches"], usage["recognitions"], usage["llmCalls"]) == (1, 1, 1)
    # And the new link is proven by its photo now; the rest is read from the graph
    edges = result.final.data["edges"]
    assert [e["evidence"]["earlierRun"] for e in edges] == [True, False]
    assert MemoryGraphStore(memory).link("live", name_key(DAN), name_key(EVE)) is not None
    # And the page held the pair's own photos: one degree is ruled out by it
    ruled_out = result.final.data["degrees"]["ruledOut"]
    assert [d["degrees"] for d in ruled_out] == [1] and f"{BOB} {EVE} {DAN}" in ruled_out[0]["evidence"]


def test_the_pair_itself_is_on_the_same_page_so_a_photo_of_both_still_answers_in_one_degree() -> None:
    memory = graph_of_ann_cat_dan_bob()
    planner = Hunches([(EVE, DAN, "")])
    web = still_up(TitledWeb())
    web.answer(f"{BOB} {EVE}", web.titled("u/bob-eve", f"{BOB} and {EVE} on set", face(BOB), face(EVE)))
    web.answer(f"{EVE} {DAN}", web.titled("u/eve-dan", f"{EVE} with {DAN}", face(EVE), face(DAN)))
    result = ask(web, memory, BOB, EVE, planner)
    assert result.final.data["path"] == [BOB, EVE]
    assert [q for q, _ in web.asked] == [f"{BOB} {EVE} {DAN}"]
    assert result.execution.visited == FROM_S1


def test_a_wrong_guess_is_never_a_link() -> None:
    # Given a planner sure Eve worked with Cat, and no photo of them on any page
    memory = graph_of_ann_cat_dan_bob()
    planner = Hunches([(EVE, CAT, "")])
    web = still_up(TitledWeb())
    web.answer(f"{EVE} {CAT}", web.titled("u/eve", f"{EVE} at a premiere", face(EVE)))
    sink = ListSink()
    result = ask(web, memory, BOB, EVE, planner, sink)
    # Then no chain through Cat is claimed, the graph gains no such link, and the guess is said as one
    assert result.outcome == "no_path"
    assert MemoryGraphStore(memory).link("live", name_key(CAT), name_key(EVE)) is None
    assert web.asked[0] == (f"{BOB} {EVE} {CAT}", PAGE)
    assert any(f"{EVE} might have worked with {CAT}" in e.data.get("message", "") for e in sink.events)


def test_without_a_planner_the_pair_is_searched_as_it_stands() -> None:
    memory = graph_of_ann_cat_dan_bob()
    web = still_up(TitledWeb())
    web.answer(f"{EVE} {BOB}", web.titled("u/eve-cat", f"{EVE} and {CAT}", face(EVE), face(CAT)))
    result = ask(web, memory, EVE, BOB, None)
    assert result.final.data["path"] == [EVE, CAT, DAN, BOB]
    assert [q for q, _ in web.asked] == [f"{EVE} {BOB}"]


def test_two_new_ends_are_not_asked_about_the_graph() -> None:
    memory = graph_of_ann_cat_dan_bob()
    planner = Hunches([(EVE, GUS, "")])
    web = still_up(TitledWeb())
    web.answer(f"{EVE} {GUS}", web.titled("u/eve-gus", f"{EVE} and {GUS}", face(EVE), face(GUS)))
    result = ask(web, memory, EVE, GUS, planner)
    assert result.final.data["path"] == [EVE, GUS]
    assert [q for q, _ in web.asked] == [f"{EVE} {GUS}"] and not planner.seen
