"""Domain models shared by steps, ports and adapters. JSON field names are camelCase on the wire."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic.alias_generators import to_camel

from visual_degrees.domain.errors import InvalidInput
from visual_degrees.domain.names import name_key
from visual_degrees.domain.photo_event import MAX_EVENT_CHARS, photo_event
from visual_degrees.domain.shown_text import shown_text
from visual_degrees.domain.strategy import Knobs, Strategy, with_changes


class Model(BaseModel):
    """camelCase on the wire, snake_case in Python; unknown fields rejected at every boundary."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


class Person(Model):
    key: str
    name: str

    @classmethod
    def of(cls, name: str) -> Person:
        return cls(key=name_key(name), name=name)


# ---- what the providers return -------------------------------------------------------------


# A title longer than this is cut: agency captions run to a few hundred characters, and a title is
# stored with every page read and read for names, so one from a hostile page must stay small.
MAX_TITLE_CHARS = 600


class ImageHit(Model):
    image_url: str
    page_url: str = ""
    title: str = ""

    @field_validator("title")
    @classmethod
    def _cut(cls, title: str) -> str:
        return title[:MAX_TITLE_CHARS]


class FetchedImage(Model):
    url: str
    data: bytes = Field(repr=False)
    content_type: str
    sha256: str
    width: int = 0
    height: int = 0


class BoundingBox(Model):
    """Fractions of the image, as Rekognition reports them."""

    left: float = 0.0
    top: float = 0.0
    width: float = 0.0
    height: float = 0.0


class Face(Model):
    name: str
    celebrity_id: str
    confidence: float  # 0..100, Rekognition's MatchConfidence
    box: BoundingBox = Field(default_factory=BoundingBox)

    @property
    def key(self) -> str:
        return name_key(self.name)


# ---- evidence and results --------------------------------------------------------------------


