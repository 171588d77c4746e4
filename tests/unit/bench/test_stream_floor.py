"""The least a stream's question must cost on the graph a deployment holds (bench/stream_floor.py):
nothing when the graph connects the ends, a recognition for a new end a page read already shows
with someone of the graph, a search and a recognition otherwise."""

from __future__ import annotations

import pytest

from tests.support.fakes import ManualClock
from visual_degrees.domain.errors import ProviderError
from visual_degrees.domain.graph_links import GraphLink
from visual_degrees.lifecycle.evidence_graph import KnownLinks, MemoryGraphStore
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.bench.stream_floor import (
    KINDS,
    Asked,
    End,
    PagesRead,
    QuestionFloor,
    by_kind,
    question_floor,
    recognised_on,
)
from visual_degrees_tools.sandbox.photoweb import Sighting

WEB = "sandbox:test"
# The photos of the pages read, as the simulator's truth has them: who is really in each.
TRULY = {
    "u/ann-eve": frozenset({"id-ann lee", "id-eve fox"}),
    "u/eve-gus": frozenset({"id-eve fox", "id-gus orr"}),
}


def person(key: str) -> End:
    return End(key, frozenset({f"id-{key}"}))


ANN, BOB, CAT, EVE, GUS = (person(k) for k in ("ann lee", "bob ray", "cat wu", "eve fox", "gus orr"))


def link(a: str, b: str) -> GraphLink:
    return GraphLink(
        a=a, b=b, name_a=a, name_b=b, id_a=f"id-{a}", id_b=f"id-{b}",
        confidence_a=99.0, confidence_b=99.0, image_url=f"u/{a}-{b}", proven_at=0.0,
    )  # fmt: skip


@pytest.fixture
def known() -> KnownLinks:
    """A graph holding Ann—Bob—Cat."""
    store = MemoryGraphStore(SqliteMemory(":memory:"))
    store.add(WEB, link("ann lee", "bob ray"))
    store.add(WEB, link("bob ray", "cat wu"))
    return KnownLinks(store, WEB, ManualClock(), "floor")


def pages(*results: tuple[str, str]) -> PagesRead:
    read = PagesRead(lambda url: TRULY.get(url, frozenset()), lambda i: i.removeprefix("id-"))
    read.add(results)
    return read


def test_ends_the_graph_connects_cost_nothing(known: KnownLinks) -> None:
    floor = question_floor(known, pages(), ANN, CAT, max_hops=6)
    assert (floor.new, floor.floor, floor.titled) == (0, 0.0, 0.0)


def test_ends_further_apart_than_the_hop_limit_are_not_connected(known: KnownLinks) -> None:
    floor = question_floor(known, pages(), ANN, CAT, max_hops=1)
    assert floor.new == 0 and floor.floor == 0.0  # both held: nothing is owed by a new end


def test_a_new_end_a_page_read_shows_with_someone_of_the_graph_costs_one_recognition(
    known: KnownLinks,
) -> None:
    read = pages(("u/ann-eve", "Eve Fox and Ann Lee at a gala"))
    floor = question_floor(known, read, CAT, EVE, max_hops=6)
    assert (floor.new, floor.floor, floor.titled) == (1, pytest.approx(0.001), pytest.approx(0.001))


def test_a_photo_whose_title_does_not_name_both_counts_only_for_the_knowing_floor(known: KnownLinks) -> None:
    read = pages(("u/ann-eve", "Everything we know about Eve Fox's next project"))
    floor = question_floor(known, read, CAT, EVE, max_hops=6)
    assert (floor.floor, floor.titled) == (pytest.approx(0.001), pytest.approx(0.006))


def test_a_new_end_no_page_shows_with_anyone_held_costs_a_search_and_a_recognition(known: KnownLinks) -> None:
    read = pages(("u/eve-gus", "Eve Fox and Gus Orr"))  # gus is not in the graph
    floor = question_floor(known, read, CAT, EVE, max_hops=6)
    assert (floor.floor, floor.titled) == (pytest.approx(0.006), pytest.approx(0.006))


def test_two_new_ends_a_page_shows_together_cost_a_recognition_each(known: KnownLinks) -> None:
    read = pages(("u/eve-gus", "Eve Fox and Gus Orr"))
    floor = question_floor(known, read, EVE, GUS, max_hops=6)
    assert (floor.new, floor.floor, floor.titled) == (2, pytest.approx(0.002), pytest.approx(0.002))


