"""The local ASL engine: data flow through paths, Task errors, Retry, Catch, timeouts, Fail, limits
and the execution history."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tests.support.asl_definitions import FakeClock, StepError, Steps, machine, succeed, task
from visual_degrees.constants import STATE_TASKS
from visual_degrees_tools.local.asl.definition import load_definition, placeholder_name, render_definition
from visual_degrees_tools.local.asl.engine import LocalEngine
from visual_degrees_tools.local.asl.paths import PathNotFound, parse_path

RETRY_ALL = {"ErrorEquals": ["States.ALL"], "IntervalSeconds": 1, "MaxAttempts": 2, "BackoffRate": 2.0}


def run(definition: dict[str, Any], data: Any, steps: Steps | None = None, **engine: Any) -> Any:
    return LocalEngine(definition, steps or Steps(), **engine).execute(data)


# ---- paths ---------------------------------------------------------------------------------------


def test_input_path_result_path_and_output_path() -> None:
    # Given a Task that receives $.job, merges its result at $.outcome.value and passes on $.outcome
    definition = machine(
        {"Work": task(InputPath="$.job", ResultPath="$.outcome.value", OutputPath="$.outcome")}
    )
    steps = Steps(fn=[{"done": True}])

    # When it runs
    execution = run(definition, {"job": {"id": 7}, "keep": 1}, steps)

    # Then the step saw only $.job, the result was merged (creating $.outcome), the output filtered
    assert steps.calls == [("fn", {"id": 7})]
    assert execution.output == {"value": {"done": True}}


def test_result_path_null_discards_the_result_and_keeps_the_input() -> None:
    # Given a Task with ResultPath null
    definition = machine({"Work": task(ResultPath=None)})

    # When its step returns something
    execution = run(definition, {"a": 1}, Steps(fn=[{"ignored": True}]))

    # Then the output is the state's input
    assert execution.output == {"a": 1}


def test_result_path_merges_without_touching_the_rest() -> None:
    # Given a Task merging into $.a.b of an input with siblings
    definition = machine({"Work": task(ResultPath="$.a.b")})

    # When it runs
    execution = run(definition, {"a": {"b": 0, "c": 2}, "d": [1]}, Steps(fn=[5]))

    # Then only $.a.b changed
    assert execution.output == {"a": {"b": 5, "c": 2}, "d": [1]}


def test_null_input_path_and_output_path_mean_an_empty_object() -> None:
    # Given InputPath null on one Task and OutputPath null on the next
    definition = machine(
        {
            "First": task(next_state="Second", InputPath=None, ResultPath="$.r"),
            "Second": task(OutputPath=None),
        }
    )
    steps = Steps()

    # When they run
    execution = run(definition, {"a": 1}, steps)

    # Then the first step received {} and the execution's output is {}
    assert steps.calls[0] == ("fn", {})
    assert execution.output == {}


def test_bracket_and_index_paths() -> None:
    # Given paths written with brackets, quotes and an index
    definition = machine({"Work": task(InputPath="$['odd key'].items[1]", ResultPath='$["out"]')})
    steps = Steps()

    # When it runs
    execution = run(definition, {"odd key": {"items": ["x", {"y": 2}]}}, steps)

    # Then the right node was selected and the result placed under "out"
    assert steps.calls == [("fn", {"y": 2})]
    assert execution.output["out"] == {"y": 2}


def test_a_missing_input_path_fails_with_states_runtime_even_with_catch_all() -> None:
    # Given a Task whose InputPath names nothing, with a Catch on States.ALL
    definition = machine(
        {
            "Work": task(InputPath="$.nothing", Catch=[{"ErrorEquals": ["States.ALL"], "Next": "Handled"}]),
            "Handled": succeed(),
        }
    )
    steps = Steps()

    # When it runs
    execution = run(definition, {"a": 1}, steps)

    # Then States.Runtime fails the execution: it is terminal, and the step never ran
    assert (execution.status, execution.error) == ("FAILED", "States.Runtime")
    assert "$.nothing" in (execution.cause or "")
    assert steps.calls == []


def test_a_result_path_through_a_scalar_is_a_result_path_match_failure() -> None:
    # Given a ResultPath that must descend into a string
    definition = machine({"Work": task(ResultPath="$.a.b")})

    # When the result cannot be placed
    execution = run(definition, {"a": "text"}, Steps(fn=[1]))

    # Then the state fails with States.ResultPathMatchFailure
    assert (execution.status, execution.error) == ("FAILED", "States.ResultPathMatchFailure")


def test_pass_result_and_parameters() -> None:
    # Given a Pass with a Result and one with Parameters
    definition = machine(
        {
            "Label": {"Type": "Pass", "Result": "hop_limit", "ResultPath": "$.stopReason", "Next": "Shape"},
            "Shape": {
                "Type": "Pass",
                "Parameters": {"why.$": "$.stopReason", "fixed": [1, {"n.$": "$.n"}]},
                "End": True,
            },
        }
    )

    # When they run
    execution = run(definition, {"n": 3})

    # Then the Result is merged at ResultPath and Parameters built a new object from the input
    assert execution.output == {"why": "hop_limit", "fixed": [1, {"n": 3}]}


def test_task_parameters_build_the_payload() -> None:
    # Given a Task with Parameters
    definition = machine({"Work": task(Parameters={"who.$": "$.person.name", "kind": "probe"})})
    steps = Steps()

    # When it runs
    run(definition, {"person": {"name": "Ada"}}, steps)

    # Then the step received the built payload
    assert steps.calls == [("fn", {"who": "Ada", "kind": "probe"})]


def test_a_missing_parameters_path_fails_with_states_runtime() -> None:
    definition = machine({"Work": task(Parameters={"who.$": "$.nobody"})})

    execution = run(definition, {})

    assert (execution.status, execution.error) == ("FAILED", "States.Runtime")


def test_a_step_mutating_its_payload_cannot_change_what_catch_merges_into() -> None:
    # Given a step that scribbles on its payload and then fails
    definition = machine(
        {
            "Work": task(Catch=[{"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": "Handled"}]),
            "Handled": succeed(),
        }
    )
    steps = Steps(fn=[StepError("Boom")])
    steps.before = lambda _resource, payload: payload.update(scribbled=True)

    # When it runs
    execution = run(definition, {"a": 1}, steps)

    # Then Catch merged the error into the original input
    assert execution.output["a"] == 1
    assert "scribbled" not in execution.output
    assert execution.output["error"]["Error"] == "Boom"


# ---- task errors, Retry and Catch ------------------------------------------------------------------


def test_error_name_comes_from_error_name_attribute_else_class_name() -> None:
    # Given two failing steps, one with an error_name and one plain exception
    definition = machine(
        {
            "A": task(
                "a",
                next_state="B",
                Catch=[{"ErrorEquals": ["States.ALL"], "ResultPath": "$.ea", "Next": "B"}],
            ),
            "B": task("b", Catch=[{"ErrorEquals": ["States.ALL"], "ResultPath": "$.eb", "Next": "Done"}]),
            "Done": succeed(),
        }
    )
    steps = Steps(a=[StepError("TransientProviderError", "slow down")], b=[KeyError("k")])

    # When they run
    execution = run(definition, {}, steps)

    # Then the names are the attribute and the class name, and Cause is Lambda's JSON without a trace
    assert execution.output["ea"]["Error"] == "TransientProviderError"
    assert json.loads(execution.output["ea"]["Cause"]) == {
        "errorMessage": "slow down",
        "errorType": "TransientProviderError",
    }
    assert execution.output["eb"]["Error"] == "KeyError"


def test_retry_waits_interval_times_backoff_then_gives_up() -> None:
    # Given a retrier with interval 2, backoff 3 and 4 attempts, and a step that always fails
    retry = {"ErrorEquals": ["Flaky"], "IntervalSeconds": 2, "BackoffRate": 3, "MaxAttempts": 4}
    definition = machine({"Work": task(Retry=[retry])})
    clock = FakeClock()
    steps = Steps(fn=[StepError("Flaky")] * 5)

    # When it runs
    execution = run(definition, {}, steps, sleep=clock.sleep, now=clock.now)

    # Then it waited 2, 6, 18, 54 s between five attempts and failed with the step's error
    assert clock.sleeps == [2, 6, 18, 54]
    assert len(steps.calls) == 5
    assert (execution.status, execution.error) == ("FAILED", "Flaky")


def test_max_delay_seconds_caps_the_wait() -> None:
    retry = {
        "ErrorEquals": ["Flaky"],
        "IntervalSeconds": 2,
        "BackoffRate": 3,
        "MaxAttempts": 4,
        "MaxDelaySeconds": 10,
    }
    clock = FakeClock()

    run(machine({"Work": task(Retry=[retry])}), {}, Steps(fn=[StepError("Flaky")] * 5), sleep=clock.sleep)

    assert clock.sleeps == [2, 6, 10, 10]


def test_full_jitter_draws_each_wait_from_the_seeded_rng_below_the_capped_delay() -> None:
    # Given FULL jitter and a seeded rng
    retry = {"ErrorEquals": ["Flaky"], "IntervalSeconds": 1, "BackoffRate": 2, "MaxAttempts": 3}
    definition = machine({"Work": task(Retry=[{**retry, "MaxDelaySeconds": 3, "JitterStrategy": "FULL"}])})
    clock = FakeClock()

    # When the step fails four times
    run(definition, {}, Steps(fn=[StepError("Flaky")] * 4), sleep=clock.sleep, rng=random.Random(42))

    # Then each wait is uniform in [0, min(1 * 2^n, 3)], drawn from the rng in order
    expected_rng = random.Random(42)
    assert clock.sleeps == [expected_rng.uniform(0, cap) for cap in (1, 2, 3)]
    assert all(0 <= wait <= cap for wait, cap in zip(clock.sleeps, (1, 2, 3), strict=True))


def test_max_attempts_zero_never_retries_and_the_first_matching_retrier_decides() -> None:
    # Given a retrier that matches with MaxAttempts 0, before a broader one that would retry
    retry = [{"ErrorEquals": ["Fatal"], "MaxAttempts": 0}, {"ErrorEquals": ["States.ALL"], "MaxAttempts": 5}]
    steps = Steps(fn=[StepError("Fatal")])
    clock = FakeClock()

    # When the step fails
    execution = run(machine({"Work": task(Retry=retry)}), {}, steps, sleep=clock.sleep)

    # Then there is no retry
    assert len(steps.calls) == 1
    assert clock.sleeps == []
    assert execution.error == "Fatal"


def test_each_retrier_counts_its_own_attempts() -> None:
    # Given two retriers of one attempt each, and errors alternating between them
    retry = [{"ErrorEquals": ["A"], "MaxAttempts": 1}, {"ErrorEquals": ["B"], "MaxAttempts": 1}]
    steps = Steps(fn=[StepError("A"), StepError("B"), {"ok": True}])

    # When it runs
    execution = run(machine({"Work": task(Retry=retry)}), {}, steps)

    # Then both were retried once and the third attempt succeeded
    assert len(steps.calls) == 3
    assert execution.output == {"ok": True}


def test_retries_exhausted_fall_through_to_catch() -> None:
    # Given a retried step that keeps failing, and a Catch
    definition = machine(
        {
            "Work": task(
                Retry=[RETRY_ALL],
                Catch=[{"ErrorEquals": ["States.ALL"], "ResultPath": "$.err", "Next": "Handled"}],
            ),
            "Handled": succeed(),
        }
    )
    steps = Steps(fn=[StepError("Flaky")] * 3)

    # When it runs
    execution = run(definition, {"a": 1}, steps)

    # Then 1 + 2 attempts were made, then Catch took over; the state was entered once
    assert len(steps.calls) == 3
    assert execution.visited == ["Work", "Handled"]
    assert execution.output["err"]["Error"] == "Flaky"


def test_catchers_are_tried_in_order() -> None:
    # Given two catchers that both match
    definition = machine(
        {
            "Work": task(
                Catch=[
                    {"ErrorEquals": ["Other", "Boom"], "Next": "First"},
                    {"ErrorEquals": ["States.ALL"], "Next": "Second"},
                ]
            ),
            "First": succeed(),
            "Second": succeed(),
        }
    )

    # When the step fails with Boom
    execution = run(definition, {"a": 1}, Steps(fn=[StepError("Boom", "bad")]))

    # Then the first catcher wins, and with its default ResultPath ($) the error output is the state's output
    assert execution.visited == ["Work", "First"]
    assert execution.output["Error"] == "Boom"
    assert set(execution.output) == {"Error", "Cause"}


def test_catch_result_path_null_keeps_the_input() -> None:
    definition = machine(
        {
            "Work": task(Catch=[{"ErrorEquals": ["States.ALL"], "ResultPath": None, "Next": "Done"}]),
            "Done": succeed(),
        }
    )

    execution = run(definition, {"a": 1}, Steps(fn=[StepError("Boom")]))

    assert execution.output == {"a": 1}


def test_task_failed_matches_step_errors_but_not_timeouts() -> None:
    # Given a Catch on States.TaskFailed, then one on States.ALL
    catch = [
        {"ErrorEquals": ["States.TaskFailed"], "Next": "TaskFailed"},
        {"ErrorEquals": ["States.ALL"], "Next": "All"},
    ]
    states = {"Work": task(TimeoutSeconds=5, Catch=catch), "TaskFailed": succeed(), "All": succeed()}
    clock = FakeClock()

    def slow_step(_resource: str, payload: Any) -> Any:
        clock.time += 6
        return payload

    # When a step raises, and when a step overruns its timeout
    raised = run(machine(states), {}, Steps(fn=[StepError("Anything")]), now=clock.now)
    timed_out = LocalEngine(machine(states), slow_step, now=clock.now).execute({})

    # Then TaskFailed caught the raised error, and only States.ALL caught States.Timeout
    assert raised.visited[-1] == "TaskFailed"
    assert timed_out.visited[-1] == "All"
    assert timed_out.output["Error"] == "States.Timeout"


def test_a_task_over_its_timeout_is_a_timeout_and_is_retried() -> None:
    # Given a Task with TimeoutSeconds 10 retried on States.Timeout, whose step overruns once
    definition = machine(
        {"Work": task(TimeoutSeconds=10, Retry=[{"ErrorEquals": ["States.Timeout"], "MaxAttempts": 1}])}
    )
    clock = FakeClock()
    durations = [11.0, 1.0]

    def step(_resource: str, payload: Any) -> Any:
        clock.time += durations.pop(0)
        return {"attempt": "second"}

    # When it runs
    execution = LocalEngine(definition, step, now=clock.now, sleep=clock.sleep).execute({})

    # Then the first attempt timed out (its result discarded) and the retry succeeded
    types = [event["type"] for event in execution.history]
    assert "LambdaFunctionTimedOut" in types
    assert types.count("LambdaFunctionScheduled") == 2
    assert execution.output == {"attempt": "second"}


def test_an_unserialisable_result_is_a_marshal_error() -> None:
    execution = run(machine({"Work": task()}), {}, Steps(fn=[{"s": {1, 2}}]))

    assert (execution.status, execution.error) == ("FAILED", "Runtime.MarshalError")


# ---- Fail, Succeed, execution timeout, max_events, on_transition ------------------------------------


def test_fail_state_ends_the_execution_with_its_error_and_cause() -> None:
    definition = machine({"Stop": {"Type": "Fail", "Error": "RunFailed", "Cause": "because"}})

    execution = run(definition, {})

    assert (execution.status, execution.error, execution.cause, execution.output) == (
        "FAILED",
        "RunFailed",
        "because",
        None,
    )
    assert [event["type"] for event in execution.history] == [
        "ExecutionStarted",
        "FailStateEntered",
        "ExecutionFailed",
    ]
    assert execution.history[-1]["executionFailedEventDetails"] == {"error": "RunFailed", "cause": "because"}


def test_succeed_state_applies_its_paths() -> None:
    definition = machine({"Done": {"Type": "Succeed", "InputPath": "$.a", "OutputPath": "$.b"}})

    execution = run(definition, {"a": {"b": 2}})

    assert (execution.status, execution.output) == ("SUCCEEDED", 2)


def test_execution_timeout_seconds_times_the_execution_out() -> None:
    # Given a 60 s execution limit and a loop whose step takes 25 s
    definition = machine(
        {"Work": task(next_state="Again"), "Again": {"Type": "Pass", "Next": "Work"}}, TimeoutSeconds=60
    )
    clock = FakeClock()

    def step(_resource: str, payload: Any) -> Any:
        clock.time += 25
        return payload

    # When it runs
    execution = LocalEngine(definition, step, now=clock.now).execute({})

    # Then it times out during the third step, which never exits
    assert (execution.status, execution.error) == ("TIMED_OUT", "States.Timeout")
    assert execution.visited == ["Work", "Again", "Work", "Again", "Work"]
    assert [event["type"] for event in execution.history[-2:]] == [
        "LambdaFunctionStarted",
        "ExecutionTimedOut",
    ]


def test_max_events_stops_a_runaway_loop_with_states_runtime() -> None:
    # Given a definition that loops forever
    definition = machine(
        {
            "Spin": {"Type": "Pass", "Next": "Check"},
            "Check": {
                "Type": "Choice",
                "Choices": [{"Variable": "$.go", "BooleanEquals": True, "Next": "Spin"}],
            },
        }
    )

    # When it runs with a 50-event limit
    execution = run(definition, {"go": True}, max_events=50)

    # Then it fails with States.Runtime and its history stays within the limit, closed properly
    assert (execution.status, execution.error) == ("FAILED", "States.Runtime")
    assert len(execution.history) == 50
    assert execution.history[-1]["type"] == "ExecutionFailed"


def test_on_transition_is_called_once_per_state_entered_not_per_retry() -> None:
    # Given a Task that is retried once before a Pass
    definition = machine(
        {"Work": task(next_state="Next", Retry=[RETRY_ALL]), "Next": {"Type": "Pass", "End": True}}
    )
    entered: list[str] = []

    # When it runs
    execution = run(definition, {}, Steps(fn=[StepError("Flaky"), {}]), on_transition=entered.append)

    # Then each state counted once, as in `visited`
    assert entered == ["Work", "Next"] == execution.visited


# ---- history ---------------------------------------------------------------------------------------


def test_history_has_consecutive_ids_linked_events_and_step_functions_shapes() -> None:
    # Given a Task retried once, then a Choice, then Succeed, on a clock at a known instant
    definition = machine(
        {
            "Work": task("arn:fn", next_state="Pick", TimeoutSeconds=30, Retry=[RETRY_ALL]),
            "Pick": {
                "Type": "Choice",
                "Choices": [{"Variable": "$.ok", "BooleanEquals": True, "Next": "Done"}],
            },
            "Done": succeed(),
        }
    )
    clock = FakeClock(start=1_700_000_000.25)

    # When it runs
    execution = run(
        definition, {"n": 1}, Steps(**{"arn:fn": [StepError("Flaky", "once"), {"ok": True}]}), now=clock.now
    )
    history = execution.history

    # Then ids run 1..n, each event points at the one before, and timestamps are ISO UTC from the clock
    assert [event["id"] for event in history] == list(range(1, len(history) + 1))
    assert [event["previousEventId"] for event in history] == list(range(len(history)))
    assert history[0]["timestamp"] == "2023-11-14T22:13:20.250+00:00"
    # and the events are those Step Functions writes, with their details
    assert [event["type"] for event in history] == [
        "ExecutionStarted",
        "TaskStateEntered",
        "LambdaFunctionScheduled",
        "LambdaFunctionStarted",
        "LambdaFunctionFailed",
        "LambdaFunctionScheduled",
        "LambdaFunctionStarted",
        "LambdaFunctionSucceeded",
        "TaskStateExited",
        "ChoiceStateEntered",
        "ChoiceStateExited",
        "SucceedStateEntered",
        "SucceedStateExited",
        "ExecutionSucceeded",
    ]
    assert history[0]["executionStartedEventDetails"]["input"] == '{"n":1}'
    assert history[1]["stateEnteredEventDetails"] == {
        "name": "Work",
        "input": '{"n":1}',
        "inputDetails": {"truncated": False},
    }
    assert history[2]["lambdaFunctionScheduledEventDetails"] == {
        "resource": "arn:fn",
        "input": '{"n":1}',
        "inputDetails": {"truncated": False},
        "timeoutInSeconds": 30,
    }
    assert history[4]["lambdaFunctionFailedEventDetails"]["error"] == "Flaky"
    assert history[7]["lambdaFunctionSucceededEventDetails"]["output"] == '{"ok":true}'
    assert history[8]["stateExitedEventDetails"]["output"] == '{"ok":true}'
    assert history[-1]["executionSucceededEventDetails"]["output"] == '{"ok":true}'
    assert execution.visited == ["Work", "Pick", "Done"]


def test_each_execution_gets_its_own_name_and_history() -> None:
    engine = LocalEngine(machine({"Done": succeed()}), Steps())

    first, second = engine.execute({}), engine.execute({}, name="named")

    assert first.name != second.name == "named"
    assert first.history is not second.history


def test_input_that_is_not_json_is_refused() -> None:
    with pytest.raises(ValueError, match="JSON"):
        LocalEngine(machine({"Done": succeed()}), Steps()).execute({"when": object()})


# ---- the real definition ------------------------------------------------------------------------------


def test_the_packaged_definition_validates_and_names_every_task_resource() -> None:
    # Given the state machine file shipped in the package
    engine = LocalEngine(load_definition(), Steps())

    # Then every Task's resource is the substitution placeholder of its state
    resources = {task.state: f"${{{task.substitution}}}" for task in STATE_TASKS}
    assert engine.task_resources == resources
    assert all(placeholder_name(resource) for resource in engine.task_resources.values())


def test_render_definition_substitutes_every_placeholder() -> None:
    # Given an ARN for each substitution
    arns = {task.substitution: f"arn:aws:lambda:eu-west-1:1:function:{task.step}" for task in STATE_TASKS}

    # When the definition is rendered
    rendered = render_definition(arns)

    # Then no placeholder is left and the local engine still accepts it
    assert "${" not in rendered
    assert set(LocalEngine(rendered, Steps()).task_resources.values()) == set(arns.values())


# ---- reference paths -------------------------------------------------------------------------------


def test_placing_a_value_copies_only_the_containers_on_the_path() -> None:
    # Given a document with a branch on and a branch off the path
    original: dict[str, Any] = {"on": {"deep": {"x": 1}, "side": [1, 2]}, "off": {"y": 2}}

    # When a value is placed at $.on.deep.x
    placed = parse_path("$.on.deep.x", "test").put(original, 9)

    # Then the original is untouched, the path is rewritten, and the rest is shared, not copied
    assert original["on"]["deep"]["x"] == 1
    assert placed["on"]["deep"]["x"] == 9
    assert placed["off"] is original["off"]
    assert placed["on"]["side"] is original["on"]["side"]


def test_reading_a_path_through_the_wrong_kind_of_node_finds_nothing() -> None:
    path = parse_path("$.a[0].b", "test")

    assert path.get({"a": [{"b": 3}]}) == 3
    documents: list[dict[str, Any]] = [{"a": {"0": {"b": 3}}}, {"a": []}, {"a": "text"}, {}]
    for document in documents:
        with pytest.raises(PathNotFound):
            path.get(document)
