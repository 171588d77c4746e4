"""Runs and the deployment's evidence graph: a run writes the links it proves, and the next run
asks the graph first (a chain it holds answers at no paid call, its links shown with their photos,
marked as from an earlier run, with the date they were proven); a photo gone is not reused; a new
end tied to anyone of the graph closes a chain."""

from __future__ import annotations

from tests.integration.test_event_size import _Nowhere
from tests.integration.test_strategies import (
    ANN,
    BOB,
    CAT,
    DAN,
    EVE,
    Web,
    meet_in_the_middle_web,
    runner,
    still_up,
)
from tests.support.fakes import ListSink, face
from visual_degrees.domain.models import RunOptions
from visual_degrees.domain.names import name_key
from visual_degrees.lifecycle.evidence_graph import MemoryGraphStore
from visual_degrees.lifecycle.run_memory import RunEvidence
from visual_degrees.lifecycle.runs_api import RunsApi, StoredSubscriptions
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.local.runner import RunResult

ISSUE6 = RunOptions(knobs={"caption_leads": False, "planner_matching": False})
FROM_S1 = ["S0_InitializeSession", "S1_DirectEdgeAttempt", "S1_Outcome", "S6_FinalizeSuccess"]


def proven_chain(memory: SqliteMemory) -> None:
    """An earlier run on `memory` that proved Ann—Cat—Dan—Bob."""
    assert runner(meet_in_the_middle_web(), memory=memory).run(ANN, BOB, ISSUE6).outcome == "path"


def test_a_run_writes_every_link_it_proves_without_face_data() -> None:
    memory = SqliteMemory(":memory:")
    proven_chain(memory)
    graph = MemoryGraphStore(memory)
    web = "live"  # the scripted providers' photo web
    links = [graph.link(web, name_key(x), name_key(y)) for x, y in ((ANN, CAT), (CAT, DAN), (DAN, BOB))]
    assert all(link is not None for link in links)
    assert {link.image_url for link in links if link} == {"u/ann-cat", "u/dan-cat", "u/bob-dan"}
    assert all(link.run_id and link.id_a and link.id_b for link in links if link)


def test_a_question_the_graph_answers_costs_nothing_and_shows_each_link_as_from_an_earlier_run() -> None:
    # Given an earlier run that proved Ann—Cat—Dan—Bob
    memory = SqliteMemory(":memory:")
    proven_chain(memory)
    # When Cat — Bob is asked (never asked itself: two links of that chain)
    web = meet_in_the_middle_web()
    sink = ListSink()
    result = runner(web, memory=memory).run(CAT, BOB, RunOptions(), sink=sink)
    # Then it is answered from S1 without a search, a fetch the run pays for or a recognition
    assert result.outcome == "path" and result.execution.visited == FROM_S1
    assert result.final.data["path"] == [CAT, DAN, BOB] and web.asked == []
    usage = result.final.data["usage"]
    assert usage["searches"] == usage["recognitions"] == usage["llmCalls"] == 0
    # And each link shows its photo first, marked as from an earlier run, with the date proven
    cards = [e.data for e in sink.events if e.type == "evidence"]
    assert {c["imageUrl"] for c in cards} == {"u/dan-cat", "u/bob-dan"}
    assert all(c["earlierRun"] is True and c["provenAt"].endswith("Z") for c in cards)
    assert all(e["evidence"]["earlierRun"] for e in result.final.data["edges"])
    assert any("Earlier runs already proved" in e.data.get("message", "") for e in sink.events)


def test_a_link_whose_photo_is_gone_is_not_reused_and_leaves_the_graph() -> None:
    # Given an earlier run that proved Ann—Cat—Dan—Bob, and the Dan—Cat photo since taken down
    memory = SqliteMemory(":memory:")
    proven_chain(memory)
    web = meet_in_the_middle_web()
    web.dead.add("u/dan-cat")
    # When Ann — Bob is asked again
    result = runner(web, memory=memory).run(ANN, BOB, ISSUE6)
    # Then no chain through the gone photo is claimed, and the graph no longer holds that link
    assert result.outcome == "no_path"
    assert MemoryGraphStore(memory).link("live", name_key(DAN), name_key(CAT)) is None


