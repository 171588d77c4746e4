from __future__ import annotations

import pytest

from visual_degrees.domain.errors import InvalidInput
from visual_degrees_tools.sandbox.faults import FaultConfig, FaultInjector


def test_parse_reads_the_cli_form():
    config = FaultConfig.parse("search_5xx=0.1, dead_link=0.05,webp=1")
    assert (config.search_5xx, config.dead_link, config.webp, config.fetch_timeout) == (0.1, 0.05, 1.0, 0.0)
    assert FaultConfig.parse(config.describe()) == config
    assert FaultConfig.parse("") == FaultConfig()


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("search_500=0.1", "unknown fault 'search_500'; known faults: search_429, search_5xx"),
        ("dead_link", "needs a rate"),
        ("dead_link=lots", "'lots' is not a number"),
        ("dead_link=1.5", "not a rate between 0 and 1"),
        ("dead_link=-0.1", "not a rate between 0 and 1"),
        ("dead_link=nan", "not a rate between 0 and 1"),
        ("webp=0.1,webp=0.2", "given twice"),
    ],
)
def test_parse_errors_say_what_is_wrong(text, problem):
    with pytest.raises(InvalidInput) as caught:
        FaultConfig.parse(text)
    assert problem in caught.value.message


def test_transient_decisions_depend_on_seed_identity_and_attempt():
    config = FaultConfig(search_5xx=0.5)
    calls = [f"q{i}" for i in range(50) for _ in range(3)]  # each call made three times
    # Given two injectors with one seed, then they decide every call alike
    one, two = FaultInjector(config, seed=3), FaultInjector(config, seed=3)
    decided = [one.strikes("search_5xx", c) for c in calls]
    assert decided == [two.strikes("search_5xx", c) for c in calls]
    assert one.attempts["search_5xx", "q0"] == 3
    # And another seed decides differently
    other = FaultInjector(config, seed=4)
    assert [other.strikes("search_5xx", c) for c in calls] != decided
    # And the attempts of one call do not all share its first answer: a retry draws afresh
    by_call = [decided[i : i + 3] for i in range(0, len(decided), 3)]
    assert any(first and not all(rest) for first, *rest in by_call)


def test_rates_are_honoured_over_many_calls():
    injector = FaultInjector(FaultConfig(fetch_timeout=0.2), seed=9)
    hits = sum(injector.strikes("fetch_timeout", f"url{i}") for i in range(4000))
    assert 700 < hits < 900
    assert injector.injected["fetch_timeout"] == hits


def test_permanent_faults_never_change_and_zero_rates_never_fire():
    injector = FaultInjector(FaultConfig(dead_link=0.5), seed=1)
    first = [injector.is_permanent("dead_link", f"u{i}") for i in range(100)]
    assert first == [injector.is_permanent("dead_link", f"u{i}") for i in range(100)]
    assert 25 < sum(first) < 75
    assert not any(FaultInjector().strikes("search_429", f"q{i}") for i in range(100))
