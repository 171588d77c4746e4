"""One step of one run as its life goes: its payload and options, its memory, budget and event log,
the journal of its decisions and the one writer of its ending.

The search sees a run through search/scope.SearchScope, which adds the verified graph and who is
who; nothing here knows how a run searches (its strategy and knobs are the search's).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from visual_degrees.domain.models import EventType, Model, RunEvent, RunOptions, RunState
from visual_degrees.domain.records import Position, RunMeta
from visual_degrees.lifecycle.budget import Budget, Resource
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.lifecycle.continuation import close_segment, segments_summary
from visual_degrees.lifecycle.endings import end_run
from visual_degrees.lifecycle.event_log import EventLog
from visual_degrees.lifecycle.evidence_graph import KnownLinks, MemoryGraphStore
from visual_degrees.lifecycle.run_memory import RunMemory, SharedMemory

T = TypeVar("T")
M = TypeVar("M", bound=Model)


class RunScope:
    def __init__(self, ctx: StepContext, state: RunState) -> None:
        self.ctx = ctx
        self.state = state
        self.options: RunOptions = state.options
        ttl = state.options.ttl_seconds
        memory = RunMemory(ctx.memory, state.run_id, ttl)
        self.control, self.caches = memory.control, memory.caches
        self.frontier, self.evidence, self.leads = memory.frontier, memory.evidence, memory.leads
        self.budget = Budget(ctx.memory, state.run_id, state.options.budgets, ctx.costs, ttl)
        self.log = EventLog(ctx.memory, ctx.sink, ttl_seconds=ttl)
        self.shared = SharedMemory(ctx.memory, ctx.providers.web)
        graph = ctx.graph or MemoryGraphStore(ctx.memory)
        self.known = KnownLinks(graph, ctx.providers.web, ctx.clock, state.run_id)
        self._emitted = 0

    # ---- events ------------------------------------------------------------------------------

    def emit(self, type_: EventType, data: dict[str, Any], *, key: str | None = None) -> RunEvent:
        """Append an event exactly once. Default key: this step's n-th event, stable across retries
        because a retried step replays the same decisions from its caches."""
        if key is None:
            self._emitted += 1
            key = f"s{self.state.step}.{self._emitted}"
        return self.log.append(self.state.run_id, key, type_, data, at=self.ctx.clock.now())

    def finish(self, type_: EventType, data: dict[str, Any], **meta: Any) -> RunEvent:
        """End the run's segment with its one terminal event (lifecycle/endings.py); `meta` (RunMeta
        fields) joins its meta, with what a continuation would start from: the last step number, the search
        position, the clock, and the segment's spend (lifecycle/continuation.py). A continuation's
        ending also tells its segment, what the segment spent (`usage` is the run's total) and the
        spend of every segment so far."""
        state, now = self.state, self.ctx.clock.now()
        usage = self.budget.usage()
        segments, spent = close_segment(
            self.control.meta() or RunMeta(),
            state.segment,
            budgets=self.options.budgets,
            usage=usage,
            seconds=now - state.started_at,
            outcome=type_,
        )
        data = {**data, "usage": usage.dump()}
        if state.segment:
            data.update(segment=state.segment, segmentUsage=spent.dump(), segments=segments_summary(segments))
        return end_run(
            self.ctx.memory,
            self.ctx.sink,
            state.run_id,
            self.options.ttl_seconds,
            type_,
            data,
            at=now,
            segment=state.segment,
            meta={
                "last_step": state.step,
                "position": Position.of(state).carried(),
                "clock_at": now,
                "segments": segments,
                **meta,
            },
        )

    def status(self, message: str, **extra: Any) -> RunEvent:
        return self.emit("status", {"message": message, "hop": self.state.hop, **extra})

    def decide(self, name: str, choose: Callable[[], T]) -> T:
        """A decision this step makes from memory it may change itself, journalled on first use so
        a re-run of the step (after a crash) replays it instead of seeing its own side effects."""
        return self.control.journal(self.state.step, name, choose)

    def decide_as(self, name: str, kind: type[M], choose: Callable[[], M | None]) -> M | None:
        """`decide` for a typed entry (domain/journal.py): journalled as its JSON, read back as one."""
        value = self.decide(name, lambda: None if (chosen := choose()) is None else chosen.dump())
        return None if value is None else kind.model_validate(value)

    # ---- budgets -----------------------------------------------------------------------------

    def runtime_exceeded(self) -> bool:
        elapsed = self.ctx.clock.now() - self.state.started_at
        return elapsed > self.options.budgets.runtime_seconds

    def refusal(self, resource: Resource) -> str | None:
        """Reserve one unit before a paid call. None if granted, else the name of the spent budget."""
        if self.runtime_exceeded():
            return "runtime"
        return None if self.budget.reserve(resource) else resource
