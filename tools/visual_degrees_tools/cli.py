"""`visual-degrees`: run an investigation on this machine, read past runs, check providers, serve the
web page, benchmark strategies. Each subcommand lives in visual_degrees_tools.commands.

Exit codes: 0 a path was found · 3 an honest no_path · 2 bad input · 1 the run failed · 4 cancelled.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module
from types import ModuleType

from visual_degrees.domain.errors import InvalidInput, RunNotFound, VisualDegreesError
from visual_degrees_tools.commands import COMMANDS
from visual_degrees_tools.commands.common import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    HelpFormatter,
    Parser,
    add_state_dir,
    default_state_dir,
)


def _commands() -> dict[str, ModuleType]:
    found = {}
    for name in COMMANDS:
        try:
            found[name] = import_module(f"visual_degrees_tools.commands.{name}")
        except ModuleNotFoundError as exc:  # an optional subcommand whose module is not there
            if exc.name != f"visual_degrees_tools.commands.{name}":
                raise
    return found


EPILOG = """\
start here:
  visual-degrees run "Vesna Hawthorne" "Niall Halloran"      a chain in the bundled world (made-up people)
  visual-degrees run "Kevin Bacon" "Tom Hanks" --world FILE  real people: a world file of film credits
  visual-degrees show RUN_ID                                 a past run's answer again
  visual-degrees serve                                       the same in a browser, http://127.0.0.1:8765/
  visual-degrees doctor                                      what is ready: the sandbox, live providers

`visual-degrees COMMAND --help` lists a command's options and their defaults; --state-dir may come
before or after the command."""


def build_parser(commands: dict[str, ModuleType]) -> argparse.ArgumentParser:
    parser = Parser(
        prog="visual-degrees",
        description="Find a chain of people from A to B where every link is a photo of both.",
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    add_state_dir(parser, subcommand=False)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")
    for name, module in commands.items():
        command = sub.add_parser(
            name,
            help=module.HELP,
            description=getattr(module, "DESCRIPTION", module.HELP),
            formatter_class=HelpFormatter,
        )
        module.configure(command)
        add_state_dir(command, subcommand=True)
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("visual-degrees")
    except PackageNotFoundError:  # run from a source tree without installing
        return "(not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    commands = _commands()
    parser = build_parser(commands)
    if not (sys.argv[1:] if argv is None else argv):  # a bare `visual-degrees`: what it can do
        parser.print_help()
        return EXIT_BAD_INPUT
    args = parser.parse_args(argv)
    from pathlib import Path

    state_dir = Path(args.state_dir) if args.state_dir else default_state_dir()
    try:
        return int(commands[args.command].main(args, state_dir))
    except (InvalidInput, RunNotFound) as exc:
        print(f"visual-degrees: error: {exc.message}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except VisualDegreesError as exc:  # the message says what is wrong; its code is for programs
        print(f"visual-degrees: error: {exc.message}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `visual-degrees trace … | head`: the reader left; not an error
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
