"""`visual-degrees run A B`: one investigation, events streamed as they happen; `run --continue RUN_ID`
continues one that stopped on a budget."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from visual_degrees.domain.errors import InvalidInput
from visual_degrees.domain.outcomes import BY_OUTCOME
from visual_degrees_tools.commands.common import (
    add_run_options,
    add_world_options,
    again_command,
    budget_options,
    finite,
    memory_file,
    parse_run_options,
    past_runs,
    start_options,
    whole,
)
from visual_degrees_tools.sandbox_options import DEFAULT_WEB

if TYPE_CHECKING:
    from visual_degrees.ports import Memory
    from visual_degrees_tools.local.environments import SandboxEnvironment
    from visual_degrees_tools.local.executions import ExecutionStore
    from visual_degrees_tools.local.runner import RunEnvironment, RunResult

NAME = "run"
HELP = "investigate a chain from A to B (or continue one)"
DESCRIPTION = """\
Look for a chain of people from A to B in which every link is one photo of both, recognised at
>= the threshold. Events stream as they happen; the path and its evidence close the run.

A run that stopped because a budget ran out can be continued: `--continue RUN_ID` picks it up where
it stopped, on the photo web it was made on (nothing it searched is searched again, no photo is
recognised twice), with the run's own budgets again unless --budget-* say otherwise.
--via NAME names someone you believe connects A and B: their photos with A and with B are looked
for first (a hint; only photos make links).

examples:
  visual-degrees run "Vesna Hawthorne" "Niall Halloran"
  visual-degrees run "Kevin Bacon" "Julie Andrews" --world ../shared/data/worlds/cast.G.txt
  visual-degrees run --continue 20261123T052308-237b3e --budget-searches 20
  visual-degrees run --continue 20261123T052308-237b3e --via "Jim Cummings"

