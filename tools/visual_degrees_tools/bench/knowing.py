"""A planner that knows the photo web itself, for bounds (benchmark-only: it reads ground truth).

The simulated planner normally remembers credits (who was in which film), as a language model
might; this one's "co-stars" of a person are exactly the people some photo provably shows with them.
Everything else is the real run, so a bench with it says what the strategy does with perfect
knowledge of whom to try: a bound for the policy, not for the problem.
"""

from __future__ import annotations

from visual_degrees_tools.local.environments import SandboxEnvironment
from visual_degrees_tools.local.runner import RunEnvironment
from visual_degrees_tools.sandbox.ground_truth import ground_truth
from visual_degrees_tools.sandbox.knowledge import Knowledge
from visual_degrees_tools.sandbox.planner import SimulatedPlanner


class PhotoKnowledge(Knowledge):
    """Knows every provable co-appearance, and the event it happened at (one of them)."""

    def __init__(self, environment: SandboxEnvironment) -> None:
        super().__init__(environment.web.world)
        self.graph = ground_truth(environment.web).provable_graph(80.0)

    def _costars(self, person: int) -> dict[int, int]:
        events = set(self.world.person_events[person])
        found = {}
        for other in self.graph.neighbors(person):
            shared = events.intersection(self.world.person_events[other])
            found[other] = min(shared) if shared else self.world.person_events[person][0]
        return found

    def confabulates(self, a: int, b: int) -> bool:
        return False


class Knowing:
    """A sandbox environment whose runs ask the knowing planner (Bench takes it as its environment)."""

    def __init__(self, environment: SandboxEnvironment) -> None:
        self.environment = environment
        self.web = environment.web
        self.knowledge = PhotoKnowledge(environment)

    def __call__(self, run_id: str) -> RunEnvironment:
        env = self.environment(run_id)
        planner = env.providers.planner
        assert isinstance(planner, SimulatedPlanner)
        planner.knowledge = self.knowledge
        return env
