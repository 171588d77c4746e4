"""The search port (search/port.py) and the choice of a run's strategy (search/strategies)."""

from __future__ import annotations

import pytest

from tests.support.search_scopes import run_of
from visual_degrees.search.observe import Observed
from visual_degrees.search.port import StepResult
from visual_degrees.search.shortening.strategy import ThenShorten
from visual_degrees.search.strategies.both_ends.strategy import BothEnds
from visual_degrees.search.strategies.caption_leads.strategy import CaptionLeads
from visual_degrees.search.strategies.seed.strategy import Seed


@pytest.mark.parametrize(
    ("strategy", "knobs", "chosen"),
    [
        ("default", {}, CaptionLeads),
        ("default", {"caption_leads": False}, BothEnds),
        ("default", {"caption_leads": False, "both_ends": False}, Seed),
        ("seed", {}, Seed),
        ("seed", {"both_ends": True, "record_all_edges": True}, BothEnds),
    ],
)
def test_a_runs_knobs_choose_its_strategy(strategy: str, knobs: dict[str, bool], chosen: type) -> None:
    run = run_of(strategy=strategy, knobs=knobs)
    # (a strategy that can look for a shorter chain does so once it proved one: search/shortening)
    inner = run.strategy.inner if isinstance(run.strategy, ThenShorten) else run.strategy
    assert type(inner) is chosen
    # and the rules the search core applies are the run's own knobs'
    assert run.scope.rules.record_all_edges == run.strategy.knobs.record_all_edges


def test_a_result_that_spent_nothing_leaves_the_budget_flags_as_they_were() -> None:
    # Given a run whose runtime budget has run out
    run = run_of()
    run.clock.advance(run.state.options.budgets.runtime_seconds + 1)
    # Then a decision that made no paid call says nothing of budgets, and one that did reports runtime
    assert StepResult(observed=None).flags(run.scope) == {}
    assert StepResult(observed=()).flags(run.scope) == {"budget_exhausted": True, "exhausted": "runtime"}


def test_a_refused_reservation_is_the_budget_that_ended_the_step() -> None:
    run = run_of()
    flags = StepResult(observed=(Observed(), Observed(exhausted="searches"))).flags(run.scope)
    assert flags == {"budget_exhausted": True, "exhausted": "searches"}
