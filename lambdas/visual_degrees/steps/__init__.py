"""The S0–S7 steps, one module each, and the one entry point both engines call.

`execute` makes every step idempotent: the output of step n of a run is memoised, so Step Functions
re-running a timed-out Lambda (same input, same `step`) gets the same answer without paying, emitting
or counting again. A step that crashed half-way re-runs; its caches and event keys absorb the repeat.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

from visual_degrees.constants import STATE_TASKS
from visual_degrees.domain.models import RunState
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.lifecycle.run_memory import RunControl

StepFunction = Callable[[RunState, StepContext], RunState]

# Steps that stop at their boundary once a client asked to cancel (the Choice after them routes it).
CANCELLABLE = frozenset(
    {
        "direct_edge_attempt",
        "candidate_discovery",
        "select_next_expansion",
        "verify_next_edge",
        "bridge_toward_target",
    }
)


def step_function(step: str) -> StepFunction:
    if step not in {t.step for t in STATE_TASKS}:
        raise KeyError(f"unknown step {step!r}")
    fn: StepFunction = import_module(f"visual_degrees.steps.{step}").run
    return fn


def execute(step: str, payload: dict[str, Any], ctx: StepContext) -> dict[str, Any]:
    """Run `step` on the state `payload` and return the next state, exactly once per (run, step no.)."""
    state = RunState.model_validate(payload)
    memory = RunControl(ctx.memory, state.run_id, state.options.ttl_seconds)
    done = memory.step_output(state.step)
    if done is not None:
        return done
    if step in CANCELLABLE and memory.cancel_requested():
        result = state.advanced(cancelled=True)
    else:
        result = step_function(step)(state, ctx)
    return memory.save_step_output(state.step, result.dump())
