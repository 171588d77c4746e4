"""`visual-degrees bench`: many pairs through the real state machine on the simulated photo web,
every answer checked against the simulator's ground truth; figures on stdout (one JSON object with
--json), a Markdown report and a plot with --out, progress on stderr.

Exit code 0, or 1 when any reported path was false (a benchmark that finds one has failed).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from visual_degrees_tools.commands.common import (
    EXIT_FAILED,
    add_run_options,
    add_web_option,
    count,
    start_options,
)
from visual_degrees_tools.sandbox_options import TIERS, Tier

NAME = "bench"
HELP = "benchmark a strategy on many pairs, checked against the simulator's ground truth"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--world",
        type=Path,
        metavar="PATH",
        help="world file (cast lines or JSON lines; default: the bundled synthetic world)",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--pairs", type=Path, metavar="FILE", help='the pairs to try: JSON lines {"a": "...", "b": "..."}'
    )
    source.add_argument("--sample", type=count, metavar="N", help="N pairs drawn from the --tier's people")
    source.add_argument(
        "--stream",
        type=count,
        metavar="N",
        help="N questions asked in order on one memory, each person drawn with weight 1/rank among the "
        "world's 400 most credited (--seed): prints the cost by tens, and --out writes stream.png",
    )
    parser.add_argument(
        "--tier",
        choices=TIERS,
        default=None,
        help="whom --sample draws from: uniform (anyone in the largest connected group), famous (the "
        "100 people most photographed with others), known (those ranked 300-3000); see "
        "docs/benchmarks/README.md (default: uniform)",
    )
    parser.add_argument("--seed", type=count, default=0, metavar="N", help="seed of the --sample draw")
    parser.add_argument(
        "--web-seed", type=count, default=0, metavar="N", help="seed of the simulated photo web"
    )
    add_web_option(parser)
    parser.add_argument(
        "--faults", default="", metavar="SPEC", help='fault injection, e.g. "search_5xx=0.1" (default: none)'
    )
    parser.add_argument(
        "--planner-recall",
        type=float,
        default=1.0,
        metavar="R",
        help="scale what the simulated planner remembers (default 1.0, as documented; 0.3: knows less)",
    )
    add_run_options(parser)
    parser.add_argument(
        "--knobs",
        default="",
        metavar="NAME=off,…",
        help="switch strategy knobs, e.g. both_ends=off (ablations; default: none)",
    )
    parser.add_argument(
        "--shared-memory",
        action="store_true",
        help="one run memory for all pairs (measures reuse across runs; reported as such)",
    )
    parser.add_argument("--json", action="store_true", help="the figures as one JSON object on stdout")
    parser.add_argument(
        "--out", type=Path, metavar="DIR", help="directory for report.md, plot.png and the runs"
    )


def main(args: argparse.Namespace, state_dir: Path) -> int:
    from visual_degrees.domain.errors import InvalidInput
    from visual_degrees.domain.strategy import parse_knob_changes, with_changes
    from visual_degrees_tools.bench import (
        Bench,
        BenchConfig,
        Truth,
        load_pairs,
        machine_state,
        sample_pairs,
    )
    from visual_degrees_tools.bench.report import progress_printer
    from visual_degrees_tools.bench.stream import STREAM_TOP, plot_stream, stream_figures, stream_pairs
    from visual_degrees_tools.local.environments import sandbox_environment

    options = start_options(args)
    knobs = parse_knob_changes(args.knobs)
    with_changes(args.strategy, knobs)  # an unknown knob is bad input, before anything is loaded
    started = time.perf_counter()
    if not 0.0 <= args.planner_recall <= 1.0:
        raise InvalidInput("--planner-recall must be between 0 and 1")
    if args.pairs is not None and args.tier is not None:
        raise InvalidInput("--tier chooses whom --sample draws from; a --pairs file names its own pairs")
    environment = sandbox_environment(
        args.world,
        seed=args.web_seed,
        faults=args.faults or None,
        planner_recall=args.planner_recall,
        web=args.web,
        dated=False,  # every run from EPOCH: the figures never depend on the day they are measured
    )
    loaded = time.perf_counter()
    truth = Truth(environment.web, threshold=options.threshold)
    truth_built = time.perf_counter()
    if args.pairs is not None:
        pairs = load_pairs(args.pairs, environment.web)
        source: dict[str, Any] = {"pairs_file": str(args.pairs)}
    elif args.stream is not None:
        if args.tier is not None:
            raise InvalidInput("--tier chooses whom --sample draws from; --stream draws by fame")
        pairs = stream_pairs(environment.web, args.stream, args.seed)
        source = {"stream": args.stream, "sample_seed": args.seed, "stream_top": STREAM_TOP}
    else:
        tier: Tier = args.tier or "uniform"
        pairs = sample_pairs(environment.web, args.sample, args.seed, tier)
        source = {"sample": args.sample, "sample_seed": args.seed, "tier": tier}
    streamed = args.stream is not None
    config = BenchConfig(
        strategy=args.strategy, options=options, knobs=knobs, shared_memory=args.shared_memory or streamed
    )
    result = Bench(environment, truth).run(pairs, config, progress_printer(args.strategy))
    figures = result.figures
    if streamed:
        figures.update(stream_figures(result.records))
    figures.update(
        {
            "world": str(args.world or "bundled synthetic world"),
            **source,
            "web_seed": args.web_seed,
            "web": args.web,
            "faults": args.faults,
            "planner_recall": args.planner_recall,
            "world_load_s": round(loaded - started, 3),
            "truth_build_s": round(truth_built - loaded, 3),
            "bench_wall_s": round(time.perf_counter() - started, 3),
            "machine": machine_state(),
        }
    )
    if args.out is not None:
        _write_report(args, figures, source, result)
        if streamed:
            world = args.world.name if args.world else "bundled world"
            title = f"{args.stream} questions in order, {world} ({args.web} web)"
            plot_stream(args.out / "stream.png", title, figures)
    _print(figures, as_json=args.json)
    return EXIT_FAILED if figures["false_paths"] else 0


def _write_report(
    args: argparse.Namespace, figures: dict[str, Any], source: dict[str, Any], result: Any
) -> None:
    from visual_degrees_tools.bench import Section
    from visual_degrees_tools.bench.report import write_report

    context = {
        "command": "visual-degrees bench " + " ".join(shlex.quote(a) for a in sys.argv[2:]),
        **source,
        "machine": figures["machine"],
    }
    report = write_report(
        args.out, f"Benchmark: {figures['world']}", [Section(args.strategy, figures, result.records)], context
    )
    print(f"report: {report}", file=sys.stderr)


def _print(figures: dict[str, Any], *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(figures, ensure_ascii=False))
        return
    for key, value in figures.items():
        shown = json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else value
        print(f"{key:28} {shown}")
