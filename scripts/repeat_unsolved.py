"""Asking again about pairs whose first run ended unsolved: what the repeat costs against the first.

    python scripts/repeat_unsolved.py --world ../../shared/data/worlds/cast.G.txt --sample 40 --seed 11

Draws `--sample` pairs (as `visual-degrees bench --sample N --seed S` does), runs each one on a
fresh memory, and for each that ended without a path asks the same question again on that memory
(the same photo web, nothing new asked). Prints one line per repeated pair and the totals: the
repeat's cost as a share of the first's, apart for runs that ended with nothing left to try (nothing
new to ask: the target is at most 10 %) and runs a budget ended (the repeat goes on past where the
first stopped, with a budget of its own, and pays for what is new).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from visual_degrees.domain.models import RunOptions
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.bench import Bench, sample_pairs
from visual_degrees_tools.local.environments import sandbox_environment
from visual_degrees_tools.sandbox_options import TIERS, WEB_NAMES


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=40)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--tier", choices=TIERS, default="uniform")
    parser.add_argument("--web", choices=WEB_NAMES, default="realistic")
    parser.add_argument("--json", action="store_true", help="the totals as one JSON object")
    args = parser.parse_args(argv)
    environment = sandbox_environment(args.world, web=args.web)
    bench = Bench(environment)
    # By how the first run ended: with nothing left to try (nothing new to ask: the repeat should
    # cost next to nothing), or on a budget (the repeat goes on past where it stopped, paying for that).
    totals_by: dict[str, list[float]] = {"nothing_left": [0.0, 0.0, 0], "budget": [0.0, 0.0, 0]}
    for pair in sample_pairs(environment.web, args.sample, args.seed, args.tier):
        memory = SqliteMemory(":memory:")
        try:
            first = bench.run_pair(pair, _options(), memory)
            if first.outcome == "path":
                continue
            again = bench.run_pair(pair, _options(), memory)
        finally:
            memory.close()
        sums = totals_by["budget" if first.reason == "budget" else "nothing_left"]
        sums[0] += first.cost_usd
        sums[1] += again.cost_usd
        sums[2] += 1
        print(
            f"{pair.label:60} first ${first.cost_usd:.4f} ({first.reason})  "
            f"again ${again.cost_usd:.4f} ({again.outcome}, {again.reason})",
            file=sys.stderr,
        )
    totals: dict[str, object] = {
        "world": str(args.world),
        "web": args.web,
        "pairs": args.sample,
        "sample_seed": args.seed,
        "tier": args.tier,
    }
    for kind, sums in totals_by.items():
        first_cost, again_cost, n = sums
        totals[f"{kind}_repeated"] = int(n)
        totals[f"{kind}_first_cost_usd"] = round(first_cost, 4)
        totals[f"{kind}_repeat_cost_usd"] = round(again_cost, 4)
        totals[f"{kind}_repeat_share"] = round(again_cost / first_cost, 4) if first_cost else None
    print(json.dumps(totals) if args.json else "\n".join(f"{k:20} {v}" for k, v in totals.items()))
    return 0


def _options() -> RunOptions:
    return RunOptions(strategy="default")


if __name__ == "__main__":
    sys.exit(main())
