"""Which endings a run can be continued from (issue 13), execution names, and the operator's ceilings
on a continued run's total: pure rules, no memory."""

from __future__ import annotations

import pytest

from visual_degrees.domain.ceilings import AboveCeiling, BudgetCeilings, RunCeilings
from visual_degrees.domain.continuation import judge, may_go_on
from visual_degrees.domain.errors import InvalidInput
from visual_degrees.domain.ids import execution_name, new_run_id, run_of_execution
from visual_degrees.domain.models import Budgets, Person, RunOptions, RunState
from visual_degrees.domain.outcomes import FINAL_KEY, final_key
from visual_degrees.domain.requests import validate_hint


@pytest.mark.parametrize(
    ("exhausted", "words"),
    [
        ("searches", "searches"),
        ("recognitions", "recognitions"),
        ("llmCalls", "LLM calls"),
        ("runtime", "time"),
    ],
)
def test_a_run_that_ran_out_of_any_budget_can_be_continued(exhausted: str, words: str) -> None:
    verdict = judge("no_path", {"reason": "budget", "exhausted": exhausted})
    assert verdict.continuable
    assert f"The {words} budget ran out" in verdict.why
    assert verdict.payload() == {"continuable": True, "why": verdict.why}


@pytest.mark.parametrize(
    ("event", "data", "says"),
    [
        ("final", {}, "already found a chain"),
        ("cancelled", {}, "cancelled"),
        ("error", {"code": "provider_unavailable"}, "The run failed, so it is not continued"),
        ("no_path", {"reason": "hop_limit", "maxHops": 4}, "longer than 4 hops"),
        ("no_path", {"reason": "hop_limit", "maxHops": 1}, "longer than 1 hop;"),
    ],
)
def test_other_endings_say_why_they_cannot_be_continued(event: str, data: dict, says: str) -> None:
    verdict = judge(event, data)
    assert not verdict.continuable and not verdict.with_hint
    assert says in verdict.why
    assert not may_go_on(event, data)


def test_an_end_nobody_can_find_takes_a_hint_only() -> None:
    # Given a run that stopped because no photo shows B with anyone
    data = {"reason": "candidates_exhausted", "unseenEnd": "Niall Halloran"}
    verdict = judge("no_path", data)
    # Then more budget alone is refused, with the reason, but a continuation naming `via` is not
    assert not verdict.continuable and verdict.with_hint
    assert "Niall Halloran" in verdict.why and "via" in verdict.why
    assert verdict.payload()["continuableWithHint"] is True
    # And whoever follows the run keeps following it (a continuation may come)
    assert may_go_on("no_path", data)
    assert judge("no_path", {"reason": "candidates_exhausted"}).with_hint


def test_a_continuation_that_could_not_start_may_be_asked_for_again() -> None:
    data = {"code": "continuation_not_started", "continuable": True, "why": "ask again"}
    assert judge("error", data).continuable
    assert may_go_on("error", data)
    assert may_go_on("status", {}) and may_go_on("run_continued", {})


def test_continuations_run_as_executions_named_after_their_run() -> None:
    run_id = new_run_id()
    assert execution_name(run_id) == run_id
    assert execution_name(run_id, 3) == f"{run_id}--c3"
    assert run_of_execution(execution_name(run_id, 3)) == (run_id, 3)
    assert run_of_execution(run_id) == (run_id, 0)
    # A run id whose random part reads like a continuation is still a first execution
    assert run_of_execution("20261122T182255-c12345") == ("20261122T182255-c12345", 0)
    assert len(execution_name("r" * 64, 20)) <= 80  # Step Functions' limit on execution names


def test_each_segment_ends_under_its_own_key() -> None:
    assert final_key(0) == FINAL_KEY
    assert final_key(2) == f"{FINAL_KEY}#c2"


def test_the_ceilings_bound_a_continued_runs_total() -> None:
    ceilings = RunCeilings(budgets=BudgetCeilings(searches=30, recognitions=600, llm_calls=60))
    spent = {"searches": 20, "recognitions": 60, "llmCalls": 2, "runtimeSeconds": 100.0}
    # Within: 20 spent + 10 more is 30
    ceilings.check_continuation(Budgets(searches=10), spent)
    # Above: each budget over its ceiling is named, with what was spent and asked
    with pytest.raises(AboveCeiling) as refused:
        ceilings.check_continuation(Budgets(searches=20, runtime_seconds=550), spent)
    message = refused.value.message
    assert refused.value.code == "above_ceiling"
    assert "budgets.searches: 20 more on top of the 20 already spent is 40" in message
    assert "ceiling of 30" in message
    assert "budgets.runtimeSeconds: 550 more on top of the 100 already spent is 650" in message
    # And the refusal carries the ceilings and the spend, so a client can offer what fits
    assert refused.value.details == {"ceilings": ceilings.dump(), "spent": spent}


def test_a_hint_names_someone_else_than_the_ends() -> None:
    a, b = Person.of("Ann Lee"), Person.of("Bob Ray")
    assert validate_hint("  Cat  Wu ", a, b) == Person.of("Cat Wu")
    with pytest.raises(InvalidInput, match="someone other than"):
        validate_hint("ann lee", a, b)
    with pytest.raises(InvalidInput, match="via is empty"):
        validate_hint(" ", a, b)


def test_options_carry_a_hint_only_when_one_is_named() -> None:
    assert "via" not in RunOptions().dump()
    assert RunOptions(via="Cat Wu").dump()["via"] == "Cat Wu"
    with pytest.raises(ValueError, match="seed strategy takes none"):
        RunOptions(via="Cat Wu", strategy="seed")
    state = RunState(run_id="r", person_a=Person.of("Ann Lee"), person_b=Person.of("Bob Ray"), segment=2)
    assert RunState.model_validate(state.dump()).segment == 2
