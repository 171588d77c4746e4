"""HandleError: a step failed for good. Emit a sanitised `error`: a stable code and a safe message,
never a stack trace or provider detail that could carry a secret."""

from __future__ import annotations

import json

from visual_degrees.domain import errors
from visual_degrees.domain.models import RunState
from visual_degrees.services.context import StepContext
from visual_degrees.services.scope import RunScope

MAX_MESSAGE = 300
# Our own exceptions carry messages written for clients; anything else gets a generic message.
_KNOWN = {
    cls.__name__: cls
    for cls in vars(errors).values()
    if isinstance(cls, type) and issubclass(cls, errors.VisualDegreesError)
}

# The Task's own timeout, and the function's (Lambda reports it as Sandbox.Timedout), once retries are spent.
_TIMEOUTS = frozenset({"States.Timeout", "Sandbox.Timedout"})


def describe(error: dict | None) -> tuple[str, str]:
    """(code, message) for the Catch payload {"Error", "Cause"}."""
    name = (error or {}).get("Error", "")
    if name in _KNOWN:
        try:
            message = str(json.loads((error or {}).get("Cause", "{}")).get("errorMessage", ""))
        except (ValueError, AttributeError):
            message = ""
        return _KNOWN[name].code, (message or name)[:MAX_MESSAGE]
    if name in _TIMEOUTS:
        return "step_timeout", "A step took longer than its time limit."
    return "internal_error", "A step failed unexpectedly; the run has stopped."


def run(state: RunState, ctx: StepContext) -> RunState:
    scope = RunScope(ctx, state)
    code, message = describe(state.error)
    scope.finish("error", {"code": code, "message": message}, code=code)
    return state.advanced()