def test_a_new_end_tied_to_anyone_of_the_graph_closes_the_chain_at_once() -> None:
    # Given an earlier run that proved Ann—Cat—Dan—Bob
    memory = SqliteMemory(":memory:")
    proven_chain(memory)
    # When Eve — Bob is asked, and the one photo of "Eve Fox Bob Ray" shows Eve with Cat
    web = still_up(Web())
    web.answer(f"{EVE} {BOB}", web.photo("u/eve-cat", face(EVE), face(CAT)))
    sink = ListSink()
    result = runner(web, memory=memory).run(EVE, BOB, RunOptions(), sink=sink)
    # Then that one search closes Eve—Cat—Dan—Bob: Cat is a meeting point, the rest comes from the graph
    assert result.outcome == "path" and result.final.data["path"] == [EVE, CAT, DAN, BOB]
    assert web.asked == [f"{EVE} {BOB}"] and result.execution.visited == FROM_S1
    edges = result.final.data["edges"]
    assert [e["evidence"]["earlierRun"] for e in edges] == [False, True, True]
    assert any("a photo tying the other end" in e.data.get("message", "") for e in sink.events)


def eve_meets_cat(memory: SqliteMemory, gone: str, sink: ListSink | None = None) -> RunResult:
    """Eve — Bob asked after an earlier run proved Ann—Cat—Dan—Bob on `memory`, on a later web where
    the photo `gone` is taken down and a photo shows Eve with Cat (Cat's part of the graph joins)."""
    proven_chain(memory)
    web = eve_with_cat()
    web.dead.add(gone)
    return runner(web, memory=memory).run(EVE, BOB, RunOptions(), sink=sink)


def test_a_chain_through_the_graph_is_not_claimed_on_a_reused_link_whose_photo_is_gone() -> None:
    # Given an earlier run that proved Ann—Cat—Dan—Bob, and the Dan—Cat photo since taken down
    # When Eve — Bob is asked, and a photo shows Eve with Cat (Cat's part of the graph joins the run)
    memory, sink = SqliteMemory(":memory:"), ListSink()
    result = eve_meets_cat(memory, "u/dan-cat", sink)
    # Then no chain through the gone photo is claimed, the run says why, and the link leaves the graph
    assert result.outcome != "path" or "u/dan-cat" not in {
        e["evidence"]["imageUrl"] for e in result.final.data["edges"]
    }
    assert any("no longer has its photo" in e.data.get("message", "") for e in sink.events)
    assert MemoryGraphStore(memory).link("live", name_key(DAN), name_key(CAT)) is None
    # And the run's own graph (what getGraph pages through) no longer holds it either
    held = RunEvidence(memory, result.run_id, 3600).edges_after(None, 100)
    assert "u/dan-cat" not in {edge.evidence.image_url for _, edge in held}


# The seed's walk (meeting in the middle), with no second photo asked of a weakly matched face: a step
# that proves the final link itself claims the chain.
SEED_WALK = RunOptions(
    knobs={"caption_leads": False, "planner_matching": False, "corroborate_weak_edges": False}
)


def test_the_walk_never_ends_on_a_reused_link_whose_photo_is_gone_and_goes_on_to_one_that_stands() -> None:
    # Given an earlier run that proved Ann—Cat, whose photo is since taken down
    memory = SqliteMemory(":memory:")
    first = Web()
    first.answer(f"{ANN} {CAT}", first.photo("u/ann-cat", face(ANN), face(CAT)))
    assert runner(first, memory=memory).run(ANN, CAT, SEED_WALK).outcome == "path"
    # When Ann — Bob is asked where Cat's pair search with Bob shows them (the walk's bridge from
    # Cat proves the final link itself), and other photos show Ann with Cat and Bob with Cat
    web = Web()
    web.answer(f"{ANN} cast", web.photo("u/ann-cat-again", face(ANN), face(CAT)))
    cat_bob = web.photo("u/cat-bob", face(CAT), face(BOB))
    web.answer(f"{CAT} {BOB}", cat_bob)
    web.answer(f"{BOB} cast", cat_bob)
    sink = ListSink()
    result = runner(web, memory=memory).run(ANN, BOB, SEED_WALK, sink=sink)
    # Then the run never reaches its answer without a chain: it says the link is gone, goes on, and
    # answers with photos that resolve
    assert result.outcome == "path" and result.final.data["path"] == [ANN, CAT, BOB]
    assert [e["evidence"]["imageUrl"] for e in result.final.data["edges"]] == ["u/ann-cat-again", "u/cat-bob"]
    assert any("no longer has its photo" in e.data.get("message", "") for e in sink.events)
    # And no chain was shown through the gone photo before the new one was found
    types = [(e.type, e.data.get("imageUrl")) for e in sink.events]
    again = types.index(("evidence", "u/ann-cat-again"))
    assert ("path_update", None) not in types[:again]
    link = MemoryGraphStore(memory).link("live", name_key(ANN), name_key(CAT))
    assert link is not None and link.image_url == "u/ann-cat-again"


