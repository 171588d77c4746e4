"""Scripted investigations: the Task results (RunState payloads) or errors each step returns, in order,
with the states the workflow must walk for them. Any engine can replay them; see ScriptedInvoke for
the local engine and tests/support/asl_moto.py for moto's Step Functions interpreter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from visual_degrees.constants import STATE_TASKS
from visual_degrees.domain.models import Person, RunOptions, RunState
from visual_degrees_tools.local.asl.definition import load_definition

STATE_OF_PLACEHOLDER = {f"${{{task.substitution}}}": task.state for task in STATE_TASKS}

S0, S1, S2, S3 = (
    "S0_InitializeSession",
    "S1_DirectEdgeAttempt",
    "S2_CandidateDiscovery",
    "S3_SelectNextExpansion",
)
S4, S5, S6, S7 = "S4_VerifyNextEdge", "S5_BridgeTowardTarget", "S6_FinalizeSuccess", "S7_FinalizeFailure"

# What Step Functions reports when Lambda throttles the invoke, and when the function itself times out.
THROTTLED = "Lambda.TooManyRequestsException"
FUNCTION_TIMED_OUT = "Sandbox.Timedout"
# More throttles in a row than the transient errors' 3 retries: a throttled step must wait longer.
THROTTLES_WAITED_OUT = 6

# Lambda's own error for a response over its 6 MB payload limit; moto produces it for real (asl_moto).
RESPONSE_TOO_LARGE = "Function.ResponseSizeTooLarge"
RESPONSE_TOO_LARGE_MESSAGE = "Response payload size exceeded maximum allowed payload size (6291556 bytes)."


@dataclass(frozen=True)
class ScriptedStep:
    """One Task invocation: it returns `output`, or fails with the error `error` and message `message`."""

    state: str
    output: dict[str, Any] | None = None
    error: str | None = None
    message: str = ""


@dataclass(frozen=True)
class ScriptedRun:
    name: str
    input: dict[str, Any]
    steps: tuple[ScriptedStep, ...]
    expected_states: tuple[str, ...]
    expected_status: str


class ScriptedStepError(Exception):
    """What a scripted step raises; `error_name` is the error name the engine reports."""

    def __init__(self, error_name: str, message: str) -> None:
        super().__init__(message)
        self.error_name = error_name


class ScriptMismatch(BaseException):
    """The engine invoked a step the script did not expect.

    A BaseException, so the engine under test cannot mistake it for a step failure and Catch it.
    """


class ScriptedInvoke:
    """An `invoke` for LocalEngine that plays a run's steps in order (resources are `${...}` placeholders)."""

    def __init__(self, run: ScriptedRun) -> None:
        self._pending = list(run.steps)
        self.invoked: list[str] = []

    @property
    def remaining(self) -> int:
        return len(self._pending)

    def __call__(self, resource: str, payload: dict[str, Any]) -> dict[str, Any]:
        state = STATE_OF_PLACEHOLDER.get(resource, resource)
        self.invoked.append(state)
        if not self._pending:
            raise ScriptMismatch(f"{state} invoked after the script ended")
        step = self._pending.pop(0)
        if step.state != state:
            raise ScriptMismatch(f"the script expected {step.state}, the engine invoked {state}")
        if step.error is not None:
            raise ScriptedStepError(step.error, step.message)
        assert step.output is not None
        return step.output


class _Script:
    """Builds a run step by step from a RunState, the way the real steps advance it."""

    def __init__(self, name: str, *, max_hops: int = 6) -> None:
        self.name = name
        self.state = RunState(
            run_id=f"run-{name}",
            person_a=Person.of("Ada Lovelace"),
            person_b=Person.of("Charles Babbage"),
            options=RunOptions(max_hops=max_hops),
        )
        self.initial = self.state.dump()
        self.steps: list[ScriptedStep] = []

    def ok(self, state: str, **changes: Any) -> _Script:
        self.state = self.state.advanced(**changes)
        self.steps.append(ScriptedStep(state, output=self.state.dump()))
        return self

    def fail(self, state: str, error: str, message: str) -> _Script:
        self.steps.append(ScriptedStep(state, error=error, message=message))
        return self

    def run(self, expected_states: list[str], expected_status: str) -> ScriptedRun:
        return ScriptedRun(
            self.name, self.initial, tuple(self.steps), tuple(expected_states), expected_status
        )


