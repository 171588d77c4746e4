"""`visual-degrees`: run an investigation on this machine, read past runs, check providers, serve the
web page, benchmark strategies. Each subcommand lives in visual_degrees.commands.

Exit codes: 0 a path was found · 3 an honest no_path · 2 bad input · 1 the run failed · 4 cancelled.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module
from types import ModuleType

from visual_degrees.commands import COMMANDS
from visual_degrees.commands.common import EXIT_BAD_INPUT, EXIT_FAILED, default_state_dir
from visual_degrees.domain.errors import InvalidInput, RunNotFound, VisualDegreesError


def _commands() -> dict[str, ModuleType]:
    found = {}
    for name in COMMANDS:
        try:
            found[name] = import_module(f"visual_degrees.commands.{name}")
        except ModuleNotFoundError as exc:  # an optional subcommand whose module is not there
            if exc.name != f"visual_degrees.commands.{name}":
                raise
    return found


def build_parser(commands: dict[str, ModuleType]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="visual-degrees",
        description="Find a chain of people from A to B where every link is a photo of both.",
    )
    parser.add_argument("--state-dir", default=None, help="where local runs are kept")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, module in commands.items():
        module.configure(sub.add_parser(name, help=module.HELP))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    commands = _commands()
    args = build_parser(commands).parse_args(argv)
    from pathlib import Path

    state_dir = Path(args.state_dir) if args.state_dir else default_state_dir()
    try:
        return int(commands[args.command].main(args, state_dir))
    except (InvalidInput, RunNotFound) as exc:
        print(f"visual-degrees: error: {exc.message}", file=sys.stderr)
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
