"""What every step is given: the providers (ports.Providers) and the run-memory, event and clock ports.

Built by a composition root (the local runner, once per run; a Lambda handler, once per invocation
over clients kept for the warm container; a test); per-step state lives in `RunScope`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from visual_degrees.domain.costs import DEFAULT_COSTS, CostTable
from visual_degrees.ports import Clock, EventSink, GraphStore, Memory, Providers


@dataclass
class CacheTally:
    """Paid calls the caches answered instead, counted on one run's context for benchmarks and
    metrics (never part of the run's record: a retried step that re-reads its own cache adds to it)."""

    searches_in_run: int = 0
    searches_shared: int = 0
    recognitions_in_run: int = 0
    recognitions_shared: int = 0

    def add(self, other: CacheTally) -> None:
        self.searches_in_run += other.searches_in_run
        self.searches_shared += other.searches_shared
        self.recognitions_in_run += other.recognitions_in_run
        self.recognitions_shared += other.recognitions_shared


@dataclass
class StepContext:
    providers: Providers
    memory: Memory
    clock: Clock
    sink: EventSink | None = None
    costs: CostTable = field(default_factory=lambda: DEFAULT_COSTS)
    # The deployment's evidence graph (None: kept in `memory`, as `run` and `serve` keep it).
    graph: GraphStore | None = None
    # One per context: the local runner builds a context per run, a Lambda one per invocation.
    cache_tally: CacheTally = field(default_factory=CacheTally)
