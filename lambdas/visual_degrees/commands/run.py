"""`visual-degrees run A B`: one investigation, events streamed as they happen."""

from __future__ import annotations

import argparse
from pathlib import Path

from visual_degrees.commands.common import (
    add_run_options,
    add_world_options,
    finite,
    parse_run_options,
    whole,
)
from visual_degrees.domain.outcomes import BY_OUTCOME

NAME = "run"
HELP = "investigate a chain from A to B"
DESCRIPTION = """\
Look for a chain of people from A to B in which every link is one photo of both, recognised at
>= the threshold. Events stream as they happen; the path and its evidence close the run.

examples:
  visual-degrees run "Vesna Hawthorne" "Niall Halloran"
  visual-degrees run "Kevin Bacon" "Julie Andrews" --world ../shared/data/worlds/cast.G.txt

exit codes: 0 a path was found, 3 no path within the limits, 2 bad input, 1 the run failed,
4 cancelled"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "person_a",
        metavar="A",
        help='the first person, as people say it ("Kevin Bacon") or as the world file writes it',
    )
    parser.add_argument("person_b", metavar="B", help="the second person")
    add_world_options(parser)
    parser.add_argument(
        "--providers",
        choices=["sandbox", "live"],
        default="sandbox",
        help="sandbox: the simulated photo web (no keys, no network); live: real image search, "
        "Rekognition and an LLM (see visual-degrees doctor)",
    )
    add_run_options(parser)
    parser.add_argument(
        "--images-per-search",
        type=whole,
        default=5,
        metavar="N",
        help="images recognised per search, 1 to 20",
    )
    parser.add_argument(
        "--threshold",
        type=finite,
        default=80.0,
        metavar="T",
        help="minimum face confidence (50 to 100) for both people in one photo",
    )
    parser.add_argument("--json", action="store_true", help="events as JSON lines on stdout")


def main(args: argparse.Namespace, state_dir: Path) -> int:
    from visual_degrees.adapters.local.sqlite_memory import SqliteMemory
    from visual_degrees.domain.requests import validate_pair
    from visual_degrees.local import environments
    from visual_degrees.local.console import ConsoleSink, summary
    from visual_degrees.local.runner import LocalRunner

    # Everything is checked before the state directory is touched: bad input writes nothing.
    a, b = validate_pair(args.person_a, args.person_b)
    options = parse_run_options(args, imagesPerSearch=args.images_per_search, threshold=args.threshold)
    if args.providers == "live":
        environment = environments.live_environment()
    else:
        sandbox = environments.sandbox_environment(args.world, seed=args.seed, faults=args.faults)
        environments.require_known(sandbox, a.name, b.name)
        environment = sandbox
    memory = SqliteMemory(state_dir / "memory.sqlite3")
    sink = ConsoleSink(as_json=args.json)
    try:
        result = LocalRunner(memory, environment).run(a.name, b.name, options, sink=sink)
    finally:
        sink.close()
        memory.close()
    if not args.json:
        if result.final is not None:
            print(summary(result.final, simulated=args.providers == "sandbox"))
        print(f"run id {result.run_id}  (visual-degrees trace {result.run_id})")
    return BY_OUTCOME[result.outcome].exit_code
