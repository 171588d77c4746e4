"""Asking the planner: bounded attempts, each reserved against the LLM budget, an unusable or
invalid answer fed back to the next attempt, the tokens of every attempt counted. The callers
(selection.py ranking candidates, matching.py matching the sides) only say what to ask and how to
validate the answer; anything short of a valid answer is None (they fall back). A throttled call is
given back to the budget and ends the asking (the pacing already retried it)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Protocol, TypeVar

from visual_degrees.domain.errors import (
    ConfigurationError,
    ProviderError,
    ProviderThrottled,
    TransientProviderError,
    VisualDegreesError,
)
from visual_degrees.services.scope import RunScope

T = TypeVar("T")
MAX_FEEDBACK = 300  # characters of an adapter's error message fed back to the planner


class Reply(Protocol):
    tokens_in: int
    tokens_out: int


R = TypeVar("R", bound=Reply)


def ask_with_feedback(
    scope: RunScope,
    attempts: int,
    call: Callable[[list[str]], R],
    validate: Callable[[R], tuple[T | None, list[str]]],
) -> T | None:
    feedback: list[str] = []
    for _ in range(attempts):
        if scope.refusal("llmCalls"):
            return None
        reservation = uuid.uuid4().hex
        try:
            reply = call(feedback)
        except ProviderThrottled:
            scope.budget.refund("llmCalls", reservation)
            return None
        except (ProviderError, TransientProviderError, ConfigurationError) as exc:
            scope.budget.record_llm_tokens(*spent_tokens(exc))
            feedback = [unusable_feedback(exc)]
            continue
        scope.budget.record_llm_tokens(reply.tokens_in, reply.tokens_out)
        result, feedback = validate(reply)
        if result is not None:
            return result
    return None


def unusable_feedback(exc: VisualDegreesError) -> str:
    """What the planner is told of an attempt whose answer could not be used: the error's code and
    the adapter's message (which names what was wrong, e.g. no JSON object with the reply's keys;
    messages never carry secrets)."""
    return f"the previous answer could not be used ({exc.code}): {exc.message}"[:MAX_FEEDBACK]


def spent_tokens(exc: Exception) -> tuple[int, int]:
    """The tokens an unusable attempt cost, where the adapter reported them on its error
    (`tokens_in` / `tokens_out`, as the live planners' UnusableAnswer does); else none."""
    counts = [getattr(exc, name, 0) for name in ("tokens_in", "tokens_out")]
    tokens_in, tokens_out = (
        c if isinstance(c, int) and not isinstance(c, bool) and c > 0 else 0 for c in counts
    )
    return tokens_in, tokens_out
