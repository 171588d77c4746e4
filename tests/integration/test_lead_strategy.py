"""The default strategy reading captions as leads, on hand-built webs where every effect follows from
the script: a page of titles per search, recognition only where a lead serves a chain, the planner's
hunches checked by photos (never taken as links), an unseen end rescued through a co-star's photos
with unnamed guests, and every link shown with the photo that proves it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.support.fakes import FakeWeb, ListSink, ManualClock, face
from tests.support.twice import Twice
from visual_degrees.domain.models import Face, ImageHit, RunOptions
from visual_degrees.domain.names import name_key
from visual_degrees.domain.planning import ConnectContext, ConnectReply, ProposedLink
from visual_degrees.ports import Providers
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.local.runner import LocalRunner, RunEnvironment, RunResult

ANN, BOB, CAT, DAN, EVE, GUS = "Ann Lee", "Bob Ray", "Cat Wu", "Dan Oz", "Eve Fox", "Gus Orr"
PAGE = 200


@dataclass
class TitledWeb(FakeWeb):
    """A web whose photos have captions; every search returns a page of up to `page_size`."""

    page_size: int = PAGE
    titles: dict[str, str] = field(default_factory=dict)
    asked: list[tuple[str, int]] = field(default_factory=list)

    def titled(self, url: str, title: str, *faces: Face) -> str:
        self.titles[url] = title
        return self.photo(url, *faces)

    def search(self, query: str, count: int) -> list[ImageHit]:
        self.asked.append((query, count))
        if query not in self.results:
            # A chain's query ("A B C"): an engine ranks photos naming two of its names first, so
            # its page holds the pages scripted for each pair of names side by side in it.
            pages = [urls for q, urls in self.results.items() if f" {q} " in f" {query} "]
            self.results[query] = list(dict.fromkeys(url for urls in pages for url in urls))
        hits = super().search(query, count)
        return [h.model_copy(update={"title": self.titles.get(h.image_url, "")}) for h in hits]


@dataclass
class Hunches:
    """A planner that matches the sides with scripted links (the same answer every time)."""

    links: list[tuple[str, str, str]]
    seen: list[ConnectContext] = field(default_factory=list)

    def plan(self, context: Any) -> Any:
        raise AssertionError("the default strategy matches sides; it does not rank candidates")

    def connect(self, context: ConnectContext) -> ConnectReply:
        self.seen.append(context)
        links = [ProposedLink(a=a, b=b, film=film, confidence=0.8) for a, b, film in self.links]
        return ConnectReply(links=links, narration="they worked together", tokens_in=100, tokens_out=20)


def run(
    web: TitledWeb, *, planner: Any = None, options: RunOptions | None = None, sink: ListSink | None = None
) -> RunResult:
    def environment(run_id: str) -> RunEnvironment:
        clock = ManualClock()
        return RunEnvironment(providers=Providers.of(web, planner), clock=clock, sleep=clock.advance)

    return LocalRunner(SqliteMemory(":memory:"), environment).run(
        ANN, BOB, options or RunOptions(), sink=sink
    )


def chain_web() -> TitledWeb:
    """Ann and Bob never met; the page for "Ann Lee Bob Ray" names Ann with Cat and Cat with Bob,
    among six photos of other people."""
    web = TitledWeb()
    ann_cat = web.titled("u/ann-cat", f"{ANN} and {CAT} at the premiere of Film (2001)", face(ANN), face(CAT))
    cat_bob = web.titled("u/cat-bob", f"{CAT} with {BOB} on the set of Other (2003)", face(CAT), face(BOB))
    noise = [web.titled(f"u/n{i}", f"{DAN} and {EVE} at a gala", face(DAN), face(EVE)) for i in range(6)]
    web.answer(f"{ANN} {BOB}", *noise[:3], ann_cat, *noise[3:], cat_bob)
    return web


def proven_links(events: list[Any]) -> dict[frozenset[str], set[str]]:
    """Per photo shown in an `evidence` event: the pairs it names as proven."""
    shown: dict[frozenset[str], set[str]] = {}
    for e in events:
        if e.type == "evidence":
            for link in e.data["links"]:
                shown.setdefault(frozenset((link["fromKey"], link["toKey"])), set()).add(e.data["imageUrl"])
    return shown


def assert_every_link_shown_has_its_card(events: list[Any]) -> None:
    shown = proven_links(events)
    for e in events:
        if e.type in ("path_update", "final"):
            for edge in e.data["edges"]:
                url = edge.get("imageUrl") or edge["evidence"]["imageUrl"]
                keys = frozenset(
                    (edge.get("fromKey") or name_key(edge["from"]), edge.get("toKey") or name_key(edge["to"]))
                )
                assert url in shown.get(keys, set()), f"{edge['from']} — {edge['to']} shown without its photo"


def test_one_page_of_titles_shows_the_chain_and_only_its_photos_are_recognised():
    web = chain_web()
    sink = ListSink()
    result = run(web, sink=sink)
    assert result.outcome == "path"
    assert result.final.data["path"] == [ANN, CAT, BOB]
    # One paid search, asked for a whole page; two recognitions, of the two photos the titles named
    assert web.asked == [(f"{ANN} {BOB}", PAGE)]
    assert web.calls["recognize"] == 2
    assert result.final.data["usage"]["searches"] == 1
    assert_every_link_shown_has_its_card(sink.events)


def test_a_page_pays_for_at_most_images_per_search_recognitions():
    # Given a page naming Ann with Cat in many photos, none of which recognises Cat at 80
    web = TitledWeb()
    urls = [
        web.titled(f"u/{i}", f"{ANN} and {CAT} at event {i}", face(ANN), face(CAT, 60.0)) for i in range(9)
    ]
    cat_bob = web.titled("u/cat-bob", f"{CAT} with {BOB} at a gala", face(CAT), face(BOB))
    web.answer(f"{ANN} {BOB}", *urls, cat_bob)
    result = run(web, options=RunOptions(images_per_search=3))
    # Then however many photos the titles offer, that page pays for three recognitions
    assert result.outcome == "no_path"
    assert web.calls["recognize"] == 3


def test_a_hunch_alone_is_never_a_link():
    # Given a planner sure that Ann worked with Eve and Eve with Bob, and no photo of Eve with Bob
    web = chain_web()
    web.answer(f"{ANN} {BOB}", "u/ann-cat")  # the page no longer shows Cat with Bob
    web.answer(f"{ANN} {EVE}", web.titled("u/ann-eve", f"{ANN} with {EVE} at a gala", face(ANN), face(EVE)))
    planner = Hunches([(ANN, EVE, "Film (2001)"), (EVE, BOB, "Other (2003)")])
    sink = ListSink()
    result = run(web, planner=planner, sink=sink)
    # Then the run checked both hunches with one search ("Ann Eve Bob"), proved only Ann—Eve, and
    # claims nothing
    assert result.outcome == "no_path"
    assert f"{ANN} {EVE} {BOB}" in [q for q, _ in web.asked]
    edges = {frozenset((e["source"], e["target"])) for e in result.final.data["graph"]["edges"]}
    assert frozenset((name_key(EVE), name_key(BOB))) not in edges
    assert frozenset((name_key(ANN), name_key(EVE))) in edges
    # And the hunches were shown as hunches
    hunches = [
        e.data["message"] for e in sink.events if e.type == "status" and e.data.get("source") == "planner"
    ]
    assert hunches and all("might have worked with" in m for m in hunches)
    assert not any(
        e.type == "path_update" and EVE in e.data["path"][-1:] and BOB in e.data["path"] for e in sink.events
    )


def test_a_hunch_proven_by_photos_makes_the_chain():
    web = chain_web()
    web.answer(f"{ANN} {BOB}", "u/ann-cat")
    web.answer(f"{ANN} {EVE}", web.titled("u/ann-eve", f"{ANN} with {EVE} at a gala", face(ANN), face(EVE)))
    web.answer(f"{EVE} {BOB}", web.titled("u/eve-bob", f"{EVE} and {BOB} at a gala", face(EVE), face(BOB)))
    planner = Hunches([(ANN, EVE, ""), (EVE, BOB, "")])
    sink = ListSink()
    result = run(web, planner=planner, sink=sink)
    assert result.outcome == "path"
    assert result.final.data["path"] == [ANN, EVE, BOB]
    assert result.final.data["usage"]["llmCalls"] == len(planner.seen) >= 1
    assert_every_link_shown_has_its_card(sink.events)


def test_an_end_no_title_names_is_rescued_through_a_co_stars_photos_with_unnamed_guests():
    # Given Bob named in no title; the planner recalls Bob in Film (2001) with Cat; Cat's page has a
    # photo at Film (2001) "with a guest": Bob
    web = TitledWeb()
    web.answer(f"{ANN} {BOB}", web.titled("u/ann-cat", f"{ANN} and {CAT} at a gala", face(ANN), face(CAT)))
    guests = web.titled(
        "u/cat-guest",
        f"{CAT}, {DAN} and a guest at the premiere of Film (2001)",
        face(CAT),
        face(DAN),
        face(BOB),
    )
    elsewhere = web.titled(
        "u/cat-other", f"{CAT} and guests at the premiere of Else (1999)", face(CAT), face(GUS)
    )
    web.answer(f"{CAT} {BOB}", elsewhere, guests)
    web.answer(f"{BOB} {CAT}", elsewhere, guests)
    planner = Hunches([(BOB, CAT, "Film (2001)")])
    result = run(web, planner=planner)
    # Then the guest photo at the film the planner named is recognised (not the other), proving Cat—Bob
    assert result.outcome == "path"
    assert result.final.data["path"] == [ANN, CAT, BOB]
    assert result.final.data["edges"][1]["evidence"]["imageUrl"] == "u/cat-guest"


def test_an_end_no_title_names_and_nobody_can_place_stops_early_and_says_why():
    web = TitledWeb()
    web.answer(f"{ANN} {BOB}", web.titled("u/ann-cat", f"{ANN} and {CAT} at a gala", face(ANN), face(CAT)))
    result = run(web)
    assert result.outcome == "no_path"
    assert BOB in result.final.data["message"]
    assert result.final.data["usage"]["searches"] <= 2


def test_titles_that_name_nobody_fall_back_to_recognising_the_first_results():
    # Given a web whose titles are file names
    web = TitledWeb()
    web.answer(
        f"{ANN} {BOB}",
        web.titled("u/1", "IMG_2041.jpg", face(ANN), face(CAT)),
        web.titled("u/2", "IMG_2042.jpg", face(CAT), face(BOB)),
    )
    result = run(web)
    assert result.outcome == "path"
    assert result.final.data["path"] == [ANN, CAT, BOB]


def test_every_photo_gets_one_card_naming_everyone_recognised_in_it():
    web = TitledWeb()
    group = web.titled(
        "u/group", f"{ANN}, {CAT} and {BOB} at a gala", face(ANN, 97.0), face(CAT, 99.0), face(BOB, 91.0)
    )
    web.answer(f"{ANN} {BOB}", group)
    sink = ListSink()
    result = run(web, sink=sink)
    assert result.outcome == "path"
    cards = [e.data for e in sink.events if e.type == "evidence" and e.data["imageUrl"] == "u/group"]
    assert len(cards) == 1
    assert {p["name"] for p in cards[0]["people"]} == {ANN, CAT, BOB}
    assert len(cards[0]["links"]) == 3


@pytest.mark.parametrize("forget", [False, True])
def test_every_step_is_idempotent(monkeypatch, forget):
    def web() -> TitledWeb:
        w = chain_web()
        w.answer(f"{ANN} {BOB}", "u/ann-cat")
        w.answer(f"{ANN} {EVE}", w.titled("u/ann-eve", f"{ANN} with {EVE} at a gala", face(ANN), face(EVE)))
        w.answer(f"{EVE} {BOB}", w.titled("u/eve-bob", f"{EVE} and {BOB} at a gala", face(EVE), face(BOB)))
        return w

    planner = Hunches([(ANN, EVE, ""), (EVE, BOB, "")])
    normal_sink, twice_sink = ListSink(), ListSink()

    def go(web: TitledWeb, memory: SqliteMemory, run_id: str, sink: ListSink) -> RunResult:
        def environment(_: str) -> RunEnvironment:
            clock = ManualClock()
            return RunEnvironment(providers=Providers.of(web, planner), clock=clock, sleep=clock.advance)

        return LocalRunner(memory, environment).run(ANN, BOB, RunOptions(), run_id=run_id, sink=sink)

    normal_web, twice_web = web(), web()
    normal = go(normal_web, SqliteMemory(":memory:"), "r-normal", normal_sink)
    memory = SqliteMemory(":memory:")
    monkeypatch.setattr("visual_degrees_tools.local.runner.execute", Twice(memory, forget))
    doubled = go(twice_web, memory, "r-twice", twice_sink)
    assert normal.outcome == doubled.outcome == "path"
    assert [(e.seq, e.type) for e in normal_sink.events] == [(e.seq, e.type) for e in twice_sink.events]
    assert normal.final.data["usage"] == doubled.final.data["usage"]
    assert normal_web.calls["search"] == twice_web.calls["search"]


def event_web() -> TitledWeb:
    """Bob is named once, alone, at the premiere of Film (2001); the crowd shot of that premiere
    names Cat and Dan "and others": Bob is one of the others."""
    web = TitledWeb()
    web.answer(
        f"{ANN} {BOB}",
        web.titled("u/ann-cat", f"{ANN} and {CAT} at a gala (1999)", face(ANN), face(CAT)),
        web.titled("u/bob", f"{BOB} at the premiere of Film (2001)", face(BOB)),
    )
    crowd = web.titled(
        "u/crowd",
        f"The cast of Film (2001) at its premiere: {CAT}, {DAN} and others",
        face(CAT),
        face(DAN),
        face(BOB),
    )
    web.answer(
        "Film (2001) cast", web.titled("u/dan", f"{DAN} at the premiere of Film (2001)", face(DAN)), crowd
    )
    return web


@pytest.mark.parametrize("made", ["event_web", "closed_sides_web"])
def test_an_end_or_side_nobody_links_is_rescued_through_the_crowd_shots_of_its_event(made):
    # Given Bob named only in a portrait (event_web), or both sides closed with no chain between
    # them (closed_sides_web); the crowd shot of a premiere one of them was seen at shows Bob unnamed
    web = globals()[made]()
    sink = ListSink()
    result = run(web, sink=sink)
    # Then the run searches that premiere, recognises its crowd shot and proves Cat — Bob with it
    assert ("Film (2001) cast", PAGE) in web.asked
    assert result.outcome == "path"
    assert result.final.data["path"] == [ANN, CAT, BOB]
    assert result.final.data["edges"][1]["evidence"]["imageUrl"] == "u/crowd"
    assert_every_link_shown_has_its_card(sink.events)


@pytest.mark.parametrize("made", ["event_web", "closed_sides_web"])
def test_without_event_search_the_same_run_is_given_up(made):
    web = globals()[made]()
    result = run(web, options=RunOptions(knobs={"event_search": False}))
    assert result.outcome == "no_path"
    assert result.final.data["reason"] == "candidates_exhausted"
    assert all(not query.endswith(" cast") for query, _ in web.asked)


def test_an_event_rescue_reads_at_most_its_share_of_pages():
    # Given Bob named alone at five events, none of whose pages shows him with anyone
    web = TitledWeb()
    portraits = [
        web.titled(f"u/bob{i}", f"{BOB} at the premiere of Film {i} (200{i})", face(BOB)) for i in range(5)
    ]
    web.answer(
        f"{ANN} {BOB}",
        web.titled("u/ann-cat", f"{ANN} and {CAT} at a gala", face(ANN), face(CAT)),
        *portraits,
    )
    result = run(web)
    events_searched = [query for query, _ in web.asked if query.endswith(" cast")]
    assert result.outcome == "no_path"
    assert 1 <= len(events_searched) <= 3
    assert BOB in result.final.data["message"]


def test_counts_in_status_lines_read_as_words_one_title_one_hop():
    web = TitledWeb()
    web.answer(f"{ANN} {BOB}", web.titled("u/ann-cat", f"{ANN} and {CAT} at a gala", face(ANN), face(CAT)))
    sink = ListSink()
    result = run(web, sink=sink, options=RunOptions(max_hops=1))
    messages = [e.data.get("message", "") for e in sink.events]
    assert any("yet; 1 title read, " in m for m in messages), messages
    assert result.final.data["reason"] == "hop_limit"
    assert result.final.data["message"].startswith("No chain within 1 hop:")


@pytest.mark.parametrize("made", ["event_web", "closed_sides_web"])
@pytest.mark.parametrize("forget", [False, True])
def test_an_event_rescue_is_idempotent(monkeypatch, forget, made):
    # Given every step run twice (its effects kept or forgotten in between), rescuing an end or a side
    normal_web, twice_web = globals()[made](), globals()[made]()
    normal_sink, twice_sink = ListSink(), ListSink()
    normal = run(normal_web, sink=normal_sink)
    memory = SqliteMemory(":memory:")
    monkeypatch.setattr("visual_degrees_tools.local.runner.execute", Twice(memory, forget))

    def environment(_: str) -> RunEnvironment:
        clock = ManualClock()
        return RunEnvironment(providers=Providers.of(twice_web, None), clock=clock, sleep=clock.advance)

    doubled = LocalRunner(memory, environment).run(ANN, BOB, RunOptions(), sink=twice_sink)
    # Then the rescue searches and recognises once, and the run tells the same story
    assert normal.outcome == doubled.outcome == "path"
    assert [(e.seq, e.type) for e in normal_sink.events] == [(e.seq, e.type) for e in twice_sink.events]
    assert normal.final.data["usage"] == doubled.final.data["usage"]
    assert normal_web.calls == twice_web.calls


def closed_sides_web() -> TitledWeb:
    """Ann is named with Cat at a gala; Bob is in no title, but the first result shows him as Eve's
    guest at a premiere (a link); pages about Cat and Eve show nobody new, nor does the gala's. The
    crowd shot of Eve's premiere shows Bob with Cat, both unnamed."""
    web = TitledWeb()
    web.answer(
        f"{ANN} {BOB}",
        web.titled("u/eve-guest", f"{EVE} and a guest at the premiere of Film (2001)", face(EVE), face(BOB)),
        web.titled("u/ann-cat", f"{ANN} and {CAT} at a gala (1999)", face(ANN), face(CAT)),
    )
    crowd = web.titled(
        "u/crowd",
        f"The cast of Film (2001) at its premiere: {DAN} and others",
        face(DAN),
        face(CAT),
        face(BOB),
    )
    web.answer("Film (2001) cast", crowd)
    return web
