"""`visual-degrees doctor`: is the sandbox ready, which live providers are configured and reachable;
never prints secrets. Exit 1 only for what is configured and broken (or, with --require-live, while
live mode is not ready)."""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "doctor"
HELP = "is the sandbox ready, which live providers are configured and reachable (no secrets printed)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--offline", action="store_true", help="check configuration only, make no calls")
    parser.add_argument(
        "--require-live",
        action="store_true",
        help="fail (exit 1) unless live mode is ready, not only when something configured is broken",
    )


def main(args: argparse.Namespace, state_dir: Path) -> int:
    from visual_degrees.config import load_settings
    from visual_degrees_tools.doctor import check_sandbox, format_report, run_doctor, verdict_code

    sandbox = check_sandbox(state_dir)
    checks = run_doctor(load_settings(), network=not args.offline)
    print(format_report(checks, sandbox))
    return verdict_code(checks, sandbox, require_live=args.require_live)
