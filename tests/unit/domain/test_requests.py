"""Options a run is asked with: refused with one short message naming each problem."""

from __future__ import annotations

import pytest

from visual_degrees.domain.errors import InvalidInput
from visual_degrees.domain.models import Budgets
from visual_degrees.domain.requests import parse_options, require_startable


def test_a_request_full_of_unknown_options_gets_a_short_message_naming_the_first() -> None:
    # Given options with 5,000 unknown fields, the first named by a 100 KB key
    options = {"k" * 100_000: 1, **{f"x{i}": 1 for i in range(5_000)}}
    # When they are parsed
    with pytest.raises(InvalidInput) as refused:
        parse_options(options)
    # Then the message names the first few, each cut short, and says how many more
    message = refused.value.message
    assert message.startswith("options." + "k" * 40 + "…: Extra inputs are not permitted")
    assert message.endswith("; and 4996 more") and len(message) < 400


@pytest.mark.parametrize(
    ("budgets", "problem"),
    [
        (Budgets(searches=0), "options.budgets.searches must be at least 1 to start a run"),
        (Budgets(recognitions=0), "options.budgets.recognitions must be at least 1 to start a run"),
        (Budgets(runtime_seconds=4.9), "options.budgets.runtimeSeconds must be at least 5 seconds"),
    ],
)
def test_budgets_too_small_for_the_first_step_cannot_start_a_run(budgets: Budgets, problem: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        require_startable(budgets)
    assert problem in refused.value.message


def test_the_least_budgets_and_a_continuations_zero_are_accepted() -> None:
    require_startable(Budgets(searches=1, recognitions=1, llm_calls=0, runtime_seconds=5))
    assert Budgets(searches=0).searches == 0  # a continuation may ask for no search at all
