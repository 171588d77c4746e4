"""`visual-degrees show RUN_ID`: a past run's answer again, as `run` printed it when it ended: the
chain with each link's photo (image and page), its event when the evidence names one, and its
confidences; or how the run ended without one; what it ruled out, what it spent, and what to do
next. `trace` is the other view of the same run: how it ran, state by state.

The answer comes from the ending each execution keeps beside its history (local/executions.py), so
it outlives the run's memory; runs recorded before that was kept are read from their event log
while it lasts."""

from __future__ import annotations

import argparse
import json
from functools import partial
from pathlib import Path
from typing import Any

from visual_degrees.domain.errors import InvalidInput, RunNotFound
from visual_degrees.domain.wording import plural
from visual_degrees_tools.commands.common import again_command, past_runs

NAME = "show"
HELP = "print a past local run's answer again (its chain and photos, or how it ended)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "run_id", metavar="RUN_ID", help="a run id, as `run` prints it (`visual-degrees trace` lists them)"
    )
    parser.add_argument("--json", action="store_true", help="the run's record and its ending, as JSON")


def main(args: argparse.Namespace, state_dir: Path) -> int:
    from visual_degrees.lifecycle.run_memory import RunControl
    from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
    from visual_degrees_tools.local.console import next_steps, summary
    from visual_degrees_tools.local.executions import ExecutionStore
    from visual_degrees_tools.local.runner import latest_ending

    run_id = str(args.run_id)
    path = past_runs(state_dir)
    with SqliteMemory(path) as memory:
        store = ExecutionStore(memory)
        record = store.run_record(run_id)
        if record is None:
            if RunControl(memory, run_id, 60).meta() is not None:
                raise InvalidInput(f"run {run_id} has not ended yet; show it again once it has")
            raise RunNotFound(f"no run {run_id!r} here; `visual-degrees trace` lists the recent runs")
        executions = [str(name) for name in record.get("executions", [run_id])]
        ending = store.ending(executions[-1]) or latest_ending(memory, run_id)
    if args.json:
        shown = {"run": record, "ending": ending.dump() if ending else None}
        print(json.dumps(shown, indent=2, ensure_ascii=False))
        return 0
    print(_heading(run_id, record, len(executions) - 1))
    if ending is None:
        print("How the run ended was not kept (its memory has expired).")
    else:
        again = partial(again_command, str(record.get("personA")), str(record.get("personB")), record)
        print(summary(ending, simulated=record.get("clock") == "simulated"))
        for line in next_steps(ending, again):
            print(line)
    print(f"how it ran, state by state: visual-degrees trace {run_id}")
    return 0


def _heading(run_id: str, record: dict[str, Any], continued: int) -> str:
    from visual_degrees_tools.local.trace import outcome_words, started

    facts = [
        f"started {started(record)}",
        f"world {record.get('world') or '?'}",
        outcome_words(record["outcome"]),
    ]
    if continued:
        facts.append(f"continued {plural(continued, 'time')}")
    return f"Run {run_id}: {record.get('personA')} → {record.get('personB')}\n" + " · ".join(facts)