def test_a_reused_link_is_shown_in_the_runs_graph_only_once_the_run_re_checked_its_photo() -> None:
    # Given an earlier run that proved Ann—Cat—Dan—Bob, and the Ann—Cat photo since taken down
    # When Eve — Bob is asked, and a photo shows Eve with Cat (Cat's part of the graph joins the run,
    # Ann—Cat with it, but no chain the run claims or shows uses Ann—Cat)
    memory = SqliteMemory(":memory:")
    result = eve_meets_cat(memory, "u/ann-cat")
    assert result.outcome == "path" and result.final.data["path"] == [EVE, CAT, DAN, BOB]
    # Then neither the final event's graph nor getGraph shows Ann—Cat, whose photo is gone ...
    ann = name_key(ANN)
    assert all(ann not in (e["source"], e["target"]) for e in result.final.data["graph"]["edges"])
    nowhere = _Nowhere()
    api = RunsApi(memory, nowhere, StoredSubscriptions(memory, nowhere, nowhere), nowhere)  # type: ignore[arg-type]
    page = api.graph_page(result.run_id, 1800, None)
    assert page["cursor"] is None and "u/ann-cat" not in {e["imageUrl"] for e in page["edges"]}
    assert ann not in {n["id"] for n in page["nodes"]}
    # ... while the links it proved and the reused ones it re-checked are shown, these with their date
    shown = {e["imageUrl"]: e for e in page["edges"]}
    assert set(shown) == {"u/eve-cat", "u/dan-cat", "u/bob-dan"}
    reused = [shown["u/dan-cat"], shown["u/bob-dan"]]
    assert all(e["earlierRun"] and e["provenAt"].endswith("Z") for e in reused)
    assert "earlierRun" not in shown["u/eve-cat"]


def test_a_photo_not_reached_now_keeps_the_graphs_chain_out_of_the_run_and_a_later_run_uses_it() -> None:
    # Given an earlier run that proved Ann—Cat—Dan—Bob, and the Dan—Cat photo's host timing out once
    memory = SqliteMemory(":memory:")
    proven_chain(memory)
    web = meet_in_the_middle_web()
    web.timeouts["u/dan-cat"] = 1
    # When Cat — Bob is asked (two links of that chain)
    sink = ListSink()
    result = runner(web, memory=memory).run(CAT, BOB, ISSUE6, sink=sink)
    # Then the run neither uses nor shows Dan—Cat
    shown = {e.data.get("imageUrl") for e in sink.events if e.type == "evidence"}
    assert result.outcome != "path" and "u/dan-cat" not in shown
    # And the graph keeps it: a later run, the host back, answers from it at no paid call
    again = runner(meet_in_the_middle_web(), memory=memory).run(CAT, BOB, RunOptions())
    assert again.outcome == "path" and again.execution.visited == FROM_S1
    assert again.final.data["path"] == [CAT, DAN, BOB]


def test_a_joined_link_whose_photo_is_not_reached_now_is_withdrawn_from_the_run_only() -> None:
    # Given an earlier run that proved Ann—Cat—Dan—Bob, and the Dan—Cat photo's host timing out once
    # When Eve — Bob is asked, and a photo shows Eve with Cat (Cat's part of the graph joins the run)
    memory, sink = SqliteMemory(":memory:"), ListSink()
    proven_chain(memory)
    web = eve_with_cat()
    web.timeouts["u/dan-cat"] = 1
    result = runner(web, memory=memory).run(EVE, BOB, RunOptions(), sink=sink)
    # Then no chain through Dan—Cat is claimed or shown, and the run says its photo could not be
    # reached now (not that it is gone)
    assert result.outcome != "path" or "u/dan-cat" not in {
        e["evidence"]["imageUrl"] for e in result.final.data["edges"]
    }
    messages = [e.data.get("message", "") for e in sink.events if e.type == "status"]
    assert any("could not be reached now" in m for m in messages)
    assert not any("no longer has" in m for m in messages)
    # And a later run, the host back, answers Eve — Bob from the graph (Eve—Cat proven by the first)
    again = runner(eve_with_cat(), memory=memory).run(EVE, BOB, RunOptions())
    assert again.outcome == "path" and again.execution.visited == FROM_S1
    assert again.final.data["path"] == [EVE, CAT, DAN, BOB]


def eve_with_cat() -> Web:
    """A later web where meet_in_the_middle_web's photos still resolve and one of "Eve Fox Bob Ray"
    shows Eve with Cat."""
    web = still_up(Web())
    web.answer(f"{EVE} {BOB}", web.photo("u/eve-cat", face(EVE), face(CAT)))
    return web
