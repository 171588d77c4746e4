"""Titles earlier runs read tie a new end to the evidence graph with no search
(caption_leads/earlier_titles.py): a page an earlier question bought named the new end with someone
of the graph; a later question about that end recognises that photo before S1 buys a page. A title
is a lead, never a link: only a photo recognised on both faces ties the end."""

from __future__ import annotations

import pytest

from tests.integration.test_graph_link_runs import ANN, BOB, CAT, DAN, EVE, GUS, ask, graph_of_ann_cat_dan_bob
from tests.integration.test_lead_strategy import TitledWeb
from tests.integration.test_strategies import still_up
from tests.support.fakes import ListSink, face
from visual_degrees.domain.models import ImageHit
from visual_degrees.domain.names import name_key
from visual_degrees.lifecycle.evidence_graph import MemoryGraphStore
from visual_degrees.lifecycle.run_memory import SharedMemory
from visual_degrees.search.strategies.caption_leads import earlier_titles
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory


def an_earlier_page_held(web: TitledWeb, memory: SqliteMemory, *photos: str) -> None:
    """An earlier question (Ann — Gus) bought a page that also held these photos (their URLs)."""
    web.answer(
        f"{ANN} {GUS}", web.titled("u/ann-gus", f"{ANN} and {GUS} on set", face(ANN), face(GUS)), *photos
    )
    assert ask(web, memory, ANN, GUS, None).outcome == "path"
    web.asked.clear()


def an_earlier_page_names_eve_with(
    web: TitledWeb, memory: SqliteMemory, *faces_in_photo: str, title: str = f"{EVE} and {DAN} at a gala"
) -> None:
    """An earlier question (Ann — Gus) bought a page that also held a photo titled "Eve and Dan"."""
    an_earlier_page_held(web, memory, web.titled("u/eve-other", title, *(face(n) for n in faces_in_photo)))


def usage(result: object) -> tuple[int, int, int]:
    got = result.final.data["usage"]  # type: ignore[attr-defined]
    return got["searches"], got["recognitions"], got["llmCalls"]


def test_a_title_an_earlier_run_read_ties_the_new_end_with_one_recognition_and_no_search() -> None:
    # Given the graph Ann—Cat—Dan—Bob, and an earlier page titled "Eve and Dan at a gala"
    memory = graph_of_ann_cat_dan_bob()
    web = still_up(TitledWeb())
    an_earlier_page_names_eve_with(web, memory, EVE, DAN)
    sink = ListSink()
    # When Bob — Eve is asked (Eve is new to the graph)
    result = ask(web, memory, BOB, EVE, None, sink)
    # Then that photo is recognised, and the chain on from Dan is read from the graph: nothing searched
    assert result.final.data["path"] == [BOB, DAN, EVE]
    assert usage(result) == (0, 1, 0) and web.asked == []
    assert MemoryGraphStore(memory).link("live", name_key(DAN), name_key(EVE)) is not None
    said = [e.data.get("message", "") for e in sink.events if e.type == "status"]
    assert any("earlier runs read 1 title naming them" in m for m in said)


