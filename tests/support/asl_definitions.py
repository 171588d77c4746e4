"""Small hand-written state machines and step doubles for the local ASL engine's unit tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def machine(states: dict[str, Any], start: str | None = None, **top_level: Any) -> dict[str, Any]:
    """A definition whose StartAt is `start`, else the first state."""
    return {"StartAt": start or next(iter(states)), "States": states, **top_level}


def task(resource: str = "fn", *, next_state: str | None = None, **fields: Any) -> dict[str, Any]:
    transition: dict[str, Any] = {"Next": next_state} if next_state else {"End": True}
    return {"Type": "Task", "Resource": resource, **transition, **fields}


def succeed() -> dict[str, Any]:
    return {"Type": "Succeed"}


class StepError(Exception):
    """A step failure with an explicit error name, as the domain's exceptions carry theirs."""

    def __init__(self, error_name: str, message: str = "it broke") -> None:
        super().__init__(message)
        self.error_name = error_name


class Steps:
    """An `invoke` double: per resource, a queue of results (dicts) or exceptions to raise; with
    nothing queued it echoes its payload. Records every call."""

    def __init__(self, **queued: list[Any]) -> None:
        self.queued = {resource: list(items) for resource, items in queued.items()}
        self.calls: list[tuple[str, Any]] = []
        self.before: Callable[[str, Any], None] | None = None

    def __call__(self, resource: str, payload: Any) -> Any:
        self.calls.append((resource, payload))
        if self.before is not None:
            self.before(resource, payload)
        pending = self.queued.get(resource)
        if not pending:
            return payload
        item = pending.pop(0)
        if isinstance(item, BaseException):
            raise item
        return item


class FakeClock:
    """`now` and `sleep` for the engine: sleeping advances the clock; `sleeps` records the waits."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.time = start
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self.time

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.time += seconds