def direct_hit() -> ScriptedRun:
    script = _Script("direct-hit")
    script.ok(S0).ok(S1, reached=True, path=["ada lovelace", "charles babbage"]).ok(S6)
    return script.run([S0, S1, "S1_Outcome", S6], "SUCCEEDED")


def multi_hop_success() -> ScriptedRun:
    """A -> X -> B after one rejected candidate and one fruitless discovery round."""
    script = _Script("multi-hop")
    script.ok(S0).ok(S1).ok(S2, candidates_found=True)
    script.ok(S3, selected="grace hopper").ok(S4, verified=False, candidates_left=True)  # rejected, more left
    script.ok(S3, selected="alan turing").ok(S4, verified=False, candidates_left=False)  # none left: discover
    script.ok(S2, candidates_found=True, round=1).ok(S3, selected="mary somerville")
    script.ok(S4, verified=True).ok(S5, hop=1, frontier="mary somerville")  # no photo with B yet
    script.ok(S2, candidates_found=True, round=2).ok(S3, selected="michael faraday").ok(S4, verified=True)
    script.ok(S5, reached=True, hop=2).ok(S6)
    states = [S0, S1, "S1_Outcome", S2, "S2_Outcome", S3, S4, "S4_Outcome", S3, S4, "S4_Outcome"]
    states += [S2, "S2_Outcome", S3, S4, "S4_Outcome", S5, "S5_Outcome"]
    states += [S2, "S2_Outcome", S3, S4, "S4_Outcome", S5, "S5_Outcome", S6]
    return script.run(states, "SUCCEEDED")


def hop_limit() -> ScriptedRun:
    """max_hops 2: after one bridge the frontier sits at the ceiling, so the Choice stops the search."""
    script = _Script("hop-limit", max_hops=2)
    script.ok(S0).ok(S1).ok(S2, candidates_found=True).ok(S3, selected="grace hopper").ok(S4, verified=True)
    script.ok(S5, hop=1, frontier="grace hopper").ok(S7, stop_reason="hop_limit")
    states = [S0, S1, "S1_Outcome", S2, "S2_Outcome", S3, S4, "S4_Outcome", S5, "S5_Outcome"]
    return script.run([*states, "HopLimitReached", S7], "SUCCEEDED")


def hop_limit_after_direct_attempt() -> ScriptedRun:
    """max_hops 1: only A—B itself fits, so when S1 finds no photo of both the Choice stops at once."""
    script = _Script("hop-limit-direct", max_hops=1)
    script.ok(S0).ok(S1).ok(S7, stop_reason="hop_limit")
    return script.run([S0, S1, "S1_Outcome", "HopLimitReached", S7], "SUCCEEDED")


def budget_exhausted() -> ScriptedRun:
    script = _Script("budget")
    script.ok(S0).ok(S1).ok(S2, candidates_found=True).ok(S3, selected="grace hopper")
    script.ok(S4, budget_exhausted=True, exhausted="searches").ok(S7, stop_reason="budget")
    states = [S0, S1, "S1_Outcome", S2, "S2_Outcome", S3, S4, "S4_Outcome", "BudgetExhausted", S7]
    return script.run(states, "SUCCEEDED")


def candidates_exhausted() -> ScriptedRun:
    script = _Script("no-candidates")
    script.ok(S0).ok(S1).ok(S2, candidates_found=False).ok(S7, stop_reason="candidates_exhausted")
    states = [S0, S1, "S1_Outcome", S2, "S2_Outcome", "CandidatesExhausted", S7]
    return script.run(states, "SUCCEEDED")


def discovery_exhausted() -> ScriptedRun:
    """Every candidate rejected and discovery has nothing new: the S4 Choice ends the run."""
    script = _Script("discovery-exhausted")
    script.ok(S0).ok(S1).ok(S2, candidates_found=True).ok(S3, selected="grace hopper")
    script.ok(S4, verified=False, candidates_left=False, discovery_exhausted=True)
    script.ok(S7, stop_reason="candidates_exhausted")
    states = [S0, S1, "S1_Outcome", S2, "S2_Outcome", S3, S4, "S4_Outcome", "CandidatesExhausted", S7]
    return script.run(states, "SUCCEEDED")


