"""People a page names beside an end, found in the evidence graph beyond the links a run brought in
at S1 (search/named_in_graph.py): their chain to the other end joins the run, so a photo of the end
with them closes a chain. A title is a lead, never a link: only the photo, recognised, ties the end."""

from __future__ import annotations

import pytest

from tests.integration.test_graph_link_runs import ANN, BOB, CAT, DAN, EVE, GUS, ask, graph_of_ann_cat_dan_bob
from tests.integration.test_lead_strategy import TitledWeb
from tests.integration.test_strategies import still_up
from tests.support.fakes import ListSink, face
from visual_degrees.domain.models import ImageHit
from visual_degrees.domain.names import name_key
from visual_degrees.lifecycle.evidence_graph import MemoryGraphStore
from visual_degrees.search import known_edges, named_in_graph

HAL = "Hal Kim"


@pytest.fixture
def one_link_brought_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """S1 brings in one link around the ends (Bob—Dan), as a big graph leaves most of it out."""
    monkeypatch.setattr(known_edges, "MAX_COMPONENT_LINKS", 1)


def statuses(sink: ListSink) -> list[str]:
    return [e.data.get("message", "") for e in sink.events if e.type == "status"]


@pytest.mark.usefixtures("one_link_brought_in")
def test_someone_named_beside_the_new_end_far_in_the_graph_closes_the_chain_with_one_recognition() -> None:
    # Given the graph Ann—Cat—Dan—Bob, of which S1 brings in Bob—Dan only
    memory = graph_of_ann_cat_dan_bob()
    web = still_up(TitledWeb())
    web.answer(f"{BOB} {EVE}", web.titled("u/eve-ann", f"{EVE} and {ANN} at a gala", face(EVE), face(ANN)))
    sink = ListSink()
    # When Bob — Eve is asked (Eve is new to the graph; its page names her beside Ann)
    result = ask(web, memory, BOB, EVE, None, sink)
    # Then Ann's chain to Bob is read from the graph, and one photo of Eve with Ann answers
    assert result.outcome == "path" and result.final.data["path"] == [BOB, DAN, CAT, ANN, EVE]
    usage = result.final.data["usage"]
    assert (usage["searches"], usage["recognitions"]) == (1, 1)
    assert [q for q, _ in web.asked] == [f"{BOB} {EVE}"]
    # And only the new link is proven now; the graph's links are shown as an earlier run's
    edges = result.final.data["edges"]
    assert [e["evidence"]["earlierRun"] for e in edges] == [True, True, True, False]
    assert MemoryGraphStore(memory).link("live", name_key(ANN), name_key(EVE)) is not None
    assert any(f"names beside {EVE} to {BOB}" in m for m in statuses(sink))


def test_two_new_ends_named_beside_the_same_person_of_the_graph_meet_through_them() -> None:
    memory = graph_of_ann_cat_dan_bob()
    web = still_up(TitledWeb())
    web.answer(
        f"{EVE} {GUS}",
        web.titled("u/eve-cat", f"{EVE} and {CAT} at a gala", face(EVE), face(CAT)),
        web.titled("u/gus-cat", f"{GUS} and {CAT} on set", face(GUS), face(CAT)),
    )
    sink = ListSink()
    result = ask(web, memory, EVE, GUS, None, sink)
    # Then the two leads are the chain; the graph is not asked for a route between them
    assert result.final.data["path"] == [EVE, CAT, GUS]
    assert not any("names beside" in m for m in statuses(sink))


@pytest.mark.usefixtures("one_link_brought_in")
def test_a_title_whose_photo_does_not_show_both_brings_in_the_chain_but_makes_no_link() -> None:
    memory = graph_of_ann_cat_dan_bob()
    web = still_up(TitledWeb())
    web.answer(f"{BOB} {EVE}", web.titled("u/eve-ann", f"{EVE} and {ANN} at a gala", face(EVE)))
    result = ask(web, memory, BOB, EVE, None)
    assert result.outcome == "no_path"
    assert MemoryGraphStore(memory).link("live", name_key(ANN), name_key(EVE)) is None


@pytest.mark.usefixtures("one_link_brought_in")
def test_someone_of_another_part_of_the_graph_is_not_brought_in() -> None:
    # Given a graph also holding Gus—Hal, apart from Ann—Cat—Dan—Bob
    memory = graph_of_ann_cat_dan_bob()
    web = still_up(TitledWeb())
    web.answer(f"{GUS} {HAL}", web.titled("u/gus-hal", f"{GUS} and {HAL}", face(GUS), face(HAL)))
    assert ask(web, memory, GUS, HAL, None).outcome == "path"
    # When Bob — Eve is asked and the page names Eve beside Gus
    web.answer(f"{BOB} {EVE}", web.titled("u/eve-gus", f"{EVE} and {GUS}", face(EVE), face(GUS)))
    sink = ListSink()
    result = ask(web, memory, BOB, EVE, None, sink)
    # Then Gus is in no chain to Bob: nothing is brought in for him, and no chain is claimed
    assert result.outcome == "no_path"
    assert not any("names beside" in m for m in statuses(sink))


def test_named_with_counts_the_titles_naming_each_person_beside_the_end() -> None:
    titles = [
        f"{EVE} and {ANN} at a gala",
        f"{ANN}, {EVE} and {CAT} attend",
        f"{CAT} and {DAN}",
        f"{EVE} arrives",
    ]
    hits = [ImageHit(image_url=f"u/{i}", title=title) for i, title in enumerate(titles)]
    assert named_in_graph.named_with(hits, name_key(EVE)) == [name_key(ANN), name_key(CAT)]
