"""Run an investigation on one machine: the state machine file on the local engine, each Task's step
in-process, run memory in SQLite (or any Memory), events to any sink, the execution history kept for
`visual-degrees trace`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from visual_degrees.constants import STATE_TASKS
from visual_degrees.domain.costs import DEFAULT_COSTS, CostTable
from visual_degrees.domain.errors import RunNotFound
from visual_degrees.domain.ids import new_run_id
from visual_degrees.domain.models import DEFAULT_TTL_SECONDS, RunEvent, RunOptions, RunState
from visual_degrees.domain.outcomes import BY_EVENT, TERMINAL_EVENTS, Outcome
from visual_degrees.domain.requests import parse_options, validate_pair
from visual_degrees.local.asl.definition import load_definition
from visual_degrees.local.asl.engine import Execution, LocalEngine
from visual_degrees.local.executions import ExecutionStore
from visual_degrees.ports import Clock, EventSink, Memory
from visual_degrees.services.context import CacheTally, Providers, StepContext
from visual_degrees.services.event_log import EventLog
from visual_degrees.services.run_memory import RunControl
from visual_degrees.steps import execute


@dataclass
class RunEnvironment:
    """What one run runs against: providers bound to a clock, and how waiting and transitions pass."""

    providers: Providers
    clock: Clock
    sleep: Callable[[float], object] = time.sleep
    on_transition: Callable[[str], object] | None = None
    web: str = "live web"  # what `trace` lists as the run's world: a world file's name, or the live web
    simulated: bool = False  # the clock is the sandbox's: times in the history are simulated


@dataclass
class RunResult:
    run_id: str
    outcome: Outcome
    final: RunEvent | None
    execution: Execution
    cache_tally: CacheTally  # paid calls this run's caches answered instead


class LocalRunner:
    def __init__(
        self,
        memory: Memory,
        environment: Callable[[str], RunEnvironment],
        *,
        costs: CostTable = DEFAULT_COSTS,
        definition: dict[str, Any] | None = None,
    ) -> None:
        self.memory = memory
        self._environment = environment
        self._costs = costs
        self._definition = definition or load_definition()
        self._step_of = {f"${{{t.substitution}}}": t.step for t in STATE_TASKS}

    def run(
        self,
        person_a: object,
        person_b: object,
        options: RunOptions | dict[str, Any] | None = None,
        *,
        run_id: str | None = None,
        sink: EventSink | None = None,
    ) -> RunResult:
        """Validate, then run to the end. Bad input raises InvalidInput before anything is written."""
        a, b = validate_pair(person_a, person_b)
        opts = parse_options(options)
        run_id = run_id or new_run_id()
        env = self._environment(run_id)
        ctx = StepContext(
            providers=env.providers, memory=self.memory, clock=env.clock, sink=sink, costs=self._costs
        )

        def invoke(resource: str, payload: dict[str, Any]) -> dict[str, Any]:
            return execute(self._step_of[resource], payload, ctx)

        engine = LocalEngine(
            self._definition, invoke, sleep=env.sleep, now=env.clock.now, on_transition=env.on_transition
        )
        initial = RunState(run_id=run_id, person_a=a, person_b=b, options=opts)
        started_at = time.time()  # wall time, whatever clock the run itself keeps
        execution = engine.execute(initial.dump(), name=run_id)
        final = self.final_event(run_id)
        outcome: Outcome = BY_EVENT[final.type].outcome if final else "error"
        ExecutionStore(self.memory).save(
            run_id,
            execution.status,
            len(execution.visited),
            execution.history,
            personA=a.name,
            personB=b.name,
            outcome=outcome,
            world=env.web,
            startedAt=started_at,
            clock="simulated" if env.simulated else "wall",
        )
        return RunResult(
            run_id=run_id, outcome=outcome, final=final, execution=execution, cache_tally=ctx.cache_tally
        )

    def cancel(self, run_id: str) -> None:
        memory = RunControl(self.memory, run_id, DEFAULT_TTL_SECONDS)
        if memory.meta() is None:
            raise RunNotFound(f"no run {run_id!r}")
        memory.request_cancel(time.time())

    def events(self, run_id: str, from_seq: int = 1) -> list[RunEvent]:
        return EventLog(self.memory).read(run_id, from_seq)

    def final_event(self, run_id: str) -> RunEvent | None:
        for event in reversed(self.events(run_id)):
            if event.type in TERMINAL_EVENTS:
                return event
        return None
