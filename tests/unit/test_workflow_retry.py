"""The packaged definition's Retry: a throttled step waits for capacity, a step whose function timed
out runs again, and waiting is bounded (on the local engine; test_engine_parity runs the same scripts
on moto's interpreter, waits included)."""

from __future__ import annotations

from typing import Any

from tests.support.asl_walk import run_locally
from tests.support.scripted_runs import (
    FUNCTION_TIMED_OUT,
    S1,
    THROTTLED,
    THROTTLES_WAITED_OUT,
    function_timeout_retried,
    throttle_attempts,
    throttled_beyond_patience,
    throttled_step_waits,
)
from visual_degrees.constants import STATE_TASKS
from visual_degrees.steps.handle_error import describe
from visual_degrees_tools.local.asl.definition import load_definition

# Transient Lambda errors (AWS's best practice for Lambda tasks), the function's own timeout, the
# Task's timeout and a provider's transient failure: every step is idempotent, so each is retried.
RETRIED = {
    THROTTLED,
    FUNCTION_TIMED_OUT,
    "Lambda.ServiceException",
    "Lambda.AWSLambdaException",
    "Lambda.SdkClientException",
    "Lambda.ClientExecutionTimeoutException",
    "States.Timeout",
    "TransientProviderError",
}
MIN_PATIENCE_SECONDS = 600  # a burst of runs over the account's concurrency must be waited out
MAX_PATIENCE_SECONDS = 1200  # but a step stuck behind throttling still ends, well inside an execution
MAX_WAIT_SECONDS = 60  # a freed slot is taken within a minute


def _retriers(state: str) -> list[dict[str, Any]]:
    retriers: list[dict[str, Any]] = load_definition()["States"][state]["Retry"]
    return retriers


def test_every_task_retries_throttling_timeouts_and_transient_errors() -> None:
    for task in STATE_TASKS:
        retried = {name for retrier in _retriers(task.state) for name in retrier["ErrorEquals"]}
        assert retried >= RETRIED, (task.state, sorted(RETRIED - retried))


def test_throttling_has_a_retrier_of_its_own_and_no_other_error_shares_its_patience() -> None:
    for task in STATE_TASKS:
        throttle = [r for r in _retriers(task.state) if THROTTLED in r["ErrorEquals"]]
        assert [r["ErrorEquals"] for r in throttle] == [[THROTTLED]], task.state
        assert throttle == [r for r in _retriers(S1) if THROTTLED in r["ErrorEquals"]], task.state


def test_a_throttled_step_waits_for_capacity_and_goes_on() -> None:
    # Given Lambda throttles S1 more often in a row than a transient error is retried
    run = throttled_step_waits()
    waits: list[float] = []

    # When the run goes through the packaged definition
    walk, invoke = run_locally(run, waits)

    # Then S1 is invoked again after each throttle, with growing waits, and the run succeeds
    assert walk.states == run.expected_states
    assert (walk.status, invoke.remaining) == ("SUCCEEDED", 0)
    assert len(waits) == THROTTLES_WAITED_OUT
    assert waits == sorted(waits) and waits[0] < waits[-1] <= MAX_WAIT_SECONDS


def test_throttle_waiting_is_patient_but_bounded() -> None:
    # Given Lambda throttles S1 for ever
    run = throttled_beyond_patience()
    waits: list[float] = []

    # When the run goes through the packaged definition
    walk, invoke = run_locally(run, waits)

    # Then it waits many times, each at most a minute, for minutes in all, and then fails the run
    assert len(waits) == throttle_attempts() >= 20
    assert max(waits) <= MAX_WAIT_SECONDS
    assert MIN_PATIENCE_SECONDS <= sum(waits) <= MAX_PATIENCE_SECONDS
    assert walk.states == run.expected_states
    assert (walk.status, invoke.remaining) == ("FAILED", 0)
    handler_input = walk.inputs[walk.states.index("HandleError")]
    assert handler_input["error"]["Error"] == THROTTLED


def test_a_step_whose_function_timed_out_runs_again() -> None:
    # Given S2's function times out once (Lambda reports Sandbox.Timedout, not States.Timeout)
    run = function_timeout_retried()

    # When the run goes through the packaged definition
    walk, invoke = run_locally(run)

    # Then S2 runs again and the run ends normally
    assert walk.states == run.expected_states
    assert (walk.status, invoke.remaining) == ("SUCCEEDED", 0)


def test_a_step_that_kept_timing_out_is_reported_as_a_step_timeout() -> None:
    # Given the error HandleError receives once the retries of a function that kept timing out are spent
    for name in (FUNCTION_TIMED_OUT, "States.Timeout"):
        error = {"Error": name, "Cause": '{"errorMessage": "Task timed out after 80.00 seconds"}'}

        # Then the run's error event says the step timed out, not that something unexpected happened
        assert describe(error)[0] == "step_timeout", name
