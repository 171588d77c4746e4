"""`visual-degrees doctor`: which live providers are configured and reachable; never prints secrets."""

from __future__ import annotations

import argparse
from pathlib import Path

from visual_degrees.commands.common import EXIT_FAILED

NAME = "doctor"
HELP = "which providers are configured and reachable (no secrets printed)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--offline", action="store_true", help="check configuration only, make no calls")


def main(args: argparse.Namespace, state_dir: Path) -> int:
    from visual_degrees.config import load_settings
    from visual_degrees.doctor import format_report, run_doctor

    checks = run_doctor(load_settings(), network=not args.offline)
    print(format_report(checks))
    return 0 if all(c.ok for c in checks if c.selected) else EXIT_FAILED
