"""What an engine did with a scripted run, read back from its GetExecutionHistory-shaped events, so
the local engine and moto's interpreter can be compared on equal terms.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tests.support.scripted_runs import ScriptedInvoke, ScriptedRun
from visual_degrees_tools.local.asl.definition import load_definition
from visual_degrees_tools.local.asl.engine import LocalEngine


@dataclass(frozen=True)
class Walk:
    status: str
    error: str | None
    cause: str | None
    states: tuple[str, ...]  # states entered, in order
    inputs: tuple[Any, ...]  # each entered state's input, parsed
    output: Any
    event_types: tuple[str, ...]  # every history event's type, in order


def walk_from_history(
    events: Iterable[Mapping[str, Any]], status: str, error: str | None, cause: str | None, output: Any
) -> Walk:
    events = list(events)
    entered = [
        event["stateEnteredEventDetails"] for event in events if event["type"].endswith("StateEntered")
    ]
    return Walk(
        status=status,
        error=error,
        cause=cause,
        states=tuple(details["name"] for details in entered),
        inputs=tuple(json.loads(details["input"]) for details in entered),
        output=output,
        event_types=tuple(event["type"] for event in events),
    )


class TopOfJitter(random.Random):
    """Draws the top of every range: a FULL-jitter wait is then its capped backoff, as on moto."""

    def uniform(self, a: float, b: float) -> float:
        return b


def run_locally(run: ScriptedRun, waits: list[float] | None = None) -> tuple[Walk, ScriptedInvoke]:
    """The run on the local engine with the packaged definition; the invoke tells what was left unplayed.

    Retry waits are appended to `waits` (at the top of their jitter range) instead of slept.
    """
    invoke = ScriptedInvoke(run)
    recorded = waits if waits is not None else []
    engine = LocalEngine(load_definition(), invoke, sleep=recorded.append, rng=TopOfJitter())
    execution = engine.execute(run.input, name=run.name)
    walk = walk_from_history(
        execution.history, execution.status, execution.error, execution.cause, execution.output
    )
    return walk, invoke