def test_a_title_naming_the_new_end_with_someone_far_in_the_graph_brings_in_their_chain(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given the graph Ann—Cat—Dan—Bob, of which the titles' look reads Bob's links only
    monkeypatch.setattr(earlier_titles, "ADJACENCY_READS", 1)
    memory = graph_of_ann_cat_dan_bob()
    web = still_up(TitledWeb())
    an_earlier_page_names_eve_with(web, memory, EVE, ANN, title=f"{EVE} and {ANN} at a gala")
    # When Bob — Eve is asked, then the graph's chain from Ann to Bob is read, and her photo answers
    result = ask(web, memory, BOB, EVE, None)
    assert result.final.data["path"] == [BOB, DAN, CAT, ANN, EVE]
    assert usage(result) == (0, 1, 0) and web.asked == []


def test_a_title_whose_photo_does_not_show_both_is_no_link_and_s1_reads_its_page() -> None:
    # Given an earlier page's title naming Eve and Dan on a photo of Eve alone
    memory = graph_of_ann_cat_dan_bob()
    web = still_up(TitledWeb())
    an_earlier_page_names_eve_with(web, memory, EVE)
    web.answer(f"{BOB} {EVE}", web.titled("u/bob-eve", f"{BOB} and {EVE} on stage", face(BOB), face(EVE)))
    # When Bob — Eve is asked
    result = ask(web, memory, BOB, EVE, None)
    # Then the title made no link; the run bought S1's page and found the pair on it
    assert MemoryGraphStore(memory).link("live", name_key(DAN), name_key(EVE)) is None
    assert result.final.data["path"] == [BOB, EVE]
    assert [q for q, _ in web.asked] == [f"{BOB} {EVE}"] and usage(result)[:2] == (1, 2)


def test_titles_naming_the_end_with_nobody_of_the_other_ends_graph_are_not_tried() -> None:
    # Given a title naming Eve with Gus, whom the graph does not hold (it holds Ann—Bob)
    memory = SqliteMemory(":memory:")
    web = still_up(TitledWeb())
    web.answer(f"{ANN} {BOB}", web.titled("u/ann-bob", f"{ANN} and {BOB}", face(ANN), face(BOB)))
    assert ask(web, memory, ANN, BOB, None).outcome == "path"
    url = web.titled("u/eve-gus", f"{EVE} and {GUS}", face(EVE), face(GUS))
    SharedMemory(memory, "live").note_titles(
        {name_key(EVE): [ImageHit(image_url=url, title=web.titles[url])]}
    )
    web.answer(f"{BOB} {EVE}", web.titled("u/bob-eve", f"{BOB} and {EVE}", face(BOB), face(EVE)))
    web.asked.clear()
    # When Bob — Eve is asked, then nothing is recognised before S1's page
    result = ask(web, memory, BOB, EVE, None)
    assert result.final.data["path"] == [BOB, EVE] and usage(result)[:2] == (1, 1)


FAY = "Fay Ng"


def earlier_pages_name(web: TitledWeb, memory: SqliteMemory, *photos: tuple[str, str, str]) -> None:
    """An earlier question (Ann — Gus) bought a page that also held these photos (url, one person,
    another), each titled "X and Y at a gala" and showing both."""
    an_earlier_page_held(
        web, memory, *(web.titled(url, f"{x} and {y} at a gala", face(x), face(y)) for url, x, y in photos)
    )


def test_two_new_ends_with_no_photo_together_are_tied_by_titles_at_the_nearest_meeting_points(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given the graph Ann—Cat—Dan—Bob; titles read before name Eve with Ann and with Dan, Fay with
    # Bob; one photo tried an end
    monkeypatch.setattr(earlier_titles, "PHOTOS_TRIED", 1)
    memory = graph_of_ann_cat_dan_bob()
    web = still_up(TitledWeb())
    earlier_pages_name(web, memory, ("u/eve-ann", EVE, ANN), ("u/eve-dan", EVE, DAN), ("u/fay-bob", FAY, BOB))
    web.answer(f"{EVE} {FAY}")  # no photo of the two

    # When Eve — Fay is asked (both new to the graph)
    result = ask(web, memory, EVE, FAY, None)

    # Then S1's page comes first, and finding no photo of the two, Eve is tied at Dan (nearest Bob,
    # Fay's meeting point; not at Ann, three links further), then Fay at Bob: one search, two
    # recognitions
    assert [q for q, _ in web.asked] == [f"{EVE} {FAY}"]
    assert result.final.data["path"] == [EVE, DAN, BOB, FAY]
    assert usage(result)[:2] == (1, 2)
    assert MemoryGraphStore(memory).link("live", name_key(BOB), name_key(FAY)) is not None


def test_two_new_ends_on_one_photo_are_answered_by_s1s_page_and_no_title_is_tried() -> None:
    # Given titles read before tie both ends to the graph, and a photo of the two on their own page
    memory = graph_of_ann_cat_dan_bob()
    web = still_up(TitledWeb())
    earlier_pages_name(web, memory, ("u/eve-dan", EVE, DAN), ("u/fay-bob", FAY, BOB))
    web.answer(f"{EVE} {FAY}", web.titled("u/eve-fay", f"{EVE} and {FAY} on stage", face(EVE), face(FAY)))

    # When Eve — Fay is asked / Then the photo of the two answers in one degree, nothing else recognised
    result = ask(web, memory, EVE, FAY, None)
    assert result.final.data["path"] == [EVE, FAY]
    assert usage(result)[:2] == (1, 1)


def test_two_new_ends_whose_titles_tie_only_one_are_left_to_the_search() -> None:
    # Given titles read before naming Eve with Dan, and nobody of the graph with Fay
    memory = graph_of_ann_cat_dan_bob()
    web = still_up(TitledWeb())
    earlier_pages_name(web, memory, ("u/eve-dan", EVE, DAN))
    web.answer(f"{EVE} {FAY}", web.titled("u/fay-hal", f"{FAY} and Hal Ito", face(FAY), face("Hal Ito")))

    # When Eve — Fay is asked / Then S1 reads no title of Eve's: tying Eve alone would close nothing
    sink = ListSink()
    ask(web, memory, EVE, FAY, None, sink)
    said = [e.data.get("message", "") for e in sink.events if e.type == "status"]
    assert not any("earlier runs read" in m for m in said)


def test_titles_photos_are_recognised_one_at_a_time_until_one_closes_a_chain() -> None:
    # Given the graph Ann—Cat—Dan—Bob, and titles read before naming Eve with Dan on two photos
    memory = graph_of_ann_cat_dan_bob()
    web = still_up(TitledWeb())
    earlier_pages_name(web, memory, ("u/eve-dan-1", EVE, DAN), ("u/eve-dan-2", EVE, DAN))

    # When Bob — Eve is asked / Then the first photo ties Eve, and the second is never paid for
    result = ask(web, memory, BOB, EVE, None)
    assert result.final.data["path"] == [BOB, DAN, EVE]
    assert usage(result) == (0, 1, 0)


def test_a_titles_photo_that_ties_nobody_is_followed_by_the_next() -> None:
    # Given two photos titled "Eve and Dan", the first showing Eve alone
    memory = graph_of_ann_cat_dan_bob()
    web = still_up(TitledWeb())
    an_earlier_page_held(
        web,
        memory,
        web.titled("u/eve-alone", f"{EVE} and {DAN} at a gala", face(EVE)),
        web.titled("u/eve-dan", f"{EVE} and {DAN} at a party", face(EVE), face(DAN)),
    )

    # When Bob — Eve is asked / Then the second photo is recognised after the first: still no search
    result = ask(web, memory, BOB, EVE, None)
    assert result.final.data["path"] == [BOB, DAN, EVE]
    assert usage(result) == (0, 2, 0) and web.asked == []


def test_two_ends_apart_in_the_graph_are_joined_by_a_title_naming_both_with_no_search() -> None:
    # Given a graph of two parts, Ann—Cat and Dan—Bob, and a title read before naming Ann with Bob
    memory = SqliteMemory(":memory:")
    web = still_up(TitledWeb())
    web.answer(f"{ANN} {CAT}", web.titled("u/ann-cat", f"{ANN} and {CAT} on set", face(ANN), face(CAT)))
    web.answer(
        f"{DAN} {BOB}",
        web.titled("u/dan-bob", f"{DAN} and {BOB} on set", face(DAN), face(BOB)),
        web.titled("u/ann-bob", f"{ANN} and {BOB} at a gala", face(ANN), face(BOB)),
    )
    assert ask(web, memory, ANN, CAT, None).final.data["path"] == [ANN, CAT]
    assert ask(web, memory, DAN, BOB, None).final.data["path"] == [DAN, BOB]
    web.asked.clear()

    # When Ann — Bob is asked / Then that photo joins them in one degree: one recognition, no search
    sink = ListSink()
    result = ask(web, memory, ANN, BOB, None, sink)
    assert result.final.data["path"] == [ANN, BOB]
    assert usage(result) == (0, 1, 0) and web.asked == []
    said = [e.data.get("message", "") for e in sink.events if e.type == "status"]
    assert any("far from the other end in the evidence graph" in m for m in said)
