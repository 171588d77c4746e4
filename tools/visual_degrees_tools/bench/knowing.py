"""A planner that knows the photo web itself, for bounds (benchmark-only: it reads ground truth).

The simulated planner normally remembers credits (who was in which film), as a language model
might; this one's "co-stars" of a person are exactly the people some photo provably shows with them.
Everything else is the real run, so a bench with it says what the strategy does with perfect
knowledge of whom to try: a bound for the policy, not for the problem.

Between the two, a planner that remembers credits as the simulated one does but forgets a share of
the co-stars no photo shows it with (`precision`): what a model whose hunches are more often photos
would be worth, for a deployment choosing one.
"""

from __future__ import annotations

from visual_degrees_tools.local.environments import SandboxEnvironment
from visual_degrees_tools.local.runner import RunEnvironment
from visual_degrees_tools.sandbox.graph import Graph
from visual_degrees_tools.sandbox.ground_truth import ground_truth
from visual_degrees_tools.sandbox.hashing import stable_hash, unit
from visual_degrees_tools.sandbox.knowledge import Knowledge
from visual_degrees_tools.sandbox.planner import SimulatedPlanner


class PhotoKnowledge(Knowledge):
    """Knows every provable co-appearance, and the event it happened at (one of them)."""

    def __init__(self, environment: SandboxEnvironment) -> None:
        super().__init__(environment.web.world)
        self.graph = provable(environment)

    def _costars(self, person: int) -> dict[int, int]:
        events = set(self.world.person_events[person])
        found = {}
        for other in self.graph.neighbors(person):
            shared = events.intersection(self.world.person_events[other])
            found[other] = min(shared) if shared else self.world.person_events[person][0]
        return found

    def confabulates(self, a: int, b: int) -> bool:
        return False


class PreciseKnowledge(Knowledge):
    """The simulated planner's own memory of credits, less `precision` of the co-stars no photo
    provably shows with the person (each pair forgotten or not, deterministically), and confabulating
    that much less: at 0 today's planner, at 1 one whose every remembered co-star is a photo."""

    def __init__(self, base: Knowledge, graph: Graph, precision: float) -> None:
        super().__init__(base.world, model=base.model, photos=base.photos)
        self._seed = base._seed  # the same memory of credits as the planner it refines
        self.graph = graph
        self.precision = precision

    def _forgets(self, a: int, b: int) -> bool:
        return not self.graph.has_edge(a, b) and (
            unit(stable_hash("precise", self._seed, min(a, b), max(a, b))) < self.precision
        )

    def _costars(self, person: int) -> dict[int, int]:
        return {o: e for o, e in super()._costars(person).items() if not self._forgets(person, o)}

    def confabulates(self, a: int, b: int) -> bool:
        return super().confabulates(a, b) and not self._forgets(a, b)


def provable(environment: SandboxEnvironment) -> Graph:
    return ground_truth(environment.web).provable_graph(80.0)


class Knowing:
    """A sandbox environment whose runs ask the knowing planner (Bench takes it as its environment);
    with `precision`, the simulated planner refined by PreciseKnowledge instead."""

    def __init__(self, environment: SandboxEnvironment, precision: float | None = None) -> None:
        self.environment = environment
        self.web = environment.web
        self.precision = precision
        self.knowledge: Knowledge | None = PhotoKnowledge(environment) if precision is None else None

    def __call__(self, run_id: str) -> RunEnvironment:
        env = self.environment(run_id)
        planner = env.providers.planner
        assert isinstance(planner, SimulatedPlanner)
        if self.knowledge is None:  # built once, from the first run's planner (every run's is alike)
            assert self.precision is not None
            self.knowledge = PreciseKnowledge(planner.knowledge, provable(self.environment), self.precision)
        planner.knowledge = self.knowledge
        return env
