"""The local ASL engine: runs a Step Functions definition (JSONPath) with each Task's work in-process.

It implements what the Visual Degrees definition uses - Task (Lambda-style resources, TimeoutSeconds,
InputPath/Parameters/ResultPath/OutputPath, Retry, Catch), Choice, Pass, Succeed, Fail and the
top-level TimeoutSeconds - with the semantics the Step Functions documentation gives, records a
GetExecutionHistory-shaped history, and refuses any other ASL when it is constructed.

Values travel between states as parsed JSON and are never mutated in place: paths copy only the
containers they rewrite. A Task's payload reaches `invoke` freshly parsed from its JSON text, as it
would cross the Lambda boundary, so a step that mutates its input cannot change what Catch and
ResultPath merge into; its result must serialise to JSON (else Runtime.MarshalError, as a Python
Lambda reports) and becomes the state's result as is.
"""

from __future__ import annotations

import json
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from visual_degrees_tools.local.asl.errors import (
    NO_CHOICE_MATCHED,
    RESULT_PATH_MATCH_FAILURE,
    RUNTIME,
    TIMEOUT,
    AslDefinitionError,
    StateError,
    UnsupportedAslFeature,
)
from visual_degrees_tools.local.asl.history import History, HistoryLimitReached
from visual_degrees_tools.local.asl.paths import ROOT, PathNotFound, ReferencePath
from visual_degrees_tools.local.asl.retry import error_matches
from visual_degrees_tools.local.asl.states import (
    ChoiceState,
    PassState,
    State,
    SucceedState,
    TaskState,
    compile_definition,
)

__all__ = ["AslDefinitionError", "Execution", "LocalEngine", "UnsupportedAslFeature"]

Invoke = Callable[[str, Any], Any]
Status = Literal["SUCCEEDED", "FAILED", "TIMED_OUT"]
STEP_FUNCTIONS_HISTORY_LIMIT = 25_000
MARSHAL_ERROR = "Runtime.MarshalError"  # what a Python Lambda reports for an unserialisable result

_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode
_loads = json.loads


def _no_sleep(_seconds: float) -> None:
    return None


@dataclass
class Execution:
    name: str
    status: Status
    output: Any  # the execution's output JSON (a dict for our definition); None unless SUCCEEDED
    error: str | None
    cause: str | None
    history: list[dict[str, Any]] = field(repr=False)
    visited: list[str]  # states entered, in order; a retry does not enter its state again


def error_of(exc: BaseException) -> tuple[str, str]:
    """(error name, cause) as Step Functions reports a failed Python Lambda: the errorType is the
    exception's `error_name` attribute if it has one, else its class name; no stack trace."""
    name = getattr(exc, "error_name", None)
    if not isinstance(name, str) or not name:
        name = type(exc).__name__
    return name, _dumps({"errorMessage": str(exc), "errorType": name})


class _ExecutionFailed(Exception):
    def __init__(self, error: str | None, cause: str | None) -> None:
        super().__init__(error)
        self.error = error
        self.cause = cause


class _ExecutionTimedOut(Exception):
    pass


class LocalEngine:
    """Runs one state machine definition; `execute` may be called any number of times."""

    def __init__(
        self,
        definition: dict[str, Any] | str,
        invoke: Invoke,
        *,
        sleep: Callable[[float], object] = _no_sleep,
        now: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        on_transition: Callable[[str], object] | None = None,
        max_events: int = STEP_FUNCTIONS_HISTORY_LIMIT,
    ) -> None:
        if type(max_events) is not int or max_events < 2:
            raise ValueError(f"max_events must be an integer >= 2, got {max_events!r}")
        self._machine = compile_definition(definition)
        self._invoke = invoke
        self._sleep = sleep
        self._now = now
        self._rng = rng if rng is not None else random.Random()
        self._on_transition = on_transition
        self._max_events = max_events

    @property
    def task_resources(self) -> dict[str, str]:
        """Task state name -> its Resource, so a caller can check its resource mapping up front."""
        states = self._machine.states.items()
        return {name: state.resource for name, state in states if isinstance(state, TaskState)}

    def execute(self, input: Any, *, name: str | None = None) -> Execution:
        try:
            input_text = _dumps(input)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"the execution input must be JSON-serialisable: {exc}") from None
        return _Run(self, name or str(uuid.uuid4())).run(input_text)


