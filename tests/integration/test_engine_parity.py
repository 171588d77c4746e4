"""The local engine walks the packaged state machine exactly as moto's Step Functions interpreter does.

Each scripted run (tests/support/scripted_runs.py) is replayed on both engines with the same step
results and errors; both must enter the same states with the same inputs and end the same way.
How moto is made to fail a Task is explained in tests/support/asl_moto.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.support.asl_moto import MotoStepFunctions, moto_step_functions, plan
from tests.support.asl_walk import run_locally
from tests.support.scripted_runs import ALL_RUNS, ScriptedRun, step_error, transient_error_retried


@pytest.fixture(scope="module")
def moto_sfn() -> Iterator[MotoStepFunctions]:
    with moto_step_functions() as sfn:
        yield sfn


@pytest.mark.parametrize("build", ALL_RUNS, ids=lambda build: build.__name__)
def test_both_engines_walk_the_same_states(
    moto_sfn: MotoStepFunctions, build: Callable[[], ScriptedRun]
) -> None:
    # Given a scripted investigation
    run = build()

    # When it runs on moto's interpreter and on the local engine
    moto_walk, moto_left = moto_sfn.run(run)
    local_waits: list[float] = []
    local_walk, local_invoke = run_locally(run, local_waits)

    # Then both walk the workflow the script describes, consuming the whole script
    assert moto_walk.states == run.expected_states
    assert local_walk.states == moto_walk.states
    assert moto_left == 0
    assert local_invoke.remaining == 0
    # and both hand every state the same input and end the same way
    assert local_walk.inputs == moto_walk.inputs
    assert (local_walk.status, local_walk.error, local_walk.cause) == (
        moto_walk.status,
        moto_walk.error,
        moto_walk.cause,
    )
    assert local_walk.status == run.expected_status
    assert local_walk.output == moto_walk.output
    # and both wait the same between attempts (each wait at the top of its jitter range)
    assert local_waits == moto_sfn.waits
    # and their histories have the same events; moto records a mocked Throw as TaskFailed where a
    # Lambda that raised is LambdaFunctionFailed
    moto_events = tuple("LambdaFunctionFailed" if t == "TaskFailed" else t for t in moto_walk.event_types)
    assert local_walk.event_types == moto_events


def test_a_caught_error_reaches_the_error_handler_with_its_name() -> None:
    # Given a step that fails with a non-retryable error
    run = step_error()

    # When it runs locally
    walk, _ = run_locally(run)

    # Then HandleError receives the state with the caught error merged at $.error, and the run fails
    handler_input = walk.inputs[walk.states.index("HandleError")]
    assert handler_input["error"]["Error"] == "ProviderError"
    assert "the search engine rejected the query" in handler_input["error"]["Cause"]
    assert (walk.status, walk.error) == ("FAILED", "RunFailed")


def test_moto_plan_mocks_only_states_with_thrown_errors() -> None:
    # Given a run whose S1 fails once and is retried
    run = transient_error_retried()

    # When it is planned for moto
    queued, mocked = plan(run)

    # Then S1's two attempts are mocked responses and the other steps are queued Lambda results
    assert [responses.state_name for responses in mocked] == ["S1_DirectEdgeAttempt"]
    assert len(mocked[0].mocked_responses) == 2
    assert len(queued) == len(run.steps) - 2