exit codes: 0 a path was found, 3 no path within the limits, 2 bad input (or a run that cannot be
continued), 1 the run failed, 4 cancelled"""

# What a continuation cannot change: it goes on with the run's own options.
FIXED_IN_CONTINUATION = {
    "strategy": "--strategy",
    "max_hops": "--max-hops",
    "images_per_search": "--images-per-search",
    "threshold": "--threshold",
}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "person_a",
        metavar="A",
        nargs="?",
        help='the first person, as people say it ("Kevin Bacon") or as the world file writes it',
    )
    parser.add_argument("person_b", metavar="B", nargs="?", help="the second person")
    parser.add_argument(
        "--continue",
        dest="continue_run",
        metavar="RUN_ID",
        help="continue a run that stopped on a budget, instead of starting one (no A and B)",
    )
    parser.add_argument(
        "--via",
        metavar="NAME",
        help="someone you believe connects A and B: checked first (a hint, never a link)",
    )
    add_world_options(parser, continuing=True)
    parser.add_argument(
        "--providers",
        choices=["sandbox", "live"],
        default=None,
        help="sandbox: the simulated photo web (no keys, no network); live: real image search, "
        "Rekognition and an LLM (see visual-degrees doctor); with --continue: the run's own "
        "(default: sandbox)",
    )
    add_run_options(parser, continuing=True)
    parser.add_argument(
        "--images-per-search",
        type=whole,
        default=None,
        metavar="N",
        help="images recognised per search, 1 to 20 (default: 5)",
    )
    parser.add_argument(
        "--threshold",
        type=finite,
        default=None,
        metavar="T",
        help="minimum face confidence (50 to 100) for both people in one photo (default: 80)",
    )
    parser.add_argument("--json", action="store_true", help="events as JSON lines on stdout")


def main(args: argparse.Namespace, state_dir: Path) -> int:
    if args.continue_run is not None:
        return _continue(args, state_dir)
    return _start(args, state_dir)


def _start(args: argparse.Namespace, state_dir: Path) -> int:
    from visual_degrees.domain.requests import validate_hint, validate_pair
    from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
    from visual_degrees_tools.commands import unknown_names
    from visual_degrees_tools.local import environments
    from visual_degrees_tools.local.console import ConsoleSink
    from visual_degrees_tools.local.runner import LocalRunner

    if args.person_a is None or args.person_b is None:
        raise InvalidInput("name two people, A and B (or continue a run: --continue RUN_ID)")
    # Everything is checked before the state directory is touched: bad input writes nothing.
    a, b = validate_pair(args.person_a, args.person_b)
    hint = validate_hint(args.via, a, b).name if args.via is not None else None
    options = start_options(args, imagesPerSearch=args.images_per_search, threshold=args.threshold, via=hint)
    providers = args.providers or "sandbox"
    recorded: dict[str, Any] = {"providers": providers}
    if providers == "live":
        environment = environments.live_environment()
    else:
        sandbox = environments.sandbox_environment(
            args.world, seed=args.seed, faults=args.faults, web=args.web or DEFAULT_WEB
        )
        names = [a.name, b.name, *([hint] if hint else [])]
        unknown_names.require_known(sandbox, names, args.world)
        environment = sandbox
        recorded.update(sandbox.recorded)  # what `run --continue` needs to make its photo web again
    memory = SqliteMemory(memory_file(state_dir))
    sink = ConsoleSink(as_json=args.json)
    try:
        runner = LocalRunner(memory, environment)
        result = runner.run(a.name, b.name, options, sink=sink, recorded=recorded)
    finally:
        sink.close()
        memory.close()
    again = partial(again_command, a.name, b.name, {**recorded, "options": options.dump()})
    return _close(args, result, simulated=providers == "sandbox", again=again)


def _continue(args: argparse.Namespace, state_dir: Path) -> int:
    from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
    from visual_degrees_tools.local.console import ConsoleSink
    from visual_degrees_tools.local.executions import ExecutionStore
    from visual_degrees_tools.local.runner import LocalRunner

    run_id = str(args.continue_run)
    if args.person_a is not None:
        raise InvalidInput("--continue goes on with the run's own A and B: name no people")
    fixed = [flag for dest, flag in FIXED_IN_CONTINUATION.items() if getattr(args, dest) is not None]
    if fixed:
        raise InvalidInput(
            f"{', '.join(fixed)} cannot change when continuing a run: it goes on with its own options"
        )
    parse_run_options(args)  # the budgets given, checked in the command line's words
    path = past_runs(state_dir)
    memory = SqliteMemory(path)
    sink = ConsoleSink(as_json=args.json)
    try:
        store = ExecutionStore(memory)
        record = store.run_record(run_id) or {}
        environment, recorded, simulated = _environment_of(args, memory, store, run_id, record)
        result = LocalRunner(memory, environment).continue_run(
            run_id, budgets=budget_options(args) or None, via=args.via, sink=sink, recorded=recorded
        )
    finally:
        sink.close()
        memory.close()
    again = partial(
        again_command, str(record.get("personA")), str(record.get("personB")), {**record, **recorded}
    )
    return _close(args, result, simulated=simulated, again=again)


def _environment_of(
    args: argparse.Namespace, memory: Memory, store: ExecutionStore, run_id: str, record: dict[str, Any]
) -> tuple[Any, dict[str, Any], bool]:
    """The photo web the run was made on (the one its record names, or --world/--seed/--faults),
    checked against the run's own: a photo proves a link only in the web it was found in."""
    from visual_degrees.domain.errors import RunNotFound
    from visual_degrees.lifecycle.run_memory import RunControl
    from visual_degrees_tools.commands import unknown_names
    from visual_degrees_tools.local import environments

    meta = RunControl(memory, run_id, 60).meta()
    if meta is None:
        raise RunNotFound(f"no run {run_id!r} here (or its memory has expired)")
    providers = args.providers or record.get("providers") or ("live" if meta.web == "live" else "sandbox")
    recorded: dict[str, Any] = {"providers": providers}
    if providers == "live":
        environment: Any = environments.live_environment()
    else:
        # A run recorded before the realistic web existed was made on the clean one.
        web = args.web or record.get("web", "clean")
        if args.world is not None or "worldPath" not in record:
            world, seed, faults = args.world, args.seed, args.faults
        else:
            found = record.get("worldPath")
            world, seed, faults = (
                (Path(found) if found else None),
                int(record.get("seed", 0)),
                record.get("faults", ""),
            )
        sandbox = environments.sandbox_environment(world, seed=seed, faults=faults, web=web)
        names = [str(meta.person_a), str(meta.person_b)]
        if args.via is not None:
            unknown_names.require_known(sandbox, [*names, args.via], world)
        environment = sandbox
        recorded.update(sandbox.recorded)
        _same_web(sandbox, run_id, meta.web or "", world)
    return environment, recorded, providers == "sandbox"


def _same_web(sandbox: SandboxEnvironment, run_id: str, web: str, world: Path | None) -> None:
    here = _web_of(sandbox(run_id))
    if web and here != web:
        shown = str(world) if world else "the bundled world"
        raise InvalidInput(
            f"run {run_id} was made on another photo web than {shown}; pass the --world (and --seed, "
            "--faults, --web) it was made with"
        )


def _web_of(environment: RunEnvironment) -> str:
    return environment.providers.web


def _close(args: argparse.Namespace, result: RunResult, *, simulated: bool, again: Callable[..., str]) -> int:
    from visual_degrees_tools.local.console import closing

    if not args.json:
        print(closing(result.run_id, result.final, simulated=simulated, again=again))
    return BY_OUTCOME[result.outcome].exit_code
