"""A knowing bound: the default strategy with a planner that knows the photo web itself.

    python scripts/bench_knowing.py --world ../shared/data/worlds/cast.G.txt --tiers famous=60,known=100
    python scripts/bench_knowing.py --world ../shared/data/worlds/cast.G.txt --web clean --tiers uniform=200
    python scripts/bench_knowing.py --world ../shared/data/worlds/cast.G.txt --stream 90 --stream-seeds 1 2 3
    python scripts/bench_knowing.py --world ../shared/data/worlds/cast.G.txt --tiers famous=60 --precision 0.5

`--web`: the realistic web (the default, as `visual-degrees bench`) or the clean one; `--tiers`: the
pairs, drawn as `visual-degrees bench --tier T --sample N --seed S` draws them (scripts/bench_webs.py).
One JSON line of figures per tier. `--stream N --stream-seeds S…`: instead of tiers, the 90-question
streams of `visual-degrees bench --stream N --seed S` (one memory and evidence graph a stream, every
run from the same simulated date), one JSON line a stream with its cost by tens and last-30 ratio.
`--variant NAME`: a realistic web with some figures moved (bench/web_variants.py, as
`scripts/bench_webs.py run --variant NAME`).

The simulated planner normally remembers credits (who was in which film), as a language model
might; here it is replaced by one whose "co-stars" of a person are exactly the people some photo
provably shows with them (the simulator's ground truth). Everything else is the real run: the same
states, budgets, searches, recognitions and evidence rule. So the figure says what the strategy does
with perfect knowledge of whom to try, not what any real planner could know: a bound for the policy,
not for the problem (a strategy searching more cleverly could still beat it).

`--precision P` instead keeps the simulated planner's memory of credits (`--planner-recall`, default
1.0) and has it forget a share P of the co-stars no photo shows it with: what a planner whose hunches
are more often photos would be worth (P = 0 is the default planner, P = 1 one that names only
co-stars some photo shows, fewer than the knowing planner names).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench_webs import tiers

from visual_degrees_tools.bench import Bench, BenchConfig, Truth, machine_state, sample_pairs
from visual_degrees_tools.bench.knowing import Knowing
from visual_degrees_tools.bench.stream import stream_figures, stream_pairs
from visual_degrees_tools.bench.web_variants import add_variant_option, chosen_web
from visual_degrees_tools.local.environments import SandboxEnvironment
from visual_degrees_tools.sandbox import load_world
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


def share(text: str) -> float:
    """A share from 0 to 1 (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, not {text[:20]!r}")
    return value


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--world", type=Path, required=True)
    parser.add_argument("--web", choices=WEB_NAMES, default=DEFAULT_WEB)
    parser.add_argument("--tiers", default="uniform=200", help="tier=pairs,… (default uniform=200)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--stream", type=int, help="questions a stream (instead of --tiers)")
    parser.add_argument("--stream-seeds", type=int, nargs="+", default=[1])
    parser.add_argument(
        "--precision",
        type=share,
        help="the simulated planner, forgetting this share (0..1) of the co-stars no photo shows",
    )
    parser.add_argument("--planner-recall", type=share, default=1.0, help="with --precision (default 1.0)")
    add_variant_option(parser)
    args = parser.parse_args()
    # A stream's runs all start at the same simulated date, as `bench --stream` runs them.
    web, label = chosen_web(load_world(args.world), args.web, args.variant)
    environment = SandboxEnvironment(web, dated=args.stream is None, planner_recall=args.planner_recall)
    bench = Bench(Knowing(environment, args.precision), Truth(environment.web))  # type: ignore[arg-type]
    planner = (
        {"planner": "knowing"}
        if args.precision is None
        else {"planner": "precise", "precision": args.precision, "planner_recall": args.planner_recall}
    )
    if args.stream is not None:
        for seed in args.stream_seeds:
            result = bench.run(
                stream_pairs(environment.web, args.stream, seed), BenchConfig(shared_memory=True)
            )
            figures = {k: result.figures[k] for k in KEYS} | stream_figures(result.records)
            shown = {"world": args.world.name, "web": label, "stream": args.stream, "seed": seed} | planner
            print(json.dumps(shown | figures | {"machine": machine_state()}), flush=True)
        return 0
    for tier, count in tiers(args.tiers):
        pairs = sample_pairs(environment.web, count, args.seed, tier)
        figures = bench.run(pairs, BenchConfig()).figures
        shown = {"world": args.world.name, "web": label, "tier": tier, "seed": args.seed} | planner
        print(json.dumps(shown | {k: figures[k] for k in KEYS} | {"machine": machine_state()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
