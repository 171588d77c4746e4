"""`visual-degrees trace [RUN_ID]`: the execution history of a past local run (or the list of runs)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from visual_degrees_tools.commands.common import past_runs

NAME = "trace"
HELP = "print the execution history of a past local run"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "run_id",
        nargs="?",
        metavar="RUN_ID",
        help="a run id (as `run` prints it; a continued run shows each of its executions); omit to "
        "list recent runs",
    )
    parser.add_argument(
        "--json", action="store_true", help="as JSON (the history as Step Functions gives it)"
    )


def main(args: argparse.Namespace, state_dir: Path) -> int:
    from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
    from visual_degrees_tools.local.runner import ExecutionStore
    from visual_degrees_tools.local.trace import format_history, format_runs

    path = past_runs(state_dir)
    with SqliteMemory(path) as memory:
        store = ExecutionStore(memory)
        if not args.run_id:
            runs = store.recent_runs()
            print(json.dumps(runs, indent=2) if args.json else format_runs(runs))
            return 0
        # A continued run has one execution per segment, shown in order; an execution's own name
        # (`RUN_ID--c1`) shows that one.
        record = store.run_record(args.run_id)
        names = store.executions(args.run_id) if record is not None else [args.run_id]
        histories = [store.history(name) for name in names]
        if args.json:
            (summary, history), *more = histories
            shown: dict[str, object] = {"summary": summary, "events": history}
            if more:
                shown["continuations"] = [{"summary": s, "events": e} for s, e in more]
            print(json.dumps(shown, indent=2, ensure_ascii=False))
        else:
            print("\n\n".join(format_history(summary, history) for summary, history in histories))
    return 0
