"""One step of one run: its memory, budget, event emitter, identity rules and strategy in one place.

`knobs` are the run's own (its strategy with the switches its options name), resolved once here:
services ask the scope, never a module-level table, so runs with different strategies can share a
process (the local server, a warm Lambda, a benchmark) without seeing each other's choices.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from visual_degrees.domain.models import EventType, Face, Person, RunEvent, RunOptions, RunState
from visual_degrees.domain.strategy import Knobs
from visual_degrees.lifecycle.budget import Budget, Resource
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.lifecycle.continuation import POSITION_FIELDS, close_segment, segments_summary
from visual_degrees.lifecycle.endings import end_run
from visual_degrees.lifecycle.event_log import EventLog
from visual_degrees.lifecycle.run_memory import RunMemory, SharedMemory
from visual_degrees.search.run_graph import RunGraph

T = TypeVar("T")


class RunScope:
    def __init__(self, ctx: StepContext, state: RunState) -> None:
        self.ctx = ctx
        self.state = state
        self.options: RunOptions = state.options
        self.knobs: Knobs = state.options.resolved_knobs()
        ttl = state.options.ttl_seconds
        memory = RunMemory(ctx.memory, state.run_id, ttl)
        self.control, self.caches = memory.control, memory.caches
        self.frontier, self.evidence, self.leads = memory.frontier, memory.evidence, memory.leads
        self.budget = Budget(ctx.memory, state.run_id, state.options.budgets, ctx.costs, ttl)
        self.log = EventLog(ctx.memory, ctx.sink, ttl_seconds=ttl)
        self.shared = SharedMemory(ctx.memory, ctx.providers.web)
        self._emitted = 0
        self._graph: RunGraph | None = None
        self._pins: dict[str, str] = {}  # a pin never changes once written, so it may be cached
        self._names: dict[str, str] = {}

    @property
    def graph(self) -> RunGraph:
        """The run's verified graph, read once per step (see run_graph.py); `flush` writes it back."""
        if self._graph is None:
            self._graph = RunGraph(self.evidence)
        return self._graph

    # ---- events ------------------------------------------------------------------------------

    def emit(self, type_: EventType, data: dict[str, Any], *, key: str | None = None) -> RunEvent:
        """Append an event exactly once. Default key: this step's n-th event, stable across retries
        because a retried step replays the same decisions from its caches."""
        if key is None:
            self._emitted += 1
            key = f"s{self.state.step}.{self._emitted}"
        return self.log.append(self.state.run_id, key, type_, data, at=self.ctx.clock.now())

    def finish(self, type_: EventType, data: dict[str, Any], **meta: Any) -> RunEvent:
        """End the run's segment with its one terminal event (lifecycle/endings.py); `meta` joins
        its meta, with what a continuation would start from: the last step number, the search
        position, the clock, and the segment's spend (lifecycle/continuation.py). A continuation's
        ending also tells its segment, what the segment spent (`usage` is the run's total) and the
        spend of every segment so far."""
        state, now = self.state, self.ctx.clock.now()
        usage = data.get("usage") or self.budget.summary()
        segments, spent = close_segment(
            self.control.meta() or {},
            state.segment,
            budgets=self.options.budgets,
            usage=usage,
            seconds=now - state.started_at,
            outcome=type_,
        )
        data = {**data, "usage": usage}
        if state.segment:
            data.update(segment=state.segment, segmentUsage=spent, segments=segments_summary(segments))
        position = state.model_dump(mode="json", by_alias=True, include=set(POSITION_FIELDS))
        return end_run(
            self.ctx.memory,
            self.ctx.sink,
            state.run_id,
            self.options.ttl_seconds,
            type_,
            data,
            at=now,
            segment=state.segment,
            lastStep=state.step,
            position=position,
            clockAt=now,
            segments=segments,
            **meta,
        )

    def status(self, message: str, **extra: Any) -> RunEvent:
        return self.emit("status", {"message": message, "hop": self.state.hop, **extra})

    def decide(self, name: str, choose: Callable[[], T]) -> T:
        """A decision this step makes from memory it may change itself, journalled on first use so
        a re-run of the step (after a crash) replays it instead of seeing its own side effects."""
        return self.control.journal(self.state.step, name, choose)

    # ---- budgets -----------------------------------------------------------------------------

    def runtime_exceeded(self) -> bool:
        elapsed = self.ctx.clock.now() - self.state.started_at
        return elapsed > self.options.budgets.runtime_seconds

    def refusal(self, resource: Resource) -> str | None:
        """Reserve one unit before a paid call. None if granted, else the name of the spent budget."""
        if self.runtime_exceeded():
            return "runtime"
        return None if self.budget.reserve(resource) else resource

    # ---- identity ----------------------------------------------------------------------------

    def people(self, faces: list[Face]) -> dict[str, Face]:
        """Faces at or above the threshold, one per person key, consistent with pinned identities.

        The first accepted sighting of a name pins its celebrity id for the rest of the run; a face
        with the same name and another id (a namesake or lookalike) is never accepted afterwards.
        """
        accepted: dict[str, Face] = {}
        for face in sorted(faces, key=lambda f: -f.confidence):
            if face.confidence < self.options.threshold or not face.key or face.key in accepted:
                continue
            if self.pinned(face.key, face) == face.celebrity_id:
                accepted[face.key] = face
        return accepted

    def pinned(self, key: str, face: Face | None = None) -> str | None:
        """The celebrity id `key` is pinned to; with `face`, pin it to that face's id if nobody is."""
        pinned = self._pins.get(key) or self.evidence.pinned_id(key)
        if pinned is None and face is not None:
            pinned = self.evidence.pin(key, face.celebrity_id)
            self.evidence.remember_person(Person(key=key, name=face.name))
            self._names.setdefault(key, self.evidence.name_of(key) or face.name)
        if pinned is not None:
            self._pins[key] = pinned
        return pinned

    def agrees(self, key: str, celebrity_id: str, name: str) -> bool:
        """Whether `key` may be `celebrity_id` (pinning it if nobody is): evidence from another run
        is used only for the very people this run has seen, never for a namesake."""
        face = Face(name=name, celebrity_id=celebrity_id, confidence=100.0)
        return bool(celebrity_id) and self.pinned(key, face) == celebrity_id

    def person(self, key: str) -> Person:
        """A person by key with their display name (A and B are always known)."""
        for p in (self.state.person_a, self.state.person_b):
            if p.key == key:
                return p
        name = self._names.get(key)
        if name is None:
            name = self.evidence.name_of(key)
            if name is not None:  # a remembered name never changes; an unknown one may yet appear
                self._names[key] = name
        return Person(key=key, name=name or key)
