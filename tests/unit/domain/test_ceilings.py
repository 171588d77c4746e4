"""The operator's ceilings (issue 9.7): what a request may ask of one run, refused above, never clipped."""

from __future__ import annotations

import pytest

from visual_degrees.domain.ceilings import ABOVE_CEILING, AboveCeiling, RunCeilings
from visual_degrees.domain.errors import InvalidInput
from visual_degrees.domain.models import RunOptions


def test_default_ceilings_are_five_times_the_default_budgets_and_the_options_maxima() -> None:
    ceilings = RunCeilings()
    assert ceilings.dump() == {
        "maxHops": 10,
        "imagesPerSearch": 20,
        "budgets": {"searches": 100, "recognitions": 600, "llmCalls": 60, "runtimeSeconds": 600.0},
    }
    ceilings.check(RunOptions())  # the defaults always fit


def test_the_issues_request_is_refused_naming_every_limit_and_its_ceiling() -> None:
    # Given the request of issue 9.7: 10,000 searches, 100,000 recognitions, 3,600 s
    options = RunOptions.model_validate(
        {"budgets": {"searches": 10_000, "recognitions": 100_000, "runtimeSeconds": 3_600}}
    )

    # Then the default ceilings refuse it, with a code clients can switch on
    with pytest.raises(AboveCeiling) as refused:
        RunCeilings().check(options)
    assert refused.value.code == ABOVE_CEILING == "above_ceiling"
    assert isinstance(refused.value, InvalidInput)  # a refusal of the request: safe to tell the client
    assert refused.value.message == (
        "options.budgets.searches: 10,000 is above the operator's ceiling of 100; "
        "options.budgets.recognitions: 100,000 is above the operator's ceiling of 600; "
        "options.budgets.runtimeSeconds: 3,600 is above the operator's ceiling of 600"
    )


@pytest.mark.parametrize(
    ("ceilings", "options", "named"),
    [
        ({"maxHops": 4}, {"maxHops": 5}, "options.maxHops: 5 is above the operator's ceiling of 4"),
        ({"imagesPerSearch": 5}, {"imagesPerSearch": 6}, "options.imagesPerSearch: 6"),
        ({"budgets": {"llmCalls": 3}}, {"budgets": {"llmCalls": 4}}, "options.budgets.llmCalls: 4"),
        ({"budgets": {"runtimeSeconds": 30.5}}, {"budgets": {"runtimeSeconds": 31}}, "ceiling of 30.5"),
    ],
)
def test_each_ceiling_refuses_one_more_and_allows_its_own_value(
    ceilings: dict[str, object], options: dict[str, object], named: str
) -> None:
    limits = RunCeilings.model_validate(ceilings)
    with pytest.raises(AboveCeiling, match=named):
        limits.check(RunOptions.model_validate(options))
    limits.check(RunOptions.model_validate(ceilings))  # asking for exactly the ceiling is fine