def test_a_page_read_twice_is_counted_once() -> None:
    read = pages(("u/ann-eve", "Eve Fox and Ann Lee"))
    read.add([("u/ann-eve", "Eve Fox and Ann Lee")])
    assert read.partners == read.titled == {"id-ann lee": {"id-eve fox"}, "id-eve fox": {"id-ann lee"}}


class TwoFaceWeb:
    """A photo web of one photo of Ann (recognised at 99) and Eve (truly there, scored 78)."""

    class world:
        @staticmethod
        def celebrity_id(person: int) -> str:
            return ("id-ann lee", "id-eve fox")[person]

    @staticmethod
    def photo_from_url(url: str) -> int:
        if url != "u/ann-eve":
            raise ProviderError(f"no such image (HTTP 404): {url}")
        return 0

    @staticmethod
    def sightings(photo: int) -> list[Sighting]:
        return [Sighting(0, 0, 99.0, 0), Sighting(1, 1, 78.0, 1)]


def test_a_face_scored_below_80_ties_nobody(known: KnownLinks) -> None:
    shown = recognised_on(TwoFaceWeb())  # type: ignore[arg-type]
    assert shown("u/ann-eve") == {"id-ann lee"} and shown("u/elsewhere") == frozenset()
    read = PagesRead(shown, lambda i: i.removeprefix("id-"))
    read.add([("u/ann-eve", "Eve Fox and Ann Lee at a gala")])
    floor = question_floor(known, read, CAT, EVE, max_hops=6)
    assert (floor.floor, floor.titled) == (pytest.approx(0.006), pytest.approx(0.006))


def asked(new: int, titled: float, cost: float, searches: int) -> Asked:
    return Asked(QuestionFloor(new, titled, titled), cost, searches)


def test_questions_are_grouped_by_how_many_ends_were_new_and_what_they_cost() -> None:
    figures = by_kind(
        [
            asked(0, 0.0, 0.0, 0),  # read from the graph
            asked(0, 0.0, 0.014, 2),  # both held but not connected: paid
            asked(1, 0.001, 0.001, 0),  # tied by a title read before, no search
            asked(1, 0.001, 0.012, 2),  # such a title, yet searched
            asked(1, 0.006, 0.030, 4),
            asked(2, 0.002, 0.050, 6),  # both tied by titles read before
            asked(2, 0.007, 0.090, 9),  # one of them not
        ]
    )
    assert list(figures) == list(KINDS)
    one = figures["one new"]
    assert (one.questions, one.no_search, one.titled_tie, one.titled_tie_no_search) == (3, 1, 2, 1)
    assert one.spent == pytest.approx(0.043) and one.median == pytest.approx(0.012) and one.p90 == 0.030
    both = figures["both new"]
    assert (both.questions, both.titled_tie) == (2, 1)
    assert figures["both held, paid"].spent == pytest.approx(0.014)
    assert figures["read from the graph"].questions == 1


def test_a_kind_no_question_had_is_left_out() -> None:
    assert list(by_kind([asked(1, 0.006, 0.02, 1)])) == ["one new"]


def test_a_kinds_p90_is_the_benchs_nearest_rank_percentile() -> None:
    # Ten questions of one kind costing $0.001 … $0.010: the 90th percentile is the 9th, as everywhere
    figures = by_kind([asked(1, 0.006, n / 1000, 1) for n in range(1, 11)])
    assert figures["one new"].p90 == 0.009


def test_a_kinds_excess_is_the_mean_of_its_solved_questions_only() -> None:
    figures = by_kind(
        [
            Asked(QuestionFloor(0, 0.0, 0.0), 0.0, 0, 2),  # read from the graph, two hops over
            Asked(QuestionFloor(0, 0.0, 0.0), 0.0, 0, 0),
            Asked(QuestionFloor(1, 0.006, 0.006), 0.02, 1, None),  # not solved
        ]
    )
    assert figures["read from the graph"].excess == 1.0
    assert figures["one new"].excess is None


def test_a_question_the_graph_answered_is_read_from_it_even_when_a_shorter_chain_was_paid_for() -> None:
    figures = by_kind([Asked(QuestionFloor(0, 0.0, 0.0, connected=True), 0.002, 0, 1)])
    assert list(figures) == ["read from the graph"] and figures["read from the graph"].spent == 0.002
