"""Run an investigation on one machine: the state machine file on the local engine, each Task's step
in-process, run memory in SQLite (or any Memory), events to any sink, the execution history kept for
`visual-degrees trace`. A run that stopped on a budget can be continued: a new execution over the
same run (lifecycle/continuation.py), recorded beside the first.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from visual_degrees.adapters.pacing import paced
from visual_degrees.constants import STATE_TASKS
from visual_degrees.domain.costs import DEFAULT_COSTS, CostTable
from visual_degrees.domain.errors import RunNotFound
from visual_degrees.domain.ids import execution_name, new_run_id
from visual_degrees.domain.models import DEFAULT_TTL_SECONDS, RunEvent, RunOptions, RunState
from visual_degrees.domain.outcomes import BY_EVENT, TERMINAL_EVENTS, Outcome
from visual_degrees.domain.requests import parse_options, validate_pair
from visual_degrees.lifecycle import continuation
from visual_degrees.lifecycle.call_tickets import call_ticket
from visual_degrees.lifecycle.context import CacheTally, Providers, StepContext
from visual_degrees.lifecycle.event_log import EventLog
from visual_degrees.lifecycle.evidence_graph import MemoryGraphStore
from visual_degrees.lifecycle.run_memory import RunControl
from visual_degrees.ports import Clock, EventSink, GraphStore, Memory, RateLimiter
from visual_degrees.settings import load_settings
from visual_degrees.steps import execute
from visual_degrees_tools.local.asl.definition import load_definition
from visual_degrees_tools.local.asl.engine import Execution, LocalEngine
from visual_degrees_tools.local.executions import ExecutionStore


@dataclass
class RunEnvironment:
    """What one run runs against: providers bound to a clock, and how waiting and transitions pass.
    With a `limiter`, the run's paid calls are paced by it (shared by every run of the process)."""

    providers: Providers
    clock: Clock
    sleep: Callable[[float], object] = time.sleep
    on_transition: Callable[[str], object] | None = None
    web: str = "live web"  # what `trace` lists as the run's world: a world file's name, or the live web
    simulated: bool = False  # the clock is the sandbox's: times in the history are simulated
    # What the run's execution record keeps to make this photo web again (`run --continue`, `show`'s
    # command to start again): the world file, seed and faults of a sandbox web.
    recorded: dict[str, Any] = field(default_factory=dict)
    limiter: RateLimiter | None = None


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
        graph: GraphStore | None = None,
    ) -> None:
        self.memory = memory
        # The evidence graph lives in the same store as run memory, kept as long as VD_GRAPH_RETENTION_DAYS.
        self.graph = graph or MemoryGraphStore(memory, retention_days=load_settings().graph_retention_days)
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
        recorded: dict[str, Any] | None = None,
    ) -> RunResult:
        """Validate, then run to the end. Bad input raises InvalidInput before anything is written.
        `recorded`: more facts for the run's execution record (how `run --continue` finds its world)."""
        a, b = validate_pair(person_a, person_b)
        opts = parse_options(options)
        initial = RunState(run_id=run_id or new_run_id(), person_a=a, person_b=b, options=opts)
        return self.execute(initial, sink=sink, recorded=recorded)

    def continue_run(
        self,
        run_id: str,
        *,
        budgets: dict[str, Any] | None = None,
        via: str | None = None,
        sink: EventSink | None = None,
        recorded: dict[str, Any] | None = None,
    ) -> RunResult:
        """Continue a run that stopped on a budget (lifecycle/continuation.py: RunNotFound,
        RunInProgress, NotContinuable or InvalidInput before anything is written), to its next end.
        `budgets`: this segment's, by wire name (default: the run's own again); `via`: a hint."""
        cont = continuation.prepare(self.memory, run_id, budgets=budgets, via=via, now=time.time())
        continuation.claim(self.memory, cont, at=time.time())
        continuation.announce(self.memory, sink, cont, at=time.time())
        return self.execute(cont.state, sink=sink, recorded=recorded)

    def execute(
        self, initial: RunState, *, sink: EventSink | None = None, recorded: dict[str, Any] | None = None
    ) -> RunResult:
        """Run the state machine from `initial` (a new run's first state, or a continuation's) to its
        end, and record its execution (named by execution_name)."""
        run_id, segment = initial.run_id, initial.segment
        name = execution_name(run_id, segment)
        env = self._environment(run_id)
        if segment and env.simulated:  # simulated time goes on from where the last segment ended
            meta = RunControl(self.memory, run_id, DEFAULT_TTL_SECONDS).meta()
            resumed_at = (meta.clock_at or 0.0) if meta is not None else 0.0
            if resumed_at > env.clock.now():
                env.sleep(resumed_at - env.clock.now())
        providers = env.providers
        if env.limiter is not None:
            deadline = time.time() + initial.options.budgets.runtime_seconds
            ticket = call_ticket(self.memory, initial, self._costs, deadline=deadline)
            providers = paced(providers, env.limiter, ticket)
        ctx = StepContext(
            providers=providers,
            memory=self.memory,
            clock=env.clock,
            sink=sink,
            costs=self._costs,
            graph=self.graph,
        )

        def invoke(resource: str, payload: dict[str, Any]) -> dict[str, Any]:
            return execute(self._step_of[resource], payload, ctx)

        engine = LocalEngine(
            self._definition, invoke, sleep=env.sleep, now=env.clock.now, on_transition=env.on_transition
        )
        before = EventLog(self.memory).last_seq(run_id)
        started_at = time.time()  # wall time, whatever clock the run itself keeps
        execution = engine.execute(initial.dump(), name=name)
        final = self.final_event(run_id)
        if final is not None and final.seq <= before:
            final = None  # the last segment's ending: this one ended without its own
        outcome: Outcome = BY_EVENT[final.type].outcome if final else "error"
        ExecutionStore(self.memory).save(
            name,
            execution.status,
            len(execution.visited),
            execution.history,
            ending=final,
            runId=run_id,
            segment=segment,
            personA=initial.person_a.name,
            personB=initial.person_b.name,
            options=initial.options.dump(),
            outcome=outcome,
            world=env.web,
            startedAt=started_at,
            clock="simulated" if env.simulated else "wall",
            **{**env.recorded, **(recorded or {})},
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
        return latest_ending(self.memory, run_id)


def latest_ending(memory: Memory, run_id: str) -> RunEvent | None:
    """The run's latest terminal event in its event log (None: none, or its memory has expired)."""
    for event in reversed(EventLog(memory).read(run_id)):
        if event.type in TERMINAL_EVENTS:
            return event
    return None
