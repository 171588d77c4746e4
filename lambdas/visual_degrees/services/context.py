"""What every step is given: the providers and the run-memory, event and clock ports.

Built once per process by a composition root (the local runner, a Lambda handler's cold start,
a test) and shared by all runs; per-run state lives in `RunScope`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from visual_degrees.domain.costs import DEFAULT_COSTS, CostTable
from visual_degrees.ports import (
    CelebrityRecognizer,
    Clock,
    EventSink,
    ImageFetcher,
    ImageSearch,
    Memory,
    Planner,
)


@dataclass
class Providers:
    search: ImageSearch
    fetcher: ImageFetcher
    recognizer: CelebrityRecognizer
    planner: Planner | None = None  # None: always the deterministic fallback
    # The photo web these providers observe ("live", or one sandbox world and seed). Evidence and
    # provider answers kept across runs belong to it: a photo of one web proves nothing in another.
    web: str = "live"


@dataclass
class StepContext:
    providers: Providers
    memory: Memory
    clock: Clock
    sink: EventSink | None = None
    costs: CostTable = field(default_factory=lambda: DEFAULT_COSTS)
