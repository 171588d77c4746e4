"""Running every step twice: what Step Functions does when it retries a Lambda that timed out."""

from __future__ import annotations

from typing import Any

from visual_degrees.domain.models import RunState
from visual_degrees.steps import execute
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory


class Twice:
    """Every step executed twice, optionally forgetting the memoised output in between."""

    def __init__(self, memory: SqliteMemory, forget: bool) -> None:
        self.memory, self.forget = memory, forget

    def __call__(self, step: str, payload: dict, ctx: Any) -> dict:
        first = execute(step, payload, ctx)
        if self.forget:
            state = RunState.model_validate(payload)
            self.memory.delete(f"run#{state.run_id}", f"step#{state.step:05d}")
        second = execute(step, payload, ctx)
        assert second == first
        return second
