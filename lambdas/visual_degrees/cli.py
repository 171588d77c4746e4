"""`visual-degrees`: run an investigation on this machine, read past runs, check providers.

Exit codes: 0 a path was found · 3 an honest no_path · 2 bad input · 1 the run failed · 4 cancelled.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from visual_degrees.domain.errors import InvalidInput, RunNotFound, VisualDegreesError

EXIT_PATH, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_NO_PATH, EXIT_CANCELLED = 0, 1, 2, 3, 4
EXIT_CODES = {"path": EXIT_PATH, "no_path": EXIT_NO_PATH, "error": EXIT_FAILED, "cancelled": EXIT_CANCELLED}


def default_state_dir() -> Path:
    if env := os.environ.get("VISUAL_DEGREES_STATE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "visual-degrees"


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is negative")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number of seconds")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="visual-degrees",
        description="Find a chain of people from A to B where every link is a photo of both.",
    )
    parser.add_argument("--state-dir", type=Path, default=None, help="where local runs are kept")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="investigate a chain from A to B")
    run.add_argument("person_a", metavar="A")
    run.add_argument("person_b", metavar="B")
    run.add_argument(
        "--world", type=Path, help="world file (cast lines or JSON lines); default: the bundled one"
    )
    run.add_argument("--seed", type=_count, default=0, help="seed of the simulated photo web")
    run.add_argument("--faults", default="", help='fault injection, e.g. "search_5xx=0.1,dead_link=0.05"')
    run.add_argument("--providers", choices=["sandbox", "live"], default="sandbox")
    run.add_argument("--strategy", choices=["default", "seed"], default="default")
    run.add_argument("--max-hops", type=_count, default=6)
    run.add_argument("--images-per-search", type=_count, default=5)
    run.add_argument("--threshold", type=float, default=80.0)
    run.add_argument("--budget-searches", type=_count, default=20)
    run.add_argument("--budget-recognitions", type=_count, default=120)
    run.add_argument("--budget-llm", type=_count, default=12)
    run.add_argument("--budget-runtime", type=_seconds, default=120.0, help="seconds")
    run.add_argument("--json", action="store_true", help="events as JSON lines")

    trace = sub.add_parser("trace", help="print the execution history of a past local run")
    trace.add_argument("run_id", nargs="?", help="a run id; omit to list recent runs")
    trace.add_argument("--json", action="store_true")

    sub.add_parser("doctor", help="which providers are configured and reachable (no secrets printed)")
    return parser


def _options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "maxHops": args.max_hops,
        "imagesPerSearch": args.images_per_search,
        "threshold": args.threshold,
        "strategy": args.strategy,
        "budgets": {
            "searches": args.budget_searches,
            "recognitions": args.budget_recognitions,
            "llmCalls": args.budget_llm,
            "runtimeSeconds": args.budget_runtime,
        },
    }


def cmd_run(args: argparse.Namespace, state_dir: Path) -> int:
    from visual_degrees.adapters.sqlite_memory import SqliteMemory
    from visual_degrees.domain.requests import parse_options, validate_pair
    from visual_degrees.local import environments
    from visual_degrees.local.console import ConsoleSink, summary
    from visual_degrees.local.runner import LocalRunner

    # Everything is checked before the state directory is touched: bad input writes nothing.
    a, b = validate_pair(args.person_a, args.person_b)
    options = parse_options(_options(args))
    if args.providers == "live":
        environment = environments.live_environment()
    else:
        environment = environments.sandbox_environment(args.world, seed=args.seed, faults=args.faults)
        environments.require_known(environment, a.name, b.name)
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
    return EXIT_CODES[result.outcome]


def cmd_trace(args: argparse.Namespace, state_dir: Path) -> int:
    from visual_degrees.adapters.sqlite_memory import SqliteMemory
    from visual_degrees.local.runner import LocalRunner
    from visual_degrees.local.trace import format_history, format_runs

    path = state_dir / "memory.sqlite3"
    if not path.exists():
        raise RunNotFound(f"no local runs yet (looked in {state_dir})")
    memory = SqliteMemory(path)
    try:
        runner = LocalRunner(memory, environment=lambda _run_id: None)  # type: ignore[arg-type,return-value]
        if not args.run_id:
            runs = runner.recent_runs()
            print(json.dumps(runs, indent=2) if args.json else format_runs(runs))
            return 0
        summary_, history = runner.history(args.run_id)
        if args.json:
            print(json.dumps({"summary": summary_, "events": history}, indent=2, ensure_ascii=False))
        else:
            print(format_history(summary_, history))
        return 0
    finally:
        memory.close()


def cmd_doctor(args: argparse.Namespace, state_dir: Path) -> int:
    from visual_degrees.config import Settings
    from visual_degrees.doctor import format_report, run_doctor

    checks = run_doctor(Settings())
    print(format_report(checks))
    return 0 if all(c.ok for c in checks) else EXIT_FAILED


COMMANDS = {"run": cmd_run, "trace": cmd_trace, "doctor": cmd_doctor}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    state_dir = args.state_dir or default_state_dir()
    try:
        return COMMANDS[args.command](args, state_dir)
    except InvalidInput as exc:
        print(f"visual-degrees: error: {exc.message}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except RunNotFound as exc:
        print(f"visual-degrees: {exc.message}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except VisualDegreesError as exc:
        print(f"visual-degrees: {exc.code}: {exc.message}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `visual-degrees trace … | head`: the reader left; not an error
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
