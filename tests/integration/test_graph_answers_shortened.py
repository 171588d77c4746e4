"""An answer read from the evidence graph costs nothing, so no share of it can look for a shorter
chain; `budgets.shortenMinUsd` gives every answer at least that much (search/shortening/phase.py),
and the titles earlier runs read naming the chain's people are its leads. A title is a lead, never a
link: only a photo recognised on both faces shortens the chain."""

from __future__ import annotations

from tests.integration.test_earlier_titles_runs import an_earlier_page_held, usage
from tests.integration.test_graph_link_runs import ANN, BOB, CAT, DAN, graph_of_ann_cat_dan_bob
from tests.integration.test_lead_strategy import TitledWeb
from tests.integration.test_strategies import still_up
from tests.support.fakes import ListSink, ManualClock, face
from visual_degrees.domain.models import Budgets, RunOptions
from visual_degrees.ports import Providers
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.local.runner import LocalRunner, RunEnvironment, RunResult


def ask(web: TitledWeb, memory: SqliteMemory, least_usd: float, sink: ListSink | None = None) -> RunResult:
    """Ann — Bob, with at least `least_usd` for a shorter chain."""

    def environment(run_id: str) -> RunEnvironment:
        clock = ManualClock()
        return RunEnvironment(providers=Providers.of(web, None), clock=clock, sleep=clock.advance)

    options = RunOptions(budgets=Budgets(shorten_min_usd=least_usd))
    return LocalRunner(memory, environment).run(ANN, BOB, options, sink=sink)


def graph_and_a_title_naming_ann_with_dan(*faces_in_photo: str) -> tuple[TitledWeb, SqliteMemory]:
    """The graph Ann—Cat—Dan—Bob, and an earlier page titled "Ann and Dan at a gala"."""
    memory = graph_of_ann_cat_dan_bob()
    web = still_up(TitledWeb())
    photo = web.titled("u/ann-dan", f"{ANN} and {DAN} at a gala", *(face(n) for n in faces_in_photo))
    an_earlier_page_held(web, memory, photo)
    return web, memory


def test_by_default_an_answer_read_from_the_graph_is_the_graphs_chain_at_no_cost() -> None:
    web, memory = graph_and_a_title_naming_ann_with_dan(ANN, DAN)
    result = ask(web, memory, 0.0)
    assert result.final.data["path"] == [ANN, CAT, DAN, BOB]
    assert usage(result) == (0, 0, 0)


def test_with_a_least_allowance_a_title_read_before_shortens_the_graphs_chain_for_one_recognition() -> None:
    # Given the graph's chain Ann—Cat—Dan—Bob and a title read before naming Ann with Dan (both shown)
    web, memory = graph_and_a_title_naming_ann_with_dan(ANN, DAN)
    sink = ListSink()
    # When Ann — Bob is asked with at least $0.002 to look for a shorter chain
    result = ask(web, memory, 0.002, sink)
    # Then that photo was recognised, nothing searched, and the chain of two shown as it was proven
    assert result.final.data["path"] == [ANN, DAN, BOB]
    assert usage(result) == (0, 1, 0) and web.asked == []
    assert sink.of("path_update")[-1]["path"] == [ANN, DAN, BOB]
    assert result.final.data["degrees"]["shortenedFrom"] == 3


def test_a_title_whose_photo_shows_one_of_them_shortens_nothing_and_spends_within_the_least() -> None:
    # Given the same title on a photo of Ann alone
    web, memory = graph_and_a_title_naming_ann_with_dan(ANN)
    # When Ann — Bob is asked with at least $0.002
    result = ask(web, memory, 0.002)
    # Then the graph's chain is the answer: one recognition tried, no link made of the title
    assert result.final.data["path"] == [ANN, CAT, DAN, BOB]
    assert usage(result) == (0, 1, 0)


def test_a_least_allowance_below_one_recognition_checks_nothing() -> None:
    web, memory = graph_and_a_title_naming_ann_with_dan(ANN, DAN)
    result = ask(web, memory, 0.0005)
    assert result.final.data["path"] == [ANN, CAT, DAN, BOB]
    assert usage(result) == (0, 0, 0)
