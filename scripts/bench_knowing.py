"""A knowing bound: the default strategy with a planner that knows the photo web itself.

    python scripts/bench_knowing.py --world ../shared/data/worlds/cast.G.txt --tiers famous=60,known=100
    python scripts/bench_knowing.py --world ../shared/data/worlds/cast.G.txt --web clean --tiers uniform=200

`--web`: the realistic web (the default, as `visual-degrees bench`) or the clean one; `--tiers`: the
pairs, drawn as `visual-degrees bench --tier T --sample N --seed S` draws them (scripts/bench_webs.py).
One JSON line of figures per tier.

The simulated planner normally remembers credits (who was in which film), as a language model
might; here it is replaced by one whose "co-stars" of a person are exactly the people some photo
provably shows with them (the simulator's ground truth). Everything else is the real run: the same
states, budgets, searches, recognitions and evidence rule. So the figure says what the strategy does
with perfect knowledge of whom to try, not what any real planner could know: a bound for the policy,
not for the problem (a strategy searching more cleverly could still beat it).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench_webs import tiers

from visual_degrees_tools.bench import Bench, BenchConfig, Truth, machine_state, sample_pairs
from visual_degrees_tools.local.environments import SandboxEnvironment, sandbox_environment
from visual_degrees_tools.local.runner import RunEnvironment
from visual_degrees_tools.sandbox.ground_truth import ground_truth
from visual_degrees_tools.sandbox.knowledge import Knowledge
from visual_degrees_tools.sandbox.planner import SimulatedPlanner
from visual_degrees_tools.sandbox_options import DEFAULT_WEB, WEB_NAMES

KEYS = (
    "pairs",
    "solvable",
    "solved",
    "solved_unsolvable",
    "success_rate",
    "false_paths",
    "mean_cost_usd",
    "mean_cost_usd_solved",
    "mean_search_calls",
    "mean_recognition_calls",
    "mean_llm_calls",
    "mean_path_excess",
)


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


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--world", type=Path, required=True)
    parser.add_argument("--web", choices=WEB_NAMES, default=DEFAULT_WEB)
    parser.add_argument("--tiers", default="uniform=200", help="tier=pairs,… (default uniform=200)")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    environment = sandbox_environment(args.world, web=args.web)
    bench = Bench(Knowing(environment), Truth(environment.web))  # type: ignore[arg-type]
    for tier, count in tiers(args.tiers):
        pairs = sample_pairs(environment.web, count, args.seed, tier)
        figures = bench.run(pairs, BenchConfig()).figures
        shown = {"world": args.world.name, "web": args.web, "tier": tier, "seed": args.seed}
        print(json.dumps(shown | {k: figures[k] for k in KEYS} | {"machine": machine_state()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
