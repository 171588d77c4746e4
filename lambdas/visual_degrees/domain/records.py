"""What a run keeps about itself in run memory, typed: its meta (one item: who, how it is going, how it
ended and where a continuation starts from), its spend, its segments, and where its search stands.

Each field is spelled once, here; the stored item is the model's JSON with the wire's camelCase
names, exactly the keys written so far (a field never written stays absent), so items written
before these models existed read back unchanged and a run in flight across a deploy keeps going.
Keys this version does not know are kept as they are (another version may have written them).
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from visual_degrees.domain.degrees import Shortening
from visual_degrees.domain.models import Budgets, EventType, Model, RunOptions, RunState, Side
from visual_degrees.domain.outcomes import RunStatus


class Stored(Model):
    """A record as run memory holds it: unknown keys kept, only the keys written stored."""

    model_config = ConfigDict(extra="allow")

    def stored(self) -> dict[str, Any]:
        """The item's JSON: the fields written (nested records whole) and the keys kept as found."""
        keep = self.model_fields_set | set(self.model_extra or {})
        return self.model_dump(mode="json", by_alias=True, include=keep)


class Usage(Model):
    """What a run spent, as its budget ledger sums it (every ending carries it as `usage`)."""

    searches: int = 0
    recognitions: int = 0
    llm_calls: int = 0
    llm_tokens_in: int = 0
    llm_tokens_out: int = 0
    cost_usd: float = 0.0
    failed_searches: int = 0
    # Calls a provider refused for its rate: never billed, so in no other count.
    throttled_searches: int = 0
    throttled_recognitions: int = 0
    throttled_llm_calls: int = 0

    def since(self, start: Usage | None) -> Usage:
        """What was spent since `start` (None: since nothing): every count less its start."""
        start = start or Usage()
        spent = {name: getattr(self, name) - getattr(start, name) for name in type(self).model_fields}
        return Usage(**{**spent, "cost_usd": round(spent["cost_usd"], 6)})


class Position(Model):
    """Where a search stands in the run's payload: the frontier, its side and depth (`hop`), the
    chain to it and its discovery round, and the candidate picked (`selected`). A run's ending keeps
    it (without the pick) so a continuation starts from there."""

    side: Side = "A"
    frontier: str | None = None
    hop: int = 0
    path: list[str] = Field(default_factory=list)
    round: int = 0
    selected: str | None = None

    @classmethod
    def of(cls, state: RunState) -> Position:
        return cls(
            side=state.side,
            frontier=state.frontier,
            hop=state.hop,
            path=list(state.path),
            round=state.round,
            selected=state.selected,
        )

    def moved(self, **changes: Any) -> Position:
        return self.model_copy(update=changes)

    def fields(self) -> dict[str, Any]:
        """As RunState's fields (snake_case), for `RunState.advanced`."""
        return {name: getattr(self, name) for name in type(self).model_fields}

    def carried(self) -> dict[str, Any]:
        """What a continuation starts from (the pick is made again)."""
        return self.model_dump(mode="json", by_alias=True, exclude={"selected"})


class Segment(Stored):
    """One segment of a run (its first execution, then each continuation): what it was given,
    what the run had spent when it began, and once it ended, what it spent, for how long and how."""

    segment: int
    budgets: Budgets = Field(default_factory=Budgets)
    via: str | None = None
    usage_at_start: Usage = Field(default_factory=Usage)
    started_at: float | None = None
    usage: Usage | None = None
    seconds: float | None = None
    outcome: EventType | None = None  # the terminal event it ended with


class RunMeta(Stored):
    """The run's meta item (`meta`): written when the run is created, updated as it goes and ends."""

    run_id: str | None = None
    person_a: str | None = None
    person_b: str | None = None
    options: RunOptions | None = None
    created_at: float | None = None
    status: RunStatus | None = None
    web: str | None = None  # the photo web the run observes (Providers.web)
    segment: int = 0  # the segment going, or the last one (0: the run was never continued)
    segments: list[Segment] = Field(default_factory=list)
    # What a continuation starts from: the last step number, where the search stood, the clock.
    last_step: int | None = None
    position: Position | None = None
    clock_at: float | None = None
    # How it ended: the chain's hops, the no_path reason, the error code, an end no photo showed.
    hops: int | None = None
    reason: str | None = None
    code: str | None = None
    unseen_end: str | None = None
    # What the search for a shorter chain did once a chain was proven (search/shortening).
    shortening: Shortening | None = None

    def updated(self, **changes: Any) -> RunMeta:
        """This meta with `changes` (field names), validated as the stored item would be."""
        written = self.model_dump(include=self.model_fields_set | set(self.model_extra or {}))
        return RunMeta.model_validate({**written, **changes})
