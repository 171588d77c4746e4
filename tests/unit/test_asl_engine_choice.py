"""Choice rules: every operator, type mismatches, missing variables, And/Or/Not, Default."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.asl_definitions import machine, succeed
from visual_degrees_tools.local.asl.choice import OPERATORS, parse_timestamp
from visual_degrees_tools.local.asl.engine import LocalEngine


def choose(rule: dict[str, Any], data: Any, *, default: bool = True) -> str:
    """The state a one-rule Choice goes to: 'Yes' when the rule holds, else 'No' (the Default)."""
    choice: dict[str, Any] = {"Type": "Choice", "Choices": [{**rule, "Next": "Yes"}]}
    if default:
        choice["Default"] = "No"
    states = (
        {"Pick": choice, "Yes": succeed(), "No": succeed()} if default else {"Pick": choice, "Yes": succeed()}
    )
    execution = LocalEngine(machine(states), lambda _r, p: p).execute(data)
    return (
        execution.visited[-1] if execution.status == "SUCCEEDED" else f"{execution.status}:{execution.error}"
    )


T1 = "2024-03-14T01:59:00Z"
T2 = "2024-03-14T02:59:00+01:00"  # the same instant as T1
T3 = "2024-03-14T02:00:00.5Z"

# (operator, operand, value of $.v, $.w for the Path variants, expected)
CASES: list[tuple[str, Any, Any, Any, bool]] = [
    ("StringEquals", "abc", "abc", None, True),
    ("StringEquals", "abc", "abd", None, False),
    ("StringEquals", "1", 1, None, False),  # a number is not a string
    ("StringEqualsPath", "$.w", "abc", "abc", True),
    ("StringEqualsPath", "$.w", "abc", "xyz", False),
    ("StringLessThan", "b", "a", None, True),
    ("StringLessThan", "b", "b", None, False),
    ("StringLessThanPath", "$.w", "a", "b", True),
    ("StringLessThanEquals", "b", "b", None, True),
    ("StringLessThanEquals", "b", "c", None, False),
    ("StringLessThanEqualsPath", "$.w", "b", "b", True),
    ("StringGreaterThan", "b", "c", None, True),
    ("StringGreaterThan", "b", "b", None, False),
    ("StringGreaterThanPath", "$.w", "c", "b", True),
    ("StringGreaterThanEquals", "b", "b", None, True),
    ("StringGreaterThanEquals", "b", "a", None, False),
    ("StringGreaterThanEqualsPath", "$.w", "a", "b", False),
    ("StringMatches", "log-*.txt", "log-2024.txt", None, True),
    ("StringMatches", "log-*.txt", "log-2024.csv", None, False),
    ("StringMatches", r"a\*b", "a*b", None, True),  # an escaped star is literal
    ("StringMatches", r"a\*b", "axxb", None, False),
    ("NumericEquals", 5, 5.0, None, True),
    ("NumericEquals", 5, 6, None, False),
    ("NumericEquals", 1, True, None, False),  # a boolean is not a number
    ("NumericEquals", 5, "5", None, False),
    ("NumericEqualsPath", "$.w", 3, 3, True),
    ("NumericEqualsPath", "$.w", 3, "3", False),
    ("NumericLessThan", 5, 4.5, None, True),
    ("NumericLessThan", 5, 5, None, False),
    ("NumericLessThanPath", "$.w", 4, 5, True),
    ("NumericLessThanEquals", 5, 5, None, True),
    ("NumericLessThanEquals", 5, 6, None, False),
    ("NumericLessThanEqualsPath", "$.w", 6, 5, False),
    ("NumericGreaterThan", 5, 6, None, True),
    ("NumericGreaterThan", 5, 5, None, False),
    ("NumericGreaterThanPath", "$.w", 6, 5, True),
    ("NumericGreaterThanEquals", 5, 5, None, True),
    ("NumericGreaterThanEquals", 5, 4, None, False),
    ("NumericGreaterThanEqualsPath", "$.w", 5, 5, True),
    ("BooleanEquals", True, True, None, True),
    ("BooleanEquals", True, False, None, False),
    ("BooleanEquals", True, 1, None, False),  # 1 is not true
    ("BooleanEqualsPath", "$.w", False, False, True),
    ("BooleanEqualsPath", "$.w", False, True, False),
    ("TimestampEquals", T1, T2, None, True),
    ("TimestampEquals", T1, T3, None, False),
    ("TimestampEquals", T1, "2024-03-14 01:59:00Z", None, False),  # not RFC 3339: no 'T'
    ("TimestampEqualsPath", "$.w", T1, T2, True),
    ("TimestampLessThan", T3, T1, None, True),
    ("TimestampLessThan", T1, T2, None, False),
    ("TimestampLessThanPath", "$.w", T1, T3, True),
    ("TimestampLessThanEquals", T1, T2, None, True),
    ("TimestampLessThanEquals", T1, T3, None, False),
    ("TimestampLessThanEqualsPath", "$.w", T3, T1, False),
    ("TimestampGreaterThan", T1, T3, None, True),
    ("TimestampGreaterThan", T1, T2, None, False),
    ("TimestampGreaterThanPath", "$.w", T3, T1, True),
    ("TimestampGreaterThanEquals", T1, T2, None, True),
    ("TimestampGreaterThanEquals", T3, T1, None, False),
    ("TimestampGreaterThanEqualsPath", "$.w", T1, T2, True),
    ("IsNull", True, None, None, True),
    ("IsNull", True, 0, None, False),
    ("IsNull", False, "x", None, True),
    ("IsBoolean", True, False, None, True),
    ("IsBoolean", True, 0, None, False),
    ("IsNumeric", True, 1.5, None, True),
    ("IsNumeric", True, True, None, False),
    ("IsString", True, "", None, True),
    ("IsString", True, None, None, False),
    ("IsTimestamp", True, T3, None, True),
    ("IsTimestamp", True, "2024-13-01T00:00:00Z", None, False),  # month 13
    ("IsTimestamp", False, "yesterday", None, True),
    ("IsPresent", True, 0, None, True),
    ("IsPresent", False, None, None, False),  # present, even though null
]


@pytest.mark.parametrize(("op", "operand", "v", "w", "expected"), CASES)
def test_comparison_operator(op: str, operand: Any, v: Any, w: Any, expected: bool) -> None:
    # Given a rule comparing $.v, and $.w for the Path variants
    rule = {"Variable": "$.v", op: operand}

    # When the Choice runs
    target = choose(rule, {"v": v, "w": w})

    # Then it takes the rule's branch exactly when the comparison holds
    assert target == ("Yes" if expected else "No")


def test_the_cases_cover_every_operator() -> None:
    # Given the operators the engine supports
    covered = {case[0] for case in CASES} | {"And", "Or", "Not"}

    # Then each has a case here (And/Or/Not have their own tests below)
    assert covered == OPERATORS


def test_is_present_and_type_tests_on_a_missing_variable() -> None:
    # Given no $.v in the input
    data = {"other": 1}

    # Then IsPresent is false, and a type test is false too rather than an error
    assert choose({"Variable": "$.v", "IsPresent": True}, data) == "No"
    assert choose({"Variable": "$.v", "IsPresent": False}, data) == "Yes"
    assert choose({"Variable": "$.v", "IsNull": True}, data) == "No"
    assert choose({"Variable": "$.v", "IsString": False}, data) == "Yes"


@pytest.mark.parametrize(
    "rule",
    [
        {"Variable": "$.missing", "BooleanEquals": True},
        {"Variable": "$.v", "NumericEqualsPath": "$.missing"},
        {"Variable": "$.missing", "StringMatches": "*"},
    ],
)
def test_a_comparison_on_a_missing_path_fails_with_states_runtime(rule: dict[str, Any]) -> None:
    # Given a comparison whose path names nothing in the input
    # When the Choice runs
    outcome = choose(rule, {"v": 1})

    # Then the execution fails with States.Runtime (not merely "no match")
    assert outcome == "FAILED:States.Runtime"


def test_and_or_not_combine_rules() -> None:
    # Given three nested rules over {"a": 1, "b": "x"}
    data = {"a": 1, "b": "x"}
    a_is_1 = {"Variable": "$.a", "NumericEquals": 1}
    b_is_y = {"Variable": "$.b", "StringEquals": "y"}

    # Then And needs all, Or needs one, Not inverts
    assert choose({"And": [a_is_1, b_is_y]}, data) == "No"
    assert choose({"Or": [a_is_1, b_is_y]}, data) == "Yes"
    assert choose({"Not": b_is_y}, data) == "Yes"
    assert choose({"And": [a_is_1, {"Not": b_is_y}]}, data) == "Yes"


def test_the_first_matching_rule_wins() -> None:
    # Given two rules that both hold
    definition = machine(
        {
            "Pick": {
                "Type": "Choice",
                "Choices": [
                    {"Variable": "$.n", "NumericGreaterThan": 1, "Next": "First"},
                    {"Variable": "$.n", "NumericGreaterThan": 0, "Next": "Second"},
                ],
            },
            "First": succeed(),
            "Second": succeed(),
        }
    )

    # When the Choice runs
    execution = LocalEngine(definition, lambda _r, p: p).execute({"n": 5})

    # Then the earlier rule decides
    assert execution.visited == ["Pick", "First"]


def test_no_match_without_default_fails_with_no_choice_matched() -> None:
    # Given a Choice without Default whose only rule is false
    outcome = choose({"Variable": "$.v", "StringEquals": "z"}, {"v": "a"}, default=False)

    # Then the execution fails with States.NoChoiceMatched
    assert outcome == "FAILED:States.NoChoiceMatched"


def test_choice_applies_input_path_and_output_path() -> None:
    # Given a Choice that looks at $.inner and passes on only $.keep of it
    definition = machine(
        {
            "Pick": {
                "Type": "Choice",
                "InputPath": "$.inner",
                "OutputPath": "$.keep",
                "Choices": [{"Variable": "$.flag", "BooleanEquals": True, "Next": "Done"}],
            },
            "Done": succeed(),
        }
    )

    # When it runs
    execution = LocalEngine(definition, lambda _r, p: p).execute({"inner": {"flag": True, "keep": {"k": 1}}})

    # Then the rule saw the InputPath's value and the output is the OutputPath's
    assert execution.visited == ["Pick", "Done"]
    assert execution.output == {"k": 1}


def test_timestamps_parse_offsets_and_fractions() -> None:
    # Then equal instants written differently compare equal, and invalid strings are rejected
    assert parse_timestamp("2024-03-14T01:59:00Z") == parse_timestamp("2024-03-14T03:59:00+02:00")
    assert parse_timestamp("2024-03-14T01:59:00.123456789Z") == parse_timestamp("2024-03-14T01:59:00.123456Z")
    assert parse_timestamp("2024-03-14t01:59:00z") is None
    assert parse_timestamp("2024-03-14T01:59:00") is None
    assert parse_timestamp(17) is None