class Evidence(Model):
    """One photo proving that two people appeared together. `event`: where the photo was taken, as
    its title names it (domain/photo_event.py); read from the title when not given, so evidence kept
    before events were shown names one too. None: the title names none."""

    image_url: str
    page_url: str = ""
    title: str = ""
    event: str | None = None
    sha256: str = ""
    query: str = ""
    confidence_a: float
    confidence_b: float
    id_a: str = ""
    id_b: str = ""
    box_a: BoundingBox | None = None
    box_b: BoundingBox | None = None
    # Set on a link read from the deployment's evidence graph: when an earlier run proved it.
    proven_at: str | None = None
    earlier_run: bool = False
    # Set once this run fetched such a link's photo again and found it unchanged (search/answer_chain.py).
    rechecked: bool = False

    @model_validator(mode="before")
    @classmethod
    def _event_from_title(cls, data: Any) -> Any:
        if isinstance(data, dict) and "event" not in data and isinstance(data.get("title"), str):
            return {**data, "event": photo_event(data["title"])}
        return data

    @field_validator("event")
    @classmethod
    def _shown(cls, event: str | None) -> str | None:
        return None if event is None else shown_text(event, MAX_EVENT_CHARS)

    @model_serializer(mode="wrap")
    def _rechecked_when_it_applies(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Only a reused link is re-checked: evidence the run proved itself is stored and sent as before.
        data: dict[str, Any] = handler(self)
        if not self.rechecked:
            data.pop("rechecked", None)
        return data

    @property
    def strength(self) -> float:
        """An image proves an edge only as well as its weaker face."""
        return min(self.confidence_a, self.confidence_b)

    @property
    def shown(self) -> bool:
        """Proven by this run, or reused and its photo re-checked by it: only such a link is shown to
        a user (getGraph, a graph summary, a chain) or claimed."""
        return not self.earlier_run or self.rechecked


class Edge(Model):
    """A verified co-appearance between `a` and `b` (person keys), with its best photo."""

    a: str
    b: str
    name_a: str
    name_b: str
    evidence: Evidence

    @property
    def confidence(self) -> float:
        return self.evidence.strength

    def oriented(self, first: str) -> Edge:
        """The same edge read from `first`'s side (swaps a/b and the evidence's halves)."""
        if first == self.a:
            return self
        ev = self.evidence
        swapped = ev.model_copy(
            update={
                "confidence_a": ev.confidence_b,
                "confidence_b": ev.confidence_a,
                "id_a": ev.id_b,
                "id_b": ev.id_a,
                "box_a": ev.box_b,
                "box_b": ev.box_a,
            }
        )
        return Edge(a=self.b, b=self.a, name_a=self.name_b, name_b=self.name_a, evidence=swapped)


EventType = Literal[
    "run_started",
    "run_continued",
    "status",
    "evidence",
    "path_update",
    "final",
    "no_path",
    "cancelled",
    "error",
]


class RunEvent(Model):
    run_id: str
    seq: int
    type: EventType
    ts: str
    data: dict[str, Any] = Field(default_factory=dict)


# ---- run configuration and the execution payload --------------------------------------------

# The two sides of a run: everyone a search has tied to A, and everyone tied to B.
Side = Literal["A", "B"]


def other_side(side: Side) -> Side:
    return "B" if side == "A" else "A"


# How long a run's memory lives (RunOptions.ttl_seconds): the one default every reader falls back on.
DEFAULT_TTL_SECONDS = 1800


class Budgets(Model):
    """What a run (or one continuation of it) may spend. A continuation may ask for no search at all
    (it goes on from what it holds); a run's start needs START_MINIMUM."""

    searches: int = Field(default=20, ge=0, le=10_000)
    recognitions: int = Field(default=120, ge=0, le=100_000)
    llm_calls: int = Field(default=12, ge=0, le=1_000)
    runtime_seconds: float = Field(default=120.0, gt=0, le=3_600)
    # Once a chain is proven, what looking for a shorter one may spend, as a share of what the run
    # spent so far (search/shortening); 0: answer with the first chain proven.
    shorten_share: float = Field(default=0.25, ge=0, le=1)
    # ... and the least it may spend whatever that share comes to, in US dollars: an answer read from
    # the evidence graph cost nothing, so a share of it is nothing (0: the share alone).
    shorten_min_usd: float = Field(default=0.0, ge=0, le=0.1)


# The least a run's first step (S1) needs to do anything, by wire name, and why: one search for A and
# B together, and one recognition of a photo it finds; a search, an image download and a recognition
# take 1.5 s in the sandbox's latency model (modelled on the providers', sandbox/clock.py) and
# seconds live, so a start with less time than this would pay for a search it cannot use.
START_MINIMUM: dict[str, tuple[float, str, str]] = {
    "searches": (1, "", "its first step searches for A and B together"),
    "recognitions": (1, "", "its first step recognises the photos that search finds"),
    "runtimeSeconds": (5.0, " seconds", "a search, an image download and a recognition take seconds"),
}


class RunOptions(Model):
    max_hops: int = Field(default=6, ge=1, le=10)
    images_per_search: int = Field(default=5, ge=1, le=20)
    threshold: float = Field(default=80.0, ge=50.0, le=100.0)
    ttl_seconds: int = Field(default=DEFAULT_TTL_SECONDS, ge=60, le=86_400)
    budgets: Budgets = Field(default_factory=Budgets)
    strategy: Strategy = "default"
    # Knobs of the strategy switched for this run (ablations: `{"both_ends": false}`); empty in
    # production. Validated against the strategy here, resolved per step by search/strategies.
    knobs: dict[str, bool] = Field(default_factory=dict, max_length=32)
    # A person the user believes connects A and B (a hint: a lead checked first, never a link).
    # Its name rules are domain/requests.validate_hint's, checked where the run is asked for.
    via: str | None = Field(default=None, max_length=1000)

    @model_validator(mode="after")
    def _knobs_fit_the_strategy(self) -> RunOptions:
        try:
            with_changes(self.strategy, self.knobs)
        except InvalidInput as exc:
            raise ValueError(exc.message) from None
        if self.via is not None and self.strategy == "seed":
            raise ValueError("via is a hint for the default strategy; the seed strategy takes none")
        return self

    @model_serializer(mode="wrap")
    def _without_default_knobs(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A run with the strategy as it stands stores and sends exactly what it did before knobs
        # (and hints) were options: the field appears only when something is switched (or named).
        data: dict[str, Any] = handler(self)
        if not self.knobs:
            data.pop("knobs", None)
        if self.via is None:
            data.pop("via", None)
        return data

    def resolved_knobs(self) -> Knobs:
        """The strategy's knobs with this run's switches (the run's search strategy keeps them)."""
        return with_changes(self.strategy, self.knobs)


class RunState(Model):
    """The Step Functions payload: small (< 8 KB) by design. Everything unbounded lives in run memory.

    Choice states read the flags below; steps set them. `step` numbers every Task invocation so a
    retried step can recognise work it already did; a continuation (`segment` 1, 2, …: a new
    execution over the same run) counts on from the run's last step, never reusing a number.
    """

    run_id: str
    person_a: Person
    person_b: Person
    options: RunOptions = Field(default_factory=RunOptions)
    step: int = 0
    segment: int = Field(default=0, ge=0)
    started_at: float = 0.0  # when this segment started (the runtime budget counts from here)
    # Search position. `hop` is the frontier's depth (edges from its root); a bridge from the frontier
    # adds one more edge, so expansion may continue only while hop < hop_ceiling = max_hops - 1.
    hop: int = 0
    hop_ceiling: int = 5
    side: Side = "A"
    frontier: str | None = None
    path: list[str] = Field(default_factory=list)
    selected: str | None = None
    round: int = 0
    # Flags the Choice states route on.
    reached: bool = False
    verified: bool = False
    candidates_found: bool = False
    candidates_left: bool = False
    discovery_exhausted: bool = False
    budget_exhausted: bool = False
    exhausted: str | None = None
    cancelled: bool = False
    # Written by the state machine itself: Pass states name the limit; Catch stores the error here.
    stop_reason: str | None = None
    error: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _ceiling_follows_options(self) -> RunState:
        self.hop_ceiling = self.options.max_hops - 1
        return self

    def end(self, side: Side) -> Person:
        """The end a side grows from: A for A's side, B for B's."""
        return self.person_a if side == "A" else self.person_b

    def far_end(self, side: Side | None = None) -> Person:
        """The end a side is searching towards (default: the frontier's side): B for A's side."""
        return self.end(other_side(side or self.side))

    def advanced(self, **changes: Any) -> RunState:
        """The next state: the step counter moves on; per-step flags reset unless given."""
        base = {"verified": False, **changes, "step": self.step + 1}
        return self.model_copy(update=base)
