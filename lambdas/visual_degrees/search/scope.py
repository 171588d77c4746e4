"""One step of one run as the search sees it: the run's scope (lifecycle/scope.py: memory, budget,
events, the journal, the ending) with the run's verified graph, who is who in it, and the rules its
strategy observes and keeps evidence by.

The search reaches the run's life only through this scope. It is built per step by the step (with
its strategy's `rules`), and read by the search core and the strategies alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from visual_degrees.domain.models import Face, Person, RunState
from visual_degrees.domain.strategy import Knobs
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.lifecycle.scope import RunScope
from visual_degrees.search.run_graph import RunGraph


@dataclass(frozen=True)
class Rules:
    """How a run observes and keeps evidence, as its strategy's knobs say (domain/strategy.py):
    the same for each of its decisions, whichever strategy makes them."""

    record_all_edges: bool  # every pair any photo shows joins the verified graph
    strong_confidence: float | None  # what one photo needs for its pair to join a chain (None: any)
    remember_edges: bool  # keep verified pairs for later runs, and look there first
    parallel_images: bool  # a search's images are fetched and recognised concurrently
    shared_cache: bool  # earlier runs' provider answers are used before paying
    skip_portraits: bool  # results titled as portraits of those searched are not recognised

    @classmethod
    def of(cls, knobs: Knobs) -> Rules:
        return cls(
            record_all_edges=knobs.record_all_edges,
            strong_confidence=knobs.strong_confidence,
            remember_edges=knobs.evidence_graph,
            parallel_images=knobs.parallel_images,
            shared_cache=knobs.shared_cache,
            skip_portraits=knobs.skip_portraits,
        )


class SearchScope(RunScope):
    def __init__(self, ctx: StepContext, state: RunState, rules: Rules) -> None:
        super().__init__(ctx, state)
        self.rules = rules
        self._graph: RunGraph | None = None
        self._pins: dict[str, str] = {}  # a pin never changes once written, so it may be cached
        self._names: dict[str, str] = {}

    @property
    def graph(self) -> RunGraph:
        """The run's verified graph, read once per step (see run_graph.py); `flush` writes it back."""
        if self._graph is None:
            self._graph = RunGraph(self.evidence)
        return self._graph

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
