"""Exit codes and argument types shared by the subcommands."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from visual_degrees.domain.outcomes import BY_OUTCOME

# A run's own endings have their exit codes in domain/outcomes.py (0 path, 3 no_path, 4 cancelled,
# 1 error); these are the command's own.
EXIT_FAILED = BY_OUTCOME["error"].exit_code
EXIT_BAD_INPUT = 2


def default_state_dir() -> Path:
    if env := os.environ.get("VISUAL_DEGREES_STATE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "visual-degrees"


def count(text: str) -> int:
    """A whole number >= 0 (budgets, hops, seeds)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is negative")
    return value


def number(text: str, what: str = "a number") -> float:
    """A finite or infinite float; argparse's error names `what` was expected."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def seconds(text: str) -> float:
    value = number(text, "a number of seconds")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number of seconds")
    return value


def add_world_options(parser: argparse.ArgumentParser) -> None:
    """--world/--seed/--faults: which simulated photo web a command runs against."""
    parser.add_argument("--world", type=Path, help="world file (cast or JSON lines); default: bundled")
    parser.add_argument("--seed", type=count, default=0, help="seed of the simulated photo web")
    parser.add_argument("--faults", default="", help='fault injection, e.g. "search_5xx=0.1,dead_link=0.05"')


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """--strategy/--max-hops/--budget-*: the per-run options both `run` and `bench` take."""
    parser.add_argument("--strategy", choices=["default", "seed"], default="default")
    parser.add_argument("--max-hops", type=count, default=6)
    parser.add_argument("--budget-searches", type=count, default=20)
    parser.add_argument("--budget-recognitions", type=count, default=120)
    parser.add_argument("--budget-llm", type=count, default=12)
    parser.add_argument("--budget-runtime", type=seconds, default=120.0, help="seconds")


def run_options(args: argparse.Namespace, **extra: Any) -> dict[str, Any]:
    """The options of `add_run_options` as RunOptions fields (validated by domain/requests)."""
    return {
        "maxHops": args.max_hops,
        "strategy": args.strategy,
        "budgets": {
            "searches": args.budget_searches,
            "recognitions": args.budget_recognitions,
            "llmCalls": args.budget_llm,
            "runtimeSeconds": args.budget_runtime,
        },
        **extra,
    }
