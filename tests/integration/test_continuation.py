"""Continuing a run that stopped on a budget, and hints (issue 13), on the local engine over the bundled
sandbox world: the continuation resumes from run memory (no search made twice, no photo recognised
twice), appends to the same log (seq goes on), counts its spend per segment and in total, and a hint
is checked first and reported as confirmed or not."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from tests.support.fakes import ListSink
from tests.support.ws_server import bundled_sandbox
from visual_degrees.domain.costs import DEFAULT_COSTS
from visual_degrees.domain.errors import InvalidInput, NotContinuable, RunInProgress, RunNotFound
from visual_degrees.domain.models import Budgets, RunOptions
from visual_degrees.domain.records import RunMeta
from visual_degrees.lifecycle import continuation
from visual_degrees.lifecycle.budget import Budget
from visual_degrees.lifecycle.endings import end_run
from visual_degrees.lifecycle.event_log import EventLog
from visual_degrees.lifecycle.run_memory import RunControl
from visual_degrees.ports import Providers
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.bench.counting import Counting
from visual_degrees_tools.local.executions import ExecutionStore
from visual_degrees_tools.local.runner import LocalRunner, RunEnvironment
from visual_degrees_tools.sandbox import EXAMPLE_PAIR

A, B = EXAMPLE_PAIR  # Vesna Hawthorne, Niall Halloran: two photos apart, through Dorian Ivesdale and others
BRIDGE = "Dorian Ivesdale"  # photographed with both
STRANGER = "Quinn Underhill"  # in the world, three or more photos away from either


class CountingWeb:
    """A run environment over the bundled world whose providers count (one tally for every run)."""

    def __init__(self) -> None:
        self.sandbox = bundled_sandbox()
        self.calls: list[Counting] = []

    def __call__(self, run_id: str) -> RunEnvironment:
        env = self.sandbox(run_id)
        counting = Counting(env.providers)
        self.calls.append(counting)
        providers = Providers(
            search=counting,
            fetcher=counting,
            recognizer=counting,
            planner=env.providers.planner,
            web=env.providers.web,
        )
        return replace(env, providers=providers)

    def searches(self) -> Counter[str]:
        return sum((c.searches for c in self.calls), Counter())

    def recognised(self) -> Counter[str]:
        return sum((c.recognised for c in self.calls), Counter())


def short_of_searches(searches: int = 1, **options: Any) -> RunOptions:
    return RunOptions(budgets=Budgets(searches=searches), **options)


@pytest.fixture
def memory() -> Any:
    store = SqliteMemory(":memory:")
    yield store
    store.close()


def test_a_continuation_picks_up_where_the_budget_ran_out_without_paying_twice(memory) -> None:
    # Given a run that ran out of searches with a chain in sight
    web = CountingWeb()
    runner = LocalRunner(memory, web)
    sink = ListSink()
    first = runner.run(A, B, short_of_searches(1), sink=sink)
    assert first.outcome == "no_path"
    ended = first.final.data
    assert (ended["reason"], ended["exhausted"], ended["continuable"]) == ("budget", "searches", True)
    searched_before, recognised_before = web.searches(), web.recognised()

    # When it is continued with the run's own budgets again
    second = runner.continue_run(first.run_id, sink=sink)

    # Then it finds the chain
    assert second.outcome == "path"
    assert second.final.data["path"][0] == A and second.final.data["path"][-1] == B
    # And no query was searched twice, no photo recognised twice, across both executions
    searched, recognised = web.searches(), web.recognised()
    assert set(searched.values()) == {1} and set(recognised.values()) == {1}
    # It went on paying for new work only (a page its first segment read may hold the photo it needs)
    assert sum(searched.values()) + sum(recognised.values()) > sum(searched_before.values()) + sum(
        recognised_before.values()
    )
    assert not set(searched_before) & (set(searched) - set(searched_before))
    # And the run's log goes on from where it stopped, gap-free, announcing the continuation
    events = EventLog(memory).read(first.run_id)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert events == sink.events
    at = first.final.seq
    assert events[at].type == "run_continued"
    assert events[at].data["segment"] == 1
    assert [e.type for e in events].count("run_started") == 1
    assert [e.type for e in events if e.type in ("final", "no_path")] == ["no_path", "final"]


def test_spend_is_told_per_segment_and_in_total(memory) -> None:
    # Given a run continued once after its searches ran out
    runner = LocalRunner(memory, bundled_sandbox())
    first = runner.run(A, B, short_of_searches(1))
    second = runner.continue_run(first.run_id, budgets={"searches": 5})
    data = second.final.data

    # Then its ending tells the run's total, this segment's share and every segment's
    total = Budget(memory, first.run_id, Budgets(), DEFAULT_COSTS, 1800).usage().dump()
    assert data["usage"] == total
    assert data["segment"] == 1
    before, this = data["segments"]
    assert before["segment"] == 0 and before["outcome"] == "no_path"
    assert this["segment"] == 1 and this["outcome"] == "final"
    assert before["searches"] == first.final.data["usage"]["searches"] == 1
    assert before["searches"] + this["searches"] == total["searches"]
    assert before["recognitions"] + this["recognitions"] == total["recognitions"]
    assert before["costUsd"] + this["costUsd"] == pytest.approx(total["costUsd"])
    assert data["segmentUsage"]["searches"] == this["searches"]
    # And the segment spent within what it was given (5 more searches)
    assert this["searches"] <= 5
    # And the run's record lists both executions, the latest outcome first
    record = ExecutionStore(memory).run_record(first.run_id)
    assert record["outcome"] == "path"
    assert record["executions"] == [first.run_id, f"{first.run_id}--c1"]
    summary, history = ExecutionStore(memory).history(f"{first.run_id}--c1")
    assert summary["segment"] == 1 and history


def test_a_continuation_spends_no_more_than_its_budgets(memory) -> None:
    # Given a run that ran out of searches
    runner = LocalRunner(memory, bundled_sandbox())
    first = runner.run(A, B, short_of_searches(1, max_hops=6))
    # When it is continued with no search at all
    second = runner.continue_run(first.run_id, budgets={"searches": 0})
    # Then it makes none (it may still settle what it holds, free), and may be continued again
    assert second.final.data["segmentUsage"]["searches"] == 0
    if second.outcome == "no_path":
        assert second.final.data["continuable"] is True
        third = runner.continue_run(first.run_id)
        assert third.final.data["segment"] == 2


def test_a_hint_is_checked_first_and_reported_confirmed(memory) -> None:
    # Given a run asked with a hint: someone photographed with both
    sink = ListSink()
    result = LocalRunner(memory, bundled_sandbox()).run(A, B, RunOptions(via=BRIDGE), sink=sink)
    # Then the first pair it sets out to prove is one of the hint's
    tries = [d["message"] for d in sink.of("status") if d["message"].startswith("Next: can we prove")]
    assert tries[0] in (f"Next: can we prove {A} — {BRIDGE}?", f"Next: can we prove {BRIDGE} — {B}?")
    # And the ending says the hint was confirmed, citing the photos that show it, each with its card
    hint = result.final.data["hint"]
    assert result.outcome == "path"
    assert hint["name"] == BRIDGE and hint["confirmed"] is True
    cards = {d["imageUrl"] for d in sink.of("evidence")}
    assert hint["links"] and all(link["imageUrl"] in cards for link in hint["links"])
    assert {(link["from"], link["to"]) for link in hint["links"]} <= {(A, BRIDGE), (BRIDGE, B)}


def test_a_wrong_hint_is_reported_unconfirmed_and_never_a_link(memory) -> None:
    # Given a run asked with a hint naming someone photographed with neither
    sink = ListSink()
    result = LocalRunner(memory, bundled_sandbox()).run(A, B, RunOptions(via=STRANGER), sink=sink)
    # Then the hint's pairs were looked for, and the ending says it was not confirmed
    searched = [d["message"] for d in sink.of("status") if "searching" in d["message"]]
    assert any(STRANGER in message for message in searched)
    hint = result.final.data["hint"]
    assert hint == {
        "name": STRANGER,
        "confirmed": False,
        "links": [],
        "message": f"Not confirmed: no photo was found of {STRANGER} with {A} or {B}.",
    }
    # And no link anywhere names the stranger
    assert all(STRANGER not in (d["from"], d["to"]) for d in sink.of("evidence"))


def test_a_hint_on_a_continuation(memory) -> None:
    # Given a run that ran out of searches
    runner = LocalRunner(memory, bundled_sandbox())
    first = runner.run(A, B, short_of_searches(1))
    # When it is continued via the bridge
    sink = ListSink()
    second = runner.continue_run(first.run_id, via=BRIDGE, sink=sink)
    # Then the continuation says so, and its ending reports the hint
    assert sink.of("run_continued")[0]["via"] == BRIDGE
    assert second.final.data["hint"]["confirmed"] is True
    # And a name nobody has, or one of the ends, is refused before anything is written
    with pytest.raises(InvalidInput, match="someone other than"):
        runner.continue_run(first.run_id, via=A)


# ---- refusals, told by the service both servers and the CLI use --------------------------------------


def ended_run(
    memory: Any, run_id: str, event: str, data: dict[str, Any], *, status: str | None = None
) -> None:
    """A run in memory that ended with `event` (or is still going: status 'running')."""
    control = RunControl(memory, run_id, 1800)
    control.create(RunMeta(run_id=run_id, person_a=A, person_b=B, options=RunOptions(), status="running"))
    EventLog(memory).append(run_id, "run_started", "run_started", {"personA": A, "personB": B}, at=0.0)
    if status == "running":
        return
    end_run(memory, None, run_id, 1800, event, data, at=1.0)


@pytest.mark.parametrize(
    ("event", "data", "why"),
    [
        ("final", {"path": [A, B]}, "already found a chain"),
        ("cancelled", {}, "was cancelled"),
        ("error", {"code": "step_timeout", "message": "x"}, r"The run failed, so it is not continued"),
        ("no_path", {"reason": "hop_limit", "maxHops": 3}, "longer than 3 hops"),
    ],
)
def test_endings_more_budget_cannot_change_are_refused_with_why(memory, event, data, why) -> None:
    ended_run(memory, "r1", event, data)
    with pytest.raises(NotContinuable, match=why) as refused:
        continuation.prepare(memory, "r1", now=0.0)
    assert refused.value.code == "not_continuable"
    assert refused.value.details["ending"] == event


def test_an_end_nobody_can_find_is_continued_only_with_a_hint(memory) -> None:
    ended_run(memory, "r1", "no_path", {"reason": "candidates_exhausted", "unseenEnd": B})
    with pytest.raises(NotContinuable, match="Name someone who appeared with") as refused:
        continuation.prepare(memory, "r1", now=0.0)
    assert refused.value.details["continuableWithHint"] is True
    prepared = continuation.prepare(memory, "r1", via=BRIDGE, now=0.0)
    assert prepared.state.options.via == BRIDGE and prepared.segment == 1


def test_a_run_still_going_or_unknown_is_refused(memory) -> None:
    ended_run(memory, "r1", "", {}, status="running")
    with pytest.raises(RunInProgress):
        continuation.prepare(memory, "r1", now=0.0)
    with pytest.raises(RunNotFound):
        continuation.prepare(memory, "nobody", now=0.0)


def test_two_continuations_cannot_both_take_a_segment(memory) -> None:
    ended_run(memory, "r1", "no_path", {"reason": "budget", "exhausted": "searches"})
    one = continuation.prepare(memory, "r1", now=0.0)
    two = continuation.prepare(memory, "r1", now=0.0)
    continuation.claim(memory, one, at=1.0)
    with pytest.raises(RunInProgress):
        continuation.claim(memory, two, at=1.0)
    # And the run is going again: a third is refused as in progress
    with pytest.raises(RunInProgress):
        continuation.prepare(memory, "r1", now=0.0)


def test_a_run_whose_memory_expires_soon_is_not_continued(memory) -> None:
    # Given a run whose memory (30 minutes from its first event) has two minutes left
    ended_run(memory, "r1", "no_path", {"reason": "budget", "exhausted": "searches"})
    expires = memory.get("run#r1", "seq").expires_at
    # Then a continuation of up to 120 s is refused, saying so; one of 10 s is not
    with pytest.raises(NotContinuable, match="memory expires in 120 s"):
        continuation.prepare(memory, "r1", now=expires - 120)
    continuation.prepare(memory, "r1", budgets={"runtimeSeconds": 10}, now=expires - 200)


def test_a_continuations_budgets_are_checked_like_a_starts(memory) -> None:
    ended_run(memory, "r1", "no_path", {"reason": "budget", "exhausted": "searches"})
    with pytest.raises(InvalidInput, match=r"budgets\.searches"):
        continuation.prepare(memory, "r1", budgets={"searches": -1}, now=0.0)
    with pytest.raises(InvalidInput, match=r"budgets\.searches"):
        continuation.prepare(memory, "r1", budgets={"searches": "5"}, now=0.0)
    prepared = continuation.prepare(memory, "r1", budgets={"searches": 7}, now=0.0)
    assert prepared.budgets.searches == 7 and prepared.state.options.budgets.searches == 7