class _Run:
    """One execution: the loop over states, and the per-type state behaviour."""

    def __init__(self, engine: LocalEngine, name: str) -> None:
        self.engine = engine
        self.name = name
        self.history = History(engine._now, engine._max_events)
        self.visited: list[str] = []
        self.deadline: float | None = None

    def run(self, input_text: str) -> Execution:
        engine, history = self.engine, self.history
        machine = engine._machine
        if machine.timeout_seconds is not None:
            self.deadline = engine._now() + machine.timeout_seconds
        data: Any = _loads(input_text)
        text = input_text
        try:
            history.add(
                "ExecutionStarted",
                "executionStartedEventDetails",
                {"input": input_text, "inputDetails": {"truncated": False}},
            )
            state: State = machine.states[machine.start_at]
            while True:
                self._check_deadline()
                self.visited.append(state.name)
                if engine._on_transition is not None:
                    engine._on_transition(state.name)
                history.state_entered(state.kind, state.name, text)
                next_name, data, text = self._run_state(state, data, text)
                if next_name is None:
                    break
                state = machine.states[next_name]
        except StateError as exc:
            return self._close_failed(exc.error, exc.cause)
        except _ExecutionFailed as exc:
            return self._close_failed(exc.error, exc.cause)
        except HistoryLimitReached:
            return self._close_failed(
                RUNTIME, f"The execution reached the limit of {engine._max_events} history events"
            )
        except _ExecutionTimedOut:
            cause = f"The execution ran longer than its TimeoutSeconds ({machine.timeout_seconds})"
            details = {"error": TIMEOUT, "cause": cause}
            history.close("ExecutionTimedOut", "executionTimedOutEventDetails", details)
            return self._result("TIMED_OUT", None, TIMEOUT, cause)
        history.close(
            "ExecutionSucceeded",
            "executionSucceededEventDetails",
            {"output": text, "outputDetails": {"truncated": False}},
        )
        # Parsed afresh: the caller may keep and mutate it without touching the definition's constants.
        return self._result("SUCCEEDED", _loads(text), None, None)

    # ---- endings ------------------------------------------------------------------------------

    def _close_failed(self, error: str | None, cause: str | None) -> Execution:
        details = {key: value for key, value in (("error", error), ("cause", cause)) if value is not None}
        self.history.close("ExecutionFailed", "executionFailedEventDetails", details)
        return self._result("FAILED", None, error, cause)

    def _result(self, status: Status, output: Any, error: str | None, cause: str | None) -> Execution:
        return Execution(
            name=self.name,
            status=status,
            output=output,
            error=error,
            cause=cause,
            history=self.history.events,
            visited=self.visited,
        )

    def _check_deadline(self) -> None:
        if self.deadline is not None and self.engine._now() >= self.deadline:
            raise _ExecutionTimedOut

    # ---- paths --------------------------------------------------------------------------------

    @staticmethod
    def _select(state: State, field_name: str, path: ReferencePath | None, value: Any) -> Any:
        if path is None:
            return {}
        if path is ROOT:
            return value
        try:
            return path.get(value)
        except PathNotFound:
            raise StateError(
                RUNTIME,
                f"An error occurred while executing the state {state.name!r}: "
                f"the {field_name} {path.text!r} selects nothing in the state's data",
            ) from None

    @staticmethod
    def _place(state: State, path: ReferencePath | None, data: Any, result: Any) -> Any:
        if path is None:
            return data
        try:
            return path.put(data, result)
        except PathNotFound:
            raise StateError(
                RESULT_PATH_MATCH_FAILURE,
                f"Unable to apply ResultPath {path.text!r} to the input of state {state.name!r}",
            ) from None

    @staticmethod
    def _effective_input(state: TaskState | PassState, data: Any) -> Any:
        effective = _Run._select(state, "InputPath", state.input_path, data)
        if state.parameters is None:
            return effective
        try:
            return state.parameters(effective)
        except PathNotFound as exc:
            raise StateError(
                RUNTIME,
                f"An error occurred while executing the state {state.name!r}: "
                f"the Parameters path {exc.args[0]!r} selects nothing in the state's input",
            ) from None

    # ---- states -------------------------------------------------------------------------------

    def _run_state(self, state: State, data: Any, text: str) -> tuple[str | None, Any, str]:
        """(next state or None at the end, output, output as JSON text) of one entered state."""
        if isinstance(state, TaskState):
            return self._task(state, data, text)
        if isinstance(state, ChoiceState):
            return self._choice(state, data, text)
        if isinstance(state, PassState):
            return self._pass(state, data, text)
        if isinstance(state, SucceedState):
            return self._succeed(state, data, text)
        raise _ExecutionFailed(state.error, state.cause)

    def _task(self, state: TaskState, data: Any, text: str) -> tuple[str | None, Any, str]:
        effective = self._effective_input(state, data)
        payload = text if effective is data else _dumps(effective)
        attempts = [0] * len(state.retriers)
        while True:
            outcome = self._invoke(state, payload)
            if isinstance(outcome, StateError):
                failure = outcome
            else:
                result, result_text = outcome
                try:
                    placed = self._place(state, state.result_path, data, result)
                    output = self._select(state, "OutputPath", state.output_path, placed)
                except StateError as exc:
                    failure = exc
                else:
                    if output is result:
                        output_text = result_text
                    else:
                        output_text = text if output is data else _dumps(output)
                    self.history.state_exited("Task", state.name, output_text)
                    return state.next, output, output_text
            if self._retry(state, failure, attempts):
                continue
            for catcher in state.catchers:
                if error_matches(catcher.error_equals, failure.error):
                    error_output = {"Error": failure.error, "Cause": failure.cause}
                    output = self._place(state, catcher.result_path, data, error_output)
                    output_text = _dumps(output)
                    self.history.state_exited("Task", state.name, output_text)
                    return catcher.next, output, output_text
            raise failure

    def _retry(self, state: TaskState, failure: StateError, attempts: list[int]) -> bool:
        """Wait and return True if the first retrier matching the error has attempts left."""
        for index, retrier in enumerate(state.retriers):
            if error_matches(retrier.error_equals, failure.error):
                if attempts[index] >= retrier.max_attempts:
                    return False
                self.engine._sleep(retrier.delay(attempts[index], self.engine._rng))
                attempts[index] += 1
                self._check_deadline()
                return True
        return False

    def _invoke(self, state: TaskState, payload: str) -> tuple[Any, str] | StateError:
        engine, history = self.engine, self.history
        scheduled: dict[str, Any] = {
            "resource": state.resource,
            "input": payload,
            "inputDetails": {"truncated": False},
        }
        if state.timeout_seconds is not None:
            scheduled["timeoutInSeconds"] = state.timeout_seconds
        history.add("LambdaFunctionScheduled", "lambdaFunctionScheduledEventDetails", scheduled)
        history.add("LambdaFunctionStarted")
        began = engine._now()
        try:
            result = engine._invoke(state.resource, _loads(payload))
        except Exception as exc:
            self._check_deadline()
            if self._timed_out(state, began):
                return self._lambda_timed_out(state)
            error, cause = error_of(exc)
            return self._lambda_failed(error, cause)
        # An execution past its deadline ends here, as it would have mid-task on Step Functions.
        self._check_deadline()
        if self._timed_out(state, began):
            return self._lambda_timed_out(state)
        try:
            result_text = _dumps(result)
        except (TypeError, ValueError) as exc:
            cause = _dumps({"errorMessage": f"Unable to marshal response: {exc}", "errorType": MARSHAL_ERROR})
            return self._lambda_failed(MARSHAL_ERROR, cause)
        history.add(
            "LambdaFunctionSucceeded",
            "lambdaFunctionSucceededEventDetails",
            {"output": result_text, "outputDetails": {"truncated": False}},
        )
        # Not re-parsed: the engine never mutates a value in place, and what it hands out is fresh.
        return result, result_text

    def _lambda_failed(self, error: str, cause: str) -> StateError:
        details = {"error": error, "cause": cause}
        self.history.add("LambdaFunctionFailed", "lambdaFunctionFailedEventDetails", details)
        return StateError(error, cause)

    def _timed_out(self, state: TaskState, began: float) -> bool:
        return state.timeout_seconds is not None and self.engine._now() - began > state.timeout_seconds

    def _lambda_timed_out(self, state: TaskState) -> StateError:
        cause = f"The task ran longer than its TimeoutSeconds ({state.timeout_seconds})"
        self.history.add(
            "LambdaFunctionTimedOut", "lambdaFunctionTimedOutEventDetails", {"error": TIMEOUT, "cause": cause}
        )
        return StateError(TIMEOUT, cause)

    def _choice(self, state: ChoiceState, data: Any, text: str) -> tuple[str | None, Any, str]:
        effective = self._select(state, "InputPath", state.input_path, data)
        target = state.default
        for predicate, next_name in state.choices:
            if predicate(effective):
                target = next_name
                break
        if target is None:
            raise StateError(
                NO_CHOICE_MATCHED, f"No choice rule of state {state.name!r} matched and it has no Default"
            )
        output = self._select(state, "OutputPath", state.output_path, effective)
        output_text = text if output is data else _dumps(output)
        self.history.state_exited("Choice", state.name, output_text)
        return target, output, output_text

    def _pass(self, state: PassState, data: Any, text: str) -> tuple[str | None, Any, str]:
        effective = self._effective_input(state, data)
        result = state.result if state.has_result else effective
        placed = self._place(state, state.result_path, data, result)
        output = self._select(state, "OutputPath", state.output_path, placed)
        output_text = text if output is data else _dumps(output)
        self.history.state_exited("Pass", state.name, output_text)
        return state.next, output, output_text

    def _succeed(self, state: SucceedState, data: Any, text: str) -> tuple[str | None, Any, str]:
        effective = self._select(state, "InputPath", state.input_path, data)
        output = self._select(state, "OutputPath", state.output_path, effective)
        output_text = text if output is data else _dumps(output)
        self.history.state_exited("Succeed", state.name, output_text)
        return None, output, output_text
