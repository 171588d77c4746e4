"""The figures issue 2 asks for, for both strategies, each measured in a fresh process so that load
times and peak memory are that measurement's alone.

    python scripts/bench_figures.py                 # cast.G: 100 pairs (seed 11); load: cast.G, movies
    python scripts/bench_figures.py --out /tmp/fig

Figures: runs that found a path (all checked true against the simulator), pairs with a provable path
of at most 6 hops, mean paid calls and dollars per run, median CPU per run (world loading excluded),
world load time (world file + photo web: what `visual-degrees run --world …` pays before its first
step), the ground-truth graph's build time (benchmarks only), and peak memory (max RSS).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

WORLDS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "worlds"


def peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def measure_load(world: Path) -> dict[str, Any]:
    from visual_degrees_tools.sandbox import PhotoWeb, load_world

    started = time.perf_counter()
    loaded = load_world(world)
    read = time.perf_counter()
    web = PhotoWeb(loaded, 0)
    built = time.perf_counter()
    return {
        "world": world.name,
        "people": loaded.size,
        "events": len(loaded.titles),
        "photos": web.photo_count,
        "load_world_s": round(read - started, 3),
        "photo_web_s": round(built - read, 3),
        "world_load_s": round(built - started, 3),
        "peak_rss_mb": peak_rss_mb(),
    }


def measure_bench(world: Path, strategy: str, sample: int, seed: int) -> dict[str, Any]:
    from visual_degrees_tools.bench import Bench, BenchConfig, Truth, sample_pairs
    from visual_degrees_tools.local.environments import sandbox_environment

    started = time.perf_counter()
    environment = sandbox_environment(world)
    loaded = time.perf_counter()
    truth = Truth(environment.web)
    truth_built = time.perf_counter()
    pairs = sample_pairs(environment.web, sample, seed)
    result = Bench(environment, truth).run(pairs, BenchConfig(strategy=strategy))  # type: ignore[arg-type]
    records = result.records
    figures = result.figures
    return {
        "strategy": strategy,
        "pairs": figures["pairs"],
        "paths_found": sum(r.outcome == "path" for r in records),
        "paths_true": sum(r.outcome == "path" and bool(r.true_path) for r in records),
        "false_paths": figures["false_paths"],
        "solved": figures["solved"],
        "solvable_within_6_hops": figures["solvable"],
        "success_rate": figures["success_rate"],
        "mean_paid_calls": round(
            figures["mean_search_calls"] + figures["mean_recognition_calls"] + figures["mean_llm_calls"], 3
        ),
        "mean_search_calls": figures["mean_search_calls"],
        "mean_recognition_calls": figures["mean_recognition_calls"],
        "mean_llm_calls": figures["mean_llm_calls"],
        "mean_cost_usd": figures["mean_cost_usd"],
        "cpu_ms_p50": figures["cpu_ms_p50"],
        "cpu_ms_p95": figures["cpu_ms_p95"],
        "world_load_s": round(loaded - started, 3),
        "truth_build_s": round(truth_built - loaded, 3),
        "peak_rss_mb": peak_rss_mb(),
    }


def in_fresh_process(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, *args], check=True, capture_output=True, text=True, timeout=1800
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--world", type=Path, default=WORLDS / "cast.G.txt")
    parser.add_argument(
        "--load-worlds", nargs="+", type=Path, default=[WORLDS / "cast.G.txt", WORLDS / "movies.txt"]
    )
    parser.add_argument("--sample", type=int, default=100)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks"))
    parser.add_argument("--measure-load", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--measure-bench", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--strategy", default="default", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure_load:
        print(json.dumps(measure_load(args.measure_load)))
        return 0
    if args.measure_bench:
        print(json.dumps(measure_bench(args.measure_bench, args.strategy, args.sample, args.seed)))
        return 0

    loads = [in_fresh_process("--measure-load", str(world)) for world in args.load_worlds]
    runs = [
        in_fresh_process(
            "--measure-bench",
            str(args.world),
            "--strategy",
            strategy,
            "--sample",
            str(args.sample),
            "--seed",
            str(args.seed),
        )
        for strategy in ("seed", "default")
    ]
    from visual_degrees_tools.bench import machine_state

    lines = [
        f"# Issue 2 figures: {args.world.name}, {args.sample} pairs from the largest connected group",
        "",
        f"Generated by `python scripts/bench_figures.py` (sample seed {args.seed}, default budgets, "
        "photo web seed 0); every number below was measured in its own process.",
        "",
        f"Machine: {json.dumps(machine_state())}",
        "",
        "| figure | " + " | ".join(r["strategy"] for r in runs) + " |",
        "|---|" + "---|" * len(runs),
    ]
    for key in (
        "pairs",
        "paths_found",
        "paths_true",
        "false_paths",
        "solvable_within_6_hops",
        "solved",
        "success_rate",
        "mean_paid_calls",
        "mean_search_calls",
        "mean_recognition_calls",
        "mean_llm_calls",
        "mean_cost_usd",
        "cpu_ms_p50",
        "cpu_ms_p95",
        "world_load_s",
        "truth_build_s",
        "peak_rss_mb",
    ):
        lines.append(f"| {key} | " + " | ".join(str(r[key]) for r in runs) + " |")
    lines += ["", "World loading (world file + photo web), each in a fresh process:", ""]
    lines += [
        "| world | people | events | photos | load_world_s | photo_web_s | world_load_s | peak_rss_mb |"
    ]
    lines += ["|---|---|---|---|---|---|---|---|"]
    for load in loads:
        lines.append(
            "| "
            + " | ".join(
                str(load[k])
                for k in (
                    "world",
                    "people",
                    "events",
                    "photos",
                    "load_world_s",
                    "photo_web_s",
                    "world_load_s",
                    "peak_rss_mb",
                )
            )
            + " |"
        )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "issue2-figures.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (args.out / "issue2-figures.json").write_text(json.dumps({"runs": runs, "loads": loads}, indent=2) + "\n")
    print("\n".join(lines))
    return 1 if any(r["false_paths"] for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
