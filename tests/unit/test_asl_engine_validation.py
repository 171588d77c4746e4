"""The local engine refuses, when it is built, any ASL it does not implement and any malformed
definition, with a message naming the state and the field."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.asl_definitions import machine, succeed, task
from visual_degrees_tools.local.asl.engine import AslDefinitionError, LocalEngine, UnsupportedAslFeature


def build(definition: Any) -> LocalEngine:
    return LocalEngine(definition, lambda _resource, payload: payload)


def one_task(**fields: Any) -> dict[str, Any]:
    return machine({"Work": task(**fields)})


UNSUPPORTED: list[tuple[str, Any, list[str]]] = [
    (
        "Wait state",
        machine({"Pause": {"Type": "Wait", "Seconds": 1, "End": True}}),
        ["Pause", "Type", "Wait"],
    ),
    (
        "Parallel state",
        machine({"Fork": {"Type": "Parallel", "Branches": [], "End": True}}),
        ["Fork", "Parallel"],
    ),
    ("Map state", machine({"Each": {"Type": "Map", "ItemsPath": "$.xs", "End": True}}), ["Each", "Map"]),
    ("JSONata definition", {**one_task(), "QueryLanguage": "JSONata"}, ["QueryLanguage", "JSONata"]),
    ("JSONata state", one_task(QueryLanguage="JSONata"), ["Work", "QueryLanguage"]),
    ("ItemsPath", one_task(ItemsPath="$.xs"), ["Work", "ItemsPath"]),
    ("Arguments", one_task(Arguments={"a": 1}), ["Work", "Arguments"]),
    ("Output", one_task(Output={"a": 1}), ["Work", "Output"]),
    ("Assign", one_task(Assign={"a": 1}), ["Work", "Assign"]),
    ("ResultSelector", one_task(ResultSelector={"a.$": "$.a"}), ["Work", "ResultSelector"]),
    ("HeartbeatSeconds", one_task(HeartbeatSeconds=5), ["Work", "HeartbeatSeconds"]),
    ("TimeoutSecondsPath", one_task(TimeoutSecondsPath="$.t"), ["Work", "TimeoutSecondsPath"]),
    ("an unknown field", one_task(Colour="blue"), ["Work", "Colour"]),
    ("an unknown top-level field", {**one_task(), "Extra": 1}, ["Extra"]),
    (
        "intrinsic function",
        one_task(Parameters={"s.$": "States.Format('{}', $.a)"}),
        ["Work", "s.$", "intrinsic"],
    ),
    ("context object", one_task(Parameters={"id.$": "$$.Execution.Id"}), ["Work", "id.$", "$$"]),
    ("wildcard path", one_task(InputPath="$.items[*]"), ["Work", "InputPath", "$.items[*]"]),
    ("recursive descent", one_task(OutputPath="$..name"), ["Work", "OutputPath", "$..name"]),
    ("filter", one_task(InputPath="$.xs[?(@.a)]"), ["Work", "InputPath"]),
    ("slice", one_task(ResultPath="$.xs[0:2]"), ["Work", "ResultPath"]),
    ("service integration", one_task(resource="arn:aws:states:::lambda:invoke"), ["Work", "Resource"]),
    ("Retry field", one_task(Retry=[{"ErrorEquals": ["X"], "Jitter": 1}]), ["Work", "Retry[0]", "Jitter"]),
    (
        "Catch field",
        one_task(Catch=[{"ErrorEquals": ["X"], "Next": "Work", "Output": 1}]),
        ["Catch[0]", "Output"],
    ),
    ("Fail ErrorPath", machine({"Stop": {"Type": "Fail", "ErrorPath": "$.e"}}), ["Stop", "ErrorPath"]),
    (
        "JSONata choice rule",
        machine(
            {
                "Pick": {"Type": "Choice", "Choices": [{"Condition": "{% true %}", "Next": "End"}]},
                "End": succeed(),
            }
        ),
        ["Pick", "Condition"],
    ),
]


@pytest.mark.parametrize(
    ("feature", "definition", "named"), UNSUPPORTED, ids=[case[0] for case in UNSUPPORTED]
)
def test_unsupported_features_are_refused_at_construction(
    feature: str, definition: Any, named: list[str]
) -> None:
    # Given a definition using a feature the engine does not implement
    # When an engine is built from it
    with pytest.raises(UnsupportedAslFeature) as raised:
        build(definition)

    # Then the error is a ValueError naming the state and the field
    assert isinstance(raised.value, ValueError)
    for word in named:
        assert word in str(raised.value)


MALFORMED: list[tuple[str, Any, str]] = [
    ("not JSON", "{not json", "not valid JSON"),
    ("no StartAt", {"States": {"A": succeed()}}, "StartAt"),
    ("StartAt names nothing", machine({"A": succeed()}, start="B"), "'B'"),
    ("Next names nothing", machine({"A": task(next_state="Nowhere")}), "Nowhere"),
    (
        "both Next and End",
        machine({"A": {**task(next_state="B"), "End": True}, "B": succeed()}),
        "exactly one",
    ),
    ("neither Next nor End", machine({"A": {"Type": "Pass"}}), "exactly one"),
    ("End false", machine({"A": {"Type": "Pass", "End": False}}), "'End' must be true"),
    ("unreachable state", machine({"A": succeed(), "Orphan": succeed()}), "Orphan"),
    (
        "Choice target missing",
        machine({"C": {"Type": "Choice", "Choices": [{"Variable": "$.a", "IsNull": True, "Next": "X"}]}}),
        "Choices[0].Next",
    ),
    (
        "Catch target missing",
        machine({"A": task(Catch=[{"ErrorEquals": ["States.ALL"], "Next": "X"}])}),
        "Catch[0]",
    ),
    ("unknown Type", machine({"A": {"Type": "Loop", "End": True}}), "Loop"),
    ("Task without Resource", machine({"A": {"Type": "Task", "End": True}}), "Resource"),
    ("negative TimeoutSeconds", one_task(TimeoutSeconds=-1), "TimeoutSeconds"),
    ("States.ALL not alone", one_task(Retry=[{"ErrorEquals": ["States.ALL", "X"]}]), "States.ALL"),
    (
        "States.ALL not last",
        one_task(Retry=[{"ErrorEquals": ["States.ALL"]}, {"ErrorEquals": ["X"]}]),
        "States.ALL",
    ),
    (
        "States.ALL not last in Catch",
        machine(
            {
                "A": task(
                    Catch=[{"ErrorEquals": ["States.ALL"], "Next": "B"}, {"ErrorEquals": ["X"], "Next": "B"}]
                ),
                "B": succeed(),
            }
        ),
        "States.ALL",
    ),
    ("BackoffRate below 1", one_task(Retry=[{"ErrorEquals": ["X"], "BackoffRate": 0.5}]), "BackoffRate"),
    (
        "IntervalSeconds zero",
        one_task(Retry=[{"ErrorEquals": ["X"], "IntervalSeconds": 0}]),
        "IntervalSeconds",
    ),
    (
        "bad JitterStrategy",
        one_task(Retry=[{"ErrorEquals": ["X"], "JitterStrategy": "HALF"}]),
        "JitterStrategy",
    ),
    ("empty ErrorEquals", one_task(Retry=[{"ErrorEquals": []}]), "ErrorEquals"),
    ("path without $", one_task(InputPath="a.b"), "InputPath"),
    (
        "choice without operator",
        machine({"C": {"Type": "Choice", "Choices": [{"Variable": "$.a", "Next": "D"}]}, "D": succeed()}),
        "exactly one operator",
    ),
    (
        "choice operand of the wrong type",
        machine(
            {
                "C": {"Type": "Choice", "Choices": [{"Variable": "$.a", "NumericEquals": "1", "Next": "D"}]},
                "D": succeed(),
            }
        ),
        "NumericEquals",
    ),
    (
        "nested rule with Next",
        machine(
            {
                "C": {
                    "Type": "Choice",
                    "Choices": [{"Not": {"Variable": "$.a", "IsNull": True, "Next": "D"}, "Next": "D"}],
                },
                "D": succeed(),
            }
        ),
        "nested",
    ),
    (
        "bad timestamp operand",
        machine(
            {
                "C": {
                    "Type": "Choice",
                    "Choices": [{"Variable": "$.a", "TimestampEquals": "soon", "Next": "D"}],
                },
                "D": succeed(),
            }
        ),
        "TimestampEquals",
    ),
]


@pytest.mark.parametrize(("problem", "definition", "named"), MALFORMED, ids=[case[0] for case in MALFORMED])
def test_malformed_definitions_are_refused_with_a_clear_message(
    problem: str, definition: Any, named: str
) -> None:
    # When an engine is built from a malformed definition
    with pytest.raises(AslDefinitionError) as raised:
        build(definition)

    # Then the message points at the problem, and it is not mistaken for an unsupported feature
    assert named in str(raised.value)
    assert not isinstance(raised.value, UnsupportedAslFeature)


def test_max_events_must_leave_room_for_a_history() -> None:
    with pytest.raises(ValueError, match="max_events"):
        LocalEngine(machine({"A": succeed()}), lambda _r, p: p, max_events=1)
