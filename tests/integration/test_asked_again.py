"""Asking again about a pair whose earlier run ended unsolved (issue 21, 3): the new run on the same
photo web reuses what the earlier one read, recognised, ruled out and was told by the planner, says
so, and pays for nothing it had already paid for."""

from __future__ import annotations

from typing import Any

from tests.integration.test_lead_strategy import ANN, BOB, EVE, Hunches, TitledWeb, chain_web
from tests.support.fakes import ListSink, ManualClock, face
from visual_degrees.domain.models import RunOptions
from visual_degrees.ports import Providers
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.local.runner import LocalRunner, RunEnvironment, RunResult


def unsolvable_web() -> TitledWeb:
    """Ann met Eve (a photo shows it), nobody shows Eve with Bob: no chain, whatever is asked."""
    web = chain_web()
    web.answer(f"{ANN} {BOB}", "u/ann-cat")
    web.answer(f"{ANN} {EVE}", web.titled("u/ann-eve", f"{ANN} with {EVE} at a gala", face(ANN), face(EVE)))
    return web


def ask(web: TitledWeb, planner: Any, memory: SqliteMemory, sink: ListSink) -> RunResult:
    def environment(run_id: str) -> RunEnvironment:
        clock = ManualClock()
        return RunEnvironment(providers=Providers.of(web, planner), clock=clock, sleep=clock.advance)

    return LocalRunner(memory, environment).run(ANN, BOB, RunOptions(), sink=sink)


def test_a_question_asked_again_after_no_chain_pays_nothing_twice_and_says_so() -> None:
    # Given a run that read pages, recognised photos and asked the planner, and found no chain
    memory, web = SqliteMemory(":memory:"), unsolvable_web()
    planner = Hunches([(ANN, EVE, "Film (2001)"), (EVE, BOB, "Other (2003)")])
    first = ask(web, planner, memory, ListSink())
    paid = dict(web.calls), len(planner.seen)
    # When the same question is asked again on the same photo web
    sink = ListSink()
    again = ask(web, planner, memory, sink)
    # Then it ends as the first did, without one search, recognition or planner call
    assert first.outcome == again.outcome == "no_path"
    assert first.final.data["usage"]["costUsd"] > 0 and first.final.data["usage"]["llmCalls"] >= 1
    usage = again.final.data["usage"]
    assert usage["searches"] == usage["recognitions"] == usage["llmCalls"] == 0 and usage["costUsd"] == 0
    assert (dict(web.calls), len(planner.seen)) == paid
    # And it says that it was asked before and what it reuses
    said = [e.data for e in sink.events if e.type == "status" and e.data.get("askedBefore")]
    assert len(said) == 1 and "Asked before on this photo web" in said[0]["message"]
    assert said[0]["askedBefore"]["runId"] == first.run_id