def cancelled() -> ScriptedRun:
    script = _Script("cancelled")
    script.ok(S0).ok(S1).ok(S2, candidates_found=True, cancelled=True).ok("RunCancelled")
    return script.run([S0, S1, "S1_Outcome", S2, "S2_Outcome", "RunCancelled"], "SUCCEEDED")


def step_error() -> ScriptedRun:
    """A non-retryable step error: Catch -> HandleError -> RunFailed."""
    script = _Script("step-error")
    script.ok(S0).fail(S1, "ProviderError", "the search engine rejected the query")
    script.ok("HandleError")
    return script.run([S0, S1, "HandleError", "RunFailed"], "FAILED")


def response_too_large() -> ScriptedRun:
    """A Lambda-level failure (the function's response is over Lambda's limit) in a later step."""
    script = _Script("response-too-large")
    script.ok(S0).ok(S1).fail(S2, RESPONSE_TOO_LARGE, RESPONSE_TOO_LARGE_MESSAGE).ok("HandleError")
    return script.run([S0, S1, "S1_Outcome", S2, "HandleError", "RunFailed"], "FAILED")


def transient_error_retried() -> ScriptedRun:
    """S1 fails once with a transient error; the Retry runs it again and the run goes on."""
    script = _Script("transient-retried")
    script.ok(S0).fail(S1, "TransientProviderError", "search engine throttled (HTTP 429)")
    script.ok(S1, reached=True, path=["ada lovelace", "charles babbage"]).ok(S6)
    return script.run([S0, S1, "S1_Outcome", S6], "SUCCEEDED")


def function_timeout_retried() -> ScriptedRun:
    """S2's function times out once (its own timeout, before the Task's); the Retry runs it again."""
    script = _Script("function-timeout-retried")
    script.ok(S0).ok(S1).fail(S2, FUNCTION_TIMED_OUT, "Task timed out after 80.00 seconds")
    script.ok(S2, candidates_found=False).ok(S7, stop_reason="candidates_exhausted")
    states = [S0, S1, "S1_Outcome", S2, "S2_Outcome", "CandidatesExhausted", S7]
    return script.run(states, "SUCCEEDED")


def throttled_step_waits() -> ScriptedRun:
    """Lambda throttles S1 more often than a transient error is retried; the step waits and goes on."""
    script = _Script("throttled-waits")
    script.ok(S0)
    for _ in range(THROTTLES_WAITED_OUT):
        script.fail(S1, THROTTLED, "Rate Exceeded.")
    script.ok(S1, reached=True, path=["ada lovelace", "charles babbage"]).ok(S6)
    return script.run([S0, S1, "S1_Outcome", S6], "SUCCEEDED")


def throttle_attempts(state: str = S1) -> int:
    """MaxAttempts of the packaged definition's Retry for a throttled invoke of `state`."""
    retriers = load_definition()["States"][state]["Retry"]
    (retrier,) = [r for r in retriers if THROTTLED in r["ErrorEquals"]]
    attempts: int = retrier["MaxAttempts"]
    return attempts


def throttled_beyond_patience() -> ScriptedRun:
    """Throttled once more than the throttle Retry allows: waiting is bounded, the run ends in HandleError."""
    script = _Script("throttled-for-ever")
    script.ok(S0)
    for _ in range(throttle_attempts() + 1):
        script.fail(S1, THROTTLED, "Rate Exceeded.")
    script.ok("HandleError")
    return script.run([S0, S1, "HandleError", "RunFailed"], "FAILED")


ALL_RUNS = (
    direct_hit,
    multi_hop_success,
    hop_limit,
    hop_limit_after_direct_attempt,
    budget_exhausted,
    candidates_exhausted,
    discovery_exhausted,
    cancelled,
    step_error,
    response_too_large,
    transient_error_retried,
    function_timeout_retried,
    throttled_step_waits,
    throttled_beyond_patience,
)
