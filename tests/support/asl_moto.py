"""Replays a ScriptedRun in moto's Step Functions interpreter (the LocalStack-derived ASL parser).

The packaged definition runs with its `${...}Arn` placeholders replaced by Lambda ARNs. moto's
"simple" Lambda backend (`lambda.use_docker: False`) invokes nothing: each invocation pops the next
JSON string from `lambda_simple_results_queue`, so successful steps are queued there in order.
Functions need not exist for that backend, so none are created.

That backend never fails on its own, so failing steps use two real mechanisms of moto:

- `Function.ResponseSizeTooLarge`: moto's Lambda API answers a response over 6 MB exactly as Lambda
  does, with `X-Amz-Function-Error: Unhandled` and that errorType; the interpreter then fails the Task
  through its ordinary Lambda error path (LambdaFunctionFailed). Queueing an oversized string is enough.
- any other error name: the interpreter's mocked service responses (the MockTestCase / Throw support
  LocalStack and Step Functions Local use for mock configs). The interpreter raises the Throw as the
  Task's error through the same Retry/Catch machinery as a Lambda errorType. moto has this support
  but never wires a test case into an execution, so `_mocked_responses` passes one to the worker's
  constructor (its `mock_test_case` argument). The mocks are indexed by the state's retry count and
  apply to every entry of the state, so a scripted error must sit on the only entry of its state.
  The Throw's Cause is written the way a Python Lambda's would be, so both engines merge the same
  error object into the state data.

The Retry waits are recorded instead of slept (`MotoStepFunctions.waits`), each at the top of its
FULL-jitter range, so they can be compared with the local engine's and a throttled scenario takes no
time: moto's retrier reads `time.sleep` and its jitter `random.uniform` from modules patched here.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any
from unittest import mock

import boto3
from moto import mock_aws
from moto.awslambda_simple.models import lambda_simple_backends
from moto.core import DEFAULT_ACCOUNT_ID
from moto.stepfunctions.parser.asl.component.common.retry import jitter_strategy_decl, retrier_decl
from moto.stepfunctions.parser.backend import execution as moto_execution
from moto.stepfunctions.parser.backend.execution_worker import ExecutionWorker
from moto.stepfunctions.parser.mocking.mock_config import (
    MockedResponse,
    MockedResponseReturn,
    MockedResponseThrow,
    MockTestCase,
    StateMockedResponses,
)

from tests.support.asl_walk import Walk, walk_from_history
from tests.support.scripted_runs import RESPONSE_TOO_LARGE, ScriptedRun, ScriptedStep, ScriptedStepError
from visual_degrees.constants import STATE_TASKS
from visual_degrees_tools.local.asl.definition import render_definition
from visual_degrees_tools.local.asl.engine import error_of

REGION = "us-east-1"
MOTO_CONFIG: Any = {"stepfunctions": {"execute_state_machine": True}, "lambda": {"use_docker": False}}
_OVERSIZED_RESPONSE = "x" * 6_000_001  # moto's limit check: sys.getsizeof(payload) > 6_000_000


def lambda_arn(step: str) -> str:
    return f"arn:aws:lambda:{REGION}:{DEFAULT_ACCOUNT_ID}:function:visual-degrees-{step.replace('_', '-')}"


class MotoStepFunctions:
    """One state machine made from the packaged definition, inside an active mock_aws context."""

    def __init__(self) -> None:
        self.client = boto3.client("stepfunctions", region_name=REGION)
        definition = render_definition({task.substitution: lambda_arn(task.step) for task in STATE_TASKS})
        self.state_machine_arn = self.client.create_state_machine(
            name="visual-degrees",
            definition=definition,
            roleArn=f"arn:aws:iam::{DEFAULT_ACCOUNT_ID}:role/visual-degrees-workflow",
        )["stateMachineArn"]
        self.queue: list[str] = lambda_simple_backends[DEFAULT_ACCOUNT_ID][REGION].lambda_simple_results_queue
        self.waits: list[float] = []  # the last run's Retry waits, in order

    def run(self, run: ScriptedRun, *, timeout: float = 30.0) -> tuple[Walk, int]:
        """The walk of `run`, and how many queued results were left unconsumed."""
        queued, mocked = plan(run)
        self.queue.clear()
        self.queue.extend(queued)
        self.waits = []
        with _mocked_responses(MockTestCase("visual-degrees", run.name, mocked)), _recorded_waits(self.waits):
            execution_arn = self.client.start_execution(
                stateMachineArn=self.state_machine_arn, name=run.name, input=json.dumps(run.input)
            )["executionArn"]
            description = self._wait(execution_arn, timeout)
        output = json.loads(description["output"]) if "output" in description else None
        walk = walk_from_history(
            self._history(execution_arn),
            description["status"],
            description.get("error"),
            description.get("cause"),
            output,
        )
        return walk, len(self.queue)

    def _wait(self, execution_arn: str, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            description: dict[str, Any] = self.client.describe_execution(executionArn=execution_arn)
            if description["status"] != "RUNNING":
                return description
            if time.monotonic() > deadline:
                raise TimeoutError(f"moto's execution {execution_arn} still RUNNING after {timeout} s")
            time.sleep(0.005)

    def _history(self, execution_arn: str) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        request: dict[str, Any] = {"executionArn": execution_arn}
        while True:
            page = self.client.get_execution_history(**request)
            events.extend(page["events"])
            if not page.get("nextToken"):
                return events
            request["nextToken"] = page["nextToken"]


@contextmanager
def moto_step_functions() -> Iterator[MotoStepFunctions]:
    with mock_aws(config=MOTO_CONFIG):
        yield MotoStepFunctions()


def plan(run: ScriptedRun) -> tuple[list[str], list[StateMockedResponses]]:
    """(results to queue in invocation order, mocked responses for states with a thrown error)."""
    thrown = {step.state for step in run.steps if step.error not in (None, RESPONSE_TOO_LARGE)}
    for state in thrown:
        entries = [i for i, step in enumerate(run.steps) if step.state == state]
        if entries != list(range(entries[0], entries[-1] + 1)):
            raise ValueError(f"{run.name}: a scripted error on {state} needs {state} to be entered only once")
    queued = [_queued(step) for step in run.steps if step.state not in thrown]
    mocked = [
        StateMockedResponses(
            state,
            f"{run.name}-{state}",
            [_mocked(attempt, step) for attempt, step in enumerate(s for s in run.steps if s.state == state)],
        )
        for state in sorted(thrown)
    ]
    return queued, mocked


def _queued(step: ScriptedStep) -> str:
    if step.error == RESPONSE_TOO_LARGE:
        return _OVERSIZED_RESPONSE
    return json.dumps(step.output)


def _mocked(attempt: int, step: ScriptedStep) -> MockedResponse:
    if step.error is not None:
        _, cause = error_of(ScriptedStepError(step.error, step.message))
        return MockedResponseThrow(attempt, attempt, step.error, cause)
    # A mocked Lambda response is the whole Invoke API answer, as in a Step Functions mock config.
    return MockedResponseReturn(attempt, attempt, {"StatusCode": 200, "Payload": step.output})


@contextmanager
def _mocked_responses(test_case: MockTestCase) -> Iterator[None]:
    if not test_case.state_mocked_responses:
        yield
        return
    worker = functools.partial(ExecutionWorker, mock_test_case=test_case)
    with mock.patch.object(moto_execution, "ExecutionWorker", worker):
        yield


@contextmanager
def _recorded_waits(waits: list[float]) -> Iterator[None]:
    """Moto's retrier appends its waits to `waits` instead of sleeping, each at the top of its jitter."""
    top_of_range = SimpleNamespace(uniform=lambda low, high: high)
    with (
        mock.patch.object(retrier_decl, "time", SimpleNamespace(sleep=waits.append)),
        mock.patch.object(jitter_strategy_decl, "random", top_of_range),
    ):
        yield
