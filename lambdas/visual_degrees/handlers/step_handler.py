"""The one factory behind the ten Task-state handlers, and the one function each of them calls.

A Task's event is the RunState JSON; the handler returns the next RunState JSON. The work is the step
code the local engine runs, through `steps.execute` (memoised per run and step number, so a Lambda
that Step Functions retries after a timeout answers the same without paying or emitting again).
Domain exceptions propagate: their class name is the error Step Functions' Retry and Catch match on.
"""

from __future__ import annotations

import time
from typing import Any

from visual_degrees.constants import STATE_TASKS
from visual_degrees.domain.errors import VisualDegreesError
from visual_degrees.domain.models import RunState
from visual_degrees.handlers.catalog import BUDGET_STOP_REASON, FINAL_STEPS, PROVIDER_STEPS
from visual_degrees.handlers.observability import Handler, instrumented, logger, tracer
from visual_degrees.handlers.run_metrics import report_finished, report_spend, spent_usd
from visual_degrees.handlers.wiring import current_runtime
from visual_degrees.services.context import StepContext
from visual_degrees.steps import execute

_STEPS = {task.step: task.state for task in STATE_TASKS}
STEP_MARGIN_SECONDS = 5.0  # what a step needs after its last paid call (its writes and events)


def step_handler(step: str) -> Handler:
    """The Lambda handler of `step` (a module name under visual_degrees.steps)."""
    if step not in _STEPS:
        raise KeyError(f"unknown step {step!r}")

    @instrumented
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        state = RunState.model_validate(event)
        return run_step(step, event, current_runtime().step_context(step, state, until=_until(context)))

    handler.step = step  # type: ignore[attr-defined]
    return handler


@tracer.capture_method(capture_response=False)
def run_step(step: str, payload: dict[str, Any], ctx: StepContext) -> dict[str, Any]:
    state = RunState.model_validate(payload)
    logger.append_keys(runId=state.run_id, step=step, state=_STEPS[step], stepNo=state.step)
    paying = step in PROVIDER_STEPS
    before = spent_usd(ctx, state) if paying else 0.0
    try:
        result = execute(step, payload, ctx)
    finally:
        if paying:
            _report_spend(ctx, state, before)
    outcome = FINAL_STEPS.get(step)
    if outcome is not None:
        budget = result.get("stopReason") == BUDGET_STOP_REASON
        report_finished(
            ctx.memory, state.run_id, outcome, state.options.ttl_seconds, budget=budget, segment=state.segment
        )
    logger.info("step done", extra={"nextStepNo": result.get("step")})
    return result


def _until(context: Any) -> float | None:
    """When this invocation must have finished its calls: the function's timeout less a margin for
    recording the step (None without a Lambda context)."""
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    if not callable(remaining):
        return None
    return time.time() + remaining() / 1000 - STEP_MARGIN_SECONDS


def _report_spend(ctx: StepContext, state: RunState, before: float) -> None:
    try:
        report_spend(spent_usd(ctx, state) - before)
    except VisualDegreesError as exc:  # a lost metric must not fail (or mask the failure of) a step
        logger.warning("spend not reported", extra={"code": exc.code})
