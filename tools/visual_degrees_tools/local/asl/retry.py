"""Retry and Catch: error matching, backoff arithmetic and their validation.

Matching follows the Step Functions documentation: `States.ALL` matches every error except the
terminal ones (States.Runtime, States.DataLimitExceeded); `States.TaskFailed` matches every error
except those and States.Timeout; any other name matches itself. Only the first retrier whose
ErrorEquals matches applies; when its attempts are spent, the catchers are tried in order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from visual_degrees_tools.local.asl.errors import (
    STATES_ALL,
    TASK_FAILED,
    TERMINAL_ERRORS,
    TIMEOUT,
    AslDefinitionError,
    UnsupportedAslFeature,
)
from visual_degrees_tools.local.asl.paths import ReferencePath, parse_optional_path

_MAX_INTERVAL = 99_999_999
_MAX_ATTEMPTS = 99_999_999
_MAX_DELAY = 31_622_400


def error_matches(error_equals: tuple[str, ...], error: str) -> bool:
    if error in TERMINAL_ERRORS:
        return False
    if error in error_equals:
        return True
    if STATES_ALL in error_equals:
        return True
    return TASK_FAILED in error_equals and error != TIMEOUT


@dataclass(frozen=True, slots=True)
class Retrier:
    error_equals: tuple[str, ...]
    interval_seconds: int = 1
    max_attempts: int = 3
    backoff_rate: float = 2.0
    max_delay_seconds: int | None = None
    full_jitter: bool = False

    def delay(self, retry: int, rng: random.Random) -> float:
        """Seconds to wait before retry number `retry` (0 for the first retry)."""
        seconds = self.interval_seconds * self.backoff_rate**retry
        if self.max_delay_seconds is not None:
            seconds = min(seconds, self.max_delay_seconds)
        return rng.uniform(0.0, seconds) if self.full_jitter else float(seconds)


@dataclass(frozen=True, slots=True)
class Catcher:
    error_equals: tuple[str, ...]
    next: str
    result_path: ReferencePath | None


def _error_equals(block: dict[str, Any], where: str, *, last: bool) -> tuple[str, ...]:
    names = block.get("ErrorEquals")
    if not isinstance(names, list) or not names or not all(isinstance(name, str) for name in names):
        raise AslDefinitionError(f"{where}: 'ErrorEquals' must be a non-empty list of error names")
    if STATES_ALL in names and (len(names) > 1 or not last):
        raise AslDefinitionError(f"{where}: 'States.ALL' must appear alone and in the last entry")
    return tuple(names)


def _integer(block: dict[str, Any], field: str, where: str, low: int, high: int, default: int) -> int:
    value = block.get(field, default)
    if type(value) is not int or not low <= value <= high:
        raise AslDefinitionError(f"{where}: {field!r} must be an integer from {low} to {high}, got {value!r}")
    return value


def _entries(value: Any, field: str, where: str) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise AslDefinitionError(f"{where}: {field!r} must be a list of objects")
    return value


def parse_retry(value: Any, where: str) -> tuple[Retrier, ...]:
    blocks = _entries(value, "Retry", where)
    retriers = []
    for index, block in enumerate(blocks):
        at = f"{where}, Retry[{index}]"
        known = {"ErrorEquals", "IntervalSeconds", "MaxAttempts", "BackoffRate", "MaxDelaySeconds"}
        unknown = set(block) - known - {"JitterStrategy", "Comment"}
        if unknown:
            raise UnsupportedAslFeature(f"{at}: field(s) {', '.join(sorted(unknown))} not supported")
        backoff = block.get("BackoffRate", 2.0)
        if type(backoff) not in (int, float) or backoff < 1.0:
            raise AslDefinitionError(f"{at}: 'BackoffRate' must be a number >= 1.0, got {backoff!r}")
        jitter = block.get("JitterStrategy", "NONE")
        if jitter not in ("FULL", "NONE"):
            raise AslDefinitionError(f"{at}: 'JitterStrategy' must be FULL or NONE, got {jitter!r}")
        retriers.append(
            Retrier(
                error_equals=_error_equals(block, at, last=index == len(blocks) - 1),
                interval_seconds=_integer(block, "IntervalSeconds", at, 1, _MAX_INTERVAL, 1),
                max_attempts=_integer(block, "MaxAttempts", at, 0, _MAX_ATTEMPTS, 3),
                backoff_rate=float(backoff),
                max_delay_seconds=(
                    None
                    if "MaxDelaySeconds" not in block
                    else _integer(block, "MaxDelaySeconds", at, 1, _MAX_DELAY, 1)
                ),
                full_jitter=jitter == "FULL",
            )
        )
    return tuple(retriers)


def parse_catch(value: Any, where: str) -> tuple[Catcher, ...]:
    blocks = _entries(value, "Catch", where)
    catchers = []
    for index, block in enumerate(blocks):
        at = f"{where}, Catch[{index}]"
        unknown = set(block) - {"ErrorEquals", "Next", "ResultPath", "Comment"}
        if unknown:
            raise UnsupportedAslFeature(f"{at}: field(s) {', '.join(sorted(unknown))} not supported")
        if not isinstance(block.get("Next"), str):
            raise AslDefinitionError(f"{at}: a catcher needs a 'Next' state name")
        catchers.append(
            Catcher(
                error_equals=_error_equals(block, at, last=index == len(blocks) - 1),
                next=block["Next"],
                result_path=parse_optional_path(block, "ResultPath", at),
            )
        )
    return tuple(catchers)
