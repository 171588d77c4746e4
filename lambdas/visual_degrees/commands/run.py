"""`visual-degrees run A B`: one investigation, events streamed as they happen."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from visual_degrees.commands.common import add_run_options, add_world_options, count, run_options
from visual_degrees.domain.outcomes import BY_OUTCOME

NAME = "run"
HELP = "investigate a chain from A to B"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("person_a", metavar="A")
    parser.add_argument("person_b", metavar="B")
    add_world_options(parser)
    parser.add_argument("--providers", choices=["sandbox", "live"], default="sandbox")
    add_run_options(parser)
    parser.add_argument("--images-per-search", type=count, default=5)
    parser.add_argument("--threshold", type=float, default=80.0)
    parser.add_argument("--json", action="store_true", help="events as JSON lines")


def options_of(args: argparse.Namespace) -> dict[str, Any]:
    return run_options(args, imagesPerSearch=args.images_per_search, threshold=args.threshold)


def main(args: argparse.Namespace, state_dir: Path) -> int:
    from visual_degrees.adapters.local.sqlite_memory import SqliteMemory
    from visual_degrees.domain.requests import parse_options, validate_pair
    from visual_degrees.local import environments
    from visual_degrees.local.console import ConsoleSink, summary
    from visual_degrees.local.runner import LocalRunner

    # Everything is checked before the state directory is touched: bad input writes nothing.
    a, b = validate_pair(args.person_a, args.person_b)
    options = parse_options(options_of(args))
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
            print(summary(result.final))
        print(f"run id {result.run_id}  (visual-degrees trace {result.run_id})")
    return BY_OUTCOME[result.outcome].exit_code
